//! One file's timeline in columns: what the page draws, built in the worker
//! from the analysis' own per-worker timelines, and moved to the page as
//! bytes (`codec.rs`), never as per-event JSON.

use super::column::{Blocked, Indices, Narrow, Slices};

/// Span rows below this depth; deeper spans share the last row.
pub const MAX_SPAN_DEPTH: u8 = 16;

/// One file's timeline. Times are the trace's monotonic nanoseconds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileTimeline {
    pub file: String,
    /// First and last event (the file's own bounds).
    pub start: u64,
    pub end: u64,
    /// Unix-epoch ns of `start`, from the trace's first clock anchor.
    pub wall_start: Option<i64>,
    /// Spawn locations and span names, referenced by index.
    pub strings: Vec<String>,
    /// Task ids, referenced by index…
    pub tasks: Blocked,
    /// …and each task's spawn location (index into `strings`, or `NO_LOC`).
    pub task_loc: Indices,
    /// One per worker, ascending worker id.
    pub lanes: Vec<Lane>,
    pub counters: Vec<Counter>,
    pub spans: SpanTrack,
}

/// One worker.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lane {
    pub worker: u64,
    /// The runtime named for this worker in the segment metadata (`runtime.<name>`).
    pub runtime: Option<String>,
    pub polls: Polls,
    /// Each park, by start: the worker was idle.
    pub parks: Slices,
    /// Sample times, in order.
    pub on_cpu: Blocked,
    pub off_cpu: Blocked,
}

/// A worker's polls, by start (a worker runs one poll at a time).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Polls {
    at: Slices,
    /// Index into `FileTimeline::tasks`.
    pub task: Indices,
}

/// A task with no known spawn location.
pub const NO_LOC: u32 = Indices::NONE;

impl Polls {
    pub fn len(&self) -> usize {
        self.at.len()
    }

    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    pub fn start(&self, i: usize) -> u64 {
        self.at.start(i)
    }

    pub fn dur(&self, i: usize) -> u64 {
        self.at.dur(i)
    }

    pub fn end(&self, i: usize) -> u64 {
        self.at.end(i)
    }

    pub fn starts(&self) -> &Blocked {
        self.at.starts()
    }

    pub fn slices(&self) -> &Slices {
        &self.at
    }

    pub fn push(&mut self, start: u64, dur: u64, task: u32) {
        self.at.push(start, dur);
        self.task.push(task);
    }

    /// From its columns, if they agree (same lengths, starts in order).
    pub(super) fn from_columns(at: Slices, task: Indices) -> Option<Polls> {
        (at.len() == task.len() && at.starts().is_sorted()).then_some(Polls { at, task })
    }

    /// Memory held, in bytes.
    pub fn bytes(&self) -> usize {
        self.at.bytes() + self.task.bytes()
    }
}

/// A counter over time (queue depth, active tasks, one worker's kernel wait).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counter {
    pub kind: CounterKind,
    /// Each point's time, in order, and value.
    time: Blocked,
    value: Narrow,
}

impl Counter {
    /// From (time, value) points in time order.
    pub fn new(kind: CounterKind, points: impl IntoIterator<Item = (u64, u64)>) -> Counter {
        let (mut time, mut value) = (Blocked::default(), Narrow::default());
        for (t, v) in points {
            time.push(t);
            value.push(v);
        }
        Counter { kind, time, value }
    }

    /// From its columns, if they agree (one length, times in order).
    pub(super) fn from_columns(kind: CounterKind, time: Blocked, value: Narrow) -> Option<Counter> {
        (time.len() == value.len() && time.is_sorted()).then_some(Counter { kind, time, value })
    }

    pub(super) fn columns(&self) -> (&Blocked, &Narrow) {
        (&self.time, &self.value)
    }

    pub fn len(&self) -> usize {
        self.time.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }

    /// Point `i` as (time, value).
    pub fn point(&self, i: usize) -> (u64, u64) {
        (self.time.get(i), self.value.get(i))
    }

    pub fn points(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        (0..self.len()).map(|i| self.point(i))
    }

    pub fn times(&self) -> &Blocked {
        &self.time
    }

    pub fn max(&self) -> Option<u64> {
        self.value.iter().max()
    }

