//! Merging partials (`mergePartial`) and finalizing them into a `Report`.

use super::fold::Acc;
use super::frame_table::{FrameId, FrameTable};
use super::memory::REFERENCE_SAMPLE_RATE;
use super::partial::{LongPollRec, Partial};
use super::red_flags;
use super::stacks::Group;
use super::{Options, setup};
use crate::frames::{FrameKind, format_frame, frame_kind};
use crate::hashing::FastMap;
use crate::hdr::Histogram;
use crate::profile::calls;
use crate::profile::flame;
use crate::profile::labels::{Label, LabelId, Labeler, Path};
use crate::profile::origin::Origin;
use crate::report::*;
use std::collections::{BTreeMap, VecDeque};

/// Stacks kept in the report per list (the page and the text show ten; the
/// hotspot tree is built from all of them first).
const REPORT_STACKS: usize = 25;

/// Collects partials in any order and folds them in file-name order, so the
/// report never depends on which worker finished first. Told the files in
/// advance (`with_files`), it folds each partial as soon as every file before
/// it is in, and holds only those that came early.
#[derive(Debug, Clone, Default)]
pub struct Merger {
    opts: Options,
    label: Option<String>,
    plan: Option<FoldPlan>,
    acc: Acc,
    folded: Vec<String>,
    pending: BTreeMap<String, Partial>,
    errors: BTreeMap<String, FileError>,
}

/// The files to come, in fold order, and how to fold them.
#[derive(Debug, Clone)]
struct FoldPlan {
    expected: VecDeque<String>,
    compat_dir: bool,
}

/// Puts `items` in the order a [`Merger`] folds the files they name (by
/// name). A shell that hands files to its workers in this order has each
/// partial folded as it arrives, and holds only the files in flight.
pub fn in_fold_order<T>(items: &mut [T], name: impl Fn(&T) -> &str) {
    items.sort_by(|a, b| name(a).cmp(name(b)));
}

impl Merger {
    pub fn new(opts: Options) -> Self {
        Self {
            opts,
            ..Self::default()
        }
    }

    /// The summary title for several files (the reference prints `N files in DIR`).
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// The names of the files that will be added (partials of others are
    /// still taken, and folded at the end).
    pub fn with_files(mut self, names: impl IntoIterator<Item = String>) -> Self {
        let mut expected: Vec<String> = names.into_iter().collect();
        in_fold_order(&mut expected, |n| n);
        expected.dedup();
        let compat_dir = self.opts.reference_compatible && expected.len() > 1;
        self.plan = Some(FoldPlan {
            expected: expected.into(),
            compat_dir,
        });
        self
    }

    pub fn add(&mut self, partial: Partial) {
        self.pending.insert(partial.file.clone(), partial);
        let Some(plan) = &mut self.plan else { return };
        while let Some(p) = plan.expected.front().and_then(|next| self.pending.remove(next)) {
            plan.expected.pop_front();
            self.folded.push(p.file.clone());
            self.acc.merge(p, plan.compat_dir);
        }
    }

    pub fn add_error(&mut self, error: FileError) {
        self.errors.insert(error.file.clone(), error);
    }

    pub fn len(&self) -> usize {
        self.folded.len() + self.pending.len()
    }

