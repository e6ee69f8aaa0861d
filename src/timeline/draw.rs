//! Painting the timeline on a 2D canvas: what to draw comes from the core
//! (`timeline::poll_marks` and friends, a bounded number of marks per lane
//! whatever the zoom); this only turns marks into rectangles, batched by colour.

use crate::canvas::{offscreen, pixel_ratio};
use d9lens_core::fmt::fmt_dur;
use d9lens_core::timeline::{
    self, Colour, Mark, MarkKind, PollRef, Row, RowKind, Scene, View, counter_marks, poll_marks, span_marks, tick_marks,
};
use web_sys::CanvasRenderingContext2d as Ctx;

/// The time axis above the rows, CSS pixels.
pub const AXIS_H: f64 = 22.0;

/// Colours that follow the page's light or dark theme.
pub struct Theme {
    pub muted: &'static str,
    pub grid: &'static str,
    pub lane: &'static str,
    pub lane_alt: &'static str,
    pub header: &'static str,
    pub dense: &'static str,
    pub park: &'static str,
    pub on_cpu: &'static str,
    pub off_cpu: &'static str,
    pub counter: &'static str,
    pub select: &'static str,
    pub brush: &'static str,
}

pub fn theme() -> Theme {
    let dark = crate::canvas::dark_mode();
    if dark {
        Theme {
            muted: "#98a3b3",
            grid: "rgba(255,255,255,0.08)",
            lane: "#1a1f27",
            lane_alt: "#1e242d",
            header: "#222832",
            dense: "#8a94a6",
            park: "rgba(255,255,255,0.18)",
            on_cpu: "#4cc38a",
            off_cpu: "#ff7b72",
            counter: "#6ea0ff",
            select: "#ffffff",
            brush: "rgba(110,160,255,0.18)",
        }
    } else {
        Theme {
            muted: "#5f6b7d",
            grid: "rgba(0,0,0,0.07)",
            lane: "#ffffff",
            lane_alt: "#f7f8fa",
            header: "#f0f2f5",
            dense: "#4a5568",
            park: "rgba(0,0,0,0.14)",
            on_cpu: "#1c7c4a",
            off_cpu: "#c0312b",
            counter: "#2f6fe4",
            select: "#111111",
            brush: "rgba(47,111,228,0.14)",
        }
    }
}

/// What a frame shows besides the scene, and which rows are in sight.
pub struct Overlay {
    /// How far the rows are scrolled (CSS pixels), and the canvas' height:
    /// only the rows in between are drawn, under a fixed time axis.
    pub top: f64,
    pub height: f64,
    pub selected: Option<PollRef>,
    /// A brushed window, axis ns.
    pub brush: Option<(f64, f64)>,
}

