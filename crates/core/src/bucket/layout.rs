//! Object keys of dial9's S3 uploader: which object is which segment.
//!
//! A bucket can mix three layouts (see `s3-layout.md`), all optionally below a
//! prefix of any depth:
//!
//! ```text
//! {prefix/}version=1/date=D/service=S/time=HHMM/instance=I/boot=B/{epoch}-{idx}.bin.gz   (v1, Hive %HH escaping)
//! {prefix/}D/HHMM/{service}/{instance}/{boot}/{epoch}-{idx}.bin.gz                     (positional)
//! {prefix/}D/HHMM/{service}/{instance}/{epoch}-{idx}.bin.gz                            (oldest positional, no boot)
//! ```
//!
//! Parsing fails closed: anything that carries a `version=` component but is not
//! a complete v1 key is reported as [`ParsedKey::Other`] with the reason, never
//! guessed at through the positional rules. Unknown keys stay visible that way.

use crate::civil::{civil_from_days, days_from_civil, days_in_month};
use std::fmt;

use serde::{Deserialize, Serialize};

/// Which key layout a segment was found under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// `version=1/date=/service=/time=/instance=/boot=/…` with `%HH` escaping.
    V1,
    /// `YYYY-MM-DD/HHMM/service/instance[/boot]/…`, unescaped.
    Positional,
}

/// A calendar date as written in keys (`YYYY-MM-DD`, proleptic Gregorian, UTC).
/// Only valid dates can be constructed, so `2026-02-30` is never a `KeyDate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct KeyDate {
    // Field order gives chronological `Ord`.
    year: u16,
    month: u8,
    day: u8,
}

impl KeyDate {
    /// Parses exactly `YYYY-MM-DD` (ASCII digits) naming a real day.
    pub fn parse(text: &str) -> Option<Self> {
        let b = text.as_bytes();
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        let year = u16::try_from(digits_value(&b[0..4])?).ok()?;
        let month = u8::try_from(digits_value(&b[5..7])?).ok()?;
        let day = u8::try_from(digits_value(&b[8..10])?).ok()?;
        Self::new(year, month, day)
    }

    pub fn new(year: u16, month: u8, day: u8) -> Option<Self> {
        let valid = year <= 9999
            && (1..=12).contains(&month)
            && day >= 1
            && i64::from(day) <= days_in_month(i64::from(year), i64::from(month));
        valid.then_some(Self { year, month, day })
    }

    /// The UTC date of a Unix time; `None` past year 9999 (no 4-digit form).
    pub fn from_epoch_secs(secs: u64) -> Option<Self> {
        let days = i64::try_from(secs / 86_400).ok()?;
        let (y, m, d) = civil_from_days(days);
        let year = u16::try_from(y).ok()?;
        Self::new(year, u8::try_from(m).ok()?, u8::try_from(d).ok()?)
    }

    /// Days since 1970-01-01 (negative before).
    pub fn days_since_epoch(&self) -> i64 {
        days_from_civil(i64::from(self.year), i64::from(self.month), i64::from(self.day))
    }

    pub fn year(&self) -> u16 {
        self.year
    }
    pub fn month(&self) -> u8 {
        self.month
    }
    pub fn day(&self) -> u8 {
        self.day
    }
}

impl fmt::Display for KeyDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl TryFrom<String> for KeyDate {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        Self::parse(&text).ok_or_else(|| format!("not a YYYY-MM-DD date: {text:?}"))
    }
}

impl From<KeyDate> for String {
    fn from(date: KeyDate) -> String {
        date.to_string()
    }
}

/// Hour and minute as written in keys (`HHMM`, 0000–2359, UTC).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct KeyTime {
    hour: u8,
    minute: u8,
}

impl KeyTime {
    /// Parses exactly four ASCII digits forming a valid time of day.
    pub fn parse(text: &str) -> Option<Self> {
        let b = text.as_bytes();
        if b.len() != 4 {
            return None;
        }
        let hour = u8::try_from(digits_value(&b[0..2])?).ok()?;
        let minute = u8::try_from(digits_value(&b[2..4])?).ok()?;
        Self::new(hour, minute)
    }

    pub fn new(hour: u8, minute: u8) -> Option<Self> {
        (hour < 24 && minute < 60).then_some(Self { hour, minute })
    }

    /// The UTC hour and minute of a Unix time.
    pub fn from_epoch_secs(secs: u64) -> Self {
        let of_day = secs % 86_400;
        // Both quotients are bounded (< 24, < 60), so the narrowing is exact.
        Self {
            hour: (of_day / 3600) as u8,
            minute: (of_day % 3600 / 60) as u8,
        }
    }

    pub fn hour(&self) -> u8 {
        self.hour
    }
    pub fn minute(&self) -> u8 {
        self.minute
    }
}

