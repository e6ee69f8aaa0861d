//! `d9lens zoom`: what happened around one instant of a trace file.

use crate::diagnose::{emit, load, value};
use d9lens_core::analysis::zoom;
use std::path::PathBuf;
use std::process::ExitCode;

pub struct ZoomArgs {
    pub path: PathBuf,
    pub center_ms: f64,
    pub half_ms: f64,
    pub hz: Option<f64>,
    pub json: bool,
}

impl ZoomArgs {
    pub fn parse(args: &[String]) -> Result<ZoomArgs, String> {
        let (mut hz, mut json) = (None, false);
        let mut positional = Vec::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--json" => json = true,
                "--hz" => hz = Some(value::<f64>(&mut it, a)?),
                // A negative center is a number, not a flag.
                flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
                p => positional.push(p),
            }
        }
        if hz.is_some_and(|h| h.is_nan() || h <= 0.0) {
            return Err("--hz must be above 0".into());
        }
        let number = |s: &str, what: &str| s.parse::<f64>().map_err(|_| format!("{what}: not a number: {s}"));
        let (path, center_ms, half_ms) = match positional.as_slice() {
            [p, c] => (PathBuf::from(p), number(c, "CENTER_MS")?, 20.0),
            [p, c, h] => (PathBuf::from(p), number(c, "CENTER_MS")?, number(h, "HALF_MS")?),
            _ => return Err("zoom needs FILE CENTER_MS [HALF_MS]".into()),
        };
        if !(half_ms >= 0.0 && center_ms.is_finite() && half_ms.is_finite()) {
            return Err("CENTER_MS and HALF_MS must be finite, HALF_MS not negative".into());
        }
        Ok(ZoomArgs {
            path,
            center_ms,
            half_ms,
            hz,
            json,
        })
    }
}

pub fn run(args: &ZoomArgs) -> Result<ExitCode, String> {
    let (parsed, clean) = load(&args.path)?;
    let z = zoom::zoom(&parsed, args.center_ms, args.half_ms, args.hz);
    let out = if args.json {
        serde_json::to_string_pretty(&z).map_err(|e| e.to_string())? + "\n"
    } else {
        zoom::render(&z, "<TRACE_URL>")
    };
    emit(&out)?;
    Ok(if clean { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
