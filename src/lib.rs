//! d9lens web: one static page that analyzes dial9 Tokio runtime traces in the
//! browser. The page (`d9lens-web` binary) only merges partial results and
//! renders; gunzip, decoding and analysis run in Web Workers (`worker` binary).
//!
//! - [`page`]: the page's thread (Leptos components, the worker pool, signing).
//! - [`worker`]: a worker's thread (analysis, downloads, the bucket catalog).
//! - Both: [`protocol`] (what they tell each other), [`net`] (requests to S3
//!   through the core's exchange, the segment cache), [`clock`].

pub mod clock;
pub mod net;
pub mod page;
pub mod protocol;
pub mod worker;

/// Entry point of the page binary.
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(page::app::App);
}
