//! Hash maps keyed by trace data. ahash is fast on integer keys (the std
//! SipHash showed up in profiles) and randomly seeded, so crafted task ids
//! cannot make a map quadratic. Output never follows a hash map's iteration
//! order: ordered output uses `FastIndexMap` (insertion order) or sorts.

pub type FastMap<K, V> = std::collections::HashMap<K, V, ahash::RandomState>;
pub type FastSet<K> = std::collections::HashSet<K, ahash::RandomState>;
pub type FastIndexMap<K, V> = indexmap::IndexMap<K, V, ahash::RandomState>;
pub type FastIndexSet<K> = indexmap::IndexSet<K, ahash::RandomState>;
