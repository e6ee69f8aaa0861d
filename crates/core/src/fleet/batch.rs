//! What one invocation analyzes, and how a selection is cut into batches.

use crate::s3::{Endpoint, S3Config};
use crate::site::Prefix;
use serde::{Deserialize, Serialize};

/// The longest results prefix: with the hash and the suffix, a key stays far
/// below S3's 1,024 bytes.
pub const MAX_RESULTS_PREFIX_BYTES: usize = 512;

/// `text` as a results prefix: a key prefix (`site::Prefix`: no empty,
/// `.` or `..` component, no control character), not the bucket's root, at
/// most [`MAX_RESULTS_PREFIX_BYTES`].
pub fn results_prefix(text: &str) -> Result<Prefix, String> {
    let prefix = Prefix::new(text).map_err(|e| format!("results prefix: {e}"))?;
    if prefix.is_root() {
        return Err("results prefix: name a prefix (e.g. d9lens-results/), not the bucket's root".into());
    }
    if prefix.as_str().len() > MAX_RESULTS_PREFIX_BYTES {
        return Err(format!(
            "results prefix: {} bytes, more than {MAX_RESULTS_PREFIX_BYTES}",
            prefix.as_str().len()
        ));
    }
    Ok(prefix)
}

/// One invocation's work: these objects of this bucket, analyzed and merged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Batch {
    /// An S3-compatible endpoint URL; `None`: AWS S3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    pub bucket: String,
    pub region: String,
    pub keys: Vec<String>,
    /// The reference's own numbers (`Options::reference_compatible`).
    #[serde(default)]
    pub reference_compatible: bool,
    /// Where in the bucket the function may store an answer too large to
    /// return (`fleet::stored`); `None`: such a batch fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results_prefix: Option<String>,
}

/// How the function was invoked, which decides the shape of its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// Lambda's `Invoke` API (the CLI): the answer is the JSON itself.
    Invoke,
    /// A function URL (the page): the answer is an HTTP response whose body
    /// is that JSON.
    FunctionUrl,
}

impl Via {
    /// `answer` in the shape this way of invoking returns.
    pub fn respond<T: Serialize>(self, answer: &T) -> serde_json::Value {
        let json = serde_json::to_value(answer).expect("an answer serializes");
        match self {
            Via::Invoke => json,
            // Every field of the response shape, which some readers require.
            Via::FunctionUrl => serde_json::json!({
                "statusCode": 200,
                "headers": {"content-type": "application/json"},
                "cookies": [],
                "isBase64Encoded": false,
                "body": json.to_string(),
            }),
        }
    }
}

impl Batch {
    /// `keys` of the bucket `config` names, as the function will read them
    /// (with its own credentials: the config's are not sent). Set
    /// `results_prefix` to let it store an answer too large to return.
    pub fn of(config: &S3Config, keys: Vec<String>, reference_compatible: bool) -> Batch {
        Batch {
            endpoint: match &config.endpoint {
                Endpoint::Custom(e) => Some(e.url()),
                Endpoint::Aws => None,
            },
            bucket: config.bucket.as_str().to_owned(),
            region: config.region.as_str().to_owned(),
            keys,
            reference_compatible,
            results_prefix: None,
        }
    }

    /// The batch an invocation carries: the event itself (`Invoke`), or the
    /// body of a function URL's HTTP event (base64 when Lambda flagged it so);
    /// refused when its results prefix is not one (`stored::results_key`).
    pub fn from_event(event: serde_json::Value) -> Result<(Batch, Via), String> {
        let is_http = event.get("requestContext").is_some();
        let via = if is_http { Via::FunctionUrl } else { Via::Invoke };
        let batch = match (is_http, event.get("body")) {
            (false, _) => serde_json::from_value(event),
            (true, Some(serde_json::Value::String(body))) => {
                let bytes = match event.get("isBase64Encoded").and_then(serde_json::Value::as_bool) {
                    Some(true) => super::base64::base64_decode(body).ok_or("the request's body is not base64")?,
                    _ => body.as_bytes().to_vec(),
                };
                serde_json::from_slice(&bytes)
            }
            (true, _) => return Err("the request has no body: POST a batch as JSON".into()),
        };
        let batch: Batch = batch.map_err(|e| format!("not a d9lens batch: {e}"))?;
        if let Some(prefix) = &batch.results_prefix {
            results_prefix(prefix)?;
        }
        Ok((batch, via))
    }
}

/// Compressed megabytes of segments one invocation analyzes unless told
/// otherwise: seconds of work, and results well inside Lambda's 6 MB answer.
pub const DEFAULT_BATCH_MB: u64 = 32;

/// The most keys one batch names (its request stays far below Lambda's
/// 6 MB payload limit whatever the keys).
pub const MAX_KEYS_PER_BATCH: usize = 1_000;

