//! `dial9-trace-format` frames → `ParsedTrace` (the reference parser's model).

use super::app::{
    AppEvents, CustomEvent, EventField, EventType, FieldSetId, MAX_EVENT_TYPES, MAX_EVENTS, MAX_FIELDS, MAX_TASK_DUMPS,
    MetricKind, SpanFields, TaskDump, Value,
};
use super::fields::{Field, Fields, Slots, as_u64};
use super::model::*;
use super::strings::{StrId, cut};
use super::texts::Texts;
use crate::container::TRACE_MAGIC;
use crate::frames::Frame;
use crate::hashing::FastMap;
use crate::parallel::join;
use dial9_trace_format::decoder::{DecodeError, Decoder, RawEvent, TryForEachError};
use dial9_trace_format::types::FieldValueRef;
use std::collections::BTreeMap;
use std::num::NonZeroU64;

/// Decoding stopped early; everything before `offset` was kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeFailure {
    pub offset: u64,
    pub message: String,
}

/// Parses a raw (already inflated) trace. Never panics: a corrupt or
/// truncated stream yields the events before the damage plus the failure.
pub fn parse_trace(raw: &[u8]) -> (ParsedTrace, Option<DecodeFailure>) {
    parse_trace_within(raw, DEFAULT_MAX_DECODED_BYTES)
}

/// `parse_trace`, stopping (with a failure) once the decoded events hold
/// more than `budget` bytes (`Builder::held_bytes`).
pub fn parse_trace_within(raw: &[u8], budget: usize) -> (ParsedTrace, Option<DecodeFailure>) {
    let mut builder = Builder {
        budget: Budget(budget),
        ..Builder::default()
    };
    let mut walk = Walk::default();
    walk.advance(raw, true, &mut builder);
    (builder.finish(), walk.failure)
}

/// `parse_trace` for bytes that arrive in pieces (a download, an inflater on
/// another thread): each complete sub-stream is decoded as soon as it is in,
/// and its bytes are dropped, so the buffer holds about one sub-stream however
/// big the file (fewer pages touched, and what is decoded is still in cache).
#[derive(Default)]
pub struct TraceParser {
    /// The bytes from the start of the sub-stream being decoded on.
    raw: Vec<u8>,
    /// Bytes received in all.
    received: usize,
    pub(super) builder: Builder,
    pub(super) walk: Walk,
}

/// The buffer needs about one sub-stream (the recorder's are under 1 MB).
const BUFFER_CAPACITY: usize = 4 << 20;

impl TraceParser {
    /// `capacity`: the expected raw size, when known (saves regrowing the buffer).
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            raw: Vec::with_capacity(capacity.min(BUFFER_CAPACITY)),
            ..Self::default()
        }
    }

    pub fn push(&mut self, bytes: &[u8]) {
        self.extend(|raw| raw.extend_from_slice(bytes));
    }

    /// Lets `fill` append to the raw buffer in place (an inflater writing
    /// straight into it), then decodes what became complete.
    pub fn extend<R>(&mut self, fill: impl FnOnce(&mut Vec<u8>) -> R) -> R {
        let before = self.raw.len();
        let r = fill(&mut self.raw);
        self.received += self.raw.len() - before;
        self.walk.advance(&self.raw, false, &mut self.builder);
        let decoded = self.walk.rebase();
        self.raw.drain(..decoded);
        r
    }

    /// Stops decoding, with a failure, once the decoded events hold more
    /// than `budget` bytes (`Builder::held_bytes`).
    pub fn with_budget(mut self, budget: usize) -> Self {
        self.builder.budget = Budget(budget);
        self
    }

    /// Raw bytes received so far.
    pub fn len(&self) -> usize {
        self.received
    }

    pub fn is_empty(&self) -> bool {
        self.received == 0
    }

    /// Received bytes not decoded yet (those of an incomplete sub-stream).
    pub fn pending(&self) -> usize {
        self.raw.len()
    }

    /// Events decoded so far (for progress).
    pub fn events(&self) -> u64 {
        self.builder.events
    }

    /// No more bytes: decodes the rest and frees the raw buffer.
    pub fn finish(self) -> (ParsedTrace, Option<DecodeFailure>) {
        let (builder, walk) = self.end();
        (builder.finish(), walk.failure)
    }

    /// A parser of the bytes from file offset `base` on (a sub-stream start).
    pub(super) fn at(base: usize) -> Self {
        Self {
            walk: Walk::at(base),
            ..Self::default()
        }
    }

    /// Decodes the rest, frees the raw buffer, and hands back what was decoded, unfinished.
    pub(super) fn end(mut self) -> (Builder, Walk) {
        self.walk.advance(&self.raw, true, &mut self.builder);
        (self.builder, self.walk)
    }
}

/// Length of a stream header: the magic and a version byte.
pub const STREAM_HEADER: usize = 5;

