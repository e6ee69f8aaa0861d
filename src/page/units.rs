//! Small display helpers that are not part of the reference report's numbers
//! (those come from `d9lens_core::fmt`).

pub use d9lens_core::fmt::bytes;

/// Milliseconds of wall time for people: `850 ms`, `2.4 s`.
pub fn elapsed(ms: f64) -> String {
    if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}

/// Unix-epoch nanoseconds as an ISO-8601 UTC timestamp.
pub fn wall_clock(ns: i64) -> String {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ns as f64 / 1e6));
    String::from(date.to_iso_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn byte_counts() {
        assert_eq!(super::bytes(812), "812 B");
        assert_eq!(super::bytes(1_246_694), "1.25 MB");
        assert_eq!(super::bytes(12_300_000), "12.3 MB");
        assert_eq!(super::bytes(4_171_054_000), "4.17 GB");
    }
}
