//! Trace containers: raw `TRC\0` streams or (multi-member) gzip, told apart by
//! content, never by file name. Inflation is capped so a hostile or broken
//! gzip cannot exhaust memory.

use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};
use std::borrow::Cow;
use std::fmt;

/// Far above real segments (the demo trace inflates to 12.3 MB).
pub const DEFAULT_MAX_INFLATED_BYTES: usize = 1 << 30;

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
pub const TRACE_MAGIC: [u8; 4] = *b"TRC\0";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContainerError {
    Empty,
    /// Gzip data is damaged or cut short at this compressed-byte offset.
    CorruptGzip {
        offset: u64,
        reason: String,
    },
    TooLarge {
        limit: usize,
    },
    /// Neither gzip nor a dial9 trace; `magic` shows the first bytes.
    NotATrace {
        magic: String,
    },
}

impl ContainerError {
    pub fn offset(&self) -> Option<u64> {
        match self {
            ContainerError::CorruptGzip { offset, .. } => Some(*offset),
            ContainerError::Empty | ContainerError::NotATrace { .. } => Some(0),
            ContainerError::TooLarge { .. } => None,
        }
    }
}

impl fmt::Display for ContainerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContainerError::Empty => write!(f, "empty file (0 bytes)"),
            ContainerError::CorruptGzip { offset, reason } => {
                write!(f, "corrupt or truncated gzip at compressed byte {offset}: {reason}")
            }
            ContainerError::TooLarge { limit } => {
                write!(
                    f,
                    "refused: inflates to more than {limit} bytes (the size cap for one segment)"
                )
            }
            ContainerError::NotATrace { magic } => {
                write!(
                    f,
                    "not a dial9 trace: starts with {magic}, expected gzip (1f 8b) or TRC\\0"
                )
            }
        }
    }
}

/// The raw trace bytes of a `.bin` or `.bin.gz` file.
pub fn raw_trace(bytes: &[u8], max_inflated: usize) -> Result<Cow<'_, [u8]>, ContainerError> {
    if bytes.is_empty() {
        return Err(ContainerError::Empty);
    }
    if bytes.starts_with(&GZIP_MAGIC) {
        return gunzip(bytes, max_inflated).map(Cow::Owned);
    }
    if bytes.starts_with(&TRACE_MAGIC) {
        return Ok(Cow::Borrowed(bytes));
    }
    let magic = bytes
        .iter()
        .take(4)
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ");
    Err(ContainerError::NotATrace { magic })
}

/// Inflates every concatenated gzip member.
pub fn gunzip(bytes: &[u8], max_inflated: usize) -> Result<Vec<u8>, ContainerError> {
    // The last member's trailer ISIZE is its inflated size (mod 2^32); for the
    // usual single member, reserving it once avoids doubling the buffer (and the
    // peak of old + new copies). Only a hint: bounded by deflate's maximum ratio
    // (~1032:1) and the cap, and inflation still grows the buffer if it is short.
    let n = bytes.len();
    let hint = match n {
        18.. => u32::from_le_bytes([bytes[n - 4], bytes[n - 3], bytes[n - 2], bytes[n - 1]]) as usize,
        _ => 0,
    };
    let hint = hint.min(n.saturating_mul(1032)).saturating_add(1 << 16);
    let mut out = Vec::with_capacity(hint.max(n.saturating_mul(3)).min(max_inflated));
    let mut pos = 0;
    while pos < bytes.len() {
        let member_start = out.len();
        let body = pos
            + header_len(&bytes[pos..]).map_err(|reason| ContainerError::CorruptGzip {
                offset: pos as u64,
                reason: reason.into(),
            })?;
        let consumed = inflate_member(&bytes[body..], &mut out, max_inflated).map_err(|e| match e {
            InflateError::TooLarge => ContainerError::TooLarge { limit: max_inflated },
            InflateError::Corrupt(at, reason) => ContainerError::CorruptGzip {
                offset: (body + at) as u64,
                reason,
            },
        })?;
        let trailer = body + consumed;
        let Some(t) = bytes.get(trailer..trailer + 8) else {
            return Err(ContainerError::CorruptGzip {
                offset: trailer as u64,
                reason: "missing gzip trailer".into(),
            });
        };
        let isize = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
        if isize != (out.len() - member_start) as u32 {
            return Err(ContainerError::CorruptGzip {
                offset: trailer as u64,
                reason: "gzip size check failed".into(),
            });
        }
        pos = trailer + 8;
        // Zero padding after the last member is tolerated, as gzip(1) does.
        if bytes[pos..].iter().all(|&b| b == 0) {
            break;
        }
    }
    Ok(out)
}

