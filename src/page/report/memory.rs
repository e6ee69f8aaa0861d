//! MEMORY ALLOCATIONS (sampled).

use super::stack::stack_view;
use super::widgets::{DataTable, Lazy, Section, opt_loc, stat};
use crate::page::frame_text::frame_text;
use d9lens_core::fmt::grouped;
use d9lens_core::profile::calls::allocation_frame;
use d9lens_core::report::{Frame, Report};
use leptos::prelude::*;

/// Raw symbols shown inline per allocation site, as the text report does.
const INLINE_FRAMES: usize = 16;

pub fn view(r: &Report) -> impl IntoView + use<> {
    r.memory.clone().filter(|m| m.total_alloc_count > 0).map(|m| {
        let rate_note = m
            .trace_sample_rate_bytes
            .map(|t| format!(" (the trace says {} bytes)", grouped(t as i64)))
            .unwrap_or_default();
        view! {
            <Section title="Memory allocations" testid="section-memory" subtitle="sampled".to_string()>
                <div class="stats">
                    {stat("Sample rate", format!("{} bytes{}", grouped(m.sample_rate_bytes as i64), rate_note), "memory-rate")}
                    {stat("Total allocs", format!("{} sampled, ~{} bytes estimated", m.total_alloc_count, grouped(m.estimated_total_bytes as i64)), "memory-allocs")}
                    {stat("Total frees", m.total_free_count.to_string(), "memory-frees")}
                    {stat("Leaked", format!("{} allocs, {} sampled bytes", m.leaked_count, grouped(m.leaked_bytes as i64)), "memory-leaked")}
                </div>
                <p class="muted">
                    "Estimator: weight(s) = s / (1 - exp(-s / R)), estimated_total = Σ weight(s_i)"
                </p>
                {(m.dropped_allocs > 0 || m.dropped_frees > 0)
                    .then(|| {
                        view! {
                            <p class="warning-box">
                                {format!(
                                    "⚠ The recorder's ring buffer overflowed: {} allocation and {} free samples were dropped.",
                                    m.dropped_allocs,
                                    m.dropped_frees,
                                )}
                            </p>
                        }
                    })}
                {(!m.top_sites.is_empty())
                    .then(|| {
                        view! {
                            <h3>"Top allocation sites"</h3>
                            <ul class="stack-groups">
                                {m.top_sites
                                    .iter()
                                    .take(10)
                                    .cloned()
                                    .map(|site| {
                                        // Named by the code that allocated, not by the allocator.
                                        let by = allocation_frame(&site.frames).map(|f| frame_text(&f)).unwrap_or_default();
                                        let summary = format!(
                                            "{by} · ~{} bytes estimated ({} samples)",
                                            grouped(site.estimated_bytes.round() as i64),
                                            site.count,
                                        );
                                        let frames = site.frames;
                                        let inline = inline_symbols(&frames);
                                        view! {
                                            <li data-testid="alloc-site" data-by=by>
                                                <Lazy summary=summary class="stack-details">
                                                    {stack_view(&frames)}
                                                </Lazy>
                                                <p class="symbols">{inline}</p>
                                            </li>
                                        }
                                    })
                                    .collect_view()}
                            </ul>
                        }
                    })}
                {(!m.per_task.is_empty())
                    .then(|| {
                        view! {
                            <h3>"Per-task allocations (top 20)"</h3>
                            <DataTable columns=&[("Task", "num"), ("Estimated bytes", "num"), ("Samples", "num"), ("Spawn location", "")]>
                                {m.per_task
                                    .iter()
                                    .take(20)
                                    .map(|t| {
                                        view! {
                                            <tr>
                                                <td class="num">{t.task_id.to_string()}</td>
                                                <td class="num">{format!("~{}", grouped(t.estimated_bytes.round() as i64))}</td>
                                                <td class="num">{t.count.to_string()}</td>
                                                <td class="loc">{opt_loc(&t.spawn_loc)}</td>
                                            </tr>
                                        }
                                    })
                                    .collect_view()}
                            </DataTable>
                        }
                    })}
            </Section>
        }
    })
}

/// The first frames' raw symbols joined by ` > `, as the text report prints a site.
fn inline_symbols(frames: &[Frame]) -> String {
    let mut text = frames
        .iter()
        .take(INLINE_FRAMES)
        .map(|f| &*f.symbol)
        .collect::<Vec<_>>()
        .join(" > ");
    if frames.len() > INLINE_FRAMES {
        text.push_str(&format!(" > ... {} more", frames.len() - INLINE_FRAMES));
    }
    text
}
