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
    /// The Tokio task that entered it, when the recorder knew.
    pub task_id: Option<u64>,
    /// Enter → exit pairs, by start (empty for single-event spans).
    pub segments: Vec<(u64, u64)>,
}

/// All spans of a trace plus the enters that never saw an exit.
#[derive(Debug, Clone, Default)]
pub struct Spans {
    /// Sorted by start (stable over finalize order, like the reference).
    pub spans: Vec<Span>,
    /// Span name → open enters left at the end of the trace.
    pub unmatched: IndexMap<String, u64>,
}

struct Record {
    name: String,
    task_id: Option<u64>,
    segments: Vec<(u64, u64)>,
}

impl Record {
    fn new(name: &Option<String>, task_id: Option<u64>) -> Record {
        let name = name
            .clone()
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "unknown".into());
        Record {
            name,
            task_id,
            segments: Vec::new(),
        }
    }
}

fn finalize(mut rec: Record, done: &mut Vec<Span>) {
    rec.segments.sort_by_key(|s| s.0);
    if let (Some(first), Some(last)) = (rec.segments.first(), rec.segments.last()) {
        let (start, end) = (first.0, last.1);
        done.push(Span {
            name: rec.name,
            start,
            end,
            task_id: rec.task_id,
            segments: rec.segments,
        });
    }
}

pub fn build_spans(events: &[TimedSpanEvent]) -> Spans {
    let mut order: Vec<&TimedSpanEvent> = events.iter().collect();
    order.sort_by_key(|e| e.ts);
    let mut open: HashMap<u64, u64> = HashMap::new();
    let mut records: IndexMap<u64, Record> = IndexMap::new();
    let mut done: Vec<Span> = Vec::new();
    for e in order {
        match &e.event {
            SpanEvent::Single { name, start, end } => done.push(Span {
                name: name.clone(),
                start: *start,
                end: *end,
                task_id: None,
                segments: Vec::new(),
            }),
            SpanEvent::Enter { span_id, name, task_id } => {
                if open.contains_key(span_id) {
                    continue;
                }
                open.insert(*span_id, e.ts);
                records.entry(*span_id).or_insert_with(|| Record::new(name, *task_id));
            }
            SpanEvent::Exit { span_id, name } => {
                if let Some(enter) = open.remove(span_id) {
                    records
                        .entry(*span_id)
                        .or_insert_with(|| Record::new(name, None))
                        .segments
                        .push((enter, e.ts));
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
    let mut unmatched: IndexMap<String, u64> = IndexMap::new();
    for id in open.keys() {
        let name = records.get(id).map_or("unknown", |r| r.name.as_str());
        *unmatched.entry(name.to_string()).or_default() += 1;
    }
    unmatched.sort_keys();
    for (_, rec) in records {
        finalize(rec, &mut done);
    }
    done.sort_by_key(|s| s.start);
    Spans { spans: done, unmatched }
}
