//! A search over the listed bucket's hosts, boots and keys (the catalog
//! worker finds them): each finding selects what it names in one click.

use super::Discovery;
use super::selection::SelectionState;
use d9lens_core::bucket::find::{Findings, FoundKind};
use leptos::prelude::*;

#[component]
pub fn FindBox(discovery: Discovery, sel: SelectionState) -> impl IntoView {
    let text = RwSignal::new(String::new());
    let findings: RwSignal<Findings> = RwSignal::new(Findings::default());
    // Answers come back in order; only the one for the text as it stands is shown.
    let on_input = move |ev| {
        let asked = event_target_value(&ev);
        text.set(asked.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let found = discovery.find(asked.clone()).await;
            if text.get_untracked() == asked {
                findings.set(found);
            }
        });
    };
    let rows = move || {
        findings
            .get()
            .found
            .into_iter()
            .map(|f| {
                let kind = match f.what {
                    FoundKind::Host => "host",
                    FoundKind::Boot => "boot",
                    FoundKind::Key => "key",
                };
                let spec = f.spec.clone();
                let count = if f.segments == 1 {
                    "1 segment".to_owned()
                } else {
                    format!("{} segments", f.segments)
                };
                view! {
                    <li data-testid="found" data-kind=kind>
                        <button type="button" class="link-button" data-testid="found-pick"
                            on:click=move |_| sel.apply(&spec)>{f.label}</button>
                        <span class="muted">{format!(" {kind} · {count}")}</span>
                    </li>
                }
            })
            .collect_view()
    };
    let more = move || {
        let n = findings.with(|f| f.more);
        (n > 0).then(
            || view! { <p class="muted" data-testid="found-more">{format!("and {n} more: type more of the name")}</p> },
        )
    };
    view! {
        <div class="find-box">
            <label class="field inline"><span>"Find a host, boot or key"</span>
                <input type="search" data-testid="disc-find" placeholder="ip-10-0-3, a boot id, 1796047573-98"
                    on:input=on_input />
            </label>
            <ul class="found">{rows}</ul>
            {more}
        </div>
    }
}
