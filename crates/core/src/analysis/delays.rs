//! Wake → poll scheduling delays (`computeSchedulingDelays`).

use super::workers::Timelines;

#[derive(Debug, Clone)]
pub struct Delay {
    pub wake_time: u64,
    pub delay: u64,
    pub task_id: u64,
    pub worker: u64,
    pub spawn_loc: Option<u32>,
}

/// Delays sorted by wake time (stable over workers ascending, polls in order).
pub fn compute(t: &Timelines) -> Vec<Delay> {
    // Each task's polls across workers, by start, to see if a wake came mid-poll.
    let mut polls_by_task: std::collections::HashMap<u64, Vec<(u64, u64)>> = Default::default();
    for tl in t.workers.values() {
        for p in tl.polls.iter().filter(|p| p.task_id != 0) {
            polls_by_task.entry(p.task_id).or_default().push((p.start, p.end));
        }
    }
    for v in polls_by_task.values_mut() {
        v.sort_by_key(|p| p.0);
    }
    let mut out = Vec::new();
    for (&worker, tl) in &t.workers {
        for p in tl.polls.iter().filter(|p| p.task_id != 0) {
            let delay = |wake_time: u64, delay: u64| Delay {
                wake_time,
                delay,
                task_id: p.task_id,
                worker,
                spawn_loc: p.spawn_loc,
            };
            if let Some(d) = p.scheduling_delay {
                if d > 0 {
                    out.push(delay(p.start.saturating_sub(d), d));
                }
                continue;
            }
            let Some(wakes) = t.wakes_by_task.get(&p.task_id) else {
                continue;
            };
            let Some(wake) = wakes
                .partition_point(|w| w.ts <= p.start)
                .checked_sub(1)
                .map(|i| wakes[i])
            else {
                continue;
            };
            let mut effective = wake.ts;
            let polls = &polls_by_task[&p.task_id];
            if let Some(prev) = polls
                .partition_point(|q| q.0 <= wake.ts)
                .checked_sub(1)
                .map(|i| polls[i])
                && prev.0 < p.start
                && wake.ts <= prev.1
            {
                effective = prev.1;
            }
            let d = p.start as i64 - effective as i64;
            if d > 0 && d < 1_000_000_000 {
                out.push(delay(effective, d as u64));
            }
        }
    }
    out.sort_by_key(|d| d.wake_time);
    out
}
