//! A batch's file outcomes as the function returns them: each outcome in its
//! wire form (`analysis::wire`), length-prefixed and deflated; base64'd into
//! one JSON string (a function's answer is JSON), or, when that would not
//! fit in Lambda's answer, stored in the bucket (`fleet::stored`) and
//! answered by where. Read back with every size checked: a bad answer is an
//! error, never a panic or a huge allocation.

use super::batch::Batch;
use super::stored::{StoredAnswer, results_key};
use crate::analysis::{FileOutcome, wire};
use serde::{Deserialize, Serialize};

/// The largest answer a synchronous invocation may return (Lambda's limit).
pub const MAX_ANSWER_BYTES: usize = 6 * 1024 * 1024;
/// The most the packed outcomes may inflate to.
pub const MAX_UNPACKED_BYTES: usize = 512 << 20;
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

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PackError {
    /// Packed, the outcomes pass the answer's limit, and the batch names no
    /// results prefix to store them under.
    TooLarge { bytes: usize, limit: usize },
    /// Packed, the outcomes pass even what may be stored.
    TooLargeToStore { bytes: usize },
    /// The batch's results prefix is not one.
    BadPrefix(String),
    /// The answer is not what [`reply`] writes.
    Damaged(String),
}

impl std::fmt::Display for PackError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PackError::TooLarge { bytes, limit } => write!(
                f,
                "the batch's results take {bytes} bytes, more than the {limit} a Lambda answer may hold: \
                 use smaller batches, or name a results prefix to store them under (docs/lambda.md)"
            ),
            PackError::TooLargeToStore { bytes } => write!(
                f,
                "the batch's results take {bytes} bytes, more than the {} a stored answer may hold: \
                 use smaller batches",
                super::stored::MAX_STORED_BYTES
            ),
            PackError::BadPrefix(why) => f.write_str(why),
            PackError::Damaged(why) => write!(f, "the function's answer is damaged: {why}"),
        }
    }
}

impl std::error::Error for PackError {}

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

/// The outcomes framed (each outcome's length, then its wire form) and
/// deflated: a stored answer's object; in base64, an inline answer's.
fn deflate(outcomes: &[FileOutcome]) -> Vec<u8> {
    let mut framed = Vec::new();
    for outcome in outcomes {
        let bytes = wire::encode(outcome);
        framed.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        framed.extend_from_slice(&bytes);
    }
    miniz_oxide::deflate::compress_to_vec(&framed, 6)
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

/// [`deflate`]'s `files` outcomes back, every size checked.
pub(super) fn inflate(deflated: &[u8], files: u32) -> Result<Vec<FileOutcome>, PackError> {
    let damaged = |why: String| PackError::Damaged(why);
    let framed = miniz_oxide::inflate::decompress_to_vec_with_limit(deflated, MAX_UNPACKED_BYTES)
        .map_err(|e| damaged(format!("does not inflate within {MAX_UNPACKED_BYTES} bytes: {e}")))?;
    let mut rest = framed.as_slice();
    let mut outcomes = Vec::new();
    while !rest.is_empty() {
        let (len, after) = rest
            .split_first_chunk::<8>()
            .ok_or_else(|| damaged("a truncated length".into()))?;
        let len = usize::try_from(u64::from_le_bytes(*len))
            .ok()
            .filter(|&n| n <= after.len())
            .ok_or_else(|| damaged("an outcome longer than the answer".into()))?;
        let (bytes, after) = after.split_at(len);
        outcomes.push(wire::decode(bytes).map_err(|e| damaged(e.to_string()))?);
        rest = after;
    }
    if outcomes.len() != files as usize {
        return Err(damaged(format!("{} outcomes, {files} announced", outcomes.len())));
    }
    Ok(outcomes)
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

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding (also the zip in `deploy`'s requests).
pub(crate) fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(match i <= chunk.len() {
                true => ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char,
                false => '=',
            });
        }
    }
    out
}

/// [`base64_encode`]'s inverse; `None` for anything it would not write.
pub(super) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.as_bytes();
    if !text.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    for (q, quad) in text.chunks(4).enumerate() {
        let last = q == text.len() / 4 - 1;
        let pad = quad.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for &c in &quad[..4 - pad] {
            let v = ALPHABET.iter().position(|&a| a == c)? as u32;
            n = n << 6 | v;
        }
        n <<= 6 * pad as u32;
        out.extend_from_slice(&n.to_be_bytes()[1..4 - pad]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Options, analyze_file};

    #[test]
    fn base64_round_trips_and_refuses_what_it_would_not_write() {
        for len in 0..10 {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 77 + 3) as u8).collect();
            assert_eq!(base64_decode(&base64_encode(&bytes)), Some(bytes));
        }
        assert_eq!(base64_encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64_encode(b"fo"), "Zm8=");
        for bad in ["Zm8", "Zm=8", "Z===", "Zm8=Zm8=", "Zm8*"] {
            assert_eq!(base64_decode(bad), None, "{bad}");
        }
    }

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
