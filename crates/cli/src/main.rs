//! `d9lens`: the native command line over the same core as the web page.

mod analyze;
mod args;

use std::process::ExitCode;

const USAGE: &str = "usage:
  d9lens analyze PATH... [--json] [--sample N] [--reference-compatible] [--max-inflated-bytes N]

PATH is a .bin / .bin.gz trace (gzip is detected by content) or a directory of them.";

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let result = match argv.first().map(String::as_str) {
        Some("analyze") => args::AnalyzeArgs::parse(&argv[1..]).and_then(|a| analyze::run(&a)),
        Some("-h" | "--help") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("d9lens: {msg}");
            ExitCode::from(2)
        }
    }
}
