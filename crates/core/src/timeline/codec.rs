//! A file's timeline as bytes: little-endian columns, so the worker hands
//! the page one `ArrayBuffer` per file (no per-event JSON) and the page reads
//! it back with every count and index checked (a bad buffer is an error,
//! never a panic or an allocation larger than the buffer).

use super::column::{Blocked, Indices, Narrow, Slices};
use super::model::{Counter, CounterKind, FileTimeline, Lane, NO_LOC, Polls, SpanTrack};

const MAGIC: &[u8; 4] = b"D9TL";
const VERSION: u8 = 3;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodecError(pub String);

impl std::fmt::Display for CodecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad timeline data: {}", self.0)
    }
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).expect("a timeline column holds under 4G items"));
    }
    fn u32s(&mut self, v: &[u32]) {
        self.len(v.len());
        v.iter().for_each(|&x| self.u32(x));
    }
    fn u64s(&mut self, v: &[u64]) {
        self.len(v.len());
        v.iter().for_each(|&x| self.u64(x));
    }
    fn str(&mut self, s: &str) {
        self.len(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }
    fn narrow(&mut self, d: &Narrow) {
        let (short, long) = d.parts();
        self.u32s(short);
        self.len(long.len());
        long.iter().for_each(|&(i, d)| {
            self.u32(i);
            self.u64(d);
        });
    }
    fn blocked(&mut self, b: &Blocked) {
        let (base, off) = b.parts();
        self.u64s(base);
        self.narrow(off);
    }
    fn slices(&mut self, s: &Slices) {
        self.blocked(s.starts());
        self.narrow(s.durations());
    }
    fn indices(&mut self, ix: &Indices) {
        match ix {
            Indices::Short(v) => {
                self.u8(2);
                self.len(v.len());
                v.iter().for_each(|x| self.0.extend_from_slice(&x.to_le_bytes()));
            }
            Indices::Wide(v) => {
                self.u8(4);
                self.u32s(v);
            }
        }
    }
    fn opt_str(&mut self, s: Option<&str>) {
        self.u8(u8::from(s.is_some()));
        if let Some(s) = s {
            self.str(s);
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], CodecError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| CodecError(format!("truncated at byte {}", self.at)))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }
    fn u8(&mut self) -> Result<u8, CodecError> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, CodecError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn u64(&mut self) -> Result<u64, CodecError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    /// A count of items `size` bytes each: never more than the bytes left.
    fn count(&mut self, size: usize) -> Result<usize, CodecError> {
        let n = self.u32()? as usize;
        if n.saturating_mul(size) > self.bytes.len() - self.at {
            return Err(CodecError(format!(
                "a count of {n} at byte {} runs past the end",
                self.at - 4
            )));
        }
        Ok(n)
    }
    fn column<const N: usize, T>(&mut self, f: impl Fn([u8; N]) -> T) -> Result<Vec<T>, CodecError> {
        let n = self.count(N)?;
        Ok(self
            .take(n * N)?
            .chunks_exact(N)
            .map(|c| f(c.try_into().expect("N bytes")))
            .collect())
    }
    fn narrow(&mut self) -> Result<Narrow, CodecError> {
        let short = self.u32s()?;
        let long = self.column(|c: [u8; 12]| {
            let (i, d) = c.split_at(4);
            (
                u32::from_le_bytes(i.try_into().expect("4 bytes")),
                u64::from_le_bytes(d.try_into().expect("8 bytes")),
            )
        })?;
        Narrow::from_parts(short, long).ok_or_else(|| CodecError("wide values out of order".into()))
    }
    fn blocked(&mut self) -> Result<Blocked, CodecError> {
        let base = self.u64s()?;
        Blocked::from_parts(base, self.narrow()?).ok_or_else(|| CodecError("a column's blocks disagree".into()))
    }
    fn slices(&mut self) -> Result<Slices, CodecError> {
        let start = self.blocked()?;
        Slices::from_columns(start, self.narrow()?).ok_or_else(|| CodecError("interval columns disagree".into()))
    }
    fn u32s(&mut self) -> Result<Vec<u32>, CodecError> {
        self.column(u32::from_le_bytes)
    }
    fn indices(&mut self) -> Result<Indices, CodecError> {
        match self.u8()? {
            2 => Ok(Indices::Short(self.column(u16::from_le_bytes)?)),
            4 => Ok(Indices::Wide(self.u32s()?)),
            w => Err(CodecError(format!("indices {w} bytes wide"))),
        }
    }
    fn u64s(&mut self) -> Result<Vec<u64>, CodecError> {
        self.column(u64::from_le_bytes)
    }
    fn str(&mut self) -> Result<String, CodecError> {
        let n = self.count(1)?;
        let at = self.at;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| CodecError(format!("text at byte {at} is not UTF-8")))
    }
    fn opt_str(&mut self) -> Result<Option<String>, CodecError> {
        match self.u8()? {
            0 => Ok(None),
            _ => self.str().map(Some),
        }
    }
}

