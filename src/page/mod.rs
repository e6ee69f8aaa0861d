//! The page's thread: the Leptos components, the worker pool it feeds, and
//! everything that holds credentials (they never reach a worker: workers get
//! presigned URLs).

pub mod app;
pub mod assets;
pub mod canvas;
pub mod chunks;
pub mod discovery;
pub mod download;
pub mod drop_zone;
pub mod errors;
pub mod flame;
pub mod frame_text;
pub mod progress;
pub mod report;
pub mod retrieval;
pub mod s3;
pub mod session;
pub mod site;
pub mod timeline;
pub mod units;
pub mod url_state;
pub mod warm_up;
pub mod worker_pool;
