//! S3 and STS failures as typed errors a person can act on.
//!
//! [`S3Error::from_response`] reads an error answer (status, headers, XML body: S3's
//! `<Error>` or STS's `<ErrorResponse>`); [`S3Error::network_failure`] stands for a
//! request that got no HTTP answer at all, which in a page almost always means a
//! missing CORS rule. Every error explains itself with [`S3Error::cause`] and
//! [`S3Error::fix`]. No text ever includes a secret key or session token: the texts
//! are written here, and the server's own message is scrubbed of anything shaped
//! like one before it is kept.

use std::fmt;

use super::cors::{cors_rule_console_json, cors_rule_json};
use super::time::{Timestamp, clock_offset_millis};
use super::xml;

/// What went wrong, as far as it decides what to do next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The bucket lives in another region; `expected` is it, when S3 said so.
    WrongRegion {
        expected: Option<String>,
    },
    AccessDenied,
    /// AWS does not know the access key id (STS says `InvalidClientTokenId`).
    InvalidAccessKeyId,
    /// The signature is wrong: almost always the secret access key.
    SignatureDoesNotMatch,
    ExpiredToken,
    InvalidToken,
    NoSuchBucket,
    NoSuchKey,
    /// 404 without a body (HEAD): bucket or key.
    NotFound,
    /// The signing time is more than 15 minutes off S3's clock.
    RequestTimeTooSkewed {
        server_time: Option<Timestamp>,
    },
    /// A presigned URL arrived after its expiry: the local clock is behind.
    RequestExpired {
        server_time: Option<Timestamp>,
    },
    /// 416: the range starts beyond the object's end.
    InvalidRange,
    /// SlowDown, Throttling, 429, 503: retry with backoff.
    Throttled,
    /// InternalError, 500, 502, 504, RequestTimeout: retry.
    ServerError,
    Other,
}

/// An error answer from S3 or STS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceError {
    pub status: u16,
    pub kind: ErrorKind,
    /// `<Code>`, e.g. `AccessDenied`.
    pub code: Option<String>,
    /// `<Message>`, scrubbed of anything shaped like a secret.
    pub message: Option<String>,
    /// `<RequestId>` or the `x-amz-request-id` header, for AWS support.
    pub request_id: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum S3Error {
    /// The request failed without any HTTP answer (the browser's opaque `TypeError`).
    /// `page_origin` (e.g. `https://traces.example.com`) fills in the CORS rule.
    NetworkFailure {
        page_origin: String,
    },
    /// A native shell's request that got no answer; `message`: the system's reason.
    Unreachable {
        host: String,
        message: String,
    },
    /// No answer (or not all of it) within `secs` (`retry::Timeouts`).
    TimedOut {
        secs: u64,
    },
    Service(ServiceError),
}

impl S3Error {
    /// A request given up after `after` without its answer (`retry::Timeouts`).
    pub fn timed_out(after: std::time::Duration) -> Self {
        S3Error::TimedOut { secs: after.as_secs() }
    }

    /// A request that got no HTTP status at all.
    pub fn network_failure(page_origin: &str) -> Self {
        S3Error::NetworkFailure {
            page_origin: page_origin.trim().trim_end_matches('/').to_owned(),
        }
    }

