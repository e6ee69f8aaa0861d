//! STS AssumeRole: the request (a header-signed form POST; STS answers CORS, so a page
//! may call it) and the parsing of its XML answer into temporary credentials.
//!
//! The request carries `Authorization`, `X-Amz-Date` (and `X-Amz-Security-Token` for
//! temporary base credentials), so the browser sends a preflight first; STS allows it.

use std::fmt;

use super::credentials::{Credentials, CredentialsError};
use super::encode::uri_encode;
use super::request::{HttpRequest, Method, Region};
use super::sigv4::{self, Payload, SignableRequest, SigningParams, SigningSettings};
use super::time::{SigningTime, Timestamp};
use super::xml;

const FORM_CONTENT_TYPE: &str = "application/x-www-form-urlencoded; charset=utf-8";

/// Which STS endpoint to call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StsEndpoint {
    /// `https://sts.amazonaws.com`, signed for `us-east-1`.
    Global,
    /// `https://sts.{region}.amazonaws.com` (`.amazonaws.com.cn` in China), signed
    /// for that region. Needed when the global endpoint is disabled for the account.
    Regional(Region),
}

impl StsEndpoint {
    pub(crate) fn host_and_region(&self) -> (String, &str) {
        match self {
            StsEndpoint::Global => ("sts.amazonaws.com".to_owned(), "us-east-1"),
            StsEndpoint::Regional(region) => {
                let r = region.as_str();
                (format!("sts.{r}.{}", region.aws_dns_suffix()), r)
            }
        }
    }
}

/// An MFA device and its current code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mfa {
    /// The device ARN (or hardware serial number).
    pub serial_number: String,
    /// The six-digit code.
    pub token_code: String,
}

/// AssumeRole parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssumeRole {
    /// `arn:aws:iam::123456789012:role/trace-reader`
    pub role_arn: String,
    /// 2–64 characters of `A-Z a-z 0-9 + = , . @ _ -`; shows up in CloudTrail.
    pub session_name: String,
    /// 900–43200 seconds (capped by the role's maximum); `None`: STS's default, 1 h.
    pub duration_secs: Option<u32>,
    pub external_id: Option<String>,
    pub mfa: Option<Mfa>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StsRequestError {
    InvalidRoleArn,
    InvalidSessionName,
    InvalidDuration(u32),
}

impl fmt::Display for StsRequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidRoleArn => f.write_str("the role ARN must look like arn:aws:iam::123456789012:role/NAME"),
            Self::InvalidSessionName => {
                f.write_str("the session name must be 2 to 64 characters of letters, digits and + = , . @ _ -")
            }
            Self::InvalidDuration(secs) => write!(f, "the session duration must be 900 to 43200 seconds, not {secs}"),
        }
    }
}

impl std::error::Error for StsRequestError {}

