//! Per-worker timelines (`buildWorkerSpans`): polls, parks and active
//! periods, then CPU samples attached to the poll they landed in.

use crate::trace::{CpuSample, ParsedTrace, RuntimeEvent, RuntimeKind, SOURCE_OFF_CPU};
use std::collections::BTreeMap;

#[derive(Debug, Clone)]
pub struct Poll {
    pub start: u64,
    pub end: u64,
    pub task_id: u64,
    pub spawn_loc: Option<u32>,
    pub scheduling_delay: Option<u64>,
    /// Indices into `ParsedTrace::samples`.
    pub sched_samples: Vec<usize>,
    pub cpu_samples: Vec<usize>,
}

#[derive(Debug, Clone, Copy)]
pub struct Park {
    pub start: u64,
    pub end: u64,
    pub sched_wait: Option<u64>,
}

#[derive(Debug, Clone, Copy)]
pub struct Active {
    pub start: u64,
    pub end: u64,
    pub ratio: f64,
}

#[derive(Debug, Clone, Default)]
pub struct WorkerTimeline {
    pub polls: Vec<Poll>,
    pub parks: Vec<Park>,
    pub actives: Vec<Active>,
}

#[derive(Debug, Clone, Copy)]
pub struct Wake {
    pub ts: u64,
}

#[derive(Debug, Default)]
pub struct Timelines {
    pub workers: BTreeMap<u64, WorkerTimeline>,
    /// Woken task → its wakes in time order.
    pub wakes_by_task: BTreeMap<u64, Vec<Wake>>,
    /// Max local queue depth, never below 1 (as the reference prints it).
    pub max_local_queue: u64,
    /// Per sample: in a poll (Some(spawn loc)), between polls (None) — off-worker samples are `None` too.
    pub sample_in_poll: Vec<Option<Option<u32>>>,
}

/// Worker ids: PollStart/PollEnd/Park/Unpark workers, ascending.
pub fn worker_ids(trace: &ParsedTrace) -> Vec<u64> {
    let mut ids: Vec<u64> = trace
        .events
        .iter()
        .filter(|e| !matches!(e.kind, RuntimeKind::QueueSample | RuntimeKind::Wake))
        .map(|e| e.worker)
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

pub fn build(trace: &ParsedTrace, ids: &[u64], max_ts: u64) -> Timelines {
    let mut per_worker: BTreeMap<u64, Vec<&RuntimeEvent>> = ids.iter().map(|&w| (w, Vec::new())).collect();
    let mut t = Timelines {
        max_local_queue: 1,
        ..Timelines::default()
    };
    for e in &trace.events {
        match e.kind {
            RuntimeKind::Wake => t.wakes_by_task.entry(e.woken_task).or_default().push(Wake { ts: e.ts }),
            RuntimeKind::QueueSample => {}
            _ => per_worker.entry(e.worker).or_default().push(e),
        }
    }
    for wakes in t.wakes_by_task.values_mut() {
        wakes.sort_by_key(|w| w.ts);
    }
    for (w, mut events) in per_worker {
        events.sort_by_key(|e| e.ts);
        let gaps: Vec<_> = trace.gaps.iter().filter(|g| g.worker == w).collect();
        let tl = walk_worker(&events, max_ts, &mut t.max_local_queue, |unpark, park| {
            gaps.iter().take_while(|g| g.start < park).any(|g| g.end > unpark)
        });
        t.workers.insert(w, tl);
    }
    t.sample_in_poll = attach_samples(&trace.samples, &mut t.workers);
    t
}

fn walk_worker(
    events: &[&RuntimeEvent],
    max_ts: u64,
    max_local_queue: &mut u64,
    crosses_gap: impl Fn(u64, u64) -> bool,
) -> WorkerTimeline {
    let mut tl = WorkerTimeline::default();
    let mut open_poll: Option<Poll> = None;
    let mut open_park: Option<u64> = None;
    let mut open_unpark: Option<(u64, u64)> = None;
    for e in events {
        if matches!(e.kind, RuntimeKind::PollStart | RuntimeKind::Park | RuntimeKind::Unpark) {
            *max_local_queue = (*max_local_queue).max(e.local_queue);
        }
        match e.kind {
            RuntimeKind::PollStart => {
                if let Some(mut p) = open_poll.take() {
                    p.end = e.ts;
                    tl.polls.push(p);
                }
                open_poll = Some(Poll {
                    start: e.ts,
                    end: e.ts,
                    task_id: e.task_id,
                    spawn_loc: e.spawn_loc,
                    scheduling_delay: e.scheduling_delay,
                    sched_samples: Vec::new(),
                    cpu_samples: Vec::new(),
                });
            }
            RuntimeKind::PollEnd => {
                if let Some(mut p) = open_poll.take() {
                    p.end = e.ts;
                    tl.polls.push(p);
                }
            }
            RuntimeKind::Park => {
                if let Some(mut p) = open_poll.take() {
                    p.end = e.ts;
                    tl.polls.push(p);
                }
                open_park = Some(e.ts);
                if let Some((start, cpu)) = open_unpark.take()
                    && !crosses_gap(start, e.ts)
                {
                    let wall = e.ts.saturating_sub(start);
                    let ratio = if wall == 0 {
                        1.0
                    } else {
                        ((e.cpu_time as f64 - cpu as f64) / wall as f64).min(1.0)
                    };
                    tl.actives.push(Active {
                        start,
                        end: e.ts,
                        ratio,
                    });
                }
            }
            RuntimeKind::Unpark => {
                open_poll = None;
                if let Some(start) = open_park.take() {
                    tl.parks.push(Park {
                        start,
                        end: e.ts,
                        sched_wait: e.sched_wait,
                    });
                }
                open_unpark = Some((e.ts, e.cpu_time));
            }
            RuntimeKind::QueueSample | RuntimeKind::Wake => {}
        }
    }
    if let Some(start) = open_park {
        tl.parks.push(Park {
            start,
            end: max_ts,
            sched_wait: None,
        });
    }
    tl
}

/// Attaches each sample to the last poll of its worker starting at or before
/// it, if the sample is inside that poll (both ends inclusive).
fn attach_samples(samples: &[CpuSample], workers: &mut BTreeMap<u64, WorkerTimeline>) -> Vec<Option<Option<u32>>> {
    samples
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let tl = workers.get_mut(&s.worker)?;
            let idx = tl.polls.partition_point(|p| p.start <= s.ts).checked_sub(1)?;
            let poll = &mut tl.polls[idx];
            if s.ts > poll.end {
                return None;
            }
            if s.source == SOURCE_OFF_CPU {
                poll.sched_samples.push(i);
            } else {
                poll.cpu_samples.push(i);
            }
            Some(poll.spawn_loc)
        })
        .collect()
}
