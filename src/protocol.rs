//! The messages between the page and its workers: the analysis pool, and the
//! catalog worker that holds a bucket's listing.
//!
//! Main → worker: [`ToWorker`]. Its small fields travel as one JSON string
//! (`header`); bytes (a trace, a listing page) travel beside it as an
//! `ArrayBuffer` that the page *transfers* (no copy, the page loses access to it).
//!
//! Worker → main: [`FromWorker`], one JSON string per message. A worker posts
//! `Ready` first: anything the page posts before the worker's wasm has loaded
//! would be lost, so the pool only hands work to workers that said `Ready`.

use d9lens_core::analysis::{FileOutcome, Options};
use d9lens_core::s3::catalog::{CatalogSummary, Selection};
use d9lens_core::s3::listing_plan::{ListRequest, ListingLimits, ListingProgress};
use d9lens_core::s3::spec::SelectionSpec;
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
        /// Not part of the JSON header: carried as a transferred `ArrayBuffer`.
        #[serde(skip)]
        bytes: Vec<u8>,
    },
    /// Download one S3 object (a presigned GET URL made on the page: the
    /// worker never sees credentials), or read it from the segment cache by
    /// `name` (the object key) + `etag`, then analyze it like `Analyze`.
    #[serde(rename_all = "camelCase")]
    AnalyzeUrl {
        id: u32,
        name: String,
        url: String,
        etag: Option<String>,
        options: Options,
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
}

/// What the catalog worker is asked: it keeps one bucket catalog and the walk
/// of listings that fills it ([`ListingPlan`]), fed page by page, so a listing
/// of any size is planned, parsed and summarized off the page's thread. The
/// page only sends the requests the worker plans.
///
/// [`ListingPlan`]: d9lens_core::s3::listing_plan::ListingPlan
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CatalogRequest {
    /// Start over: an empty catalog and a new walk of everything under `prefix`.
    #[serde(rename_all = "camelCase")]
    Start {
        prefix: String,
        limits: ListingLimits,
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
    #[serde(rename_all = "camelCase")]
    Resolve {
        spec: SelectionSpec,
    },
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
    },
    #[serde(rename_all = "camelCase")]
    Summary {
        summary: Box<CatalogSummary>,
        elapsed_ms: f64,
    },
    #[serde(rename_all = "camelCase")]
    Resolved { selection: Selection },
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
        outcome: FileOutcome,
        analysis_ms: f64,
    },
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

/// Builds the message for an `Analyze` request around an `ArrayBuffer` the page
/// already holds, and the transfer list to post it with. The buffer is moved,
/// not copied, into the worker.
pub fn encode_analyze(id: u32, name: &str, options: &Options, bytes: js_sys::ArrayBuffer) -> (JsValue, js_sys::Array) {
    let header = ToWorker::Analyze {
        id,
        name: name.to_string(),
        options: options.clone(),
        bytes: Vec::new(),
    };
    encode_with_bytes(&header, bytes)
}

/// `header` (whose own bytes field stays empty) with `bytes` beside it, and
/// the transfer list that moves them.
pub fn encode_with_bytes(header: &ToWorker, bytes: js_sys::ArrayBuffer) -> (JsValue, js_sys::Array) {
    let msg = encode_header(header);
    set(msg.unchecked_ref(), BYTES, &bytes);
    let transfer = js_sys::Array::of1(&bytes);
    (msg, transfer)
}

/// Encodes any request: its bytes (if it has any) move into a new `ArrayBuffer`
/// that the transfer list hands to the worker.
pub fn encode_to_worker(mut msg: ToWorker) -> (JsValue, js_sys::Array) {
    match msg.bytes_mut().map(std::mem::take) {
        Some(bytes) => encode_with_bytes(&msg, js_sys::Uint8Array::from(bytes.as_slice()).buffer()),
        None => (encode_header(&msg), js_sys::Array::new()),
    }
}

/// A request without bytes: only the JSON header.
pub fn encode_header(msg: &ToWorker) -> JsValue {
    let obj = js_sys::Object::new();
    let json = serde_json::to_string(msg).expect("request header serializes");
    set(&obj, HEADER, &JsValue::from_str(&json));
    obj.into()
}

/// Decodes a request on the worker side (copies the bytes into wasm memory).
pub fn decode_to_worker(data: &JsValue) -> Result<ToWorker, ProtocolError> {
    let header = js_sys::Reflect::get(data, &JsValue::from_str(HEADER))
        .ok()
        .and_then(|h| h.as_string())
        .ok_or_else(|| ProtocolError("request has no header".into()))?;
    let mut msg: ToWorker =
        serde_json::from_str(&header).map_err(|e| ProtocolError(format!("bad request header: {e}")))?;
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

/// A worker → main message as posted (a JSON string).
pub fn encode_from_worker(msg: &FromWorker) -> JsValue {
    JsValue::from_str(&serde_json::to_string(msg).expect("worker message serializes"))
}

pub fn decode_from_worker(data: &JsValue) -> Result<FromWorker, ProtocolError> {
    let text = data
        .as_string()
        .ok_or_else(|| ProtocolError("worker message is not a string".into()))?;
    serde_json::from_str(&text).map_err(|e| ProtocolError(format!("bad worker message: {e}")))
}

fn set(obj: &js_sys::Object, key: &str, value: &JsValue) {
    js_sys::Reflect::set(obj, &JsValue::from_str(key), value).expect("setting a property on a plain object");
}