/// The walk over a trace's sub-streams. A file is many streams back to back,
/// each starting with `TRC\0` + version (a reset of schemas, pools and the
/// timestamp base); each is decoded by a fresh decoder as soon as it is
/// complete. The magic can also occur inside a frame, so a cut there is only
/// believed when the part before it decodes exactly to it: the sequential
/// decoder would then stand on a frame boundary seeing a header. Otherwise the
/// same start is decoded again with at least twice the length (the events
/// already handed on are skipped), and at the end of the input whatever error
/// remains is the file's.
#[derive(Default)]
pub(super) struct Walk {
    /// File offset of `raw[0]`: the bytes before it were decoded and dropped.
    pub(super) base: usize,
    pub(super) start: usize,
    /// Events of the current sub-stream already given to the builder.
    emitted: u64,
    /// The next cut must lie at least this far from `start`.
    min_len: usize,
    /// No header candidate before this offset (past `start`).
    searched: usize,
    pub(super) done: bool,
    pub(super) failure: Option<DecodeFailure>,
}

impl Walk {
    /// A walk of the bytes from file offset `base` on.
    pub(super) fn at(base: usize) -> Self {
        Walk {
            base,
            ..Walk::default()
        }
    }

    pub(super) fn advance(&mut self, raw: &[u8], complete: bool, builder: &mut Builder) {
        let at_file_start = self.base == 0 && self.start == 0;
        if at_file_start && !self.done && (raw.len() >= STREAM_HEADER || complete) && Decoder::new(raw).is_none() {
            self.finish(0, "not a dial9 trace (missing TRC\\0 magic)".into());
        }
        while !self.done {
            let Some(end) = self.next_cut(raw, complete) else {
                return;
            };
            // A first try ends at the first candidate: no header inside, so one
            // decoder sees one sub-stream, where a type id names one schema.
            builder.new_stream(self.min_len == 0);
            let (events, result) = decode_stream(&raw[self.start..end], self.emitted, builder);
            self.emitted = self.emitted.max(events);
            // Only a complete input is cut at its end.
            let at_end = end == raw.len();
            // The budget is checked within a stream every
            // `BUDGET_CHECK_EVERY` events, and at its end.
            let result = match result {
                Ok(()) if builder.over_budget() => Err(Stop::OverBudget { pos: end - self.start }),
                other => other,
            };
            match result {
                Err(Stop::OverBudget { pos }) => {
                    let offset = self.base + self.start + pos;
                    self.finish(
                        offset,
                        format!(
                            "the decoded events need more than {} MiB of memory, this analyzer's budget for one \
                             file: the report covers the events before byte {offset}",
                            builder.budget.0 >> 20
                        ),
                    );
                }
                Ok(()) if at_end => self.done = true,
                Ok(()) => {
                    self.start = end;
                    self.emitted = 0;
                    self.min_len = 0;
                }
                Err(Stop::Decode(e)) if at_end => self.finish(self.base + self.start + e.pos, e.message),
                Err(Stop::Decode(_)) => self.min_len = 2 * (end - self.start),
            }
        }
    }

    /// Forgets the bytes before the current sub-stream (all decoded): `raw`
    /// will start at `start` from now on. Returns how many to drop.
    fn rebase(&mut self) -> usize {
        let n = self.start;
        self.base += n;
        self.start = 0;
        self.searched = self.searched.saturating_sub(n);
        n
    }

    fn finish(&mut self, offset: usize, message: String) {
        self.done = true;
        self.failure = Some(DecodeFailure {
            offset: offset as u64,
            message,
        });
    }

    /// Where the current sub-stream may end: the next header candidate far
    /// enough from `start`, or the end of a complete input.
    fn next_cut(&mut self, raw: &[u8], complete: bool) -> Option<usize> {
        let from = (self.start + self.min_len.max(1)).max(self.searched).min(raw.len());
        match memchr::memmem::find(&raw[from..], &TRACE_MAGIC) {
            Some(i) if from + i + STREAM_HEADER <= raw.len() => return Some(from + i),
            Some(i) => self.searched = from + i,
            None => self.searched = raw.len().saturating_sub(TRACE_MAGIC.len() - 1).max(from),
        }
        complete.then_some(raw.len())
    }
}

/// Why decoding a sub-stream stopped early.
enum Stop {
    Decode(DecodeError),
    /// The decoded events passed the builder's budget: the stream's events
    /// before `pos` were taken, none after.
    OverBudget {
        pos: usize,
    },
}

/// The budget is checked every this many events: a sub-stream can be
/// the whole file.
const BUDGET_CHECK_EVERY: u64 = 1 << 16;

/// Decodes one (supposed) sub-stream, handing the builder every event after the first `skip`.
fn decode_stream(data: &[u8], skip: u64, builder: &mut Builder) -> (u64, Result<(), Stop>) {
    let Some(mut decoder) = Decoder::new(data) else {
        let e = DecodeError {
            pos: 0,
            message: "truncated stream header".into(),
        };
        return (0, Err(Stop::Decode(e)));
    };
    let mut n = 0u64;
    let result = decoder.try_for_each_event(|ev| {
        let taken = n >= skip;
        if taken {
            builder.event(&ev);
        }
        n += 1;
        match taken && n.is_multiple_of(BUDGET_CHECK_EVERY) && builder.over_budget() {
            true => Err(()),
            false => Ok(()),
        }
    });
    let result = match result {
        Ok(()) => Ok(()),
        Err(TryForEachError::Decode(e)) => Err(Stop::Decode(e)),
        Err(TryForEachError::User(())) => Err(Stop::OverBudget {
            pos: decoder.position(),
        }),
    };
    (n, result)
}

