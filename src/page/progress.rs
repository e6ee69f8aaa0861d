//! The progress panel: a row per file of the current run (past 200 files,
//! the ones `run::rows` picks, and a count of the others).

use crate::page::session::{AppState, FileRow, Status};
use crate::page::units;
use d9lens_core::fmt::{count, grouped};
use d9lens_core::run::rows::{self as run_rows, RowState};
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
    // A long run lists only some rows (`run::rows`): the others are counted.
    let listed = Memo::new(move |_| {
        state.rows.with(|rows| {
            let states: Vec<RowState> = rows.iter().map(|r| row_state(r.status)).collect();
            let listed = run_rows::listed(&states);
            let shown: Vec<FileRow> = listed.rows.iter().map(|&i| rows[i].clone()).collect();
            (shown, listed)
        })
    });
    let left_out = move || {
        let l = listed.with(|(_, l)| l.clone());
        (l.left_out() > 0).then(|| {
            let parts: Vec<String> = [(l.done_left_out, "done"), (l.waiting_left_out, "to come"), (l.failed_left_out, "failed")]
                .into_iter()
                .filter(|(n, _)| *n > 0)
                .map(|(n, what)| format!("{} {what}", grouped(n as i64)))
                .collect();
            view! {
                <tr class="muted" data-testid="progress-left-out" data-count=l.left_out().to_string()>
                    <td colspan="5">{format!("Not listed: {} ({}).", count(l.left_out(), "more file"), parts.join(", "))}</td>
                </tr>
            }
        })
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
                                each=move || listed.get().0
                                key=|row: &FileRow| (row.id, row.status, row.events, row.bytes, row.size)
                                children=move |row: FileRow| row_view(row)
                            />
                            {left_out}
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

fn row_state(status: Status) -> RowState {
    match status {
        Status::Queued => RowState::Waiting,
        Status::Fetching | Status::Reading | Status::Working(_) => RowState::InFlight,
        Status::Done => RowState::Done,
        Status::Failed => RowState::Failed,
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn join(workers: &[usize], separator: &str) -> String {
    let names: Vec<String> = workers.iter().map(usize::to_string).collect();
    names.join(separator)
}
