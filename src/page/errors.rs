//! Per-file errors. A file that fails does not stop the others: the report
//! covers every file that could be read (and what a broken file held before
//! the point where decoding stopped).

use crate::page::session::AppState;
use d9lens_core::fmt::grouped;
use d9lens_core::report::FileError;
use leptos::prelude::*;

#[component]
pub fn ErrorsPanel(state: AppState) -> impl IntoView {
    let all = move || {
        let mut errors = state.errors.get();
        if let Some(report) = state.report.get() {
            for e in &report.errors {
                if !errors.contains(e) {
                    errors.push(e.clone());
                }
            }
        }
        errors
    };
    view! {
        <Show when=move || !all().is_empty()>
            <section class="card errors" data-testid="errors" role="alert">
                <h2 class="panel-title">"Problems reading files"</h2>
                <ul class="error-list">
                    {move || all().into_iter().map(error_view).collect_view()}
                </ul>
            </section>
        </Show>
    }
}

fn error_view(error: FileError) -> impl IntoView {
    let offset = error.offset.map(|o| format!("at byte {}", grouped(o as i64)));
    let file = error.file.clone();
    view! {
        <li data-testid="error" data-file=file data-offset=error.offset.map(|o| o.to_string())>
            <span class="error-file">{error.file}</span>
            {offset.map(|o| view! { <span class="error-offset">{o}</span> })}
            <span class="error-message">{error.message}</span>
        </li>
    }
}