/// Reused between frames: no allocation per frame once warm.
#[derive(Default)]
pub struct Scratch {
    marks: Vec<Mark>,
    rects: Vec<(Colour, f64, f64)>,
    dense: Vec<(f64, f64, u32)>,
    ticks: Vec<f64>,
    points: Vec<(f64, u64)>,
    spans: Vec<(u8, Mark)>,
    /// The overview's lanes, drawn once per size and theme (they never move).
    overview: Option<(u32, u32, &'static str, web_sys::HtmlCanvasElement)>,
}

pub fn frame(ctx: &Ctx, scene: &Scene, view: &View, width: f64, overlay: &Overlay, th: &Theme, s: &mut Scratch) {
    let (top, height) = (overlay.top, overlay.height);
    ctx.set_fill_style_str(th.lane);
    ctx.fill_rect(0.0, 0.0, width, height);
    axis(ctx, view, width, height, th);
    ctx.save();
    ctx.begin_path();
    ctx.rect(0.0, AXIS_H, width, height - AXIS_H);
    ctx.clip();
    let first = scene.rows.partition_point(|r| r.y + r.h <= top);
    let mut spans_drawn = None;
    for (i, row) in scene.rows.iter().enumerate().skip(first) {
        let y = AXIS_H + row.y - top;
        if y >= height {
            break;
        }
        match &row.kind {
            RowKind::Header { group } => {
                ctx.set_fill_style_str(th.header);
                ctx.fill_rect(0.0, y, width, row.h);
                ctx.set_fill_style_str(th.muted);
                ctx.set_font("600 11px system-ui, sans-serif");
                let _ = ctx.fill_text(&scene.groups[*group].label, 6.0, y + 14.0);
            }
            RowKind::Worker { group, worker, .. } => {
                if i % 2 == 0 {
                    ctx.set_fill_style_str(th.lane_alt);
                    ctx.fill_rect(0.0, y, width, row.h);
                }
                worker_row(ctx, scene, *group, *worker, row, y, view, width, th, s);
            }
            RowKind::Counter { group, kind } => {
                counter_row(ctx, scene, *group, *kind, row, y, view, width, th, s);
            }
            // A group's span rows are drawn together, from the first in sight.
            RowKind::Spans { group, depth } if spans_drawn != Some(*group) => {
                spans_drawn = Some(*group);
                let y0 = y - f64::from(*depth) * row.h;
                span_rows(ctx, scene, *group, row, y0, view, width, th, s);
            }
            RowKind::Spans { .. } => {}
        }
    }
    if let Some(p) = overlay.selected {
        selection(ctx, scene, p, view, width, top, th);
    }
    if let Some((a, b)) = overlay.brush {
        let (x0, x1) = (view.x(a, width), view.x(b, width));
        ctx.set_fill_style_str(th.brush);
        ctx.fill_rect(x0, AXIS_H, (x1 - x0).max(1.0), height);
    }
    ctx.restore();
}

fn axis(ctx: &Ctx, view: &View, width: f64, height: f64, th: &Theme) {
    let target = (width / 110.0).max(2.0) as usize;
    let (_, ticks) = timeline::ticks(view, target);
    ctx.set_font("11px system-ui, sans-serif");
    for t in ticks {
        let x = view.x(t, width).round() + 0.5;
        ctx.set_fill_style_str(th.grid);
        ctx.fill_rect(x, AXIS_H, 1.0, height - AXIS_H);
        ctx.set_fill_style_str(th.muted);
        let _ = ctx.fill_text(&fmt_dur(t), x + 3.0, 15.0);
    }
}

#[allow(clippy::too_many_arguments)]
fn worker_row(
    ctx: &Ctx,
    scene: &Scene,
    group: usize,
    worker: u64,
    row: &Row,
    y: f64,
    view: &View,
    width: f64,
    th: &Theme,
    s: &mut Scratch,
) {
    let (top, h) = (y + 3.0, row.h - 6.0);
    s.rects.clear();
    s.dense.clear();
    for (f, l) in scene.lanes_of(group, worker) {
        let lane = &scene.files[f].lanes[l];
        let map = scene.maps[f];
        // Parks: a thin line through the middle (the worker slept).
        ctx.set_fill_style_str(th.park);
        let (lo, hi) = (map.ts(view.start), map.ts(view.end));
        let first = lane.parks.partition_point(|p| p.1 < lo);
        let mut last_x = f64::NEG_INFINITY;
        for &(ps, pe) in lane.parks[first..].iter().take_while(|p| p.0 <= hi) {
            let (x0, x1) = (view.x(map.axis(ps), width), view.x(map.axis(pe), width));
            if x1 - last_x >= 1.0 {
                ctx.fill_rect(x0, y + row.h / 2.0 - 0.5, (x1 - x0).max(1.0), 1.0);
                last_x = x1;
            }
        }
        s.marks.clear();
        poll_marks(&lane.polls, map, view, width, &mut s.marks);
        let colour = |i: u32| scene.task_colour[f][lane.polls.task[i as usize] as usize];
        split(&s.marks, colour, &mut s.rects, &mut s.dense);
        for (times, colour, at) in [
            (&lane.on_cpu, th.on_cpu, y),
            (&lane.off_cpu, th.off_cpu, y + row.h - 3.0),
        ] {
            s.ticks.clear();
            tick_marks(times, map, view, width, &mut s.ticks);
            ctx.set_fill_style_str(colour);
            for &x in &s.ticks {
                ctx.fill_rect(x, at, 1.0, 3.0);
            }
        }
    }
    fill_by_colour(ctx, &mut s.rects, top, h);
    fill_dense(ctx, &s.dense, top, h, th);
}

/// Marks → rectangles coloured by `colour(index)`, and density runs.
fn split<'m>(
    marks: impl IntoIterator<Item = &'m Mark>,
    colour: impl Fn(u32) -> Colour,
    rects: &mut Vec<(Colour, f64, f64)>,
    dense: &mut Vec<(f64, f64, u32)>,
) {
    for m in marks {
        match m.kind {
            MarkKind::One(i) => rects.push((colour(i), m.x0, m.x1)),
            MarkKind::Dense(c) => dense.push((m.x0, m.x1, c)),
        }
    }
}

