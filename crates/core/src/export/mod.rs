//! Traces in other tools' formats, written into any `std::io::Write` as they
//! are produced (never a whole document in memory).
//!
//! `chrome`: the Chrome Trace Event Format (JSON), which Perfetto UI and
//! chrome://tracing open.

pub mod chrome;
