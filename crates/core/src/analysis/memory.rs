//! Sampled allocations (`analyzeAllocations`): sites, leaks, per-task
//! attribution. Weights are computed at the end, once the sample rate is
//! chosen, and summed in file order so floating-point totals match.

use super::frame_table::{FrameId, FrameTable, Remap};
use super::stacks::Symbolizer;
use crate::hashing::FastMap;
use crate::hashing::FastSet;
use crate::report::{AllocSite, Memory, TaskAlloc, Weighted};
use crate::trace::{ParsedTrace, WorkerEvent, WorkerEventKind};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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

/// One allocation call chain and its symbolized stack.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Site {
    pub chain: Vec<u64>,
    pub stack: Vec<FrameId>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct MemoryPartial {
    pub samples: Vec<Sample>,
    /// Distinct call chains, first-occurrence order (`Sample::site` indexes them).
    pub sites: Vec<Site>,
    pub frees: u64,
    /// Frees of allocations sampled in another file (a later segment frees an earlier one's memory).
    pub orphan_frees: Vec<(u64, u64)>,
    pub dropped_allocs: u64,
    pub dropped_frees: u64,
    pub trace_sample_rate: Option<u64>,
}

impl MemoryPartial {
    /// `workers`: the trace's worker events (the caller has taken them out).
    pub fn from_trace(
        trace: &ParsedTrace,
        workers: &BTreeMap<u64, Vec<WorkerEvent>>,
        symbolizer: &mut Symbolizer<'_>,
    ) -> MemoryPartial {
        let freed: FastSet<(u64, u64)> = trace.frees.iter().map(|f| (f.addr, f.alloc_ts)).collect();
        // Per worker, PollStarts in file order (the reference does not re-sort them).
        let polls: BTreeMap<u64, Vec<(u64, u64)>> = if trace.allocs.is_empty() {
            BTreeMap::new()
        } else {
            workers
                .iter()
                .map(|(&w, events)| {
                    let starts = events.iter().filter_map(|e| match e.kind {
                        WorkerEventKind::PollStart { task_id, .. } if task_id != 0 => Some((e.ts, task_id)),
                        _ => None,
                    });
                    (w, starts.collect())
                })
                .collect()
        };
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
        let mut site_of: FastMap<&[u64], u32> = FastMap::default();
        for a in &trace.allocs {
            let site = *site_of.entry(&a.callchain).or_insert_with(|| {
                m.sites.push(Site {
                    chain: a.callchain.clone(),
                    stack: symbolizer.stack(&a.callchain),
                });
                m.sites.len() as u32 - 1
            });
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
        let sampled: FastSet<(u64, u64)> = trace.allocs.iter().map(|a| (a.addr, a.ts)).collect();
        m.orphan_frees = trace
            .frees
            .iter()
            .map(|f| (f.addr, f.alloc_ts))
            .filter(|k| !sampled.contains(k))
            .collect();
        m
    }
}

/// The fold of memory partials: sites keyed by call chain across files.
#[derive(Debug, Clone, Default)]
pub struct MemoryAcc {
    m: MemoryPartial,
    site_of: FastMap<Vec<u64>, u32>,
}

impl MemoryAcc {
    /// `remap` takes the partial's frame ids into the accumulator's table.
    pub fn merge(&mut self, other: MemoryPartial, remap: &Remap) {
        let m = &mut self.m;
        let offset: Vec<u32> = other
            .sites
            .into_iter()
            .map(|site| {
                *self.site_of.entry(site.chain.clone()).or_insert_with(|| {
                    m.sites.push(Site {
                        stack: remap.stack(&site.stack),
                        chain: site.chain,
                    });
                    m.sites.len() as u32 - 1
                })
            })
            .collect();
        m.samples.extend(other.samples.into_iter().map(|s| Sample {
            site: offset[s.site as usize],
            ..s
        }));
        m.frees = m.frees.saturating_add(other.frees);
        m.orphan_frees.extend(other.orphan_frees);
        m.dropped_allocs = m.dropped_allocs.saturating_add(other.dropped_allocs);
        m.dropped_frees = m.dropped_frees.saturating_add(other.dropped_frees);
        m.trace_sample_rate = m.trace_sample_rate.or(other.trace_sample_rate);
    }

    pub fn trace_sample_rate(&self) -> Option<u64> {
        self.m.trace_sample_rate
    }

    /// Sampled bytes by call chain (first-occurrence order): the allocation flamegraph.
    pub fn bytes_by_stack(&self) -> Vec<Weighted> {
        let mut bytes = vec![0u64; self.m.sites.len()];
        for s in &self.m.samples {
            bytes[s.site as usize] = bytes[s.site as usize].saturating_add(s.size);
        }
        self.m
            .sites
            .iter()
            .zip(bytes)
            .filter(|(_, b)| *b > 0)
            .map(|(site, weight)| Weighted {
                weight,
                stack: site.stack.iter().map(|id| id.index()).collect(),
            })
            .collect()
    }

    /// `None` when nothing was sampled.
    pub fn finish(&self, rate: u64, frames: &FrameTable, spawn_loc: impl Fn(u64) -> Option<String>) -> Option<Memory> {
        let m = &self.m;
        if m.samples.is_empty() {
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
        let freed_elsewhere: FastSet<&(u64, u64)> = m.orphan_frees.iter().collect();
        let mut estimated = 0.0;
        let (mut leaked_count, mut leaked_bytes, mut total_bytes) = (0, 0u64, 0u64);
        for s in &m.samples {
            let w = weight(s.size);
            estimated += w;
            total_bytes = total_bytes.saturating_add(s.size);
            if s.unfreed.is_some_and(|k| !freed_elsewhere.contains(&k)) {
                leaked_count += 1;
                leaked_bytes = leaked_bytes.saturating_add(s.size);
            }
            let site = sites.entry(s.site).or_default();
            site.count += 1;
            site.total_bytes = site.total_bytes.saturating_add(s.size);
            site.estimated_bytes += w;
            if let Some(task) = s.task {
                let t = tasks.entry(task).or_insert_with(|| TaskAlloc {
                    task_id: task,
                    ..TaskAlloc::default()
                });
                t.count += 1;
                t.sampled_bytes = t.sampled_bytes.saturating_add(s.size);
                t.estimated_bytes += w;
            }
        }
        // Sites in first-occurrence order before the stable sort, as the reference's Map.
        let mut top_sites: Vec<(u32, AllocSite)> = sites.into_iter().collect();
        top_sites.sort_by(|a, b| b.1.estimated_bytes.total_cmp(&a.1.estimated_bytes));
        top_sites.truncate(10);
        let top_sites = top_sites
            .into_iter()
            .map(|(i, site)| AllocSite {
                frames: frames.resolve(&m.sites[i as usize].stack),
                ..site
            })
            .collect();
        let mut per_task: Vec<TaskAlloc> = tasks.into_values().collect();
        per_task.sort_by(|a, b| b.estimated_bytes.total_cmp(&a.estimated_bytes));
        for t in &mut per_task {
            t.spawn_loc = spawn_loc(t.task_id);
        }
        Some(Memory {
            sample_rate_bytes: rate,
            trace_sample_rate_bytes: m.trace_sample_rate.filter(|&r| r != rate),
            total_alloc_count: m.samples.len() as u64,
            total_alloc_bytes: total_bytes,
            total_free_count: m.frees,
            leaked_count,
            leaked_bytes,
            estimated_total_bytes: estimated.round() as u64,
            dropped_allocs: m.dropped_allocs,
            dropped_frees: m.dropped_frees,
            top_sites,
            per_task,
        })
    }
}
