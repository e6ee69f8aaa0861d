//! SCHEDULING DELAYS (wake → poll latency).

use super::widgets::{DataTable, Section, opt_loc, show_on_timeline, stat};
use d9lens_core::fmt::fmt_dur;
use d9lens_core::report::Report;
use leptos::prelude::*;

pub fn view(r: &Report) -> impl IntoView + use<> {
    let s = r.sched_delays.clone();
    (s.count > 0 || s.has_histogram).then(|| {
        let worst = s.worst.clone();
        view! {
            <Section title="Scheduling delays" testid="section-sched-delays" subtitle="wake → poll latency".to_string()>
                <div class="stats">
                    {stat("Delays > 1ms", s.count_over_1ms.to_string(), "sched-over-1ms")}
                    {s.has_histogram
                        .then(|| {
                            view! {
                                {stat("p50", fmt_dur(s.p50_ns as f64), "sched-p50")}
                                {stat("p99", fmt_dur(s.p99_ns as f64), "sched-p99")}
                                {stat("max", fmt_dur(s.max_ns as f64), "sched-max")}
                            }
                        })}
                    {stat("Wakes measured", s.count.to_string(), "sched-count")}
                </div>
                {if s.count_over_1ms == 0 {
                    view! { <p class="ok">"No delays > 1ms"</p> }.into_any()
                } else {
                    view! {
                        <h3>"Top 5 worst"</h3>
                        <DataTable columns=&[("Delay", "num"), ("Task", "num"), ("Spawn location", ""), ("Worker", "num"), ("Woken at", "num"), ("", "")]>
                            {worst
                                .into_iter()
                                .take(5)
                                .map(|d| {
                                    view! {
                                        <tr>
                                            <td class="num strong">{fmt_dur(d.delay_ns as f64)}</td>
                                            <td class="num">{d.task_id.to_string()}</td>
                                            <td class="loc">{opt_loc(&d.spawn_loc)}</td>
                                            <td class="num">{d.worker.to_string()}</td>
                                            <td class="num">{fmt_dur(d.wake_offset_ns as f64)}</td>
                                            <td>{show_on_timeline(Some(d.moment))}</td>
                                        </tr>
                                    }
                                })
                                .collect_view()}
                        </DataTable>
                    }
                        .into_any()
                }}
            </Section>
        }
    })
}
