//! DIAL9 SETUP DIAGNOSTIC.

use super::red_flags::finding_view;
use super::widgets::{Section, stat};
use d9lens_core::report::Report;
use leptos::prelude::*;

pub fn view(r: &Report) -> impl IntoView + use<> {
    let s = r.setup.clone();
    let issues = s.issues.clone();
    view! {
        <Section title="Setup diagnostic" testid="section-setup">
            <div class="stats">
                {stat("CPU samples", format!("{} on-CPU, {} off-CPU", s.on_cpu_samples, s.off_cpu_samples), "setup-samples")}
                {stat("Tasks spawned", s.tasks_spawned.to_string(), "setup-tasks")}
                {stat("Wake events", s.wake_events.to_string(), "setup-wakes")}
                {stat("Task polls", s.task_polls.to_string(), "setup-polls")}
                {stat("Worker unparks", s.worker_unparks.to_string(), "setup-unparks")}
                {stat("Symbols", format!("{} resolved ({} with source locations)", s.symbols, s.symbols_with_location), "setup-symbols")}
            </div>
            {if issues.is_empty() {
                view! { <p class="ok">"No setup issues detected"</p> }.into_any()
            } else {
                view! { <ul class="findings">{issues.into_iter().map(finding_view).collect_view()}</ul> }.into_any()
            }}
        </Section>
    }
}
