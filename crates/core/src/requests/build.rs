//! One trace → its `FileDetail`, in two halves that run side by side in
//! `Partial::analyze`: the spans (fields, parents, time splits) need the
//! workers' timelines; the samples and dumps need the symbolizer.

use super::detail::*;
use super::parents::{self, Node};
use super::split::{OffCpu, TaskPoll, split};
use crate::analysis::delays;
use crate::analysis::frame_table::FrameId;
use crate::analysis::stacks::Symbolizer;
use crate::analysis::workers::{self, Timelines};
use crate::hashing::{FastIndexSet, FastMap};
use crate::trace::{
    AppEvents, ParsedTrace, SOURCE_ON_CPU, Spans, StrId, Strings, TaskDump, UNKNOWN_WORKER, Value, named_runtimes,
};

/// The texts of a detail, each once.
#[derive(Default)]
struct Texts {
    list: FastIndexSet<String>,
    by_id: FastMap<StrId, u32>,
}

impl Texts {
    fn of(&mut self, s: &str) -> u32 {
        match self.list.get_index_of(s) {
            Some(i) => i as u32,
            None => self.list.insert_full(s.to_string()).0 as u32,
        }
    }

    fn id(&mut self, id: StrId, strings: &Strings) -> u32 {
        if let Some(&i) = self.by_id.get(&id) {
            return i;
        }
        let i = self.of(strings.get(id));
        self.by_id.insert(id, i);
        i
    }
}

/// The first half: spans, tasks, events, runtimes (no stacks yet).
pub struct SpanHalf {
    detail: FileDetail,
    texts: Texts,
}

/// Each task's polls by start, with their wake delays and off-CPU samples.
pub struct TaskPolls {
    polls: FastMap<u64, Vec<TaskPoll>>,
    off_cpu: Vec<OffCpu>,
}

impl TaskPolls {
    pub fn new(trace: &ParsedTrace, tl: &Timelines) -> TaskPolls {
        let off_ns = workers::off_cpu_ns(tl, &trace.samples);
        let mut polls: FastMap<u64, Vec<TaskPoll>> = FastMap::default();
        let mut off_cpu = Vec::new();
        delays::each_poll(tl, &trace.wakes, |p, delay| {
            let from = off_cpu.len() as u32;
            off_cpu.extend(p.sched_samples().iter().map(|&i| OffCpu {
                ts: trace.samples[i].ts,
                ns: off_ns[i],
            }));
            polls.entry(p.task_id).or_default().push(TaskPoll {
                start: p.start,
                end: p.end,
                delay: delay.map_or(0, |d| d.delay),
                off_cpu: (from, off_cpu.len() as u32),
            });
        });
        polls.values_mut().for_each(|v| v.sort_by_key(|p| p.start));
        TaskPolls { polls, off_cpu }
    }

    fn of(&self, task: u64) -> &[TaskPoll] {
        self.polls.get(&task).map_or(&[], Vec::as_slice)
    }
}

