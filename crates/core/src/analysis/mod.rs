//! Analysis: one trace file → a `Partial`; partials merge (any order in,
//! same report out) into a `Report`.

mod options;
mod partial;
mod merge;

pub use merge::Merger;
pub use options::Options;
pub use partial::{FileOutcome, Partial, analyze_file};
