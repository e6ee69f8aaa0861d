//! AWS Signature Version 4: canonical request, string to sign, signing key, and the
//! two ways of attaching a signature — the `Authorization` header, or query
//! parameters (a presigned URL, which a browser can fetch with no custom header and
//! therefore without a CORS preflight).
//!
//! Pure: the signing time is an input and nothing is sent. Checked against every
//! case of the AWS signing test suite (`crates/core/tests/s3_sigv4_suite.rs`).
//!
//! # Path canonicalisation
//! The request path is given as it goes on the wire (percent-encoded, starting with
//! `/`). Two independent settings shape its canonical form:
//! - [`PathEncoding::Single`] (S3): decode the wire path once and re-encode it with
//!   SigV4's rules — for a path built by [`uri_encode`](super::encode::uri_encode)
//!   the canonical path is the wire path itself. [`PathEncoding::Double`] (most other
//!   services): encode the wire path once more (`%3D` becomes `%253D`).
//! - `normalize_path`: remove `.` and `..` segments and empty segments (`//`). S3
//!   must not do this: `a//b` and `a/./b` are distinct keys there.

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use super::credentials::Credentials;
use super::encode::{percent_decode, uri_encode};
use super::time::SigningTime;

/// The algorithm name SigV4 writes into headers, query and string to sign.
pub const ALGORITHM: &str = "AWS4-HMAC-SHA256";
/// Payload marker for requests whose body is not hashed (S3 presigned URLs).
pub const UNSIGNED_PAYLOAD: &str = "UNSIGNED-PAYLOAD";
/// SHA-256 of the empty string, the payload hash of every GET.
pub const EMPTY_PAYLOAD_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// How the wire path becomes the canonical path (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathEncoding {
    /// S3: the canonical path is the SigV4 encoding of the decoded path.
    Single,
    /// Other services: the wire path is encoded a second time.
    Double,
}

/// Whether a session token is covered by the signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionTokenMode {
    /// `X-Amz-Security-Token` is part of the canonical request (S3, STS, most services).
    Signed,
    /// The token is attached after signing and not covered (a few services, e.g. IoT).
    AddedAfterSigning,
}

/// Everything about a signature except the request, the keys and the time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SigningSettings {
    pub path_encoding: PathEncoding,
    pub normalize_path: bool,
    pub session_token: SessionTokenMode,
    /// Header signing only: also send and sign `x-amz-content-sha256` (S3 requires it
    /// for header-signed requests; presigned URLs never carry it).
    pub content_sha256_header: bool,
}

impl SigningSettings {
    /// S3: no normalisation, single encoding, payload hash header.
    pub const fn s3() -> Self {
        Self {
            path_encoding: PathEncoding::Single,
            normalize_path: false,
            session_token: SessionTokenMode::Signed,
            content_sha256_header: true,
        }
    }

    /// Other services (STS, …): normalised, double-encoded path, no payload header.
    pub const fn generic() -> Self {
        Self {
            path_encoding: PathEncoding::Double,
            normalize_path: true,
            session_token: SessionTokenMode::Signed,
            content_sha256_header: false,
        }
    }
}

/// Keys, scope and time of one signature.
#[derive(Clone, Copy, Debug)]
pub struct SigningParams<'a> {
    pub credentials: &'a Credentials,
    pub region: &'a str,
    /// The signing name of the service: `s3`, `sts`, …
    pub service: &'a str,
    pub time: SigningTime,
    pub settings: SigningSettings,
}

/// What the canonical request says about the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload<'a> {
    /// The body itself, hashed here.
    Bytes(&'a [u8]),
    /// `UNSIGNED-PAYLOAD`.
    Unsigned,
    /// A SHA-256 computed elsewhere (lower-case hex).
    Sha256Hex(&'a str),
}

impl Payload<'_> {
    fn hash(&self) -> String {
        match self {
            Payload::Bytes(b) => sha256_hex(b),
            Payload::Unsigned => UNSIGNED_PAYLOAD.to_owned(),
            Payload::Sha256Hex(h) => (*h).to_owned(),
        }
    }
}

/// A request to sign. `headers` must include `host` (browsers add it themselves but
/// the signature covers it); every header given is signed. Headers the signer owns
/// (`authorization`, `x-amz-date`, and `x-amz-security-token` / `x-amz-content-sha256`
/// when it adds them) are ignored if present.
#[derive(Clone, Copy, Debug)]
pub struct SignableRequest<'a> {
    pub method: &'a str,
    /// The wire path, percent-encoded, starting with `/`.
    pub path: &'a str,
    /// Query parameters, decoded (the signer encodes them).
    pub query: &'a [(String, String)],
    pub headers: &'a [(String, String)],
    pub payload: Payload<'a>,
}

