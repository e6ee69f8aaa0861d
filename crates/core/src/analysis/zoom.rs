//! The zoom view (`zoom.js`, spec 7.3): everything that happened in a few
//! milliseconds around one instant — polls, worker busy time, which threads
//! were sampled, queue depth, spans of the longest poll — and the viewer link.
//!
//! Beyond the reference: spans are matched to the longest poll by task id
//! (their enter event's `dial9.tokio.task_id`); the reference matched by
//! worker id, which span segments do not carry, so it always printed `(none)`.

use super::diagnose::{HzSource, SampleIndex, all_polls, sampling_hz, strip_registry};
use super::{series, workers};
use crate::fmt::to_fixed;
use crate::frames::format_frame;
use crate::trace::{ParsedTrace, SOURCE_OFF_CPU, build_spans};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::fmt::Write as _;

/// Polls longer than this get the `*` marker and their sample counts.
const LONG_POLL_NS: u64 = 1_000_000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ZoomPoll {
    /// Start relative to the window start (negative when it began before), ms.
    pub start_rel_ms: f64,
    pub worker: u64,
    pub dur_ns: u64,
    pub task_id: u64,
    /// Last two path components of the spawn location (`src/main.rs:334:14`).
    pub spawn_loc: Option<String>,
    /// Longer than 1 ms (the `*` marker).
    pub long: bool,
    pub on_cpu_samples: usize,
    pub off_cpu_samples: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkerBusy {
    pub worker: u64,
    /// Poll time clipped to the window.
    pub busy_ms: f64,
    pub pct: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadCensus {
    pub tid: u64,
    /// The worker the thread was last bound to, if any.
    pub worker: Option<u64>,
    pub on_cpu: usize,
    pub off_cpu: usize,
    pub est_on_cpu_ms: f64,
    /// Mean time between the thread's samples (on and off), when it has ≥ 3.
    pub mean_gap_ms: Option<f64>,
    /// Display text of the most frequent leaf frame.
    pub top_leaf: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueRange {
    pub min: u64,
    pub max: u64,
    pub points: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpanCount {
    pub name: String,
    pub count: usize,
}

/// The longest poll over 1 ms in the window and the spans its task entered during it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LongestPoll {
    pub worker: u64,
    pub task_id: u64,
    pub start_rel_ms: f64,
    pub dur_ns: u64,
    /// In first-entered order.
    pub spans: Vec<SpanCount>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Zoom {
    pub center_ms: f64,
    pub half_ms: f64,
    pub hz: f64,
    pub hz_source: HzSource,
    pub min_ts: Option<u64>,
    /// Absolute window bounds, ns (the viewer deep-link numbers).
    pub start_ns: i64,
    pub end_ns: i64,
    pub polls: Vec<ZoomPoll>,
    pub workers: Vec<WorkerBusy>,
    /// Sorted by on-CPU count, descending (ties: first sample in file order).
    pub threads: Vec<ThreadCensus>,
    pub queue: Option<QueueRange>,
    pub longest_poll: Option<LongestPoll>,
}

impl Zoom {
    /// `viewer.html?trace=…&start=…&end=…` for a trace served at `trace_url`.
    pub fn viewer_link(&self, trace_url: &str) -> String {
        format!(
            "viewer.html?trace={trace_url}&start={}&end={}",
            self.start_ns, self.end_ns
        )
    }
}

fn short_loc(loc: &str) -> String {
    let loc = strip_registry(loc);
    match loc.rmatch_indices('/').nth(1) {
        Some((i, _)) => loc[i + 1..].to_string(),
        None => loc.to_string(),
    }
}

/// Window [minTs + (center − half) ms, minTs + (center + half) ms] of one trace file.
pub fn zoom(trace: &ParsedTrace, center_ms: f64, half_ms: f64, hz: Option<f64>) -> Zoom {
    let min_ts = trace.bounds.map(|b| b.0);
    let base = min_ts.unwrap_or(0) as f64;
    // Float bounds, as the reference compares them; the link shows them rounded.
    let (lo, hi) = (base + (center_ms - half_ms) * 1e6, base + (center_ms + half_ms) * 1e6);
    let ids = workers::worker_ids(trace);
    let tl = workers::build(trace, trace.bounds.map_or(0, |b| b.1));
    let mut polls: Vec<(u64, &workers::Poll)> = all_polls(&tl)
        .into_iter()
        .filter(|(_, p)| p.start as f64 <= hi && p.end as f64 >= lo)
        .collect();
    polls.sort_by_key(|(_, p)| p.start);
    let (hz, hz_source) = sampling_hz(trace, hz);
    Zoom {
        center_ms,
        half_ms,
        hz,
        hz_source,
        min_ts,
        start_ns: lo.round() as i64,
        end_ns: hi.round() as i64,
        workers: busy(&ids, &polls, lo, hi),
        threads: census(trace, lo, hi, 1000.0 / hz),
        queue: queue(trace, lo, hi),
        longest_poll: longest(trace, &polls, lo),
        polls: polls
            .iter()
            .map(|(w, p)| ZoomPoll {
                start_rel_ms: (p.start as f64 - lo) / 1e6,
                worker: *w,
                dur_ns: p.end - p.start,
                task_id: p.task_id,
                spawn_loc: trace.spawn_loc(p.spawn_loc).map(short_loc),
                long: p.end - p.start > LONG_POLL_NS,
                on_cpu_samples: p.cpu_samples().len(),
                off_cpu_samples: p.sched_samples().len(),
            })
            .collect(),
    }
}

fn busy(ids: &[u64], polls: &[(u64, &workers::Poll)], lo: f64, hi: f64) -> Vec<WorkerBusy> {
    ids.iter()
        .map(|&w| {
            let ns: f64 = polls
                .iter()
                .filter(|(pw, _)| *pw == w)
                .map(|(_, p)| ((p.end as f64).min(hi) - (p.start as f64).max(lo)).max(0.0))
                .sum();
            let pct = if hi > lo { ns / (hi - lo) * 100.0 } else { 0.0 };
            WorkerBusy {
                worker: w,
                busy_ms: ns / 1e6,
                pct,
            }
        })
        .collect()
}

fn census(trace: &ParsedTrace, lo: f64, hi: f64, ms_per_sample: f64) -> Vec<ThreadCensus> {
    #[derive(Default)]
    struct Acc {
        on: usize,
        off: usize,
        times: Vec<u64>,
        leaves: IndexMap<String, usize>,
    }
    let mut by_tid: IndexMap<u64, Acc> = IndexMap::new();
    for i in SampleIndex::new(trace).window(trace, lo, hi) {
        let s = &trace.samples[i];
        let acc = by_tid.entry(s.tid).or_default();
        if s.source == SOURCE_OFF_CPU {
            acc.off += 1;
        } else {
            acc.on += 1;
        }
        acc.times.push(s.ts);
        // Only the leaf is needed: symbolize just the first address.
        let leaf = trace.symbols.symbolize(&s.callchain[..s.callchain.len().min(1)]);
        let text = leaf.first().map_or_else(
            || "(unknown)".to_string(),
            |f| format_frame(&f.symbol, f.location.as_deref()),
        );
        *acc.leaves.entry(text).or_default() += 1;
    }
    let mut rows: Vec<ThreadCensus> = by_tid
        .into_iter()
        .map(|(tid, mut a)| {
            a.times.sort_unstable();
            let n = a.times.len();
            let mean_gap_ms = (n >= 3).then(|| (a.times[n - 1] - a.times[0]) as f64 / (n - 1) as f64 / 1e6);
            let mut leaves: Vec<(String, usize)> = a.leaves.into_iter().collect();
            leaves.sort_by_key(|l| Reverse(l.1));
            ThreadCensus {
                tid,
                worker: trace.tid_to_worker.get(&tid).copied(),
                on_cpu: a.on,
                off_cpu: a.off,
                est_on_cpu_ms: a.on as f64 * ms_per_sample,
                mean_gap_ms,
                top_leaf: leaves.into_iter().next().map(|l| l.0),
            }
        })
        .collect();
    rows.sort_by_key(|r| Reverse(r.on_cpu));
    rows
}

fn queue(trace: &ParsedTrace, lo: f64, hi: f64) -> Option<QueueRange> {
    let inside: Vec<u64> = series::global_queue(trace)
        .into_iter()
        .filter(|(t, _)| *t as f64 >= lo && *t as f64 <= hi)
        .map(|p| p.1)
        .collect();
    Some(QueueRange {
        min: *inside.iter().min()?,
        max: *inside.iter().max()?,
        points: inside.len(),
    })
}

fn longest(trace: &ParsedTrace, polls: &[(u64, &workers::Poll)], lo: f64) -> Option<LongestPoll> {
    let (worker, p) = polls.iter().filter(|(_, p)| p.end - p.start > LONG_POLL_NS).fold(
        None::<&(u64, &workers::Poll)>,
        |best, c| match best {
            Some(b) if b.1.end - b.1.start >= c.1.end - c.1.start => Some(b),
            _ => Some(c),
        },
    )?;
    // Single-event spans carry no task id: they cannot be placed in a poll.
    let all = build_spans(&trace.span_events, &trace.strings);
    let mut spans: IndexMap<&str, usize> = IndexMap::new();
    for span in all
        .spans
        .iter()
        .filter(|s| s.task_id.is_some_and(|t| t.get() == p.task_id))
    {
        let inside = all
            .segments(span)
            .iter()
            .filter(|seg| seg.0 >= p.start && seg.1 <= p.end)
            .count();
        if inside > 0 {
            *spans.entry(trace.strings.get(span.name)).or_default() += inside;
        }
    }
    Some(LongestPoll {
        worker: *worker,
        task_id: p.task_id,
        start_rel_ms: (p.start as f64 - lo) / 1e6,
        dur_ns: p.end - p.start,
        spans: spans
            .into_iter()
            .map(|(name, count)| SpanCount {
                name: name.to_string(),
                count,
            })
            .collect(),
    })
}

// ── Text ──

fn ms(ns: u64) -> String {
    to_fixed(ns as f64 / 1e6, 3)
}

/// The plain-text zoom view; `trace_url` fills the viewer link (`<TRACE_URL>` if unknown).
pub fn render(z: &Zoom, trace_url: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Window: {} … {} ms after trace start (center {} ms ± {} ms), {} poll(s)",
        to_fixed(z.center_ms - z.half_ms, 3),
        to_fixed(z.center_ms + z.half_ms, 3),
        z.center_ms,
        z.half_ms,
        z.polls.len()
    );
    out.push_str("\nPolls (start relative to the window, ms):\n");
    for p in &z.polls {
        let mark = if p.long {
            format!(
                "  *  {} on-CPU / {} off-CPU sample(s)",
                p.on_cpu_samples, p.off_cpu_samples
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  {:>10}  w{:<3} {:>9} ms  task {:<6} {}{mark}",
            format!("+{}", to_fixed(p.start_rel_ms, 3)),
            p.worker,
            ms(p.dur_ns),
            p.task_id,
            p.spawn_loc.as_deref().unwrap_or("(unknown)")
        );
    }
    out.push_str("\nWorker busy time in the window:\n");
    for w in &z.workers {
        let _ = writeln!(
            out,
            "  w{}: {} ms ({} %)",
            w.worker,
            to_fixed(w.busy_ms, 2),
            to_fixed(w.pct, 1)
        );
    }
    let _ = writeln!(
        out,
        "\nThreads sampled in the window ({} Hz, est. on-CPU = on × {} ms):",
        z.hz,
        to_fixed(1000.0 / z.hz, 2)
    );
    if z.threads.is_empty() {
        out.push_str("  (no samples)\n");
    }
    for t in &z.threads {
        let worker = t.worker.map_or(String::new(), |w| format!(" (worker {w})"));
        let gap = t
            .mean_gap_ms
            .map_or(String::new(), |g| format!(", mean gap {} ms", to_fixed(g, 2)));
        let _ = writeln!(
            out,
            "  tid {}{worker}: {} on-CPU, {} off-CPU, ~{} ms on-CPU{gap}, top leaf {}",
            t.tid,
            t.on_cpu,
            t.off_cpu,
            to_fixed(t.est_on_cpu_ms, 1),
            t.top_leaf.as_deref().unwrap_or("(unknown)")
        );
    }
    match &z.queue {
        Some(q) => {
            let _ = writeln!(
                out,
                "\nGlobal queue: max {} min {} over {} point(s)",
                q.max, q.min, q.points
            );
        }
        None => out.push_str("\nGlobal queue: no points in the window\n"),
    }
    match &z.longest_poll {
        Some(l) => {
            let _ = writeln!(
                out,
                "\nSpans inside the longest poll (task {} on w{}, +{} ms, {} ms):",
                l.task_id,
                l.worker,
                to_fixed(l.start_rel_ms, 3),
                ms(l.dur_ns)
            );
            if l.spans.is_empty() {
                out.push_str("  (none)\n");
            }
            for s in &l.spans {
                let _ = writeln!(out, "  {} ×{}", s.name, s.count);
            }
        }
        None => out.push_str("\nNo poll over 1 ms in the window.\n"),
    }
    let _ = writeln!(out, "\nViewer: {}", z.viewer_link(trace_url));
    out
}
