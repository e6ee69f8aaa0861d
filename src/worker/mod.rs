//! The worker side: everything CPU-heavy (gunzip, decode, analysis, listing
//! parsing, the walk of listings and the bucket catalog) runs here, never on
//! the page's thread.

mod download;

use crate::clock::{epoch_ms, now_ms};
use crate::protocol::{self, CatalogReply, CatalogRequest, FromWorker, Phase, Relay, RelayEnd, ToWorker, WalkView};
use d9lens_core::analysis::inspect::{self, InspectQuery};
use d9lens_core::analysis::{FileOutcome, Options, TraceAnalysis, analyze_file, wire};
use d9lens_core::bucket::find::find;
use d9lens_core::bucket::walk::{BucketWalk, WalkError};
use d9lens_core::container::{self, Container, Unpack};
use d9lens_core::trace;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

thread_local! {
    /// The catalog worker's bucket (unused in analysis workers).
    static CATALOG: RefCell<CatalogState> = RefCell::new(CatalogState::default());
    /// The handler of the channel a file's raw trace comes in by, when this
    /// worker decodes what another unpacks (one file at a time).
    static RELAY: RefCell<Option<OnMessage>> = const { RefCell::new(None) };
}

type OnMessage = Closure<dyn FnMut(web_sys::MessageEvent)>;

/// Handles one request, posting progress and the outcome through `post`.
/// `AnalyzeUrl` downloads first, so it finishes later (on the worker's event loop).
pub fn handle(msg: ToWorker, post: impl FnMut(FromWorker) + 'static) {
    let mut post = post;
    match msg {
        ToWorker::Analyze {
            id,
            name,
            inspect: Some(query),
            bytes,
            options,
            ..
        } => post(inspect(id, &name, &options, &bytes, &query)),
        ToWorker::Analyze {
            id,
            name,
            options,
            bytes,
            relay,
            inspect: None,
        } => take_file(id, &name, &options, bytes, relay, &mut post),
        ToWorker::AnalyzeUrl {
            id,
            name,
            url,
            cache,
            options,
            relay,
            inspect: query,
        } => wasm_bindgen_futures::spawn_local(async move {
            post(FromWorker::Progress {
                id,
                phase: Phase::Downloading,
                bytes: 0,
                events: 0,
            });
            match download::load_segment(&url, cache.as_ref()).await {
                Ok((bytes, cached)) => {
                    post(FromWorker::Fetched {
                        id,
                        bytes: bytes.len() as u64,
                        cached,
                    });
                    match query {
                        Some(query) => post(inspect(id, &name, &options, &bytes, &query)),
                        None => take_file(id, &name, &options, bytes, relay, &mut post),
                    }
                }
                Err(message) => post(FromWorker::Failed { id, message }),
            }
        }),
        ToWorker::Decode {
            id,
            name,
            options,
            from,
        } => match from {
            Some(port) => decode_from(id, &name, &options, &port, post),
            None => post(FromWorker::Failed {
                id,
                message: "a decode request came without its channel".into(),
            }),
        },
        ToWorker::WarmUp {
            heap_bytes,
            page,
            downloads,
        } => {
            download::set_share(downloads);
            warm_up(heap_bytes, page, &mut post);
        }
        ToWorker::Catalog { id, request } => post(FromWorker::Catalog {
            id,
            reply: catalog(request),
        }),
    }
}

/// A file's bytes are in: analyze them here, or only unpack them for the
/// worker at the other end of `relay`.
fn take_file(
    id: u32,
    name: &str,
    options: &Options,
    bytes: Vec<u8>,
    relay: Option<web_sys::MessagePort>,
    post: &mut dyn FnMut(FromWorker),
) {
    post(FromWorker::Progress {
        id,
        phase: match container::sniff(&bytes) {
            Ok(Container::Gzip) => Phase::Inflating,
            _ => Phase::Decoding,
        },
        bytes: bytes.len() as u64,
        events: 0,
    });
    match relay {
        Some(port) => unpack_to(id, options, bytes, &port, post),
        None => analyze(id, name, options, bytes, post),
    }
}

/// Compressed bytes unpacked per relayed block (about 0.4 MB raw): small
/// enough that the decoding worker starts early, big enough to keep the
/// messages few.
const RELAY_PIECE: usize = 128 * 1024;

