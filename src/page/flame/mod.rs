//! Flamegraphs of the selection's samples: on-CPU, blocking (off-CPU inside
//! a poll), idle parking and allocated bytes, drawn on a canvas (`draw.rs`)
//! from the core's `profile::flame`. Click or Enter zooms into a frame, the
//! breadcrumbs or Escape zoom back out, the arrows walk the frames, a search
//! highlights a name and says what share of the samples hold it.

mod draw;

use d9lens_core::fmt::{pct, to_fixed};
use d9lens_core::profile::flame::{FlameGraph, Order, Rect};
use d9lens_core::profile::folded::write_folded;
use d9lens_core::profile::origin::Origin;
use d9lens_core::profile::{Shape, diff_flamegraph, flamegraph};
use d9lens_core::report::{Profiles, SampleKind};
use leptos::prelude::*;
use std::sync::Arc;

/// Compared by identity: a new graph is a new value.
#[derive(Clone)]
struct Shared<T>(Arc<T>);

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

#[derive(Clone)]
struct Hover {
    x: f64,
    y: f64,
    node: u32,
}

fn kind_label(kind: SampleKind) -> &'static str {
    match kind {
        SampleKind::OnCpu => "On-CPU",
        SampleKind::Blocking => "Blocking (in poll)",
        SampleKind::Idle => "Idle parking",
        SampleKind::OffCpu => "Off-CPU",
        SampleKind::Alloc => "Allocations (bytes)",
        SampleKind::Waits => "Where tasks wait",
    }
}

/// The kinds offered: off-CPU is shown as its two halves.
pub(crate) const KINDS: [SampleKind; 5] = [
    SampleKind::OnCpu,
    SampleKind::Blocking,
    SampleKind::Waits,
    SampleKind::Idle,
    SampleKind::Alloc,
];