/// What an event means to the analysis, decided once per schema from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    PollStart,
    PollEnd,
    Park,
    Unpark,
    QueueSample,
    Wake,
    TaskSpawn,
    TaskTerminate,
    CpuSample,
    Symbol,
    SegmentMetadata,
    ClockSync,
    RuntimeMetrics,
    Alloc,
    Free,
    MemoryOverflow,
    SpanEnter,
    SpanExit,
    SpanClose,
    TaskDump,
    /// Anything else (process resource usage and accept-queue samples
    /// among them): an application event, and a single-event span too if
    /// its schema says so.
    Custom,
}

impl Kind {
    fn of(name: &str) -> Kind {
        match name {
            "PollStartEvent" => Kind::PollStart,
            "PollEndEvent" => Kind::PollEnd,
            "WorkerParkEvent" => Kind::Park,
            "WorkerUnparkEvent" => Kind::Unpark,
            "QueueSampleEvent" => Kind::QueueSample,
            "WakeEventEvent" => Kind::Wake,
            "TaskSpawnEvent" => Kind::TaskSpawn,
            "TaskTerminateEvent" => Kind::TaskTerminate,
            "CpuSampleEvent" => Kind::CpuSample,
            "SymbolTableEntry" => Kind::Symbol,
            "SegmentMetadataEvent" => Kind::SegmentMetadata,
            "ClockSyncEvent" => Kind::ClockSync,
            "RuntimeMetricsEvent" => Kind::RuntimeMetrics,
            "AllocEvent" => Kind::Alloc,
            "FreeEvent" => Kind::Free,
            "MemoryProfileOverflowEvent" => Kind::MemoryOverflow,
            "TaskDumpEvent" => Kind::TaskDump,
            n if n.starts_with("SpanEnter:") || n.starts_with("SpanEnter__") || n == "SpanEnterEvent" => {
                Kind::SpanEnter
            }
            n if n.starts_with("SpanExit:") || n.starts_with("SpanExit__") || n == "SpanExitEvent" => Kind::SpanExit,
            n if n.starts_with("SpanClose__") || n == "SpanCloseEvent" => Kind::SpanClose,
            _ => Kind::Custom,
        }
    }
}

/// What is known about the schema behind one wire type id: its kind and
/// where its fields sit. Type ids are per sub-stream and get reused, so a
/// decoder that may span sub-streams re-checks the schema on each event.
struct Plan {
    name: Box<str>,
    kind: Kind,
    field_count: usize,
    slots: Slots,
    /// Custom events: what they are, read for this many annotations
    /// (annotation frames may arrive after the schema).
    custom: Option<(usize, Custom)>,
    /// Span enters and exits: the fields kept, as (position, name).
    span_fields: Option<Box<[(usize, StrId)]>>,
}

/// What a custom event schema is.
struct Custom {
    /// Its type in `AppEvents::types` (none past `MAX_EVENT_TYPES`).
    event_type: Option<u32>,
    /// How it projects onto a single-event span, if it does.
    projection: Option<Projection>,
}

/// The plans of one decoder's type ids.
#[derive(Default)]
struct Plans {
    by_id: Vec<Option<Plan>>,
    /// The decoder sees a single sub-stream: a type id never changes schema.
    single_stream: bool,
}

impl Plans {
    /// The plan for this event's type id, made anew when the id now names
    /// another schema (possible only across sub-streams).
    fn get(&mut self, ev: &RawEvent<'_, '_>) -> &mut Plan {
        let id = ev.type_id.0 as usize;
        if self.by_id.len() <= id {
            self.by_id.resize_with(id + 1, || None);
        }
        let slot = &mut self.by_id[id];
        let stale = match slot {
            None => true,
            Some(p) => {
                !self.single_stream
                    && (*p.name != *ev.name
                        || p.field_count != ev.schema.fields().len()
                        || p.slots != Slots::of(ev.schema))
            }
        };
        if stale {
            *slot = Some(Plan {
                name: ev.name.into(),
                kind: Kind::of(ev.name),
                field_count: ev.schema.fields().len(),
                slots: Slots::of(ev.schema),
                custom: None,
                span_fields: None,
            });
        }
        slot.as_mut().expect("just filled")
    }
}

#[derive(Default)]
pub(super) struct Builder {
    pub(super) trace: ParsedTrace,
    /// Each worker's timeline while decoding; `last` is the one of the
    /// previous event (most events follow one of the same worker).
    pub(super) workers: WorkerLists,
    last: usize,
    /// Every event seen, of any kind.
    pub(super) events: u64,
    /// Symbol entries in file order, applied at the end: an entry can
    /// update an earlier one, so a part decoded apart must replay its own
    /// after those before it.
    pub(super) symbols: Vec<(u64, u16, Frame)>,
    plans: Plans,
    unknown_name: Option<StrId>,
    /// Each distinct dump call chain's index in `AppEvents::dump_chains`.
    dump_chains: FastMap<Box<[u64]>, u32>,
    /// A span's fields while they are read (kept to reuse its allocation).
    scratch: Vec<(StrId, StrId)>,
    /// Each open span's last field set: a span is entered and exited once
    /// per poll with the same fields, which then need no interning.
    span_sets: FastMap<u64, FieldSetId>,
    texts: Texts,
    /// Bytes held beside the lists' own records (`held_bytes`): sample call
    /// chains, symbol and metadata text.
    extra_bytes: usize,
    /// Decoding stops once `held_bytes` passes this.
    pub(super) budget: Budget,
}

