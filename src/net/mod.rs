//! Requests to S3 from either thread: [`fetch`] sends a core request,
//! [`client`] takes it through the core's exchange (retries, fixes), and
//! [`cache`] keeps downloaded segments in Cache Storage.

pub mod cache;
pub mod client;
pub mod fetch;
