//! d9lens web: one static page that analyzes dial9 Tokio runtime traces in the
//! browser. The page (`d9lens-web` binary) only merges partial results and
//! renders; gunzip, decoding and analysis run in Web Workers (`worker` binary).

pub mod app;
pub mod assets;
pub mod cache;
pub mod canvas;
pub mod clock;
pub mod discovery;
pub mod download;
pub mod drop_zone;
pub mod errors;
pub mod flame;
pub mod frame_text;
pub mod progress;
pub mod protocol;
pub mod report;
pub mod retrieval;
pub mod s3;
pub mod session;
pub mod site;
pub mod timeline;
pub mod units;
pub mod url_state;
pub mod warm_up;
pub mod worker;
pub mod worker_pool;

/// Entry point of the page binary.
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::App);
}
