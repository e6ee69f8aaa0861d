//! The key figures of a report, for putting two side by side: rates per
//! second where the two selections may last differently long, durations in
//! ns, shares as fractions.

use crate::report::Report;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unit {
    /// A fraction (0.25 = 25%).
    Share,
    Nanos,
    PerSecond,
    Count,
}

impl Unit {
    /// A difference too small to mean anything: a microsecond, one event in
    /// ten seconds, a percent, one.
    pub fn noise(self) -> f64 {
        match self {
            Unit::Share => 0.01,
            Unit::Nanos => 1_000.0,
            Unit::PerSecond => 0.1,
            Unit::Count => 1.0,
        }
    }
}

/// One figure of one report.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub name: String,
    pub unit: Unit,
    /// `None` when the report cannot say (no polls, no samples).
    pub value: Option<f64>,
}

/// How many span names get their own p99 figure (the most frequent in B).
pub const SPAN_FIGURES: usize = 5;

/// The figures every comparison shows, in a fixed order, then the p99 of `spans`.
pub fn figures(r: &Report, spans: &[String]) -> Vec<Figure> {
    let secs = r.summary.duration_ms / 1e3;
    let rate = |n: u64| (secs > 0.0).then(|| n as f64 / secs);
    let polls: u64 = r.workers.iter().map(|w| w.poll_count).sum();
    let utilization =
        (!r.workers.is_empty()).then(|| r.workers.iter().map(|w| w.utilization).sum::<f64>() / r.workers.len() as f64);
    let p = &r.all_polls;
    let has_polls = p.count > 0;
    let d = &r.sched_delays;
    let has_delays = d.count > 0;
    let fig = |name: &str, unit: Unit, value: Option<f64>| Figure {
        name: name.to_string(),
        unit,
        value,
    };
    let mut out = vec![
        fig("worker utilization", Unit::Share, utilization),
        fig("polls", Unit::PerSecond, rate(polls)),
        fig("poll p50", Unit::Nanos, has_polls.then_some(p.p50_ns as f64)),
        fig("poll p99", Unit::Nanos, has_polls.then_some(p.p99_ns as f64)),
        fig("poll max", Unit::Nanos, has_polls.then_some(p.max_ns as f64)),
        fig("long polls (> 1 ms)", Unit::PerSecond, rate(r.long_polls.count)),
        fig(
            "scheduling delay p50",
            Unit::Nanos,
            has_delays.then_some(d.p50_ns as f64),
        ),
        fig(
            "scheduling delay p99",
            Unit::Nanos,
            has_delays.then_some(d.p99_ns as f64),
        ),
        fig(
            "scheduling delay max",
            Unit::Nanos,
            has_delays.then_some(d.max_ns as f64),
        ),
        fig("scheduling delays > 1 ms", Unit::PerSecond, rate(d.count_over_1ms)),
        fig("blocking samples (in poll)", Unit::PerSecond, rate(r.blocking.in_poll)),
        fig("on-CPU samples", Unit::PerSecond, rate(r.summary.on_cpu_sample_count)),
        fig("global queue max", Unit::Count, r.queue.global_max.map(|q| q as f64)),
        fig("global queue mean", Unit::Count, r.queue.global_avg),
        fig("task spawns", Unit::PerSecond, rate(r.summary.task_spawn_count)),
    ];
    for name in spans {
        let span = r.spans.iter().find(|s| &s.name == name);
        out.push(fig(
            &format!("span {name} p99"),
            Unit::Nanos,
            span.map(|s| s.p99_ns as f64),
        ));
    }
    out
}

/// The span names compared: the most frequent of `b` (ties by name).
pub fn span_names(b: &Report) -> Vec<String> {
    let mut spans: Vec<(&str, u64)> = b.spans.iter().map(|s| (s.name.as_str(), s.count)).collect();
    spans.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(y.0)));
    spans
        .into_iter()
        .take(SPAN_FIGURES)
        .map(|(n, _)| n.to_string())
        .collect()
}
