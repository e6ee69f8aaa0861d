//! Merging partials (`mergePartial`) and finalizing them into a `Report`.

use super::memory::{MemoryAcc, REFERENCE_SAMPLE_RATE};
use super::partial::{DelayRec, LongPollRec, Partial, WorkerStats, keep_worst};
use super::red_flags::{self, FlagCounts};
use super::stacks::{FrameId, FrameTable, Group, GroupIndex};
use super::{Options, setup};
use crate::frames::{FrameKind, format_frame, frame_kind};
use crate::hashing::FastMap;
use crate::hdr::Histogram;
use crate::profile::calls;
use crate::profile::flame;
use crate::profile::labels::{Label, LabelId, Labeler, Path};
use crate::profile::origin::Origin;
use crate::report::*;
use indexmap::IndexMap;
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
        expected.sort();
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
        let mut report = self.acc.finish(&self.opts, compat_dir);
        report.label = label;
        report.files = self.folded;
        report.errors = self.errors.into_values().collect();
        report
    }
}

/// The running fold of partials (`createAccumulator`).
#[derive(Debug, Clone, Default)]
pub(super) struct Acc {
    pub(super) min_ts: Option<u64>,
    pub(super) max_ts: Option<u64>,
    pub(super) workers: BTreeMap<u64, WorkerStats>,
    pub(super) event_count: u64,
    pub(super) cpu_sample_count: u64,
    pub(super) on_cpu: u64,
    pub(super) off_cpu: u64,
    pub(super) task_spawn_count: u64,
    pub(super) task_alive_at_end: i64,
    pub(super) max_local_queue: u64,
    pub(super) poll_durations: IndexMap<String, Histogram>,
    pub(super) long_polls: Vec<LongPollRec>,
    pub(super) long_poll_count: u64,
    pub(super) queue_max: u64,
    pub(super) queue_sum: u64,
    pub(super) queue_count: u64,
    pub(super) delay_total: u64,
    pub(super) delay_high: u64,
    pub(super) delay_worst: Vec<DelayRec>,
    pub(super) delay_hist: Option<Histogram>,
    pub(super) active_tasks: Vec<(u64, u64)>,
    pub(super) task_spawn_locs: IndexMap<u64, Option<String>>,
    pub(super) task_spawn_times: IndexMap<u64, u64>,
    pub(super) task_terminate_times: IndexMap<u64, u64>,
    /// The frames of every stack of the fold.
    pub(super) frames: FrameTable,
    pub(super) cpu_groups: GroupIndex,
    pub(super) in_poll_groups: GroupIndex,
    pub(super) idle_groups: GroupIndex,
    pub(super) in_poll: u64,
    pub(super) idle: u64,
    pub(super) in_poll_by_loc: IndexMap<String, u64>,
    pub(super) span_stats: IndexMap<String, Histogram>,
    /// Each span name's slowest instance over the files (ties: the earliest file name).
    pub(super) span_slowest: IndexMap<String, Moment>,
    pub(super) memory: MemoryAcc,
    pub(super) setup: super::partial::SetupPartial,
    pub(super) runtimes: IndexMap<String, Vec<u64>>,
    pub(super) clock_anchor: Option<(u64, i64)>,
    pub(super) incomplete_files: u64,
    pub(super) flags: FlagCounts,
}

/// Histograms by name folded into `dst` (a new name takes its histogram as is).
pub(super) fn merge_hist(dst: &mut IndexMap<String, Histogram>, src: impl IntoIterator<Item = (String, Histogram)>) {
    for (k, h) in src {
        match dst.entry(k) {
            indexmap::map::Entry::Occupied(mut o) => o.get_mut().merge(&h),
            indexmap::map::Entry::Vacant(v) => {
                v.insert(h);
            }
        }
    }
}

