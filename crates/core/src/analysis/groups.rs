//! Samples grouped by their full symbolized stack (`deduplicateSamples`),
//! mergeable across files: first occurrence keeps its frames, counts add.

use crate::report::{Frame, StackGroup};
use crate::trace::SymbolTable;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// Stack key → group, in first-occurrence order.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Groups(IndexMap<String, StackGroup>);

fn key(frames: &[Frame]) -> String {
    let mut k = String::new();
    for (i, f) in frames.iter().enumerate() {
        if i > 0 {
            k.push('\0');
        }
        k.push_str(&f.symbol);
    }
    k
}

impl Groups {
    pub fn from_chains<'a>(chains: impl Iterator<Item = &'a [u64]>, symbols: &SymbolTable) -> Groups {
        // Most samples repeat a raw chain: count distinct chains first (first-seen
        // order) so each is symbolized once. Grouping distinct chains in that order
        // yields the same groups, order and kept frames as adding every sample.
        let mut distinct: IndexMap<&[u64], u64> = IndexMap::new();
        for chain in chains {
            *distinct.entry(chain).or_default() += 1;
        }
        let mut g = Groups::default();
        for (chain, count) in distinct {
            g.add(StackGroup {
                count,
                frames: symbols.symbolize(chain),
            });
        }
        g
    }

    fn add(&mut self, group: StackGroup) {
        match self.0.entry(key(&group.frames)) {
            indexmap::map::Entry::Occupied(mut e) => e.get_mut().count += group.count,
            indexmap::map::Entry::Vacant(e) => {
                e.insert(group);
            }
        }
    }

    /// Per-file lists are sorted by count before merging, as in the reference.
    /// By value: frames and keys move, nothing is cloned.
    pub fn merge(&mut self, other: Groups) {
        let mut v: Vec<(String, StackGroup)> = other.0.into_iter().collect();
        v.sort_by_key(|(_, g)| std::cmp::Reverse(g.count));
        self.0.reserve(v.len());
        for (k, g) in v {
            match self.0.entry(k) {
                indexmap::map::Entry::Occupied(mut e) => e.get_mut().count += g.count,
                indexmap::map::Entry::Vacant(e) => {
                    e.insert(g);
                }
            }
        }
    }

    /// The first group of `into_sorted()`, without sorting: the first group with the highest count.
    pub fn top(&self) -> Option<&StackGroup> {
        self.0
            .values()
            .reduce(|best, g| if g.count > best.count { g } else { best })
    }

    /// Stably sorted by count, descending.
    pub fn into_sorted(self) -> Vec<StackGroup> {
        let mut v: Vec<StackGroup> = self.0.into_values().collect();
        v.sort_by_key(|a| std::cmp::Reverse(a.count));
        v
    }
}
