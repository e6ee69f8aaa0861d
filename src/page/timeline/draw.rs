//! Painting the timeline on a 2D canvas: what to draw comes from the core
//! (`timeline::poll_marks` and friends, a bounded number of marks per lane
//! whatever the zoom); this only turns marks into rectangles. Lanes, counter
//! and span rows are filled as pixels in wasm and put once a row (thousands
//! of canvas rectangles a frame cost more to raster than the pixels do);
//! headers, text, the grid and the selection are canvas calls.

use crate::page::canvas::{offscreen, pixel_ratio};
use d9lens_core::fmt::fmt_dur;
use d9lens_core::timeline::{
    self, Mark, MarkKind, PollRef, Rgb, Row, RowKind, RowPixels, Scene, View, counter_marks, park_marks, poll_marks,
    span_marks, tick_marks,
};
use wasm_bindgen::Clamped;
use web_sys::{CanvasRenderingContext2d as Ctx, ImageData};

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
    let dark = crate::page::canvas::dark_mode();
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

/// A theme colour (`#rrggbb` or `rgba(r,g,b,a)`) as bytes and opacity.
fn rgba(css: &str) -> ([u8; 3], f64) {
    if let Some(hex) = css.strip_prefix('#') {
        let byte = |i: usize| {
            hex.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .unwrap_or(0)
        };
        return ([byte(0), byte(2), byte(4)], 1.0);
    }
    let parts: Vec<f64> = css
        .trim_start_matches("rgba(")
        .trim_end_matches(')')
        .split(',')
        .filter_map(|p| p.trim().parse().ok())
        .collect();
    match parts[..] {
        [r, g, b, a] => ([r as u8, g as u8, b as u8], a),
        _ => ([0, 0, 0], 1.0),
    }
}

/// Puts a row's pixels on the canvas with its top at `y` (CSS), but for
/// what lies under the time axis.
fn put(ctx: &Ctx, px: &RowPixels, y: f64) {
    let ((w, h), scale) = (px.size(), px.scale());
    let hidden = ((AXIS_H - y).max(0.0) * scale).round().min(h as f64);
    let words = px.words();
    // SAFETY: any u32 is 4 initialized bytes; the slice covers the same memory.
    let bytes = unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), 4 * words.len()) };
    let Ok(image) = ImageData::new_with_u8_clamped_array_and_sh(Clamped(bytes), w as u32, h as u32) else {
        return;
    };
    let _ = ctx.put_image_data_with_dirty_x_and_dirty_y_and_dirty_width_and_dirty_height(
        &image,
        0.0,
        (y * scale).round(),
        0.0,
        hidden,
        w as f64,
        h as f64 - hidden,
    );
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
    ticks: Vec<f64>,
    points: Vec<(f64, u64)>,
    parks: Vec<(f64, f64)>,
    /// A lane's or a counter row's pixels.
    pixels: Vec<u32>,
    spans: Vec<(u8, Mark)>,
    /// The overview's lanes, drawn once per size and theme (they never move).
    overview: Option<(u32, u32, &'static str, web_sys::HtmlCanvasElement)>,
}