/// Length of a gzip member header (RFC 1952), validating what it can.
fn header_len(b: &[u8]) -> Result<usize, &'static str> {
    const FHCRC: u8 = 2;
    const FEXTRA: u8 = 4;
    const FNAME: u8 = 8;
    const FCOMMENT: u8 = 16;
    if b.len() < 10 || b[..2] != GZIP_MAGIC {
        return Err("bad gzip member header");
    }
    if b[2] != 8 {
        return Err("unsupported gzip compression method");
    }
    let flags = b[3];
    let mut pos = 10;
    if flags & FEXTRA != 0 {
        let len = b.get(pos..pos + 2).ok_or("truncated gzip header")?;
        pos += 2 + u16::from_le_bytes([len[0], len[1]]) as usize;
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            pos += 1 + b
                .get(pos..)
                .and_then(|r| r.iter().position(|&c| c == 0))
                .ok_or("truncated gzip header")?;
        }
    }
    if flags & FHCRC != 0 {
        pos += 2;
    }
    if pos > b.len() {
        return Err("truncated gzip header");
    }
    Ok(pos)
}

enum InflateError {
    TooLarge,
    Corrupt(usize, String),
}

/// Inflates one raw deflate stream into `out`; returns the input bytes consumed.
fn inflate_member(input: &[u8], out: &mut Vec<u8>, max: usize) -> Result<usize, InflateError> {
    let mut state = DecompressorOxide::new();
    let mut in_pos = 0;
    loop {
        let write_pos = out.len();
        if write_pos >= max {
            return Err(InflateError::TooLarge);
        }
        // Grow the window geometrically, but within the reserved capacity while
        // there is some (no reallocation); decompress writes into out[write_pos..].
        let spare = out.capacity() - write_pos;
        let grow = write_pos.max(1 << 16);
        let grow = if spare > 0 { grow.min(spare) } else { grow }.min(max - write_pos);
        out.resize(write_pos + grow, 0);
        let (status, consumed, written) = decompress(
            &mut state,
            &input[in_pos..],
            out,
            write_pos,
            inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF,
        );
        in_pos += consumed;
        out.truncate(write_pos + written);
        match status {
            TINFLStatus::Done => return Ok(in_pos),
            TINFLStatus::HasMoreOutput => continue,
            TINFLStatus::NeedsMoreInput | TINFLStatus::FailedCannotMakeProgress => {
                return Err(InflateError::Corrupt(
                    in_pos,
                    "gzip stream ends early (truncated file)".into(),
                ));
            }
            other => {
                return Err(InflateError::Corrupt(
                    in_pos,
                    format!("invalid deflate data ({other:?})"),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use miniz_oxide::deflate::compress_to_vec;

    fn gzip_member(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
        out.extend(compress_to_vec(data, 6));
        out.extend([0, 0, 0, 0]); // CRC is not checked
        out.extend((data.len() as u32).to_le_bytes());
        out
    }

    #[test]
    fn sniffs_by_content_and_inflates_every_member() {
        let mut two = gzip_member(b"TRC\0\x01hello ");
        two.extend(gzip_member(b"world"));
        assert_eq!(&*raw_trace(&two, 1 << 20).unwrap(), b"TRC\0\x01hello world");
        assert_eq!(&*raw_trace(b"TRC\0\x01", 10).unwrap(), b"TRC\0\x01");
    }

    #[test]
    fn refuses_bombs_truncation_and_junk() {
        let big = gzip_member(&vec![0u8; 1 << 20]);
        assert_eq!(raw_trace(&big, 1000), Err(ContainerError::TooLarge { limit: 1000 }));
        let cut = &big[..big.len() / 2];
        assert!(matches!(
            raw_trace(cut, 1 << 22),
            Err(ContainerError::CorruptGzip { .. })
        ));
        assert!(matches!(raw_trace(b"<?xml", 10), Err(ContainerError::NotATrace { .. })));
        assert_eq!(raw_trace(b"", 10), Err(ContainerError::Empty));
    }
}
