//! S3 requests as values: where the bucket is, and the ListObjectsV2 / GetObject /
//! PutObject / DeleteObject requests the shell executes.
//!
//! With credentials every request is a presigned URL (signature in the query,
//! `X-Amz-SignedHeaders=host`): a browser sends it with no custom header, so a plain
//! GET needs no CORS preflight. Without credentials (a public bucket) the same URL is
//! sent unsigned.
//!
//! A ranged GET adds a `Range` header, which is not signed. The Fetch standard
//! safelists only the single-range form `bytes=N-M` (what this module sends), and only
//! newer browsers implement that; elsewhere a `Range` header triggers a CORS preflight
//! (`OPTIONS`), so the bucket's CORS rule must allow it (the rule from
//! [`cors_rule_json`](super::cors::cors_rule_json) allows every header).
//!
//! PutObject and DeleteObject (`d9lens deploy`, from the CLI only) are presigned the
//! same way. A PUT's `Content-Type` and `Cache-Control` travel as plain headers
//! outside the signature (`X-Amz-SignedHeaders=host`, payload `UNSIGNED-PAYLOAD`):
//! S3 stores them as the object's metadata and accepts them unsigned. The body
//! bytes are not part of the request value; the shell sends them with it.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::credentials::Credentials;
use super::encode::uri_encode;
use super::sigv4::{self, ExpiresIn, Payload, SignableRequest, SigningParams, SigningSettings};
use super::time::SigningTime;

/// Lifetime of the presigned URLs built here. They are fetched right away; the
/// margin covers a queue of pending requests.
pub const PRESIGN_EXPIRY: ExpiresIn = match ExpiresIn::from_secs(900) {
    Some(e) => e,
    None => panic!("900 s is a valid expiry"),
};

/// ListObjectsV2 returns at most this many keys per page.
pub const MAX_KEYS_LIMIT: u16 = 1000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Get,
    Head,
    Post,
    Put,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
        }
    }
}

/// An HTTP request for the shell to send. `headers` holds only what the shell must
/// set: never `Host` or `Content-Length` (the browser sets those itself).
#[derive(Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: Method,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
}

impl HttpRequest {
    /// True when a browser may send a CORS preflight first: a non-simple method or any
    /// header at all (even `Range`, which only newer browsers safelist).
    pub fn may_need_preflight(&self) -> bool {
        !self.headers.is_empty() || !matches!(self.method, Method::Get | Method::Head | Method::Post)
    }
}

/// Hides what a presigned URL or signed header carries: the session token and the
/// signature (together a bearer credential until the URL expires).
impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(n, v)| {
                let secret = n.eq_ignore_ascii_case("authorization") || n.eq_ignore_ascii_case("x-amz-security-token");
                (n.as_str(), if secret { "[redacted]" } else { v.as_str() })
            })
            .collect();
        f.debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("url", &redact_url(&self.url))
            .field("headers", &headers)
            .field("body", &self.body.as_ref().map(|b| b.len()))
            .finish()
    }
}

/// The URL with the values of `X-Amz-Security-Token` and `X-Amz-Signature` replaced.
pub fn redact_url(url: &str) -> String {
    let Some((base, query)) = url.split_once('?') else {
        return url.to_owned();
    };
    let params: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((k, _))
                if k.eq_ignore_ascii_case("X-Amz-Security-Token") || k.eq_ignore_ascii_case("X-Amz-Signature") =>
            {
                format!("{k}=[redacted]")
            }
            _ => pair.to_owned(),
        })
        .collect();
    format!("{base}?{}", params.join("&"))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    Http,
    Https,
}

/// Where the bucket is served.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// AWS S3's regional endpoint, virtual-hosted style
    /// (`https://{bucket}.s3.{region}.amazonaws.com/{key}`). Buckets with a `.` in
    /// their name use path style instead, since the TLS wildcard certificate does not
    /// cover them.
    Aws,
    /// An S3-compatible server (or a proxy) at a fixed URL, path style:
    /// `{base}/{bucket}/{key}`. Build with [`Endpoint::custom`].
    Custom(CustomEndpoint),
}

