//! What a bucket holds, from listings alone: no object is downloaded.
//!
//! The catalog grows page by page ([`Catalog::add_page`]) as ListObjectsV2
//! results arrive, so the page can show services, hosts and boots while the
//! listing is still running. The summary is recomputed on demand in
//! O(n log n); every index is a sorted map, so 100,000 keys stay cheap.
//!
//! File size is the load signal (a quiet 15 s segment is tens of KB, a busy one
//! 1–5 MB): "busy" means much larger than the lower quartile of this catalog's
//! segment sizes, i.e. relative to the fleet, not an absolute byte count.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::net::Ipv4Addr;

use serde::{Deserialize, Serialize};

use super::layout::{KeyDate, Layout, OtherReason, ParsedKey, SegmentKey, parse_key};
use crate::s3::listing::ObjectEntry;

/// A segment counts as busy at this multiple of the fleet's typical (lower
/// quartile) size. Quiet and busy dial9 segments differ by 10–50×, so 5× sits
/// well between them while ignoring ordinary jitter.
pub const BUSY_FACTOR: u64 = 5;
/// Shorter silences are not reported as time gaps (lost single segments show
/// up as missing indices instead).
pub const MIN_GAP_SECS: u64 = 60;
/// Assumed segment length when a host has no consecutive segments to measure.
pub const DEFAULT_SEGMENT_SECS: u64 = 60;
/// Cap on a segment's assumed duration, whatever its boot's cadence.
pub const MAX_SEGMENT_SECS: u64 = 3600;
/// An upload this long after a segment's expected end (its start plus twice
/// its boot's interval) is not taken as the time the segment closed: the
/// objects were copied or synced later (a mirror, a demo bucket).
pub const UPLOAD_SLACK_SECS: u64 = 120;

/// One object as a ListObjectsV2 page lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogObject {
    pub key: String,
    pub size: u64,
    pub etag: Option<String>,
    /// `LastModified` in Unix seconds: when the upload finished.
    pub last_modified_secs: Option<u64>,
}

impl From<ObjectEntry> for CatalogObject {
    fn from(entry: ObjectEntry) -> Self {
        Self {
            key: entry.key,
            size: entry.size,
            etag: entry.etag,
            last_modified_secs: entry.last_modified.and_then(|t| u64::try_from(t.unix_secs()).ok()),
        }
    }
}

/// A listed object whose key is a segment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentRecord {
    pub key: String,
    pub size: u64,
    pub etag: Option<String>,
    /// Upload time (Unix seconds) from `LastModified`, when listed and parseable.
    pub uploaded_secs: Option<u64>,
    pub parts: SegmentKey,
}

/// A listed object that is not a segment, kept visible with the reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OtherObject {
    pub key: String,
    pub size: u64,
    pub reason: OtherReason,
}

/// A host is an instance of a service: the same machine running two services
/// is two hosts, each with its own boots.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HostKey {
    /// Decoded service name.
    pub service: String,
    /// Decoded instance (host) name.
    pub instance: String,
}

impl HostKey {
    pub fn new(service: &str, instance: &str) -> Self {
        Self {
            service: service.to_owned(),
            instance: instance.to_owned(),
        }
    }
}

/// Counts from one [`Catalog::add_page`] call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageStats {
    pub new_segments: u64,
    pub new_others: u64,
    /// Keys already in the catalog (overlapping listings, e.g. a padded window).
    pub replaced: u64,
}

