//! What the application recorded beside the runtime: the fields of its spans,
//! its own events (typed fields with units and metric kinds, process resource
//! usage and TCP accept-queue samples among them) and task dumps (what an
//! idle task was awaiting). Decoded into one `AppEvents` per trace, bounded
//! by named limits: a file past one keeps decoding, and says what it left out.

use super::strings::{StrId, Strings};
use crate::hashing::FastMap;
use dial9_trace_format::types::FieldValueRef;
use serde::{Deserialize, Serialize};

/// Where a span's fields are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanFields {
    /// A set in `AppEvents::field_sets`: spans from enter and exit events.
    Set(FieldSetId),
    /// The custom event a single-event span came from (`AppEvents::values`
    /// from `first`, of type `kind`): its attributes are the values at the
    /// type's `span_attributes`, read as text only when asked for.
    Event { kind: u32, first: u32 },
}

impl SpanFields {
    pub const NONE: SpanFields = SpanFields::Set(FieldSetId::EMPTY);
}

/// Distinct custom event types one file may define: a schema each, kept
/// with its field names, units and kinds. Events of further types are
/// counted, not kept.
pub const MAX_EVENT_TYPES: usize = 1024;
/// Fields kept of one span or event (the first this many the schema names).
pub const MAX_FIELDS: usize = 64;
/// Custom events one file may keep.
pub const MAX_EVENTS: usize = 1 << 20;
/// Task dumps one file may keep.
pub const MAX_TASK_DUMPS: usize = 1 << 20;

/// A set of span fields: a span's enters and exits name the one set while
/// its fields stay the same (the decoder remembers each open span's last).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct FieldSetId(pub u32);

impl FieldSetId {
    /// No field.
    pub const EMPTY: FieldSetId = FieldSetId(0);
}

/// Span field sets: (name, value as text) pairs, in schema order, back to
/// back. Not deduplicated: nearly every span holds a value of its own (a
/// request id), so looking for an equal set cost more than the set.
#[derive(Debug, Clone)]
pub struct FieldSets {
    /// Set `i` is `pairs[ends[i - 1]..ends[i]]` (set 0 is empty).
    pairs: Vec<(StrId, StrId)>,
    ends: Vec<u32>,
}

impl Default for FieldSets {
    fn default() -> Self {
        FieldSets {
            pairs: Vec::new(),
            ends: vec![0],
        }
    }
}

impl FieldSets {
    pub fn push(&mut self, set: &[(StrId, StrId)]) -> FieldSetId {
        if set.is_empty() {
            return FieldSetId::EMPTY;
        }
        self.pairs.extend_from_slice(set);
        self.ends.push(self.pairs.len() as u32);
        FieldSetId(self.ends.len() as u32 - 1)
    }

    pub fn get(&self, id: FieldSetId) -> &[(StrId, StrId)] {
        let i = id.0 as usize;
        match (i.checked_sub(1).and_then(|p| self.ends.get(p)), self.ends.get(i)) {
            (Some(&from), Some(&to)) => &self.pairs[from as usize..to as usize],
            _ => &[],
        }
    }

    /// Sets held (the empty one included).
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() <= 1
    }

    /// Bytes held, about.
    pub fn bytes(&self) -> usize {
        self.pairs.len() * 8 + self.ends.len() * 4
    }

    /// Every set of `later`, its strings remapped, appended: what each of its ids became.
    pub(super) fn absorb(&mut self, later: &FieldSets, remap: impl Fn(StrId) -> StrId) -> Vec<FieldSetId> {
        let mut buf = Vec::new();
        (0..later.len() as u32)
            .map(|i| {
                buf.clear();
                buf.extend(later.get(FieldSetId(i)).iter().map(|&(k, v)| (remap(k), remap(v))));
                self.push(&buf)
            })
            .collect()
    }
}

/// What the ids of a later part became once appended (`AppEvents::append`).
pub(super) struct Absorbed {
    sets: Vec<FieldSetId>,
    kinds: Vec<u32>,
    /// Where its values start.
    values: u32,
}

impl Absorbed {
    pub(super) fn set(&self, id: FieldSetId) -> FieldSetId {
        self.sets[id.0 as usize]
    }

    pub(super) fn fields(&self, fields: SpanFields) -> SpanFields {
        match fields {
            SpanFields::Set(id) => SpanFields::Set(self.set(id)),
            SpanFields::Event { kind, first } => SpanFields::Event {
                kind: self.kinds[kind as usize],
                first: self.values + first,
            },
        }
    }
}

/// What kind of metric a numeric field is (its schema's `kind` annotation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MetricKind {
    /// A level: chart the value.
    Gauge,
    /// Only grows: chart its rate.
    Counter,
    /// Goes up and down by increments: chart the value.
    UpDownCounter,
}

