//! One trace file → its `Partial`: the per-file half of `accumulateTrace`.

use super::memory::MemoryPartial;
use super::red_flags::{BusyPoll, FlagCounts, MANY_SPANS};
use super::stacks::{FrameId, FrameTable, Group, Symbolizer, group_chains};
use super::{delays, series, workers};
use crate::hashing::{FastIndexMap, FastMap};
use crate::hdr::Histogram;
use crate::trace::{self, ParsedTrace, SOURCE_OFF_CPU, SOURCE_ON_CPU, StrId, SymbolTable, WorkerEventKind};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

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
}

/// Inputs of the setup diagnostic.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SetupPartial {
    pub symbols: u64,
    pub symbols_with_location: u64,
    pub wake_events: u64,
    pub poll_starts: u64,
    pub unparks: u64,
    pub on_cpu_chain_frames: u64,
    pub on_cpu_addresses: BTreeSet<u64>,
    pub tokio_unstable_false: bool,
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
    pub task_spawn_locs: FastIndexMap<u64, Option<String>>,
    pub task_spawn_times: FastIndexMap<u64, u64>,
    pub task_terminate_times: FastIndexMap<u64, u64>,
    /// The frames of every stack below.
    pub frames: FrameTable,
    pub cpu_groups: Vec<Group>,
    pub in_poll_groups: Vec<Group>,
    pub in_poll: u64,
    pub idle: u64,
    pub in_poll_by_loc: IndexMap<String, u64>,
    pub span_stats: IndexMap<String, Histogram>,
    pub memory: MemoryPartial,
    pub setup: SetupPartial,
    pub metadata: IndexMap<String, String>,
    pub clock_anchor: Option<(u64, i64)>,
    pub incomplete: bool,
    pub flags: FlagCounts,
}

fn stacks_of(trace: &ParsedTrace, idx: &[usize], symbolizer: &mut Symbolizer<'_>) -> Vec<Vec<FrameId>> {
    idx.iter()
        .map(|&i| symbolizer.stack(&trace.samples[i].callchain))
        .collect()
}

