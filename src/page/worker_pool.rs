//! A fixed pool of analysis workers (one per core, at most 8) fed from a queue.
//!
//! Files wait in the queue as `Blob`s (a dropped `File` is one) and are read
//! into an `ArrayBuffer` only when a worker is free, so a dropped folder of
//! hundreds of segments is never in memory all at once. The buffer is then
//! transferred to the worker. An S3 object waits as a way to presign its URL:
//! the worker downloads it (or reads it from the segment cache) itself, with a
//! URL signed when it takes the job. A worker that dies (a trap in its wasm) fails its
//! file and is replaced.
//!
//! When workers would otherwise sit idle (one file, or the last of a batch),
//! a file gets two: one reads and unpacks it (gunzip) while the other decodes
//! and analyzes the raw trace as it streams in over a `MessageChannel`.
//!
//! When every worker is busy, a worker analyzing an S3 object takes the next
//! ones too, as many as the core's `run::ahead` allows, the least loaded
//! worker first: their downloads run in the browser while the worker
//! computes, so the worker never waits for the network between files.

use crate::protocol::{self, FromWorker, Phase};
use d9lens_core::analysis::inspect::{InspectAnswer, InspectQuery};
use d9lens_core::analysis::{FileOutcome, Options};
use d9lens_core::bucket::cached::CachedObject;
use d9lens_core::run::ahead;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// Where a job's bytes come from.
#[derive(Clone)]
pub enum Source {
    Blob(web_sys::Blob),
    Buffer(js_sys::ArrayBuffer),
    /// An S3 object the worker downloads itself. `presign` makes a fresh
    /// presigned URL when a worker takes the job (credentials stay here).
    Url {
        presign: Rc<dyn Fn() -> String>,
        /// Its identity in the segment cache, when it can be cached.
        cache: Option<CachedObject>,
        /// Its size as listed.
        size: u64,
    },
}

pub struct Job {
    pub id: u32,
    pub name: String,
    pub source: Source,
    /// A question about a file already analyzed, instead of its analysis.
    pub inspect: Option<InspectQuery>,
}

/// What the pool reports to the page.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // transient: one `Done` per file, moved straight on
pub enum PoolEvent {
    /// A worker took the job; `partner`: the second worker decoding what it unpacks.
    Started {
        id: u32,
        worker: usize,
        partner: Option<usize>,
    },
    Progress {
        id: u32,
        phase: Phase,
        bytes: u64,
        events: u64,
    },
    /// An S3 object is in the worker's memory (downloaded, or from the cache).
    Fetched {
        id: u32,
        bytes: u64,
        cached: bool,
    },
    Done {
        id: u32,
        /// With its timeline, when asked for.
        outcome: FileOutcome,
        analysis_ms: f64,
    },
    Inspected {
        id: u32,
        answer: InspectAnswer,
    },
    /// The worker died on the job (out of memory, a trap): `message` is the
    /// browser's error text.
    Crashed {
        id: u32,
        message: String,
    },
    /// The job could not be analyzed at all (unreadable file, download failed).
    Failed {
        id: u32,
        message: String,
    },
}

/// The heap worker `index` readies while idle. A file alone gets workers 0
/// and 1 (the first idle ones), and a heap sized for a big trace (the 12 MB
/// demo trace peaks near 50 MB) spares it the page faults of growing one;
/// the others grow theirs only if a batch needs it.
fn warm_heap_bytes(index: usize) -> u64 {
    const BIG_TRACE_HEAP: u64 = 64 << 20;
    if index < 2 { BIG_TRACE_HEAP } else { 0 }
}

type Listener = Rc<dyn Fn(PoolEvent)>;

#[derive(Clone)]
pub struct Pool {
    inner: Rc<RefCell<Inner>>,
}

struct Inner {
    script: String,
    options: Options,
    /// Readies the page's code on a warm-up trace's outcome (`page::warm_up`,
    /// given by the app: the pool does not reach up into the views).
    warm_up: fn(Vec<u8>),
    slots: Vec<Slot>,
    queue: VecDeque<Job>,
    listener: Listener,
}

