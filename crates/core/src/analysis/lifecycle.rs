//! The task lifecycle of a fold (TASK LIFECYCLE), in memory that does not
//! grow with every file. Two parts grew before:
//!
//! - The active-task series: the report reads only its earliest and latest
//!   points, its peak and its length, so that is all the fold keeps
//!   (`ActiveSeries`), exactly as a stable sort of every point by time
//!   would give them.
//! - Task ids (each task's spawn location, the tasks files left alive or
//!   terminated): a busy segment brings thousands of new ones, since a
//!   runtime numbers its tasks from one upward, and a fleet-day hundreds of
//!   millions. Terminated ids, nearly consecutive, are kept as runs
//!   (`IdRuns`). The fold keeps them within [`MAX_TASK_IDS`]: the files,
//!   in fold order, whose tasks fit; every file from the first that does
//!   not fit on is left out of the lifecycle and counted
//!   (`Lifecycle::files_left_out`). Below the budget nothing changes.

use super::spawn_locs::{Loc, SpawnLocs};
use super::task_ids::{IdRuns, TaskIds};
use crate::hashing::{FastIndexMap, FastIndexSet};
use crate::report::{Lifecycle, LocationCount};

/// The most task ids the fold keeps, counted once per set they are in
/// (spawn locations, left alive), and runs of terminated ids. Tens of bytes
/// each: tens of MB at most, in the tab too.
pub const MAX_TASK_IDS: usize = 1 << 20;

/// The active-task series of the files folded so far, as the report reads
/// it. Points keep the order a stable sort by time gives: among equal
/// times, fold order, then each file's own.
#[derive(Debug, Clone, Default)]
pub(super) struct ActiveSeries {
    first: Option<(u64, u64)>,
    last: Option<(u64, u64)>,
    peak: Option<u64>,
    points: usize,
}

impl ActiveSeries {
    /// One file's points, `(time, active tasks)`.
    pub(super) fn add(&mut self, points: &[(u64, u64)]) {
        for &p in points {
            if self.first.is_none_or(|f| p.0 < f.0) {
                self.first = Some(p);
            }
            if self.last.is_none_or(|l| p.0 >= l.0) {
                self.last = Some(p);
            }
            self.peak = self.peak.max(Some(p.1));
        }
        self.points += points.len();
    }

    /// The active tasks at the earliest point and at the latest.
    pub(super) fn ends(&self) -> Option<(u64, u64)> {
        Some((self.first?.1, self.last?.1))
    }

    pub(super) fn peak(&self) -> Option<u64> {
        self.peak
    }

    pub(super) fn len(&self) -> usize {
        self.points
    }
}

/// Task ids of the files folded so far, within [`MAX_TASK_IDS`].
#[derive(Debug, Clone)]
pub(super) struct TaskFold {
    budget: usize,
    spawn_locs: SpawnLocs,
    /// Tasks some file left alive, in the order first left so.
    left_alive: FastIndexSet<u64>,
    /// Tasks any file terminated.
    terminated: IdRuns,
    files_left_out: u64,
}

impl Default for TaskFold {
    fn default() -> Self {
        Self::with_budget(MAX_TASK_IDS)
    }
}

impl TaskFold {
    pub(super) fn with_budget(budget: usize) -> Self {
        TaskFold {
            budget,
            spawn_locs: SpawnLocs::default(),
            left_alive: FastIndexSet::default(),
            terminated: IdRuns::default(),
            files_left_out: 0,
        }
    }

    fn held(&self) -> usize {
        self.spawn_locs.len() + self.left_alive.len() + self.terminated.runs()
    }

    /// One file's tasks (later files' spawn locations win, as in the
    /// reference), unless they might not fit, or an earlier file did not.
    pub(super) fn add(&mut self, spawn_locs: SpawnLocs, left_alive: &[u64], terminated: &TaskIds) {
        let incoming = spawn_locs.len() + left_alive.len() + terminated.runs().count();
        if self.files_left_out > 0 || self.held().saturating_add(incoming) > self.budget {
            self.files_left_out += 1;
            return;
        }
        self.spawn_locs.extend(spawn_locs);
        self.left_alive.extend(left_alive.iter().copied());
        self.terminated.extend(terminated);
    }

    pub(super) fn spawn_loc(&self, task: u64) -> Option<&Loc> {
        self.spawn_locs.get(&task).and_then(Option::as_ref)
    }

