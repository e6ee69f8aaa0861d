//! What the page shows of a catalog before any download: services, hosts
//! grouped by subnet, boots with restarts and anomalies, time gaps, the
//! density of bytes over time, the objects that are not segments.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::net::Ipv4Addr;

use serde::{Deserialize, Serialize};

use super::super::layout::{KeyDate, Layout};
use super::load::{Load, LoadBaseline};
use super::spans::{HostSpans, Span, host_spans, median};
use super::{Catalog, HostKey, OtherObject, SegmentRecord};

/// Shorter silences are not reported as time gaps (lost single segments show
/// up as missing indices instead).
pub const MIN_GAP_SECS: u64 = 60;
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

impl Catalog {
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

#[cfg(test)]
mod tests {
    use super::super::tests::{T0, catalog_of};
    use super::*;

    #[test]
    fn boots_restarts_gaps_and_density_of_a_host() {
        let catalog = catalog_of(&[
            ("ip-10-0-3-7", "aaaa", T0, 0, 600, Some(T0 + 60)),
            ("ip-10-0-3-7", "aaaa", T0 + 60, 1, 600, Some(T0 + 120)),
            // Index 2 lost.
            ("ip-10-0-3-7", "aaaa", T0 + 180, 3, 600, Some(T0 + 240)),
            // A restart ten minutes later.
            ("ip-10-0-3-7", "bbbb", T0 + 840, 0, 0, Some(T0 + 900)),
        ]);
        let summary = catalog.summary();
        assert_eq!((summary.segments, summary.segment_bytes), (4, 1800));
        let subnet = &summary.services[0].subnets[0];
        assert_eq!(subnet.subnet.map(|s| s.to_string()).as_deref(), Some("10.0.3.0/24"));
        let host = &subnet.hosts[0];
        assert_eq!(host.ip, Some(Ipv4Addr::new(10, 0, 3, 7)));
        assert_eq!((host.empty_segments, host.typical_interval_secs), (1, Some(60)));
        let [first, second] = &host.boots[..] else {
            panic!("two boots: {:?}", host.boots)
        };
        assert_eq!(first.anomalies, [BootAnomaly::MissingIndices { first: 2, last: 2 }]);
        assert_eq!(
            second.start,
            BootStart::Restart {
                previous_boot: Some("aaaa".into()),
                downtime_secs: 600,
            }
        );
        assert!(second.anomalies.contains(&BootAnomaly::EmptySegment { index: 0 }));
        // The silence before the restart is a gap; the lost segment's minute is not (< 2 intervals).
        assert_eq!(host.gaps.len(), 1);
        assert_eq!((host.gaps[0].from_secs, host.gaps[0].to_secs), (T0 + 240, T0 + 840));
        // Every byte lands in a minute.
        assert_eq!(host.density.iter().map(|b| b.bytes).sum::<u64>(), 1800);
    }

    #[test]
    fn bytes_spread_over_minutes_in_proportion_and_add_up() {
        let mut density = BTreeMap::new();
        spread_bytes(&mut density, 30, 150, 120);
        assert_eq!(density.into_iter().collect::<Vec<_>>(), [(0, 30), (60, 60), (120, 30)]);
        let mut odd = BTreeMap::new();
        spread_bytes(&mut odd, 0, 180, 100);
        assert_eq!(odd.values().sum::<u64>(), 100);
    }

    #[test]
    fn host_names_give_their_address() {
        assert_eq!(
            host_ipv4("ip-10-0-1-23.ec2.internal"),
            Some(Ipv4Addr::new(10, 0, 1, 23))
        );
        assert_eq!(host_ipv4("us-east-1/192.168.0.9"), Some(Ipv4Addr::new(192, 168, 0, 9)));
        assert_eq!(host_ipv4("ip-10-0-1"), None);
        assert_eq!(host_ipv4("web-1"), None);
    }
}
