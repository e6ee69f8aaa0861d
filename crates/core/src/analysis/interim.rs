//! When a run of several files shows a report before its last file is in:
//! once the first file is merged, then after a gap that starts at
//! `FIRST_GAP_MS` and doubles with each report shown, up to `LAST_GAP_MS`,
//! and always once more after the last merge of a burst, so what is shown
//! catches up. Building and drawing a report costs the page's thread tens of
//! milliseconds, more as the report grows, while a report of many files
//! changes less with each one: a run of hundreds of segments must not spend
//! its time (which its workers share on a small machine) redrawing one.
//! Sans-IO: the shell passes the time in and runs the timer it is told to.

/// The gap after the first interim report, ms.
pub const FIRST_GAP_MS: f64 = 1_000.0;
/// The longest gap between two interim reports, ms.
pub const LAST_GAP_MS: f64 = 8_000.0;

/// What to do after a file is merged, or when the timer fires.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Next {
    /// Build the interim report now.
    Now,
    /// Ask again in this many ms (start a timer; none is running).
    After(f64),
    /// Nothing: a timer is already running, or no interim report is due
    /// (one file, or every file is in: the final report comes).
    Wait,
}

/// The cadence of one run's interim reports.
#[derive(Debug, Clone, Default)]
pub struct Interim {
    shown_at: Option<f64>,
    /// The gap after the last report shown (0 before the first).
    gap: f64,
    timer: bool,
}

impl Interim {
    /// `merged` of `total` files are in at `now` (ms).
    pub fn merged(&mut self, merged: usize, total: usize, now: f64) -> Next {
        if total < 2 || merged >= total || merged == 0 {
            return Next::Wait;
        }
        match self.shown_at {
            _ if self.timer => Next::Wait,
            Some(at) if now - at < self.gap => {
                self.timer = true;
                Next::After(at + self.gap - now)
            }
            _ => {
                self.shown_at = Some(now);
                self.gap = (self.gap * 2.0).clamp(FIRST_GAP_MS, LAST_GAP_MS);
                Next::Now
            }
        }
    }

    /// The timer fired at `now`: build the interim report unless the run
    /// has finished since (`merged` of `total`).
    pub fn fired(&mut self, merged: usize, total: usize, now: f64) -> Next {
        self.timer = false;
        self.merged(merged, total, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_file_at_once_then_after_gaps_that_double_and_a_last_catch_up() {
        let mut i = Interim::default();
        assert_eq!(i.merged(1, 10, 0.0), Next::Now);
        // A burst: one timer for all of it.
        assert_eq!(i.merged(2, 10, 100.0), Next::After(900.0));
        assert_eq!(i.merged(3, 10, 200.0), Next::Wait);
        assert_eq!(i.merged(4, 10, 300.0), Next::Wait);
        // The timer catches up with what came meanwhile; the next gap is 2 s.
        assert_eq!(i.fired(4, 10, 1_000.0), Next::Now);
        assert_eq!(i.merged(5, 10, 1_500.0), Next::After(1_500.0));
        // Quiet for long: the next merge is shown at once, then a 4 s gap.
        assert_eq!(i.fired(5, 10, 3_000.0), Next::Now);
        assert_eq!(i.merged(6, 10, 9_000.0), Next::Now);
        assert_eq!(i.merged(7, 10, 9_500.0), Next::After(7_500.0));
        // Finished before the timer fired: the final report is what shows.
        assert_eq!(i.fired(10, 10, 17_000.0), Next::Wait);
    }

    #[test]
    fn the_gap_stops_growing_at_its_longest() {
        let mut i = Interim::default();
        let mut now = 0.0;
        for _ in 0..10 {
            assert_eq!(i.merged(1, 10, now), Next::Now);
            now += 100_000.0;
        }
        assert_eq!(i.merged(2, 10, now - 100_000.0 + 1.0), Next::After(LAST_GAP_MS - 1.0));
    }

    #[test]
    fn one_file_or_the_last_one_has_no_interim_report() {
        let mut i = Interim::default();
        assert_eq!(i.merged(1, 1, 0.0), Next::Wait);
        assert_eq!(i.merged(3, 3, 0.0), Next::Wait);
        assert_eq!(i.merged(0, 3, 0.0), Next::Wait);
    }
}