/// The result of header signing: the headers to add to the request, in this order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderSignature {
    /// `x-amz-date`, then `x-amz-security-token` and `x-amz-content-sha256` when
    /// used, then `authorization`.
    pub headers: Vec<(String, String)>,
    pub signature: String,
    pub canonical_request: String,
    pub string_to_sign: String,
}

/// The result of query signing: the parameters to append to the URL's query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuerySignature {
    /// Decoded `X-Amz-*` parameters, `X-Amz-Signature` last. Encode with
    /// [`encode_query`] (together with the request's own parameters).
    pub params: Vec<(String, String)>,
    pub signature: String,
    pub canonical_request: String,
    pub string_to_sign: String,
}

/// A presigned URL's lifetime: 1 second to 7 days (SigV4's limit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ExpiresIn(u32);

impl ExpiresIn {
    pub const MAX_SECS: u32 = 604_800;

    /// `None` outside 1..=604800 seconds.
    pub const fn from_secs(secs: u32) -> Option<Self> {
        if secs >= 1 && secs <= Self::MAX_SECS {
            Some(Self(secs))
        } else {
            None
        }
    }

    pub const fn secs(self) -> u32 {
        self.0
    }
}

/// Signs with the `Authorization` header.
pub fn sign_headers(request: &SignableRequest<'_>, params: &SigningParams<'_>) -> HeaderSignature {
    let amz_date = params.time.amz_date();
    let token = params.credentials.session_token();
    let payload_hash = request.payload.hash();
    let settings = params.settings;

    let mut headers = own_headers(request.headers, token.is_some(), settings.content_sha256_header);
    headers.push(("x-amz-date".into(), amz_date.clone()));
    if let (Some(t), SessionTokenMode::Signed) = (token, settings.session_token) {
        headers.push(("x-amz-security-token".into(), t.into()));
    }
    if settings.content_sha256_header {
        headers.push(("x-amz-content-sha256".into(), payload_hash.clone()));
    }
    let canonical_headers = CanonicalHeaders::new(&headers);
    let canonical_request = canonical_request(
        request,
        &settings,
        &encode_query(request.query),
        &canonical_headers,
        &payload_hash,
    );
    let (string_to_sign, signature) = finish(&canonical_request, params);

    let mut added = vec![("x-amz-date".to_owned(), amz_date)];
    if let Some(t) = token {
        added.push(("x-amz-security-token".into(), t.into()));
    }
    if settings.content_sha256_header {
        added.push(("x-amz-content-sha256".into(), payload_hash));
    }
    added.push((
        "authorization".into(),
        format!(
            "{ALGORITHM} Credential={}/{}, SignedHeaders={}, Signature={signature}",
            params.credentials.access_key_id(),
            credential_scope(params),
            canonical_headers.names
        ),
    ));
    HeaderSignature {
        headers: added,
        signature,
        canonical_request,
        string_to_sign,
    }
}

/// Signs with query parameters (a presigned URL) valid for `expires_in`.
pub fn presign(request: &SignableRequest<'_>, params: &SigningParams<'_>, expires_in: ExpiresIn) -> QuerySignature {
    let token = params.credentials.session_token();
    let headers = own_headers(request.headers, false, false);
    let canonical_headers = CanonicalHeaders::new(&headers);

    let mut auth = vec![
        ("X-Amz-Algorithm".to_owned(), ALGORITHM.to_owned()),
        (
            "X-Amz-Credential".into(),
            format!("{}/{}", params.credentials.access_key_id(), credential_scope(params)),
        ),
        ("X-Amz-Date".into(), params.time.amz_date()),
        ("X-Amz-Expires".into(), expires_in.secs().to_string()),
        ("X-Amz-SignedHeaders".into(), canonical_headers.names.clone()),
    ];
    let token_param = token.map(|t| ("X-Amz-Security-Token".to_owned(), t.to_owned()));
    if params.settings.session_token == SessionTokenMode::Signed {
        auth.extend(token_param.clone());
    }
    let mut query: Vec<(String, String)> = request.query.to_vec();
    query.extend(auth.iter().cloned());
    let canonical_request = canonical_request(
        request,
        &params.settings,
        &encode_query(&query),
        &canonical_headers,
        &request.payload.hash(),
    );
    let (string_to_sign, signature) = finish(&canonical_request, params);

    if params.settings.session_token == SessionTokenMode::AddedAfterSigning {
        auth.extend(token_param);
    }
    auth.push(("X-Amz-Signature".into(), signature.clone()));
    QuerySignature {
        params: auth,
        signature,
        canonical_request,
        string_to_sign,
    }
}

