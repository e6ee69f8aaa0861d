//! `d9lens`: the native command line over the same core as the web page.

mod allocator;
mod analyze;
mod args;
mod aws_credentials;
mod compare;
mod deploy;
mod deploy_lambda;
mod diagnose;
mod export;
mod output;
mod progress;
mod requests;
mod s3;
mod two_cores;
mod zoom;

use std::process::ExitCode;

const USAGE: &str = "usage:
  d9lens analyze PATH... [--json] [--sample N] [--window FROM_MS..TO_MS] [--reference-compatible]
                 [--max-inflated-bytes N] [--quiet]
  d9lens diagnose FILE [--task ID] [--min-ms X] [--pctl-mult 3] [--floor-ms 1] [--top 1] [--hz HZ] [--json]
  d9lens zoom FILE CENTER_MS [HALF_MS=20] [--hz HZ] [--json]
  d9lens compare A... [--window FROM_MS..TO_MS] -- B... [--window ...] [--json]
  d9lens export PATH... --format chrome|folded|markdown|html [--samples KIND] [-o OUT]
  d9lens spans PATH... [--name N] [--where FIELD=VALUE]... [--slow p99|30ms] [--json]   (d9lens spans --help)
  d9lens events PATH... [--json]
  d9lens s3 ls|analyze s3://BUCKET[/PREFIX] [--endpoint URL] [...]   (d9lens s3 --help)
  d9lens deploy s3://BUCKET[/PREFIX] [--dist DIR] [--dry-run] [...]    (d9lens deploy --help)
  d9lens deploy-lambda --function NAME --role ARN [--zip PATH] [...]   (d9lens deploy-lambda --help)

PATH is a .bin / .bin.gz trace (gzip is detected by content) or a directory of them (sub-folders too).
diagnose explains the longest polls (threshold: --min-ms, else max(floor, mult x p99));
--window analyzes what started in that window of each file (ms after its start; polls
and spans that began in it are kept whole). zoom shows the window CENTER_MS +- HALF_MS
after the trace start. HZ defaults to the
trace's cpu.profile.frequency_hz, else 99. compare puts two selections side by side:
key figures ranked by how much they moved, findings only one has, frames whose share
changed. export writes a Chrome trace (polls per worker,
spans, wakes as flows, counters; for Perfetto UI and chrome://tracing), folded stacks
(--samples on-cpu, blocking, idle, off-cpu, alloc or waits), or the report as Markdown or one
HTML file, to stdout or OUT. On a terminal, runs of many files draw their progress on stderr
(--quiet: not).";

fn main() -> ExitCode {
    allocator::keep_freed_memory();
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let result = match argv.first().map(String::as_str) {
        Some("analyze") => args::AnalyzeArgs::parse(&argv[1..]).and_then(|a| analyze::run(&a)),
        Some("diagnose") => diagnose::DiagnoseArgs::parse(&argv[1..]).and_then(|a| diagnose::run(&a)),
        Some("zoom") => zoom::ZoomArgs::parse(&argv[1..]).and_then(|a| zoom::run(&a)),
        Some("compare") => compare::CompareArgs::parse(&argv[1..]).and_then(|a| compare::run(&a)),
        Some("export") => export::ExportArgs::parse(&argv[1..]).and_then(|a| export::run(&a)),
        Some("spans") => requests::SpansArgs::parse(&argv[1..]).and_then(|a| requests::spans(&a)),
        Some("events") => requests::events(&argv[1..]),
        Some("s3") => s3::run(&argv[1..]),
        Some("deploy") => deploy::run(&argv[1..]),
        Some("deploy-lambda") => deploy_lambda::run(&argv[1..]),
        Some("-h" | "--help") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(code) => code,
        Err(msg) => {
            output::warn(&msg);
            ExitCode::from(2)
        }
    }
}
