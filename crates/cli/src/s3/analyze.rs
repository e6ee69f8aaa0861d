//! `d9lens s3 analyze`: pick segments from the bucket's catalog, download them in
//! parallel (bounded), analyze each, merge, print. A segment that fails to download
//! or decode is listed with its key and the rest is still reported.

use super::args::AnalyzeArgs;
use super::http::Client;
use super::{ls, summary};
use d9lens_core::analysis::{FileOutcome, Merger, Partial, analyze_file};
use d9lens_core::report::{FileError, text};
use d9lens_core::s3::catalog::{Catalog, Selection, TimeWindow};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The segments the flags ask for, in time order, sampled when asked.
pub fn select(catalog: &Catalog, a: &AnalyzeArgs) -> Selection {
    let window = TimeWindow::new(a.from.unwrap_or(0), a.to.unwrap_or(u64::MAX)).unwrap_or(TimeWindow::ALL);
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
        Some(n) => selection.sample_evenly(n),
        None => selection,
    }
}

/// Downloads and analyzes on `jobs` threads; each holds one object at a time.
fn analyze_all(client: &Client, keys: &[&str], a: &AnalyzeArgs) -> Vec<FileOutcome> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<FileOutcome>>> = Mutex::new(vec![None; keys.len()]);
    std::thread::scope(|s| {
        for _ in 0..a.jobs.min(keys.len()) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&key) = keys.get(i) else { break };
                    let outcome = match client.get_object(key) {
                        Ok(bytes) => analyze_file(key, &bytes, &a.opts),
                        Err(e) => FileOutcome {
                            partial: Partial {
                                file: key.to_owned(),
                                ..Partial::default()
                            },
                            error: Some(FileError {
                                file: key.to_owned(),
                                offset: None,
                                message: format!("download failed: {}", e.cause()),
                            }),
                            raw_bytes: 0,
                            events: 0,
                        },
                    };
                    results.lock().expect("no panics while holding the lock")[i] = Some(outcome);
                }
            });
        }
    });
    results
        .into_inner()
        .expect("threads joined")
        .into_iter()
        .map(|r| r.expect("every key analyzed"))
        .collect()
}

fn describe(a: &AnalyzeArgs) -> String {
    let mut parts = Vec::new();
    for (name, v) in [("service", &a.service), ("host", &a.host), ("boot", &a.boot)] {
        if let Some(v) = v {
            parts.push(format!("{name} {v}"));
        }
    }
    if let Some(from) = a.from {
        parts.push(format!("from {}", summary::time(from)));
    }
    if let Some(to) = a.to {
        parts.push(format!("to {}", summary::time(to)));
    }
    if parts.is_empty() {
        "everything".to_owned()
    } else {
        parts.join(", ")
    }
}

pub fn run(a: &AnalyzeArgs) -> Result<ExitCode, String> {
    let client = Client::new(super::config(&a.common)?);
    let (catalog, _) = match ls::list(&client, &a.common) {
        Ok(listed) => listed,
        Err(e) => return Ok(super::failed(&e, &client.config())),
    };
    let selection = select(&catalog, a);
    let url = a.common.location.url();
    if selection.is_empty() {
        let services: Vec<String> = catalog.summary().services.into_iter().map(|s| s.name).collect();
        return Err(format!(
            "no segment of {url} matches {} ({} segments listed; services: {})",
            describe(a),
            catalog.segments().len(),
            if services.is_empty() {
                "none".to_owned()
            } else {
                services.join(", ")
            }
        ));
    }
    eprintln!(
        "d9lens: analyzing {} ({}) of {url}: {}",
        if selection.len() == 1 {
            "1 segment".to_owned()
        } else {
            format!("{} segments", selection.len())
        },
        summary::bytes(selection.total_bytes()),
        describe(a)
    );
    let keys: Vec<&str> = selection.keys().collect();
    let outcomes = analyze_all(&client, &keys, a);

    let mut merger = Merger::new(a.opts.clone());
    if keys.len() > 1 {
        merger = merger.with_label(format!("{} segments from {url}", keys.len()));
    }
    let mut failed = false;
    for outcome in outcomes {
        if let Some(err) = outcome.error {
            failed = true;
            eprintln!(
                "d9lens: {}{}: {}",
                err.file,
                err.offset.map_or(String::new(), |o| format!(" @{o}")),
                err.message
            );
            merger.add_error(err);
        }
        merger.add(outcome.partial);
    }
    let report = merger.finish();
    if a.common.json {
        super::print_out(&(serde_json::to_string_pretty(&report).map_err(|e| e.to_string())? + "\n"))?;
    } else {
        super::print_out(&text::render(&report, &a.opts))?;
    }
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
