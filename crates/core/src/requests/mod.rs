//! Requests: what the application did, instance by instance, beside the
//! runtime's polls. Spans with their fields, parents and time splits,
//! samples and task dumps by task, custom events: built per file in the
//! worker (`build`, as a `FileDetail`), kept for a run within a budget, and
//! asked questions of (the span explorer, slow versus typical, where tasks
//! wait, events) on the page and by the CLI alike.

pub mod build;
pub mod detail;
pub mod events;
pub mod explore;
pub mod filter;
pub mod kept;
pub mod parents;
pub mod profiles;
pub mod query;
pub mod render;
pub mod slow;
pub mod split;
