//! Getting selected segments analyzed: the page presigns one GET URL per
//! segment (just before a worker takes it, so a long queue never hands out
//! expired URLs) and the worker downloads (or reads from the cache), gunzips,
//! decodes and analyzes. Credentials never leave the page's thread.

use crate::net::client::Client;
use crate::page::session::{AppState, FileRow, Input, Invoke, Status};
use crate::page::units;
use crate::page::worker_pool::Source;
use d9lens_core::analysis::in_fold_order;
use d9lens_core::bucket::catalog::Selection;
use d9lens_core::bucket::layout::{ParsedKey, parse_key};
use d9lens_core::fleet::batch::DEFAULT_BATCH_MB;
use d9lens_core::fleet::{FunctionUrl, plan_batches};
use d9lens_core::fmt::grouped;
use leptos::prelude::*;
use std::rc::Rc;

/// Starts a run over `selection`, each segment signed by `client` when a
/// worker takes it.
pub fn start(app: AppState, selection: &Selection, client: Client) {
    let inputs = selection
        .segments
        .iter()
        .map(|s| {
            let key = s.segment.key.clone();
            let sign = client.clone();
            let url_key = key.clone();
            Input {
                name: key,
                size: Some(s.segment.size),
                source: Source::Url {
                    presign: Rc::new(move || sign.presign_get(&url_key)),
                    cache: client.cached(&s.segment),
                    size: s.segment.size,
                },
            }
        })
        .collect();
    app.analyze(inputs);
}

/// Starts a run over `selection` on AWS Lambda: batches of segments, each
/// analyzed by one call to the function URL `url`, `at_once` at a time.
pub fn start_on_lambda(
    app: AppState,
    selection: &Selection,
    client: Client,
    url: FunctionUrl,
    results_prefix: Option<String>,
    at_once: usize,
) {
    let mut files: Vec<(&str, u64)> = selection.objects().collect();
    in_fold_order(&mut files, |(key, _)| key);
    let batches = plan_batches(files.iter().copied(), DEFAULT_BATCH_MB << 20);
    let files: Vec<(String, u64)> = files.into_iter().map(|(key, size)| (key.to_owned(), size)).collect();
    let url = Rc::new(url);
    let invoke: Invoke = Rc::new(move |keys| {
        let (client, url, results_prefix) = (client.clone(), url.clone(), results_prefix.clone());
        Box::pin(async move { client.analyze_on_lambda(&url, keys, results_prefix).await })
    });
    app.analyze_remote(files, batches, at_once, invoke);
}

/// Totals of the current run, for the progress line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    pub segments: usize,
    pub finished: usize,
    pub failed: usize,
    pub cached: usize,
    pub bytes: u64,
    pub events: u64,
}

pub fn totals(rows: &[FileRow]) -> Totals {
    let mut t = Totals {
        segments: rows.len(),
        ..Totals::default()
    };
    for row in rows {
        t.finished += row.status.finished() as usize;
        t.failed += (row.status == Status::Failed) as usize;
        t.cached += row.cached as usize;
        t.bytes += if row.status.finished() || row.cached {
            row.size.unwrap_or(0)
        } else {
            0
        };
        t.events += row.events;
    }
    t
}

/// Progress, cancel and retry for an S3 run, then the per-host breakdown.
#[component]
pub fn RetrievalPanel(app: AppState) -> impl IntoView {
    let t = Memo::new(move |_| app.rows.with(|rows| totals(rows)));
    let total_bytes = Memo::new(move |_| app.rows.with(|rows| rows.iter().filter_map(|r| r.size).sum::<u64>()));
    let line = move || {
        let t = t.get();
        format!(
            "{} of {} segments done · {} of {} downloaded{} · {} events{}",
            t.finished,
            t.segments,
            units::bytes(t.bytes),
            units::bytes(total_bytes.get()),
            if t.cached > 0 {
                format!(" ({} from the cache)", t.cached)
            } else {
                String::new()
            },
            grouped(t.events as i64),
            if t.failed > 0 {
                format!(" · {} failed", t.failed)
            } else {
                String::new()
            },
        )
    };
    view! {
        <Show when=move || { t.get().segments > 0 }>
            <section class="card retrieval" data-testid="retrieval">
                <h2 class="panel-title">"Segments from S3"</h2>
                <p data-testid="retrieval-progress" data-cached=move || t.get().cached.to_string() data-failed=move || t.get().failed.to_string()>
                    {line}
                </p>
                <div class="form-actions">
                    <Show when=move || app.running.get()>
                        <button type="button" class="button" data-testid="s3-cancel" on:click=move |_| app.cancel()>"Cancel"</button>
                    </Show>
                    <Show when=move || !app.running.get() && app.retryable_count() != 0>
                        <button type="button" class="button" data-testid="s3-retry" on:click=move |_| app.retry_failed()>
                            {move || format!("Retry {} failed download{}", app.retryable_count(), if app.retryable_count() == 1 { "" } else { "s" })}
                        </button>
                    </Show>
                </div>
                <HostBreakdown app=app />
            </section>
        </Show>
    }
}

