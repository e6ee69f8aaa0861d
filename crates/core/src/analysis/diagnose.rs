//! Long-poll diagnosis (`diagnose_long_poll.js`, spec 7.2): pick the polls far
//! above the runtime's own p99 and say why each one took so long, from the CPU
//! samples of the poll itself and of every other thread during it.
//!
//! Beyond the reference: the poll's own thread is known (the tid the worker
//! was bound to by its Park/Unpark events), so it is excluded from the
//! "another thread held the CPU" search instead of being flagged as its own
//! blocker, and the sampling rate defaults to the trace's
//! `cpu.profile.frequency_hz` when `--hz` is not given.

use super::workers::{self, Poll};
use crate::fmt::{fmt_dur, to_fixed};
use crate::frames::is_kernel_address;
use crate::frames::{diagnose_stack, format_frame};
use crate::profile::labels::KERNEL;
use crate::report::Frame;
use crate::trace::{ParsedTrace, SOURCE_OFF_CPU};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

/// The reference's default profiling rate (`--hz 99`).
pub const DEFAULT_HZ: f64 = 99.0;
/// Frames kept per stack in the output, and frames that decide a stack's group.
const STACK_FRAMES: usize = 12;
const GROUP_FRAMES: usize = 4;
const TOP_STACKS: usize = 3;
const TOP_THREADS: usize = 5;
/// Fewer expected samples per thread than this and absence of samples proves nothing.
const MIN_EXPECTED_SAMPLES: f64 = 3.0;
/// A thread on-CPU for this share of the poll is the likely blocker.
const BLOCKER_COVERAGE_PCT: f64 = 60.0;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiagnoseOptions {
    /// Only polls of this task.
    pub task: Option<u64>,
    /// Only the poll that starts at this time (trace ns): the page's "why was this poll long".
    #[serde(default)]
    pub poll_start: Option<u64>,
    /// Fixed threshold; otherwise max(floor, mult × p99).
    pub min_ms: Option<f64>,
    pub pctl_mult: f64,
    pub floor_ms: f64,
    /// How many candidates to diagnose, longest first.
    pub top: usize,
    /// CPU profile rate; `None` = the trace's `cpu.profile.frequency_hz`, else 99.
    pub hz: Option<f64>,
}

impl Default for DiagnoseOptions {
    fn default() -> Self {
        Self {
            task: None,
            poll_start: None,
            min_ms: None,
            pctl_mult: 3.0,
            floor_ms: 1.0,
            top: 1,
            hz: None,
        }
    }
}

/// Where the sampling rate came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HzSource {
    Option,
    TraceMetadata,
    Default,
}

/// Nearest-rank percentiles over every poll duration (not HDR, unlike the report).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Distribution {
    pub polls: usize,
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub max_ns: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThresholdRule {
    /// `--min-ms` was given.
    MinMs,
    /// mult × p99 was above the floor.
    P99Multiple,
    Floor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CpuState {
    /// The poll's worker was sampled on-CPU during the poll.
    OnCpu,
    OffCpu,
}

/// Samples sharing their first `GROUP_FRAMES` frames (by display text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StackSummary {
    pub count: usize,
    /// Display texts of the first sample's leaf-most frames (up to 12, a run
    /// of kernel addresses counting as one).
    pub frames: Vec<String>,
    /// Raw symbol of the leaf frame (what corroboration matches on).
    pub leaf_symbol: Option<String>,
    /// Stack diagnosis (spec 4.10) of the first sample: libc call, kernel blocker, first app frame.
    pub syscall: Option<String>,
    pub blocker: Option<String>,
    pub trigger: Option<String>,
}

