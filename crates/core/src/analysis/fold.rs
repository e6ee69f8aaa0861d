//! The running fold of partials (`mergePartial`): what every file added so
//! far adds up to, before it becomes a report (`merge`) and is scanned for
//! red flags (`red_flags`).

use super::flag_counts::FlagCounts;
use super::frame_table::FrameTable;
use super::lifecycle::{ActiveSeries, TaskFold};
use super::memory::MemoryAcc;
use super::partial::{DelayRec, LongPollRec, Partial, WorkerStats, keep_worst};
use super::process::ProcessPartial;
use super::setup::SetupPartial;
use super::stacks::GroupIndex;
use crate::hdr::{Histogram, merge_by_name};
use crate::report::{FileError, KernelWait, Moment};
use crate::requests::kept::Details;
use indexmap::IndexMap;
use std::collections::BTreeMap;

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
    pub(super) active: ActiveSeries,
    pub(super) tasks: TaskFold,
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
    pub(super) setup: SetupPartial,
    pub(super) runtimes: IndexMap<String, Vec<u64>>,
    pub(super) clock_anchor: Option<(u64, i64)>,
    pub(super) incomplete_files: u64,
    pub(super) flags: FlagCounts,
    pub(super) wait_groups: GroupIndex,
    pub(super) task_dumps: u64,
    pub(super) task_dump_idle_ns: u64,
    /// The files' request details, within their budget.
    pub(super) details: Details,
    /// What files left out for d9lens's limits.
    pub(super) limits: Vec<FileError>,
    pub(super) process: ProcessPartial,
}

impl Acc {
    pub(super) fn merge(&mut self, mut p: Partial, compat_dir: bool) {
        let bounds = if compat_dir { p.runtime_bounds } else { p.bounds };
        if let Some((lo, hi)) = bounds {
            self.min_ts = Some(self.min_ts.map_or(lo, |m| m.min(lo)));
            self.max_ts = Some(self.max_ts.map_or(hi, |m| m.max(hi)));
        }
        self.event_count = self.event_count.saturating_add(p.event_count);
        self.cpu_sample_count = self.cpu_sample_count.saturating_add(p.cpu_sample_count);
        self.on_cpu = self.on_cpu.saturating_add(p.on_cpu);
        self.off_cpu = self.off_cpu.saturating_add(p.off_cpu);
        self.task_spawn_count = self.task_spawn_count.saturating_add(p.task_spawn_count);
        self.task_alive_at_end = self.task_alive_at_end.saturating_add(p.task_alive_at_end);
        self.max_local_queue = self.max_local_queue.max(p.max_local_queue);
        for (&w, ws) in &p.worker_stats {
            let d = self.workers.entry(w).or_default();
            d.active_ns = d.active_ns.saturating_add(ws.active_ns);
            d.park_ns = d.park_ns.saturating_add(ws.park_ns);
            d.ratio_sum += ws.ratio_sum;
            d.active_count = d.active_count.saturating_add(ws.active_count);
            d.poll_count = d.poll_count.saturating_add(ws.poll_count);
            d.park_count = d.park_count.saturating_add(ws.park_count);
            d.sched_waits.extend(&ws.sched_waits);
            d.poll_ns = d.poll_ns.saturating_add(ws.poll_ns);
        }
        merge_by_name(&mut self.poll_durations, std::mem::take(&mut p.poll_durations));
        if let Some(detail) = p.detail.take() {
            self.details.add(*detail, &p.frames);
        }
        let remap = self.frames.absorb(std::mem::take(&mut p.frames));
        self.long_poll_count = self.long_poll_count.saturating_add(p.long_poll_count);
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
        self.queue_sum = self.queue_sum.saturating_add(p.queue_sum);
        self.queue_count = self.queue_count.saturating_add(p.queue_count);
        self.delay_total = self.delay_total.saturating_add(p.delay_total);
        self.delay_high = self.delay_high.saturating_add(p.delay_high);
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
        self.active.add(&p.active_tasks);
        self.tasks.add(
            std::mem::take(&mut p.task_spawn_locs),
            &p.tasks_left_alive,
            &p.tasks_terminated,
        );
        self.cpu_groups
            .merge(&self.frames, &remap, std::mem::take(&mut p.cpu_groups));
        self.in_poll_groups
            .merge(&self.frames, &remap, std::mem::take(&mut p.in_poll_groups));
        self.idle_groups
            .merge(&self.frames, &remap, std::mem::take(&mut p.idle_groups));
        self.wait_groups
            .merge(&self.frames, &remap, std::mem::take(&mut p.wait_groups));
        self.task_dumps = self.task_dumps.saturating_add(p.task_dumps);
        self.process.merge(std::mem::take(&mut p.process));
        self.task_dump_idle_ns = self.task_dump_idle_ns.saturating_add(p.task_dump_idle_ns);
        self.limits
            .extend(std::mem::take(&mut p.limits).into_iter().map(|message| FileError {
                file: p.file.clone(),
                offset: None,
                message,
            }));
        self.in_poll = self.in_poll.saturating_add(p.in_poll);
        self.idle = self.idle.saturating_add(p.idle);
        for (k, v) in &p.in_poll_by_loc {
            let n = self.in_poll_by_loc.entry(k.clone()).or_default();
            *n = n.saturating_add(*v);
        }
        merge_by_name(&mut self.span_stats, std::mem::take(&mut p.span_stats));
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
        self.setup.add(&p.setup);
        for (name, ids) in crate::trace::named_runtimes(&p.metadata) {
            self.runtimes.insert(name.to_string(), ids);
        }
        self.clock_anchor = self.clock_anchor.or(p.clock_anchor);
        self.incomplete_files = self.incomplete_files.saturating_add(u64::from(p.incomplete));
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
}
