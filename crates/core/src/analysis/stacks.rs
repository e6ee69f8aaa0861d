//! Symbolized stacks, dictionary-encoded: a partial stores each distinct
//! frame once in its `FrameTable` and every stack as a list of `FrameId`s, so
//! partials stay small in memory and on the wire to the page. Merging maps
//! one table's ids into another's; frames become values again only in the
//! report.

use super::frame_table::{FrameId, FrameTable, Remap};
use crate::hashing::{FastIndexMap, FastMap};
use crate::report::{Moment, StackGroup, Weighted};
use crate::trace::{MAX_STACK_FRAMES, SymbolTable, cut_frame, push_capped};
use serde::{Deserialize, Serialize};

/// Call chains → stacks of one trace, each address symbolized once.
pub struct Symbolizer<'a> {
    symbols: &'a SymbolTable,
    table: &'a mut FrameTable,
    by_addr: FastMap<u64, Vec<FrameId>>,
}

impl<'a> Symbolizer<'a> {
    /// The table it interns frames in.
    pub fn table(&self) -> &FrameTable {
        self.table
    }

    pub fn new(symbols: &'a SymbolTable, table: &'a mut FrameTable) -> Self {
        Self {
            symbols,
            table,
            by_addr: FastMap::default(),
        }
    }

    /// The leaf-first stack of a leaf-first call chain (inline frames
    /// expanded), at most `MAX_STACK_FRAMES` (as `SymbolTable::symbolize`).
    pub fn stack(&mut self, chain: &[u64]) -> Vec<FrameId> {
        let mut out = Vec::with_capacity(chain.len().min(MAX_STACK_FRAMES));
        for &addr in chain {
            let ids = self.by_addr.entry(addr).or_insert_with(|| {
                let mut ids = Vec::new();
                self.symbols.for_each_frame(addr, |f| ids.push(self.table.intern(f)));
                ids
            });
            let table = &mut *self.table;
            if !push_capped(&mut out, ids, || table.intern(&cut_frame())) {
                break;
            }
        }
        out
    }
}

/// Samples that share a stack, as a partial carries them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Group {
    pub count: u64,
    pub stack: Vec<FrameId>,
    /// The poll the group's first sample landed in (in-poll blocking stacks).
    pub at: Option<Moment>,
    /// In-poll blocking stacks: how long their samples' threads stayed off
    /// the CPU, as far as the trace tells (`workers::off_cpu_ns`).
    pub blocked_ns: u64,
}

/// Groups by symbols (`deduplicateSamples`), in first-occurrence order: the
/// first stack seen keeps its frames, counts add.
#[derive(Debug, Clone, Default)]
pub struct GroupIndex(FastIndexMap<Vec<u32>, Group>);

impl GroupIndex {
    pub fn add(&mut self, table: &FrameTable, group: Group) {
        match self.0.entry(table.key(&group.stack)) {
            indexmap::map::Entry::Occupied(mut e) => {
                let first = e.get_mut();
                first.count = first.count.saturating_add(group.count);
                first.blocked_ns = first.blocked_ns.saturating_add(group.blocked_ns);
                first.at = first.at.take().or(group.at);
            }
            indexmap::map::Entry::Vacant(e) => {
                e.insert(group);
            }
        }
    }

    /// Another partial's groups, sorted by count first as the reference merges them.
    pub fn merge(&mut self, table: &FrameTable, remap: &Remap, mut groups: Vec<Group>) {
        groups.sort_by_key(|g| std::cmp::Reverse(g.count));
        self.0.reserve(groups.len());
        for g in groups {
            let stack = remap.stack(&g.stack);
            self.add(table, Group { stack, ..g });
        }
    }

    /// In first-occurrence order.
    pub fn into_groups(self) -> Vec<Group> {
        self.0.into_values().collect()
    }

    /// Stably sorted by count, descending.
    pub fn into_sorted(self) -> Vec<Group> {
        let mut v = self.into_groups();
        v.sort_by_key(|g| std::cmp::Reverse(g.count));
        v
    }
}

/// Groups the samples of some call chains. Most samples repeat a raw chain:
/// distinct chains are counted first (first-seen order) so each is symbolized
/// once; grouping them in that order gives the same groups, order and kept
/// frames as adding every sample.
pub fn group_chains<'c>(chains: impl Iterator<Item = &'c [u64]>, symbolizer: &mut Symbolizer<'_>) -> Vec<Group> {
    group_chains_at(chains.map(|c| (c, (), 0)), |()| None, symbolizer)
}

/// `group_chains`, each group placed where its first sample was (`at` is
/// asked once per distinct chain, for the first sample that has it) and
/// weighed by its samples' blocked time (the third of each item).
pub fn group_chains_at<'c, S: Copy>(
    chains: impl Iterator<Item = (&'c [u64], S, u64)>,
    at: impl Fn(S) -> Option<Moment>,
    symbolizer: &mut Symbolizer<'_>,
) -> Vec<Group> {
    let mut distinct: FastIndexMap<&[u64], (u64, S, u64)> = FastIndexMap::default();
    for (chain, sample, blocked_ns) in chains {
        let d = distinct.entry(chain).or_insert((0, sample, 0));
        d.0 += 1;
        d.2 = d.2.saturating_add(blocked_ns);
    }
    let mut groups = GroupIndex::default();
    for (chain, (count, first, blocked_ns)) in distinct {
        let stack = symbolizer.stack(chain);
        let at = at(first);
        groups.add(
            symbolizer.table,
            Group {
                count,
                stack,
                at,
                blocked_ns,
            },
        );
    }
    groups.into_groups()
}

impl Group {
    pub fn weighted(&self) -> Weighted {
        Weighted {
            weight: self.count,
            stack: self.stack.iter().map(|id| id.index()).collect(),
        }
    }

    pub fn to_report(&self, table: &FrameTable) -> StackGroup {
        StackGroup {
            count: self.count,
            frames: table.resolve(&self.stack),
            moment: self.at.clone(),
        }
    }
}
