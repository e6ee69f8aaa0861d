//! The page's handle on the catalog worker: a dedicated Web Worker (the same
//! `worker` binary as the analysis pool) that parses every listing page and
//! keeps the bucket catalog, so a listing of 100,000 keys never blocks the
//! page. Requests are answered in order; each call awaits its own answer.

use crate::page::assets;
use crate::page::worker_pool::js_message;
use crate::protocol::{self, CatalogReply, CatalogRequest, FromWorker, ToWorker};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[derive(Clone)]
pub struct RemoteCatalog {
    inner: Rc<RefCell<Inner>>,
}

struct Inner {
    worker: web_sys::Worker,
    /// Requests posted before the worker's wasm loaded would be lost: they wait here.
    ready: bool,
    queue: Vec<(JsValue, js_sys::Array)>,
    next_id: u32,
    /// Per waiting call: the answer once it came, and the promise to resolve.
    answers: HashMap<u32, CatalogReply>,
    waiting: HashMap<u32, js_sys::Function>,
    /// Set once the worker died: every later call fails with it.
    dead: Option<String>,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

impl RemoteCatalog {
    pub fn new() -> Result<Self, String> {
        let worker = web_sys::Worker::new(&assets::worker_script())
            .map_err(|e| format!("could not start the catalog worker: {}", js_message(&e)))?;
        let inner = Rc::new_cyclic(|weak: &std::rc::Weak<RefCell<Inner>>| {
            let on_message = {
                let weak = weak.clone();
                Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
                    if let Some(inner) = weak.upgrade() {
                        on_message(&inner, &ev.data());
                    }
                })
            };
            let on_error = {
                let weak = weak.clone();
                Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |ev: web_sys::ErrorEvent| {
                    ev.prevent_default();
                    if let Some(inner) = weak.upgrade() {
                        fail_all(&inner, format!("the catalog worker crashed: {}", ev.message()));
                    }
                })
            };
            worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            RefCell::new(Inner {
                worker,
                ready: false,
                queue: Vec::new(),
                next_id: 0,
                answers: HashMap::new(),
                waiting: HashMap::new(),
                dead: None,
                _on_message: on_message,
                _on_error: on_error,
            })
        });
        Ok(RemoteCatalog { inner })
    }

    /// Sends `request` (its bytes transferred) and awaits its answer.
    pub async fn call(&self, request: CatalogRequest) -> CatalogReply {
        let id = {
            let mut inner = self.inner.borrow_mut();
            if let Some(message) = &inner.dead {
                return CatalogReply::Failed {
                    message: message.clone(),
                };
            }
            inner.next_id += 1;
            inner.next_id
        };
        let posted = protocol::encode_to_worker(ToWorker::Catalog { id, request });
        let answered = js_sys::Promise::new(&mut |resolve, _| {
            self.inner.borrow_mut().waiting.insert(id, resolve);
        });
        {
            let mut inner = self.inner.borrow_mut();
            if inner.ready {
                post(&inner.worker, &posted);
            } else {
                inner.queue.push(posted);
            }
        }
        let _ = JsFuture::from(answered).await;
        self.inner
            .borrow_mut()
            .answers
            .remove(&id)
            .unwrap_or_else(|| CatalogReply::Failed {
                message: "the catalog worker gave no answer".into(),
            })
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

fn post(worker: &web_sys::Worker, (msg, transfer): &(JsValue, js_sys::Array)) {
    if let Err(err) = worker.post_message_with_transfer(msg, transfer) {
        web_sys::console::error_1(&format!("d9lens: catalog worker: {}", js_message(&err)).into());
    }
}

fn on_message(inner: &Rc<RefCell<Inner>>, data: &JsValue) {
    let resolve = {
        let mut guard = inner.borrow_mut();
        match protocol::decode_from_worker(data) {
            Ok(FromWorker::Ready) => {
                guard.ready = true;
                for posted in std::mem::take(&mut guard.queue) {
                    post(&guard.worker, &posted);
                }
                None
            }
            Ok(FromWorker::Catalog { id, reply }) => {
                guard.answers.insert(id, reply);
                guard.waiting.remove(&id)
            }
            Ok(_) => None,
            Err(err) => {
                drop(guard);
                return fail_all(inner, format!("unreadable answer from the catalog worker ({err})"));
            }
        }
    };
    if let Some(resolve) = resolve {
        let _ = resolve.call0(&JsValue::NULL);
    }
}

/// Fails every waiting call (and every later one) with `message`.
fn fail_all(inner: &Rc<RefCell<Inner>>, message: String) {
    let waiting: Vec<(u32, js_sys::Function)> = {
        let mut guard = inner.borrow_mut();
        guard.dead = Some(message.clone());
        let waiting: Vec<_> = guard.waiting.drain().collect();
        for (id, _) in &waiting {
            guard.answers.insert(
                *id,
                CatalogReply::Failed {
                    message: message.clone(),
                },
            );
        }
        waiting
    };
    for (_, resolve) in waiting {
        let _ = resolve.call0(&JsValue::NULL);
    }
}
