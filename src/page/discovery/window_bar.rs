//! The bucket's shape and the window listed: on a bucket with data on more
//! than a couple of days only the shape is listed at first (days, services,
//! the newest minute), and the person picks what to list: the last minutes
//! or hours up to the newest data, a day, a from–to range, or everything. Widening lists only
//! what was not listed yet (the core's walk decides).

use super::{Discovery, parse_utc, utc};
use d9lens_core::bucket::layout::KeyDate;
use d9lens_core::bucket::scope::Period;
use leptos::prelude::*;

/// The "last …" choices: seconds and label.
const LAST: [(u64, &str); 4] = [(900, "15 min"), (3600, "1 h"), (6 * 3600, "6 h"), (24 * 3600, "24 h")];

#[component]
pub fn WindowBar(discovery: Discovery) -> impl IntoView {
    // A listing of the window that failed in part: what the others found is listed.
    let failed: RwSignal<Option<String>> = RwSignal::new(None);
    let pick = move |period: Period| {
        failed.set(None);
        wasm_bindgen_futures::spawn_local(async move {
            if let Err(p) = discovery.set_period(period).await {
                failed.set(Some(format!("{} {}", p.cause, p.fix)));
            }
        });
    };
    let (from, to) = (RwSignal::new(String::new()), RwSignal::new(String::new()));
    let pick_range = move || match (parse_utc(&from.get_untracked()), parse_utc(&to.get_untracked())) {
        (Some(from), Some(to)) if from < to => pick(Period::Range {
            from: Some(from),
            to: Some(to),
        }),
        _ => failed.set(Some("Give From before To, as 2026-11-30 14:00 (UTC).".to_owned())),
    };
    move || {
        let view = discovery.view.get()?;
        // A small bucket listed whole needs no choice.
        if !view.awaits_window && view.window.is_none() {
            return None;
        }
        let days: Vec<KeyDate> = view.shape.days.keys().rev().copied().collect();
        let span = match (days.last(), days.first()) {
            (Some(first), Some(last)) => format!("Data on {} days, {first} → {last}", days.len()),
            _ => "No dated partition found".to_owned(),
        };
        let newest = view
            .shape
            .newest_secs
            .map(|s| format!("; the newest at {} UTC", utc(s)))
            .unwrap_or_default();
        let listed = match view.window {
            Some(w) => format!("Listed {} → {} UTC.", utc(w.start_secs()), utc(w.end_secs())),
            None => "Pick what to list:".to_owned(),
        };
        let running = move || discovery.status.get().running;
        let buttons = LAST
            .iter()
            .map(|&(secs, label)| {
                view! {
                    <button type="button" class="button" data-testid=format!("window-last-{secs}") disabled=running
                        on:click=move |_| pick(Period::Last { secs })>{format!("Last {label}")}</button>
                }
            })
            .collect_view();
        let options = days
            .iter()
            .map(|d| view! { <option value=d.to_string()>{d.to_string()}</option> })
            .collect_view();
        Some(view! {
            <div class="window-bar" data-testid="window-bar" data-awaits=view.awaits_window.to_string()>
                <p data-testid="window-shape">{span}{newest}"."</p>
                <p data-testid="window-listed">{listed}</p>
                {move || failed.get().map(|f| view! { <p class="error" data-testid="window-failed">{f}</p> })}
                <div class="window-choices">
                    {buttons}
                    <label class="field inline"><span>"Day"</span>
                        <select data-testid="window-day" disabled=running on:change=move |ev| {
                            if let Some(day) = KeyDate::parse(&event_target_value(&ev)) {
                                pick(Period::Day { day });
                            }
                        }>
                            <option value="" selected>"…"</option>
                            {options}
                        </select>
                    </label>
                    <label class="field inline"><span>"From (UTC)"</span>
                        <input type="text" data-testid="window-from" bind:value=from placeholder="2026-11-30 14:00" />
                    </label>
                    <label class="field inline"><span>"To (UTC)"</span>
                        <input type="text" data-testid="window-to" bind:value=to placeholder="2026-11-30 15:00" />
                    </label>
                    <button type="button" class="button" data-testid="window-range" disabled=running
                        on:click=move |_| pick_range()>"List"</button>
                    <button type="button" class="button" data-testid="window-everything" disabled=running
                        on:click=move |_| pick(Period::All)>"Everything"</button>
                </div>
            </div>
        })
    }
}
