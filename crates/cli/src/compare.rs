//! `d9lens compare A... -- B...`: two selections side by side (key figures
//! ranked by how much they moved, findings only one side has, frames whose
//! share changed), as text or `--json`.

use crate::analyze::{merge_files, trace_files};
use crate::output::print_out;
use d9lens_core::analysis::Options;
use d9lens_core::compare::{compare, text};
use d9lens_core::report::Report;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug)]
pub struct CompareArgs {
    pub a: Vec<PathBuf>,
    pub b: Vec<PathBuf>,
    pub json: bool,
}

impl CompareArgs {
    pub fn parse(args: &[String]) -> Result<CompareArgs, String> {
        let (mut a, mut b, mut json, mut after) = (Vec::new(), Vec::new(), false, false);
        for arg in args {
            match arg.as_str() {
                "--" if !after => after = true,
                "--json" => json = true,
                flag if flag.starts_with('-') => return Err(format!("unknown option {flag}")),
                path if after => b.push(PathBuf::from(path)),
                path => a.push(PathBuf::from(path)),
            }
        }
        if a.is_empty() || b.is_empty() {
            return Err("compare needs traces on both sides: d9lens compare A... -- B...".into());
        }
        Ok(CompareArgs { a, b, json })
    }
}

/// One side's merged report, labelled by what it holds.
fn side(paths: &[PathBuf]) -> Result<Report, String> {
    let (files, dir) = trace_files(paths)?;
    let label = match (dir, files.as_slice()) {
        (_, [one]) => crate::analyze::base_name(one),
        (Some(dir), _) if paths.len() == 1 => format!("{} files in {dir}", files.len()),
        _ => format!("{} files", files.len()),
    };
    let report = merge_files(&files, Some(label), &Options::default())?;
    for err in &report.errors {
        crate::output::warn(&format!("{}: {}", err.file, err.message));
    }
    Ok(report)
}

pub fn run(args: &CompareArgs) -> Result<ExitCode, String> {
    let (a, b) = (side(&args.a)?, side(&args.b)?);
    let c = compare(&a, &b);
    if args.json {
        print_out(&(serde_json::to_string_pretty(&c).map_err(|e| e.to_string())? + "\n"))?;
    } else {
        print_out(&text::render(&c))?;
    }
    let failed = !a.errors.is_empty() || !b.errors.is_empty();
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
