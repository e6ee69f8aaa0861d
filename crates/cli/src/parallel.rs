//! Work on a bounded number of threads, results taken in as they are ready.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs `work` on every item on up to `threads` threads (each on one item at
/// a time) and hands each result to `take` on this thread as soon as it is
/// ready, so only the results not taken yet are held. Stops at `take`'s first error.
pub fn for_each_ready<T: Sync, R: Send, E>(
    items: &[T],
    threads: usize,
    work: impl Fn(&T) -> R + Sync,
    take: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E> {
    let next = AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, items.len().max(1)) {
            let tx = tx.clone();
            let (next, work) = (&next, &work);
            s.spawn(move || {
                while let Some(item) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
                    // A closed channel: the receiver gave up on an error.
                    if tx.send(work(item)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        rx.into_iter().try_for_each(take)
    })
}
