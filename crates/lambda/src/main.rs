//! `d9lens-lambda`: one invocation analyzes a [`Batch`] of S3 objects with the
//! function's own credentials (its role, through the environment Lambda
//! sets) and answers their outcomes packed ([`Answer`]); the caller
//! merges them with everyone else's, so the report is the one the tab or
//! the CLI would give. Outcomes too large to answer are written under the
//! batch's results prefix first, and the answer says where
//! (`fleet::stored`). A download that fails is that file's error, and the
//! rest of the batch goes on. Downloads, analysis and the upload block, so
//! they run on tokio's blocking pool, never on the runtime's thread; the
//! downloads run ahead of the analysis, which gets one thread per core.

use d9lens_core::analysis::fetched::{DOWNLOADS_AT_ONCE, analyze_fetched};
use d9lens_core::analysis::{FileOutcome, Options};
use d9lens_core::fleet::packed::{MAX_ANSWER_BYTES, reply};
use d9lens_core::fleet::{Answer, Batch, Reply};
use d9lens_core::parallel::cores;
use lambda_runtime::{Error, LambdaEvent, service_fn};

/// A test hook: answers larger than this many bytes are stored even though
/// Lambda would return them (it never raises Lambda's limit).
const INLINE_LIMIT_VAR: &str = "D9LENS_INLINE_ANSWER_LIMIT";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let inline_limit = match std::env::var(INLINE_LIMIT_VAR) {
        Ok(text) => text
            .parse()
            .map_err(|_| format!("{INLINE_LIMIT_VAR}: a number of bytes, not {text:?}"))?,
        Err(_) => MAX_ANSWER_BYTES,
    };
    lambda_runtime::run(service_fn(move |event| handle(event, inline_limit))).await
}

/// Invoked directly (the CLI) or through its function URL (the page).
async fn handle(event: LambdaEvent<serde_json::Value>, inline_limit: usize) -> Result<serde_json::Value, Error> {
    let (batch, via) = Batch::from_event(event.payload)?;
    let answer = tokio::task::spawn_blocking(move || analyze(&batch, inline_limit)).await??;
    Ok(via.respond(&answer))
}

fn analyze(batch: &Batch, inline_limit: usize) -> Result<Answer, String> {
    let config = d9lens_http::config_for(&batch.bucket, batch.endpoint.as_deref(), Some(&batch.region))?;
    let client = d9lens_http::Client::new(config);
    let opts = Options {
        reference_compatible: batch.reference_compatible,
        ..Options::default()
    };
    // Downloads overlap the analysis, as in the CLI; the answer keeps the
    // batch's order.
    let mut indexed = Vec::with_capacity(batch.keys.len());
    let fetch = |key: &str| client.get_object(key).map_err(|e| e.cause());
    let Ok(()) = analyze_fetched(
        &batch.keys,
        DOWNLOADS_AT_ONCE,
        cores(),
        fetch,
        &opts,
        |index, outcome| {
            indexed.push((index, outcome));
            Ok::<(), std::convert::Infallible>(())
        },
    );
    indexed.sort_unstable_by_key(|&(index, _)| index);
    let outcomes: Vec<FileOutcome> = indexed.into_iter().map(|(_, outcome)| outcome).collect();
    match reply(batch, &outcomes, inline_limit).map_err(|e| e.to_string())? {
        Reply::Inline(packed) => Ok(Answer::Inline(packed)),
        Reply::Store { stored, object } => {
            client
                .fetch_with_body(stored.key(), &object, |config, now| stored.put_object(config, now))
                .map_err(|e| format!("storing the batch's results at {}: {}", stored.key(), e.cause()))?;
            Ok(Answer::Stored { stored })
        }
    }
}