/// On-CPU samples of one thread inside the poll.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadShare {
    pub tid: u64,
    /// The worker this thread was last bound to, if it is a worker thread.
    pub worker: Option<u64>,
    /// The thread that ran the poll itself.
    pub own_thread: bool,
    pub samples: usize,
    pub est_on_cpu_ms: f64,
    /// Estimated on-CPU time / poll duration, capped at 100.
    pub coverage_pct: f64,
    /// Another thread on-CPU for ≥ 60 % of the poll (with ≥ 3 samples when ≥ 3 were
    /// expected) while the poll's own thread was not.
    pub likely_blocker: bool,
    pub top_stack: Option<StackSummary>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Census {
    pub ms_per_sample: f64,
    /// Samples an always-running thread would get during the poll.
    pub expected_samples: f64,
    /// Too few expected samples for absence or coverage to mean much.
    pub noisy: bool,
    pub on_cpu_samples: usize,
    pub thread_count: usize,
    /// Up to 5 threads, most samples first.
    pub threads: Vec<ThreadShare>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Verdict {
    /// The poll mostly waited: no thread of the process was sampled on-CPU (or its own thread only
    /// briefly and no other thread for most of it), though enough samples were expected.
    BlockedOffBox,
    /// The poll's own thread was running its code.
    OnCpuOwnCode,
    /// Another thread was on-CPU for most of the poll while this one was not.
    AnotherThreadHeldCpu { tid: u64 },
    /// Too few samples expected during the poll to tell.
    Unknown,
}

impl Verdict {
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::BlockedOffBox => "blocked off-box",
            Verdict::OnCpuOwnCode => "on-CPU in its own code",
            Verdict::AnotherThreadHeldCpu { .. } => "another thread held the CPU",
            Verdict::Unknown => "unknown",
        }
    }
}

/// Other candidate polls during which the blocker's leaf frame was on-CPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Corroboration {
    pub leaf: String,
    pub polls: usize,
    pub of: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    pub task_id: u64,
    pub worker: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub dur_ns: u64,
    /// Duration / p99 (None when p99 is 0).
    pub p99_multiple: Option<f64>,
    /// Window relative to the trace's minTs, ms.
    pub start_rel_ms: f64,
    pub end_rel_ms: f64,
    /// Spawn location without the cargo-registry prefix.
    pub spawn_loc: Option<String>,
    /// The worker's bound thread during the poll (from Park/Unpark tids).
    pub own_tid: Option<u64>,
    pub state: CpuState,
    pub on_cpu_samples: usize,
    pub sched_samples: usize,
    /// Top 3 on-CPU stacks when on-CPU, else top 3 scheduler (off-CPU) stacks.
    pub stacks: Vec<StackSummary>,
    pub census: Census,
    pub verdict: Verdict,
    pub corroboration: Option<Corroboration>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    pub min_ts: Option<u64>,
    pub hz: f64,
    pub hz_source: HzSource,
    pub distribution: Option<Distribution>,
    pub threshold_ms: f64,
    pub threshold_rule: ThresholdRule,
    pub task_filter: Option<u64>,
    /// Polls at or above the threshold (and of the task filter).
    pub candidates: usize,
    pub targets: Vec<Target>,
}

// ── Shared with `zoom` ──

/// Profile rate: the option, else the trace's own setting, else 99 Hz.
pub(crate) fn sampling_hz(trace: &ParsedTrace, hz: Option<f64>) -> (f64, HzSource) {
    if let Some(hz) = hz.filter(|h| *h > 0.0) {
        return (hz, HzSource::Option);
    }
    let meta = trace
        .metadata
        .get("cpu.profile.frequency_hz")
        .and_then(|v| v.trim().parse::<f64>().ok());
    match meta.filter(|h| *h > 0.0) {
        Some(hz) => (hz, HzSource::TraceMetadata),
        None => (DEFAULT_HZ, HzSource::Default),
    }
}

/// Drops everything up to `registry/src/<index>/`, leaving `crate-x.y.z/src/…`.
pub fn strip_registry(loc: &str) -> &str {
    const MARK: &str = "registry/src/";
    if let Some(i) = loc.find(MARK)
        && let Some(j) = loc[i + MARK.len()..].find('/')
    {
        return &loc[i + MARK.len() + j + 1..];
    }
    loc
}

/// Samples in time order (file order is per sub-stream), for window queries.
pub(crate) struct SampleIndex {
    by_time: Vec<usize>,
}

impl SampleIndex {
    pub(crate) fn new(trace: &ParsedTrace) -> Self {
        let mut by_time: Vec<usize> = (0..trace.samples.len()).collect();
        by_time.sort_by_key(|&i| trace.samples[i].ts);
        Self { by_time }
    }

