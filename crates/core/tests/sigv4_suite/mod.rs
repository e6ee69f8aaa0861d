//! The AWS SigV4 test suite runner, shared by the native test
//! (`crates/core/tests/s3_sigv4_suite.rs`) and the wasm one (`tests/sigv4_suite.rs`).
//!
//! For each case with a `context.json`, both signature locations are checked:
//! - header signing: canonical request, string to sign, signature, and the whole signed
//!   request (headers compared as a multiset, names case-insensitively);
//! - query signing (presigned): the same four, the signed request's query compared as a
//!   multiset of encoded `name=value` pairs (the suite's files list them unsorted).
//!
//! `context.json` → signer settings:
//! - `normalize` → `normalize_path` (remove `.`/`..` and empty segments). The 7
//!   `*-unnormalized` cases are S3-style paths kept verbatim.
//! - `omit_session_token: true` → the token is added after signing and not covered
//!   (`SessionTokenMode::AddedAfterSigning`); absent/false → signed.
//! - `sign_body: true` → header signing also sends and signs `x-amz-content-sha256`.
//!   The canonical request's payload hash is always the body's SHA-256.
//! - `expiration_in_seconds` → `X-Amz-Expires`; `timestamp` → signing time.
//! - Path encoding is `PathEncoding::Single` for these cases: the suite has no
//!   double-encoding switch and its expectations are single-encoded
//!   (`get-space-normalized` keeps `%20`; double encoding would give `%2520`).
//!
//! The two older-format cases without `context.json` come from aws-sigv4's own tests
//! and exercise double encoding (`PathEncoding::Double`, normalised). Their time,
//! region and service are read from their own files; `double-encode-path` was signed by
//! aws-sigv4 with its test credentials (`ANOTREAL` / `notrealrnrELgWzOk3IfjzDKtFBhDby`),
//! and its canonical request was produced at a different time (20210511T154045Z) than
//! its signed request (20150830T123600Z), so each is checked at its own time.
//!
//! Signed-request paths are compared decoded: the signer never changes the path, and
//! the suite prints `get-space-normalized`'s signed requests with the path decoded
//! (`/example space/`) although its `request.txt` has `/example%20space/`.
//!
//! All cases run; every mismatch is collected and reported together.

use d9lens_core::s3::Credentials;
use d9lens_core::s3::encode::{percent_decode, uri_encode};
use d9lens_core::s3::sigv4::{
    self, ExpiresIn, PathEncoding, Payload, SessionTokenMode, SignableRequest, SigningParams, SigningSettings,
};
use d9lens_core::s3::time::SigningTime;
use serde::Deserialize;

#[derive(Deserialize)]
struct Context {
    credentials: ContextCredentials,
    expiration_in_seconds: u32,
    normalize: bool,
    region: String,
    service: String,
    timestamp: String,
    #[serde(default)]
    omit_session_token: bool,
    #[serde(default)]
    sign_body: bool,
}

#[derive(Deserialize)]
struct ContextCredentials {
    access_key_id: String,
    secret_access_key: String,
    token: Option<String>,
}

/// A parsed HTTP/1.1 request file.
#[derive(Clone, Debug)]
struct RawRequest {
    method: String,
    path: String,
    /// Decoded query pairs.
    query: Vec<(String, String)>,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl RawRequest {
    fn parse(text: &str) -> RawRequest {
        let (head, body) = match text.split_once("\n\n") {
            Some((h, b)) => (h, b),
            None => (text.trim_end_matches('\n'), ""),
        };
        let mut lines = head.lines();
        let request_line = lines.next().expect("request line");
        let (method, rest) = request_line.split_once(' ').expect("method");
        // (double-url-encode's signed request omits the protocol version.)
        let target = rest.strip_suffix(" HTTP/1.1").unwrap_or(rest);
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        let query = query
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|pair| {
                let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                (decode(k), decode(v))
            })
            .collect();
        let mut headers: Vec<(String, String)> = Vec::new();
        for line in lines {
            if line.starts_with([' ', '\t']) {
                // obs-fold continuation: part of the previous header's value.
                let last = headers.last_mut().expect("continuation after a header");
                last.1.push(' ');
                last.1.push_str(line.trim());
            } else {
                let (name, value) = line.split_once(':').expect("header line");
                headers.push((name.to_owned(), value.trim().to_owned()));
            }
        }
        RawRequest {
            method: method.to_owned(),
            path: path.to_owned(),
            query,
            headers,
            body: body.as_bytes().to_vec(),
        }
    }

