//! The messages between the page and its workers: the analysis pool, and the
//! catalog worker that holds a bucket's listing.
//!
//! Main → worker: [`ToWorker`]. Its small fields travel as one JSON string
//! (`header`); bytes (a trace, a listing page) travel beside it as an
//! `ArrayBuffer` that the page *transfers* (no copy, the page loses access to it).
//!
//! One file on two workers: the page gives both ends of a `MessageChannel`,
//! one in an `Analyze`/`AnalyzeUrl` (its `relay`: that worker only unpacks the
//! file) and one in a `Decode`; the raw trace flows between them as
//! [`Relay`] messages, without the page.
//!
//! Worker → main: [`FromWorker`], one JSON string per message. A worker posts
//! `Ready` first: anything the page posts before the worker's wasm has loaded
//! would be lost, so the pool only hands work to workers that said `Ready`.

use d9lens_core::analysis::inspect::{InspectAnswer, InspectQuery};
use d9lens_core::analysis::{FileOutcome, Options, wire};
use d9lens_core::bucket::cached::CachedObject;
use d9lens_core::bucket::catalog::{CatalogSummary, Selection, TimeWindow};
use d9lens_core::bucket::find::Findings;
use d9lens_core::bucket::listing_plan::{ListRequest, ListingLimits, ListingProgress};
use d9lens_core::bucket::sample::Coverage;
use d9lens_core::bucket::scope::{Period, Shape};
use d9lens_core::bucket::spec::SelectionSpec;
use d9lens_core::container::ContainerError;
use serde::{Deserialize, Serialize};
use wasm_bindgen::{JsCast, JsValue};

// Both enums are externally tagged (`{"done": {...}}`): an internally tagged
// enum makes serde buffer the content, and buffered content loses serde_json's
// integer-keyed maps (the partials have some).

/// Main → worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ToWorker {
    /// Analyze one file. `bytes` is raw `TRC` or gzip; the core sniffs which.
    #[serde(rename_all = "camelCase")]
    Analyze {
        id: u32,
        name: String,
        options: Options,
        /// Instead of analyzing the file, answer this question about it
        /// ([`FromWorker::Inspected`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        inspect: Option<InspectQuery>,
        /// Not part of the JSON header: carried as a transferred `ArrayBuffer`.
        #[serde(skip)]
        bytes: Vec<u8>,
        /// When set, this worker only unpacks the file and streams its raw
        /// trace here, to the worker that decodes it. Transferred beside the header.
        #[serde(skip)]
        relay: Option<web_sys::MessagePort>,
    },
    /// Download one S3 object (a presigned GET URL made on the page: the
    /// worker never sees credentials), or read it from the segment cache by
    /// its identity (`cache`), then analyze it like `Analyze`.
    #[serde(rename_all = "camelCase")]
    AnalyzeUrl {
        id: u32,
        name: String,
        url: String,
        cache: Option<CachedObject>,
        options: Options,
        /// As in `Analyze`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        inspect: Option<InspectQuery>,
        /// As in `Analyze`.
        #[serde(skip)]
        relay: Option<web_sys::MessagePort>,
    },
    /// Decode and analyze the raw trace of file `id` that another worker
    /// unpacks and streams into `from` (the other end of its `relay`).
    #[serde(rename_all = "camelCase")]
    Decode {
        id: u32,
        name: String,
        /// The run's options, as its `Analyze` has them.
        options: Options,
        /// Transferred beside the header.
        #[serde(skip)]
        from: Option<web_sys::MessagePort>,
    },
    /// Get ready for files while idle: run the analyzer on a small trace so
    /// the browser optimizes its code, and grow the heap to `heap_bytes`,
    /// touching every page. With `page`, answer [`FromWorker::WarmedUp`] with
    /// that trace's outcome so the page readies its own code too; else no
    /// answer. `downloads`: the most S3 downloads it runs at once, its share
    /// of all the workers' (`run::ahead::downloads_at_once`). Sent by
    /// the pool before any file, never to the catalog worker.
    #[serde(rename_all = "camelCase")]
    WarmUp {
        heap_bytes: u64,
        page: bool,
        downloads: usize,
    },
    /// A request to the catalog worker, answered by [`FromWorker::Catalog`] with the same `id`.
    #[serde(rename_all = "camelCase")]
    Catalog { id: u32, request: CatalogRequest },
}

