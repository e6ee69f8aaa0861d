//! S3 client, sans-IO: requests are values, responses are bytes.
//!
//! - [`sigv4`]: AWS Signature V4 (header signing and presigned URLs); the time is an input.
//! - [`request`]: where a bucket is ([`S3Config`]) and its ListObjectsV2 / GetObject requests.
//! - [`sts`]: STS AssumeRole request and response.
//! - [`listing`]: ListObjectsV2 XML into a [`ListPage`].
//! - [`error`]: error answers (and network failures) into an actionable [`S3Error`].
//! - [`credentials`]: [`Credentials`] and parsing of pasted credential text.
//! - [`regions`]: AWS regions and the S3/STS hosts the page's CSP allows.
//! - [`served_from`]: the bucket a page is served from, by the page's own address.
//! - [`cors`], [`retry`], [`time`], [`encode`]: the CORS rule to show, the backoff
//!   schedule, time values, SigV4 percent-encoding.
//! - [`layout`], [`listing_plan`], [`catalog`], [`spec`]: dial9's object-key layouts,
//!   the walk of listings that finds a bucket's keys, what the bucket holds according
//!   to them, and shareable choices of its segments.

pub mod cached;
pub mod catalog;
pub mod cors;
pub mod credentials;
pub mod encode;
pub mod error;
pub mod layout;
pub mod link_endpoint;
pub mod listing;
pub mod listing_plan;
pub mod regions;
pub mod request;
pub mod retry;
pub mod served_from;
pub mod sigv4;
pub mod spec;
pub mod sts;
pub mod time;
mod xml;

pub use cors::{cors_rule_console_json, cors_rule_json};
pub use credentials::{Credentials, CredentialsError};
pub use error::{ErrorKind, S3Error, ServiceError};
pub use listing::{ListError, ListPage, ObjectEntry, parse_list_page};
pub use request::{BucketName, ByteRange, ConfigError, Endpoint, HttpRequest, ListObjectsV2, Method, Region, S3Config};
pub use retry::{Attempts, RetryPolicy, Timeouts, backoff_delay};
pub use sts::{AssumeRole, Mfa, StsEndpoint, assume_role_request, parse_assume_role_response};
pub use time::{SigningTime, Timestamp, clock_offset_millis};