/// A validated custom endpoint URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CustomEndpoint {
    scheme: Scheme,
    /// `host[:port]`, without the scheme's default port: what the `Host` header holds.
    authority: String,
    /// Path prefix without a trailing `/` (empty, or e.g. `/s3`).
    base_path: String,
}

impl CustomEndpoint {
    pub fn is_https(&self) -> bool {
        self.scheme == Scheme::Https
    }

    /// `host[:port]`, lower-case, without the scheme's default port.
    pub fn authority(&self) -> &str {
        &self.authority
    }

    /// Empty, or a path such as `/s3` (no trailing `/`).
    pub fn base_path(&self) -> &str {
        &self.base_path
    }

    /// The normalised endpoint URL, e.g. `https://minio.example.com/s3`.
    pub fn url(&self) -> String {
        url(self.scheme, &self.authority, &self.base_path, "")
    }
}

/// `host[:port]` or `[v6][:port]`; `None` when the port is not 1–65535.
pub(crate) fn split_host_port(authority: &str) -> Option<(&str, Option<u16>)> {
    let (host, port) = match authority.rfind(':') {
        // The last ':' of `[v6]` alone is inside the brackets.
        Some(i) if !authority[i..].contains(']') => (&authority[..i], Some(&authority[i + 1..])),
        _ => (authority, None),
    };
    let port = match port {
        None => None,
        Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
            Some(p.parse::<u16>().ok().filter(|&n| n > 0)?)
        }
        Some(_) => return None,
    };
    Some((host, port))
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    InvalidEndpoint(String),
    InvalidBucket(String),
    InvalidRegion(String),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidEndpoint(why) => write!(f, "invalid endpoint URL: {why}"),
            Self::InvalidBucket(why) => write!(f, "invalid bucket name: {why}"),
            Self::InvalidRegion(why) => write!(f, "invalid region: {why}"),
        }
    }
}

impl std::error::Error for ConfigError {}

impl Endpoint {
    /// Parses `http(s)://host[:port][/base/path]`; query, fragment and user info are refused.
    pub fn custom(url: &str) -> Result<Self, ConfigError> {
        let bad = |why: &str| ConfigError::InvalidEndpoint(why.to_owned());
        let url = url.trim();
        let (scheme, rest) = match url.split_once("://") {
            Some((s, rest)) if s.eq_ignore_ascii_case("https") => (Scheme::Https, rest),
            Some((s, rest)) if s.eq_ignore_ascii_case("http") => (Scheme::Http, rest),
            _ => return Err(bad("it must start with http:// or https://")),
        };
        if rest.contains(['?', '#', '@']) || rest.contains(|c: char| c.is_whitespace() || c.is_control()) {
            return Err(bad(
                "it must not contain a query, a fragment, user info, whitespace or control characters",
            ));
        }
        let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
        // One host and at most one port: `h:443:443` would lose a `:443` to
        // each parse of its URL, so it would not name one endpoint.
        let Some((host, _)) = split_host_port(authority) else {
            return Err(bad("its port is not a number from 1 to 65535"));
        };
        if host.is_empty() {
            return Err(bad("it has no host"));
        }
        let bracketed = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .is_some_and(|h| !h.contains(['[', ']']));
        if host.contains([':', '[', ']']) && !bracketed {
            return Err(bad("its host holds a ':' outside an IPv6 address's brackets"));
        }
        let authority = authority.to_ascii_lowercase();
        let default_port = match scheme {
            Scheme::Http => ":80",
            Scheme::Https => ":443",
        };
        let authority = authority.strip_suffix(default_port).unwrap_or(&authority).to_owned();
        let base_path: String = path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(|s| format!("/{s}"))
            .collect();
        Ok(Endpoint::Custom(CustomEndpoint {
            scheme,
            authority,
            base_path,
        }))
    }
}

/// An S3 bucket name: 1–255 characters without `/`, whitespace or control characters
/// (AWS itself allows 3–63 of `a-z 0-9 . -`; S3-compatible servers are laxer).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BucketName(String);

