//! Custom events over a run: per event type how many, and per field its
//! unit, metric kind and range (minimum, median, maximum); each numeric
//! field as a series over wall-clock time for a chart (a gauge or up/down
//! counter as its value, a counter as its rate per second); the events of
//! a type as rows of a table.

use super::detail::{EventValue, FileDetail, NONE};
use super::kept::Details;
use crate::trace::MetricKind;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventSummary {
    pub name: String,
    pub count: u64,
    pub fields: Vec<FieldSummary>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldSummary {
    pub name: String,
    pub unit: Option<String>,
    pub kind: Option<MetricKind>,
    /// Events with a value for it.
    pub count: u64,
    /// Numeric fields: the range of their values (the median is the
    /// value of rank ⌈n/2⌉).
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub p50: Option<f64>,
}

/// One event type's field, as the run's files name it.
struct FieldAcc {
    unit: Option<String>,
    kind: Option<MetricKind>,
    count: u64,
    numbers: Vec<f64>,
}

/// Every event type of the kept files, by name (in first-seen order), its
/// fields in schema order.
pub fn summarize(details: &Details) -> Vec<EventSummary> {
    let mut by_name: IndexMap<String, (u64, IndexMap<String, FieldAcc>)> = IndexMap::new();
    for d in &details.files {
        for e in &d.events {
            let t = &d.event_types[e.kind as usize];
            let (count, fields) = by_name.entry(d.text(t.name).to_string()).or_default();
            *count += 1;
            for (f, v) in t.fields.iter().zip(d.values_of(e)) {
                let acc = fields.entry(d.text(f.name).to_string()).or_insert_with(|| FieldAcc {
                    unit: (f.unit != NONE).then(|| d.text(f.unit).to_string()),
                    kind: f.kind,
                    count: 0,
                    numbers: Vec::new(),
                });
                if *v != EventValue::Absent {
                    acc.count += 1;
                }
                acc.numbers.extend(v.number());
            }
        }
    }
    by_name
        .into_iter()
        .map(|(name, (count, fields))| EventSummary {
            name,
            count,
            fields: fields
                .into_iter()
                .map(|(name, mut acc)| {
                    acc.numbers.sort_by(f64::total_cmp);
                    let n = acc.numbers.len();
                    FieldSummary {
                        name,
                        unit: acc.unit,
                        kind: acc.kind,
                        count: acc.count,
                        min: acc.numbers.first().copied(),
                        max: acc.numbers.last().copied(),
                        p50: n.checked_sub(1).map(|_| acc.numbers[n.div_ceil(2) - 1]),
                    }
                })
                .collect(),
        })
        .collect()
}

/// A numeric field over time: what a chart draws.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Series {
    pub event: String,
    pub field: String,
    pub unit: Option<String>,
    pub kind: Option<MetricKind>,
    /// Counters: the rate per second between consecutive events of a file.
    pub rate: bool,
    /// (ms after the run's first wall-clock time, value), by time.
    pub points: Vec<(f64, f64)>,
}

/// Points a series keeps: a chart is a few hundred pixels wide.
pub const SERIES_POINTS: usize = 2000;

/// The series of every numeric field of one event type, over the run's
/// wall clock (from its files' earliest start; a file without a clock
/// anchor is placed from its own start).
pub fn series(details: &Details, event: &str) -> Vec<Series> {
    let origin_ns = details.files.iter().filter_map(|d| d.wall_start).min().unwrap_or(0);
    let mut out: IndexMap<String, Series> = IndexMap::new();
    for d in &details.files {
        let Some(kind) = d.event_types.iter().position(|t| d.text(t.name) == event) else {
            continue;
        };
        let t = &d.event_types[kind];
        let base = d.wall_start.map_or(0.0, |w| (w - origin_ns) as f64 / 1e6);
        for (i, f) in t.fields.iter().enumerate() {
            let rate = f.kind == Some(MetricKind::Counter);
            let mut last: Option<(u64, f64)> = None;
            let mut points = Vec::new();
            for e in d.events.iter().filter(|e| e.kind as usize == kind) {
                let Some(v) = d.values_of(e)[i].number() else { continue };
                let at = base + e.ts.saturating_sub(d.start) as f64 / 1e6;
                if !rate {
                    points.push((at, v));
                } else if let Some((ts, prev)) = last
                    && e.ts > ts
                {
                    points.push((at, (v - prev) / ((e.ts - ts) as f64 / 1e9)));
                }
                last = Some((e.ts, v));
            }
            if points.is_empty() {
                continue;
            }
            let s = out.entry(d.text(f.name).to_string()).or_insert_with(|| Series {
                event: event.to_string(),
                field: d.text(f.name).to_string(),
                unit: (f.unit != NONE).then(|| d.text(f.unit).to_string()),
                kind: f.kind,
                rate,
                points: Vec::new(),
            });
            s.points.extend(points);
        }
    }
    out.into_values()
        .map(|mut s| {
            s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
            s.points = thin(&s.points, SERIES_POINTS);
            s
        })
        .collect()
}

/// At most `n` points, keeping each stretch's highest (peaks stay visible).
fn thin(points: &[(f64, f64)], n: usize) -> Vec<(f64, f64)> {
    if points.len() <= n {
        return points.to_vec();
    }
    let per = points.len().div_ceil(n);
    points
        .chunks(per)
        .filter_map(|c| c.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1)))
        .collect()
}

/// One event as a table row: its time and its fields' values as text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventRow {
    pub file: String,
    /// Trace ns of the file.
    pub ts: u64,
    pub values: Vec<Option<String>>,
}

/// Rows shown of one event type.
pub const TABLE_ROWS: usize = 500;

/// The field names of an event type and its first `TABLE_ROWS` events, by file then time.
pub fn table(details: &Details, event: &str) -> (Vec<String>, Vec<EventRow>, u64) {
    let mut names: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    let mut total = 0u64;
    for d in &details.files {
        let Some(kind) = d.event_types.iter().position(|t| d.text(t.name) == event) else {
            continue;
        };
        if names.is_empty() {
            names = d.event_types[kind]
                .fields
                .iter()
                .map(|f| d.text(f.name).to_string())
                .collect();
        }
        for e in d.events.iter().filter(|e| e.kind as usize == kind) {
            total += 1;
            if rows.len() < TABLE_ROWS {
                rows.push(EventRow {
                    file: d.file.clone(),
                    ts: e.ts,
                    values: d.values_of(e).iter().map(|&v| value_text(d, v)).collect(),
                });
            }
        }
    }
    (names, rows, total)
}

/// A value as text (numbers as JavaScript prints them).
pub fn value_text(d: &FileDetail, v: EventValue) -> Option<String> {
    Some(match v {
        EventValue::Absent => return None,
        EventValue::U64(v) => v.to_string(),
        EventValue::I64(v) => v.to_string(),
        EventValue::F64(v) => crate::fmt::js_number(v),
        EventValue::Bool(v) => v.to_string(),
        EventValue::Text(i) => d.text(i).to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinning_keeps_the_peaks() {
        let points: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, if i == 7 { 100.0 } else { 1.0 })).collect();
        let t = thin(&points, 3);
        assert!(t.len() <= 3 + 1);
        assert!(t.contains(&(7.0, 100.0)));
    }
}
