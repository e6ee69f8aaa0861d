//! What a listing walk covers: every key, only the bucket's shape, or the
//! partitions of one time window; and what a walk learns of the shape.
//!
//! A production bucket holds hundreds of thousands of keys, and a question is
//! about an hour or a day of them. The shape (layouts, days, services, and
//! until when there is data) costs a few delimiter listings; a window's keys
//! cost one flat listing per hour of each service it touches, or per
//! 10-minute block where it covers only part of an hour. Widening the window
//! lists only the partitions not listed yet.

use super::catalog::TimeWindow;
use super::layout::{KeyDate, KeyTime};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

/// A segment's partition is the minute it started in, and it runs on for
/// its length: a window is listed from this much earlier, so a segment that
/// started before the window and runs into it is found.
pub const SEGMENT_PAD_SECS: u64 = 10 * 60;

const HOUR: u64 = 3600;
const BLOCK: u64 = 600;

/// Which keys a walk lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// Every key under the prefix (the full walk).
    #[default]
    Everything,
    /// Only the delimiter levels: layouts, days, services, and the minute
    /// folders of the newest day, which say until when there is data. No
    /// segment key is listed.
    Shape,
    /// The segments of partitions that may overlap the window.
    Window(TimeWindow),
}

/// The flat listings one hour of a partition needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum HourParts {
    /// The whole hour, one prefix (`time=HH`).
    Whole,
    /// Only these 10-minute blocks (`time=HHM`, M in 0..=5).
    Blocks(Vec<u8>),
}

impl Scope {
    /// The window it lists, if it is one.
    pub fn window(&self) -> Option<TimeWindow> {
        match self {
            Scope::Window(w) => Some(*w),
            _ => None,
        }
    }

    /// The window as listed: padded back by [`SEGMENT_PAD_SECS`].
    fn padded(&self) -> Option<Range<u64>> {
        match self {
            Scope::Window(w) => Some(w.start_secs().saturating_sub(SEGMENT_PAD_SECS)..w.end_secs()),
            _ => None,
        }
    }

    /// Whether a day's partitions are listed: every day for the full walk,
    /// the days the window touches, none for the shape alone (its newest
    /// day is chosen apart).
    pub(super) fn wants_day(&self, day: KeyDate) -> bool {
        match self {
            Scope::Everything => true,
            Scope::Shape => false,
            Scope::Window(_) => {
                let start = day_start(day);
                self.overlaps(start..start + 24 * HOUR)
            }
        }
    }

    /// What to list of `hour` of `day`, which holds data in the 10-minute
    /// `blocks` (ascending); `None`: nothing.
    pub(super) fn hour_parts(&self, day: KeyDate, hour: u8, blocks: &BTreeSet<u8>) -> Option<HourParts> {
        let start = day_start(day) + u64::from(hour) * HOUR;
        match self {
            Scope::Everything => Some(HourParts::Whole),
            Scope::Shape => None,
            Scope::Window(_) => {
                let window = self.padded()?;
                if window.start <= start && start + HOUR <= window.end {
                    return Some(HourParts::Whole);
                }
                let wanted: Vec<u8> = blocks
                    .iter()
                    .copied()
                    .filter(|&b| self.overlaps(start + u64::from(b) * BLOCK..start + u64::from(b + 1) * BLOCK))
                    .collect();
                (!wanted.is_empty()).then_some(HourParts::Blocks(wanted))
            }
        }
    }

    /// Whether listing a whole hour that overflows a page should go on in
    /// 10-minute blocks at once, rather than page after page.
    pub(super) fn splits_hours(&self) -> bool {
        matches!(self, Scope::Window(_))
    }

    fn overlaps(&self, range: Range<u64>) -> bool {
        self.padded()
            .is_some_and(|w| w.start < range.end && range.start < w.end)
    }
}

fn day_start(day: KeyDate) -> u64 {
    u64::try_from(day.days_since_epoch()).unwrap_or(0) * 24 * HOUR
}

/// The start (Unix seconds) of a minute partition.
pub(super) fn minute_start(day: KeyDate, time: KeyTime) -> u64 {
    day_start(day) + u64::from(time.hour()) * HOUR + u64::from(time.minute()) * 60
}