impl MetricKind {
    pub fn of(annotation: &str) -> Option<MetricKind> {
        match annotation {
            "gauge" => Some(MetricKind::Gauge),
            "counter" => Some(MetricKind::Counter),
            "updown-counter" | "up-down-counter" | "updown_counter" | "up_down_counter" => {
                Some(MetricKind::UpDownCounter)
            }
            _ => None,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            MetricKind::Gauge => "gauge",
            MetricKind::Counter => "counter",
            MetricKind::UpDownCounter => "updown-counter",
        }
    }
}

/// One field of an event type.
#[derive(Debug, Clone, PartialEq)]
pub struct EventField {
    pub name: StrId,
    /// `ns`, `us`, `ms`, `s`, `bytes`, or whatever the schema says.
    pub unit: Option<StrId>,
    pub kind: Option<MetricKind>,
}

/// A custom event type (one schema name).
#[derive(Debug, Clone, PartialEq)]
pub struct EventType {
    pub name: StrId,
    pub fields: Vec<EventField>,
    /// Bit `i` set: field `i` is an attribute of the span the event projects
    /// to (a schema annotated with `dial9.role`: the fields no role names,
    /// and the one naming the span). `MAX_FIELDS` fields fit.
    pub span_attributes: u64,
}

/// A field's value as recorded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Absent,
    U64(u64),
    I64(i64),
    F64(f64),
    Bool(bool),
    Text(StrId),
}

impl Value {
    /// A number or boolean field as recorded (`None` for text and the rest).
    pub(super) fn scalar(v: &FieldValueRef<'_>) -> Option<Value> {
        Some(match v {
            FieldValueRef::Varint(v) => Value::U64(*v),
            FieldValueRef::I64(v) => Value::I64(*v),
            FieldValueRef::F64(v) => Value::F64(*v),
            FieldValueRef::Bool(b) => Value::Bool(*b),
            _ => return None,
        })
    }

    /// A number or boolean as JavaScript's `String(v)` writes it (`None` for
    /// text and absent values).
    pub(super) fn scalar_text(self) -> Option<String> {
        Some(match self {
            Value::U64(v) => v.to_string(),
            Value::I64(v) => v.to_string(),
            Value::F64(v) => crate::fmt::js_number(v),
            Value::Bool(b) => b.to_string(),
            Value::Absent | Value::Text(_) => return None,
        })
    }

    /// The value as a number, when it is one.
    pub fn number(self) -> Option<f64> {
        match self {
            Value::U64(v) => Some(v as f64),
            Value::I64(v) => Some(v as f64),
            Value::F64(v) if v.is_finite() => Some(v),
            _ => None,
        }
    }
}

/// One custom event: its type and its values, one per field of the type.
#[derive(Debug, Clone, Copy)]
pub struct CustomEvent {
    pub ts: u64,
    /// Index into `AppEvents::types`.
    pub kind: u32,
    /// Its values: `AppEvents::values[first..first + len]`.
    pub first: u32,
}

/// A task dump: the async backtrace of a task that went idle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskDump {
    pub ts: u64,
    pub task: u64,
    /// Index into `AppEvents::dump_chains`.
    pub chain: u32,
}

/// What a file left out for a named limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LeftOut {
    /// Events of types past `MAX_EVENT_TYPES`.
    pub event_types: u64,
    /// Events past `MAX_EVENTS`.
    pub events: u64,
    /// Fields past `MAX_FIELDS`, over all schemas.
    pub fields: u64,
    /// Dumps past `MAX_TASK_DUMPS`.
    pub dumps: u64,
}

impl LeftOut {
    /// Each limit met, in words.
    pub fn messages(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut say = |n: u64, what: &str, limit: usize| {
            if n > 0 {
                out.push(format!(
                    "{n} {what} left out: a file keeps at most {limit} (d9lens's limit)"
                ));
            }
        };
        say(
            self.event_types,
            "events of further custom event types",
            MAX_EVENT_TYPES,
        );
        say(self.events, "custom events", MAX_EVENTS);
        say(self.fields, "fields of schemas with more fields than", MAX_FIELDS);
        say(self.dumps, "task dumps", MAX_TASK_DUMPS);
        out
    }

    pub(super) fn add(&mut self, o: &LeftOut) {
        self.event_types += o.event_types;
        self.events += o.events;
        self.fields += o.fields;
        self.dumps += o.dumps;
    }
}

/// The application's side of one trace.
#[derive(Debug, Clone, Default)]
pub struct AppEvents {
    /// Span fields (span events name a set).
    pub field_sets: FieldSets,
    pub types: Vec<EventType>,
    /// Custom events, file order.
    pub events: Vec<CustomEvent>,
    pub values: Vec<Value>,
    pub dumps: Vec<TaskDump>,
    /// Distinct dump call chains, leaf first.
    pub dump_chains: Vec<Vec<u64>>,
    /// Tasks spawned with `instrumented = false` (not through dial9: no wake events).
    pub uninstrumented: Vec<u64>,
    /// OS thread → its name, from CPU samples.
    pub thread_names: FastMap<u64, StrId>,
    pub left_out: LeftOut,
}