    /// Indices of samples with start ≤ ts ≤ end, in file order (the reference walks samples in file order).
    pub(crate) fn window(&self, trace: &ParsedTrace, start: f64, end: f64) -> Vec<usize> {
        let ts = |i: usize| trace.samples[i].ts as f64;
        let lo = self.by_time.partition_point(|&i| ts(i) < start);
        let hi = self.by_time.partition_point(|&i| ts(i) <= end);
        let mut out = self.by_time[lo..hi.max(lo)].to_vec();
        out.sort_unstable();
        out
    }
}

/// Which thread each worker ran on over time, from Park/Unpark `tid`s.
pub(crate) struct WorkerThreads {
    bindings: BTreeMap<u64, Vec<(u64, u64)>>,
}

impl WorkerThreads {
    pub(crate) fn new(trace: &ParsedTrace) -> Self {
        let mut bindings: BTreeMap<u64, Vec<(u64, u64)>> = BTreeMap::new();
        for (&worker, events) in &trace.workers {
            let tids = events.iter().filter_map(|e| Some((e.ts, e.kind.tid()?)));
            bindings.entry(worker).or_default().extend(tids);
        }
        for b in bindings.values_mut() {
            b.sort_by_key(|x| x.0);
        }
        Self { bindings }
    }

    /// The tid of the worker's last Park/Unpark at or before `ts` (else its first one):
    /// a poll runs on the thread that unparked before it.
    pub(crate) fn tid_at(&self, worker: u64, ts: u64) -> Option<u64> {
        let b = self.bindings.get(&worker)?;
        let i = b.partition_point(|x| x.0 <= ts);
        b.get(i.saturating_sub(1)).map(|x| x.1)
    }
}

/// Groups stacks by their first 4 display texts; first occurrence keeps its frames.
pub(crate) fn top_stacks(trace: &ParsedTrace, samples: &[usize], n: usize) -> Vec<StackSummary> {
    let mut groups: IndexMap<String, (usize, Vec<Frame>)> = IndexMap::new();
    for &i in samples {
        let frames = trace.symbols.symbolize(&trace.samples[i].callchain);
        let key = frames
            .iter()
            .take(GROUP_FRAMES)
            .map(display)
            .collect::<Vec<_>>()
            .join(" < ");
        groups.entry(key).or_insert_with(|| (0, frames)).0 += 1;
    }
    let mut v: Vec<(usize, Vec<Frame>)> = groups.into_values().collect();
    v.sort_by_key(|g| Reverse(g.0));
    v.into_iter()
        .take(n)
        .map(|(count, frames)| summarize(count, &frames))
        .collect()
}

fn display(f: &Frame) -> String {
    format_frame(&f.symbol, f.location.as_deref())
}

/// Display texts, leaf first, with each run of unresolved kernel addresses
/// as one `[kernel]` entry (as the flamegraph folds them): the frames after
/// it are the ones that say what the thread was doing.
fn folded_display(frames: &[Frame]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < frames.len() && out.len() < STACK_FRAMES {
        let run = frames[i..].iter().take_while(|f| is_kernel_address(&f.symbol)).count();
        if run == 0 {
            out.push(display(&frames[i]));
            i += 1;
        } else {
            out.push(match run {
                1 => KERNEL.to_owned(),
                n => format!("{KERNEL} ({n} frames)"),
            });
            i += run;
        }
    }
    out
}

fn summarize(count: usize, frames: &[Frame]) -> StackSummary {
    let d = diagnose_stack(frames);
    StackSummary {
        count,
        frames: folded_display(frames),
        leaf_symbol: frames.first().map(|f| f.symbol.to_string()),
        syscall: d.syscall.map(display),
        blocker: d.blocker.map(|f| f.symbol.to_string()),
        trigger: d.trigger.map(display),
    }
}

// ── The diagnosis ──

/// Every poll of every worker: workers ascending, each worker's polls in time order.
pub(crate) fn all_polls(tl: &workers::Timelines) -> Vec<(u64, &Poll)> {
    tl.workers
        .iter()
        .flat_map(|(&w, wt)| wt.polls.iter().map(move |p| (w, p)))
        .collect()
}

