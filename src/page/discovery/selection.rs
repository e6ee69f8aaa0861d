//! Choosing what to download: a host and a time window, a fleet overview (one
//! segment per host from the same window), an even sample, or one segment.
//! The count and download size show before anything starts; a selection above
//! the budget needs an explicit confirmation.

use super::{Discovery, parse_utc, utc};
use crate::page::units;
use d9lens_core::bucket::catalog::{HostKey, Selection, TimeWindow};
use d9lens_core::bucket::sample::Coverage;
use d9lens_core::bucket::spec::SelectionSpec;
use d9lens_core::fleet::CostEstimate;
use d9lens_core::fleet::batch::DEFAULT_BATCH_MB;
use leptos::prelude::*;

pub const DEFAULT_BUDGET_MB: u64 = 500;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Host,
    Fleet,
    Sample,
    Single,
}

impl Mode {
    pub fn key(self) -> &'static str {
        match self {
            Mode::Host => "host",
            Mode::Fleet => "fleet",
            Mode::Sample => "sample",
            Mode::Single => "one",
        }
    }
}

#[derive(Clone, Copy)]
pub struct SelectionState {
    pub mode: RwSignal<Mode>,
    pub host: RwSignal<Option<HostKey>>,
    /// Service filter for fleet and sample ("" = all).
    pub service: RwSignal<String>,
    pub from: RwSignal<String>,
    pub to: RwSignal<String>,
    pub sample_n: RwSignal<String>,
    pub single: RwSignal<Option<String>>,
    pub budget_mb: RwSignal<String>,
    pub confirmed: RwSignal<bool>,
}

impl SelectionState {
    pub fn new() -> Self {
        SelectionState {
            mode: RwSignal::new(Mode::Host),
            host: RwSignal::new(None),
            service: RwSignal::new(String::new()),
            from: RwSignal::new(String::new()),
            to: RwSignal::new(String::new()),
            sample_n: RwSignal::new("10".into()),
            single: RwSignal::new(None),
            budget_mb: RwSignal::new(DEFAULT_BUDGET_MB.to_string()),
            confirmed: RwSignal::new(false),
        }
    }

    /// Selects a host with the window `[from, to)`.
    pub fn pick_host(&self, host: HostKey, from: u64, to: u64) {
        self.mode.set(Mode::Host);
        self.host.set(Some(host));
        self.set_window(from, to);
    }

    pub fn pick_segment(&self, key: String) {
        self.mode.set(Mode::Single);
        self.single.set(Some(key));
    }

    pub fn set_window(&self, from: u64, to: u64) {
        self.from.set(utc(from));
        self.to.set(utc(to));
        self.confirmed.set(false);
    }

    /// The window typed in; `to` is inclusive to the second as typed, so `[from, to + 1)`.
    pub fn window(&self) -> Option<TimeWindow> {
        let from = parse_utc(&self.from.get())?;
        let to = parse_utc(&self.to.get())?;
        TimeWindow::new(from, to + 1)
    }

    /// The N of "Sample N" typed in (`None` unless a whole number ≥ 1).
    pub fn sample_count(&self) -> Option<usize> {
        self.sample_n.get().trim().parse::<usize>().ok().filter(|&n| n > 0)
    }

    /// The current choice as a shareable spec (`None` while incomplete).
    pub fn spec(&self) -> Option<SelectionSpec> {
        let service = Some(self.service.get()).filter(|s| !s.is_empty());
        match self.mode.get() {
            Mode::Single => self.single.get().map(|key| SelectionSpec::Single { key }),
            mode => {
                let w = self.window()?;
                let (from, to) = (w.start_secs(), w.end_secs());
                match mode {
                    Mode::Host => self.host.get().map(|h| SelectionSpec::Host {
                        service: h.service,
                        instance: h.instance,
                        from,
                        to,
                    }),
                    Mode::Fleet => Some(SelectionSpec::Fleet { service, from, to }),
                    _ => {
                        let n = self.sample_count()?;
                        Some(SelectionSpec::Sample { service, n, from, to })
                    }
                }
            }
        }
    }

