//! POLL DURATION BY SPAWN LOCATION.

use super::widgets::{DataTable, Section};
use d9lens_core::fmt::to_fixed;
use d9lens_core::report::Report;
use leptos::prelude::*;

pub fn view(r: &Report) -> impl IntoView + use<> {
    let rows = r.poll_by_spawn.clone();
    (!rows.is_empty()).then(|| {
        view! {
            <Section title="Poll duration by spawn location" testid="section-poll-by-spawn">
                <DataTable columns=&[("Spawn location", ""), ("Polls", "num"), ("p50", "num"), ("p99", "num"), ("max", "num"), ("", "")]>
                    {rows
                        .into_iter()
                        .map(|s| {
                            let max_ms = s.max_ns as f64 / 1e6;
                            let flag = if max_ms > 10.0 {
                                Some(view! { <span class="sev sev-critical">"> 10ms"</span> })
                            } else if max_ms > 1.0 {
                                Some(view! { <span class="sev sev-warning">"> 1ms"</span> })
                            } else {
                                None
                            };
                            view! {
                                <tr>
                                    <td class="loc">{s.name}</td>
                                    <td class="num">{s.count.to_string()}</td>
                                    <td class="num">{format!("{}µs", to_fixed(s.p50_ns as f64 / 1e3, 1))}</td>
                                    <td class="num">{format!("{}µs", to_fixed(s.p99_ns as f64 / 1e3, 1))}</td>
                                    <td class="num">{format!("{}ms", to_fixed(max_ms, 2))}</td>
                                    <td>{flag}</td>
                                </tr>
                            }
                        })
                        .collect_view()}
                </DataTable>
            </Section>
        }
    })
}
