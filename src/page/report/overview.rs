//! The head of the report: what was analyzed, the verdict, and the findings
//! to act on first, each with its fix and its moment on the timeline.

use super::widgets::show_on_timeline;
use crate::page::download::{chrome_trace, save};
use crate::page::session::AppState;
use crate::page::units;
use d9lens_core::export::{html, markdown};
use d9lens_core::fmt::{grouped, to_fixed};
use d9lens_core::report::{Report, Severity};
use leptos::prelude::*;
use std::sync::Arc;

/// Findings shown in the head (the red flags section lists them all).
const TOP: usize = 3;

pub fn view(report: &Arc<Report>, state: AppState) -> impl IntoView + use<> {
    let r = &**report;
    let health = r.health();
    let s = &r.summary;
    let what = format!(
        "{}{} · {} ms · {} events · {} workers{}",
        r.label,
        r.files_unless_labelled().map(|f| format!(" · {f}")).unwrap_or_default(),
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
            let first = f.headline().to_string();
            view! {
                <li class="top-finding">
                    <span class="top-message">{first}</span>
                    {show_on_timeline(f.moment)}
                    <span class="top-fix muted">{f.fix}</span>
                </li>
            }
        })
        .collect_view();
    // Made when asked: the texts are small, the report is at hand.
    let (for_markdown, for_html) = (report.clone(), report.clone());
    view! {
        <section class="card overview" data-testid="overview">
            <div class="overview-head">
                <span class=format!("verdict verdict-{}", health.label().replace(' ', "-")) data-testid="verdict">
                    {health.label()}
                </span>
                <span class="overview-what">{what}</span>
            </div>
            <ol class="top-findings">{top}</ol>
            <div class="exports">
                <span class="muted">"Export: "</span>
                <button type="button" class="link-button" data-testid="export-markdown"
                    on:click=move |_| save("d9lens-report.md", markdown::render(&for_markdown).as_bytes(), "text/markdown")>"Markdown (for a ticket)"</button>
                " · "
                <button type="button" class="link-button" data-testid="export-html"
                    on:click=move |_| save("d9lens-report.html", html::render(&for_html).as_bytes(), "text/html")>"HTML (one file, opens anywhere)"</button>
                " · "
                <button type="button" class="link-button" data-testid="export-chrome"
                    on:click=move |_| chrome_trace(state)>"Chrome trace (Perfetto UI)"</button>
            </div>
        </section>
    }
}
