//! `d9lens s3 analyze --lambda FUNCTION`: the selection cut into batches
//! (`fleet::plan_batches`), each analyzed by one invocation of the
//! `d9lens-lambda` function, up to `--jobs` at once; the packed outcomes are
//! merged as they arrive, like local ones. With `--lambda-results PREFIX`
//! the function may store a batch's outcomes too large to answer under that
//! prefix (`fleet::stored`), and they are fetched from there with the CLI's
//! own credentials. An invocation that fails makes each of its files an
//! error naming why, and the others go on.

use super::args::{AnalyzeArgs, DEFAULT_INVOCATIONS, LambdaArgs};
use d9lens_core::analysis::FileOutcome;
use d9lens_core::bucket::catalog::Selection;
use d9lens_core::fleet::packed::{outcomes_of, read_answer};
use d9lens_core::fleet::{Answered, Batch, CostEstimate, LambdaTarget, invocation_error, invoke_request, plan_batches};
use d9lens_core::parallel;
use d9lens_core::s3::{Credentials, S3Config};
use d9lens_http::{Client, FetchError};

pub fn analyze(
    client: &Client,
    selection: &Selection,
    lambda: &LambdaArgs,
    a: &AnalyzeArgs,
    add: &mut impl FnMut(FileOutcome),
) -> Result<(), String> {
    let config = client.config();
    let credentials = config.credentials.clone().ok_or(
        "invoking a Lambda function needs AWS credentials (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / \
         AWS_SESSION_TOKEN)",
    )?;
    let target = LambdaTarget::new(&lambda.function, config.region.clone(), lambda.endpoint.as_deref())
        .map_err(|e| format!("--lambda-endpoint: {e}"))?;
    let batches = plan_batches(selection.objects(), lambda.batch_bytes);
    // The function's memory size is not known here: deploy-lambda's default.
    let estimate = CostEstimate::of(selection.objects(), lambda.batch_bytes, None);
    let jobs = a.jobs.unwrap_or(DEFAULT_INVOCATIONS);
    eprintln!(
        "d9lens: Lambda function {}, {} at once: {estimate} (estimated)",
        lambda.function,
        jobs.min(batches.len())
    );
    parallel::for_each_ready(
        &batches,
        jobs,
        |keys| invoke(client, &config, &credentials, &target, lambda, keys, a),
        |outcomes| {
            outcomes.into_iter().for_each(&mut *add);
            Ok(())
        },
    )
}

/// One batch analyzed by the function: an outcome per key (`outcomes_of`).
fn invoke(
    client: &Client,
    config: &S3Config,
    credentials: &Credentials,
    target: &LambdaTarget,
    lambda: &LambdaArgs,
    keys: &[String],
    a: &AnalyzeArgs,
) -> Vec<FileOutcome> {
    let batch = Batch {
        results_prefix: lambda.results_prefix.clone(),
        ..Batch::of(config, keys.to_vec(), a.opts.reference_compatible)
    };
    let payload = serde_json::to_string(&batch).expect("a batch serializes");
    let what = format!("Lambda batch of {} segment(s) from {}", keys.len(), keys[0]);
    let answered = client
        .fetch(&what, |_, now| invoke_request(target, credentials, &payload, now))
        .map_err(|e| match e {
            FetchError::S3(e) => invocation_error(&e),
            other => other.cause(),
        })
        .and_then(|response| read_answer(&batch, &response.headers, &response.body))
        .and_then(|answered| match answered {
            Answered::Outcomes(outcomes) => Ok(outcomes),
            Answered::Stored(stored) => client
                .fetch(stored.key(), |config, now| stored.get_object(config, now))
                .map_err(|e| format!("the stored results {}: {}", stored.key(), e.cause()))
                .and_then(|object| stored.unpack(&object.body)),
        });
    outcomes_of(keys, answered)
}
