//! Per-worker timelines (`buildWorkerSpans`): polls, parks and active
//! periods, then CPU samples attached to the poll they landed in.

use crate::trace::{CpuSample, OptU64, ParsedTrace, SOURCE_OFF_CPU, StrId, WorkerEvent, WorkerEventKind};
use std::borrow::Cow;
use std::collections::BTreeMap;

#[derive(Debug, Clone)]
pub struct Poll {
    pub start: u64,
    pub end: u64,
    pub task_id: u64,
    pub spawn_loc: Option<StrId>,
    pub scheduling_delay: OptU64,
    /// Most polls see no sample: the lists live behind one pointer.
    samples: Option<Box<PollSamples>>,
}

/// Indices into `ParsedTrace::samples`, in file order.
#[derive(Debug, Clone, Default)]
struct PollSamples {
    sched: Vec<usize>,
    cpu: Vec<usize>,
}

impl Poll {
    /// Off-CPU (scheduler switch) samples taken inside this poll.
    pub fn sched_samples(&self) -> &[usize] {
        self.samples.as_ref().map_or(&[], |s| &s.sched)
    }

    /// On-CPU samples taken inside this poll.
    pub fn cpu_samples(&self) -> &[usize] {
        self.samples.as_ref().map_or(&[], |s| &s.cpu)
    }
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
    /// PollStart and Unpark events (the setup check counts them).
    pub poll_starts: u64,
    pub unparks: u64,
}

/// What one look over a worker's events tells before the walk.
struct Census {
    sorted: bool,
    poll_starts: u64,
    unparks: u64,
}

impl Census {
    fn of(events: &[WorkerEvent]) -> Census {
        let mut c = Census {
            sorted: true,
            poll_starts: 0,
            unparks: 0,
        };
        let mut last = 0;
        for e in events {
            c.sorted &= e.ts >= last;
            last = e.ts;
            match e.kind {
                WorkerEventKind::PollStart { .. } => c.poll_starts += 1,
                WorkerEventKind::Unpark { .. } => c.unparks += 1,
                _ => {}
            }
        }
        c
    }
}

#[derive(Debug, Default)]
pub struct Timelines {
    pub workers: BTreeMap<u64, WorkerTimeline>,
    /// Max local queue depth, never below 1 (as the reference prints it).
    pub max_local_queue: u64,
    /// Per sample: in a poll (Some(spawn loc)), between polls (None) — off-worker samples are `None` too.
    pub sample_in_poll: Vec<Option<Option<StrId>>>,
}

/// Worker ids: PollStart/PollEnd/Park/Unpark workers, ascending.
pub fn worker_ids(trace: &ParsedTrace) -> Vec<u64> {
    trace.workers.keys().copied().collect()
}

/// The same ids, from the timelines built of the trace.
pub fn worker_ids_of(tl: &Timelines) -> Vec<u64> {
    tl.workers.keys().copied().collect()
}

pub fn build(trace: &ParsedTrace, max_ts: u64) -> Timelines {
    let mut t = Timelines {
        max_local_queue: trace.max_local_queue.max(1),
        ..Timelines::default()
    };
    for (&w, events) in &trace.workers {
        let census = Census::of(events);
        // Stable by time; file order already is, except across thread hand-offs.
        let events: Cow<[WorkerEvent]> = if census.sorted {
            Cow::Borrowed(events)
        } else {
            let mut sorted = events.clone();
            sorted.sort_by_key(|e| e.ts);
            Cow::Owned(sorted)
        };
        let gaps: Vec<_> = trace.gaps.iter().filter(|g| g.worker == w).collect();
        let tl = walk_worker(&events, &census, max_ts, |unpark, park| {
            gaps.iter().take_while(|g| g.start < park).any(|g| g.end > unpark)
        });
        t.workers.insert(w, tl);
    }
    t.sample_in_poll = attach_samples(&trace.samples, &mut t.workers);
    t
}

