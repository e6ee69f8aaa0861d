//! A comparison as text, for the terminal and tickets. Trace strings
//! (finding messages, frame names) go through `fmt::printable`.

use super::{Comparison, Delta, Unit};
use crate::fmt::{count, fmt_dur, printable, to_fixed};
use std::fmt::Write;

pub fn render(c: &Comparison) -> String {
    let mut o = String::new();
    let side = |s: &super::Side| {
        format!(
            "{} ({}, {})",
            printable(&s.label),
            count(s.files, "file"),
            fmt_dur(s.duration_ms * 1e6)
        )
    };
    let _ = writeln!(o, "COMPARISON\n  A: {}\n  B: {}\n", side(&c.a), side(&c.b));
    let _ = writeln!(o, "KEY FIGURES (most changed first)");
    let _ = writeln!(o, "  {:<34} {:>12} {:>12} {:>9}", "", "A", "B", "change");
    for d in &c.figures {
        let _ = writeln!(
            o,
            "  {:<34} {:>12} {:>12} {:>9}",
            printable(&d.name),
            value(d.unit, d.a),
            value(d.unit, d.b),
            change(d)
        );
    }
    let findings = |o: &mut String, title: &str, list: &[crate::report::Finding]| {
        let _ = writeln!(o, "\n{title}");
        if list.is_empty() {
            let _ = writeln!(o, "  (none)");
        }
        for f in list {
            let first = f.headline();
            let _ = writeln!(o, "  [{}] {}", printable(&f.check), printable(first));
        }
    };
    findings(&mut o, "FINDINGS ONLY IN B", &c.findings_only_in_b);
    findings(&mut o, "FINDINGS ONLY IN A (gone in B)", &c.findings_only_in_a);
    let _ = writeln!(
        o,
        "\nFRAMES WHOSE SHARE CHANGED ({} samples, self)",
        c.movers_kind.name()
    );
    if c.movers.is_empty() {
        let _ = writeln!(o, "  (no samples on one side)");
    }
    for m in &c.movers {
        let _ = writeln!(
            o,
            "  {:>+7} pp  {:>6}% → {:>6}%  {}",
            to_fixed((m.b_share - m.a_share) * 100.0, 1),
            to_fixed(m.a_share * 100.0, 1),
            to_fixed(m.b_share * 100.0, 1),
            printable(&m.frame)
        );
    }
    o
}

pub fn value(unit: Unit, v: Option<f64>) -> String {
    let Some(v) = v else { return "–".into() };
    match unit {
        Unit::Share => format!("{}%", to_fixed(v * 100.0, 1)),
        Unit::Nanos => fmt_dur(v.round()),
        Unit::PerSecond => format!("{}/s", to_fixed(v, 2)),
        Unit::Count => to_fixed(v, 1),
    }
}

pub fn change(d: &Delta) -> String {
    match (d.a, d.b, d.relative) {
        (_, _, Some(r)) => format!("{}{}%", if r >= 0.0 { "+" } else { "" }, to_fixed(r * 100.0, 1)),
        // From zero: to zero is no change, to anything else is new.
        (Some(a), Some(b), None) => if a == b { "=" } else { "new" }.into(),
        (None, Some(_), _) => "only B".into(),
        (Some(_), None, _) => "only A".into(),
        (None, None, _) => String::new(),
    }
}
