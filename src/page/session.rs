//! One analysis run: the files being analyzed, their progress and errors, and
//! the merged report. Files opened together (one drop, one selection, the demo)
//! form one run and give one report; opening more files starts a new run.

use crate::clock::now_ms;
use crate::page::worker_pool::{self, Job, Pool, PoolEvent, Source};
use crate::protocol::Phase;
use d9lens_core::analysis::inspect::{InspectAnswer, InspectQuery};
use d9lens_core::analysis::interim::{Interim, Next};
use d9lens_core::analysis::{FileOutcome, Merger, Options, crash, in_fold_order};
use d9lens_core::bucket::cached;
use d9lens_core::fleet::packed::outcomes_of;
use d9lens_core::report::{FileError, Report};
use d9lens_core::timeline::{KeptTimelines, Scene};
use leptos::prelude::*;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Where a file stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    Fetching,
    Queued,
    Reading,
    Working(Phase),
    Done,
    Failed,
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Status::Fetching => "downloading",
            Status::Queued => "queued",
            Status::Reading => "reading",
            Status::Working(phase) => phase.label(),
            Status::Done => "done",
            Status::Failed => "error",
        }
    }

    /// A stable, CSS- and test-friendly name.
    pub fn key(self) -> &'static str {
        match self {
            Status::Fetching => "fetching",
            Status::Queued => "queued",
            Status::Reading => "reading",
            Status::Working(_) => "working",
            Status::Done => "done",
            Status::Failed => "error",
        }
    }

    pub fn finished(self) -> bool {
        matches!(self, Status::Done | Status::Failed)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct FileRow {
    pub id: u32,
    pub name: String,
    /// Input size in bytes, when known.
    pub size: Option<u64>,
    pub status: Status,
    /// Bytes decoded (inflated size for gzip), once known.
    pub bytes: u64,
    pub events: u64,
    /// The workers that took the file: the first reads and unpacks it; a
    /// second, when there is one, decodes and analyzes what it unpacks.
    pub workers: Vec<usize>,
    /// Set when the file had an error (the row may still have contributed events).
    pub error: Option<String>,
    /// An S3 object that came from the segment cache (not downloaded).
    pub cached: bool,
    /// The worker's own time for the file (gunzip, decode, analysis), once done.
    pub analysis_ms: Option<f64>,
}

/// A finished run, for the status line.
#[derive(Debug, Clone, PartialEq)]
pub struct RunStats {
    pub files: usize,
    pub failed: usize,
    pub elapsed_ms: f64,
    pub workers: usize,
}

/// The page's reactive state. `Copy`: hand it to any component or closure.
#[derive(Clone, Copy)]
pub struct AppState {
    pub rows: RwSignal<Vec<FileRow>>,
    pub errors: RwSignal<Vec<FileError>>,
    pub report: RwSignal<Option<Arc<Report>>>,
    /// A report kept to compare the next ones with ("A").
    pub baseline: RwSignal<Option<Arc<Report>>>,
    /// The report of the window brushed on the timeline, once its files have
    /// answered: the sections show it instead of the whole report's.
    pub window_report: RwSignal<Option<Arc<Report>>>,
    /// The timeline of the run's files, set with the final report.
    pub scene: RwSignal<Option<Arc<Scene>>>,
    /// While the report shown is an interim one (a run of several files,
    /// not all in): how many files it merges, of how many.
    pub merged: RwSignal<Option<(usize, usize)>>,
    pub running: RwSignal<bool>,
    pub stats: RwSignal<Option<RunStats>>,
    /// A page-level message (e.g. "no trace files in that folder").
    pub notice: RwSignal<Option<String>>,
    pub workers: RwSignal<usize>,
    controller: StoredValue<Option<Controller>, LocalStorage>,
    /// A redraw of `rows` is due (`show_rows_soon`).
    rows_due: StoredValue<bool>,
}

/// The least time between two redraws of the progress rows, ms. A run of
/// hundreds of files sends thousands of progress events: redrawing the
/// table for each one kept the page's thread busy, and on a machine with
/// as many workers as cores that time came out of the analysis. Four
/// redraws a second still read as live, and each lays the page out again.
const ROWS_EVERY_MS: u64 = 250;

/// One file to analyze.
pub struct Input {
    pub name: String,
    pub size: Option<u64>,
    pub source: Source,
}

#[derive(Clone)]
struct Controller {
    pool: Pool,
    run: Rc<RefCell<Run>>,
}

#[derive(Default)]
struct Run {
    next_id: u32,
    pending: HashSet<u32>,
    merger: Option<Merger>,
    usable: usize,
    failed: usize,
    files: usize,
    started_ms: f64,
    /// Every job's name and source, so failed downloads can be retried.
    sources: HashMap<u32, (String, Source)>,
    /// Jobs that failed without any analysis (download, worker crash, cancel): retryable.
    retryable: HashSet<u32>,
    /// The analyzed files' timelines, within the tab's budget for them.
    timelines: KeptTimelines,
    /// Questions about files of this run waiting for their answer.
    inspecting: HashMap<u32, Answer>,
    /// When to show the report of the files in so far.
    interim: Interim,
}

impl Run {
    /// A new file of this run, pending: its id.
    fn add_file(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        self.pending.insert(id);
        self.files += 1;
        id
    }

    /// Files merged, of the run's files.
    fn merged(&self) -> (usize, usize) {
        (self.merger.as_ref().map_or(0, Merger::len), self.files)
    }
}

type Answer = Box<dyn FnOnce(Result<InspectAnswer, String>)>;

/// How a remote run analyzes one batch of files: each file's outcome, or
/// why the batch failed.
pub type Invoke = Rc<dyn Fn(Vec<String>) -> Pin<Box<dyn Future<Output = Result<Vec<FileOutcome>, String>>>>>;

impl AppState {
    /// `warm_up`: what readies the page's code on a worker's warm-up trace
    /// (`page::warm_up::page`), handed to the worker pool.
    pub fn new(warm_up: fn(Vec<u8>)) -> Self {
        let state = AppState {
            rows: RwSignal::new(Vec::new()),
            errors: RwSignal::new(Vec::new()),
            report: RwSignal::new(None),
            baseline: RwSignal::new(None),
            window_report: RwSignal::new(None),
            scene: RwSignal::new(None),
            merged: RwSignal::new(None),
            running: RwSignal::new(false),
            stats: RwSignal::new(None),
            notice: RwSignal::new(None),
            workers: RwSignal::new(0),
            controller: StoredValue::new_local(None),
            rows_due: StoredValue::new(false),
        };
        let run = Rc::new(RefCell::new(Run::default()));
        let listener_run = run.clone();
        let size = worker_pool::default_size();
        let options = Options {
            timeline: true,
            requests: true,
            ..Options::default()
        };
        match Pool::new(
            &crate::page::assets::worker_script(),
            size,
            options,
            warm_up,
            move |event| state.on_event(&listener_run, event),
        ) {
            Ok(pool) => {
                state.workers.set(pool.size());
                state.controller.set_value(Some(Controller { pool, run }));
            }
            Err(err) => state.notice.set(Some(format!(
                "Could not start the analysis workers: {}",
                worker_pool::js_message(&err)
            ))),
        }
        state
    }

    fn controller(&self) -> Option<Controller> {
        self.controller.with_value(|c| c.clone())
    }

    /// Starts a new run over `inputs` (replacing any run in progress).
    pub fn analyze(&self, mut inputs: Vec<Input>) {
        let Some(ctl) = self.controller() else { return };
        // In time order (a selection's), a fleet's files of one minute came
        // host after host, each held until the first host's last one folded.
        in_fold_order(&mut inputs, |i| &i.name);
        cached::admit_writes(inputs.iter_mut().filter_map(|i| match &mut i.source {
            Source::Url { cache, .. } => cache.as_mut(),
            Source::Blob(_) | Source::Buffer(_) => None,
        }));
        if inputs.is_empty() {
            self.notice
                .set(Some("No trace files found (looking for .bin and .bin.gz).".into()));
            return;
        }
        let mut jobs = Vec::with_capacity(inputs.len());
        let mut rows = Vec::with_capacity(inputs.len());
        {
            let mut run = self.begin(&ctl, inputs.iter().map(|i| i.name.clone()));
            for input in inputs {
                let id = run.add_file();
                rows.push(FileRow::new(id, input.name.clone(), input.size, Status::Queued));
                run.sources.insert(id, (input.name.clone(), input.source.clone()));
                jobs.push(Job {
                    id,
                    name: input.name,
                    source: input.source,
                    inspect: None,
                });
            }
        }
        self.rows.set(rows);
        ctl.pool.submit(jobs);
    }

    /// Starts a run whose files another machine analyzes (AWS Lambda):
    /// `files` (name, compressed size) in `batches` of names, up to `at_once`
    /// batches in flight; each answer is merged as a worker's would be, an
    /// outcome per file (`fleet::packed::outcomes_of`).
    pub fn analyze_remote(&self, files: Vec<(String, u64)>, batches: Vec<Vec<String>>, at_once: usize, invoke: Invoke) {
        let Some(ctl) = self.controller() else { return };
        let mut ids = HashMap::new();
        let mut rows = Vec::with_capacity(files.len());
        {
            let mut run = self.begin(&ctl, files.iter().map(|(name, _)| name.clone()));
            for (name, size) in files {
                let id = run.add_file();
                rows.push(FileRow::new(id, name.clone(), Some(size), Status::Queued));
                ids.insert(name, id);
            }
        }
        self.rows.set(rows);
        let queue = Rc::new(RefCell::new(VecDeque::from(batches)));
        let ids = Rc::new(ids);
        for _ in 0..at_once.max(1) {
            let (state, run, queue, ids, invoke) = (*self, ctl.run.clone(), queue.clone(), ids.clone(), invoke.clone());
            wasm_bindgen_futures::spawn_local(async move {
                loop {
                    let next = queue.borrow_mut().pop_front();
                    let Some(batch) = next else { break };
                    let batch_ids: Vec<u32> = batch.iter().filter_map(|name| ids.get(name).copied()).collect();
                    if !batch_ids.iter().any(|id| run.borrow().pending.contains(id)) {
                        break; // the run was stopped or replaced
                    }
                    for &id in &batch_ids {
                        state.update_row(id, |row| row.status = Status::Reading);
                    }
                    let started = now_ms();
                    let outcomes = outcomes_of(&batch, invoke(batch.clone()).await);
                    let analysis_ms = (now_ms() - started) / batch.len().max(1) as f64;
                    for (&id, outcome) in batch_ids.iter().zip(outcomes) {
                        state.on_event(
                            &run,
                            PoolEvent::Done {
                                id,
                                outcome,
                                analysis_ms,
                            },
                        );
                    }
                }
            });
        }
    }

    /// Downloads a same-origin file (the bundled demo trace) and analyzes it.
    pub fn analyze_url(&self, url: &str, name: &str) {
        let Some(ctl) = self.controller() else { return };
        let id = { self.begin(&ctl, [name.to_owned()]).add_file() };
        self.rows
            .set(vec![FileRow::new(id, name.to_string(), None, Status::Fetching)]);
        let state = *self;
        let url = url.to_string();
        let name = name.to_string();
        wasm_bindgen_futures::spawn_local(async move {
            match fetch_bytes(&url).await {
                Ok(buffer) => {
                    if !ctl.run.borrow().pending.contains(&id) {
                        return; // superseded by another run
                    }
                    let size = buffer.byte_length() as u64;
                    state.update_row(id, |row| {
                        row.size = Some(size);
                        row.status = Status::Queued;
                    });
                    ctl.run
                        .borrow_mut()
                        .sources
                        .insert(id, (name.clone(), Source::Buffer(buffer.clone())));
                    ctl.pool.submit([Job {
                        id,
                        name,
                        source: Source::Buffer(buffer),
                        inspect: None,
                    }]);
                }
                Err(message) => state.on_event(&ctl.run, PoolEvent::Failed { id, message }),
            }
        });
    }

    /// Stops the run: queued and running files are dropped (and can be retried);
    /// the report covers what finished.
    pub fn cancel(&self) {
        let Some(ctl) = self.controller() else { return };
        ctl.pool.cancel_all();
        let cancelled: Vec<u32> = {
            let mut run = ctl.run.borrow_mut();
            let ids: Vec<u32> = run.pending.drain().collect();
            run.failed += ids.len();
            // Files analyzed elsewhere (AWS Lambda) have no source to run again.
            let retryable: Vec<u32> = ids.iter().copied().filter(|id| run.sources.contains_key(id)).collect();
            run.retryable.extend(retryable);
            ids
        };
        self.rows.update(|rows| {
            for row in rows.iter_mut().filter(|r| cancelled.contains(&r.id)) {
                row.status = Status::Failed;
                row.error = Some("cancelled".into());
            }
        });
        self.finish_if_done(&ctl.run);
    }

    /// Files of this run that failed without being analyzed (downloads, cancels).
    pub fn retryable_count(&self) -> usize {
        self.rows.track();
        self.controller().map_or(0, |ctl| ctl.run.borrow().retryable.len())
    }

    /// Runs the retryable files again, merging into the same report.
    pub fn retry_failed(&self) {
        let Some(ctl) = self.controller() else { return };
        let jobs: Vec<Job> = {
            let mut run = ctl.run.borrow_mut();
            let ids: Vec<u32> = run.retryable.drain().collect();
            run.failed = run.failed.saturating_sub(ids.len());
            run.pending.extend(ids.iter().copied());
            ids.iter()
                .filter_map(|id| {
                    run.sources.get(id).map(|(name, source)| Job {
                        id: *id,
                        name: name.clone(),
                        source: source.clone(),
                        inspect: None,
                    })
                })
                .collect()
        };
        if jobs.is_empty() {
            return;
        }
        let names: HashSet<String> = jobs.iter().map(|j| j.name.clone()).collect();
        self.errors.update(|errors| errors.retain(|e| !names.contains(&e.file)));
        self.rows.update(|rows| {
            for row in rows.iter_mut().filter(|r| jobs.iter().any(|j| j.id == r.id)) {
                row.status = Status::Queued;
                row.error = None;
            }
        });
        self.report.set(None);
        self.scene.set(None);
        self.merged.set(None);
        self.stats.set(None);
        self.running.set(true);
        ctl.pool.submit(jobs);
    }

    /// Asks a worker about file `file` of this run (decoded again from its
    /// source); `answer` gets the reply, or why there is none.
    pub fn inspect(
        &self,
        file: &str,
        query: InspectQuery,
        answer: impl FnOnce(Result<InspectAnswer, String>) + 'static,
    ) {
        let Some(ctl) = self.controller() else { return };
        let job = {
            let mut run = ctl.run.borrow_mut();
            let Some(source) = run
                .sources
                .values()
                .find(|(name, _)| name == file)
                .map(|(_, s)| s.clone())
            else {
                drop(run);
                return answer(Err(format!("{file} is not part of this analysis")));
            };
            let id = run.next_id;
            run.next_id += 1;
            run.inspecting.insert(id, Box::new(answer));
            Job {
                id,
                name: file.to_string(),
                source,
                inspect: Some(query),
            }
        };
        ctl.pool.submit([job]);
    }

    /// `inspect` for several files at once: `answers` gets every reply, in
    /// the order asked, once the last one is in.
    pub fn inspect_each(
        &self,
        asks: Vec<(String, InspectQuery)>,
        answers: impl FnOnce(Vec<Result<InspectAnswer, String>>) + 'static,
    ) {
        type Replies = Vec<Option<Result<InspectAnswer, String>>>;
        let replies: Rc<RefCell<Replies>> = Rc::new(RefCell::new((0..asks.len()).map(|_| None).collect()));
        let left = Rc::new(Cell::new(asks.len()));
        let answers = Rc::new(RefCell::new(Some(answers)));
        let finish = move |replies: &RefCell<Replies>| {
            if let Some(answers) = answers.borrow_mut().take() {
                answers(replies.take().into_iter().flatten().collect());
            }
        };
        if asks.is_empty() {
            return finish(&replies);
        }
        for (i, (file, query)) in asks.into_iter().enumerate() {
            let (replies, left, finish) = (replies.clone(), left.clone(), finish.clone());
            self.inspect(&file, query, move |reply| {
                replies.borrow_mut()[i] = Some(reply);
                left.set(left.get() - 1);
                if left.get() == 0 {
                    finish(&replies);
                }
            });
        }
    }

    /// A new run over the files `names`: told them up front, the merger folds
    /// each partial as soon as every file before it is in, so a run of many
    /// segments holds only those that finished early (a failed download holds
    /// the ones after it until it is retried, or the run ends).
    fn begin<'a>(&self, ctl: &'a Controller, names: impl IntoIterator<Item = String>) -> std::cell::RefMut<'a, Run> {
        ctl.pool.cancel_all();
        let mut run = ctl.run.borrow_mut();
        let next_id = run.next_id;
        *run = Run {
            next_id,
            merger: Some(Merger::new(Options::default()).with_files(names)),
            started_ms: now_ms(),
            ..Run::default()
        };
        self.errors.set(Vec::new());
        self.report.set(None);
        self.scene.set(None);
        self.merged.set(None);
        self.stats.set(None);
        self.notice.set(None);
        self.running.set(true);
        run
    }

    /// Changes file `id`'s row; the table shows it with the next redraw.
    fn update_row(&self, id: u32, f: impl FnOnce(&mut FileRow)) {
        self.rows.update_untracked(|rows| {
            if let Some(row) = rows.iter_mut().find(|r| r.id == id) {
                f(row);
            }
        });
        self.show_rows_soon();
    }

    /// Redraws the rows within [`ROWS_EVERY_MS`], once for every change since.
    fn show_rows_soon(&self) {
        if self.rows_due.get_value() {
            return;
        }
        self.rows_due.set_value(true);
        let (rows, due) = (self.rows, self.rows_due);
        set_timeout(
            move || {
                due.set_value(false);
                rows.notify();
            },
            std::time::Duration::from_millis(ROWS_EVERY_MS),
        );
    }

    /// File `id` could not be analyzed at all: it can be retried.
    fn failed(&self, run: &Rc<RefCell<Run>>, id: u32, message: String) {
        {
            let mut run = run.borrow_mut();
            run.pending.remove(&id);
            run.failed += 1;
            run.retryable.insert(id);
        }
        let file = self.row_name(id);
        self.update_row(id, |row| {
            row.status = Status::Failed;
            row.error = Some(message.clone());
        });
        self.errors.update(|errors| {
            errors.push(FileError {
                file,
                offset: None,
                message,
            })
        });
    }

    fn row_name(&self, id: u32) -> String {
        self.rows.with_untracked(|rows| {
            rows.iter()
                .find(|r| r.id == id)
                .map(|r| r.name.clone())
                .unwrap_or_default()
        })
    }

    fn on_event(&self, run: &Rc<RefCell<Run>>, event: PoolEvent) {
        let id = match &event {
            PoolEvent::Started { id, .. }
            | PoolEvent::Progress { id, .. }
            | PoolEvent::Fetched { id, .. }
            | PoolEvent::Done { id, .. }
            | PoolEvent::Inspected { id, .. }
            | PoolEvent::Failed { id, .. }
            | PoolEvent::Crashed { id, .. } => *id,
        };
        let asked = run.borrow_mut().inspecting.remove(&id);
        if let Some(answer) = asked {
            match event {
                PoolEvent::Inspected { answer: a, .. } => answer(Ok(a)),
                PoolEvent::Failed { message, .. } => answer(Err(message)),
                PoolEvent::Crashed { message, .. } => answer(Err(crash::worker_died(&message, None))),
                // Started, progress: still waiting.
                _ => {
                    run.borrow_mut().inspecting.insert(id, answer);
                }
            }
            return;
        }
        if !run.borrow().pending.contains(&id) {
            return; // from a run that was replaced
        }
        match event {
            PoolEvent::Started { worker, partner, .. } => self.update_row(id, |row| {
                row.status = Status::Reading;
                row.workers = std::iter::once(worker).chain(partner).collect();
            }),
            PoolEvent::Fetched { bytes, cached, .. } => self.update_row(id, |row| {
                row.size = Some(bytes);
                row.cached = cached;
            }),
            PoolEvent::Progress {
                phase, bytes, events, ..
            } => self.update_row(id, |row| {
                row.status = Status::Working(phase);
                row.size.get_or_insert(bytes);
                row.events = events;
            }),
            PoolEvent::Inspected { .. } => {}
            PoolEvent::Done {
                mut outcome,
                analysis_ms,
                ..
            } => {
                let error = outcome.error.clone();
                {
                    let mut run = run.borrow_mut();
                    if let Some(timeline) = outcome.timeline.take() {
                        run.timelines.add(timeline);
                    }
                    run.pending.remove(&id);
                    if error.is_none() || outcome.events > 0 {
                        run.usable += 1;
                    }
                    if error.is_some() {
                        run.failed += 1;
                    }
                    if let Some(merger) = run.merger.as_mut() {
                        merger.add(outcome.partial);
                    }
                }
                self.update_row(id, |row| {
                    row.status = if error.is_some() { Status::Failed } else { Status::Done };
                    row.bytes = outcome.raw_bytes;
                    row.events = outcome.events;
                    row.error = error.as_ref().map(|e| e.message.clone());
                    row.analysis_ms = Some(analysis_ms);
                });
                if let Some(error) = error {
                    self.errors.update(|errors| errors.push(error));
                }
                let next = {
                    let mut run = run.borrow_mut();
                    let (merged, total) = run.merged();
                    run.interim.merged(merged, total, now_ms())
                };
                self.interim(run, next);
            }
            PoolEvent::Failed { message, .. } => self.failed(run, id, message),
            // The browser's words for a dead worker, in words about the file (core policy).
            PoolEvent::Crashed { message, .. } => {
                let size = self
                    .rows
                    .with_untracked(|rows| rows.iter().find(|r| r.id == id).and_then(|r| r.size));
                self.failed(run, id, crash::worker_died(&message, size));
            }
        }
        self.finish_if_done(run);
    }

    /// Acts on the interim cadence: shows the report of the files in so
    /// far, or asks again when the timer it starts fires.
    fn interim(&self, run: &Rc<RefCell<Run>>, next: Next) {
        match next {
            Next::Now => {
                let (report, merged) = {
                    let run = run.borrow();
                    let Some(merger) = run.merger.as_ref().filter(|_| !run.pending.is_empty()) else {
                        return; // the final report comes
                    };
                    (merger.finish(), run.merged())
                };
                self.report.set(Some(Arc::new(report)));
                self.merged.set(Some(merged));
            }
            Next::After(ms) => {
                let (state, run, started) = (*self, run.clone(), run.borrow().started_ms);
                set_timeout(
                    move || {
                        let next = {
                            let mut run = run.borrow_mut();
                            if run.started_ms != started {
                                return; // another run since
                            }
                            let (merged, total) = run.merged();
                            run.interim.fired(merged, total, now_ms())
                        };
                        state.interim(&run, next);
                    },
                    std::time::Duration::from_millis(ms.ceil() as u64),
                );
            }
            Next::Wait => {}
        }
    }

    fn finish_if_done(&self, run: &Rc<RefCell<Run>>) {
        let (report, scene, stats) = {
            let mut run = run.borrow_mut();
            if !run.pending.is_empty() || !self.running.get_untracked() {
                return;
            }
            // Without downloads left to retry the merger is done: fold it by
            // value rather than copying it.
            let report = match run.usable {
                0 => None,
                _ if run.retryable.is_empty() => run.merger.take().map(Merger::into_report),
                _ => run.merger.as_ref().map(Merger::finish),
            };
            // Kept while downloads may still be retried into this run.
            let timelines = if run.retryable.is_empty() {
                std::mem::take(&mut run.timelines)
            } else {
                run.timelines.clone()
            };
            let scene = (run.usable > 0).then(|| Scene::of_kept(timelines));
            let stats = RunStats {
                files: run.files,
                failed: run.failed,
                elapsed_ms: now_ms() - run.started_ms,
                workers: self.workers.get_untracked(),
            };
            (report, scene, stats)
        };
        // Signals are set with the run released: effects may look at it.
        if let Some(report) = report {
            self.report.set(Some(Arc::new(report)));
        }
        self.scene.set(scene.map(Arc::new));
        self.merged.set(None);
        self.stats.set(Some(stats));
        // The rows' last changes show with the final report, not a redraw later.
        self.rows.notify();
        self.running.set(false);
    }
}

impl FileRow {
    fn new(id: u32, name: String, size: Option<u64>, status: Status) -> Self {
        FileRow {
            id,
            name,
            size,
            status,
            bytes: 0,
            events: 0,
            workers: Vec::new(),
            error: None,
            cached: false,
            analysis_ms: None,
        }
    }
}

/// A file the page is served with (the demo trace), as a buffer to hand a worker.
async fn fetch_bytes(url: &str) -> Result<js_sys::ArrayBuffer, String> {
    let failed = |why: String| format!("could not download {url}: {why}");
    let response = gloo_net::http::Request::get(url)
        .send()
        .await
        .map_err(|e| failed(e.to_string()))?;
    if !response.ok() {
        return Err(failed(format!("HTTP {} {}", response.status(), response.status_text())));
    }
    let body = web_sys::Response::from(response)
        .array_buffer()
        .map_err(|e| failed(worker_pool::js_message(&e)))?;
    let body = JsFuture::from(body)
        .await
        .map_err(|e| failed(worker_pool::js_message(&e)))?;
    Ok(body.unchecked_into())
}
