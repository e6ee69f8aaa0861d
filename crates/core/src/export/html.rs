//! A report as one self-contained HTML file (no script, no external
//! resource): the verdict and findings, then the whole text report. Opens
//! from a disk or an attachment with no server; every trace string is
//! HTML-escaped.

use crate::report::{Report, text};
use std::fmt::Write;

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;\
color:#1d2330;background:#f5f6f8}pre{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:1rem;\
overflow:auto;font:12px/1.4 ui-monospace,Menlo,Consolas,monospace}li{margin:.3rem 0}.muted{color:#5f6b7d}\
@media (prefers-color-scheme:dark){body{color:#e4e8ef;background:#12151b}pre{background:#1a1f27;border-color:#2e3642}\
.muted{color:#98a3b3}}";

pub fn render(r: &Report) -> String {
    let mut o = String::new();
    let title = format!("d9lens report: {}", r.label);
    let _ = write!(
        o,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title><style>{STYLE}</style></head><body>\n",
        escape(&title)
    );
    let _ = writeln!(
        o,
        "<h1>{}</h1>\n<p><strong>{}</strong></p>",
        escape(&title),
        r.health().label()
    );
    let _ = writeln!(o, "<h2>Findings</h2><ul>");
    if r.red_flags.is_empty() {
        let _ = writeln!(o, "<li>No red flags.</li>");
    }
    for f in &r.red_flags {
        let first = f.headline();
        let _ = writeln!(
            o,
            "<li><code>{}</code> {}<br><span class=\"muted\">Fix: {}</span></li>",
            escape(&f.check),
            escape(first),
            escape(&f.fix)
        );
    }
    let _ = writeln!(o, "</ul>\n<h2>Report</h2>");
    let _ = writeln!(o, "<pre>{}</pre>", escape(&text::render(r, text::Style::Improved)));
    let _ = writeln!(
        o,
        "<p class=\"muted\">Made by d9lens from dial9 traces.</p></body></html>"
    );
    o
}

pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
