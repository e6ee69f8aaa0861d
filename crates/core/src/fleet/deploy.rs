//! `d9lens deploy-lambda`: the Lambda API requests that create or update the
//! `d9lens-lambda` function and its function URL, what their answers mean
//! (create or update, wait, done, the URL), and the IAM policies the function
//! and its callers need. The shell reads the zip, sends, waits and prints.
//!
//! API versions: functions `2015-03-31`, function URLs `2021-10-31`.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::base64::base64_encode;
use super::invoke::{LambdaTarget, function_path, signed_request};
use crate::s3::encode::uri_encode;
use crate::s3::{BucketName, Credentials, ErrorKind, HttpRequest, Method, Region, S3Error, ServiceError, SigningTime};
use crate::site::policy::{Statement, get_objects, list_bucket, put_objects, wildcard_in};
use crate::site::{Origin, Prefix};

/// The function's runtime: a custom runtime (`bootstrap`) on Amazon Linux 2023.
pub const RUNTIME: &str = "provided.al2023";
/// Graviton: cheaper per GB-second than x86.
pub const ARCHITECTURE: &str = "arm64";
/// A custom runtime's handler is not read; `bootstrap` by convention.
pub const HANDLER: &str = "bootstrap";
pub const DEFAULT_MEMORY_MB: u32 = 2048;
pub const DEFAULT_TIMEOUT_SECS: u32 = 300;
/// Where `cargo lambda build --release --arm64 -p d9lens-lambda --output-format zip` writes.
pub const DEFAULT_ZIP: &str = "target/lambda/bootstrap/bootstrap.zip";
/// The largest zip Lambda takes inline (`ZipFile`), zipped.
pub const MAX_ZIP_BYTES: usize = 50 * 1024 * 1024;
/// The headers a SigV4-signed request from the page sends, which the function
/// URL's CORS rule must allow.
pub const SIGV4_HEADERS: [&str; 5] = [
    "authorization",
    "content-type",
    "x-amz-date",
    "x-amz-security-token",
    "x-amz-content-sha256",
];
/// How long a browser may cache the preflight (Lambda allows up to a day).
pub const CORS_MAX_AGE_SECS: u32 = 3600;
/// Seconds between two looks at a function that is still being created or updated.
pub const WAIT_POLL_SECS: u64 = 2;
/// Looks before giving up on it (5 minutes).
pub const WAIT_MAX_POLLS: u32 = 150;
/// Tries of a request refused because its new role has not reached Lambda
/// yet ([`role_not_yet_usable`]), and the seconds between them: IAM takes
/// seconds to propagate a new role.
pub const ROLE_WAIT_TRIES: u32 = 10;
pub const ROLE_WAIT_SECS: u64 = 3;

/// What the function is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionSpec {
    pub name: String,
    /// The execution role's ARN.
    pub role: String,
    pub memory_mb: u32,
    pub timeout_secs: u32,
}

impl FunctionSpec {
    /// Refuses what Lambda would: memory outside 128–10,240 MB, a timeout
    /// outside 1–900 s, a name that is not a plain function name, a role
    /// that is not an IAM role ARN.
    pub fn check(&self) -> Result<(), String> {
        let name_ok = (1..=64).contains(&self.name.len())
            && self
                .name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !name_ok {
            return Err(format!(
                "--function {:?}: a function name is 1-64 letters, digits, '-' or '_'",
                self.name
            ));
        }
        if !(self.role.starts_with("arn:aws") && self.role.contains(":iam::") && self.role.contains(":role/")) {
            return Err(format!(
                "--role {:?}: an IAM role ARN, arn:aws:iam::ACCOUNT:role/NAME",
                self.role
            ));
        }
        if !(128..=10_240).contains(&self.memory_mb) {
            return Err(format!("--memory {}: Lambda takes 128 to 10240 MB", self.memory_mb));
        }
        if !(1..=900).contains(&self.timeout_secs) {
            return Err(format!(
                "--timeout {}: Lambda takes 1 to 900 seconds",
                self.timeout_secs
            ));
        }
        Ok(())
    }
}