impl ToWorker {
    /// The bytes that travel beside the JSON header, if this request has any.
    fn bytes_mut(&mut self) -> Option<&mut Vec<u8>> {
        match self {
            ToWorker::Analyze { bytes, .. }
            | ToWorker::Catalog {
                request: CatalogRequest::AddPage { bytes, .. },
                ..
            } => Some(bytes),
            _ => None,
        }
    }

    /// Makes a file request one for the unpacking half of a file on two
    /// workers: the raw trace goes to `port` (no-op for other requests).
    pub fn set_relay(&mut self, port: web_sys::MessagePort) {
        if let ToWorker::Analyze { relay, .. } | ToWorker::AnalyzeUrl { relay, .. } = self {
            *relay = Some(port);
        }
    }

    /// The channel end that travels beside the JSON header, if this request has one.
    fn port_mut(&mut self) -> Option<&mut Option<web_sys::MessagePort>> {
        match self {
            ToWorker::Analyze { relay, .. } | ToWorker::AnalyzeUrl { relay, .. } => Some(relay),
            ToWorker::Decode { from, .. } => Some(from),
            ToWorker::WarmUp { .. } | ToWorker::Catalog { .. } => None,
        }
    }
}

/// What the unpacking worker sends the decoding one, in order: the raw trace
/// in blocks, then how unpacking ended.
#[derive(Debug, Clone)]
pub enum Relay {
    /// Raw trace bytes, outside wasm memory: their `ArrayBuffer` is
    /// transferred, and the receiver copies them straight into its decoder.
    Raw(js_sys::Uint8Array),
    End(RelayEnd),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelayEnd {
    pub unpacked: Result<(), ContainerError>,
    /// When the unpacking worker took the file, on the clock shared by the
    /// workers ([`crate::clock::epoch_ms`]): the file's time is measured whole.
    pub started: f64,
    /// The file's size as stored.
    pub file_bytes: u64,
}

const BLOCK: &str = "block";
const END: &str = "end";

/// A relay message and its transfer list (a block's buffer moves).
pub fn encode_relay(msg: &Relay) -> (JsValue, js_sys::Array) {
    let obj = js_sys::Object::new();
    match msg {
        Relay::Raw(bytes) => {
            let buffer = bytes.buffer();
            set(&obj, BLOCK, &buffer);
            (obj.into(), js_sys::Array::of1(&buffer))
        }
        Relay::End(end) => {
            let json = serde_json::to_string(end).expect("relay end serializes");
            set(&obj, END, &JsValue::from_str(&json));
            (obj.into(), js_sys::Array::new())
        }
    }
}

pub fn decode_relay(data: &JsValue) -> Result<Relay, ProtocolError> {
    let get = |key: &str| js_sys::Reflect::get(data, &JsValue::from_str(key)).ok();
    if let Some(buffer) = get(BLOCK).and_then(|b| b.dyn_into::<js_sys::ArrayBuffer>().ok()) {
        return Ok(Relay::Raw(js_sys::Uint8Array::new(&buffer)));
    }
    let json = get(END)
        .and_then(|e| e.as_string())
        .ok_or_else(|| ProtocolError("relay message is neither a block nor the end".into()))?;
    serde_json::from_str(&json)
        .map(Relay::End)
        .map_err(|e| ProtocolError(format!("bad relay end: {e}")))
}

/// What the catalog worker is asked: it keeps one bucket catalog and the walk
/// of listings that fills it ([`ListingPlan`]), fed page by page, so a listing
/// of any size is planned, parsed and summarized off the page's thread. The
/// page only sends the requests the worker plans.
///
/// [`ListingPlan`]: d9lens_core::bucket::listing_plan::ListingPlan
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CatalogRequest {
    /// Start over: an empty catalog and a new walk of `period` under `prefix`.
    #[serde(rename_all = "camelCase")]
    Start {
        prefix: String,
        limits: ListingLimits,
        period: Period,
    },
    /// Go on with another period (a window picked or widened): only what it adds is listed.
    #[serde(rename_all = "camelCase")]
    SetPeriod {
        period: Period,
    },
    /// The answer to the walk's request `listing`: one ListObjectsV2 page.
    #[serde(rename_all = "camelCase")]
    AddPage {
        listing: u32,
        /// Not part of the JSON header: carried as a transferred `ArrayBuffer`.
        #[serde(skip)]
        bytes: Vec<u8>,
    },
    /// The walk's request `listing` failed for good (`message`: why, secret-free).
    #[serde(rename_all = "camelCase")]
    ListingFailed {
        listing: u32,
        message: String,
    },
    Summary,
    /// Hosts, boots and keys of the catalog whose names hold `text`.
    #[serde(rename_all = "camelCase")]
    Find {
        text: String,
    },
    #[serde(rename_all = "camelCase")]
    Resolve {
        spec: SelectionSpec,
    },
}

/// What a finished walk covers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WalkView {
    pub shape: Shape,
    pub window: Option<TimeWindow>,
    pub awaits_window: bool,
}

