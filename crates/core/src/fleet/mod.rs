//! Analysis beyond one machine: a selection cut into batches, each analyzed
//! by one invocation of the `d9lens-lambda` function, whose answers merge
//! like any partials (the report is the same as in the tab or the CLI).
//!
//! - [`batch`]: what one invocation is asked (bucket, keys) and how a
//!   selection is cut into batches.
//! - [`packed`]: what it answers: the batch's file outcomes, compressed, in
//!   the JSON a function returns, and read back with every size checked.
//! - [`framed`]: the outcomes as bytes (framed, deflated) and [`PackError`];
//!   `base64` the text an inline answer and a zip upload travel as.
//! - [`stored`]: an answer too large to return, stored under the batch's
//!   results prefix: its key, the pointer answered instead, its checks.
//! - [`invoke`]: the signed Lambda `Invoke` request (the CLI), the signed
//!   POST to a function URL (the page), and a function's error.
//! - [`cost`]: what a selection will cost on Lambda, told before it runs.
//! - [`deploy`]: the Lambda API requests that create or update the function
//!   and its function URL, their answers, and the IAM policies around it.

mod base64;
pub mod batch;
pub mod cost;
pub mod deploy;
pub mod framed;
pub mod invoke;
pub mod packed;
pub mod stored;

pub use batch::{Batch, Via, plan_batches};
pub use cost::CostEstimate;
pub use framed::PackError;
pub use invoke::{FunctionUrl, LambdaTarget, function_error, function_url_request, invocation_error, invoke_request};
pub use packed::{Answer, Answered, PackedOutcomes, Reply};
pub use stored::StoredAnswer;
