//! One trace file → its `Partial`: the per-file half of `accumulateTrace`.

use super::flag_counts::{BusyPoll, Contention, FlagCounts, MANY_SPANS};
use super::frame_table::{FrameId, FrameList, FrameTable};
use super::memory::MemoryPartial;
use super::process::{FirstPolls, ProcessPartial};
use super::setup::SetupPartial;
use super::spawn_locs::{Loc, SpawnLocs};
use super::stacks::{Group, Symbolizer, group_chains, group_chains_at};
use super::task_ids::TaskIds;
use super::{delays, series, workers};
use crate::hashing::{FastIndexMap, FastMap};
use crate::hdr::{Histogram, Tally};
use crate::parallel::join;
use crate::report::Moment;
use crate::requests::build::{self as detail, Dumps, SpanHalf, StackHalf};
use crate::requests::detail::FileDetail;
use crate::timeline::FileTimeline;
use crate::trace::{self, ParsedTrace, SOURCE_OFF_CPU, SOURCE_ON_CPU, StrId};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Long polls and worst delays kept per file and after each merge.
pub const KEEP_WORST: usize = 100;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct WorkerStats {
    pub active_ns: u64,
    pub park_ns: u64,
    pub ratio_sum: f64,
    pub active_count: u64,
    pub poll_count: u64,
    pub park_count: u64,
    pub sched_waits: Vec<u64>,
    /// Time inside polls: the busy time of a worker that never parks.
    pub poll_ns: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LongPollRec {
    pub dur: u64,
    pub worker: u64,
    pub start: u64,
    pub task_id: u64,
    pub spawn_loc: Option<String>,
    pub file: String,
    pub sched_samples: Vec<Vec<FrameId>>,
    pub cpu_samples: Vec<Vec<FrameId>>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DelayRec {
    pub wake_time: u64,
    pub delay: u64,
    pub task_id: u64,
    pub worker: u64,
    pub spawn_loc: Option<String>,
    pub file: String,
}

impl DelayRec {
    /// The poll that waited: it starts when the delay ends.
    pub fn moment(&self) -> Moment {
        Moment {
            file: self.file.clone(),
            worker: Some(self.worker),
            start_ns: self.wake_time + self.delay,
            dur_ns: 0,
        }
    }
}

/// What one file contributes to a report: bounded in size (histograms, top-N
/// lists, stack groups, task maps), never the raw events.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Partial {
    pub file: String,
    pub runtime_bounds: Option<(u64, u64)>,
    pub bounds: Option<(u64, u64)>,
    pub worker_ids: Vec<u64>,
    pub event_count: u64,
    pub cpu_sample_count: u64,
    pub on_cpu: u64,
    pub off_cpu: u64,
    pub task_spawn_count: u64,
    pub task_alive_at_end: i64,
    pub max_local_queue: u64,
    pub worker_stats: BTreeMap<u64, WorkerStats>,
    pub poll_durations: IndexMap<String, Histogram>,
    pub long_polls: Vec<LongPollRec>,
    pub long_poll_count: u64,
    pub queue_max: u64,
    pub queue_sum: u64,
    pub queue_count: u64,
    pub delay_total: u64,
    pub delay_high: u64,
    pub delay_worst: Vec<DelayRec>,
    pub delay_hist: Option<Histogram>,
    pub active_tasks: Vec<(u64, u64)>,
    #[serde(with = "super::spawn_locs")]
    pub task_spawn_locs: SpawnLocs,
    /// Tasks spawned in this file and not terminated in it, in spawn order:
    /// the fold's candidates for the tasks alive at the end. A task spawned
    /// and terminated in one file is not alive whatever the others say.
    pub tasks_left_alive: Vec<u64>,
    /// Every task terminated in this file.
    pub tasks_terminated: TaskIds,
    /// The frames of every stack below.
    pub frames: FrameList,
    pub cpu_groups: Vec<Group>,
    pub in_poll_groups: Vec<Group>,
    /// Off-CPU stacks of parked workers.
    #[serde(default)]
    pub idle_groups: Vec<Group>,
    pub in_poll: u64,
    pub idle: u64,
    pub in_poll_by_loc: IndexMap<String, u64>,
    pub span_stats: IndexMap<String, Histogram>,
    /// Each span name's slowest instance: (duration, start).
    pub span_slowest: IndexMap<String, (u64, u64)>,
    pub memory: MemoryPartial,
    pub setup: SetupPartial,
    pub metadata: IndexMap<String, String>,
    pub clock_anchor: Option<(u64, i64)>,
    pub incomplete: bool,
    pub flags: FlagCounts,
    /// Task dumps' stacks, each weighted by the idle ns that followed it:
    /// where tasks waited.
    #[serde(default)]
    pub wait_groups: Vec<Group>,
    /// Task dumps, and the idle ns after them in all.
    #[serde(default)]
    pub task_dumps: u64,
    #[serde(default)]
    pub task_dump_idle_ns: u64,
    /// Every span, sample, dump and event of the file, when asked for
    /// (`Options::requests`): what the span explorer reads.
    #[serde(default)]
    pub detail: Option<Box<FileDetail>>,
    /// What the file left out for d9lens's limits, in words.
    #[serde(default)]
    pub limits: Vec<String>,
    /// Its process's busiest CPU and fullest accept queue, and tasks spawned around dial9.
    #[serde(default)]
    pub process: ProcessPartial,
}

/// What `Partial::analyze` builds beside the partial.
#[derive(Debug, Clone, Copy, Default)]
pub struct Build {
    /// The file's timeline (the page draws it).
    pub timeline: bool,
    /// The file's request detail (`Partial::detail`).
    pub detail: bool,
}

fn stacks_of(trace: &ParsedTrace, idx: &[usize], symbolizer: &mut Symbolizer<'_>) -> Vec<Vec<FrameId>> {
    idx.iter()
        .map(|&i| symbolizer.stack(&trace.samples[i].callchain))
        .collect()
}

impl Partial {
    /// Checks that every index the partial holds points into what it carries:
    /// each stack's frames, each memory sample's call site. A fold indexes
    /// by them, so a partial read off the wire (a Lambda answer, a stored
    /// result) is checked before it is folded.
    pub fn check_refs(&self) -> Result<(), String> {
        let groups = [
            &self.cpu_groups,
            &self.in_poll_groups,
            &self.idle_groups,
            &self.wait_groups,
        ];
        let stacks = groups.into_iter().flatten().map(|g| &g.stack[..]);
        let samples = self
            .long_polls
            .iter()
            .flat_map(|lp| lp.sched_samples.iter().chain(&lp.cpu_samples));
        let sites = self.memory.sites.iter().map(|s| &s.stack[..]);
        if !stacks
            .chain(samples.map(|s| &s[..]))
            .chain(sites)
            .all(|s| self.frames.holds(s))
        {
            return Err("a stack names a frame the partial does not carry".into());
        }
        let site_count = self.memory.sites.len();
        if self.memory.samples.iter().any(|s| s.site as usize >= site_count) {
            return Err("an allocation names a call site the partial does not carry".into());
        }
        if let Some(d) = &self.detail {
            d.check()?;
            if !d.stacks_in(&self.frames) {
                return Err("a stack of the request detail names a frame the partial does not carry".into());
            }
        }
        Ok(())
    }

    /// Consumes the trace: each part is dropped once its analysis is done, so
    /// the decoded events and the results never all sit in memory together.
    /// Independent parts run side by side (`parallel::join`).
    pub fn from_trace(file: &str, trace: ParsedTrace) -> Partial {
        Self::analyze(file, trace, Build::default()).0
    }

    /// `from_trace`, and the file's timeline for the page to draw.
    pub fn with_timeline(file: &str, trace: ParsedTrace) -> (Partial, FileTimeline) {
        let build = Build {
            timeline: true,
            detail: false,
        };
        let (p, t) = Self::analyze(file, trace, build);
        (p, t.expect("asked for"))
    }

    /// The partial, and what `build` asks for beside it.
    pub fn analyze(file: &str, mut trace: ParsedTrace, build: Build) -> (Partial, Option<FileTimeline>) {
        let max_ts = trace.bounds.map_or(0, |b| b.1);
        let mut frames = FrameTable::default();
        let loc = |id: Option<StrId>| id.map(|i| trace.strings.get(i).to_string());
        // What needs the decoded worker and span events, in two about equal
        // halves: the workers' timelines, polls, delays, the setup counts and
        // the polls by task (for the spans to land in, next) ‖ the spans.
        let ((setup, tl, mut polls, delays, by_task, task_polls, first_polls), spans) = {
            let trace = &trace;
            join(
                || {
                    let tl = workers::build(trace, max_ts);
                    let polls = PollStats::new(&tl, file, &loc);
                    let delays = DelayStats::new(&tl, file, &trace.wakes, &loc);
                    let by_task = polls_by_task(&tl);
                    let first_polls =
                        FirstPolls::of(file, trace, |t| by_task.get(&t).and_then(|p| p.0.first()).map(|p| p.0));
                    // Spans' time splits and dumps' idle times read each task's polls.
                    let task_polls = build.detail.then(|| detail::TaskPolls::new(trace, &tl));
                    (
                        SetupPartial::of(trace, &tl),
                        tl,
                        polls,
                        delays,
                        by_task,
                        task_polls,
                        first_polls,
                    )
                },
                || trace::build_spans(&trace.span_events, &trace.strings),
            )
        };
        // Freed by the second branch below, as soon as it is done with them
        // (meanwhile the other one works).
        let (workers, span_events, symbols) = (
            std::mem::take(&mut trace.workers),
            std::mem::take(&mut trace.span_events),
            std::mem::take(&mut trace.symbols),
        );
        // What the spans give ‖ every stack: allocations, CPU samples, the
        // long polls (only those that survived the cut) and off-CPU samples.
        let (
            (busy_polls, (span_stats, span_slowest), span_half),
            (memory, cpu_groups, off_cpu, wait_groups, stack_half),
        ) = {
            let trace = &trace;
            let (frames, long_polls) = (&mut frames, &mut polls.long_polls);
            let (spans, tl, task_polls) = (&spans, &tl, task_polls.as_ref());
            join(
                || {
                    let span_half = task_polls.map(|polls| SpanHalf::new(file, trace, spans, polls));
                    (
                        busy_polls(spans, tl, by_task),
                        span_stats(spans, &trace.strings),
                        span_half,
                    )
                },
                || {
                    drop(span_events);
                    let mut symbolizer = Symbolizer::new(&symbols, frames);
                    let memory = MemoryPartial::from_trace(trace, &workers, &mut symbolizer);
                    drop(workers);
                    let on_cpu = trace.samples.iter().filter(|s| s.source == SOURCE_ON_CPU);
                    let cpu_groups = group_chains(on_cpu.map(|s| &s.callchain[..]), &mut symbolizer);
                    symbolize_long_polls(long_polls, tl, trace, &mut symbolizer);
                    let off_cpu = OffCpuStats::new(file, trace, tl, &loc, &mut symbolizer);
                    let dumps = (!trace.app.dumps.is_empty()).then(|| Dumps::new(trace, tl, &mut symbolizer));
                    let wait_groups = dumps
                        .as_ref()
                        .map(|d| wait_groups(d, symbolizer.table()))
                        .unwrap_or_default();
                    let stack_half = build
                        .detail
                        .then(|| StackHalf::new(trace, tl, dumps.as_ref(), &mut symbolizer));
                    drop(symbolizer);
                    drop(symbols);
                    (memory, cpu_groups, off_cpu, wait_groups, stack_half)
                },
            )
        };
        let (active_tasks, global_queue) = (series::active_tasks(&trace), series::global_queue(&trace));
        let timeline = build
            .timeline
            .then(|| super::timeline::file_timeline(file, &trace, &tl, &spans, &global_queue, &active_tasks));
        let detail = span_half.zip(stack_half).map(|(s, k)| Box::new(s.join(k)));
        let limits = trace.app.left_out.messages();
        let process = ProcessPartial::of(file, &trace, first_polls);
        let mut p = Partial {
            file: file.to_string(),
            runtime_bounds: trace.runtime_bounds,
            bounds: trace.bounds,
            worker_ids: workers::worker_ids_of(&tl),
            event_count: trace.runtime_events,
            cpu_sample_count: trace.samples.len() as u64,
            on_cpu: trace.samples.iter().filter(|s| s.source == SOURCE_ON_CPU).count() as u64,
            off_cpu: trace.samples.iter().filter(|s| s.source == SOURCE_OFF_CPU).count() as u64,
            task_spawn_count: trace.task_spawn_times.len() as u64,
            task_alive_at_end: trace.task_spawn_times.len() as i64 - trace.task_terminate_times.len() as i64,
            max_local_queue: tl.max_local_queue,
            worker_stats: polls.worker_stats,
            poll_durations: polls.durations,
            long_polls: polls.long_polls,
            long_poll_count: polls.long_poll_count,
            delay_total: delays.total,
            delay_high: delays.high,
            delay_worst: delays.worst,
            delay_hist: delays.hist,
            task_spawn_locs: {
                // One shared string per location, however many tasks it spawned.
                let mut shared: FastMap<StrId, Loc> = FastMap::default();
                let mut share = |id: StrId| shared.entry(id).or_insert_with(|| trace.strings.get(id).into()).clone();
                trace
                    .task_spawn_locs
                    .iter()
                    .map(|(&k, &v)| (k, v.map(&mut share)))
                    .collect()
            },
            active_tasks,
            tasks_left_alive: trace
                .task_spawn_times
                .keys()
                .filter(|t| !trace.task_terminate_times.contains_key(*t))
                .copied()
                .collect(),
            tasks_terminated: trace.task_terminate_times.keys().copied().collect(),
            cpu_groups,
            in_poll_groups: off_cpu.groups,
            idle_groups: off_cpu.idle_groups,
            in_poll: off_cpu.in_poll,
            idle: off_cpu.idle,
            in_poll_by_loc: off_cpu.by_loc,
            span_stats,
            span_slowest,
            memory,
            setup,
            metadata: std::mem::take(&mut trace.metadata),
            clock_anchor: trace.clock_anchors.first().copied(),
            incomplete: trace.incomplete,
            task_dumps: trace.app.dumps.len() as u64,
            task_dump_idle_ns: wait_groups.iter().fold(0, |a, g| a.saturating_add(g.count)),
            wait_groups,
            detail,
            limits,
            process,
            ..Partial::default()
        };
        for (_, q) in global_queue {
            p.queue_max = p.queue_max.max(q);
            p.queue_sum += q;
            p.queue_count += 1;
            p.flags.queue_points_over_100 += u64::from(q > 100);
        }
        p.flags.contention = polls.contention;
        p.flags.polls_over_10ms = polls.over_10ms;
        p.flags.polls_over_50ms = polls.over_50ms;
        p.flags.delays_over_5ms = delays.over_5ms;
        p.flags.busy_polls = busy_polls;
        p.flags.unmatched_spans = spans.unmatched.into_iter().collect();
        p.frames = frames.into_list();
        (p, timeline)
    }
}

/// Per-worker activity, poll durations by spawn location and the long polls.
#[derive(Default)]
struct PollStats {
    worker_stats: BTreeMap<u64, WorkerStats>,
    contention: BTreeMap<u64, Contention>,
    durations: IndexMap<String, Histogram>,
    long_polls: Vec<LongPollRec>,
    long_poll_count: u64,
    over_10ms: u64,
    over_50ms: u64,
}

impl PollStats {
    fn new(tl: &workers::Timelines, file: &str, loc: &impl Fn(Option<StrId>) -> Option<String>) -> Self {
        let mut s = PollStats::default();
        // Keyed by id while counting; names (and their first-seen order) at the end.
        let mut durations: FastIndexMap<Option<StrId>, Tally> = FastIndexMap::default();
        for (&w, wt) in &tl.workers {
            let ws = s.worker_stats.entry(w).or_default();
            let contention = s.contention.entry(w).or_default();
            for a in &wt.actives {
                ws.active_ns += a.end - a.start;
                ws.ratio_sum += a.ratio;
                ws.active_count += 1;
                contention.periods += 1;
                if a.ratio < 0.5 && a.end - a.start > 1_000_000 {
                    contention.low += 1;
                    contention.low_ratio_sum += a.ratio;
                }
            }
            for pk in &wt.parks {
                ws.park_ns += pk.end.saturating_sub(pk.start);
                ws.park_count += 1;
                ws.sched_waits.extend(pk.sched_wait.filter(|&s| s > 0));
            }
            ws.poll_count += wt.polls.len() as u64;
            for poll in &wt.polls {
                let dur = poll.end - poll.start;
                durations.entry(poll.spawn_loc).or_default().record(dur.max(1));
                ws.poll_ns += dur;
                s.over_10ms += u64::from(dur > 10_000_000);
                s.over_50ms += u64::from(dur > 50_000_000);
                if dur > 1_000_000 {
                    s.long_poll_count += 1;
                    s.long_polls.push(LongPollRec {
                        dur,
                        worker: w,
                        start: poll.start,
                        task_id: poll.task_id,
                        spawn_loc: loc(poll.spawn_loc),
                        file: file.to_string(),
                        sched_samples: Vec::new(),
                        cpu_samples: Vec::new(),
                    });
                }
            }
        }
        let named = durations
            .into_iter()
            .map(|(id, t)| (loc(id).unwrap_or_else(|| "(unknown)".into()), t.into_histogram()));
        crate::hdr::merge_by_name(&mut s.durations, named);
        keep_worst(&mut s.long_polls, |l| l.dur);
        s
    }
}

/// Wake → poll delays: all in the histogram, the worst kept.
struct DelayStats {
    total: u64,
    high: u64,
    over_5ms: u64,
    hist: Option<Histogram>,
    worst: Vec<DelayRec>,
}

impl DelayStats {
    fn new(
        tl: &workers::Timelines,
        file: &str,
        wakes: &[trace::Wake],
        loc: &impl Fn(Option<StrId>) -> Option<String>,
    ) -> Self {
        let (mut total, mut over_5ms, mut hist) = (0, 0, None::<Tally>);
        let mut high = Vec::new();
        delays::for_each(tl, wakes, |d| {
            total += 1;
            hist.get_or_insert_with(Tally::default).record(d.delay);
            over_5ms += u64::from(d.delay > 5_000_000);
            if d.delay > 1_000_000 {
                high.push(d);
            }
        });
        let high_count = high.len() as u64;
        // The reference orders all delays by wake time before taking the worst.
        high.sort_by_key(|d| d.wake_time);
        keep_worst(&mut high, |d| d.delay);
        let worst = high
            .into_iter()
            .map(|d| DelayRec {
                wake_time: d.wake_time,
                delay: d.delay,
                task_id: d.task_id,
                worker: d.worker,
                spawn_loc: loc(d.spawn_loc),
                file: file.to_string(),
            })
            .collect();
        DelayStats {
            total,
            high: high_count,
            over_5ms,
            hist: hist.map(Tally::into_histogram),
            worst,
        }
    }
}

/// Off-CPU samples: inside a poll (blocking) or between polls (idle parking).
struct OffCpuStats {
    in_poll: u64,
    idle: u64,
    by_loc: IndexMap<String, u64>,
    groups: Vec<Group>,
    idle_groups: Vec<Group>,
}

impl OffCpuStats {
    fn new(
        file: &str,
        trace: &ParsedTrace,
        tl: &workers::Timelines,
        loc: &impl Fn(Option<StrId>) -> Option<String>,
        symbolizer: &mut Symbolizer<'_>,
    ) -> Self {
        let (mut in_poll, mut idle) = (0, 0);
        let mut by_loc: IndexMap<String, u64> = IndexMap::new();
        let (mut chains, mut idle_chains) = (Vec::new(), Vec::new());
        let off_cpu_ns = workers::off_cpu_ns(tl, &trace.samples);
        for (i, (s, at)) in trace.samples.iter().zip(&tl.sample_in_poll).enumerate() {
            if s.source != SOURCE_OFF_CPU {
                continue;
            }
            match at {
                Some(spawn) => {
                    in_poll += 1;
                    chains.push((&s.callchain[..], i, off_cpu_ns[i]));
                    let key = loc(*spawn).unwrap_or_else(|| "(unknown spawn location)".into());
                    *by_loc.entry(key).or_default() += 1;
                }
                None => {
                    idle += 1;
                    idle_chains.push(&s.callchain[..]);
                }
            }
        }
        by_loc.sort_by(|_, a, _, b| b.cmp(a));
        OffCpuStats {
            in_poll,
            idle,
            by_loc,
            groups: group_chains_at(chains.into_iter(), |i| poll_of(file, tl, &trace.samples[i]), symbolizer),
            idle_groups: group_chains(idle_chains.into_iter(), symbolizer),
        }
    }
}

/// The poll a sample was taken in (as `workers::build` attached it), as a moment.
fn poll_of(file: &str, tl: &workers::Timelines, s: &trace::CpuSample) -> Option<Moment> {
    let polls = &tl.workers.get(&s.worker)?.polls;
    let p = &polls[workers::poll_holding(polls, s.ts)?];
    Some(Moment {
        file: file.to_string(),
        worker: Some(s.worker),
        start_ns: p.start,
        dur_ns: p.end - p.start,
    })
}

/// Span durations by name, in order of first start, and each name's slowest
/// span (duration, start; the first of equals).
#[allow(clippy::type_complexity)]
fn span_stats(
    spans: &trace::Spans,
    strings: &trace::Strings,
) -> (IndexMap<String, Histogram>, IndexMap<String, (u64, u64)>) {
    let mut by_name: FastIndexMap<StrId, (Tally, (u64, u64))> = FastIndexMap::default();
    for span in &spans.spans {
        let dur = span.end - span.start;
        let (tally, slowest) = by_name
            .entry(span.name)
            .or_insert_with(|| (Tally::default(), (dur, span.start)));
        tally.record(dur);
        if dur > slowest.0 {
            *slowest = (dur, span.start);
        }
    }
    by_name
        .into_iter()
        .map(|(name, (t, slowest))| {
            let name = strings.get(name).to_string();
            ((name.clone(), t.into_histogram()), (name, slowest))
        })
        .unzip()
}

/// Dumps' stacks grouped, each weighted by the idle ns after it.
fn wait_groups(dumps: &Dumps, table: &FrameTable) -> Vec<Group> {
    let mut idle: Vec<Option<u64>> = vec![None; dumps.stacks.len()];
    for (d, idle_ns) in &dumps.rows {
        if let Some(sum) = idle.get_mut(d.chain as usize) {
            *sum = Some(sum.unwrap_or(0).saturating_add(*idle_ns));
        }
    }
    let mut groups = super::stacks::GroupIndex::default();
    let chains = dumps.stacks.iter().zip(idle);
    for (stack, count) in chains.filter_map(|(stack, count)| Some((stack, count?))) {
        let group = Group {
            count,
            stack: stack.clone(),
            at: None,
            blocked_ns: 0,
        };
        groups.add(table, group);
    }
    groups.into_groups()
}

/// Stable sort by the key, descending, keeping the worst `KEEP_WORST`.
pub fn keep_worst<T>(v: &mut Vec<T>, key: impl Fn(&T) -> u64) {
    v.sort_by_key(|x| std::cmp::Reverse(key(x)));
    v.truncate(KEEP_WORST);
}

fn symbolize_long_polls(
    polls: &mut [LongPollRec],
    tl: &workers::Timelines,
    trace: &ParsedTrace,
    symbolizer: &mut Symbolizer<'_>,
) {
    for lp in polls {
        let Some(polls) = tl.workers.get(&lp.worker).map(|w| &w.polls) else {
            continue;
        };
        let Some(poll) = polls.get(polls.partition_point(|p| p.start < lp.start)) else {
            continue;
        };
        lp.sched_samples = stacks_of(trace, poll.sched_samples(), symbolizer);
        lp.cpu_samples = stacks_of(trace, poll.cpu_samples(), symbolizer);
    }
}

/// The index of the last poll starting at or before `ts` (polls by start),
/// looked for near `hint` first.
fn last_starting_by(polls: &TaskPolls, hint: usize, ts: u64) -> Option<usize> {
    if polls.get(hint).is_none_or(|p| p.0 > ts) {
        return polls.partition_point(|p| p.0 <= ts).checked_sub(1);
    }
    let ahead = &polls[hint + 1..];
    let near = ahead.len().min(8);
    let n = match ahead[..near].iter().position(|p| p.0 > ts) {
        Some(n) => n,
        None => near + ahead[near..].partition_point(|p| p.0 <= ts),
    };
    Some(hint + n)
}

/// One task's polls on all workers, by start: (start, end, worker position
/// in the timelines, index in that worker's polls).
type TaskPolls = Vec<(u64, u64, u32, u32)>;

/// Each task's polls by start, with where its last lookup landed: spans come
/// by start, so the next is mostly near.
type PollsByTask = FastMap<u64, (TaskPolls, usize)>;

fn polls_by_task(tl: &workers::Timelines) -> PollsByTask {
    let mut polls_by_task: FastMap<u64, TaskPolls> = FastMap::default();
    for (w, wt) in tl.workers.values().enumerate() {
        for (i, poll) in wt.polls.iter().enumerate().filter(|(_, p)| p.task_id != 0) {
            let polls = polls_by_task.entry(poll.task_id).or_default();
            polls.push((poll.start, poll.end, w as u32, i as u32));
        }
    }
    // Stable, over one ordered run per worker: of the polls starting at the
    // same time, the later worker's comes last.
    polls_by_task
        .into_iter()
        .map(|(task, mut polls)| {
            polls.sort_by_key(|p| p.0);
            (task, (polls, 0))
        })
        .collect()
}

/// Polls that ran more than `MANY_SPANS` spans of their own task.
fn busy_polls(spans: &trace::Spans, tl: &workers::Timelines, mut polls_by_task: PollsByTask) -> Vec<BusyPoll> {
    let workers: Vec<(&u64, &workers::WorkerTimeline)> = tl.workers.iter().collect();
    // Spans counted per poll, by worker position and poll index.
    let mut counts: Vec<Vec<u32>> = workers.iter().map(|(_, wt)| vec![0; wt.polls.len()]).collect();
    for span in &spans.spans {
        let Some((polls, cursor)) = span.task_id.and_then(|t| polls_by_task.get_mut(&t.get())) else {
            continue;
        };
        let mut seen = None;
        for seg in spans.segments(span) {
            let Some(i) = last_starting_by(polls, *cursor, seg.0) else {
                continue;
            };
            *cursor = i;
            let (start, end, w, i) = polls[i];
            if seg.1 <= end && seen != Some(start) {
                seen = Some(start);
                counts[w as usize][i as usize] += 1;
            }
        }
    }
    let mut out: Vec<BusyPoll> = Vec::new();
    for (w, per_poll) in counts.iter().enumerate() {
        let (&worker, wt) = workers[w];
        for (i, &n) in per_poll.iter().enumerate().filter(|&(_, &n)| u64::from(n) > MANY_SPANS) {
            let poll = &wt.polls[i];
            out.push(BusyPoll {
                dur: poll.end - poll.start,
                worker,
                task_id: poll.task_id,
                spans: u64::from(n),
            });
        }
    }
    // Most spans first; ties in a fixed order.
    out.sort_by(|a, b| (b.spans, a.task_id, a.worker, b.dur).cmp(&(a.spans, b.task_id, b.worker, a.dur)));
    out
}

#[cfg(test)]
mod tests {
    use super::last_starting_by;

    #[test]
    fn the_lookup_from_a_hint_equals_a_binary_search() {
        // Starts with repeats and gaps, longer than the near window.
        let polls: Vec<(u64, u64, u32, u32)> = [1, 3, 3, 3, 5, 8, 8, 9, 12, 12, 12, 12, 12, 12, 12, 12, 12, 20, 21, 22]
            .iter()
            .enumerate()
            .map(|(i, &s)| (s, s + 1, 0, i as u32))
            .collect();
        for ts in 0..25 {
            let expected = polls.partition_point(|p| p.0 <= ts).checked_sub(1);
            for hint in 0..polls.len() + 2 {
                assert_eq!(last_starting_by(&polls, hint, ts), expected, "ts {ts}, hint {hint}");
            }
        }
    }
}
