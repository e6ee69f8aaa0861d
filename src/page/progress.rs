//! The progress panel: one row per file of the current run.

use crate::page::session::{AppState, FileRow};
use crate::page::units;
use d9lens_core::fmt::grouped;
use leptos::prelude::*;

#[component]
pub fn ProgressPanel(state: AppState) -> impl IntoView {
    let has_rows = move || state.rows.with(|r| !r.is_empty());
    let headline = move || {
        let (done, total) = state
            .rows
            .with(|rows| (rows.iter().filter(|r| r.status.finished()).count(), rows.len()));
        match state.stats.get() {
            Some(s) => {
                let failed = if s.failed > 0 {
                    format!(" ({} with errors)", s.failed)
                } else {
                    String::new()
                };
                format!(
                    "Analyzed {} file{} in {} on {} worker{}{}",
                    s.files,
                    plural(s.files),
                    units::elapsed(s.elapsed_ms),
                    s.workers,
                    plural(s.workers),
                    failed,
                )
            }
            None => format!("Analyzing… {done} of {total} file{} done", plural(total)),
        }
    };
    view! {
        <Show when=has_rows>
            <section class="card progress" data-testid="progress" class:running=move || state.running.get()>
                <h2 class="panel-title">{headline}</h2>
                <div class="table-wrap">
                    <table class="data progress-table">
                        <thead>
                            <tr>
                                <th>"File"</th>
                                <th class="num">"Size"</th>
                                <th class="num">"Decoded"</th>
                                <th class="num">"Events"</th>
                                <th>"Status"</th>
                            </tr>
                        </thead>
                        <tbody>
                            <For
                                each=move || state.rows.get()
                                key=|row: &FileRow| (row.id, row.status, row.events, row.bytes, row.size)
                                children=move |row: FileRow| row_view(row)
                            />
                        </tbody>
                    </table>
                </div>
            </section>
        </Show>
    }
}

fn row_view(row: FileRow) -> impl IntoView {
    let status = row.status;
    let size = row.size.map(units::bytes).unwrap_or_default();
    let decoded = if row.bytes > 0 {
        units::bytes(row.bytes)
    } else {
        String::new()
    };
    let events = if row.events > 0 {
        grouped(row.events as i64)
    } else {
        String::new()
    };
    let title = row.error.clone().unwrap_or_default();
    let worker = match row.workers.as_slice() {
        _ if status.finished() => String::new(),
        [] => String::new(),
        [w] => format!(" (worker {w})"),
        [first, rest @ ..] => format!(" (workers {first} + {})", join(rest, " + ")),
    };
    let workers = join(&row.workers, " ");
    let file = row.name.clone();
    // The worker's own time: what the analysis cost, apart from reading and downloading.
    let took = row
        .analysis_ms
        .filter(|_| status.finished())
        .map(|ms| format!(" in {}", units::elapsed(ms)))
        .unwrap_or_default();
    let analysis_ms = row.analysis_ms.map(|ms| format!("{ms:.1}"));
    view! {
        <tr data-testid="progress-row" data-status=status.key() data-file=file data-analysis-ms=analysis_ms data-workers=workers>
            <td class="file">{row.name}</td>
            <td class="num">{size}</td>
            <td class="num">{decoded}</td>
            <td class="num">{events}</td>
            <td>
                <span class=format!("status status-{}", status.key()) title=title>
                    {status.label()}
                </span>
                <span class="muted">{worker}{took}</span>
            </td>
        </tr>
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn join(workers: &[usize], separator: &str) -> String {
    let names: Vec<String> = workers.iter().map(usize::to_string).collect();
    names.join(separator)
}
