//! `dial9-trace-format` frames → `ParsedTrace` (the reference parser's model).

use super::model::*;
use crate::report::Frame;
use dial9_trace_format::decoder::{Decoder, RawEvent};
use dial9_trace_format::types::FieldValueRef;
use std::collections::HashMap;

/// Decoding stopped early; everything before `offset` was kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeFailure {
    pub offset: u64,
    pub message: String,
}

/// Parses a raw (already inflated) trace. Never panics: a corrupt or
/// truncated stream yields the events before the damage plus the failure.
pub fn parse_trace(raw: &[u8]) -> (ParsedTrace, Option<DecodeFailure>) {
    let mut builder = Builder::default();
    let Some(mut decoder) = Decoder::new(raw) else {
        let failure = DecodeFailure {
            offset: 0,
            message: "not a dial9 trace (missing TRC\\0 magic)".into(),
        };
        return (builder.finish(), Some(failure));
    };
    let result = decoder.for_each_event(|ev| builder.event(&ev));
    let failure = result.err().map(|e| DecodeFailure {
        offset: e.pos as u64,
        message: e.message,
    });
    (builder.finish(), failure)
}

#[derive(Default)]
struct Builder {
    trace: ParsedTrace,
    string_ids: HashMap<String, u32>,
    /// Per schema name (and annotation count): its single-event span projection.
    projections: HashMap<(String, usize), Option<Projection>>,
}

/// Field value lookup by name on one raw event.
struct Fields<'e, 'a, 'f> {
    ev: &'e RawEvent<'a, 'f>,
}

impl<'a> Fields<'_, 'a, '_> {
    fn get(&self, name: &str) -> Option<&FieldValueRef<'a>> {
        let idx = self.ev.schema.fields().iter().position(|f| f.name() == name)?;
        match self.ev.fields.get(idx)? {
            FieldValueRef::None => None,
            v => Some(v),
        }
    }

    fn u64(&self, name: &str) -> Option<u64> {
        self.get(name).and_then(as_u64)
    }

    fn u64_or0(&self, name: &str) -> u64 {
        self.u64(name).unwrap_or(0)
    }

    fn string(&self, name: &str) -> Option<String> {
        self.get(name).and_then(|v| as_string(self.ev, v))
    }

    fn stack(&self, name: &str) -> Vec<u64> {
        match self.get(name) {
            Some(FieldValueRef::PooledStackFrames(id)) => {
                self.ev.stack_pool.get(*id).map(<[u64]>::to_vec).unwrap_or_default()
            }
            Some(FieldValueRef::StackFrames(s)) => s.iter().collect(),
            _ => Vec::new(),
        }
    }
}

fn as_u64(v: &FieldValueRef<'_>) -> Option<u64> {
    match v {
        FieldValueRef::Varint(v) => Some(*v),
        FieldValueRef::I64(v) => Some(*v as u64),
        FieldValueRef::F64(v) => Some(*v as u64),
        FieldValueRef::Bool(b) => Some(u64::from(*b)),
        _ => None,
    }
}

fn as_string(ev: &RawEvent<'_, '_>, v: &FieldValueRef<'_>) -> Option<String> {
    match v {
        FieldValueRef::String(s) => Some((*s).to_string()),
        FieldValueRef::PooledString(id) => Some(
            ev.string_pool
                .get(*id)
                .map_or_else(|| format!("<unresolved pool#{id:?}>"), str::to_string),
        ),
        _ => None,
    }
}

impl Builder {
    fn intern(&mut self, s: String) -> u32 {
        if let Some(&id) = self.string_ids.get(&s) {
            return id;
        }
        let id = self.trace.strings.len() as u32;
        self.trace.strings.push(s.clone());
        self.string_ids.insert(s, id);
        id
    }

    fn push_runtime(&mut self, e: RuntimeEvent) {
        self.trace.events.push(e);
    }

