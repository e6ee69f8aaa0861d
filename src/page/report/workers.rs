//! WORKER UTILIZATION.

use super::widgets::{DataTable, Section, bar};
use d9lens_core::fmt::to_fixed;
use d9lens_core::report::Report;
use leptos::prelude::*;

pub fn view(r: &Report) -> impl IntoView + use<> {
    let workers = r.workers.clone();
    view! {
        <Section title="Worker utilization" testid="section-workers">
            <DataTable columns=&[("Worker", ""), ("Active", "bar-col"), ("Utilization", "num"), ("Polls", "num"), ("Parks", "num"), ("Avg CPU ratio", "num")]>
                {workers
                    .into_iter()
                    .map(|w| {
                        let pct = w.utilization * 100.0;
                        let cpu = w.avg_cpu_ratio.map(|c| to_fixed(c, 3)).unwrap_or_else(|| "N/A".into());
                        view! {
                            <tr data-testid="worker-row" data-worker=w.worker.to_string()>
                                <td>{format!("Worker {}", w.worker)}</td>
                                <td class="bar-col">{bar(pct)}</td>
                                <td class="num" data-testid="worker-utilization">{format!("{}%", to_fixed(pct, 1))}</td>
                                <td class="num">{w.poll_count.to_string()}</td>
                                <td class="num">{w.park_count.to_string()}</td>
                                <td class="num">{cpu}</td>
                            </tr>
                        }
                    })
                    .collect_view()}
            </DataTable>
        </Section>
    }
}
