//! SPAN DURATIONS.

use super::widgets::{DataTable, Section, show_on_timeline};
use d9lens_core::fmt::to_fixed;
use d9lens_core::report::Report;
use leptos::prelude::*;

pub fn view(r: &Report) -> impl IntoView + use<> {
    let rows = r.spans.clone();
    (!rows.is_empty()).then(|| {
        let us = |ns: u64| format!("{}µs", to_fixed(ns as f64 / 1e3, 1));
        view! {
            <Section title="Span durations" testid="section-spans">
                <DataTable columns=&[("Span", ""), ("Count", "num"), ("p50", "num"), ("p99", "num"), ("max", "num"), ("", "")]>
                    {rows
                        .into_iter()
                        .map(|s| {
                            view! {
                                <tr>
                                    <td class="loc">{s.name}</td>
                                    <td class="num">{s.count.to_string()}</td>
                                    <td class="num">{us(s.p50_ns)}</td>
                                    <td class="num">{us(s.p99_ns)}</td>
                                    <td class="num">{us(s.max_ns)}</td>
                                    <td>{show_on_timeline(s.slowest)}</td>
                                </tr>
                            }
                        })
                        .collect_view()}
                </DataTable>
            </Section>
        }
    })
}
