//! Building blocks shared by the report sections.

use crate::page::timeline::Focus;
use d9lens_core::report::Moment;
use leptos::prelude::*;

/// A report section card, folded away by a click on its title.
#[component]
pub fn Section(
    title: &'static str,
    testid: &'static str,
    #[prop(optional)] subtitle: Option<String>,
    children: Children,
) -> impl IntoView {
    view! {
        <section class="card section" data-testid=testid>
            <details class="section-fold" open>
                <summary class="section-head">
                    <h2>{title}</h2>
                    {subtitle.map(|s| view! { <span class="section-sub">{s}</span> })}
                </summary>
                {children()}
            </details>
        </section>
    }
}

/// A column of a [`DataTable`]: its heading and the class of its cells
/// (`""`, `"num"` for right-aligned numbers, `"bar-col"` for bars).
pub type Column = (&'static str, &'static str);

/// The report's tables: a scrolling wrapper, one heading row, `children` the rows.
#[component]
pub fn DataTable(
    columns: &'static [Column],
    /// Extra classes of the `<table>`.
    #[prop(optional)]
    class: &'static str,
    children: Children,
) -> impl IntoView {
    let heads = columns
        .iter()
        .map(|&(label, class)| view! { <th class=class>{label}</th> })
        .collect_view();
    view! {
        <div class="table-wrap">
            <table class=format!("data {class}")>
                <thead>
                    <tr>{heads}</tr>
                </thead>
                <tbody>{children()}</tbody>
            </table>
        </div>
    }
}

/// A `<details>` whose content is only built the first time it is opened
/// (stacks can be hundreds of frames).
#[component]
pub fn Lazy(summary: String, #[prop(optional)] class: &'static str, children: ChildrenFn) -> impl IntoView {
    let opened = RwSignal::new(false);
    view! {
        <details class=format!("lazy {class}") on:toggle=move |_| opened.set(true)>
            <summary>{summary}</summary>
            {move || opened.get().then(|| children())}
        </details>
    }
}

/// A horizontal bar for a percentage (0–100).
pub fn bar(pct: f64) -> impl IntoView {
    let width = format!("{:.2}%", pct.clamp(0.0, 100.0));
    view! {
        <span class="bar" aria-hidden="true">
            <span class="bar-fill" style:width=width></span>
        </span>
    }
}

/// A labelled number in the summary grids.
pub fn stat(label: &'static str, value: String, testid: &'static str) -> impl IntoView {
    view! {
        <div class="stat">
            <div class="stat-label">{label}</div>
            <div class="stat-value" data-testid=testid>{value}</div>
        </div>
    }
}

/// "Show on timeline" for a moment, when the page has a timeline to show it on.
pub fn show_on_timeline(moment: Option<Moment>) -> impl IntoView {
    let focus = use_context::<Focus>();
    moment.zip(focus).map(|(m, Focus(target))| {
        view! {
            <button type="button" class="link-button" data-testid="show-on-timeline" on:click=move |_| target.set(Some(m.clone()))>
                "show on timeline"
            </button>
        }
    })
}

pub fn opt_loc(loc: &Option<String>) -> String {
    loc.clone().unwrap_or_else(|| "(unknown)".into())
}
