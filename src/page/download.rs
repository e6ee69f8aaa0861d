//! Files the page makes (exports) offered as downloads.

use crate::page::session::AppState;
use d9lens_core::analysis::inspect::{InspectAnswer, InspectQuery};
use d9lens_core::export::chrome::{ChromeFile, write_chrome};
use leptos::prelude::GetUntracked;
use wasm_bindgen::JsCast;

/// Offers `bytes` as a download named `name`.
pub fn save(name: &str, bytes: &[u8], mime: &str) {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    let anchor = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("a").ok())
        .and_then(|a| a.dyn_into::<web_sys::HtmlAnchorElement>().ok());
    if let Some(a) = anchor {
        a.set_href(&url);
        a.set_download(name);
        a.click();
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// The run's Chrome trace (`d9lens export --format chrome`): the files'
/// timelines the page holds, with the wakes each file's worker finds again
/// (the arrows from waker to woken); offered once every file has answered. A
/// file whose worker fails is exported without its arrows.
pub fn chrome_trace(state: AppState) {
    let Some(scene) = state.scene.get_untracked() else {
        return;
    };
    let asks = scene
        .files
        .iter()
        .map(|t| (t.file.clone(), InspectQuery::Wakes))
        .collect();
    state.inspect_each(asks, move |answers| {
        let files: Vec<ChromeFile> = scene
            .files
            .iter()
            .zip(answers)
            .map(|(timeline, answer)| match answer {
                Ok(InspectAnswer::Wakes { by_task, total }) => {
                    let mut file = ChromeFile::new(timeline.clone(), &by_task);
                    file.wake_count = total;
                    file
                }
                _ => ChromeFile::new(timeline.clone(), &[]),
            })
            .collect();
        let mut out = Vec::new();
        if write_chrome(&files, &mut out).is_ok() {
            save("d9lens-trace.json", &out, "application/json");
        }
    });
}