impl Acc {
    fn merge(&mut self, mut p: Partial, compat_dir: bool) {
        let bounds = if compat_dir { p.runtime_bounds } else { p.bounds };
        if let Some((lo, hi)) = bounds {
            self.min_ts = Some(self.min_ts.map_or(lo, |m| m.min(lo)));
            self.max_ts = Some(self.max_ts.map_or(hi, |m| m.max(hi)));
        }
        self.event_count += p.event_count;
        self.cpu_sample_count += p.cpu_sample_count;
        self.on_cpu += p.on_cpu;
        self.off_cpu += p.off_cpu;
        self.task_spawn_count += p.task_spawn_count;
        self.task_alive_at_end += p.task_alive_at_end;
        self.max_local_queue = self.max_local_queue.max(p.max_local_queue);
        for (&w, ws) in &p.worker_stats {
            let d = self.workers.entry(w).or_default();
            d.active_ns += ws.active_ns;
            d.park_ns += ws.park_ns;
            d.ratio_sum += ws.ratio_sum;
            d.active_count += ws.active_count;
            d.poll_count += ws.poll_count;
            d.park_count += ws.park_count;
            d.sched_waits.extend(&ws.sched_waits);
            d.poll_ns += ws.poll_ns;
        }
        merge_hist(&mut self.poll_durations, std::mem::take(&mut p.poll_durations));
        let remap = self.frames.absorb(std::mem::take(&mut p.frames));
        self.long_poll_count += p.long_poll_count;
        self.long_polls
            .extend(std::mem::take(&mut p.long_polls).into_iter().map(|mut lp| {
                lp.sched_samples = lp.sched_samples.iter().map(|s| remap.stack(s)).collect();
                lp.cpu_samples = lp.cpu_samples.iter().map(|s| remap.stack(s)).collect();
                if compat_dir {
                    // The reference labels directory-mode polls by cache name: `.bin.gz` shows as `.bin`.
                    if let Some(stem) = lp.file.strip_suffix(".gz") {
                        lp.file = stem.to_string();
                    }
                }
                lp
            }));
        keep_worst(&mut self.long_polls, |l| l.dur);
        self.queue_max = self.queue_max.max(p.queue_max);
        self.queue_sum += p.queue_sum;
        self.queue_count += p.queue_count;
        self.delay_total += p.delay_total;
        self.delay_high += p.delay_high;
        self.delay_worst.append(&mut p.delay_worst);
        keep_worst(&mut self.delay_worst, |d| d.delay);
        if let Some(h) = p.delay_hist.take() {
            match &mut self.delay_hist {
                Some(acc) => acc.merge(&h),
                None => self.delay_hist = Some(h),
            }
        } else if compat_dir {
            self.delay_hist.get_or_insert_with(Histogram::default);
        }
        self.active_tasks.extend(&p.active_tasks);
        self.task_spawn_locs.extend(std::mem::take(&mut p.task_spawn_locs));
        self.task_spawn_times.extend(&p.task_spawn_times);
        self.task_terminate_times.extend(&p.task_terminate_times);
        self.cpu_groups
            .merge(&self.frames, &remap, std::mem::take(&mut p.cpu_groups));
        self.in_poll_groups
            .merge(&self.frames, &remap, std::mem::take(&mut p.in_poll_groups));
        self.idle_groups
            .merge(&self.frames, &remap, std::mem::take(&mut p.idle_groups));
        self.in_poll += p.in_poll;
        self.idle += p.idle;
        for (k, v) in &p.in_poll_by_loc {
            *self.in_poll_by_loc.entry(k.clone()).or_default() += v;
        }
        merge_hist(&mut self.span_stats, std::mem::take(&mut p.span_stats));
        for (name, (dur, start)) in std::mem::take(&mut p.span_slowest) {
            let moment = Moment {
                file: p.file.clone(),
                worker: None,
                start_ns: start,
                dur_ns: dur,
            };
            let slowest = self.span_slowest.entry(name).or_insert_with(|| moment.clone());
            if (dur, std::cmp::Reverse(&moment.file)) > (slowest.dur_ns, std::cmp::Reverse(&slowest.file)) {
                *slowest = moment;
            }
        }
        self.memory.merge(std::mem::take(&mut p.memory), &remap);
        let s = &mut self.setup;
        s.symbols += p.setup.symbols;
        s.symbols_with_location += p.setup.symbols_with_location;
        s.wake_events += p.setup.wake_events;
        s.poll_starts += p.setup.poll_starts;
        s.unparks += p.setup.unparks;
        s.on_cpu_chain_frames += p.setup.on_cpu_chain_frames;
        s.on_cpu_addresses.extend(&p.setup.on_cpu_addresses);
        s.tokio_unstable_false |= p.setup.tokio_unstable_false;
        s.time.add(&p.setup.time);
        for (name, ids) in crate::trace::named_runtimes(&p.metadata) {
            self.runtimes.insert(name.to_string(), ids);
        }
        self.clock_anchor = self.clock_anchor.or(p.clock_anchor);
        self.incomplete_files += u64::from(p.incomplete);
        self.flags.merge(&p.flags);
    }

