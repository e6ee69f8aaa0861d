//! The text report, line for line as dial9's `analyze.js` prints it in
//! reference-compatible mode.
use super::Report;
use crate::analysis::Options;

pub fn render(report: &Report, opts: &Options) -> String {
    let _ = (report, opts);
    String::new()
}