/// The catalog worker's answers; `elapsed_ms` is the worker's own time for the request.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CatalogReply {
    /// Where the walk stands after a `Start`, `AddPage` or `ListingFailed`,
    /// and the listings to send now.
    #[serde(rename_all = "camelCase")]
    Planned {
        requests: Vec<ListRequest>,
        progress: ListingProgress,
        /// Distinct objects in the catalog.
        objects: u64,
        elapsed_ms: f64,
        /// Once the walk is done: the bucket's shape, the window listed
        /// (`None`: all of time or none yet) and whether one is to be picked.
        view: Option<WalkView>,
    },
    #[serde(rename_all = "camelCase")]
    Summary {
        summary: Box<CatalogSummary>,
        elapsed_ms: f64,
    },
    #[serde(rename_all = "camelCase")]
    Resolved {
        selection: Selection,
        /// What a sample covers of its window.
        coverage: Option<Coverage>,
    },
    #[serde(rename_all = "camelCase")]
    Found { findings: Findings },
    /// A request the worker could not read, or one out of turn (no walk started).
    #[serde(rename_all = "camelCase")]
    Failed { message: String },
}

/// What a worker is doing with a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Phase {
    Downloading,
    Inflating,
    Decoding,
    Analyzing,
}

impl Phase {
    pub fn label(self) -> &'static str {
        match self {
            Phase::Downloading => "downloading",
            Phase::Inflating => "inflating",
            Phase::Decoding => "decoding",
            Phase::Analyzing => "analyzing",
        }
    }
}

/// Worker → main.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(clippy::large_enum_variant)] // transient: one `Done` per file, moved straight on
pub enum FromWorker {
    /// The worker's wasm is loaded and its message handler is installed.
    Ready,
    /// `bytes`: input bytes of the file; `events`: decoded so far (0 when unknown).
    #[serde(rename_all = "camelCase")]
    Progress {
        id: u32,
        phase: Phase,
        bytes: u64,
        events: u64,
    },
    /// An `AnalyzeUrl` object is in memory: `bytes` long, downloaded or from the cache.
    #[serde(rename_all = "camelCase")]
    Fetched { id: u32, bytes: u64, cached: bool },
    /// `analysis_ms`: the worker's own time for the file (gunzip, decode, analysis).
    #[serde(rename_all = "camelCase")]
    Done {
        id: u32,
        analysis_ms: f64,
        /// With its timeline, when asked for. Not part of the JSON: its
        /// bytes (`d9lens_core::analysis::wire`) are transferred beside it.
        #[serde(skip)]
        outcome: FileOutcome,
    },
    /// The outcome of the warm-up trace with its timeline, for a `WarmUp`
    /// with `page`, as the bytes a `Done` carries (`wire`): the page runs its
    /// side of a file's answer on them, decoding included.
    #[serde(rename_all = "camelCase")]
    WarmedUp {
        #[serde(skip)]
        outcome: Vec<u8>,
    },
    /// The answer to an `inspect` request.
    #[serde(rename_all = "camelCase")]
    Inspected { id: u32, answer: InspectAnswer },
    /// The worker unpacked file `id` and streamed it all to the decoding
    /// worker (which answers `Done`): this one is free.
    #[serde(rename_all = "camelCase")]
    Relayed { id: u32 },
    /// The request itself could not be read (never a trace error: those are in `Done`).
    #[serde(rename_all = "camelCase")]
    Failed { id: u32, message: String },
    #[serde(rename_all = "camelCase")]
    Catalog { id: u32, reply: CatalogReply },
}

/// Everything a malformed message can be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolError(pub String);

impl std::fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "protocol error: {}", self.0)
    }
}

const HEADER: &str = "header";
const BYTES: &str = "bytes";
const PORT: &str = "port";