/// Refuses bytes that are not a zip Lambda takes inline.
pub fn check_zip(bytes: &[u8]) -> Result<(), String> {
    if !bytes.starts_with(b"PK\x03\x04") {
        return Err("not a zip archive (build it with cargo lambda build ... --output-format zip)".into());
    }
    if bytes.len() > MAX_ZIP_BYTES {
        return Err(format!(
            "{} bytes, more than the {MAX_ZIP_BYTES} Lambda takes in a request",
            bytes.len()
        ));
    }
    Ok(())
}

/// One Lambda API call, before signing: what a dry run prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlRequest {
    /// The API action, e.g. `CreateFunction`.
    pub action: &'static str,
    pub method: Method,
    /// Percent-encoded, below the endpoint.
    pub path: String,
    pub body: Option<String>,
}

impl ControlRequest {
    fn new(action: &'static str, method: Method, path: String, body: Option<Value>) -> Self {
        Self {
            action,
            method,
            path,
            body: body.map(|b| b.to_string()),
        }
    }

    /// `METHOD PATH (Action)`: never the body (it holds the zip).
    pub fn describe(&self) -> String {
        format!("{} {} ({})", self.method.as_str(), self.path, self.action)
    }

    /// Signed for service `lambda` at `now`.
    pub fn sign(&self, target: &LambdaTarget, credentials: &Credentials, now: SigningTime) -> HttpRequest {
        signed_request(target, credentials, self.method, &self.path, self.body.as_deref(), now)
    }
}

fn url_path(name: &str) -> String {
    format!("/2021-10-31/functions/{}/url", uri_encode(name, false))
}

/// `GetFunction`: a 404 says create, a 200 update.
pub fn get_function(name: &str) -> ControlRequest {
    ControlRequest::new("GetFunction", Method::Get, function_path(name), None)
}

/// `GetFunctionConfiguration`: its state, while a create or update runs.
pub fn get_function_configuration(name: &str) -> ControlRequest {
    let path = format!("{}/configuration", function_path(name));
    ControlRequest::new("GetFunctionConfiguration", Method::Get, path, None)
}

fn configuration(spec: &FunctionSpec) -> Value {
    json!({
        "Role": spec.role,
        "Runtime": RUNTIME,
        "Handler": HANDLER,
        "MemorySize": spec.memory_mb,
        "Timeout": spec.timeout_secs,
    })
}

/// `CreateFunction` with the zip inline.
pub fn create_function(spec: &FunctionSpec, zip: &[u8]) -> ControlRequest {
    let mut body = configuration(spec);
    body["FunctionName"] = json!(spec.name);
    body["Architectures"] = json!([ARCHITECTURE]);
    body["PackageType"] = json!("Zip");
    body["Code"] = json!({ "ZipFile": base64_encode(zip) });
    ControlRequest::new(
        "CreateFunction",
        Method::Post,
        "/2015-03-31/functions".into(),
        Some(body),
    )
}

/// `UpdateFunctionCode` with the zip inline (and the architecture, which
/// only the code update sets).
pub fn update_function_code(name: &str, zip: &[u8]) -> ControlRequest {
    let body = json!({ "ZipFile": base64_encode(zip), "Architectures": [ARCHITECTURE], "Publish": false });
    let path = format!("{}/code", function_path(name));
    ControlRequest::new("UpdateFunctionCode", Method::Put, path, Some(body))
}

/// `UpdateFunctionConfiguration`: role, runtime, handler, memory, timeout.
pub fn update_function_configuration(spec: &FunctionSpec) -> ControlRequest {
    let path = format!("{}/configuration", function_path(&spec.name));
    ControlRequest::new(
        "UpdateFunctionConfiguration",
        Method::Put,
        path,
        Some(configuration(spec)),
    )
}

/// The function URL's CORS block: each origin may POST with the headers of a
/// SigV4-signed request.
pub fn cors(origins: &[Origin]) -> Value {
    json!({
        "AllowOrigins": origins.iter().map(Origin::as_str).collect::<Vec<_>>(),
        "AllowMethods": ["POST"],
        "AllowHeaders": SIGV4_HEADERS,
        "MaxAge": CORS_MAX_AGE_SECS,
        "AllowCredentials": false,
    })
}

fn url_config(origins: &[Origin]) -> Value {
    json!({ "AuthType": "AWS_IAM", "Cors": cors(origins) })
}