impl fmt::Display for KeyTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}{:02}", self.hour, self.minute)
    }
}

impl TryFrom<String> for KeyTime {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        Self::parse(&text).ok_or_else(|| format!("not an HHMM time: {text:?}"))
    }
}

impl From<KeyTime> for String {
    fn from(time: KeyTime) -> String {
        time.to_string()
    }
}

/// The facts a segment's key states. Only [`parse_key`] builds these from keys.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentKey {
    pub layout: Layout,
    /// The key text before the layout's first component: `""` at the bucket
    /// root, otherwise ending in `/` (e.g. `"dial9-traces/"`), so that
    /// `prefix + rest == key`.
    pub prefix: String,
    /// UTC date of the segment start, from the key.
    pub date: KeyDate,
    /// UTC hour+minute of the segment start, from the key.
    pub time: KeyTime,
    /// Service name after one layer of `%HH` decoding (v1); as written (positional).
    pub service: String,
    /// Service exactly as it appears in the key (what a listing prefix needs).
    pub service_raw: String,
    /// Host name, decoded; may contain `/` (`us-east-1/i-0abc123`).
    pub instance: String,
    /// Per-process boot id, decoded. Always present in v1 keys; `None` only for
    /// the oldest positional layout, which had no boot component.
    pub boot: Option<String>,
    /// Segment start, Unix seconds (the file name's first number).
    pub epoch_secs: u64,
    /// Segment index within the boot (restarts at 0 for each boot).
    pub segment_index: u64,
    /// `.bin.gz` (true) or `.bin` (false).
    pub gzip_suffix: bool,
}

impl SegmentKey {
    /// Whether `date`/`time` agree with `epoch_secs`. The uploader derives all
    /// three from the segment start, so a mismatch means a hand-made or foreign key.
    pub fn key_time_consistent(&self) -> bool {
        KeyDate::from_epoch_secs(self.epoch_secs) == Some(self.date)
            && KeyTime::from_epoch_secs(self.epoch_secs) == self.time
    }
}

/// The outcome of reading one key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ParsedKey {
    Segment(SegmentKey),
    /// Not a segment of any known layout; kept so the user sees it, with why.
    Other {
        reason: OtherReason,
    },
}

/// Why a key is not read as a segment.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum OtherReason {
    /// The key does not start with the prefix the catalog was asked to read.
    OutsidePrefix,
    /// A zero-length "folder" object (key ends in `/`).
    DirectoryMarker,
    /// `{prefix/}dumps/{dump_id}.json`: a triggered dump's manifest.
    DumpManifest { dump_id: String },
    /// The last component is not `{digits}-{digits}.bin[.gz]`.
    NotSegmentFileName,
    /// Has a `version=1` component but is not a complete v1 key. Never re-read
    /// as positional (fail closed).
    MalformedV1 { defect: V1Defect },
    /// A `version=N` component with a version this reader does not know.
    UnsupportedVersion { component: String },
    /// Segment-shaped file name after a `YYYY-MM-DD/HHMM` pair, but the
    /// service/instance components are missing or empty.
    MalformedPositional,
    /// Segment-shaped file name, but neither a v1 partition chain nor a
    /// `YYYY-MM-DD/HHMM` pair precedes it.
    NoLayout,
}

impl fmt::Display for OtherReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OutsidePrefix => f.write_str("outside the selected prefix"),
            Self::DirectoryMarker => f.write_str("folder marker object"),
            Self::DumpManifest { dump_id } => write!(f, "dump manifest {dump_id}"),
            Self::NotSegmentFileName => f.write_str("file name is not {epoch}-{index}.bin[.gz]"),
            Self::MalformedV1 { defect } => write!(f, "incomplete version=1 key: {defect}"),
            Self::UnsupportedVersion { component } => write!(f, "unsupported layout {component}"),
            Self::MalformedPositional => f.write_str("date/time folders without service and instance"),
            Self::NoLayout => f.write_str("segment file outside any known key layout"),
        }
    }
}

/// A v1 partition, in key order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Partition {
    Date,
    Service,
    Time,
    Instance,
    Boot,
}

impl Partition {
    const ORDER: [Partition; 5] = [Self::Date, Self::Service, Self::Time, Self::Instance, Self::Boot];

    pub fn name(self) -> &'static str {
        match self {
            Self::Date => "date",
            Self::Service => "service",
            Self::Time => "time",
            Self::Instance => "instance",
            Self::Boot => "boot",
        }
    }
}

/// What is wrong with a key that claims to be v1.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum V1Defect {
    /// `version=1` is not the 7th component from the end: partitions are
    /// missing, extra, or a value holds an unescaped `/`.
    WrongDepth,
    /// The component where `expected=` belongs has another name (reordered).
    WrongPartition {
        expected: Partition,
        found: String,
    },
    /// A value whose `%HH` escapes do not decode to UTF-8.
    BadEscape {
        partition: Partition,
    },
    /// An empty value (`service=`).
    Empty {
        partition: Partition,
    },
    InvalidDate {
        value: String,
    },
    InvalidTime {
        value: String,
    },
}