pub fn frame(ctx: &Ctx, scene: &Scene, view: &View, width: f64, overlay: &Overlay, th: &Theme, s: &mut Scratch) {
    let (top, height) = (overlay.top, overlay.height);
    ctx.set_fill_style_str(th.lane);
    ctx.fill_rect(0.0, 0.0, width, height);
    axis(ctx, view, width, th);
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
                let background = if i % 2 == 0 { th.lane_alt } else { th.lane };
                worker_row(ctx, scene, *group, *worker, row, y, view, width, th, background, s);
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
    grid(ctx, view, width, height, th);
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

/// The time axis' labels, where `grid` draws its lines.
fn axis(ctx: &Ctx, view: &View, width: f64, th: &Theme) {
    ctx.set_font("11px system-ui, sans-serif");
    ctx.set_fill_style_str(th.muted);
    for t in axis_ticks(view, width) {
        let _ = ctx.fill_text(&fmt_dur(t), view.x(t, width).round() + 3.5, 15.0);
    }
}

/// The axis' lines over the rows (drawn after them: rows put as pixels
/// would cover lines drawn before).
fn grid(ctx: &Ctx, view: &View, width: f64, height: f64, th: &Theme) {
    ctx.set_fill_style_str(th.grid);
    for t in axis_ticks(view, width) {
        ctx.fill_rect(view.x(t, width).round() + 0.5, AXIS_H, 1.0, height - AXIS_H);
    }
}

fn axis_ticks(view: &View, width: f64) -> Vec<f64> {
    timeline::ticks(view, (width / 110.0).max(2.0) as usize).1
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
    background: &str,
    s: &mut Scratch,
) {
    let (top, bottom) = (3.0, row.h - 3.0);
    let (park, park_alpha) = rgba(th.park);
    let dense = rgba(th.dense).0;
    // On-CPU samples along the top, off-CPU along the bottom.
    let ticks = [(rgba(th.on_cpu).0, 0.0), (rgba(th.off_cpu).0, row.h - 3.0)];
    let mut px = RowPixels::new(&mut s.pixels, width, row.h, pixel_ratio(), rgba(background).0);
    for (f, l) in scene.lanes_of(group, worker) {
        let lane = &scene.files[f].lanes[l];
        let map = scene.maps[f];
        // Parks: a thin line through the middle (the worker slept).
        s.parks.clear();
        park_marks(&lane.parks, map, view, width, &mut s.parks);
        for &(x0, x1) in &s.parks {
            px.fill(x0, x1, row.h / 2.0 - 0.5, row.h / 2.0 + 0.5, park, park_alpha);
        }
        s.marks.clear();
        poll_marks(&lane.polls, map, view, width, &mut s.marks);
        for m in &s.marks {
            fill_mark(&mut px, m, top, bottom, dense, |i| {
                scene.task_colour[f][lane.polls.task.get(i as usize) as usize].rgb()
            });
        }
        for (times, (colour, at)) in [&lane.on_cpu, &lane.off_cpu].into_iter().zip(ticks) {
            s.ticks.clear();
            tick_marks(times, map, view, width, &mut s.ticks);
            for &x in &s.ticks {
                px.fill(x, x + 1.0, at, at + 3.0, colour, 1.0);
            }
        }
    }
    put(ctx, &px, y);
}

/// A mark of a lane or a span row between `top` and `bottom`: one interval
/// in its colour, or a run too narrow to draw apart in `dense`, darker the
/// more it holds.
fn fill_mark(px: &mut RowPixels, m: &Mark, top: f64, bottom: f64, dense: Rgb, colour: impl FnOnce(u32) -> Rgb) {
    let (x0, x1) = (m.x0.floor(), m.x1.ceil());
    match m.kind {
        MarkKind::One(i) => px.fill(x0, x1, top, bottom, colour(i), 1.0),
        MarkKind::Dense(count) => {
            let alpha = (0.35 + 0.15 * f64::from(count).log2()).min(0.9);
            px.fill(x0, x1, top, bottom, dense, alpha);
        }
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
    let peak = counters.iter().filter_map(|(_, c)| c.max()).max().unwrap_or(0).max(1);
    let max = peak.max(kind.full_scale().unwrap_or(0)) as f64;
    // A bar per pixel column: drawn into the row's own pixels and put at
    // once (a rectangle each would cost a canvas call and a blend each).
    let (bottom, tallest) = (row.h - 2.0, row.h - 6.0);
    let mut px = RowPixels::new(&mut s.pixels, width, row.h, pixel_ratio(), rgba(th.lane).0);
    let (bar, _) = rgba(th.counter);
    for (f, c) in counters {
        s.points.clear();
        counter_marks(c, scene.maps[f], view, width, &mut s.points);
        let end = view.x(scene.maps[f].axis(scene.files[f].end), width).min(width);
        for (k, &(x, v)) in s.points.iter().enumerate() {
            let next = s.points.get(k + 1).map_or(end, |p| p.0);
            px.fill(x, next, bottom - v as f64 / max * tallest, bottom, bar, 0.55);
        }
    }
    put(ctx, &px, y);
    ctx.set_fill_style_str(th.grid);
    ctx.fill_rect(0.0, y + row.h - 1.0, width, 1.0);
    ctx.set_fill_style_str(th.muted);
    ctx.set_font("10px system-ui, sans-serif");
    let peak = match kind {
        timeline::CounterKind::KernelWait { .. } => fmt_dur(peak as f64),
        timeline::CounterKind::Allocated => d9lens_core::fmt::bytes(peak),
        timeline::CounterKind::ProcessCpu { .. } => {
            format!("{} cores", d9lens_core::fmt::to_fixed(peak as f64 / 1e3, 2))
        }
        timeline::CounterKind::GlobalQueue
        | timeline::CounterKind::ActiveTasks
        | timeline::CounterKind::AcceptQueue { .. } => {
            format!("{peak}")
        }
    };
    let _ = ctx.fill_text(&format!("max {peak}"), width - 70.0, y + 11.0);
}

/// Every span row of a group, from the rows' first (depth 0): each row as
/// a worker's polls are (spans by name colour, narrow runs as density), in
/// one buffer of pixels, then the names of spans wide enough to hold one.
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
    let rows = scene
        .rows
        .iter()
        .filter(|r| matches!(r.kind, RowKind::Spans { group: g, .. } if g == group))
        .count();
    let mut px = RowPixels::new(
        &mut s.pixels,
        width,
        rows as f64 * first.h,
        pixel_ratio(),
        rgba(th.lane).0,
    );
    let (dense, _) = rgba(th.dense);
    s.spans.clear();
    // Each file's marks, appended in turn: (file, first mark).
    let mut from = Vec::with_capacity(scene.groups[group].files.len());
    for &f in &scene.groups[group].files {
        let file = &scene.files[f];
        from.push((f, s.spans.len()));
        span_marks(&file.spans, scene.maps[f], view, width, &mut s.spans);
        for (depth, m) in &s.spans[from[from.len() - 1].1..] {
            let top = f64::from(*depth) * first.h + 1.0;
            fill_mark(&mut px, m, top, top + first.h - 2.0, dense, |i| {
                scene.string_colour[f][file.spans.name.get(i as usize) as usize].rgb()
            });
        }
    }
    put(ctx, &px, y);
    ctx.set_font("10px system-ui, sans-serif");
    ctx.set_fill_style_str("#fff");
    for (k, &(f, start)) in from.iter().enumerate() {
        let end = from.get(k + 1).map_or(s.spans.len(), |n| n.1);
        let file = &scene.files[f];
        for &(depth, m) in s.spans[start..end].iter().filter(|(_, m)| m.x1 - m.x0 > 40.0) {
            let MarkKind::One(i) = m.kind else { continue };
            let name = file.spans.name.get(i as usize) as usize;
            let x = m.x0.max(0.0) + 2.0;
            let top = y + f64::from(depth) * first.h;
            let _ =
                ctx.fill_text_with_max_width(&file.strings[name], x, top + 10.5, (m.x1.min(width) - x - 2.0).max(0.0));
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
