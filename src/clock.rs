//! Elapsed time for progress and measurements: the browser's monotonic clock
//! (`performance.now()`), in the page and in workers alike.

use wasm_bindgen::{JsCast, JsValue};

/// Milliseconds since the page (or worker) started.
pub fn now_ms() -> f64 {
    performance().map_or_else(js_sys::Date::now, |p| p.now())
}

/// Milliseconds since the Unix epoch, precise like `now_ms` and comparable
/// between the page and its workers (each has its own `now_ms` origin).
pub fn epoch_ms() -> f64 {
    performance().map_or_else(js_sys::Date::now, |p| p.time_origin() + p.now())
}

fn performance() -> Option<web_sys::Performance> {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("performance"))
        .ok()
        .and_then(|p| p.dyn_into().ok())
}
