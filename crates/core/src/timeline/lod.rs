//! Level of detail: what one lane draws for a window `width` pixels wide.
//! Polls at least a pixel wide are drawn one by one; a run of narrower ones
//! becomes one density mark, found by binary search per pixel column, so a
//! lane costs O(pixels × log polls) whatever the number of polls.

use super::column::{Blocked, Slices, partition};
use super::model::{Counter, Polls, SpanTrack};
use super::view::View;
use std::ops::Range;

/// Where one file's timestamps sit on the scene's axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AxisMap {
    /// The file's first timestamp (monotonic ns)…
    pub file_start: u64,
    /// …is this far from the axis' origin, ns.
    pub offset: f64,
}

impl AxisMap {
    pub fn axis(&self, ts: u64) -> f64 {
        (ts as f64 - self.file_start as f64) + self.offset
    }

    /// Files on one wall-clock axis: each given as its first timestamp and
    /// the Unix time (ns) of it, when known. The axis starts at the earliest
    /// of those times; a file without one starts at 0. Returns that origin
    /// and each file's map, in the order given.
    pub fn place(files: impl IntoIterator<Item = (u64, Option<i64>)>) -> (Option<i64>, Vec<AxisMap>) {
        let files: Vec<(u64, Option<i64>)> = files.into_iter().collect();
        let origin = files.iter().filter_map(|f| f.1).min();
        let maps = files
            .iter()
            .map(|&(file_start, wall)| AxisMap {
                file_start,
                offset: match (wall, origin) {
                    (Some(w), Some(o)) => w.saturating_sub(o) as f64,
                    _ => 0.0,
                },
            })
            .collect();
        (origin, maps)
    }

    /// The file timestamp at axis time `t` (clamped to u64).
    pub fn ts(&self, t: f64) -> u64 {
        let ts = t - self.offset + self.file_start as f64;
        if ts <= 0.0 { 0 } else { ts.min(u64::MAX as f64) as u64 }
    }
}

/// One thing to draw in a lane, in canvas pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mark {
    pub x0: f64,
    pub x1: f64,
    pub kind: MarkKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkKind {
    /// One interval (its index), at least a pixel wide as drawn.
    One(u32),
    /// `count` intervals too narrow to draw apart.
    Dense(u32),
}

/// The marks of `polls` in `view`, appended to `out`.
pub fn poll_marks(polls: &Polls, map: AxisMap, view: &View, width: f64, out: &mut Vec<Mark>) {
    interval_marks(polls.slices(), 0..polls.len(), map, view, width, out);
}

/// The marks of the intervals `range` of `at`, which follow one another
/// (by start, none overlapping the next); indices relative to `range`.
fn interval_marks(at: &Slices, range: Range<usize>, map: AxisMap, view: &View, width: f64, out: &mut Vec<Mark>) {
    let (from, n) = (range.start, range.end);
    if from == n || width <= 0.0 {
        return;
    }
    let starts = at.starts();
    let (lo, hi) = (map.ts(view.start), map.ts(view.end));
    let mut i = starts.partition_point(range.clone(), |s| s < lo);
    if i > from && at.end(i - 1) >= lo {
        i -= 1;
    }
    let x = |ts: u64| view.x(map.axis(ts), width);
    while i < n && at.start(i) <= hi {
        let (x0, x1) = (x(at.start(i)), x(at.end(i)));
        if x1 - x0 >= 1.0 {
            out.push(Mark {
                x0,
                x1,
                kind: MarkKind::One((i - from) as u32),
            });
            i += 1;
            continue;
        }
        // Every interval starting in this pixel column.
        let column = x0.max(0.0).floor();
        let next = map.ts(view.t(column + 1.0, width));
        let j = starts.partition_point(i + 1..n, |s| s < next);
        let x1 = x(at.end(j - 1)).max(column + 1.0);
        let count = (j - i) as u32;
        match out.last_mut() {
            Some(Mark {
                x1: last_x1,
                kind: MarkKind::Dense(c),
                ..
            }) if *last_x1 >= column => {
                *last_x1 = last_x1.max(x1);
                *c += count;
            }
            _ if count == 1 => out.push(Mark {
                x0: column,
                x1,
                kind: MarkKind::One((i - from) as u32),
            }),
            _ => out.push(Mark {
                x0: column,
                x1,
                kind: MarkKind::Dense(count),
            }),
        }
        i = j;
    }
}

