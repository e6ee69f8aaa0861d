//! Questions the page asks about one file after its report, answered by a
//! worker from the file's decoded trace: one poll in depth (the task's
//! history and `diagnose`'s verdict on that poll), or one window (`zoom`).

use super::diagnose::{self, DiagnoseOptions, Target};
use super::workers;
use super::zoom::{self, Zoom};
use crate::trace::{ParsedTrace, Wake};
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
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum InspectAnswer {
    Poll(Box<PollInspection>),
    Window(Box<Zoom>),
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
}

pub fn inspect(trace: &ParsedTrace, query: &InspectQuery) -> InspectAnswer {
    let min_ts = trace.bounds.map_or(0, |b| b.0);
    let rel = |ts: u64| (ts as f64 - min_ts as f64) / 1e6;
    match *query {
        InspectQuery::Window { start, end } => {
            let (start, end) = (start.min(end), start.max(end));
            let center = rel(start) + (end - start) as f64 / 2e6;
            InspectAnswer::Window(Box::new(zoom::zoom(trace, center, (end - start) as f64 / 2e6, None)))
        }
        InspectQuery::Poll { worker, start } => {
            let tl = workers::build(trace, trace.bounds.map_or(0, |b| b.1));
            let Some(poll) = tl.workers.get(&worker).and_then(|w| {
                w.polls
                    .binary_search_by_key(&start, |p| p.start)
                    .ok()
                    .map(|i| &w.polls[i])
            }) else {
                return InspectAnswer::NotFound;
            };
            let task = poll.task_id;
            let mut polls: Vec<TaskPoll> = tl
                .workers
                .iter()
                .flat_map(|(&w, wt)| wt.polls.iter().map(move |p| (w, p)))
                .filter(|(_, p)| p.task_id == task)
                .map(|(w, p)| TaskPoll {
                    worker: w,
                    start_ms: rel(p.start),
                    dur_ns: p.end - p.start,
                    this: w == worker && p.start == start,
                })
                .collect();
            polls.sort_by(|a, b| a.start_ms.total_cmp(&b.start_ms));
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
            }))
        }
    }
}
