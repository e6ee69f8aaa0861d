//! Command-line arguments, parsed by hand (the surface is small).

use d9lens_core::analysis::Options;
use std::path::PathBuf;

#[derive(Debug)]
pub struct AnalyzeArgs {
    pub paths: Vec<PathBuf>,
    pub json: bool,
    pub sample: Option<usize>,
    pub opts: Options,
}

impl AnalyzeArgs {
    pub fn parse(args: &[String]) -> Result<AnalyzeArgs, String> {
        let mut out = AnalyzeArgs {
            paths: Vec::new(),
            json: false,
            sample: None,
            opts: Options::default(),
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--json" => out.json = true,
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