/// The bucket catalog. Serializes as its objects (prefix, segments, others);
/// the indexes are rebuilt on deserialization.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(from = "CatalogData", into = "CatalogData")]
pub struct Catalog {
    prefix: String,
    segments: Vec<SegmentRecord>,
    others: Vec<OtherObject>,
    segment_slots: HashMap<String, usize>,
    other_slots: HashMap<String, usize>,
    /// Per host: (segment start, slot in `segments`), time-ordered.
    hosts: BTreeMap<HostKey, BTreeSet<(u64, usize)>>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CatalogData {
    prefix: String,
    segments: Vec<SegmentRecord>,
    others: Vec<OtherObject>,
}

impl From<CatalogData> for Catalog {
    fn from(data: CatalogData) -> Self {
        let mut catalog = Catalog::new(&data.prefix);
        for record in data.segments {
            catalog.insert_segment(record);
        }
        for other in data.others {
            catalog.insert_other(other);
        }
        catalog
    }
}

impl From<Catalog> for CatalogData {
    fn from(catalog: Catalog) -> Self {
        Self {
            prefix: catalog.prefix,
            segments: catalog.segments,
            others: catalog.others,
        }
    }
}

impl Catalog {
    /// A catalog of the keys under `prefix` (`""`: anywhere; see [`parse_key`]).
    pub fn new(prefix: &str) -> Self {
        Self {
            prefix: prefix.to_owned(),
            ..Self::default()
        }
    }

    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Adds one listing page (a `ListPage`'s objects or [`CatalogObject`]s). A
    /// key seen before replaces its earlier entry, so overlapping listings
    /// never double-count.
    pub fn add_page(&mut self, objects: impl IntoIterator<Item = impl Into<CatalogObject>>) -> PageStats {
        let mut stats = PageStats::default();
        for object in objects {
            let object: CatalogObject = object.into();
            let replaced = match parse_key(&object.key, &self.prefix) {
                ParsedKey::Segment(parts) => self.insert_segment(SegmentRecord {
                    uploaded_secs: object.last_modified_secs,
                    key: object.key,
                    size: object.size,
                    etag: object.etag,
                    parts,
                }),
                ParsedKey::Other { reason } => self.insert_other(OtherObject {
                    key: object.key,
                    size: object.size,
                    reason,
                }),
            };
            match replaced {
                Inserted::Replaced => stats.replaced += 1,
                Inserted::NewSegment => stats.new_segments += 1,
                Inserted::NewOther => stats.new_others += 1,
            }
        }
        stats
    }

    fn insert_segment(&mut self, record: SegmentRecord) -> Inserted {
        if let Some(&slot) = self.segment_slots.get(&record.key) {
            // Same key, same parse: host and start are unchanged, only size/etag/time may differ.
            self.segments[slot] = record;
            return Inserted::Replaced;
        }
        let slot = self.segments.len();
        let host = HostKey::new(&record.parts.service, &record.parts.instance);
        self.hosts
            .entry(host)
            .or_default()
            .insert((record.parts.epoch_secs, slot));
        self.segment_slots.insert(record.key.clone(), slot);
        self.segments.push(record);
        Inserted::NewSegment
    }

    fn insert_other(&mut self, other: OtherObject) -> Inserted {
        if let Some(&slot) = self.other_slots.get(&other.key) {
            self.others[slot] = other;
            return Inserted::Replaced;
        }
        self.other_slots.insert(other.key.clone(), self.others.len());
        self.others.push(other);
        Inserted::NewOther
    }

    /// Segments in the order they were first listed.
    pub fn segments(&self) -> &[SegmentRecord] {
        &self.segments
    }

    /// The segment listed under `key`, if any.
    pub fn segment(&self, key: &str) -> Option<SelectedSegment> {
        let slot = *self.segment_slots.get(key)?;
        Some(self.selected(slot, &self.load_baseline()))
    }

    /// Non-segment objects in the order they were first listed.
    pub fn others(&self) -> &[OtherObject] {
        &self.others
    }

    pub fn object_count(&self) -> usize {
        self.segments.len() + self.others.len()
    }

    /// Hosts, sorted by service then instance.
    pub fn hosts(&self) -> impl Iterator<Item = &HostKey> {
        self.hosts.keys()
    }

    /// The fleet's size reference for busy/quiet classification.
    pub fn load_baseline(&self) -> LoadBaseline {
        LoadBaseline::from_sizes(self.segments.iter().map(|s| s.size))
    }

    /// Segments of one host whose key start lies in `window`, time-ordered.
    pub fn host_segments(&self, host: &HostKey, window: TimeWindow) -> Selection {
        let baseline = self.load_baseline();
        let segments = self
            .hosts
            .get(host)
            .into_iter()
            .flat_map(|set| set.range(window.slot_range()))
            .map(|&(_, slot)| self.selected(slot, &baseline))
            .collect();
        Selection::sorted(segments)
    }

    /// Every segment whose key start lies in `window`, optionally of one service.
    pub fn segments_in_window(&self, window: TimeWindow, service: Option<&str>) -> Selection {
        let baseline = self.load_baseline();
        let segments = self
            .hosts_of(service)
            .flat_map(|(_, set)| set.range(window.slot_range()))
            .map(|&(_, slot)| self.selected(slot, &baseline))
            .collect();
        Selection::sorted(segments)
    }

    /// One segment per host from `window` (optionally one service): the
    /// non-empty segment starting closest to the window's middle, so every host
    /// is represented by roughly the same moment.
    pub fn fleet_overview(&self, window: TimeWindow, service: Option<&str>) -> Selection {
        let baseline = self.load_baseline();
        let middle = window.start_secs + (window.end_secs - window.start_secs) / 2;
        let segments = self
            .hosts_of(service)
            .filter_map(|(_, set)| {
                set.range(window.slot_range())
                    .filter(|&&(_, slot)| self.segments[slot].size > 0)
                    .min_by_key(|&&(start, slot)| (start.abs_diff(middle), start, &self.segments[slot].key))
            })
            .map(|&(_, slot)| self.selected(slot, &baseline))
            .collect();
        Selection::sorted(segments)
    }

    /// Every segment whose estimated span `[start, end)` (to its upload, clipped
    /// at the next start of its boot) overlaps `window` and that `keep` accepts:
    /// a window also catches the segment that started before it.
    pub fn segments_overlapping(&self, window: TimeWindow, keep: impl Fn(&SegmentRecord) -> bool) -> Selection {
        let baseline = self.load_baseline();
        let mut segments = Vec::new();
        for set in self.hosts.values() {
            for span in host_spans(&self.host_records(set)).spans {
                if span.end > window.start_secs && span.start < window.end_secs && keep(span.record) {
                    segments.push(SelectedSegment {
                        segment: span.record.clone(),
                        load: baseline.classify(span.record.size),
                    });
                }
            }
        }
        Selection::sorted(segments)
    }

    fn host_records(&self, set: &BTreeSet<(u64, usize)>) -> Vec<&SegmentRecord> {
        set.iter().map(|&(_, slot)| &self.segments[slot]).collect()
    }

    fn hosts_of<'a>(
        &'a self,
        service: Option<&'a str>,
    ) -> impl Iterator<Item = (&'a HostKey, &'a BTreeSet<(u64, usize)>)> + 'a {
        self.hosts
            .iter()
            .filter(move |(host, _)| service.is_none_or(|s| host.service == s))
    }

