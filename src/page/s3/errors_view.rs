//! S3 problems as the page shows them: what happened, and what to change.
//! Texts come from the core (which never puts a secret in them) or name a
//! form field; no URL is ever shown (a presigned URL is a bearer credential).

use d9lens_core::s3::{BucketName, ErrorKind, Region, S3Error, cors_rule_json};
use d9lens_core::site::{Prefix, reader_policy_json};
use leptos::prelude::*;

#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// A stable kind for tests and styling: `network`, `signature`, `region`, …
    pub kind: String,
    pub cause: String,
    pub fix: String,
    /// The CORS rule to add, for a request that got no answer.
    pub cors_rule: Option<String>,
    /// The readers' minimal IAM policy, for a request that was refused or blocked.
    pub policy: Option<String>,
    /// S3's error code, when it sent one.
    pub code: Option<String>,
}

impl Problem {
    /// A problem with the form's input (no request was sent).
    pub fn input(cause: impl Into<String>, fix: impl Into<String>) -> Self {
        Problem {
            kind: "input".into(),
            cause: cause.into(),
            fix: fix.into(),
            cors_rule: None,
            policy: None,
            code: None,
        }
    }

    pub fn from_s3(error: &S3Error) -> Self {
        let (kind, code, fix, cors_rule) = match error {
            S3Error::NetworkFailure { page_origin } => (
                "network",
                None,
                "Add a CORS rule to the bucket that allows this page's origin (below; with the AWS CLI: save it as \
                 cors.json and run `aws s3api put-bucket-cors --bucket BUCKET --cors-configuration \
                 file://cors.json`; in the S3 console paste the list inside \"CORSRules\" under Permissions → \
                 Cross-origin resource sharing). Also check the endpoint and bucket fields."
                    .to_owned(),
                Some(cors_rule_json(page_origin)),
            ),
            S3Error::Unreachable { .. } => ("network", None, error.fix(), None),
            S3Error::TimedOut { .. } => ("timeout", None, error.fix(), None),
            S3Error::Service(e) => (kind_name(&e.kind), e.code.clone(), error.fix(), None),
        };
        Problem {
            kind: kind.into(),
            cause: error.cause(),
            fix,
            cors_rule,
            policy: None,
            code,
        }
    }

    /// Adds the readers' IAM policy for the bucket, prefix and region the
    /// request was for, where access was refused or the request was blocked.
    pub fn for_bucket(mut self, bucket: &BucketName, prefix: &str, region: &Region) -> Self {
        if matches!(self.kind.as_str(), "access-denied" | "network") {
            let prefix = Prefix::new(prefix).ok();
            self.policy = reader_policy_json(bucket, prefix.as_ref(), Some(region)).ok();
        }
        self
    }

    /// A 2xx answer whose body is not what was asked for.
    pub fn bad_answer(why: &str) -> Self {
        Problem {
            kind: "answer".into(),
            cause: format!("The endpoint answered, but not like S3: {why}."),
            fix: "Check the endpoint field: it must be the S3 API endpoint (not the S3 website endpoint or \
                  the console URL)."
                .into(),
            cors_rule: None,
            policy: None,
            code: None,
        }
    }
}

fn kind_name(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::WrongRegion { .. } => "region",
        ErrorKind::AccessDenied => "access-denied",
        ErrorKind::InvalidAccessKeyId => "access-key",
        ErrorKind::SignatureDoesNotMatch => "signature",
        ErrorKind::ExpiredToken | ErrorKind::InvalidToken => "token",
        ErrorKind::NoSuchBucket | ErrorKind::NotFound => "bucket",
        ErrorKind::NoSuchKey | ErrorKind::InvalidRange => "object",
        ErrorKind::RequestTimeTooSkewed { .. } | ErrorKind::RequestExpired { .. } => "clock",
        ErrorKind::Throttled | ErrorKind::ServerError => "transient",
        ErrorKind::Other => "other",
    }
}

#[component]
pub fn ProblemView(problem: Problem) -> impl IntoView {
    let code = problem
        .code
        .clone()
        .map(|c| view! { <code class="s3-error-code">{c}</code> });
    let rule = problem.cors_rule.clone().map(|rule| {
        view! {
            <p class="s3-error-label">"CORS rule for this page:"</p>
            <pre class="cors-rule" data-testid="cors-rule">{rule}</pre>
        }
    });
    let policy = problem.policy.clone().map(|policy| {
        view! {
            <p class="s3-error-label">"Minimal IAM policy for readers of this bucket:"</p>
            <pre class="cors-rule" data-testid="iam-policy">{policy}</pre>
        }
    });
    view! {
        <div class="s3-error" role="alert" data-testid="s3-error" data-kind=problem.kind.clone()>
            <p class="s3-error-cause">
                <strong>"Problem: "</strong>
                <span data-testid="s3-error-cause">{problem.cause}</span>
                " "
                {code}
            </p>
            <p class="s3-error-fix">
                <strong>"Fix: "</strong>
                <span data-testid="s3-error-fix">{problem.fix}</span>
            </p>
            {rule}
            {policy}
        </div>
    }
}