    /// Per worker with any kernel scheduling wait: count, max, p50 (of the descending list), > 1 ms.
    pub(super) fn kernel_waits(&self) -> Vec<KernelWait> {
        self.workers
            .iter()
            .filter(|(_, ws)| !ws.sched_waits.is_empty())
            .map(|(&w, ws)| {
                let mut waits = ws.sched_waits.clone();
                waits.sort_by(|a, b| b.cmp(a));
                KernelWait {
                    worker: w,
                    count: waits.len() as u64,
                    max_ns: waits[0],
                    p50_ns: waits[waits.len() / 2],
                    count_over_1ms: waits.iter().filter(|&&x| x > 1_000_000).count() as u64,
                }
            })
            .collect()
    }

    fn finish(mut self, opts: &Options, compat_dir: bool) -> Report {
        self.active_tasks.sort_by_key(|p| p.0);
        let in_poll_groups = std::mem::take(&mut self.in_poll_groups).into_sorted();
        let in_poll_calls = {
            let resolved: Vec<Vec<Frame>> = in_poll_groups.iter().map(|g| self.frames.resolve(&g.stack)).collect();
            calls::by_call(
                in_poll_groups
                    .iter()
                    .zip(&resolved)
                    .map(|(g, frames)| (g.count, g.blocked_ns, &frames[..], g.at.as_ref())),
            )
        };
        let red_flags = red_flags::scan(&self, in_poll_calls.first());
        let duration_ns = match (self.min_ts, self.max_ts) {
            (Some(lo), Some(hi)) if lo <= hi => hi - lo,
            _ => 0,
        };
        let min_ts = self.min_ts.unwrap_or(0);
        let rel = |t: u64| (t as i64).saturating_sub(min_ts as i64);
        let spawn_loc = |task: u64| self.task_spawn_locs.get(&task).cloned().flatten();
        let rate = if opts.reference_compatible {
            REFERENCE_SAMPLE_RATE
        } else {
            self.memory.trace_sample_rate().unwrap_or(REFERENCE_SAMPLE_RATE)
        };
        let memory = if compat_dir {
            None
        } else {
            self.memory.finish(rate, &self.frames, spawn_loc)
        };
        let workers: Vec<WorkerUtilization> = self
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
        let kernel_wait = self.kernel_waits();
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
        for h in self.poll_durations.values() {
            polls_hist.merge(h);
        }
        let all_polls = hist_stats(&"all polls".to_string(), &polls_hist);
        let distributions = {
            let mut by_count: Vec<(&String, &Histogram)> = self.span_stats.iter().collect();
            by_count.sort_by(|a, b| b.1.count().cmp(&a.1.count()).then(a.0.cmp(b.0)));
            Distributions {
                polls: polls_hist.log_bins(BINS_PER_DECADE),
                sched_delays: self
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
        let mut poll_by_spawn: Vec<DurationStats> = self.poll_durations.iter().map(|(k, h)| hist_stats(k, h)).collect();
        poll_by_spawn.sort_by_key(|a| std::cmp::Reverse(a.max_ns));
        let mut spans: Vec<DurationStats> = self
            .span_stats
            .iter()
            .map(|(k, h)| DurationStats {
                slowest: self.span_slowest.get(k).cloned(),
                ..hist_stats(k, h)
            })
            .collect();
        spans.sort_by_key(|a| std::cmp::Reverse(a.count));
        let cpu_groups = std::mem::take(&mut self.cpu_groups).into_sorted();
        let shown = |groups: &[Group]| -> Vec<StackGroup> {
            groups
                .iter()
                .take(REPORT_STACKS)
                .map(|g| g.to_report(&self.frames))
                .collect()
        };
        let in_poll_stacks = shown(&in_poll_groups);
        let weighted = |groups: &[Group]| groups.iter().map(Group::weighted).collect();
        let profiles = Profiles {
            frames: self.frames.to_vec(),
            on_cpu: weighted(&cpu_groups),
            blocking: weighted(&in_poll_groups),
            idle: weighted(&std::mem::take(&mut self.idle_groups).into_sorted()),
            alloc_bytes: self.memory.bytes_by_stack(),
        };
        Report {
            setup: setup::diagnose(
                &self.setup,
                self.on_cpu,
                self.cpu_sample_count - self.on_cpu,
                self.task_spawn_count,
                opts,
            ),
            summary: Summary {
                duration_ms: duration_ns as f64 / 1e6,
                min_ts: self.min_ts,
                max_ts: self.max_ts,
                wall_clock_start_ns: self.clock_anchor.map(|(mono, real)| real.saturating_sub(rel(mono))),
                workers: self.workers.keys().copied().collect(),
                event_count: self.event_count,
                cpu_sample_count: self.cpu_sample_count,
                on_cpu_sample_count: self.on_cpu,
                off_cpu_sample_count: self.off_cpu,
                task_spawn_count: self.task_spawn_count,
                task_alive_at_end: self.task_alive_at_end,
                runtimes: self
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
                count: self.long_poll_count,
                worst_ns: self.long_polls.first().map(|l| l.dur),
                worst: long_polls(&self.long_polls, &self.frames, rel),
            },
            sched_delays: SchedDelays {
                count: self.delay_total,
                count_over_1ms: self.delay_high,
                p50_ns: self.delay_hist.as_ref().map_or(0, |h| h.percentile(50.0)),
                p99_ns: self.delay_hist.as_ref().map_or(0, |h| h.percentile(99.0)),
                max_ns: self.delay_hist.as_ref().map_or(0, Histogram::max),
                has_histogram: self.delay_hist.is_some(),
                worst: self
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
            lifecycle: lifecycle(&self),
            blocking: Blocking {
                off_cpu_samples: self.off_cpu,
                in_poll: self.in_poll,
                idle_park: self.idle,
                in_poll_by_location: {
                    let mut v: Vec<LocationCount> = self
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
                samples: self.on_cpu,
                tree: hotspot_tree(&cpu_groups, &self.frames),
                top_stacks: shown(&cpu_groups),
            },
            queue: QueueDepth {
                global_max: (self.queue_count > 0).then_some(self.queue_max),
                global_avg: (self.queue_count > 0).then(|| self.queue_sum as f64 / self.queue_count as f64),
                samples: self.queue_count,
                max_local_queue: self.max_local_queue,
            },
            kernel_wait,
            spans,
            memory,
            red_flags,
            profiles: std::sync::Arc::new(profiles),
            ..Report::default()
        }
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

fn lifecycle(acc: &Acc) -> Lifecycle {
    let count_by = |locs: &mut dyn Iterator<Item = &Option<String>>| {
        let mut counts: IndexMap<String, u64> = IndexMap::new();
        for loc in locs {
            *counts
                .entry(loc.clone().unwrap_or_else(|| "(unknown)".into()))
                .or_default() += 1;
        }
        let mut v: Vec<LocationCount> = counts
            .into_iter()
            .map(|(loc, count)| LocationCount { loc, count })
            .collect();
        v.sort_by_key(|a| std::cmp::Reverse(a.count));
        v
    };
    let samples = &acc.active_tasks;
    let peak = samples.iter().map(|s| s.1).max();
    let first = samples.first().map(|s| s.1);
    let last = samples.last().map(|s| s.1);
    let possible_leak = matches!((last, peak), (Some(l), Some(p)) if l as f64 > p as f64 / 2.0 && l == p);
    let none = None;
    let alive_by_location = count_by(
        &mut acc
            .task_spawn_times
            .keys()
            .filter(|t| !acc.task_terminate_times.contains_key(*t))
            .map(|t| acc.task_spawn_locs.get(t).unwrap_or(&none)),
    );
    Lifecycle {
        spawns_by_location: count_by(&mut acc.task_spawn_locs.values()),
        peak_active: peak,
        active_at_first_sample: first,
        active_at_last_sample: last,
        possible_leak,
        alive_by_location,
    }
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
