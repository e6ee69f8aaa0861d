//! Timestamps a recorder cannot have written: far from the trace's own time
//! (`u64::MAX`, a clock reset to 0) or going backwards on one worker. The
//! absurd ones are dropped and counted, so that no duration reads as
//! centuries and no wall clock as 1969 or 2262; both counts reach the setup
//! diagnostic (`TimeAnomalies`).

use super::decode::{bounds, union};
use super::model::{ParsedTrace, SpanEvent};

/// How far from the trace's middle an event may lie: a dial9 segment covers
/// minutes, a rotation an hour; a day is far past both.
const MAX_DISTANCE_NS: u64 = 24 * 3600 * 1_000_000_000;

/// The median of up to ~4,096 runtime timestamps picked evenly.
fn median_time(trace: &ParsedTrace) -> Option<u64> {
    let total: usize = trace.workers.values().map(Vec::len).sum::<usize>() + trace.wakes.len();
    let step = (total / 4096).max(1);
    let mut picked: Vec<u64> = trace
        .workers
        .values()
        .flatten()
        .map(|e| e.ts)
        .chain(trace.wakes.iter().map(|w| w.ts))
        .step_by(step)
        .collect();
    if picked.is_empty() {
        return None;
    }
    let mid = picked.len() / 2;
    Some(*picked.select_nth_unstable(mid).1)
}

impl ParsedTrace {
    /// Counts workers' backward steps, and drops every event far from the
    /// trace's median time (then recomputes the bounds). Called once the
    /// trace is decoded, before the bounds are joined.
    pub(super) fn check_time(&mut self) {
        self.time.backwards = self
            .workers
            .values()
            .map(|events| events.windows(2).filter(|w| w[1].ts < w[0].ts).count() as u64)
            .sum();
        let spread = union(self.runtime_bounds, self.bounds).map_or(0, |(lo, hi)| hi - lo);
        if spread <= MAX_DISTANCE_NS {
            return;
        }
        let Some(mid) = median_time(self) else { return };
        let ok = |ts: u64| ts.abs_diff(mid) <= MAX_DISTANCE_NS;
        let mut dropped = 0u64;
        let mut keep = |ts: u64| {
            let k = ok(ts);
            dropped += u64::from(!k);
            k
        };
        for events in self.workers.values_mut() {
            events.retain(|e| keep(e.ts));
        }
        self.workers.retain(|_, events| !events.is_empty());
        self.wakes.retain(|w| keep(w.ts));
        self.queue_samples.retain(|q| keep(q.0));
        self.samples.retain(|s| keep(s.ts));
        self.allocs.retain(|a| keep(a.ts));
        self.runtime_metrics.retain(|m| keep(m.ts));
        self.app.retain(&mut keep);
        self.legacy_active_tasks.retain(|p| keep(p.0));
        self.clock_anchors.retain(|a| keep(a.0));
        self.task_spawn_times.retain(|_, ts| keep(*ts));
        self.task_terminate_times.retain(|_, ts| keep(*ts));
        self.span_events.retain(|e| match e.event {
            SpanEvent::Single { start, .. } => keep(e.ts) && keep(start),
            _ => keep(e.ts),
        });
        self.time.absurd = dropped;
        self.runtime_events = self.runtime_events.saturating_sub(dropped);
        let runtime = self.workers.values().flatten().map(|e| e.ts);
        self.runtime_bounds = bounds(
            runtime
                .chain(self.wakes.iter().map(|w| w.ts))
                .chain(self.queue_samples.iter().map(|q| q.0)),
        );
        // (Until the join, `bounds` holds the single-event spans' own.)
        self.bounds = bounds(
            self.span_events
                .iter()
                .flat_map(|e| match e.event {
                    SpanEvent::Single { start, .. } => Some([start, e.ts]),
                    _ => None,
                })
                .flatten(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{OptU64, TimeAnomalies, WorkerEvent, WorkerEventKind};

    fn trace(times: &[u64]) -> ParsedTrace {
        let mut t = ParsedTrace::default();
        let events = times
            .iter()
            .map(|&ts| WorkerEvent {
                ts,
                kind: WorkerEventKind::PollStart {
                    task_id: 1,
                    spawn_loc: None,
                    scheduling_delay: OptU64::NONE,
                },
            })
            .collect();
        t.workers.insert(0, events);
        t.runtime_events = times.len() as u64;
        t.runtime_bounds = bounds(times.iter().copied());
        t
    }

    #[test]
    fn far_away_times_are_dropped_and_backward_steps_counted() {
        let mut t = trace(&[5_000, 6_000, u64::MAX, 5_500, 7_000]);
        t.check_time();
        assert_eq!(
            t.time,
            TimeAnomalies {
                absurd: 1,
                backwards: 1
            }
        );
        assert_eq!(t.runtime_bounds, Some((5_000, 7_000)));
        assert_eq!(t.runtime_events, 4);
        // A plausible trace is left alone.
        let mut t = trace(&[5_000, 6_000, 7_000]);
        t.check_time();
        assert_eq!(t.time, TimeAnomalies::default());
        assert_eq!(t.runtime_bounds, Some((5_000, 7_000)));
    }
}
