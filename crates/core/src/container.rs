//! Trace containers: raw `TRC\0` streams or (multi-member) gzip, told apart by
//! content, never by file name. Inflation is capped so a hostile or broken
//! gzip cannot exhaust memory.

use crate::inflate::{Inflater, Native};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;

/// Far above real segments (the demo trace inflates to 12.3 MB).
pub const DEFAULT_MAX_INFLATED_BYTES: usize = 1 << 30;

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
pub const TRACE_MAGIC: [u8; 4] = *b"TRC\0";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
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

/// What a file's first bytes say it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    Gzip,
    Raw,
}

/// Bytes a file needs before `sniff` can tell.
pub const SNIFF_BYTES: usize = TRACE_MAGIC.len();

/// Tells gzip from a raw trace by the first `SNIFF_BYTES` bytes (fewer only
/// when the file is that short).
pub fn sniff(head: &[u8]) -> Result<Container, ContainerError> {
    if head.is_empty() {
        return Err(ContainerError::Empty);
    }
    if head.starts_with(&GZIP_MAGIC) {
        return Ok(Container::Gzip);
    }
    if head.starts_with(&TRACE_MAGIC) {
        return Ok(Container::Raw);
    }
    let magic = head
        .iter()
        .take(4)
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ");
    Err(ContainerError::NotATrace { magic })
}

/// A file's bytes as stored, arriving in pieces, to its raw trace: the first
/// bytes tell the container, gzip is inflated, a raw trace passes through.
/// The first half of a file's analysis (the other: `analysis::TraceAnalysis`),
/// so the two can run on different threads or workers.
pub struct Unpack {
    state: Unpacking,
    max_inflated: usize,
}

enum Unpacking {
    /// Fewer than `SNIFF_BYTES` bytes seen.
    Sniffing(Vec<u8>),
    Gzip(Box<Gunzip>),
    Raw,
    /// The rest of the input is ignored; `finish` reports this.
    Failed(ContainerError),
}

impl Unpack {
    pub fn new(max_inflated: usize) -> Self {
        Self {
            state: Unpacking::Sniffing(Vec::new()),
            max_inflated,
        }
    }

    /// Appends the raw trace bytes that `bytes` hold to `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<u8>) {
        match &mut self.state {
            Unpacking::Sniffing(head) => {
                head.extend_from_slice(bytes);
                if head.len() >= SNIFF_BYTES {
                    let head = std::mem::take(head);
                    self.start(&head, out);
                }
            }
            Unpacking::Gzip(gz) => {
                if let Err(e) = gz.feed(bytes, out) {
                    self.state = Unpacking::Failed(e);
                }
            }
            Unpacking::Raw => out.extend_from_slice(bytes),
            Unpacking::Failed(_) => {}
        }
    }

    /// The container is known from `head`: set up for it and take `head` in.
    fn start(&mut self, head: &[u8], out: &mut Vec<u8>) {
        self.state = match sniff(head) {
            Ok(Container::Gzip) => Unpacking::Gzip(Box::new(Gunzip::new(self.max_inflated))),
            Ok(Container::Raw) => Unpacking::Raw,
            Err(e) => Unpacking::Failed(e),
        };
        self.push(head, out);
    }

    /// The input ended: whether it was a whole trace container.
    pub fn finish(mut self) -> Result<(), ContainerError> {
        if let Unpacking::Sniffing(head) = &mut self.state {
            // Too short to hold a raw trace's magic: nothing comes out.
            let head = std::mem::take(head);
            self.start(&head, &mut Vec::new());
        }
        match self.state {
            Unpacking::Failed(e) => Err(e),
            Unpacking::Gzip(gz) => gz.finish(),
            Unpacking::Raw | Unpacking::Sniffing(_) => Ok(()),
        }
    }
}

/// The raw trace bytes of a `.bin` or `.bin.gz` file.
pub fn raw_trace(bytes: &[u8], max_inflated: usize) -> Result<Cow<'_, [u8]>, ContainerError> {
    match sniff(bytes)? {
        Container::Gzip => gunzip(bytes, max_inflated).map(Cow::Owned),
        Container::Raw => Ok(Cow::Borrowed(bytes)),
    }
}

