//! The in-trace symbol table (`SymbolTableEntry` events) and call-chain
//! symbolization, with inline frames expanded deepest-first.

use crate::report::Frame;
use std::collections::HashMap;

#[derive(Debug, Clone)]
pub enum SymbolEntry {
    /// Only the owning function (inline depth 0) is known.
    Single(Frame),
    /// Indexed by inline depth; slot 0 is the owning function.
    Inline(Vec<Option<Frame>>),
}

#[derive(Debug, Clone, Default)]
pub struct SymbolTable {
    entries: HashMap<u64, SymbolEntry>,
}

/// `0x` + lowercase hex, the reference's address key and unresolved-frame text.
pub fn hex_key(addr: u64) -> String {
    format!("{addr:#x}")
}

impl SymbolTable {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Addresses whose owning-function entry has a source location.
    pub fn with_location(&self) -> usize {
        self.entries
            .values()
            .filter(|e| match e {
                SymbolEntry::Single(f) => f.location.is_some(),
                SymbolEntry::Inline(slots) => slots
                    .first()
                    .and_then(|s| s.as_ref())
                    .is_some_and(|f| f.location.is_some()),
            })
            .count()
    }

    pub fn insert(&mut self, addr: u64, depth: usize, frame: Frame) {
        let entry = self.entries.remove(&addr);
        let updated = match (entry, depth) {
            (None | Some(SymbolEntry::Single(_)), 0) => SymbolEntry::Single(frame),
            (Some(SymbolEntry::Inline(mut slots)), _) => {
                if slots.len() <= depth {
                    slots.resize(depth + 1, None);
                }
                slots[depth] = Some(frame);
                SymbolEntry::Inline(slots)
            }
            (prev, _) => {
                let base = match prev {
                    Some(SymbolEntry::Single(f)) => f,
                    _ => Frame {
                        symbol: hex_key(addr).into(),
                        location: None,
                    },
                };
                let mut slots = vec![None; depth + 1];
                slots[0] = Some(base);
                slots[depth] = Some(frame);
                SymbolEntry::Inline(slots)
            }
        };
        self.entries.insert(addr, updated);
    }

    /// Later tables win, as the reference merges per-file maps.
    pub fn merge(&mut self, other: &SymbolTable) {
        for (k, v) in &other.entries {
            self.entries.insert(*k, v.clone());
        }
    }

    /// The frames one address expands to, deepest inline frame first; an
    /// address the table does not know is its hex key.
    pub fn for_each_frame(&self, addr: u64, mut f: impl FnMut(&Frame)) {
        match self.entries.get(&addr) {
            None => f(&Frame {
                symbol: hex_key(addr).into(),
                location: None,
            }),
            Some(SymbolEntry::Single(frame)) => f(frame),
            Some(SymbolEntry::Inline(slots)) => slots.iter().rev().flatten().for_each(f),
        }
    }

    /// Leaf-first frames of a leaf-first call chain.
    pub fn symbolize(&self, chain: &[u64]) -> Vec<Frame> {
        let mut out = Vec::with_capacity(chain.len());
        for &addr in chain {
            self.for_each_frame(addr, |f| out.push(f.clone()));
        }
        out
    }
}
