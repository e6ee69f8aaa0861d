//! TASK LIFECYCLE.

use super::widgets::{DataTable, Section, stat};
use d9lens_core::report::Report;
use leptos::prelude::*;

pub fn view(r: &Report) -> impl IntoView + use<> {
    let l = r.lifecycle.clone();
    (!l.spawns_by_location.is_empty() || l.peak_active.is_some()).then(|| {
        let spawns = l.spawns_by_location.clone();
        let leaked = l.alive_by_location.clone();
        view! {
            <Section title="Task lifecycle" testid="section-lifecycle">
                {l.peak_active
                    .map(|peak| {
                        view! {
                            <div class="stats">
                                {stat("Peak active tasks", peak.to_string(), "lifecycle-peak")}
                                {stat("Active at first sample", l.active_at_first_sample.map(|v| v.to_string()).unwrap_or_default(), "lifecycle-first")}
                                {stat("Active at last sample", l.active_at_last_sample.map(|v| v.to_string()).unwrap_or_default(), "lifecycle-last")}
                            </div>
                        }
                    })}
                {l.possible_leak
                    .then(|| {
                        view! {
                            <div class="warning-box">
                                <p class="strong">"⚠ POSSIBLE TASK LEAK — active count grew monotonically"</p>
                                <ul class="plain">
                                    {leaked
                                        .into_iter()
                                        .map(|c| view! { <li>{format!("{} leaked from {}", c.count, c.loc)}</li> })
                                        .collect_view()}
                                </ul>
                            </div>
                        }
                    })}
                <h3>"Spawns by location"</h3>
                {l.left_out().map(|note| view! { <p class="note" data-testid="lifecycle-left-out">{note}</p> })}
                <DataTable columns=&[("Tasks", "num"), ("Spawn location", "")]>
                    {spawns
                        .into_iter()
                        .map(|c| {
                            view! {
                                <tr>
                                    <td class="num">{c.count.to_string()}</td>
                                    <td class="loc">{c.loc}</td>
                                </tr>
                            }
                        })
                        .collect_view()}
                </DataTable>
            </Section>
        }
    })
}
