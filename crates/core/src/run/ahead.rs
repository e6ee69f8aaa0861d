//! How many S3 objects one worker holds at once: the one it analyzes and
//! the downloads behind it. A busy segment takes tens of milliseconds to
//! analyze, longer than its download, so one download ahead hides the
//! network; a small one takes a few milliseconds, and with one ahead the
//! worker mostly waited for the next. Holding several hides a download's
//! latency whatever the size; the bytes held bound the memory it costs.

/// Most objects a worker holds.
pub const MAX_HELD: usize = 8;
/// Most bytes (by listed size) a worker holds, unless it holds nothing:
/// an object larger than this is still analyzed, alone.
pub const MAX_HELD_BYTES: u64 = 4 << 20;

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
}
