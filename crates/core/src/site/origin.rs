//! [`Origin`]: a web origin (`http(s)://host[:port]`) safe to write into a
//! Content-Security-Policy, a `<meta>` attribute, a CORS rule or a shell line.
//!
//! Everything the page may be told to connect to passes through here, so the type
//! refuses what could change the meaning of the text it lands in: whitespace
//! (a new CSP source), `;` and `,` (a new CSP directive or policy), quotes and `<>`
//! (out of an HTML attribute), `*` (a wildcard, not an origin), user info and
//! non-ASCII (ambiguous hosts).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::error::SiteError;
use crate::s3::request::split_host_port;

/// `scheme://host[:port]`: lower-case scheme and host, no default port, no path.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Origin(String);

impl Origin {
    /// Parses an origin, or a URL reduced to its origin (`https://h/p` gives `https://h`).
    /// Surrounding whitespace is ignored; a query, fragment or user info is refused.
    pub fn parse(input: &str) -> Result<Self, SiteError> {
        let bad = |why| SiteError::InvalidOrigin {
            input: input.to_owned(),
            why,
        };
        let url = input.trim();
        if let Some(why) = forbidden_char(url) {
            return Err(bad(why));
        }
        let (scheme, rest) = match url.split_once("://") {
            Some((s, rest)) if s.eq_ignore_ascii_case("https") => ("https", rest),
            Some((s, rest)) if s.eq_ignore_ascii_case("http") => ("http", rest),
            _ => return Err(bad("it must start with http:// or https://")),
        };
        if rest.contains(['?', '#']) {
            return Err(bad("it must not have a query or a fragment"));
        }
        let authority = rest.split('/').next().unwrap_or_default();
        if authority.contains('@') {
            return Err(bad("it must not hold user info (user@host)"));
        }
        let (host, port) = split_host_port(authority).ok_or_else(|| bad("its port is not a number from 1 to 65535"))?;
        let host = host.to_ascii_lowercase();
        if let Some(why) = host_problem(&host) {
            return Err(bad(why));
        }
        let default_port = if scheme == "https" { 443 } else { 80 };
        Ok(match port {
            Some(p) if p != default_port => Self(format!("{scheme}://{host}:{p}")),
            _ => Self(format!("{scheme}://{host}")),
        })
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for Origin {
    type Error = SiteError;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value)
    }
}

impl From<Origin> for String {
    fn from(origin: Origin) -> Self {
        origin.0
    }
}

/// Why `url` holds a character no origin (nor the path we drop) may hold.
fn forbidden_char(url: &str) -> Option<&'static str> {
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        Some("it must not contain whitespace or control characters")
    } else if url.contains(['"', '\'', '`', ';', ',', '<', '>', '\\']) {
        Some("it must not contain quotes, ';', ',', '<', '>' or '\\'")
    } else if url.contains('*') {
        Some("a wildcard is not an origin: name each host")
    } else if !url.is_ascii() {
        Some("write an internationalised host name in its xn-- form")
    } else {
        None
    }
}

/// Why a lower-cased host is not a DNS name, an IPv4 address or a bracketed IPv6 one.
fn host_problem(host: &str) -> Option<&'static str> {
    if host.is_empty() {
        return Some("it has no host");
    }
    if let Some(v6) = host.strip_prefix('[') {
        let ok = v6
            .strip_suffix(']')
            .is_some_and(|a| a.contains(':') && a.bytes().all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.'));
        return (!ok).then_some("its IPv6 address is not [hex:hex:...]");
    }
    let label_ok = |l: &str| {
        !l.is_empty() && l.len() <= 63 && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    if host.len() > 253 || !host.split('.').all(label_ok) {
        return Some("its host is not a host name (letters, digits, '-', '_' between dots)");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(s: &str) -> String {
        Origin::parse(s).unwrap_or_else(|e| panic!("{e}")).to_string()
    }

    #[test]
    fn canonical_forms() {
        assert_eq!(origin("https://minio.example.com"), "https://minio.example.com");
        assert_eq!(origin(" HTTPS://MinIO.Example.com:443/ "), "https://minio.example.com");
        assert_eq!(origin("http://127.0.0.1:9000/s3/bucket/key"), "http://127.0.0.1:9000");
        assert_eq!(origin("http://localhost:80"), "http://localhost");
        assert_eq!(origin("https://h:80"), "https://h:80");
        assert_eq!(origin("http://[::1]:9000/"), "http://[::1]:9000");
        assert_eq!(origin("http://[::1]"), "http://[::1]");
        assert_eq!(origin("https://s3_internal.corp"), "https://s3_internal.corp");
    }

    #[test]
    fn hostile_or_malformed_input_is_refused() {
        for bad in [
            "https://x; script-src *",
            "https://x;script-src",
            "https://x/;script-src",
            "https://x,https://y",
            "https://x\" onload=\"alert(1)",
            "https://x'",
            "https://x>",
            "https://x\\y",
            "https://x\ny",
            "https://*.example.com",
            "https://user:pw@x",
            "https://x?a=b",
            "https://x#f",
            "ftp://x",
            "//x",
            "x.example.com",
            "https://",
            "https:///path",
            "https://x:0",
            "https://x:65536",
            "https://x:",
            "https://x:8a",
            "https://x..y",
            "https://x.",
            "https://bücher.example",
            "https://[zz::1]",
            "https://[::1",
        ] {
            assert!(Origin::parse(bad).is_err(), "{bad:?} was accepted");
        }
        let err = Origin::parse("https://x; script-src *").unwrap_err().to_string();
        assert!(err.contains("whitespace"), "{err}");
    }

    #[test]
    fn serializes_as_its_text_and_validates_when_read() {
        let o = Origin::parse("https://a.example").unwrap();
        assert_eq!(serde_json::to_string(&o).unwrap(), "\"https://a.example\"");
        assert_eq!(serde_json::from_str::<Origin>("\"HTTPS://A.example/\"").unwrap(), o);
        assert!(serde_json::from_str::<Origin>("\"https://a;b\"").is_err());
    }
}