impl SpanHalf {
    pub fn new(file: &str, trace: &ParsedTrace, spans: &Spans, polls: &TaskPolls) -> SpanHalf {
        let strings = &trace.strings;
        let mut texts = Texts::default();
        let mut d = FileDetail {
            file: file.to_string(),
            start: trace.bounds.map_or(0, |b| b.0),
            wall_start: trace
                .bounds
                .zip(trace.clock_anchors.first())
                .map(|((start, _), &(mono, real))| real.saturating_sub(mono as i64).saturating_add(start as i64)),
            ..FileDetail::default()
        };
        let mut nodes = Vec::with_capacity(spans.spans.len());
        for s in &spans.spans {
            let task = s.task_id.map_or(0, |t| t.get());
            let first_field = d.fields.len() as u32;
            for (k, v) in trace.app.span_fields(s.fields) {
                let v = match v {
                    Value::Text(v) => texts.id(v, strings),
                    v => texts.of(&AppEvents::text(v, strings).unwrap_or_default()),
                };
                d.fields.push((texts.id(k, strings), v));
            }
            let dur = s.end.saturating_sub(s.start);
            d.spans.push(SpanRow {
                name: texts.id(s.name, strings),
                start: s.start,
                dur,
                task,
                parent: NONE,
                first_field,
                field_count: d.fields.len() as u32 - first_field,
                split: split(s.start, s.end, polls.of(task), &polls.off_cpu),
            });
            nodes.push(Node {
                start: s.start,
                end: s.end,
                task,
                span_id: s.span_id.map_or(0, |i| i.get()),
                declared: s.parent.map_or(0, |p| p.get()),
                single: s.span_id.is_none(),
            });
        }
        let (parent, cut) = parents::resolve(&nodes);
        for (row, p) in d.spans.iter_mut().zip(parent) {
            row.parent = p;
        }
        d.parents_cut = cut;
        let mut tasks: Vec<TaskRow> = trace
            .task_spawn_locs
            .iter()
            .map(|(&task, &loc)| TaskRow {
                task,
                loc: loc.map_or(NONE, |l| texts.id(l, strings)),
            })
            .collect();
        tasks.sort_by_key(|t| t.task);
        tasks.dedup_by_key(|t| t.task);
        d.tasks = tasks;
        events(&mut d, &mut texts, &trace.app, strings);
        d.runtimes = named_runtimes(&trace.metadata)
            .flat_map(|(name, workers)| {
                let name = texts.of(name);
                workers.into_iter().map(move |w| (w, name))
            })
            .collect();
        d.runtimes.sort_by_key(|r| r.0);
        d.runtimes.dedup_by_key(|r| r.0);
        SpanHalf { detail: d, texts }
    }

    /// The detail, with the stacks of the other half.
    pub fn join(self, stacks: StackHalf) -> FileDetail {
        let SpanHalf { mut detail, texts } = self;
        detail.samples = stacks.samples;
        detail.dumps = stacks.dumps;
        detail.stacks = stacks.stacks;
        detail.strings = texts.list.into_iter().collect();
        detail
    }
}

fn events(d: &mut FileDetail, texts: &mut Texts, app: &AppEvents, strings: &Strings) {
    d.event_types = app
        .types
        .iter()
        .map(|t| EventTypeRow {
            name: texts.id(t.name, strings),
            fields: t
                .fields
                .iter()
                .map(|f| EventFieldRow {
                    name: texts.id(f.name, strings),
                    unit: f.unit.map_or(NONE, |u| texts.id(u, strings)),
                    kind: f.kind,
                })
                .collect(),
        })
        .collect();
    let mut order: Vec<usize> = (0..app.events.len()).collect();
    order.sort_by_key(|&i| app.events[i].ts);
    for i in order {
        let e = &app.events[i];
        let first = d.values.len() as u32;
        d.values.extend(app.values_of(e).iter().map(|&v| match v {
            Value::Absent => EventValue::Absent,
            Value::U64(v) => EventValue::U64(v),
            Value::I64(v) => EventValue::I64(v),
            Value::F64(v) => EventValue::F64(v),
            Value::Bool(v) => EventValue::Bool(v),
            Value::Text(s) => EventValue::Text(texts.id(s, strings)),
        }));
        d.events.push(EventRow {
            ts: e.ts,
            kind: e.kind,
            first,
        });
    }
}

/// The second half: every sample and dump with its stack.
#[derive(Default)]
pub struct StackHalf {
    samples: Vec<SampleRow>,
    dumps: Vec<DumpRow>,
    stacks: Stacks,
}

/// Each task dump with the idle time after it, symbolized (what the
/// "where tasks wait" flamegraph weighs, and what a detail lists).
pub struct Dumps {
    /// (dump, idle ns), by task then time.
    pub rows: Vec<(TaskDump, u64)>,
    /// Each distinct call chain's stack (`TaskDump::chain`), symbolized once.
    pub stacks: Vec<Vec<FrameId>>,
}

