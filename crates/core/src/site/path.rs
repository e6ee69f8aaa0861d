//! Where the site's files go: the key [`Prefix`] and the [`SitePath`] of each file
//! under it. An object key is always `prefix + path`, both validated, so a deploy
//! never writes (or deletes) outside its prefix.

use std::fmt;

use super::error::SiteError;

/// The name of the deploy manifest under the prefix (see [`super::manifest`]).
pub const MANIFEST_NAME: &str = ".d9lens-deploy.json";

/// S3's limit on a key's length, in bytes.
pub const MAX_KEY_BYTES: usize = 1024;

/// A key prefix: empty (the bucket's root) or `/`-separated components ending with
/// `/`, none of them empty, `.` or `..`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Prefix(String);

impl Prefix {
    /// `""` is the root; `site` and `site/` both give `site/`.
    pub fn new(input: &str) -> Result<Self, SiteError> {
        if input.is_empty() {
            return Ok(Self::default());
        }
        let body = input.strip_suffix('/').unwrap_or(input);
        if let Some(why) = body.split('/').find_map(component_problem) {
            return Err(SiteError::InvalidPrefix {
                input: input.to_owned(),
                why,
            });
        }
        Ok(Self(format!("{body}/")))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// The object key of a file of the site.
    pub fn key(&self, path: &SitePath) -> String {
        format!("{}{}", self.0, path.0)
    }

    /// The key of the deploy manifest.
    pub fn manifest_key(&self) -> String {
        format!("{}{MANIFEST_NAME}", self.0)
    }

    /// The site path of `key` when it is a file under this prefix (a key outside it,
    /// or one whose rest is no valid path, gives `None`).
    pub fn path_of(&self, key: &str) -> Option<SitePath> {
        SitePath::new(key.strip_prefix(self.0.as_str())?).ok()
    }
}

impl fmt::Display for Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A file's path relative to the site's root, `/`-separated: `index.html`,
/// `assets/logo.svg`. No empty, `.` or `..` component, no `\` or control character.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SitePath(String);

impl SitePath {
    pub fn new(path: &str) -> Result<Self, SiteError> {
        let bad = |why| SiteError::InvalidPath {
            path: path.to_owned(),
            why,
        };
        if path.contains('\\') {
            return Err(bad("use '/' to separate directories"));
        }
        match path.split('/').find_map(component_problem) {
            Some(why) => Err(bad(why)),
            None => Ok(Self(path.to_owned())),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The last component: `logo.svg` for `assets/logo.svg`.
    pub fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or(&self.0)
    }

    /// The site's entry point, `index.html` at the root.
    pub fn is_root_index(&self) -> bool {
        self.0 == "index.html"
    }
}

impl fmt::Display for SitePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why one `/`-separated component cannot be part of a key or path.
fn component_problem(component: &str) -> Option<&'static str> {
    match component {
        "" => Some("it has an empty component (a leading, trailing or doubled '/')"),
        "." | ".." => Some("it has a '.' or '..' component"),
        c if c.chars().any(char::is_control) => Some("it has control characters"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_end_with_a_slash_or_are_empty() {
        assert_eq!(Prefix::new("").unwrap().as_str(), "");
        assert!(Prefix::new("").unwrap().is_root());
        assert_eq!(Prefix::new("site").unwrap().as_str(), "site/");
        assert_eq!(Prefix::new("tools/d9lens/").unwrap().as_str(), "tools/d9lens/");
        for bad in ["/", "//", "/site", "a//b", "a/../b", "./a", "..", "a/.", "a\u{0}b"] {
            assert!(Prefix::new(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn paths_are_relative_and_clean() {
        let p = SitePath::new("assets/logo.svg").unwrap();
        assert_eq!(p.file_name(), "logo.svg");
        assert!(!p.is_root_index());
        assert!(SitePath::new("index.html").unwrap().is_root_index());
        assert!(!SitePath::new("docs/index.html").unwrap().is_root_index());
        for bad in ["", "/index.html", "a//b", "../x", "a/./b", "a/", "a\\b", "a\tb\u{7}"] {
            assert!(SitePath::new(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn keys_join_prefix_and_path() {
        let prefix = Prefix::new("site").unwrap();
        let path = SitePath::new("a/b.js").unwrap();
        assert_eq!(prefix.key(&path), "site/a/b.js");
        assert_eq!(prefix.manifest_key(), "site/.d9lens-deploy.json");
        assert_eq!(Prefix::default().manifest_key(), ".d9lens-deploy.json");
        assert_eq!(prefix.path_of("site/a/b.js"), Some(path));
        assert_eq!(prefix.path_of("other/a/b.js"), None);
        assert_eq!(prefix.path_of("site/../x"), None);
        assert_eq!(prefix.path_of("site/"), None);
    }
}
