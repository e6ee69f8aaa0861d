//! The report: every number d9lens shows, as plain serializable data. The
//! page, the CLI's `--json` and the text renderer all read this one model.

pub use crate::frames::{Frame, Stack};
pub use crate::hdr::LogBin;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// `TRACE SUMMARY: <label>`: a file name, or `N files in DIR`.
    pub label: String,
    pub files: Vec<String>,
    /// Every stack behind the sections' top lists.
    #[serde(skip)]
    pub profiles: Arc<Profiles>,
    /// The files' spans, samples, dumps and events, instance by instance
    /// (those the run kept): what the span explorer asks.
    #[serde(skip)]
    pub requests: Arc<crate::requests::kept::Details>,
    pub setup: SetupDiagnostic,
    pub summary: Summary,
    pub workers: Vec<WorkerUtilization>,
    pub long_polls: LongPolls,
    pub sched_delays: SchedDelays,
    pub poll_by_spawn: Vec<DurationStats>,
    /// Every poll's duration, whatever its spawn location.
    #[serde(default)]
    pub all_polls: DurationStats,
    /// Log-scale histograms of durations, for charts.
    #[serde(default)]
    pub distributions: Distributions,
    pub lifecycle: Lifecycle,
    pub blocking: Blocking,
    pub cpu_hotspots: CpuHotspots,
    pub queue: QueueDepth,
    pub kernel_wait: Vec<KernelWait>,
    pub spans: Vec<DurationStats>,
    pub memory: Option<Memory>,
    pub red_flags: Vec<Finding>,
    /// Per-file problems (decode errors, size caps); the rest is still analyzed.
    pub errors: Vec<FileError>,
}

/// The report in one word: the worst finding's severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Health {
    /// A critical finding.
    Critical,
    /// A warning, nothing critical.
    NeedsAttention,
    /// Nothing above info.
    Healthy,
}

impl Health {
    pub fn label(self) -> &'static str {
        match self {
            Health::Critical => "critical",
            Health::NeedsAttention => "needs attention",
            Health::Healthy => "healthy",
        }
    }
}

impl Report {
    /// "N files" for a report's head, unless its label says just that
    /// already (the label of a selection nobody named).
    pub fn files_unless_labelled(&self) -> Option<String> {
        let files = crate::fmt::count(self.files.len(), "file");
        (files != self.label).then_some(files)
    }

    pub fn health(&self) -> Health {
        let has = |s: Severity| self.red_flags.iter().any(|f| f.severity == s);
        if has(Severity::Critical) {
            Health::Critical
        } else if has(Severity::Warning) {
            Health::NeedsAttention
        } else {
            Health::Healthy
        }
    }
}

impl Lifecycle {
    /// What the counts by location leave out, in words, when they do.
    pub fn left_out(&self) -> Option<String> {
        (self.files_left_out > 0).then(|| {
            format!(
                "Counts by location leave out the last {} by name: their tasks would pass the task ids a report keeps.",
                crate::fmt::count(self.files_left_out as usize, "file")
            )
        })
    }
}