/// The memory budget of one file's decoded events (`Builder::held_bytes`):
/// a browser worker has at most 4 GiB, and the analysis needs room too.
pub const DEFAULT_MAX_DECODED_BYTES: usize = 1 << 30;

/// Bytes the decoded events of one file may hold.
#[derive(Debug, Clone, Copy)]
pub(super) struct Budget(pub(super) usize);

impl Default for Budget {
    fn default() -> Self {
        Budget(DEFAULT_MAX_DECODED_BYTES)
    }
}

/// Appends to one of the lists a trace holds events in by the hundred
/// thousand. On 64-bit targets, a list that reaches 1 MiB moves to 32 MiB
/// of address space, which the allocator maps apart from its heap: from then
/// on growing it never copies (the kernel moves the mapping), and a page
/// costs memory only once an event is written to it (a list grown by
/// copying touches about twice the memory it ends with). Only lists the
/// trace filled that far get the space, however many workers it names.
/// wasm32 commits what it reserves: there lists grow as usual.
fn push_event<T>(list: &mut Vec<T>, event: T) {
    make_room(list, 1);
    list.push(event);
}

/// `push_event`'s growth, for `n` events appended together.
fn make_room<T>(list: &mut Vec<T>, n: usize) {
    const BIG: usize = 1 << 20;
    const RESERVED: usize = 32 << 20;
    if list.len() + n > list.capacity() && cfg!(target_pointer_width = "64") {
        let bytes = list.len() * size_of::<T>();
        if (BIG..RESERVED).contains(&bytes) {
            list.reserve_exact((RESERVED / size_of::<T>()).max(list.len() + n) - list.len());
        }
    }
}

impl Builder {
    /// Roughly the memory the decoded events hold: the lists that grow with
    /// the file (strings, schemas and maps of names are small beside them).
    pub(super) fn held_bytes(&self) -> usize {
        let t = &self.trace;
        let workers: usize = self.workers.lists.iter().map(|(_, l)| l.len()).sum();
        let tasks = t.task_spawn_locs.len() + t.task_spawn_times.len() + t.task_terminate_times.len();
        workers * size_of::<WorkerEvent>()
            + t.wakes.len() * size_of::<Wake>()
            + (t.queue_samples.len() + t.legacy_active_tasks.len() + t.clock_anchors.len()) * 16
            + t.samples.len() * size_of::<CpuSample>()
            + self.extra_bytes
            + t.allocs.len() * size_of::<Alloc>()
            + t.frees.len() * size_of::<Free>()
            + t.span_events.len() * size_of::<TimedSpanEvent>()
            + t.runtime_metrics.len() * size_of::<RuntimeMetrics>()
            + self.symbols.len() * size_of::<(u64, u16, Frame)>()
            + tasks * 32
            + t.strings.bytes()
            + t.app.bytes()
    }

    /// The decoded events hold more than the budget allows.
    fn over_budget(&self) -> bool {
        self.held_bytes() > self.budget.0
    }

    /// A new decoder starts: its type ids are its own.
    fn new_stream(&mut self, single_stream: bool) {
        self.plans = Plans {
            by_id: std::mem::take(&mut self.plans.by_id),
            single_stream,
        };
        self.plans.by_id.clear();
        self.texts.new_stream();
    }

    fn spawn_loc(&mut self, f: &Fields<'_, '_, '_>) -> Option<StrId> {
        self.text(f, Field::SpawnLoc)
    }

    /// A string field, interned, unless absent or empty.
    fn text(&mut self, f: &Fields<'_, '_, '_>, field: Field) -> Option<StrId> {
        let strings = &mut self.trace.strings;
        let id = self.texts.string(f, f.get(field)?, strings)?;
        (!strings.get(id).is_empty()).then_some(id)
    }

    fn worker_event(&mut self, worker: u64, ts: u64, kind: WorkerEventKind) {
        if self.workers.lists.get(self.last).is_none_or(|w| w.0 != worker) {
            self.last = self.workers.index_of(worker);
        }
        push_event(&mut self.workers.lists[self.last].1, WorkerEvent { ts, kind });
    }

