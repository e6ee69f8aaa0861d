//! The report's flamegraphs with their filters: a spawn location, a span
//! name (samples taken inside its instances), a poll-duration band, a
//! thread, a runtime, a host. Unfiltered it shows the report's own
//! profiles; filtered, what `requests::filter` keeps of the run's details.

use crate::page::flame::{FlamePanel, KINDS};
use d9lens_core::report::{Profiles, SampleKind};
use d9lens_core::requests::filter::{PollBand, SampleFilter, choices, filtered};
use d9lens_core::requests::kept::Details;
use leptos::prelude::*;
use std::sync::Arc;

#[component]
pub fn FilteredFlame(profiles: Arc<Profiles>, details: Arc<Details>) -> impl IntoView {
    if details.files.is_empty() {
        return view! { <FlamePanel profiles=profiles /> }.into_any();
    }
    let c = choices(&details);
    let filter = RwSignal::new(SampleFilter::default());
    let kind = RwSignal::new(SampleKind::OnCpu);
    let shown = Memo::new(move |_| {
        let f = filter.get();
        match f.is_empty() {
            true => Shown(profiles.clone()),
            false => Shown(Arc::new(filtered(&details, &f))),
        }
    });
    let any = |v: String| (!v.is_empty()).then_some(v);
    let bar = move || {
        view! {
            <div class="tl-toolbar flame-filters" role="group" aria-label="Filters" data-testid="flame-filters"
                data-span=filter.with_untracked(|f| f.span.clone().unwrap_or_default())
                data-band=filter.with_untracked(|f| f.poll_band.map_or("", |b| b.label()))>
                {select("flame-filter-loc", "any spawn location", c.spawn_locs.clone(),
                    move || filter.with(|f| f.spawn_loc.clone().unwrap_or_default()),
                    move |v| filter.update(|f| f.spawn_loc = any(v)))}
                {select("flame-filter-span", "inside any span or none", c.spans.clone(),
                    move || filter.with(|f| f.span.clone().unwrap_or_default()),
                    move |v| filter.update(|f| f.span = any(v)))}
                {select("flame-filter-band", "polls of any duration",
                    PollBand::ALL.iter().map(|b| b.label().to_string()).collect(),
                    move || filter.with(|f| f.poll_band.map(|b| b.label().to_string()).unwrap_or_default()),
                    move |v| filter.update(|f| f.poll_band = PollBand::parse(&v)))}
                {select("flame-filter-thread", "any thread", c.threads.iter().map(|t| t.to_string()).collect(),
                    move || filter.with(|f| f.thread.map(|t| t.to_string()).unwrap_or_default()),
                    move |v| filter.update(|f| f.thread = v.parse().ok()))}
                {(!c.runtimes.is_empty()).then(|| select("flame-filter-runtime", "any runtime", c.runtimes.clone(),
                    move || filter.with(|f| f.runtime.clone().unwrap_or_default()),
                    move |v| filter.update(|f| f.runtime = any(v))))}
                {(c.hosts.len() > 1).then(|| select("flame-filter-host", "any host", c.hosts.clone(),
                    move || filter.with(|f| f.host.clone().unwrap_or_default()),
                    move |v| filter.update(|f| f.host = any(v))))}
            </div>
        }
    };
    (move || {
        let bar = bar.clone();
        let p = shown.get().0;
        let empty = KINDS.iter().all(|&k| p.total(k) == 0);
        match empty {
            false => view! { <FlamePanel profiles=p keep_kind=kind>{bar()}</FlamePanel> }.into_any(),
            true => view! {
                <section class="card flame" data-testid="section-flamegraph">
                    <header class="section-head"><h2>"Flamegraphs"</h2></header>
                    {bar()}
                    <p class="muted" data-testid="flame-filter-empty">"No sample matches these filters."</p>
                </section>
            }
            .into_any(),
        }
    })
    .into_any()
}

/// Profiles compared by identity: a memo that changes with each filter.
#[derive(Clone)]
struct Shown(Arc<Profiles>);

impl PartialEq for Shown {
    fn eq(&self, other: &Shown) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A `<select>` of `choices` after an "any" option (the empty value).
fn select(
    testid: &'static str,
    any: &'static str,
    choices: Vec<String>,
    value: impl Fn() -> String + Send + Sync + Copy + 'static,
    set: impl Fn(String) + Send + Sync + 'static,
) -> impl IntoView {
    // Trace strings (spawn locations, span names): option text only.
    let options = choices
        .into_iter()
        .map(|c| {
            let selected = {
                let c = c.clone();
                move || value() == c
            };
            view! { <option value=c.clone() selected=selected>{c.clone()}</option> }
        })
        .collect_view();
    view! {
        <select data-testid=testid aria-label=any prop:value=value on:change=move |ev| set(event_target_value(&ev))>
            <option value="">{any}</option>
            {options}
        </select>
    }
}
