//! Span reconstruction from enter/exit/close events and single-event spans,
//! as the reference's `buildSpanData` does it for the report.

use super::model::{SpanEvent, TimedSpanEvent};
use indexmap::IndexMap;
use std::collections::HashMap;

/// A finished span: first enter → last exit (idle gaps included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub name: String,
    pub start: u64,
    pub end: u64,
}

struct Record {
    name: String,
    segments: Vec<(u64, u64)>,
}

impl Record {
    fn named(name: &Option<String>) -> Record {
        Record { name: name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| "unknown".into()), segments: Vec::new() }
    }
}

fn finalize(mut rec: Record, done: &mut Vec<Span>) {
    rec.segments.sort_by_key(|s| s.0);
    if let (Some(first), Some(last)) = (rec.segments.first(), rec.segments.last()) {
        done.push(Span { name: rec.name, start: first.0, end: last.1 });
    }
}

/// Spans in start order (stable over finalize order, like the reference).
pub fn build_spans(events: &[TimedSpanEvent]) -> Vec<Span> {
    let mut order: Vec<&TimedSpanEvent> = events.iter().collect();
    order.sort_by_key(|e| e.ts);
    let mut open: HashMap<u64, u64> = HashMap::new();
    let mut records: IndexMap<u64, Record> = IndexMap::new();
    let mut done: Vec<Span> = Vec::new();
    for e in order {
        match &e.event {
            SpanEvent::Single { name, start, end } => done.push(Span { name: name.clone(), start: *start, end: *end }),
            SpanEvent::Enter { span_id, name, .. } => {
                if open.contains_key(span_id) {
                    continue;
                }
                open.insert(*span_id, e.ts);
                records.entry(*span_id).or_insert_with(|| Record::named(name));
            }
            SpanEvent::Exit { span_id, name } => {
                if let Some(enter) = open.remove(span_id) {
                    let rec = records.entry(*span_id).or_insert_with(|| Record::named(name));
                    rec.segments.push((enter, e.ts));
                }
            }
            SpanEvent::Close { span_id } => {
                open.remove(span_id);
                if let Some(rec) = records.shift_remove(span_id) {
                    finalize(rec, &mut done);
                }
            }
        }
    }
    for (_, rec) in records {
        finalize(rec, &mut done);
    }
    done.sort_by_key(|s| s.start);
    done
}
