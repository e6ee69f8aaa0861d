//! The timeline: one lane per worker, grouped by runtime and by host and
//! boot, counters and spans, drawn on a canvas (`draw.rs`) from the scene
//! the workers built. Wheel zooms at the pointer, dragging pans, shift-drag
//! brushes a window (its report below, `detail.rs`), W/A/S/D move, a click
//! selects a poll (its detail below). Custom events sit above the lanes
//! (`events.rs`). The view, the poll and the window are kept in the URL
//! fragment.

mod detail;
mod draw;
mod events;

use crate::page::session::AppState;
use d9lens_core::civil::utc_timestamp;
use d9lens_core::fmt::{count, fmt_dur};
use d9lens_core::report::Moment;
use d9lens_core::requests::kept::Details;
use d9lens_core::timeline::{
    BUDGET_BYTES, KEYS, NavKey, PollLink, PollRef, RowKind, Scene, TimelineLink, View, ViewHistory, parse_time, poll_at,
};
use leptos::prelude::*;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen::JsCast;

/// Where "show on timeline" buttons send their moment.
#[derive(Clone, Copy)]
pub struct Focus(pub RwSignal<Option<Moment>>);

/// The overview strip's height, CSS pixels.
const OVERVIEW_H: f64 = 36.0;
/// A click this close to a poll (pixels) selects it.
const HIT_PX: f64 = 3.0;
/// A press that moved less than this (pixels) is a click, not a drag.
const CLICK_PX: f64 = 3.0;

#[derive(Clone, PartialEq)]
struct Hover {
    x: f64,
    y: f64,
    text: String,
}

/// A press on the canvas being dragged: pans, or brushes with shift.
#[derive(Clone, Copy)]
struct Drag {
    x0: f64,
    view0: View,
    brush: bool,
    moved: bool,
}

/// A frame of `scene` on a canvas outside the page, each call zoomed in a
/// little further (`crate::page::warm_up`): the first timeline shown runs warm code.
pub fn warm_up(scene: Scene) -> impl FnMut() {
    const WIDTH: f64 = 1200.0;
    let height = draw::AXIS_H + scene.height;
    let canvas = crate::page::canvas::offscreen(WIDTH as u32, height.ceil() as u32, 1.0);
    let (th, mut s) = (draw::theme(), draw::Scratch::default());
    let overlay = draw::Overlay {
        top: 0.0,
        height,
        selected: None,
        brush: None,
    };
    let mut view = scene.view();
    move || {
        let Some((_, ctx)) = &canvas else { return };
        draw::frame(ctx, &scene, &view, WIDTH, &overlay, &th, &mut s);
        draw::overview(ctx, &scene, &view, WIDTH, OVERVIEW_H, &th, &mut s);
        view = match view.span() > view.total / 1000.0 {
            true => view.zoom(2.0, 1.0 / 3.0),
            false => scene.view(),
        };
    }
}

