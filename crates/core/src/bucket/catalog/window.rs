//! A time window of Unix seconds, never empty.

use serde::{Deserialize, Serialize};

/// `[start, end)` in Unix seconds, never empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "TimeWindowData")]
pub struct TimeWindow {
    start_secs: u64,
    end_secs: u64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TimeWindowData {
    start_secs: u64,
    end_secs: u64,
}

impl TryFrom<TimeWindowData> for TimeWindow {
    type Error = String;
    fn try_from(data: TimeWindowData) -> Result<Self, String> {
        Self::new(data.start_secs, data.end_secs)
            .ok_or_else(|| format!("empty time window [{}, {})", data.start_secs, data.end_secs))
    }
}

impl TimeWindow {
    /// All of time.
    pub const ALL: TimeWindow = TimeWindow {
        start_secs: 0,
        end_secs: u64::MAX,
    };

    /// `None` unless `start < end`.
    pub fn new(start_secs: u64, end_secs: u64) -> Option<Self> {
        (start_secs < end_secs).then_some(Self { start_secs, end_secs })
    }

    pub fn start_secs(&self) -> u64 {
        self.start_secs
    }

    pub fn end_secs(&self) -> u64 {
        self.end_secs
    }

    pub fn contains(&self, secs: u64) -> bool {
        (self.start_secs..self.end_secs).contains(&secs)
    }

    /// The `(start, slot)` range of a host index covering this window.
    pub(super) fn slot_range(&self) -> std::ops::Range<(u64, usize)> {
        (self.start_secs, 0)..(self.end_secs, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_is_never_empty_nor_read_as_one() {
        assert_eq!(TimeWindow::new(5, 5), None);
        assert_eq!(TimeWindow::new(6, 5), None);
        let w = TimeWindow::new(5, 10).unwrap();
        assert!(w.contains(5) && w.contains(9) && !w.contains(10) && !w.contains(4));
        assert!(TimeWindow::ALL.contains(0) && TimeWindow::ALL.contains(u64::MAX - 1));
        let json = serde_json::to_string(&w).unwrap();
        assert_eq!(json, r#"{"startSecs":5,"endSecs":10}"#);
        assert_eq!(serde_json::from_str::<TimeWindow>(&json).unwrap(), w);
        let empty = serde_json::from_str::<TimeWindow>(r#"{"startSecs":10,"endSecs":10}"#).unwrap_err();
        assert!(empty.to_string().contains("empty time window"), "{empty}");
    }
}
