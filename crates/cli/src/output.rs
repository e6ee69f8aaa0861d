//! What the commands write: the result on stdout, problems on stderr.

use d9lens_core::analysis::Options;
use d9lens_core::fmt::terminal_text;
use d9lens_core::report::{Report, text};
use std::process::ExitCode;

/// Writes the result to stdout; a closed pipe (`| head`) is not an error.
/// Trace strings and S3 messages are in it: control characters other than
/// line breaks and tabs are escaped (`fmt::terminal_text`), so none can
/// drive the terminal. (JSON escapes its own.)
pub fn print_out(text: &str) -> Result<(), String> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(terminal_text(text).as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("writing the output: {e}")),
        _ => Ok(()),
    }
}

/// A problem on stderr, `d9lens: ` first, its control characters escaped.
pub fn warn(message: &str) {
    eprintln!("d9lens: {}", terminal_text(message));
}

/// Prints a merged report (JSON or text) after its per-file errors, in file
/// order whichever file finished first; exit code 1 when a file had an error.
pub fn print_report(report: Report, opts: &Options, json: bool) -> Result<ExitCode, String> {
    for err in &report.errors {
        warn(&format!(
            "{}{}: {}",
            err.file,
            err.offset.map_or(String::new(), |o| format!(" @{o}")),
            err.message
        ));
    }
    let failed = !report.errors.is_empty();
    if json {
        print_out(&(serde_json::to_string_pretty(&report).map_err(|e| e.to_string())? + "\n"))?;
    } else {
        print_out(&text::render(&report, opts.text_style()))?;
    }
    // The process is about to exit: freeing the report's many small allocations
    // one by one would only cost time.
    std::mem::forget(report);
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
