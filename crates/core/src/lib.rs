//! d9lens core: everything d9lens knows, as pure functions and data.
//!
//! No web-sys, no network, no clocks: the web shell and the CLI hand bytes in
//! and execute the request values that come out. See `ARCHITECTURE.md`.

pub mod analysis;
pub mod bucket;
pub mod civil;
pub mod compare;
pub mod container;
pub mod export;
pub mod fleet;
pub mod fmt;
pub mod frames;
pub mod hashing;
pub mod hdr;
pub mod inflate;
pub mod parallel;
pub mod profile;
pub mod report;
pub mod requests;
pub mod run;
pub mod s3;
pub mod site;
pub mod timeline;
pub mod trace;
