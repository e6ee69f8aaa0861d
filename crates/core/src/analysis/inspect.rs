//! Questions the page asks about one file after its report, answered by a
//! worker from the file's decoded trace: one poll in depth (the task's
//! history and `diagnose`'s verdict on that poll), one window as `zoom`
//! shows it, or one window's whole analysis (its partial, to merge).

use super::Partial;
use super::diagnose::{self, DiagnoseOptions, Target};
use super::frame_table::FrameTable;
use super::stacks::{Group, Symbolizer, group_chains};
use super::workers::{self, Poll, Timelines};
use super::zoom::{self, Zoom};
use crate::hashing::FastMap;
use crate::profile::calls::naming_text;
use crate::report::Profiles;
use crate::trace::{ParsedTrace, StrId, Wake, Window};
use serde::{Deserialize, Serialize};

/// How many of a task's polls and wakes an answer lists (nearest the poll first).
const HISTORY_ITEMS: usize = 50;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum InspectQuery {
    /// The poll of `worker` starting at `start` (trace ns).
    #[serde(rename_all = "camelCase")]
    Poll { worker: u64, start: u64 },
    /// The window [start, end] (trace ns), as `d9lens zoom` shows it.
    #[serde(rename_all = "camelCase")]
    Window { start: u64, end: u64 },
    /// Everything that started in `window`, analyzed as a file of its own.
    Analysis { window: Window },
    /// The wakes a Chrome trace draws as flows (`export::chrome`): those by a
    /// known task; the timeline the page has holds the rest.
    Wakes,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum InspectAnswer {
    Poll(Box<PollInspection>),
    Window(Box<Zoom>),
    Analysis(Box<Partial>),
    /// The wakes by a known task, and how many wakes the file has in all.
    #[serde(rename_all = "camelCase")]
    Wakes {
        by_task: Vec<Wake>,
        total: u64,
    },
    /// The poll is not in the file (another file of the same name, or a stale link).
    NotFound,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PollInspection {
    pub worker: u64,
    pub task_id: u64,
    pub start_ns: u64,
    pub dur_ns: u64,
    /// Relative to the file's first event, ms.
    pub start_rel_ms: f64,
    pub spawn_loc: Option<String>,
    pub history: TaskHistory,
    /// What `d9lens diagnose --task T` says about this very poll.
    pub diagnosis: Option<Target>,
    /// The samples taken in all of the task's polls.
    pub task_profile: Profiles,
    /// The samples taken in the polls of every task spawned where it was
    /// (`None` when the trace does not say where).
    pub spawn_profile: Option<Profiles>,
}

/// A task's life around one of its polls. Times relative to the file's first event, ms.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskHistory {
    pub spawned_ms: Option<f64>,
    pub terminated_ms: Option<f64>,
    pub wake_count: usize,
    /// The wakes nearest before the poll (latest first).
    pub wakes: Vec<TaskWake>,
    pub poll_count: usize,
    /// The task's polls nearest the inspected one, by start.
    pub polls: Vec<TaskPoll>,
}

/// One wake of the task: when, and by which task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskWake {
    /// Relative to the file's first event, ms.
    pub at_ms: f64,
    /// The task that woke it (`None`: the trace does not say).
    pub waker: Option<u64>,
    /// Where the waker was spawned, when the trace knows it.
    pub waker_spawn_loc: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskPoll {
    pub worker: u64,
    pub start_ms: f64,
    pub dur_ns: u64,
    /// The inspected poll.
    pub this: bool,
    /// How long the task then sat idle, until its next poll (`None`: its last poll here).
    pub idle_after_ns: Option<u64>,
    /// What it was awaiting meanwhile: the frame that names the task dump
    /// taken as it went idle (`None`: no dump).
    pub awaiting: Option<String>,
}

/// The answer about the file `name` whose events are `trace`.
pub fn inspect(name: &str, mut trace: ParsedTrace, query: &InspectQuery) -> InspectAnswer {
    match *query {
        InspectQuery::Analysis { window } => {
            trace.clip(window);
            InspectAnswer::Analysis(Box::new(Partial::from_trace(name, trace)))
        }
        InspectQuery::Window { start, end } => {
            let (start, end) = (start.min(end), start.max(end));
            let min_ts = trace.bounds.map_or(0, |b| b.0);
            let center = (start as f64 - min_ts as f64) / 1e6 + (end - start) as f64 / 2e6;
            InspectAnswer::Window(Box::new(zoom::zoom(&trace, center, (end - start) as f64 / 2e6, None)))
        }
        InspectQuery::Poll { worker, start } => poll(&trace, worker, start),
        InspectQuery::Wakes => InspectAnswer::Wakes {
            total: trace.wakes.len() as u64,
            by_task: trace.known_wakes(),
        },
    }
}

/// The on-CPU and blocking samples taken in the polls `keep` picks.
fn polls_profile(trace: &ParsedTrace, tl: &Timelines, keep: impl Fn(&Poll) -> bool) -> Profiles {
    let mut table = FrameTable::default();
    let mut symbolizer = Symbolizer::new(&trace.symbols, &mut table);
    let polls: Vec<&Poll> = tl.workers.values().flat_map(|w| &w.polls).filter(|p| keep(p)).collect();
    let chains = |samples: fn(&Poll) -> &[usize]| {
        polls
            .iter()
            .flat_map(move |&p| samples(p).iter().map(|&i| &trace.samples[i].callchain[..]))
    };
    let on_cpu = group_chains(chains(Poll::cpu_samples), &mut symbolizer);
    let blocking = group_chains(chains(Poll::sched_samples), &mut symbolizer);
    let weighted = |mut groups: Vec<Group>| {
        groups.sort_by_key(|g| std::cmp::Reverse(g.count));
        groups.iter().map(Group::weighted).collect()
    };
    Profiles {
        on_cpu: weighted(on_cpu),
        blocking: weighted(blocking),
        frames: table.to_vec(),
        ..Profiles::default()
    }
}

/// Each poll's idle gap after it, and the await the task sat on in it: the
/// first dump of the task taken from the poll's start to the next poll's
/// (dial9 dumps a task as its poll returns pending). `polls`: (start, end,
/// row), by start.
fn name_idle_gaps(trace: &ParsedTrace, task: u64, polls: &mut [(u64, u64, TaskPoll)]) {
    let mut dumps: Vec<(u64, u32)> = trace
        .app
        .dumps
        .iter()
        .filter(|d| d.task == task)
        .map(|d| (d.ts, d.chain))
        .collect();
    dumps.sort_unstable();
    let mut table = FrameTable::default();
    let mut symbolizer = Symbolizer::new(&trace.symbols, &mut table);
    let mut names: FastMap<u32, Option<String>> = FastMap::default();
    for i in 0..polls.len() {
        let (start, end) = (polls[i].0, polls[i].1);
        let next = polls.get(i + 1).map(|n| n.0);
        let row = &mut polls[i].2;
        row.idle_after_ns = next.map(|n| n.saturating_sub(end));
        let first = dumps.partition_point(|d| d.0 < start);
        let Some(&(_, chain)) = dumps.get(first).filter(|d| next.is_none_or(|n| d.0 < n)) else {
            continue;
        };
        row.awaiting = names
            .entry(chain)
            .or_insert_with(|| {
                let stack = trace.app.dump_chains.get(chain as usize)?;
                let ids = symbolizer.stack(stack);
                let frames = symbolizer.table().resolve(&ids);
                naming_text(&frames)
            })
            .clone();
    }
}

/// One poll in depth: the task's history and `diagnose`'s verdict on it.
fn poll(trace: &ParsedTrace, worker: u64, start: u64) -> InspectAnswer {
    let min_ts = trace.bounds.map_or(0, |b| b.0);
    let rel = |ts: u64| (ts as f64 - min_ts as f64) / 1e6;
    let tl = workers::build(trace, trace.bounds.map_or(0, |b| b.1));
    let Some(poll) = tl.workers.get(&worker).and_then(|w| {
        w.polls
            .binary_search_by_key(&start, |p| p.start)
            .ok()
            .map(|i| &w.polls[i])
    }) else {
        return InspectAnswer::NotFound;
    };
    let (task, spawn): (u64, Option<StrId>) = (poll.task_id, poll.spawn_loc);
    let mut polls: Vec<(u64, u64, TaskPoll)> = tl
        .workers
        .iter()
        .flat_map(|(&w, wt)| wt.polls.iter().map(move |p| (w, p)))
        .filter(|(_, p)| p.task_id == task)
        .map(|(w, p)| {
            let poll = TaskPoll {
                worker: w,
                start_ms: rel(p.start),
                dur_ns: p.end - p.start,
                this: w == worker && p.start == start,
                idle_after_ns: None,
                awaiting: None,
            };
            (p.start, p.end, poll)
        })
        .collect();
    polls.sort_by_key(|(s, _, _)| *s);
    name_idle_gaps(trace, task, &mut polls);
    let polls: Vec<TaskPoll> = polls.into_iter().map(|(_, _, p)| p).collect();
    let poll_count = polls.len();
    let at = polls.iter().position(|p| p.this).unwrap_or(0);
    let from = at
        .saturating_sub(HISTORY_ITEMS / 2)
        .min(poll_count.saturating_sub(HISTORY_ITEMS));
    let polls = polls.into_iter().skip(from).take(HISTORY_ITEMS).collect();
    let wake_count = trace.wakes.iter().filter(|w| w.task == task).count();
    let mut before: Vec<&Wake> = trace.wakes.iter().filter(|w| w.task == task && w.ts <= start).collect();
    // Latest first; a stable sort keeps file order among equal times.
    before.sort_by_key(|w| std::cmp::Reverse(w.ts));
    let wake = |w: &Wake| {
        let waker = (w.waker != 0).then_some(w.waker);
        TaskWake {
            at_ms: rel(w.ts),
            waker,
            waker_spawn_loc: waker
                .and_then(|id| trace.spawn_loc(trace.task_spawn_locs.get(&id).copied().flatten()))
                .map(str::to_string),
        }
    };
    let diagnosis = diagnose::diagnose_in(
        trace,
        &tl,
        &DiagnoseOptions {
            task: Some(task),
            poll_start: Some(start),
            min_ms: Some(0.0),
            ..DiagnoseOptions::default()
        },
    )
    .targets
    .into_iter()
    .find(|t| t.worker == worker && t.start_ns == start);
    InspectAnswer::Poll(Box::new(PollInspection {
        worker,
        task_id: task,
        start_ns: start,
        dur_ns: poll.end - poll.start,
        start_rel_ms: rel(start),
        spawn_loc: trace.spawn_loc(poll.spawn_loc).map(str::to_string),
        history: TaskHistory {
            spawned_ms: trace.task_spawn_times.get(&task).map(|&t| rel(t)),
            terminated_ms: trace.task_terminate_times.get(&task).map(|&t| rel(t)),
            wake_count,
            wakes: before.into_iter().take(HISTORY_ITEMS).map(wake).collect(),
            poll_count,
            polls,
        },
        diagnosis,
        task_profile: polls_profile(trace, &tl, |p| p.task_id == task),
        spawn_profile: spawn.map(|loc| polls_profile(trace, &tl, |p| p.spawn_loc == Some(loc))),
    }))
}
