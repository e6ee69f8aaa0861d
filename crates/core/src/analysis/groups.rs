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
        let mut g = Groups::default();
        for chain in chains {
            g.add(StackGroup {
                count: 1,
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
    pub fn merge(&mut self, other: &Groups) {
        for g in other.sorted() {
            self.add(g);
        }
    }

    /// Stably sorted by count, descending.
    pub fn sorted(&self) -> Vec<StackGroup> {
        let mut v: Vec<StackGroup> = self.0.values().cloned().collect();
        v.sort_by_key(|a| std::cmp::Reverse(a.count));
        v
    }
}
