//! `d9lens-lambda`: one invocation analyzes a [`Batch`] of S3 objects with the
//! function's own credentials (its role, through the environment Lambda
//! sets) and answers their outcomes packed ([`PackedOutcomes`]); the caller
//! merges them with everyone else's, so the report is the one the tab or
//! the CLI would give. A download that fails is that file's error, and the
//! rest of the batch goes on. Downloads and analysis block, so they run on
//! tokio's blocking pool, never on the runtime's thread.

use d9lens_core::analysis::{FileOutcome, Options};
use d9lens_core::fleet::packed::pack;
use d9lens_core::fleet::{Batch, PackedOutcomes};
use lambda_runtime::{Error, LambdaEvent, service_fn};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    lambda_runtime::run(service_fn(handle)).await
}

/// Invoked directly (the CLI) or through its function URL (the page).
async fn handle(event: LambdaEvent<serde_json::Value>) -> Result<serde_json::Value, Error> {
    let (batch, via) = Batch::from_event(event.payload)?;
    let answer = tokio::task::spawn_blocking(move || analyze(&batch)).await??;
    Ok(via.respond(&answer))
}

fn analyze(batch: &Batch) -> Result<PackedOutcomes, String> {
    let config = d9lens_http::config_for(&batch.bucket, batch.endpoint.as_deref(), Some(&batch.region))?;
    let client = d9lens_http::Client::new(config);
    let opts = Options {
        reference_compatible: batch.reference_compatible,
        ..Options::default()
    };
    let outcomes: Vec<FileOutcome> = batch.keys.iter().map(|key| client.analyze_object(key, &opts)).collect();
    pack(&outcomes).map_err(|e| e.to_string())
}
