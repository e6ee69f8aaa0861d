//! The frame dictionary of a partial: each distinct frame once in a
//! `FrameTable`, every stack a list of `FrameId`s, so partials stay small in
//! memory and on the wire to the page. Merging maps one table's ids into
//! another's (`Remap`). Below the report: a `FrameList` travels inside a
//! report's request details.

use crate::frames::Frame;
use crate::hashing::FastIndexSet;
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
    pub(super) fn key(&self, stack: &[FrameId]) -> Vec<u32> {
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
