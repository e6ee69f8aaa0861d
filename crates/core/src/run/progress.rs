//! A run's progress as one line for a terminal: the bucket's partitions
//! listed, then the files downloaded and analyzed with their bytes, the rate
//! and the time left. Time comes in as milliseconds from any fixed start;
//! the shell draws the line (over the last one) when [`Refresh::due`] says so.

use crate::bucket::listing_plan::ListingProgress;
use crate::fmt::{bytes, count, grouped, secs};

/// A line is redrawn at most this often: faster is flicker a person cannot read.
pub const REFRESH_MS: f64 = 100.0;

/// A rate and a time left are told only after this long: the first files'
/// pace says little about the run's.
const SETTLED_MS: f64 = 1000.0;

/// When a line is worth drawing again.
#[derive(Debug, Clone, Default)]
pub struct Refresh {
    last_ms: Option<f64>,
}

impl Refresh {
    /// Whether to draw now (the first call, then every `REFRESH_MS`); a
    /// `true` counts as drawn.
    pub fn due(&mut self, now_ms: f64) -> bool {
        let due = self.last_ms.is_none_or(|last| now_ms - last >= REFRESH_MS);
        if due {
            self.last_ms = Some(now_ms);
        }
        due
    }
}

/// A bucket's listing so far.
pub fn listing_line(p: &ListingProgress) -> String {
    format!(
        "listing: {} of {} listed, {}, {}",
        grouped(p.partitions_listed as i64),
        count(p.partitions, "partition"),
        count(p.objects as usize, "object"),
        count(p.pages as usize, "page"),
    )
}

/// Files of known sizes downloaded (or read) and analyzed.
#[derive(Debug, Clone)]
pub struct FilesProgress {
    started_ms: f64,
    files: usize,
    bytes: u64,
    files_done: usize,
    bytes_done: u64,
    failed: usize,
}

impl FilesProgress {
    /// A run of `files` holding `bytes` in all, starting at `now_ms`.
    pub fn new(files: usize, bytes: u64, now_ms: f64) -> Self {
        FilesProgress {
            started_ms: now_ms,
            files,
            bytes,
            files_done: 0,
            bytes_done: 0,
            failed: 0,
        }
    }

    /// One more file done, of `bytes`; `failed` if it gave an error.
    pub fn done(&mut self, bytes: u64, failed: bool) {
        self.files_done += 1;
        self.bytes_done = self.bytes_done.saturating_add(bytes);
        self.failed += usize::from(failed);
    }

    /// "37 of 240 files (1 failed), 52.1 MB of 330 MB, 12.4 MB/s, about 22s left".
    pub fn line(&self, now_ms: f64) -> String {
        let mut line = format!("{} of {}", grouped(self.files_done as i64), count(self.files, "file"));
        if self.failed > 0 {
            line += &format!(" ({} failed)", grouped(self.failed as i64));
        }
        line += &format!(", {} of {}", bytes(self.bytes_done), bytes(self.bytes));
        let elapsed_ms = now_ms - self.started_ms;
        if elapsed_ms >= SETTLED_MS && self.bytes_done > 0 {
            let per_ms = self.bytes_done as f64 / elapsed_ms;
            line += &format!(", {}/s", bytes((per_ms * 1000.0) as u64));
            let left_ms = self.bytes.saturating_sub(self.bytes_done) as f64 / per_ms;
            if self.files_done < self.files {
                line += &format!(", about {} left", secs((left_ms / 1000.0).ceil() as u64));
            }
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_line_tells_rate_and_time_left_once_settled() {
        let mut p = FilesProgress::new(240, 330_000_000, 5_000.0);
        assert_eq!(p.line(5_000.0), "0 of 240 files, 0 B of 330 MB");
        p.done(20_000_000, false);
        // Too early for a rate.
        assert_eq!(p.line(5_500.0), "1 of 240 files, 20.0 MB of 330 MB");
        p.done(30_000_000, true);
        // 50 MB in 4 s: 12.5 MB/s, 280 MB left in 22.4 s.
        assert_eq!(
            p.line(9_000.0),
            "2 of 240 files (1 failed), 50.0 MB of 330 MB, 12.5 MB/s, about 23s left"
        );
        for _ in 2..240 {
            p.done(280_000_000 / 238, false);
        }
        // Done: no time left to tell.
        assert!(
            p.line(30_000.0)
                .starts_with("240 of 240 files (1 failed), 330 MB of 330 MB, ")
        );
        assert!(!p.line(30_000.0).contains("left"));
    }

    #[test]
    fn the_listing_line_counts_what_was_listed() {
        let p = ListingProgress {
            partitions: 40,
            partitions_listed: 12,
            pages: 1,
            objects: 3_400,
            ..ListingProgress::default()
        };
        assert_eq!(
            listing_line(&p),
            "listing: 12 of 40 partitions listed, 3,400 objects, 1 page"
        );
    }

    #[test]
    fn a_line_is_due_first_and_then_every_refresh() {
        let mut r = Refresh::default();
        assert!(r.due(0.0));
        assert!(!r.due(REFRESH_MS - 1.0));
        assert!(r.due(REFRESH_MS));
        assert!(!r.due(REFRESH_MS + 1.0));
    }
}