    fn event(&mut self, ev: &RawEvent<'_, '_>) {
        self.events += 1;
        let plan = self.plans.get(ev);
        let (kind, slots) = (plan.kind, plan.slots);
        let f = Fields { ev, slots: &slots };
        let ts = ev.timestamp_ns;
        let t = &mut self.trace;
        if matches!(
            kind,
            Kind::PollStart | Kind::PollEnd | Kind::Park | Kind::Unpark | Kind::QueueSample | Kind::Wake
        ) {
            t.runtime_events += 1;
            t.runtime_bounds = Some(t.runtime_bounds.map_or((ts, ts), |(lo, hi)| (lo.min(ts), hi.max(ts))));
        }
        match kind {
            Kind::PollStart => {
                t.max_local_queue = t.max_local_queue.max(f.u64_or0(Field::LocalQueue));
                let task_id = f.u64_or0(Field::TaskId);
                let spawn_loc = self.spawn_loc(&f);
                if task_id != 0
                    && let Some(loc) = spawn_loc
                {
                    self.trace.task_spawn_locs.entry(task_id).or_insert(Some(loc));
                }
                let kind = WorkerEventKind::PollStart {
                    task_id,
                    spawn_loc,
                    scheduling_delay: f.u64(Field::SchedulingDelayNs).into(),
                };
                self.worker_event(f.u64_or0(Field::WorkerId), ts, kind);
            }
            Kind::PollEnd => self.worker_event(f.u64_or0(Field::WorkerId), ts, WorkerEventKind::PollEnd),
            Kind::Park | Kind::Unpark => {
                let worker = f.u64_or0(Field::WorkerId);
                t.max_local_queue = t.max_local_queue.max(f.u64_or0(Field::LocalQueue));
                let (cpu_time, tid) = (f.u64_or0(Field::CpuTimeNs), OptTid::from(f.u64(Field::Tid)));
                if let Some(tid) = tid.get() {
                    t.tid_to_worker.insert(tid, worker);
                }
                let kind = if kind == Kind::Park {
                    WorkerEventKind::Park { cpu_time, tid }
                } else {
                    let sched_wait = f.u64(Field::SchedWaitNs).into();
                    WorkerEventKind::Unpark {
                        cpu_time,
                        sched_wait,
                        tid,
                    }
                };
                self.worker_event(worker, ts, kind);
            }
            Kind::QueueSample => {
                t.queue_samples.push((ts, f.u64_or0(Field::GlobalQueue)));
                if let Some(active) = f.u64(Field::ActiveTasks) {
                    t.legacy_active_tasks.push((ts, active));
                }
            }
            Kind::Wake => push_event(
                &mut t.wakes,
                Wake {
                    ts,
                    task: f.u64_or0(Field::WokenTaskId),
                    waker: f.u64_or0(Field::WakerTaskId),
                },
            ),
            Kind::TaskSpawn => {
                let task = f.u64_or0(Field::TaskId);
                if f.get(Field::Instrumented) == Some(&FieldValueRef::Bool(false)) {
                    t.app.uninstrumented.push(task);
                }
                let loc = self.spawn_loc(&f);
                self.trace.task_spawn_locs.insert(task, loc);
                self.trace.task_spawn_times.insert(task, ts);
            }
            Kind::TaskTerminate => {
                t.task_terminate_times.insert(f.u64_or0(Field::TaskId), ts);
            }
            Kind::CpuSample => {
                let tid = f.u64_or0(Field::Tid);
                if !t.app.thread_names.contains_key(&tid)
                    && let Some(name) = f.str(Field::ThreadName).filter(|n| !n.is_empty())
                {
                    let name = t.strings.intern(&name);
                    t.app.thread_names.insert(tid, name);
                }
                let callchain = f.stack(Field::Callchain);
                self.extra_bytes += callchain.len() * size_of::<u64>();
                t.samples.push(CpuSample {
                    ts,
                    worker: f.u64_or0(Field::WorkerId),
                    tid,
                    source: f.u64_or0(Field::Source),
                    callchain,
                });
            }
            Kind::Symbol => {
                let addr = f.u64_or0(Field::Addr);
                let symbol = f
                    .str(Field::SymbolName)
                    .map(|s| cut(&s).into_owned())
                    .unwrap_or_default();
                let file = f.str(Field::SourceFile).filter(|s| !s.is_empty());
                let line = f.u64(Field::SourceLine).filter(|&l| l > 0);
                let location = file.map(|file| match line {
                    Some(line) => format!("{}:{line}", cut(&file)),
                    None => cut(&file).into_owned(),
                });
                self.extra_bytes += symbol.len() + location.as_ref().map_or(0, String::len);
                let depth = f.u64_or0(Field::InlineDepth);
                // Depths beyond any real inlining are corrupt data.
                if depth < 1024 {
                    self.symbols.push((
                        addr,
                        depth as u16,
                        Frame {
                            symbol: symbol.into(),
                            location: location.map(Into::into),
                        },
                    ));
                }
            }
            Kind::SegmentMetadata => {
                if let Some(FieldValueRef::StringMap(map)) = f.get(Field::Entries) {
                    for (k, v) in map.iter() {
                        if k == "segment.complete" {
                            t.sealed = true;
                            t.incomplete |= v == "false";
                        }
                        let (k, v) = (cut(k), cut(v));
                        self.extra_bytes += k.len() + v.len();
                        t.metadata.insert(k.into_owned(), v.into_owned());
                    }
                }
            }
            Kind::ClockSync => {
                let realtime = f.u64_or0(Field::RealtimeNs);
                if realtime > 0 {
                    t.clock_anchors.push((ts, realtime as i64));
                }
            }
            Kind::RuntimeMetrics => {
                let runtime = f.str(Field::RuntimeName).map(|n| t.strings.intern(&n));
                t.runtime_metrics.push(RuntimeMetrics {
                    ts,
                    runtime,
                    global_queue: f.u64_or0(Field::GlobalQueueDepth),
                    alive_tasks: f.u64(Field::AliveTasks),
                })
            }
            Kind::Alloc => t.allocs.push(Alloc {
                ts,
                tid: f.u64_or0(Field::Tid),
                size: f.u64_or0(Field::Size),
                addr: f.u64_or0(Field::Addr),
                callchain: f.stack(Field::Callchain),
            }),
            Kind::Free => t.frees.push(Free {
                addr: f.u64_or0(Field::Addr),
                alloc_ts: f.u64_or0(Field::AllocTimestampNs),
            }),
            Kind::MemoryOverflow => {
                t.dropped_allocs += f.u64_or0(Field::DroppedAllocs);
                t.dropped_frees += f.u64_or0(Field::DroppedFrees);
            }
            Kind::SpanEnter => {
                let name = match self.text(&f, Field::SpanName) {
                    Some(n) => n,
                    None => *self
                        .unknown_name
                        .get_or_insert_with(|| self.trace.strings.intern("unknown")),
                };
                let span_id = f.u64_or0(Field::SpanId);
                let event = SpanEvent::Enter {
                    span_id,
                    name,
                    task_id: f.u64(Field::TokioTaskId).and_then(NonZeroU64::new),
                    parent: f.u64(Field::ParentSpanId).and_then(NonZeroU64::new),
                    fields: self.span_fields(&f, span_id).unwrap_or(FieldSetId::EMPTY),
                };
                push_event(&mut self.trace.span_events, TimedSpanEvent { ts, event });
            }
            Kind::SpanExit => {
                let span_id = f.u64_or0(Field::SpanId);
                let event = SpanEvent::Exit {
                    span_id,
                    fields: self.span_fields(&f, span_id),
                };
                push_event(&mut self.trace.span_events, TimedSpanEvent { ts, event });
            }
            Kind::SpanClose => {
                let span_id = f.u64_or0(Field::SpanId);
                self.span_sets.remove(&span_id);
                let event = SpanEvent::Close { span_id };
                push_event(&mut t.span_events, TimedSpanEvent { ts, event });
            }
            Kind::TaskDump => self.task_dump(&f, ts),
            Kind::Custom => self.custom_event(&f, ts),
        }
    }

