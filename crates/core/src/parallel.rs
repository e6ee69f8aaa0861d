//! Work on several threads, natively; the wasm build has none.
//!
//! - [`join`]: two pieces of one analysis at once. Natively the second runs
//!   on a scoped thread (a single big file then uses both cores); in wasm
//!   they run one after the other (the page parallelizes across files
//!   instead). Both give the same result: the pieces share nothing mutable.
//!   Fuzzing takes the wasm path: a thread per input would cost more than
//!   the analysis of most inputs.
//! - [`pipeline`], [`for_each_ready`] (native only): the one fan-out of the
//!   CLI and the Lambda function: items fetched (downloads) on some threads,
//!   worked on (analysis) on others, each result taken as it is ready.

pub fn join<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    #[cfg(not(any(target_arch = "wasm32", fuzzing)))]
    {
        std::thread::scope(|s| {
            let b = s.spawn(b);
            let a = a();
            (a, b.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
        })
    }
    #[cfg(any(target_arch = "wasm32", fuzzing))]
    {
        (a(), b())
    }
}

#[cfg(not(target_arch = "wasm32"))]
use std::sync::atomic::{AtomicUsize, Ordering};
#[cfg(not(target_arch = "wasm32"))]
use std::sync::{Arc, Mutex, PoisonError};

/// Runs `fetch` on every item on up to `fetchers` threads, then `work` on
/// what each fetch gave on up to `workers` threads, handing each result to
/// `take` on this thread as soon as it is ready. Waiting fetches (downloads)
/// overlap one another apart from the work (analysis), which keeps to its own
/// threads, one per core; at most `workers` fetched items wait for a worker,
/// so what is held stays bounded however many items there are. Stops at
/// `take`'s first error.
#[cfg(not(target_arch = "wasm32"))]
pub fn pipeline<T: Sync, F: Send, R: Send, E>(
    items: &[T],
    fetchers: usize,
    workers: usize,
    fetch: impl Fn(&T) -> F + Sync,
    work: impl Fn(F) -> R + Sync,
    take: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E> {
    let next = AtomicUsize::new(0);
    let workers = workers.clamp(1, items.len().max(1));
    let (fetched_tx, fetched_rx) = std::sync::mpsc::sync_channel(workers);
    // Shared by the workers alone: once they are all gone (after `take`
    // failed) the channel closes, and a fetcher waiting to hand over stops.
    let fetched_rx = Arc::new(Mutex::new(fetched_rx));
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        for _ in 0..fetchers.clamp(1, items.len().max(1)) {
            let (tx, next, fetch) = (fetched_tx.clone(), &next, &fetch);
            s.spawn(move || {
                while let Some(item) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if tx.send(fetch(item)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(fetched_tx);
        for _ in 0..workers {
            let (rx, tx, work) = (Arc::clone(&fetched_rx), done_tx.clone(), &work);
            s.spawn(move || {
                loop {
                    // Its own statement: the lock is held only while waiting
                    // for the next item, not through its work.
                    let next = rx.lock().unwrap_or_else(PoisonError::into_inner).recv();
                    let Ok(fetched) = next else { break };
                    if tx.send(work(fetched)).is_err() {
                        break;
                    }
                }
            });
        }
        drop((fetched_rx, done_tx));
        done_rx.into_iter().try_for_each(take)
    })
}

/// The threads the machine runs at once: one analysis thread each.
#[cfg(not(target_arch = "wasm32"))]
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `work` on every item on up to `threads` threads (each on one item at
/// a time) and hands each result to `take` on this thread as soon as it is
/// ready, so only the results not taken yet are held. Stops at `take`'s
/// first error. A [`pipeline`] whose fetch is the work.
#[cfg(not(target_arch = "wasm32"))]
pub fn for_each_ready<T: Sync, R: Send, E>(
    items: &[T],
    threads: usize,
    work: impl Fn(&T) -> R + Sync,
    take: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E> {
    pipeline(items, threads, 1, work, |r| r, take)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_pipeline_takes_every_result_once_whatever_the_threads() {
        let items: Vec<u64> = (0..200).collect();
        for (fetchers, workers) in [(1, 1), (12, 2), (3, 8), (50, 50)] {
            let mut got = Vec::new();
            pipeline(
                &items,
                fetchers,
                workers,
                |&i| i * 3,
                |f| f + 1,
                |r| {
                    got.push(r);
                    Ok::<(), ()>(())
                },
            )
            .unwrap();
            got.sort_unstable();
            assert_eq!(got, items.iter().map(|i| i * 3 + 1).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_pipeline_holds_at_most_its_fetchers_and_twice_its_workers() {
        let (fetchers, workers) = (6, 2);
        let held = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let items: Vec<u32> = (0..60).collect();
        pipeline(
            &items,
            fetchers,
            workers,
            |&i| {
                let now = held.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                i
            },
            |i| {
                // Slow work: the fetches run ahead until the channel is full.
                std::thread::sleep(Duration::from_millis(2));
                held.fetch_sub(1, Ordering::SeqCst);
                i
            },
            |_| Ok::<(), ()>(()),
        )
        .unwrap();
        let most = most.into_inner();
        // Each fetcher may hold one it cannot hand over, the channel holds
        // `workers`, and each worker one it works on.
        assert!(most <= fetchers + 2 * workers, "{most} held at once");
        assert!(most > workers, "the fetches ran ahead: {most}");
    }

    #[test]
    fn a_pipelines_workers_work_at_the_same_time() {
        // Each item's work waits until every worker is at work (or gives up
        // after a long time, if they never are): workers that took turns,
        // as when one held the queue's lock through its work, fail this.
        let workers = 3;
        let at_work = (Mutex::new(0), std::sync::Condvar::new());
        let items: Vec<u32> = (0..workers as u32).collect();
        let mut all_met = true;
        pipeline(
            &items,
            1,
            workers,
            |&i| i,
            |_| {
                let (count, changed) = &at_work;
                let mut n = count.lock().unwrap();
                *n += 1;
                changed.notify_all();
                let (n, waited) = changed
                    .wait_timeout_while(n, Duration::from_secs(30), |n| *n < workers)
                    .unwrap();
                drop(n);
                !waited.timed_out()
            },
            |met| {
                all_met &= met;
                Ok::<(), ()>(())
            },
        )
        .unwrap();
        assert!(all_met, "the workers took turns");
    }

    #[test]
    fn a_pipeline_stops_at_the_first_error_without_hanging() {
        let items: Vec<u32> = (0..1_000).collect();
        let fetched = AtomicUsize::new(0);
        let mut taken = 0;
        let result = pipeline(
            &items,
            8,
            2,
            |&i| {
                fetched.fetch_add(1, Ordering::SeqCst);
                i
            },
            |i| i,
            |_| {
                taken += 1;
                if taken == 3 { Err("enough") } else { Ok(()) }
            },
        );
        assert_eq!(result, Err("enough"));
        assert!(fetched.into_inner() < items.len(), "fetching went on after the error");
    }
}