    fn selected(&self, slot: usize, baseline: &LoadBaseline) -> SelectedSegment {
        let segment = self.segments[slot].clone();
        SelectedSegment {
            load: baseline.classify(segment.size),
            segment,
        }
    }

    /// Everything the page shows before any download.
    pub fn summary(&self) -> CatalogSummary {
        let baseline = self.load_baseline();
        let mut hosts: Vec<(&HostKey, HostSummary)> = self
            .hosts
            .iter()
            .map(|(key, set)| (key, self.host_summary(key, set, &baseline)))
            .collect();

        // Density buckets are classified against the whole fleet's buckets.
        let scale = LoadBaseline::from_sizes(hosts.iter().flat_map(|(_, h)| h.density.iter().map(|b| b.bytes)));
        for (_, host) in &mut hosts {
            for bucket in &mut host.density {
                bucket.load = scale.classify(bucket.bytes);
            }
        }

        let mut services: BTreeMap<&str, ServiceAcc> = BTreeMap::new();
        for (key, host) in hosts {
            services.entry(&key.service).or_default().hosts.push(host);
        }
        for segment in &self.segments {
            let acc = services
                .get_mut(segment.parts.service.as_str())
                .expect("every segment has its host");
            acc.raw_names.insert(&segment.parts.service_raw);
        }

        let starts = self.segments.iter().map(|s| s.parts.epoch_secs);
        let time_range = starts
            .clone()
            .min()
            .zip(starts.max())
            .map(|(first_start_secs, last_start_secs)| TimeRange {
                first_start_secs,
                last_start_secs,
            });
        let count = |layout| self.segments.iter().filter(|s| s.parts.layout == layout).count() as u64;
        let segment_bytes: u64 = self.segments.iter().map(|s| s.size).sum();
        let other_bytes: u64 = self.others.iter().map(|o| o.size).sum();

        let mut others: BTreeMap<&str, Vec<OtherObject>> = BTreeMap::new();
        for other in &self.others {
            let parent = other.key.rsplit_once('/').map_or("", |(parent, _)| parent);
            others.entry(parent).or_default().push(other.clone());
        }

        CatalogSummary {
            prefix: self.prefix.clone(),
            objects: self.object_count() as u64,
            total_bytes: segment_bytes + other_bytes,
            segments: self.segments.len() as u64,
            segment_bytes,
            v1_segments: count(Layout::V1),
            positional_segments: count(Layout::Positional),
            other_objects: self.others.len() as u64,
            time_range,
            dates: sorted_unique(self.segments.iter().map(|s| s.parts.date)),
            roots: sorted_unique(self.segments.iter().map(|s| s.parts.prefix.clone())),
            instances: sorted_unique(self.hosts.keys().map(|h| h.instance.clone())),
            load: baseline,
            density_load: scale,
            services: services.into_iter().map(|(name, acc)| acc.finish(name)).collect(),
            others: others
                .into_iter()
                .map(|(parent, mut objects)| {
                    objects.sort_by(|a, b| a.key.cmp(&b.key));
                    OtherGroup {
                        parent: parent.to_owned(),
                        objects,
                    }
                })
                .collect(),
        }
    }

