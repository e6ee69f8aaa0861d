//! The span explorer: per span name, how many instances matched a query,
//! their duration percentiles and histogram, where their time went (the
//! split), their fields' most frequent values, their child spans, and the
//! slowest as exemplars one click from their moment.

use super::detail::{FileDetail, NONE, SpanRow};
use super::kept::Details;
use super::profiles::idle_within;
use super::query::{Hit, Query};
use super::split::Split;
use crate::hashing::FastMap;
use crate::hdr::{LogBin, Tally};
use crate::profile::calls::naming_text;
use crate::report::Frame;
use crate::report::{BINS_PER_DECADE, Moment};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A field's values shown; the rest are counted together.
pub const TOP_VALUES: usize = 10;
/// Exemplars listed per span name.
pub const EXEMPLARS: usize = 10;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Explorer {
    /// By instances, most first (then by name).
    pub spans: Vec<SpanSummary>,
    /// Files whose instances were asked, and files left out of the run's details.
    pub files: usize,
    pub files_left_out: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpanSummary {
    pub name: String,
    pub count: u64,
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub p999_ns: u64,
    pub max_ns: u64,
    pub total_ns: u64,
    pub histogram: Vec<LogBin>,
    /// Summed over the instances whose task's polls tell (the rest is `unattributed_ns`).
    pub split: Split,
    pub unattributed_ns: u64,
    pub fields: Vec<FieldValues>,
    pub children: Vec<Child>,
    /// What the instances awaited while idle, most waited first, at most
    /// `TOP_VALUES`: their async wait broken down by the task dumps in them.
    pub awaits: Vec<Await>,
    /// The slowest instances, slowest first.
    pub exemplars: Vec<Instance>,
}

/// One await: the frame naming the task dumps taken inside the instances
/// (`profile::calls::naming_frame`), how many, and the idle time after
/// them up to each instance's end.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Await {
    pub frame: String,
    pub dumps: u64,
    pub wait_ns: u64,
}

/// One field's values over the instances: the most frequent, and the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldValues {
    pub name: String,
    /// Most frequent first (equals by value), at most `TOP_VALUES`.
    pub values: Vec<(String, u64)>,
    /// Instances with another value, and how many values those are.
    pub other: u64,
    pub other_values: u64,
}

/// A child span name: how many of its instances ran under the matched ones,
/// and their time in all.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Child {
    pub name: String,
    pub count: u64,
    pub total_ns: u64,
}

/// One span instance, with where to see it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Instance {
    pub name: String,
    pub dur_ns: u64,
    pub task: u64,
    pub split: Option<Split>,
    pub fields: Vec<(String, String)>,
    /// Its start after its file's first event.
    pub offset_ns: u64,
    /// The span on the timeline (its file, start and duration).
    pub moment: Moment,
}

impl Instance {
    pub fn of(d: &FileDetail, s: &SpanRow) -> Instance {
        Instance {
            name: d.text(s.name).to_string(),
            dur_ns: s.dur,
            task: s.task,
            split: s.split,
            fields: d
                .fields_of(s)
                .iter()
                .map(|&(k, v)| (d.text(k).to_string(), d.text(v).to_string()))
                .collect(),
            offset_ns: s.start.saturating_sub(d.start),
            moment: Moment {
                file: d.file.clone(),
                worker: None,
                start_ns: s.start,
                dur_ns: s.dur,
            },
        }
    }
}

/// What one name's instances add up to, while they are counted.
#[derive(Default)]
struct Acc {
    tally: Tally,
    total: u64,
    split: Split,
    unattributed: u64,
    fields: IndexMap<String, FastMap<String, u64>>,
    children: BTreeMap<String, (u64, u64)>,
    /// (file, stack) of the dumps inside → (dumps, idle ns inside).
    awaits: FastMap<(u32, u32), (u64, u64)>,
    /// (duration, file, span) of the slowest, slowest first.
    slowest: Vec<(u64, u32, u32)>,
}

/// The explorer's answer to `query` over a run's kept details.
pub fn explore(details: &Details, query: &Query) -> Explorer {
    let hits = query.hits(details);
    summarize(details, &hits, query)
}

