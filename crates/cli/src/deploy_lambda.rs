//! `d9lens deploy-lambda`: creates or updates the `d9lens-lambda` function
//! from its built zip, then its IAM-authenticated function URL, and prints the
//! IAM policies around it. Every request, body, decision and policy is the
//! core's (`d9lens_core::fleet::deploy`); this reads the zip, sends, waits and
//! prints.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::s3::args::{Location, number, value};
use d9lens_core::fleet::LambdaTarget;
use d9lens_core::fleet::batch::results_prefix;
use d9lens_core::fleet::deploy::{
    self, ControlRequest, DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT_SECS, DEFAULT_ZIP, Existing, FunctionSpec, ROLE_WAIT_SECS,
    ROLE_WAIT_TRIES, Readiness, SIGV4_HEADERS, WAIT_MAX_POLLS, WAIT_POLL_SECS,
};
use d9lens_core::fmt::bytes;
use d9lens_core::s3::{BucketName, Credentials, Region, S3Error};
use d9lens_core::site::{Origin, Prefix};
use d9lens_http::{Client, FetchError, Response};

pub const USAGE: &str = "usage:
  d9lens deploy-lambda --function NAME --role ARN [--zip PATH] [--region R] [--endpoint URL]
                       [--allow-origin ORIGIN]... [--memory MB] [--timeout SECS] [--dry-run]
  d9lens deploy-lambda --function NAME [--region R] --print-policies BUCKET [PREFIX]
                       [--results-prefix RESULTS]

