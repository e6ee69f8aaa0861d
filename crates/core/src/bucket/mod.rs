//! dial9's bucket model, over the S3 protocol of [`crate::s3`]: what the keys
//! of a trace bucket mean and how to find them.
//!
//! - [`layout`]: dial9's object-key layouts (`version=1/date=…/service=…`, legacy).
//! - [`listing_plan`]: the walk of delimiter listings that finds a bucket's keys,
//!   partition by partition, several at once, within caps.
//! - [`scope`]: what a walk covers (everything, the bucket's shape, a time
//!   window) and what it learns of the shape.
//! - [`walk`]: a listing plan and the catalog it fills, as both shells drive it.
//! - [`catalog`]: what the bucket holds according to its keys (services, hosts,
//!   boots, segment spans, density) and selections of its segments.
//! - [`find`]: hosts, boots and keys found by a piece of their names.
//! - [`sample`]: samples that spread over hosts and time, and what they cover.
//! - [`spec`]: shareable choices of segments, resolved against a catalog.
//! - [`link`]: the bucket, selection and view a shared link carries.
//! - [`cached`]: the segment cache's identity of one version of one object.

pub mod cached;
pub mod catalog;
pub mod find;
pub mod layout;
pub mod link;
pub mod listing_plan;
pub mod sample;
pub mod scope;
pub mod spec;
pub mod walk;