/// Inflates every concatenated gzip member of a whole file.
pub fn gunzip(bytes: &[u8], max_inflated: usize) -> Result<Vec<u8>, ContainerError> {
    let mut out = Vec::with_capacity(inflated_size_hint(bytes, max_inflated));
    let mut gz = Gunzip::new(max_inflated);
    gz.feed(bytes, &mut out)?;
    gz.finish()?;
    Ok(out)
}

/// What to reserve for a whole gzip file: the last member's trailer ISIZE is
/// its inflated size (mod 2^32), so for the usual single member one buffer of
/// the right size avoids doubling it (and the peak of old + new copies). Only
/// a hint: bounded by deflate's maximum ratio (~1032:1) and the cap.
pub fn inflated_size_hint(gz: &[u8], max_inflated: usize) -> usize {
    let n = gz.len();
    let isize = match n {
        18.. => u32::from_le_bytes([gz[n - 4], gz[n - 3], gz[n - 2], gz[n - 1]]) as usize,
        _ => 0,
    };
    isize
        .min(n.saturating_mul(1032))
        .saturating_add(1 << 16)
        .max(n.saturating_mul(3))
        .min(max_inflated)
}

/// Streaming gunzip (RFC 1952, members back to back): compressed bytes go in
/// as they arrive, inflated bytes come out; only the inflate window and a few
/// header bytes are kept. `E` inflates each member's deflate stream.
pub struct Gunzip<E = Native> {
    stage: Stage,
    inflate: E,
    /// Bytes of a header or trailer seen so far (they may straddle feeds).
    pending: Vec<u8>,
    /// Compressed bytes consumed, for error offsets.
    offset: u64,
    members: u64,
    member_out: u64,
    total_out: usize,
    max: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// At the start or between members: a member header, or the end.
    Header,
    Body,
    Trailer,
    /// Zero padding after the last member, tolerated as gzip(1) does.
    Padding,
}

/// Inflate output per call: big enough to amortize the calls.
const WINDOW: usize = 1 << 16;

impl Gunzip {
    pub fn new(max_inflated: usize) -> Self {
        Self::with_engine(max_inflated)
    }
}

impl<E: Inflater> Gunzip<E> {
    pub fn with_engine(max_inflated: usize) -> Self {
        Self {
            stage: Stage::Header,
            inflate: E::new(),
            pending: Vec::new(),
            offset: 0,
            members: 0,
            member_out: 0,
            total_out: 0,
            max: max_inflated,
        }
    }

    /// Inflated bytes so far.
    pub fn inflated(&self) -> usize {
        self.total_out
    }

    fn corrupt(at: u64, reason: impl Into<String>) -> ContainerError {
        ContainerError::CorruptGzip {
            offset: at,
            reason: reason.into(),
        }
    }

    /// Inflates the next compressed bytes, appending what they hold to `out`.
    pub fn feed(&mut self, mut input: &[u8], out: &mut Vec<u8>) -> Result<(), ContainerError> {
        while !input.is_empty() {
            let used = match self.stage {
                Stage::Header => self.header(input)?,
                Stage::Body => self.body(input, out)?,
                Stage::Trailer => self.trailer(input)?,
                Stage::Padding => match input.iter().position(|&b| b != 0) {
                    None => input.len(),
                    Some(i) => return Err(Self::corrupt(self.offset + i as u64, "bad gzip member header")),
                },
            };
            if used == 0 && self.stage == Stage::Body {
                return Err(Self::corrupt(self.offset, "invalid deflate data (no progress)"));
            }
            self.offset += used as u64;
            input = &input[used..];
        }
        Ok(())
    }

    /// The input ended: anything but whole members is an error.
    pub fn finish(&self) -> Result<(), ContainerError> {
        match self.stage {
            Stage::Header if self.pending.is_empty() && self.members > 0 => Ok(()),
            Stage::Padding => Ok(()),
            Stage::Header => Err(Self::corrupt(self.offset, "truncated gzip header")),
            Stage::Body => Err(Self::corrupt(self.offset, "gzip stream ends early (truncated file)")),
            Stage::Trailer => Err(Self::corrupt(self.offset, "missing gzip trailer")),
        }
    }

