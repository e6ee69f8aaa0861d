//! How many S3 objects one worker holds at once: the one it analyzes and
//! the downloads behind it. A busy segment takes tens of milliseconds to
//! analyze, longer than its download, so one download ahead hides the
//! network; a small one takes a few milliseconds, and with one ahead the
//! worker mostly waited for the next. Holding several hides a download's
//! latency whatever the size; the bytes held bound the memory it costs,
//! and each worker's share of the browser's connections to S3 the
//! downloads it has under way.

/// Most objects a worker holds.
pub const MAX_HELD: usize = 8;
/// Most bytes (by listed size) a worker holds, unless it holds nothing:
/// an object larger than this is still analyzed, alone.
pub const MAX_HELD_BYTES: u64 = 4 << 20;

/// Connections a browser opens to one host over HTTP/1.1, which S3 speaks. A
/// request beyond them waits inside the browser with its answer deadline
/// (`s3::Timeouts`) already running.
pub const BROWSER_CONNECTIONS: usize = 6;

/// Most downloads under way over all workers: one round waiting in the
/// browser behind the connections, so that a connection set free starts the
/// next at once (a worker issues its next request only when its thread is
/// free: with no round waiting, small segments ran 13% slower), while a
/// request waits at most for one download to end, not for all those held
/// ahead (dozens on a machine with many cores, which on a slow link timed out
/// before they had a connection).
pub const MAX_DOWNLOADS: usize = 2 * BROWSER_CONNECTIONS;

/// How many downloads worker `index` of a pool of `workers` runs at once:
/// its share of [`MAX_DOWNLOADS`], the shares summing to it, and at least
/// one. Each worker keeps its own count, so no download waits for a message
/// through the page's busy thread.
pub fn downloads_at_once(index: usize, workers: usize) -> usize {
    let workers = workers.max(1);
    (MAX_DOWNLOADS / workers + usize::from(index % workers < MAX_DOWNLOADS % workers)).max(1)
}

/// Whether a worker holding objects of `held` bytes each (listed sizes)
/// takes one more of `next` bytes.
pub fn takes(held: &[u64], next: u64) -> bool {
    held.is_empty() || (held.len() < MAX_HELD && held.iter().sum::<u64>().saturating_add(next) <= MAX_HELD_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_objects_up_to_a_count_large_ones_up_to_a_size() {
        let small = 60_000;
        assert!(takes(&[small; MAX_HELD - 1], small));
        assert!(!takes(&[small; MAX_HELD], small));
        let busy = 1 << 20;
        let fit = (MAX_HELD_BYTES / busy) as usize;
        assert!(takes(&vec![busy; fit - 1], busy));
        assert!(!takes(&vec![busy; fit], busy));
        let big = MAX_HELD_BYTES * 3 / 4;
        assert!(takes(&[], 4 * MAX_HELD_BYTES), "alone, whatever its size");
        assert!(!takes(&[big], big));
        assert!(takes(&[big], MAX_HELD_BYTES - big));
        assert!(!takes(&[u64::MAX], 1));
    }

    #[test]
    fn the_workers_share_the_downloads_under_way() {
        for workers in 1..=MAX_DOWNLOADS {
            let shares: Vec<usize> = (0..workers).map(|i| downloads_at_once(i, workers)).collect();
            assert_eq!(
                shares.iter().sum::<usize>(),
                MAX_DOWNLOADS,
                "{workers} workers: {shares:?}"
            );
            assert!(
                shares.iter().max().unwrap() - shares.iter().min().unwrap() <= 1,
                "{shares:?}"
            );
        }
        assert_eq!(downloads_at_once(0, 8), 2);
        assert_eq!(downloads_at_once(7, 8), 1);
        assert_eq!(downloads_at_once(15, 16), 1, "at least one each");
        assert_eq!(downloads_at_once(0, 0), MAX_DOWNLOADS, "no pool is a pool of one");
    }
}
