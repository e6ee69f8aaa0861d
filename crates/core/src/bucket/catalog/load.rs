//! Load classes: a segment's size (or a density bucket's bytes per minute)
//! against the fleet's own. File size is the load signal (a quiet 15 s
//! segment is tens of KB, a busy one 1–5 MB): "busy" means much larger than
//! the lower quartile of this catalog's sizes, relative to the fleet, not
//! an absolute byte count.

use serde::{Deserialize, Serialize};

/// A segment counts as busy at this multiple of the fleet's typical (lower
/// quartile) size. Quiet and busy dial9 segments differ by 10–50×, so 5× sits
/// well between them while ignoring ordinary jitter.
pub const BUSY_FACTOR: u64 = 5;
/// Size reference for classifying load: the lower quartile of non-empty sizes
/// (a quiet segment unless three quarters of the fleet is busy). The same rule
/// classifies density buckets (bytes per minute).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadBaseline {
    /// `None` when nothing non-empty has been listed.
    pub typical_bytes: Option<u64>,
    /// `typical_bytes * BUSY_FACTOR`: at or above it, busy.
    pub busy_bytes: Option<u64>,
}

impl LoadBaseline {
    pub fn from_sizes(sizes: impl Iterator<Item = u64>) -> Self {
        let mut sizes: Vec<u64> = sizes.filter(|&s| s > 0).collect();
        if sizes.is_empty() {
            return Self::default();
        }
        let quartile = (sizes.len() - 1) / 4;
        let typical = *sizes.select_nth_unstable(quartile).1;
        Self {
            typical_bytes: Some(typical),
            busy_bytes: Some(typical.saturating_mul(BUSY_FACTOR)),
        }
    }

    pub fn classify(&self, bytes: u64) -> Load {
        match self.busy_bytes {
            _ if bytes == 0 => Load::Empty,
            Some(busy) if bytes >= busy => Load::Busy,
            _ => Load::Quiet,
        }
    }
}

/// Load class of a segment (by size) or a density bucket (by bytes per minute).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Load {
    /// Zero bytes: nothing to read (a failed or placeholder upload).
    Empty,
    Quiet,
    Busy,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_is_five_times_the_lower_quartile_of_non_empty_sizes() {
        // Lower quartile of [10, 20, 30, 40, 1000]: the 2nd smallest of 5 → index (5-1)/4 = 1 → 20.
        let b = LoadBaseline::from_sizes([0, 1000, 30, 10, 40, 20].into_iter());
        assert_eq!((b.typical_bytes, b.busy_bytes), (Some(20), Some(100)));
        assert_eq!(b.classify(0), Load::Empty);
        assert_eq!(b.classify(99), Load::Quiet);
        assert_eq!(b.classify(100), Load::Busy);
        // Nothing non-empty listed: no reference, nothing is busy.
        let none = LoadBaseline::from_sizes([0, 0].into_iter());
        assert_eq!(none, LoadBaseline::default());
        assert_eq!((none.classify(0), none.classify(u64::MAX)), (Load::Empty, Load::Quiet));
    }
}