struct Slot {
    worker: web_sys::Worker,
    ready: bool,
    /// The files it works on; more than one only as S3 downloads ahead.
    jobs: Vec<Held>,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

#[derive(Clone, Copy)]
struct Held {
    id: u32,
    /// A download the worker does alone, which may share it with another.
    shares: bool,
    /// Its size as listed (an S3 object), else 0.
    bytes: u64,
}

impl Slot {
    fn holds(&self, id: u32) -> bool {
        self.jobs.iter().any(|h| h.id == id)
    }

    fn release(&mut self, id: u32) {
        self.jobs.retain(|h| h.id != id);
    }

    /// Whether it may take a job of `bytes` that `shares` now.
    fn takes(&self, shares: bool, bytes: u64) -> bool {
        let held = || self.jobs.iter().map(|h| h.bytes).collect::<Vec<_>>();
        self.ready
            && (self.jobs.is_empty() || shares && self.jobs.iter().all(|h| h.shares) && ahead::takes(&held(), bytes))
    }
}

/// How many workers to run: the browser's core count, at least 1, at most 8.
pub fn default_size() -> usize {
    let cores = web_sys::window()
        .map(|w| w.navigator().hardware_concurrency())
        .unwrap_or(1.0);
    (cores as usize).clamp(1, 8)
}

impl Pool {
    /// Spawns `size` workers from `script` ([`assets::worker_script`](crate::page::assets::worker_script) in the built page).
    pub fn new(
        script: &str,
        size: usize,
        options: Options,
        warm_up: fn(Vec<u8>),
        listener: impl Fn(PoolEvent) + 'static,
    ) -> Result<Pool, JsValue> {
        let inner = Rc::new(RefCell::new(Inner {
            script: script.to_string(),
            options,
            warm_up,
            slots: Vec::new(),
            queue: VecDeque::new(),
            listener: Rc::new(listener),
        }));
        for index in 0..size.max(1) {
            let slot = spawn_slot(&Rc::downgrade(&inner), script, index)?;
            inner.borrow_mut().slots.push(slot);
        }
        Ok(Pool { inner })
    }

    pub fn size(&self) -> usize {
        self.inner.borrow().slots.len()
    }

    pub fn set_options(&self, options: Options) {
        self.inner.borrow_mut().options = options;
    }

    /// Queues jobs and starts as many as there are free workers.
    pub fn submit(&self, jobs: impl IntoIterator<Item = Job>) {
        self.inner.borrow_mut().queue.extend(jobs);
        dispatch(&self.inner);
    }

    /// Drops every queued job and restarts busy workers (their results would be stale).
    pub fn cancel_all(&self) {
        self.inner.borrow_mut().queue.clear();
        replace_busy(&self.inner, |_| true);
    }
}

fn spawn_slot(inner: &Weak<RefCell<Inner>>, script: &str, index: usize) -> Result<Slot, JsValue> {
    let worker = web_sys::Worker::new(script)?;
    let weak = inner.clone();
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
        if let Some(inner) = weak.upgrade() {
            on_message(&inner, index, &ev.data());
        }
    });
    let weak = inner.clone();
    let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |ev: web_sys::ErrorEvent| {
        ev.prevent_default();
        if let Some(inner) = weak.upgrade() {
            on_crash(&inner, index, ev.message());
        }
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    Ok(Slot {
        worker,
        ready: false,
        jobs: Vec::new(),
        _on_message: on_message,
        _on_error: on_error,
    })
}