fn nearest_rank(sorted: &[u64], p: f64) -> u64 {
    let idx = ((p / 100.0 * sorted.len() as f64).floor() as usize).min(sorted.len() - 1);
    sorted[idx]
}

fn distribution(polls: &[(u64, &Poll)]) -> Option<Distribution> {
    let mut durs: Vec<u64> = polls.iter().map(|(_, p)| p.end - p.start).collect();
    if durs.is_empty() {
        return None;
    }
    durs.sort_unstable();
    Some(Distribution {
        polls: durs.len(),
        p50_ns: nearest_rank(&durs, 50.0),
        p99_ns: nearest_rank(&durs, 99.0),
        max_ns: *durs.last().expect("non-empty"),
    })
}

fn threshold(opts: &DiagnoseOptions, dist: Option<&Distribution>) -> (f64, ThresholdRule) {
    if let Some(ms) = opts.min_ms {
        return (ms, ThresholdRule::MinMs);
    }
    let scaled = dist.map_or(0.0, |d| opts.pctl_mult * d.p99_ns as f64 / 1e6);
    if scaled > opts.floor_ms {
        (scaled, ThresholdRule::P99Multiple)
    } else {
        (opts.floor_ms, ThresholdRule::Floor)
    }
}

/// Everything needed to look at one poll's samples.
struct Ctx<'a> {
    trace: &'a ParsedTrace,
    index: SampleIndex,
    threads: WorkerThreads,
    ms_per_sample: f64,
}

impl Ctx<'_> {
    /// On-CPU (source ≠ 1) samples of any thread inside the poll, file order.
    fn on_cpu_during(&self, p: &Poll) -> Vec<usize> {
        let all = self.index.window(self.trace, p.start as f64, p.end as f64);
        all.into_iter()
            .filter(|&i| self.trace.samples[i].source != SOURCE_OFF_CPU)
            .collect()
    }

    /// The worker's bound tid, or failing that the thread its attached on-CPU samples came from.
    fn own_tid(&self, worker: u64, p: &Poll) -> Option<u64> {
        self.threads
            .tid_at(worker, p.start)
            .or_else(|| p.cpu_samples().first().map(|&i| self.trace.samples[i].tid))
    }

    fn census(&self, p: &Poll, own: Option<u64>) -> Census {
        let dur_ms = (p.end - p.start) as f64 / 1e6;
        let expected = dur_ms / self.ms_per_sample;
        let samples = self.on_cpu_during(p);
        let mut by_tid: IndexMap<u64, Vec<usize>> = IndexMap::new();
        for &i in &samples {
            by_tid.entry(self.trace.samples[i].tid).or_default().push(i);
        }
        let mut rows: Vec<(u64, Vec<usize>)> = by_tid.into_iter().collect();
        rows.sort_by_key(|r| Reverse(r.1.len()));
        let thread_count = rows.len();
        let coverage = |n: usize| {
            if dur_ms > 0.0 {
                (n as f64 * self.ms_per_sample / dur_ms * 100.0).min(100.0)
            } else {
                100.0
            }
        };
        // A poll whose own thread ran for most of it was not kept off the CPU by anyone.
        let own_ran = rows
            .iter()
            .any(|(tid, idx)| own == Some(*tid) && coverage(idx.len()) >= BLOCKER_COVERAGE_PCT);
        let threads = rows
            .into_iter()
            .take(TOP_THREADS)
            .map(|(tid, idx)| {
                let own_thread = own == Some(tid);
                // With enough expected samples, one or two hits are not "most of the poll".
                let enough = expected < MIN_EXPECTED_SAMPLES || idx.len() >= 3;
                ThreadShare {
                    tid,
                    worker: self.trace.tid_to_worker.get(&tid).copied(),
                    own_thread,
                    samples: idx.len(),
                    est_on_cpu_ms: idx.len() as f64 * self.ms_per_sample,
                    coverage_pct: coverage(idx.len()),
                    likely_blocker: !own_thread && !own_ran && coverage(idx.len()) >= BLOCKER_COVERAGE_PCT && enough,
                    top_stack: top_stacks(self.trace, &idx, 1).pop(),
                }
            })
            .collect();
        Census {
            ms_per_sample: self.ms_per_sample,
            expected_samples: expected,
            noisy: expected < MIN_EXPECTED_SAMPLES,
            on_cpu_samples: samples.len(),
            thread_count,
            threads,
        }
    }

    /// Other candidates with an on-CPU sample (not of their own thread) whose stack has `leaf`.
    fn corroborate(&self, leaf: &str, others: &[(u64, &Poll)], cache: &mut HashMap<usize, bool>) -> usize {
        others
            .iter()
            .filter(|(w, p)| {
                let own = self.own_tid(*w, p);
                self.on_cpu_during(p).into_iter().any(|i| {
                    self.trace.samples[i].tid != own.unwrap_or(u64::MAX)
                        && *cache.entry(i).or_insert_with(|| {
                            self.trace
                                .symbols
                                .symbolize(&self.trace.samples[i].callchain)
                                .iter()
                                .any(|f| &*f.symbol == leaf)
                        })
                })
            })
            .count()
    }
}

