//! The report: one element per section, numbers printed as the reference
//! text report prints them (`d9lens_core::fmt`). Trace strings are untrusted
//! and only ever rendered as text.

mod blocking;
mod charts;
mod compare;
mod cpu_hotspots;
mod events;
mod flame_filters;
mod kernel_wait;
mod lifecycle;
mod long_polls;
mod memory;
mod overview;
mod poll_by_spawn;
mod queue;
mod red_flags;
mod requests;
mod sched_delays;
mod setup;
mod spans;
mod stack;
mod summary;
mod widgets;
mod workers;

use crate::page::session::AppState;
use crate::page::timeline::TimelinePanel;
use d9lens_core::report::Report;
use leptos::prelude::*;
use std::sync::Arc;
use std::time::Duration;

pub use widgets::{Lazy, Section};

#[component]
pub fn ReportView(report: Arc<Report>, state: AppState) -> impl IntoView {
    // The verdict, the findings to act on first and the timeline are painted
    // first, the sections a frame later (after that paint, below it), so what
    // people look at first waits for no table, stack or hotspot tree.
    let rest_shown = RwSignal::new(false);
    // (The report may be gone by then: a new run replaced it.)
    request_animation_frame(move || {
        set_timeout(
            move || {
                rest_shown.try_set(true);
            },
            Duration::ZERO,
        )
    });
    let whole = report.clone();
    // A run of several files: how much of it the report covers (a line kept
    // from the first interim report to the final one: nothing jumps).
    let in_report = report.files.len();
    let coverage = move || {
        let files = state.rows.with(Vec::len);
        match state.merged.get() {
            Some((merged, total)) => Some(view! {
                <p class="report-progress" data-testid="report-progress" data-merged=merged.to_string() role="status">
                    {format!("Partial report: {merged} of {total} files merged so far; it refines as the others arrive.")}
                    <button type="button" class="link-button" data-testid="report-stop" on:click=move |_| state.cancel()>
                        "Stop here"
                    </button>
                </p>
            }.into_any()),
            None if files > 1 => Some(view! {
                <p class="report-progress" data-testid="report-progress" data-merged=in_report.to_string()>
                    {match in_report == files {
                        true => format!("All {files} files merged."),
                        false => format!("{in_report} of {files} files merged; {} stopped or failed.", files - in_report),
                    }}
                </p>
            }.into_any()),
            None => None,
        }
    };
    view! {
        <div class="report" data-testid="report" data-partial=move || state.merged.get().map(|(m, t)| format!("{m}/{t}"))>
            {coverage}
            {overview::view(&report, state)}
            {
                let details = whole.requests.clone();
                move || state.scene.get().map(|scene| view! { <TimelinePanel state=state scene=scene details=details.clone() /> })
            }
            {move || {
                rest_shown
                    .get()
                    .then(|| {
                        // A brushed window's report, once it is in, else the whole one.
                        let window = state.window_report.get();
                        let rest = window.clone().unwrap_or_else(|| whole.clone());
                        let r = &*rest;
                        view! {
                            {window.map(|w| view! {
                                <p class="window-note" data-testid="window-sections" data-label=w.label.clone()>
                                    {format!("The sections below describe the {}: what started in it.", w.label)}
                                </p>
                            })}
                            {compare::view(&rest, state)}
                            <flame_filters::FilteredFlame profiles=rest.profiles.clone() details=rest.requests.clone() />
                            {red_flags::view(r)}
                            {requests::view(rest.requests.clone())}
                            {events::view(rest.requests.clone())}
                            {summary::view(r)}
                            {setup::view(r)}
                            {workers::view(r)}
                            {charts::view(r, state)}
                            {long_polls::view(r)}
                            {sched_delays::view(r)}
                            {poll_by_spawn::view(r)}
                            {lifecycle::view(r)}
                            {blocking::view(r)}
                            {cpu_hotspots::view(r)}
                            {queue::view(r)}
                            {kernel_wait::view(r)}
                            {spans::view(r)}
                            {memory::view(r)}
                        }
                    })
            }}
        </div>
    }
}