    /// Partials held unfolded (with `with_files`: those that came before a
    /// file that sorts earlier).
    pub fn waiting(&self) -> usize {
        self.pending.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The report of everything added so far; the merger stays usable.
    pub fn finish(&self) -> Report {
        self.clone().into_report()
    }

    /// `finish` without copying the partials: folds them by value.
    pub fn into_report(mut self) -> Report {
        let compat_dir = match &self.plan {
            Some(plan) => plan.compat_dir,
            None => self.opts.reference_compatible && self.len() > 1,
        };
        // What is left: the expected files in order, then any others by name.
        let expected = self.plan.take().map(|p| p.expected).unwrap_or_default();
        let mut rest: Vec<Partial> = expected.iter().filter_map(|n| self.pending.remove(n)).collect();
        rest.extend(std::mem::take(&mut self.pending).into_values());
        for p in rest {
            self.folded.push(p.file.clone());
            self.acc.merge(p, compat_dir);
        }
        let label = match (&self.label, self.folded.as_slice()) {
            (Some(l), _) => l.clone(),
            (None, [only]) => only.clone(),
            (None, files) => format!("{} files", files.len()),
        };
        let limits = std::mem::take(&mut self.acc.limits);
        let mut report = report(self.acc, &self.opts, compat_dir);
        report.label = label;
        report.files = self.folded;
        report.errors = self.errors.into_values().collect();
        report.errors.extend(limits);
        report
    }
}

/// The report of a finished fold.
fn report(mut acc: Acc, opts: &Options, compat_dir: bool) -> Report {
    let in_poll_groups = std::mem::take(&mut acc.in_poll_groups).into_sorted();
    let in_poll_calls = {
        let resolved: Vec<Vec<Frame>> = in_poll_groups.iter().map(|g| acc.frames.resolve(&g.stack)).collect();
        calls::by_call(
            in_poll_groups
                .iter()
                .zip(&resolved)
                .map(|(g, frames)| (g.count, g.blocked_ns, &frames[..], g.at.as_ref())),
        )
    };
    let red_flags = red_flags::scan(&acc, in_poll_calls.first());
    let duration_ns = match (acc.min_ts, acc.max_ts) {
        (Some(lo), Some(hi)) if lo <= hi => hi - lo,
        _ => 0,
    };
    let min_ts = acc.min_ts.unwrap_or(0);
    let rel = |t: u64| (t as i64).saturating_sub(min_ts as i64);
    let spawn_loc = |task: u64| acc.tasks.spawn_loc(task).map(|l| l.to_string());
    let rate = if opts.reference_compatible {
        REFERENCE_SAMPLE_RATE
    } else {
        acc.memory.trace_sample_rate().unwrap_or(REFERENCE_SAMPLE_RATE)
    };
    let memory = if compat_dir {
        None
    } else {
        acc.memory.finish(rate, &acc.frames, spawn_loc)
    };
    let workers: Vec<WorkerUtilization> = acc
        .workers
        .iter()
        .map(|(&w, ws)| {
            let total = ws.active_ns + ws.park_ns;
            let utilization = if total > 0 {
                ws.active_ns as f64 / total as f64
            } else if !opts.reference_compatible && duration_ns > 0 {
                // A worker that never parked was never idle: its busy share is its poll time.
                ws.poll_ns as f64 / duration_ns as f64
            } else {
                0.0
            };
            WorkerUtilization {
                worker: w,
                utilization,
                avg_cpu_ratio: (ws.active_count > 0).then(|| ws.ratio_sum / ws.active_count as f64),
                poll_count: ws.poll_count,
                park_count: ws.park_count,
                active_count: ws.active_count,
            }
        })
        .collect();
    let kernel_wait = acc.kernel_waits();
    let mut sched_wait_workers: Vec<KernelWait> =
        kernel_wait.iter().filter(|k| k.count_over_1ms > 0).cloned().collect();
    sched_wait_workers.sort_by_key(|a| std::cmp::Reverse(a.max_ns));
    let hist_stats = |name: &String, h: &Histogram| DurationStats {
        name: name.clone(),
        count: h.count(),
        p50_ns: h.percentile(50.0),
        p99_ns: h.percentile(99.0),
        max_ns: h.max(),
        min_ns: h.min(),
        slowest: None,
    };
    let mut polls_hist = Histogram::default();
    for h in acc.poll_durations.values() {
        polls_hist.merge(h);
    }
    let all_polls = hist_stats(&"all polls".to_string(), &polls_hist);
    let distributions = {
        let mut by_count: Vec<(&String, &Histogram)> = acc.span_stats.iter().collect();
        by_count.sort_by(|a, b| b.1.count().cmp(&a.1.count()).then(a.0.cmp(b.0)));
        Distributions {
            polls: polls_hist.log_bins(BINS_PER_DECADE),
            sched_delays: acc
                .delay_hist
                .as_ref()
                .map_or_else(Vec::new, |h| h.log_bins(BINS_PER_DECADE)),
            spans: by_count
                .into_iter()
                .take(CHARTED_SPANS)
                .map(|(n, h)| (n.clone(), h.log_bins(BINS_PER_DECADE)))
                .collect(),
        }
    };
    let mut poll_by_spawn: Vec<DurationStats> = acc.poll_durations.iter().map(|(k, h)| hist_stats(k, h)).collect();
    poll_by_spawn.sort_by_key(|a| std::cmp::Reverse(a.max_ns));
    let mut spans: Vec<DurationStats> = acc
        .span_stats
        .iter()
        .map(|(k, h)| DurationStats {
            slowest: acc.span_slowest.get(k).cloned(),
            ..hist_stats(k, h)
        })
        .collect();
    spans.sort_by_key(|a| std::cmp::Reverse(a.count));
    let cpu_groups = std::mem::take(&mut acc.cpu_groups).into_sorted();
    let shown = |groups: &[Group]| -> Vec<StackGroup> {
        groups
            .iter()
            .take(REPORT_STACKS)
            .map(|g| g.to_report(&acc.frames))
            .collect()
    };
    let in_poll_stacks = shown(&in_poll_groups);
    let weighted = |groups: &[Group]| groups.iter().map(Group::weighted).collect();
    let profiles = Profiles {
        frames: acc.frames.to_vec(),
        on_cpu: weighted(&cpu_groups),
        blocking: weighted(&in_poll_groups),
        idle: weighted(&std::mem::take(&mut acc.idle_groups).into_sorted()),
        alloc_bytes: acc.memory.bytes_by_stack(),
        waits: weighted(&std::mem::take(&mut acc.wait_groups).into_sorted()),
    };
    Report {
        setup: setup::diagnose(
            &acc.setup,
            acc.on_cpu,
            // Never fewer, but a partial read off the wire is not trusted.
            acc.cpu_sample_count.saturating_sub(acc.on_cpu),
            acc.task_spawn_count,
            opts,
        ),
        summary: Summary {
            duration_ms: duration_ns as f64 / 1e6,
            min_ts: acc.min_ts,
            max_ts: acc.max_ts,
            wall_clock_start_ns: acc.clock_anchor.map(|(mono, real)| real.saturating_sub(rel(mono))),
            workers: acc.workers.keys().copied().collect(),
            event_count: acc.event_count,
            cpu_sample_count: acc.cpu_sample_count,
            on_cpu_sample_count: acc.on_cpu,
            off_cpu_sample_count: acc.off_cpu,
            task_spawn_count: acc.task_spawn_count,
            task_alive_at_end: acc.task_alive_at_end,
            task_dumps: acc.task_dumps,
            task_dump_idle_ns: acc.task_dump_idle_ns,
            runtimes: acc
                .runtimes
                .iter()
                .map(|(n, w)| RuntimeWorkers {
                    name: n.clone(),
                    workers: w.clone(),
                })
                .collect(),
        },
        workers,
        long_polls: LongPolls {
            threshold_ns: 1_000_000,
            count: acc.long_poll_count,
            worst_ns: acc.long_polls.first().map(|l| l.dur),
            worst: long_polls(&acc.long_polls, &acc.frames, rel),
        },
        sched_delays: SchedDelays {
            count: acc.delay_total,
            count_over_1ms: acc.delay_high,
            p50_ns: acc.delay_hist.as_ref().map_or(0, |h| h.percentile(50.0)),
            p99_ns: acc.delay_hist.as_ref().map_or(0, |h| h.percentile(99.0)),
            max_ns: acc.delay_hist.as_ref().map_or(0, Histogram::max),
            has_histogram: acc.delay_hist.is_some(),
            worst: acc
                .delay_worst
                .iter()
                .map(|d| SchedDelay {
                    delay_ns: d.delay,
                    task_id: d.task_id,
                    spawn_loc: d.spawn_loc.clone(),
                    wake_offset_ns: rel(d.wake_time),
                    worker: d.worker,
                    moment: d.moment(),
                })
                .collect(),
        },
        poll_by_spawn,
        all_polls,
        distributions,
        lifecycle: acc.tasks.report(&acc.active),
        blocking: Blocking {
            off_cpu_samples: acc.off_cpu,
            in_poll: acc.in_poll,
            idle_park: acc.idle,
            in_poll_by_location: {
                let mut v: Vec<LocationCount> = acc
                    .in_poll_by_loc
                    .iter()
                    .map(|(l, &c)| LocationCount {
                        loc: l.clone(),
                        count: c,
                    })
                    .collect();
                v.sort_by_key(|a| std::cmp::Reverse(a.count));
                v
            },
            in_poll_stacks,
            in_poll_calls,
            sched_wait_workers,
        },
        cpu_hotspots: CpuHotspots {
            samples: acc.on_cpu,
            tree: hotspot_tree(&cpu_groups, &acc.frames),
            top_stacks: shown(&cpu_groups),
        },
        queue: QueueDepth {
            global_max: (acc.queue_count > 0).then_some(acc.queue_max),
            global_avg: (acc.queue_count > 0).then(|| acc.queue_sum as f64 / acc.queue_count as f64),
            samples: acc.queue_count,
            max_local_queue: acc.max_local_queue,
        },
        kernel_wait,
        spans,
        memory,
        red_flags,
        profiles: std::sync::Arc::new(profiles),
        requests: std::sync::Arc::new(std::mem::take(&mut acc.details)),
        ..Report::default()
    }
}

/// The report's long polls. Each distinct stack is resolved once and shared
/// by every sample that has it.
fn long_polls<'a>(polls: &'a [LongPollRec], frames: &FrameTable, rel: impl Fn(u64) -> i64) -> Vec<LongPoll> {
    let mut resolved: FastMap<&'a [FrameId], Stack> = FastMap::default();
    let mut stacks = |samples: &'a [Vec<FrameId>]| -> Vec<Stack> {
        samples
            .iter()
            .map(|ids| {
                resolved
                    .entry(ids)
                    .or_insert_with(|| frames.resolve(ids).into())
                    .clone()
            })
            .collect()
    };
    polls
        .iter()
        .map(|l| LongPoll {
            dur_ns: l.dur,
            worker: l.worker,
            task_id: l.task_id,
            spawn_loc: l.spawn_loc.clone(),
            start_ns: l.start,
            start_offset_ns: rel(l.start),
            file: l.file.clone(),
            sched_samples: stacks(&l.sched_samples),
            cpu_samples: stacks(&l.cpu_samples),
        })
        .collect()
}

