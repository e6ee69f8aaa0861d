//! `d9lens export`: traces in other tools' formats, on stdout or into a file.
//!
//! `chrome`: a Chrome trace (`d9lens_core::export::chrome`) of every file on
//! one axis, for Perfetto UI and chrome://tracing. `folded`: the files'
//! merged stacks of one kind of samples (`profile::folded`), for inferno,
//! flamegraph.pl and speedscope. `markdown` and `html`: the merged report
//! for a ticket, or as one file that opens with no server.

use crate::analyze::{base_name, merge_files, trace_files};
use crate::diagnose::load;
use crate::progress::Progress;
use d9lens_core::analysis::Options;
use d9lens_core::export::chrome::{ChromeFile, write_chrome};
use d9lens_core::export::{html, markdown};
use d9lens_core::parallel;
use d9lens_core::profile::folded::write_folded;
use d9lens_core::report::SampleKind;
use std::fs::File;
use std::io::{BufWriter, ErrorKind};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Chrome,
    Folded,
    Markdown,
    Html,
}

#[derive(Debug)]
pub struct ExportArgs {
    pub paths: Vec<PathBuf>,
    pub format: Format,
    pub samples: Option<SampleKind>,
    /// None: stdout.
    pub out: Option<PathBuf>,
}

impl ExportArgs {
    pub fn parse(args: &[String]) -> Result<ExportArgs, String> {
        let (mut paths, mut format, mut samples, mut out) = (Vec::new(), None, None, None);
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let mut value = || it.next().ok_or_else(|| format!("{a} needs a value"));
            match a.as_str() {
                "--format" => {
                    format = Some(match value()?.as_str() {
                        "chrome" => Format::Chrome,
                        "folded" => Format::Folded,
                        "markdown" => Format::Markdown,
                        "html" => Format::Html,
                        v => return Err(format!("--format: chrome, folded, markdown or html, not {v}")),
                    })
                }
                "--samples" => {
                    let v = value()?;
                    samples = Some(SampleKind::parse(v).ok_or_else(|| {
                        let names: Vec<&str> = SampleKind::ALL.iter().map(|k| k.name()).collect();
                        format!("--samples: one of {}, not {v}", names.join(", "))
                    })?)
                }
                "-o" | "--output" => out = Some(PathBuf::from(value()?)),
                flag if flag.starts_with('-') => return Err(format!("unknown option {flag}")),
                path => paths.push(PathBuf::from(path)),
            }
        }
        let format = format.ok_or("export needs --format chrome|folded|markdown|html")?;
        if paths.is_empty() {
            return Err("export needs at least one trace file or directory".into());
        }
        if samples.is_some() && format != Format::Folded {
            return Err("--samples is for --format folded".into());
        }
        Ok(ExportArgs {
            paths,
            format,
            samples,
            out,
        })
    }
}

pub fn run(args: &ExportArgs) -> Result<ExitCode, String> {
    if args.format != Format::Chrome {
        return from_report(args);
    }
    let (files, _) = trace_files(&args.paths)?;
    let cores = parallel::cores();
    let (mut exported, mut failed) = (Vec::with_capacity(files.len()), false);
    // Each thread decodes one file at a time and keeps only its timeline and flows.
    parallel::for_each_ready(
        &files,
        cores,
        |f| {
            let (trace, clean) = load(f)?;
            Ok((ChromeFile::from_trace(&base_name(f), trace), clean))
        },
        |done: Result<(ChromeFile, bool), String>| {
            match done {
                Ok((file, clean)) => {
                    failed |= !clean;
                    exported.push(file);
                }
                Err(e) => {
                    crate::output::warn(&e);
                    failed = true;
                }
            }
            Ok::<(), String>(())
        },
    )?;
    // Files are written in time order, whichever finished first.
    write_out(args, |w| write_chrome(&exported, w))?;
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// What comes from the files' merged report (as `analyze` merges them):
/// folded stacks, Markdown, HTML.
fn from_report(args: &ExportArgs) -> Result<ExitCode, String> {
    let (files, dir) = trace_files(&args.paths)?;
    let label = match (dir, args.paths.as_slice()) {
        (Some(dir), [_]) => Some(format!("{} files in {dir}", files.len())),
        _ => None,
    };
    let report = merge_files(&files, label, &Options::default(), &mut Progress::new(false))?;
    for err in &report.errors {
        crate::output::warn(&format!("{}: {}", err.file, err.message));
    }
    let kind = args.samples.unwrap_or_default();
    write_out(args, |w| match args.format {
        Format::Markdown => w.write_all(markdown::render(&report).as_bytes()),
        Format::Html => w.write_all(html::render(&report).as_bytes()),
        Format::Folded | Format::Chrome => write_folded(w, &report.profiles, kind),
    })?;
    Ok(if report.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Writes to `-o`'s file or stdout; a closed pipe (`| head`) is not an error.
fn write_out(
    args: &ExportArgs,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), String> {
    match &args.out {
        Some(path) => {
            let file = File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let mut w = BufWriter::new(file);
            write(&mut w)
                .and_then(|()| std::io::Write::flush(&mut w))
                .map_err(|e| format!("{}: {e}", path.display()))
        }
        None => {
            let mut w = BufWriter::new(std::io::stdout().lock());
            match write(&mut w).and_then(|()| std::io::Write::flush(&mut w)) {
                Err(e) if e.kind() != ErrorKind::BrokenPipe => Err(format!("writing the output: {e}")),
                _ => Ok(()),
            }
        }
    }
}