impl BucketName {
    pub fn new(name: &str) -> Result<Self, ConfigError> {
        let name = name.trim();
        if name.is_empty() || name.len() > 255 {
            return Err(ConfigError::InvalidBucket("it must be 1 to 255 characters long".into()));
        }
        if name.contains(|c: char| c == '/' || c.is_whitespace() || c.is_control()) {
            return Err(ConfigError::InvalidBucket("it must not contain '/' or spaces".into()));
        }
        Ok(Self(name.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A region name such as `eu-west-1` (lower-case letters, digits, `-` and `_`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Region(String);

impl Region {
    pub fn new(name: &str) -> Result<Self, ConfigError> {
        let name = name.trim();
        let ok = !name.is_empty()
            && name.len() <= 64
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
        if ok {
            Ok(Self(name.to_owned()))
        } else {
            Err(ConfigError::InvalidRegion(format!("{name:?}")))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The ARN partition this region is in: `aws-cn`, `aws-us-gov`, else `aws`.
    pub fn partition(&self) -> &'static str {
        if self.0.starts_with("cn-") {
            "aws-cn"
        } else if self.0.starts_with("us-gov-") {
            "aws-us-gov"
        } else {
            "aws"
        }
    }

    /// The DNS suffix of AWS endpoints in this region's partition.
    pub(crate) fn aws_dns_suffix(&self) -> &'static str {
        if self.0.starts_with("cn-") {
            "amazonaws.com.cn"
        } else {
            "amazonaws.com"
        }
    }
}

/// Where and how to reach one bucket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct S3Config {
    pub endpoint: Endpoint,
    pub bucket: BucketName,
    pub region: Region,
    /// `None`: a public bucket, requests are sent unsigned.
    pub credentials: Option<Credentials>,
}

/// Inclusive byte range `first..=last` of a ranged GET.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteRange {
    first: u64,
    last: u64,
}

impl ByteRange {
    /// `None` when `first > last`.
    pub const fn new(first: u64, last: u64) -> Option<Self> {
        if first <= last {
            Some(Self { first, last })
        } else {
            None
        }
    }

    pub const fn first(self) -> u64 {
        self.first
    }

    pub const fn last(self) -> u64 {
        self.last
    }

    pub const fn len(self) -> u64 {
        self.last - self.first + 1
    }

    pub const fn is_empty(self) -> bool {
        false
    }

    /// The `Range` header value: `bytes=first-last`.
    pub fn header_value(self) -> String {
        format!("bytes={}-{}", self.first, self.last)
    }
}

/// The parameters of one ListObjectsV2 call.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListObjectsV2 {
    /// Only keys starting with this (empty: the whole bucket).
    pub prefix: String,
    /// Usually `/`: roll keys below the next delimiter up into `CommonPrefixes`.
    pub delimiter: Option<String>,
    /// `NextContinuationToken` of the previous page.
    pub continuation_token: Option<String>,
    /// Start listing after this key (first page only; S3 ignores it with a token).
    pub start_after: Option<String>,
    /// 1..=1000; `None` lets S3 use 1000. Larger values are clamped.
    pub max_keys: Option<u16>,
}

impl S3Config {
    /// A public (unsigned) bucket's config, for tests.
    #[cfg(test)]
    pub(crate) fn unsigned(endpoint: Endpoint, bucket: &str, region: &str) -> S3Config {
        S3Config {
            endpoint,
            bucket: BucketName::new(bucket).unwrap(),
            region: Region::new(region).unwrap(),
            credentials: None,
        }
    }

    /// A ListObjectsV2 request (`GET /?list-type=2&…`).
    pub fn list_objects_v2(&self, list: &ListObjectsV2, now: SigningTime) -> HttpRequest {
        let mut query = vec![("list-type".to_owned(), "2".to_owned())];
        if !list.prefix.is_empty() {
            query.push(("prefix".into(), list.prefix.clone()));
        }
        let optional = [
            ("delimiter", list.delimiter.clone()),
            ("continuation-token", list.continuation_token.clone()),
            ("start-after", list.start_after.clone()),
            (
                "max-keys",
                list.max_keys.map(|n| n.clamp(1, MAX_KEYS_LIMIT).to_string()),
            ),
        ];
        query.extend(optional.into_iter().filter_map(|(k, v)| Some((k.to_owned(), v?))));
        self.presigned(Method::Get, None, query, Vec::new(), now)
    }

    /// A GetObject request, optionally for a byte range (see the module docs about
    /// `Range` and CORS preflights).
    pub fn get_object(&self, key: &str, range: Option<ByteRange>, now: SigningTime) -> HttpRequest {
        let headers = range
            .map(|r| vec![("Range".to_owned(), r.header_value())])
            .unwrap_or_default();
        self.presigned(Method::Get, Some(key), Vec::new(), headers, now)
    }

    /// A PutObject request; the shell sends the object's bytes as the body. The
    /// headers are S3's object metadata, sent unsigned (see the module docs).
    pub fn put_object(&self, key: &str, content_type: &str, cache_control: &str, now: SigningTime) -> HttpRequest {
        let headers = vec![
            ("Content-Type".to_owned(), content_type.to_owned()),
            ("Cache-Control".to_owned(), cache_control.to_owned()),
        ];
        self.presigned(Method::Put, Some(key), Vec::new(), headers, now)
    }

    /// A DeleteObject request (S3 answers 204 whether or not the key existed).
    pub fn delete_object(&self, key: &str, now: SigningTime) -> HttpRequest {
        self.presigned(Method::Delete, Some(key), Vec::new(), Vec::new(), now)
    }

    /// The plain, unsigned URL of an object: what a browser opens when the bucket
    /// (or the object) is publicly readable. Same host and path style as the
    /// requests above.
    pub fn object_url(&self, key: &str) -> String {
        let (scheme, host, path) = self.locate(Some(key));
        url(scheme, &host, &path, "")
    }

    /// The URL path (encoded) and host for `key` (`None`: the bucket itself).
    fn locate(&self, key: Option<&str>) -> (Scheme, String, String) {
        let bucket = self.bucket.as_str();
        // Path style: `/bucket` for the bucket, `/bucket/key` for an object.
        let path_style = |base: &str| match key {
            None => format!("{base}/{}", uri_encode(bucket, false)),
            Some(k) => format!("{base}/{}/{}", uri_encode(bucket, false), uri_encode(k, true)),
        };
        match &self.endpoint {
            Endpoint::Aws => {
                let regional = format!("s3.{}.{}", self.region.as_str(), self.region.aws_dns_suffix());
                if bucket.contains('.') {
                    (Scheme::Https, regional, path_style(""))
                } else {
                    let path = format!("/{}", key.map_or(String::new(), |k| uri_encode(k, true)));
                    (Scheme::Https, format!("{bucket}.{regional}"), path)
                }
            }
            Endpoint::Custom(c) => (c.scheme, c.authority.clone(), path_style(&c.base_path)),
        }
    }

    /// The request, presigned when there are credentials (only `host` is signed).
    fn presigned(
        &self,
        method: Method,
        key: Option<&str>,
        query: Vec<(String, String)>,
        headers: Vec<(String, String)>,
        now: SigningTime,
    ) -> HttpRequest {
        let place = self.locate(key);
        let signer = self.credentials.as_ref().map(|c| (c, &self.region));
        presigned(method, place, query, headers, signer, now)
    }
}

/// An account's S3 service without a bucket: what ListBuckets needs (see
/// [`super::buckets`]), and a bucket's [`S3Config`] once one is named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub endpoint: Endpoint,
    pub region: Region,
    /// `None`: requests are sent unsigned.
    pub credentials: Option<Credentials>,
}

impl Account {
    /// The configuration of `bucket` in this account.
    pub fn bucket(self, bucket: BucketName) -> S3Config {
        S3Config {
            endpoint: self.endpoint,
            bucket,
            region: self.region,
            credentials: self.credentials,
        }
    }