    fn header(&mut self, input: &[u8]) -> Result<usize, ContainerError> {
        if self.pending.is_empty() && input[0] == 0 && self.members > 0 {
            self.stage = Stage::Padding;
            return Ok(0);
        }
        let start = self.offset - self.pending.len() as u64;
        let before = self.pending.len();
        let take = input.len().min(HEADER_MAX - before);
        self.pending.extend_from_slice(&input[..take]);
        match header_len(&self.pending) {
            Ok(Some(len)) => {
                self.pending.clear();
                self.stage = Stage::Body;
                self.member_out = 0;
                self.inflate.reset();
                Ok(len - before)
            }
            Ok(None) if self.pending.len() < HEADER_MAX => Ok(take),
            Ok(None) => Err(Self::corrupt(start, "gzip header too long")),
            Err(reason) => Err(Self::corrupt(start, reason)),
        }
    }

    /// Inflates until the input is used up and nothing is left to flush, or the member ends.
    fn body(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<usize, ContainerError> {
        let mut used = 0;
        loop {
            let before = out.len();
            let r = self.inflate.step(&input[used..], out, WINDOW);
            used += r.consumed;
            let written = r.written;
            if self.total_out + written > self.max {
                out.truncate(before);
                return Err(ContainerError::TooLarge { limit: self.max });
            }
            self.total_out += written;
            self.member_out += written as u64;
            match r.ended {
                Ok(true) => {
                    self.stage = Stage::Trailer;
                    self.members += 1;
                    return Ok(used);
                }
                Ok(false) => {
                    let stalled = r.consumed == 0 && written == 0;
                    if stalled || (used == input.len() && written < WINDOW) {
                        return Ok(used);
                    }
                }
                Err(e) => {
                    return Err(Self::corrupt(
                        self.offset + used as u64,
                        format!("invalid deflate data ({e})"),
                    ));
                }
            }
        }
    }

    fn trailer(&mut self, input: &[u8]) -> Result<usize, ContainerError> {
        let take = (8 - self.pending.len()).min(input.len());
        self.pending.extend_from_slice(&input[..take]);
        if self.pending.len() == 8 {
            let t = &self.pending;
            let isize = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
            if isize != self.member_out as u32 {
                return Err(Self::corrupt(self.offset + take as u64 - 8, "gzip size check failed"));
            }
            self.pending.clear();
            self.stage = Stage::Header;
        }
        Ok(take)
    }
}

/// Longest member header we accept (name and comment included).
const HEADER_MAX: usize = 64 * 1024;

/// Length of a gzip member header (RFC 1952), `None` while it is incomplete.
fn header_len(b: &[u8]) -> Result<Option<usize>, &'static str> {
    const FHCRC: u8 = 2;
    const FEXTRA: u8 = 4;
    const FNAME: u8 = 8;
    const FCOMMENT: u8 = 16;
    // The same verdicts however few of the bytes are in.
    if !GZIP_MAGIC.iter().zip(b).all(|(m, c)| m == c) {
        return Err("bad gzip member header");
    }
    if b.get(2).is_some_and(|&method| method != 8) {
        return Err("unsupported gzip compression method");
    }
    if b.len() < 10 {
        return Ok(None);
    }
    let flags = b[3];
    let mut pos = 10;
    if flags & FEXTRA != 0 {
        let Some(len) = b.get(pos..pos + 2) else {
            return Ok(None);
        };
        pos += 2 + u16::from_le_bytes([len[0], len[1]]) as usize;
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            match b.get(pos..).and_then(|r| r.iter().position(|&c| c == 0)) {
                Some(n) => pos += n + 1,
                None => return Ok(None),
            }
        }
    }
    if flags & FHCRC != 0 {
        pos += 2;
    }
    Ok((pos <= b.len()).then_some(pos))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inflate::{Miniz, ZlibRs};
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

    /// Feeds `gz` in pieces of `step` bytes.
    fn gunzip_in_steps<E: Inflater>(gz: &[u8], step: usize) -> Result<Vec<u8>, ContainerError> {
        let mut g = Gunzip::<E>::with_engine(1 << 20);
        let mut out = Vec::new();
        for piece in gz.chunks(step) {
            g.feed(piece, &mut out)?;
        }
        g.finish().map(|()| out)
    }

    #[test]
    fn streaming_gives_the_same_bytes_whatever_the_pieces() {
        streaming_case::<Miniz>();
        streaming_case::<ZlibRs>();
    }

    fn streaming_case<E: Inflater>() {
        // A member with a file name (a header longer than 10 bytes), then one
        // more member, then zero padding.
        let mut gz = gzip_member(b"TRC\0\x01first member ");
        gz[3] = 8; // FNAME
        gz.splice(10..10, b"segment.bin\0".iter().copied());
        let big: Vec<u8> = (0..200_000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        gz.extend(gzip_member(&big));
        gz.extend([0, 0, 0]);
        let whole = gunzip(&gz, 1 << 22).unwrap();
        assert_eq!(whole.len(), 18 + big.len());
        for step in [1, 2, 7, 10, 11, 4096, gz.len()] {
            let mut g = Gunzip::<E>::with_engine(1 << 22);
            let mut out = Vec::new();
            for piece in gz.chunks(step) {
                g.feed(piece, &mut out).unwrap();
            }
            g.finish().unwrap();
            assert!(out == whole, "step {step}");
        }
        // Damaged headers get the same verdict in pieces as whole.
        for bad in [
            &b"\x1f\x8b\x07\0\0\0\0\0\0\x03xyz"[..],
            b"\x1f\x8c\x08\0\0",
            b"\x1f\x8b",
        ] {
            assert_eq!(
                gunzip_in_steps::<E>(bad, 1),
                gunzip_in_steps::<E>(bad, bad.len()),
                "{bad:?}"
            );
        }
        // Cut anywhere inside the last member: finish says so.
        let cut = &gz[..gz.len() - 20];
        assert!(matches!(
            gunzip_in_steps::<E>(cut, 3),
            Err(ContainerError::CorruptGzip { .. })
        ));
        assert!(matches!(
            gunzip_in_steps::<E>(&gz[..5], 1),
            Err(ContainerError::CorruptGzip { .. })
        ));
    }

    #[test]
    fn both_engines_agree_on_whole_damaged_and_oversized_members() {
        let data: Vec<u8> = (0..200_000u32).flat_map(|i| (i / 7 % 1000).to_le_bytes()).collect();
        let gz = gzip_member(&data);
        let damage = [
            None,
            Some(10),
            Some(11),
            Some(gz.len() / 3),
            Some(gz.len() / 2),
            Some(gz.len() - 9),
        ];
        for at in damage {
            let mut g = gz.clone();
            if let Some(at) = at {
                g[at] ^= 0x5a;
            }
            let (m, z) = (gunzip_in_steps::<Miniz>(&g, 4096), gunzip_in_steps::<ZlibRs>(&g, 4096));
            match (&m, &z) {
                (Ok(a), Ok(b)) => assert!(a == b && (at.is_some() || *a == data), "{at:?}"),
                (Err(a @ ContainerError::CorruptGzip { .. }), Err(b @ ContainerError::CorruptGzip { .. })) => {
                    assert_eq!(a.offset(), b.offset(), "{at:?}");
                }
                _ => panic!("damage at {at:?}: miniz {m:?}, zlib-rs {z:?}"),
            }
        }
        let bomb = gzip_member(&vec![0u8; 3 << 20]);
        let limit = Err(ContainerError::TooLarge { limit: 1 << 20 });
        assert_eq!(gunzip_in_steps::<Miniz>(&bomb, 1000), limit);
        assert_eq!(gunzip_in_steps::<ZlibRs>(&bomb, 1000), limit);
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