    fn host_summary(&self, key: &HostKey, set: &BTreeSet<(u64, usize)>, baseline: &LoadBaseline) -> HostSummary {
        let records = self.host_records(set);
        let HostSpans {
            spans,
            boots,
            host_interval,
        } = host_spans(&records);
        let mut boot_summaries: Vec<BootSummary> = boots
            .iter()
            .map(|(boot, segs, boot_spans)| boot_summary(*boot, segs, boot_spans))
            .collect();
        mark_restarts(&mut boot_summaries);

        let gap_threshold = MIN_GAP_SECS.max(2 * host_interval.unwrap_or(0));
        let mut density: BTreeMap<u64, u64> = BTreeMap::new();
        for span in &spans {
            spread_bytes(&mut density, span.start, span.end, span.record.size);
        }
        let loads: Vec<Load> = records.iter().map(|r| baseline.classify(r.size)).collect();
        let median_bytes = median(records.iter().map(|r| r.size).filter(|&s| s > 0));

        HostSummary {
            instance: key.instance.clone(),
            ip: host_ipv4(&key.instance),
            segments: records.len() as u64,
            bytes: records.iter().map(|r| r.size).sum(),
            first_start_secs: records.first().map_or(0, |r| r.parts.epoch_secs),
            last_start_secs: records.last().map_or(0, |r| r.parts.epoch_secs),
            typical_interval_secs: host_interval,
            busy_segments: loads.iter().filter(|&&l| l == Load::Busy).count() as u64,
            quiet_segments: loads.iter().filter(|&&l| l == Load::Quiet).count() as u64,
            empty_segments: loads.iter().filter(|&&l| l == Load::Empty).count() as u64,
            median_bytes,
            relative_load_pct: median_bytes
                .zip(baseline.typical_bytes)
                .map(|(m, t)| (m.saturating_mul(100) + t / 2) / t),
            boots: boot_summaries,
            gaps: time_gaps(&spans, gap_threshold),
            density: density
                .into_iter()
                .filter(|&(_, bytes)| bytes > 0)
                .map(|(minute_secs, bytes)| DensityBucket {
                    minute_secs,
                    bytes,
                    load: Load::Quiet,
                })
                .collect(),
        }
    }
}

enum Inserted {
    NewSegment,
    NewOther,
    Replaced,
}

/// Size reference for classifying load: the lower quartile of non-empty sizes
/// (a quiet segment unless three quarters of the fleet is busy). The same rule
/// classifies density buckets (bytes per minute).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadBaseline {
    /// `None` when nothing non-empty has been listed.
    pub typical_bytes: Option<u64>,
    /// `typical_bytes * BUSY_FACTOR`: at or above it, busy.
    pub busy_bytes: Option<u64>,
}

impl LoadBaseline {
    pub fn from_sizes(sizes: impl Iterator<Item = u64>) -> Self {
        let mut sizes: Vec<u64> = sizes.filter(|&s| s > 0).collect();
        if sizes.is_empty() {
            return Self::default();
        }
        let quartile = (sizes.len() - 1) / 4;
        let typical = *sizes.select_nth_unstable(quartile).1;
        Self {
            typical_bytes: Some(typical),
            busy_bytes: Some(typical.saturating_mul(BUSY_FACTOR)),
        }
    }

    pub fn classify(&self, bytes: u64) -> Load {
        match self.busy_bytes {
            _ if bytes == 0 => Load::Empty,
            Some(busy) if bytes >= busy => Load::Busy,
            _ => Load::Quiet,
        }
    }
}

/// Load class of a segment (by size) or a density bucket (by bytes per minute).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Load {
    /// Zero bytes: nothing to read (a failed or placeholder upload).
    Empty,
    Quiet,
    Busy,
}

/// `[start, end)` in Unix seconds, never empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "TimeWindowData")]
pub struct TimeWindow {
    start_secs: u64,
    end_secs: u64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TimeWindowData {
    start_secs: u64,
    end_secs: u64,
}

impl TryFrom<TimeWindowData> for TimeWindow {
    type Error = String;
    fn try_from(data: TimeWindowData) -> Result<Self, String> {
        Self::new(data.start_secs, data.end_secs)
            .ok_or_else(|| format!("empty time window [{}, {})", data.start_secs, data.end_secs))
    }
}

impl TimeWindow {
    /// All of time.
    pub const ALL: TimeWindow = TimeWindow {
        start_secs: 0,
        end_secs: u64::MAX,
    };

    /// `None` unless `start < end`.
    pub fn new(start_secs: u64, end_secs: u64) -> Option<Self> {
        (start_secs < end_secs).then_some(Self { start_secs, end_secs })
    }

    pub fn start_secs(&self) -> u64 {
        self.start_secs
    }

    pub fn end_secs(&self) -> u64 {
        self.end_secs
    }

    pub fn contains(&self, secs: u64) -> bool {
        (self.start_secs..self.end_secs).contains(&secs)
    }

    /// The `(start, slot)` range of a host index covering this window.
    fn slot_range(&self) -> std::ops::Range<(u64, usize)> {
        (self.start_secs, 0)..(self.end_secs, 0)
    }
}

/// A segment picked for download, with its load class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectedSegment {
    pub segment: SegmentRecord,
    pub load: Load,
}

/// Segments chosen for download, ordered by start time then key.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Selection {
    pub segments: Vec<SelectedSegment>,
}

impl Selection {
    fn sorted(mut segments: Vec<SelectedSegment>) -> Self {
        segments.sort_by(|a, b| {
            (a.segment.parts.epoch_secs, &a.segment.key).cmp(&(b.segment.parts.epoch_secs, &b.segment.key))
        });
        Self { segments }
    }

    pub fn len(&self) -> usize {
        self.segments.len()
    }

    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    /// Compressed bytes a download of the selection costs.
    pub fn total_bytes(&self) -> u64 {
        self.segments.iter().map(|s| s.segment.size).sum()
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.segments.iter().map(|s| s.segment.key.as_str())
    }

