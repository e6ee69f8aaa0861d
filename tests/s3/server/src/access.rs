//! Who may do what: signed requests (SigV4 already verified by s3s, which refuses a
//! bad signature before this runs) may do anything, as with plain s3s-fs; anonymous
//! requests may only GetObject / HeadObject under a public-read prefix, like a bucket
//! policy granting `s3:GetObject` on `arn:aws:s3:::BUCKET/PREFIX*` to `"*"`.
//!
//! In s3s 0.14.1, once an auth provider is set, `S3Access::check` runs for every
//! request before its input is parsed, with `credentials() == None` for an unsigned one
//! (`ops/mod.rs`, `prepare`); without an `S3Access`, s3s denies every anonymous request.

use s3s::access::{S3Access, S3AccessContext};
use s3s::path::S3Path;
use s3s::{S3Result, s3_error};

/// A `BUCKET/PREFIX` readable by anyone (the prefix is a plain string prefix of keys).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicPrefix {
    bucket: String,
    prefix: String,
}

impl std::str::FromStr for PublicPrefix {
    type Err = String;

    /// `BUCKET/PREFIX`, or `BUCKET` (or `BUCKET/`) for the whole bucket.
    fn from_str(s: &str) -> Result<Self, String> {
        let (bucket, prefix) = s.split_once('/').unwrap_or((s, ""));
        if bucket.is_empty() {
            return Err(format!("expected BUCKET/PREFIX, found {s:?}"));
        }
        Ok(Self {
            bucket: bucket.to_owned(),
            prefix: prefix.to_owned(),
        })
    }
}

/// The access policy: signed requests pass, anonymous ones only read public prefixes.
#[derive(Debug, Default)]
pub struct PublicRead {
    prefixes: Vec<PublicPrefix>,
}

impl PublicRead {
    pub fn new(prefixes: Vec<PublicPrefix>) -> Self {
        Self { prefixes }
    }

    /// Whether an anonymous request for `op` on `path` is allowed.
    pub fn allows_anonymous(&self, op: &str, path: &S3Path) -> bool {
        let S3Path::Object { bucket, key } = path else {
            return false;
        };
        // s3s-fs joins the key to the bucket's directory and resolves `..`: a key
        // `site/../../other-bucket/x` would leave the prefix.
        let dot_segment = key.split('/').any(|s| s == "." || s == "..");
        matches!(op, "GetObject" | "HeadObject")
            && !dot_segment
            && self
                .prefixes
                .iter()
                .any(|p| p.bucket == bucket.as_ref() && key.starts_with(&p.prefix))
    }
}

#[async_trait::async_trait]
impl S3Access for PublicRead {
    async fn check(&self, cx: &mut S3AccessContext<'_>) -> S3Result<()> {
        if cx.credentials().is_some() || self.allows_anonymous(cx.s3_op().name(), cx.s3_path()) {
            Ok(())
        } else {
            Err(s3_error!(AccessDenied, "Access Denied"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(prefixes: &[&str]) -> PublicRead {
        PublicRead::new(prefixes.iter().map(|p| p.parse().unwrap()).collect())
    }

    fn object(bucket: &str, key: &str) -> S3Path {
        S3Path::Object {
            bucket: bucket.into(),
            key: key.into(),
        }
    }

    #[test]
    fn reads_under_a_public_prefix_only() {
        let p = policy(&["site/tools/d9lens/", "other"]);
        assert!(p.allows_anonymous("GetObject", &object("site", "tools/d9lens/index.html")));
        assert!(p.allows_anonymous("HeadObject", &object("site", "tools/d9lens/a/b.wasm")));
        assert!(p.allows_anonymous("GetObject", &object("other", "anything")));
        assert!(!p.allows_anonymous("GetObject", &object("site", "tools/other/index.html")));
        assert!(!p.allows_anonymous("GetObject", &object("site", "tools/d9lens")));
        assert!(!p.allows_anonymous("GetObject", &object("d9lens-demo", "tools/d9lens/index.html")));
        assert!(!p.allows_anonymous("PutObject", &object("site", "tools/d9lens/index.html")));
        assert!(!p.allows_anonymous("DeleteObject", &object("site", "tools/d9lens/index.html")));
        assert!(!p.allows_anonymous("GetObjectAcl", &object("site", "tools/d9lens/index.html")));
        assert!(!p.allows_anonymous("ListObjectsV2", &S3Path::bucket("site")));
        assert!(!p.allows_anonymous("ListBuckets", &S3Path::root()));
        assert!(!p.allows_anonymous("GetObject", &object("site", "tools/d9lens/../../../d9lens-demo/x")));
        assert!(!p.allows_anonymous("GetObject", &object("site", "tools/d9lens/./x")));
        assert!(policy(&[]).prefixes.is_empty());
        assert!("/x".parse::<PublicPrefix>().is_err());
    }
}
