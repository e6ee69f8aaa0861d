//! Everything that can be wrong with a site deploy's inputs, named so a person can
//! fix it.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SiteError {
    /// An `--allow-endpoint` / CORS origin that is not `http(s)://host[:port]`.
    InvalidOrigin { input: String, why: &'static str },
    /// A key prefix with an empty, `.` or `..` component, or control characters.
    InvalidPrefix { input: String, why: &'static str },
    /// A file of the built site whose path cannot become an object key.
    InvalidPath { path: String, why: &'static str },
    /// The built site has no `index.html` at its root.
    MissingIndex,
    /// The same path twice in the built site.
    DuplicatePath(String),
    /// A built file would overwrite the deploy manifest.
    ManifestCollision(String),
    /// The key is longer than S3's 1024-byte limit.
    KeyTooLong(String),
    /// The previous deploy's manifest does not parse, or has a version this build
    /// does not know.
    BadManifest(String),
    /// `index.html` has no `<meta http-equiv="Content-Security-Policy">`.
    MissingCsp,
    /// The CSP meta has no `content="..."` this code can edit.
    UneditableCsp(&'static str),
    /// The CSP has no `connect-src` directive to extend.
    MissingConnectSrc,
    /// Characters an IAM policy reads as wildcards or variables.
    PolicyWildcard(String),
}

impl fmt::Display for SiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidOrigin { input, why } => write!(f, "{input:?} is not an origin: {why}"),
            Self::InvalidPrefix { input, why } => write!(f, "invalid key prefix {input:?}: {why}"),
            Self::InvalidPath { path, why } => write!(f, "{path:?} cannot be an object key: {why}"),
            Self::MissingIndex => f.write_str("the site has no index.html at its root"),
            Self::DuplicatePath(p) => write!(f, "{p:?} is listed twice"),
            Self::ManifestCollision(p) => write!(f, "{p:?} has the name of d9lens's deploy manifest"),
            Self::KeyTooLong(k) => write!(f, "the key {k:?} is longer than S3's 1024 bytes"),
            Self::BadManifest(why) => write!(f, "the previous deploy's manifest is unreadable: {why}"),
            Self::MissingCsp => f.write_str(
                "index.html has no <meta http-equiv=\"Content-Security-Policy\" content=\"...\">: \
                 is it d9lens's page?",
            ),
            Self::UneditableCsp(why) => write!(f, "index.html's Content-Security-Policy meta {why}"),
            Self::MissingConnectSrc => {
                f.write_str("index.html's Content-Security-Policy has no connect-src directive to add endpoints to")
            }
            Self::PolicyWildcard(s) => {
                write!(
                    f,
                    "{s:?} contains '*', '?' or '$', which an IAM policy reads as wildcards or variables"
                )
            }
        }
    }
}

impl std::error::Error for SiteError {}