/// Encodes a request: its JSON header, with `bytes` (an `ArrayBuffer` the
/// page holds) and its channel end, if any, beside it, and the transfer list
/// that moves them (no copy: the page loses access to them).
pub fn encode(mut msg: ToWorker, bytes: Option<js_sys::ArrayBuffer>) -> (JsValue, js_sys::Array) {
    let port = msg.port_mut().and_then(Option::take);
    let obj = js_sys::Object::new();
    let json = serde_json::to_string(&msg).expect("request header serializes");
    set(&obj, HEADER, &JsValue::from_str(&json));
    let transfer = js_sys::Array::new();
    if let Some(bytes) = bytes {
        set(&obj, BYTES, &bytes);
        transfer.push(&bytes);
    }
    if let Some(port) = port {
        set(&obj, PORT, &port);
        transfer.push(&port);
    }
    (obj.into(), transfer)
}

/// Encodes any request, its bytes (if it has any) moved into a new `ArrayBuffer`.
pub fn encode_to_worker(mut msg: ToWorker) -> (JsValue, js_sys::Array) {
    let bytes = msg
        .bytes_mut()
        .map(|bytes| js_sys::Uint8Array::from(std::mem::take(bytes).as_slice()).buffer());
    encode(msg, bytes)
}

/// Decodes a request on the worker side (copies the bytes into wasm memory).
pub fn decode_to_worker(data: &JsValue) -> Result<ToWorker, ProtocolError> {
    let header = js_sys::Reflect::get(data, &JsValue::from_str(HEADER))
        .ok()
        .and_then(|h| h.as_string())
        .ok_or_else(|| ProtocolError("request has no header".into()))?;
    let mut msg: ToWorker =
        serde_json::from_str(&header).map_err(|e| ProtocolError(format!("bad request header: {e}")))?;
    if let Some(port) = msg.port_mut() {
        *port = js_sys::Reflect::get(data, &JsValue::from_str(PORT))
            .ok()
            .and_then(|p| p.dyn_into().ok());
    }
    let Some(bytes) = msg.bytes_mut() else {
        return Ok(msg);
    };
    let buf = js_sys::Reflect::get(data, &JsValue::from_str(BYTES))
        .map_err(|_| ProtocolError("request has no bytes".into()))?;
    if let Some(buf) = buf.dyn_ref::<js_sys::ArrayBuffer>() {
        *bytes = js_sys::Uint8Array::new(buf).to_vec();
    } else if let Some(view) = buf.dyn_ref::<js_sys::Uint8Array>() {
        *bytes = view.to_vec();
    } else {
        return Err(ProtocolError("request bytes are not an ArrayBuffer".into()));
    }
    Ok(msg)
}

/// A worker → main message as posted: its JSON header, and a file's
/// outcome beside it as bytes (moved out of wasm memory once, then transferred).
pub fn encode_from_worker(mut msg: FromWorker) -> (JsValue, js_sys::Array) {
    let bytes = match &mut msg {
        FromWorker::Done { outcome, .. } => Some(wire::encode(&std::mem::take(outcome))),
        FromWorker::WarmedUp { outcome } => Some(std::mem::take(outcome)),
        _ => None,
    };
    let obj = js_sys::Object::new();
    let json = serde_json::to_string(&msg).expect("worker message serializes");
    set(&obj, HEADER, &JsValue::from_str(&json));
    let transfer = js_sys::Array::new();
    if let Some(bytes) = bytes {
        let buffer = js_sys::Uint8Array::from(bytes.as_slice()).buffer();
        set(&obj, BYTES, &buffer);
        transfer.push(&buffer);
    }
    (obj.into(), transfer)
}

pub fn decode_from_worker(data: &JsValue) -> Result<FromWorker, ProtocolError> {
    let get = |key: &str| js_sys::Reflect::get(data, &JsValue::from_str(key)).ok();
    let text = get(HEADER)
        .and_then(|h| h.as_string())
        .ok_or_else(|| ProtocolError("worker message has no header".into()))?;
    let mut msg: FromWorker =
        serde_json::from_str(&text).map_err(|e| ProtocolError(format!("bad worker message: {e}")))?;
    let bytes = || {
        get(BYTES)
            .and_then(|b| b.dyn_into::<js_sys::ArrayBuffer>().ok())
            .map(|b| js_sys::Uint8Array::new(&b).to_vec())
            .ok_or_else(|| ProtocolError("a file's answer has no outcome".into()))
    };
    match &mut msg {
        FromWorker::Done { outcome, .. } => {
            *outcome = wire::decode(&bytes()?).map_err(|e| ProtocolError(e.to_string()))?;
        }
        FromWorker::WarmedUp { outcome } => *outcome = bytes()?,
        _ => {}
    }
    Ok(msg)
}

fn set(obj: &js_sys::Object, key: &str, value: &JsValue) {
    js_sys::Reflect::set(obj, &JsValue::from_str(key), value).expect("setting a property on a plain object");
}