/// `objects` (key, size) cut into consecutive batches of at most
/// `max_bytes` each (a larger object is a batch of its own) and
/// [`MAX_KEYS_PER_BATCH`] keys; the order is kept.
pub fn plan_batches<'a>(objects: impl IntoIterator<Item = (&'a str, u64)>, max_bytes: u64) -> Vec<Vec<String>> {
    let mut batches: Vec<Vec<String>> = Vec::new();
    let mut bytes = 0u64;
    for (key, size) in objects {
        let fits = batches
            .last()
            .is_some_and(|b| b.len() < MAX_KEYS_PER_BATCH && bytes.saturating_add(size) <= max_bytes);
        match (fits, batches.last_mut()) {
            (true, Some(last)) => {
                last.push(key.to_owned());
                bytes += size;
            }
            _ => {
                batches.push(vec![key.to_owned()]);
                bytes = size;
            }
        }
    }
    batches
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_prefixes_are_plain_bounded_key_prefixes() {
        assert_eq!(results_prefix("d9lens-results").unwrap().as_str(), "d9lens-results/");
        assert_eq!(results_prefix("a/b/").unwrap().as_str(), "a/b/");
        let long = "p".repeat(MAX_RESULTS_PREFIX_BYTES);
        for bad in ["", "/", "a/../b", "..", "a//b", "a\u{0}b", long.as_str()] {
            assert!(results_prefix(bad).is_err(), "{bad:?}");
        }
        let batch = Batch {
            results_prefix: Some("../up".into()),
            ..Batch::of(
                &S3Config::unsigned(Endpoint::Aws, "b", "us-east-1"),
                vec!["a.bin".into()],
                false,
            )
        };
        let event = serde_json::to_value(batch).unwrap();
        assert!(Batch::from_event(event).unwrap_err().contains("results prefix"));
    }

    fn objects(sizes: &[u64]) -> Vec<(String, u64)> {
        sizes.iter().enumerate().map(|(i, &s)| (format!("k{i}"), s)).collect()
    }

    fn plan(objects: &[(String, u64)], max_bytes: u64) -> Vec<Vec<String>> {
        plan_batches(objects.iter().map(|(k, s)| (k.as_str(), *s)), max_bytes)
    }

    #[test]
    fn batches_keep_the_order_and_stay_under_the_budget() {
        let four = plan(&objects(&[4, 4, 4, 9, 1, 1]), 8);
        assert_eq!(four, vec![vec!["k0", "k1"], vec!["k2"], vec!["k3"], vec!["k4", "k5"]]);
        assert!(plan(&[], 8).is_empty());
        let many = plan(&objects(&vec![0; MAX_KEYS_PER_BATCH + 1]), u64::MAX);
        assert_eq!(many.iter().map(Vec::len).collect::<Vec<_>>(), [MAX_KEYS_PER_BATCH, 1]);
    }

    #[test]
    fn a_batch_comes_direct_or_in_a_function_url_request() {
        let batch = r#"{"bucket":"b","region":"us-east-1","keys":["k"]}"#;
        let (direct, via) = Batch::from_event(serde_json::from_str(batch).unwrap()).unwrap();
        assert_eq!(via, Via::Invoke);
        let http = serde_json::json!({"requestContext": {"http": {"method": "POST"}}, "body": batch, "isBase64Encoded": false});
        assert_eq!(Batch::from_event(http).unwrap(), (direct.clone(), Via::FunctionUrl));
        let encoded = serde_json::json!({"requestContext": {}, "body": "eyJidWNrZXQiOiJiIiwicmVnaW9uIjoidXMtZWFzdC0xIiwia2V5cyI6WyJrIl19", "isBase64Encoded": true});
        assert_eq!(Batch::from_event(encoded).unwrap(), (direct.clone(), Via::FunctionUrl));
        let answer = Via::FunctionUrl.respond(&direct);
        assert_eq!(answer["statusCode"], 200);
        let body: Batch = serde_json::from_str(answer["body"].as_str().unwrap()).unwrap();
        assert_eq!(body, direct);
        assert_eq!(Via::Invoke.respond(&direct), serde_json::to_value(&direct).unwrap());
        let empty = serde_json::json!({"requestContext": {}});
        assert!(Batch::from_event(empty).unwrap_err().contains("no body"));
        assert!(
            Batch::from_event(serde_json::json!({"keys": 3}))
                .unwrap_err()
                .starts_with("not a d9lens batch")
        );
    }

    #[test]
    fn a_batch_reads_as_the_function_takes_it() {
        let batch: Batch = serde_json::from_str(r#"{"bucket":"b","region":"eu-west-1","keys":["a"]}"#).unwrap();
        assert_eq!(batch.endpoint, None);
        assert!(!batch.reference_compatible);
        assert_eq!(batch.results_prefix, None);
        assert!(!serde_json::to_string(&batch).unwrap().contains("resultsPrefix"));
        let again: Batch = serde_json::from_str(&serde_json::to_string(&batch).unwrap()).unwrap();
        assert_eq!(again, batch);
    }
}
