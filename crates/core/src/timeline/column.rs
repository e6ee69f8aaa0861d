//! Columns of `u64` in about 4 bytes a value, so the page holds a million
//! polls' timeline in a few megabytes: `Narrow` for values that are mostly
//! small (durations, counter values), `Blocked` for values close to their
//! neighbours (times in order, task ids as first seen); and `Indices`, table
//! indices in 2 bytes while the table is small.

use std::ops::Range;

/// Values per `Blocked` block.
pub const BLOCK: usize = 256;

/// Marks a `Narrow` value kept in `long`.
const SATURATED: u32 = u32::MAX;

/// Values in 4 bytes each; the rare one that does not fit (a hung poll's
/// duration) is kept beside, by index.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Narrow {
    short: Vec<u32>,
    long: Vec<(u32, u64)>,
}

impl Narrow {
    pub fn len(&self) -> usize {
        self.short.len()
    }

    pub fn is_empty(&self) -> bool {
        self.short.is_empty()
    }

    pub fn get(&self, i: usize) -> u64 {
        match self.short[i] {
            SATURATED => self
                .long
                .binary_search_by_key(&(i as u32), |l| l.0)
                .map_or(u64::from(SATURATED), |k| self.long[k].1),
            v => u64::from(v),
        }
    }

    pub fn push(&mut self, v: u64) {
        let i = self.short.len() as u32;
        match u32::try_from(v) {
            Ok(v) if v != SATURATED => self.short.push(v),
            _ => {
                self.short.push(SATURATED);
                self.long.push((i, v));
            }
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    pub(super) fn parts(&self) -> (&[u32], &[(u32, u64)]) {
        (&self.short, &self.long)
    }

    /// From its parts, if they agree (`long` by index, within `short`).
    pub(super) fn from_parts(short: Vec<u32>, long: Vec<(u32, u64)>) -> Option<Narrow> {
        let ok = long.windows(2).all(|w| w[0].0 < w[1].0) && long.last().is_none_or(|l| (l.0 as usize) < short.len());
        ok.then_some(Narrow { short, long })
    }

    pub fn bytes(&self) -> usize {
        4 * self.short.len() + 16 * self.long.len()
    }
}

impl FromIterator<u64> for Narrow {
    fn from_iter<I: IntoIterator<Item = u64>>(values: I) -> Narrow {
        let mut out = Narrow::default();
        values.into_iter().for_each(|v| out.push(v));
        out
    }
}

/// Values close to their neighbours, in about 4 bytes each: every block of
/// `BLOCK` values keeps a base, and each value its offset from it (wrapping,
/// in a `Narrow`: a value far from its block's base still round-trips, in
/// 16 bytes). `push` takes a block's first value as its base, which suits
/// values in order; `collect` takes each block's least.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Blocked {
    base: Vec<u64>,
    off: Narrow,
}

impl Blocked {
    pub fn len(&self) -> usize {
        self.off.len()
    }

    pub fn is_empty(&self) -> bool {
        self.off.is_empty()
    }

    pub fn get(&self, i: usize) -> u64 {
        self.base[i / BLOCK].wrapping_add(self.off.get(i))
    }

    pub fn first(&self) -> Option<u64> {
        (!self.is_empty()).then(|| self.get(0))
    }

    pub fn push(&mut self, v: u64) {
        if self.len().is_multiple_of(BLOCK) {
            self.base.push(v);
        }
        let base = *self.base.last().expect("a block for every value");
        self.off.push(v.wrapping_sub(base));
    }

    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// The first index of `range` whose value fails `pred` (values in
    /// order over `range`, as `slice::partition_point`).
    pub fn partition_point(&self, range: Range<usize>, pred: impl Fn(u64) -> bool) -> usize {
        partition(range, |i| pred(self.get(i)))
    }

    /// Whether the values are in order.
    pub fn is_sorted(&self) -> bool {
        (1..self.len()).all(|i| self.get(i - 1) <= self.get(i))
    }

    pub(super) fn parts(&self) -> (&[u64], &Narrow) {
        (&self.base, &self.off)
    }

    /// From its parts, if they agree (one base per block).
    pub(super) fn from_parts(base: Vec<u64>, off: Narrow) -> Option<Blocked> {
        (base.len() == off.len().div_ceil(BLOCK)).then_some(Blocked { base, off })
    }

    pub fn bytes(&self) -> usize {
        8 * self.base.len() + self.off.bytes()
    }
}

impl FromIterator<u64> for Blocked {
    fn from_iter<I: IntoIterator<Item = u64>>(values: I) -> Blocked {
        let mut out = Blocked::default();
        let mut block = Vec::with_capacity(BLOCK);
        let flush = |block: &mut Vec<u64>, out: &mut Blocked| {
            if let Some(&base) = block.iter().min() {
                out.base.push(base);
                block.drain(..).for_each(|v| out.off.push(v - base));
            }
        };
        for v in values {
            block.push(v);
            if block.len() == BLOCK {
                flush(&mut block, &mut out);
            }
        }
        flush(&mut block, &mut out);
        out
    }
}

/// The first index of `range` for which `pred` fails, `pred` holding for a
/// prefix of it (binary search by index, for columns that are not slices).
pub fn partition(range: Range<usize>, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (range.start, range.end);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Intervals by start, each as a start (`Blocked`) and a duration (`Narrow`):
/// 8 bytes each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Slices {
    start: Blocked,
    dur: Narrow,
}

impl Slices {
    pub fn len(&self) -> usize {
        self.start.len()
    }

