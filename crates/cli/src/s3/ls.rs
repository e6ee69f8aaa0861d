//! `d9lens s3 ls`: walk a bucket (prefix) with the core's listing plan and show
//! what it holds.

use super::args::{Common, LsArgs, Period};
use super::summary;
use crate::progress::Progress;
use d9lens_core::bucket::catalog::{Catalog, TimeWindow};
use d9lens_core::bucket::listing_plan::{ListingLimits, ListingProgress, NotListed};
use d9lens_core::bucket::walk::{BucketWalk, WalkError};
use d9lens_core::run::progress::listing_line;
use d9lens_http::{Client, FetchError};
use serde_json::json;
use std::process::ExitCode;

/// What the walk found, and what it left out.
pub struct Listed {
    pub catalog: Catalog,
    pub progress: ListingProgress,
    pub not_listed: Vec<NotListed>,
    /// The window listed (`--from`/`--to`, or `--last` once the shape said
    /// until when there is data); `None`: all of time.
    pub window: Option<TimeWindow>,
}

/// Walks what the period needs under the prefix, the plan's listings in
/// parallel: everything, a window, or (`--last`) the bucket's shape and
/// then the window it gives. A failed listing is reported as not listed;
/// only when nothing could be listed at all is the failure the answer.
pub fn list(client: &Client, common: &Common, progress: &mut Progress) -> Result<Listed, FetchError> {
    let limits = ListingLimits {
        page_size: common.max_keys,
        max_objects: common.max_objects,
        ..ListingLimits::default()
    };
    let mut walk = BucketWalk::for_period(&common.location.prefix, limits, common.period);
    let mut first_error = None;
    let mut reported = 0;
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel();
        loop {
            for request in walk.next_requests() {
                let tx = tx.clone();
                s.spawn(move || {
                    let what = format!("listing {:?}", request.list.prefix);
                    let answer = client.fetch(&what, |config, now| config.list_objects_v2(&request.list, now));
                    // The receiver outlives every listing thread.
                    let _ = tx.send((request.id, answer));
                });
            }
            if walk.is_done() {
                break;
            }
            let (id, answer) = rx.recv().expect("a listing is in flight");
            let fed = match answer {
                Ok(response) => walk.on_body(id, &response.body),
                Err(e) => {
                    let fed = walk.on_failed(id, &e.cause());
                    first_error.get_or_insert(e);
                    fed
                }
            };
            match fed {
                Ok(()) => {}
                Err(WalkError::NotAListing(e)) => {
                    first_error.get_or_insert(FetchError::Listing(e));
                }
                Err(WalkError::Plan(e)) => unreachable!("every answer is to a request of the walk: {e}"),
            }
            if progress.live() {
                progress.show(|_| listing_line(&walk.progress()));
            } else if walk.catalog().object_count() / 10_000 > reported {
                // Large buckets take a while: a note every 10,000 objects.
                reported = walk.catalog().object_count() / 10_000;
                progress.note(&format!("listed {} objects…", walk.catalog().object_count()));
            }
        }
    });
    if let Period::Last { .. } = common.period {
        match walk.window() {
            Some(w) => progress.note(&format!(
                "the newest data is at {}: listed from {}",
                summary::time(w.end_secs()),
                summary::time(w.start_secs())
            )),
            None => progress.note("no dated partition found: nothing to take the last stretch of"),
        }
    }
    progress.clear();
    let listing = walk.progress();
    let window = walk.window();
    match first_error {
        Some(e) if listing.partitions_listed == 0 => Err(e),
        _ => Ok(Listed {
            not_listed: walk.not_listed().to_vec(),
            catalog: walk.into_catalog(),
            progress: listing,
            window,
        }),
    }
}

/// Says on stderr what the walk left out, if anything.
pub fn warn_not_listed(listed: &Listed) {
    if let Some(note) = listed.progress.truncation_note() {
        crate::output::warn(&note);
        for n in &listed.not_listed {
            crate::output::warn(&format!("  {n}"));
        }
    }
}

pub fn run(a: &LsArgs) -> Result<ExitCode, String> {
    let client = Client::new(super::config(&a.common)?);
    let listed = match list(&client, &a.common, &mut Progress::new(a.common.quiet)) {
        Ok(listed) => listed,
        Err(e) => return Ok(super::failed(&e, &client.config())),
    };
    warn_not_listed(&listed);
    let config = client.config();
    let endpoint = summary::endpoint_text(&config);
    let Listed {
        catalog,
        progress,
        not_listed,
        window,
    } = listed;
    if a.common.json {
        let doc = json!({
            "bucket": config.bucket.as_str(),
            "prefix": a.common.location.prefix,
            "endpoint": endpoint,
            "region": config.region.as_str(),
            "window": window,
            "pages": progress.pages,
            "partitions": progress.partitions,
            "notListed": not_listed,
            "summary": catalog.summary(),
            "catalog": catalog,
        });
        crate::output::print_out(&(serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())? + "\n"))?;
    } else {
        let header = format!(
            "{} ({endpoint}, region {}; {} listing page{} over {} prefix{})",
            a.common.location.url(),
            config.region.as_str(),
            progress.pages,
            if progress.pages == 1 { "" } else { "s" },
            progress.partitions,
            if progress.partitions == 1 { "" } else { "es" },
        );
        crate::output::print_out(&summary::render(&header, &catalog.summary()))?;
    }
    Ok(ExitCode::SUCCESS)
}