impl fmt::Display for V1Defect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::WrongDepth => f.write_str("partitions missing or extra"),
            Self::WrongPartition { expected, found } => write!(f, "expected {}= but found {found:?}", expected.name()),
            Self::BadEscape { partition } => write!(f, "malformed %-escape in {}=", partition.name()),
            Self::Empty { partition } => write!(f, "empty {}=", partition.name()),
            Self::InvalidDate { value } => write!(f, "invalid date {value:?}"),
            Self::InvalidTime { value } => write!(f, "invalid time {value:?}"),
        }
    }
}

/// Why a `%HH`-escaped partition value does not decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeError {
    /// `%` not followed by two hex digits (`%`, `%2`, `%GG`); `at` is its byte offset.
    BadEscape { at: usize },
    /// The decoded bytes are not UTF-8.
    InvalidUtf8,
}

/// Undoes exactly one layer of Hive `%HH` escaping (hex in either case).
pub fn decode_partition_value(raw: &str) -> Result<String, DecodeError> {
    if !raw.contains('%') {
        return Ok(raw.to_owned());
    }
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hi = bytes.get(i + 1).and_then(|&c| hex_value(c));
            let lo = bytes.get(i + 2).and_then(|&c| hex_value(c));
            let (Some(hi), Some(lo)) = (hi, lo) else {
                return Err(DecodeError::BadEscape { at: i });
            };
            out.push(hi << 4 | lo);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| DecodeError::InvalidUtf8)
}

/// Hive-escapes a partition value the way the uploader does: ASCII control
/// characters and `" # % ' * / : = ? \ { [ ] ^` become `%HH` (uppercase);
/// everything else, non-ASCII included, stays as it is.
pub fn escape_partition_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        let needs_escape = c.is_ascii_control() || "\"#%'*/:=?\\{[]^".contains(c);
        if needs_escape {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Reads one object key. `prefix` is where the caller knows the layout root
/// to be, or below which it should look (`""` = anywhere in the bucket); a
/// non-empty prefix is treated as whole path components (a missing trailing
/// `/` is implied). Keys not under it are [`OtherReason::OutsidePrefix`].
pub fn parse_key(key: &str, prefix: &str) -> ParsedKey {
    match parse_segment(key, prefix) {
        Ok(segment) => ParsedKey::Segment(segment),
        Err(reason) => ParsedKey::Other { reason },
    }
}

fn parse_segment(key: &str, prefix: &str) -> Result<SegmentKey, OtherReason> {
    let rest = strip_root(key, prefix).ok_or(OtherReason::OutsidePrefix)?;
    if rest.is_empty() || rest.ends_with('/') {
        return Err(OtherReason::DirectoryMarker);
    }
    let components: Vec<&str> = rest.split('/').collect();
    let (file, dirs) = components.split_last().expect("split yields at least one component");
    let Some(file) = SegmentFile::parse(file) else {
        if let (Some(dump_id), Some(&"dumps")) = (file.strip_suffix(".json"), dirs.last()) {
            return Err(OtherReason::DumpManifest {
                dump_id: dump_id.to_owned(),
            });
        }
        return Err(OtherReason::NotSegmentFileName);
    };
    // Root prefix = the caller's prefix + every component before the layout's first.
    let root = |first_layout_component: usize| {
        let consumed: usize = components[..first_layout_component].iter().map(|c| c.len() + 1).sum();
        key[..key.len() - rest.len() + consumed].to_owned()
    };

    if dirs.len() >= V1_DIRS && dirs[dirs.len() - V1_DIRS] == "version=1" {
        let start = dirs.len() - V1_DIRS;
        return parse_v1(&dirs[start + 1..], file, root(start)).map_err(|defect| OtherReason::MalformedV1 { defect });
    }
    // Fail closed: a version marker elsewhere means a partial or foreign v1-style
    // key; reading it positionally would invent a service or host.
    if let Some(marker) = dirs.iter().find(|c| c.starts_with("version=")) {
        return Err(if *marker == "version=1" {
            OtherReason::MalformedV1 {
                defect: V1Defect::WrongDepth,
            }
        } else {
            OtherReason::UnsupportedVersion {
                component: (*marker).to_owned(),
            }
        });
    }
    parse_positional(dirs, file, root)
}

/// `version=1` plus five partitions.
const V1_DIRS: usize = 6;

/// The caller's prefix as whole components; `None` when `key` is not below it.
fn strip_root<'k>(key: &'k str, prefix: &str) -> Option<&'k str> {
    if prefix.is_empty() {
        return Some(key);
    }
    let rest = key.strip_prefix(prefix)?;
    if prefix.ends_with('/') {
        Some(rest)
    } else {
        rest.strip_prefix('/')
    }
}

