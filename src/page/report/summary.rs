//! TRACE SUMMARY.

use super::widgets::{Section, stat};
use crate::page::units;
use d9lens_core::fmt::{grouped, to_fixed};
use d9lens_core::report::Report;
use leptos::prelude::*;

pub fn view(r: &Report) -> impl IntoView + use<> {
    let s = r.summary.clone();
    let ids = s.workers.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
    let workers = format!("{} (IDs: {})", s.workers.len(), ids);
    let files = r.files.clone();
    let runtimes = s.runtimes.clone();
    view! {
        <Section title="Trace summary" testid="section-summary" subtitle=r.label.clone()>
            <div class="stats">
                {stat("Duration", format!("{}ms", to_fixed(s.duration_ms, 1)), "summary-duration")}
                {stat("Workers", workers, "summary-workers")}
                {stat("Events", grouped(s.event_count as i64), "summary-events")}
                {stat("CPU samples", grouped(s.cpu_sample_count as i64), "summary-cpu-samples")}
                {stat("Tasks spawned", s.task_spawn_count.to_string(), "summary-tasks")}
                {s.wall_clock_start_ns.map(|ns| stat("Wall-clock start", units::wall_clock(ns), "summary-wall-clock"))}
            </div>
            {(!runtimes.is_empty())
                .then(|| {
                    view! {
                        <p class="kv">
                            <span class="k">"Runtimes"</span>
                            {runtimes
                                .into_iter()
                                .map(|rt| {
                                    let ids = rt.workers.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
                                    view! { <span class="chip">{format!("{}: workers {}", rt.name, ids)}</span> }
                                })
                                .collect_view()}
                        </p>
                    }
                })}
            <details class="files">
                <summary>{format!("Files ({})", files.len())}</summary>
                <ul class="file-list">
                    {files.into_iter().map(|f| view! { <li>{f}</li> }).collect_view()}
                </ul>
            </details>
        </Section>
    }
}
