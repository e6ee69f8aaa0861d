//! The Lambda `Invoke` request (synchronous, header-signed for service
//! `lambda`), and the error a function reports in its answer.

use crate::s3::encode::uri_encode;
use crate::s3::request::{ConfigError, CustomEndpoint};
use crate::s3::sigv4::{self, Payload, SignableRequest, SigningParams, SigningSettings};
use crate::s3::{Credentials, Endpoint, ErrorKind, HttpRequest, Method, Region, S3Error, ServiceError, SigningTime};

/// Which function, where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LambdaTarget {
    /// A function name, or its ARN (with a version or alias when wanted).
    pub function: String,
    pub region: Region,
    /// A Lambda-compatible endpoint (a local emulator); `None`: AWS Lambda.
    pub endpoint: Option<CustomEndpoint>,
}

impl LambdaTarget {
    /// `function` in `region`, at `endpoint` (a Lambda-compatible URL) or
    /// AWS Lambda's own.
    pub fn new(function: &str, region: Region, endpoint: Option<&str>) -> Result<LambdaTarget, ConfigError> {
        let endpoint = match endpoint.map(Endpoint::custom).transpose()? {
            Some(Endpoint::Custom(e)) => Some(e),
            Some(Endpoint::Aws) | None => None,
        };
        Ok(LambdaTarget {
            function: function.to_owned(),
            region,
            endpoint,
        })
    }

    /// Scheme, authority and base path of the Lambda API.
    fn base(&self) -> (String, String) {
        match &self.endpoint {
            Some(e) => (e.url(), e.authority().to_owned()),
            None => {
                let host = format!("lambda.{}.{}", self.region.as_str(), self.region.aws_dns_suffix());
                (format!("https://{host}"), host)
            }
        }
    }
}

/// `POST /2015-03-31/functions/FUNCTION/invocations` with `payload` (JSON),
/// signed with `credentials` at `now`.
pub fn invoke_request(
    target: &LambdaTarget,
    credentials: &Credentials,
    payload: &str,
    now: SigningTime,
) -> HttpRequest {
    let path = format!("{}/invocations", function_path(target.function.trim()));
    signed_request(target, credentials, Method::Post, &path, Some(payload), now)
}

/// The Lambda API's path of function `name` (or ARN).
pub(crate) fn function_path(name: &str) -> String {
    format!("/2015-03-31/functions/{}", uri_encode(name, false))
}

/// A request to the Lambda API at `path` (below the endpoint's base path,
/// percent-encoded), with `body` as JSON, header-signed for service `lambda`.
pub(crate) fn signed_request(
    target: &LambdaTarget,
    credentials: &Credentials,
    method: Method,
    path: &str,
    body: Option<&str>,
    now: SigningTime,
) -> HttpRequest {
    let (base, host) = target.base();
    let base_path = target.endpoint.as_ref().map_or("", |e| e.base_path());
    let full_path = format!("{base_path}{path}");
    let mut headers = vec![("host".to_owned(), host)];
    if body.is_some() {
        headers.push(("content-type".to_owned(), "application/json".to_owned()));
    }
    let request = SignableRequest {
        method: method.as_str(),
        path: &full_path,
        query: &[],
        headers: &headers,
        payload: Payload::Bytes(body.unwrap_or_default().as_bytes()),
    };
    let signing = SigningParams {
        credentials,
        region: target.region.as_str(),
        service: "lambda",
        time: now,
        settings: SigningSettings::generic(),
    };
    let signed = sigv4::sign_headers(&request, &signing);
    let mut out_headers: Vec<(String, String)> = headers.into_iter().filter(|(n, _)| n != "host").collect();
    out_headers.extend(signed.headers);
    HttpRequest {
        method,
        url: format!("{base}{path}"),
        headers: out_headers,
        body: body.map(str::to_owned),
    }
}

/// A function URL: `https://ID.lambda-url.REGION.on.aws/`, or an emulator's
/// (`http://127.0.0.1:9000/lambda-url/NAME/`), and the region it is signed for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionUrl {
    endpoint: CustomEndpoint,
    region: Region,
}

impl FunctionUrl {
    /// The region comes from an AWS function URL's host, else `fallback`.
    pub fn parse(url: &str, fallback: &Region) -> Result<FunctionUrl, ConfigError> {
        let Endpoint::Custom(endpoint) = Endpoint::custom(url)? else {
            unreachable!("Endpoint::custom gives a custom endpoint")
        };
        let from_host = endpoint
            .authority()
            .split_once(".lambda-url.")
            .and_then(|(_, rest)| rest.strip_suffix(".on.aws"))
            .map(Region::new)
            .transpose()?;
        Ok(FunctionUrl {
            region: from_host.unwrap_or_else(|| fallback.clone()),
            endpoint,
        })
    }

    pub fn region(&self) -> &Region {
        &self.region
    }
}

