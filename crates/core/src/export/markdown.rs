//! A report as Markdown, for a ticket: what was analyzed and its verdict,
//! the findings with their fixes, the key figures, the workers, the longest
//! polls, blocking by call and the spans. Trace strings are escaped so that
//! none of them can open a link, an image or a table cell in the reader.

use crate::compare::{figures, span_names, text::value};
use crate::fmt::{count, fmt_dur, pct, to_fixed};
use crate::frames::format_frame;
use crate::report::{Report, Severity};
use std::fmt::Write;

/// Rows per table.
const ROWS: usize = 10;

pub fn render(r: &Report) -> String {
    let mut o = String::new();
    let s = &r.summary;
    let _ = writeln!(o, "# d9lens report: {}\n", md(&r.label));
    let _ = writeln!(
        o,
        "**{}** · {} · {} · {} events · {} workers\n",
        r.health().label(),
        count(r.files.len(), "file"),
        fmt_dur(s.duration_ms * 1e6),
        s.event_count,
        s.workers.len()
    );
    let _ = writeln!(o, "## Findings\n");
    if r.red_flags.is_empty() {
        let _ = writeln!(o, "No red flags.\n");
    }
    for f in &r.red_flags {
        let severity = match f.severity {
            Severity::Critical => "critical",
            Severity::Warning => "warning",
            Severity::Info => "info",
        };
        let first = f.headline();
        let _ = writeln!(
            o,
            "- **{severity}** `{}`: {}  \n  Fix: {}",
            md(&f.check),
            md(first),
            md(&f.fix)
        );
    }
    let _ = writeln!(o, "\n## Key figures\n\n| figure | value |\n|---|---:|");
    for f in figures(r, &span_names(r)) {
        let _ = writeln!(o, "| {} | {} |", md(&f.name), value(f.unit, f.value));
    }
    let _ = writeln!(
        o,
        "\n## Workers\n\n| worker | active | polls | parks |\n|---:|---:|---:|---:|"
    );
    for w in &r.workers {
        let _ = writeln!(
            o,
            "| {} | {}% | {} | {} |",
            w.worker,
            to_fixed(w.utilization * 100.0, 1),
            w.poll_count,
            w.park_count
        );
    }
    if !r.long_polls.worst.is_empty() {
        let _ = writeln!(
            o,
            "\n## Longest polls ({} over 1 ms)\n\n| duration | worker | task | spawn location | file |\n|---:|---:|---:|---|---|",
            r.long_polls.count
        );
        for p in r.long_polls.worst.iter().take(ROWS) {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} |",
                fmt_dur(p.dur_ns as f64),
                p.worker,
                p.task_id,
                md(p.spawn_loc.as_deref().unwrap_or("(unknown)")),
                md(&p.file)
            );
        }
    }
    let b = &r.blocking;
    if !b.in_poll_calls.is_empty() {
        let _ = writeln!(
            o,
            "\n## Blocking in polls, by call\n\n| blocked | samples | share | call |\n|---:|---:|---:|---|"
        );
        for c in b.in_poll_calls.iter().take(ROWS) {
            let call = format_frame(&c.frame.symbol, c.frame.location.as_deref());
            let share = pct(c.count as f64, b.in_poll as f64, 1);
            let blocked = fmt_dur(c.blocked_ns as f64);
            let _ = writeln!(o, "| {blocked} | {} | {share}% | {} |", c.count, md(&call));
        }
    }
    if !r.spans.is_empty() {
        let _ = writeln!(
            o,
            "\n## Spans\n\n| span | count | p50 | p99 | max |\n|---|---:|---:|---:|---:|"
        );
        for sp in r.spans.iter().take(ROWS) {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} |",
                md(&sp.name),
                sp.count,
                fmt_dur(sp.p50_ns as f64),
                fmt_dur(sp.p99_ns as f64),
                fmt_dur(sp.max_ns as f64)
            );
        }
    }
    let _ = writeln!(o, "\n_Made by d9lens from dial9 traces._");
    o
}

/// Text from a trace as inert Markdown: every character Markdown or HTML
/// could read as syntax is escaped, and line breaks become spaces (a table
/// row is one line).
pub fn md(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '#' | '|' | '!' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_strings_are_inert() {
        assert_eq!(md("a|b"), "a\\|b");
        assert_eq!(md("<img src=x onerror=1>"), "&lt;img src=x onerror=1&gt;");
        assert_eq!(md("[x](javascript:1)"), "\\[x\\]\\(javascript:1\\)");
        assert_eq!(md("line\nbreak"), "line break");
        assert_eq!(md("src/main.rs:1:2"), "src/main.rs:1:2");
    }
}