/// The flamegraphs of `profiles` (a report's, or one long poll's samples);
/// with `before`, differential: laid out as `profiles`, coloured by how each
/// frame's share changed since `before`.
#[component]
pub fn FlamePanel(
    profiles: Arc<Profiles>,
    #[prop(optional)] before: Option<Arc<Profiles>>,
    /// The panel's title and test id, when not the report's.
    #[prop(optional)]
    title: Option<(String, &'static str)>,
    /// The kind of samples last picked, kept by a parent that draws the
    /// panel anew (its filters): shown again whenever the profiles have it.
    #[prop(optional)]
    keep_kind: Option<RwSignal<SampleKind>>,
    /// Controls of the parent's, under the kinds (its filters).
    #[prop(optional)]
    children: Option<Children>,
) -> impl IntoView {
    let diff = before.is_some();
    let baseline = before;
    let totals: Vec<(SampleKind, u64)> = KINDS.iter().map(|&k| (k, profiles.total(k))).collect();
    let first = totals.iter().find(|(_, t)| *t > 0).map(|&(k, _)| k)?;
    let kept = keep_kind
        .map(|k| k.get_untracked())
        .filter(|&k| totals.iter().any(|&(x, t)| x == k && t > 0));
    let kind = RwSignal::new(kept.unwrap_or(first));
    let order = RwSignal::new(Order::Name);
    // Stacks open on the application's frames unless asked whole.
    let (whole, inverted) = (RwSignal::new(false), RwSignal::new(false));
    let graph_profiles = profiles.clone();
    // The browser benchmark reads how long the last build and paint took.
    let build_ms = StoredValue::new(0.0);
    let graph = Memo::new(move |_| {
        let started = crate::clock::now_ms();
        let shape = Shape {
            from_application: !whole.get(),
            inverted: inverted.get(),
        };
        let g = match &baseline {
            Some(a) => diff_flamegraph(a, &graph_profiles, kind.get(), order.get(), shape),
            None => flamegraph(&graph_profiles, kind.get(), order.get(), shape),
        };
        build_ms.set_value(crate::clock::now_ms() - started);
        Shared(Arc::new(g))
    });
    let section = NodeRef::<leptos::html::Section>::new();
    let focus = RwSignal::new(0u32);
    let selected = RwSignal::new(None::<u32>);
    let query = RwSignal::new(String::new());
    let hover = RwSignal::new(None::<Hover>);
    // A new graph starts whole.
    Effect::new(move |_| {
        graph.track();
        focus.set(0);
        selected.set(None);
    });
    let search = Memo::new(move |_| {
        let q = query.get();
        let q = q.trim();
        (!q.is_empty()).then(|| Shared(Arc::new(graph.get().0.search(q))))
    });
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let rects = StoredValue::new(Vec::<Rect>::new());
    let rows = RwSignal::new(1u32);

    Effect::new(move |_| {
        let (g, f, sel, s) = (graph.get(), focus.get(), selected.get(), search.get());
        let Some(c) = canvas.get() else { return };
        let started = crate::clock::now_ms();
        let width = f64::from(c.client_width()).max(1.0);
        let r = g.0.rects(f, width, draw::MIN_W, draw::ANCESTORS, draw::MAX_ROWS);
        let n = r.iter().map(|r| r.row + 1).max().unwrap_or(1);
        let height = f64::from(n) * draw::ROW_H;
        if let Some((ctx, w)) = crate::page::canvas::prepare(&c, height) {
            let paint = draw::Paint {
                graph: &g.0,
                rects: &r,
                search: s.as_ref().map(|s| &*s.0),
                selected: sel,
                dark: crate::page::canvas::dark_mode(),
            };
            draw::frame(&ctx, &paint, w, height);
        }
        if let Some(el) = section.get_untracked() {
            let _ = el.set_attribute("data-paint-ms", &format!("{:.2}", crate::clock::now_ms() - started));
            let _ = el.set_attribute("data-build-ms", &format!("{:.2}", build_ms.get_value()));
        }
        rows.set(n);
        rects.set_value(r);
    });

    let pointer = move |ev: &web_sys::MouseEvent| -> Option<(f64, f64, u32)> {
        let c = canvas.get_untracked()?;
        let r = c.get_bounding_client_rect();
        let (x, y) = (f64::from(ev.client_x()) - r.left(), f64::from(ev.client_y()) - r.top());
        let row = (y / draw::ROW_H).floor();
        let node = rects.with_value(|rs| FlameGraph::hit(rs, x, row.max(0.0) as u32))?;
        Some((x, y, node))
    };
    let on_click = move |ev: web_sys::MouseEvent| {
        if let Some((_, _, node)) = pointer(&ev) {
            selected.set(Some(node));
            focus.set(node);
        }
    };
    let on_move = move |ev: web_sys::MouseEvent| {
        hover.set(pointer(&ev).map(|(x, y, node)| Hover { x, y, node }));
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        let g = graph.get_untracked().0;
        let at = selected.get_untracked().unwrap_or(focus.get_untracked());
        let next = match ev.key().as_str() {
            "ArrowUp" => Some(g.node(at).parent),
            "ArrowDown" => g.first_child(at),
            "ArrowLeft" => g.prev_sibling(at),
            "ArrowRight" => g.next_sibling(at),
            "Enter" | " " => {
                focus.set(at);
                None
            }
            "Escape" | "Backspace" => {
                let f = focus.get_untracked();
                let up = g.node(f).parent;
                focus.set(up);
                selected.set(Some(up));
                None
            }
            _ => return,
        };
        ev.prevent_default();
        if let Some(n) = next {
            // Walking out of the zoomed subtree zooms out with it.
            let f = focus.get_untracked();
            if !(f..g.node(f).end).contains(&n) {
                focus.set(g.node(n).parent);
            }
            selected.set(Some(n));
        }
    };
    let download_profiles = profiles.clone();
    let download = move |_| {
        let k = kind.get_untracked();
        let mut out = Vec::new();
        if write_folded(&mut out, &download_profiles, k).is_ok() {
            crate::page::download::save(&format!("{}.folded.txt", k.name()), &out, "text/plain");
        }
    };

    let describe = move |g: &FlameGraph, node: u32| -> (String, String) {
        let n = g.node(node);
        let (unit, total) = (kind.get_untracked().unit(), g.total() as f64);
        let label = g.label(node);
        let mut detail = format!(
            "{} · total {} {unit} ({}%) · self {} ({}%)",
            label.origin.as_str(),
            n.total,
            pct(n.total as f64, total, 1),
            n.self_weight,
            pct(n.self_weight as f64, total, 1),
        );
        if let Some(c) = g.change(node) {
            detail.push_str(&format!(
                " · A {}% → B {}% ({}{} pp)",
                to_fixed(c.before * 100.0, 1),
                to_fixed(c.after * 100.0, 1),
                if c.points() >= 0.0 { "+" } else { "" },
                to_fixed(c.points(), 1)
            ));
        }
        let addrs = g.kernel_addresses(node);
        if !addrs.is_empty() {
            detail.push_str(" · addresses ");
            detail.push_str(&addrs.iter().map(|a| &**a).collect::<Vec<_>>().join(", "));
        }
        (label.text.to_string(), detail)
    };

    let kinds = totals
        .into_iter()
        .map(|(k, total)| {
            view! {
                <button
                    type="button"
                    class="button seg"
                    data-testid="flame-kind"
                    data-kind=k.name()
                    disabled=total == 0
                    data-total=total.to_string()
                    aria-pressed=move || (kind.get() == k).to_string()
                    on:click=move |_| {
                        kind.set(k);
                        if let Some(keep) = keep_kind {
                            keep.set(k);
                        }
                    }
                >
                    {format!("{} · {}", kind_label(k), if k == SampleKind::Alloc { crate::page::units::bytes(total) } else { total.to_string() })}
                </button>
            }
        })
        .collect_view();
    let crumbs = move || {
        let g = graph.get().0;
        g.ancestry(focus.get())
            .into_iter()
            .map(|n| {
                let text = g.label(n).text.to_string();
                view! {
                    <li>
                        <button type="button" class="crumb" data-testid="flame-crumb" on:click=move |_| {
                            focus.set(n);
                            selected.set(Some(n));
                        }>{text}</button>
                    </li>
                }
            })
            .collect_view()
    };
    let matched = move || {
        let s = search.get()?;
        let total = graph.get().0.total();
        let w = s.0.weight;
        Some(view! {
            <span class="muted" data-testid="flame-match" data-weight=w.to_string() data-total=total.to_string()>
                {format!("{w} of {total} {} ({}%) hold a match", kind.get().unit(), pct(w as f64, total as f64, 1))}
            </span>
        })
    };
    let legend = if diff {
        view! {
            <li class="tl-legend-item"><span class="tl-swatch flame-grew"></span><span>"grew since A"</span></li>
            <li class="tl-legend-item"><span class="tl-swatch flame-shrank"></span><span>"shrank since A"</span></li>
            <li class="tl-legend-item"><span>"(width: B's samples)"</span></li>
        }
        .into_any()
    } else {
        Origin::ALL
        .iter()
        .map(|&o| {
            view! {
                <li class="tl-legend-item">
                    <span class=format!("tl-swatch flame-origin-{}", o.as_str().split(' ').next().unwrap_or("x"))></span>
                    <span>{o.as_str()}</span>
                </li>
            }
        })
        .collect_view()
        .into_any()
    };
    // The sandwich view of the selected frame's function: who called it,
    // what it called (every place it appears, merged).
    let sandwich = RwSignal::new(false);
    let sandwiched = Memo::new(move |_| {
        let (g, n) = (graph.get(), selected.get()?);
        (sandwich.get() && n != 0).then(|| {
            let (callers, callees) = g.0.sandwich(g.0.node(n).label, Order::Heaviest);
            (Shared(Arc::new(callers)), Shared(Arc::new(callees)))
        })
    });
    let callers_canvas = NodeRef::<leptos::html::Canvas>::new();
    let callees_canvas = NodeRef::<leptos::html::Canvas>::new();
    Effect::new(move |_| {
        let Some((callers, callees)) = sandwiched.get() else {
            return;
        };
        for (g, c) in [(callers, callers_canvas), (callees, callees_canvas)] {
            let Some(c) = c.get() else { continue };
            let width = f64::from(c.client_width()).max(1.0);
            // From the function down: its root ("all") is left out.
            let focus = g.0.first_child(0).unwrap_or(0);
            let r = g.0.rects(focus, width, draw::MIN_W, 0, draw::MAX_ROWS);
            let height = f64::from(r.iter().map(|r| r.row + 1).max().unwrap_or(1)) * draw::ROW_H;
            if let Some((ctx, w)) = crate::page::canvas::prepare(&c, height) {
                let paint = draw::Paint {
                    graph: &g.0,
                    rects: &r,
                    search: None,
                    selected: None,
                    dark: crate::page::canvas::dark_mode(),
                };
                draw::frame(&ctx, &paint, w, height);
            }
        }
    });
    let selected_text = move || {
        let g = graph.get().0;
        selected.get().map(|n| {
            let (text, detail) = describe(&g, n);
            view! {
                <p class="flame-selected" data-testid="flame-selected" aria-live="polite">
                    <strong>{text}</strong>" · "{detail}" "
                    {(n != 0).then(|| view! {
                        <button type="button" class="link-button" data-testid="flame-sandwich"
                            on:click=move |_| sandwich.update(|s| *s = !*s)>
                            {move || if sandwich.get() { "hide callers and callees" } else { "callers and callees" }}
                        </button>
                    })}
                </p>
            }
        })
    };
    let sandwich_view = move || {
        sandwiched.get().map(|(callers, callees)| {
            view! {
                <div class="flame-sandwich" data-testid="flame-sandwich-view">
                    <h3>{format!("Callers of it ({} {})", callers.0.total(), kind.get_untracked().unit())}</h3>
                    <canvas class="flame-canvas" node_ref=callers_canvas data-testid="flame-callers"
                        data-root-total=callers.0.total().to_string()
                        aria-label="Callers: the function on top, who called it below"></canvas>
                    <h3>"What it calls"</h3>
                    <canvas class="flame-canvas" node_ref=callees_canvas data-testid="flame-callees"
                        data-root-total=callees.0.total().to_string()
                        aria-label="Callees: the function on top, what it called below"></canvas>
                </div>
            }
        })
    };

    let (heading, testid) = match (title, diff) {
        (Some((t, id)), _) => (t, id),
        (None, true) => ("Differential flamegraph: B against A".to_string(), "compare-flamegraph"),
        (None, false) => ("Flamegraphs".to_string(), "section-flamegraph"),
    };
    Some(view! {
        <section class="card flame" data-testid=testid node_ref=section>
            <header class="section-head">
                <h2>{heading}</h2>
                <span class="section-sub">"click or Enter to zoom in, Escape or the path to zoom out, arrows to walk"</span>
            </header>
            <div class="tl-toolbar" role="group" aria-label="Samples">{kinds}</div>
            {children.map(|c| c())}
            <div class="tl-toolbar">
                <label>
                    "Search "
                    <input type="search" data-testid="flame-search" placeholder="function or file" size="24"
                        prop:value=move || query.get()
                        on:input=move |ev| query.set(event_target_value(&ev)) />
                </label>
                {matched}
                <button type="button" class="button" data-testid="flame-order"
                    aria-pressed=move || (order.get() == Order::Heaviest).to_string()
                    on:click=move |_| order.update(|o| *o = if *o == Order::Name { Order::Heaviest } else { Order::Name })>
                    "Left heavy"
                </button>
                {toggle(whole, "flame-whole", "Whole stacks",
                    "Show each stack from its thread's start, Tokio's worker loop and task harness included")}
                {toggle(inverted, "flame-invert", "Inverted",
                    "Bottom-up: the functions the samples were in at the root, their callers above")}
                <button type="button" class="button" data-testid="flame-download" on:click=download>
                    "Download folded stacks"
                </button>
            </div>
            <nav aria-label="Zoom path"><ol class="crumbs">{crumbs}</ol></nav>
            <div class="flame-plot">
                <canvas
                    class="flame-canvas"
                    node_ref=canvas
                    tabindex="0"
                    data-testid="flame-canvas"
                    data-root-total=move || graph.get().0.total().to_string()
                    data-kind=move || kind.get().name()
                    data-focus=move || graph.get().0.label(focus.get()).text.to_string()
                    data-rows=move || rows.get().to_string()
                    data-first-row=move || first_row(&graph.get().0)
                    aria-label="Flamegraph: arrows walk the frames, Enter zooms in, Escape zooms out"
                    on:click=on_click
                    on:mousemove=on_move
                    on:mouseleave=move |_| hover.set(None)
                    on:keydown=on_key
                ></canvas>
                {move || hover.get().map(|h| {
                    let (text, detail) = describe(&graph.get_untracked().0, h.node);
                    view! {
                        <div class="tl-tooltip" role="tooltip" data-testid="flame-tooltip"
                            style:left=format!("{}px", h.x + 12.0) style:top=format!("{}px", h.y + 12.0)>
                            <strong>{text}</strong><br/>{detail}
                        </div>
                    }
                })}
            </div>
            {selected_text}
            {sandwich_view}
            <ul class="tl-legend" aria-label="Frame colours">{legend}</ul>
        </section>
    })
}

/// A button that turns `on` on and off.
fn toggle(on: RwSignal<bool>, testid: &'static str, label: &'static str, title: &'static str) -> impl IntoView {
    view! {
        <button type="button" class="button" data-testid=testid title=title
            aria-pressed=move || on.get().to_string()
            on:click=move |_| on.update(|v| *v = !*v)>
            {label}
        </button>
    }
}

/// Where the frames of the first row under the root come from, heaviest
/// first (`origin|origin…`): what the tests read of a canvas.
fn first_row(g: &FlameGraph) -> String {
    let mut children: Vec<u32> = std::iter::successors(g.first_child(0), |&n| g.next_sibling(n)).collect();
    children.sort_by_key(|&n| std::cmp::Reverse(g.node(n).total));
    children
        .iter()
        .map(|&n| g.label(n).origin.as_str())
        .collect::<Vec<_>>()
        .join("|")
}