    /// The fields of a span enter or exit but its bookkeeping ones, as an
    /// interned set (those dial9's viewer keeps: `buildSpanData`); `None`
    /// when its schema has no other field.
    fn span_fields(&mut self, f: &Fields<'_, '_, '_>, span_id: u64) -> Option<FieldSetId> {
        const BOOKKEEPING: [&str; 7] = [
            "worker_id",
            "dial9.tokio.task_id",
            "span_id",
            "span_instance_id",
            "tid",
            "parent_span_id",
            "span_name",
        ];
        let (strings, app) = (&mut self.trace.strings, &mut self.trace.app);
        let plan = self.plans.get(f.ev);
        let kept = plan.span_fields.get_or_insert_with(|| {
            let named = f.ev.schema.fields().iter().enumerate();
            let extra = named.filter(|(_, d)| !BOOKKEEPING.contains(&d.name()));
            let all: Vec<(usize, StrId)> = extra.map(|(i, d)| (i, strings.intern(d.name()))).collect();
            app.left_out.fields += all.len().saturating_sub(MAX_FIELDS) as u64;
            all.into_iter().take(MAX_FIELDS).collect()
        });
        if kept.is_empty() {
            return None;
        }
        if let Some(&last) = self.span_sets.get(&span_id)
            && same_fields(&self.texts, f, kept, app.field_sets.get(last), strings)
        {
            return Some(last);
        }
        self.scratch.clear();
        for &(i, key) in kept.iter() {
            if let Some(v) = f.at(i)
                && let Some(text) = self.texts.shown(f, v, strings)
            {
                self.scratch.push((key, text));
            }
        }
        let set = app.field_sets.push(&self.scratch);
        self.span_sets.insert(span_id, set);
        Some(set)
    }

    fn task_dump(&mut self, f: &Fields<'_, '_, '_>, ts: u64) {
        let app = &mut self.trace.app;
        if app.dumps.len() >= MAX_TASK_DUMPS {
            app.left_out.dumps += 1;
            return;
        }
        let pooled;
        let owned;
        let chain: &[u64] = match f.get(Field::Callchain) {
            Some(FieldValueRef::PooledStackFrames(id)) => {
                pooled = f.ev.stack_pool.get(*id).unwrap_or_default();
                pooled
            }
            _ => {
                owned = f.stack(Field::Callchain);
                &owned
            }
        };
        let chain = match self.dump_chains.get(chain) {
            Some(&i) => i,
            None => {
                let i = app.dump_chains.len() as u32;
                self.extra_bytes += std::mem::size_of_val(chain);
                app.dump_chains.push(chain.to_vec());
                self.dump_chains.insert(chain.into(), i);
                i
            }
        };
        let task = f.u64_or0(Field::TaskId);
        push_event(&mut app.dumps, TaskDump { ts, task, chain });
    }

