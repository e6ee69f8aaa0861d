//! `d9lens analyze`: read files, analyze each on its own thread, merge, print.

use crate::args::AnalyzeArgs;
use crate::progress::Progress;
use crate::{output, two_cores};
use d9lens_core::analysis::{FileOutcome, Merger, Options, analyze_file, sample_evenly};
use d9lens_core::container::{self, Container};
use d9lens_core::parallel;
use d9lens_core::report::Report;
use d9lens_core::run::progress::FilesProgress;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn is_trace_name(name: &str) -> bool {
    name.ends_with(".bin") || name.ends_with(".bin.gz")
}

/// Trace files of a directory and its sub-folders (as the page takes a
/// dropped folder), sorted by path: a flat directory by name, like the
/// reference. Walked with an explicit stack (the depth is the input's), and
/// into real folders only: a symlinked folder could loop.
fn dir_traces(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
        for entry in entries.filter_map(|e| e.ok()) {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                folders.push(path);
            } else if path.is_file() && path.file_name().and_then(|n| n.to_str()).is_some_and(is_trace_name) {
                files.push(path);
            }
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(format!("No .bin or .bin.gz files found in {}", dir.display()));
    }
    Ok(files)
}

pub(crate) fn base_name(p: &Path) -> String {
    p.file_name()
        .map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned())
}

fn analyze_path(f: &Path, opts: &Options, pipelined: bool) -> Result<FileOutcome, String> {
    let io = |e: std::io::Error| format!("{}: {e}", f.display());
    let name = base_name(f);
    let mut file = File::open(f).map_err(io)?;
    let mut head = [0; container::SNIFF_BYTES];
    let n = file.read(&mut head).map_err(io)?;
    if pipelined && container::sniff(&head[..n]) == Ok(Container::Gzip) {
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        return two_cores::analyze_gzip(&name, file, opts);
    }
    let bytes = std::fs::read(f).map_err(io)?;
    Ok(analyze_file(&name, &bytes, opts))
}

/// Analyzes files (with their sizes) on one thread per core, handing each
/// outcome and its file's size to `take` on this thread as it is ready; each
/// thread holds one decoded file at a time. A single file gets the cores
/// instead: inflating and decoding overlap.
fn analyze_each(
    files: &[(&PathBuf, u64)],
    opts: &Options,
    mut take: impl FnMut(u64, FileOutcome) -> Result<(), String>,
) -> Result<(), String> {
    let cores = parallel::cores();
    if let [(only, size)] = files {
        return take(*size, analyze_path(only, opts, cores > 1)?);
    }
    parallel::for_each_ready(
        files,
        cores,
        |&(f, size)| (size, analyze_path(f, opts, false)),
        |(size, outcome)| take(size, outcome?),
    )
}

/// The trace files of command-line paths: files as given, directories'
/// traces by name; with the last directory's name.
pub(crate) fn trace_files(paths: &[PathBuf]) -> Result<(Vec<PathBuf>, Option<String>), String> {
    let mut files = Vec::new();
    let mut label = None;
    for p in paths {
        if p.is_dir() {
            files.extend(dir_traces(p)?);
            label = Some(base_name(p));
        } else if p.is_file() {
            files.push(p.clone());
        } else {
            return Err(format!("{}: no such file or directory", p.display()));
        }
    }
    Ok((files, label))
}

pub fn run(args: &AnalyzeArgs) -> Result<ExitCode, String> {
    let (mut files, label) = trace_files(&args.paths)?;
    if let Some(n) = args.sample {
        files = sample_evenly(&files, n);
    }
    let label = match (&label, args.paths.as_slice()) {
        (Some(dir), [_]) => Some(format!("{} files in {dir}", files.len())),
        _ => None,
    };
    let report = merge_files(&files, label, &args.opts, &mut Progress::new(args.quiet))?;
    output::print_report(report, &args.opts, args.json)
}

/// The report of `files`, drawing its progress. Partials are folded as they
/// come: memory does not grow with the file count.
pub(crate) fn merge_files(
    files: &[PathBuf],
    label: Option<String>,
    opts: &Options,
    progress: &mut Progress,
) -> Result<Report, String> {
    let mut merger = Merger::new(opts.clone()).with_files(files.iter().map(|f| base_name(f)));
    if let Some(label) = label {
        merger = merger.with_label(label);
    }
    let sized: Vec<(&PathBuf, u64)> = files
        .iter()
        .map(|f| (f, std::fs::metadata(f).map_or(0, |m| m.len())))
        .collect();
    let mut done = FilesProgress::new(files.len(), sized.iter().map(|s| s.1).sum(), progress.now_ms());
    analyze_each(&sized, opts, |size, outcome| {
        done.done(size, outcome.error.is_some());
        progress.show(|now| done.line(now));
        if let Some(err) = outcome.error {
            merger.add_error(err);
        }
        merger.add(outcome.partial);
        Ok(())
    })?;
    progress.clear();
    Ok(merger.into_report())
}
