//! What the page's segment cache keys an object by, and when a body may be
//! kept: one version of one object of one bucket at one endpoint. Two
//! buckets (or two endpoints) may hold the same key; an object rewritten in
//! place gets another ETag (or size and upload time); a body whose length
//! is not the listed size is a changed or broken download, and never cached.

use super::catalog::SegmentRecord;
use crate::s3::request::{Endpoint, S3Config};
use serde::{Deserialize, Serialize};

/// One version of one listed object, as the cache knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CachedObject {
    /// Endpoint, bucket, key and version, in one string (no credentials).
    id: String,
    /// The size the listing gave.
    size: u64,
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
}
