//! `d9lens s3 ls`: list a bucket (prefix) completely and show what it holds.

use super::args::{Common, LsArgs};
use super::http::{Client, FetchError};
use super::summary;
use d9lens_core::s3::catalog::Catalog;
use serde_json::json;
use std::process::ExitCode;

/// Every object under the prefix, in a catalog; also the number of pages listed.
pub fn list(client: &Client, common: &Common) -> Result<(Catalog, usize), FetchError> {
    // The layout root is found in each key, wherever the prefix stops.
    let mut catalog = Catalog::new("");
    let mut reported = 0;
    let pages = client.list_all(&common.location.prefix, common.max_keys, |page| {
        catalog.add_page(page.contents);
        // Large buckets take a while: a note every 10,000 objects.
        if catalog.object_count() / 10_000 > reported {
            reported = catalog.object_count() / 10_000;
            eprintln!("d9lens: listed {} objects…", catalog.object_count());
        }
    })?;
    Ok((catalog, pages))
}

pub fn run(a: &LsArgs) -> Result<ExitCode, String> {
    let client = Client::new(super::config(&a.common)?);
    let (catalog, pages) = match list(&client, &a.common) {
        Ok(listed) => listed,
        Err(e) => return Ok(super::failed(&e, &client.config())),
    };
    let config = client.config();
    let endpoint = summary::endpoint_text(&config);
    if a.common.json {
        let doc = json!({
            "bucket": config.bucket.as_str(),
            "prefix": a.common.location.prefix,
            "endpoint": endpoint,
            "region": config.region.as_str(),
            "pages": pages,
            "summary": catalog.summary(),
            "catalog": catalog,
        });
        super::print_out(&(serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())? + "\n"))?;
    } else {
        let header = format!(
            "{} ({endpoint}, region {}; {pages} listing page{})",
            a.common.location.url(),
            config.region.as_str(),
            if pages == 1 { "" } else { "s" }
        );
        super::print_out(&summary::render(&header, &catalog.summary()))?;
    }
    Ok(ExitCode::SUCCESS)
}
