//! Command-line arguments, parsed by hand (the surface is small).

use d9lens_core::analysis::Options;
use d9lens_core::trace::Window;
use std::path::PathBuf;

/// `FROM_MS..TO_MS` after each file's start (`--window`).
pub fn window(value: Option<&String>) -> Result<Window, String> {
    const NEEDS: &str = "--window needs FROM_MS..TO_MS (ms after the trace start)";
    let (a, b) = value.and_then(|v| v.split_once("..")).ok_or(NEEDS)?;
    let ms = |v: &str| v.trim().parse::<f64>().map_err(|_| NEEDS.to_string());
    Window::from_ms(ms(a)?, ms(b)?).ok_or_else(|| NEEDS.to_string())
}

#[derive(Debug)]
pub struct AnalyzeArgs {
    pub paths: Vec<PathBuf>,
    pub json: bool,
    pub sample: Option<usize>,
    /// No progress line, no notes.
    pub quiet: bool,
    pub opts: Options,
}

impl AnalyzeArgs {
    pub fn parse(args: &[String]) -> Result<AnalyzeArgs, String> {
        let mut out = AnalyzeArgs {
            paths: Vec::new(),
            json: false,
            sample: None,
            quiet: false,
            opts: Options::default(),
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--json" => out.json = true,
                "--quiet" | "-q" => out.quiet = true,
                "--reference-compatible" => out.opts.reference_compatible = true,
                "--sample" => {
                    let n: usize = it
                        .next()
                        .and_then(|v| v.parse().ok())
                        .ok_or("--sample needs a whole number >= 1")?;
                    if n == 0 {
                        return Err("sample must be >= 1".into());
                    }
                    out.sample = Some(n);
                }
                "--window" => out.opts.window = Some(window(it.next())?),
                "--max-inflated-bytes" => {
                    out.opts.max_inflated_bytes = it
                        .next()
                        .and_then(|v| v.parse().ok())
                        .ok_or("--max-inflated-bytes needs a byte count")?;
                }
                flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
                path => out.paths.push(PathBuf::from(path)),
            }
        }
        if out.paths.is_empty() {
            return Err("analyze needs at least one trace file or directory".into());
        }
        Ok(out)
    }
}
