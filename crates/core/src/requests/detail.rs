//! One file's requests, instance by instance: every span with its fields,
//! parent and time split, every sampled stack with the task and poll it
//! landed in, every task dump with the idle time that followed it, every
//! custom event. What the span explorer, slow-versus-typical and the
//! filtered flamegraphs ask questions of; built in the worker, read on the
//! page (checked: `FileDetail::check`).

use super::split::Split;
use crate::analysis::frame_table::{FrameId, FrameList};
use crate::trace::MetricKind;
use serde::{Deserialize, Serialize};

/// No index (parent, string, runtime).
pub const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FileDetail {
    pub file: String,
    /// The file's first event, trace ns (what `Moment`s are relative to is the file's own clock).
    pub start: u64,
    /// Unix-epoch ns of `start`, from the trace's first clock anchor.
    pub wall_start: Option<i64>,
    /// Every text below, by index: span names, field names and values,
    /// event names, spawn locations, runtimes, thread names.
    pub strings: Vec<String>,
    /// By start.
    pub spans: Vec<SpanRow>,
    /// Each span's fields: (name, value) string indices.
    pub fields: Vec<(u32, u32)>,
    pub tasks: Vec<TaskRow>,
    /// Sampled stacks by task, then time (task 0: not in a task's poll).
    pub samples: Vec<SampleRow>,
    /// Task dumps by task, then time.
    pub dumps: Vec<DumpRow>,
    /// The stacks samples and dumps name, leaf first, as ids of the file's
    /// frames (its partial's `frames`, attached when the detail is kept).
    pub stacks: Stacks,
    #[serde(skip)]
    pub frames: FrameList,
    pub event_types: Vec<EventTypeRow>,
    /// By time.
    pub events: Vec<EventRow>,
    pub values: Vec<EventValue>,
    /// Worker id → its runtime's name (a string index), ascending.
    pub runtimes: Vec<(u64, u32)>,
    /// Parent links not followed: a chain deeper than `MAX_PARENT_DEPTH`
    /// or a cycle, from a damaged or crafted file.
    pub parents_cut: u64,
}

/// One span instance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpanRow {
    pub name: u32,
    pub start: u64,
    pub dur: u64,
    /// The task it ran in (0: unknown).
    pub task: u64,
    /// Index of its parent in `spans` (declared by the recorder, else the
    /// innermost span of its task around it), or `NONE`.
    pub parent: u32,
    /// Its fields: `fields[first..first + len]`.
    pub first_field: u32,
    pub field_count: u32,
    /// `None` when no poll of its task overlaps it (the whole is unattributed).
    pub split: Option<Split>,
}

impl SpanRow {
    pub fn end(&self) -> u64 {
        self.start.saturating_add(self.dur)
    }
}

/// A task the file saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskRow {
    pub task: u64,
    /// Its spawn location (a string index), or `NONE`.
    pub loc: u32,
}

/// What a sample caught.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SampleKind {
    /// A periodic on-CPU sample.
    OnCpu,
    /// Switched out inside a poll: a blocking call.
    Blocking,
    /// Switched out outside any poll (a parked worker, another thread).
    Idle,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleRow {
    pub ts: u64,
    /// The task whose poll it landed in (0: none).
    pub task: u64,
    /// That poll's duration (0: none).
    pub poll_dur: u64,
    /// Blocking samples: how long the thread stayed out (`workers::off_cpu_ns`).
    pub blocked_ns: u64,
    /// Index into `stacks`.
    pub stack: u32,
    pub tid: u32,
    /// The worker it was taken on (`UNKNOWN_WORKER` for other threads).
    pub worker: u32,
    pub kind: SampleKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DumpRow {
    pub ts: u64,
    pub task: u64,
    /// Index into `stacks`.
    pub stack: u32,
    /// How long the task stayed idle after it: until its next poll, its next
    /// dump, its end or the trace's, whichever came first.
    pub idle_ns: u64,
}

/// Stacks back to back: stack `i` is `ids[ends[i - 1]..ends[i]]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stacks {
    pub ids: Vec<FrameId>,
    pub ends: Vec<u32>,
}

