//! The worker side: everything CPU-heavy (gunzip, decode, analysis) runs here,
//! never on the page's thread.

use crate::protocol::{self, FromWorker, Phase, ToWorker};
use d9lens_core::analysis::analyze_file;
use wasm_bindgen::prelude::*;

/// Handles one request, posting progress and the outcome through `post`.
pub fn handle(msg: ToWorker, post: &mut dyn FnMut(FromWorker)) {
    match msg {
        ToWorker::AnalyzeUrl { .. } => post(FromWorker::Failed {
            id: u32::MAX,
            message: "AnalyzeUrl needs the async handler (handle_url)".into(),
        }),
        ToWorker::Analyze {
            id,
            name,
            options,
            bytes,
        } => {
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
            let outcome = analyze_file(&name, &bytes, &options);
            drop(bytes);
            post(FromWorker::Progress {
                id,
                phase: Phase::Analyzing,
                bytes: len,
                events: outcome.events,
            });
            post(FromWorker::Done { id, outcome });
        }
    }
}

/// Downloads (or reads from the cache) one S3 object, then analyzes it.
pub async fn handle_url(msg: ToWorker, post: &mut dyn FnMut(FromWorker)) {
    let ToWorker::AnalyzeUrl {
        id,
        name,
        url,
        etag,
        options,
    } = msg
    else {
        return;
    };
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
            handle(
                ToWorker::Analyze {
                    id,
                    name,
                    options,
                    bytes,
                },
                post,
            );
        }
        Err(message) => post(FromWorker::Failed { id, message }),
    }
}

/// Handles one raw `message` event payload as the worker receives it.
pub fn handle_js(data: &JsValue, post: &mut dyn FnMut(FromWorker)) {
    match protocol::decode_to_worker(data) {
        Ok(msg @ ToWorker::AnalyzeUrl { .. }) => {
            let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
            wasm_bindgen_futures::spawn_local(async move {
                handle_url(msg, &mut |m| self::post(&scope, &m)).await;
            });
        }
        Ok(msg) => handle(msg, post),
        Err(err) => post(FromWorker::Failed {
            id: request_id(data).unwrap_or(u32::MAX),
            message: err.to_string(),
        }),
    }
}

/// The id of a request whose body could not be decoded, for the error reply.
fn request_id(data: &JsValue) -> Option<u32> {
    let header = js_sys::Reflect::get(data, &JsValue::from_str("header"))
        .ok()?
        .as_string()?;
    let value: serde_json::Value = serde_json::from_str(&header).ok()?;
    value
        .get("analyze")?
        .get("id")?
        .as_u64()
        .and_then(|id| u32::try_from(id).ok())
}

/// Entry point of the `worker` binary: installs the message handler, then says `Ready`.
pub fn run() {
    console_error_panic_hook::set_once();
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply_scope = scope.clone();
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
        handle_js(&ev.data(), &mut |msg| post(&reply_scope, &msg));
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post(&scope, &FromWorker::Ready);
}

fn post(scope: &web_sys::DedicatedWorkerGlobalScope, msg: &FromWorker) {
    if let Err(err) = scope.post_message(&protocol::encode_from_worker(msg)) {
        web_sys::console::error_2(&"d9lens worker: post_message failed".into(), &err);
    }
}
