//! KERNEL SCHEDULING WAIT: time a worker thread was runnable but not running.

use super::widgets::{DataTable, Section};
use d9lens_core::fmt::to_fixed;
use d9lens_core::report::Report;
use leptos::prelude::*;

pub fn view(r: &Report) -> impl IntoView + use<> {
    let rows = r.kernel_wait.clone();
    (!rows.is_empty()).then(|| {
        view! {
            <Section title="Kernel scheduling wait" testid="section-kernel-wait">
                <DataTable columns=&[("Worker", ""), ("max", "num"), ("p50", "num"), ("Events > 1ms", "num")]>
                    {rows
                        .into_iter()
                        .map(|w| {
                            view! {
                                <tr>
                                    <td>{format!("Worker {}", w.worker)}</td>
                                    <td class="num">{format!("{}ms", to_fixed(w.max_ns as f64 / 1e6, 1))}</td>
                                    <td class="num">{format!("{}ms", to_fixed(w.p50_ns as f64 / 1e6, 2))}</td>
                                    <td class="num">{w.count_over_1ms.to_string()}</td>
                                </tr>
                            }
                        })
                        .collect_view()}
                </DataTable>
            </Section>
        }
    })
}
