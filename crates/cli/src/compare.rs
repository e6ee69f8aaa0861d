//! `d9lens compare A... -- B...`: two selections side by side (key figures
//! ranked by how much they moved, findings only one side has, frames whose
//! share changed), as text or `--json`.

use crate::analyze::{merge_files, trace_files};
use crate::output::print_out;
use crate::progress::Progress;
use d9lens_core::analysis::Options;
use d9lens_core::compare::{compare, text};
use d9lens_core::fmt::fmt_dur;
use d9lens_core::report::Report;
use d9lens_core::trace::Window;
use std::path::PathBuf;
use std::process::ExitCode;

/// The traces of one side, and the window of them it compares.
#[derive(Debug, Default)]
pub struct Side {
    pub paths: Vec<PathBuf>,
    pub window: Option<Window>,
}

#[derive(Debug)]
pub struct CompareArgs {
    pub a: Side,
    pub b: Side,
    pub json: bool,
}

impl CompareArgs {
    pub fn parse(args: &[String]) -> Result<CompareArgs, String> {
        let (mut a, mut b, mut json) = (Side::default(), None::<Side>, false);
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            if arg == "--" && b.is_none() {
                b = Some(Side::default());
                continue;
            }
            let side = b.as_mut().unwrap_or(&mut a);
            match arg.as_str() {
                "--json" => json = true,
                "--window" => side.window = Some(crate::args::window(it.next())?),
                flag if flag.starts_with('-') => return Err(format!("unknown option {flag}")),
                path => side.paths.push(PathBuf::from(path)),
            }
        }
        let b = b.unwrap_or_default();
        if a.paths.is_empty() || b.paths.is_empty() {
            return Err("compare needs traces on both sides: d9lens compare A... -- B...".into());
        }
        Ok(CompareArgs { a, b, json })
    }
}

/// One side's merged report, labelled by what it holds.
fn side(side: &Side) -> Result<Report, String> {
    let paths = &side.paths;
    let (files, dir) = trace_files(paths)?;
    let mut label = match (dir, files.as_slice()) {
        (_, [one]) => crate::analyze::base_name(one),
        (Some(dir), _) if paths.len() == 1 => format!("{} files in {dir}", files.len()),
        _ => format!("{} files", files.len()),
    };
    if let Some(w) = side.window {
        label += &format!(" {}–{}", fmt_dur(w.from_ns() as f64), fmt_dur(w.to_ns() as f64));
    }
    let opts = Options {
        window: side.window,
        ..Options::default()
    };
    let report = merge_files(&files, Some(label), &opts, &mut Progress::new(false))?;
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
