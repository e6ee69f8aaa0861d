//! A batch's file outcomes as the function returns them: each outcome in its
//! wire form (`analysis::wire`), length-prefixed and deflated; base64'd into
//! one JSON string (a function's answer is JSON), or, when that would not
//! fit in Lambda's answer, stored in the bucket (`fleet::stored`) and
//! answered by where. Read back with every size checked: a bad answer is an
//! error, never a panic or a huge allocation.

use super::base64::{base64_decode, base64_encode};
use super::batch::Batch;
use super::framed::{PackError, deflate, inflate};
use super::stored::{StoredAnswer, results_key};
use crate::analysis::FileOutcome;
use serde::{Deserialize, Serialize};

/// The largest answer a synchronous invocation may return (Lambda's limit).
pub const MAX_ANSWER_BYTES: usize = 6 * 1024 * 1024;
/// What the JSON around an inline answer's string adds, at most.
const ANSWER_OVERHEAD_BYTES: usize = 64;

/// The outcomes in an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackedOutcomes {
    /// How many outcomes `packed` holds.
    pub files: u32,
    pub packed: String,
}

/// What one invocation answers (its JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Answer {
    /// The outcomes are in the object `stored` names.
    Stored {
        stored: StoredAnswer,
    },
    Inline(PackedOutcomes),
}

/// What the function does with a batch's outcomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// Answer them.
    Inline(PackedOutcomes),
    /// Write `object` (PutObject [`StoredAnswer::put_object`]), then answer
    /// [`Answer::Stored`].
    Store { stored: StoredAnswer, object: Vec<u8> },
}

/// The function's reply to `batch` with its `outcomes`: inline when the
/// answer fits `inline_limit` (at most [`MAX_ANSWER_BYTES`]: a test may
/// lower it), else stored under the batch's results prefix.
pub fn reply(batch: &Batch, outcomes: &[FileOutcome], inline_limit: usize) -> Result<Reply, PackError> {
    let deflated = deflate(outcomes);
    let files = outcomes.len() as u32;
    let inline_bytes = deflated.len().div_ceil(3) * 4;
    let limit = inline_limit.min(MAX_ANSWER_BYTES);
    if inline_bytes + ANSWER_OVERHEAD_BYTES <= limit {
        let packed = base64_encode(&deflated);
        return Ok(Reply::Inline(PackedOutcomes { files, packed }));
    }
    match results_key(batch).map_err(PackError::BadPrefix)? {
        Some(key) => Ok(Reply::Store {
            stored: StoredAnswer::of(key, &deflated, files)?,
            object: deflated,
        }),
        None => Err(PackError::TooLarge {
            bytes: inline_bytes,
            limit,
        }),
    }
}

/// An inline answer's outcomes.
pub fn unpack(answer: &PackedOutcomes) -> Result<Vec<FileOutcome>, PackError> {
    if answer.packed.len() > MAX_ANSWER_BYTES {
        return Err(PackError::Damaged(format!(
            "{} bytes, over Lambda's limit",
            answer.packed.len()
        )));
    }
    let deflated = base64_decode(&answer.packed).ok_or_else(|| PackError::Damaged("not base64".into()))?;
    inflate(&deflated, answer.files)
}

/// What a function answered to `batch`.
#[derive(Debug)]
pub enum Answered {
    Outcomes(Vec<FileOutcome>),
    /// Stored, where `batch` allows: the caller fetches it
    /// ([`StoredAnswer::get_object`]) and unpacks it ([`StoredAnswer::unpack`]).
    Stored(StoredAnswer),
}

/// What the function answered to `batch` (`Invoke`'s answer, or a function
/// URL's body), or why there is nothing: the error it reported, an answer
/// that is not d9lens-lambda's, or a pointer to anything but the batch's
/// own results (`stored::results_key`).
pub fn read_answer(batch: &Batch, headers: &[(String, String)], body: &[u8]) -> Result<Answered, String> {
    if let Some(error) = super::function_error(headers, body) {
        return Err(error);
    }
    let answer: Answer =
        serde_json::from_slice(body).map_err(|e| format!("the function's answer is not d9lens-lambda's: {e}"))?;
    match answer {
        Answer::Inline(packed) => unpack(&packed).map(Answered::Outcomes).map_err(|e| e.to_string()),
        Answer::Stored { stored } => stored.checked(batch).map(Answered::Stored),
    }
}

/// One outcome per key of a batch, in the batch's order: what the function
/// answered for it, else why not (the invocation failed, or its answer left
/// the file out). Outcomes for files the batch did not name are dropped.
pub fn outcomes_of(keys: &[String], answered: Result<Vec<FileOutcome>, String>) -> Vec<FileOutcome> {
    let (mut answered, why) = match answered {
        Ok(outcomes) => (outcomes, "the function's answer left this file out".to_owned()),
        Err(why) => (Vec::new(), why),
    };
    keys.iter()
        .map(|key| match answered.iter().position(|o| o.partial.file == *key) {
            Some(i) => answered.swap_remove(i),
            None => FileOutcome::failed(key, None, why.clone()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Options, analyze_file};

    #[test]
    fn outcomes_survive_packing_and_damage_is_named() {
        let raw = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/rotation/trace.4.bin"
        ))
        .unwrap();
        let outcomes = vec![
            analyze_file("a.bin", &raw, &Options::default()),
            FileOutcome::failed("b.bin.gz", None, "download failed".into()),
        ];
        let batch = Batch::of(
            &crate::s3::S3Config::unsigned(crate::s3::Endpoint::Aws, "b", "us-east-1"),
            vec![],
            false,
        );
        let Ok(Reply::Inline(answer)) = reply(&batch, &outcomes, MAX_ANSWER_BYTES) else {
            panic!("two outcomes fit in an answer")
        };
        let json = serde_json::to_vec(&Answer::Inline(answer.clone())).unwrap();
        let Ok(Answered::Outcomes(back)) = read_answer(&batch, &[], &json) else {
            panic!("an inline answer reads back")
        };
        let json = |o: &[FileOutcome]| serde_json::to_string(o).unwrap();
        assert_eq!(json(&back), json(&outcomes));
        let miscounted = PackedOutcomes {
            files: 3,
            ..answer.clone()
        };
        assert!(matches!(unpack(&miscounted), Err(PackError::Damaged(_))));
        let cut = PackedOutcomes {
            packed: answer.packed[..answer.packed.len() / 2 / 4 * 4].to_owned(),
            ..answer
        };
        assert!(matches!(unpack(&cut), Err(PackError::Damaged(_))));
        assert!(
            read_answer(&batch, &[], b"{}")
                .unwrap_err()
                .contains("not d9lens-lambda's")
        );
    }

    #[test]
    fn an_answer_too_large_without_a_results_prefix_says_what_to_do() {
        let batch = Batch::of(
            &crate::s3::S3Config::unsigned(crate::s3::Endpoint::Aws, "b", "us-east-1"),
            vec![],
            false,
        );
        let outcomes = [FileOutcome::failed("a.bin", None, "download failed".into())];
        let error = reply(&batch, &outcomes, 10).unwrap_err();
        assert!(matches!(error, PackError::TooLarge { limit: 10, .. }), "{error:?}");
        assert!(
            error
                .to_string()
                .contains("use smaller batches, or name a results prefix"),
            "{error}"
        );
        // A test's limit only ever lowers Lambda's.
        assert!(matches!(reply(&batch, &outcomes, usize::MAX), Ok(Reply::Inline(_))));
    }
}