/// The parsed last component `{epoch}-{index}.bin[.gz]`.
struct SegmentFile {
    epoch_secs: u64,
    segment_index: u64,
    gzip_suffix: bool,
}

impl SegmentFile {
    fn parse(name: &str) -> Option<Self> {
        let (stem, gzip_suffix) = match name.strip_suffix(".bin.gz") {
            Some(stem) => (stem, true),
            None => (name.strip_suffix(".bin")?, false),
        };
        // Digits on both sides also guarantees exactly one `-` in the stem.
        let (epoch, index) = stem.split_once('-')?;
        Some(Self {
            epoch_secs: parse_digits(epoch)?,
            segment_index: parse_digits(index)?,
            gzip_suffix,
        })
    }
}

/// `partitions` = the five components after `version=1`, in order.
fn parse_v1(partitions: &[&str], file: SegmentFile, prefix: String) -> Result<SegmentKey, V1Defect> {
    let mut values: [String; 5] = Default::default();
    let mut raw_service = String::new();
    for ((component, partition), slot) in partitions.iter().zip(Partition::ORDER).zip(values.iter_mut()) {
        let raw = component
            .strip_prefix(partition.name())
            .and_then(|rest| rest.strip_prefix('='))
            .ok_or_else(|| V1Defect::WrongPartition {
                expected: partition,
                found: (*component).to_owned(),
            })?;
        if raw.is_empty() {
            return Err(V1Defect::Empty { partition });
        }
        *slot = decode_partition_value(raw).map_err(|_| V1Defect::BadEscape { partition })?;
        if partition == Partition::Service {
            raw_service = raw.to_owned();
        }
    }
    let [date, service, time, instance, boot] = values;
    let date = KeyDate::parse(&date).ok_or(V1Defect::InvalidDate { value: date })?;
    let time = KeyTime::parse(&time).ok_or(V1Defect::InvalidTime { value: time })?;
    Ok(SegmentKey {
        layout: Layout::V1,
        prefix,
        date,
        time,
        service,
        service_raw: raw_service,
        instance,
        boot: Some(boot),
        epoch_secs: file.epoch_secs,
        segment_index: file.segment_index,
        gzip_suffix: file.gzip_suffix,
    })
}

/// Anchors on the rightmost `YYYY-MM-DD/HHMM` pair: the service follows it,
/// then the instance (possibly several components), then an optional boot.
fn parse_positional(
    dirs: &[&str],
    file: SegmentFile,
    root: impl Fn(usize) -> String,
) -> Result<SegmentKey, OtherReason> {
    let anchor = (0..dirs.len().saturating_sub(1))
        .rev()
        .find_map(|i| Some((i, KeyDate::parse(dirs[i])?, KeyTime::parse(dirs[i + 1])?)));
    let Some((at, date, time)) = anchor else {
        return Err(OtherReason::NoLayout);
    };
    let after = &dirs[at + 2..];
    let Some((service, host_parts)) = after.split_first() else {
        return Err(OtherReason::MalformedPositional);
    };
    if host_parts.is_empty() || after.iter().any(|c| c.is_empty()) {
        return Err(OtherReason::MalformedPositional);
    }
    // The boot-id shape tells `host/boot` from a host that itself contains `/`.
    // A single component is always the host: the oldest layout had no boot.
    let (host_parts, boot) = match host_parts.split_last() {
        Some((last, host)) if !host.is_empty() && is_boot_id(last) => (host, Some((*last).to_owned())),
        _ => (host_parts, None),
    };
    Ok(SegmentKey {
        layout: Layout::Positional,
        prefix: root(at),
        date,
        time,
        service: (*service).to_owned(),
        service_raw: (*service).to_owned(),
        instance: host_parts.join("/"),
        boot,
        epoch_secs: file.epoch_secs,
        segment_index: file.segment_index,
        gzip_suffix: file.gzip_suffix,
    })
}

/// `^[a-z]{4}(-\d+)?$`: dial9's boot id (`nygg`, `qmxz-48291`).
pub fn is_boot_id(text: &str) -> bool {
    let (letters, pid) = match text.split_once('-') {
        Some((letters, pid)) => (letters, Some(pid)),
        None => (text, None),
    };
    letters.len() == 4
        && letters.bytes().all(|b| b.is_ascii_lowercase())
        && pid.is_none_or(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

fn hex_value(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// Non-empty ASCII digits that fit a u64.
fn parse_digits(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn digits_value(bytes: &[u8]) -> Option<u32> {
    bytes.iter().try_fold(0u32, |acc, &b| {
        b.is_ascii_digit().then(|| acc * 10 + u32::from(b - b'0'))
    })
}