    fn event(&mut self, ev: &RawEvent<'_, '_>) {
        let f = Fields { ev };
        let ts = ev.timestamp_ns;
        match ev.name {
            "PollStartEvent" => {
                let mut e = RuntimeEvent::new(RuntimeKind::PollStart, ts);
                e.worker = f.u64_or0("worker_id");
                e.local_queue = f.u64_or0("local_queue");
                e.task_id = f.u64_or0("task_id");
                e.spawn_loc = f.string("spawn_loc").filter(|s| !s.is_empty()).map(|s| self.intern(s));
                e.scheduling_delay = f.u64("scheduling_delay_ns");
                if e.task_id != 0
                    && let Some(loc) = e.spawn_loc
                {
                    self.trace.task_spawn_locs.entry(e.task_id).or_insert(Some(loc));
                }
                self.push_runtime(e);
            }
            "PollEndEvent" => {
                let mut e = RuntimeEvent::new(RuntimeKind::PollEnd, ts);
                e.worker = f.u64_or0("worker_id");
                self.push_runtime(e);
            }
            "WorkerParkEvent" | "WorkerUnparkEvent" => {
                let park = ev.name == "WorkerParkEvent";
                let mut e = RuntimeEvent::new(if park { RuntimeKind::Park } else { RuntimeKind::Unpark }, ts);
                e.worker = f.u64_or0("worker_id");
                e.local_queue = f.u64_or0("local_queue");
                e.cpu_time = f.u64_or0("cpu_time_ns");
                if !park {
                    e.sched_wait = f.u64("sched_wait_ns");
                }
                e.tid = f.u64("tid");
                if let Some(tid) = e.tid {
                    self.trace.tid_to_worker.insert(tid, e.worker);
                }
                self.push_runtime(e);
            }
            "QueueSampleEvent" => {
                let mut e = RuntimeEvent::new(RuntimeKind::QueueSample, ts);
                e.global_queue = f.u64_or0("global_queue");
                if let Some(active) = f.u64("active_tasks") {
                    self.trace.legacy_active_tasks.push((ts, active));
                }
                self.push_runtime(e);
            }
            "WakeEventEvent" => {
                let mut e = RuntimeEvent::new(RuntimeKind::Wake, ts);
                e.worker = f.u64_or0("target_worker");
                e.waker_task = f.u64_or0("waker_task_id");
                e.woken_task = f.u64_or0("woken_task_id");
                self.trace.wake_events += 1;
                self.push_runtime(e);
            }
            "TaskSpawnEvent" => {
                let task = f.u64_or0("task_id");
                let loc = f.string("spawn_loc").filter(|s| !s.is_empty()).map(|s| self.intern(s));
                self.trace.task_spawn_locs.insert(task, loc);
                self.trace.task_spawn_times.insert(task, ts);
            }
            "TaskTerminateEvent" => {
                self.trace.task_terminate_times.insert(f.u64_or0("task_id"), ts);
            }
            "CpuSampleEvent" => {
                self.trace.samples.push(CpuSample {
                    ts,
                    worker: f.u64_or0("worker_id"),
                    tid: f.u64_or0("tid"),
                    source: f.u64_or0("source"),
                    callchain: f.stack("callchain"),
                });
            }
            "SymbolTableEntry" => {
                let addr = f.u64_or0("addr");
                let symbol = f.string("symbol_name").unwrap_or_default();
                let file = f.string("source_file").filter(|s| !s.is_empty());
                let line = f.u64("source_line").filter(|&l| l > 0);
                let location = file.map(|file| match line {
                    Some(line) => format!("{file}:{line}"),
                    None => file,
                });
                let depth = f.u64_or0("inline_depth") as usize;
                // Depths beyond any real inlining are corrupt data; don't let them allocate.
                if depth < 1024 {
                    self.trace.symbols.insert(addr, depth, Frame { symbol, location });
                }
            }
            "SegmentMetadataEvent" => {
                if let Some(FieldValueRef::StringMap(map)) = f.get("entries") {
                    for (k, v) in map.iter() {
                        if k == "segment.complete" {
                            self.trace.sealed = true;
                            self.trace.incomplete |= v == "false";
                        }
                        self.trace.metadata.insert(k.to_string(), v.to_string());
                    }
                }
            }
            "ClockSyncEvent" => {
                let realtime = f.u64_or0("realtime_ns");
                if realtime > 0 {
                    self.trace.clock_anchors.push((ts, realtime as i64));
                }
            }
            "RuntimeMetricsEvent" => self.trace.runtime_metrics.push(RuntimeMetrics {
                ts,
                global_queue: f.u64_or0("global_queue_depth"),
                alive_tasks: f.u64("alive_tasks"),
            }),
            "AllocEvent" => self.trace.allocs.push(Alloc {
                ts,
                tid: f.u64_or0("tid"),
                size: f.u64_or0("size"),
                addr: f.u64_or0("addr"),
                callchain: f.stack("callchain"),
            }),
            "FreeEvent" => self.trace.frees.push(Free {
                addr: f.u64_or0("addr"),
                alloc_ts: f.u64_or0("alloc_timestamp_ns"),
            }),
            "MemoryProfileOverflowEvent" => {
                self.trace.dropped_allocs += f.u64_or0("dropped_allocs");
                self.trace.dropped_frees += f.u64_or0("dropped_frees");
            }
            "TaskDumpEvent" | "ProcessResourceUsageEvent" => {}
            name => self.custom(name, &f, ts),
        }
    }