/// `GetFunctionUrlConfig`: a 404 says create, a 200 update.
pub fn get_function_url_config(name: &str) -> ControlRequest {
    ControlRequest::new("GetFunctionUrlConfig", Method::Get, url_path(name), None)
}

/// `CreateFunctionUrlConfig`: IAM-authenticated, CORS for `origins`.
pub fn create_function_url_config(name: &str, origins: &[Origin]) -> ControlRequest {
    ControlRequest::new(
        "CreateFunctionUrlConfig",
        Method::Post,
        url_path(name),
        Some(url_config(origins)),
    )
}

/// `UpdateFunctionUrlConfig`: the same settings on an existing URL.
pub fn update_function_url_config(name: &str, origins: &[Origin]) -> ControlRequest {
    ControlRequest::new(
        "UpdateFunctionUrlConfig",
        Method::Put,
        url_path(name),
        Some(url_config(origins)),
    )
}

/// Create or update, by the answer to a `Get…` request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    Missing,
    Exists,
}

/// A `Get…` request's outcome read as create or update; any other error is
/// given back.
pub fn existing(outcome: Result<(), &S3Error>) -> Result<Existing, String> {
    match outcome {
        Ok(()) => Ok(Existing::Exists),
        Err(S3Error::Service(ServiceError { code, kind, .. }))
            if code.as_deref() == Some("ResourceNotFoundException")
                || (code.is_none() && *kind == ErrorKind::NotFound) =>
        {
            Ok(Existing::Missing)
        }
        Err(e) => Err(api_error(e)),
    }
}

/// The function's create (`Missing`) or update (`Exists`) requests, in order;
/// the shell waits for the function to be ready after each.
pub fn function_requests(spec: &FunctionSpec, zip: &[u8], existing: Existing) -> Vec<ControlRequest> {
    match existing {
        Existing::Missing => vec![create_function(spec, zip)],
        Existing::Exists => vec![
            update_function_code(&spec.name, zip),
            update_function_configuration(spec),
        ],
    }
}

/// The function URL's create or update request.
pub fn url_request(name: &str, origins: &[Origin], existing: Existing) -> ControlRequest {
    match existing {
        Existing::Missing => create_function_url_config(name, origins),
        Existing::Exists => update_function_url_config(name, origins),
    }
}

/// Lambda refused the execution role because it cannot assume it yet. A
/// role created moments before (the usual first deploy) gets this until IAM
/// has propagated it; the same request then succeeds, so it is tried again
/// ([`ROLE_WAIT_TRIES`]). A role that is wrong for good fails the same way
/// once the tries are over.
pub fn role_not_yet_usable(error: &S3Error) -> bool {
    matches!(
        error,
        S3Error::Service(ServiceError { code: Some(code), message: Some(message), .. })
            if code == "InvalidParameterValueException" && message.contains("cannot be assumed by Lambda")
    )
}

/// A Lambda API error in a person's words: status, code and Lambda's message.
pub fn api_error(error: &S3Error) -> String {
    match error {
        S3Error::Service(e) => super::invoke::said(e),
        other => super::invoke::plainly(other),
    }
}

/// What a function's configuration says about it (`FunctionConfiguration`,
/// alone or as GetFunction's `Configuration`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct FunctionStatus {
    #[serde(default)]
    pub function_arn: String,
    /// `Pending`, `Active`, `Inactive`, `Failed`.
    pub state: Option<String>,
    pub state_reason: Option<String>,
    /// `InProgress`, `Successful`, `Failed`.
    pub last_update_status: Option<String>,
    pub last_update_status_reason: Option<String>,
}

/// The status in a `FunctionConfiguration` or `GetFunction` answer.
pub fn function_status(body: &[u8]) -> Result<FunctionStatus, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "PascalCase")]
    struct GetFunction {
        configuration: FunctionStatus,
    }
    serde_json::from_slice::<GetFunction>(body)
        .map(|g| g.configuration)
        .or_else(|_| serde_json::from_slice::<FunctionStatus>(body))
        .map_err(|e| format!("the answer is not a Lambda function configuration: {e}"))
}

/// Whether the next request may go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    Ready,
    /// Being created or updated: look again in [`WAIT_POLL_SECS`].
    Wait,
    Failed(String),
}