/// The canonical query string of decoded parameters: each name and value
/// SigV4-encoded, sorted by name then value, joined with `&`. Also the query to put
/// in a URL.
pub fn encode_query(params: &[(String, String)]) -> String {
    let mut encoded: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (uri_encode(k, false), uri_encode(v, false)))
        .collect();
    encoded.sort();
    let pairs: Vec<String> = encoded.into_iter().map(|(k, v)| format!("{k}={v}")).collect();
    pairs.join("&")
}

/// The canonical form of a wire path under `settings` (see the module docs).
pub fn canonical_path(wire_path: &str, settings: &SigningSettings) -> String {
    let path = if settings.normalize_path {
        normalize_path(wire_path)
    } else {
        wire_path.to_owned()
    };
    let path = if path.is_empty() { "/".to_owned() } else { path };
    match settings.path_encoding {
        PathEncoding::Single => uri_encode(percent_decode(&path), true),
        PathEncoding::Double => uri_encode(&path, true),
    }
}

/// The derived key: HMAC chain over date, region, service and `aws4_request`.
pub fn signing_key(secret_access_key: &str, date_stamp: &str, region: &str, service: &str) -> [u8; 32] {
    let k_date = hmac_sha256(format!("AWS4{secret_access_key}").as_bytes(), date_stamp.as_bytes());
    let k_region = hmac_sha256(&k_date, region.as_bytes());
    let k_service = hmac_sha256(&k_region, service.as_bytes());
    hmac_sha256(&k_service, b"aws4_request")
}

/// Lower-case hex SHA-256.
pub fn sha256_hex(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

fn hmac_sha256(key: &[u8], data: &[u8]) -> [u8; 32] {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC accepts keys of any length");
    mac.update(data);
    mac.finalize().into_bytes().into()
}

fn hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    bytes
        .iter()
        .flat_map(|b| {
            [
                char::from(HEX[usize::from(b >> 4)]),
                char::from(HEX[usize::from(b & 15)]),
            ]
        })
        .collect()
}

fn credential_scope(params: &SigningParams<'_>) -> String {
    format!(
        "{}/{}/{}/aws4_request",
        params.time.date_stamp(),
        params.region,
        params.service
    )
}

/// The request's headers minus those the signer sets itself.
fn own_headers(headers: &[(String, String)], has_token: bool, sets_content_sha: bool) -> Vec<(String, String)> {
    headers
        .iter()
        .filter(|(name, _)| {
            let n = name.to_ascii_lowercase();
            !(n == "authorization"
                || n == "x-amz-date"
                || (has_token && n == "x-amz-security-token")
                || (sets_content_sha && n == "x-amz-content-sha256"))
        })
        .cloned()
        .collect()
}

struct CanonicalHeaders {
    /// `name:value\n` lines.
    block: String,
    /// `name;name`.
    names: String,
}

impl CanonicalHeaders {
    /// Lower-cases names, trims values and folds inner runs of whitespace to one
    /// space, joins repeated headers with `,` in their original order, sorts by name.
    fn new(headers: &[(String, String)]) -> Self {
        let mut merged: Vec<(String, String)> = Vec::new();
        for (name, value) in headers {
            let name = name.trim().to_ascii_lowercase();
            let value = value.split_ascii_whitespace().collect::<Vec<_>>().join(" ");
            match merged.iter_mut().find(|(n, _)| *n == name) {
                Some((_, v)) => {
                    v.push(',');
                    v.push_str(&value);
                }
                None => merged.push((name, value)),
            }
        }
        merged.sort_by(|a, b| a.0.cmp(&b.0));
        let block = merged.iter().map(|(n, v)| format!("{n}:{v}\n")).collect();
        let names = merged.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(";");
        Self { block, names }
    }
}

fn canonical_request(
    request: &SignableRequest<'_>,
    settings: &SigningSettings,
    canonical_query: &str,
    headers: &CanonicalHeaders,
    payload_hash: &str,
) -> String {
    format!(
        "{}\n{}\n{canonical_query}\n{}\n{}\n{payload_hash}",
        request.method,
        canonical_path(request.path, settings),
        headers.block,
        headers.names
    )
}

