//! DISTRIBUTIONS: log-scale histograms of poll durations, scheduling delays
//! and the most frequent spans, as small SVG charts (each bar says its range
//! and count on hover), each with the same numbers as a table.

use super::widgets::{DataTable, Section};
use d9lens_core::fmt::fmt_dur;
use d9lens_core::report::{BINS_PER_DECADE, LogBin, Report};
use leptos::prelude::*;

const W: f64 = 640.0;
const H: f64 = 150.0;
/// Room under the bars for the axis labels.
const AXIS: f64 = 18.0;

pub fn view(r: &Report) -> impl IntoView + use<> {
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
        </Section>
    })
}

fn chart(title: String, kind: &'static str, bins: Vec<LogBin>) -> impl IntoView {
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
