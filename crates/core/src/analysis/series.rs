//! Process-wide active-task and global-queue series.

use crate::hashing::FastIndexMap;
use crate::trace::ParsedTrace;

/// Sums per-runtime values of one flush cycle (same timestamp), sorted by time.
fn per_cycle(points: impl Iterator<Item = (u64, u64)>) -> Vec<(u64, u64)> {
    let mut by_ts: FastIndexMap<u64, u64> = FastIndexMap::default();
    for (t, v) in points {
        *by_ts.entry(t).or_default() += v;
    }
    let mut out: Vec<(u64, u64)> = by_ts.into_iter().collect();
    out.sort_by_key(|p| p.0);
    out
}

/// (time, active tasks): runtime metrics, else legacy queue samples, else spawn/terminate deltas.
pub fn active_tasks(trace: &ParsedTrace) -> Vec<(u64, u64)> {
    let m = &trace.runtime_metrics;
    if !m.is_empty() && m.iter().all(|s| s.alive_tasks.is_some()) {
        return per_cycle(m.iter().map(|s| (s.ts, s.alive_tasks.unwrap_or(0))));
    }
    if !trace.legacy_active_tasks.is_empty() {
        return trace.legacy_active_tasks.clone();
    }
    let mut deltas: Vec<(u64, i64)> = trace.task_spawn_times.values().map(|&t| (t, 1)).collect();
    deltas.extend(trace.task_terminate_times.values().map(|&t| (t, -1)));
    deltas.sort_by_key(|d| d.0);
    let mut count = 0i64;
    deltas
        .into_iter()
        .map(|(t, d)| {
            count += d;
            (t, count.max(0) as u64)
        })
        .collect()
}

/// (time, global queue depth).
pub fn global_queue(trace: &ParsedTrace) -> Vec<(u64, u64)> {
    if !trace.runtime_metrics.is_empty() {
        return per_cycle(trace.runtime_metrics.iter().map(|s| (s.ts, s.global_queue)));
    }
    trace.queue_samples.clone()
}
