//! One file's timeline (`timeline::FileTimeline`, what the page draws),
//! built from its analysis: the workers' timelines, its spans, its series
//! and the process's counters. Here, not in `timeline/`: the analysis is
//! above the timeline's model, which knows nothing of it.

use super::process;
use super::workers::Timelines;
use crate::hashing::FastMap;
use crate::timeline::{Counter, CounterKind, FileTimeline, Indices, Lane, NO_LOC, Polls, Slices, SpanTrack};
use crate::trace::{ParsedTrace, SOURCE_OFF_CPU, Spans, StrId, named_runtimes};
use std::collections::BTreeMap;

/// Interns a trace's strings into the timeline's own table.
struct Names<'a> {
    trace: &'a ParsedTrace,
    ids: FastMap<StrId, u32>,
    list: Vec<String>,
}

impl Names<'_> {
    fn get(&mut self, id: Option<StrId>) -> u32 {
        let Some(id) = id else { return NO_LOC };
        *self.ids.entry(id).or_insert_with(|| {
            self.list.push(self.trace.strings.get(id).to_string());
            (self.list.len() - 1) as u32
        })
    }
}

/// One file's timeline, built from its analysis' timelines, spans and series.
pub fn file_timeline(
    file: &str,
    trace: &ParsedTrace,
    tl: &Timelines,
    spans: &Spans,
    global_queue: &[(u64, u64)],
    active_tasks: &[(u64, u64)],
) -> FileTimeline {
    let (start, end) = trace.bounds.unwrap_or((0, 0));
    let wall_start = trace.clock_anchors.first().map(|&(mono, wall)| {
        // In i128: a hostile anchor is any u64 away from the start.
        let at = i128::from(wall) + i128::from(start) - i128::from(mono);
        at.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
    });
    let mut names = Names {
        trace,
        ids: FastMap::default(),
        list: Vec::new(),
    };
    let mut task_ids: FastMap<u64, u32> = FastMap::default();
    let (mut tasks, mut task_loc) = (Vec::new(), Indices::default());
    // The runtime each worker belongs to.
    let runtimes: FastMap<u64, &str> = named_runtimes(&trace.metadata)
        .flat_map(|(name, ids)| ids.into_iter().map(move |w| (w, name)))
        .collect();
    let mut samples: Vec<(Vec<u64>, Vec<u64>)> = vec![Default::default(); tl.workers.len()];
    let workers: Vec<u64> = tl.workers.keys().copied().collect();
    for s in &trace.samples {
        if let Ok(i) = workers.binary_search(&s.worker) {
            let (on, off) = &mut samples[i];
            if s.source == SOURCE_OFF_CPU { off } else { on }.push(s.ts);
        }
    }
    let lanes: Vec<Lane> = tl
        .workers
        .iter()
        .zip(samples)
        .map(|((&w, wt), (mut on_cpu, mut off_cpu))| {
            let mut polls = Polls::default();
            for p in &wt.polls {
                let task = *task_ids.entry(p.task_id).or_insert_with(|| {
                    tasks.push(p.task_id);
                    task_loc.push(names.get(p.spawn_loc));
                    (tasks.len() - 1) as u32
                });
                polls.push(p.start, p.end.saturating_sub(p.start), task);
            }
            let mut parks = Slices::default();
            wt.parks
                .iter()
                .for_each(|p| parks.push(p.start, p.end.saturating_sub(p.start)));
            on_cpu.sort_unstable();
            off_cpu.sort_unstable();
            Lane {
                worker: w,
                runtime: runtimes.get(&w).map(|name| name.to_string()),
                polls,
                parks,
                on_cpu: on_cpu.into_iter().collect(),
                off_cpu: off_cpu.into_iter().collect(),
            }
        })
        .collect();
    let mut counters = vec![
        Counter::new(CounterKind::GlobalQueue, global_queue.iter().copied()),
        Counter::new(CounterKind::ActiveTasks, active_tasks.iter().copied()),
    ];
    for (&w, wt) in &tl.workers {
        let mut points: Vec<(u64, u64)> = wt.parks.iter().filter_map(|p| Some((p.end, p.sched_wait?))).collect();
        points.sort_by_key(|p| p.0);
        counters.push(Counter::new(CounterKind::KernelWait { worker: w }, points));
    }
    let mut allocated: Vec<(u64, u64)> = trace.allocs.iter().map(|a| (a.ts, a.size)).collect();
    allocated.sort_by_key(|p| p.0);
    counters.push(Counter::new(CounterKind::Allocated, allocated));
    let available = process::available_parallelism(trace).unwrap_or(0);
    let cpu = process::cpu_usage(trace).into_iter().map(|(t, _, m)| (t, m));
    counters.push(Counter::new(CounterKind::ProcessCpu { available }, cpu));
    let mut queues: BTreeMap<u64, Vec<(u64, u64)>> = BTreeMap::new();
    for q in process::accept_samples(trace) {
        queues.entry(q.backlog).or_default().push((q.ts, q.pending));
    }
    for (backlog, points) in queues {
        counters.push(Counter::new(CounterKind::AcceptQueue { backlog }, points));
    }
    counters.retain(|c| !c.is_empty());
    let spans: Vec<(u64, u64, u32)> = spans
        .spans
        .iter()
        .map(|s| (s.start, s.end, names.get(Some(s.name))))
        .collect();
    let track = SpanTrack::build(&spans);
    FileTimeline {
        file: file.to_string(),
        start,
        end: end.max(start),
        wall_start,
        strings: names.list,
        tasks: tasks.into_iter().collect(),
        task_loc,
        lanes,
        counters,
        spans: track,
    }
}
