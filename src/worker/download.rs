//! A worker's download of one S3 segment (presigned by the page), or its
//! copy from the segment cache, and how many of its downloads run at once.

use crate::net::{cache, client};
use d9lens_core::bucket::cached::CachedObject;
use d9lens_core::run::ahead;
use d9lens_core::s3::{HttpRequest, Method};
use futures::channel::oneshot;
use std::cell::RefCell;
use std::collections::VecDeque;

/// This worker's downloads: how many may run at once, how many do, and the
/// ones waiting for a turn (before their request, so before their deadline).
struct Turns {
    share: usize,
    running: usize,
    waiting: VecDeque<oneshot::Sender<Turn>>,
}

thread_local! {
    static TURNS: RefCell<Turns> = const {
        RefCell::new(Turns {
            share: ahead::MAX_DOWNLOADS,
            running: 0,
            waiting: VecDeque::new(),
        })
    };
}

/// Sets how many downloads this worker runs at once (the pool's `WarmUp`,
/// before any file).
pub fn set_share(downloads: usize) {
    TURNS.with_borrow_mut(|t| t.share = downloads.max(1));
}

/// One running download; dropping it hands its turn to the next waiting one.
struct Turn;

impl Turn {
    async fn take() -> Turn {
        loop {
            let waited = TURNS.with_borrow_mut(|t| {
                if t.running < t.share {
                    t.running += 1;
                    None
                } else {
                    let (send, receive) = oneshot::channel();
                    t.waiting.push_back(send);
                    Some(receive)
                }
            });
            match waited {
                None => return Turn,
                // A turn handed over. (A sender only goes with one in it.)
                Some(receive) => {
                    if let Ok(turn) = receive.await {
                        return turn;
                    }
                }
            }
        }
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        TURNS.with_borrow_mut(|t| {
            // The turn passes to the first waiter still there: `running` stays.
            while let Some(next) = t.waiting.pop_front() {
                match next.send(Turn) {
                    Ok(()) => return,
                    // That waiter is gone: the turn came back, and dropping
                    // it here would borrow `TURNS` again.
                    Err(turn) => std::mem::forget(turn),
                }
            }
            t.running -= 1;
        });
    }
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
    let turn = Turn::take().await;
    let response = client::drive(None, || request.clone())
        .await
        .map_err(|error| format!("Download failed: {} Fix: {}", error.cause(), error.fix()))?;
    drop(turn);
    if let Some(object) = cached.filter(|o| o.keeps(response.body.len() as u64)) {
        let buffer = js_sys::Uint8Array::from(response.body.as_slice()).buffer();
        // Written in the background: the analysis need not wait for the
        // browser's storage.
        let id = object.id().to_owned();
        wasm_bindgen_futures::spawn_local(async move { cache::put(&id, &buffer).await });
    }
    Ok((response.body, false))
}