/// Call tree of application frames, outermost caller first, flattened depth-first.
fn hotspot_tree(groups: &[Group], frames: &FrameTable) -> Vec<HotspotRow> {
    // Stacks share most frames: each table frame's display text is made once.
    let mut ids: FastMap<FrameId, Option<LabelId>> = FastMap::default();
    let mut labeler = Labeler::default();
    let mut builder = flame::Builder::new();
    let mut path = Path::default();
    for g in groups {
        path.labels.clear();
        for &id in g.stack.iter().rev() {
            let label = *ids.entry(id).or_insert_with(|| {
                let f = frames.get(id);
                (frame_kind(&f.symbol) == FrameKind::App).then(|| {
                    labeler.intern(Label {
                        text: format_frame(&f.symbol, f.location.as_deref()).into(),
                        origin: Origin::App,
                    })
                })
            });
            path.labels.extend(label);
        }
        builder.add(g.count, &path);
    }
    // Heaviest first, equals in first-seen order: the reference's sort of its Map.
    let tree = builder.finish(labeler.into_labels(), flame::Order::Heaviest);
    (1..tree.nodes().len() as u32)
        .map(|i| {
            let n = tree.node(i);
            HotspotRow {
                depth: n.depth - 1,
                name: tree.label(i).text.to_string(),
                count: n.total,
                self_count: n.self_weight,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::spawn_locs::Loc;

    /// A partial of `file` that left `alive` tasks alive and terminated
    /// `terminated`, each task spawned at `loc`.
    fn tasks(file: &str, alive: &[u64], terminated: &[u64], locs: &[(u64, &str)]) -> Partial {
        Partial {
            file: file.into(),
            tasks_left_alive: alive.to_vec(),
            tasks_terminated: terminated.iter().copied().collect(),
            task_spawn_locs: locs.iter().map(|&(t, loc)| (t, Some(Loc::from(loc)))).collect(),
            ..Partial::default()
        }
    }

    #[test]
    fn a_task_is_alive_when_some_file_left_it_so_and_none_terminated_it() {
        let files = || {
            vec![
                // 1 ends in b.bin; 2 spawned and ended here; 3 and 7 live on.
                tasks(
                    "a.bin",
                    &[1, 3, 7],
                    &[2],
                    &[(1, "x.rs"), (2, "y.rs"), (3, "x.rs"), (7, "z.rs")],
                ),
                // 9 was spawned before the first file.
                tasks("b.bin", &[5], &[1, 9], &[(5, "y.rs")]),
                // An id another host also used (ids are bare across hosts): ended.
                tasks("c.bin", &[], &[7], &[]),
            ]
        };
        let names: Vec<String> = files().iter().map(|p| p.file.clone()).collect();
        let alive = |order: &[usize]| {
            let mut merger = Merger::new(Options::default()).with_files(names.clone());
            let mut files: Vec<Option<Partial>> = files().into_iter().map(Some).collect();
            for &i in order {
                merger.add(files[i].take().unwrap());
            }
            merger
                .into_report()
                .lifecycle
                .alive_by_location
                .into_iter()
                .map(|l| (l.loc, l.count))
                .collect::<Vec<_>>()
        };
        let expected = vec![("x.rs".to_string(), 1), ("y.rs".to_string(), 1)];
        assert_eq!(alive(&[0, 1, 2]), expected);
        assert_eq!(alive(&[2, 0, 1]), expected, "any order in");
    }

    #[test]
    fn a_fleet_past_the_task_budget_is_told_in_the_report() {
        use crate::analysis::lifecycle::MAX_TASK_IDS;
        let opts = Options::default();
        let mut merger = Merger::new(opts.clone());
        let mut first = tasks("a.bin", &[], &[], &[(1, "x.rs")]);
        // Ids apart from each other: a run each.
        first.tasks_terminated = (0..MAX_TASK_IDS as u64 - 1).map(|i| 2 * i).collect();
        merger.add(first);
        merger.add(tasks("b.bin", &[], &[], &[(2, "y.rs"), (3, "y.rs")]));
        merger.add(tasks("c.bin", &[], &[], &[(4, "y.rs")]));
        let report = merger.into_report();
        assert_eq!(report.lifecycle.files_left_out, 2);
        assert_eq!(report.lifecycle.spawns_by_location.len(), 1);
        let text = crate::report::text::render(&report, opts.text_style());
        assert!(
            text.contains("(Counts by location leave out the last 2 files by name: "),
            "{text}"
        );
    }

    /// Partials read off the wire are crafted at worst: counts that add up
    /// past `u64::MAX` stop there (a debug build would panic, a release
    /// build wrap to nonsense).
    #[test]
    fn counts_that_add_up_past_u64_saturate() {
        let huge = |file: &str| {
            let mut p = Partial {
                file: file.into(),
                event_count: u64::MAX - 1,
                cpu_sample_count: u64::MAX,
                on_cpu: u64::MAX,
                queue_sum: u64::MAX,
                queue_count: 2,
                ..Partial::default()
            };
            for w in [0, 1] {
                let ws = p.worker_stats.entry(w).or_default();
                (ws.active_ns, ws.poll_count) = (u64::MAX, u64::MAX / 2);
                let c = p.flags.contention.entry(w).or_default();
                (c.periods, c.low) = (u64::MAX, u64::MAX / 2);
            }
            p.active_tasks = (0..12).map(|t| (t, u64::MAX / 2)).collect();
            p.flags.polls_over_10ms = u64::MAX;
            p
        };
        let mut merger = Merger::new(Options::default());
        merger.add(huge("a.bin"));
        merger.add(huge("b.bin"));
        let summary = merger.into_report().summary;
        assert_eq!(summary.event_count, u64::MAX);
        assert_eq!(
            (summary.cpu_sample_count, summary.on_cpu_sample_count),
            (u64::MAX, u64::MAX)
        );
    }
}
