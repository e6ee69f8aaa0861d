//! A batch's outcomes as bytes: each outcome's length, then its wire form
//! (`analysis::wire`), deflated; read back with every size checked, a bad
//! answer an error ([`PackError`]), never a panic or a huge allocation.
//! Inline answers carry them in base64 (`packed`), stored ones as the
//! object (`stored`).

use crate::analysis::{FileOutcome, wire};

/// The most the packed outcomes may inflate to.
pub const MAX_UNPACKED_BYTES: usize = 512 << 20;
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PackError {
    /// Packed, the outcomes pass the answer's limit, and the batch names no
    /// results prefix to store them under.
    TooLarge { bytes: usize, limit: usize },
    /// Packed, the outcomes pass even what may be stored.
    TooLargeToStore { bytes: usize, limit: u64 },
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
            PackError::TooLargeToStore { bytes, limit } => write!(
                f,
                "the batch's results take {bytes} bytes, more than the {limit} a stored answer may hold: \
                 use smaller batches"
            ),
            PackError::BadPrefix(why) => f.write_str(why),
            PackError::Damaged(why) => write!(f, "the function's answer is damaged: {why}"),
        }
    }
}

impl std::error::Error for PackError {}

/// The outcomes framed (each outcome's length, then its wire form) and
/// deflated: a stored answer's object; in base64, an inline answer's.
pub(super) fn deflate(outcomes: &[FileOutcome]) -> Vec<u8> {
    let mut framed = Vec::new();
    for outcome in outcomes {
        let bytes = wire::encode(outcome);
        framed.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        framed.extend_from_slice(&bytes);
    }
    miniz_oxide::deflate::compress_to_vec(&framed, 6)
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
