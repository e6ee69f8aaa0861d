//! A batch's answer too large to return (Lambda's 6 MB): the function
//! writes the packed outcomes as one object under the batch's results
//! prefix and answers where ([`StoredAnswer`]); the caller fetches that
//! object with its own credentials and unpacks it like an inline answer.
//!
//! The key is the core's, never the function's to choose: a hash of the
//! batch under its results prefix ([`results_key`]), so the caller refuses a
//! pointer to any other key, and every size is bounded on the way back. The
//! object is not deleted after reading (a lifecycle rule on the prefix
//! expires old results): callers need only `s3:GetObject` there, and two
//! callers of the same batch never take each other's answer away.

use serde::{Deserialize, Serialize};

use super::batch::{Batch, results_prefix};
use super::framed::{PackError, inflate};
use crate::analysis::FileOutcome;
use crate::s3::sigv4::sha256_hex;
use crate::s3::{ByteRange, HttpRequest, S3Config, SigningTime};

/// The name of a stored answer after its hash.
pub const STORED_SUFFIX: &str = ".d9lens-batch";
/// The largest stored answer (packed): what a caller downloads at most.
pub const MAX_STORED_BYTES: u64 = 128 << 20;
/// How the stored object is described to S3.
const CONTENT_TYPE: &str = "application/octet-stream";
const CACHE_CONTROL: &str = "no-store";

/// Where an answer to `batch` is stored: `PREFIX` + the hex SHA-256 of the
/// batch as sent + [`STORED_SUFFIX`]; `None` when it names no results
/// prefix, an error when that is no [`results_prefix`].
pub fn results_key(batch: &Batch) -> Result<Option<String>, String> {
    let Some(text) = &batch.results_prefix else {
        return Ok(None);
    };
    let prefix = results_prefix(text)?;
    let json = serde_json::to_string(batch).expect("a batch serializes");
    Ok(Some(format!("{prefix}{}{STORED_SUFFIX}", sha256_hex(json.as_bytes()))))
}

/// Where the function stored a batch's outcomes: what it answers instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredAnswer {
    key: String,
    /// The object's size.
    bytes: u64,
    /// How many outcomes it holds.
    files: u32,
}

impl StoredAnswer {
    /// The answer that `object`, the packed outcomes (`files` of them), is
    /// stored at `key` ([`results_key`]), when it is at most [`MAX_STORED_BYTES`].
    pub(super) fn of(key: String, object: &[u8], files: u32) -> Result<StoredAnswer, PackError> {
        if object.len() as u64 > MAX_STORED_BYTES {
            return Err(PackError::TooLargeToStore {
                bytes: object.len(),
                limit: MAX_STORED_BYTES,
            });
        }
        Ok(StoredAnswer {
            key,
            bytes: object.len() as u64,
            files,
        })
    }

    /// The pointer a function answered, if it is the one `batch` allows: its
    /// own key ([`results_key`]), a size within [`MAX_STORED_BYTES`].
    pub(super) fn checked(self, batch: &Batch) -> Result<StoredAnswer, String> {
        let expected =
            results_key(batch)?.ok_or("the function stored its answer, but the batch named no results prefix")?;
        if self.key != expected {
            return Err(format!(
                "the function's answer points to {:?}, not to this batch's results ({expected})",
                self.key.chars().take(200).collect::<String>()
            ));
        }
        if self.bytes == 0 || self.bytes > MAX_STORED_BYTES {
            return Err(format!(
                "the stored answer {} takes {} bytes: not 1 to {MAX_STORED_BYTES}",
                self.key, self.bytes
            ));
        }
        Ok(self)
    }

    pub fn key(&self) -> &str {
        &self.key
    }

    /// The function's PutObject of the packed outcomes (the shell sends them).
    pub fn put_object(&self, config: &S3Config, now: SigningTime) -> HttpRequest {
        config.put_object(&self.key, CONTENT_TYPE, CACHE_CONTROL, now)
    }

    /// The caller's GetObject of the stored answer: no more than its
    /// announced size.
    pub fn get_object(&self, config: &S3Config, now: SigningTime) -> HttpRequest {
        config.get_object(&self.key, ByteRange::new(0, self.bytes.saturating_sub(1)), now)
    }

