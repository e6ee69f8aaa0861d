//! `d9lens s3 ls` without a bucket: the buckets the credentials may list
//! (ListBuckets through the core's [`BucketListing`](d9lens_core::s3::BucketListing)),
//! as `aws s3 ls` prints them.

use super::args::BucketsArgs;
use d9lens_core::s3::BucketEntry;
use serde_json::json;
use std::process::ExitCode;

pub fn run(args: &BucketsArgs) -> Result<ExitCode, String> {
    let account = crate::aws_credentials::account(
        args.endpoint.as_deref(),
        args.region.as_deref(),
        args.profile.as_deref(),
    )?;
    let (buckets, truncated) = match d9lens_http::list_buckets(&account) {
        Ok(found) => found,
        Err(e) => {
            crate::output::warn(&e.explain());
            return Ok(ExitCode::from(1));
        }
    };
    let text = if args.json {
        let list: Vec<_> = buckets
            .iter()
            .map(|b| json!({"name": b.name, "created": b.created.map(|t| t.to_rfc3339()), "region": b.region}))
            .collect();
        format!("{:#}\n", json!({"buckets": list, "truncated": truncated}))
    } else {
        lines(&buckets, truncated)
    };
    crate::output::print_out(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// `2026-01-02 03:04:05  name  (region)`, one bucket a line.
fn lines(buckets: &[BucketEntry], truncated: bool) -> String {
    let mut out = String::new();
    for b in buckets {
        let created = b.created.map_or_else(
            || " ".repeat(19),
            |t| t.to_rfc3339().trim_end_matches('Z').replace('T', " "),
        );
        let region = b.region.as_ref().map(|r| format!("  ({r})")).unwrap_or_default();
        out.push_str(&format!("{created}  {}{region}\n", b.name));
    }
    if buckets.is_empty() {
        out.push_str("No bucket is listed for these credentials.\n");
    }
    if truncated {
        out.push_str(&format!(
            "… and more: only the first {} are shown.\n",
            d9lens_core::s3::buckets::MAX_BUCKETS
        ));
    }
    out
}
