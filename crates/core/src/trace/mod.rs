//! Trace decoding: bytes → a typed, per-file `ParsedTrace`, on the official
//! `dial9-trace-format` decoder. Event types are keyed by schema name (type
//! ids are per sub-stream and get reused).

mod app;
mod bad_time;
mod clip;
mod decode;
mod fields;
mod model;
mod spans;
mod split;
mod strings;
mod symbols;
mod texts;
mod time_order;

pub use app::*;
pub use clip::Window;
pub use decode::{
    DEFAULT_MAX_DECODED_BYTES, DecodeFailure, STREAM_HEADER, TraceParser, parse_trace, parse_trace_within,
};
pub use model::*;
pub use spans::{Span, Spans, build_spans};
pub use split::{TracePart, find_cut, find_cut_in};
pub use strings::{MAX_STRING_BYTES, StrId};
pub use symbols::{CUT_FRAMES, MAX_STACK_FRAMES, SymbolEntry, SymbolTable};
pub(crate) use symbols::{cut_frame, push_capped};