    fn custom(&mut self, name: &str, f: &Fields<'_, '_, '_>, ts: u64) {
        let event = if name.starts_with("SpanEnter:") || name.starts_with("SpanEnter__") || name == "SpanEnterEvent" {
            SpanEvent::Enter {
                span_id: f.u64_or0("span_id"),
                name: f.string("span_name"),
                task_id: f.u64("dial9.tokio.task_id").filter(|&t| t != 0),
            }
        } else if name.starts_with("SpanExit:") || name.starts_with("SpanExit__") || name == "SpanExitEvent" {
            SpanEvent::Exit {
                span_id: f.u64_or0("span_id"),
                name: f.string("span_name"),
            }
        } else if name.starts_with("SpanClose__") || name == "SpanCloseEvent" {
            SpanEvent::Close {
                span_id: f.u64_or0("span_id"),
            }
        } else {
            let key = (name.to_string(), f.ev.schema.annotations().len());
            let projection = self
                .projections
                .entry(key)
                .or_insert_with(|| Projection::compile(f.ev))
                .clone();
            match projection.and_then(|p| p.project(f)) {
                Some((name, start, end)) => SpanEvent::Single { name, start, end },
                None => return,
            }
        };
        self.trace.span_events.push(TimedSpanEvent { ts, event });
    }

    fn finish(mut self) -> ParsedTrace {
        let t = &mut self.trace;
        t.clock_anchors.sort_by_key(|a| a.0);
        t.runtime_bounds = bounds(t.events.iter().map(|e| e.ts));
        let single = t.span_events.iter().filter_map(|e| match e.event {
            SpanEvent::Single { start, end, .. } => Some([start, end]),
            _ => None,
        });
        t.bounds = bounds(t.events.iter().map(|e| e.ts).chain(single.flatten()));
        t.gaps = thread_gaps(&t.events);
        attribute_samples(t);
        self.trace
    }
}

fn bounds(it: impl Iterator<Item = u64>) -> Option<(u64, u64)> {
    it.fold(None, |acc, ts| match acc {
        None => Some((ts, ts)),
        Some((lo, hi)) => Some((lo.min(ts), hi.max(ts))),
    })
}

