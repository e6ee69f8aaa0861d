//! The distinct strings of one trace, interned: names, spawn locations,
//! field values.

use hashbrown::HashTable;
use std::num::NonZeroU32;

/// An interned string of one trace (spawn locations, span names). Non-zero so
/// that `Option<StrId>` stays 4 bytes in the per-event records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StrId(NonZeroU32);

/// `s` within `MAX_STRING_BYTES`, cut on a character boundary with "…".
pub(crate) fn cut(s: &str) -> std::borrow::Cow<'_, str> {
    const ELLIPSIS: &str = "…";
    if s.len() <= MAX_STRING_BYTES {
        return s.into();
    }
    let mut end = MAX_STRING_BYTES - ELLIPSIS.len();
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{ELLIPSIS}", &s[..end]).into()
}

/// Longer trace strings (names, spawn locations) are cut to this many
/// bytes, ending in "…": no report or timeline row shows more, and one
/// string of a hostile file cannot be most of its memory.
pub const MAX_STRING_BYTES: usize = 4096;

/// The distinct strings of one trace, each stored once (its index is its
/// id), back to back in one buffer: a trace names tens of thousands of
/// distinct values (request ids), and a box each cost an allocation to make
/// and one to free, and more memory than the text.
#[derive(Clone, Default)]
pub struct Strings {
    text: String,
    /// String `i` is `text[ends[i - 1]..ends[i]]` (from 0 for the first).
    ends: Vec<usize>,
    /// Each string's index, found by its text.
    index: HashTable<u32>,
    hasher: ahash::RandomState,
}

impl std::fmt::Debug for Strings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries((0..self.len()).map(|i| self.at(i))).finish()
    }
}

impl Strings {
    pub fn intern(&mut self, s: &str) -> StrId {
        let s = cut(s);
        let hash = self.hasher.hash_one(s.as_ref());
        let Strings {
            text,
            ends,
            index,
            hasher,
        } = self;
        let i = match index.find(hash, |&i| nth(text, ends, i as usize) == s.as_ref()) {
            Some(&i) => i,
            None => {
                let i = ends.len() as u32;
                text.push_str(&s);
                ends.push(text.len());
                index.insert_unique(hash, i, |&i| hasher.hash_one(nth(text, ends, i as usize)));
                i
            }
        };
        StrId(NonZeroU32::MIN.saturating_add(i))
    }

    /// Bytes of text held.
    pub fn bytes(&self) -> usize {
        self.text.len()
    }

    pub fn get(&self, id: StrId) -> &str {
        self.at(Self::index(id))
    }

    fn at(&self, i: usize) -> &str {
        nth(&self.text, &self.ends, i)
    }

    /// How many distinct strings (ids are `0..len`, in first-intern order).
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn index(id: StrId) -> usize {
        id.0.get() as usize - 1
    }

    /// Interns every string of `later` (in its order, so ids come out as if
    /// one table had seen both) and says what each of its ids became.
    pub(super) fn absorb(&mut self, later: &Strings) -> StrRemap {
        StrRemap((0..later.len()).map(|i| self.intern(later.at(i))).collect())
    }
}

/// String `i` of a buffer and its strings' ends.
fn nth<'a>(text: &'a str, ends: &[usize], i: usize) -> &'a str {
    &text[i.checked_sub(1).map_or(0, |p| ends[p])..ends[i]]
}

/// Ids of one string table → ids of the table that absorbed it.
pub(super) struct StrRemap(Vec<StrId>);

impl StrRemap {
    pub(super) fn get(&self, id: StrId) -> StrId {
        self.0[Strings::index(id)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_strings_are_cut_on_a_character_boundary() {
        let mut strings = Strings::default();
        // Two-byte characters, so the cut point falls inside one.
        let long = "é".repeat(1 << 20);
        let id = strings.intern(&long);
        let kept = strings.get(id).to_owned();
        assert!(kept.len() <= MAX_STRING_BYTES && kept.ends_with('…'), "{}", kept.len());
        assert!(kept.trim_end_matches('…').chars().all(|c| c == 'é'));
        // The same long string again is the same entry; memory counts what is kept.
        assert_eq!(strings.intern(&long), id);
        assert_eq!(strings.bytes(), kept.len());
        let short = strings.intern("main.rs:1:1");
        assert_eq!(strings.get(short), "main.rs:1:1");
    }
}