/// Builds the header-signed AssumeRole POST, signed with `base` at `now`.
pub fn assume_role_request(
    base: &Credentials,
    endpoint: &StsEndpoint,
    params: &AssumeRole,
    now: SigningTime,
) -> Result<HttpRequest, StsRequestError> {
    let arn = params.role_arn.trim();
    if !(arn.starts_with("arn:") && arn.split(':').count() >= 6 && arn.contains(":role/")) {
        return Err(StsRequestError::InvalidRoleArn);
    }
    let name = params.session_name.trim();
    let name_ok = (2..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+=,.@_-".contains(&b));
    if !name_ok {
        return Err(StsRequestError::InvalidSessionName);
    }
    if let Some(secs) = params.duration_secs.filter(|s| !(900..=43_200).contains(s)) {
        return Err(StsRequestError::InvalidDuration(secs));
    }

    let mut form: Vec<(&str, String)> = vec![
        ("Action", "AssumeRole".into()),
        ("Version", "2011-06-15".into()),
        ("RoleArn", arn.into()),
        ("RoleSessionName", name.into()),
    ];
    if let Some(secs) = params.duration_secs {
        form.push(("DurationSeconds", secs.to_string()));
    }
    if let Some(id) = &params.external_id {
        form.push(("ExternalId", id.clone()));
    }
    if let Some(mfa) = &params.mfa {
        form.push(("SerialNumber", mfa.serial_number.trim().into()));
        form.push(("TokenCode", mfa.token_code.trim().into()));
    }
    let body: String = form
        .iter()
        .map(|(k, v)| format!("{k}={}", uri_encode(v, false)))
        .collect::<Vec<_>>()
        .join("&");

    let (host, region) = endpoint.host_and_region();
    let headers = [
        ("host".to_owned(), host.clone()),
        ("content-type".to_owned(), FORM_CONTENT_TYPE.to_owned()),
    ];
    let request = SignableRequest {
        method: Method::Post.as_str(),
        path: "/",
        query: &[],
        headers: &headers,
        payload: Payload::Bytes(body.as_bytes()),
    };
    let signing = SigningParams {
        credentials: base,
        region,
        service: "sts",
        time: now,
        settings: SigningSettings::generic(),
    };
    let signed = sigv4::sign_headers(&request, &signing);

    let mut out_headers = vec![("content-type".to_owned(), FORM_CONTENT_TYPE.to_owned())];
    out_headers.extend(signed.headers);
    Ok(HttpRequest {
        method: Method::Post,
        url: format!("https://{host}/"),
        headers: out_headers,
        body: Some(body),
    })
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StsResponseError {
    Xml(String),
    /// The body is an STS `<ErrorResponse>`: classify it with
    /// [`S3Error::from_response`](super::error::S3Error::from_response).
    ErrorDocument,
    MissingField(&'static str),
    Credentials(CredentialsError),
}

impl fmt::Display for StsResponseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Xml(e) => write!(f, "the STS answer is not valid XML: {e}"),
            Self::ErrorDocument => f.write_str("STS answered with an error"),
            Self::MissingField(field) => write!(f, "the STS answer has no <{field}>"),
            Self::Credentials(e) => write!(f, "STS returned unusable credentials: {e}"),
        }
    }
}

impl std::error::Error for StsResponseError {}

