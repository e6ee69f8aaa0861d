//! Span reconstruction from enter/exit/close events and single-event spans,
//! as the reference's `buildSpanData` does it for the report.

use super::model::{SpanEvent, StrId, Strings, TimedSpanEvent};
use super::time_order::in_time_order;
use crate::hashing::FastIndexMap;
use indexmap::IndexMap;
use indexmap::map::Entry;
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
                segments: from as u32..self.segments.len() as u32,
            };
            self.spans.push(span);
        }
    }
}

/// A span that is still open (entered at least once, not closed).
struct Record {
    name: StrId,
    task_id: Option<NonZeroU64>,
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
    let mut records: FastIndexMap<u64, Record> = FastIndexMap::default();
    let mut out = Spans::default();
    // Stable by time, leaving the events in place.
    for e in in_time_order(events, |e| e.ts).map(|i| &events[i]) {
        match e.event {
            SpanEvent::Single { name, start, end } => out.spans.push(Span {
                name,
                start,
                end,
                task_id: None,
                segments: 0..0,
            }),
            SpanEvent::Enter { span_id, name, task_id } => match records.entry(span_id) {
                Entry::Occupied(mut o) => {
                    o.get_mut().entered.get_or_insert(e.ts);
                }
                Entry::Vacant(v) => {
                    v.insert(Record {
                        name,
                        task_id,
                        entered: Some(e.ts),
                        first: None,
                        more: Vec::new(),
                    });
                }
            },
            SpanEvent::Exit { span_id } => {
                if let Some(rec) = records.get_mut(&span_id)
                    && let Some(enter) = rec.entered.take()
                {
                    rec.push((enter, e.ts));
                }
            }
            SpanEvent::Close { span_id } => {
                if let Some(rec) = records.shift_remove(&span_id) {
                    out.finalize(rec);
                }
            }
        }
    }
    for rec in records.values().filter(|r| r.entered.is_some()) {
        *out.unmatched.entry(strings.get(rec.name).to_string()).or_default() += 1;
    }
    out.unmatched.sort_keys();
    for (_, rec) in records {
        out.finalize(rec);
    }
    out.spans = in_time_order(&out.spans, |s| s.start)
        .map(|i| out.spans[i].clone())
        .collect();
    out
}
