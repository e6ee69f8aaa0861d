//! The S3 panel: connect, discover, select, retrieve. Keeps the shareable
//! state (bucket, selection, view; never credentials) in the URL and restores
//! a shared selection once the bucket is listed.

use super::connect_form::ConnectForm;
use super::errors_view::Problem;
use super::{DEFAULT_LAMBDA_JOBS, S3State};
use crate::net::cache;
use crate::page::chunks::{self, Listed};
use crate::page::discovery::selection::SelectionState;
use crate::page::retrieval;
use crate::page::session::AppState;
use crate::page::units;
use crate::page::url_state;
use d9lens_core::bucket::catalog::Selection;
use d9lens_core::bucket::spec::SelectionSpec;
use d9lens_core::fleet::FunctionUrl;
use d9lens_core::fleet::batch::results_prefix;
use leptos::prelude::*;

#[component]
pub fn S3Panel(app: AppState) -> impl IntoView {
    let s3 = S3State::new();
    let sel = SelectionState::new();
    // The first key of the run this panel started: the breakdown shows only for it.
    let run_key = RwSignal::new(None::<String>);
    // The selection last analyzed: the URL says `view=report` while it is still the current one.
    let analyzed = StoredValue::new(None::<SelectionSpec>);

    let analyze = move |spec: SelectionSpec, selection: Selection| {
        let Some(client) = s3.client() else { return };
        let mut url = s3.url_state();
        analyzed.set_value(Some(spec.clone()));
        url.selection = Some(spec);
        url.view = Some("report".into());
        url_state::write(&url);
        // The run's first row: its files are in the merge's order (by key).
        run_key.set(selection.keys().min().map(str::to_owned));
        let lambda_url = s3.form.lambda_url.get_untracked();
        if lambda_url.trim().is_empty() {
            retrieval::start(app, &selection, client);
            return;
        }
        let region = client.region();
        let results = s3.form.lambda_results.get_untracked();
        let results = match results.trim() {
            "" => Ok(None),
            prefix => results_prefix(prefix).map(|p| Some(p.as_str().to_owned())),
        };
        match (FunctionUrl::parse(&lambda_url, &region), results) {
            (Ok(url), Ok(results)) => {
                let at_once = s3.form.lambda_jobs.get_untracked().trim().parse().unwrap_or(DEFAULT_LAMBDA_JOBS);
                retrieval::start_on_lambda(app, &selection, client, url, results, at_once.clamp(1, 500));
            }
            (Err(e), _) => s3.problem.set(Some(Problem::input(
                format!("The Lambda function URL is not usable: {e}."),
                "Give the function URL as AWS shows it (https://ID.lambda-url.REGION.on.aws/), or clear the field to analyze in this tab.",
            ))),
            (_, Err(e)) => s3.problem.set(Some(Problem::input(
                format!("The results prefix is not usable: {e}."),
                "Give a key prefix in this bucket such as d9lens-results/, or clear the field.",
            ))),
        }
    };
    let on_lambda = Signal::derive(move || !s3.form.lambda_url.get().trim().is_empty());
    // A new selection starts on the whole timeline.
    let on_analyze = Callback::new(move |(spec, selection): (SelectionSpec, Selection)| {
        url_state::write_timeline(&Default::default());
        analyze(spec, selection)
    });

    // A shared link: once the listing is complete, restore its selection (and its report).
    Effect::new(move |_| {
        if !s3.discovery.status.get().done {
            return;
        }
        let Some(url) = s3.restore.with_value(|r| r.clone()) else {
            return;
        };
        s3.restore.set_value(None);
        let Some(spec) = url.selection else { return };
        sel.apply(&spec);
        if url.view.as_deref() == Some("report") {
            let budget = sel.budget_bytes();
            wasm_bindgen_futures::spawn_local(async move {
                let selection = s3.discovery.resolve(spec.clone()).await;
                if !selection.is_empty() && selection.total_bytes() <= budget {
                    analyze(spec, selection);
                }
            });
        }
    });

    // The selection goes into the URL as it changes (without the report view).
    Effect::new(move |_| {
        let spec = sel.spec();
        if s3.connected.get_untracked().is_none() || s3.restore.with_value(|r| r.is_some()) {
            return;
        }
        let mut url = s3.url_state();
        url.view = (spec.is_some() && analyzed.with_value(|a| *a == spec)).then(|| "report".to_owned());
        url.selection = spec;
        url_state::write(&url);
    });

    // What the segment cache holds (entries, bytes), read again after each change.
    let cached = RwSignal::new(None::<(usize, u64)>);
    count_cached_after(cached, async {});
    // After each run, keep the segment cache under its cap.
    Effect::new(move |was_running: Option<bool>| {
        let running = app.running.get();
        if was_running == Some(true) && !running {
            count_cached_after(cached, cache::evict(d9lens_core::bucket::cached::CAP_BYTES));
        }
        running
    });
    let clear_cache = move |_| count_cached_after(cached, cache::clear());

    let services = Signal::derive(move || {
        s3.discovery
            .summary
            .get()
            .map(|s| s.services.iter().map(|svc| svc.name.clone()).collect())
            .unwrap_or_default()
    });
    let listed = move || s3.discovery.status.with(|s| s.walk.pages > 0 || s.running);
    let ours = move || {
        let first = app.rows.with(|rows| rows.first().map(|r| r.name.clone()));
        first.is_some() && first == run_key.get()
    };
    view! {
        <div class="s3" data-testid="s3">
            <ConnectForm s3=s3 />
            {move || cached.get().filter(|(n, _)| *n > 0).map(|(n, held)| view! {
                <p class="muted cache-line" data-testid="cache-usage" data-entries=n.to_string()>
                    {format!("{n} downloaded segment(s) kept in this browser ({}), so they are not downloaded again. ", units::bytes(held))}
                    <button type="button" class="link-button" data-testid="cache-clear" on:click=clear_cache>"Clear cached segments"</button>
                </p>
            })}
            <Show when=listed>
                {chunks::listed(Listed {
                    discovery: s3.discovery,
                    sel,
                    services,
                    on_analyze,
                    running: app.running.into(),
                    on_lambda,
                })}
            </Show>
            <Show when=ours>{chunks::retrieval(app)}</Show>
        </div>
    }
}

/// Runs `change` to the segment cache, then says what it holds in `cached`.
fn count_cached_after(cached: RwSignal<Option<(usize, u64)>>, change: impl Future<Output = ()> + 'static) {
    wasm_bindgen_futures::spawn_local(async move {
        change.await;
        cached.try_set(Some(cache::usage().await));
    });
}
