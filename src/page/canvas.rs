//! Canvases drawn from wasm at the device's pixel ratio, in CSS pixels.

use wasm_bindgen::JsCast;
use web_sys::CanvasRenderingContext2d as Ctx;

/// Whether the page follows a dark system theme.
pub fn dark_mode() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches())
}

/// Device pixels per CSS pixel.
pub fn pixel_ratio() -> f64 {
    web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).max(1.0)
}

/// A canvas' 2D context, drawing in CSS pixels at `dpr` device pixels each.
fn context(canvas: &web_sys::HtmlCanvasElement, dpr: f64) -> Option<Ctx> {
    let ctx: Ctx = canvas.get_context("2d").ok()??.dyn_into().ok()?;
    ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0).ok()?;
    Some(ctx)
}

/// Sizes a canvas to its CSS width (and `css_height`) at the device's pixel
/// ratio; its context and CSS width.
pub fn prepare(canvas: &web_sys::HtmlCanvasElement, css_height: f64) -> Option<(Ctx, f64)> {
    let dpr = pixel_ratio();
    let css_width = f64::from(canvas.client_width()).max(1.0);
    let (w, h) = ((css_width * dpr).round() as u32, (css_height * dpr).round() as u32);
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
    }
    let _ = web_sys::HtmlElement::style(canvas).set_property("height", &format!("{css_height}px"));
    Some((context(canvas, dpr)?, css_width))
}

/// A canvas outside the page, `w` × `h` device pixels, drawn in CSS pixels.
pub fn offscreen(w: u32, h: u32, dpr: f64) -> Option<(web_sys::HtmlCanvasElement, Ctx)> {
    let canvas: web_sys::HtmlCanvasElement = web_sys::window()?
        .document()?
        .create_element("canvas")
        .ok()?
        .dyn_into()
        .ok()?;
    canvas.set_width(w);
    canvas.set_height(h);
    let ctx = context(&canvas, dpr)?;
    Some((canvas, ctx))
}
