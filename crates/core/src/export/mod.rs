//! Traces in other tools' formats, written into any `std::io::Write` as they
//! are produced (never a whole document in memory).
//!
//! `chrome`: the Chrome Trace Event Format (JSON), which Perfetto UI and
//! chrome://tracing open. `markdown` and `html`: a report for a ticket, or as
//! one file that opens with no server.

pub mod chrome;
pub mod html;
pub mod markdown;