/// The hosts of a run's rows ("service / instance" of each key, else
/// "other"), in name order.
#[derive(Default)]
struct Hosts {
    names: Vec<String>,
    /// Per row, its host's index in `hosts`.
    host: Vec<usize>,
    hosts: Vec<String>,
}

impl Hosts {
    fn new(rows: &[FileRow]) -> Hosts {
        let of = |key: &str| match parse_key(key, "") {
            ParsedKey::Segment(k) => format!("{} / {}", k.service, k.instance),
            ParsedKey::Other { .. } => "other".into(),
        };
        let labels: Vec<String> = rows.iter().map(|r| of(&r.name)).collect();
        let mut hosts = labels.clone();
        hosts.sort();
        hosts.dedup();
        Hosts {
            names: rows.iter().map(|r| r.name.clone()).collect(),
            host: labels
                .iter()
                .map(|l| hosts.binary_search(l).expect("listed above"))
                .collect(),
            hosts,
        }
    }

    /// Whether these are `rows`' hosts (the same names in the same order).
    fn of(&self, rows: &[FileRow]) -> bool {
        self.names.len() == rows.len() && self.names.iter().zip(rows).all(|(name, r)| *name == r.name)
    }
}

#[derive(Default, Clone)]
struct HostRow {
    segments: usize,
    done: usize,
    failed: usize,
    bytes: u64,
    events: u64,
}

/// Per host (service / instance) from the segment keys.
#[component]
fn HostBreakdown(app: AppState) -> impl IntoView {
    // Each row's host, parsed once per run (its rows keep their names and
    // order): the table is redrawn with every progress update, and parsing
    // every key each time grew with the square of a run's files.
    let parsed = StoredValue::new(Hosts::default());
    let rows = move || {
        app.rows.with(|rows| {
            if !parsed.with_value(|p| p.of(rows)) {
                parsed.set_value(Hosts::new(rows));
            }
            parsed.with_value(|parsed| {
                let mut totals = vec![HostRow::default(); parsed.hosts.len()];
                for (row, &host) in rows.iter().zip(&parsed.host) {
                    let h = &mut totals[host];
                    h.segments += 1;
                    h.done += (row.status == Status::Done) as usize;
                    h.failed += (row.status == Status::Failed) as usize;
                    h.bytes += row.size.unwrap_or(0);
                    h.events += row.events;
                }
                parsed.hosts.iter().cloned().zip(totals).collect::<Vec<_>>()
            })
        })
    };
    view! {
        <div class="table-wrap">
            <table class="data breakdown" data-testid="host-breakdown">
                <thead>
                    <tr>
                        <th>"Service / host"</th>
                        <th class="num">"Segments"</th>
                        <th class="num">"Done"</th>
                        <th class="num">"Errors"</th>
                        <th class="num">"Size"</th>
                        <th class="num">"Events"</th>
                    </tr>
                </thead>
                <tbody>
                    {move || rows().into_iter().map(|(host, h)| view! {
                        <tr data-testid="breakdown-row" data-host=host.clone()>
                            <td>{host.clone()}</td>
                            <td class="num">{h.segments}</td>
                            <td class="num">{h.done}</td>
                            <td class="num">{h.failed}</td>
                            <td class="num">{units::bytes(h.bytes)}</td>
                            <td class="num">{grouped(h.events as i64)}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}
