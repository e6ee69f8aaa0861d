//! S3 client, sans-IO: requests are values, responses are bytes.
//!
//! - [`sigv4`]: AWS Signature V4 (header signing and presigned URLs); the time is an input.
//! - [`request`]: where a bucket is ([`S3Config`]) and its ListObjectsV2 / GetObject requests;
//!   an [`Account`] is the service without a bucket.
//! - [`buckets`]: ListBuckets, page by page ([`BucketListing`]).
//! - [`sts`]: STS AssumeRole request and response.
//! - [`listing`]: ListObjectsV2 XML into a [`ListPage`].
//! - [`error`]: error answers (and network failures) into an actionable [`S3Error`].
//! - [`exchange`]: one request's attempts (retries, region and clock fixes, deadline),
//!   the policy both shells drive.
//! - [`credentials`]: [`Credentials`] and parsing of pasted credential text.
//! - [`regions`]: AWS regions and the S3/STS hosts the page's CSP allows.
//! - [`served_from`]: the bucket a page is served from, by the page's own address.
//! - [`cors`], [`retry`], [`time`], [`encode`]: the CORS rule to show, the backoff
//!   schedule, time values, SigV4 percent-encoding.
//!
//! dial9's bucket model (key layouts, the walk of listings, the catalog) is
//! [`crate::bucket`], above this module.

pub mod buckets;
pub mod cors;
pub mod credentials;
pub mod encode;
pub mod error;
pub mod exchange;
pub mod link_endpoint;
pub mod listing;
pub mod regions;
pub mod request;
pub mod retry;
pub mod served_from;
pub mod sigv4;
pub mod sts;
pub mod time;
mod xml;

pub use buckets::{BucketEntry, BucketListing, BucketsError};
pub use cors::{cors_rule_console_json, cors_rule_json};
pub use credentials::{Credentials, CredentialsError};
pub use error::{ErrorKind, S3Error, ServiceError};
pub use exchange::{Attempt, Connection, Exchange, Step};
pub use listing::{ListError, ListPage, ObjectEntry, parse_list_page};
pub use request::{
    Account, BucketName, ByteRange, ConfigError, Endpoint, HttpRequest, ListObjectsV2, Method, Region, S3Config,
};
pub use retry::{RetryPolicy, Timeouts};
pub use sts::{AssumeRole, Mfa, StsEndpoint, assume_role_request, parse_assume_role_response};
pub use time::{SigningTime, Timestamp, clock_offset_millis};