    /// Puts a spec (from a shared URL) into the controls.
    pub fn apply(&self, spec: &SelectionSpec) {
        match spec {
            SelectionSpec::Host {
                service,
                instance,
                from,
                to,
            } => self.pick_host(HostKey::new(service, instance), *from, to.saturating_sub(1)),
            SelectionSpec::Fleet { service, from, to } => {
                self.mode.set(Mode::Fleet);
                self.service.set(service.clone().unwrap_or_default());
                self.set_window(*from, to.saturating_sub(1));
            }
            SelectionSpec::Sample { service, n, from, to } => {
                self.mode.set(Mode::Sample);
                self.service.set(service.clone().unwrap_or_default());
                self.sample_n.set(n.to_string());
                self.set_window(*from, to.saturating_sub(1));
            }
            SelectionSpec::Single { key } => self.pick_segment(key.clone()),
        }
    }

    pub fn budget_bytes(&self) -> u64 {
        self.budget_mb
            .get()
            .trim()
            .parse::<u64>()
            .unwrap_or(DEFAULT_BUDGET_MB)
            .saturating_mul(1_000_000)
    }
}

impl Default for SelectionState {
    fn default() -> Self {
        Self::new()
    }
}

/// The selection controls and the "analyze" button.
#[component]
pub fn SelectionPanel(
    discovery: Discovery,
    sel: SelectionState,
    services: Signal<Vec<String>>,
    on_analyze: Callback<(SelectionSpec, Selection)>,
    running: Signal<bool>,
    /// The selection would be analyzed on AWS Lambda: say what it costs.
    on_lambda: Signal<bool>,
) -> impl IntoView {
    // Resolved by the catalog worker; an answer counts only while its spec is still the current one.
    let resolved = RwSignal::new(None::<(SelectionSpec, Selection, Option<Coverage>)>);
    Effect::new(move |_| {
        discovery.version.track();
        let Some(spec) = sel.spec() else { return };
        wasm_bindgen_futures::spawn_local(async move {
            let (selection, coverage) = discovery.resolve_covered(spec.clone()).await;
            resolved.try_set(Some((spec, selection, coverage)));
        });
    });
    let current = Memo::new(move |_| resolved.get().filter(|(spec, ..)| sel.spec().as_ref() == Some(spec)));
    let selection = Memo::new(move |_| current.get().map(|(spec, selection, _)| (spec, selection)));
    let coverage = Memo::new(move |_| current.get().and_then(|(.., coverage)| coverage));
    // "Add N more": the same sample, N more segments (those it has come from the segment cache).
    let can_add = move || coverage.with(|c| c.as_ref().is_some_and(|c| c.segments < c.of_segments));
    let count = move || selection.with(|s| s.as_ref().map_or(0, |(_, s)| s.len()));
    let bytes = move || selection.with(|s| s.as_ref().map_or(0, |(_, s)| s.total_bytes()));
    let over_budget = move || bytes() > sel.budget_bytes();
    let estimate_shown = move || on_lambda.get() && count() != 0;
    let can_start = move || count() > 0 && (!over_budget() || sel.confirmed.get()) && !running.get();
    let mode_button = move |mode: Mode, label: &'static str| {
        view! {
            <button type="button" class="tab" class:active=move || sel.mode.get() == mode data-testid=format!("mode-{}", mode.key())
                on:click=move |_| { sel.mode.set(mode); sel.confirmed.set(false); }>
                {label}
            </button>
        }
    };
    let what = move || match sel.mode.get() {
        Mode::Host => sel.host.get().map_or(
            "Click a host or boot in the summary above, or pick a window here.".to_owned(),
            |h| format!("Host {} of {}", h.instance, h.service),
        ),
        Mode::Fleet => "One segment per host, the one nearest the middle of the window.".to_owned(),
        Mode::Sample => "Segments spread over the window's hosts in turn and over each host's time; \
                         a bigger N adds to the same sample."
            .to_owned(),
        Mode::Single => sel
            .single
            .get()
            .map_or("Click a segment of a host above.".to_owned(), |k| k),
    };
    let start = move |_| {
        if let Some((spec, selection)) = selection.get_untracked() {
            on_analyze.run((spec, selection));
        }
    };
    view! {
        <section class="card selection" data-testid="selection">
            <h2 class="panel-title">"Choose segments to analyze"</h2>
            <div class="tabs">
                {mode_button(Mode::Host, "Host + window")}
                {mode_button(Mode::Fleet, "Fleet overview")}
                {mode_button(Mode::Sample, "Sample N")}
                {mode_button(Mode::Single, "One segment")}
            </div>
            <p class="muted selection-what" data-testid="selection-what">{what}</p>
            <Show when=move || sel.mode.get() != Mode::Single>
                <div class="form-row">
                    <label class="field inline">
                        <span>"From (UTC)"</span>
                        <input type="text" data-testid="sel-from" bind:value=sel.from placeholder="2026-11-30 14:00:00" />
                    </label>
                    <label class="field inline">
                        <span>"To (UTC)"</span>
                        <input type="text" data-testid="sel-to" bind:value=sel.to placeholder="2026-11-30 15:00:00" />
                    </label>
                    <Show when=move || matches!(sel.mode.get(), Mode::Fleet | Mode::Sample)>
                        <label class="field inline">
                            <span>"Service"</span>
                            <select data-testid="sel-service" on:change=move |ev| sel.service.set(event_target_value(&ev))>
                                <option value="" selected=move || sel.service.get().is_empty()>"all services"</option>
                                {move || services.get().into_iter().map(|s| {
                                    let value = s.clone();
                                    let selected = s.clone();
                                    view! { <option value=value selected=move || sel.service.get() == selected>{s}</option> }
                                }).collect_view()}
                            </select>
                        </label>
                    </Show>
                    <Show when=move || sel.mode.get() == Mode::Sample>
                        <label class="field inline">
                            <span>"N"</span>
                            <input type="number" min="1" data-testid="sel-sample-n" bind:value=sel.sample_n />
                        </label>
                    </Show>
                </div>
            </Show>
            <div class="form-row selection-total">
                <span data-testid="selection-summary" data-count=move || count().to_string() data-bytes=move || bytes().to_string()
                    data-resolved=move || selection.with(Option::is_some).to_string()>
                    <strong>{move || count().to_string()}</strong>
                    {move || if count() == 1 { " segment · " } else { " segments · " }}
                    <strong>{move || units::bytes(bytes())}</strong>
                    " to download"
                </span>
                <label class="field inline">
                    <span>"Budget (MB)"</span>
                    <input type="number" min="1" data-testid="sel-budget" bind:value=sel.budget_mb />
                </label>
            </div>
            <Show when=move || sel.mode.get() == Mode::Sample && coverage.with(Option::is_some)>
                <p class="muted" data-testid="sel-coverage">
                    {move || coverage.with(|c| c.as_ref().map(|c| format!("The sample covers {}.", c.text())))}
                    " "
                    <Show when=can_add>
                        <button type="button" class="button" data-testid="sel-sample-more"
                            on:click=move |_| if let Some(n) = sel.sample_count() { sel.sample_n.set((2 * n).to_string()) }>
                            {move || format!("Add {} more", sel.sample_count().unwrap_or(0))}
                        </button>
                    </Show>
                </p>
            </Show>
            <Show when=estimate_shown>
                <p class="muted" data-testid="lambda-estimate">
                    {move || selection.with(|s| s.as_ref().map(|(_, s)| {
                        format!("On AWS Lambda: {} (estimated; docs/lambda.md).", CostEstimate::of(s.objects(), DEFAULT_BATCH_MB << 20, None))
                    }))}
                </p>
            </Show>
            <Show when=over_budget>
                <div class="warning" data-testid="budget-warning">
                    {move || format!("This selection is {} — more than the {} MB budget. ", units::bytes(bytes()), sel.budget_mb.get())}
                    <label class="check">
                        <input type="checkbox" bind:checked=sel.confirmed data-testid="budget-confirm" />
                        " Download it anyway"
                    </label>
                </div>
            </Show>
            <div class="form-actions">
                <button type="button" class="button primary" data-testid="s3-analyze" prop:disabled=move || !can_start() on:click=start>
                    {move || format!("Analyze {} segment{}", count(), if count() == 1 { "" } else { "s" })}
                </button>
            </div>
        </section>
    }
}