#[component]
pub fn TimelinePanel(state: AppState, scene: Arc<Scene>, details: Arc<Details>) -> impl IntoView {
    let focus = use_context::<Focus>();
    let view = RwSignal::new(scene.view());
    // Every zoom or window, for Z to undo (whatever moved the view).
    let history = StoredValue::new(ViewHistory::default());
    Effect::new(move |previous: Option<View>| {
        let next = view.get();
        if let Some(previous) = previous {
            history.update_value(|h| h.observe(previous, next));
        }
        next
    });
    // `?`: the keys, listed.
    let show_keys = RwSignal::new(false);
    let selected = RwSignal::new(None::<PollRef>);
    let brush = RwSignal::new(None::<(f64, f64)>);
    let hover = RwSignal::new(None::<Hover>);
    let drag = StoredValue::new(None::<Drag>);
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let strip = NodeRef::<leptos::html::Canvas>::new();
    let section = NodeRef::<leptos::html::Section>::new();
    let scratch = Rc::new(RefCell::new(draw::Scratch::default()));
    let goto_error = RwSignal::new(false);
    // How far the rows are scrolled: the canvas stays in sight and draws those rows.
    let scroll_top = RwSignal::new(0.0);
    let body = NodeRef::<leptos::html::Div>::new();

    // Paint on every change of what is shown (one frame per change).
    let paint_scene = scene.clone();
    Effect::new(move |_| {
        let (v, sel, br, top) = (view.get(), selected.get(), brush.get(), scroll_top.get());
        let (Some(c), Some(o), Some(b)) = (canvas.get(), strip.get(), body.get()) else {
            return;
        };
        let started = crate::clock::now_ms();
        let th = draw::theme();
        let mut s = scratch.borrow_mut();
        let height = f64::from(b.client_height()).min(draw::AXIS_H + paint_scene.height);
        if let Some((ctx, w)) = crate::page::canvas::prepare(&c, height) {
            let overlay = draw::Overlay {
                top,
                height,
                selected: sel,
                brush: br,
            };
            draw::frame(&ctx, &paint_scene, &v, w, &overlay, &th, &mut s);
        }
        if let Some((ctx, w)) = crate::page::canvas::prepare(&o, OVERVIEW_H) {
            draw::overview(&ctx, &paint_scene, &v, w, OVERVIEW_H, &th, &mut s);
        }
        // The browser benchmark reads how long the last frame took to paint.
        if let Some(el) = section.get_untracked() {
            let _ = el.set_attribute("data-paint-ms", &format!("{:.2}", crate::clock::now_ms() - started));
        }
    });

    // The URL keeps the view, the poll and the window.
    let link_scene = scene.clone();
    let url_writes = StoredValue::new(0u32);
    let url_picked = StoredValue::new((None::<PollLink>, None::<(u64, u64)>));
    Effect::new(move |_| {
        let v = view.get();
        let poll = selected.get().map(|p| {
            let f = &link_scene.files[p.file];
            PollLink {
                file: f.file.clone(),
                worker: f.lanes[p.lane].worker,
                start: f.lanes[p.lane].polls.start(p.poll),
            }
        });
        let window = brush.get().map(|(a, b)| (a as u64, b.ceil() as u64));
        let whole = v.start <= 0.0 && v.end >= v.total;
        let link = TimelineLink {
            view: (!whole).then(|| (v.start as u64, v.end.ceil() as u64)),
            poll,
            window,
        };
        // A new poll or window is written at once; a moving view once it
        // rests (browsers throttle pages that rewrite their URL every frame).
        let pending = url_writes.get_value() + 1;
        url_writes.set_value(pending);
        let picked = (link.poll.clone(), link.window);
        if url_picked.with_value(|last| *last != picked) {
            url_picked.set_value(picked);
            crate::page::url_state::write_timeline(&link);
        } else {
            set_timeout(
                move || {
                    // Gone (a new run replaced the panel): nothing to write.
                    if url_writes.try_get_value() == Some(pending) {
                        crate::page::url_state::write_timeline(&link);
                    }
                },
                std::time::Duration::from_millis(250),
            );
        }
    });

    // Opened from a link: the same view, poll and window.
    let link = crate::page::url_state::read_timeline();
    if let Some((a, b)) = link.view {
        view.set(scene.view().window(a as f64, b as f64));
    }
    if let Some(p) = link.poll {
        selected.set(scene.find_poll(&p.file, p.worker, p.start));
    }
    if let Some((a, b)) = link.window {
        brush.set(Some((a as f64, b as f64)));
    }

    // "Show on timeline" from a finding or a table row.
    if let Some(Focus(moment)) = focus {
        let focus_scene = scene.clone();
        Effect::new(move |_| {
            let Some(m) = moment.get() else { return };
            // A poll is selected; a stretch (a span) becomes the window.
            let shown = match m.worker {
                Some(w) => focus_scene.find_poll(&m.file, w, m.start_ns).map(|p| {
                    selected.set(Some(p));
                    focus_scene.poll_span(p)
                }),
                None => focus_scene.stretch(&m.file, m.start_ns, m.dur_ns).inspect(|&w| {
                    selected.set(None);
                    brush.set(Some(w));
                }),
            };
            if let Some((a, b)) = shown {
                view.set(focus_scene.focus(a, b));
                if let Some(el) = section.get_untracked() {
                    el.scroll_into_view();
                    let _ = el.focus();
                }
            }
            moment.set(None);
        });
    }

    let width_of = move || {
        canvas
            .get_untracked()
            .map_or(1.0, |c| f64::from(c.client_width()).max(1.0))
    };
    let pointer = move |ev: &web_sys::MouseEvent| {
        let rect = canvas
            .get_untracked()
            .map(|c| c.get_bounding_client_rect())
            .map_or((0.0, 0.0), |r| (r.left(), r.top()));
        (f64::from(ev.client_x()) - rect.0, f64::from(ev.client_y()) - rect.1)
    };

    let hit_scene = scene.clone();
    let poll_under = move |x: f64, y: f64| -> Option<PollRef> {
        let row = hit_scene.row_at(y - draw::AXIS_H + scroll_top.get_untracked())?;
        let RowKind::Worker { group, worker, .. } = &row.kind else {
            return None;
        };
        let (v, w) = (view.get_untracked(), width_of());
        let (t, tol) = (v.t(x, w), HIT_PX / w * v.span());
        hit_scene.lanes_of(*group, *worker).find_map(|(f, l)| {
            poll_at(&hit_scene.files[f].lanes[l].polls, hit_scene.maps[f], t, tol).map(|poll| PollRef {
                file: f,
                lane: l,
                poll,
            })
        })
    };
    let describe_scene = scene.clone();
    let describe = move |p: PollRef| -> String {
        let s = &describe_scene;
        let f = &s.files[p.file];
        let lane = &f.lanes[p.lane];
        let task = lane.polls.task.get(p.poll);
        let (a, b) = s.poll_span(p);
        let wall = s
            .wall_origin
            .map(|o| format!(" ({})", utc_timestamp(o + a as i64)))
            .unwrap_or_default();
        format!(
            "task {} · {} · worker {} · {} · starts at {}{wall}",
            f.tasks.get(task as usize),
            f.task_loc(task).unwrap_or("(unknown spawn location)"),
            lane.worker,
            fmt_dur(b - a),
            fmt_dur(a),
        )
    };

    let on_wheel = move |ev: web_sys::WheelEvent| {
        ev.prevent_default();
        let (x, _) = pointer(&ev);
        let w = width_of();
        let v = view.get_untracked();
        let next = if ev.shift_key() || ev.delta_x().abs() > ev.delta_y().abs() {
            let d = if ev.shift_key() { ev.delta_y() } else { ev.delta_x() };
            v.pan(d / w)
        } else {
            v.wheel(ev.delta_y(), x / w)
        };
        view.set(next);
    };
    let on_down = move |ev: web_sys::MouseEvent| {
        if ev.button() != 0 {
            return;
        }
        let (x, _) = pointer(&ev);
        drag.set_value(Some(Drag {
            x0: x,
            view0: view.get_untracked(),
            brush: ev.shift_key(),
            moved: false,
        }));
    };
    let hover_under = poll_under.clone();
    let on_move = move |ev: web_sys::MouseEvent| {
        let (x, y) = pointer(&ev);
        let w = width_of();
        if let Some(mut d) = drag.get_value() {
            d.moved |= (x - d.x0).abs() >= CLICK_PX;
            drag.set_value(Some(d));
            if d.moved {
                hover.set(None);
                if d.brush {
                    let (a, b) = (d.view0.t(d.x0, w), d.view0.t(x, w));
                    brush.set(Some((a.min(b).max(0.0), a.max(b).min(d.view0.total))));
                } else {
                    view.set(d.view0.pan((d.x0 - x) / w));
                }
                return;
            }
        }
        hover.set(hover_under(x, y).map(|p| Hover {
            x,
            y,
            text: describe(p),
        }));
    };
    let on_up = move |ev: web_sys::MouseEvent| {
        let Some(d) = drag.get_value() else { return };
        drag.set_value(None);
        if !d.moved {
            let (x, y) = pointer(&ev);
            selected.set(poll_under(x, y));
        }
    };
    let on_leave = move |_| {
        hover.set(None);
        drag.set_value(None);
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        if ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .is_some()
        {
            return; // typing a time
        }
        if let Some(k) = NavKey::from_key(&ev.key()) {
            ev.prevent_default();
            let current = view.get_untracked();
            if let Some(next) = history.try_update_value(|h| h.key(current, k)) {
                view.set(next);
            }
        } else if ev.key() == "?" {
            ev.prevent_default();
            show_keys.update(|s| *s = !*s);
        } else if ev.key() == "Escape" {
            selected.set(None);
            brush.set(None);
            show_keys.set(false);
        }
    };
    let overview_scene = scene.clone();
    let on_overview = move |ev: web_sys::MouseEvent| {
        let Some(o) = strip.get_untracked() else { return };
        let r = o.get_bounding_client_rect();
        let w = r.width().max(1.0);
        let t = overview_scene.view().t(f64::from(ev.client_x()) - r.left(), w);
        view.update(|v| *v = v.window(t - v.span() / 2.0, t + v.span() / 2.0));
    };
    let zoom_scene = scene.clone();
    let zoom_to_selection = move |_| {
        if let Some((a, b)) = brush.get_untracked() {
            view.update(|v| *v = v.window(a, b));
        } else if let Some(p) = selected.get_untracked() {
            let (a, b) = zoom_scene.poll_span(p);
            view.set(zoom_scene.focus(a, b));
        }
    };
    let goto_scene = scene.clone();
    let on_goto = move |ev: web_sys::SubmitEvent| {
        ev.prevent_default();
        let input: Option<web_sys::HtmlInputElement> = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlFormElement>().ok())
            .and_then(|f| f.elements().named_item("at"))
            .and_then(|e| e.dyn_into().ok());
        let Some(input) = input else { return };
        match parse_time(&input.value(), goto_scene.wall_origin) {
            Some(t) => {
                goto_error.set(false);
                view.update(|v| *v = v.window(t - v.span() / 2.0, t + v.span() / 2.0));
            }
            None => goto_error.set(true),
        }
    };

    let legend = scene
        .legend(8)
        .into_iter()
        .map(|(loc, colour, count)| {
            view! {
                <li class="tl-legend-item" title=format!("{count} polls")>
                    <span class="tl-swatch" style:background=colour.css()></span>
                    <span class="tl-legend-loc">{loc}</span>
                </li>
            }
        })
        .collect_view();
    let labels = scene
        .rows
        .iter()
        .map(|row| {
            // Set through the CSSOM (`style:`): the CSP allows no style attributes.
            let (top, height) = (format!("{}px", draw::AXIS_H + row.y), format!("{}px", row.h));
            match &row.kind {
                RowKind::Header { group } => {
                    let g = &scene.groups[*group];
                    view! {
                        <div
                            class="tl-label tl-head"
                            data-testid="timeline-group"
                            data-files=g.files.len().to_string()
                            style:top=top.clone()
                            style:height=height.clone()
                        >
                            {g.label.clone()}
                        </div>
                    }
                    .into_any()
                }
                RowKind::Worker { runtime, worker, .. } => view! {
                    <div
                        class="tl-label"
                        style:top=top.clone() style:height=height.clone()
                        data-testid="timeline-lane"
                        data-worker=worker.to_string()
                        data-runtime=runtime.clone()
                    >
                        <span class="tl-runtime">{runtime.clone()}</span>
                        {format!(" worker {worker}")}
                    </div>
                }
                .into_any(),
                RowKind::Counter { kind, .. } => {
                    view! {
                        <div class="tl-label tl-counter" data-testid="timeline-counter" data-label=kind.label()
                            style:top=top.clone() style:height=height.clone()>{kind.label()}</div>
                    }
                    .into_any()
                }
                RowKind::Spans { depth, .. } => view! {
                    <div class="tl-label tl-spans" style:top=top.clone() style:height=height.clone()>{(*depth == 0).then_some("spans")}</div>
                }
                .into_any(),
            }
        })
        .collect_view();
    let body_height = format!("{}px", draw::AXIS_H + scene.height);
    let wall = scene.wall_origin;
    let view_label = move || {
        let v = view.get();
        let at = wall
            .map(|o| format!(" · from {}", utc_timestamp(o + v.start as i64)))
            .unwrap_or_default();
        format!("{} – {} ({}){at}", fmt_dur(v.start), fmt_dur(v.end), fmt_dur(v.span()))
    };
    let polls = scene.poll_count();
    let files = scene.files.len();
    let left_out = (scene.left_out > 0).then(|| {
        view! {
            <p class="muted" data-testid="timeline-left-out">
                {format!(
                    "{} more not drawn: their timelines would pass the {} this tab keeps for timelines. Select fewer files to see them.",
                    count(scene.left_out, "file"),
                    d9lens_core::fmt::bytes(BUDGET_BYTES as u64)
                )}
            </p>
        }
    });
    let bytes: usize = scene.files.iter().map(|f| f.bytes()).sum();
    let detail_scene = scene.clone();
    let window_scene = scene.clone();

    view! {
        <section
            class="card timeline"
            data-testid="timeline"
            node_ref=section
            tabindex="0"
            aria-label="Timeline of the workers: W/S zoom, A/D pan, shift-drag to pick a window"
            data-polls=polls.to_string()
            data-bytes=bytes.to_string()
            data-window-start=move || format!("{:.0}", view.get().start)
            data-window-end=move || format!("{:.0}", view.get().end)
            on:keydown=on_key
        >
            <header class="section-head">
                <h2>"Timeline"</h2>
                <span class="section-sub">
                    {format!("{polls} polls in {} · wheel to zoom, drag to pan, shift-drag to pick a window, ? for the keys", count(files, "file"))}
                </span>
            </header>
            {left_out}
            <div class="tl-toolbar">
                <button type="button" class="button" data-testid="timeline-reset" on:click=move |_| view.update(|v| *v = View::all(v.total))>
                    "Whole trace"
                </button>
                <button type="button" class="button" data-testid="timeline-zoom-selection" on:click=zoom_to_selection>
                    "Zoom to selection"
                </button>
                <form class="tl-goto" on:submit=on_goto>
                    <label>
                        "Go to "
                        <input name="at" data-testid="timeline-goto" placeholder="1.5s, 350ms or 16:40:12" size="16"
                            aria-invalid=move || goto_error.get().to_string() />
                    </label>
                </form>
                {move || brush.get().map(|(a, b)| view! {
                    <span class="chip" data-testid="window-chip">
                        {format!("window {} – {}", fmt_dur(a), fmt_dur(b))}
                        <button type="button" class="chip-x" aria-label="Clear the window" on:click=move |_| brush.set(None)>"×"</button>
                    </span>
                })}
                <span class="tl-view muted" data-testid="timeline-view">{view_label}</span>
                <button type="button" class="link-button" data-testid="timeline-keys-toggle"
                    aria-expanded=move || show_keys.get().to_string() on:click=move |_| show_keys.update(|s| *s = !*s)>
                    "Keys (?)"
                </button>
            </div>
            {move || show_keys.get().then(|| view! {
                <dl class="tl-keys" data-testid="timeline-keys">
                    {KEYS.iter().map(|&(keys, what)| view! { <dt>{keys}</dt><dd>{what}</dd> }).collect_view()}
                </dl>
            })}
            <canvas class="tl-overview" node_ref=strip on:click=on_overview aria-label="Overview: click to move there"></canvas>
            <events::EventStrip scene=scene.clone() details=details view=view />
            <div class="tl-body" node_ref=body on:scroll=move |_| {
                if let Some(b) = body.get_untracked() {
                    scroll_top.set(f64::from(b.scroll_top()));
                }
            }>
            <div class="tl-rows" style:height=body_height>
                <div class="tl-labels">{labels}</div>
                <div class="tl-plot">
                    <canvas
                        class="tl-canvas"
                        node_ref=canvas
                        on:wheel=on_wheel
                        on:mousedown=on_down
                        on:mousemove=on_move
                        on:mouseup=on_up
                        on:mouseleave=on_leave
                    ></canvas>
                    {move || hover.get().map(|h| view! {
                        <div class="tl-tooltip" role="tooltip" data-testid="timeline-tooltip"
                            style:left=format!("{}px", h.x + 12.0) style:top=format!("{}px", h.y + scroll_top.get_untracked() + 12.0)>{h.text}</div>
                    })}
                </div>
            </div>
            </div>
            <ul class="tl-legend" aria-label="Spawn locations with the most polls">{legend}</ul>
            {move || selected.get().map(|p| view! { <detail::PollDetail state=state scene=detail_scene.clone() poll=p /> })}
            {move || brush.get().map(|w| view! { <detail::WindowReport state=state scene=window_scene.clone() window=w /> })}
        </section>
    }
}
