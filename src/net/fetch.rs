//! Executes core [`HttpRequest`] values with the browser's `fetch` (in the page
//! or in a worker: the global `fetch` exists in both), through `gloo-net`.
//! The `web_sys::Request` is built here and handed to `gloo_net::http::Request`
//! as is: gloo's `RequestBuilder` rebuilds the URL's query (and appends `&`
//! to an existing one), which would change what a signature or a presigned
//! URL covers.
//!
//! A request that gets no HTTP answer at all (the opaque `TypeError` a missing
//! CORS rule produces) becomes [`S3Error::network_failure`]; one without its
//! answer or its body within the core's [`Timeouts`] is aborted
//! (`AbortController`) and becomes [`S3Error::timed_out`]. Redirects are not
//! followed: a signed request goes to the host it was signed for or nowhere,
//! and S3 redirects only to another region's host. Nothing here logs
//! or returns the URL: a presigned URL is a bearer credential until it expires.

use d9lens_core::s3::{Attempt, HttpRequest, S3Error, Timeouts};
use std::time::Duration;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// Response headers the shell reads (only those a CORS rule exposes are visible).
const READ_HEADERS: [&str; 5] = [
    "date",
    "x-amz-bucket-region",
    "x-amz-request-id",
    "etag",
    "content-length",
];

/// An HTTP answer: status, the readable headers of [`READ_HEADERS`], the body.
#[derive(Debug, Clone, Default)]
pub struct HttpResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &js_sys::Function, millis: i32) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);
}

/// Aborts `controller` after `after`, unless dropped first. It holds the
/// timer's callback, so the callback is freed with it whether or not it ran.
struct Deadline {
    timer: JsValue,
    _abort: Closure<dyn FnMut()>,
}

impl Deadline {
    fn new(controller: &web_sys::AbortController, after: Duration) -> Self {
        let controller = controller.clone();
        let abort = Closure::once(move || controller.abort());
        let timer = set_timeout(
            abort.as_ref().unchecked_ref(),
            after.as_millis().min(i32::MAX as u128) as i32,
        );
        Deadline { timer, _abort: abort }
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        clear_timeout(&self.timer);
    }
}

/// The page's (or worker's) origin, e.g. `http://127.0.0.1:8080`.
pub fn origin() -> String {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("location"))
        .ok()
        .and_then(|loc| js_sys::Reflect::get(&loc, &JsValue::from_str("origin")).ok())
        .and_then(|o| o.as_string())
        .unwrap_or_default()
}

/// Sends `request`; `Err` only when there was no HTTP answer at all, or not
/// within the core's [`Timeouts`].
pub async fn send(request: &HttpRequest) -> Result<HttpResponse, S3Error> {
    let timeouts = Timeouts::default();
    let controller = web_sys::AbortController::new().map_err(|_| S3Error::network_failure(&origin()))?;
    // Given up by the deadline, or no answer at all.
    let failure = |after: Duration| match controller.signal().aborted() {
        true => S3Error::timed_out(after),
        false => S3Error::network_failure(&origin()),
    };
    let init = web_sys::RequestInit::new();
    init.set_signal(Some(&controller.signal()));
    let deadline = Deadline::new(&controller, timeouts.answer);
    let failure_now = || failure(timeouts.answer);
    init.set_method(request.method.as_str());
    init.set_cache(web_sys::RequestCache::NoStore);
    init.set_credentials(web_sys::RequestCredentials::Omit);
    init.set_redirect(web_sys::RequestRedirect::Manual);
    let headers = web_sys::Headers::new().map_err(|_| failure_now())?;
    for (name, value) in &request.headers {
        headers.set(name, value).map_err(|_| failure_now())?;
    }
    init.set_headers(&headers);
    if let Some(body) = &request.body {
        init.set_body(&JsValue::from_str(body));
    }
    let js_request = web_sys::Request::new_with_str_and_init(&request.url, &init).map_err(|_| failure_now())?;
    let response = gloo_net::http::Request::from(js_request)
        .send()
        .await
        .map_err(|_| failure_now())?;
    if response.type_() == web_sys::ResponseType::Opaqueredirect {
        // The browser hides a redirect's status, headers and body: S3's
        // redirects (301, 307) all mean another region.
        return Ok(HttpResponse {
            status: 301,
            ..HttpResponse::default()
        });
    }
    let headers = READ_HEADERS
        .iter()
        .filter_map(|name| response.headers().get(name).map(|v| (name.to_string(), v)))
        .collect();
    // The answer is in: now the body has its own time.
    drop(deadline);
    let _deadline = Deadline::new(&controller, timeouts.body);
    let body = response.binary().await.map_err(|_| failure(timeouts.body))?;
    Ok(HttpResponse {
        status: response.status(),
        headers,
        body,
    })
}

/// What a [`send`] came to, for the core's `Exchange`.
pub fn attempt(sent: &Result<HttpResponse, S3Error>) -> Attempt<'_> {
    match sent {
        Ok(response) => Attempt::Answer {
            status: response.status,
            headers: &response.headers,
            body: &response.body,
        },
        Err(error) => Attempt::Failed(error.clone()),
    }
}

/// Resolves after `delay` (page or worker).
pub async fn sleep(delay: Duration) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        set_timeout(&resolve, delay.as_millis().min(i32::MAX as u128) as i32);
    });
    let _ = JsFuture::from(promise).await;
}
