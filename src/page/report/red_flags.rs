//! Red flags: the findings worth looking at first.

use super::widgets::{Section, show_on_timeline};
use d9lens_core::report::{Finding, Report, Severity};
use leptos::prelude::*;

pub fn view(r: &Report) -> impl IntoView + use<> {
    let flags = r.red_flags.clone();
    (!flags.is_empty()).then(|| {
        view! {
            <Section title="Red flags" testid="section-red-flags">
                <ul class="findings">{flags.into_iter().map(finding_view).collect_view()}</ul>
            </Section>
        }
    })
}

pub fn finding_view(f: Finding) -> impl IntoView {
    let class = match f.severity {
        Severity::Critical => "critical",
        Severity::Warning => "warning",
        Severity::Info => "info",
    };
    view! {
        <li class=format!("finding {class}")>
            <div class="finding-head">
                <span class=format!("sev sev-{class}")>{class}</span>
                <code class="finding-check">{f.check}</code>
                <span class="finding-message">{f.message}</span>
                {show_on_timeline(f.moment)}
            </div>
            {(!f.fix.is_empty()).then(|| view! { <p class="finding-fix">{f.fix}</p> })}
        </li>
    }
}
