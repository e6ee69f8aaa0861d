//! DISTRIBUTIONS: log-scale histograms of poll durations, scheduling delays
//! and the most frequent spans, as small SVG charts (each bar says its range
//! and count on hover), each with the same numbers as a table.

use super::widgets::{DataTable, Section};
use crate::page::session::AppState;
use crate::page::units::bytes;
use d9lens_core::fmt::fmt_dur;
use d9lens_core::fmt::to_fixed;
use d9lens_core::report::{BINS_PER_DECADE, LogBin, Report};
use d9lens_core::timeline::{CounterKind, Scene, counter_sums, worker_load};
use leptos::prelude::*;

const W: f64 = 640.0;
const H: f64 = 150.0;
/// Room under the bars for the axis labels.
const AXIS: f64 = 18.0;

pub fn view(r: &Report, state: AppState) -> impl IntoView + use<> {
    let d = &r.distributions;
    if d.polls.is_empty() && d.sched_delays.is_empty() && d.spans.is_empty() {
        return None;
    }
    let mut charts = vec![
        ("Poll duration".to_string(), "polls", d.polls.clone()),
        (
            "Scheduling delay (wake → poll)".to_string(),
            "delays",
            d.sched_delays.clone(),
        ),
    ];
    for (name, bins) in &d.spans {
        charts.push((format!("Span {name}"), "span", bins.clone()));
    }
    let charts = charts
        .into_iter()
        .filter(|(_, _, bins)| !bins.is_empty())
        .map(|(title, kind, bins)| chart(title, kind, bins))
        .collect_view();
    Some(view! {
        <Section title="Distributions" testid="section-distributions" subtitle=format!("log scale: {BINS_PER_DECADE} bars per power of ten")>
            <div class="charts">{charts}</div>
            {move || state.scene.get().map(|s| view! { {load_chart(&s)} {alloc_chart(&s)} })}
        </Section>
    })
}

pub(super) fn chart(title: String, kind: &'static str, bins: Vec<LogBin>) -> impl IntoView + use<> {
    let total: u64 = bins.iter().map(|b| b.count).sum();
    let max = bins.iter().map(|b| b.count).max().unwrap_or(1).max(1);
    let mode = bins.iter().max_by_key(|b| b.count).copied();
    let range = |b: &LogBin| format!("{} – {}", fmt_dur(b.lo as f64), fmt_dur(b.hi as f64));
    let summary = format!(
        "{title}: {total} values from {} to {}{}",
        fmt_dur(bins.first().map_or(0, |b| b.lo) as f64),
        fmt_dur(bins.last().map_or(0, |b| b.hi) as f64),
        mode.map(|m| format!(", most between {}", range(&m)))
            .unwrap_or_default()
    );
    let bw = W / bins.len() as f64;
    let bars = bins
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let h = if b.count == 0 {
                0.0
            } else {
                ((b.count as f64 / max as f64) * (H - AXIS - 4.0)).max(1.0)
            };
            let (x, y) = (i as f64 * bw, H - AXIS - h);
            let tip = format!("{}: {}", range(b), b.count);
            view! {
                <rect class="chart-bar" x=format!("{x:.1}") y=format!("{y:.1}") width=format!("{:.1}", (bw - 1.0).max(1.0)) height=format!("{h:.1}")>
                    <title>{tip}</title>
                </rect>
            }
        })
        .collect_view();
    // A label at each power of ten.
    let labels = bins
        .iter()
        .enumerate()
        .filter(|(_, b)| b.lo > 0 && b.lo == 10u64.pow(b.lo.ilog10()))
        .map(|(i, b)| {
            let x = i as f64 * bw;
            view! {
                <line class="chart-tick" x1=format!("{x:.1}") x2=format!("{x:.1}") y1=format!("{}", H - AXIS) y2=format!("{}", H - AXIS + 4.0)></line>
                <text class="chart-label" x=format!("{:.1}", x + 2.0) y=format!("{}", H - 4.0)>{fmt_dur(b.lo as f64)}</text>
            }
        })
        .collect_view();
    let rows = bins
        .iter()
        .filter(|b| b.count > 0)
        .map(|b| view! { <tr><td>{range(b)}</td><td class="num">{b.count.to_string()}</td></tr> })
        .collect_view();
    let (label, n) = (summary.clone(), bins.len());
    view! {
        <figure class="chart" data-testid="chart" data-kind=kind data-total=total.to_string() data-bins=n.to_string()>
            <figcaption>{title}</figcaption>
            <svg viewBox=format!("0 0 {W} {H}") role="img" aria-label=label preserveAspectRatio="none">
                <title>{summary}</title>
                {bars}
                <line class="chart-axis" x1="0" x2=format!("{W}") y1=format!("{}", H - AXIS) y2=format!("{}", H - AXIS)></line>
                {labels}
            </svg>
            <details class="chart-table">
                <summary>"as a table"</summary>
                <DataTable columns=&[("Range", ""), ("Count", "num")]>{rows}</DataTable>
            </details>
        </figure>
    }
}

/// Bins of the allocations chart.
const ALLOC_BINS: usize = 60;