fn verdict(state: CpuState, census: &Census) -> Verdict {
    if census.on_cpu_samples == 0 {
        return if census.noisy {
            Verdict::Unknown
        } else {
            Verdict::BlockedOffBox
        };
    }
    if census
        .threads
        .iter()
        .any(|t| t.own_thread && t.coverage_pct >= BLOCKER_COVERAGE_PCT)
    {
        return Verdict::OnCpuOwnCode;
    }
    if let Some(b) = census.threads.iter().find(|t| t.likely_blocker) {
        return Verdict::AnotherThreadHeldCpu { tid: b.tid };
    }
    match (census.noisy, state) {
        (true, CpuState::OnCpu) => Verdict::OnCpuOwnCode,
        (true, CpuState::OffCpu) => Verdict::Unknown,
        // Enough samples expected, yet the poll's thread ran for a small part of it and
        // no other thread filled the gap: it spent most of the poll waiting.
        (false, _) => Verdict::BlockedOffBox,
    }
}

/// Diagnoses the longest polls of one parsed trace file.
pub fn diagnose(trace: &ParsedTrace, opts: &DiagnoseOptions) -> Diagnosis {
    diagnose_in(trace, &workers::build(trace, trace.bounds.map_or(0, |b| b.1)), opts)
}

/// `diagnose` over the trace's timelines, already built.
pub(crate) fn diagnose_in(trace: &ParsedTrace, tl: &workers::Timelines, opts: &DiagnoseOptions) -> Diagnosis {
    let min_ts = trace.bounds.map(|b| b.0);
    let polls = all_polls(tl);
    let dist = distribution(&polls);
    let (threshold_ms, threshold_rule) = threshold(opts, dist.as_ref());
    let mut candidates: Vec<(u64, &Poll)> = polls
        .iter()
        .filter(|(_, p)| (p.end - p.start) as f64 / 1e6 >= threshold_ms)
        .filter(|(_, p)| opts.task.is_none_or(|t| t == p.task_id))
        .filter(|(_, p)| opts.poll_start.is_none_or(|s| s == p.start))
        .copied()
        .collect();
    candidates.sort_by_key(|(_, p)| Reverse(p.end - p.start));
    let (hz, hz_source) = sampling_hz(trace, opts.hz);
    let ctx = Ctx {
        trace,
        index: SampleIndex::new(trace),
        threads: WorkerThreads::new(trace),
        ms_per_sample: 1000.0 / hz,
    };
    let mut cache = HashMap::new();
    let targets = (0..opts.top.min(candidates.len()))
        .map(|k| {
            let (worker, p) = candidates[k];
            let mut t = target(&ctx, worker, p, min_ts.unwrap_or(0), dist.as_ref());
            if let Some(b) = t.census.threads.iter().find(|b| b.likely_blocker)
                && let Some(leaf) = b.top_stack.as_ref().and_then(|s| s.leaf_symbol.clone())
            {
                let others: Vec<(u64, &Poll)> = candidates
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != k)
                    .map(|(_, c)| *c)
                    .collect();
                let polls = ctx.corroborate(&leaf, &others, &mut cache);
                let leaf = b
                    .top_stack
                    .as_ref()
                    .and_then(|s| s.frames.first().cloned())
                    .unwrap_or(leaf);
                t.corroboration = Some(Corroboration {
                    leaf,
                    polls,
                    of: others.len(),
                });
            }
            t
        })
        .collect();
    Diagnosis {
        min_ts,
        hz,
        hz_source,
        distribution: dist,
        threshold_ms,
        threshold_rule,
        task_filter: opts.task,
        candidates: candidates.len(),
        targets,
    }
}

