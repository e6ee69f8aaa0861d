//! URLs of the page's own files that its wasm opens by name. The build gives each
//! a content hash in its name (`scripts/hash-assets.mjs`) and writes the hashed
//! name into a `<meta name="d9lens-asset" id=…>` tag of index.html; without the
//! tag (wasm tests) the worker's plain name is used.

/// The analysis worker's script (trunk's loader shim for the `worker` binary).
pub fn worker_script() -> String {
    asset("asset-worker", "./worker_loader.js")
}

/// dial9's demo trace (gzip despite its `.bin` name), where the build ships it (the
/// single-file build does not).
pub fn demo_trace() -> Option<String> {
    meta("asset-demo-trace")
}

fn asset(id: &str, plain: &str) -> String {
    meta(id).unwrap_or_else(|| plain.to_owned())
}

fn meta(id: &str) -> Option<String> {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
        .and_then(|m| m.get_attribute("content"))
}
