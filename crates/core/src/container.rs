//! Trace containers: raw `TRC\0` streams or (multi-member) gzip, told apart by
//! content, never by file name.

/// Far above real segments (the demo trace inflates to 12.3 MB).
pub const DEFAULT_MAX_INFLATED_BYTES: usize = 1 << 30;
