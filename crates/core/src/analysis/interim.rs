//! When a run of several files shows a report before its last file is in:
//! once the first file is merged, then at most every `EVERY_MS` (building a
//! report costs the page tens of milliseconds, and a run of hundreds of
//! segments must not spend its time rebuilding one), and always once more
//! after the last merge of a burst, so what is shown catches up.
//! Sans-IO: the shell passes the time in and runs the timer it is told to.

/// The least time between two interim reports, ms.
pub const EVERY_MS: f64 = 1_000.0;

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
            Some(at) if now - at < EVERY_MS => {
                self.timer = true;
                Next::After(at + EVERY_MS - now)
            }
            _ => {
                self.shown_at = Some(now);
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
    fn first_file_at_once_then_at_most_every_second_and_a_last_catch_up() {
        let mut i = Interim::default();
        assert_eq!(i.merged(1, 10, 0.0), Next::Now);
        // A burst: one timer for all of it.
        assert_eq!(i.merged(2, 10, 100.0), Next::After(900.0));
        assert_eq!(i.merged(3, 10, 200.0), Next::Wait);
        assert_eq!(i.merged(4, 10, 300.0), Next::Wait);
        // The timer catches up with what came meanwhile.
        assert_eq!(i.fired(4, 10, 1_000.0), Next::Now);
        // Quiet for long: the next merge is shown at once.
        assert_eq!(i.merged(5, 10, 5_000.0), Next::Now);
        assert_eq!(i.merged(6, 10, 5_500.0), Next::After(500.0));
        // Finished before the timer fired: the final report is what shows.
        assert_eq!(i.fired(10, 10, 6_000.0), Next::Wait);
    }

    #[test]
    fn one_file_or_the_last_one_has_no_interim_report() {
        let mut i = Interim::default();
        assert_eq!(i.merged(1, 1, 0.0), Next::Wait);
        assert_eq!(i.merged(3, 3, 0.0), Next::Wait);
        assert_eq!(i.merged(0, 3, 0.0), Next::Wait);
    }
}
