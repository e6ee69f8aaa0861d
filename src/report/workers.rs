//! WORKER UTILIZATION.

use super::widgets::{Section, bar};
use d9lens_core::fmt::to_fixed;
use d9lens_core::report::Report;
use leptos::prelude::*;

pub fn view(r: &Report) -> impl IntoView + use<> {
    let workers = r.workers.clone();
    view! {
        <Section title="Worker utilization" testid="section-workers">
            <div class="table-wrap">
                <table class="data">
                    <thead>
                        <tr>
                            <th>"Worker"</th>
                            <th class="bar-col">"Active"</th>
                            <th class="num">"Utilization"</th>
                            <th class="num">"Polls"</th>
                            <th class="num">"Parks"</th>
                            <th class="num">"Avg CPU ratio"</th>
                        </tr>
                    </thead>
                    <tbody>
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
                    </tbody>
                </table>
            </div>
        </Section>
    }
}