    pub(super) fn report(&self, active: &ActiveSeries) -> Lifecycle {
        let peak = active.peak();
        let (first, last) = active.ends().unzip();
        let possible_leak = matches!((last, peak), (Some(l), Some(p)) if l as f64 > p as f64 / 2.0 && l == p);
        let alive = self
            .left_alive
            .iter()
            .filter(|&&t| !self.terminated.contains(t))
            .map(|t| self.spawn_loc(*t));
        Lifecycle {
            spawns_by_location: count_by(self.spawn_locs.values().map(Option::as_ref)),
            peak_active: peak,
            active_at_first_sample: first,
            active_at_last_sample: last,
            possible_leak,
            alive_by_location: count_by(alive),
            files_left_out: self.files_left_out,
        }
    }
}

/// Tasks by location (none: "(unknown)"), most first, equals in
/// first-seen order.
fn count_by<'a>(locs: impl Iterator<Item = Option<&'a Loc>>) -> Vec<LocationCount> {
    let mut counts: FastIndexMap<&str, u64> = FastIndexMap::default();
    for loc in locs {
        *counts.entry(loc.map_or("(unknown)", |l| &**l)).or_default() += 1;
    }
    let mut v: Vec<LocationCount> = counts
        .into_iter()
        .map(|(loc, count)| LocationCount {
            loc: loc.to_string(),
            count,
        })
        .collect();
    v.sort_by_key(|a| std::cmp::Reverse(a.count));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the fold kept before: every point, stably sorted by time.
    fn sorted_ends(files: &[&[(u64, u64)]]) -> (Option<(u64, u64)>, Option<u64>, usize) {
        let mut all: Vec<(u64, u64)> = files.iter().flat_map(|f| f.iter().copied()).collect();
        all.sort_by_key(|p| p.0);
        let ends = all.first().zip(all.last()).map(|(f, l)| (f.1, l.1));
        (ends, all.iter().map(|p| p.1).max(), all.len())
    }

    #[test]
    fn the_series_ends_are_those_of_every_point_sorted_stably() {
        // Equal times across files and within one: the first of the
        // earliest stays first, the last of the latest comes last.
        let files: [&[(u64, u64)]; 3] = [&[(5, 1), (9, 4), (9, 6)], &[(5, 2), (3, 7), (3, 8)], &[(9, 3), (4, 0)]];
        let mut s = ActiveSeries::default();
        for f in files {
            s.add(f);
        }
        assert_eq!((s.ends(), s.peak(), s.len()), sorted_ends(&files));
        assert_eq!(s.ends(), Some((7, 3)));
        assert_eq!(ActiveSeries::default().ends(), None);
    }

    fn locs(tasks: &[(u64, &str)]) -> SpawnLocs {
        tasks.iter().map(|&(t, l)| (t, Some(Loc::from(l)))).collect()
    }

    #[test]
    fn files_past_the_budget_are_left_out_from_the_first_that_does_not_fit() {
        let mut f = TaskFold::with_budget(5);
        let none = TaskIds::default();
        f.add(locs(&[(1, "a.rs"), (2, "a.rs")]), &[1], &none);
        // Three more would make six: left out, and so is every later file,
        // even one that would fit.
        f.add(locs(&[(3, "b.rs"), (4, "b.rs"), (5, "b.rs")]), &[], &none);
        f.add(locs(&[(6, "c.rs")]), &[], &none);
        let r = f.report(&ActiveSeries::default());
        assert_eq!(r.files_left_out, 2);
        let spawns: Vec<(&str, u64)> = r.spawns_by_location.iter().map(|c| (c.loc.as_str(), c.count)).collect();
        assert_eq!(spawns, [("a.rs", 2)]);
        assert_eq!(r.alive_by_location.len(), 1);
        assert_eq!(f.spawn_loc(1).map(|l| &**l), Some("a.rs"));
        assert_eq!(f.spawn_loc(3), None);
    }

    #[test]
    fn held_ids_stay_within_the_budget_however_many_files_come() {
        let mut f = TaskFold::with_budget(10_000);
        for file in 0..1_000u64 {
            let tasks: Vec<(u64, &str)> = (0..100).map(|t| (file * 100 + t, "x.rs")).collect();
            let terminated: TaskIds = (file * 100..file * 100 + 99).collect();
            f.add(locs(&tasks), &[file * 100 + 99], &terminated);
        }
        assert!(f.held() <= 10_000, "{}", f.held());
        // A file holds 100 spawn locations, 1 task left alive and 1 run of
        // terminated ids.
        assert_eq!(f.files_left_out, 1_000 - 10_000 / 102);
    }
}