    /// Any event the analysis does not read by name: kept with its type,
    /// and a single-event span too if its schema says so.
    fn custom_event(&mut self, f: &Fields<'_, '_, '_>, ts: u64) {
        let annotations = f.ev.schema.annotations().len();
        let (strings, app) = (&mut self.trace.strings, &mut self.trace.app);
        let plan = self.plans.get(f.ev);
        if plan.custom.as_ref().is_none_or(|(n, _)| *n != annotations) {
            let projection = Projection::compile(f.ev, strings);
            let attributes = projection.as_ref().map_or(0, |p| p.attributes);
            let event_type = event_type(f.ev, attributes, strings, app);
            plan.custom = Some((annotations, Custom { event_type, projection }));
        }
        let Some((_, custom)) = &plan.custom else {
            unreachable!("just compiled")
        };
        let values = match custom.event_type {
            None => {
                app.left_out.event_types += 1;
                None
            }
            Some(_) if app.events.len() >= MAX_EVENTS => {
                app.left_out.events += 1;
                None
            }
            Some(kind) => {
                let n = app.types[kind as usize].fields.len();
                let first = app.values.len() as u32;
                make_room(&mut app.values, n);
                let texts = &mut self.texts;
                app.values.extend((0..n).map(|i| {
                    match f.at(i) {
                        Some(v) => Value::scalar(v)
                            .or_else(|| texts.string(f, v, strings).map(Value::Text))
                            .unwrap_or(Value::Absent),
                        None => Value::Absent,
                    }
                }));
                push_event(&mut app.events, CustomEvent { ts, kind, first });
                Some(SpanFields::Event { kind, first })
            }
        };
        let Some(projection) = &custom.projection else {
            return;
        };
        let Some((name, start)) = projection.project(f, &mut self.texts, strings) else {
            return;
        };
        let task_id = projection
            .task
            .and_then(|i| f.at(i))
            .and_then(as_u64)
            .and_then(NonZeroU64::new);
        let t = &mut self.trace;
        // `bounds` holds the single spans' own until `finish`.
        t.bounds = union(t.bounds, bounds([start, ts].into_iter()));
        let event = SpanEvent::Single {
            name,
            start,
            task_id,
            // Past a limit on events, the span is kept without its attributes.
            fields: values.unwrap_or(SpanFields::NONE),
        };
        push_event(&mut t.span_events, TimedSpanEvent { ts, event });
    }

    pub(super) fn finish(self) -> ParsedTrace {
        let Builder {
            mut trace,
            workers,
            symbols,
            ..
        } = self;
        trace.workers = workers.lists.into_iter().collect();
        trace.clock_anchors.sort_by_key(|a| a.0);
        trace.check_time();
        let t = &mut trace;
        // The symbol table and the time bounds ‖ thread hand-offs and the samples' workers.
        join(
            || {
                for (addr, depth, frame) in symbols {
                    t.symbols.insert(addr, depth, frame);
                }
                t.bounds = union(t.runtime_bounds, t.bounds);
            },
            || {
                t.gaps = thread_gaps(&t.workers);
                attribute_samples(&mut t.samples, &t.tid_to_worker, &t.gaps);
            },
        );
        trace
    }
}

/// Where `worker`'s timeline is in a builder's `workers` (added if new).
/// Each worker's events while decoding, in first-seen order, found by id
/// through a map: a trace may name any number of workers (a crafted one,
/// 100,000), and a list searched on every change of worker made that
/// quadratic.
#[derive(Default)]
pub(super) struct WorkerLists {
    pub(super) lists: Vec<(u64, Vec<WorkerEvent>)>,
    index: FastMap<u64, usize>,
}

impl WorkerLists {
    /// The list of `worker`, made empty the first time.
    pub(super) fn index_of(&mut self, worker: u64) -> usize {
        let lists = &mut self.lists;
        *self.index.entry(worker).or_insert_with(|| {
            lists.push((worker, Vec::new()));
            lists.len() - 1
        })
    }
}

/// The smallest range holding both.
pub(super) fn union(a: Option<(u64, u64)>, b: Option<(u64, u64)>) -> Option<(u64, u64)> {
    bounds([a, b].into_iter().flatten().flat_map(|(lo, hi)| [lo, hi]))
}

pub(super) fn bounds(it: impl Iterator<Item = u64>) -> Option<(u64, u64)> {
    it.fold(None, |acc, ts| match acc {
        None => Some((ts, ts)),
        Some((lo, hi)) => Some((lo.min(ts), hi.max(ts))),
    })
}

/// Park/Unpark tid switches per worker (block_in_place hand-offs).
fn thread_gaps(workers: &BTreeMap<u64, Vec<WorkerEvent>>) -> Vec<ThreadGap> {
    let mut gaps = Vec::new();
    for (&worker, events) in workers {
        let mut bound: Option<u64> = None;
        let mut last: Option<(u64, u64)> = None;
        for e in events {
            let Some(tid) = e.kind.tid() else { continue };
            if let Some((last_tid, last_ts)) = last
                && bound.unwrap_or(last_tid) != tid
            {
                gaps.push(ThreadGap {
                    worker,
                    from_tid: bound.unwrap_or(last_tid),
                    to_tid: tid,
                    start: last_ts,
                    end: e.ts,
                });
            }
            last = Some((tid, e.ts));
            bound = matches!(e.kind, WorkerEventKind::Unpark { .. }).then_some(tid);
        }
    }
    gaps.sort_by_key(|g| g.start);
    gaps
}

/// Samples take the worker bound to their thread, except inside a hand-off gap.
fn attribute_samples(samples: &mut [CpuSample], tid_to_worker: &FastMap<u64, u64>, gaps: &[ThreadGap]) {
    for s in samples {
        if let Some(&w) = tid_to_worker.get(&s.tid) {
            s.worker = w;
        }
        let in_gap = gaps
            .iter()
            .any(|g| (g.from_tid == s.tid || g.to_tid == s.tid) && s.ts >= g.start && s.ts < g.end);
        if in_gap {
            s.worker = UNKNOWN_WORKER;
        }
    }
}