    /// The service's own URL parts: `s3.{region}.amazonaws.com/`, or the custom
    /// endpoint's base path.
    pub(crate) fn locate(&self) -> (Scheme, String, String) {
        match &self.endpoint {
            Endpoint::Aws => {
                let host = format!("s3.{}.{}", self.region.as_str(), self.region.aws_dns_suffix());
                (Scheme::Https, host, "/".to_owned())
            }
            Endpoint::Custom(c) => (c.scheme, c.authority.clone(), format!("{}/", c.base_path)),
        }
    }
}

/// A request to `place` (scheme, host, encoded path), presigned by `signer`
/// (credentials and the region to sign for) when there is one.
pub(crate) fn presigned(
    method: Method,
    (scheme, host, path): (Scheme, String, String),
    mut query: Vec<(String, String)>,
    headers: Vec<(String, String)>,
    signer: Option<(&Credentials, &Region)>,
    now: SigningTime,
) -> HttpRequest {
    if let Some((credentials, region)) = signer {
        let host_header = [("host".to_owned(), host.clone())];
        let request = SignableRequest {
            method: method.as_str(),
            path: &path,
            query: &query,
            headers: &host_header,
            payload: Payload::Unsigned,
        };
        let params = SigningParams {
            credentials,
            region: region.as_str(),
            service: "s3",
            time: now,
            settings: SigningSettings::s3(),
        };
        query.extend(sigv4::presign(&request, &params, PRESIGN_EXPIRY).params);
    }
    HttpRequest {
        method,
        url: url(scheme, &host, &path, &sigv4::encode_query(&query)),
        headers,
        body: None,
    }
}

/// `scheme://host/path[?query]` from [`S3Config::locate`]'s parts and an encoded query.
fn url(scheme: Scheme, host: &str, path: &str, query: &str) -> String {
    let scheme = match scheme {
        Scheme::Http => "http",
        Scheme::Https => "https",
    };
    if query.is_empty() {
        format!("{scheme}://{host}{path}")
    } else {
        format!("{scheme}://{host}{path}?{query}")
    }
}

#[cfg(test)]
mod tests {
    use hmac::Mac;