    fn bytes(&self) -> usize {
        self.time.bytes() + self.value.bytes()
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CounterKind {
    #[default]
    GlobalQueue,
    ActiveTasks,
    /// The kernel's scheduling wait of one worker when it unparked, ns.
    KernelWait {
        worker: u64,
    },
    /// Sampled allocations: each one's size, at its time.
    Allocated,
    /// The process's CPU use over the interval from each point, in
    /// thousandths of a core, against the cores it had (0: not recorded).
    ProcessCpu {
        available: u64,
    },
    /// Connections waiting in a listening socket's accept queue, against its backlog.
    AcceptQueue {
        backlog: u64,
    },
}

impl CounterKind {
    pub fn label(self) -> String {
        match self {
            CounterKind::GlobalQueue => "global queue".into(),
            CounterKind::ActiveTasks => "active tasks".into(),
            CounterKind::KernelWait { worker } => format!("kernel wait · worker {worker}"),
            CounterKind::Allocated => "allocated bytes".into(),
            CounterKind::ProcessCpu { available: 0 } => "process CPU".into(),
            CounterKind::ProcessCpu { available } => format!("process CPU · {available} cores"),
            CounterKind::AcceptQueue { backlog } => format!("accept queue · backlog {backlog}"),
        }
    }

    /// The value a row's full height stands for, when the kind has one: all
    /// the cores, the whole backlog (so a full row is a saturated one).
    pub fn full_scale(self) -> Option<u64> {
        match self {
            CounterKind::ProcessCpu { available } => available.checked_mul(1000).filter(|&v| v > 0),
            CounterKind::AcceptQueue { backlog } => (backlog > 0).then_some(backlog),
            _ => None,
        }
    }
}

/// Spans of the file, each on a row, by row and then by start: a row's spans
/// are one slice, in which (but on the last, shared row) none overlaps the
/// next, so a row is drawn like a worker's polls.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpanTrack {
    at: Slices,
    /// Index into `FileTimeline::strings`.
    pub name: Indices,
    /// Where each row's spans end (row `r`: from the end of row `r - 1`),
    /// at most `MAX_SPAN_DEPTH` rows.
    ends: Vec<u32>,
}

impl SpanTrack {
    pub fn len(&self) -> usize {
        self.at.len()
    }

    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    pub fn start(&self, i: usize) -> u64 {
        self.at.start(i)
    }

    pub fn end(&self, i: usize) -> u64 {
        self.at.end(i)
    }

    pub fn slices(&self) -> &Slices {
        &self.at
    }

    /// Rows in use (deepest depth + 1).
    pub fn rows(&self) -> u8 {
        self.ends.len() as u8
    }

    /// The spans of row `depth`.
    pub fn row(&self, depth: u8) -> std::ops::Range<usize> {
        let d = usize::from(depth);
        let end = |r: usize| self.ends.get(r).map_or(self.len(), |&e| e as usize);
        (if d == 0 { 0 } else { end(d - 1) })..end(d)
    }

    /// The row of span `i`.
    pub fn depth(&self, i: usize) -> u8 {
        self.ends.partition_point(|&e| e as usize <= i) as u8
    }

    /// From its columns, if they agree: one length, at most
    /// `MAX_SPAN_DEPTH` rows, each in order of start (as `build` leaves them).
    pub(super) fn from_columns(at: Slices, name: Indices, ends: Vec<u32>) -> Option<SpanTrack> {
        let t = SpanTrack { at, name, ends };
        let rows_ok = t.ends.len() <= usize::from(MAX_SPAN_DEPTH)
            && t.ends.is_sorted()
            && t.ends.last().map_or(0, |&e| e as usize) == t.len();
        let in_order = || {
            (0..t.rows()).all(|d| {
                let r = t.row(d);
                (r.start + 1..r.end).all(|i| t.start(i - 1) <= t.start(i))
            })
        };
        (t.name.len() == t.len() && rows_ok && in_order()).then_some(t)
    }

    /// Spans given as (start, end, name) in order of start, on rows: each
    /// span goes on the first row whose last span has ended (greedy, over at
    /// most `MAX_SPAN_DEPTH` rows; no recursion), so nested spans stack and
    /// unrelated ones share rows.
    /// Spans `(start, end, name)` laid out on rows.
    pub fn build(spans: &[(u64, u64, u32)]) -> SpanTrack {
        let mut row_end: Vec<u64> = Vec::new();
        let depth: Vec<u8> = spans
            .iter()
            .map(|&(s, e, _)| {
                let row = match row_end.iter().position(|&end| end <= s) {
                    Some(r) => r,
                    None if row_end.len() < usize::from(MAX_SPAN_DEPTH) => {
                        row_end.push(0);
                        row_end.len() - 1
                    }
                    None => usize::from(MAX_SPAN_DEPTH) - 1,
                };
                row_end[row] = row_end[row].max(e);
                row as u8
            })
            .collect();
        let mut order: Vec<usize> = (0..spans.len()).collect();
        order.sort_by_key(|&i| (depth[i], spans[i].0));
        let mut out = SpanTrack::default();
        for i in order {
            let (s, e, name) = spans[i];
            out.push(s, e, name, depth[i]);
        }
        out
    }

