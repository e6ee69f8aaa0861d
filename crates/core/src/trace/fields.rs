//! Reading an event's fields by name, with the names resolved once per schema.
//!
//! Fields are always found by name (schemas differ between recorder versions),
//! but comparing names on every event cost more than decoding it: a schema's
//! [`Slots`] say where each field the analysis reads sits, once per type id.

use dial9_trace_format::decoder::RawEvent;
use dial9_trace_format::schema::SchemaEntry;
use dial9_trace_format::types::FieldValueRef;
use std::borrow::Cow;

/// The fields the analysis reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Field {
    ActiveTasks,
    Addr,
    AliveTasks,
    AllocTimestampNs,
    Callchain,
    CpuTimeNs,
    DroppedAllocs,
    DroppedFrees,
    Entries,
    GlobalQueue,
    GlobalQueueDepth,
    InlineDepth,
    Instrumented,
    LocalQueue,
    ParentSpanId,
    RealtimeNs,
    RuntimeName,
    SchedWaitNs,
    SchedulingDelayNs,
    Size,
    Source,
    SourceFile,
    SourceLine,
    SpanId,
    SpanName,
    SpawnLoc,
    SymbolName,
    TaskId,
    ThreadName,
    Tid,
    TokioTaskId,
    WakerTaskId,
    WokenTaskId,
    WorkerId,
}

impl Field {
    const COUNT: usize = Field::WorkerId as usize + 1;

    fn of(name: &str) -> Option<Field> {
        Some(match name {
            "active_tasks" => Field::ActiveTasks,
            "addr" => Field::Addr,
            "alive_tasks" => Field::AliveTasks,
            "alloc_timestamp_ns" => Field::AllocTimestampNs,
            "callchain" => Field::Callchain,
            "cpu_time_ns" => Field::CpuTimeNs,
            "dropped_allocs" => Field::DroppedAllocs,
            "dropped_frees" => Field::DroppedFrees,
            "entries" => Field::Entries,
            "global_queue" => Field::GlobalQueue,
            "global_queue_depth" => Field::GlobalQueueDepth,
            "inline_depth" => Field::InlineDepth,
            "instrumented" => Field::Instrumented,
            "local_queue" => Field::LocalQueue,
            "parent_span_id" => Field::ParentSpanId,
            "realtime_ns" => Field::RealtimeNs,
            "runtime_name" => Field::RuntimeName,
            "sched_wait_ns" => Field::SchedWaitNs,
            "scheduling_delay_ns" => Field::SchedulingDelayNs,
            "size" => Field::Size,
            "source" => Field::Source,
            "source_file" => Field::SourceFile,
            "source_line" => Field::SourceLine,
            "span_id" => Field::SpanId,
            "span_name" => Field::SpanName,
            "spawn_loc" => Field::SpawnLoc,
            "symbol_name" => Field::SymbolName,
            "task_id" => Field::TaskId,
            "thread_name" => Field::ThreadName,
            "tid" => Field::Tid,
            "dial9.tokio.task_id" => Field::TokioTaskId,
            "waker_task_id" => Field::WakerTaskId,
            "woken_task_id" => Field::WokenTaskId,
            "worker_id" => Field::WorkerId,
            _ => return None,
        })
    }
}

/// Where each [`Field`] sits in one schema's field list (the first field of
/// that name, as a lookup by name would find).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Slots([u16; Field::COUNT]);

const ABSENT: u16 = u16::MAX;

impl Slots {
    pub(super) fn of(schema: &SchemaEntry) -> Slots {
        let mut slots = [ABSENT; Field::COUNT];
        for (i, f) in schema.fields().iter().enumerate() {
            if let (Some(field), Ok(i)) = (Field::of(f.name()), u16::try_from(i))
                && slots[field as usize] == ABSENT
            {
                slots[field as usize] = i;
            }
        }
        Slots(slots)
    }

    fn index(&self, field: Field) -> Option<usize> {
        let i = self.0[field as usize];
        (i != ABSENT).then_some(i as usize)
    }
}

/// One event's field values, read through its schema's slots.
pub(super) struct Fields<'e, 'a, 'f> {
    pub ev: &'e RawEvent<'a, 'f>,
    pub slots: &'e Slots,
}

impl<'a, 'f> Fields<'_, 'a, 'f> {
    /// The value at position `idx` of the schema (`None` when absent or empty).
    pub fn at(&self, idx: usize) -> Option<&FieldValueRef<'a>> {
        match self.ev.fields.get(idx)? {
            FieldValueRef::None => None,
            v => Some(v),
        }
    }

    pub fn get(&self, field: Field) -> Option<&FieldValueRef<'a>> {
        self.at(self.slots.index(field)?)
    }

    pub fn u64(&self, field: Field) -> Option<u64> {
        self.get(field).and_then(as_u64)
    }

    pub fn u64_or0(&self, field: Field) -> u64 {
        self.u64(field).unwrap_or(0)
    }

    pub fn str(&self, field: Field) -> Option<Cow<'f, str>>
    where
        'a: 'f,
    {
        self.text(self.get(field)?)
    }

    /// A string value, borrowed from the trace or its string pool.
    pub fn text(&self, v: &FieldValueRef<'a>) -> Option<Cow<'f, str>>
    where
        'a: 'f,
    {
        match v {
            FieldValueRef::String(s) => Some(Cow::Borrowed(s)),
            FieldValueRef::PooledString(id) => Some(
                self.ev
                    .string_pool
                    .get(*id)
                    .map_or_else(|| Cow::Owned(format!("<unresolved pool#{id:?}>")), Cow::Borrowed),
            ),
            _ => None,
        }
    }

    pub fn stack(&self, field: Field) -> Vec<u64> {
        match self.get(field) {
            Some(FieldValueRef::PooledStackFrames(id)) => {
                self.ev.stack_pool.get(*id).map(<[u64]>::to_vec).unwrap_or_default()
            }
            Some(FieldValueRef::StackFrames(s)) => s.iter().collect(),
            _ => Vec::new(),
        }
    }
}

pub(super) fn as_u64(v: &FieldValueRef<'_>) -> Option<u64> {
    match v {
        FieldValueRef::Varint(v) => Some(*v),
        FieldValueRef::I64(v) => Some(*v as u64),
        FieldValueRef::F64(v) => Some(*v as u64),
        FieldValueRef::Bool(b) => Some(u64::from(*b)),
        _ => None,
    }
}