    /// Classifies an error answer. `headers` are the readable response headers (names
    /// in any case); `body` may be empty (HEAD requests, or an unreadable body).
    pub fn from_response(status: u16, headers: &[(String, String)], body: &[u8]) -> Self {
        let header = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.trim())
        };
        let doc = xml::parse(body).ok();
        // S3: <Error><Code/>…</Error>; STS: <ErrorResponse><Error><Code/>…</Error><RequestId/></ErrorResponse>.
        let error = doc.as_ref().and_then(|d| d.find("Error"));
        // Lambda and other JSON APIs: the code in `x-amzn-ErrorType` (or `__type`),
        // `{"Type": "User", "message": …}` or `{"Message": …}`.
        let json = match doc {
            Some(_) => None,
            None => JsonError::read(header("x-amzn-ErrorType"), body),
        };
        let text = |name: &str| match &json {
            Some(j) => j.field(name),
            None => error
                .and_then(|e| e.child_text(name))
                .or_else(|| doc.as_ref().and_then(|d| d.child_text(name))),
        };
        let nonempty = |s: Option<&str>| s.map(str::trim).filter(|s| !s.is_empty()).map(scrub);

        // Codes are CamelCase words (`AuthorizationQueryParametersError`): kept whole
        // when they look like one, scrubbed otherwise.
        let code = text("Code").map(str::trim).filter(|c| !c.is_empty()).map(|c| {
            let word = c.len() <= 64 && c.bytes().all(|b| b.is_ascii_alphabetic() || b == b'.' || b == b'_');
            if word { c.to_owned() } else { scrub(c) }
        });
        let message = nonempty(text("Message"));
        let request_id = nonempty(
            text("RequestId")
                .or_else(|| header("x-amz-request-id"))
                .or_else(|| header("x-amzn-RequestId")),
        );
        let server_time = text("ServerTime")
            .and_then(Timestamp::parse_rfc3339)
            .or_else(|| header("Date").and_then(Timestamp::parse_http_date));
        let expected_region = header("x-amz-bucket-region")
            .map(str::to_owned)
            .or_else(|| nonempty(text("Region")))
            .or_else(|| message.as_deref().and_then(region_from_message))
            .or_else(|| text("Endpoint").and_then(region_from_endpoint));

        let msg = message.as_deref().unwrap_or("").to_ascii_lowercase();
        let kind = match code.as_deref() {
            Some("PermanentRedirect" | "TemporaryRedirect" | "IllegalLocationConstraintException") => {
                ErrorKind::WrongRegion {
                    expected: expected_region,
                }
            }
            Some("AuthorizationHeaderMalformed" | "AuthorizationQueryParametersError") if expected_region.is_some() => {
                ErrorKind::WrongRegion {
                    expected: expected_region,
                }
            }
            Some("AccessDenied") if msg.contains("request has expired") => ErrorKind::RequestExpired { server_time },
            Some("AccessDenied" | "AllAccessDisabled" | "AccessDeniedException") => ErrorKind::AccessDenied,
            Some("InvalidAccessKeyId" | "InvalidClientTokenId" | "UnrecognizedClientException") => {
                ErrorKind::InvalidAccessKeyId
            }
            // The second: AWS's JSON APIs (Lambda).
            Some("SignatureDoesNotMatch" | "InvalidSignatureException") => ErrorKind::SignatureDoesNotMatch,
            Some("ExpiredToken" | "ExpiredTokenException" | "TokenRefreshRequired") => ErrorKind::ExpiredToken,
            Some("InvalidToken") => ErrorKind::InvalidToken,
            Some("NoSuchBucket") => ErrorKind::NoSuchBucket,
            Some("NoSuchKey") => ErrorKind::NoSuchKey,
            Some("RequestTimeTooSkewed") => ErrorKind::RequestTimeTooSkewed { server_time },
            Some("InvalidRange") => ErrorKind::InvalidRange,
            Some(
                "SlowDown"
                | "Throttling"
                | "ThrottlingException"
                | "ThrottledException"
                | "RequestThrottled"
                | "RequestLimitExceeded"
                | "TooManyRequests"
                | "TooManyRequestsException"
                | "BandwidthLimitExceeded",
            ) => ErrorKind::Throttled,
            Some("InternalError" | "InternalFailure" | "ServiceUnavailable" | "RequestTimeout") => {
                ErrorKind::ServerError
            }
            _ => by_status(status, expected_region),
        };
        S3Error::Service(ServiceError {
            status,
            kind,
            code,
            message,
            request_id,
        })
    }

    /// The error kind; `None` for a network failure.
    pub fn kind(&self) -> Option<&ErrorKind> {
        match self {
            S3Error::Service(e) => Some(&e.kind),
            S3Error::NetworkFailure { .. } | S3Error::Unreachable { .. } | S3Error::TimedOut { .. } => None,
        }
    }

    /// Throttling, server errors and timeouts: retried with backoff ([`super::exchange`]).
    pub fn is_retryable(&self) -> bool {
        matches!(self, S3Error::TimedOut { .. })
            || matches!(self.kind(), Some(ErrorKind::Throttled | ErrorKind::ServerError))
    }

    /// The region to retry in, when S3 named it.
    pub fn retry_region(&self) -> Option<&str> {
        match self.kind() {
            Some(ErrorKind::WrongRegion { expected }) => expected.as_deref(),
            _ => None,
        }
    }

    /// For a clock problem: the offset (ms) to add to the local clock for later
    /// signatures, given the local time when the answer arrived.
    pub fn clock_offset_millis(&self, local_now: Timestamp) -> Option<i64> {
        match self.kind() {
            Some(
                ErrorKind::RequestTimeTooSkewed {
                    server_time: Some(server),
                }
                | ErrorKind::RequestExpired {
                    server_time: Some(server),
                },
            ) => Some(clock_offset_millis(local_now, *server)),
            _ => None,
        }
    }

    /// What happened, for a person.
    pub fn cause(&self) -> String {
        let e = match self {
            S3Error::NetworkFailure { page_origin } => {
                return format!(
                    "The request failed without any answer from S3. From a web page this almost always means the \
                     bucket has no CORS rule allowing this page's origin ({page_origin}): the browser then hides \
                     S3's answer entirely. Less often: a misspelt bucket name or endpoint, no network, or an \
                     extension or proxy blocking the request."
                );
            }
            S3Error::Unreachable { host, message } => return format!("No answer from {host}: {message}."),
            S3Error::TimedOut { secs } => {
                return format!("S3 did not answer within {secs} s, nor on the retries after it.");
            }
            S3Error::Service(e) => e,
        };
        match &e.kind {
            ErrorKind::WrongRegion { expected: Some(region) } => {
                format!("The bucket is in region {region}, not in the region the request was sent to.")
            }
            ErrorKind::WrongRegion { expected: None } => {
                "The bucket is in another region than the one configured.".to_owned()
            }
            ErrorKind::AccessDenied => "S3 refused access: the credentials are valid, but not allowed to read this \
                 bucket (or, without credentials, the bucket is not public)."
                .to_owned(),
            ErrorKind::InvalidAccessKeyId => "AWS does not know this access key id.".to_owned(),
            ErrorKind::SignatureDoesNotMatch => "The request signature does not match: the secret access key is \
                 wrong, or belongs to another access key id."
                .to_owned(),
            ErrorKind::ExpiredToken => "The temporary credentials have expired.".to_owned(),
            ErrorKind::InvalidToken => {
                "The session token is malformed, or does not belong to this access key id.".to_owned()
            }
            ErrorKind::NoSuchBucket => "The bucket does not exist.".to_owned(),
            ErrorKind::NoSuchKey => {
                "The object does not exist (it may have been deleted since it was listed).".to_owned()
            }
            ErrorKind::NotFound => "Not found: the bucket or the object does not exist.".to_owned(),
            ErrorKind::RequestTimeTooSkewed { server_time } => format!(
                "This computer's clock is more than 15 minutes off from S3's{}; signatures are only valid within \
                 15 minutes.",
                server_time
                    .map(|t| format!(" (S3's time: {})", t.to_rfc3339()))
                    .unwrap_or_default()
            ),
            ErrorKind::RequestExpired { server_time } => format!(
                "S3 considers the signed URL expired{}: this computer's clock is probably behind.",
                server_time
                    .map(|t| format!(" (S3's time: {})", t.to_rfc3339()))
                    .unwrap_or_default()
            ),
            ErrorKind::InvalidRange => "The requested byte range lies outside the object.".to_owned(),
            ErrorKind::Throttled => format!("S3 is throttling requests (HTTP {}).", e.status),
            ErrorKind::ServerError => format!("S3 had a temporary internal error (HTTP {}).", e.status),
            ErrorKind::Other => format!(
                "S3 answered HTTP {}{}{}.",
                e.status,
                e.code.as_deref().map(|c| format!(" {c}")).unwrap_or_default(),
                e.message.as_deref().map(|m| format!(": {m}")).unwrap_or_default()
            ),
        }
    }

    /// What to do about it, for a person.
    pub fn fix(&self) -> String {
        let e = match self {
            S3Error::NetworkFailure { page_origin } => {
                return format!(
                    "Add a CORS rule to the bucket. With the AWS CLI, save this as cors.json and run \
                     `aws s3api put-bucket-cors --bucket BUCKET --cors-configuration file://cors.json`:\n{}\n\n\
                     In the S3 console (bucket → Permissions → Cross-origin resource sharing (CORS) → Edit), \
                     paste this instead:\n{}",
                    cors_rule_json(page_origin),
                    cors_rule_console_json(page_origin)
                );
            }
            S3Error::Unreachable { .. } => {
                return "Check the endpoint (--endpoint, AWS_ENDPOINT_URL_S3), that the server is running, and \
                        network or proxy settings (HTTPS_PROXY, NO_PROXY)."
                    .into();
            }
            S3Error::TimedOut { .. } => {
                return "Check the endpoint and the network (a proxy, a VPN), then try again: the endpoint \
                        accepted the request but sent no answer."
                    .into();
            }
            S3Error::Service(e) => e,
        };
        match &e.kind {
            ErrorKind::WrongRegion { expected: Some(region) } => format!("Set the region to {region} and retry."),
            ErrorKind::WrongRegion { expected: None } => "Set the bucket's region: the S3 console lists it next \
                 to the bucket, and `aws s3api get-bucket-location --bucket BUCKET` prints it. (With \
                 `x-amz-bucket-region` in the CORS rule's ExposeHeaders the page can detect it itself.)"
                .to_owned(),
            ErrorKind::AccessDenied => "Allow the identity `s3:ListBucket` on `arn:aws:s3:::BUCKET` and \
                 `s3:GetObject` on `arn:aws:s3:::BUCKET/*` (IAM policy, bucket policy, and for SSE-KMS objects \
                 `kms:Decrypt` on the key). For a public bucket read without credentials, the bucket policy must \
                 allow both actions to everyone."
                .to_owned(),
            ErrorKind::InvalidAccessKeyId => "Check the access key id field: 20 characters starting with AKIA \
                 (long-term keys) or ASIA (temporary keys). Temporary keys also need their session token and stop \
                 working when they expire."
                .to_owned(),
            ErrorKind::SignatureDoesNotMatch => "Check the secret access key field: paste it again, without \
                 spaces or line breaks, and make sure it belongs to the access key id entered."
                .to_owned(),
            ErrorKind::ExpiredToken => "Get new temporary credentials (`aws sts assume-role …` or \
                 `aws configure export-credentials`) and paste them again."
                .to_owned(),
            ErrorKind::InvalidToken => "Check the session token field: paste the token that came with this \
                 access key id, complete. Long-term keys (AKIA…) take no session token: leave it empty."
                .to_owned(),
            ErrorKind::NoSuchBucket => {
                "Check the bucket name: only the name, lower case, without `s3://` or a path.".to_owned()
            }
            ErrorKind::NoSuchKey | ErrorKind::InvalidRange => "Refresh the listing and try again.".to_owned(),
            ErrorKind::NotFound => "Check the bucket name and refresh the listing.".to_owned(),
            ErrorKind::RequestTimeTooSkewed { .. } | ErrorKind::RequestExpired { .. } => "Retry: the page \
                 corrects its clock by S3's time. If it keeps happening, turn on automatic time synchronisation \
                 on this computer."
                .to_owned(),
            ErrorKind::Throttled => "Retry after a short wait; fewer requests in parallel avoid throttling.".to_owned(),
            ErrorKind::ServerError => "Retry; this is usually transient.".to_owned(),
            ErrorKind::Other => match &e.request_id {
                Some(id) => format!("See S3's message above; request id {id} identifies the request to AWS support."),
                None => "See S3's message above.".to_owned(),
            },
        }
    }
}