    /// Each segment's key and size.
    pub fn objects(&self) -> impl Iterator<Item = (&str, u64)> {
        self.segments.iter().map(|s| (s.segment.key.as_str(), s.segment.size))
    }
}

/// The catalog as the page shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogSummary {
    /// The prefix the catalog was built for.
    pub prefix: String,
    pub objects: u64,
    pub total_bytes: u64,
    pub segments: u64,
    pub segment_bytes: u64,
    pub v1_segments: u64,
    pub positional_segments: u64,
    pub other_objects: u64,
    /// Earliest and latest segment start; `None` without segments.
    pub time_range: Option<TimeRange>,
    /// Distinct key dates.
    pub dates: Vec<KeyDate>,
    /// Distinct layout roots the segments were found under.
    pub roots: Vec<String>,
    /// Distinct instance names over all services.
    pub instances: Vec<String>,
    /// Segment-size reference for busy/quiet.
    pub load: LoadBaseline,
    /// Bytes-per-minute reference for the density series.
    pub density_load: LoadBaseline,
    pub services: Vec<ServiceSummary>,
    /// Non-segment objects grouped by parent path (`""`: bucket root).
    pub others: Vec<OtherGroup>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TimeRange {
    pub first_start_secs: u64,
    pub last_start_secs: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceSummary {
    /// Decoded name.
    pub name: String,
    /// Spellings in keys (for listing prefixes); usually one.
    pub raw_names: Vec<String>,
    pub hosts: u64,
    pub segments: u64,
    pub bytes: u64,
    /// Hosts grouped by /24 when their names carry an IPv4 address; the group
    /// without a subnet (names without an address) comes last.
    pub subnets: Vec<SubnetGroup>,
}

#[derive(Default)]
struct ServiceAcc<'a> {
    raw_names: BTreeSet<&'a str>,
    hosts: Vec<HostSummary>,
}

impl ServiceAcc<'_> {
    fn finish(self, name: &str) -> ServiceSummary {
        let hosts = self.hosts.len() as u64;
        let segments = self.hosts.iter().map(|h| h.segments).sum();
        let bytes = self.hosts.iter().map(|h| h.bytes).sum();
        // `(is_none, subnet)` sorts the hosts without an address last.
        let mut groups: BTreeMap<(bool, Option<Subnet>), Vec<HostSummary>> = BTreeMap::new();
        for host in self.hosts {
            let subnet = host.ip.map(Subnet::of);
            groups.entry((subnet.is_none(), subnet)).or_default().push(host);
        }
        let subnets = groups
            .into_iter()
            .map(|((_, subnet), mut hosts)| {
                hosts.sort_by(|a, b| (a.ip, &a.instance).cmp(&(b.ip, &b.instance)));
                SubnetGroup { subnet, hosts }
            })
            .collect();
        ServiceSummary {
            name: name.to_owned(),
            raw_names: self.raw_names.into_iter().map(str::to_owned).collect(),
            hosts,
            segments,
            bytes,
            subnets,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubnetGroup {
    pub subnet: Option<Subnet>,
    pub hosts: Vec<HostSummary>,
}

/// An IPv4 /24 network, written `10.0.1.0/24`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Subnet {
    /// Always has a zero last octet.
    network: Ipv4Addr,
}

impl Subnet {
    pub fn of(ip: Ipv4Addr) -> Self {
        let [a, b, c, _] = ip.octets();
        Self {
            network: Ipv4Addr::new(a, b, c, 0),
        }
    }

    pub fn network(&self) -> Ipv4Addr {
        self.network
    }
}

impl fmt::Display for Subnet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/24", self.network)
    }
}

impl TryFrom<String> for Subnet {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        let ip = text.strip_suffix("/24").and_then(|ip| ip.parse::<Ipv4Addr>().ok());
        match ip {
            Some(ip) if ip.octets()[3] == 0 => Ok(Self { network: ip }),
            _ => Err(format!("not an a.b.c.0/24 subnet: {text:?}")),
        }
    }
}