Creates the Lambda function NAME from the built zip (default
target/lambda/bootstrap/bootstrap.zip, from `cargo lambda build --release --arm64
-p d9lens-lambda --output-format zip`), or updates its code and configuration when
it exists: runtime provided.al2023 on arm64, handler bootstrap, execution role ARN,
--memory MB (default 2048) and --timeout SECS (default 300). Then creates or
updates its function URL: AuthType AWS_IAM, CORS letting each --allow-origin (the
page's origin, e.g. https://traces.example.com) POST with the headers of a SigV4
request. Waits while Lambda creates or updates the function; prints the function
URL at the end.
--dry-run prints the requests it would send (method and path) and sends nothing.
--endpoint URL sends to a Lambda-compatible endpoint (also AWS_ENDPOINT_URL_LAMBDA
or AWS_ENDPOINT_URL) instead of AWS Lambda.

--print-policies prints, as one JSON object and without any request, the IAM
policies around the function reading traces in BUCKET under PREFIX (in --region
R, else any region): functionRole (s3:GetObject on the prefix, its logs),
functionRoleTrust (Lambda may assume the role), cliCaller (lambda:InvokeFunction,
s3:ListBucket: `d9lens s3 analyze --lambda`) and pageCaller
(lambda:InvokeFunctionUrl for AWS_IAM URLs, and lambda:InvokeFunction, which URLs
created since October 2025 also need). --results-prefix RESULTS (what `d9lens s3
analyze --lambda-results RESULTS` names) adds the function role's s3:PutObject and
the CLI caller's s3:GetObject on the results too large to answer, stored there.

Credentials and region come from the AWS environment variables, as for `d9lens
s3` (d9lens s3 --help); the identity needs lambda:GetFunction,
lambda:CreateFunction, lambda:UpdateFunctionCode,
lambda:UpdateFunctionConfiguration, lambda:GetFunctionConfiguration,
lambda:GetFunctionUrlConfig, lambda:CreateFunctionUrlConfig,
lambda:UpdateFunctionUrlConfig and iam:PassRole on the role.";

/// The `S3Config` the HTTP client is built on names a bucket; Lambda requests
/// never use it.
const UNUSED_BUCKET: &str = "d9lens-deploy-lambda";

#[derive(Debug)]
enum Command {
    Deploy(DeployArgs),
    PrintPolicies {
        function: String,
        region: Option<Region>,
        bucket: BucketName,
        prefix: Option<Prefix>,
        results: Option<Prefix>,
    },
}

#[derive(Debug)]
struct DeployArgs {
    spec: FunctionSpec,
    zip: PathBuf,
    region: Option<String>,
    endpoint: Option<String>,
    origins: Vec<Origin>,
    dry_run: bool,
}

impl Command {
    fn parse(args: &[String]) -> Result<Self, String> {
        let mut function = None;
        let mut role = None;
        let mut zip = None;
        let mut region = None;
        let mut endpoint = None;
        let mut origins: Vec<Origin> = Vec::new();
        let mut memory_mb = DEFAULT_MEMORY_MB;
        let mut timeout_secs = DEFAULT_TIMEOUT_SECS;
        let mut dry_run = false;
        let mut policies = None;
        let mut results = None;
        let mut it = args.iter().peekable();
        while let Some(arg) = it.next() {
            let flag = arg.as_str();
            match flag {
                "--function" => function = Some(value(&mut it, flag)?.to_owned()),
                "--role" => role = Some(value(&mut it, flag)?.to_owned()),
                "--zip" => zip = Some(PathBuf::from(value(&mut it, flag)?)),
                "--region" => region = Some(value(&mut it, flag)?.to_owned()),
                "--endpoint" => endpoint = Some(value(&mut it, flag)?.to_owned()),
                "--allow-origin" => {
                    let origin = Origin::parse(value(&mut it, flag)?).map_err(|e| format!("{flag}: {e}"))?;
                    if !origins.contains(&origin) {
                        origins.push(origin);
                    }
                }
                "--memory" => memory_mb = number(value(&mut it, flag)?, flag)?,
                "--timeout" => timeout_secs = number(value(&mut it, flag)?, flag)?,
                "--dry-run" => dry_run = true,
                "--print-policies" => {
                    let bucket = value(&mut it, flag)?.to_owned();
                    let prefix = it.next_if(|a| !a.starts_with("--")).cloned();
                    policies = Some((bucket, prefix));
                }
                "--results-prefix" => {
                    results = Some(results_prefix(value(&mut it, flag)?).map_err(|e| format!("{flag}: {e}"))?);
                }
                _ if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
                extra => return Err(format!("unexpected argument {extra:?}")),
            }
        }
        let function = function.ok_or("missing --function NAME")?;
        if results.is_some() && policies.is_none() {
            return Err("--results-prefix names the results in --print-policies' policies".into());
        }
        if let Some((bucket, prefix)) = policies {
            if role.is_some() || zip.is_some() || endpoint.is_some() || !origins.is_empty() || dry_run {
                return Err("--print-policies sends nothing: only --function and --region go with it".into());
            }
            let (bucket, prefix) = match (bucket.starts_with("s3://"), prefix) {
                (true, None) => {
                    let l = Location::parse(&bucket)?;
                    (l.bucket, l.prefix)
                }
                (_, prefix) => (bucket, prefix.unwrap_or_default()),
            };
            let prefix = Prefix::new(&prefix).map_err(|e| e.to_string())?;
            return Ok(Command::PrintPolicies {
                function,
                region: region.map(|r| Region::new(&r).map_err(|e| e.to_string())).transpose()?,
                bucket: BucketName::new(&bucket).map_err(|e| e.to_string())?,
                prefix: (!prefix.is_root()).then_some(prefix),
                results,
            });
        }
        let spec = FunctionSpec {
            name: function,
            role: role.ok_or("missing --role ARN (the function's execution role)")?,
            memory_mb,
            timeout_secs,
        };
        spec.check()?;
        Ok(Command::Deploy(DeployArgs {
            spec,
            zip: zip.unwrap_or_else(|| PathBuf::from(DEFAULT_ZIP)),
            region,
            endpoint,
            origins,
            dry_run,
        }))
    }
}

pub fn run(argv: &[String]) -> Result<ExitCode, String> {
    if matches!(argv.first().map(String::as_str), Some("-h" | "--help")) {
        println!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    }
    match Command::parse(argv).map_err(|e| format!("{e}\n\n{USAGE}"))? {
        Command::PrintPolicies {
            function,
            region,
            bucket,
            prefix,
            results,
        } => {
            let policies = deploy::policies(&function, region.as_ref(), &bucket, prefix.as_ref(), results.as_ref())?;
            println!("{}", deploy::policies_json(&policies));
            Ok(ExitCode::SUCCESS)
        }
        Command::Deploy(args) => Ok(match deploy_function(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("d9lens: {e}");
                ExitCode::from(1)
            }
        }),
    }
}