impl FunctionStatus {
    pub fn readiness(&self) -> Readiness {
        let reason = |r: &Option<String>| r.clone().unwrap_or_else(|| "no reason given".into());
        match (self.state.as_deref(), self.last_update_status.as_deref()) {
            (Some("Failed"), _) => Readiness::Failed(format!("the function failed: {}", reason(&self.state_reason))),
            (_, Some("Failed")) => Readiness::Failed(format!(
                "the function's update failed: {}",
                reason(&self.last_update_status_reason)
            )),
            (Some("Pending"), _) | (_, Some("InProgress")) => Readiness::Wait,
            _ => Readiness::Ready,
        }
    }
}

/// The function URL in a `…FunctionUrlConfig` answer.
pub fn function_url(body: &[u8]) -> Result<String, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "PascalCase")]
    struct UrlConfig {
        function_url: String,
    }
    serde_json::from_slice::<UrlConfig>(body)
        .map(|c| c.function_url)
        .map_err(|e| format!("the answer is not a function URL configuration: {e}"))
}

/// The IAM policies around the function, as `--print-policies` prints them.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Policies {
    /// The function's execution role: read the traces, write its logs
    /// (and results too large to answer, under the results prefix).
    pub function_role: Value,
    /// The execution role's trust policy: Lambda may assume it.
    pub function_role_trust: Value,
    /// Who runs `d9lens s3 analyze --lambda`: invoke, list the bucket (and
    /// read stored results, with `--lambda-results`).
    pub cli_caller: Value,
    /// Who opens the page and calls the function URL (SigV4).
    pub page_caller: Value,
}

/// The policies for function `name` reading `bucket` (under `prefix`), in
/// `region` (`None`: any), storing results too large to answer under
/// `results` (`fleet::stored`) when given. Refuses names with `*`, `?` or
/// `$`, which a policy reads as wildcards or variables.
pub fn policies(
    name: &str,
    region: Option<&Region>,
    bucket: &BucketName,
    prefix: Option<&Prefix>,
    results: Option<&Prefix>,
) -> Result<Policies, String> {
    let prefix = prefix.map_or("", Prefix::as_str);
    if let Some(text) = wildcard_in([name, bucket.as_str(), prefix, results.map_or("", Prefix::as_str)]) {
        return Err(format!(
            "{text:?}: a policy would read '*', '?' or '$' as a wildcard or variable"
        ));
    }
    let arn = region.map_or("aws", Region::partition);
    let region = region.map_or("*", Region::as_str);
    let function_arn = format!("arn:{arn}:lambda:{region}:*:function:{name}");
    let bucket_arn = format!("arn:{arn}:s3:::{}", bucket.as_str());
    let log_group = format!("arn:{arn}:logs:{region}:*:log-group:/aws/lambda/{name}");
    let policy = |statements: Value| json!({ "Version": "2012-10-17", "Statement": statements });
    let with_sid = |sid: &str, statement: Statement| {
        let mut statement = serde_json::to_value(statement).expect("a statement serialises");
        statement["Sid"] = json!(sid);
        statement
    };
    let mut function_role = vec![
        with_sid("ReadTraces", get_objects(&bucket_arn, prefix)),
        json!({
            "Sid": "CreateLogGroup",
            "Effect": "Allow",
            "Action": "logs:CreateLogGroup",
            "Resource": format!("arn:{arn}:logs:{region}:*:*"),
        }),
        json!({
            "Sid": "WriteLogs",
            "Effect": "Allow",
            "Action": ["logs:CreateLogStream", "logs:PutLogEvents"],
            "Resource": format!("{log_group}:*"),
        }),
    ];
    let mut cli_caller = vec![
        json!({
            "Sid": "InvokeAnalysis",
            "Effect": "Allow",
            "Action": "lambda:InvokeFunction",
            "Resource": [function_arn.clone(), format!("{function_arn}:*")],
        }),
        with_sid("ListTraces", list_bucket(&bucket_arn, prefix)),
    ];
    let mut page_caller = vec![
        json!({
            "Sid": "InvokeFunctionUrl",
            "Effect": "Allow",
            "Action": "lambda:InvokeFunctionUrl",
            "Resource": function_arn.clone(),
            "Condition": { "StringEquals": { "lambda:FunctionUrlAuthType": "AWS_IAM" } },
        }),
        json!({
            // Function URLs created since October 2025 also need it.
            "Sid": "InvokeBehindTheUrl",
            "Effect": "Allow",
            "Action": "lambda:InvokeFunction",
            "Resource": function_arn,
        }),
    ];
    if let Some(results) = results.map(Prefix::as_str) {
        function_role.push(with_sid("StoreResults", put_objects(&bucket_arn, results)));
        let read_results = with_sid("ReadResults", get_objects(&bucket_arn, results));
        cli_caller.push(read_results.clone());
        page_caller.push(read_results);
    }
    Ok(Policies {
        function_role: policy(Value::Array(function_role)),
        function_role_trust: policy(json!([{
            "Effect": "Allow",
            "Principal": { "Service": "lambda.amazonaws.com" },
            "Action": "sts:AssumeRole",
        }])),
        cli_caller: policy(Value::Array(cli_caller)),
        page_caller: policy(Value::Array(page_caller)),
    })
}

