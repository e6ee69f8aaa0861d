//! What the page's segment cache keys an object by, and when a body may be
//! kept: one version of one object of one bucket at one endpoint. Two
//! buckets (or two endpoints) may hold the same key; an object rewritten in
//! place gets another ETag (or size and upload time); a body whose length
//! is not the listed size is a changed or broken download, and never cached.
//!
//! Writing a body into the browser's Cache Storage costs CPU on the
//! machine the analysis runs on (in the worker and in the browser), so the
//! cache is written only where a later run can read it back: a run writes its objects in fold order while they fit in the cap
//! ([`admit_writes`]; beyond it a fleet-sized run would only evict its own
//! first objects), and a hit records its use again only when the entry's
//! last use is old enough to matter for eviction ([`use_is_stale`]), not by
//! rewriting the body on every read.

use super::catalog::SegmentRecord;
use crate::s3::request::{Endpoint, S3Config};
use serde::{Deserialize, Serialize};

/// The most bytes the segment cache keeps: after each run the least
/// recently used entries beyond it are evicted.
pub const CAP_BYTES: u64 = 512 * 1_000_000;

/// How old an entry's recorded last use may get before a hit records it
/// again (ms). Eviction orders entries by last use; a coarser clock only
/// blurs the order among entries used within this long of each other.
pub const USE_REFRESH_MS: u64 = 10 * 60 * 1000;

/// One version of one listed object, as the cache knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CachedObject {
    /// Endpoint, bucket, key and version, in one string (no credentials).
    id: String,
    /// The size the listing gave.
    size: u64,
    /// Whether a download of it is written to the cache ([`admit_writes`]);
    /// it is read from the cache either way.
    write: bool,
}

impl CachedObject {
    /// The cache identity of `segment` in the bucket `config` names; `None`
    /// when the listing gives no way to tell its versions apart (no ETag
    /// and no upload time).
    pub fn of(config: &S3Config, segment: &SegmentRecord) -> Option<CachedObject> {
        let version = match (&segment.etag, segment.uploaded_secs) {
            (Some(etag), _) => format!("etag={etag}"),
            (None, Some(t)) => format!("size={};modified={t}", segment.size),
            (None, None) => return None,
        };
        let endpoint = match &config.endpoint {
            Endpoint::Aws => "aws".to_string(),
            Endpoint::Custom(c) => c.url(),
        };
        Some(CachedObject {
            id: format!("{endpoint}|{}|{}|{version}", config.bucket.as_str(), segment.key),
            size: segment.size,
            write: true,
        })
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// Whether a body of `len` bytes is the object as listed (cached bodies
    /// are checked too: a store cut short by quota must not be analyzed).
    pub fn holds(&self, len: u64) -> bool {
        len == self.size
    }

    /// Whether a downloaded body of `len` bytes is written to the cache.
    pub fn keeps(&self, len: u64) -> bool {
        self.write && self.holds(len)
    }
}

/// Decides which of a run's objects, in fold order, a download writes to the
/// cache: the first ones, while together they fit in [`CAP_BYTES`]. The
/// others are still read from the cache when an earlier run kept them.
pub fn admit_writes<'a>(objects: impl IntoIterator<Item = &'a mut CachedObject>) {
    let mut left = CAP_BYTES;
    for object in objects {
        object.write = object.size <= left;
        left = if object.write { left - object.size } else { 0 };
    }
}

/// Whether a hit on an entry last used at `used_ms` records its use again
/// at `now_ms` (epoch ms; an entry from a clock ahead of this one counts as fresh).
pub fn use_is_stale(used_ms: u64, now_ms: u64) -> bool {
    now_ms.saturating_sub(used_ms) >= USE_REFRESH_MS
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bucket::layout::{ParsedKey, parse_key};

    fn config(endpoint: Endpoint, bucket: &str) -> S3Config {
        S3Config::unsigned(endpoint, bucket, "us-east-1")
    }

    fn segment(etag: Option<&str>, uploaded_secs: Option<u64>) -> SegmentRecord {
        let key = "2026-11-30/1405/checkout-api/ip-10-0-1-23/qghy-22982/1796047535-0.bin.gz";
        SegmentRecord {
            key: key.into(),
            size: 1_300_000,
            etag: etag.map(Into::into),
            uploaded_secs,
            parts: match parse_key(key, "") {
                ParsedKey::Segment(parts) => parts,
                other => panic!("{other:?}"),
            },
        }
    }

    #[test]
    fn buckets_endpoints_and_versions_are_told_apart() {
        let minio = Endpoint::custom("http://127.0.0.1:9001").unwrap();
        let s = segment(Some("\"e1\""), None);
        let a = CachedObject::of(&config(Endpoint::Aws, "traces"), &s).unwrap();
        let b = CachedObject::of(&config(Endpoint::Aws, "traces-copy"), &s).unwrap();
        let c = CachedObject::of(&config(minio.clone(), "traces"), &s).unwrap();
        let d = CachedObject::of(&config(Endpoint::Aws, "traces"), &segment(Some("\"e2\""), None)).unwrap();
        let ids = [a.id(), b.id(), c.id(), d.id()];
        assert!(
            ids.iter().enumerate().all(|(i, x)| ids[i + 1..].iter().all(|y| x != y)),
            "{ids:?}"
        );
        // Without an ETag, size and upload time; without either, not cacheable.
        let e = CachedObject::of(&config(minio.clone(), "traces"), &segment(None, Some(1_796_047_600))).unwrap();
        assert!(e.id().ends_with("|size=1300000;modified=1796047600"), "{}", e.id());
        assert!(CachedObject::of(&config(minio, "traces"), &segment(None, None)).is_none());
        assert!(a.holds(1_300_000) && !a.holds(1_299_999));
    }

    fn object(size: u64) -> CachedObject {
        CachedObject {
            id: format!("aws|b|{size}|etag=x"),
            size,
            write: true,
        }
    }

    #[test]
    fn a_run_writes_its_first_objects_while_they_fit_in_the_cap() {
        let mb = 1_000_000;
        let mut run: Vec<CachedObject> = (0..600).map(|_| object(mb)).collect();
        admit_writes(&mut run);
        let written = run.iter().filter(|o| o.keeps(mb)).count();
        assert_eq!(written as u64, CAP_BYTES / mb);
        assert!(run[..written].iter().all(|o| o.keeps(mb)), "a prefix, in fold order");
        assert!(!run[written..].iter().any(|o| o.keeps(mb)));
        // Once one does not fit, none after it is written, smaller or not:
        // what is kept stays a prefix a rerun reads back.
        let mut run = vec![object(CAP_BYTES - 10), object(20), object(5)];
        admit_writes(&mut run);
        assert_eq!(run.iter().map(|o| o.write).collect::<Vec<_>>(), [true, false, false]);
        // A run within the cap writes everything; a wrong length never.
        let mut run = vec![object(mb), object(mb)];
        admit_writes(&mut run);
        assert!(run.iter().all(|o| o.keeps(mb) && !o.keeps(mb - 1)));
    }

    #[test]
    fn a_hit_records_its_use_again_only_when_that_is_old() {
        let now = 1_796_047_600_000;
        assert!(!use_is_stale(now, now));
        assert!(!use_is_stale(now - USE_REFRESH_MS + 1, now));
        assert!(use_is_stale(now - USE_REFRESH_MS, now));
        assert!(use_is_stale(0, now), "no recorded use");
        assert!(!use_is_stale(now + 5_000, now), "a clock ahead");
    }
}