/// The unpacking half of a file on two workers: inflates `bytes` and streams
/// the raw trace into `port`, then says how unpacking ended.
fn unpack_to(
    id: u32,
    options: &Options,
    bytes: Vec<u8>,
    port: &web_sys::MessagePort,
    post: &mut dyn FnMut(FromWorker),
) {
    let started = epoch_ms();
    let mut unpack = Unpack::new(options.max_inflated_bytes);
    // One buffer for every block: each is copied out of wasm memory to travel.
    let mut block = Vec::new();
    for piece in bytes.chunks(RELAY_PIECE) {
        block.clear();
        unpack.push(piece, &mut block);
        if !block.is_empty() {
            send(port, &Relay::Raw(js_sys::Uint8Array::from(block.as_slice())));
        }
    }
    send(
        port,
        &Relay::End(RelayEnd {
            unpacked: unpack.finish(),
            started,
            file_bytes: bytes.len() as u64,
        }),
    );
    post(FromWorker::Progress {
        id,
        phase: Phase::Decoding,
        bytes: bytes.len() as u64,
        events: 0,
    });
    post(FromWorker::Relayed { id });
}

fn send(port: &web_sys::MessagePort, msg: &Relay) {
    let (data, transfer) = protocol::encode_relay(msg);
    if let Err(err) = port.post_message_with_transferable(&data, &transfer) {
        web_sys::console::error_2(&"d9lens worker: relaying a file failed".into(), &err);
    }
}

/// The decoding half: takes the raw trace of file `id` from `port` as it
/// comes, and analyzes it once unpacking has ended.
fn decode_from(
    id: u32,
    name: &str,
    options: &Options,
    port: &web_sys::MessagePort,
    post: impl FnMut(FromWorker) + 'static,
) {
    let mut post = post;
    let mut trace = Some(TraceAnalysis::new(name, 0).options(options));
    let channel = port.clone();
    let on_relay = OnMessage::new(move |ev: web_sys::MessageEvent| {
        let Some(analysis) = trace.as_mut() else { return };
        match protocol::decode_relay(&ev.data()) {
            Ok(Relay::Raw(raw)) => {
                analysis.extend(|buffer| {
                    let at = buffer.len();
                    buffer.resize(at + raw.length() as usize, 0);
                    raw.copy_to(&mut buffer[at..]);
                });
            }
            Ok(Relay::End(end)) => {
                let outcome = trace.take().map(|t| t.finish(end.unpacked)).expect("checked above");
                channel.close();
                done(id, end.file_bytes, outcome, epoch_ms() - end.started, &mut post);
            }
            Err(err) => {
                trace = None;
                channel.close();
                post(FromWorker::Failed {
                    id,
                    message: err.to_string(),
                });
            }
        }
    });
    port.set_onmessage(Some(on_relay.as_ref().unchecked_ref()));
    // Replaces (drops) the handler of the previous file, whose channel is closed.
    RELAY.with_borrow_mut(|handler| *handler = Some(on_relay));
}

fn analyze(id: u32, name: &str, options: &Options, bytes: Vec<u8>, post: &mut dyn FnMut(FromWorker)) {
    let len = bytes.len() as u64;
    let started = now_ms();
    let outcome = analyze_file(name, &bytes, options);
    let analysis_ms = now_ms() - started;
    drop(bytes);
    done(id, len, outcome, analysis_ms, post);
}

/// Posts the outcome of a file `file_bytes` long; `analysis_ms`: the
/// workers' time for it.
fn done(id: u32, file_bytes: u64, outcome: FileOutcome, analysis_ms: f64, post: &mut dyn FnMut(FromWorker)) {
    post(FromWorker::Progress {
        id,
        phase: Phase::Analyzing,
        bytes: file_bytes,
        events: outcome.events,
    });
    post(FromWorker::Done {
        id,
        analysis_ms,
        outcome,
    });
}

/// Answers a question about a file the page already has the report of: the
/// file is decoded again (its events are not kept between requests).
fn inspect(id: u32, name: &str, options: &Options, bytes: &[u8], query: &InspectQuery) -> FromWorker {
    match container::raw_trace(bytes, options.max_inflated_bytes) {
        Ok(raw) => FromWorker::Inspected {
            id,
            answer: inspect::inspect(name, trace::parse_trace(&raw).0, query),
        },
        Err(e) => FromWorker::Failed {
            id,
            message: format!("{name}: {e}"),
        },
    }
}

/// The catalog worker's bucket: the walk of listings and the catalog it fills.
#[derive(Default)]
struct CatalogState {
    walk: Option<BucketWalk>,
}

impl CatalogState {
    fn walk(&mut self) -> Result<&mut BucketWalk, String> {
        self.walk.as_mut().ok_or_else(|| "no listing was started".to_owned())
    }