fn deploy_function(args: &DeployArgs) -> Result<(), String> {
    let zip = std::fs::read(&args.zip).map_err(|e| {
        format!(
            "{}: {e}. Build it first (cargo lambda build --release --arm64 -p d9lens-lambda --output-format zip) \
             or name it with --zip PATH",
            args.zip.display()
        )
    })?;
    deploy::check_zip(&zip).map_err(|e| format!("{}: {e}", args.zip.display()))?;
    let endpoint = d9lens_http::lambda_endpoint(args.endpoint.as_deref());
    let config = crate::aws_credentials::s3_config(UNUSED_BUCKET, endpoint.as_deref(), args.region.as_deref(), None)?;
    let target = LambdaTarget::new(&args.spec.name, config.region.clone(), endpoint.as_deref())
        .map_err(|e| format!("--endpoint: {e}"))?;
    let name = &args.spec.name;
    let zip_note = format!("{} ({})", args.zip.display(), bytes(zip.len() as u64));
    let where_ = match &target.endpoint {
        Some(e) => e.url(),
        None => format!("AWS Lambda, {}", target.region.as_str()),
    };
    if args.dry_run {
        println!("Dry run of the deploy of Lambda function {name} ({where_}) from {zip_note}: nothing is sent.");
        print_plan(args, &zip);
        return Ok(());
    }
    let credentials = config.credentials.clone().ok_or(
        "deploying a Lambda function needs AWS credentials (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / \
         AWS_SESSION_TOKEN)",
    )?;
    let client = Client::new(config);
    let api = Api {
        client: &client,
        target: &target,
        credentials: &credentials,
    };
    println!("Deploying Lambda function {name} ({where_}) from {zip_note}");

    let function = api.existing(&deploy::get_function(name))?;
    let mut arn = String::new();
    for request in deploy::function_requests(&args.spec, &zip, function) {
        println!("{}", request.describe());
        let answer = api.send_once_the_role_is_usable(&request)?;
        arn = api.wait_ready(name, &answer.body)?;
    }
    println!(
        "Function {arn}: {}, {} MB, {} s",
        match function {
            Existing::Missing => "created",
            Existing::Exists => "updated",
        },
        args.spec.memory_mb,
        args.spec.timeout_secs
    );

    let url = api.existing(&deploy::get_function_url_config(name))?;
    let request = deploy::url_request(name, &args.origins, url);
    println!("{}", request.describe());
    let answer = api.send(&request).map_err(|e| api.failed(&request, &e))?;
    let function_url = deploy::function_url(&answer.body)?;
    print_cors(&args.origins);
    println!("Function URL (AWS_IAM): {function_url}");
    Ok(())
}

/// What a dry run prints: every request either branch may send.
fn print_plan(args: &DeployArgs, zip: &[u8]) {
    let name = &args.spec.name;
    println!("{}", deploy::get_function(name).describe());
    println!("then, if the function does not exist:");
    for request in deploy::function_requests(&args.spec, zip, Existing::Missing) {
        println!("  {}", request.describe());
    }
    println!("or, if it exists:");
    for request in deploy::function_requests(&args.spec, zip, Existing::Exists) {
        println!("  {}", request.describe());
    }
    println!("after each, until the function is ready:");
    println!("  {}", deploy::get_function_configuration(name).describe());
    println!("{}", deploy::get_function_url_config(name).describe());
    println!("then, if the function URL does not exist:");
    println!(
        "  {}",
        deploy::url_request(name, &args.origins, Existing::Missing).describe()
    );
    println!("or, if it exists:");
    println!(
        "  {}",
        deploy::url_request(name, &args.origins, Existing::Exists).describe()
    );
    print_cors(&args.origins);
}

/// The function URL's CORS rule, in a line.
fn print_cors(origins: &[Origin]) {
    match origins {
        [] => println!("CORS: no origin allowed (no --allow-origin): the page cannot call the URL"),
        _ => println!(
            "CORS: POST from {} with {}",
            origins.iter().map(Origin::as_str).collect::<Vec<_>>().join(", "),
            SIGV4_HEADERS.join(", ")
        ),
    }
}

/// Sends Lambda API requests.
struct Api<'a> {
    client: &'a Client,
    target: &'a LambdaTarget,
    credentials: &'a Credentials,
}

