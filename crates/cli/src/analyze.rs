//! `d9lens analyze`: read files, analyze each on its own thread, merge, print.

use crate::args::AnalyzeArgs;
use d9lens_core::analysis::{Merger, analyze_file, sample_evenly};
use d9lens_core::report::text;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn is_trace_name(name: &str) -> bool {
    name.ends_with(".bin") || name.ends_with(".bin.gz")
}

/// Trace files of a directory (not recursive), sorted by name like the reference.
fn dir_traces(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.file_name().and_then(|n| n.to_str()).is_some_and(is_trace_name))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("No .bin or .bin.gz files found in {}", dir.display()));
    }
    Ok(files)
}

fn base_name(p: &Path) -> String {
    p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned())
}

pub fn run(args: &AnalyzeArgs) -> Result<ExitCode, String> {
    let mut files = Vec::new();
    let mut label = None;
    for p in &args.paths {
        if p.is_dir() {
            files.extend(dir_traces(p)?);
            label = Some(base_name(p));
        } else if p.is_file() {
            files.push(p.clone());
        } else {
            return Err(format!("{}: no such file or directory", p.display()));
        }
    }
    if let Some(n) = args.sample {
        files = sample_evenly(&files, n);
    }
    let mut merger = Merger::new(args.opts.clone());
    if let (Some(dir), [_]) = (&label, args.paths.as_slice()) {
        merger = merger.with_label(format!("{} files in {dir}", files.len()));
    }
    let outcomes = std::thread::scope(|s| {
        let handles: Vec<_> = files
            .iter()
            .map(|f| {
                s.spawn(move || {
                    let bytes = std::fs::read(f).map_err(|e| format!("{}: {e}", f.display()))?;
                    Ok::<_, String>(analyze_file(&base_name(f), &bytes, &args.opts))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("analysis thread panicked")).collect::<Vec<_>>()
    });
    let mut failed = false;
    for outcome in outcomes {
        let outcome = outcome?;
        if let Some(err) = outcome.error {
            failed = true;
            eprintln!("d9lens: {}{}: {}", err.file, err.offset.map_or(String::new(), |o| format!(" @{o}")), err.message);
            merger.add_error(err);
        }
        merger.add(outcome.partial);
    }
    let report = merger.finish();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    } else {
        print!("{}", text::render(&report, &args.opts));
    }
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
