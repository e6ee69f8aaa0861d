//! The typed event model of one trace file.

use super::SymbolTable;
use std::collections::HashMap;

use indexmap::IndexMap;

/// Worker id the recorder uses for "not a worker / unknown".
pub const UNKNOWN_WORKER: u64 = 255;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuntimeKind {
    PollStart,
    PollEnd,
    Park,
    Unpark,
    QueueSample,
    Wake,
}

/// One Tokio runtime event. Fields that a kind does not carry are zero/None.
#[derive(Debug, Clone)]
pub struct RuntimeEvent {
    pub kind: RuntimeKind,
    pub ts: u64,
    pub worker: u64,
    pub local_queue: u64,
    pub cpu_time: u64,
    pub sched_wait: Option<u64>,
    pub task_id: u64,
    /// Index into `ParsedTrace::strings`.
    pub spawn_loc: Option<u32>,
    pub scheduling_delay: Option<u64>,
    pub tid: Option<u64>,
    pub waker_task: u64,
    pub woken_task: u64,
    pub global_queue: u64,
}

impl RuntimeEvent {
    pub fn new(kind: RuntimeKind, ts: u64) -> Self {
        Self {
            kind,
            ts,
            worker: 0,
            local_queue: 0,
            cpu_time: 0,
            sched_wait: None,
            task_id: 0,
            spawn_loc: None,
            scheduling_delay: None,
            tid: None,
            waker_task: 0,
            woken_task: 0,
            global_queue: 0,
        }
    }
}

/// `source` of a CPU sample: 0 = periodic on-CPU profile, 1 = scheduler switch (off-CPU).
pub const SOURCE_ON_CPU: u64 = 0;
pub const SOURCE_OFF_CPU: u64 = 1;

#[derive(Debug, Clone)]
pub struct CpuSample {
    pub ts: u64,
    /// Re-derived from `tid` after parsing (the wire value is unreliable).
    pub worker: u64,
    pub tid: u64,
    pub source: u64,
    /// Leaf-first return addresses.
    pub callchain: Vec<u64>,
}

#[derive(Debug, Clone)]
pub struct Alloc {
    pub ts: u64,
    pub tid: u64,
    pub size: u64,
    pub addr: u64,
    pub callchain: Vec<u64>,
}

#[derive(Debug, Clone)]
pub struct Free {
    pub addr: u64,
    pub alloc_ts: u64,
}

#[derive(Debug, Clone, Copy)]
pub struct RuntimeMetrics {
    pub ts: u64,
    pub global_queue: u64,
    pub alive_tasks: Option<u64>,
}

/// A span-related custom event, in file order (spans are built later).
#[derive(Debug, Clone)]
pub enum SpanEvent {
    Enter {
        span_id: u64,
        name: Option<String>,
        task_id: Option<u64>,
    },
    Exit {
        span_id: u64,
        name: Option<String>,
    },
    Close {
        span_id: u64,
    },
    /// A complete span from one event (schema annotated with `dial9.role`).
    Single {
        name: String,
        start: u64,
        end: u64,
    },
}

#[derive(Debug, Clone)]
pub struct TimedSpanEvent {
    pub ts: u64,
    pub event: SpanEvent,
}

/// A switch of the thread bound to a worker (block_in_place): samples of
/// those threads inside [start, end) are not the worker's.
#[derive(Debug, Clone, Copy)]
pub struct ThreadGap {
    pub worker: u64,
    pub from_tid: u64,
    pub to_tid: u64,
    pub start: u64,
    pub end: u64,
}

/// Everything the analysis needs from one trace file.
#[derive(Debug, Default)]
pub struct ParsedTrace {
    pub events: Vec<RuntimeEvent>,
    /// Interned spawn-location strings.
    pub strings: Vec<String>,
    pub samples: Vec<CpuSample>,
    pub symbols: SymbolTable,
    /// task → spawn location (insertion ordered, as the reference's Map).
    pub task_spawn_locs: IndexMap<u64, Option<u32>>,
    pub task_spawn_times: IndexMap<u64, u64>,
    pub task_terminate_times: IndexMap<u64, u64>,
    pub tid_to_worker: HashMap<u64, u64>,
    pub gaps: Vec<ThreadGap>,
    pub metadata: IndexMap<String, String>,
    pub sealed: bool,
    pub incomplete: bool,
    /// (monotonic ns, unix-epoch ns) anchors, sorted by monotonic time.
    pub clock_anchors: Vec<(u64, i64)>,
    pub runtime_metrics: Vec<RuntimeMetrics>,
    /// Legacy QueueSample `active_tasks` points.
    pub legacy_active_tasks: Vec<(u64, u64)>,
    pub allocs: Vec<Alloc>,
    pub frees: Vec<Free>,
    pub dropped_allocs: u64,
    pub dropped_frees: u64,
    pub span_events: Vec<TimedSpanEvent>,
    pub wake_events: u64,
    /// Bounds over runtime events only / widened by single-event spans.
    pub runtime_bounds: Option<(u64, u64)>,
    pub bounds: Option<(u64, u64)>,
}

impl ParsedTrace {
    pub fn spawn_loc(&self, id: Option<u32>) -> Option<&str> {
        id.map(|i| self.strings[i as usize].as_str())
    }
}
