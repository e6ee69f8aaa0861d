//! The head of the report: what was analyzed, the verdict, and the findings
//! to act on first, each with its fix and its moment on the timeline.

use super::widgets::show_on_timeline;
use crate::units;
use d9lens_core::fmt::{grouped, to_fixed};
use d9lens_core::report::{Report, Severity};
use leptos::prelude::*;

/// Findings shown in the head (the red flags section lists them all).
const TOP: usize = 3;

pub fn view(r: &Report) -> impl IntoView + use<> {
    let health = r.health();
    let s = &r.summary;
    let what = format!(
        "{} · {} file(s) · {} ms · {} events · {} workers{}",
        r.label,
        r.files.len(),
        to_fixed(s.duration_ms, 1),
        grouped(s.event_count as i64),
        s.workers.len(),
        s.wall_clock_start_ns
            .map(|ns| format!(" · from {}", units::wall_clock(ns)))
            .unwrap_or_default()
    );
    let top = r
        .red_flags
        .iter()
        .filter(|f| f.severity != Severity::Info)
        .take(TOP)
        .cloned()
        .map(|f| {
            let first = f.message.lines().next().unwrap_or_default().to_string();
            view! {
                <li class="top-finding">
                    <span class="top-message">{first}</span>
                    {show_on_timeline(f.moment)}
                    <span class="top-fix muted">{f.fix}</span>
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="card overview" data-testid="overview">
            <div class="overview-head">
                <span class=format!("verdict verdict-{}", health.label().replace(' ', "-")) data-testid="verdict">
                    {health.label()}
                </span>
                <span class="overview-what">{what}</span>
            </div>
            <ol class="top-findings">{top}</ol>
        </section>
    }
}
