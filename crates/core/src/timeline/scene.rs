//! Several files on one axis: one lane group per host and boot (or per
//! file), placed by wall-clock time so gaps between segments show as gaps,
//! and the rows the page draws, top to bottom.

use super::kept::KeptTimelines;
use super::lod::AxisMap;
use super::model::{CounterKind, FileTimeline};
use super::palette::{Colour, colour};
use super::view::View;
use crate::bucket::layout::{ParsedKey, parse_key};
use std::collections::BTreeSet;

/// Rows' heights in CSS pixels.
pub const HEADER_H: f64 = 20.0;
pub const WORKER_H: f64 = 20.0;
pub const COUNTER_H: f64 = 26.0;
pub const SPAN_H: f64 = 14.0;

/// Workers that no `runtime.<name>` metadata names.
pub const DEFAULT_RUNTIME: &str = "default";

#[derive(Debug, Clone, PartialEq)]
pub enum RowKind {
    /// A group's title (host · boot, or the file).
    Header {
        group: usize,
    },
    Worker {
        group: usize,
        runtime: String,
        worker: u64,
    },
    Counter {
        group: usize,
        kind: CounterKind,
    },
    /// Span row `depth` of the group's files.
    Spans {
        group: usize,
        depth: u8,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub kind: RowKind,
    pub y: f64,
    pub h: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub label: String,
    /// Indices into `Scene::files`, by time.
    pub files: Vec<usize>,
}

/// A poll of the scene: file, lane (index into its `lanes`) and poll index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PollRef {
    pub file: usize,
    pub lane: usize,
    pub poll: usize,
}

#[derive(Debug, Default)]
pub struct Scene {
    pub files: Vec<FileTimeline>,
    pub maps: Vec<AxisMap>,
    pub groups: Vec<Group>,
    pub rows: Vec<Row>,
    pub height: f64,
    /// Axis length, ns.
    pub total: f64,
    /// Unix-epoch ns of the axis' origin, when the files carry a wall clock.
    pub wall_origin: Option<i64>,
    /// Per file: each task's colour (by spawn location), each string's (span names).
    pub task_colour: Vec<Vec<Colour>>,
    pub string_colour: Vec<Vec<Colour>>,
    /// Files of the run whose timelines were left out ([`KeptTimelines`]).
    pub left_out: usize,
}

/// "host · boot" of an S3 segment key; a local file is its own group.
pub fn group_label(file: &str) -> String {
    match parse_key(file, "") {
        ParsedKey::Segment(k) => match k.boot {
            Some(boot) => format!("{} · {}", k.instance, boot),
            None => k.instance,
        },
        ParsedKey::Other { .. } => file.to_string(),
    }
}

impl Scene {
    /// The scene of a run's kept timelines, saying how many were left out.
    pub fn of_kept(kept: KeptTimelines) -> Scene {
        let left_out = kept.left_out();
        Scene {
            left_out,
            ..Scene::new(kept.into_files())
        }
    }

    pub fn new(mut files: Vec<FileTimeline>) -> Scene {
        files.sort_by(|a, b| (a.wall_start, &a.file).cmp(&(b.wall_start, &b.file)));
        let (wall_origin, maps) = AxisMap::place(files.iter().map(|f| (f.start, f.wall_start)));
        let total = files
            .iter()
            .zip(&maps)
            .map(|(f, m)| m.offset + (f.end - f.start) as f64)
            .fold(0.0, f64::max);
        let mut groups: Vec<Group> = Vec::new();
        for (i, f) in files.iter().enumerate() {
            let label = group_label(&f.file);
            match groups.iter_mut().find(|g| g.label == label) {
                Some(g) => g.files.push(i),
                None => groups.push(Group { label, files: vec![i] }),
            }
        }
        let task_colour = files
            .iter()
            .map(|f| (0..f.tasks.len() as u32).map(|t| colour(f.task_loc(t))).collect())
            .collect();
        let string_colour = files
            .iter()
            .map(|f| f.strings.iter().map(|s| colour(Some(s))).collect())
            .collect();
        let mut scene = Scene {
            task_colour,
            string_colour,
            files,
            maps,
            groups,
            total,
            wall_origin,
            ..Scene::default()
        };
        scene.lay_out();
        scene
    }