impl From<Subnet> for String {
    fn from(subnet: Subnet) -> String {
        subnet.to_string()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HostSummary {
    pub instance: String,
    /// The IPv4 address in the host name (`ip-10-0-1-23`, `10.0.1.23`), if any.
    pub ip: Option<Ipv4Addr>,
    pub segments: u64,
    pub bytes: u64,
    pub first_start_secs: u64,
    pub last_start_secs: u64,
    /// Median start-to-start time of consecutive segment indices (the
    /// rotation interval); `None` without two consecutive segments.
    pub typical_interval_secs: Option<u64>,
    pub busy_segments: u64,
    pub quiet_segments: u64,
    pub empty_segments: u64,
    /// Median size of the non-empty segments.
    pub median_bytes: Option<u64>,
    /// `median_bytes` as a percentage of the fleet's typical segment size
    /// (rounded): how loaded this host is compared to the quiet end of the
    /// fleet. An integer, so summaries compare exactly after a JSON round trip.
    pub relative_load_pct: Option<u64>,
    /// Ordered by first segment start.
    pub boots: Vec<BootSummary>,
    /// Silences in the host's timeline of at least `max(60 s, 2 × interval)`.
    pub gaps: Vec<TimeGap>,
    /// Bytes per UTC minute, segment bytes spread over each segment's span.
    pub density: Vec<DensityBucket>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BootSummary {
    /// `None` for the oldest positional layout, which had no boot component.
    pub boot: Option<String>,
    pub layouts: Vec<Layout>,
    pub segments: u64,
    pub bytes: u64,
    pub first_start_secs: u64,
    pub last_start_secs: u64,
    /// End of the last segment's span (`segment_spans`).
    pub end_secs: u64,
    /// `end_secs` is a guess from the boot's cadence: no upload time confirms it.
    pub end_guessed: bool,
    pub first_index: u64,
    pub last_index: u64,
    pub start: BootStart,
    /// In segment-index order.
    pub anomalies: Vec<BootAnomaly>,
}

/// How a boot relates to the host's earlier boots.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum BootStart {
    /// The host's earliest boot in the catalog.
    First,
    /// Started after every earlier boot had ended: the process restarted.
    Restart {
        previous_boot: Option<String>,
        /// From the previous boot's last segment end to this boot's first start.
        downtime_secs: u64,
    },
    /// Started while an earlier boot was still recording: two processes at once.
    Concurrent { other_boot: Option<String> },
}

/// Something the listing says is wrong with a boot's segments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum BootAnomaly {
    /// Indices `first..=last` are absent between listed ones: lost or not uploaded.
    MissingIndices { first: u64, last: u64 },
    /// Several keys claim this index.
    DuplicateIndex { index: u64 },
    /// Starts before a segment with a lower index.
    OutOfOrder { index: u64 },
    /// Zero bytes.
    EmptySegment { index: u64 },
    /// The key's date/time partitions disagree with its epoch.
    KeyTimeMismatch { index: u64 },
}

impl BootStart {
    /// How the page and the CLI say it; `None` for a host's first boot.
    pub fn describe(&self) -> Option<String> {
        let boot = |id: &Option<String>| {
            id.as_deref()
                .map_or("a boot without id".to_owned(), |id| format!("boot {id}"))
        };
        match self {
            BootStart::First => None,
            BootStart::Restart {
                previous_boot,
                downtime_secs,
            } => Some(format!(
                "restart after {} (previous: {})",
                crate::fmt::secs(*downtime_secs),
                boot(previous_boot)
            )),
            BootStart::Concurrent { other_boot } => Some(format!("ran concurrently with {}", boot(other_boot))),
        }
    }
}

impl fmt::Display for BootAnomaly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            BootAnomaly::MissingIndices { first, last } if first == last => write!(f, "segment #{first} missing"),
            BootAnomaly::MissingIndices { first, last } => {
                write!(f, "segments #{first}–#{last} missing ({})", last - first + 1)
            }
            BootAnomaly::DuplicateIndex { index } => write!(f, "#{index} listed twice"),
            BootAnomaly::OutOfOrder { index } => write!(f, "#{index} out of order"),
            BootAnomaly::EmptySegment { index } => write!(f, "#{index} empty"),
            BootAnomaly::KeyTimeMismatch { index } => write!(f, "#{index}: key date/time disagrees with its epoch"),
        }
    }
}

/// A silence in a host's timeline: `[from_secs, to_secs)` covered by no segment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TimeGap {
    pub from_secs: u64,
    pub to_secs: u64,
    /// The boot recording before the gap and the one after it; they differ
    /// when the gap is a restart.
    pub boot_before: Option<String>,
    pub boot_after: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DensityBucket {
    /// Start of the UTC minute.
    pub minute_secs: u64,
    pub bytes: u64,
    /// Relative to all hosts' minutes ([`CatalogSummary::density_load`]).
    pub load: Load,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OtherGroup {
    pub parent: String,
    pub objects: Vec<OtherObject>,
}

/// A segment with its estimated `[start, end)`.
#[derive(Clone, Copy)]
struct Span<'a> {
    record: &'a SegmentRecord,
    start: u64,
    end: u64,
    /// `end` comes from the boot's cadence alone (no later segment of the
    /// boot, no plausible upload time).
    guessed: bool,
}

/// Start-to-start deltas of consecutive indices (`i`, `i + 1`) in one boot:
/// the rotation interval, unaffected by lost segments in between.
fn consecutive_deltas(segs: &[&SegmentRecord]) -> Vec<u64> {
    let by_index: BTreeMap<u64, u64> = segs
        .iter()
        .map(|s| (s.parts.segment_index, s.parts.epoch_secs))
        .collect();
    by_index
        .iter()
        .zip(by_index.iter().skip(1))
        .filter(|((i, start), (j, next))| **j == **i + 1 && next > start)
        .map(|((_, start), (_, next))| next - start)
        .collect()
}