/// Whether the `kept` fields of `f` are those of `set`, compared without
/// interning.
fn same_fields(
    texts: &Texts,
    f: &Fields<'_, '_, '_>,
    kept: &[(usize, StrId)],
    set: &[(StrId, StrId)],
    strings: &Strings,
) -> bool {
    let mut set = set.iter();
    for &(i, key) in kept {
        let Some(v) = f.at(i) else { continue };
        let same = match set.next() {
            Some(&(k, id)) if k == key => texts.shows_as(f, v, id, strings),
            next => next.map(|_| false),
        };
        // (A value with no text, a list say, is not in the set: read anew.)
        if same != Some(true) {
            return false;
        }
    }
    set.next().is_none()
}

/// The type of a custom event, found among those of the file or added
/// (`None` past `MAX_EVENT_TYPES`): its name and fields, with each field's
/// `unit` and `kind` annotations, and which are span attributes.
fn event_type(ev: &RawEvent<'_, '_>, span_attributes: u64, strings: &mut Strings, app: &mut AppEvents) -> Option<u32> {
    let annotations = ev.schema.annotations();
    let annotation = |idx: usize, key: &str| {
        annotations
            .iter()
            .find(|a| a.field_index() as usize == idx && a.key() == key)
            .map(|a| a.value())
    };
    let defs = ev.schema.fields();
    app.left_out.fields += defs.len().saturating_sub(MAX_FIELDS) as u64;
    let fields = defs
        .iter()
        .take(MAX_FIELDS)
        .enumerate()
        .map(|(i, d)| EventField {
            name: strings.intern(d.name()),
            unit: annotation(i, "unit").map(|u| strings.intern(u)),
            kind: annotation(i, "kind").and_then(MetricKind::of),
        })
        .collect();
    let t = EventType {
        name: strings.intern(ev.name),
        fields,
        span_attributes,
    };
    if let Some(i) = app.types.iter().position(|k| *k == t) {
        return Some(i as u32);
    }
    if app.types.len() >= MAX_EVENT_TYPES {
        return None;
    }
    app.types.push(t);
    Some(app.types.len() as u32 - 1)
}

/// How a schema annotated with `dial9.role` projects onto a span.
#[derive(Debug, Clone)]
struct Projection {
    /// (field index, unit in ns)
    start: Option<(usize, u64)>,
    duration: Option<(usize, u64)>,
    name_field: Option<usize>,
    /// The field that names the task the span ran in (role `tokio.task_id`).
    task: Option<usize>,
    /// The span's attributes, bit `i` for field `i`: the fields no role
    /// names, and the one that names the span (as dial9's viewer keeps them).
    attributes: u64,
    schema_name: StrId,
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
    fn compile(ev: &RawEvent<'_, '_>, strings: &mut Strings) -> Option<Projection> {
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
            task: None,
            attributes: 0,
            schema_name: strings.intern(ev.name),
        };
        for a in ev.schema.annotations().iter().filter(|a| a.key() == "dial9.role") {
            let idx = a.field_index() as usize;
            // An annotation of a field the schema lacks: not a span schema.
            fields.get(idx)?;
            let unit = || unit_factor(annotation(idx, "unit")).map(|u| (idx, u));
            match a.value() {
                "span.start" => p.start = Some(unit()?),
                "span.duration" => p.duration = Some(unit()?),
                "span.name" => p.name_field = Some(idx),
                "tokio.task_id" => p.task = Some(idx),
                _ => {}
            }
        }
        // A packed timestamp is the span end; two of start/duration/end are needed.
        if p.start.is_none() && p.duration.is_none() {
            return None;
        }
        let attribute = |i: usize| Some(i) == p.name_field || annotation(i, "dial9.role").is_none();
        p.attributes = (0..fields.len().min(MAX_FIELDS))
            .filter(|&i| attribute(i))
            .fold(0, |bits, i| bits | 1 << i);
        Some(p)
    }

    /// The span's name and start (it ends at the event's time).
    fn project(&self, f: &Fields<'_, '_, '_>, texts: &mut Texts, strings: &mut Strings) -> Option<(StrId, u64)> {
        let value = |&(idx, unit): &(usize, u64)| f.at(idx).and_then(as_u64).map(|v| v.saturating_mul(unit));
        let end = f.ev.timestamp_ns;
        let start = match (self.start.as_ref().map(value), self.duration.as_ref().map(value)) {
            (Some(Some(start)), _) if start <= end => start,
            (Some(_), _) => return None,
            (None, Some(Some(duration))) => end.saturating_sub(duration),
            _ => return None,
        };
        let name = self
            .name_field
            .and_then(|idx| texts.string(f, f.at(idx)?, strings))
            .filter(|&n| !strings.get(n).trim().is_empty());
        Some((name.unwrap_or(self.schema_name), start))
    }
}

#[cfg(test)]
mod tests {
    use super::push_event;

    #[test]
    fn only_lists_filled_to_a_mebibyte_get_reserved_space() {
        let mut small = Vec::new();
        for i in 0..1000u64 {
            push_event(&mut small, [i; 4]);
        }
        assert!(small.capacity() < 2000, "{}", small.capacity());
        let mut big = Vec::new();
        let per_mib = (1 << 20) / size_of::<[u64; 4]>();
        for i in 0..=per_mib as u64 {
            push_event(&mut big, [i; 4]);
        }
        let expected = if cfg!(target_pointer_width = "64") {
            (32 << 20) / 32
        } else {
            per_mib + 1
        };
        assert!(big.capacity() >= expected, "{}", big.capacity());
        assert_eq!(big.last(), Some(&[per_mib as u64; 4]));
    }
}
