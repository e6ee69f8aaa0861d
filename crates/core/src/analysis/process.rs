//! What the process and its sockets said beside the runtime's polls: the
//! CPU it used against the cores it had (`ProcessResourceUsageEvent`), its
//! accept queues against their backlog (`TcpAcceptQueueEvent`), the tasks
//! spawned around dial9 (no wake events, so no scheduling delays), and how
//! long new tasks waited for their first poll (no wake precedes it, so the
//! scheduling delays leave it out). Each file keeps its worst moment; the
//! fold keeps the run's worst.

use crate::report::Moment;
use crate::trace::{AppEvents, ParsedTrace, Strings, Value};
use serde::{Deserialize, Serialize};

/// The busiest interval between two process usage samples.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuPeak {
    /// Cores used over it (user + system CPU time per wall time), in thousandths.
    pub millicores: u64,
    /// `process.available_parallelism` of the file's metadata.
    pub available: Option<u64>,
    pub at: Moment,
}

/// The fullest accept queue sample.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AcceptPeak {
    pub pending: u64,
    pub backlog: u64,
    pub port: Option<u64>,
    pub at: Moment,
}

/// The longest wait of a task from its spawn to its first poll.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FirstPollDelay {
    pub task: u64,
    pub spawn_loc: Option<String>,
    /// From the spawn to the first poll's start.
    pub at: Moment,
}

/// Spawn → first-poll delays of the tasks a file saw spawned and polled.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FirstPolls {
    pub worst: Option<FirstPollDelay>,
    /// Delays over `FIRST_POLL_SLOW_NS`.
    pub slow: u64,
}

/// A new task waiting longer than this for its first poll waited for a busy
/// runtime (the threshold of `sched-delay`, for wakes).
pub const FIRST_POLL_SLOW_NS: u64 = 5_000_000;

impl FirstPolls {
    /// `first_poll`: a task's first poll start in the file, if it has one.
    pub fn of(file: &str, trace: &ParsedTrace, first_poll: impl Fn(u64) -> Option<u64>) -> FirstPolls {
        let mut out = FirstPolls::default();
        // The longest; among equals the earliest spawn, then the lowest task id.
        let rank = |(delay, spawned, task): (u64, u64, u64)| (delay, std::cmp::Reverse((spawned, task)));
        let mut worst: Option<(u64, u64, u64)> = None;
        for (&task, &spawned) in &trace.task_spawn_times {
            let Some(delay) = first_poll(task).and_then(|p| p.checked_sub(spawned)) else {
                continue;
            };
            out.slow += u64::from(delay > FIRST_POLL_SLOW_NS);
            let this = (delay, spawned, task);
            if worst.is_none_or(|w| rank(this) > rank(w)) {
                worst = Some(this);
            }
        }
        out.worst = worst.map(|(delay, spawned, task)| FirstPollDelay {
            task,
            spawn_loc: trace
                .spawn_loc(trace.task_spawn_locs.get(&task).copied().flatten())
                .map(str::to_string),
            at: Moment {
                file: file.to_string(),
                worker: None,
                start_ns: spawned,
                dur_ns: delay,
            },
        });
        out
    }

