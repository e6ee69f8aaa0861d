//! The page's URL fragment: reading and replacing it (the core says what
//! it means: `bucket::link`, `timeline::link`).

use d9lens_core::bucket::link::BucketLink;

/// The current fragment's state, if it is an S3 state.
pub fn read() -> Option<BucketLink> {
    let hash = web_sys::window()?.location().hash().ok()?;
    BucketLink::from_fragment(&hash)
}

/// Replaces the fragment (no new history entry, no reload), keeping the
/// timeline's part of it.
pub fn write(state: &BucketLink) {
    let Some(window) = web_sys::window() else { return };
    replace_fragment(&window, &read_timeline().apply(&state.to_fragment()));
}

/// The timeline's part of the current fragment (view, poll, window).
pub fn read_timeline() -> d9lens_core::timeline::TimelineLink {
    let hash = web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    d9lens_core::timeline::TimelineLink::from_fragment(&hash)
}

/// Replaces the timeline's part of the fragment, keeping the rest.
pub fn write_timeline(link: &d9lens_core::timeline::TimelineLink) {
    let Some(window) = web_sys::window() else { return };
    let hash = window.location().hash().unwrap_or_default();
    replace_fragment(&window, &link.apply(&hash));
}

/// Replaces the fragment (no new history entry, no reload); an empty one removes it.
fn replace_fragment(window: &web_sys::Window, fragment: &str) {
    let url = if fragment.is_empty() {
        window.location().pathname().unwrap_or_default() + &window.location().search().unwrap_or_default()
    } else {
        format!("#{fragment}")
    };
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

/// The fragment of a page showing the bundled demo trace.
pub const DEMO: &str = "demo";

/// Whether the page was opened on the demo trace (`#demo…`).
pub fn opens_demo() -> bool {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .is_some_and(|h| h.trim_start_matches('#').split('&').next() == Some(DEMO))
}

/// Starts the fragment of a new run over: `base` (`demo`, or nothing for
/// dropped files, which no link can reopen), with no timeline keys.
pub fn start_run(base: &str) {
    if let Some(window) = web_sys::window() {
        replace_fragment(&window, base);
    }
}