    /// The outcomes in the stored object's `body`, checked as an inline
    /// answer's are.
    pub fn unpack(&self, body: &[u8]) -> Result<Vec<FileOutcome>, String> {
        if body.len() as u64 != self.bytes {
            return Err(format!(
                "the stored answer {} holds {} bytes, not the {} announced",
                self.key,
                body.len(),
                self.bytes
            ));
        }
        inflate(body, self.files).map_err(|e| format!("the stored answer {}: {e}", self.key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::packed::{Answer, Answered, Reply, read_answer, reply};
    use crate::s3::{Endpoint, Method, Timestamp};

    fn config() -> S3Config {
        S3Config::unsigned(
            Endpoint::custom("http://127.0.0.1:9000").unwrap(),
            "traces",
            "us-east-1",
        )
    }

    fn batch(results_prefix: Option<&str>) -> Batch {
        Batch {
            results_prefix: results_prefix.map(str::to_owned),
            ..Batch::of(&config(), vec!["a.bin".into(), "b.bin".into()], false)
        }
    }

    fn outcomes() -> Vec<FileOutcome> {
        ["a.bin", "b.bin"]
            .map(|k| FileOutcome::failed(k, None, "download failed".into()))
            .into()
    }

    /// The batch's outcomes stored (an inline limit of 0 forces it), and
    /// the JSON the function answers.
    fn stored(batch: &Batch) -> (StoredAnswer, Vec<u8>, Vec<u8>) {
        let Ok(Reply::Store { stored, object }) = reply(batch, &outcomes(), 0) else {
            panic!("a batch with a results prefix stores what does not fit")
        };
        let json = serde_json::to_vec(&Answer::Stored { stored: stored.clone() }).unwrap();
        (stored, object, json)
    }

    #[test]
    fn the_key_is_a_hash_of_the_batch_under_its_prefix() {
        assert_eq!(results_key(&batch(None)), Ok(None));
        let key = results_key(&batch(Some("d9lens-results"))).unwrap().unwrap();
        let hash = key
            .strip_prefix("d9lens-results/")
            .and_then(|k| k.strip_suffix(STORED_SUFFIX))
            .unwrap();
        assert!(hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()), "{key}");
        assert_eq!(results_key(&batch(Some("d9lens-results"))).unwrap().unwrap(), key);
        let other = Batch {
            keys: vec!["c.bin".into()],
            ..batch(Some("d9lens-results"))
        };
        assert_ne!(results_key(&other).unwrap().unwrap(), key);
    }

    #[test]
    fn a_stored_answer_round_trips() {
        let batch = batch(Some("d9lens-results"));
        let (stored, object, json) = stored(&batch);
        let pointer: serde_json::Value = serde_json::from_slice(&json).unwrap();
        assert_eq!(
            pointer,
            serde_json::json!({"stored": {"key": stored.key(), "bytes": object.len(), "files": 2}})
        );
        let Ok(Answered::Stored(read)) = read_answer(&batch, &[], &json) else {
            panic!("the pointer reads back")
        };
        assert_eq!(read, stored);
        let now = Timestamp::from_unix_secs(0);
        let put = stored.put_object(&config(), now);
        assert_eq!(
            (put.method, put.url.as_str()),
            (Method::Put, &*format!("http://127.0.0.1:9000/traces/{}", stored.key()))
        );
        let get = read.get_object(&config(), now);
        assert_eq!(get.url, put.url);
        assert_eq!(
            get.headers,
            [("Range".to_owned(), format!("bytes=0-{}", object.len() - 1))]
        );
        let json = |o: &[FileOutcome]| serde_json::to_string(o).unwrap();
        assert_eq!(json(&read.unpack(&object).unwrap()), json(&outcomes()));
        let short = read.unpack(&object[1..]).unwrap_err();
        assert!(short.contains(stored.key()) && short.contains("announced"), "{short}");
        let mut damaged = object.clone();
        damaged[0] ^= 0xff;
        assert!(read.unpack(&damaged).unwrap_err().contains(stored.key()));
    }

    #[test]
    fn hostile_pointers_are_refused() {
        let batch = batch(Some("d9lens-results"));
        let (stored, _, _) = stored(&batch);
        let pointer = |key: &str, bytes: u64| {
            serde_json::to_vec(&serde_json::json!({"stored": {"key": key, "bytes": bytes, "files": 2}})).unwrap()
        };
        let refused = |json: Vec<u8>| read_answer(&batch, &[], &json).unwrap_err();
        for key in [
            "../secrets/key",
            "traces/a.bin",
            "d9lens-results/../a.bin",
            &format!("d9lens-results/{}{STORED_SUFFIX}", "0".repeat(64)),
        ] {
            assert!(
                refused(pointer(key, 10)).contains("not to this batch's results"),
                "{key}"
            );
        }
        let huge = refused(pointer(stored.key(), MAX_STORED_BYTES + 1));
        assert!(huge.contains(stored.key()) && huge.contains("bytes"), "{huge}");
        assert!(refused(pointer(stored.key(), 0)).contains("not 1 to"));
        let unasked = read_answer(&super::tests::batch(None), &[], &pointer(stored.key(), 10)).unwrap_err();
        assert!(unasked.contains("named no results prefix"), "{unasked}");
        assert!(refused(br#"{"stored": {"key": 3}}"#.to_vec()).contains("not d9lens-lambda's"));
    }

    #[test]
    fn what_may_be_stored_is_bounded() {
        let key = results_key(&batch(Some("r"))).unwrap().unwrap();
        let too_big = vec![0; MAX_STORED_BYTES as usize + 1];
        let error = StoredAnswer::of(key, &too_big, 1).unwrap_err();
        assert!(matches!(error, PackError::TooLargeToStore { .. }));
        assert!(error.to_string().contains("use smaller batches"), "{error}");
    }
}