/// The poll under axis time `t`, or the nearest within `tolerance` ns.
pub fn poll_at(polls: &Polls, map: AxisMap, t: f64, tolerance: f64) -> Option<usize> {
    let i = polls.starts().partition_point(0..polls.len(), |s| map.axis(s) <= t);
    let distance = |k: usize| {
        let (s, e) = (map.axis(polls.start(k)), map.axis(polls.end(k)));
        if t < s { s - t } else { (t - e).max(0.0) }
    };
    [i.checked_sub(1), (i < polls.len()).then_some(i)]
        .into_iter()
        .flatten()
        .map(|k| (k, distance(k)))
        .filter(|&(_, d)| d <= tolerance)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(k, _)| k)
}

/// One x per pixel column holding at least one of `times` (sorted).
pub fn tick_marks(times: &Blocked, map: AxisMap, view: &View, width: f64, out: &mut Vec<f64>) {
    let (lo, hi, n) = (map.ts(view.start), map.ts(view.end), times.len());
    let mut i = times.partition_point(0..n, |s| s < lo);
    while i < n && times.get(i) <= hi {
        let column = view.x(map.axis(times.get(i)), width).floor();
        if out.last() != Some(&column) {
            out.push(column);
        }
        let next = map.ts(view.t(column + 1.0, width));
        i = times.partition_point(i + 1..n, |s| s < next);
    }
}

/// Parks in view as (x0, x1), at most one ending in each pixel column (the
/// worker slept; the thin line needs no more), found by binary search on
/// the ends, which follow one another as the parks do.
pub fn park_marks(parks: &Slices, map: AxisMap, view: &View, width: f64, out: &mut Vec<(f64, f64)>) {
    let (lo, hi, n) = (map.ts(view.start), map.ts(view.end), parks.len());
    let x = |ts: u64| view.x(map.axis(ts), width);
    let mut i = partition(0..n, |k| parks.end(k) < lo);
    while i < n && parks.start(i) <= hi {
        let (x0, x1) = (x(parks.start(i)), x(parks.end(i)));
        out.push((x0, x1.max(x0 + 1.0)));
        let next = map.ts(view.t(x1.floor() + 1.0, width));
        i = partition(i + 1..n, |k| parks.end(k) < next);
    }
}

/// A step counter as (x, highest value in that pixel column), the value in
/// force at the left edge first.
pub fn counter_marks(counter: &Counter, map: AxisMap, view: &View, width: f64, out: &mut Vec<(f64, u64)>) {
    let (lo, hi) = (map.ts(view.start), map.ts(view.end));
    let first = counter.times().partition_point(0..counter.len(), |t| t < lo);
    if let Some(k) = first.checked_sub(1) {
        out.push((0.0, counter.point(k).1));
    }
    for (ts, v) in (first..counter.len())
        .map(|k| counter.point(k))
        .take_while(|p| p.0 <= hi)
    {
        let column = view.x(map.axis(ts), width).floor();
        match out.last_mut() {
            Some((x, max)) if *x == column => *max = (*max).max(v),
            _ => out.push((column, v)),
        }
    }
}

