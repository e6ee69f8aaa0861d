//! Which rows of a run's progress table to list. A run of a few hundred
//! files lists them all; a fleet selection has thousands, and a table of
//! thousands of rows costs the page more to lay out on every update than
//! the files cost to analyze, for rows nobody reads. Past [`MAX_LISTED`]
//! rows a run lists a window where the work is (the files in flight, the
//! last ones finished before them, the next ones after), every failed file
//! (up to [`MAX_LISTED_FAILED`]), and counts the rest.

/// Most rows listed: every row of a run this long or shorter.
pub const MAX_LISTED: usize = 200;
/// Most failed rows listed outside the window.
pub const MAX_LISTED_FAILED: usize = 100;

/// Where a file of the run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowState {
    Waiting,
    InFlight,
    Done,
    Failed,
}

/// The rows to list, in the run's order, and the rows left out, by state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listed {
    pub rows: Vec<usize>,
    pub done_left_out: usize,
    pub waiting_left_out: usize,
    pub failed_left_out: usize,
}

impl Listed {
    pub fn left_out(&self) -> usize {
        self.done_left_out + self.waiting_left_out + self.failed_left_out
    }
}

/// The rows of a run whose files stand at `states` (in the run's order) to list.
pub fn listed(states: &[RowState]) -> Listed {
    let n = states.len();
    if n <= MAX_LISTED {
        return Listed {
            rows: (0..n).collect(),
            ..Listed::default()
        };
    }
    // The window: the rows in flight, and around them the last finished and
    // the next waiting; once all are finished, the last rows.
    let first_open = states
        .iter()
        .position(|s| matches!(s, RowState::Waiting | RowState::InFlight))
        .unwrap_or(n);
    let start = first_open.saturating_sub(MAX_LISTED / 4).min(n - MAX_LISTED);
    let window = start..start + MAX_LISTED;
    let mut listed = Listed::default();
    let mut failed_outside = 0;
    for (i, state) in states.iter().enumerate() {
        let outside = !window.contains(&i);
        match state {
            _ if !outside => listed.rows.push(i),
            RowState::Failed if failed_outside < MAX_LISTED_FAILED => {
                failed_outside += 1;
                listed.rows.push(i);
            }
            RowState::Failed => listed.failed_left_out += 1,
            RowState::Done => listed.done_left_out += 1,
            RowState::Waiting | RowState::InFlight => listed.waiting_left_out += 1,
        }
    }
    listed
}

#[cfg(test)]
mod tests {
    use super::*;
    use RowState::*;

    #[test]
    fn a_short_run_lists_every_row() {
        let states = vec![Done; MAX_LISTED];
        assert_eq!(listed(&states).rows, (0..MAX_LISTED).collect::<Vec<_>>());
        assert_eq!(listed(&states).left_out(), 0);
    }

    #[test]
    fn a_long_run_lists_where_the_work_is_and_every_failure() {
        // 5,000 files: 2,000 done (one failed early), 2 in flight, the rest waiting.
        let mut states = vec![Done; 2_000];
        states[7] = Failed;
        states.extend([InFlight, InFlight]);
        states.resize(5_000, Waiting);
        let l = listed(&states);
        assert_eq!(l.rows.len(), MAX_LISTED + 1, "the window and the early failure");
        assert_eq!(l.rows[0], 7);
        let window = &l.rows[1..];
        assert!(window.windows(2).all(|w| w[1] == w[0] + 1), "one window, in order");
        assert!(
            window.contains(&2_000) && window.contains(&2_001),
            "the files in flight"
        );
        assert_eq!(window[0], 2_000 - MAX_LISTED / 4, "the last finished before them");
        assert_eq!(l.done_left_out, 2_000 - MAX_LISTED / 4 - 1);
        assert_eq!(l.waiting_left_out, 5_000 - 2_000 - (MAX_LISTED - MAX_LISTED / 4));
        assert_eq!(l.failed_left_out, 0);
        assert_eq!(l.rows.len() + l.left_out(), states.len());
    }

    #[test]
    fn a_finished_run_lists_its_last_rows_and_failures_up_to_a_bound() {
        let mut states = vec![Done; 3_000];
        for s in states.iter_mut().step_by(10) {
            *s = Failed;
        }
        let l = listed(&states);
        assert_eq!(*l.rows.last().unwrap(), 2_999);
        assert_eq!(l.rows.len(), MAX_LISTED + MAX_LISTED_FAILED);
        assert_eq!(l.failed_left_out, 300 - MAX_LISTED / 10 - MAX_LISTED_FAILED);
        assert_eq!(l.rows.len() + l.left_out(), states.len());
        assert!(l.rows.windows(2).all(|w| w[0] < w[1]), "in the run's order");
    }
}