impl Finding {
    /// The message's first line: what lists of findings show.
    pub fn headline(&self) -> &str {
        self.message.lines().next().unwrap_or_default()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileError {
    pub file: String,
    /// Byte offset in the (decompressed) trace where decoding stopped, if known.
    pub offset: Option<u64>,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Critical,
    Warning,
    Info,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub severity: Severity,
    pub check: String,
    pub message: String,
    /// What to do about it.
    pub fix: String,
    /// When it happened (the worst instance), for "show on timeline".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moment: Option<Moment>,
}

/// Where a finding can be seen on the timeline: one poll of one file (its
/// worker and start), or a stretch of it (a span, which no worker carries).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Moment {
    pub file: String,
    pub worker: Option<u64>,
    /// Trace ns.
    pub start_ns: u64,
    pub dur_ns: u64,
}

impl From<&LongPoll> for Moment {
    fn from(p: &LongPoll) -> Self {
        Moment {
            file: p.file.clone(),
            worker: Some(p.worker),
            start_ns: p.start_ns,
            dur_ns: p.dur_ns,
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetupDiagnostic {
    pub on_cpu_samples: u64,
    pub off_cpu_samples: u64,
    pub tasks_spawned: u64,
    pub wake_events: u64,
    pub task_polls: u64,
    pub worker_unparks: u64,
    pub symbols: u64,
    pub symbols_with_location: u64,
    pub issues: Vec<Finding>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub duration_ms: f64,
    pub min_ts: Option<u64>,
    pub max_ts: Option<u64>,
    /// Unix-epoch ns of `min_ts`, from the first clock-sync anchor, when known.
    pub wall_clock_start_ns: Option<i64>,
    pub workers: Vec<u64>,
    pub event_count: u64,
    pub cpu_sample_count: u64,
    pub on_cpu_sample_count: u64,
    pub off_cpu_sample_count: u64,
    pub task_spawn_count: u64,
    pub task_alive_at_end: i64,
    /// Named runtimes from segment metadata (`runtime.<name>` = worker ids).
    pub runtimes: Vec<RuntimeWorkers>,
    /// Task dumps (async backtraces of tasks gone idle), and the idle time
    /// after them in all: what the "where tasks wait" flamegraph weighs.
    #[serde(default)]
    pub task_dumps: u64,
    #[serde(default)]
    pub task_dump_idle_ns: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuntimeWorkers {
    pub name: String,
    pub workers: Vec<u64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkerUtilization {
    pub worker: u64,
    pub utilization: f64,
    /// None when the worker had no active period.
    pub avg_cpu_ratio: Option<f64>,
    pub poll_count: u64,
    pub park_count: u64,
    pub active_count: u64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LongPolls {
    pub threshold_ns: u64,
    pub count: u64,
    pub worst_ns: Option<u64>,
    /// Worst first, at most 100 kept.
    pub worst: Vec<LongPoll>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LongPoll {
    pub dur_ns: u64,
    pub worker: u64,
    pub task_id: u64,
    pub spawn_loc: Option<String>,
    pub start_ns: u64,
    pub start_offset_ns: i64,
    pub file: String,
    /// Off-CPU (scheduler) samples inside the poll, each a leaf-first stack.
    pub sched_samples: Vec<Stack>,
    /// On-CPU samples inside the poll.
    pub cpu_samples: Vec<Stack>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SchedDelays {
    pub count: u64,
    pub count_over_1ms: u64,
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub max_ns: u64,
    /// False when no delay was measured at all (percentiles are then meaningless).
    pub has_histogram: bool,
    pub worst: Vec<SchedDelay>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SchedDelay {
    pub delay_ns: u64,
    pub task_id: u64,
    pub spawn_loc: Option<String>,
    pub wake_offset_ns: i64,
    pub worker: u64,
    /// The poll that waited.
    pub moment: Moment,
}

/// Durations counted in log-scale bins (`hdr::Histogram::log_bins`, ns).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Distributions {
    pub polls: Vec<LogBin>,
    pub sched_delays: Vec<LogBin>,
    /// The most frequent spans' durations.
    pub spans: Vec<(String, Vec<LogBin>)>,
}

/// Bins per power of ten in `Distributions`.
pub const BINS_PER_DECADE: u32 = 4;
/// Spans charted in `Distributions`.
pub const CHARTED_SPANS: usize = 4;

/// Histogram summary of durations under one key (spawn location or span name).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DurationStats {
    pub name: String,
    pub count: u64,
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub max_ns: u64,
    pub min_ns: u64,
    /// The slowest instance (spans).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slowest: Option<Moment>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lifecycle {
    pub spawns_by_location: Vec<LocationCount>,
    pub peak_active: Option<u64>,
    pub active_at_first_sample: Option<u64>,
    pub active_at_last_sample: Option<u64>,
    pub possible_leak: bool,
    /// Tasks spawned and never terminated, by spawn location.
    pub alive_by_location: Vec<LocationCount>,
    /// Files whose tasks the spawn and alive counts leave out: from the
    /// first, in fold order, that would pass the fold's budget of task ids.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub files_left_out: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LocationCount {
    pub loc: String,
    pub count: u64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Blocking {
    pub off_cpu_samples: u64,
    pub in_poll: u64,
    pub idle_park: u64,
    pub in_poll_by_location: Vec<LocationCount>,
    pub in_poll_stacks: Vec<StackGroup>,
    /// In-poll samples grouped by the call that blocked: each stack's
    /// innermost application frame (d9lens' reading, not the reference's).
    pub in_poll_calls: Vec<BlockingCall>,
    /// Workers with kernel scheduling waits > 1 ms (shown when there are no off-CPU samples).
    pub sched_wait_workers: Vec<KernelWait>,
}

/// In-poll samples whose stacks share their innermost application frame
/// (else their innermost dependency frame, else their leaf).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlockingCall {
    pub frame: Frame,
    pub count: u64,
    /// How long its samples' threads stayed off the CPU inside their polls
    /// (until the poll's next sample or its end): what it cost the workers.
    #[serde(default)]
    pub blocked_ns: u64,
    /// The distinct stacks behind it.
    pub stacks: u64,
    /// Its heaviest stack (leaf first).
    pub heaviest: Vec<Frame>,
    /// Where its heaviest stack's first sample was taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moment: Option<Moment>,
}

/// Which samples a profile weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SampleKind {
    #[default]
    OnCpu,
    /// Off-CPU samples taken inside a poll: a task blocked its worker.
    Blocking,
    /// Off-CPU samples of a parked worker: not blocking.
    Idle,
    /// Both kinds of off-CPU samples.
    OffCpu,
    /// Sampled allocations, weighed in bytes.
    Alloc,
    /// Task dumps (what an idle task was awaiting), weighed by the idle ns after each.
    Waits,
}

impl SampleKind {
    pub const ALL: [SampleKind; 6] = [
        SampleKind::OnCpu,
        SampleKind::Blocking,
        SampleKind::Idle,
        SampleKind::OffCpu,
        SampleKind::Alloc,
        SampleKind::Waits,
    ];

    /// The CLI's and the URL's name.
    pub fn name(self) -> &'static str {
        match self {
            SampleKind::OnCpu => "on-cpu",
            SampleKind::Blocking => "blocking",
            SampleKind::Idle => "idle",
            SampleKind::OffCpu => "off-cpu",
            SampleKind::Alloc => "alloc",
            SampleKind::Waits => "waits",
        }
    }

    pub fn parse(s: &str) -> Option<SampleKind> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }

    /// What one unit of weight is.
    pub fn unit(self) -> &'static str {
        match self {
            SampleKind::Alloc => "bytes",
            SampleKind::Waits => "ns",
            _ => "samples",
        }
    }
}

/// Every sampled stack of the selection (the report's lists keep only the
/// top ones), for flamegraphs and exports: stacks of indexes into `frames`,
/// leaf first, with their weight, heaviest first. Not in the report's JSON:
/// the page and the CLI build it in place from the merge (a worker sends
/// one task's, `inspect`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Profiles {
    pub frames: Vec<Frame>,
    pub on_cpu: Vec<Weighted>,
    pub blocking: Vec<Weighted>,
    pub idle: Vec<Weighted>,
    pub alloc_bytes: Vec<Weighted>,
    /// Task dumps, weighed by the idle ns after each.
    #[serde(default)]
    pub waits: Vec<Weighted>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Weighted {
    pub weight: u64,
    pub stack: Vec<u32>,
}

impl Profiles {
    pub fn stacks(&self, kind: SampleKind) -> impl Iterator<Item = &Weighted> {
        let (a, b): (&[Weighted], &[Weighted]) = match kind {
            SampleKind::OnCpu => (&self.on_cpu, &[]),
            SampleKind::Blocking => (&self.blocking, &[]),
            SampleKind::Idle => (&self.idle, &[]),
            SampleKind::OffCpu => (&self.blocking, &self.idle),
            SampleKind::Alloc => (&self.alloc_bytes, &[]),
            SampleKind::Waits => (&self.waits, &[]),
        };
        a.iter().chain(b)
    }

    pub fn total(&self, kind: SampleKind) -> u64 {
        self.stacks(kind).map(|w| w.weight).sum()
    }

    /// The profiles of a few samples given as stacks (a long poll's): each
    /// distinct stack once, as the report shares it (one `Stack` per stack).
    pub fn from_samples(on_cpu: &[Stack], blocking: &[Stack]) -> Profiles {
        let mut p = Profiles::default();
        p.on_cpu = weigh(on_cpu, &mut p.frames);
        p.blocking = weigh(blocking, &mut p.frames);
        p
    }
}

/// Equal stacks (the same shared `Stack`) counted together, their frames
/// appended to `frames`.
fn weigh(stacks: &[Stack], frames: &mut Vec<Frame>) -> Vec<Weighted> {
    let mut index: std::collections::HashMap<(*const Frame, usize), usize> = std::collections::HashMap::new();
    let mut out: Vec<Weighted> = Vec::new();
    for s in stacks {
        let key = (s.as_ptr(), s.len());
        if let Some(&i) = index.get(&key) {
            out[i].weight += 1;
            continue;
        }
        let start = frames.len() as u32;
        frames.extend(s.iter().cloned());
        index.insert(key, out.len());
        out.push(Weighted {
            weight: 1,
            stack: (start..frames.len() as u32).collect(),
        });
    }
    out
}

/// Samples that share one stack.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StackGroup {
    pub count: u64,
    pub frames: Vec<Frame>,
    /// Where the first of these samples was taken (in-poll blocking stacks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moment: Option<Moment>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CpuHotspots {
    pub samples: u64,
    /// Top stacks by count (leaf-first frames).
    pub top_stacks: Vec<StackGroup>,
    /// Call tree of application frames, outermost caller first, flattened in
    /// depth-first order (children by count, descending) so deep stacks stay
    /// flat data.
    pub tree: Vec<HotspotRow>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HotspotRow {
    /// 0 for outermost callers.
    pub depth: u32,
    pub name: String,
    pub count: u64,
    pub self_count: u64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueDepth {
    pub global_max: Option<u64>,
    pub global_avg: Option<f64>,
    pub samples: u64,
    pub max_local_queue: u64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KernelWait {
    pub worker: u64,
    pub count: u64,
    pub max_ns: u64,
    pub p50_ns: u64,
    pub count_over_1ms: u64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Memory {
    pub sample_rate_bytes: u64,
    /// The trace's own `memory.sample_rate_bytes`, when it differs from the rate used.
    pub trace_sample_rate_bytes: Option<u64>,
    pub total_alloc_count: u64,
    pub total_alloc_bytes: u64,
    pub total_free_count: u64,
    pub leaked_count: u64,
    pub leaked_bytes: u64,
    pub estimated_total_bytes: u64,
    pub dropped_allocs: u64,
    pub dropped_frees: u64,
    pub top_sites: Vec<AllocSite>,
    pub per_task: Vec<TaskAlloc>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AllocSite {
    pub count: u64,
    pub total_bytes: u64,
    pub estimated_bytes: f64,
    pub frames: Vec<Frame>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskAlloc {
    pub task_id: u64,
    pub count: u64,
    pub sampled_bytes: u64,
    pub estimated_bytes: f64,
    pub spawn_loc: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_counts_files_unless_the_label_does() {
        let files = vec!["a.bin".to_owned(), "b.bin".to_owned()];
        let unnamed = Report {
            label: "2 files".into(),
            files: files.clone(),
            ..Report::default()
        };
        assert_eq!(unnamed.files_unless_labelled(), None);
        let named = Report {
            label: "2 segments from s3://b/p/".into(),
            files,
            ..Report::default()
        };
        assert_eq!(named.files_unless_labelled().as_deref(), Some("2 files"));
    }
}
