//! Elapsed time for progress and measurements: the browser's monotonic clock
//! (`performance.now()`), in the page and in workers alike.

use wasm_bindgen::{JsCast, JsValue};

/// Milliseconds since the page (or worker) started.
pub fn now_ms() -> f64 {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("performance"))
        .ok()
        .and_then(|p| p.dyn_into::<web_sys::Performance>().ok())
        .map_or_else(js_sys::Date::now, |p| p.now())
}
