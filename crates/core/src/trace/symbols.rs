//! The in-trace symbol table (`SymbolTableEntry` events) and call-chain
//! symbolization, with inline frames expanded deepest-first.
//!
//! Both are bounded by what the file holds, never by the numbers in it: an
//! address keeps only the inline depths the file names (a depth of 1,023
//! costs one entry, not 1,024 slots), and a chain expands to at most
//! [`MAX_STACK_FRAMES`] frames (a few addresses named at every depth, in a
//! long chain, would otherwise expand to tens of millions).

use crate::frames::Frame;
use std::collections::HashMap;

/// The most frames one stack keeps, leaf first: far deeper than real Rust
/// stacks with their inline frames, which the flamegraphs still draw. Deeper
/// stacks lose their outermost frames to one [`CUT_FRAMES`] frame.
pub const MAX_STACK_FRAMES: usize = 4096;

/// The frame that stands for the outermost frames of a stack cut at [`MAX_STACK_FRAMES`].
pub const CUT_FRAMES: &str = "[outer frames cut: stack deeper than 4096 frames]";

pub(crate) fn cut_frame() -> Frame {
    Frame {
        symbol: CUT_FRAMES.into(),
        location: None,
    }
}

/// Appends one address's frames to a leaf-first stack, unless that would
/// pass [`MAX_STACK_FRAMES`]: then the stack keeps its first frames, ends in
/// `cut()`, and `false` says to stop.
pub(crate) fn push_capped<T: Clone>(stack: &mut Vec<T>, frames: &[T], cut: impl FnOnce() -> T) -> bool {
    if stack.len() + frames.len() <= MAX_STACK_FRAMES {
        stack.extend_from_slice(frames);
        return true;
    }
    stack.truncate(MAX_STACK_FRAMES - 1);
    let room = MAX_STACK_FRAMES - 1 - stack.len();
    stack.extend_from_slice(&frames[..room]);
    stack.push(cut());
    false
}

#[derive(Debug, Clone)]
pub enum SymbolEntry {
    /// Only the owning function (inline depth 0) is known.
    Single(Frame),
    /// The depths named, ascending; depth 0 (the owning function) is first.
    Inline(Vec<(u16, Frame)>),
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
                SymbolEntry::Inline(slots) => slots.first().is_some_and(|(_, f)| f.location.is_some()),
            })
            .count()
    }

    /// Names `addr` at inline `depth` (the decoder drops depths past any real inlining).
    pub fn insert(&mut self, addr: u64, depth: u16, frame: Frame) {
        let entry = self.entries.remove(&addr);
        let updated = match (entry, depth) {
            (None | Some(SymbolEntry::Single(_)), 0) => SymbolEntry::Single(frame),
            (Some(SymbolEntry::Inline(mut slots)), _) => {
                match slots.binary_search_by_key(&depth, |s| s.0) {
                    Ok(i) => slots[i].1 = frame,
                    Err(i) => slots.insert(i, (depth, frame)),
                }
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
                SymbolEntry::Inline(vec![(0, base), (depth, frame)])
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
            Some(SymbolEntry::Inline(slots)) => slots.iter().rev().for_each(|(_, frame)| f(frame)),
        }
    }

    /// Leaf-first frames of a leaf-first call chain, at most [`MAX_STACK_FRAMES`].
    pub fn symbolize(&self, chain: &[u64]) -> Vec<Frame> {
        let mut out = Vec::with_capacity(chain.len().min(MAX_STACK_FRAMES));
        let mut frames = Vec::new();
        for &addr in chain {
            frames.clear();
            self.for_each_frame(addr, |f| frames.push(f.clone()));
            if !push_capped(&mut out, &frames, cut_frame) {
                break;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stack_that_fits_exactly_is_not_cut() {
        let mut stack = vec![0u32; MAX_STACK_FRAMES - 2];
        assert!(push_capped(&mut stack, &[1, 2], || 9));
        assert_eq!(stack.len(), MAX_STACK_FRAMES);
        // One frame more: the outermost give way to the cut frame.
        assert!(!push_capped(&mut stack, &[3], || 9));
        assert_eq!(stack.len(), MAX_STACK_FRAMES);
        assert_eq!(stack[MAX_STACK_FRAMES - 2..], [1, 9]);
    }
}