pub fn encode(t: &FileTimeline) -> Vec<u8> {
    let mut w = Writer(Vec::with_capacity(t.bytes() + 1024));
    w.0.extend_from_slice(MAGIC);
    w.u8(VERSION);
    w.str(&t.file);
    w.u64(t.start);
    w.u64(t.end);
    w.u8(u8::from(t.wall_start.is_some()));
    w.u64(t.wall_start.unwrap_or(0) as u64);
    w.len(t.strings.len());
    t.strings.iter().for_each(|s| w.str(s));
    w.blocked(&t.tasks);
    w.indices(&t.task_loc);
    w.len(t.lanes.len());
    for l in &t.lanes {
        w.u64(l.worker);
        w.opt_str(l.runtime.as_deref());
        w.slices(l.polls.slices());
        w.indices(&l.polls.task);
        w.slices(&l.parks);
        w.blocked(&l.on_cpu);
        w.blocked(&l.off_cpu);
    }
    w.len(t.counters.len());
    for c in &t.counters {
        match c.kind {
            CounterKind::GlobalQueue => w.u8(0),
            CounterKind::ActiveTasks => w.u8(1),
            CounterKind::KernelWait { worker } => {
                w.u8(2);
                w.u64(worker);
            }
            CounterKind::Allocated => w.u8(3),
            CounterKind::ProcessCpu { available } => {
                w.u8(4);
                w.u64(available);
            }
            CounterKind::AcceptQueue { backlog } => {
                w.u8(5);
                w.u64(backlog);
            }
        }
        let (time, value) = c.columns();
        w.blocked(time);
        w.narrow(value);
    }
    w.slices(t.spans.slices());
    w.indices(&t.spans.name);
    w.u32s(t.spans.ends());
    w.0
}

pub fn decode(bytes: &[u8]) -> Result<FileTimeline, CodecError> {
    let mut r = Reader { bytes, at: 0 };
    if r.take(4)? != MAGIC || r.u8()? != VERSION {
        return Err(CodecError("not a d9lens timeline of this version".into()));
    }
    let file = r.str()?;
    let (start, end) = (r.u64()?, r.u64()?);
    if end < start {
        return Err(CodecError(format!("the file ends ({end}) before it starts ({start})")));
    }
    let wall_start = match (r.u8()?, r.u64()? as i64) {
        (0, _) => None,
        (_, w) => Some(w),
    };
    let n = r.count(4)?;
    let strings = (0..n).map(|_| r.str()).collect::<Result<Vec<_>, _>>()?;
    let tasks = r.blocked()?;
    let task_loc = r.indices()?;
    let bad = |what: &str| CodecError(format!("{what} out of range"));
    let mut lanes = Vec::new();
    for _ in 0..r.count(8)? {
        let worker = r.u64()?;
        let runtime = r.opt_str()?;
        let (at, task) = (r.slices()?, r.indices()?);
        if task.iter().any(|t| t as usize >= tasks.len()) {
            return Err(bad("a poll's task"));
        }
        let polls = Polls::from_columns(at, task)
            .ok_or_else(|| CodecError(format!("worker {worker}'s poll columns disagree")))?;
        lanes.push(Lane {
            worker,
            runtime,
            polls,
            parks: r.slices()?,
            on_cpu: r.blocked()?,
            off_cpu: r.blocked()?,
        });
    }
    let mut counters = Vec::new();
    for _ in 0..r.count(9)? {
        let kind = match r.u8()? {
            0 => CounterKind::GlobalQueue,
            1 => CounterKind::ActiveTasks,
            2 => CounterKind::KernelWait { worker: r.u64()? },
            3 => CounterKind::Allocated,
            4 => CounterKind::ProcessCpu { available: r.u64()? },
            5 => CounterKind::AcceptQueue { backlog: r.u64()? },
            k => return Err(CodecError(format!("unknown counter kind {k}"))),
        };
        let (time, value) = (r.blocked()?, r.narrow()?);
        let counter = Counter::from_columns(kind, time, value)
            .ok_or_else(|| CodecError(format!("{} columns disagree", kind.label())))?;
        counters.push(counter);
    }
    let (at, name, ends) = (r.slices()?, r.indices()?, r.u32s()?);
    let spans = SpanTrack::from_columns(at, name, ends)
        .ok_or_else(|| CodecError("span columns disagree (lengths, rows or order)".into()))?;
    if task_loc.len() != tasks.len() || task_loc.iter().any(|l| l != NO_LOC && l as usize >= strings.len()) {
        return Err(bad("a task's spawn location"));
    }
    if spans.name.iter().any(|s| s as usize >= strings.len()) {
        return Err(bad("a span's name"));
    }
    if r.at != bytes.len() {
        return Err(CodecError(format!("{} bytes left over", bytes.len() - r.at)));
    }
    Ok(FileTimeline {
        file,
        start,
        end,
        wall_start,
        strings,
        tasks,
        task_loc,
        lanes,
        counters,
        spans,
    })
}