/// Runs of intervals too narrow to draw apart: denser runs are darker.
fn fill_dense(ctx: &Ctx, dense: &[(f64, f64, u32)], top: f64, h: f64, th: &Theme) {
    ctx.set_fill_style_str(th.dense);
    for &(x0, x1, count) in dense {
        ctx.set_global_alpha((0.35 + 0.15 * f64::from(count).log2()).min(0.9));
        ctx.fill_rect(x0.floor(), top, x1.ceil() - x0.floor(), h);
    }
    ctx.set_global_alpha(1.0);
}

/// Fills rectangles one path per colour (a colour change costs more than a rectangle).
fn fill_by_colour(ctx: &Ctx, rects: &mut [(Colour, f64, f64)], top: f64, h: f64) {
    rects.sort_unstable_by_key(|r| (r.0.hue, r.0.saturation, r.0.lightness));
    let mut i = 0;
    while i < rects.len() {
        let colour = rects[i].0;
        ctx.set_fill_style_str(&colour.css());
        ctx.begin_path();
        while i < rects.len() && rects[i].0 == colour {
            // Whole pixels: no anti-aliased edges to raster.
            let (_, x0, x1) = rects[i];
            let x0 = x0.floor();
            ctx.rect(x0, top, (x1.ceil() - x0).max(1.0), h);
            i += 1;
        }
        ctx.fill();
    }
}

#[allow(clippy::too_many_arguments)]
fn counter_row(
    ctx: &Ctx,
    scene: &Scene,
    group: usize,
    kind: timeline::CounterKind,
    row: &Row,
    y: f64,
    view: &View,
    width: f64,
    th: &Theme,
    s: &mut Scratch,
) {
    ctx.set_fill_style_str(th.grid);
    ctx.fill_rect(0.0, y + row.h - 1.0, width, 1.0);
    let counters: Vec<(usize, &timeline::Counter)> = scene.groups[group]
        .files
        .iter()
        .flat_map(|&f| {
            scene.files[f]
                .counters
                .iter()
                .filter(|c| c.kind == kind)
                .map(move |c| (f, c))
        })
        .collect();
    let max = counters
        .iter()
        .flat_map(|(_, c)| c.points.iter().map(|p| p.1))
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let (base, h) = (y + row.h - 2.0, row.h - 6.0);
    ctx.set_fill_style_str(th.counter);
    ctx.set_global_alpha(0.55);
    for (f, c) in counters {
        s.points.clear();
        counter_marks(&c.points, scene.maps[f], view, width, &mut s.points);
        let end = view.x(scene.maps[f].axis(scene.files[f].end), width).min(width);
        for (k, &(x, v)) in s.points.iter().enumerate() {
            let next = s.points.get(k + 1).map_or(end, |p| p.0);
            let bar = v as f64 / max * h;
            ctx.fill_rect(x, base - bar, (next - x).max(1.0), bar);
        }
    }
    ctx.set_global_alpha(1.0);
    ctx.set_fill_style_str(th.muted);
    ctx.set_font("10px system-ui, sans-serif");
    let peak = match kind {
        timeline::CounterKind::KernelWait { .. } => fmt_dur(max),
        timeline::CounterKind::Allocated => d9lens_core::fmt::bytes(max as u64),
        timeline::CounterKind::GlobalQueue | timeline::CounterKind::ActiveTasks => format!("{max}"),
    };
    let _ = ctx.fill_text(&format!("max {peak}"), width - 70.0, y + 11.0);
}