    pub fn is_empty(&self) -> bool {
        self.start.is_empty()
    }

    pub fn start(&self, i: usize) -> u64 {
        self.start.get(i)
    }

    pub fn dur(&self, i: usize) -> u64 {
        self.dur.get(i)
    }

    pub fn end(&self, i: usize) -> u64 {
        self.start(i).saturating_add(self.dur(i))
    }

    pub fn push(&mut self, start: u64, dur: u64) {
        self.start.push(start);
        self.dur.push(dur);
    }

    pub fn starts(&self) -> &Blocked {
        &self.start
    }

    pub(super) fn durations(&self) -> &Narrow {
        &self.dur
    }

    /// From its columns, if they have one length.
    pub(super) fn from_columns(start: Blocked, dur: Narrow) -> Option<Slices> {
        (start.len() == dur.len()).then_some(Slices { start, dur })
    }

    pub fn bytes(&self) -> usize {
        self.start.bytes() + self.dur.bytes()
    }
}

/// Indices into a table (tasks, strings): 2 bytes each while every one
/// fits, 4 once one does not (the column widens whole, once). `NONE` (no
/// entry) keeps its meaning in either width.
#[derive(Debug, Clone, PartialEq)]
pub enum Indices {
    Short(Vec<u16>),
    Wide(Vec<u32>),
}

impl Default for Indices {
    fn default() -> Self {
        Indices::Short(Vec::new())
    }
}

impl Indices {
    /// No entry (`u32::MAX`), stored as `u16::MAX` while short.
    pub const NONE: u32 = u32::MAX;

    pub fn len(&self) -> usize {
        match self {
            Indices::Short(v) => v.len(),
            Indices::Wide(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, i: usize) -> u32 {
        match self {
            Indices::Short(v) => match v[i] {
                u16::MAX => Self::NONE,
                x => u32::from(x),
            },
            Indices::Wide(v) => v[i],
        }
    }

    pub fn push(&mut self, v: u32) {
        let short = match v {
            Self::NONE => Some(u16::MAX),
            v => u16::try_from(v).ok().filter(|&x| x != u16::MAX),
        };
        match (&mut *self, short) {
            (Indices::Short(s), Some(x)) => s.push(x),
            (Indices::Short(_), None) => {
                *self = Indices::Wide(self.iter().collect());
                self.push(v);
            }
            (Indices::Wide(w), _) => w.push(v),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    pub fn bytes(&self) -> usize {
        match self {
            Indices::Short(v) => 2 * v.len(),
            Indices::Wide(v) => 4 * v.len(),
        }
    }
}

impl FromIterator<u32> for Indices {
    fn from_iter<I: IntoIterator<Item = u32>>(values: I) -> Indices {
        let mut out = Indices::default();
        values.into_iter().for_each(|v| out.push(v));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_take_two_bytes_until_one_does_not_fit() {
        let mut ix: Indices = [0, 7, Indices::NONE, 65_534].into_iter().collect();
        assert_eq!(ix.bytes(), 8);
        ix.push(65_535);
        ix.push(1 << 20);
        assert_eq!(ix.bytes(), 24);
        assert_eq!(
            ix.iter().collect::<Vec<_>>(),
            [0, 7, Indices::NONE, 65_534, 65_535, 1 << 20]
        );
        assert!(matches!(ix, Indices::Wide(_)));
    }

    #[test]
    fn narrow_values_keep_their_size() {
        let n: Narrow = [5, 10_000_000_000, u64::from(u32::MAX), 7].into_iter().collect();
        assert_eq!(
            n.iter().collect::<Vec<_>>(),
            [5, 10_000_000_000, u64::from(u32::MAX), 7]
        );
        assert_eq!(n.bytes(), 4 * 4 + 2 * 16);
    }

    #[test]
    fn blocked_values_round_trip_whatever_their_spread() {
        // Times in order with a jump of hours, values before their block's
        // first, and both ends of u64.
        let mut values: Vec<u64> = (0..1_000).map(|i| 1_000_000_000 + i * 1_000).collect();
        values.push(10 * 3_600_000_000_000);
        values.extend([3, 0, u64::MAX, 1 << 40, u64::MAX - 1]);
        let collected: Blocked = values.iter().copied().collect();
        let mut pushed = Blocked::default();
        values.iter().for_each(|&v| pushed.push(v));
        for b in [&collected, &pushed] {
            assert_eq!(b.iter().collect::<Vec<_>>(), values);
        }
        // In order, close together: 4 bytes a value and a base per block.
        let close: Blocked = (0..10 * BLOCK as u64).map(|i| (1 << 50) | (i * 997)).collect();
        assert_eq!(close.bytes(), 4 * close.len() + 8 * 10);
        assert!(close.is_sorted());
        assert_eq!(
            close.partition_point(0..close.len(), |v| v < (1 << 50) + 997 * 300),
            300
        );
        assert_eq!(
            close.partition_point(400..close.len(), |v| v < (1 << 50) + 997 * 300),
            400
        );
    }

    #[test]
    fn slices_end_where_they_last() {
        let mut s = Slices::default();
        s.push(10, 5);
        s.push(u64::MAX - 1, 5);
        assert_eq!((s.end(0), s.end(1)), (15, u64::MAX));
        assert_eq!(s.bytes(), 8 + 2 * 4 + 2 * 4 + 16);
    }
}