fn on_message(inner: &Rc<RefCell<Inner>>, index: usize, data: &JsValue) {
    let msg = match protocol::decode_from_worker(data) {
        Ok(msg) => msg,
        Err(err) => {
            web_sys::console::error_1(&format!("d9lens: worker {index}: {err}").into());
            // Whatever it was, the file it was working on has no usable answer.
            let busy = inner
                .borrow()
                .slots
                .get(index)
                .and_then(|s| s.jobs.first().map(|h| h.id));
            match busy {
                Some(id) => FromWorker::Failed {
                    id,
                    message: format!("unreadable answer from the analysis worker ({err})"),
                },
                None => return,
            }
        }
    };
    let (listener, event) = {
        let mut guard = inner.borrow_mut();
        let listener = guard.listener.clone();
        let workers = guard.slots.len();
        let Some(slot) = guard.slots.get_mut(index) else { return };
        let event = match msg {
            FromWorker::Ready => {
                slot.ready = true;
                let warm_up = protocol::ToWorker::WarmUp {
                    heap_bytes: warm_heap_bytes(index),
                    // One worker's warm-up trace readies the page's code too.
                    page: index == 0,
                    downloads: ahead::downloads_at_once(index, workers),
                };
                if let Err(err) = slot.worker.post_message(&protocol::encode_to_worker(warm_up).0) {
                    web_sys::console::error_2(&"d9lens: could not warm up a worker".into(), &err);
                }
                None
            }
            FromWorker::Progress {
                id,
                phase,
                bytes,
                events,
            } => Some(PoolEvent::Progress {
                id,
                phase,
                bytes,
                events,
            }),
            FromWorker::Fetched { id, bytes, cached } => Some(PoolEvent::Fetched { id, bytes, cached }),
            FromWorker::Done {
                id,
                outcome,
                analysis_ms,
            } => {
                slot.release(id);
                Some(PoolEvent::Done {
                    id,
                    outcome,
                    analysis_ms,
                })
            }
            FromWorker::WarmedUp { outcome } => {
                (guard.warm_up)(outcome);
                None
            }
            FromWorker::Inspected { id, answer } => {
                slot.release(id);
                Some(PoolEvent::Inspected { id, answer })
            }
            FromWorker::Relayed { id } => {
                slot.release(id);
                None
            }
            FromWorker::Failed { id, message } => {
                slot.release(id);
                Some(PoolEvent::Failed { id, message })
            }
            // Only the catalog worker answers catalog requests, and the pool sends none.
            FromWorker::Catalog { .. } => None,
        };
        (listener, event)
    };
    if let Some(event) = event {
        if let PoolEvent::Failed { id, .. } = &event {
            replace_partners(inner, *id);
        }
        listener(event);
    }
    dispatch(inner);
}

/// Replaces the workers still busy with file `id` (which failed): the other
/// half of a file on two workers would wait for it forever.
fn replace_partners(inner: &Rc<RefCell<Inner>>, id: u32) {
    replace_busy(inner, |busy| busy == id);
}

/// Replaces every worker busy with a file that `which` picks.
fn replace_busy(inner: &Rc<RefCell<Inner>>, which: impl Fn(u32) -> bool) {
    let picked: Vec<usize> = (inner.borrow().slots.iter().enumerate())
        .filter(|(_, slot)| slot.jobs.iter().any(|h| which(h.id)))
        .map(|(index, _)| index)
        .collect();
    for index in picked {
        replace_slot(inner, index);
    }
}

fn on_crash(inner: &Rc<RefCell<Inner>>, index: usize, message: String) {
    let (listener, lost) = {
        let guard = inner.borrow();
        let lost: Vec<u32> = guard
            .slots
            .get(index)
            .map(|s| s.jobs.iter().map(|h| h.id).collect())
            .unwrap_or_default();
        (guard.listener.clone(), lost)
    };
    web_sys::console::error_1(&format!("d9lens: worker {index} crashed: {message}").into());
    replace_slot(inner, index);
    for id in lost {
        replace_partners(inner, id);
        listener(PoolEvent::Crashed {
            id,
            message: message.clone(),
        });
    }
    dispatch(inner);
}

fn replace_slot(inner: &Rc<RefCell<Inner>>, index: usize) {
    let script = inner.borrow().script.clone();
    match spawn_slot(&Rc::downgrade(inner), &script, index) {
        Ok(fresh) => {
            let old = std::mem::replace(&mut inner.borrow_mut().slots[index], fresh);
            old.worker.terminate();
        }
        Err(err) => web_sys::console::error_2(&"d9lens: could not restart a worker".into(), &err),
    }
}