impl fmt::Display for S3Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.cause())?;
        if let S3Error::Service(ServiceError {
            code: Some(code),
            message,
            kind,
            ..
        }) = self
            && *kind != ErrorKind::Other
        {
            write!(f, " [{code}")?;
            if let Some(m) = message {
                write!(f, ": {m}")?;
            }
            f.write_str("]")?;
        }
        Ok(())
    }
}

impl std::error::Error for S3Error {}

/// A JSON error answer: its code and message.
struct JsonError {
    code: Option<String>,
    message: Option<String>,
}

impl JsonError {
    /// `None` when `body` is not a JSON object and no error type header came.
    fn read(type_header: Option<&str>, body: &[u8]) -> Option<Self> {
        let value: Option<serde_json::Value> = serde_json::from_slice(body).ok().filter(serde_json::Value::is_object);
        if value.is_none() && type_header.is_none() {
            return None;
        }
        let string = |name: &str| value.as_ref()?.get(name)?.as_str().map(str::to_owned);
        // `ResourceNotFoundException:http://internal.amazon.com/…`, `aws.protocols#Name`.
        let bare = |code: String| {
            let code = code.split(':').next().unwrap_or_default();
            code.rsplit('#').next().unwrap_or_default().to_owned()
        };
        Some(Self {
            code: type_header
                .map(str::to_owned)
                .or_else(|| string("__type"))
                .or_else(|| string("code"))
                .map(bare),
            message: string("message").or_else(|| string("Message")),
        })
    }

