//! `d9lens spans` and `d9lens events`: the span explorer, slow versus
//! typical, and the custom events of traces, as the page shows them.

use crate::analyze::{merge_files, trace_files};
use crate::output::{print_out, warn};
use crate::progress::Progress;
use d9lens_core::analysis::Options;
use d9lens_core::requests::query::{Query, parse_where};
use d9lens_core::requests::slow::{Threshold, slow_vs_typical};
use d9lens_core::requests::{events, explore, render};
use std::path::PathBuf;
use std::process::ExitCode;

pub const SPANS_USAGE: &str = "usage: d9lens spans FILE|DIR... [--name NAME] [--where FIELD=VALUE]... [--parent NAME]
                    [--host HOST] [--boot BOOT] [--slow p95|p99|p99.9|DURATION] [--json]

Per span name: instances, p50 / p90 / p99 / p99.9 / max, where the time went (on-CPU,
blocked in a poll, scheduling delay, async wait), fields' most frequent values, child
spans and the slowest instances. --where keeps instances with that field value, on the
span or a span around it (repeatable); --slow compares the instances of --name over a
percentile of their durations or a duration (30ms, 1.5s) with the rest.";

pub const EVENTS_USAGE: &str = "usage: d9lens events FILE|DIR... [--json]

Custom events of the traces by name, with each field's unit, metric kind, and its
minimum, median and maximum.";

#[derive(Debug, Default)]
pub struct SpansArgs {
    paths: Vec<PathBuf>,
    query: Query,
    slow: Option<Threshold>,
    json: bool,
}

impl SpansArgs {
    pub fn parse(args: &[String]) -> Result<SpansArgs, String> {
        let mut out = SpansArgs::default();
        let mut it = args.iter();
        let value = |it: &mut std::slice::Iter<String>, flag: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value\n{SPANS_USAGE}"))
        };
        while let Some(a) = it.next() {
            match a.as_str() {
                "--json" => out.json = true,
                "--name" => out.query.name = Some(value(&mut it, a)?),
                "--parent" => out.query.parent = Some(value(&mut it, a)?),
                "--host" => out.query.host = Some(value(&mut it, a)?),
                "--boot" => out.query.boot = Some(value(&mut it, a)?),
                "--where" => out.query.fields.push(parse_where(&value(&mut it, a)?)?),
                "--slow" => out.slow = Some(Threshold::parse(&value(&mut it, a)?)?),
                "-h" | "--help" => return Err(SPANS_USAGE.into()),
                flag if flag.starts_with("--") => return Err(format!("unknown option {flag}\n{SPANS_USAGE}")),
                path => out.paths.push(PathBuf::from(path)),
            }
        }
        if out.paths.is_empty() {
            return Err(format!(
                "spans needs at least one trace file or directory\n{SPANS_USAGE}"
            ));
        }
        if out.slow.is_some() && out.query.name.is_none() {
            return Err("--slow compares the instances of one span: give its --name".into());
        }
        Ok(out)
    }
}

fn with_requests() -> Options {
    Options {
        requests: true,
        ..Options::default()
    }
}

/// Errors of the files on stderr; whether there were any.
fn report_errors(report: &d9lens_core::report::Report) -> bool {
    for err in &report.errors {
        let at = err.offset.map_or(String::new(), |o| format!(" @{o}"));
        warn(&format!("{}{at}: {}", err.file, err.message));
    }
    !report.errors.is_empty()
}

fn exit(failed: bool) -> ExitCode {
    if failed { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

pub fn spans(args: &SpansArgs) -> Result<ExitCode, String> {
    let (files, label) = trace_files(&args.paths)?;
    let report = merge_files(&files, label, &with_requests(), &mut Progress::new(false))?;
    let failed = report_errors(&report);
    let explorer = explore::explore(&report.requests, &args.query);
    let slow = args
        .slow
        .and_then(|t| slow_vs_typical(&report.requests, &args.query, t));
    if args.slow.is_some() && slow.is_none() {
        warn("no instance to compare: nothing matches --name and the filters");
    }
    let text = match args.json {
        true => {
            serde_json::to_string_pretty(&render::spans_json(&explorer, slow.as_ref())).map_err(|e| e.to_string())?
                + "\n"
        }
        false => render::spans_text(&explorer, slow.as_ref()),
    };
    print_out(&text)?;
    Ok(exit(failed))
}

pub fn events(args: &[String]) -> Result<ExitCode, String> {
    let mut json = false;
    let mut paths = Vec::new();
    for a in args {
        match a.as_str() {
            "--json" => json = true,
            "-h" | "--help" => return Err(EVENTS_USAGE.into()),
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}\n{EVENTS_USAGE}")),
            path => paths.push(PathBuf::from(path)),
        }
    }
    if paths.is_empty() {
        return Err(format!(
            "events needs at least one trace file or directory\n{EVENTS_USAGE}"
        ));
    }
    let (files, label) = trace_files(&paths)?;
    let report = merge_files(&files, label, &with_requests(), &mut Progress::new(false))?;
    let failed = report_errors(&report);
    let summary = events::summarize(&report.requests);
    let text = match json {
        true => {
            let v = render::events_json(&summary, report.requests.left_out);
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())? + "\n"
        }
        false => render::events_text(&summary),
    };
    print_out(&text)?;
    Ok(exit(failed))
}