    fn merge(&mut self, other: FirstPolls) {
        self.slow = self.slow.saturating_add(other.slow);
        self.worst = worst(self.worst.take(), other.worst, |a, b| {
            a.at.dur_ns.cmp(&b.at.dur_ns).then_with(|| b.at.file.cmp(&a.at.file))
        });
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessPartial {
    pub cpu: Option<CpuPeak>,
    pub accept: Option<AcceptPeak>,
    /// Tasks spawned with `instrumented = false`.
    pub uninstrumented: u64,
    pub first_polls: FirstPolls,
}

/// Cores busy past this share of those available saturate the process.
pub const CPU_SATURATED: (u64, u64) = (9, 10);
/// An accept queue past this share of its backlog is about to refuse connections.
pub const ACCEPT_NEAR_BACKLOG: (u64, u64) = (8, 10);

impl ProcessPartial {
    pub fn of(file: &str, trace: &ParsedTrace, first_polls: FirstPolls) -> ProcessPartial {
        let available = available_parallelism(trace);
        ProcessPartial {
            cpu: cpu_peak(file, trace, available),
            accept: accept_peak(file, trace),
            uninstrumented: trace.app.uninstrumented.len() as u64,
            first_polls,
        }
    }

    /// Another file's, folded in: the worst of each (ties to the earlier file name).
    pub fn merge(&mut self, other: ProcessPartial) {
        let share = |c: &CpuPeak| (c.millicores, c.available.unwrap_or(0));
        self.cpu = worst(self.cpu.take(), other.cpu, |a, b| {
            over(share(a), share(b)).then_with(|| b.at.file.cmp(&a.at.file))
        });
        self.accept = worst(self.accept.take(), other.accept, |a, b| {
            over((a.pending, a.backlog), (b.pending, b.backlog)).then_with(|| b.at.file.cmp(&a.at.file))
        });
        self.uninstrumented = self.uninstrumented.saturating_add(other.uninstrumented);
        self.first_polls.merge(other.first_polls);
    }
}

/// `a.0 / a.1` against `b.0 / b.1` (a zero denominator counts as one).
fn over(a: (u64, u64), b: (u64, u64)) -> std::cmp::Ordering {
    let (an, ad, bn, bd) = (a.0 as u128, a.1.max(1) as u128, b.0 as u128, b.1.max(1) as u128);
    (an * bd).cmp(&(bn * ad))
}

fn worst<T>(a: Option<T>, b: Option<T>, cmp: impl Fn(&T, &T) -> std::cmp::Ordering) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if cmp(&b, &a).is_gt() { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// The events of the type named `name`, with the positions of `fields` in it.
fn events_of<const N: usize>(
    app: &AppEvents,
    strings: &Strings,
    name: &str,
    fields: [&str; N],
) -> Vec<(u64, [Option<u64>; N])> {
    let mut out = Vec::new();
    for (kind, t) in app
        .types
        .iter()
        .enumerate()
        .filter(|(_, t)| strings.get(t.name) == name)
    {
        let at = fields.map(|f| t.fields.iter().position(|x| strings.get(x.name) == f));
        for e in app.events.iter().filter(|e| e.kind as usize == kind) {
            let values = app.values_of(e);
            let get = |i: Option<usize>| match values.get(i?)? {
                Value::U64(v) => Some(*v),
                Value::I64(v) => u64::try_from(*v).ok(),
                _ => None,
            };
            out.push((e.ts, at.map(get)));
        }
    }
    out.sort_by_key(|(ts, _)| *ts);
    out
}

/// The cores the process had (`process.available_parallelism`).
pub fn available_parallelism(trace: &ParsedTrace) -> Option<u64> {
    trace
        .metadata
        .get("process.available_parallelism")
        .and_then(|v| v.trim().parse().ok())
}

/// The process's CPU use between consecutive usage samples: (start, wall
/// ns, cores used in thousandths), in time order.
pub fn cpu_usage(trace: &ParsedTrace) -> Vec<(u64, u64, u64)> {
    let usage = events_of(
        &trace.app,
        &trace.strings,
        "ProcessResourceUsageEvent",
        ["user_cpu_ns", "system_cpu_ns"],
    );
    let mut out = Vec::new();
    for pair in usage.windows(2) {
        let [(t0, [Some(u0), Some(s0)]), (t1, [Some(u1), Some(s1)])] = pair else {
            continue;
        };
        let (wall, cpu) = (
            t1.saturating_sub(*t0),
            (u1.saturating_add(*s1)).checked_sub(u0.saturating_add(*s0)),
        );
        let (Some(cpu), true) = (cpu, wall > 0) else { continue };
        out.push((
            *t0,
            wall,
            (cpu as u128 * 1000 / wall as u128).min(u64::MAX as u128) as u64,
        ));
    }
    out
}

/// One accept-queue sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AcceptSample {
    pub ts: u64,
    pub pending: u64,
    pub backlog: u64,
    pub port: Option<u64>,
}

/// The accept-queue samples with both counts, in time order.
pub fn accept_samples(trace: &ParsedTrace) -> Vec<AcceptSample> {
    let fields = ["pending_connections", "backlog_limit", "local_port"];
    events_of(&trace.app, &trace.strings, "TcpAcceptQueueEvent", fields)
        .into_iter()
        .filter_map(|(ts, [pending, backlog, port])| {
            Some(AcceptSample {
                ts,
                pending: pending?,
                backlog: backlog?,
                port,
            })
        })
        .collect()
}

fn cpu_peak(file: &str, trace: &ParsedTrace, available: Option<u64>) -> Option<CpuPeak> {
    let (start, dur, millicores) = cpu_usage(trace)
        .into_iter()
        .reduce(|best, x| if x.2 > best.2 { x } else { best })?;
    Some(CpuPeak {
        millicores,
        available,
        at: Moment {
            file: file.to_string(),
            worker: None,
            start_ns: start,
            dur_ns: dur,
        },
    })
}

fn accept_peak(file: &str, trace: &ParsedTrace) -> Option<AcceptPeak> {
    let fullest = accept_samples(trace).into_iter().reduce(|best, x| {
        match over((x.pending, x.backlog), (best.pending, best.backlog)).is_gt() {
            true => x,
            false => best,
        }
    })?;
    Some(AcceptPeak {
        pending: fullest.pending,
        backlog: fullest.backlog,
        port: fullest.port,
        at: Moment {
            file: file.to_string(),
            worker: None,
            start_ns: fullest.ts,
            dur_ns: 0,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peak(millicores: u64, available: Option<u64>, file: &str) -> ProcessPartial {
        ProcessPartial {
            cpu: Some(CpuPeak {
                millicores,
                available,
                at: Moment {
                    file: file.into(),
                    ..Moment::default()
                },
            }),
            ..ProcessPartial::default()
        }
    }

    #[test]
    fn the_fold_keeps_the_busiest_share_in_any_order() {
        let parts = [
            peak(1900, Some(2), "a"),
            peak(3000, Some(4), "b"),
            peak(1900, Some(2), "c"),
        ];
        let fold = |order: &[usize]| {
            let mut acc = ProcessPartial::default();
            for &i in order {
                acc.merge(parts[i].clone());
            }
            acc.cpu.unwrap().at.file
        };
        // 1.9 of 2 cores beats 3 of 4; ties go to the earlier file.
        for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0]] {
            assert_eq!(fold(&order), "a");
        }
    }
}
