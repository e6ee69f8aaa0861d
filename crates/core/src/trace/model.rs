//! The typed event model of one trace file.

use super::SymbolTable;
use super::app::{AppEvents, FieldSetId, SpanFields};
use super::strings::StrId;
pub use super::strings::Strings;
use crate::hashing::{FastIndexMap, FastMap};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::num::NonZeroU64;

/// Worker id the recorder uses for "not a worker / unknown".
pub const UNKNOWN_WORKER: u64 = 255;

/// `Option<u64>` in 8 bytes, for records kept per event: `u64::MAX`, which
/// the recorder never writes for a duration, stands for "absent" (in a
/// damaged trace, a `u64::MAX` reads as absent too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptU64(u64);

impl OptU64 {
    pub const NONE: OptU64 = OptU64(u64::MAX);

    pub fn get(self) -> Option<u64> {
        (self != Self::NONE).then_some(self.0)
    }
}

impl From<Option<u64>> for OptU64 {
    fn from(v: Option<u64>) -> Self {
        OptU64(v.unwrap_or(u64::MAX))
    }
}

/// An optional thread id in 4 bytes: Linux's fit in 22 bits (`pid_max`);
/// `u32::MAX` or a wider value, from a damaged trace, reads as absent (and
/// then binds no thread to a worker either).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptTid(u32);

impl OptTid {
    pub fn get(self) -> Option<u64> {
        (self.0 != u32::MAX).then_some(u64::from(self.0))
    }
}

impl From<Option<u64>> for OptTid {
    fn from(v: Option<u64>) -> Self {
        OptTid(v.and_then(|t| u32::try_from(t).ok()).unwrap_or(u32::MAX))
    }
}

/// One event of a worker's own timeline (the other runtime events, wakes and
/// queue samples, are kept apart: the timeline walk never needs them). 32
/// bytes: a trace holds hundreds of thousands.
#[derive(Debug, Clone, Copy)]
pub struct WorkerEvent {
    pub ts: u64,
    pub kind: WorkerEventKind,
}

const _: () = assert!(std::mem::size_of::<WorkerEvent>() == 32);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkerEventKind {
    PollStart {
        task_id: u64,
        spawn_loc: Option<StrId>,
        /// The recorder's own wake → poll delay, when it measured one.
        scheduling_delay: OptU64,
    },
    PollEnd,
    Park {
        cpu_time: u64,
        tid: OptTid,
    },
    Unpark {
        cpu_time: u64,
        sched_wait: OptU64,
        tid: OptTid,
    },
}

impl WorkerEventKind {
    /// The OS thread of a Park/Unpark (absent on old traces and other kinds).
    pub fn tid(&self) -> Option<u64> {
        match *self {
            WorkerEventKind::Park { tid, .. } | WorkerEventKind::Unpark { tid, .. } => tid.get(),
            _ => None,
        }
    }
}

/// A wake of `task` by the task `waker` (file order; 24 bytes, one per wake).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Wake {
    pub ts: u64,
    /// The woken task (`woken_task_id`).
    pub task: u64,
    /// The task that woke it (`waker_task_id`; 0 = unknown, e.g. a wake from
    /// outside any task or a recorder that does not say).
    pub waker: u64,
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
    /// `runtime_name` (absent, or empty for the unnamed runtime).
    pub runtime: Option<StrId>,
    pub global_queue: u64,
    pub alive_tasks: Option<u64>,
}

/// A span-related custom event, in file order (spans are built later).
#[derive(Debug, Clone, Copy)]
pub enum SpanEvent {
    Enter {
        span_id: u64,
        /// `span_name`, or `unknown` when absent or empty.
        name: StrId,
        /// `dial9.tokio.task_id` (0 means none).
        task_id: Option<NonZeroU64>,
        /// `parent_span_id`, when the recorder gave one.
        parent: Option<NonZeroU64>,
        /// Its other fields (`route`, `request_id`, …).
        fields: FieldSetId,
    },
    Exit {
        span_id: u64,
        /// The fields of an exit whose schema has any replace those of the
        /// enter (as dial9's viewer does), even when none has a value.
        fields: Option<FieldSetId>,
    },
    Close {
        span_id: u64,
    },
    /// A complete span from one event (schema annotated with `dial9.role`):
    /// from `start` to the event's time.
    Single {
        name: StrId,
        start: u64,
        task_id: Option<NonZeroU64>,
        /// Its attributes: the fields no role names.
        fields: SpanFields,
    },
}

#[derive(Debug, Clone, Copy)]
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

/// Timestamps that did not make sense, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TimeAnomalies {
    /// Events more than `MAX_DISTANCE_NS` from the trace's median time: dropped.
    pub absurd: u64,
    /// A worker's events earlier than the one before them in the file
    /// (kept, in time order: a thread hand-off can do this a few times).
    pub backwards: u64,
}

impl TimeAnomalies {
    pub fn add(&mut self, other: &TimeAnomalies) {
        self.absurd = self.absurd.saturating_add(other.absurd);
        self.backwards = self.backwards.saturating_add(other.backwards);
    }
}

/// Everything the analysis needs from one trace file.
#[derive(Debug, Default)]
pub struct ParsedTrace {
    /// Each worker's PollStart/PollEnd/Park/Unpark events, in file order;
    /// the keys are the trace's worker ids.
    pub workers: BTreeMap<u64, Vec<WorkerEvent>>,
    pub wakes: Vec<Wake>,
    /// QueueSample (time, global queue depth), file order.
    pub queue_samples: Vec<(u64, u64)>,
    /// Runtime events of all six kinds (polls, parks, wakes, queue samples).
    pub runtime_events: u64,
    /// Max local queue depth over PollStart/Park/Unpark (0 when none).
    pub max_local_queue: u64,
    pub strings: Strings,
    pub samples: Vec<CpuSample>,
    pub symbols: SymbolTable,
    /// task → spawn location (insertion ordered, as the reference's Map).
    pub task_spawn_locs: FastIndexMap<u64, Option<StrId>>,
    pub task_spawn_times: FastIndexMap<u64, u64>,
    pub task_terminate_times: FastIndexMap<u64, u64>,
    pub tid_to_worker: FastMap<u64, u64>,
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
    /// Bounds over runtime events only / widened by single-event spans
    /// (while decoding, `bounds` holds the single spans' own).
    pub runtime_bounds: Option<(u64, u64)>,
    pub bounds: Option<(u64, u64)>,
    /// Timestamps that made no sense (`ParsedTrace::check_time`).
    pub time: TimeAnomalies,
    /// Span fields, custom events, task dumps.
    pub app: AppEvents,
}

/// The named runtimes of segment metadata (`runtime.<name>` = "2,3"): each
/// name and its worker ids.
pub fn named_runtimes(metadata: &IndexMap<String, String>) -> impl Iterator<Item = (&str, Vec<u64>)> {
    metadata.iter().filter_map(|(k, v)| {
        let name = k.strip_prefix("runtime.")?;
        Some((name, v.split(',').filter_map(|x| x.trim().parse().ok()).collect()))
    })
}

impl ParsedTrace {
    /// The wakes by a known task: those that can start a flow from one poll
    /// to another (the others need not be kept).
    pub fn known_wakes(&self) -> Vec<Wake> {
        self.wakes.iter().filter(|w| w.waker != 0).copied().collect()
    }

    pub fn spawn_loc(&self, id: Option<StrId>) -> Option<&str> {
        id.map(|i| self.strings.get(i))
    }
}