/// A bucket whose data lies on at most this many days is listed whole once
/// its shape is known (its keys are few, and the person sees everything at
/// once); a bigger one waits for a window to be picked.
pub const WHOLE_BUCKET_DAYS: usize = 2;

/// The time a listing is asked for, before the bucket's shape is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Period {
    /// Every key.
    #[default]
    All,
    /// The shape; then everything if the bucket is small
    /// ([`WHOLE_BUCKET_DAYS`]), else `otherwise` (a shared link's window),
    /// else nothing more until a window is picked.
    Auto { otherwise: Option<TimeWindow> },
    /// Unix seconds: `from` inclusive, `to` exclusive.
    Range { from: Option<u64>, to: Option<u64> },
    /// The last `secs` of data, up to the newest minute the shape finds.
    Last { secs: u64 },
    /// One UTC day.
    Day { day: KeyDate },
}

impl Period {
    /// The scope to begin with: the shape, when the period depends on it.
    pub fn first_scope(self) -> Scope {
        match self {
            Period::All => Scope::Everything,
            Period::Auto { .. } | Period::Last { .. } => Scope::Shape,
            Period::Range { from, to } => {
                Scope::Window(TimeWindow::new(from.unwrap_or(0), to.unwrap_or(u64::MAX)).unwrap_or(TimeWindow::ALL))
            }
            Period::Day { day } => {
                let start = day_start(day);
                Scope::Window(TimeWindow::new(start, start + 24 * HOUR).unwrap_or(TimeWindow::ALL))
            }
        }
    }

    /// The scope once the shape is known; `None`: stay with the shape (no
    /// data to count back from, or a big bucket waiting for a window).
    pub fn scope_with(self, shape: &Shape) -> Option<Scope> {
        match self {
            Period::Auto { .. } if shape.days.len() <= WHOLE_BUCKET_DAYS => Some(Scope::Everything),
            Period::Auto { otherwise } => otherwise.map(Scope::Window),
            Period::Last { secs } => shape.last(secs).map(Scope::Window),
            _ => Some(self.first_scope()),
        }
    }
}

/// What the walk learned of the bucket's shape, whatever its scope.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Shape {
    /// Each day with a partition, and the services of its v1 partitions
    /// (decoded; a positional day names none: its services are below its
    /// minutes).
    pub days: BTreeMap<KeyDate, BTreeSet<String>>,
    /// The start of the newest minute partition seen (Unix seconds).
    pub newest_secs: Option<u64>,
}

impl Shape {
    /// The last `secs` of data, up to the end of the newest minute seen.
    pub fn last(&self, secs: u64) -> Option<TimeWindow> {
        let end = self.newest_secs? + 60;
        TimeWindow::new(end.saturating_sub(secs), end)
    }

