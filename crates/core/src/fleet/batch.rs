//! What one invocation analyzes, and how a selection is cut into batches.

use serde::{Deserialize, Serialize};

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
}

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
    fn a_batch_reads_as_the_function_takes_it() {
        let batch: Batch = serde_json::from_str(r#"{"bucket":"b","region":"eu-west-1","keys":["a"]}"#).unwrap();
        assert_eq!(batch.endpoint, None);
        assert!(!batch.reference_compatible);
        let again: Batch = serde_json::from_str(&serde_json::to_string(&batch).unwrap()).unwrap();
        assert_eq!(again, batch);
    }
}
