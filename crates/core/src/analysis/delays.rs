//! Wake → poll scheduling delays (`computeSchedulingDelays`).

use super::workers::{Poll, Timelines};
use crate::hashing::FastMap;
use crate::trace::{StrId, Wake};

#[derive(Debug, Clone)]
pub struct Delay {
    pub wake_time: u64,
    pub delay: u64,
    pub task_id: u64,
    pub worker: u64,
    pub spawn_loc: Option<StrId>,
}

/// Each task's wakes and polls by time: only needed for polls that carry no
/// recorder-measured delay, so built on first need.
struct TaskIndex {
    wakes: FastMap<u64, Vec<u64>>,
    polls: FastMap<u64, Vec<(u64, u64)>>,
}

impl TaskIndex {
    fn new(t: &Timelines, wakes: &[Wake]) -> TaskIndex {
        let mut index = TaskIndex {
            wakes: FastMap::default(),
            polls: FastMap::default(),
        };
        for w in wakes {
            index.wakes.entry(w.task).or_default().push(w.ts);
        }
        for tl in t.workers.values() {
            for p in tl.polls.iter().filter(|p| p.task_id != 0) {
                index.polls.entry(p.task_id).or_default().push((p.start, p.end));
            }
        }
        index.wakes.values_mut().for_each(|v| v.sort_unstable());
        index.polls.values_mut().for_each(|v| v.sort_by_key(|p| p.0));
        index
    }

    /// Delay from the task's latest wake at or before `start` (or from the end
    /// of the poll that wake came in) to this poll.
    fn delay(&self, task: u64, start: u64) -> Option<(u64, u64)> {
        let wakes = self.wakes.get(&task)?;
        let wake = wakes[wakes.partition_point(|&w| w <= start).checked_sub(1)?];
        let mut effective = wake;
        let polls = &self.polls[&task];
        if let Some(prev) = polls.partition_point(|q| q.0 <= wake).checked_sub(1).map(|i| polls[i])
            && prev.0 < start
            && wake <= prev.1
        {
            effective = prev.1;
        }
        let d = start as i64 - effective as i64;
        (d > 0 && d < 1_000_000_000).then_some((effective, d as u64))
    }
}

/// Every delay, workers ascending and their polls in order (the reference
/// then sorts them stably by wake time).
pub fn for_each(t: &Timelines, wakes: &[Wake], mut f: impl FnMut(Delay)) {
    each_poll(t, wakes, |_, delay| delay.into_iter().for_each(&mut f));
}

/// Every poll of a task, workers ascending and their polls in order, with
/// its delay when it has one.
pub fn each_poll(t: &Timelines, wakes: &[Wake], mut f: impl FnMut(&Poll, Option<Delay>)) {
    let mut index: Option<TaskIndex> = None;
    for (&worker, tl) in &t.workers {
        for p in tl.polls.iter().filter(|p| p.task_id != 0) {
            let found = match p.scheduling_delay.get() {
                Some(0) => None,
                Some(d) => Some((p.start.saturating_sub(d), d)),
                None => index
                    .get_or_insert_with(|| TaskIndex::new(t, wakes))
                    .delay(p.task_id, p.start),
            };
            let delay = found.map(|(wake_time, delay)| Delay {
                wake_time,
                delay,
                task_id: p.task_id,
                worker,
                spawn_loc: p.spawn_loc,
            });
            f(p, delay);
        }
    }
}