    /// Where the walk stands, and the listings to send now.
    fn planned(&mut self, started: f64) -> CatalogReply {
        match self.walk() {
            Ok(walk) => CatalogReply::Planned {
                requests: walk.next_requests(),
                progress: walk.progress(),
                objects: walk.catalog().object_count() as u64,
                elapsed_ms: now_ms() - started,
                view: walk.is_done().then(|| WalkView {
                    shape: walk.shape().clone(),
                    window: walk.window(),
                    awaits_window: walk.awaits_window(),
                }),
            },
            Err(message) => CatalogReply::Failed { message },
        }
    }
}

fn catalog(request: CatalogRequest) -> CatalogReply {
    let started = now_ms();
    CATALOG.with_borrow_mut(|state| {
        let answered = match request {
            CatalogRequest::Start { prefix, limits, period } => {
                state.walk = Some(BucketWalk::for_period(&prefix, limits, period));
                Ok(())
            }
            CatalogRequest::SetPeriod { period } => state.walk().map(|w| w.set_period(period)),
            CatalogRequest::AddPage { listing, bytes } => match state.walk().map(|w| w.on_body(listing, &bytes)) {
                // Counted as a failed listing; the walk goes on.
                Ok(Err(WalkError::NotAListing(_))) => Ok(()),
                Ok(answered) => answered.map_err(|e| e.to_string()),
                Err(message) => Err(message),
            },
            CatalogRequest::ListingFailed { listing, message } => state
                .walk()
                .and_then(|w| w.on_failed(listing, &message).map_err(|e| e.to_string())),
            CatalogRequest::Summary => {
                return match state.walk() {
                    Ok(walk) => CatalogReply::Summary {
                        summary: Box::new(walk.catalog().summary()),
                        elapsed_ms: now_ms() - started,
                    },
                    Err(message) => CatalogReply::Failed { message },
                };
            }
            CatalogRequest::Find { text } => {
                return match state.walk() {
                    Ok(walk) => CatalogReply::Found {
                        findings: find(walk.catalog(), &text),
                    },
                    Err(message) => CatalogReply::Failed { message },
                };
            }
            CatalogRequest::Resolve { spec } => {
                return match state.walk() {
                    Ok(walk) => {
                        let (selection, coverage) = spec.resolve_covered(walk.catalog());
                        CatalogReply::Resolved { selection, coverage }
                    }
                    Err(message) => CatalogReply::Failed { message },
                };
            }
        };
        match answered {
            Ok(()) => state.planned(started),
            Err(message) => CatalogReply::Failed { message },
        }
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
    let on_message = OnMessage::new(move |ev: web_sys::MessageEvent| {
        let scope = reply_scope.clone();
        handle_js(&ev.data(), move |msg| post(&scope, msg));
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post(&scope, FromWorker::Ready);
}

/// A small real segment (a quiet checkout-api host of the fixture bucket).
const WARM_UP_TRACE: &[u8] = include_bytes!("../../assets/warm-up.bin.gz");
const WARM_UP_RUNS: usize = 8;

/// Readies an analysis worker while the page waits for a file. It runs the
/// analyzer a few times on `WARM_UP_TRACE` (about 5 ms each): the browser
/// first runs wasm from a quick baseline compile and optimizes the code that
/// keeps running, and without this the first real file pays for that (the
/// demo trace took about 440 ms instead of 220 ms). Then it grows the heap
/// to `heap_bytes`, writing every page, and frees it: wasm memory never
/// shrinks, so a big file reuses these pages instead of faulting in fresh
/// ones (the demo trace: ~165 → ~155 ms on two workers). Jobs that arrive
/// meanwhile wait in the message queue. With `page`, the outcome goes to
/// the page, which readies its own code on it (`crate::page::warm_up`).
fn warm_up(heap_bytes: u64, page: bool, post: &mut dyn FnMut(FromWorker)) {
    let options = Options {
        timeline: page,
        ..Options::default()
    };
    let run = || analyze_file("warm-up.bin.gz", WARM_UP_TRACE, &options);
    let mut outcome = run();
    for _ in 1..WARM_UP_RUNS {
        outcome = run();
    }
    debug_assert!(outcome.error.is_none());
    if page {
        post(FromWorker::WarmedUp {
            outcome: wire::encode(&outcome),
        });
    }
    let heap = vec![1u8; usize::try_from(heap_bytes).unwrap_or(0)];
    std::hint::black_box(heap);
}

fn post(scope: &web_sys::DedicatedWorkerGlobalScope, msg: FromWorker) {
    let (data, transfer) = protocol::encode_from_worker(msg);
    if let Err(err) = scope.post_message_with_transfer(&data, &transfer) {
        web_sys::console::error_2(&"d9lens worker: post_message failed".into(), &err);
    }
}