    use super::*;
    use crate::s3::sigv4::sha256_hex;

    fn config(endpoint: Endpoint, bucket: &str, credentials: Option<Credentials>) -> S3Config {
        S3Config {
            endpoint,
            bucket: BucketName::new(bucket).unwrap(),
            region: Region::new("eu-west-1").unwrap(),
            credentials,
        }
    }

    fn now() -> SigningTime {
        SigningTime::parse_rfc3339("2026-11-30T10:00:00Z").unwrap()
    }

    fn temp_creds() -> Credentials {
        Credentials::new(
            "ASIAIOSFODNN7EXAMPLE",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            Some("FwoGZXIvYXdzEBYaDHqa0AF+example/token==".into()),
        )
        .unwrap()
    }

    #[test]
    fn public_bucket_requests_are_plain_urls() {
        let cfg = config(Endpoint::Aws, "acme-traces", None);
        let list = cfg.list_objects_v2(
            &ListObjectsV2 {
                prefix: "dial9-traces/".into(),
                delimiter: Some("/".into()),
                ..Default::default()
            },
            now(),
        );
        assert_eq!(
            list.url,
            "https://acme-traces.s3.eu-west-1.amazonaws.com/?delimiter=%2F&list-type=2&prefix=dial9-traces%2F"
        );
        assert!(list.headers.is_empty() && !list.may_need_preflight());

        let key =
            "p/version=1/date=2026-11-30/service=payments%2Fapi/time=1015/instance=h/boot=nygg/1764497700-3.bin.gz";
        let get = cfg.get_object(key, None, now());
        assert_eq!(
            get.url,
            "https://acme-traces.s3.eu-west-1.amazonaws.com/p/version%3D1/date%3D2026-11-30/service%3Dpayments%252Fapi/\
             time%3D1015/instance%3Dh/boot%3Dnygg/1764497700-3.bin.gz"
        );
    }