/// Park/Unpark tid switches per worker (block_in_place hand-offs).
fn thread_gaps(events: &[RuntimeEvent]) -> Vec<ThreadGap> {
    #[derive(Default)]
    struct State {
        bound: Option<u64>,
        last_tid: Option<u64>,
        last_ts: u64,
    }
    let mut state: HashMap<u64, State> = HashMap::new();
    let mut gaps = Vec::new();
    for e in events {
        let (RuntimeKind::Park | RuntimeKind::Unpark) = e.kind else {
            continue;
        };
        let Some(tid) = e.tid else { continue };
        let s = state.entry(e.worker).or_default();
        if let Some(expected) = s.bound.or(s.last_tid)
            && expected != tid
        {
            gaps.push(ThreadGap {
                worker: e.worker,
                from_tid: expected,
                to_tid: tid,
                start: s.last_ts,
                end: e.ts,
            });
        }
        s.last_tid = Some(tid);
        s.bound = (e.kind == RuntimeKind::Unpark).then_some(tid);
        s.last_ts = e.ts;
    }
    gaps.sort_by_key(|g| g.start);
    gaps
}

/// Samples take the worker bound to their thread, except inside a hand-off gap.
fn attribute_samples(t: &mut ParsedTrace) {
    for s in &mut t.samples {
        if let Some(&w) = t.tid_to_worker.get(&s.tid) {
            s.worker = w;
        }
        let in_gap = t
            .gaps
            .iter()
            .any(|g| (g.from_tid == s.tid || g.to_tid == s.tid) && s.ts >= g.start && s.ts < g.end);
        if in_gap {
            s.worker = UNKNOWN_WORKER;
        }
    }
}

/// How a schema annotated with `dial9.role` projects onto a span.
#[derive(Debug, Clone)]
struct Projection {
    start: Option<(String, u64)>,
    duration: Option<(String, u64)>,
    name_field: Option<String>,
    schema_name: String,
}

fn unit_factor(unit: Option<&str>) -> Option<u64> {
    match unit.unwrap_or("ns") {
        "ns" => Some(1),
        "us" => Some(1_000),
        "ms" => Some(1_000_000),
        "s" => Some(1_000_000_000),
        _ => None,
    }
}

impl Projection {
    fn compile(ev: &RawEvent<'_, '_>) -> Option<Projection> {
        let fields = ev.schema.fields();
        let annotation = |idx: usize, key: &str| {
            ev.schema
                .annotations()
                .iter()
                .find(|a| a.field_index() as usize == idx && a.key() == key)
                .map(|a| a.value())
        };
        let mut p = Projection {
            start: None,
            duration: None,
            name_field: None,
            schema_name: ev.name.to_string(),
        };
        for a in ev.schema.annotations().iter().filter(|a| a.key() == "dial9.role") {
            let idx = a.field_index() as usize;
            let field = fields.get(idx)?;
            let unit = || unit_factor(annotation(idx, "unit")).map(|u| (field.name().to_string(), u));
            match a.value() {
                "span.start" => p.start = Some(unit()?),
                "span.duration" => p.duration = Some(unit()?),
                "span.name" => p.name_field = Some(field.name().to_string()),
                _ => {}
            }
        }
        // A packed timestamp is the span end; two of start/duration/end are needed.
        (p.start.is_some() || p.duration.is_some()).then_some(p)
    }

    fn project(&self, f: &Fields<'_, '_, '_>) -> Option<(String, u64, u64)> {
        let value = |(name, unit): &(String, u64)| f.u64(name).map(|v| v.saturating_mul(*unit));
        let end = f.ev.timestamp_ns;
        let (start, end) = match (self.start.as_ref().map(value), self.duration.as_ref().map(value)) {
            (Some(Some(start)), _) if start <= end => (start, end),
            (Some(_), _) => return None,
            (None, Some(Some(duration))) => (end.saturating_sub(duration), end),
            _ => return None,
        };
        let name = self
            .name_field
            .as_ref()
            .and_then(|n| f.string(n))
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| self.schema_name.clone());
        Some((name, start, end))
    }
}