fn walk_worker(
    events: &[WorkerEvent],
    census: &Census,
    max_ts: u64,
    crosses_gap: impl Fn(u64, u64) -> bool,
) -> WorkerTimeline {
    let mut tl = WorkerTimeline {
        polls: Vec::with_capacity(census.poll_starts as usize),
        poll_starts: census.poll_starts,
        unparks: census.unparks,
        ..WorkerTimeline::default()
    };
    let mut open_poll: Option<Poll> = None;
    let mut open_park: Option<u64> = None;
    let mut open_unpark: Option<(u64, u64)> = None;
    let close_poll = |open: &mut Option<Poll>, polls: &mut Vec<Poll>, ts: u64| {
        if let Some(mut p) = open.take() {
            p.end = ts;
            polls.push(p);
        }
    };
    for e in events {
        match e.kind {
            WorkerEventKind::PollStart {
                task_id,
                spawn_loc,
                scheduling_delay,
            } => {
                close_poll(&mut open_poll, &mut tl.polls, e.ts);
                open_poll = Some(Poll {
                    start: e.ts,
                    end: e.ts,
                    task_id,
                    spawn_loc,
                    scheduling_delay,
                    samples: None,
                });
            }
            WorkerEventKind::PollEnd => close_poll(&mut open_poll, &mut tl.polls, e.ts),
            WorkerEventKind::Park { cpu_time, .. } => {
                close_poll(&mut open_poll, &mut tl.polls, e.ts);
                open_park = Some(e.ts);
                if let Some((start, cpu)) = open_unpark.take()
                    && !crosses_gap(start, e.ts)
                {
                    let wall = e.ts.saturating_sub(start);
                    let ratio = if wall == 0 {
                        1.0
                    } else {
                        ((cpu_time as f64 - cpu as f64) / wall as f64).min(1.0)
                    };
                    tl.actives.push(Active {
                        start,
                        end: e.ts,
                        ratio,
                    });
                }
            }
            WorkerEventKind::Unpark {
                cpu_time, sched_wait, ..
            } => {
                // The poll's end and the park were lost.
                open_poll = None;
                if let Some(start) = open_park.take() {
                    tl.parks.push(Park {
                        start,
                        end: e.ts,
                        sched_wait: sched_wait.get(),
                    });
                }
                open_unpark = Some((e.ts, cpu_time));
            }
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

/// The poll a sample at `ts` belongs to: the last one starting at or before
/// it, if `ts` is inside it (both ends inclusive).
pub(crate) fn poll_holding(polls: &[Poll], ts: u64) -> Option<usize> {
    let idx = polls.partition_point(|p| p.start <= ts).checked_sub(1)?;
    (ts <= polls[idx].end).then_some(idx)
}

/// For each off-CPU sample taken inside a poll, how long its thread stayed
/// off the CPU as far as the trace tells: until the poll's next sample, else
/// the poll's end (0 for every other sample). A switch-out is one sample
/// however long it lasts, so counts alone rank a 30 ms sleep with a 5 µs
/// preemption; this time tells them apart.
pub fn off_cpu_ns(tl: &Timelines, samples: &[CpuSample]) -> Vec<u64> {
    let mut out = vec![0; samples.len()];
    let mut times: Vec<u64> = Vec::new();
    for p in tl.workers.values().flat_map(|w| &w.polls) {
        if p.sched_samples().is_empty() {
            continue;
        }
        times.clear();
        times.extend(p.sched_samples().iter().chain(p.cpu_samples()).map(|&j| samples[j].ts));
        times.sort_unstable();
        for &i in p.sched_samples() {
            let ts = samples[i].ts;
            let next = times.get(times.partition_point(|&t| t <= ts)).copied().unwrap_or(p.end);
            out[i] = next.saturating_sub(ts);
        }
    }
    out
}

/// Attaches each sample to the poll of its worker it was taken in (`poll_holding`).
fn attach_samples(samples: &[CpuSample], workers: &mut BTreeMap<u64, WorkerTimeline>) -> Vec<Option<Option<StrId>>> {
    samples
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let tl = workers.get_mut(&s.worker)?;
            let idx = poll_holding(&tl.polls, s.ts)?;
            let poll = &mut tl.polls[idx];
            let lists = poll.samples.get_or_insert_default();
            if s.source == SOURCE_OFF_CPU {
                lists.sched.push(i);
            } else {
                lists.cpu.push(i);
            }
            Some(poll.spawn_loc)
        })
        .collect()
}