impl Partial {
    /// Consumes the trace: each part is dropped once its analysis is done, so
    /// the decoded events and the results never all sit in memory together.
    pub fn from_trace(file: &str, mut trace: ParsedTrace) -> Partial {
        let ids = workers::worker_ids(&trace);
        let max_ts = trace.bounds.map_or(0, |b| b.1);
        let mut frames = FrameTable::default();
        let mut symbolizer = Symbolizer::new(&trace.symbols, &mut frames);
        let memory = MemoryPartial::from_trace(&trace, &mut symbolizer);
        let setup = setup(&trace);
        let tl = workers::build(&trace, max_ts);
        drop(std::mem::take(&mut trace.workers));
        let spans = trace::build_spans(&trace.span_events, &trace.strings);
        drop(std::mem::take(&mut trace.span_events));
        let loc = |id: Option<StrId>| id.map(|i| trace.strings.get(i).to_string());
        let mut p = Partial {
            file: file.to_string(),
            runtime_bounds: trace.runtime_bounds,
            bounds: trace.bounds,
            worker_ids: ids,
            event_count: trace.runtime_events,
            cpu_sample_count: trace.samples.len() as u64,
            on_cpu: trace.samples.iter().filter(|s| s.source == SOURCE_ON_CPU).count() as u64,
            off_cpu: trace.samples.iter().filter(|s| s.source == SOURCE_OFF_CPU).count() as u64,
            task_spawn_count: trace.task_spawn_times.len() as u64,
            task_alive_at_end: trace.task_spawn_times.len() as i64 - trace.task_terminate_times.len() as i64,
            max_local_queue: tl.max_local_queue,
            task_spawn_locs: trace.task_spawn_locs.iter().map(|(&k, &v)| (k, loc(v))).collect(),
            active_tasks: series::active_tasks(&trace),
            task_spawn_times: std::mem::take(&mut trace.task_spawn_times),
            task_terminate_times: std::mem::take(&mut trace.task_terminate_times),
            metadata: std::mem::take(&mut trace.metadata),
            clock_anchor: trace.clock_anchors.first().copied(),
            incomplete: trace.incomplete,
            memory,
            setup,
            ..Partial::default()
        };
        // Keyed by id while counting; names (and their first-seen order) at the end.
        let mut poll_durations: FastIndexMap<Option<StrId>, Histogram> = FastIndexMap::default();
        for (&w, wt) in &tl.workers {
            let ws = p.worker_stats.entry(w).or_default();
            let contention = p.flags.contention.entry(w).or_default();
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
                poll_durations.entry(poll.spawn_loc).or_default().record(dur.max(1));
                ws.poll_ns += dur;
                p.flags.polls_over_10ms += u64::from(dur > 10_000_000);
                p.flags.polls_over_50ms += u64::from(dur > 50_000_000);
                if dur > 1_000_000 {
                    p.long_poll_count += 1;
                    p.long_polls.push(LongPollRec {
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
        for (id, h) in poll_durations {
            let key = loc(id).unwrap_or_else(|| "(unknown)".into());
            p.poll_durations.entry(key).or_default().merge(&h);
        }
        keep_worst(&mut p.long_polls, |l| l.dur);
        // Stacks are symbolized only for the polls that survive the cut.
        symbolize_long_polls(&mut p.long_polls, &tl, &trace, &mut symbolizer);
        for (_, q) in series::global_queue(&trace) {
            p.queue_max = p.queue_max.max(q);
            p.queue_sum += q;
            p.queue_count += 1;
            p.flags.queue_points_over_100 += u64::from(q > 100);
        }
        let mut high = Vec::new();
        delays::for_each(&tl, &trace.wakes, |d| {
            p.delay_total += 1;
            p.delay_hist
                .get_or_insert_with(Histogram::default)
                .record(d.delay.max(1));
            p.flags.delays_over_5ms += u64::from(d.delay > 5_000_000);
            if d.delay > 1_000_000 {
                high.push(d);
            }
        });
        // The reference orders all delays by wake time before taking the worst.
        p.delay_high = high.len() as u64;
        high.sort_by_key(|d| d.wake_time);
        keep_worst(&mut high, |d| d.delay);
        p.delay_worst = high
            .into_iter()
            .map(|d| DelayRec {
                wake_time: d.wake_time,
                delay: d.delay,
                task_id: d.task_id,
                worker: d.worker,
                spawn_loc: loc(d.spawn_loc),
            })
            .collect();
        let chains = |source: u64| {
            trace
                .samples
                .iter()
                .filter(move |s| s.source == source)
                .map(|s| &s.callchain[..])
        };
        p.cpu_groups = group_chains(chains(SOURCE_ON_CPU), &mut symbolizer);
        let mut in_poll_chains = Vec::new();
        for (s, at) in trace.samples.iter().zip(&tl.sample_in_poll) {
            if s.source != SOURCE_OFF_CPU {
                continue;
            }
            match at {
                Some(spawn) => {
                    p.in_poll += 1;
                    in_poll_chains.push(&s.callchain[..]);
                    let key = loc(*spawn).unwrap_or_else(|| "(unknown spawn location)".into());
                    *p.in_poll_by_loc.entry(key).or_default() += 1;
                }
                None => p.idle += 1,
            }
        }
        p.in_poll_groups = group_chains(in_poll_chains.into_iter(), &mut symbolizer);
        p.in_poll_by_loc.sort_by(|_, a, _, b| b.cmp(a));
        p.flags.busy_polls = busy_polls(&spans, &tl);
        p.flags.unmatched_spans = spans.unmatched.into_iter().collect();
        let mut span_stats: FastIndexMap<StrId, Histogram> = FastIndexMap::default();
        for span in &spans.spans {
            span_stats
                .entry(span.name)
                .or_default()
                .record((span.end - span.start).max(1));
        }
        p.span_stats = span_stats
            .into_iter()
            .map(|(name, h)| (trace.strings.get(name).to_string(), h))
            .collect();
        drop(symbolizer);
        p.frames = frames;
        p
    }
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

fn setup(trace: &ParsedTrace) -> SetupPartial {
    let symbols: &SymbolTable = &trace.symbols;
    let mut s = SetupPartial {
        symbols: symbols.len() as u64,
        symbols_with_location: symbols.with_location() as u64,
        wake_events: trace.wakes.len() as u64,
        tokio_unstable_false: trace.metadata.get("tokio.unstable").is_some_and(|v| v == "false"),
        ..SetupPartial::default()
    };
    for e in trace.workers.values().flatten() {
        match e.kind {
            WorkerEventKind::PollStart { .. } => s.poll_starts += 1,
            WorkerEventKind::Unpark { .. } => s.unparks += 1,
            _ => {}
        }
    }
    for sample in trace.samples.iter().filter(|x| x.source == SOURCE_ON_CPU) {
        s.on_cpu_chain_frames += sample.callchain.len() as u64;
        s.on_cpu_addresses.extend(sample.callchain.iter().copied());
    }
    s
}

/// Polls that ran more than `MANY_SPANS` spans of their own task.
/// One task's polls (start, end) on each worker it ran on, each list in order.
type TaskPolls = Vec<(u64, Vec<(u64, u64)>)>;

fn busy_polls(spans: &trace::Spans, tl: &workers::Timelines) -> Vec<BusyPoll> {
    let mut polls_by_task: FastMap<u64, TaskPolls> = FastMap::default();
    for (&w, wt) in &tl.workers {
        for poll in wt.polls.iter().filter(|p| p.task_id != 0) {
            let lists = polls_by_task.entry(poll.task_id).or_default();
            if lists.last().is_none_or(|l| l.0 != w) {
                lists.push((w, Vec::new()));
            }
            lists.last_mut().expect("just pushed").1.push((poll.start, poll.end));
        }
    }
    // The task's last poll starting at or before `ts`, over all workers.
    let poll_at = |lists: &TaskPolls, ts: u64| {
        lists
            .iter()
            .filter_map(|(w, polls)| {
                let i = polls.partition_point(|p| p.0 <= ts).checked_sub(1)?;
                Some((polls[i].0, polls[i].1, *w))
            })
            .max_by_key(|p| p.0)
    };
    let mut counts: FastMap<(u64, u64, u64), u64> = FastMap::default();
    for span in &spans.spans {
        let Some((task, lists)) = span
            .task_id
            .and_then(|t| polls_by_task.get(&t.get()).map(|l| (t.get(), l)))
        else {
            continue;
        };
        let mut seen = None;
        for seg in spans.segments(span) {
            let Some((start, end, w)) = poll_at(lists, seg.0) else {
                continue;
            };
            if seg.1 <= end && seen != Some(start) {
                seen = Some(start);
                *counts.entry((task, start, w)).or_default() += 1;
            }
        }
    }
    let mut out: Vec<BusyPoll> = counts
        .into_iter()
        .filter(|&(_, n)| n > MANY_SPANS)
        .filter_map(|((task_id, start, worker), spans)| {
            let poll = tl.workers[&worker]
                .polls
                .iter()
                .find(|p| p.start == start && p.task_id == task_id)?;
            Some(BusyPoll {
                dur: poll.end - poll.start,
                worker,
                task_id,
                spans,
            })
        })
        .collect();
    // Total over what is shown, so hash-map order never leaks into the output.
    out.sort_by(|a, b| (b.spans, a.task_id, a.worker, b.dur).cmp(&(a.spans, b.task_id, b.worker, a.dur)));
    out
}