    fn without_header(&self, name: &str) -> RawRequest {
        let mut r = self.clone();
        r.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        r
    }

    fn signable(&self) -> SignableRequest<'_> {
        SignableRequest {
            method: &self.method,
            path: &self.path,
            query: &self.query,
            headers: &self.headers,
            payload: Payload::Bytes(&self.body),
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Headers as sorted (lower-case name, value) pairs.
    fn header_set(&self) -> Vec<(String, String)> {
        let mut h: Vec<(String, String)> = self
            .headers
            .iter()
            .map(|(n, v)| (n.to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        h.sort();
        h
    }

    /// Query as sorted, canonically encoded `name=value` strings.
    fn encoded_query_set(&self) -> Vec<String> {
        let mut q: Vec<String> = self
            .query
            .iter()
            .map(|(k, v)| format!("{}={}", uri_encode(k, false), uri_encode(v, false)))
            .collect();
        q.sort();
        q
    }
}

fn decode(s: &str) -> String {
    String::from_utf8(percent_decode(s)).expect("UTF-8 query")
}

/// Every file of the suite as `("case/file", contents)` (`files.rs`, embedded).
pub type Files = [(&'static str, &'static str)];

/// One case's files.
#[derive(Clone, Copy)]
struct Case<'a> {
    name: &'a str,
    files: &'a Files,
}

impl Case<'_> {
    fn file(&self, file: &str) -> Option<String> {
        self.files
            .iter()
            .find(|(path, _)| path.strip_prefix(self.name).and_then(|p| p.strip_prefix('/')) == Some(file))
            .map(|(_, text)| (*text).to_owned())
    }
}

/// The case names, sorted.
pub fn case_names(files: &Files) -> Vec<&'static str> {
    let mut names: Vec<&str> = files
        .iter()
        .filter_map(|(path, _)| path.split_once('/'))
        .map(|(c, _)| c)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Collects mismatches of one case.
struct Checker {
    case: String,
    failures: Vec<String>,
    checks: usize,
}

impl Checker {
    fn eq(&mut self, what: &str, expected: &str, actual: &str) {
        self.checks += 1;
        if expected != actual {
            self.failures.push(format!(
                "{} / {what}:\n--- expected\n{expected}\n--- actual\n{actual}\n",
                self.case
            ));
        }
    }