/// Every span row of a group, from the rows' first (depth 0): each row as
/// a worker's polls are (spans by name colour, narrow runs as density).
#[allow(clippy::too_many_arguments)]
fn span_rows(
    ctx: &Ctx,
    scene: &Scene,
    group: usize,
    first: &Row,
    y: f64,
    view: &View,
    width: f64,
    th: &Theme,
    s: &mut Scratch,
) {
    ctx.set_font("10px system-ui, sans-serif");
    for &f in &scene.groups[group].files {
        let file = &scene.files[f];
        s.spans.clear();
        span_marks(&file.spans, scene.maps[f], view, width, &mut s.spans);
        for marks in s.spans.chunk_by(|a, b| a.0 == b.0) {
            let top = y + f64::from(marks[0].0) * first.h;
            s.rects.clear();
            s.dense.clear();
            let colour = |i: u32| scene.string_colour[f][file.spans.name[i as usize] as usize];
            split(marks.iter().map(|(_, m)| m), colour, &mut s.rects, &mut s.dense);
            fill_by_colour(ctx, &mut s.rects, top + 1.0, first.h - 2.0);
            fill_dense(ctx, &s.dense, top + 1.0, first.h - 2.0, th);
            ctx.set_fill_style_str("#fff");
            for (_, m) in marks.iter().filter(|(_, m)| m.x1 - m.x0 > 40.0) {
                let MarkKind::One(i) = m.kind else { continue };
                let name = file.spans.name[i as usize] as usize;
                let x = m.x0.max(0.0) + 2.0;
                let _ = ctx.fill_text_with_max_width(
                    &file.strings[name],
                    x,
                    top + 10.5,
                    (m.x1.min(width) - x - 2.0).max(0.0),
                );
            }
        }
    }
}

fn selection(ctx: &Ctx, scene: &Scene, p: PollRef, view: &View, width: f64, top: f64, th: &Theme) {
    let Some(row) = scene.rows.iter().find(|r| {
        matches!(&r.kind, RowKind::Worker { group, worker, .. }
            if scene.groups[*group].files.contains(&p.file) && *worker == scene.files[p.file].lanes[p.lane].worker)
    }) else {
        return;
    };
    let (a, b) = scene.poll_span(p);
    let (x0, x1) = (view.x(a, width), view.x(b, width).max(view.x(a, width) + 1.0));
    ctx.set_stroke_style_str(th.select);
    ctx.set_line_width(2.0);
    ctx.stroke_rect(x0 - 1.0, AXIS_H + row.y - top + 1.0, x1 - x0 + 2.0, row.h - 2.0);
}

/// The overview strip: every lane's polls at full extent, and the window in view.
pub fn overview(ctx: &Ctx, scene: &Scene, view: &View, width: f64, height: f64, th: &Theme, s: &mut Scratch) {
    let dpr = pixel_ratio();
    let (w, h) = ((width * dpr).round() as u32, (height * dpr).round() as u32);
    let cached = s
        .overview
        .as_ref()
        .filter(|c| (c.0, c.1, c.2) == (w, h, th.dense))
        .map(|c| c.3.clone());
    let lanes = match cached {
        Some(lanes) => lanes,
        None => {
            let Some((lanes, lctx)) = offscreen(w, h, dpr) else {
                return;
            };
            overview_lanes(&lctx, scene, width, height, th, s);
            s.overview = Some((w, h, th.dense, lanes.clone()));
            lanes
        }
    };
    let _ = ctx.draw_image_with_html_canvas_element_and_dw_and_dh(&lanes, 0.0, 0.0, width, height);
    let all = scene.view();
    let (x0, x1) = (all.x(view.start, width), all.x(view.end, width));
    ctx.set_fill_style_str(th.brush);
    ctx.fill_rect(x0, 0.0, (x1 - x0).max(2.0), height);
    ctx.set_stroke_style_str(th.counter);
    ctx.set_line_width(1.0);
    ctx.stroke_rect(x0 + 0.5, 0.5, (x1 - x0).max(2.0) - 1.0, height - 1.0);
}

/// Every lane of every file at full extent, one thin row each.
fn overview_lanes(ctx: &Ctx, scene: &Scene, width: f64, height: f64, th: &Theme, s: &mut Scratch) {
    ctx.set_fill_style_str(th.header);
    ctx.fill_rect(0.0, 0.0, width, height);
    let all = scene.view();
    let lanes: Vec<(usize, usize)> = scene
        .files
        .iter()
        .enumerate()
        .flat_map(|(f, file)| (0..file.lanes.len()).map(move |l| (f, l)))
        .collect();
    let h = (height / lanes.len().max(1) as f64).max(1.0);
    ctx.set_fill_style_str(th.dense);
    for (k, &(f, l)) in lanes.iter().enumerate() {
        s.marks.clear();
        poll_marks(&scene.files[f].lanes[l].polls, scene.maps[f], &all, width, &mut s.marks);
        let y = (k as f64 * h).min(height - 1.0);
        for m in &s.marks {
            ctx.fill_rect(m.x0, y, (m.x1 - m.x0).max(1.0), h);
        }
    }
}
