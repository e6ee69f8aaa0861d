//! Span reconstruction from enter/exit/close events and single-event spans,
//! as the reference's `buildSpanData` does it for the report.

use super::app::FieldSetId;
use super::app::SpanFields;
use super::model::{SpanEvent, TimedSpanEvent};
use super::strings::{StrId, Strings};
use super::time_order::in_time_order;
use crate::hashing::FastMap;
use indexmap::IndexMap;
use std::collections::hash_map::Entry;
use std::num::NonZeroU64;
use std::ops::Range;

/// A finished span: first enter → last exit (idle gaps included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub name: StrId,
    pub start: u64,
    pub end: u64,
    /// The Tokio task that entered it, when the recorder knew.
    pub task_id: Option<NonZeroU64>,
    /// The recorder's id of the span (ids are reused once a span closes;
    /// none for single-event spans).
    pub span_id: Option<NonZeroU64>,
    /// `parent_span_id` of its first enter.
    pub parent: Option<NonZeroU64>,
    /// Its fields: the last exit's that carried any, else the first enter's
    /// (a single-event span: its event's attributes).
    pub fields: SpanFields,
    /// Its enter → exit pairs in `Spans::segments` (none for single-event spans).
    segments: Range<u32>,
}

/// All spans of a trace plus the enters that never saw an exit.
#[derive(Debug, Clone, Default)]
pub struct Spans {
    /// Sorted by start (stable over finalize order, like the reference).
    pub spans: Vec<Span>,
    /// Span name → open enters left at the end of the trace.
    pub unmatched: IndexMap<String, u64>,
    /// Every span's segments, back to back (most spans have one: no list each).
    segments: Vec<(u64, u64)>,
}

impl Spans {
    /// A span's enter → exit pairs, by start.
    pub fn segments(&self, span: &Span) -> &[(u64, u64)] {
        &self.segments[span.segments.start as usize..span.segments.end as usize]
    }

    fn finalize(&mut self, rec: Record) {
        let from = self.segments.len();
        self.segments.extend(rec.first);
        self.segments.extend_from_slice(&rec.more);
        let segments = &mut self.segments[from..];
        segments.sort_by_key(|s| s.0);
        if let (Some(first), Some(last)) = (segments.first(), segments.last()) {
            let span = Span {
                name: rec.name,
                start: first.0,
                end: last.1,
                task_id: rec.task_id,
                span_id: NonZeroU64::new(rec.span_id),
                parent: rec.parent,
                fields: SpanFields::Set(rec.fields),
                segments: from as u32..self.segments.len() as u32,
            };
            self.spans.push(span);
        }
    }
}

/// A span that is still open (entered at least once, not closed).
struct Record {
    /// When it was opened, relative to the others: those never closed are
    /// finished in that order (a removal from an insertion-ordered map would
    /// cost a shift of every later entry on each close).
    opened: u64,
    span_id: u64,
    name: StrId,
    task_id: Option<NonZeroU64>,
    parent: Option<NonZeroU64>,
    fields: FieldSetId,
    /// The time of an enter not exited yet.
    entered: Option<u64>,
    /// Most spans have one enter → exit: it needs no list of its own.
    first: Option<(u64, u64)>,
    more: Vec<(u64, u64)>,
}

impl Record {
    fn push(&mut self, segment: (u64, u64)) {
        match self.first {
            None => self.first = Some(segment),
            Some(_) => self.more.push(segment),
        }
    }
}

pub fn build_spans(events: &[TimedSpanEvent], strings: &Strings) -> Spans {
    let mut records: FastMap<u64, Record> = FastMap::default();
    let mut opened = 0;
    let mut out = Spans::default();
    // Stable by time, leaving the events in place.
    for e in in_time_order(events, |e| e.ts).map(|i| &events[i]) {
        match e.event {
            SpanEvent::Single {
                name,
                start,
                task_id,
                fields,
            } => out.spans.push(Span {
                name,
                start,
                end: e.ts,
                task_id,
                span_id: None,
                parent: None,
                fields,
                segments: 0..0,
            }),
            SpanEvent::Enter {
                span_id,
                name,
                task_id,
                parent,
                fields,
            } => match records.entry(span_id) {
                Entry::Occupied(mut o) => {
                    o.get_mut().entered.get_or_insert(e.ts);
                }
                Entry::Vacant(v) => {
                    opened += 1;
                    v.insert(Record {
                        opened,
                        span_id,
                        name,
                        task_id,
                        parent,
                        fields,
                        entered: Some(e.ts),
                        first: None,
                        more: Vec::new(),
                    });
                }
            },
            SpanEvent::Exit { span_id, fields } => {
                if let Some(rec) = records.get_mut(&span_id)
                    && let Some(enter) = rec.entered.take()
                {
                    rec.push((enter, e.ts));
                    if let Some(fields) = fields {
                        rec.fields = fields;
                    }
                }
            }
            SpanEvent::Close { span_id } => {
                if let Some(rec) = records.remove(&span_id) {
                    out.finalize(rec);
                }
            }
        }
    }
    let mut left: Vec<Record> = records.into_values().collect();
    left.sort_unstable_by_key(|r| r.opened);
    for rec in left.iter().filter(|r| r.entered.is_some()) {
        *out.unmatched.entry(strings.get(rec.name).to_string()).or_default() += 1;
    }
    out.unmatched.sort_keys();
    for rec in left {
        out.finalize(rec);
    }
    out.spans.sort_by_key(|s| s.start);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ts: u64, event: SpanEvent) -> TimedSpanEvent {
        TimedSpanEvent { ts, event }
    }

    #[test]
    fn spans_never_closed_end_in_the_order_they_opened() {
        let mut strings = Strings::default();
        let names: Vec<StrId> = ["a", "b", "c", "d", "e"].iter().map(|n| strings.intern(n)).collect();
        let enter = |span_id, i: usize| SpanEvent::Enter {
            span_id,
            name: names[i],
            task_id: None,
            parent: None,
            fields: FieldSetId::EMPTY,
        };
        let exit = |span_id| SpanEvent::Exit { span_id, fields: None };
        // Ids hash in any order. Four spans start at the same time, only the
        // second is closed; its id is then opened again, as a new span.
        let events = [
            at(10, enter(900, 0)),
            at(10, enter(7, 1)),
            at(10, enter(31, 2)),
            at(10, enter(4, 3)),
            at(11, exit(4)),
            at(12, exit(7)),
            at(13, SpanEvent::Close { span_id: 7 }),
            at(14, exit(900)),
            at(15, exit(31)),
            at(20, enter(7, 1)),
            at(21, exit(7)),
            at(22, enter(8, 4)),
        ];
        let spans = build_spans(&events, &strings);
        let order: Vec<(&str, u64, u64)> = spans
            .spans
            .iter()
            .map(|s| (strings.get(s.name), s.start, s.end))
            .collect();
        // By start; at equal starts the closed one first, then those left open in the order they opened.
        assert_eq!(
            order,
            [
                ("b", 10, 12),
                ("a", 10, 14),
                ("c", 10, 15),
                ("d", 10, 11),
                ("b", 20, 21)
            ]
        );
        // Entered and never exited: no span, but counted.
        let open: Vec<(&str, u64)> = spans.unmatched.iter().map(|(n, &c)| (n.as_str(), c)).collect();
        assert_eq!(open, [("e", 1)]);
    }
}
