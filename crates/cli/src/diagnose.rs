//! `d9lens diagnose`: why were the longest polls of one trace file so long.

use d9lens_core::analysis::diagnose::{self, DiagnoseOptions};
use d9lens_core::container;
use d9lens_core::trace::{self, ParsedTrace};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub struct DiagnoseArgs {
    pub path: PathBuf,
    pub opts: DiagnoseOptions,
    pub json: bool,
}

/// The value after a flag, parsed.
pub(crate) fn value<T: std::str::FromStr>(it: &mut std::slice::Iter<'_, String>, flag: &str) -> Result<T, String> {
    let v = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
    v.parse().map_err(|_| format!("{flag}: not a valid value: {v}"))
}

impl DiagnoseArgs {
    pub fn parse(args: &[String]) -> Result<DiagnoseArgs, String> {
        let mut opts = DiagnoseOptions::default();
        let (mut path, mut json) = (None, false);
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--json" => json = true,
                "--task" => opts.task = Some(value(&mut it, a)?),
                "--min-ms" => opts.min_ms = Some(value(&mut it, a)?),
                "--pctl-mult" => opts.pctl_mult = value(&mut it, a)?,
                "--floor-ms" => opts.floor_ms = value(&mut it, a)?,
                "--top" => opts.top = value(&mut it, a)?,
                "--hz" => opts.hz = Some(value(&mut it, a)?),
                flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
                p if path.is_none() => path = Some(PathBuf::from(p)),
                extra => return Err(format!("unexpected argument {extra}")),
            }
        }
        if opts.hz.is_some_and(|h| h.is_nan() || h <= 0.0) {
            return Err("--hz must be above 0".into());
        }
        let path = path.ok_or("diagnose needs a trace file")?;
        Ok(DiagnoseArgs { path, opts, json })
    }
}

/// Reads and decodes one trace file. A decoding failure keeps the events before
/// it (reported on stderr, `false` returned) so the tools still run on damaged files.
pub(crate) fn load(path: &Path) -> Result<(ParsedTrace, bool), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let raw = container::raw_trace(&bytes, container::DEFAULT_MAX_INFLATED_BYTES)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let (parsed, failure) = trace::parse_trace(&raw);
    if let Some(f) = &failure {
        crate::output::warn(&format!(
            "{} @{}: {}; events before it are used",
            path.display(),
            f.offset,
            f.message
        ));
    }
    Ok((parsed, failure.is_none()))
}

/// Prints the output; a closed pipe (`| head`) is not an error.
pub(crate) fn emit(out: &str) -> Result<(), String> {
    match std::io::stdout().lock().write_all(out.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("stdout: {e}")),
        _ => Ok(()),
    }
}

pub fn run(args: &DiagnoseArgs) -> Result<ExitCode, String> {
    let (parsed, clean) = load(&args.path)?;
    let d = diagnose::diagnose(&parsed, &args.opts);
    let out = if args.json {
        serde_json::to_string_pretty(&d).map_err(|e| e.to_string())? + "\n"
    } else {
        diagnose::render(&d)
    };
    emit(&out)?;
    Ok(if clean { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
