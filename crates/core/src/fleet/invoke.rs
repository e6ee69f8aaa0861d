//! The Lambda `Invoke` request (synchronous, header-signed for service
//! `lambda`), and the error a function reports in its answer.

use crate::s3::encode::uri_encode;
use crate::s3::request::{ConfigError, CustomEndpoint};
use crate::s3::sigv4::{self, Payload, SignableRequest, SigningParams, SigningSettings};
use crate::s3::{Credentials, Endpoint, HttpRequest, Method, Region, SigningTime};

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
}