    fn lay_out(&mut self) {
        let mut rows = Vec::new();
        let mut y = 0.0;
        let mut push = |kind: RowKind, h: f64| {
            rows.push(Row { kind, y, h });
            y += h;
        };
        for (g, group) in self.groups.iter().enumerate() {
            let files = group.files.iter().map(|&i| &self.files[i]);
            // Named runtimes first (by name), then the default one.
            let workers: BTreeSet<(bool, String, u64)> = files
                .clone()
                .flat_map(|f| f.lanes.iter())
                .map(|l| (l.runtime.is_none(), l.runtime.clone().unwrap_or_default(), l.worker))
                .collect();
            let counters: BTreeSet<CounterOrder> = files
                .clone()
                .flat_map(|f| f.counters.iter().map(|c| CounterOrder(c.kind)))
                .collect();
            let span_rows = files.map(|f| f.spans.rows()).max().unwrap_or(0);
            push(RowKind::Header { group: g }, HEADER_H);
            for (unnamed, name, worker) in workers {
                let runtime = if unnamed { DEFAULT_RUNTIME.to_string() } else { name };
                push(
                    RowKind::Worker {
                        group: g,
                        runtime,
                        worker,
                    },
                    WORKER_H,
                );
            }
            for CounterOrder(kind) in counters {
                push(RowKind::Counter { group: g, kind }, COUNTER_H);
            }
            for depth in 0..span_rows {
                push(RowKind::Spans { group: g, depth }, SPAN_H);
            }
        }
        self.rows = rows;
        self.height = y;
    }

    pub fn view(&self) -> View {
        View::all(self.total)
    }

    /// The spawn locations with the most polls, and their counts (ties by name).
    pub fn legend(&self, n: usize) -> Vec<(String, Colour, usize)> {
        let mut counts: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for f in &self.files {
            let mut per_task = vec![0usize; f.tasks.len()];
            for l in &f.lanes {
                l.polls.task.iter().for_each(|t| per_task[t as usize] += 1);
            }
            for (t, c) in per_task.into_iter().enumerate() {
                if let Some(loc) = f.task_loc(t as u32) {
                    *counts.entry(loc).or_default() += c;
                }
            }
        }
        let mut v: Vec<(&str, usize)> = counts.into_iter().collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        v.into_iter()
            .take(n)
            .map(|(loc, c)| (loc.to_string(), colour(Some(loc)), c))
            .collect()
    }

    pub fn poll_count(&self) -> usize {
        self.files.iter().map(FileTimeline::poll_count).sum()
    }

    /// The row at `y` (CSS pixels from the top of the lanes).
    pub fn row_at(&self, y: f64) -> Option<&Row> {
        let i = self.rows.partition_point(|r| r.y + r.h <= y);
        self.rows.get(i).filter(|r| r.y <= y)
    }

    /// The lanes of worker `worker` in a group: (file index, lane index).
    pub fn lanes_of(&self, group: usize, worker: u64) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.groups[group].files.iter().filter_map(move |&f| {
            self.files[f]
                .lanes
                .binary_search_by_key(&worker, |l| l.worker)
                .ok()
                .map(|l| (f, l))
        })
    }

    pub(super) fn file_index(&self, file: &str) -> Option<usize> {
        self.files.iter().position(|t| t.file == file)
    }

    /// Axis interval of `[start, start + dur]` (trace ns) of `file`.
    pub fn stretch(&self, file: &str, start: u64, dur: u64) -> Option<(f64, f64)> {
        let m = self.maps[self.file_index(file)?];
        Some((m.axis(start), m.axis(start.saturating_add(dur))))
    }

    /// The poll of `file` on `worker` that starts at `start` (trace ns).
    pub fn find_poll(&self, file: &str, worker: u64, start: u64) -> Option<PollRef> {
        let f = self.file_index(file)?;
        let lane = self.files[f].lanes.binary_search_by_key(&worker, |l| l.worker).ok()?;
        let polls = &self.files[f].lanes[lane].polls;
        let i = polls.starts().partition_point(0..polls.len(), |s| s < start);
        let poll = (i < polls.len() && polls.start(i) == start).then_some(i)?;
        Some(PollRef { file: f, lane, poll })
    }

    /// Axis interval of a poll.
    pub fn poll_span(&self, p: PollRef) -> (f64, f64) {
        let polls = &self.files[p.file].lanes[p.lane].polls;
        let map = self.maps[p.file];
        (map.axis(polls.start(p.poll)), map.axis(polls.end(p.poll)))
    }

    /// A window showing `[start, end]` with room around it (the interval
    /// takes about a third of the view), for "show on timeline".
    pub fn focus(&self, start: f64, end: f64) -> View {
        let span = (end - start).max(0.0);
        let pad = span.max(1_000.0);
        self.view().window(start - pad, end + pad)
    }
}

/// Counter rows in a fixed order: queue, active tasks, kernel wait by worker, allocations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CounterOrder(CounterKind);

impl CounterOrder {
    fn key(&self) -> (u8, u64) {
        match self.0 {
            CounterKind::GlobalQueue => (0, 0),
            CounterKind::ActiveTasks => (1, 0),
            CounterKind::KernelWait { worker } => (2, worker),
            CounterKind::Allocated => (3, 0),
            CounterKind::ProcessCpu { available } => (4, available),
            CounterKind::AcceptQueue { backlog } => (5, backlog),
        }
    }
}

impl PartialOrd for CounterOrder {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for CounterOrder {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}
