//! Painting a flamegraph on a 2D canvas: the core picks the nodes in sight
//! (`FlameGraph::rects`, thin ones left out); this turns them into boxes
//! coloured by where the code comes from, with their text where it fits.

use d9lens_core::profile::flame::{FlameGraph, Rect, Search};
use d9lens_core::profile::origin::Origin;
use web_sys::CanvasRenderingContext2d as Ctx;

/// One row of the icicle, CSS pixels.
pub const ROW_H: f64 = 18.0;
/// Narrower nodes are not drawn (nor anything under them).
pub const MIN_W: f64 = 0.75;
/// Ancestors kept above the focused node.
pub const ANCESTORS: u32 = 6;
/// Rows drawn at most (the panel scrolls beyond).
pub const MAX_ROWS: u32 = 160;
/// Approximate width of a character of the label font.
const CHAR_W: f64 = 6.4;

/// Fill colours per origin: two shades each, picked by a hash of the text so
/// neighbours stay apart.
pub fn colour(origin: Origin, dark: bool, shade: bool) -> &'static str {
    match (origin, dark, shade) {
        (Origin::App, false, false) => "#f29e4c",
        (Origin::App, false, true) => "#f4b26e",
        (Origin::App, true, false) => "#c8752d",
        (Origin::App, true, true) => "#b06422",
        (Origin::Dependency, false, false) => "#e8d26b",
        (Origin::Dependency, false, true) => "#efdd8f",
        (Origin::Dependency, true, false) => "#a8952f",
        (Origin::Dependency, true, true) => "#958422",
        (Origin::Runtime, false, false) => "#8fb3e8",
        (Origin::Runtime, false, true) => "#a6c3ee",
        (Origin::Runtime, true, false) => "#3d6aa8",
        (Origin::Runtime, true, true) => "#335d96",
        (Origin::System, false, false) => "#9fd4b0",
        (Origin::System, false, true) => "#b5dec2",
        (Origin::System, true, false) => "#3f8a5b",
        (Origin::System, true, true) => "#357a4f",
        (Origin::Kernel, false, false) => "#e57f7f",
        (Origin::Kernel, false, true) => "#ec9a9a",
        (Origin::Kernel, true, false) => "#a84646",
        (Origin::Kernel, true, true) => "#963a3a",
        (Origin::Unresolved, false, _) => "#c4c8cf",
        (Origin::Unresolved, true, _) => "#5a616b",
    }
}

pub struct Paint<'a> {
    pub graph: &'a FlameGraph,
    pub rects: &'a [Rect],
    pub search: Option<&'a Search>,
    pub selected: Option<u32>,
    pub dark: bool,
}

pub fn frame(ctx: &Ctx, p: &Paint<'_>, width: f64, height: f64) {
    ctx.clear_rect(0.0, 0.0, width, height);
    ctx.set_font("11px ui-monospace, SFMono-Regular, Menlo, monospace");
    ctx.set_text_baseline("middle");
    let text_colour = if p.dark { "#f3f4f6" } else { "#1b1f24" };
    for r in p.rects {
        let label = p.graph.label(r.node);
        let hash = label
            .text
            .bytes()
            .fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
        let dimmed = p.search.is_some_and(|s| !s.hits[r.node as usize]);
        ctx.set_global_alpha(if dimmed { 0.35 } else { 1.0 });
        match p.graph.change(r.node) {
            Some(c) => ctx.set_fill_style_str(&change_colour(c.after - c.before, p.dark)),
            None => ctx.set_fill_style_str(colour(label.origin, p.dark, hash % 2 == 1)),
        }
        // Whole pixels, a pixel's gap between neighbours when wide enough.
        let (x, y) = (r.x.floor(), f64::from(r.row) * ROW_H);
        let w = (r.x + r.width).floor() - x;
        let w = if w >= 3.0 { w - 1.0 } else { w.max(1.0) };
        ctx.fill_rect(x, y, w, ROW_H - 1.0);
        if w > 3.0 * CHAR_W {
            let fits = ((w - 6.0) / CHAR_W) as usize;
            let text = fit(&label.text, fits);
            ctx.set_fill_style_str(text_colour);
            let _ = ctx.fill_text(&text, x + 3.0, y + ROW_H / 2.0);
        }
    }
    ctx.set_global_alpha(1.0);
    if let Some(r) = p.selected.and_then(|s| p.rects.iter().find(|r| r.node == s)) {
        ctx.set_stroke_style_str(text_colour);
        ctx.set_line_width(2.0);
        let y = f64::from(r.row) * ROW_H;
        ctx.stroke_rect(r.x.floor() + 1.0, y + 1.0, (r.width - 2.0).max(1.0), ROW_H - 3.0);
    }
}

/// A differential node: red for a grown share, blue for a shrunk one, the
/// stronger the larger the move (full at ten points of the samples).
fn change_colour(delta: f64, dark: bool) -> String {
    let t = (delta.abs() / 0.10).sqrt().min(1.0);
    let (base, full) = if dark { (70.0, 200.0) } else { (235.0, 255.0) };
    let fade = |from: f64, to: f64| (from + (to - from) * t).round() as u8;
    let (r, g, b) = match (delta > 0.0, dark) {
        (true, false) => (full as u8, fade(base, 90.0), fade(base, 90.0)),
        (true, true) => (fade(base, full), fade(base, 60.0), fade(base, 60.0)),
        (false, false) => (fade(base, 80.0), fade(base, 130.0), full as u8),
        (false, true) => (fade(base, 70.0), fade(base, 110.0), fade(base, full)),
    };
    format!("rgb({r},{g},{b})")
}

/// `text` cut to `chars` characters, an ellipsis marking the cut.
fn fit(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        return text.to_string();
    }
    let mut out: String = text.chars().take(chars.saturating_sub(1)).collect();
    out.push('…');
    out
}
