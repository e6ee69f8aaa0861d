//! Field values as interned text, with each sub-stream's pooled strings
//! remembered: span fields and event values name the same pooled strings
//! hundreds of thousands of times, and a pool id is cheaper to look up than
//! its text.

use super::app::Value;
use super::fields::Fields;
use super::strings::{StrId, Strings, cut};
use crate::hashing::FastMap;
use dial9_trace_format::types::{FieldValueRef, InternedString};
use std::borrow::Cow;

#[derive(Default)]
pub(super) struct Texts {
    /// The pool ids of the current sub-stream already interned. dial9's
    /// writer defines an id once per stream; a crafted file that redefines
    /// one keeps its first text here, text it wrote either way.
    pooled: Pooled,
}

/// Pool id → interned text. The writer numbers a stream's strings from
/// zero, so the ids are dense and an array beats hashing them. The array
/// grows only near its end (a crafted id far beyond goes to a map), so its
/// size follows the ids a stream used, not their values.
#[derive(Default)]
struct Pooled {
    dense: Vec<Option<StrId>>,
    sparse: FastMap<InternedString, StrId>,
}

impl Pooled {
    fn get(&self, id: &InternedString) -> Option<StrId> {
        match self.dense.get(id.raw_id() as usize) {
            Some(&Some(s)) => Some(s),
            _ => self.sparse.get(id).copied(),
        }
    }

    fn insert(&mut self, id: InternedString, s: StrId) {
        let i = id.raw_id() as usize;
        if i < 2 * self.dense.len() + 1024 {
            if self.dense.len() <= i {
                self.dense.resize(i + 1, None);
            }
            self.dense[i] = Some(s);
        } else {
            self.sparse.insert(id, s);
        }
    }

    fn clear(&mut self) {
        self.dense.clear();
        self.sparse.clear();
    }
}

impl Texts {
    /// A new sub-stream: its pool starts empty.
    pub(super) fn new_stream(&mut self) {
        self.pooled.clear();
    }

    /// A string value, interned (`None` for other kinds).
    pub(super) fn string(
        &mut self,
        f: &Fields<'_, '_, '_>,
        v: &FieldValueRef<'_>,
        strings: &mut Strings,
    ) -> Option<StrId> {
        match v {
            FieldValueRef::PooledString(id) => {
                if let Some(s) = self.pooled.get(id) {
                    return Some(s);
                }
                // An id not (yet) in the pool is shown as such, never remembered.
                let Some(text) = f.ev.string_pool.get(*id) else {
                    return Some(strings.intern(&f.text(v)?));
                };
                let s = strings.intern(text);
                self.pooled.insert(*id, s);
                Some(s)
            }
            v => Some(strings.intern(&f.text(v)?)),
        }
    }

    /// A field's value as text, as dial9's viewer shows it (`String(v)`), interned.
    pub(super) fn shown(
        &mut self,
        f: &Fields<'_, '_, '_>,
        v: &FieldValueRef<'_>,
        strings: &mut Strings,
    ) -> Option<StrId> {
        match Value::scalar(v).and_then(Value::scalar_text) {
            Some(text) => Some(strings.intern(&text)),
            None => self.string(f, v, strings),
        }
    }

    /// Whether `v` shows as the text `id` holds, without interning it.
    pub(super) fn shows_as(
        &self,
        f: &Fields<'_, '_, '_>,
        v: &FieldValueRef<'_>,
        id: StrId,
        strings: &Strings,
    ) -> Option<bool> {
        if let FieldValueRef::PooledString(p) = v
            && let Some(s) = self.pooled.get(p)
        {
            return Some(s == id);
        }
        let text: Cow<'_, str> = match Value::scalar(v).and_then(Value::scalar_text) {
            Some(text) => text.into(),
            None => f.text(v)?,
        };
        Some(strings.get(id) == cut(&text))
    }
}
