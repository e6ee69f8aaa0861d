//! Sampled allocations (`analyzeAllocations`): sites, leaks, per-task
//! attribution. Weights are computed at the end, once the sample rate is
//! chosen, and summed in file order so floating-point totals match.

use crate::report::{AllocSite, Frame, Memory, TaskAlloc};
use crate::trace::{ParsedTrace, RuntimeKind};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The rate `analyze.js` always assumes.
pub const REFERENCE_SAMPLE_RATE: u64 = 524_288;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Sample {
    pub size: u64,
    pub site: u32,
    pub task: Option<u64>,
    /// (address, allocation time) while no free has been seen for it.
    pub unfreed: Option<(u64, u64)>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct MemoryPartial {
    pub samples: Vec<Sample>,
    /// Call chain (as text key) → symbolized frames, first-occurrence order.
    pub sites: IndexMap<String, Vec<Frame>>,
    pub frees: u64,
    /// Frees of allocations sampled in another file (a later segment frees an earlier one's memory).
    pub orphan_frees: Vec<(u64, u64)>,
    pub dropped_allocs: u64,
    pub dropped_frees: u64,
    pub trace_sample_rate: Option<u64>,
}

impl MemoryPartial {
    pub fn from_trace(trace: &ParsedTrace) -> MemoryPartial {
        let freed: HashSet<(u64, u64)> = trace.frees.iter().map(|f| (f.addr, f.alloc_ts)).collect();
        // Per worker, PollStarts in file order (the reference does not re-sort them).
        let mut polls: HashMap<u64, Vec<(u64, u64)>> = HashMap::new();
        for e in trace
            .events
            .iter()
            .filter(|e| e.kind == RuntimeKind::PollStart && e.task_id != 0)
        {
            polls.entry(e.worker).or_default().push((e.ts, e.task_id));
        }
        let mut m = MemoryPartial {
            frees: trace.frees.len() as u64,
            dropped_allocs: trace.dropped_allocs,
            dropped_frees: trace.dropped_frees,
            trace_sample_rate: trace
                .metadata
                .get("memory.sample_rate_bytes")
                .and_then(|v| v.parse().ok()),
            ..MemoryPartial::default()
        };
        for a in &trace.allocs {
            let key = a.callchain.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(";");
            let site = match m.sites.get_index_of(&key) {
                Some(i) => i,
                None => m.sites.insert_full(key, trace.symbols.symbolize(&a.callchain)).0,
            } as u32;
            let task = trace
                .tid_to_worker
                .get(&a.tid)
                .and_then(|w| polls.get(w))
                .and_then(|p| {
                    let i = p.partition_point(|&(start, _)| start <= a.ts).checked_sub(1)?;
                    Some(p[i].1)
                });
            let unfreed = (!freed.contains(&(a.addr, a.ts))).then_some((a.addr, a.ts));
            m.samples.push(Sample {
                size: a.size,
                site,
                task,
                unfreed,
            });
        }
        let sampled: HashSet<(u64, u64)> = trace.allocs.iter().map(|a| (a.addr, a.ts)).collect();
        m.orphan_frees = trace
            .frees
            .iter()
            .map(|f| (f.addr, f.alloc_ts))
            .filter(|k| !sampled.contains(k))
            .collect();
        m
    }

    pub fn merge(&mut self, other: &MemoryPartial) {
        let offset: Vec<u32> = other
            .sites
            .iter()
            .map(|(k, frames)| match self.sites.get_index_of(k) {
                Some(i) => i as u32,
                None => self.sites.insert_full(k.clone(), frames.clone()).0 as u32,
            })
            .collect();
        self.samples.extend(other.samples.iter().map(|s| Sample {
            site: offset[s.site as usize],
            ..s.clone()
        }));
        self.frees += other.frees;
        self.orphan_frees.extend(&other.orphan_frees);
        self.dropped_allocs += other.dropped_allocs;
        self.dropped_frees += other.dropped_frees;
        self.trace_sample_rate = self.trace_sample_rate.or(other.trace_sample_rate);
    }

    /// `None` when nothing was sampled.
    pub fn finish(&self, rate: u64, spawn_loc: impl Fn(u64) -> Option<String>) -> Option<Memory> {
        if self.samples.is_empty() {
            return None;
        }
        let weight = |s: u64| {
            if s == 0 {
                return 0.0;
            }
            let ratio = s as f64 / rate as f64;
            if ratio > 50.0 {
                s as f64
            } else {
                s as f64 / (1.0 - (-ratio).exp())
            }
        };
        let mut sites: BTreeMap<u32, AllocSite> = BTreeMap::new();
        let mut tasks: IndexMap<u64, TaskAlloc> = IndexMap::new();
        let freed_elsewhere: HashSet<&(u64, u64)> = self.orphan_frees.iter().collect();
        let mut estimated = 0.0;
        let (mut leaked_count, mut leaked_bytes, mut total_bytes) = (0, 0, 0);
        for s in &self.samples {
            let w = weight(s.size);
            estimated += w;
            total_bytes += s.size;
            if s.unfreed.is_some_and(|k| !freed_elsewhere.contains(&k)) {
                leaked_count += 1;
                leaked_bytes += s.size;
            }
            let site = sites.entry(s.site).or_insert_with(|| AllocSite {
                frames: self.sites[s.site as usize].clone(),
                ..AllocSite::default()
            });
            site.count += 1;
            site.total_bytes += s.size;
            site.estimated_bytes += w;
            if let Some(task) = s.task {
                let t = tasks.entry(task).or_insert_with(|| TaskAlloc {
                    task_id: task,
                    ..TaskAlloc::default()
                });
                t.count += 1;
                t.sampled_bytes += s.size;
                t.estimated_bytes += w;
            }
        }
        // Sites in first-occurrence order before the stable sort, as the reference's Map.
        let mut top_sites: Vec<AllocSite> = sites.into_values().collect();
        top_sites.sort_by(|a, b| b.estimated_bytes.total_cmp(&a.estimated_bytes));
        top_sites.truncate(10);
        let mut per_task: Vec<TaskAlloc> = tasks.into_values().collect();
        per_task.sort_by(|a, b| b.estimated_bytes.total_cmp(&a.estimated_bytes));
        for t in &mut per_task {
            t.spawn_loc = spawn_loc(t.task_id);
        }
        Some(Memory {
            sample_rate_bytes: rate,
            trace_sample_rate_bytes: self.trace_sample_rate.filter(|&r| r != rate),
            total_alloc_count: self.samples.len() as u64,
            total_alloc_bytes: total_bytes,
            total_free_count: self.frees,
            leaked_count,
            leaked_bytes,
            estimated_total_bytes: estimated.round() as u64,
            dropped_allocs: self.dropped_allocs,
            dropped_frees: self.dropped_frees,
            top_sites,
            per_task,
        })
    }
}