impl AppEvents {
    /// The values of `e`, one per field of its type.
    pub fn values_of(&self, e: &CustomEvent) -> &[Value] {
        let n = self.types.get(e.kind as usize).map_or(0, |t| t.fields.len());
        let from = e.first as usize;
        self.values.get(from..from + n).unwrap_or(&[])
    }

    /// A span's fields as (name, value): an interned set's text, or the
    /// attributes of its event (in schema order, absent values skipped).
    pub fn span_fields(&self, fields: SpanFields) -> impl Iterator<Item = (StrId, Value)> + '_ {
        let (set, event) = match fields {
            SpanFields::Set(id) => (self.field_sets.get(id), None),
            SpanFields::Event { kind, first } => (&[][..], self.types.get(kind as usize).map(|t| (t, first))),
        };
        let from_set = set.iter().map(|&(k, v)| (k, Value::Text(v)));
        let from_event = event.into_iter().flat_map(move |(t, first)| {
            let values = self
                .values
                .get(first as usize..first as usize + t.fields.len())
                .unwrap_or(&[]);
            let attributes = t.fields.iter().zip(values).enumerate();
            attributes
                .filter(move |&(i, (_, v))| t.span_attributes >> i & 1 == 1 && *v != Value::Absent)
                .map(|(_, (f, &v))| (f.name, v))
        });
        from_set.chain(from_event)
    }

    pub(super) fn bytes(&self) -> usize {
        self.field_sets.bytes()
            + self.events.len() * size_of::<CustomEvent>()
            + self.values.len() * size_of::<Value>()
            + self.dumps.len() * size_of::<TaskDump>()
            + self.dump_chains.iter().map(|c| c.len() * 8 + 24).sum::<usize>()
            + self.uninstrumented.len() * 8
            + self.thread_names.len() * 16
    }

    /// The events of a later part of the same trace, taken in (`Builder::append`).
    pub(super) fn append(&mut self, later: AppEvents, strings: &impl Fn(StrId) -> StrId) -> Absorbed {
        let AppEvents {
            field_sets,
            types,
            events,
            values,
            dumps,
            dump_chains,
            uninstrumented,
            thread_names,
            left_out,
        } = later;
        let sets = self.field_sets.absorb(&field_sets, strings);
        // Types of the same name and fields are one type.
        let kinds: Vec<u32> = types
            .into_iter()
            .map(|mut t| {
                t.name = strings(t.name);
                for f in &mut t.fields {
                    f.name = strings(f.name);
                    f.unit = f.unit.map(strings);
                }
                match self.types.iter().position(|k| *k == t) {
                    Some(i) => i as u32,
                    None => {
                        self.types.push(t);
                        self.types.len() as u32 - 1
                    }
                }
            })
            .collect();
        let base = self.values.len() as u32;
        self.values.extend(values.into_iter().map(|v| match v {
            Value::Text(s) => Value::Text(strings(s)),
            v => v,
        }));
        self.events.extend(events.into_iter().map(|e| CustomEvent {
            ts: e.ts,
            kind: kinds[e.kind as usize],
            first: base + e.first,
        }));
        let chains = self.dump_chains.len() as u32;
        self.dump_chains.extend(dump_chains);
        self.dumps.extend(dumps.into_iter().map(|d| TaskDump {
            chain: chains + d.chain,
            ..d
        }));
        self.uninstrumented.extend(uninstrumented);
        self.thread_names
            .extend(thread_names.into_iter().map(|(tid, name)| (tid, strings(name))));
        self.left_out.add(&left_out);
        Absorbed {
            sets,
            kinds,
            values: base,
        }
    }

    /// Keeps the events and dumps whose time passes `keep`.
    pub(super) fn retain(&mut self, mut keep: impl FnMut(u64) -> bool) {
        self.events.retain(|e| keep(e.ts));
        self.dumps.retain(|d| keep(d.ts));
    }

    /// The text of a value, as dial9's viewer shows a field (`String(v)` in JS).
    pub fn text(v: Value, strings: &Strings) -> Option<String> {
        match v {
            Value::Text(s) => Some(strings.get(s).to_string()),
            v => v.scalar_text(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_sets_are_kept_in_order_and_the_empty_set_is_zero() {
        let mut strings = Strings::default();
        let (k, v, w) = (
            strings.intern("route"),
            strings.intern("GET /"),
            strings.intern("POST /"),
        );
        let mut sets = FieldSets::default();
        assert_eq!(sets.push(&[]), FieldSetId::EMPTY);
        let a = sets.push(&[(k, v)]);
        let b = sets.push(&[(k, w)]);
        let c = sets.push(&[(k, v), (k, w)]);
        assert_eq!((a, b, c), (FieldSetId(1), FieldSetId(2), FieldSetId(3)));
        assert_eq!(sets.get(a), &[(k, v)]);
        assert_eq!(sets.get(b), &[(k, w)]);
        assert_eq!(sets.get(c), &[(k, v), (k, w)]);
        assert_eq!(sets.get(FieldSetId::EMPTY), &[]);
        // An id no set has (from a crafted wire) reads as empty.
        assert_eq!(sets.get(FieldSetId(99)), &[]);
    }
}