    fn field(&self, name: &str) -> Option<&str> {
        match name {
            "Code" => self.code.as_deref(),
            "Message" => self.message.as_deref(),
            _ => None,
        }
    }
}

fn by_status(status: u16, expected_region: Option<String>) -> ErrorKind {
    match status {
        301 | 307 => ErrorKind::WrongRegion {
            expected: expected_region,
        },
        403 => ErrorKind::AccessDenied,
        404 => ErrorKind::NotFound,
        416 => ErrorKind::InvalidRange,
        429 | 503 => ErrorKind::Throttled,
        500..=599 => ErrorKind::ServerError,
        _ => ErrorKind::Other,
    }
}

/// `… the region 'us-east-1' is wrong; expecting 'eu-west-1'` → `eu-west-1`.
fn region_from_message(message: &str) -> Option<String> {
    let after = message.split("expecting '").nth(1)?;
    let region = after.split('\'').next()?;
    (!region.is_empty() && region.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')).then(|| region.to_owned())
}

/// `bucket.s3.eu-west-1.amazonaws.com` / `bucket.s3-eu-west-1.amazonaws.com` → `eu-west-1`;
/// the legacy global `bucket.s3.amazonaws.com` → `us-east-1`.
fn region_from_endpoint(endpoint: &str) -> Option<String> {
    let labels: Vec<&str> = endpoint.trim().split('.').collect();
    let s3 = labels.iter().position(|l| *l == "s3" || l.starts_with("s3-"))?;
    let region = match labels[s3].strip_prefix("s3-") {
        Some(r) => r,
        None => labels.get(s3 + 1).copied()?,
    };
    match region {
        "amazonaws" | "external-1" => Some("us-east-1".to_owned()),
        r if r.contains('-') && r.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') => Some(r.to_owned()),
        _ => None,
    }
}

/// Bounds a server-provided text and replaces runs that look like key material
/// (32+ characters of base64: secret keys are 40, session tokens hundreds).
fn scrub(text: &str) -> String {
    const MAX_CHARS: usize = 500;
    let mut out = String::new();
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        if run.len() >= 32 {
            out.push_str("[redacted]");
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    for c in text.chars().take(MAX_CHARS) {
        if c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=') {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    if text.chars().count() > MAX_CHARS {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s3(status: u16, code: &str, message: &str, extra: &str) -> S3Error {
        let body = format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>{code}</Code><Message>{message}</Message>{extra}<RequestId>4442587FB7D0A2F9</RequestId><HostId>eftixk72aD6Ap51TnqcoF8eFidJG9Z/2mkiDFu8yU9AS1ed4OpIszj7UDNEHGran</HostId></Error>"#
        );
        S3Error::from_response(status, &[], body.as_bytes())
    }

    fn kind(e: &S3Error) -> &ErrorKind {
        e.kind().unwrap()
    }

    #[test]
    fn json_errors_give_their_code_and_message() {
        let service = |e: S3Error| match e {
            S3Error::Service(s) => s,
            other => panic!("{other:?}"),
        };
        let headers = [
            (
                "x-amzn-ErrorType".to_owned(),
                "TooManyRequestsException:http://internal.amazon.com/coral/".to_owned(),
            ),
            ("x-amzn-RequestId".to_owned(), "req-1".to_owned()),
        ];
        let throttled = service(S3Error::from_response(
            429,
            &headers,
            br#"{"Type":"User","message":"Rate exceeded","Reason":"ReservedFunctionConcurrentInvocationLimitExceeded"}"#,
        ));
        assert_eq!(throttled.code.as_deref(), Some("TooManyRequestsException"));
        assert_eq!(throttled.message.as_deref(), Some("Rate exceeded"));
        assert_eq!(throttled.request_id.as_deref(), Some("req-1"));
        assert_eq!(throttled.kind, ErrorKind::Throttled);
        let typed = service(S3Error::from_response(
            400,
            &[],
            br#"{"__type":"com.amazon.coral#ValidationException","Message":"bad"}"#,
        ));
        assert_eq!(
            (typed.code.as_deref(), typed.message.as_deref()),
            (Some("ValidationException"), Some("bad"))
        );
        let plain = service(S3Error::from_response(502, &[], b"Bad Gateway"));
        assert_eq!((plain.code, plain.kind), (None, ErrorKind::ServerError));
    }

    #[test]
    fn wrong_region_from_header_body_or_message() {
        let redirect = s3(
            301,
            "PermanentRedirect",
            "The bucket you are attempting to access must be addressed using the specified endpoint. Please send all future requests to this endpoint.",
            "<Endpoint>acme-traces.s3.eu-west-1.amazonaws.com</Endpoint><Bucket>acme-traces</Bucket>",
        );
        assert_eq!(redirect.retry_region(), Some("eu-west-1"));

        let malformed = s3(
            400,
            "AuthorizationHeaderMalformed",
            "The authorization header is malformed; the region 'us-east-1' is wrong; expecting 'ap-southeast-2'",
            "<Region>ap-southeast-2</Region>",
        );
        assert_eq!(malformed.retry_region(), Some("ap-southeast-2"));

        let presigned = s3(
            400,
            "AuthorizationQueryParametersError",
            "Error parsing the X-Amz-Credential parameter; the region 'us-east-1' is wrong; expecting 'eu-central-1'",
            "",
        );
        assert_eq!(presigned.retry_region(), Some("eu-central-1"));
        assert!(presigned.fix().contains("eu-central-1"));

        let head = S3Error::from_response(301, &[("X-Amz-Bucket-Region".into(), "us-west-2".into())], b"");
        assert_eq!(head.retry_region(), Some("us-west-2"));
        let unknown = S3Error::from_response(301, &[], b"");
        assert_eq!(kind(&unknown), &ErrorKind::WrongRegion { expected: None });
        assert!(unknown.fix().contains("get-bucket-location"));
    }

    #[test]
    fn credential_problems_point_at_the_field() {
        let cases = [
            ("AccessDenied", "Access Denied", ErrorKind::AccessDenied, "s3:GetObject"),
            (
                "InvalidAccessKeyId",
                "The AWS Access Key Id you provided does not exist in our records.",
                ErrorKind::InvalidAccessKeyId,
                "access key id",
            ),
            (
                "SignatureDoesNotMatch",
                "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
                ErrorKind::SignatureDoesNotMatch,
                "secret access key",
            ),
            (
                "ExpiredToken",
                "The provided token has expired.",
                ErrorKind::ExpiredToken,
                "new temporary credentials",
            ),
            (
                "InvalidToken",
                "The provided token is malformed or otherwise invalid.",
                ErrorKind::InvalidToken,
                "session token",
            ),
            (
                "NoSuchBucket",
                "The specified bucket does not exist",
                ErrorKind::NoSuchBucket,
                "bucket name",
            ),
            (
                "NoSuchKey",
                "The specified key does not exist.",
                ErrorKind::NoSuchKey,
                "Refresh",
            ),
        ];
        for (code, message, expected, hint) in cases {
            let status = if code.starts_with("NoSuch") { 404 } else { 403 };
            let err = s3(status, code, message, "");
            assert_eq!(kind(&err), &expected, "{code}");
            assert!(err.fix().contains(hint), "{code}: {}", err.fix());
            assert!(!err.is_retryable());
            assert!(err.to_string().contains(code));
        }
    }

    #[test]
    fn sts_error_documents() {
        let body = br#"<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <Error><Type>Sender</Type><Code>InvalidClientTokenId</Code><Message>The security token included in the request is invalid.</Message></Error>
  <RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId>
</ErrorResponse>"#;
        let S3Error::Service(e) = S3Error::from_response(403, &[], body) else {
            panic!()
        };
        assert_eq!(e.kind, ErrorKind::InvalidAccessKeyId);
        assert_eq!(e.request_id.as_deref(), Some("c6104cbe-af31-11e0-8154-cbc7ccf896c7"));
    }

    #[test]
    fn clock_skew_yields_an_offset() {
        let skewed = s3(
            403,
            "RequestTimeTooSkewed",
            "The difference between the request time and the current time is too large.",
            "<RequestTime>20261130T093000Z</RequestTime><ServerTime>2026-11-30T10:00:00Z</ServerTime><MaxAllowedSkewMilliseconds>900000</MaxAllowedSkewMilliseconds>",
        );
        let local = Timestamp::parse_rfc3339("2026-11-30T09:30:00Z").unwrap();
        assert_eq!(skewed.clock_offset_millis(local), Some(30 * 60 * 1000));
        assert!(skewed.cause().contains("2026-11-30T10:00:00Z"));

        // No ServerTime in the body: the Date header decides.
        let headers = [("date".to_owned(), "Mon, 30 Nov 2026 10:00:00 GMT".to_owned())];
        let from_header = S3Error::from_response(
            403,
            &headers,
            b"<Error><Code>RequestTimeTooSkewed</Code><Message>m</Message></Error>",
        );
        assert_eq!(from_header.clock_offset_millis(local), Some(30 * 60 * 1000));

        let expired = s3(
            403,
            "AccessDenied",
            "Request has expired",
            "<X-Amz-Expires>900</X-Amz-Expires><Expires>2026-11-30T09:45:00Z</Expires><ServerTime>2026-11-30T10:00:00Z</ServerTime>",
        );
        assert!(matches!(kind(&expired), ErrorKind::RequestExpired { .. }));
        assert_eq!(expired.clock_offset_millis(local), Some(30 * 60 * 1000));
        assert_eq!(
            s3(403, "AccessDenied", "Access Denied", "").clock_offset_millis(local),
            None
        );
    }

    #[test]
    fn throttling_and_server_errors_are_retryable() {
        for (status, code) in [
            (503, "SlowDown"),
            (400, "Throttling"),
            (500, "InternalError"),
            (503, "ServiceUnavailable"),
        ] {
            assert!(
                s3(status, code, "Please reduce your request rate.", "").is_retryable(),
                "{code}"
            );
        }
        for status in [429, 500, 502, 503, 504] {
            assert!(
                S3Error::from_response(status, &[], b"<html>Bad Gateway</html>").is_retryable(),
                "{status}"
            );
        }
        assert!(!S3Error::from_response(400, &[], b"").is_retryable());
        assert_eq!(S3Error::from_response(404, &[], b"").kind(), Some(&ErrorKind::NotFound));
        assert_eq!(
            S3Error::from_response(403, &[], b"").kind(),
            Some(&ErrorKind::AccessDenied)
        );
    }

    #[test]
    fn network_failure_explains_cors_and_gives_the_rule() {
        let err = S3Error::network_failure("https://traces.example.com/");
        assert!(err.kind().is_none());
        assert!(err.cause().contains("CORS") && err.cause().contains("https://traces.example.com"));
        let fix = err.fix();
        assert!(fix.contains("put-bucket-cors"));
        assert!(fix.contains(&cors_rule_json("https://traces.example.com")));
        assert!(fix.contains("\"x-amz-bucket-region\""));
    }

    #[test]
    fn unknown_codes_keep_the_message() {
        let err = s3(400, "InvalidArgument", "Invalid argument.", "");
        assert_eq!(kind(&err), &ErrorKind::Other);
        assert!(err.cause().contains("InvalidArgument: Invalid argument."));
        assert!(err.fix().contains("4442587FB7D0A2F9"));
    }

    #[test]
    fn texts_never_carry_secrets() {
        let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
        let token = "FwoGZXIvYXdzEBYaDHqa0AFexampleTOKENvalueFwoGZXIvYXdzEBYaDHqa0AF";
        let signature_mismatch = s3(
            403,
            "SignatureDoesNotMatch",
            &format!("Check your key {secret} and token {token}."),
            &format!(
                "<AWSAccessKeyId>AKIAIOSFODNN7EXAMPLE</AWSAccessKeyId><StringToSign>AWS4-HMAC-SHA256</StringToSign>\
                 <CanonicalRequest>GET\n/\nX-Amz-Security-Token={token}</CanonicalRequest>"
            ),
        );
        let odd = s3(400, "Weird", &format!("echo {secret}"), "");
        for err in [signature_mismatch, odd] {
            let all = format!("{} {} {} {:?}", err, err.cause(), err.fix(), err);
            assert!(!all.contains(secret) && !all.contains(token), "{all}");
            assert!(all.contains("[redacted]"));
        }
    }

    #[test]
    fn region_helpers() {
        assert_eq!(
            region_from_endpoint("b.s3-eu-west-1.amazonaws.com").as_deref(),
            Some("eu-west-1")
        );
        assert_eq!(region_from_endpoint("b.s3.amazonaws.com").as_deref(), Some("us-east-1"));
        assert_eq!(region_from_endpoint("example.com"), None);
        assert_eq!(region_from_message("no region here"), None);
    }
}