impl Api<'_> {
    fn send(&self, request: &ControlRequest) -> Result<Response, S3Error> {
        self.client
            .fetch(request.action, |_, now| {
                request.sign(self.target, self.credentials, now)
            })
            .map_err(|e| match e {
                FetchError::S3(e) => e,
                FetchError::Listing(_) | FetchError::Buckets(_) => unreachable!("nothing here is parsed as a listing"),
            })
    }

    /// Create or update, by what a `Get…` request answers.
    fn existing(&self, request: &ControlRequest) -> Result<Existing, String> {
        println!("{}", request.describe());
        let outcome = self.send(request).map(drop);
        deploy::existing(outcome.as_ref().map(|_| ())).map_err(|e| format!("{} failed: {e}", request.describe()))
    }

    /// Sends `request`, again while Lambda cannot assume its (new) role yet.
    fn send_once_the_role_is_usable(&self, request: &ControlRequest) -> Result<Response, String> {
        let mut tries = 1;
        loop {
            match self.send(request) {
                Err(e) if deploy::role_not_yet_usable(&e) && tries < ROLE_WAIT_TRIES => {
                    println!(
                        "  Lambda cannot assume the role yet (a new role takes seconds to reach it): again in {ROLE_WAIT_SECS} s"
                    );
                    std::thread::sleep(Duration::from_secs(ROLE_WAIT_SECS));
                    tries += 1;
                }
                sent => return sent.map_err(|e| self.failed(request, &e)),
            }
        }
    }

    fn failed(&self, request: &ControlRequest, error: &S3Error) -> String {
        format!("{} failed: {}", request.describe(), deploy::api_error(error))
    }

    /// Waits while the function is being created or updated (`answer`: the
    /// last request's); its ARN once it is ready.
    fn wait_ready(&self, name: &str, answer: &[u8]) -> Result<String, String> {
        let mut status = deploy::function_status(answer)?;
        for _ in 0..WAIT_MAX_POLLS {
            match status.readiness() {
                Readiness::Ready => return Ok(status.function_arn),
                Readiness::Failed(why) => return Err(why),
                Readiness::Wait => std::thread::sleep(Duration::from_secs(WAIT_POLL_SECS)),
            }
            let request = deploy::get_function_configuration(name);
            let answer = self.send(&request).map_err(|e| self.failed(&request, &e))?;
            status = deploy::function_status(&answer.body)?;
        }
        Err(format!(
            "the function {name} is still being created or updated after {} s",
            u64::from(WAIT_MAX_POLLS) * WAIT_POLL_SECS
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Command, String> {
        Command::parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    const ROLE: &str = "arn:aws:iam::123456789012:role/d9lens-lambda";

    #[test]
    fn deploy() {
        let Ok(Command::Deploy(d)) = parse(&[
            "--function",
            "d9lens",
            "--role",
            ROLE,
            "--allow-origin",
            "https://traces.example.com",
            "--allow-origin",
            "https://TRACES.example.com/",
            "--memory",
            "4096",
            "--dry-run",
        ]) else {
            panic!()
        };
        assert_eq!(
            (d.spec.name.as_str(), d.spec.memory_mb, d.spec.timeout_secs),
            ("d9lens", 4096, 300)
        );
        assert_eq!(d.zip, PathBuf::from(DEFAULT_ZIP));
        assert_eq!(d.origins.len(), 1);
        assert!(d.dry_run);
    }

    #[test]
    fn print_policies() {
        let Ok(Command::PrintPolicies {
            bucket, prefix, region, ..
        }) = parse(&[
            "--function",
            "d9lens",
            "--print-policies",
            "b",
            "dial9",
            "--region",
            "eu-west-1",
        ])
        else {
            panic!()
        };
        assert_eq!((bucket.as_str(), prefix.unwrap().as_str()), ("b", "dial9/"));
        assert_eq!(region.unwrap().as_str(), "eu-west-1");
        let Ok(Command::PrintPolicies { prefix, .. }) = parse(&["--function", "f", "--print-policies", "s3://b/"])
        else {
            panic!()
        };
        assert!(prefix.is_none());
        let Ok(Command::PrintPolicies { results, .. }) = parse(&[
            "--function",
            "f",
            "--print-policies",
            "b",
            "--results-prefix",
            "d9lens-results",
        ]) else {
            panic!()
        };
        assert_eq!(results.unwrap().as_str(), "d9lens-results/");
    }

    #[test]
    fn errors() {
        assert!(parse(&[]).is_err());
        assert!(parse(&["--function", "d9lens"]).is_err());
        assert!(parse(&["--function", "d9:lens", "--role", ROLE]).is_err());
        assert!(parse(&["--function", "d9lens", "--role", ROLE, "--memory", "lots"]).is_err());
        assert!(parse(&["--function", "d9lens", "--role", ROLE, "--timeout", "901"]).is_err());
        assert!(parse(&["--function", "d9lens", "--role", ROLE, "--allow-origin", "*.example"]).is_err());
        assert!(parse(&["--function", "d9lens", "--role", ROLE, "--print-policies", "b"]).is_err());
        assert!(parse(&["--function", "d9lens", "--role", ROLE, "extra"]).is_err());
        assert!(parse(&["--function", "d9lens", "--role", ROLE, "--results-prefix", "r"]).is_err());
        assert!(parse(&["--function", "f", "--print-policies", "b", "--results-prefix", "../r"]).is_err());
    }
}
