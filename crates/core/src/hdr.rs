//! The percentile model of node's `perf_hooks.createHistogram()` (HdrHistogram,
//! 3 significant figures), which every reference percentile comes from. Values
//! below 2,048 are exact; above, a value lands in a bucket of width 2^k and the
//! histogram reports the bucket's highest equivalent. The percentile rank rounds
//! half up (unlike the `hdrhistogram` crate's ceil), so this is hand-built.

use crate::hashing::FastMap;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const SUB_BUCKET_BITS: u32 = 11;

/// Values from `lo` up to (not including) `hi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogBin {
    pub lo: u64,
    pub hi: u64,
    pub count: u64,
}

/// A mergeable histogram of positive integer values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    /// Bucket lowest-equivalent value → count.
    buckets: BTreeMap<u64, u64>,
    count: u64,
}

fn bucket_shift(value: u64) -> u32 {
    let bits = 64 - value.leading_zeros();
    bits.saturating_sub(SUB_BUCKET_BITS)
}

fn lowest_equivalent(value: u64) -> u64 {
    let k = bucket_shift(value);
    (value >> k) << k
}

fn highest_equivalent(value: u64) -> u64 {
    let k = bucket_shift(value);
    lowest_equivalent(value) + (1u64 << k) - 1
}

impl Histogram {
    /// Records `max(1, round(x))`, as the reference toolkit does.
    pub fn record_f64(&mut self, x: f64) {
        let v = (x + 0.5).floor();
        self.record(if v < 1.0 { 1 } else { v as u64 });
    }

    pub fn record(&mut self, value: u64) {
        *self.buckets.entry(lowest_equivalent(value.max(1))).or_default() += 1;
        self.count += 1;
    }

    pub fn merge(&mut self, other: &Histogram) {
        if self.buckets.is_empty() {
            // A copy of the tree is built in one go; inserting is per bucket.
            self.buckets.clone_from(&other.buckets);
            self.count += other.count;
            return;
        }
        for (&k, &c) in &other.buckets {
            *self.buckets.entry(k).or_default() += c;
        }
        self.count += other.count;
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn max(&self) -> u64 {
        self.buckets.keys().next_back().map_or(0, |&v| highest_equivalent(v))
    }

    pub fn min(&self) -> u64 {
        self.buckets.keys().next().copied().unwrap_or(0)
    }

    /// How many recorded values exceed `value` (at bucket resolution).
    pub fn count_above(&self, value: u64) -> u64 {
        self.buckets
            .range(lowest_equivalent(value.max(1))..)
            .filter(|&(&low, _)| low > value)
            .map(|(_, &c)| c)
            .sum()
    }

    /// Counts in bins of equal width on a log scale, `per_decade` bins per
    /// power of ten, from the lowest bin with a value to the highest (empty
    /// bins between included): what a log-scale histogram draws.
    pub fn log_bins(&self, per_decade: u32) -> Vec<LogBin> {
        let k = f64::from(per_decade.max(1));
        let bin = |v: u64| ((v.max(1) as f64).log10() * k).floor() as i64;
        let (Some(&lo), Some(&hi)) = (self.buckets.keys().next(), self.buckets.keys().next_back()) else {
            return Vec::new();
        };
        // A bin's lower edge; at a power of ten exactly (no float rounding).
        let edge = |i: i64| {
            let per = i64::from(per_decade.max(1));
            if i % per == 0 {
                10u64.saturating_pow((i / per) as u32)
            } else {
                10f64.powf(i as f64 / k).ceil() as u64
            }
        };
        let first = bin(lo);
        let mut out: Vec<LogBin> = (first..=bin(hi))
            .map(|i| LogBin {
                lo: edge(i),
                hi: edge(i + 1),
                count: 0,
            })
            .collect();
        for (&low, &c) in &self.buckets {
            out[(bin(low) - first) as usize].count += c;
        }
        out
    }

    /// `percentile(p)` for 0 < p <= 100: the highest equivalent of the bucket
    /// where the running count first reaches round-half-up(p% of count).
    pub fn percentile(&self, p: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let target = ((p.min(100.0) / 100.0) * self.count as f64 + 0.5).trunc().max(1.0) as u64;
        let mut seen = 0;
        for (&low, &c) in &self.buckets {
            seen += c;
            if seen >= target {
                return highest_equivalent(low);
            }
        }
        self.max()
    }
}

/// Values counted by bucket in a hash map, for the many values of one
/// analysis pass (a tree walk per value costs several times more); the tree
/// is built once, by `into_histogram`.
#[derive(Debug, Default)]
pub struct Tally {
    buckets: FastMap<u64, u64>,
    count: u64,
}

/// Histograms by name folded into `dst` (a new name takes its histogram as is).
pub fn merge_by_name(dst: &mut IndexMap<String, Histogram>, src: impl IntoIterator<Item = (String, Histogram)>) {
    for (k, h) in src {
        match dst.entry(k) {
            indexmap::map::Entry::Occupied(mut o) => o.get_mut().merge(&h),
            indexmap::map::Entry::Vacant(v) => {
                v.insert(h);
            }
        }
    }
}

impl Tally {
    /// Records `max(1, value)`, as `Histogram::record` does.
    pub fn record(&mut self, value: u64) {
        *self.buckets.entry(lowest_equivalent(value.max(1))).or_default() += 1;
        self.count += 1;
    }