    /// Appends a span on row `depth`. Spans go in row order: one for a row
    /// above the last span's goes on that span's row.
    pub fn push(&mut self, start: u64, end: u64, name: u32, depth: u8) {
        self.at.push(start, end.saturating_sub(start));
        self.name.push(name);
        let rows = usize::from(depth.min(MAX_SPAN_DEPTH - 1)) + 1;
        let before = self.len() as u32 - 1;
        while self.ends.len() < rows {
            self.ends.push(before);
        }
        *self.ends.last_mut().expect("a row") += 1;
    }

    /// Row ends, for the codec.
    pub(super) fn ends(&self) -> &[u32] {
        &self.ends
    }

    fn bytes(&self) -> usize {
        self.at.bytes() + self.name.bytes() + 4 * self.ends.len()
    }
}

impl FileTimeline {
    pub fn loc(&self, index: u32) -> Option<&str> {
        self.strings.get(index as usize).map(String::as_str)
    }

    /// The spawn location of task index `task`.
    pub fn task_loc(&self, task: u32) -> Option<&str> {
        let task = task as usize;
        (task < self.task_loc.len())
            .then(|| self.task_loc.get(task))
            .and_then(|l| self.loc(l))
    }

    pub fn poll_count(&self) -> usize {
        self.lanes.iter().map(|l| l.polls.len()).sum()
    }

    /// Bytes held in memory by the columns (the page's per-poll budget).
    pub fn bytes(&self) -> usize {
        let lanes: usize = self
            .lanes
            .iter()
            .map(|l| l.polls.bytes() + l.parks.bytes() + l.on_cpu.bytes() + l.off_cpu.bytes())
            .sum();
        let counters: usize = self.counters.iter().map(Counter::bytes).sum();
        lanes + counters + self.spans.bytes() + self.tasks.bytes() + self.task_loc.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_durations_keep_their_length() {
        let mut p = Polls::default();
        p.push(10, 5, 0);
        p.push(20, 10_000_000_000, 0);
        p.push(30, u64::from(u32::MAX), 0);
        assert_eq!((p.dur(0), p.dur(1), p.dur(2)), (5, 10_000_000_000, u64::from(u32::MAX)));
        assert_eq!(p.end(1), 10_000_000_020);
    }

    #[test]
    fn spans_nest_by_an_explicit_stack() {
        let spans = [(0, 10, 0), (1, 8, 1), (2, 3, 2), (5, 6, 3), (20, 30, 4)];
        let t = SpanTrack::build(&spans);
        // Kept by row, then start: each row one slice of spans that follow one another.
        assert_eq!((t.row(0), t.row(1), t.row(2), t.row(3)), (0..2, 2..3, 3..5, 5..5));
        let names: Vec<u32> = t.name.iter().collect();
        assert_eq!(names, [0, 4, 1, 2, 3]);
        assert_eq!((0..5).map(|i| t.depth(i)).collect::<Vec<_>>(), [0, 0, 1, 2, 2]);
        assert_eq!((t.start(1), t.end(1)), (20, 30));
        // A chain nested deeper than the rows shares the last one.
        let n = 100_000u64;
        let deep: Vec<(u64, u64, u32)> = (0..n).map(|i| (i, 2 * n - i, 0)).collect();
        let deep = SpanTrack::build(&deep);
        assert_eq!(deep.rows(), MAX_SPAN_DEPTH);
        assert_eq!(
            deep.row(MAX_SPAN_DEPTH - 1).len(),
            n as usize - usize::from(MAX_SPAN_DEPTH) + 1
        );
    }

    #[test]
    fn a_span_pushed_above_the_last_row_goes_on_it() {
        let mut t = SpanTrack::default();
        t.push(0, 5, 0, 0);
        t.push(1, 2, 0, 2);
        t.push(0, 1, 0, 1);
        assert_eq!((t.row(0), t.row(1), t.row(2)), (0..1, 1..1, 1..3));
        assert_eq!(t.rows(), 3);
    }

    #[test]
    fn span_columns_that_disagree_are_refused() {
        let t = SpanTrack::build(&[(0, 10, 0), (1, 8, 1), (20, 30, 2)]);
        let (at, name) = (t.slices().clone(), t.name.clone());
        assert!(SpanTrack::from_columns(at.clone(), name.clone(), t.ends().to_vec()).is_some());
        for ends in [vec![], vec![2, 1], vec![1, 3, 3], vec![0, 3, 2], vec![3; 70]] {
            assert!(
                SpanTrack::from_columns(at.clone(), name.clone(), ends.clone()).is_none(),
                "{ends:?}"
            );
        }
        // A row whose spans are out of start order.
        assert!(SpanTrack::from_columns(at, name, vec![3]).is_none());
    }
}