/// Parses an `<AssumeRoleResponse>` (also `GetSessionToken` and
/// `AssumeRoleWithWebIdentity` answers, which carry the same `<Credentials>`).
pub fn parse_assume_role_response(body: &[u8]) -> Result<Credentials, StsResponseError> {
    let root = xml::parse(body).map_err(StsResponseError::Xml)?;
    if root.name == "ErrorResponse" || root.name == "Error" {
        return Err(StsResponseError::ErrorDocument);
    }
    let creds = root
        .find("Credentials")
        .ok_or(StsResponseError::MissingField("Credentials"))?;
    let field = |name: &'static str| creds.child_text(name).ok_or(StsResponseError::MissingField(name));
    let credentials = Credentials::new(
        field("AccessKeyId")?,
        field("SecretAccessKey")?,
        Some(field("SessionToken")?.to_owned()),
    )
    .map_err(StsResponseError::Credentials)?;
    Ok(
        match creds.child_text("Expiration").and_then(Timestamp::parse_rfc3339) {
            Some(expiration) => credentials.with_expiration(expiration),
            None => credentials,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Credentials {
        Credentials::new("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", None).unwrap()
    }

    fn params() -> AssumeRole {
        AssumeRole {
            role_arn: "arn:aws:iam::123456789012:role/trace-reader".into(),
            session_name: "d9lens".into(),
            duration_secs: Some(3600),
            external_id: None,
            mfa: None,
        }
    }

    #[test]
    fn builds_a_signed_form_post() {
        let now = SigningTime::parse_rfc3339("2026-11-30T10:00:00Z").unwrap();
        let req = assume_role_request(&base(), &StsEndpoint::Global, &params(), now).unwrap();
        assert_eq!(req.method, Method::Post);
        assert_eq!(req.url, "https://sts.amazonaws.com/");
        assert_eq!(
            req.body.as_deref(),
            Some(
                "Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Ftrace-reader\
                 &RoleSessionName=d9lens&DurationSeconds=3600"
            )
        );
        let names: Vec<&str> = req.headers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["content-type", "x-amz-date", "authorization"]);
        let auth = &req.headers[2].1;
        assert!(
            auth.starts_with(
                "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20261130/us-east-1/sts/aws4_request, \
                 SignedHeaders=content-type;host;x-amz-date, Signature="
            ),
            "{auth}"
        );

        let regional = StsEndpoint::Regional(Region::new("eu-west-1").unwrap());
        let req = assume_role_request(&base(), &regional, &params(), now).unwrap();
        assert_eq!(req.url, "https://sts.eu-west-1.amazonaws.com/");
        assert!(req.headers[2].1.contains("/eu-west-1/sts/aws4_request"));
    }

    #[test]
    fn validates_parameters() {
        let now = SigningTime::from_unix_secs(0);
        let bad_arn = AssumeRole {
            role_arn: "trace-reader".into(),
            ..params()
        };
        assert_eq!(
            assume_role_request(&base(), &StsEndpoint::Global, &bad_arn, now),
            Err(StsRequestError::InvalidRoleArn)
        );
        let bad_name = AssumeRole {
            session_name: "has space".into(),
            ..params()
        };
        assert_eq!(
            assume_role_request(&base(), &StsEndpoint::Global, &bad_name, now),
            Err(StsRequestError::InvalidSessionName)
        );
        let bad_duration = AssumeRole {
            duration_secs: Some(60),
            ..params()
        };
        assert_eq!(
            assume_role_request(&base(), &StsEndpoint::Global, &bad_duration, now),
            Err(StsRequestError::InvalidDuration(60))
        );
    }

    #[test]
    fn parses_the_documented_response() {
        let body = br#"<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleResult>
    <SourceIdentity>DevUser123</SourceIdentity>
    <AssumedRoleUser>
      <Arn>arn:aws:sts::123456789012:assumed-role/demo/John</Arn>
      <AssumedRoleId>ARO123EXAMPLE123:John</AssumedRoleId>
    </AssumedRoleUser>
    <Credentials>
      <AccessKeyId>ASIAIOSFODNN7EXAMPLE</AccessKeyId>
      <SecretAccessKey>wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY</SecretAccessKey>
      <SessionToken>AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==</SessionToken>
      <Expiration>2019-11-09T13:34:41Z</Expiration>
    </Credentials>
    <PackedPolicySize>6</PackedPolicySize>
  </AssumeRoleResult>
  <ResponseMetadata>
    <RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId>
  </ResponseMetadata>
</AssumeRoleResponse>"#;
        let creds = parse_assume_role_response(body).unwrap();
        assert_eq!(creds.access_key_id(), "ASIAIOSFODNN7EXAMPLE");
        assert_eq!(creds.secret_access_key(), "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY");
        assert!(
            creds
                .session_token()
                .unwrap()
                .starts_with("AQoDYXdzEPT//////////wEXAMPLE")
        );
        assert_eq!(creds.expiration(), Timestamp::parse_rfc3339("2019-11-09T13:34:41Z"));
    }

    #[test]
    fn recognises_error_documents() {
        let body = br#"<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>User: arn:aws:iam::123456789012:user/alice is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::123456789012:role/trace-reader</Message></Error><RequestId>4b0a2e3c-7a8f-4d5e-9c6b-2f1e0d9c8b7a</RequestId></ErrorResponse>"#;
        assert_eq!(parse_assume_role_response(body), Err(StsResponseError::ErrorDocument));
        assert_eq!(
            parse_assume_role_response(b"<AssumeRoleResponse><AssumeRoleResult/></AssumeRoleResponse>"),
            Err(StsResponseError::MissingField("Credentials"))
        );
    }
}
