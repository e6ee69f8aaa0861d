//! QUEUE DEPTH.

use super::widgets::{Section, stat};
use d9lens_core::fmt::to_fixed;
use d9lens_core::report::Report;
use leptos::prelude::*;

pub fn view(r: &Report) -> impl IntoView + use<> {
    let q = r.queue.clone();
    (q.samples > 0 || q.max_local_queue > 0 || q.global_max.is_some()).then(|| {
        let high = q.global_max.is_some_and(|m| m > 100);
        view! {
            <Section title="Queue depth" testid="section-queue">
                <div class="stats">
                    {match (q.global_max, q.global_avg) {
                        (Some(max), Some(avg)) => {
                            view! {
                                {stat("Global queue max", max.to_string(), "queue-global-max")}
                                {stat("Global queue avg", to_fixed(avg, 1), "queue-global-avg")}
                                {stat("Samples", q.samples.to_string(), "queue-samples")}
                            }
                                .into_any()
                        }
                        _ => stat("Global queue", "No queue samples".to_string(), "queue-global-max").into_any(),
                    }}
                    {stat("Max local queue", q.max_local_queue.to_string(), "queue-local-max")}
                </div>
                {high.then(|| view! { <p class="warning-box">"⚠ High queue depth — runtime may be overloaded"</p> })}
            </Section>
        }
    })
}
