//! The worker side: everything CPU-heavy (gunzip, decode, analysis, listing
//! parsing and the bucket catalog) runs here, never on the page's thread.

use crate::clock::now_ms;
use crate::protocol::{self, CatalogReply, CatalogRequest, FromWorker, Phase, ToWorker};
use d9lens_core::analysis::{Options, analyze_file};
use d9lens_core::s3::catalog::Catalog;
use d9lens_core::s3::parse_list_page;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The catalog of the catalog worker (unused in analysis workers).
    static CATALOG: RefCell<Catalog> = RefCell::new(Catalog::default());
}

/// Handles one request, posting progress and the outcome through `post`.
/// `AnalyzeUrl` downloads first, so it finishes later (on the worker's event loop).
pub fn handle(msg: ToWorker, post: impl FnMut(FromWorker) + 'static) {
    let mut post = post;
    match msg {
        ToWorker::Analyze {
            id,
            name,
            options,
            bytes,
        } => analyze(id, &name, &options, bytes, &mut post),
        ToWorker::AnalyzeUrl {
            id,
            name,
            url,
            etag,
            options,
        } => wasm_bindgen_futures::spawn_local(async move {
            post(FromWorker::Progress {
                id,
                phase: Phase::Downloading,
                bytes: 0,
                events: 0,
            });
            match crate::retrieval::load_segment(&name, &url, etag.as_deref()).await {
                Ok((bytes, cached)) => {
                    post(FromWorker::Fetched {
                        id,
                        bytes: bytes.len() as u64,
                        cached,
                    });
                    analyze(id, &name, &options, bytes, &mut post);
                }
                Err(message) => post(FromWorker::Failed { id, message }),
            }
        }),
        ToWorker::Catalog { id, request } => post(FromWorker::Catalog {
            id,
            reply: catalog(request),
        }),
    }
}

fn analyze(id: u32, name: &str, options: &Options, bytes: Vec<u8>, post: &mut dyn FnMut(FromWorker)) {
    let len = bytes.len() as u64;
    let phase = if bytes.starts_with(&[0x1f, 0x8b]) {
        Phase::Inflating
    } else {
        Phase::Decoding
    };
    post(FromWorker::Progress {
        id,
        phase,
        bytes: len,
        events: 0,
    });
    let outcome = analyze_file(name, &bytes, options);
    drop(bytes);
    post(FromWorker::Progress {
        id,
        phase: Phase::Analyzing,
        bytes: len,
        events: outcome.events,
    });
    post(FromWorker::Done { id, outcome });
}

fn catalog(request: CatalogRequest) -> CatalogReply {
    let started = now_ms();
    CATALOG.with_borrow_mut(|catalog| match request {
        CatalogRequest::Reset { prefix } => {
            *catalog = Catalog::new(&prefix);
            CatalogReply::Reset
        }
        CatalogRequest::AddPage { bytes } => match parse_list_page(&bytes) {
            Ok(page) => {
                catalog.add_page(page.contents);
                CatalogReply::PageAdded {
                    objects: catalog.object_count() as u64,
                    next_continuation_token: page.next_continuation_token,
                    elapsed_ms: now_ms() - started,
                }
            }
            Err(e) => CatalogReply::Failed {
                message: format!("the listing is not readable: {e}"),
            },
        },
        CatalogRequest::Summary => CatalogReply::Summary {
            summary: Box::new(catalog.summary()),
            elapsed_ms: now_ms() - started,
        },
        CatalogRequest::Resolve { spec } => CatalogReply::Resolved {
            selection: spec.resolve(catalog),
        },
    })
}

/// Handles one raw `message` event payload as the worker receives it.
pub fn handle_js(data: &JsValue, post: impl FnMut(FromWorker) + 'static) {
    let mut post = post;
    match protocol::decode_to_worker(data) {
        Ok(msg) => handle(msg, post),
        Err(err) => {
            let message = err.to_string();
            post(match request_ids(data) {
                Some(RequestId::Catalog(id)) => FromWorker::Catalog {
                    id,
                    reply: CatalogReply::Failed { message },
                },
                Some(RequestId::File(id)) => FromWorker::Failed { id, message },
                None => FromWorker::Failed { id: u32::MAX, message },
            })
        }
    }
}

enum RequestId {
    File(u32),
    Catalog(u32),
}

/// The id of a request whose body could not be decoded, for the error reply.
fn request_ids(data: &JsValue) -> Option<RequestId> {
    let header = js_sys::Reflect::get(data, &JsValue::from_str("header"))
        .ok()?
        .as_string()?;
    let value: serde_json::Value = serde_json::from_str(&header).ok()?;
    let (kind, body) = value.as_object()?.iter().next()?;
    let id = u32::try_from(body.get("id")?.as_u64()?).ok()?;
    Some(if kind == "catalog" {
        RequestId::Catalog(id)
    } else {
        RequestId::File(id)
    })
}

/// Entry point of the `worker` binary: installs the message handler, then says `Ready`.
pub fn run() {
    console_error_panic_hook::set_once();
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply_scope = scope.clone();
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
        let scope = reply_scope.clone();
        handle_js(&ev.data(), move |msg| post(&scope, &msg));
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post(&scope, &FromWorker::Ready);
    warm_up();
}

/// A small real segment (a quiet checkout-api host of the fixture bucket).
const WARM_UP_TRACE: &[u8] = include_bytes!("../assets/warm-up.bin.gz");

/// Runs the analyzer once on `WARM_UP_TRACE` while the page waits for a file.
/// The browser first runs wasm from a quick baseline compile and optimizes
/// the code that keeps running: without this, the first real file pays for
/// that (the demo trace analyzed in about 440 ms instead of 220 ms). Jobs that
/// arrive meanwhile wait in the message queue.
fn warm_up() {
    let outcome = analyze_file("warm-up.bin.gz", WARM_UP_TRACE, &Options::default());
    debug_assert!(outcome.error.is_none());
}

fn post(scope: &web_sys::DedicatedWorkerGlobalScope, msg: &FromWorker) {
    if let Err(err) = scope.post_message(&protocol::encode_from_worker(msg)) {
        web_sys::console::error_2(&"d9lens worker: post_message failed".into(), &err);
    }
}
