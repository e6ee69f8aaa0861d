//! What a bucket holds, from listings alone: no object is downloaded.
//!
//! The catalog grows page by page ([`Catalog::add_page`]) as ListObjectsV2
//! results arrive, so the page can show services, hosts and boots while the
//! listing is still running. Every index is a sorted map, so 100,000 keys
//! stay cheap. By job:
//!
//! - here: the index (segments, other objects, hosts) and its growth;
//! - [`load`]: busy, quiet or empty, by size against the fleet's own sizes;
//! - [`window`]: a time window of Unix seconds;
//! - `spans`: each segment's estimated `[start, end)`;
//! - [`select`]: the selections (a host, a window, one segment per host);
//! - [`summary`]: what the page shows before any download (recomputed on
//!   demand in O(n log n)).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use super::layout::{OtherReason, ParsedKey, SegmentKey, parse_key};
use crate::s3::listing::ObjectEntry;

pub mod load;
pub mod select;
mod spans;
pub mod summary;
pub mod window;

pub use load::{BUSY_FACTOR, Load, LoadBaseline};
pub use select::{SelectedSegment, Selection};
pub use spans::{DEFAULT_SEGMENT_SECS, MAX_SEGMENT_SECS, UPLOAD_SLACK_SECS};
pub use summary::{
    BootAnomaly, BootStart, BootSummary, CatalogSummary, DensityBucket, HostSummary, MIN_GAP_SECS, OtherGroup,
    ServiceSummary, Subnet, SubnetGroup, TimeGap, TimeRange, host_ipv4,
};
pub use window::TimeWindow;

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

    fn host_records(&self, set: &BTreeSet<(u64, usize)>) -> Vec<&SegmentRecord> {
        set.iter().map(|&(_, slot)| &self.segments[slot]).collect()
    }
}

enum Inserted {
    NewSegment,
    NewOther,
    Replaced,
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// One listed segment: host, boot, start (Unix seconds), index, size, upload time.
    pub type Seg<'a> = (&'a str, &'a str, u64, u64, u64, Option<u64>);

    /// 2026-11-30 14:00:00 UTC.
    pub const T0: u64 = 1_796_047_200;

    /// The v1 key dial9's uploader writes for `seg`.
    pub fn key(&(host, boot, start, index, ..): &Seg<'_>) -> String {
        // 2026-11-30T14:05:00Z: the date, and HHMM.
        let at = crate::s3::Timestamp::from_unix_secs(start as i64).to_rfc3339();
        let (date, time) = (&at[..10], format!("{}{}", &at[11..13], &at[14..16]));
        format!("version=1/date={date}/service=api/time={time}/instance={host}/boot={boot}/{start}-{index}.bin.gz")
    }

    pub fn catalog_of(segs: &[Seg<'_>]) -> Catalog {
        let mut catalog = Catalog::new("");
        catalog.add_page(segs.iter().map(|s| CatalogObject {
            key: key(s),
            size: s.4,
            etag: None,
            last_modified_secs: s.5,
        }));
        catalog
    }

    #[test]
    fn pages_grow_the_index_and_a_key_listed_again_replaces_itself() {
        let segs = [("h1", "aaaa", T0, 0, 100, None), ("h2", "bbbb", T0 + 60, 0, 200, None)];
        let mut catalog = catalog_of(&segs);
        let again = CatalogObject {
            key: key(&segs[0]),
            size: 150,
            etag: None,
            last_modified_secs: None,
        };
        let other = CatalogObject {
            key: "dumps/1.json".into(),
            size: 5,
            etag: None,
            last_modified_secs: None,
        };
        let stats = catalog.add_page([again, other]);
        assert_eq!((stats.new_segments, stats.new_others, stats.replaced), (0, 1, 1));
        assert_eq!(catalog.object_count(), 3);
        assert_eq!(catalog.segment(&key(&segs[0])).unwrap().segment.size, 150);
        let hosts: Vec<&str> = catalog.hosts().map(|h| h.instance.as_str()).collect();
        assert_eq!(hosts, ["h1", "h2"]);
        // The catalog travels as its objects; the indexes come back.
        let back: Catalog = serde_json::from_str(&serde_json::to_string(&catalog).unwrap()).unwrap();
        assert_eq!(back.summary(), catalog.summary());
    }
}
