//! Publishing the page itself to S3 (`d9lens deploy`), sans-IO like the rest of
//! the core: the shell reads the built files and sends the requests; everything
//! decided about them is here.
//!
//! - [`path`]: the key [`Prefix`] and each file's [`SitePath`] under it.
//! - [`content`]: `Content-Type` and [`CacheControl`] per file.
//! - [`manifest`]: the record of a deploy's keys, which makes deleting stale files
//!   safe.
//! - [`plan`]: files + previous manifest → the ordered uploads and deletes.
//! - [`url`]: where the deployed page opens.
//! - [`origin`], [`csp`]: the S3 endpoints a deployed page may connect to, written
//!   into its Content-Security-Policy and its `d9lens-endpoints` meta.
//! - [`policy`]: the IAM policy of the page's readers (the CORS rule is
//!   [`crate::s3::cors`]).

pub mod content;
pub mod csp;
pub mod error;
mod html;
pub mod manifest;
pub mod origin;
pub mod path;
pub mod plan;
pub mod policy;
pub mod url;

pub use content::{CacheControl, content_type, is_content_hashed};
pub use csp::{
    ENDPOINTS_META_NAME, LOOPBACK_SOURCES, allow_endpoints, allow_loopback, endpoints_from_meta, endpoints_in_html,
};
pub use error::SiteError;
pub use manifest::{Manifest, ManifestEntry, Sha256Hex};
pub use origin::Origin;
pub use path::{MANIFEST_NAME, Prefix, SitePath};
pub use plan::{DeployPlan, DistFile, PreviousDeploy, Step, Upload, Warning, plan_deploy};
pub use policy::reader_policy_json;
pub use url::site_url;
