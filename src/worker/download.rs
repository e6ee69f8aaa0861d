//! A worker's download of one S3 segment (presigned by the page), or its
//! copy from the segment cache, and how many of its downloads run at once.

use crate::net::{cache, client};
use async_lock::Semaphore;
use d9lens_core::bucket::cached::CachedObject;
use d9lens_core::run::ahead;
use d9lens_core::s3::{HttpRequest, Method};
use std::cell::RefCell;
use std::sync::Arc;

thread_local! {
    /// This worker's turns to download: a download waits for one before its
    /// request, so before its deadline.
    static TURNS: RefCell<Arc<Semaphore>> = RefCell::new(Arc::new(Semaphore::new(ahead::MAX_DOWNLOADS)));
}

/// Sets how many downloads this worker runs at once (the pool's `WarmUp`,
/// before any file).
pub fn set_share(downloads: usize) {
    TURNS.replace(Arc::new(Semaphore::new(downloads.max(1))));
}

/// The segment's bytes and whether they came from the cache.
/// Attempts follow the core's `Exchange` (`client::drive`; a presigned URL: no fixes).
/// Only a body of the listed size is cached (if the run writes this one) or
/// taken from the cache.
pub async fn load_segment(url: &str, cached: Option<&CachedObject>) -> Result<(Vec<u8>, bool), String> {
    if let Some(object) = cached
        && let Some(buffer) = cache::get(object.id()).await
    {
        if object.holds(u64::from(buffer.byte_length())) {
            return Ok((js_sys::Uint8Array::new(&buffer).to_vec(), true));
        }
        cache::delete(object.id()).await;
    }
    let request = HttpRequest {
        method: Method::Get,
        url: url.to_owned(),
        headers: Vec::new(),
        body: None,
    };
    let turn = TURNS.with_borrow(Arc::clone).acquire_arc().await;
    let response = client::drive(None, || request.clone())
        .await
        .map_err(|error| format!("Download failed: {} Fix: {}", error.cause(), error.fix()))?;
    drop(turn);
    if let Some(object) = cached.filter(|o| o.keeps(response.body.len() as u64)) {
        // Written in the background: the analysis need not wait for the
        // browser's storage.
        wasm_bindgen_futures::spawn_local(cache::put(object.id(), &response.body));
    }
    Ok((response.body, false))
}
