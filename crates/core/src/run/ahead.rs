//! How many S3 objects one worker holds at once: the one it analyzes and
//! the downloads behind it. A busy segment takes tens of milliseconds to
//! analyze, longer than its download, so one download ahead hides the
//! network; a small one takes a few milliseconds, and with one ahead the
//! worker mostly waited for the next. Holding several hides a download's
//! latency whatever the size; the bytes held bound the memory it costs,
//! and the browser's connections to S3 bound the downloads under way.

/// Most objects a worker holds.
pub const MAX_HELD: usize = 8;
/// Most bytes (by listed size) a worker holds, unless it holds nothing:
/// an object larger than this is still analyzed, alone.
pub const MAX_HELD_BYTES: u64 = 4 << 20;

/// Most downloads in flight at once, over all workers. A browser opens at
/// most six HTTP/1.1 connections to one host, and S3 answers in HTTP/1.1: a
/// request beyond them waits in the browser with its answer deadline
/// (`s3::Timeouts`) already running, so on a slow link the downloads held
/// ahead would time out before they had a connection.
pub const MAX_DOWNLOADS: usize = 6;

/// Whether one more download starts while `in_flight` are under way.
pub fn starts_download(in_flight: usize) -> bool {
    in_flight < MAX_DOWNLOADS
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
    fn downloads_stay_within_the_connections_a_browser_opens() {
        assert!(starts_download(0));
        assert!(starts_download(MAX_DOWNLOADS - 1));
        assert!(!starts_download(MAX_DOWNLOADS));
    }
}