    pub fn into_histogram(self) -> Histogram {
        Histogram {
            buckets: self.buckets.into_iter().collect(),
            count: self.count,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_bins_cover_every_value_once() {
        let mut h = Histogram::default();
        for v in [1, 9, 10, 11, 99, 100, 5_000, 2_000_000] {
            h.record(v);
        }
        let bins = h.log_bins(1);
        assert_eq!(bins.len(), 7);
        assert_eq!(bins.iter().map(|b| b.count).collect::<Vec<_>>(), [2, 3, 1, 1, 0, 0, 1]);
        assert_eq!((bins[1].lo, bins[1].hi), (10, 100));
        assert_eq!(h.log_bins(4).iter().map(|b| b.count).sum::<u64>(), 8);
        assert!(Histogram::default().log_bins(4).is_empty());
    }

    #[test]
    fn exact_below_2048_and_bucketed_above() {
        let mut h = Histogram::default();
        h.record(250);
        h.record(32_334_125);
        assert_eq!(h.min(), 250);
        assert_eq!(h.max(), 32_342_015);
    }

    #[test]
    fn percentile_rank_rounds_half_up() {
        let mut h = Histogram::default();
        (1..=52).for_each(|v| h.record(v));
        assert_eq!(h.percentile(99.0), 51);
        assert_eq!(h.percentile(50.0), 26);
        assert_eq!(h.percentile(100.0), 52);
    }

    #[test]
    fn records_rounded_values_with_a_floor_of_one() {
        let mut h = Histogram::default();
        h.record_f64(0.2);
        h.record_f64(2.5);
        assert_eq!(h.min(), 1);
        assert_eq!(h.max(), 3);
    }

    #[test]
    fn a_tally_gives_the_histogram_of_its_values() {
        let values = [0u64, 1, 3, 3, 2_047, 2_048, 2_049, 9_999, 123_456_789, u64::MAX];
        let (mut tally, mut h) = (Tally::default(), Histogram::default());
        for v in values {
            tally.record(v);
            h.record(v);
        }
        assert_eq!(tally.into_histogram(), h);
        assert_eq!(Tally::default().into_histogram(), Histogram::default());
    }

    #[test]
    fn merging_equals_recording_everything_in_one() {
        let values = [3u64, 3, 2_047, 2_048, 9_999, 123_456_789, 7];
        let (mut a, mut b, mut all) = (Histogram::default(), Histogram::default(), Histogram::default());
        values[..3].iter().for_each(|&v| a.record(v));
        values[3..].iter().for_each(|&v| b.record(v));
        values.iter().for_each(|&v| all.record(v));
        let mut merged = Histogram::default();
        merged.merge(&a);
        assert_eq!(merged, a, "into an empty one: a copy");
        merged.merge(&b);
        assert_eq!(merged, all);
        merged.merge(&Histogram::default());
        assert_eq!(merged, all);
    }
}