/// (string to sign, signature)
fn finish(canonical_request: &str, params: &SigningParams<'_>) -> (String, String) {
    let string_to_sign = format!(
        "{ALGORITHM}\n{}\n{}\n{}",
        params.time.amz_date(),
        credential_scope(params),
        sha256_hex(canonical_request.as_bytes())
    );
    let key = signing_key(
        params.credentials.secret_access_key(),
        &params.time.date_stamp(),
        params.region,
        params.service,
    );
    let signature = hex(&hmac_sha256(&key, string_to_sign.as_bytes()));
    (string_to_sign, signature)
}

/// Removes `.` / `..` segments and empty segments; keeps a trailing `/`.
fn normalize_path(path: &str) -> String {
    let mut segments: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            s => segments.push(s),
        }
    }
    let mut out = format!("/{}", segments.join("/"));
    if path.ends_with('/') && out != "/" {
        out.push('/');
    }
    out
}

#[cfg(test)]
mod tests {
    //! S3 mode against the worked examples of the S3 documentation ("Signature
    //! Calculations for the Authorization Header" and "Query String Authentication").

    use super::*;

    fn creds() -> Credentials {
        Credentials::new("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", None).unwrap()
    }

    fn params(creds: &Credentials) -> SigningParams<'_> {
        SigningParams {
            credentials: creds,
            region: "us-east-1",
            service: "s3",
            time: SigningTime::parse_amz_date("20130524T000000Z").unwrap(),
            settings: SigningSettings::s3(),
        }
    }

    fn host() -> Vec<(String, String)> {
        vec![("Host".into(), "examplebucket.s3.amazonaws.com".into())]
    }

    #[test]
    fn s3_doc_get_object_with_range() {
        let creds = creds();
        let mut headers = host();
        headers.push(("Range".into(), "bytes=0-9".into()));
        let req = SignableRequest {
            method: "GET",
            path: "/test.txt",
            query: &[],
            headers: &headers,
            payload: Payload::Bytes(b""),
        };
        let signed = sign_headers(&req, &params(&creds));
        assert_eq!(
            signed.signature,
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        );
        let auth = &signed.headers.last().unwrap().1;
        assert!(
            auth.contains("SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"),
            "{auth}"
        );
    }

    #[test]
    fn s3_doc_list_objects() {
        let creds = creds();
        let query = [
            ("max-keys".to_owned(), "2".to_owned()),
            ("prefix".to_owned(), "J".to_owned()),
        ];
        let req = SignableRequest {
            method: "GET",
            path: "/",
            query: &query,
            headers: &host(),
            payload: Payload::Bytes(b""),
        };
        let signed = sign_headers(&req, &params(&creds));
        assert_eq!(
            signed.signature,
            "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"
        );
    }

    #[test]
    fn s3_doc_get_bucket_lifecycle() {
        let creds = creds();
        let query = [("lifecycle".to_owned(), String::new())];
        let req = SignableRequest {
            method: "GET",
            path: "/",
            query: &query,
            headers: &host(),
            payload: Payload::Bytes(b""),
        };
        let signed = sign_headers(&req, &params(&creds));
        assert_eq!(
            signed.signature,
            "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"
        );
    }

    #[test]
    fn s3_doc_presigned_url() {
        let creds = creds();
        let req = SignableRequest {
            method: "GET",
            path: "/test.txt",
            query: &[],
            headers: &host(),
            payload: Payload::Unsigned,
        };
        let signed = presign(&req, &params(&creds), ExpiresIn::from_secs(86_400).unwrap());
        assert_eq!(
            signed.signature,
            "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
        );
        assert_eq!(
            encode_query(&signed.params),
            "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request\
             &X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404\
             &X-Amz-SignedHeaders=host"
        );
    }

    #[test]
    fn s3_paths_are_neither_normalised_nor_double_encoded() {
        let s3 = SigningSettings::s3();
        assert_eq!(canonical_path("/a//b/./c/../d%3Dx", &s3), "/a//b/./c/../d%3Dx");
        assert_eq!(
            canonical_path("/date%3D2026-01-01/x%20y", &s3),
            "/date%3D2026-01-01/x%20y"
        );
        let generic = SigningSettings::generic();
        assert_eq!(canonical_path("/a//b/./c/../d%3Dx", &generic), "/a/b/d%253Dx");
    }

    #[test]
    fn expiry_bounds() {
        assert!(ExpiresIn::from_secs(0).is_none());
        assert!(ExpiresIn::from_secs(604_801).is_none());
        assert_eq!(ExpiresIn::from_secs(604_800).map(ExpiresIn::secs), Some(604_800));
    }
}