impl Dumps {
    pub fn new(trace: &ParsedTrace, tl: &Timelines, symbolizer: &mut Symbolizer<'_>) -> Dumps {
        let app = &trace.app;
        // A dump's idle time ends at its task's next poll.
        let mut starts: FastMap<u64, Vec<u64>> = FastMap::default();
        for p in tl.workers.values().flat_map(|w| &w.polls).filter(|p| p.task_id != 0) {
            starts.entry(p.task_id).or_default().push(p.start);
        }
        starts.values_mut().for_each(|v| v.sort_unstable());
        let mut order: Vec<TaskDump> = app.dumps.clone();
        order.sort_by_key(|d| (d.task, d.ts));
        let end_of_trace = trace.bounds.map_or(0, |b| b.1);
        let rows = order
            .iter()
            .enumerate()
            .map(|(k, d)| {
                let starts = starts.get(&d.task).map_or(&[][..], Vec::as_slice);
                let next_poll = starts.get(starts.partition_point(|&s| s < d.ts)).copied();
                let next_dump = order.get(k + 1).filter(|n| n.task == d.task).map(|n| n.ts);
                let end = trace.task_terminate_times.get(&d.task).copied().filter(|&t| t >= d.ts);
                let until = [next_poll, next_dump, end]
                    .into_iter()
                    .flatten()
                    .min()
                    .unwrap_or(end_of_trace);
                (*d, until.saturating_sub(d.ts))
            })
            .collect();
        let stacks = app.dump_chains.iter().map(|c| symbolizer.stack(c)).collect();
        Dumps { rows, stacks }
    }

    pub fn stack(&self, d: &TaskDump) -> &[FrameId] {
        self.stacks.get(d.chain as usize).map_or(&[], Vec::as_slice)
    }
}

impl StackHalf {
    pub fn new(
        trace: &ParsedTrace,
        tl: &Timelines,
        dumps: Option<&Dumps>,
        symbolizer: &mut Symbolizer<'_>,
    ) -> StackHalf {
        let mut half = StackHalf::default();
        let mut by_chain: FastMap<&[u64], u32> = FastMap::default();
        let off_ns = workers::off_cpu_ns(tl, &trace.samples);
        for (i, s) in trace.samples.iter().enumerate() {
            let poll = tl
                .workers
                .get(&s.worker)
                .and_then(|w| workers::poll_holding(&w.polls, s.ts).map(|p| &w.polls[p]));
            let stack = match by_chain.get(&s.callchain[..]) {
                Some(&k) => k,
                None => {
                    let k = half.stacks.push(&symbolizer.stack(&s.callchain));
                    by_chain.insert(&s.callchain, k);
                    k
                }
            };
            half.samples.push(SampleRow {
                ts: s.ts,
                task: poll.map_or(0, |p| p.task_id),
                poll_dur: poll.map_or(0, |p| p.end - p.start),
                blocked_ns: off_ns[i],
                stack,
                tid: u32::try_from(s.tid).unwrap_or(u32::MAX),
                worker: u32::try_from(s.worker).unwrap_or(UNKNOWN_WORKER as u32),
                kind: match (s.source == SOURCE_ON_CPU, poll.is_some()) {
                    (true, _) => SampleKind::OnCpu,
                    (false, true) => SampleKind::Blocking,
                    (false, false) => SampleKind::Idle,
                },
            });
        }
        half.samples.sort_by_key(|s| (s.task, s.ts));
        let mut by_stack: FastMap<&[FrameId], u32> = FastMap::default();
        for (dumps, (d, idle_ns)) in dumps.iter().flat_map(|ds| ds.rows.iter().map(move |r| (ds, r))) {
            let stack = dumps.stack(d);
            let k = *by_stack.entry(stack).or_insert_with(|| half.stacks.push(stack));
            half.dumps.push(DumpRow {
                ts: d.ts,
                task: d.task,
                stack: k,
                idle_ns: *idle_ns,
            });
        }
        half
    }
}