    fn eq_debug<T: std::fmt::Debug + PartialEq>(&mut self, what: &str, expected: &T, actual: &T) {
        self.checks += 1;
        if expected != actual {
            self.failures.push(format!(
                "{} / {what}:\n--- expected\n{expected:#?}\n--- actual\n{actual:#?}\n",
                self.case
            ));
        }
    }
}

fn settings_from(ctx: &Context) -> SigningSettings {
    SigningSettings {
        path_encoding: PathEncoding::Single,
        normalize_path: ctx.normalize,
        session_token: if ctx.omit_session_token {
            SessionTokenMode::AddedAfterSigning
        } else {
            SessionTokenMode::Signed
        },
        content_sha256_header: ctx.sign_body,
    }
}

fn run_context_case(dir: Case, check: &mut Checker, encoding: PathEncoding) {
    let ctx: Context = serde_json::from_str(&dir.file("context.json").unwrap()).expect("context.json");
    let creds = Credentials::new(
        ctx.credentials.access_key_id.clone(),
        ctx.credentials.secret_access_key.clone(),
        ctx.credentials.token.clone(),
    )
    .unwrap();
    let params = SigningParams {
        credentials: &creds,
        region: &ctx.region,
        service: &ctx.service,
        time: SigningTime::parse_rfc3339(&ctx.timestamp).expect("timestamp"),
        settings: SigningSettings {
            path_encoding: encoding,
            ..settings_from(&ctx)
        },
    };
    let request = RawRequest::parse(&dir.file("request.txt").unwrap());

    // Header signing.
    let signed = sigv4::sign_headers(&request.signable(), &params);
    check.eq(
        "header canonical request",
        &dir.file("header-canonical-request.txt").unwrap(),
        &signed.canonical_request,
    );
    check.eq(
        "header string to sign",
        &dir.file("header-string-to-sign.txt").unwrap(),
        &signed.string_to_sign,
    );
    check.eq(
        "header signature",
        dir.file("header-signature.txt").unwrap().trim(),
        &signed.signature,
    );
    let mut applied = request.clone();
    applied.headers.extend(signed.headers.iter().cloned());
    let expected = RawRequest::parse(&dir.file("header-signed-request.txt").unwrap());
    check.eq_debug(
        "header-signed request headers",
        &expected.header_set(),
        &applied.header_set(),
    );
    check.eq(
        "header-signed request path",
        &decode(&expected.path),
        &decode(&applied.path),
    );
    check.eq_debug(
        "header-signed request query",
        &expected.encoded_query_set(),
        &applied.encoded_query_set(),
    );
    check.eq_debug("header-signed request body", &expected.body, &applied.body);

    // Query signing (presigned URL).
    let expires = ExpiresIn::from_secs(ctx.expiration_in_seconds).expect("expiry in range");
    let presigned = sigv4::presign(&request.signable(), &params, expires);
    check.eq(
        "query canonical request",
        &dir.file("query-canonical-request.txt").unwrap(),
        &presigned.canonical_request,
    );
    check.eq(
        "query string to sign",
        &dir.file("query-string-to-sign.txt").unwrap(),
        &presigned.string_to_sign,
    );
    check.eq(
        "query signature",
        dir.file("query-signature.txt").unwrap().trim(),
        &presigned.signature,
    );
    let mut applied = request.clone();
    applied.query.extend(presigned.params.iter().cloned());
    let expected = RawRequest::parse(&dir.file("query-signed-request.txt").unwrap());
    check.eq_debug(
        "query-signed request query",
        &expected.encoded_query_set(),
        &applied.encoded_query_set(),
    );
    check.eq_debug(
        "query-signed request headers",
        &expected.header_set(),
        &applied.header_set(),
    );
    check.eq(
        "query-signed request path",
        &decode(&expected.path),
        &decode(&applied.path),
    );
    check.eq_debug("query-signed request body", &expected.body, &applied.body);
    // The URL query a shell would build from the result is the sorted canonical form.
    let url_query = sigv4::encode_query(&applied.query);
    let mut url_pairs: Vec<String> = url_query.split('&').map(str::to_owned).collect();
    url_pairs.sort();
    check.eq_debug("query-signed URL query", &expected.encoded_query_set(), &url_pairs);
}

/// Scope and credentials of the two legacy cases, from the `Authorization` header of
/// their signed request: (time, region, service, access key id).
fn scope_of(signed: &RawRequest) -> (SigningTime, String, String, String) {
    let auth = signed.header("Authorization").expect("Authorization");
    let credential = auth.split("Credential=").nth(1).unwrap().split(',').next().unwrap();
    let parts: Vec<&str> = credential.split('/').collect();
    let time = SigningTime::parse_amz_date(signed.header("X-Amz-Date").expect("X-Amz-Date")).unwrap();
    (time, parts[2].to_owned(), parts[3].to_owned(), parts[0].to_owned())
}

fn run_legacy_case(dir: Case, check: &mut Checker) {
    let request = RawRequest::parse(&dir.file("request.txt").unwrap());
    let expected_signed = RawRequest::parse(&dir.file("header-signed-request.txt").unwrap());
    let (signed_time, region, service, access_key_id) = scope_of(&expected_signed);
    let secret = match access_key_id.as_str() {
        "AKIDEXAMPLE" => "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        "ANOTREAL" => "notrealrnrELgWzOk3IfjzDKtFBhDby",
        other => panic!("unknown test key {other}"),
    };
    let creds = Credentials::new(access_key_id.clone(), secret, None).unwrap();
    let settings = SigningSettings {
        path_encoding: PathEncoding::Double,
        normalize_path: true,
        session_token: SessionTokenMode::Signed,
        content_sha256_header: false,
    };
    // The signer owns X-Amz-Date: drop the one in the input.
    let unsigned = request.without_header("X-Amz-Date");

    // Canonical request (and string to sign) at the canonical request's own time.
    let canonical = dir.file("header-canonical-request.txt").unwrap();
    let creq_date = canonical
        .lines()
        .find_map(|l| l.strip_prefix("x-amz-date:"))
        .expect("x-amz-date line");
    let params = SigningParams {
        credentials: &creds,
        region: &region,
        service: &service,
        time: SigningTime::parse_amz_date(creq_date).unwrap(),
        settings,
    };
    let at_creq_time = sigv4::sign_headers(&unsigned.signable(), &params);
    check.eq("header canonical request", &canonical, &at_creq_time.canonical_request);
    if let Some(sts) = dir.file("header-string-to-sign.txt") {
        check.eq(
            "header string to sign",
            sts.trim_end_matches('\n'),
            &at_creq_time.string_to_sign,
        );
    }

    // Signature and signed request at the signed request's time.
    let params = SigningParams {
        time: signed_time,
        ..params
    };
    let signed = sigv4::sign_headers(&unsigned.signable(), &params);
    let mut applied = unsigned.clone();
    applied.headers.extend(signed.headers.iter().cloned());
    check.eq_debug(
        "header-signed request headers",
        &expected_signed.header_set(),
        &applied.header_set(),
    );
    check.eq(
        "header-signed request path",
        &decode(&expected_signed.path),
        &decode(&applied.path),
    );
}

/// What a run of the whole suite found.
pub struct SuiteRun {
    pub cases: usize,
    pub passed: usize,
    pub checks: usize,
    /// (with context.json, unnormalized, with session token, legacy double-encoding)
    pub kinds: (usize, usize, usize, usize),
    pub failures: Vec<String>,
}

/// Runs every case: header and query signing for the context cases, header
/// signing for the two legacy double-encoding cases.
pub fn run_suite(files: &Files) -> SuiteRun {
    let mut run = SuiteRun {
        cases: 0,
        passed: 0,
        checks: 0,
        kinds: (0, 0, 0, 0),
        failures: Vec::new(),
    };
    for name in case_names(files) {
        let case = Case { name, files };
        let mut check = Checker {
            case: name.to_owned(),
            failures: Vec::new(),
            checks: 0,
        };
        run.cases += 1;
        if let Some(ctx) = case.file("context.json") {
            run.kinds.0 += 1;
            run.kinds.1 += usize::from(name.ends_with("-unnormalized"));
            run.kinds.2 += usize::from(ctx.contains("\"token\""));
            run_context_case(case, &mut check, PathEncoding::Single);
        } else {
            run.kinds.3 += 1;
            run_legacy_case(case, &mut check);
        }
        run.checks += check.checks;
        if check.failures.is_empty() {
            run.passed += 1;
        } else {
            run.failures.extend(check.failures);
        }
    }
    run
}

/// Asserts the suite's shape (40 cases: 38 with context, 7 unnormalized, 3 with
/// a session token, 2 legacy) and that every case passed.
pub fn assert_all_pass(run: &SuiteRun) {
    assert_eq!(run.cases, 40, "the suite has 40 cases");
    assert_eq!(run.kinds, (38, 7, 3, 2));
    assert!(
        run.failures.is_empty(),
        "{} mismatches:\n{}",
        run.failures.len(),
        run.failures.join("\n")
    );
}

/// The context cases that fail when signed with `PathEncoding::Double`.
pub fn cases_differing_with_double_encoding(files: &Files) -> Vec<&'static str> {
    case_names(files)
        .into_iter()
        .filter(|&name| {
            let case = Case { name, files };
            if case.file("context.json").is_none() {
                return false;
            }
            let mut check = Checker {
                case: name.to_owned(),
                failures: Vec::new(),
                checks: 0,
            };
            run_context_case(case, &mut check, PathEncoding::Double);
            !check.failures.is_empty()
        })
        .collect()
}