    pub(super) fn saw_minute(&mut self, secs: u64) {
        self.newest_secs = self.newest_secs.max(Some(secs));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(date: &str, hh: u64, mm: u64) -> u64 {
        day_start(KeyDate::parse(date).unwrap()) + hh * HOUR + mm * 60
    }

    fn window(from: u64, to: u64) -> Scope {
        Scope::Window(TimeWindow::new(from, to).unwrap())
    }

    #[test]
    fn a_window_inside_one_hour_lists_its_blocks_padded_back() {
        let day = KeyDate::parse("2026-11-30").unwrap();
        let all: BTreeSet<u8> = (0..6).collect();
        let scope = window(at("2026-11-30", 14, 25), at("2026-11-30", 14, 40));
        // 14:15 → 14:40: blocks 1, 2 and 3.
        assert_eq!(scope.hour_parts(day, 14, &all), Some(HourParts::Blocks(vec![1, 2, 3])));
        assert_eq!(scope.hour_parts(day, 13, &all), None);
        // Only blocks with data.
        let some: BTreeSet<u8> = [0, 2].into();
        assert_eq!(scope.hour_parts(day, 14, &some), Some(HourParts::Blocks(vec![2])));
        assert!(scope.wants_day(day) && !scope.wants_day(KeyDate::parse("2026-12-01").unwrap()));
    }

    #[test]
    fn a_window_over_midnight_touches_both_days() {
        let (d1, d2) = (
            KeyDate::parse("2026-11-30").unwrap(),
            KeyDate::parse("2026-12-01").unwrap(),
        );
        let all: BTreeSet<u8> = (0..6).collect();
        let scope = window(at("2026-11-30", 23, 55), at("2026-12-01", 0, 15));
        assert!(scope.wants_day(d1) && scope.wants_day(d2));
        assert_eq!(scope.hour_parts(d1, 23, &all), Some(HourParts::Blocks(vec![4, 5])));
        assert_eq!(scope.hour_parts(d2, 0, &all), Some(HourParts::Blocks(vec![0, 1])));
        // Starting at midnight, the pad reaches back into the day before.
        let scope = window(at("2026-12-01", 0, 0), at("2026-12-01", 3, 0));
        assert!(scope.wants_day(d1));
        assert_eq!(scope.hour_parts(d1, 23, &all), Some(HourParts::Blocks(vec![5])));
        assert_eq!(scope.hour_parts(d2, 0, &all), Some(HourParts::Whole));
        assert_eq!(scope.hour_parts(d2, 2, &all), Some(HourParts::Whole));
        assert_eq!(scope.hour_parts(d2, 3, &all), None);
    }

    #[test]
    fn periods_resolve_against_the_shape() {
        let mut shape = Shape::default();
        const AUTO: Period = Period::Auto { otherwise: None };
        assert_eq!(AUTO.first_scope(), Scope::Shape);
        assert_eq!(
            Period::Last { secs: 60 }.scope_with(&shape),
            None,
            "no data to count back from"
        );
        for d in ["2026-11-30", "2026-12-01"] {
            shape.days.insert(KeyDate::parse(d).unwrap(), BTreeSet::new());
        }
        shape.saw_minute(at("2026-12-01", 10, 0));
        assert_eq!(
            AUTO.scope_with(&shape),
            Some(Scope::Everything),
            "a small bucket is listed whole"
        );
        shape
            .days
            .insert(KeyDate::parse("2026-12-02").unwrap(), BTreeSet::new());
        assert_eq!(AUTO.scope_with(&shape), None, "a big one waits for a window");
        let link = TimeWindow::new(at("2026-12-01", 9, 0), at("2026-12-01", 10, 0)).unwrap();
        let auto = Period::Auto { otherwise: Some(link) };
        assert_eq!(
            auto.scope_with(&shape),
            Some(Scope::Window(link)),
            "or lists a shared link's window"
        );
        assert_eq!(
            Period::Last { secs: 900 }.scope_with(&shape),
            Some(window(at("2026-12-01", 9, 46), at("2026-12-01", 10, 1)))
        );
        let day = KeyDate::parse("2026-11-30").unwrap();
        assert_eq!(
            Period::Day { day }.first_scope(),
            window(at("2026-11-30", 0, 0), at("2026-12-01", 0, 0))
        );
        assert_eq!(Period::All.scope_with(&shape), Some(Scope::Everything));
    }

    #[test]
    fn the_full_walk_and_the_shape() {
        let day = KeyDate::parse("2026-11-30").unwrap();
        let all: BTreeSet<u8> = (0..6).collect();
        assert_eq!(Scope::Everything.hour_parts(day, 3, &all), Some(HourParts::Whole));
        assert!(Scope::Everything.wants_day(day) && !Scope::Shape.wants_day(day));
        assert_eq!(Scope::Shape.hour_parts(day, 3, &all), None);
        let mut shape = Shape::default();
        assert_eq!(shape.last(3600), None);
        shape.saw_minute(at("2026-11-30", 14, 5));
        shape.saw_minute(at("2026-11-30", 9, 0));
        let last = shape.last(3600).unwrap();
        assert_eq!(
            (last.start_secs(), last.end_secs()),
            (at("2026-11-30", 13, 6), at("2026-11-30", 14, 6))
        );
    }
}
