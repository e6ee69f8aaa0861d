//! `d9lens s3 analyze`: pick segments from the bucket's catalog, download and
//! analyze them on a bounded number of threads, and fold each outcome into the
//! report as it is ready (memory does not grow with the number of segments). A
//! segment that fails to download or decode is listed with its key and the
//! rest is still reported.

use super::args::{AnalyzeArgs, DEFAULT_DOWNLOADS};
use super::{ls, summary};
use crate::output;
use crate::progress::Progress;
use d9lens_core::analysis::fetched::analyze_fetched;
use d9lens_core::analysis::{FileOutcome, Merger};
use d9lens_core::bucket::catalog::{Catalog, Selection, TimeWindow};
use d9lens_core::bucket::sample::Coverage;
use d9lens_core::bucket::spec::SelectionSpec;
use d9lens_core::parallel::cores;
use d9lens_core::run::progress::FilesProgress;
use d9lens_http::Client;
use std::collections::HashMap;
use std::process::ExitCode;

/// The segments the flags ask for, in time order, sampled when asked (with
/// what the sample covers of them).
fn select(catalog: &Catalog, a: &AnalyzeArgs, window: Option<TimeWindow>) -> (Selection, Option<Coverage>) {
    let window = window.unwrap_or(TimeWindow::ALL);
    let (from, to) = (window.start_secs(), window.end_secs());
    if a.fleet {
        // The page's fleet overview: the service by its decoded name (as the key spells it works too).
        let service = a.service.as_ref().map(|v| {
            catalog
                .segments()
                .iter()
                .find(|s| s.parts.service_raw == *v)
                .map_or(v.clone(), |s| s.parts.service.clone())
        });
        return (SelectionSpec::Fleet { service, from, to }.resolve(catalog), None);
    }
    let selection = catalog.segments_overlapping(window, |s| {
        a.service
            .as_ref()
            .is_none_or(|v| *v == s.parts.service || *v == s.parts.service_raw)
            && a.host.as_ref().is_none_or(|v| *v == s.parts.instance)
            && a.boot
                .as_ref()
                .is_none_or(|v| Some(v.as_str()) == s.parts.boot.as_deref())
    });
    match a.sample {
        Some(n) => {
            let (sample, coverage) = selection.sample_covered(n);
            (sample, Some(coverage))
        }
        None => (selection, None),
    }
}

fn describe(a: &AnalyzeArgs, window: Option<TimeWindow>) -> String {
    let mut parts = Vec::new();
    for (name, v) in [("service", &a.service), ("host", &a.host), ("boot", &a.boot)] {
        if let Some(v) = v {
            parts.push(format!("{name} {v}"));
        }
    }
    if let Some(w) = window.filter(|w| w.start_secs() > 0) {
        parts.push(format!("from {}", summary::time(w.start_secs())));
    }
    if let Some(w) = window.filter(|w| w.end_secs() < u64::MAX) {
        parts.push(format!("to {}", summary::time(w.end_secs())));
    }
    if a.fleet {
        parts.push("one segment per host".to_owned());
    }
    if parts.is_empty() {
        "everything".to_owned()
    } else {
        parts.join(", ")
    }
}

pub fn run(a: &AnalyzeArgs) -> Result<ExitCode, String> {
    let client = Client::new(super::config(&a.common)?);
    let mut progress = Progress::new(a.common.quiet);
    let listed = match ls::list(&client, &a.common, &mut progress) {
        Ok(listed) => listed,
        Err(e) => return Ok(super::failed(&e, &client.config())),
    };
    ls::warn_not_listed(&listed);
    let (catalog, window) = (listed.catalog, listed.window);
    let (selection, coverage) = select(&catalog, a, window);
    let url = a.common.location.url();
    if selection.is_empty() {
        let services: Vec<String> = catalog.summary().services.into_iter().map(|s| s.name).collect();
        return Err(format!(
            "no segment of {url} matches {} ({} segments listed; services: {})",
            describe(a, window),
            catalog.segments().len(),
            if services.is_empty() {
                "none".to_owned()
            } else {
                services.join(", ")
            }
        ));
    }
    progress.note(&format!(
        "analyzing {} ({}) of {url}: {}",
        if selection.len() == 1 {
            "1 segment".to_owned()
        } else {
            format!("{} segments", selection.len())
        },
        d9lens_core::fmt::bytes(selection.total_bytes()),
        describe(a, window)
    ));
    if let Some(coverage) = coverage {
        progress.note(&format!("the sample covers {}", coverage.text()));
    }
    let keys: Vec<&str> = selection.keys().collect();
    let mut merger = Merger::new(a.opts.clone()).with_files(keys.iter().map(|k| k.to_string()));
    if keys.len() > 1 {
        merger = merger.with_label(format!("{} segments from {url}", keys.len()));
    }
    let sizes: HashMap<&str, u64> = selection.objects().collect();
    let mut done = FilesProgress::new(keys.len(), selection.total_bytes(), progress.now_ms());
    let mut add = |outcome: FileOutcome| {
        let size = sizes.get(outcome.partial.file.as_str()).copied().unwrap_or(0);
        done.done(size, outcome.error.is_some());
        progress.show(|now| done.line(now));
        if let Some(err) = outcome.error {
            merger.add_error(err);
        }
        merger.add(outcome.partial);
    };
    match &a.lambda {
        Some(lambda) => super::lambda::analyze(&client, &selection, lambda, a, &mut add)?,
        None => {
            let downloads = a.jobs.unwrap_or(DEFAULT_DOWNLOADS);
            let fetch = |key: &str| client.get_object(key).map_err(|e| e.cause());
            analyze_fetched(&keys, downloads, cores(), fetch, &a.opts, |_, outcome| {
                add(outcome);
                Ok::<(), String>(())
            })?
        }
    }
    progress.clear();
    output::print_report(merger.into_report(), &a.opts, a.common.json)
}