/// Sampled allocated bytes over the timeline's axis (absent when the trace
/// samples no allocations).
fn alloc_chart(scene: &Scene) -> Option<impl IntoView + use<>> {
    let sums = counter_sums(scene, CounterKind::Allocated, ALLOC_BINS);
    let total: u64 = sums.iter().sum();
    if total == 0 {
        return None;
    }
    let max = sums.iter().copied().max().unwrap_or(1).max(1);
    let slice = scene.total / ALLOC_BINS as f64;
    let range = |i: usize| format!("{} – {}", fmt_dur(i as f64 * slice), fmt_dur((i + 1) as f64 * slice));
    let bw = W / ALLOC_BINS as f64;
    let plot = H - AXIS;
    let bars = sums
        .iter()
        .enumerate()
        .filter(|(_, v)| **v > 0)
        .map(|(i, &v)| {
            let h = (v as f64 / max as f64 * plot).max(1.0);
            view! {
                <rect class="chart-bar" x=format!("{:.1}", i as f64 * bw) y=format!("{:.1}", plot - h)
                    width=format!("{:.2}", (bw - 1.0).max(0.5)) height=format!("{h:.1}")>
                    <title>{format!("{}: {}", range(i), bytes(v))}</title>
                </rect>
            }
        })
        .collect_view();
    let rows = sums
        .iter()
        .enumerate()
        .filter(|(_, v)| **v > 0)
        .map(|(i, &v)| view! { <tr><td>{range(i)}</td><td class="num">{bytes(v)}</td></tr> })
        .collect_view();
    let busiest = sums.iter().enumerate().max_by_key(|(_, v)| **v).map_or(0, |(i, _)| i);
    let label = format!(
        "Allocations over time: {} sampled in {ALLOC_BINS} slices of the timeline, the most ({}) in {}",
        bytes(total),
        bytes(max),
        range(busiest)
    );
    let aria = label.clone();
    Some(view! {
        <figure class="chart chart-wide" data-testid="chart" data-kind="alloc" data-total=total.to_string()>
            <figcaption>"Allocated bytes over time (sampled allocations)"</figcaption>
            <svg viewBox=format!("0 0 {W} {H}") role="img" aria-label=aria preserveAspectRatio="none">
                <title>{label}</title>
                {bars}
                <line class="chart-axis" x1="0" x2=format!("{W}") y1=format!("{plot}") y2=format!("{plot}")></line>
            </svg>
            <details class="chart-table">
                <summary>"as a table"</summary>
                <DataTable columns=&[("Time", ""), ("Sampled bytes", "num")]>{rows}</DataTable>
            </details>
        </figure>
    })
}

/// Bins of the worker-load chart.
const LOAD_BINS: usize = 120;
const LOAD_ROW: f64 = 14.0;
const LOAD_LABEL: f64 = 110.0;

/// How busy each worker was over the timeline's axis: one row per worker
/// (per host · boot), darker where more of the time went to polls.
fn load_chart(scene: &Scene) -> impl IntoView + use<> {
    let lanes = worker_load(scene, LOAD_BINS);
    let many_groups = scene.groups.len() > 1;
    let name = |group: usize, runtime: &str, worker: u64| {
        if many_groups {
            format!("{} · {runtime} {worker}", scene.groups[group].label)
        } else {
            format!("{runtime} worker {worker}")
        }
    };
    let height = lanes.len() as f64 * LOAD_ROW;
    let bw = W / LOAD_BINS as f64;
    let rows = lanes
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let y = i as f64 * LOAD_ROW;
            let cells = l
                .busy
                .iter()
                .enumerate()
                .filter(|(_, b)| **b > 0.0)
                .map(|(k, b)| {
                    view! {
                        <rect class="chart-load" x=format!("{:.1}", LOAD_LABEL + k as f64 * bw) y=format!("{:.1}", y + 1.0)
                            width=format!("{:.2}", bw) height=format!("{:.1}", LOAD_ROW - 2.0) fill-opacity=format!("{:.3}", b.max(0.04))></rect>
                    }
                })
                .collect_view();
            view! {
                <text class="chart-label" x="0" y=format!("{:.1}", y + LOAD_ROW - 3.0)>{format!("{} {}", l.runtime, l.worker)}</text>
                {cells}
            }
        })
        .collect_view();
    let table = lanes
        .iter()
        .map(|l| {
            let mean = l.busy.iter().sum::<f64>() / l.busy.len().max(1) as f64;
            let max = l.busy.iter().copied().fold(0.0, f64::max);
            view! {
                <tr>
                    <td>{name(l.group, &l.runtime, l.worker)}</td>
                    <td class="num">{format!("{}%", to_fixed(mean * 100.0, 1))}</td>
                    <td class="num">{format!("{}%", to_fixed(max * 100.0, 1))}</td>
                </tr>
            }
        })
        .collect_view();
    let label = format!(
        "Worker load over time: {} worker lane(s), the share of each of {LOAD_BINS} slices of the timeline spent in polls",
        lanes.len()
    );
    let (aria, n) = (label.clone(), lanes.len());
    view! {
        <figure class="chart chart-wide" data-testid="chart" data-kind="load" data-lanes=n.to_string()>
            <figcaption>"Worker load over time (time in polls)"</figcaption>
            <svg class="chart-load-svg" viewBox=format!("0 0 {} {height}", LOAD_LABEL + W) role="img" aria-label=aria preserveAspectRatio="none">
                <title>{label}</title>
                {rows}
            </svg>
            <details class="chart-table">
                <summary>"as a table"</summary>
                <DataTable columns=&[("Worker", ""), ("Mean", "num"), ("Busiest slice", "num")]>{table}</DataTable>
            </details>
        </figure>
    }
}