    #[test]
    fn signed_requests_are_presigned_urls_without_headers() {
        let cfg = config(Endpoint::Aws, "acme-traces", Some(temp_creds()));
        let list = cfg.list_objects_v2(
            &ListObjectsV2 {
                prefix: "a b&c/".into(),
                delimiter: Some("/".into()),
                continuation_token: Some("1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=".into()),
                start_after: None,
                max_keys: Some(5000),
            },
            now(),
        );
        assert!(list.headers.is_empty());
        let query = list.url.split_once('?').unwrap().1;
        for expected in [
            "continuation-token=1ueGcxLPRx1Tr%2FXYExHnhbYLgveDs2J%2Fwm36Hy4vbOwM%3D",
            "max-keys=1000",
            "prefix=a%20b%26c%2F",
            "X-Amz-Credential=ASIAIOSFODNN7EXAMPLE%2F20261130%2Feu-west-1%2Fs3%2Faws4_request",
            "X-Amz-Date=20261130T100000Z",
            "X-Amz-Expires=900",
            "X-Amz-SignedHeaders=host",
            "X-Amz-Security-Token=FwoGZXIvYXdzEBYaDHqa0AF%2Bexample%2Ftoken%3D%3D",
        ] {
            assert!(
                query.split('&').any(|p| p == expected),
                "{expected} missing from {query}"
            );
        }
        assert!(
            query
                .split('&')
                .any(|p| p.starts_with("X-Amz-Signature=") && p.len() == "X-Amz-Signature=".len() + 64)
        );
        let shown = format!("{list:?}");
        assert!(!shown.contains("FwoGZXIvYXdzEBYaDHqa0AF"), "{shown}");
    }

    #[test]
    fn ranged_get_sends_an_unsigned_range_header() {
        let cfg = config(Endpoint::Aws, "acme-traces", Some(temp_creds()));
        let get = cfg.get_object("k.bin.gz", ByteRange::new(0, 1023), now());
        assert_eq!(get.headers, vec![("Range".to_owned(), "bytes=0-1023".to_owned())]);
        assert!(get.may_need_preflight());
        assert!(
            get.url.split('&').any(|p| p == "X-Amz-SignedHeaders=host"),
            "{}",
            get.url
        );
        assert!(ByteRange::new(5, 4).is_none());
        assert_eq!(ByteRange::new(5, 5).map(ByteRange::len), Some(1));
    }

    #[test]
    fn dotted_buckets_and_custom_endpoints_use_path_style() {
        let dotted = config(Endpoint::Aws, "traces.example.com", None);
        assert_eq!(
            dotted.get_object("a", None, now()).url,
            "https://s3.eu-west-1.amazonaws.com/traces.example.com/a"
        );
        let china = S3Config {
            region: Region::new("cn-north-1").unwrap(),
            ..config(Endpoint::Aws, "b", None)
        };
        assert_eq!(
            china.get_object("a", None, now()).url,
            "https://b.s3.cn-north-1.amazonaws.com.cn/a"
        );

        let local = config(
            Endpoint::custom("http://127.0.0.1:9000/").unwrap(),
            "traces",
            Some(temp_creds()),
        );
        let url = local.get_object("x/y z", None, now()).url;
        assert!(
            url.starts_with("http://127.0.0.1:9000/traces/x/y%20z?X-Amz-Algorithm="),
            "{url}"
        );
        let proxied = config(
            Endpoint::custom("HTTPS://Proxy.example:443/s3/").unwrap(),
            "traces",
            None,
        );
        assert_eq!(
            proxied.get_object("k", None, now()).url,
            "https://proxy.example/s3/traces/k"
        );

        assert!(Endpoint::custom("ftp://x").is_err());
        assert!(Endpoint::custom("https://").is_err());
        assert!(Endpoint::custom("https://u:p@host").is_err());
        assert!(BucketName::new("a/b").is_err());
        assert!(Region::new("EU West").is_err());
    }

    /// Rebuilds the canonical request by hand from a presigned URL and checks its
    /// signature: the URL's path and query must be exactly what was signed.
    fn assert_signature_matches(method: &str, url: &str) {
        let host = "acme-traces.s3.eu-west-1.amazonaws.com";
        let (base, query) = url.split_once('?').unwrap();
        let path = &base[format!("https://{host}").len()..];
        let mut pairs: Vec<&str> = query
            .split('&')
            .filter(|p| !p.starts_with("X-Amz-Signature="))
            .collect();
        pairs.sort();
        let canonical = format!(
            "{method}\n{path}\n{}\nhost:{host}\n\nhost\nUNSIGNED-PAYLOAD",
            pairs.join("&")
        );
        let sts = format!(
            "AWS4-HMAC-SHA256\n20261130T100000Z\n20261130/eu-west-1/s3/aws4_request\n{}",
            sha256_hex(canonical.as_bytes())
        );
        let key = sigv4::signing_key(
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "20261130",
            "eu-west-1",
            "s3",
        );
        let mut mac = <hmac::Hmac<sha2::Sha256> as Mac>::new_from_slice(&key).unwrap();
        mac.update(sts.as_bytes());
        let expected: String = mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect();
        assert!(
            query.ends_with(&format!("X-Amz-Signature={expected}"))
                || query.contains(&format!("X-Amz-Signature={expected}&")),
            "{method} {}",
            redact_url(url)
        );
    }