/// A POST of `payload` (JSON) to a function URL whose auth type is `AWS_IAM`,
/// signed with `credentials` at `now`.
pub fn function_url_request(
    url: &FunctionUrl,
    credentials: &Credentials,
    payload: &str,
    now: SigningTime,
) -> HttpRequest {
    // The URL is the function: signed like a Lambda API call at its root.
    let target = LambdaTarget {
        function: String::new(),
        region: url.region.clone(),
        endpoint: Some(url.endpoint.clone()),
    };
    signed_request(&target, credentials, Method::Post, "/", Some(payload), now)
}

/// The error a function reported (`X-Amz-Function-Error`: it ran and failed),
/// in its own words; `None` when it answered normally.
pub fn function_error(headers: &[(String, String)], body: &[u8]) -> Option<String> {
    let kind = headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("x-amz-function-error"))?
        .1
        .clone();
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Reported {
        error_type: Option<String>,
        error_message: Option<String>,
    }
    let reported: Option<Reported> = serde_json::from_slice(body).ok();
    let (what, message) = reported.map_or((None, None), |r| (r.error_type, r.error_message));
    Some(format!(
        "the function failed ({}): {}",
        what.unwrap_or(kind),
        message.unwrap_or_else(|| String::from_utf8_lossy(&body[..body.len().min(500)]).into_owned())
    ))
}

/// A call to a function (`Invoke`, or its URL) that failed before the
/// function could answer, in Lambda's terms (the shared HTTP errors speak
/// of S3): what happened, and what to do about it.
pub fn invocation_error(error: &S3Error) -> String {
    let S3Error::Service(e) = error else {
        return plainly(error);
    };
    let said = said(e);
    match &e.kind {
        ErrorKind::AccessDenied => format!(
            "AWS Lambda refused the call ({said}): these credentials may not invoke the function. Allow \
             `lambda:InvokeFunctionUrl` (a function URL) or `lambda:InvokeFunction` on it; `d9lens \
             deploy-lambda --function NAME --print-policies BUCKET` prints the callers' policy."
        ),
        ErrorKind::InvalidAccessKeyId
        | ErrorKind::SignatureDoesNotMatch
        | ErrorKind::ExpiredToken
        | ErrorKind::InvalidToken
        | ErrorKind::RequestTimeTooSkewed { .. }
        | ErrorKind::RequestExpired { .. } => format!(
            "AWS Lambda refused the credentials ({said}): check the access key, the secret key, the session \
             token's expiry, and this computer's clock."
        ),
        ErrorKind::NotFound | ErrorKind::NoSuchKey | ErrorKind::NoSuchBucket => {
            format!("AWS Lambda has no such function ({said}): check the function's name or URL, and its region.")
        }
        ErrorKind::Throttled => format!(
            "AWS Lambda throttled the calls ({said}), and the retries too: run fewer at once (the account's \
             concurrency is shared by all its functions)."
        ),
        ErrorKind::ServerError => format!(
            "The function did not answer ({said}): it crashed, ran out of memory or time, or Lambda had an \
             internal error. Its CloudWatch logs say which; a larger memory size (deploy-lambda --memory) \
             also gives it more CPU."
        ),
        ErrorKind::WrongRegion { .. } | ErrorKind::InvalidRange | ErrorKind::Other => plainly(error),
    }
}

/// A failed Lambda call in Lambda's terms, with nothing more to advise:
/// what Lambda answered, or why there was no answer.
pub(crate) fn plainly(error: &S3Error) -> String {
    match error {
        S3Error::NetworkFailure { page_origin } => format!(
            "The call to AWS Lambda failed without any answer. From a web page this almost always means the \
             function URL's CORS configuration does not allow this page's origin ({page_origin}): `d9lens \
             deploy-lambda --function NAME --allow-origin {page_origin}` adds it. Less often: a misspelt \
             function URL, no network, or an extension or proxy blocking the request."
        ),
        S3Error::Unreachable { host, message } => format!("No answer from AWS Lambda at {host}: {message}."),
        S3Error::TimedOut { secs } => {
            format!("AWS Lambda did not answer within {secs} s, nor on the retries after it.")
        }
        S3Error::Service(e) => format!("AWS Lambda answered {}.", said(e)),
    }
}

