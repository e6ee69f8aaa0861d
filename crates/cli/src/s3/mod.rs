//! `d9lens s3 ls|analyze`: list the account's buckets, or read a bucket of dial9 traces through the core's S3
//! client (presigned requests, listing parser, catalog, error explanations) with a
//! native HTTP executor ([`http`]).

mod analyze;
pub mod args;
mod buckets;
mod lambda;
mod ls;
pub mod summary;

use args::Common;
use d9lens_core::s3::{ErrorKind, S3Config};
use d9lens_http::FetchError;
use std::process::ExitCode;

pub const USAGE: &str = "usage:
  d9lens s3 ls [--endpoint URL] [--region R] [--profile P] [--json]      (the buckets these credentials may list)
  d9lens s3 ls s3://BUCKET[/PREFIX] [--endpoint URL] [--region R] [--profile P] [--max-keys N] [--max-objects N] [--json]
               [--from TIME] [--to TIME | --last DURATION] [--quiet]
  d9lens s3 analyze s3://BUCKET[/PREFIX] [--endpoint URL] [--region R] [--profile P] [--service S] [--host H] [--boot B]
                    [--from TIME] [--to TIME | --last DURATION] [--sample N | --fleet] [--jobs N] [--json] [--reference-compatible]
                    [--quiet]
                    [--lambda FUNCTION [--lambda-endpoint URL] [--lambda-results PREFIX] [--batch-mb N]]

Credentials are found as the AWS CLI finds them (the AWS SDK's own chain): a profile named by
--profile or AWS_PROFILE (static keys, role_arn + source_profile, SSO after `aws sso login`,
credential_process); else AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, the default
profile, web identity, the container role or the EC2 instance role; with none, requests go
unsigned (a public bucket). The region from --region, AWS_REGION, AWS_DEFAULT_REGION or the
profile (default us-east-1); the endpoint from --endpoint, AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL
(default AWS S3).
TIME is 2026-11-30T14:05:00Z, 2026-11-30T14:05 (UTC), 2026-11-30 or Unix seconds; DURATION is
90s, 15m, 2h or 7d.
The bucket is listed by partition (dates, services, hours), several listings at once, up to
--max-objects (200000); what a cap leaves out is named on stderr. --from/--to list only the
days, hours and 10-minute blocks their window touches (from 10 minutes earlier, for segments
running into it); --last first lists the bucket's shape (days, services, the newest minutes),
then the last DURATION up to the newest data. Without them, everything is listed. --fleet picks one segment per
host, the one starting nearest the middle of the window; --sample N takes N spread over the
selection's hosts and time, in an order fixed by the selection (a bigger N adds to a smaller
one), and says what it covers.
Segments download --jobs (12) at once and are analyzed on one thread per core meanwhile. On a
terminal, stderr shows the partitions listed, then the files done, bytes, rate and time left
(--quiet: no progress and no notes, only problems).
--lambda analyzes on AWS Lambda (the d9lens-lambda function): the selection in batches of
--batch-mb (32) MB, --jobs (4) invocations at once, signed with the same credentials; the function
reads the bucket with its own role. The report is the one a local run gives. The function is
called at --lambda-endpoint, AWS_ENDPOINT_URL_LAMBDA or AWS_ENDPOINT_URL (default AWS Lambda);
a cost estimate is printed first. --lambda-results
PREFIX lets the function store a batch's results too large to answer (6 MB) under PREFIX in
the bucket, and they are read from there (docs/lambda.md).";

pub fn run(argv: &[String]) -> Result<ExitCode, String> {
    let with_usage = |e: String| format!("{e}\n\n{USAGE}");
    match argv.first().map(String::as_str) {
        Some("ls") => match args::BucketsArgs::parse(&argv[1..]) {
            Some(b) => buckets::run(&b.map_err(with_usage)?),
            None => ls::run(&args::LsArgs::parse(&argv[1..]).map_err(with_usage)?),
        },
        Some("analyze") => analyze::run(&args::AnalyzeArgs::parse(&argv[1..]).map_err(with_usage)?),
        Some("-h" | "--help") => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        _ => Err(USAGE.to_owned()),
    }
}

/// The bucket's configuration from the flags, signed with the credentials
/// the AWS CLI would find.
fn config(common: &Common) -> Result<S3Config, String> {
    crate::aws_credentials::s3_config(
        &common.location.bucket,
        common.endpoint.as_deref(),
        common.region.as_deref(),
        common.profile.as_deref(),
    )
}

/// Where the CLI's credentials come from, when an error is about them.
fn credentials_hint(err: &FetchError, signed: bool) -> Option<&'static str> {
    let FetchError::S3(e) = err else { return None };
    match e.kind()? {
        ErrorKind::SignatureDoesNotMatch
        | ErrorKind::InvalidAccessKeyId
        | ErrorKind::InvalidToken
        | ErrorKind::ExpiredToken => Some(
            "d9lens signs with the credentials the AWS CLI would use: the profile of --profile or AWS_PROFILE, \
             else AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, else the default profile and roles.",
        ),
        ErrorKind::AccessDenied if !signed => Some(
            "No credentials were found (no profile, no AWS_ACCESS_KEY_ID, no role): the requests were sent unsigned.",
        ),
        _ => None,
    }
}

/// Prints an S3 failure (cause and fix) and gives the exit code for it.
pub fn failed(err: &FetchError, config: &S3Config) -> ExitCode {
    crate::output::warn(&err.explain());
    if let Some(hint) = credentials_hint(err, config.credentials.is_some()) {
        eprintln!("{hint}");
    }
    ExitCode::from(1)
}