/// Hands queued jobs to ready, idle workers; a job gets a second worker
/// when one would be left idle once every waiting job has one. With none
/// idle, an S3 object goes to a worker with one to download ahead.
fn dispatch(inner: &Rc<RefCell<Inner>>) {
    loop {
        let (index, partner, job, options, listener) = {
            let mut guard = inner.borrow_mut();
            let Some(next) = guard.queue.front() else { return };
            let shares = next.inspect.is_none() && matches!(next.source, Source::Url { .. });
            let bytes = match next.source {
                Source::Url { size, .. } => size,
                Source::Blob(_) | Source::Buffer(_) => 0,
            };
            let idle: Vec<usize> = (guard.slots.iter().enumerate())
                .filter(|(_, s)| s.ready && s.jobs.is_empty())
                .map(|(index, _)| index)
                .collect();
            let ahead = || {
                (guard.slots.iter().enumerate())
                    .filter(|(_, s)| s.takes(shares, bytes))
                    .min_by_key(|(_, s)| s.jobs.len())
                    .map(|(index, _)| index)
            };
            let Some(index) = idle.first().copied().or_else(ahead) else {
                return;
            };
            let Some(job) = guard.queue.pop_front() else { return };
            let partner = (job.inspect.is_none() && guard.queue.len() + 2 <= idle.len()).then(|| idle[1]);
            let shares = shares && partner.is_none();
            for slot in std::iter::once(index).chain(partner) {
                guard.slots[slot].jobs.push(Held {
                    id: job.id,
                    shares,
                    bytes,
                });
            }
            (index, partner, job, guard.options.clone(), guard.listener.clone())
        };
        listener(PoolEvent::Started {
            id: job.id,
            worker: index,
            partner,
        });
        let inner = inner.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let id = job.id;
            let fail = |message: String| {
                release(&inner, index, id);
                partner.inspect(|&p| release(&inner, p, id));
                listener(PoolEvent::Failed { id, message });
                dispatch(&inner);
            };
            // The decoding half of a file split between two workers reads the same options.
            let decode_options = options.clone();
            let (mut msg, bytes) = match message(&job, options).await {
                Ok(msg) => msg,
                Err(message) => return fail(message),
            };
            // The slots may have been replaced (cancel) while the file was read.
            let worker = |slot: usize| {
                let guard = inner.borrow();
                (guard.slots.get(slot))
                    .filter(|s| s.holds(id))
                    .map(|s| s.worker.clone())
            };
            let sent = match partner {
                None => worker(index).map(|w| post(&w, msg, bytes)),
                Some(partner) => worker(index).zip(worker(partner)).map(|(unpacker, decoder)| {
                    let channel = web_sys::MessageChannel::new()?;
                    msg.set_relay(channel.port1());
                    let decode = protocol::ToWorker::Decode {
                        id,
                        name: job.name.clone(),
                        options: decode_options,
                        from: Some(channel.port2()),
                    };
                    post(&decoder, decode, None)?;
                    post(&unpacker, msg, bytes)
                }),
            };
            if let Some(Err(err)) = sent {
                fail(format!("could not send the job to a worker: {}", js_message(&err)));
            }
        });
    }
}

fn post(worker: &web_sys::Worker, msg: protocol::ToWorker, bytes: Option<js_sys::ArrayBuffer>) -> Result<(), JsValue> {
    let (msg, transfer) = protocol::encode(msg, bytes);
    worker.post_message_with_transfer(&msg, &transfer)
}

fn release(inner: &Rc<RefCell<Inner>>, index: usize, id: u32) {
    if let Some(slot) = inner.borrow_mut().slots.get_mut(index) {
        slot.release(id);
    }
}

/// The request for `job` and the file's bytes to transfer with it: read
/// only now, when a worker is free, or a freshly presigned URL the worker
/// downloads.
async fn message(job: &Job, options: Options) -> Result<(protocol::ToWorker, Option<js_sys::ArrayBuffer>), String> {
    let buffer = match &job.source {
        Source::Url { presign, cache, .. } => {
            let msg = protocol::ToWorker::AnalyzeUrl {
                id: job.id,
                name: job.name.clone(),
                url: presign(),
                cache: cache.clone(),
                options,
                relay: None,
                inspect: job.inspect.clone(),
            };
            return Ok((msg, None));
        }
        // A copy travels: the page keeps its buffer for later questions.
        Source::Buffer(buffer) => buffer.slice(0),
        Source::Blob(blob) => JsFuture::from(blob.array_buffer())
            .await
            .map(|v| v.unchecked_into())
            .map_err(|err| format!("could not read the file: {}", js_message(&err)))?,
    };
    let msg = protocol::ToWorker::Analyze {
        id: job.id,
        name: job.name.clone(),
        options,
        bytes: Vec::new(),
        relay: None,
        inspect: job.inspect.clone(),
    };
    Ok((msg, Some(buffer)))
}

/// The message of a JS error value, or its string form.
pub fn js_message(err: &JsValue) -> String {
    if let Some(e) = err.dyn_ref::<js_sys::Error>() {
        return String::from(e.message());
    }
    err.as_string().unwrap_or_else(|| format!("{err:?}"))
}
