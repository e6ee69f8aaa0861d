//! EVENTS: the application's custom events by type (a table of each field's
//! unit, metric kind and range, as `d9lens events` prints them), every
//! numeric field charted over time (a gauge as its value, a counter as its
//! rate), and the first events of each type as rows.

use super::widgets::{DataTable, Lazy, Section};
use d9lens_core::fmt::{js_number, to_fixed};
use d9lens_core::requests::events::{EventSummary, Series, series, summarize, table};
use d9lens_core::requests::kept::Details;
use leptos::prelude::*;
use std::sync::Arc;

const W: f64 = 640.0;
const H: f64 = 120.0;
/// Room left of the plot for the value labels.
const LEFT: f64 = 56.0;

pub fn view(details: Arc<Details>) -> impl IntoView + use<> {
    let events = summarize(&details);
    (!events.is_empty()).then(|| {
        let types = events.into_iter().map(|e| event_type(&details, e)).collect_view();
        view! {
            <Section title="Events" testid="section-events"
                subtitle="custom events the application recorded, with their units".to_string()>
                {types}
            </Section>
        }
    })
}

fn number(v: Option<f64>) -> String {
    v.map(js_number).unwrap_or_default()
}

fn event_type(details: &Arc<Details>, e: EventSummary) -> impl IntoView + use<> {
    let fields = e
        .fields
        .iter()
        .map(|f| {
            view! {
                <tr data-testid="event-field" data-field=f.name.clone() data-count=f.count.to_string()
                    data-min=number(f.min) data-max=number(f.max) data-p50=number(f.p50)>
                    <td class="loc">{f.name.clone()}</td>
                    <td>{f.unit.clone().unwrap_or_default()}</td>
                    <td>{f.kind.map(|k| k.label()).unwrap_or_default()}</td>
                    <td class="num">{f.count.to_string()}</td>
                    <td class="num">{number(f.min)}</td>
                    <td class="num">{number(f.p50)}</td>
                    <td class="num">{number(f.max)}</td>
                </tr>
            }
        })
        .collect_view();
    let charts = series(details, &e.name).into_iter().map(chart).collect_view();
    let for_rows = details.clone();
    let name = e.name.clone();
    view! {
        <div class="event-type" data-testid="event-type" data-name=e.name.clone() data-count=e.count.to_string()>
            <h3>{format!("{} ({} events)", e.name, e.count)}</h3>
            <DataTable columns=&[("Field", ""), ("Unit", ""), ("Kind", ""), ("Values", "num"), ("min", "num"), ("median", "num"), ("max", "num")]>
                {fields}
            </DataTable>
            <div class="charts">{charts}</div>
            <Lazy summary="The events, in order".to_string()>
                {rows(&for_rows, &name)}
            </Lazy>
        </div>
    }
}

fn rows(details: &Details, event: &str) -> impl IntoView + use<> {
    let (names, rows, total) = table(details, event);
    let head = names.iter().map(|n| view! { <th>{n.clone()}</th> }).collect_view();
    let body = rows
        .into_iter()
        .map(|r| {
            let cells = r
                .values
                .into_iter()
                .map(|v| view! { <td>{v.unwrap_or_default()}</td> })
                .collect_view();
            view! { <tr><td class="loc">{r.file}</td><td class="num">{r.ts.to_string()}</td>{cells}</tr> }
        })
        .collect_view();
    let shown = rows_shown(total);
    view! {
        <table class="data">
            <thead><tr><th>"File"</th><th>"ns"</th>{head}</tr></thead>
            <tbody>{body}</tbody>
        </table>
        {shown}
    }
}

fn rows_shown(total: u64) -> Option<impl IntoView + use<>> {
    let shown = d9lens_core::requests::events::TABLE_ROWS as u64;
    (total > shown).then(|| view! { <p class="muted">{format!("The first {shown} of {total}.")}</p> })
}

/// A field over time as a line (its points' values on a linear scale).
fn chart(s: Series) -> impl IntoView {
    let (t0, t1) = (
        s.points.first().map_or(0.0, |p| p.0),
        s.points.last().map_or(0.0, |p| p.0),
    );
    let (lo, hi) = s.points.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
        (lo.min(p.1), hi.max(p.1))
    });
    let lo = lo.min(0.0);
    let span_t = (t1 - t0).max(1e-9);
    let span_v = (hi - lo).max(1e-9);
    let x = |t: f64| LEFT + (t - t0) / span_t * (W - LEFT - 4.0);
    let y = |v: f64| 4.0 + (1.0 - (v - lo) / span_v) * (H - 8.0);
    let line = s
        .points
        .iter()
        .map(|&(t, v)| format!("{:.1},{:.1}", x(t), y(v)))
        .collect::<Vec<_>>()
        .join(" ");
    let unit = s.unit.clone().unwrap_or_default();
    let what = match s.rate {
        true => format!("{} rate ({unit}/s)", s.field),
        false => format!("{} ({unit})", s.field),
    };
    let title = format!("{}: {what}", s.event);
    let summary = format!(
        "{title}: {} points over {} s, from {} to {}",
        s.points.len(),
        to_fixed(span_t / 1e3, 1),
        js_number(lo),
        js_number(hi)
    );
    view! {
        <figure class="chart" data-testid="event-chart" data-event=s.event.clone() data-field=s.field.clone()
            data-unit=unit.clone() data-points=s.points.len().to_string()>
            <figcaption>{title}</figcaption>
            <svg viewBox=format!("0 0 {W} {H}") role="img" aria-label=summary>
                <text class="chart-label" x="2" y="12">{js_number(hi)}</text>
                <text class="chart-label" x="2" y=format!("{:.0}", H - 2.0)>{js_number(lo)}</text>
                <polyline class="chart-line" fill="none" points=line />
            </svg>
        </figure>
    }
}
