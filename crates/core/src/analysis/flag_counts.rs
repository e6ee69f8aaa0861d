//! What one file counts for the red-flag scan (`red_flags`), summed over
//! files by the fold.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Per-file counters that only the red-flag scan needs.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FlagCounts {
    pub polls_over_10ms: u64,
    pub polls_over_50ms: u64,
    pub delays_over_5ms: u64,
    pub queue_points_over_100: u64,
    pub contention: BTreeMap<u64, Contention>,
    /// Polls that contained more than `MANY_SPANS` spans: (poll duration, worker, task, spans).
    pub busy_polls: Vec<BusyPoll>,
    pub unmatched_spans: BTreeMap<String, u64>,
}

/// Active periods of one worker, and those where the kernel kept it off the CPU.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Contention {
    pub periods: u64,
    pub low: u64,
    pub low_ratio_sum: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BusyPoll {
    pub dur: u64,
    pub worker: u64,
    pub task_id: u64,
    pub spans: u64,
}

pub const MANY_SPANS: u64 = 20;

impl FlagCounts {
    pub fn merge(&mut self, o: &FlagCounts) {
        self.polls_over_10ms = self.polls_over_10ms.saturating_add(o.polls_over_10ms);
        self.polls_over_50ms = self.polls_over_50ms.saturating_add(o.polls_over_50ms);
        self.delays_over_5ms = self.delays_over_5ms.saturating_add(o.delays_over_5ms);
        self.queue_points_over_100 = self.queue_points_over_100.saturating_add(o.queue_points_over_100);
        for (w, c) in &o.contention {
            let d = self.contention.entry(*w).or_default();
            d.periods = d.periods.saturating_add(c.periods);
            d.low = d.low.saturating_add(c.low);
            d.low_ratio_sum += c.low_ratio_sum;
        }
        self.busy_polls.extend(o.busy_polls.iter().cloned());
        for (k, v) in &o.unmatched_spans {
            let n = self.unmatched_spans.entry(k.clone()).or_default();
            *n = n.saturating_add(*v);
        }
    }
}
