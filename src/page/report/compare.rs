//! Two reports side by side: the one kept as A ("Keep as A") and the one
//! shown (B). Key figures ranked by how much they moved, the findings only
//! one side has, and the differential flamegraph. The core decides all of it
//! (`compare::compare`); this lays it out.

use super::widgets::DataTable;
use crate::page::flame::FlamePanel;
use crate::page::session::AppState;
use d9lens_core::compare::{Delta, compare, text};
use d9lens_core::report::{Finding, Report};
use leptos::prelude::*;
use std::sync::Arc;

/// "Keep as A", or the comparison with the report kept.
pub fn view(report: &Arc<Report>, state: AppState) -> impl IntoView + use<> {
    let report = report.clone();
    move || match state.baseline.get() {
        None => {
            let keep = report.clone();
            view! {
                <div class="compare-bar">
                    <button type="button" class="button" data-testid="set-baseline"
                        on:click=move |_| state.baseline.set(Some(keep.clone()))>
                        "Keep as A to compare"
                    </button>
                    <span class="muted">"then open another selection (files, a host, a boot) to see what changed"</span>
                </div>
            }
            .into_any()
        }
        Some(a) if Arc::ptr_eq(&a, &report) => view! {
            <div class="compare-bar" data-testid="baseline-kept">
                <span class="chip">{format!("A: {}", a.label)}</span>
                <span class="muted">"Open another selection to compare it with A."</span>
                <button type="button" class="button" on:click=move |_| state.baseline.set(None)>"Forget A"</button>
            </div>
        }
        .into_any(),
        Some(a) => view! { <ComparePanel a=a b=report.clone() state=state /> }.into_any(),
    }
}

#[component]
fn ComparePanel(a: Arc<Report>, b: Arc<Report>, state: AppState) -> impl IntoView {
    let c = compare(&a, &b);
    let figures = c.figures.into_iter().map(figure_row).collect_view();
    let findings = |title: &'static str, testid: &'static str, list: Vec<Finding>| {
        view! {
            <h3>{title}</h3>
            <ul class="plain" data-testid=testid>
                {if list.is_empty() {
                    view! { <li class="muted">"none"</li> }.into_any()
                } else {
                    list.into_iter()
                        .map(|f| {
                            let headline = f.headline().to_string();
                            view! { <li><span class="chip">{f.check}</span>" "{headline}</li> }
                        })
                        .collect_view()
                        .into_any()
                }}
            </ul>
        }
    };
    view! {
        <section class="card compare" data-testid="compare">
            <header class="section-head">
                <h2>"Comparison"</h2>
                <span class="section-sub">{format!("A: {} · B: {}", a.label, b.label)}</span>
                <button type="button" class="button" on:click=move |_| state.baseline.set(None)>"Forget A"</button>
            </header>
            <h3>"Key figures, most changed first"</h3>
            <DataTable columns=&[("Figure", ""), ("A", "num"), ("B", "num"), ("Change", "num")]>
                {figures}
            </DataTable>
            {findings("Findings only in B", "compare-only-b", c.findings_only_in_b)}
            {findings("Findings only in A (gone in B)", "compare-only-a", c.findings_only_in_a)}
        </section>
        <FlamePanel profiles=b.profiles.clone() before=a.profiles.clone() />
    }
}

fn figure_row(d: Delta) -> impl IntoView {
    view! {
        <tr data-testid="compare-figure" data-name=d.name.clone()>
            <td>{d.name.clone()}</td>
            <td class="num">{text::value(d.unit, d.a)}</td>
            <td class="num">{text::value(d.unit, d.b)}</td>
            <td class="num">{text::change(&d)}</td>
        </tr>
    }
}
