//! BLOCKING CALLS (scheduling/off-CPU samples).

use super::stack::stack_groups;
use super::widgets::{DataTable, Section, bar, show_on_timeline, stat};
use crate::page::frame_text::frame_text;
use d9lens_core::fmt::{fmt_dur, pct, to_fixed};
use d9lens_core::report::Report;
use leptos::prelude::*;

pub fn view(r: &Report) -> impl IntoView + use<> {
    let b = &r.blocking;
    (b.off_cpu_samples > 0 || !b.sched_wait_workers.is_empty()).then(|| {
        let in_poll = b.in_poll;
        let by_loc = b.in_poll_by_location.clone();
        let stacks = b.in_poll_stacks.clone();
        let calls = b.in_poll_calls.clone();
        let waits = b.sched_wait_workers.clone();
        let body = if b.off_cpu_samples == 0 {
            view! {
                <p class="muted">
                    "No off-CPU samples: schedule profiling is not enabled (DIAL9_SCHEDULE_PROFILE_ENABLED=true)."
                </p>
                <h3>"Workers with kernel scheduling delays > 1ms"</h3>
                <ul class="plain">
                    {waits
                        .into_iter()
                        .map(|w| {
                            view! {
                                <li>
                                    {format!(
                                        "Worker {}: {} events, max {}ms",
                                        w.worker,
                                        w.count_over_1ms,
                                        to_fixed(w.max_ns as f64 / 1e6, 1),
                                    )}
                                </li>
                            }
                        })
                        .collect_view()}
                </ul>
            }
                .into_any()
        } else {
            view! {
                <div class="stats">
                    {stat("Off-CPU samples", b.off_cpu_samples.to_string(), "blocking-off-cpu")}
                    {stat("In-poll (real blocking)", in_poll.to_string(), "blocking-in-poll")}
                    {stat("Idle-park", b.idle_park.to_string(), "blocking-idle")}
                </div>
                <p class="note">
                    "Idle-park = a worker with no work parked between polls; it is not blocking. "
                    "Only in-poll samples are a task blocked mid-poll. An async lock wait (lock().await) "
                    "ends the poll, so it counts as idle-park."
                </p>
                {if in_poll == 0 {
                    view! { <p class="ok">"No in-poll blocking detected"</p> }.into_any()
                } else {
                    view! {
                        <h3>"In-poll blocking by task spawn location"</h3>
                        <DataTable columns=&[("Samples", "num"), ("Share", "bar-col"), ("%", "num"), ("Spawn location", "")]>
                            {by_loc
                                .into_iter()
                                .take(10)
                                .map(|c| {
                                    let share = c.count as f64 / in_poll as f64 * 100.0;
                                    view! {
                                        <tr>
                                            <td class="num">{c.count.to_string()}</td>
                                            <td class="bar-col">{bar(share)}</td>
                                            <td class="num">{format!("{}%", pct(c.count as f64, in_poll as f64, 1))}</td>
                                            <td class="loc">{c.loc}</td>
                                        </tr>
                                    }
                                })
                                .collect_view()}
                        </DataTable>
                        <h3>"In-poll blocking by call"</h3>
                        <p class="note">
                            "Each stack named by its innermost application frame: the line of your code that made the blocking call. "
                            "Longest blocked first: a thread switched out is one sample however long it stays out, "
                            "so the time until the poll went on (its next sample, else its end) ranks a sleep above a brief preemption."
                        </p>
                        <DataTable columns=&[("Blocked", "num"), ("Samples", "num"), ("Share", "bar-col"), ("%", "num"), ("Call", ""), ("Stacks", "num"), ("", "")]>
                            {calls
                                .into_iter()
                                .take(10)
                                .map(|c| {
                                    let share = c.count as f64 / in_poll as f64 * 100.0;
                                    view! {
                                        <tr data-testid="blocking-call">
                                            <td class="num">{fmt_dur(c.blocked_ns as f64)}</td>
                                            <td class="num">{c.count.to_string()}</td>
                                            <td class="bar-col">{bar(share)}</td>
                                            <td class="num">{format!("{}%", pct(c.count as f64, in_poll as f64, 1))}</td>
                                            <td class="loc">{frame_text(&c.frame)}</td>
                                            <td class="num">{c.stacks.to_string()}</td>
                                            <td>{show_on_timeline(c.moment)}</td>
                                        </tr>
                                    }
                                })
                                .collect_view()}
                        </DataTable>
                        <h3>"In-poll blocking call stacks"</h3>
                        {stack_groups(stacks, in_poll)}
                    }
                        .into_any()
                }}
            }
                .into_any()
        };
        view! {
            <Section title="Blocking calls" testid="section-blocking" subtitle="scheduling / off-CPU samples".to_string()>
                {body}
            </Section>
        }
    })
}
