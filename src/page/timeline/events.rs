//! The application's custom events above the worker lanes: a row per event
//! type with a tick at each event in the view (`timeline::EventLanes`), and
//! a click on a tick shows that event's fields with their units.

use super::{HIT_PX, draw};
use d9lens_core::fmt::fmt_dur;
use d9lens_core::requests::kept::Details;
use d9lens_core::timeline::{EventFields, EventLanes, Scene, View, fields_of};
use leptos::prelude::*;
use std::sync::Arc;

/// One event type's row, CSS pixels.
const ROW_H: f64 = 18.0;

#[component]
pub fn EventStrip(scene: Arc<Scene>, details: Arc<Details>, view: RwSignal<View>) -> impl IntoView {
    let lanes = Arc::new(EventLanes::new(&scene, &details));
    if lanes.lanes.is_empty() {
        return ().into_any();
    }
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let picked = RwSignal::new(None::<(EventFields, f64)>);
    let height = ROW_H * lanes.lanes.len() as f64;
    let drawn = RwSignal::new(0usize);

    let paint = lanes.clone();
    Effect::new(move |_| {
        let v = view.get();
        let Some(c) = canvas.get() else { return };
        let Some((ctx, w)) = crate::page::canvas::prepare(&c, height) else {
            return;
        };
        let th = draw::theme();
        let mut shown = 0;
        for (i, lane) in paint.lanes.iter().enumerate() {
            let y = i as f64 * ROW_H;
            ctx.set_fill_style_str(if i % 2 == 0 { th.lane } else { th.lane_alt });
            ctx.fill_rect(0.0, y, w, ROW_H);
            ctx.set_fill_style_str(th.counter);
            // One tick per pixel column: the rest would draw over it.
            let mut last = f64::NEG_INFINITY;
            for m in lane.within(v.start, v.end) {
                let x = ((m.t - v.start) / v.span() * w).floor();
                if x > last {
                    ctx.fill_rect(x - 0.5, y + 3.0, 2.0, ROW_H - 6.0);
                    last = x;
                    shown += 1;
                }
            }
        }
        drawn.set(shown);
    });

    let hit = lanes.clone();
    let on_click = move |ev: web_sys::MouseEvent| {
        let Some(c) = canvas.get_untracked() else { return };
        let r = c.get_bounding_client_rect();
        let (x, y) = (f64::from(ev.client_x()) - r.left(), f64::from(ev.client_y()) - r.top());
        let Some(lane) = hit.lanes.get((y / ROW_H).floor().max(0.0) as usize) else {
            return;
        };
        let (v, w) = (view.get_untracked(), r.width().max(1.0));
        let mark = lane.nearest(v.t(x, w), HIT_PX / w * v.span());
        picked.set(mark.and_then(|m| fields_of(&details, m).map(|f| (f, m.t))));
    };

    let labels = lanes
        .lanes
        .iter()
        .enumerate()
        .map(|(i, l)| {
            view! {
                <div class="tl-label tl-counter" data-testid="timeline-event-lane" data-name=l.name.clone()
                    data-count=l.marks.len().to_string()
                    style:top=format!("{}px", i as f64 * ROW_H) style:height=format!("{ROW_H}px")>
                    {l.name.clone()}
                </div>
            }
        })
        .collect_view();
    let left_out = (lanes.left_out > 0)
        .then(|| view! { <p class="muted">{format!("{} more events not marked.", lanes.left_out)}</p> });
    // Trace strings (names, values, units): text nodes only.
    let detail = move || {
        picked.get().map(|(f, t)| {
            let rows = f
                .fields
                .into_iter()
                .map(|(name, value, unit)| {
                    view! {
                        <tr data-testid="event-mark-field" data-field=name.clone() data-value=value.clone()>
                            <td class="loc">{name.clone()}</td>
                            <td class="num">{value.clone()}</td>
                            <td>{unit.unwrap_or_default()}</td>
                        </tr>
                    }
                })
                .collect_view();
            view! {
                <div class="tl-detail" data-testid="event-mark-detail" data-name=f.name.clone()>
                    <h3>{format!("{} at {}", f.name, fmt_dur(t))}</h3>
                    <p class="muted">{format!("in {}", f.file)}</p>
                    <table class="data">
                        <thead><tr><th>"Field"</th><th class="num">"Value"</th><th>"Unit"</th></tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            }
        })
    };
    view! {
        <div class="tl-rows tl-events" style:height=format!("{height}px")>
            <div class="tl-labels">{labels}</div>
            <div class="tl-plot">
                <canvas class="tl-event-canvas" node_ref=canvas data-testid="timeline-events"
                    data-drawn=move || drawn.get().to_string() on:click=on_click
                    aria-label="Custom events: click a tick to read its fields"></canvas>
            </div>
        </div>
        {left_out}
        {detail}
    }
    .into_any()
}