/// The summaries of some instances, by name.
pub fn summarize(details: &Details, hits: &[Hit], query: &Query) -> Explorer {
    let mut by_name: IndexMap<String, Acc> = IndexMap::new();
    // Each file's children by parent, built once per file hit.
    let mut children: FastMap<u32, FastMap<u32, Vec<u32>>> = FastMap::default();
    for h in hits {
        let d = &details.files[h.file as usize];
        let s = &d.spans[h.span as usize];
        let acc = by_name.entry(d.text(s.name).to_string()).or_default();
        acc.tally.record(s.dur.max(1));
        acc.total = acc.total.saturating_add(s.dur);
        match s.split {
            Some(sp) => acc.split.add(&sp),
            None => acc.unattributed = acc.unattributed.saturating_add(s.dur),
        }
        for &(k, v) in d.fields_of(s) {
            let values = acc.fields.entry(d.text(k).to_string()).or_default();
            *values.entry(d.text(v).to_string()).or_default() += 1;
        }
        let kids = children.entry(h.file).or_insert_with(|| children_of(d));
        for &c in kids.get(&h.span).map_or(&[][..], Vec::as_slice) {
            let c = &d.spans[c as usize];
            let e = acc.children.entry(d.text(c.name).to_string()).or_default();
            e.0 += 1;
            e.1 = e.1.saturating_add(c.dur);
        }
        if s.task != 0 {
            for dump in d.dumps_of(s.task, s.start, s.end()) {
                let e = acc.awaits.entry((h.file, dump.stack)).or_default();
                e.0 += 1;
                e.1 = e.1.saturating_add(idle_within(dump, s.end()));
            }
        }
        keep_slowest(&mut acc.slowest, (s.dur, h.file, h.span), EXEMPLARS);
    }
    let mut names: FastMap<(u32, u32), String> = FastMap::default();
    let mut spans: Vec<SpanSummary> = by_name
        .into_iter()
        .map(|(name, acc)| {
            let h = acc.tally.into_histogram();
            SpanSummary {
                count: h.count(),
                p50_ns: h.percentile(50.0),
                p90_ns: h.percentile(90.0),
                p99_ns: h.percentile(99.0),
                p999_ns: h.percentile(99.9),
                max_ns: h.max(),
                total_ns: acc.total,
                histogram: h.log_bins(BINS_PER_DECADE),
                split: acc.split,
                unattributed_ns: acc.unattributed,
                fields: acc.fields.into_iter().map(|(n, v)| field_values(n, v)).collect(),
                children: {
                    let mut c: Vec<Child> = acc
                        .children
                        .into_iter()
                        .map(|(name, (count, total_ns))| Child { name, count, total_ns })
                        .collect();
                    c.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then(a.name.cmp(&b.name)));
                    c
                },
                awaits: awaits(details, acc.awaits, &mut names),
                exemplars: acc
                    .slowest
                    .iter()
                    .map(|&(_, f, s)| {
                        let d = &details.files[f as usize];
                        Instance::of(d, &d.spans[s as usize])
                    })
                    .collect(),
                name,
            }
        })
        .collect();
    spans.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
    let files = match query.host.is_some() || query.boot.is_some() {
        true => {
            let mut f: Vec<u32> = hits.iter().map(|h| h.file).collect();
            f.dedup();
            f.len()
        }
        false => details.files.len(),
    };
    Explorer {
        spans,
        files,
        files_left_out: details.left_out,
    }
}

/// Dumps by (file, stack) merged by the frame that names them, most waited first.
fn awaits(
    details: &Details,
    by_stack: FastMap<(u32, u32), (u64, u64)>,
    names: &mut FastMap<(u32, u32), String>,
) -> Vec<Await> {
    let mut by_frame: FastMap<String, (u64, u64)> = FastMap::default();
    for (key, (dumps, ns)) in by_stack {
        let name = names.entry(key).or_insert_with(|| {
            let d = &details.files[key.0 as usize];
            let frames: Vec<Frame> = d
                .stacks
                .get(key.1)
                .iter()
                .filter_map(|&f| d.frames.get(f).cloned())
                .collect();
            naming_text(&frames).unwrap_or_else(|| "(no frames)".to_string())
        });
        let e = by_frame.entry(name.clone()).or_default();
        e.0 += dumps;
        e.1 = e.1.saturating_add(ns);
    }
    let mut out: Vec<Await> = by_frame
        .into_iter()
        .map(|(frame, (dumps, wait_ns))| Await { frame, dumps, wait_ns })
        .collect();
    out.sort_by(|a, b| b.wait_ns.cmp(&a.wait_ns).then_with(|| a.frame.cmp(&b.frame)));
    out.truncate(TOP_VALUES);
    out
}

/// Each span's children, by parent index.
pub fn children_of(d: &FileDetail) -> FastMap<u32, Vec<u32>> {
    let mut out: FastMap<u32, Vec<u32>> = FastMap::default();
    for (i, s) in d.spans.iter().enumerate().filter(|(_, s)| s.parent != NONE) {
        out.entry(s.parent).or_default().push(i as u32);
    }
    out
}

/// Keeps the `n` slowest (ties: the earlier file, then span), slowest first.
pub fn keep_slowest(list: &mut Vec<(u64, u32, u32)>, item: (u64, u32, u32), n: usize) {
    let key = |x: &(u64, u32, u32)| (std::cmp::Reverse(x.0), x.1, x.2);
    if list.len() == n && list.last().is_some_and(|l| key(&item) >= key(l)) {
        return;
    }
    let at = list.partition_point(|x| key(x) < key(&item));
    list.insert(at, item);
    list.truncate(n);
}

fn field_values(name: String, values: FastMap<String, u64>) -> FieldValues {
    let mut v: Vec<(String, u64)> = values.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let rest = v.split_off(v.len().min(TOP_VALUES));
    FieldValues {
        name,
        values: v,
        other: rest.iter().map(|r| r.1).sum(),
        other_values: rest.len() as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slowest_are_kept_in_order_with_ties_by_place() {
        let mut list = Vec::new();
        for (i, d) in [5, 9, 1, 9, 7, 3].into_iter().enumerate() {
            keep_slowest(&mut list, (d, 0, i as u32), 3);
        }
        assert_eq!(list, [(9, 0, 1), (9, 0, 3), (7, 0, 4)]);
    }
}