fn target(ctx: &Ctx<'_>, worker: u64, p: &Poll, min_ts: u64, dist: Option<&Distribution>) -> Target {
    let dur_ns = p.end - p.start;
    let state = if p.cpu_samples().is_empty() {
        CpuState::OffCpu
    } else {
        CpuState::OnCpu
    };
    let shown = if state == CpuState::OnCpu {
        p.cpu_samples()
    } else {
        p.sched_samples()
    };
    let own_tid = ctx.own_tid(worker, p);
    let census = ctx.census(p, own_tid);
    Target {
        task_id: p.task_id,
        worker,
        start_ns: p.start,
        end_ns: p.end,
        dur_ns,
        p99_multiple: dist.filter(|d| d.p99_ns > 0).map(|d| dur_ns as f64 / d.p99_ns as f64),
        start_rel_ms: (p.start as f64 - min_ts as f64) / 1e6,
        end_rel_ms: (p.end as f64 - min_ts as f64) / 1e6,
        spawn_loc: ctx.trace.spawn_loc(p.spawn_loc).map(|l| strip_registry(l).to_string()),
        own_tid,
        state,
        on_cpu_samples: p.cpu_samples().len(),
        sched_samples: p.sched_samples().len(),
        stacks: top_stacks(ctx.trace, shown, TOP_STACKS),
        verdict: verdict(state, &census),
        census,
        corroboration: None,
    }
}

// ── Text ──

fn ms(ns: u64, digits: usize) -> String {
    to_fixed(ns as f64 / 1e6, digits)
}

fn write_stack(out: &mut String, s: &StackSummary, indent: &str) {
    let _ = writeln!(out, "{indent}{}× {}", s.count, s.frames.join(" < "));
    if let Some(b) = &s.blocker {
        let _ = writeln!(out, "{indent}    blocked by {b} (kernel)");
    }
    if let Some(c) = &s.syscall {
        let _ = writeln!(out, "{indent}    syscall    {c}");
    }
    if let Some(t) = &s.trigger {
        let _ = writeln!(out, "{indent}    called from {t}");
    }
}

/// The plain-text diagnosis.
pub fn render(d: &Diagnosis) -> String {
    let mut out = String::new();
    let Some(dist) = &d.distribution else {
        out.push_str("No polls in this trace.\n");
        return out;
    };
    let us = |ns: u64| to_fixed(ns as f64 / 1e3, 0);
    let _ = writeln!(
        out,
        "Poll durations: p50={}µs p99={}µs max={}ms ({} polls)",
        us(dist.p50_ns),
        us(dist.p99_ns),
        ms(dist.max_ns, 2),
        dist.polls
    );
    let rule = match d.threshold_rule {
        ThresholdRule::MinMs => "--min-ms".to_string(),
        ThresholdRule::P99Multiple => "multiple of p99".to_string(),
        ThresholdRule::Floor => "floor".to_string(),
    };
    let task = d.task_filter.map_or(String::new(), |t| format!(", task {t}"));
    let _ = writeln!(
        out,
        "Threshold: {} ms ({rule}{task}): {} candidate poll(s)",
        to_fixed(d.threshold_ms, 2),
        d.candidates
    );
    let hz_from = match d.hz_source {
        HzSource::Option => "--hz",
        HzSource::TraceMetadata => "trace metadata",
        HzSource::Default => "default",
    };
    let _ = writeln!(out, "CPU profile rate: {} Hz ({hz_from})", to_fixed(d.hz, 0));
    if d.targets.is_empty() {
        out.push_str("\nNo poll reaches the threshold.\n");
    }
    for t in &d.targets {
        render_target(&mut out, t);
    }
    out
}