/// The median, rounding up: with a few junk pairs the real interval still wins ties.
fn typical_interval(mut deltas: Vec<u64>) -> Option<u64> {
    if deltas.is_empty() {
        return None;
    }
    let mid = deltas.len() / 2;
    Some(*deltas.select_nth_unstable(mid).1)
}

fn median(values: impl Iterator<Item = u64>) -> Option<u64> {
    let mut values: Vec<u64> = values.collect();
    if values.is_empty() {
        return None;
    }
    let mid = (values.len() - 1) / 2;
    Some(*values.select_nth_unstable(mid).1)
}

/// A host's segments grouped by boot, with each segment's span.
struct HostSpans<'a> {
    /// All spans, by start.
    spans: Vec<Span<'a>>,
    /// (boot, its segments, their spans), by boot id.
    boots: Vec<(Option<&'a str>, Vec<&'a SegmentRecord>, Vec<Span<'a>>)>,
    host_interval: Option<u64>,
}

/// Each segment's `[start, end)`: to its upload, clipped at the next start on the same boot.
fn host_spans<'a>(records: &[&'a SegmentRecord]) -> HostSpans<'a> {
    let mut by_boot: BTreeMap<Option<&str>, Vec<&SegmentRecord>> = BTreeMap::new();
    for record in records {
        by_boot.entry(record.parts.boot.as_deref()).or_default().push(record);
    }
    let host_interval = typical_interval(by_boot.values().flat_map(|segs| consecutive_deltas(segs)).collect());
    let mut spans = Vec::with_capacity(records.len());
    let mut boots = Vec::with_capacity(by_boot.len());
    for (boot, segs) in by_boot {
        let interval = typical_interval(consecutive_deltas(&segs)).or(host_interval);
        let boot_spans = segment_spans(&segs, interval.unwrap_or(DEFAULT_SEGMENT_SECS));
        spans.extend(boot_spans.iter().copied());
        boots.push((boot, segs, boot_spans));
    }
    spans.sort_by(|a, b| (a.start, &a.record.key).cmp(&(b.start, &b.record.key)));
    HostSpans {
        spans,
        boots,
        host_interval,
    }
}

/// Spans of one boot's segments (given time-ordered), `interval` the boot's
/// cadence. A segment ends by the boot's next start at the latest; before
/// that at its upload when that is plausible (a segment is uploaded once
/// closed: within twice the cadence and `UPLOAD_SLACK_SECS`), else after
/// one interval. An end from the cadence alone is a guess.
fn segment_spans<'a>(segs: &[&'a SegmentRecord], interval: u64) -> Vec<Span<'a>> {
    let mut spans = Vec::with_capacity(segs.len());
    // Walk backwards so the next later start is known without rescanning.
    let mut next_start: Option<u64> = None;
    let mut following: Option<u64> = None;
    for record in segs.iter().rev() {
        let start = record.parts.epoch_secs;
        if following.is_some_and(|f| f > start) {
            next_start = following;
        }
        following = Some(start);
        let latest_upload = start.saturating_add(2 * interval).saturating_add(UPLOAD_SLACK_SECS);
        let uploaded = record.uploaded_secs.filter(|&u| u > start && u <= latest_upload);
        let by_cadence = start.saturating_add(interval);
        let (end, guessed) = match (uploaded, next_start) {
            (Some(u), next) => (next.map_or(u, |n| u.min(n)), false),
            (None, Some(next)) if next <= by_cadence => (next, false),
            (None, _) => (by_cadence, true),
        };
        let end = end.clamp(start + 1, start.saturating_add(MAX_SEGMENT_SECS));
        spans.push(Span {
            record,
            start,
            end,
            guessed,
        });
    }
    spans.reverse();
    spans
}