/// [`policies`] as pretty JSON: one object, a policy per field.
pub fn policies_json(policies: &Policies) -> String {
    serde_json::to_string_pretty(policies).expect("policies always serialise")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::s3::{Endpoint, Timestamp};

    fn spec() -> FunctionSpec {
        FunctionSpec {
            name: "d9lens".into(),
            role: "arn:aws:iam::123456789012:role/d9lens-lambda".into(),
            memory_mb: DEFAULT_MEMORY_MB,
            timeout_secs: DEFAULT_TIMEOUT_SECS,
        }
    }

    fn body(req: &ControlRequest) -> Value {
        serde_json::from_str(req.body.as_deref().unwrap()).unwrap()
    }

    fn origins() -> Vec<Origin> {
        vec![
            Origin::parse("https://traces.example.com").unwrap(),
            Origin::parse("http://localhost:8080").unwrap(),
        ]
    }

    const ZIP: &[u8] = b"PK\x03\x04zip";

    #[test]
    fn create_sends_the_whole_function() {
        let req = create_function(&spec(), ZIP);
        assert_eq!(req.describe(), "POST /2015-03-31/functions (CreateFunction)");
        assert_eq!(
            body(&req),
            json!({
                "FunctionName": "d9lens",
                "Role": "arn:aws:iam::123456789012:role/d9lens-lambda",
                "Runtime": "provided.al2023",
                "Architectures": ["arm64"],
                "Handler": "bootstrap",
                "MemorySize": 2048,
                "Timeout": 300,
                "PackageType": "Zip",
                "Code": { "ZipFile": "UEsDBHppcA==" },
            })
        );
    }

    #[test]
    fn update_sends_code_then_configuration() {
        let [code, config] = function_requests(&spec(), ZIP, Existing::Exists).try_into().unwrap();
        assert_eq!(
            code.describe(),
            "PUT /2015-03-31/functions/d9lens/code (UpdateFunctionCode)"
        );
        assert_eq!(
            body(&code),
            json!({ "ZipFile": "UEsDBHppcA==", "Architectures": ["arm64"], "Publish": false })
        );
        assert_eq!(
            config.describe(),
            "PUT /2015-03-31/functions/d9lens/configuration (UpdateFunctionConfiguration)"
        );
        assert_eq!(
            body(&config),
            json!({
                "Role": "arn:aws:iam::123456789012:role/d9lens-lambda",
                "Runtime": "provided.al2023",
                "Handler": "bootstrap",
                "MemorySize": 2048,
                "Timeout": 300,
            })
        );
        let [create] = function_requests(&spec(), ZIP, Existing::Missing).try_into().unwrap();
        assert_eq!(create.action, "CreateFunction");
    }

    #[test]
    fn reads_and_url_paths() {
        assert_eq!(
            get_function("d9lens").describe(),
            "GET /2015-03-31/functions/d9lens (GetFunction)"
        );
        assert_eq!(get_function("d9lens").body, None);
        assert_eq!(
            get_function_configuration("d9lens").describe(),
            "GET /2015-03-31/functions/d9lens/configuration (GetFunctionConfiguration)"
        );
        assert_eq!(
            get_function_url_config("d9lens").describe(),
            "GET /2021-10-31/functions/d9lens/url (GetFunctionUrlConfig)"
        );
        let create = url_request("d9lens", &origins(), Existing::Missing);
        assert_eq!(
            create.describe(),
            "POST /2021-10-31/functions/d9lens/url (CreateFunctionUrlConfig)"
        );
        let update = url_request("d9lens", &origins(), Existing::Exists);
        assert_eq!(
            update.describe(),
            "PUT /2021-10-31/functions/d9lens/url (UpdateFunctionUrlConfig)"
        );
        assert_eq!(body(&create), body(&update));
    }

    #[test]
    fn the_url_is_iam_authenticated_with_cors_for_signed_posts() {
        assert_eq!(
            body(&create_function_url_config("d9lens", &origins())),
            json!({
                "AuthType": "AWS_IAM",
                "Cors": {
                    "AllowOrigins": ["https://traces.example.com", "http://localhost:8080"],
                    "AllowMethods": ["POST"],
                    "AllowHeaders": [
                        "authorization",
                        "content-type",
                        "x-amz-date",
                        "x-amz-security-token",
                        "x-amz-content-sha256"
                    ],
                    "MaxAge": 3600,
                    "AllowCredentials": false,
                },
            })
        );
    }

    #[test]
    fn requests_are_signed_for_lambda() {
        let keys = Credentials::new(
            "AKIDEXAMPLE",
            "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            Some("TOKEN".into()),
        )
        .unwrap();
        let target = LambdaTarget {
            function: "d9lens".into(),
            region: Region::new("eu-west-1").unwrap(),
            endpoint: None,
        };
        let now = Timestamp::from_unix_secs(1_796_047_538);
        let header = |req: &HttpRequest, name: &str| {
            req.headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        let get = get_function("d9lens").sign(&target, &keys, now);
        assert_eq!(get.method, Method::Get);
        assert_eq!(
            get.url,
            "https://lambda.eu-west-1.amazonaws.com/2015-03-31/functions/d9lens"
        );
        assert_eq!(get.body, None);
        assert_eq!(header(&get, "content-type"), None);
        let auth = header(&get, "authorization").unwrap();
        assert!(auth.contains("/20261130/eu-west-1/lambda/aws4_request"), "{auth}");
        assert_eq!(header(&get, "x-amz-security-token").as_deref(), Some("TOKEN"));

        let put = url_request("d9lens", &origins(), Existing::Exists).sign(&target, &keys, now);
        assert_eq!(put.method, Method::Put);
        assert_eq!(
            put.url,
            "https://lambda.eu-west-1.amazonaws.com/2021-10-31/functions/d9lens/url"
        );
        assert_eq!(header(&put, "content-type").as_deref(), Some("application/json"));
        assert!(
            header(&put, "authorization")
                .unwrap()
                .contains("SignedHeaders=content-type;host;")
        );
        assert!(put.body.unwrap().contains("AWS_IAM"));

        let Endpoint::Custom(endpoint) = Endpoint::custom("http://127.0.0.1:9001/emu").unwrap() else {
            unreachable!()
        };
        let local = LambdaTarget {
            endpoint: Some(endpoint),
            ..target
        };
        let create = create_function(&spec(), ZIP).sign(&local, &keys, now);
        assert_eq!(create.url, "http://127.0.0.1:9001/emu/2015-03-31/functions");
    }

    #[test]
    fn not_found_means_create_and_other_errors_are_told() {
        let answer = |status: u16, kind: &str, body: &str| {
            let headers = [("x-amzn-ErrorType".to_owned(), kind.to_owned())];
            S3Error::from_response(status, &headers, body.as_bytes())
        };
        let missing = answer(
            404,
            "ResourceNotFoundException",
            r#"{"Type":"User","message":"Function not found: arn:aws:lambda:eu-west-1:123456789012:function:d9lens"}"#,
        );
        assert_eq!(existing(Err(&missing)), Ok(Existing::Missing));
        assert_eq!(existing(Ok(())), Ok(Existing::Exists));
        let bare = S3Error::from_response(404, &[], b"");
        assert_eq!(existing(Err(&bare)), Ok(Existing::Missing));
        let denied = answer(
            403,
            "AccessDeniedException:http://internal.amazon.com/coral/com.amazonaws.lambda/",
            r#"{"Message":"User is not authorized to perform: lambda:GetFunction"}"#,
        );
        assert_eq!(
            existing(Err(&denied)),
            Err("HTTP 403 AccessDeniedException: User is not authorized to perform: lambda:GetFunction".into())
        );
        let invalid = answer(
            400,
            "InvalidParameterValueException",
            r#"{"Type":"User","message":"The role defined for the function cannot be assumed by Lambda."}"#,
        );
        assert_eq!(
            api_error(&invalid),
            "HTTP 400 InvalidParameterValueException: The role defined for the function cannot be assumed by Lambda."
        );
        assert!(role_not_yet_usable(&invalid));
        let other_invalid = answer(
            400,
            "InvalidParameterValueException",
            r#"{"message":"Unzipped size must be smaller"}"#,
        );
        assert!(!role_not_yet_usable(&other_invalid) && !role_not_yet_usable(&denied));
        // A 404 of another kind (an unknown route) is no reason to create.
        let other = answer(404, "UnknownOperationException", "{}");
        assert!(existing(Err(&other)).is_err());
    }

    #[test]
    fn the_status_says_when_to_go_on() {
        let status = |body: &str| function_status(body.as_bytes()).unwrap();
        let created = status(
            r#"{"FunctionName":"d9lens","FunctionArn":"arn:aws:lambda:eu-west-1:123456789012:function:d9lens",
                "State":"Pending","StateReason":"The function is being created.","LastUpdateStatus":"InProgress"}"#,
        );
        assert_eq!(
            created.function_arn,
            "arn:aws:lambda:eu-west-1:123456789012:function:d9lens"
        );
        assert_eq!(created.readiness(), Readiness::Wait);
        let got = status(
            r#"{"Configuration":{"FunctionArn":"a","State":"Active","LastUpdateStatus":"Successful"},
                "Code":{"RepositoryType":"S3"}}"#,
        );
        assert_eq!(got.readiness(), Readiness::Ready);
        assert_eq!(
            status(r#"{"State":"Active","LastUpdateStatus":"InProgress"}"#).readiness(),
            Readiness::Wait
        );
        assert_eq!(
            status(r#"{"State":"Active","LastUpdateStatus":"Failed","LastUpdateStatusReason":"bad zip"}"#).readiness(),
            Readiness::Failed("the function's update failed: bad zip".into())
        );
        assert!(matches!(
            status(r#"{"State":"Failed"}"#).readiness(),
            Readiness::Failed(_)
        ));
        assert!(function_status(b"<html>").is_err());
    }

    #[test]
    fn the_function_url_is_read_back() {
        let body =
            br#"{"AuthType":"AWS_IAM","FunctionArn":"a","FunctionUrl":"https://abc.lambda-url.eu-west-1.on.aws/"}"#;
        assert_eq!(function_url(body).unwrap(), "https://abc.lambda-url.eu-west-1.on.aws/");
        assert!(function_url(b"{}").is_err());
    }

    #[test]
    fn specs_and_zips_are_checked() {
        assert_eq!(spec().check(), Ok(()));
        for bad in [
            FunctionSpec {
                name: "a:b".into(),
                ..spec()
            },
            FunctionSpec {
                role: "d9lens-lambda".into(),
                ..spec()
            },
            FunctionSpec {
                memory_mb: 64,
                ..spec()
            },
            FunctionSpec {
                timeout_secs: 901,
                ..spec()
            },
        ] {
            assert!(bad.check().is_err(), "{bad:?}");
        }
        assert_eq!(check_zip(ZIP), Ok(()));
        assert!(check_zip(b"\x7fELF").is_err());
        let mut big = ZIP.to_vec();
        big.resize(MAX_ZIP_BYTES + 1, 0);
        assert!(check_zip(&big).is_err());
    }

    #[test]
    fn the_policies() {
        let bucket = BucketName::new("acme-traces").unwrap();
        let prefix = Prefix::new("dial9").unwrap();
        let region = Region::new("eu-west-1").unwrap();
        let p = policies("d9lens", Some(&region), &bucket, Some(&prefix), None).unwrap();
        let back: Value = serde_json::from_str(&policies_json(&p)).unwrap();
        assert_eq!(
            back["functionRole"]["Statement"][0],
            json!({ "Sid": "ReadTraces", "Effect": "Allow", "Action": "s3:GetObject",
                    "Resource": "arn:aws:s3:::acme-traces/dial9/*" })
        );
        assert_eq!(
            back["functionRole"]["Statement"][2]["Resource"],
            "arn:aws:logs:eu-west-1:*:log-group:/aws/lambda/d9lens:*"
        );
        let actions: Vec<&Value> = back["functionRole"]["Statement"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| &s["Action"])
            .collect();
        assert!(!actions.contains(&&json!("s3:ListBucket")));
        assert_eq!(
            back["functionRoleTrust"]["Statement"][0]["Principal"]["Service"],
            "lambda.amazonaws.com"
        );
        assert_eq!(
            back["cliCaller"]["Statement"],
            json!([
                { "Sid": "InvokeAnalysis", "Effect": "Allow", "Action": "lambda:InvokeFunction",
                  "Resource": ["arn:aws:lambda:eu-west-1:*:function:d9lens", "arn:aws:lambda:eu-west-1:*:function:d9lens:*"] },
                { "Sid": "ListTraces", "Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::acme-traces",
                  "Condition": { "StringLike": { "s3:prefix": ["dial9/", "dial9/*"] } } },
            ])
        );
        assert_eq!(
            back["pageCaller"]["Statement"][0],
            json!({ "Sid": "InvokeFunctionUrl", "Effect": "Allow", "Action": "lambda:InvokeFunctionUrl",
                    "Resource": "arn:aws:lambda:eu-west-1:*:function:d9lens",
                    "Condition": { "StringEquals": { "lambda:FunctionUrlAuthType": "AWS_IAM" } } })
        );
        assert_eq!(back["Version"], Value::Null);
        assert_eq!(back["pageCaller"]["Version"], "2012-10-17");

        let anywhere = policies("d9lens", None, &bucket, None, None).unwrap();
        assert_eq!(
            anywhere.function_role["Statement"][0]["Resource"],
            "arn:aws:s3:::acme-traces/*"
        );
        assert_eq!(anywhere.cli_caller["Statement"][1].get("Condition"), None);
        assert_eq!(
            anywhere.page_caller["Statement"][1]["Resource"],
            "arn:aws:lambda:*:*:function:d9lens"
        );
        let china = Region::new("cn-north-1").unwrap();
        let cn = policies("d9lens", Some(&china), &bucket, None, None).unwrap();
        assert_eq!(
            cn.function_role["Statement"][0]["Resource"],
            "arn:aws-cn:s3:::acme-traces/*"
        );
        assert!(policies("d9*", None, &bucket, None, None).is_err());
    }

    #[test]
    fn stored_results_are_written_by_the_function_and_read_by_its_callers() {
        let bucket = BucketName::new("acme-traces").unwrap();
        let prefix = Prefix::new("dial9").unwrap();
        let results = Prefix::new("d9lens-results").unwrap();
        let p = policies("d9lens", None, &bucket, Some(&prefix), Some(&results)).unwrap();
        assert_eq!(
            p.function_role["Statement"][3],
            json!({ "Sid": "StoreResults", "Effect": "Allow", "Action": "s3:PutObject",
                    "Resource": "arn:aws:s3:::acme-traces/d9lens-results/*" })
        );
        assert_eq!(
            p.cli_caller["Statement"][2],
            json!({ "Sid": "ReadResults", "Effect": "Allow", "Action": "s3:GetObject",
                    "Resource": "arn:aws:s3:::acme-traces/d9lens-results/*" })
        );
        assert_eq!(p.page_caller["Statement"][2], p.cli_caller["Statement"][2]);
        // Nothing else changes.
        let without = policies("d9lens", None, &bucket, Some(&prefix), None).unwrap();
        assert_eq!(p.function_role["Statement"].as_array().unwrap().len(), 4);
        assert_eq!(without.function_role["Statement"].as_array().unwrap().len(), 3);
        assert_eq!(p.cli_caller["Statement"].as_array().unwrap().len(), 3);
        assert_eq!(p.page_caller["Statement"].as_array().unwrap().len(), 3);
        assert_eq!(without.page_caller["Statement"].as_array().unwrap().len(), 2);
        let wild = Prefix::new("results-${aws:username}").unwrap();
        assert!(policies("d9lens", None, &bucket, None, Some(&wild)).is_err());
    }
}
