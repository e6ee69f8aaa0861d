//! The percentile model of node's `perf_hooks.createHistogram()` (HdrHistogram,
//! 3 significant figures), which every reference percentile comes from. Values
//! below 2,048 are exact; above, a value lands in a bucket of width 2^k and the
//! histogram reports the bucket's highest equivalent. The percentile rank rounds
//! half up (unlike the `hdrhistogram` crate's ceil), so this is hand-built.

use crate::hashing::FastMap;
use indexmap::IndexMap;
use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

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
    buckets: Buckets,
    count: u64,
}

/// Bucket lowest-equivalent value → count, as pairs sorted by bucket, each
/// bucket once. A page merges hundreds of files' histograms: a sorted vector
/// reads, merges and walks in one pass where a tree allocates per bucket.
/// On the wire it is a map, as the tree it replaced was.
#[derive(Debug, Clone, Default, PartialEq)]
struct Buckets(Vec<(u64, u64)>);

impl Buckets {
    fn add(&mut self, bucket: u64, count: u64) {
        match self.0.binary_search_by_key(&bucket, |&(b, _)| b) {
            Ok(i) => self.0[i].1 = self.0[i].1.saturating_add(count),
            Err(i) => self.0.insert(i, (bucket, count)),
        }
    }

    /// Sorted by bucket and each bucket once, whatever order `pairs` came in.
    fn from_pairs(mut pairs: Vec<(u64, u64)>) -> Self {
        if !pairs.is_sorted_by(|a, b| a.0 < b.0) {
            pairs.sort_unstable_by_key(|&(b, _)| b);
            pairs.dedup_by(|next, kept| {
                let same = next.0 == kept.0;
                if same {
                    kept.1 = kept.1.saturating_add(next.1);
                }
                same
            });
        }
        Buckets(pairs)
    }

    /// Both sets of counts, in one pass over the two sorted lists.
    fn merged(&self, other: &Buckets) -> Buckets {
        let (a, b) = (&self.0, &other.0);
        let mut out = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                std::cmp::Ordering::Less => {
                    out.push(a[i]);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    out.push(b[j]);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    out.push((a[i].0, a[i].1.saturating_add(b[j].1)));
                    (i, j) = (i + 1, j + 1);
                }
            }
        }
        out.extend_from_slice(&a[i..]);
        out.extend_from_slice(&b[j..]);
        Buckets(out)
    }
}

impl Serialize for Buckets {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (bucket, count) in &self.0 {
            map.serialize_entry(bucket, count)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Buckets {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PairsVisitor;
        impl<'de> Visitor<'de> for PairsVisitor {
            type Value = Buckets;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map of bucket to count")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Buckets, A::Error> {
                // The length comes from the input: reserve no more than a
                // real histogram holds (64 powers of two, 2,048 sub-buckets
                // at most each, far fewer in practice).
                let mut pairs = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4_096));
                while let Some(pair) = map.next_entry()? {
                    pairs.push(pair);
                }
                Ok(Buckets::from_pairs(pairs))
            }
        }
        deserializer.deserialize_map(PairsVisitor)
    }
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
        self.buckets.add(lowest_equivalent(value.max(1)), 1);
        self.count += 1;
    }

    pub fn merge(&mut self, other: &Histogram) {
        if self.buckets.0.is_empty() {
            self.buckets.clone_from(&other.buckets);
        } else if !other.buckets.0.is_empty() {
            self.buckets = self.buckets.merged(&other.buckets);
        }
        self.count = self.count.saturating_add(other.count);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn max(&self) -> u64 {
        self.buckets.0.last().map_or(0, |&(v, _)| highest_equivalent(v))
    }

    pub fn min(&self) -> u64 {
        self.buckets.0.first().map_or(0, |&(v, _)| v)
    }

    /// How many recorded values exceed `value` (at bucket resolution).
    pub fn count_above(&self, value: u64) -> u64 {
        let from = lowest_equivalent(value.max(1));
        let first = self.buckets.0.partition_point(|&(low, _)| low < from);
        self.buckets.0[first..]
            .iter()
            .filter(|&&(low, _)| low > value)
            .map(|&(_, c)| c)
            .sum()
    }

    /// Counts in bins of equal width on a log scale, `per_decade` bins per
    /// power of ten, from the lowest bin with a value to the highest (empty
    /// bins between included): what a log-scale histogram draws.
    pub fn log_bins(&self, per_decade: u32) -> Vec<LogBin> {
        let k = f64::from(per_decade.max(1));
        let bin = |v: u64| ((v.max(1) as f64).log10() * k).floor() as i64;
        let (Some(&(lo, _)), Some(&(hi, _))) = (self.buckets.0.first(), self.buckets.0.last()) else {
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
        for &(low, c) in &self.buckets.0 {
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
        for &(low, c) in &self.buckets.0 {
            seen += c;
            if seen >= target {
                return highest_equivalent(low);
            }
        }
        self.max()
    }
}

/// Values counted by bucket in a hash map, for the many values of one
/// analysis pass (a search per value costs several times more); the sorted
/// buckets are built once, by `into_histogram`.
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
            buckets: Buckets::from_pairs(self.buckets.into_iter().collect()),
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

    #[test]
    fn on_the_wire_the_buckets_are_a_map_in_any_order() {
        let mut h = Histogram::default();
        [5u64, 5, 3_000, 1].iter().for_each(|&v| h.record(v));
        // The same bytes as the map the buckets once were.
        let tree: std::collections::BTreeMap<u64, u64> = [(1, 1), (5, 2), (3_000, 1)].into();
        let as_tree = postcard::to_allocvec(&(&tree, 4u64)).unwrap();
        assert_eq!(postcard::to_allocvec(&h).unwrap(), as_tree);
        assert_eq!(postcard::from_bytes::<Histogram>(&as_tree).unwrap(), h);
        // Out of order and repeated (a hostile or foreign writer): sorted, summed.
        let json = r#"{"buckets":{"3000":1,"5":1,"1":1,"5":1},"count":4}"#;
        assert_eq!(serde_json::from_str::<Histogram>(json).unwrap(), h);
        let saturated = r#"{"buckets":{"5":18446744073709551615,"5":1},"count":1}"#;
        assert_eq!(
            serde_json::from_str::<Histogram>(saturated).unwrap().count_above(4),
            u64::MAX
        );
    }
}
