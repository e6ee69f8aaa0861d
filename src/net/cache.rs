//! Downloaded segment bytes in Cache Storage, by the object's identity
//! (`CachedObject`: endpoint, bucket, key and version), so a reload or a
//! second analysis of the same segments downloads nothing.
//!
//! Works in the page and in workers (both have `caches`). Entries carry their
//! size and last use in headers; [`evict`] drops the least recently used ones
//! beyond a cap. Which downloads are written, and when a hit records its use,
//! is the core's policy (`d9lens_core::bucket::cached`). Objects without an
//! ETag are never cached (a changed object could not be told apart). The
//! cache URL holds no credentials.

use d9lens_core::bucket::cached;
use d9lens_core::s3::encode::uri_encode;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

pub const CACHE_NAME: &str = "d9lens-segments-v1";
const SIZE_HEADER: &str = "x-d9lens-size";
const USED_HEADER: &str = "x-d9lens-used";

fn caches() -> Option<web_sys::CacheStorage> {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("caches"))
        .ok()
        .filter(|c| !c.is_undefined() && !c.is_null())
        .map(|c| c.unchecked_into())
}

async fn open() -> Option<web_sys::Cache> {
    let cache = JsFuture::from(caches()?.open(CACHE_NAME)).await.ok()?;
    Some(cache.unchecked_into())
}

/// The (same-origin, never fetched) URL an entry is stored under.
pub fn entry_url(id: &str) -> String {
    format!(
        "{}/__d9lens-cache/{}",
        crate::net::fetch::origin(),
        uri_encode(id, true)
    )
}

/// The cached bytes of the object `id`, marking the entry as just used.
pub async fn get(id: &str) -> Option<js_sys::ArrayBuffer> {
    let cache = open().await?;
    let url = entry_url(id);
    let hit = JsFuture::from(cache.match_with_str(&url)).await.ok()?;
    if hit.is_undefined() {
        return None;
    }
    let response: web_sys::Response = hit.unchecked_into();
    let used = header_u64(&response, USED_HEADER).unwrap_or(0);
    let buffer: js_sys::ArrayBuffer = JsFuture::from(response.array_buffer().ok()?)
        .await
        .ok()?
        .unchecked_into();
    // Records the use (LRU) by writing the entry again, so only when the
    // last one recorded is old; failure only makes it look older.
    if cached::use_is_stale(used, js_sys::Date::now() as u64)
        && let Ok(entry) = entry(buffer.byte_length(), || js_sys::Uint8Array::new(&buffer))
    {
        let _ = JsFuture::from(cache.put_with_str(&url, &entry)).await;
    }
    Some(buffer)
}

/// Stores `bytes` for the object `id` (best effort: quota errors are
/// ignored). The entry takes its copy of the bytes at once, before the
/// future is first polled and with no JS buffer between (at fleet scale,
/// one per download was megabytes of garbage in a worker until its next
/// collection): the caller may go on with them meanwhile.
pub fn put(id: &str, bytes: &[u8]) -> impl Future<Output = ()> + 'static {
    // SAFETY: the view is read by the `Response` constructor right away,
    // which copies the bytes; nothing allocates in wasm memory (which could
    // move it) between the view's making and that copy.
    let entry = entry(bytes.len() as u32, || unsafe { js_sys::Uint8Array::view(bytes) });
    let url = entry_url(id);
    async move {
        if let (Ok(entry), Some(cache)) = (entry, open().await) {
            let _ = JsFuture::from(cache.put_with_str(&url, &entry)).await;
        }
    }
}

/// Forgets the object `id` (an entry that no longer holds it).
pub async fn delete(id: &str) {
    if let Some(cache) = open().await {
        let _ = JsFuture::from(cache.delete_with_str(&entry_url(id))).await;
    }
}

/// A cache entry of `len` bytes, as of now: a response holding its own copy
/// of the bytes `body` gives (the constructor copies them), made last.
fn entry(len: u32, body: impl FnOnce() -> js_sys::Uint8Array) -> Result<web_sys::Response, JsValue> {
    let headers = web_sys::Headers::new()?;
    headers.set("content-type", "application/octet-stream")?;
    headers.set(SIZE_HEADER, &len.to_string())?;
    headers.set(USED_HEADER, &(js_sys::Date::now() as u64).to_string())?;
    let init = web_sys::ResponseInit::new();
    init.set_headers(&headers);
    web_sys::Response::new_with_opt_buffer_source_and_init(Some(&body()), &init)
}

/// A header of a cached response holding a number.
fn header_u64(response: &web_sys::Response, name: &str) -> Option<u64> {
    response.headers().get(name).ok().flatten()?.parse().ok()
}

/// One entry's URL, size and last use.
struct Entry {
    request: web_sys::Request,
    size: u64,
    used: u64,
}

async fn entries(cache: &web_sys::Cache) -> Vec<Entry> {
    let Ok(keys) = JsFuture::from(cache.keys()).await else {
        return Vec::new();
    };
    let keys: js_sys::Array = keys.unchecked_into();
    let mut out = Vec::with_capacity(keys.length() as usize);
    for request in keys.iter() {
        let request: web_sys::Request = request.unchecked_into();
        let Ok(hit) = JsFuture::from(cache.match_with_request(&request)).await else {
            continue;
        };
        if hit.is_undefined() {
            continue;
        }
        let response: web_sys::Response = hit.unchecked_into();
        out.push(Entry {
            size: header_u64(&response, SIZE_HEADER).unwrap_or(0),
            used: header_u64(&response, USED_HEADER).unwrap_or(0),
            request,
        });
    }
    out
}

/// Entries and bytes held.
pub async fn usage() -> (usize, u64) {
    let Some(cache) = open().await else { return (0, 0) };
    let entries = entries(&cache).await;
    (entries.len(), entries.iter().map(|e| e.size).sum())
}

/// Deletes least recently used entries until at most `cap` bytes remain.
pub async fn evict(cap: u64) {
    let Some(cache) = open().await else { return };
    let mut entries = entries(&cache).await;
    let mut total: u64 = entries.iter().map(|e| e.size).sum();
    entries.sort_by_key(|e| e.used);
    for entry in entries {
        if total <= cap {
            break;
        }
        if JsFuture::from(cache.delete_with_request(&entry.request)).await.is_ok() {
            total = total.saturating_sub(entry.size);
        }
    }
}

/// Drops the whole segment cache.
pub async fn clear() {
    if let Some(caches) = caches() {
        let _ = JsFuture::from(caches.delete(CACHE_NAME)).await;
    }
}
