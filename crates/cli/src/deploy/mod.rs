//! `d9lens deploy`: publishes the built page (`trunk build --release` → `dist/`)
//! to an S3 bucket, and prints what a bucket owner needs for readers (the CORS
//! rule, the IAM policy). Every decision is the core's (`d9lens_core::site`);
//! this reads the files and sends the requests.

mod args;
mod dist;
mod upload;

use std::process::ExitCode;

use args::Command;
use d9lens_core::s3::cors_rule_json;
use d9lens_core::site::{LOOPBACK_SOURCES, reader_policy_json};

pub const USAGE: &str = "usage:
  d9lens deploy s3://BUCKET[/PREFIX] [--dist DIR] [--endpoint URL] [--region R]
                [--allow-endpoint URL]... [--allow-loopback] [--dry-run]
  d9lens deploy --in-place [--dist DIR] (--allow-endpoint URL... | --allow-loopback)
  d9lens deploy --print-cors ORIGIN
  d9lens deploy --print-policy BUCKET [PREFIX] [--region R]

Uploads the built page in DIR (default dist, from `trunk build --release`) under
PREFIX: every file with its Content-Type and Cache-Control (no-cache for pages, a
year for content-hashed names, 5 minutes otherwise), index.html after the files
it names, then the manifest PREFIX.d9lens-deploy.json. Files of the previous
deploy (by its manifest) that the new build no longer has are then deleted;
nothing else under the prefix ever is. Prints each action and the URL to open.
--dry-run prints the same plan and sends nothing but the GET of the previous
manifest (when that fails, stale files are unknown and no delete is listed).

--allow-endpoint URL adds an S3-compatible endpoint's origin to the uploaded
index.html's Content-Security-Policy (connect-src) and to its
<meta name=\"d9lens-endpoints\"> (the file in DIR stays as built); a custom
--endpoint is always added. --allow-loopback allows http://127.0.0.1:* and
http://localhost:* (local servers, any port).
--in-place writes the allowed endpoints into DIR/index.html itself and uploads
nothing: for local builds that talk to the loopback demo bucket (scripts/). A
production deploy should not need it.

--print-cors prints the bucket CORS rule for a page served at ORIGIN (as `aws
s3api put-bucket-cors --cors-configuration file://cors.json` takes it);
--print-policy the IAM policy of the page's readers (list PREFIX, get its
objects; --region puts its ARNs in that region's partition, e.g. aws-cn).
Neither needs credentials nor sends anything.

Credentials, region and endpoint come from the environment as for `d9lens s3`
(d9lens s3 --help); the identity needs s3:PutObject, s3:GetObject and
s3:DeleteObject on the prefix.";

pub fn run(argv: &[String]) -> Result<ExitCode, String> {
    if matches!(argv.first().map(String::as_str), Some("-h" | "--help")) {
        println!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    }
    match Command::parse(argv).map_err(|e| format!("{e}\n\n{USAGE}"))? {
        Command::Upload(args) => upload::run(args),
        Command::InPlace { dist, allow } => {
            let rewritten = dist::index_path(&dist).and_then(|index| {
                let html = std::fs::read_to_string(&index).map_err(|e| format!("{}: {e}", index.display()))?;
                let html = allow.apply(&html).map_err(|e| format!("{}: {e}", index.display()))?;
                std::fs::write(&index, html).map_err(|e| format!("{}: {e}", index.display()))?;
                Ok(index)
            });
            match rewritten {
                Ok(index) => {
                    print_allowed(&allow);
                    println!("Rewrote {}", index.display());
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => Ok(failure(e)),
            }
        }
        Command::PrintCors(origin) => {
            println!("{}", cors_rule_json(origin.as_str()));
            Ok(ExitCode::SUCCESS)
        }
        Command::PrintPolicy { bucket, prefix, region } => {
            println!(
                "{}",
                reader_policy_json(&bucket, prefix.as_ref(), region.as_ref()).map_err(|e| e.to_string())?
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `allow ORIGIN` lines: what the page's CSP gains.
fn print_allowed(allow: &args::Allow) {
    for origin in &allow.origins {
        println!("allow {origin}");
    }
    if allow.loopback {
        println!("allow loopback ({})", LOOPBACK_SOURCES.join(", "));
    }
}

/// Prints a failure (not a usage error) and gives its exit code.
fn failure(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("d9lens: {message}");
    ExitCode::from(1)
}
