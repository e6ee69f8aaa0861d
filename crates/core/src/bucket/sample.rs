//! Samples of a selection that spread over its hosts and over its time, in
//! an order fixed by the selection alone: the same selection gives the same
//! sample everywhere (page, CLI, a shared link), and a bigger sample begins
//! with the smaller one, so "add N more" downloads only the new segments.

use super::catalog::{SelectedSegment, Selection};
use crate::fmt::{bytes, count, grouped};
use crate::s3::time::Timestamp;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The order a sample takes `segments` in, as indices. Hosts take turns, in
/// an order set by a hash of their names (not their spelling: no subnet
/// comes first); each host's segments, by start time, are taken in van der
/// Corput order (first, then the middle, the quarters, the eighths…), so any
/// prefix spreads over each host's time.
pub fn fair_order(segments: &[SelectedSegment]) -> Vec<usize> {
    let mut hosts: BTreeMap<(u64, &str, &str), Vec<usize>> = BTreeMap::new();
    for (i, s) in segments.iter().enumerate() {
        let p = &s.segment.parts;
        let host = (
            stable_hash(&[&p.service, &p.instance]),
            p.service.as_str(),
            p.instance.as_str(),
        );
        hosts.entry(host).or_default().push(i);
    }
    let turns: Vec<Vec<usize>> = hosts
        .into_values()
        .map(|mut own| {
            own.sort_by_key(|&i| (segments[i].segment.parts.epoch_secs, &segments[i].segment.key));
            spread(own.len()).map(|j| own[j]).collect()
        })
        .collect();
    let most = turns.iter().map(Vec::len).max().unwrap_or(0);
    (0..most)
        .flat_map(|round| turns.iter().filter_map(move |t| t.get(round).copied()))
        .collect()
}

/// `0..n` in van der Corput order: at fractions 0, 1/2, 1/4, 3/4, 1/8… of
/// the way through (the bit-reversed counter, scaled to `n`), each index
/// once.
fn spread(n: usize) -> impl Iterator<Item = usize> {
    let bits = usize::BITS - n.saturating_sub(1).leading_zeros();
    let mut seen = vec![false; n];
    let counter = if n == 0 { 0 } else { 1u128 << bits };
    (0..counter).filter_map(move |k| {
        let reversed = if bits == 0 {
            0
        } else {
            k.reverse_bits() >> (u128::BITS - bits)
        };
        // Onto 0..n (n ≤ 2^bits): every index comes up.
        let j = ((reversed * n as u128) >> bits) as usize;
        (!std::mem::replace(&mut seen[j], true)).then_some(j)
    })
}

/// FNV-1a over the parts, each ended by a zero byte: the same on every
/// platform and in every build (unlike the std hasher's).
fn stable_hash(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in parts.iter().flat_map(|p| p.bytes().chain([0])) {
        h = (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Selection {
    /// `n` segments in [`fair_order`] (all when `n` is the count or more),
    /// listed by start time like any selection.
    pub fn sample(&self, n: usize) -> Selection {
        let mut picked: Vec<usize> = fair_order(&self.segments).into_iter().take(n).collect();
        picked.sort_unstable();
        Selection {
            segments: picked.into_iter().map(|i| self.segments[i].clone()).collect(),
        }
    }

    /// [`Selection::sample`], with what it covers of this selection.
    pub fn sample_covered(&self, n: usize) -> (Selection, Coverage) {
        let sample = self.sample(n);
        let coverage = Coverage::of(&sample, self);
        (sample, coverage)
    }
}

/// What a sample covers of the selection it was taken from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Coverage {
    pub segments: usize,
    pub of_segments: usize,
    pub bytes: u64,
    pub of_bytes: u64,
    pub hosts: usize,
    pub of_hosts: usize,
    /// The first and last sampled segment's start (Unix seconds).
    pub span: Option<(u64, u64)>,
}

impl Coverage {
    pub fn of(sample: &Selection, whole: &Selection) -> Coverage {
        let hosts = |s: &Selection| {
            let names = s
                .segments
                .iter()
                .map(|x| (&x.segment.parts.service, &x.segment.parts.instance));
            names.collect::<std::collections::BTreeSet<_>>().len()
        };
        let starts = sample.segments.iter().map(|s| s.segment.parts.epoch_secs);
        Coverage {
            segments: sample.len(),
            of_segments: whole.len(),
            bytes: sample.total_bytes(),
            of_bytes: whole.total_bytes(),
            hosts: hosts(sample),
            of_hosts: hosts(whole),
            span: starts.clone().min().zip(starts.max()),
        }
    }

    /// "5 of 26 segments (1.12 MB of 6.86 MB), 4 of 6 hosts, starting
    /// 2026-11-30T08:14:52Z to 2026-12-01T09:59:42Z".
    pub fn text(&self) -> String {
        let mut text = format!(
            "{} of {} ({} of {}), {} of {}",
            grouped(self.segments as i64),
            count(self.of_segments, "segment"),
            bytes(self.bytes),
            bytes(self.of_bytes),
            grouped(self.hosts as i64),
            count(self.of_hosts, "host"),
        );
        if let Some((first, last)) = self.span {
            let at = |secs: u64| Timestamp::from_unix_secs(secs as i64).to_rfc3339();
            text += &format!(", starting {} to {}", at(first), at(last));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_visits_every_index_once_halves_first() {
        assert_eq!(spread(0).collect::<Vec<_>>(), Vec::<usize>::new());
        assert_eq!(spread(1).collect::<Vec<_>>(), [0]);
        assert_eq!(spread(5).collect::<Vec<_>>(), [0, 2, 1, 3, 4]);
        assert_eq!(spread(8).collect::<Vec<_>>(), [0, 4, 2, 6, 1, 5, 3, 7]);
        let mut all: Vec<usize> = spread(1000).collect();
        all.sort_unstable();
        assert_eq!(all, (0..1000).collect::<Vec<_>>());
    }

    #[test]
    fn the_hash_is_fixed() {
        // FNV-1a's offset basis for nothing; parts kept apart by their ends.
        assert_eq!(stable_hash(&[]), 0xcbf2_9ce4_8422_2325);
        // FNV-1a of "a\0" (computed apart; of "a", the published 0xaf63dc4c8601ec8c).
        assert_eq!(stable_hash(&["a"]), 0x089b_e207_b544_f1e4);
        assert_ne!(stable_hash(&["ab", "c"]), stable_hash(&["a", "bc"]));
    }
}