/// The spans in view, row by row, each row's marks as polls' are (on the
/// last row, which spans share when nested deeper, an earlier span still
/// open may be left out).
pub fn span_marks(track: &SpanTrack, map: AxisMap, view: &View, width: f64, out: &mut Vec<(u8, Mark)>) {
    let mut marks = Vec::new();
    for depth in 0..track.rows() {
        let rows = track.row(depth);
        let from = rows.start;
        marks.clear();
        interval_marks(track.slices(), rows, map, view, width, &mut marks);
        out.extend(marks.iter().map(|m| {
            let kind = match m.kind {
                MarkKind::One(i) => MarkKind::One(i + from as u32),
                dense => dense,
            };
            (depth, Mark { kind, ..*m })
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn polls(n: u64, every: u64, dur: u64) -> Polls {
        let mut p = Polls::default();
        for i in 0..n {
            p.push(1_000 + i * every, dur, 0);
        }
        p
    }

    const MAP: AxisMap = AxisMap {
        file_start: 1_000,
        offset: 0.0,
    };

    #[test]
    fn wide_polls_are_drawn_one_by_one() {
        let p = polls(10, 100, 50);
        let mut out = Vec::new();
        poll_marks(&p, MAP, &View::all(1000.0), 1000.0, &mut out);
        assert_eq!(out.len(), 10);
        assert_eq!(
            out[3],
            Mark {
                x0: 300.0,
                x1: 350.0,
                kind: MarkKind::One(3)
            }
        );
    }

    #[test]
    fn a_million_polls_fit_in_a_few_marks_per_pixel() {
        let p = polls(1_000_000, 10, 5);
        let mut out = Vec::new();
        poll_marks(&p, MAP, &View::all(10_000_000.0), 1000.0, &mut out);
        assert!(out.len() <= 2, "{} marks", out.len());
        let counted: u32 = out
            .iter()
            .map(|m| match m.kind {
                MarkKind::Dense(c) => c,
                MarkKind::One(_) => 1,
            })
            .sum();
        assert_eq!(counted, 1_000_000);
        // Zoomed in on a stretch: only what is in view, one by one again.
        let mut near = Vec::new();
        let view = View::all(10_000_000.0).window(5_000_000.0, 5_000_200.0);
        poll_marks(&p, MAP, &view, 1000.0, &mut near);
        assert_eq!(near.len(), 21);
        assert!(near.iter().all(|m| matches!(m.kind, MarkKind::One(_))));
    }

    #[test]
    fn sparse_narrow_polls_stay_single_and_clickable() {
        let p = polls(3, 300_000, 10);
        let mut out = Vec::new();
        poll_marks(&p, MAP, &View::all(1_000_000.0), 1000.0, &mut out);
        assert_eq!(
            out.iter().map(|m| m.kind).collect::<Vec<_>>(),
            [0, 1, 2].map(MarkKind::One)
        );
        assert!(out.iter().all(|m| m.x1 - m.x0 >= 1.0));
    }

    #[test]
    fn the_poll_under_the_pointer_or_the_nearest() {
        let p = polls(10, 100, 50);
        assert_eq!(poll_at(&p, MAP, 325.0, 0.0), Some(3));
        assert_eq!(poll_at(&p, MAP, 370.0, 0.0), None);
        assert_eq!(poll_at(&p, MAP, 370.0, 25.0), Some(3));
        assert_eq!(poll_at(&p, MAP, 390.0, 25.0), Some(4));
        assert_eq!(poll_at(&p, MAP, -5.0, 10.0), Some(0));
        assert_eq!(poll_at(&Polls::default(), MAP, 5.0, 10.0), None);
    }

    #[test]
    fn parks_take_at_most_one_mark_per_pixel() {
        // 100,000 parks of 5 ns every 10 ns over 100 pixels, then one long park.
        let mut parks = Slices::default();
        (0..100_000).for_each(|i| parks.push(1_000 + i * 10, 5));
        parks.push(2_000_000, 500_000);
        let mut out = Vec::new();
        park_marks(&parks, MAP, &View::all(2_000_000.0), 100.0, &mut out);
        assert!(out.len() <= 51, "{} marks", out.len());
        assert_eq!(out.last(), Some(&(99.95, 124.95)));
        // Zoomed in (2 ns a pixel): each park its own mark, as wide as it lasts.
        let mut near = Vec::new();
        park_marks(
            &parks,
            MAP,
            &View::all(2_000_000.0).window(0.0, 200.0),
            100.0,
            &mut near,
        );
        assert_eq!(near.len(), 21);
        assert!(
            near.iter()
                .enumerate()
                .all(|(i, m)| (m.0 - 5.0 * i as f64).abs() < 1e-9 && (m.1 - m.0 - 2.5).abs() < 1e-9)
        );
    }

    #[test]
    fn ticks_and_counters_take_one_entry_per_pixel() {
        let times: Blocked = (0..100_000).map(|i| 1_000 + i * 10).collect();
        let mut ticks = Vec::new();
        tick_marks(&times, MAP, &View::all(1_000_000.0), 100.0, &mut ticks);
        assert_eq!(ticks.len(), 100);
        let points = [(900, 7), (1_000, 1), (1_004, 9), (1_500, 2)];
        let kind = crate::timeline::CounterKind::GlobalQueue;
        let mut c = Vec::new();
        let later = Counter::new(kind, points[1..].iter().copied());
        counter_marks(&later, MAP, &View::all(1000.0).window(2.0, 1000.0), 100.0, &mut c);
        assert_eq!(c, vec![(0.0, 9), (49.0, 2)]);
        let mut c = Vec::new();
        counter_marks(&Counter::new(kind, points), MAP, &View::all(1000.0), 100.0, &mut c);
        assert_eq!(c, vec![(0.0, 9), (50.0, 2)]);
    }
}
