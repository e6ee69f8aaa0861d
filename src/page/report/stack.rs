//! Stack frames as text (leaf first), with the reference's stack diagnosis
//! (blocker, syscall, the application frame that made the call).

use super::widgets::{Lazy, show_on_timeline};
use crate::page::frame_text::frame_text;
use d9lens_core::fmt::pct;
use d9lens_core::frames::diagnose_stack;
use d9lens_core::report::{Frame, StackGroup};
use leptos::prelude::*;

/// The ten biggest stack groups, each a count, its share of `total` samples
/// and its leaf, opening to the whole stack.
pub fn stack_groups(groups: Vec<StackGroup>, total: u64) -> impl IntoView {
    view! {
        <ul class="stack-groups">
            {groups
                .into_iter()
                .take(10)
                .map(|g| {
                    let summary = format!(
                        "{} samples ({}%) — leaf: {}",
                        g.count,
                        pct(g.count as f64, total as f64, 1),
                        leaf_text(&g.frames),
                    );
                    let frames = g.frames;
                    view! {
                        <li>
                            <Lazy summary=summary class="stack-details">
                                {stack_view(&frames)}
                            </Lazy>
                            {show_on_timeline(g.moment)}
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
}

/// The diagnosis lines and the full stack, leaf first: display text, with the
/// raw symbol and location available on hover.
pub fn stack_view(frames: &[Frame]) -> impl IntoView + use<> {
    let d = diagnose_stack(frames);
    let mut lines: Vec<(&'static str, String, Option<String>)> = Vec::new();
    if let Some(f) = d.blocker {
        lines.push(("Blocked by", format!("{} (kernel)", f.symbol), None));
    }
    if let Some(f) = d.syscall {
        lines.push(("Syscall", frame_text(f), None));
    }
    if let Some(f) = d.trigger {
        lines.push(("Called from", frame_text(f), f.location.as_deref().map(str::to_owned)));
    }
    if d.kernel_path.len() >= 2 {
        let path = d.kernel_path.iter().map(|f| &*f.symbol).collect::<Vec<_>>().join(" → ");
        lines.push(("Kernel path", path, None));
    }
    let app = d.app_frames.len();
    view! {
        {(!lines.is_empty())
            .then(|| {
                view! {
                    <dl class="diagnosis">
                        {lines
                            .into_iter()
                            .map(|(k, v, loc)| {
                                view! {
                                    <dt>{k}</dt>
                                    <dd>
                                        <span class="frame">{v}</span>
                                        {loc.map(|l| view! { <span class="frame-loc">{format!("at {l}")}</span> })}
                                    </dd>
                                }
                            })
                            .collect_view()}
                    </dl>
                }
            })}
        <p class="stack-caption">{format!("{} frames, leaf first ({} application)", frames.len(), app)}</p>
        <ol class="stack">
            {frames
                .iter()
                .map(|f| {
                    let title = match &f.location {
                        Some(loc) => format!("{}\n{}", f.symbol, loc),
                        None => f.symbol.to_string(),
                    };
                    view! {
                        <li title=title>
                            <span class="frame">{frame_text(f)}</span>
                            {f.location.clone().map(|l| view! { <span class="frame-loc">{l}</span> })}
                        </li>
                    }
                })
                .collect_view()}
        </ol>
    }
}

/// The display text of a stack's leaf frame.
pub fn leaf_text(frames: &[Frame]) -> String {
    frames.first().map(frame_text).unwrap_or_else(|| "(empty stack)".into())
}

/// One line for a collapsed stack: the blocking call and the application
/// frame that made it (`__GI___clock_nanosleep :48 ← legacy_sync_lookup workload.rs:108`).
pub fn headline(frames: &[Frame]) -> String {
    let d = diagnose_stack(frames);
    let leaf = d
        .syscall
        .or(d.blocker)
        .map(frame_text)
        .unwrap_or_else(|| leaf_text(frames));
    match d.trigger {
        Some(t) if !frames.first().is_some_and(|f| std::ptr::eq(f, t)) => format!("{leaf} ← {}", frame_text(t)),
        _ => leaf,
    }
}
