//! The deploy manifest, `PREFIX.d9lens-deploy.json`: the keys the last deploy
//! wrote, with their digests.
//!
//! It is what lets a deploy delete stale files safely: only keys a d9lens deploy
//! wrote are ever deleted, never anything else under the prefix (which may be the
//! trace bucket itself). It is written after every file it lists, so a manifest
//! never names a file that was not uploaded.

use serde::{Deserialize, Serialize};

use super::error::SiteError;
use crate::s3::sigv4::sha256_hex;

/// The manifest format this build writes and reads.
pub const MANIFEST_VERSION: u32 = 1;

/// The manifest's own `Content-Type` and `Cache-Control`.
pub const MANIFEST_CONTENT_TYPE: &str = "application/json";
pub const MANIFEST_CACHE_CONTROL: &str = "no-cache";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub version: u32,
    /// In upload order.
    pub files: Vec<ManifestEntry>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// The full object key (prefix included).
    pub key: String,
    pub sha256: Sha256Hex,
    pub size: u64,
}

impl Manifest {
    /// Reads a manifest object; refuses other versions rather than guess what they
    /// mean (a wrong guess could delete files).
    pub fn parse(bytes: &[u8]) -> Result<Self, SiteError> {
        #[derive(Deserialize)]
        struct Version {
            version: u32,
        }
        let bad = |e: serde_json::Error| SiteError::BadManifest(e.to_string());
        let Version { version } = serde_json::from_slice(bytes).map_err(bad)?;
        if version != MANIFEST_VERSION {
            return Err(SiteError::BadManifest(format!(
                "version {version}, this d9lens reads version {MANIFEST_VERSION}"
            )));
        }
        serde_json::from_slice(bytes).map_err(bad)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a manifest always serialises")
    }
}

/// A SHA-256 digest in lower-case hex (64 characters).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Sha256Hex(String);

impl Sha256Hex {
    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        Self(sha256_hex(bytes))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for Sha256Hex {
    type Error = String;

    fn try_from(hex: String) -> Result<Self, Self::Error> {
        if hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            Ok(Self(hex))
        } else {
            Err(format!("{hex:?} is not a lower-case hex SHA-256"))
        }
    }
}

impl From<Sha256Hex> for String {
    fn from(digest: Sha256Hex) -> Self {
        digest.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_other_versions() {
        let manifest = Manifest {
            version: MANIFEST_VERSION,
            files: vec![ManifestEntry {
                key: "site/index.html".into(),
                sha256: Sha256Hex::of(b"<html>"),
                size: 6,
            }],
        };
        let json = manifest.to_json();
        assert_eq!(Manifest::parse(json.as_bytes()).unwrap(), manifest);
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(doc["version"], 1);
        assert_eq!(doc["files"][0]["key"], "site/index.html");
        assert_eq!(doc["files"][0]["sha256"].as_str().unwrap().len(), 64);

        let future = json.replace("\"version\": 1", "\"version\": 2");
        assert!(
            Manifest::parse(future.as_bytes())
                .unwrap_err()
                .to_string()
                .contains("version 2")
        );
        assert!(Manifest::parse(b"<Error>").is_err());
        let bad_digest = json.replace(manifest.files[0].sha256.as_str(), "XYZ");
        assert!(Manifest::parse(bad_digest.as_bytes()).is_err());
    }

    #[test]
    fn digests() {
        assert_eq!(
            Sha256Hex::of(b"").as_str(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