fn boot_summary(boot: Option<&str>, segs: &[&SegmentRecord], spans: &[Span<'_>]) -> BootSummary {
    let mut by_index: Vec<&SegmentRecord> = segs.to_vec();
    by_index.sort_by(|a, b| {
        (a.parts.segment_index, a.parts.epoch_secs, &a.key).cmp(&(b.parts.segment_index, b.parts.epoch_secs, &b.key))
    });
    let mut anomalies = Vec::new();
    let mut latest_start: Option<u64> = None;
    for (i, record) in by_index.iter().enumerate() {
        let index = record.parts.segment_index;
        match i.checked_sub(1).map(|p| by_index[p].parts.segment_index) {
            Some(previous) if previous == index => anomalies.push(BootAnomaly::DuplicateIndex { index }),
            Some(previous) if index > previous + 1 => anomalies.push(BootAnomaly::MissingIndices {
                first: previous + 1,
                last: index - 1,
            }),
            _ => {}
        }
        if latest_start.is_some_and(|latest| record.parts.epoch_secs < latest) {
            anomalies.push(BootAnomaly::OutOfOrder { index });
        }
        latest_start = latest_start.max(Some(record.parts.epoch_secs));
        if record.size == 0 {
            anomalies.push(BootAnomaly::EmptySegment { index });
        }
        if !record.parts.key_time_consistent() {
            anomalies.push(BootAnomaly::KeyTimeMismatch { index });
        }
    }
    BootSummary {
        boot: boot.map(str::to_owned),
        layouts: sorted_unique(segs.iter().map(|s| s.parts.layout)),
        segments: segs.len() as u64,
        bytes: segs.iter().map(|s| s.size).sum(),
        first_start_secs: segs.first().map_or(0, |s| s.parts.epoch_secs),
        last_start_secs: segs.last().map_or(0, |s| s.parts.epoch_secs),
        end_secs: spans.iter().map(|s| s.end).max().unwrap_or(0),
        end_guessed: spans.iter().max_by_key(|s| s.end).is_some_and(|s| s.guessed),
        first_index: by_index.first().map_or(0, |s| s.parts.segment_index),
        last_index: by_index.last().map_or(0, |s| s.parts.segment_index),
        start: BootStart::First,
        anomalies,
    }
}

/// Orders boots by first start and says whether each one is a restart. A
/// boot ran concurrently with an earlier one only on evidence: that boot
/// started a segment after this one started, or its last segment's end is
/// known (not a guess) and later. Else it is a restart, its downtime from
/// the earlier boot's (maybe guessed) end, at least zero.
fn mark_restarts(boots: &mut [BootSummary]) {
    boots.sort_by(|a, b| (a.first_start_secs, &a.boot).cmp(&(b.first_start_secs, &b.boot)));
    // The earlier boot that recorded the longest: (end, boot), and the
    // latest point any earlier boot is known to have been recording at.
    let mut latest: Option<(u64, Option<String>)> = None;
    let mut known: Option<(u64, Option<String>)> = None;
    for boot in boots.iter_mut() {
        boot.start = match (&latest, &known) {
            (None, _) => BootStart::First,
            (_, Some((end, other))) if boot.first_start_secs < *end => BootStart::Concurrent {
                other_boot: other.clone(),
            },
            (Some((end, previous)), _) => BootStart::Restart {
                previous_boot: previous.clone(),
                downtime_secs: boot.first_start_secs.saturating_sub(*end),
            },
        };
        if latest.as_ref().is_none_or(|(end, _)| boot.end_secs > *end) {
            latest = Some((boot.end_secs, boot.boot.clone()));
        }
        let recording = match boot.end_guessed {
            true => boot.last_start_secs + 1,
            false => boot.end_secs,
        };
        if known.as_ref().is_none_or(|(end, _)| recording > *end) {
            known = Some((recording, boot.boot.clone()));
        }
    }
}

/// Silences of at least `threshold` seconds between time-ordered spans.
fn time_gaps(spans: &[Span<'_>], threshold: u64) -> Vec<TimeGap> {
    let mut gaps = Vec::new();
    let Some(first) = spans.first() else { return gaps };
    let (mut covered_to, mut boot) = (first.end, &first.record.parts.boot);
    for span in &spans[1..] {
        if span.start >= covered_to.saturating_add(threshold) {
            gaps.push(TimeGap {
                from_secs: covered_to,
                to_secs: span.start,
                boot_before: boot.clone(),
                boot_after: span.record.parts.boot.clone(),
            });
        }
        if span.end > covered_to {
            (covered_to, boot) = (span.end, &span.record.parts.boot);
        }
    }
    gaps
}

/// Adds `bytes` to the minutes `[start, end)` overlaps, in proportion to the
/// overlap; rounding leftovers go to the last minute, so totals are exact.
fn spread_bytes(density: &mut BTreeMap<u64, u64>, start: u64, end: u64, bytes: u64) {
    let duration = u128::from(end - start);
    let mut assigned = 0u64;
    let mut t = start;
    while t < end {
        let minute = t - t % 60;
        let next = (minute + 60).min(end);
        let cumulative = if next == end {
            bytes
        } else {
            // < bytes, since next - start < duration.
            (u128::from(bytes) * u128::from(next - start) / duration) as u64
        };
        *density.entry(minute).or_default() += cumulative - assigned;
        assigned = cumulative;
        t = next;
    }
}

/// The IPv4 address in a host name: EC2's `ip-10-0-1-23[.domain]` or a dotted
/// quad, in any `/`-separated component (the rightmost wins).
pub fn host_ipv4(instance: &str) -> Option<Ipv4Addr> {
    instance.rsplit('/').find_map(|component| {
        if let Some(dashed) = component.strip_prefix("ip-") {
            let label = dashed.split('.').next().unwrap_or(dashed);
            let octets: Vec<u8> = label.split('-').map(|o| o.parse().ok()).collect::<Option<_>>()?;
            let octets: [u8; 4] = octets.try_into().ok()?;
            return Some(Ipv4Addr::from(octets));
        }
        component.parse().ok()
    })
}

fn sorted_unique<T: Ord>(items: impl Iterator<Item = T>) -> Vec<T> {
    items.collect::<BTreeSet<T>>().into_iter().collect()
}
