//! Symbolized stacks, dictionary-encoded: a partial stores each distinct
//! frame once in its `FrameTable` and every stack as a list of `FrameId`s, so
//! partials stay small in memory and on the wire to the page. Merging maps
//! one table's ids into another's; frames become values again only in the
//! report.

use crate::hashing::{FastIndexMap, FastIndexSet, FastMap};
use crate::report::{Frame, Moment, StackGroup, Weighted};
use crate::trace::{MAX_STACK_FRAMES, SymbolTable, cut_frame, push_capped};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A frame of the `FrameTable` it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FrameId(u32);

impl FrameId {
    /// Its position in its table (`FrameTable::to_vec`).
    pub fn index(self) -> u32 {
        self.0
    }
}

/// Distinct frames by id. Stacks group by their symbols alone (the
/// reference's key), so each frame also knows its symbol's class.
#[derive(Debug, Clone, Default)]
pub struct FrameTable {
    frames: FastIndexSet<Frame>,
    symbol_class: Vec<u32>,
    /// Shares each symbol's text with its frames.
    symbols: FastIndexSet<Arc<str>>,
}

impl FrameTable {
    pub fn intern(&mut self, frame: &Frame) -> FrameId {
        if let Some(i) = self.frames.get_index_of(frame) {
            return FrameId(i as u32);
        }
        self.push(frame.clone())
    }

    fn push(&mut self, frame: Frame) -> FrameId {
        let class = match self.symbols.get_index_of(&*frame.symbol) {
            Some(c) => c,
            None => self.symbols.insert_full(frame.symbol.clone()).0,
        };
        self.symbol_class.push(class as u32);
        FrameId(self.frames.insert_full(frame).0 as u32)
    }

    pub fn get(&self, id: FrameId) -> &Frame {
        &self.frames[id.0 as usize]
    }

    pub fn frames<'a>(&'a self, stack: &'a [FrameId]) -> impl Iterator<Item = &'a Frame> + 'a {
        stack.iter().map(|&id| self.get(id))
    }

    /// Every frame, by id.
    pub fn to_vec(&self) -> Vec<Frame> {
        self.frames.iter().cloned().collect()
    }

    pub fn resolve(&self, stack: &[FrameId]) -> Vec<Frame> {
        self.frames(stack).cloned().collect()
    }

    /// The grouping key of a stack: its symbols, as classes.
    fn key(&self, stack: &[FrameId]) -> Vec<u32> {
        stack.iter().map(|id| self.symbol_class[id.0 as usize]).collect()
    }

    /// Takes in every frame of `other`; the result maps `other`'s ids to ours
    /// (a frame `other` lists twice maps to one id).
    pub fn absorb(&mut self, other: FrameList) -> Remap {
        Remap(other.0.into_iter().map(|f| self.intern_owned(f)).collect())
    }

    fn intern_owned(&mut self, frame: Frame) -> FrameId {
        match self.frames.get_index_of(&frame) {
            Some(i) => FrameId(i as u32),
            None => self.push(frame),
        }
    }

    /// The frames by id, without the index: what a partial carries.
    pub fn into_list(self) -> FrameList {
        FrameList(self.frames.into_iter().collect())
    }
}

/// A partial's frames, by id: what travels to the page and what a fold
/// takes in. No lookup index: a table's is rebuilt only where frames are
/// interned (`FrameTable::absorb`), not when a partial is read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FrameList(Vec<Frame>);

impl FrameList {
    /// The frame of an id, if the list has it.
    pub fn get(&self, id: FrameId) -> Option<&Frame> {
        self.0.get(id.0 as usize)
    }

    /// Whether every id of `stack` names a frame of this list.
    pub fn holds(&self, stack: &[FrameId]) -> bool {
        stack.iter().all(|id| (id.0 as usize) < self.0.len())
    }
}

/// Ids of one `FrameTable` translated into another's.
pub struct Remap(Vec<FrameId>);

impl Remap {
    pub fn stack(&self, stack: &[FrameId]) -> Vec<FrameId> {
        stack.iter().map(|id| self.0[id.0 as usize]).collect()
    }
}

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
            stack: self.stack.iter().map(|id| id.0).collect(),
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