    #[test]
    fn a_custom_endpoint_reads_back_from_its_url() {
        for text in [
            "HTTPS://MinIO.example.com:443/s3/",
            "http://127.0.0.1:9000",
            "https://[::1]:9000/base",
            "http://[::1]",
        ] {
            let Ok(Endpoint::Custom(e)) = Endpoint::custom(text) else {
                panic!("{text} refused")
            };
            assert_eq!(Endpoint::custom(&e.url()), Ok(Endpoint::Custom(e)), "{text}");
        }
        // The links fuzz target's finds: `h:443:443` was taken, and its URL
        // (`h:443`) read back as another endpoint (`h`); so was a path that
        // ended in a carriage return (trimmed from the URL). So were hosts
        // without a name, ports that are not ports, and control characters
        // a Host header cannot hold.
        for text in [
            "https://s3.eu-west-1.amazonaws:443:443/base",
            "https://[::1]:443:443",
            "https://h/s3\r/x\r",
            "https://h\0st",
            "http://h/a\tb",
            "http://:80",
            "http://h:99999",
            "http://h:x",
            "http://a]b",
        ] {
            assert!(Endpoint::custom(text).is_err(), "{text} taken");
        }
    }

    #[test]
    fn presigned_url_signature_matches_an_independent_computation() {
        let cfg = config(Endpoint::Aws, "acme-traces", Some(temp_creds()));
        let get = cfg.get_object("dir/a=b c+d%e.bin", None, now());
        assert!(
            get.url
                .starts_with("https://acme-traces.s3.eu-west-1.amazonaws.com/dir/a%3Db%20c%2Bd%25e.bin?")
        );
        assert_signature_matches("GET", &get.url);
    }

    #[test]
    fn put_and_delete_are_presigned_with_metadata_headers_unsigned() {
        let cfg = config(Endpoint::Aws, "acme-traces", Some(temp_creds()));
        let put = cfg.put_object("site/index.html", "text/html; charset=utf-8", "no-cache", now());
        assert_eq!(put.method, Method::Put);
        assert_eq!(
            put.headers,
            vec![
                ("Content-Type".to_owned(), "text/html; charset=utf-8".to_owned()),
                ("Cache-Control".to_owned(), "no-cache".to_owned()),
            ]
        );
        assert!(put.body.is_none());
        assert!(put.url.split('&').any(|p| p == "X-Amz-SignedHeaders=host"));
        assert_signature_matches("PUT", &put.url);

        let delete = cfg.delete_object("site/old.js", now());
        assert_eq!(delete.method, Method::Delete);
        assert!(delete.headers.is_empty() && delete.may_need_preflight());
        assert!(
            delete
                .url
                .starts_with("https://acme-traces.s3.eu-west-1.amazonaws.com/site/old.js?")
        );
        assert_signature_matches("DELETE", &delete.url);
    }

    #[test]
    fn object_urls_are_unsigned_whatever_the_credentials() {
        let cfg = config(Endpoint::Aws, "acme-traces", Some(temp_creds()));
        assert_eq!(
            cfg.object_url("site/a b.html"),
            "https://acme-traces.s3.eu-west-1.amazonaws.com/site/a%20b.html"
        );
        let local = config(Endpoint::custom("http://127.0.0.1:9000/s3").unwrap(), "b", None);
        assert_eq!(local.object_url("index.html"), "http://127.0.0.1:9000/s3/b/index.html");
    }
}