impl Stacks {
    pub fn push(&mut self, stack: &[FrameId]) -> u32 {
        self.ids.extend_from_slice(stack);
        self.ends.push(self.ids.len() as u32);
        self.ends.len() as u32 - 1
    }

    pub fn get(&self, i: u32) -> &[FrameId] {
        let i = i as usize;
        let from = i.checked_sub(1).map_or(0, |p| self.ends[p] as usize);
        &self.ids[from..self.ends[i] as usize]
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventTypeRow {
    /// A string index.
    pub name: u32,
    pub fields: Vec<EventFieldRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventFieldRow {
    /// String indices (`unit`: `NONE` when the schema gives none).
    pub name: u32,
    pub unit: u32,
    pub kind: Option<MetricKind>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventRow {
    pub ts: u64,
    /// Index into `event_types`.
    pub kind: u32,
    /// Its values: `values[first..first + fields]`, a value per field of its type.
    pub first: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum EventValue {
    Absent,
    U64(u64),
    I64(i64),
    F64(f64),
    Bool(bool),
    /// A string index.
    Text(u32),
}

impl EventValue {
    pub fn number(self) -> Option<f64> {
        match self {
            EventValue::U64(v) => Some(v as f64),
            EventValue::I64(v) => Some(v as f64),
            EventValue::F64(v) if v.is_finite() => Some(v),
            _ => None,
        }
    }
}

impl FileDetail {
    pub fn text(&self, i: u32) -> &str {
        self.strings.get(i as usize).map_or("", String::as_str)
    }

    pub fn fields_of(&self, span: &SpanRow) -> &[(u32, u32)] {
        let from = span.first_field as usize;
        &self.fields[from..from + span.field_count as usize]
    }

    /// The index of `text` among the strings, if the file has it.
    pub fn find(&self, text: &str) -> Option<u32> {
        self.strings.iter().position(|s| s == text).map(|i| i as u32)
    }

    /// A query's optional text resolved: `Some(None)` when unset, `None`
    /// when set to a text the file lacks (nothing of it can match).
    pub fn find_wanted(&self, text: Option<&str>) -> Option<Option<u32>> {
        match text {
            Some(t) => self.find(t).map(Some),
            None => Some(None),
        }
    }

    pub fn values_of(&self, e: &EventRow) -> &[EventValue] {
        let n = self.event_types[e.kind as usize].fields.len();
        &self.values[e.first as usize..e.first as usize + n]
    }

    /// The samples of `task` in `[from, to)`.
    pub fn samples_of(&self, task: u64, from: u64, to: u64) -> &[SampleRow] {
        let lo = self.samples.partition_point(|s| (s.task, s.ts) < (task, from));
        let hi = self.samples.partition_point(|s| (s.task, s.ts) < (task, to));
        &self.samples[lo..hi.max(lo)]
    }

    /// The dumps of `task` in `[from, to)`.
    pub fn dumps_of(&self, task: u64, from: u64, to: u64) -> &[DumpRow] {
        let lo = self.dumps.partition_point(|d| (d.task, d.ts) < (task, from));
        let hi = self.dumps.partition_point(|d| (d.task, d.ts) < (task, to));
        &self.dumps[lo..hi.max(lo)]
    }

    /// The spawn location of `task`, if known.
    pub fn spawn_loc(&self, task: u64) -> Option<&str> {
        self.spawn_loc_id(task).map(|loc| self.text(loc))
    }

    /// `spawn_loc` as a string index.
    pub fn spawn_loc_id(&self, task: u64) -> Option<u32> {
        let i = self.tasks.binary_search_by_key(&task, |t| t.task).ok()?;
        Some(self.tasks[i].loc).filter(|&loc| loc != NONE)
    }

    /// The runtime of a worker, if the metadata names one.
    pub fn runtime(&self, worker: u64) -> Option<&str> {
        self.runtime_id(worker).map(|r| self.text(r))
    }

    /// `runtime` as a string index.
    pub fn runtime_id(&self, worker: u64) -> Option<u32> {
        let i = self.runtimes.binary_search_by_key(&worker, |r| r.0).ok()?;
        Some(self.runtimes[i].1)
    }

    /// Memory held, about (what the run's budget for details counts).
    pub fn bytes(&self) -> usize {
        self.strings.iter().map(|s| s.len() + 24).sum::<usize>()
            + self.spans.len() * size_of::<SpanRow>()
            + self.fields.len() * 8
            + self.tasks.len() * size_of::<TaskRow>()
            + self.samples.len() * size_of::<SampleRow>()
            + self.dumps.len() * size_of::<DumpRow>()
            + self.stacks.ids.len() * 4
            + self.stacks.ends.len() * 4
            + self.events.len() * size_of::<EventRow>()
            + self.values.len() * size_of::<EventValue>()
    }

    /// Checks every index against what the detail holds, and the orders the
    /// lookups rely on: a detail read off the wire is not trusted.
    pub fn check(&self) -> Result<(), String> {
        let strings = self.strings.len();
        let string = |i: u32| (i as usize) < strings;
        let opt_string = |i: u32| i == NONE || string(i);
        let bad = |what: &str| Err(format!("a file's request detail has a bad {what}"));
        if !self.fields.iter().all(|&(k, v)| string(k) && string(v)) {
            return bad("field");
        }
        for s in &self.spans {
            let fields_ok = (s.first_field as usize)
                .checked_add(s.field_count as usize)
                .is_some_and(|end| end <= self.fields.len());
            let split_ok = s.split.is_none_or(|sp| sp.total() <= s.dur);
            if !string(s.name) || !fields_ok || !split_ok || (s.parent != NONE && s.parent as usize >= self.spans.len())
            {
                return bad("span");
            }
        }
        if !self.spans.is_sorted_by_key(|s| s.start) {
            return bad("span order");
        }
        if !self.tasks.iter().all(|t| opt_string(t.loc)) || !self.tasks.is_sorted_by_key(|t| t.task) {
            return bad("task");
        }
        let ends_ok = self.stacks.ends.is_sorted()
            && self
                .stacks
                .ends
                .last()
                .is_none_or(|&e| e as usize == self.stacks.ids.len());
        if !ends_ok {
            return bad("stack");
        }
        let stacks = self.stacks.len() as u32;
        if !self.samples.iter().all(|s| s.stack < stacks) || !self.samples.is_sorted_by_key(|s| (s.task, s.ts)) {
            return bad("sample");
        }
        if !self.dumps.iter().all(|d| d.stack < stacks) || !self.dumps.is_sorted_by_key(|d| (d.task, d.ts)) {
            return bad("task dump");
        }
        if !self
            .event_types
            .iter()
            .all(|t| string(t.name) && t.fields.iter().all(|f| string(f.name) && opt_string(f.unit)))
        {
            return bad("event type");
        }
        for e in &self.events {
            let Some(t) = self.event_types.get(e.kind as usize) else {
                return bad("event");
            };
            let end = (e.first as usize).checked_add(t.fields.len());
            if end.is_none_or(|end| end > self.values.len()) {
                return bad("event");
            }
        }
        if !self.events.is_sorted_by_key(|e| e.ts) {
            return bad("event order");
        }
        if !self
            .values
            .iter()
            .all(|v| !matches!(v, EventValue::Text(i) if !string(*i)))
        {
            return bad("event value");
        }
        if !self.runtimes.iter().all(|r| string(r.1)) || !self.runtimes.is_sorted_by_key(|r| r.0) {
            return bad("runtime");
        }
        Ok(())
    }

    /// Whether every frame id of every stack names one of `frames`.
    pub fn stacks_in(&self, frames: &FrameList) -> bool {
        frames.holds(&self.stacks.ids)
    }
}