/// `HTTP 403 AccessDeniedException: …`: what Lambda said.
pub(crate) fn said(e: &ServiceError) -> String {
    let mut text = format!("HTTP {}", e.status);
    if let Some(code) = &e.code {
        text.push_str(&format!(" {code}"));
    }
    if let Some(message) = &e.message {
        text.push_str(&format!(": {message}"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::s3::Timestamp;

    fn keys() -> Credentials {
        Credentials::new("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", None).unwrap()
    }

    #[test]
    fn the_invoke_request_goes_to_the_function_signed_for_lambda() {
        let target = LambdaTarget {
            function: "arn:aws:lambda:eu-west-1:123456789012:function:d9lens".into(),
            region: Region::new("eu-west-1").unwrap(),
            endpoint: None,
        };
        let req = invoke_request(&target, &keys(), "{}", Timestamp::from_unix_secs(1_796_047_538));
        assert_eq!(
            req.url,
            "https://lambda.eu-west-1.amazonaws.com/2015-03-31/functions/arn%3Aaws%3Alambda%3Aeu-west-1%3A123456789012%3Afunction%3Ad9lens/invocations"
        );
        let auth = &req.headers.iter().find(|(n, _)| n == "authorization").unwrap().1;
        assert!(auth.contains("/20261130/eu-west-1/lambda/aws4_request"), "{auth}");
        assert_eq!(req.body.as_deref(), Some("{}"));
    }

    #[test]
    fn an_emulator_endpoint_keeps_its_base_path() {
        let Endpoint::Custom(endpoint) = Endpoint::custom("http://127.0.0.1:9000/emu").unwrap() else {
            unreachable!()
        };
        let target = LambdaTarget {
            function: "d9lens".into(),
            region: Region::new("us-east-1").unwrap(),
            endpoint: Some(endpoint),
        };
        let req = invoke_request(&target, &keys(), "{}", Timestamp::from_unix_secs(0));
        assert_eq!(
            req.url,
            "http://127.0.0.1:9000/emu/2015-03-31/functions/d9lens/invocations"
        );
    }

    #[test]
    fn a_function_url_is_signed_for_its_own_region() {
        let fallback = Region::new("us-east-1").unwrap();
        let aws = FunctionUrl::parse("https://abc123.lambda-url.eu-central-1.on.aws/", &fallback).unwrap();
        assert_eq!(aws.region().as_str(), "eu-central-1");
        let req = function_url_request(&aws, &keys(), "{}", Timestamp::from_unix_secs(1_796_047_538));
        assert_eq!(req.url, "https://abc123.lambda-url.eu-central-1.on.aws/");
        let auth = &req.headers.iter().find(|(n, _)| n == "authorization").unwrap().1;
        assert!(auth.contains("/eu-central-1/lambda/aws4_request"), "{auth}");
        let emulator = FunctionUrl::parse("http://127.0.0.1:9000/lambda-url/_/", &fallback).unwrap();
        assert_eq!(emulator.region(), &fallback);
        let req = function_url_request(&emulator, &keys(), "{}", Timestamp::from_unix_secs(0));
        assert_eq!(req.url, "http://127.0.0.1:9000/lambda-url/_/");
        assert!(FunctionUrl::parse("https://x.lambda-url.not a region.on.aws/", &fallback).is_err());
        assert!(FunctionUrl::parse("ftp://x/", &fallback).is_err());
    }

    #[test]
    fn a_function_error_is_told_in_its_words() {
        let headers = [("X-Amz-Function-Error".to_owned(), "Unhandled".to_owned())];
        let body = br#"{"errorType":"Runtime.ExitError","errorMessage":"out of memory"}"#;
        assert_eq!(
            function_error(&headers, body).as_deref(),
            Some("the function failed (Runtime.ExitError): out of memory")
        );
        assert_eq!(function_error(&[], body), None);
    }

    /// Lambda's error answers (JSON, `x-amzn-ErrorType`) told as Lambda's,
    /// never as S3's, with what to do.
    #[test]
    fn a_failed_call_is_told_as_lambdas() {
        let answer = |status: u16, error_type: &str, body: &str| {
            let headers = [("x-amzn-ErrorType".to_owned(), error_type.to_owned())];
            invocation_error(&S3Error::from_response(status, &headers, body.as_bytes()))
        };
        let denied = answer(403, "AccessDeniedException", r#"{"Message":"Forbidden"}"#);
        assert!(
            denied.starts_with("AWS Lambda refused the call (HTTP 403 AccessDeniedException: Forbidden)"),
            "{denied}"
        );
        assert!(denied.contains("lambda:InvokeFunctionUrl"), "{denied}");
        let signature = answer(
            403,
            "InvalidSignatureException",
            r#"{"message":"The request signature we calculated does not match"}"#,
        );
        assert!(
            signature.starts_with("AWS Lambda refused the credentials"),
            "{signature}"
        );
        let missing = answer(
            404,
            "ResourceNotFoundException",
            r#"{"Type":"User","message":"Function not found"}"#,
        );
        assert!(
            missing.starts_with(
                "AWS Lambda has no such function (HTTP 404 ResourceNotFoundException: Function not found)"
            ),
            "{missing}"
        );
        let throttled = answer(
            429,
            "TooManyRequestsException",
            r#"{"Reason":"ReservedFunctionConcurrentInvocationLimitExceeded"}"#,
        );
        assert!(throttled.contains("run fewer at once"), "{throttled}");
        // A function URL whose function crashed; cargo-lambda's emulator answers 500.
        for status in [500, 502] {
            let failed = invocation_error(&S3Error::from_response(status, &[], b"Internal Server Error"));
            assert!(
                failed.starts_with(&format!("The function did not answer (HTTP {status})")),
                "{failed}"
            );
        }
        let cors = invocation_error(&S3Error::network_failure("https://tools.example.test/"));
        assert!(cors.contains("--allow-origin https://tools.example.test`"), "{cors}");
        let timed_out = invocation_error(&S3Error::timed_out(std::time::Duration::from_secs(900)));
        assert_eq!(
            timed_out,
            "AWS Lambda did not answer within 900 s, nor on the retries after it."
        );
        for text in [denied, signature, missing, throttled, cors, timed_out] {
            assert!(!text.contains("S3 "), "{text}");
        }
    }
}