fn render_target(out: &mut String, t: &Target) {
    let mult = t.p99_multiple.map_or("?".to_string(), |m| to_fixed(m, 0));
    let _ = writeln!(
        out,
        "\n▸ Task {} on worker {}: {} ({mult}× p99), window +{} … +{} ms",
        t.task_id,
        t.worker,
        fmt_dur(t.dur_ns as f64),
        to_fixed(t.start_rel_ms, 2),
        to_fixed(t.end_rel_ms, 2)
    );
    let _ = writeln!(out, "  spawn: {}", t.spawn_loc.as_deref().unwrap_or("(unknown)"));
    if let Some(tid) = t.own_tid {
        let _ = writeln!(out, "  worker thread: tid {tid}");
    }
    match t.state {
        CpuState::OnCpu => {
            let _ = writeln!(
                out,
                "  ON-CPU: {} on-CPU sample(s) of the worker inside the poll; top stacks:",
                t.on_cpu_samples
            );
        }
        CpuState::OffCpu if t.sched_samples > 0 => {
            let _ = writeln!(
                out,
                "  OFF-CPU: no on-CPU sample of the worker; {} scheduler sample(s), top stacks:",
                t.sched_samples
            );
        }
        CpuState::OffCpu => {
            let _ = writeln!(
                out,
                "  OFF-CPU: no on-CPU and no scheduler sample of the worker inside the poll"
            );
        }
    }
    for s in &t.stacks {
        write_stack(out, s, "    ");
    }
    render_census(out, t);
    let _ = writeln!(out, "  Verdict: {}", verdict_text(t));
    if let Some(c) = &t.corroboration {
        let _ = writeln!(
            out,
            "  Corroboration: `{}` on-CPU during {} of {} other candidate poll(s)",
            c.leaf, c.polls, c.of
        );
    }
}

fn render_census(out: &mut String, t: &Target) {
    let c = &t.census;
    let _ = writeln!(
        out,
        "  Threads on-CPU during the poll ({} ms per sample, {} expected per always-running thread):",
        to_fixed(c.ms_per_sample, 2),
        to_fixed(c.expected_samples, 1)
    );
    if c.noisy {
        let _ = writeln!(
            out,
            "    (noisy: fewer than 3 samples expected, absence or coverage proves little)"
        );
    }
    if c.threads.is_empty() {
        let _ = writeln!(out, "    (no on-CPU sample from any thread)");
    }
    for th in &c.threads {
        let who = match (th.own_thread, th.worker) {
            (true, _) => " (this poll's thread)".to_string(),
            (false, Some(w)) => format!(" (worker {w})"),
            (false, None) => String::new(),
        };
        let flag = if th.likely_blocker { "  ← likely blocker" } else { "" };
        let _ = writeln!(
            out,
            "    tid {}{who}: {} sample(s), ~{} ms on-CPU, {}% of the poll{flag}",
            th.tid,
            th.samples,
            to_fixed(th.est_on_cpu_ms, 1),
            to_fixed(th.coverage_pct, 0)
        );
        if let Some(s) = &th.top_stack {
            let _ = writeln!(out, "      {}× {}", s.count, s.frames.join(" < "));
        }
    }
    if c.thread_count > c.threads.len() {
        let _ = writeln!(out, "    … {} more thread(s)", c.thread_count - c.threads.len());
    }
}

fn verdict_text(t: &Target) -> String {
    let c = &t.census;
    let why = match t.verdict {
        Verdict::BlockedOffBox if c.on_cpu_samples == 0 => {
            "no thread of the process was on-CPU: the poll waited outside it (syscall, I/O, sleep, lock)".to_string()
        }
        Verdict::BlockedOffBox => "its thread was on-CPU for a small part of the poll and no other thread filled it: \
             it mostly waited (syscall, I/O, sleep, lock, or a CPU taken by another process)"
            .to_string(),
        Verdict::OnCpuOwnCode => "the poll's own thread was running".to_string(),
        Verdict::AnotherThreadHeldCpu { tid } => format!("tid {tid} ran for most of the poll while it was off-CPU"),
        Verdict::Unknown => "too few samples expected during the poll to tell".to_string(),
    };
    format!("{} — {why}", t.verdict.as_str())
}
