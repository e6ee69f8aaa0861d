//! The CLI's words for the span explorer and the events (`d9lens spans`,
//! `d9lens events`): JSON with the field names the issue fixed, and text
//! with the same content for a terminal. The page shows the same numbers.

use super::events::EventSummary;
use super::explore::{Explorer, Instance, SpanSummary};
use super::slow::SlowVsTypical;
use super::split::Split;
use crate::fmt::{fmt_dur, js_number, pct};
use serde_json::{Map, Value, json};
use std::fmt::Write;

/// The key under which a field's less frequent values are counted together.
pub const OTHER_VALUES: &str = "(other values)";

fn split_json(s: &Split) -> Value {
    json!({
        "on_cpu_ns": s.on_cpu,
        "blocked_ns": s.blocked,
        "sched_delay_ns": s.sched_delay,
        "async_wait_ns": s.async_wait,
    })
}

fn instance_json(i: &Instance) -> Value {
    json!({
        "name": i.name,
        "file": i.moment.file,
        "start_ns": i.moment.start_ns,
        "offset_ns": i.offset_ns,
        "dur_ns": i.dur_ns,
        "task": i.task,
        "split": i.split.as_ref().map(split_json),
        "fields": i.fields.iter().map(|(k, v)| (k.clone(), Value::from(v.clone()))).collect::<Map<_, _>>(),
    })
}

fn span_json(s: &SpanSummary) -> Value {
    let fields: Map<String, Value> = s
        .fields
        .iter()
        .map(|f| {
            let mut values: Map<String, Value> = f.values.iter().map(|(v, n)| (v.clone(), json!(n))).collect();
            if f.other > 0 {
                values.insert(OTHER_VALUES.into(), json!(f.other));
            }
            (f.name.clone(), Value::Object(values))
        })
        .collect();
    json!({
        "name": s.name,
        "count": s.count,
        "p50_ns": s.p50_ns,
        "p90_ns": s.p90_ns,
        "p99_ns": s.p99_ns,
        "p999_ns": s.p999_ns,
        "max_ns": s.max_ns,
        "total_ns": s.total_ns,
        "split": split_json(&s.split),
        "unattributed_ns": s.unattributed_ns,
        "fields": fields,
        "children": s.children.iter().map(|c| json!({"name": c.name, "count": c.count, "total_ns": c.total_ns})).collect::<Vec<_>>(),
        "awaits": s.awaits.iter().map(|a| json!({"frame": a.frame, "dumps": a.dumps, "wait_ns": a.wait_ns})).collect::<Vec<_>>(),
        "histogram": s.histogram.iter().map(|b| json!({"lo_ns": b.lo, "hi_ns": b.hi, "count": b.count})).collect::<Vec<_>>(),
        "exemplars": s.exemplars.iter().map(instance_json).collect::<Vec<_>>(),
    })
}

fn slow_json(s: &SlowVsTypical) -> Value {
    let extra = |v: &[super::slow::Extra]| {
        v.iter()
            .map(|e| json!({"name": e.name, "slow_mean_ns": e.slow_mean_ns, "typical_mean_ns": e.typical_mean_ns}))
            .collect::<Vec<_>>()
    };
    json!({
        "name": s.name,
        "threshold_ns": s.threshold_ns,
        "slow": s.slow,
        "typical": s.typical,
        "slow_mean_ns": s.slow_mean_ns,
        "typical_mean_ns": s.typical_mean_ns,
        "fields": s.fields.iter().map(|l| json!({
            "field": l.field, "value": l.value, "slow": l.slow, "typical": l.typical,
            "lift": if l.lift.is_finite() { json!(l.lift) } else { json!("only slow") },
        })).collect::<Vec<_>>(),
        "children": extra(&s.children),
        "parts": extra(&s.parts),
        "blocking": s.blocking.iter().map(|b| json!({
            "frame": crate::frames::format_frame(&b.frame.symbol, b.frame.location.as_deref()),
            "samples": b.count,
            "blocked_ns": b.blocked_ns,
        })).collect::<Vec<_>>(),
        "exemplars": s.exemplars.iter().map(instance_json).collect::<Vec<_>>(),
    })
}

/// `d9lens spans --json`.
pub fn spans_json(e: &Explorer, slow: Option<&SlowVsTypical>) -> Value {
    let mut out = json!({
        "spans": e.spans.iter().map(span_json).collect::<Vec<_>>(),
        "files": e.files,
        "files_left_out": e.files_left_out,
    });
    if let Some(s) = slow {
        out["slow"] = slow_json(s);
    }
    out
}

fn split_text(s: &Split, unattributed: u64) -> String {
    let total = (s.total() + unattributed) as f64;
    let mut parts: Vec<String> = s
        .parts()
        .iter()
        .map(|(p, ns)| format!("{} {}%", p.label(), pct(*ns as f64, total, 0)))
        .collect();
    if unattributed > 0 {
        parts.push(format!("unattributed {}%", pct(unattributed as f64, total, 0)));
    }
    parts.join(" · ")
}

/// `d9lens spans`, for a terminal.
/// `    label: name ×count (time), …`, or nothing for an empty list.
fn counted_line<'a>(out: &mut String, label: &str, items: impl Iterator<Item = (&'a str, u64, u64)>) {
    let items: Vec<String> = items
        .map(|(name, count, ns)| format!("{name} ×{count} ({})", fmt_dur(ns as f64)))
        .collect();
    if !items.is_empty() {
        let _ = writeln!(out, "    {label}: {}", items.join(", "));
    }
}

pub fn spans_text(e: &Explorer, slow: Option<&SlowVsTypical>) -> String {
    let mut out = String::new();
    let d = |ns: u64| fmt_dur(ns as f64);
    let _ = writeln!(out, "SPANS ({})", crate::fmt::count(e.files, "file"));
    if e.files_left_out > 0 {
        let _ = writeln!(
            out,
            "  ({} left out: past what a run keeps of instances)",
            crate::fmt::count(e.files_left_out as usize, "file")
        );
    }
    if e.spans.is_empty() {
        out.push_str("  (no span matches)\n");
    }
    for s in &e.spans {
        let _ = writeln!(
            out,
            "\n  {}  {} instances  p50 {}  p90 {}  p99 {}  p99.9 {}  max {}",
            s.name,
            s.count,
            d(s.p50_ns),
            d(s.p90_ns),
            d(s.p99_ns),
            d(s.p999_ns),
            d(s.max_ns)
        );
        let _ = writeln!(out, "    time: {}", split_text(&s.split, s.unattributed_ns));
        for f in &s.fields {
            let values = match f.values.first() {
                // Each value once: an identifier, not worth listing.
                Some((_, 1)) => format!("{} distinct values", f.values.len() as u64 + f.other_values),
                _ => {
                    let mut values: Vec<String> = f.values.iter().map(|(v, n)| format!("{v} ({n})")).collect();
                    if f.other > 0 {
                        values.push(format!("{} more values ({})", f.other_values, f.other));
                    }
                    values.join(", ")
                }
            };
            let _ = writeln!(out, "    {}: {values}", f.name);
        }
        let kids = s.children.iter().map(|c| (c.name.as_str(), c.count, c.total_ns));
        counted_line(&mut out, "children", kids);
        let awaits = s.awaits.iter().map(|a| (a.frame.as_str(), a.dumps, a.wait_ns));
        counted_line(&mut out, "awaiting (task dumps)", awaits);
        if let Some(x) = s.exemplars.first() {
            let _ = writeln!(out, "    slowest: {}", instance_text(x));
        }
    }
    if let Some(s) = slow {
        out.push_str(&slow_text(s));
    }
    out
}

fn instance_text(i: &Instance) -> String {
    let fields: Vec<String> = i.fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!(
        "{} in {} at {:.3} ms, task {}{}",
        fmt_dur(i.dur_ns as f64),
        i.moment.file,
        i.offset_ns as f64 / 1e6,
        i.task,
        if fields.is_empty() {
            String::new()
        } else {
            format!(", {}", fields.join(" "))
        }
    )
}

fn slow_text(s: &SlowVsTypical) -> String {
    let mut out = String::new();
    let d = |ns: u64| fmt_dur(ns as f64);
    let _ = writeln!(
        out,
        "\nSLOW VS TYPICAL: {} over {} — {} slow (mean {}) against {} typical (mean {})",
        s.name,
        d(s.threshold_ns),
        s.slow,
        d(s.slow_mean_ns),
        s.typical,
        d(s.typical_mean_ns)
    );
    let held = [
        ("child span with the extra time", &s.children),
        ("part of the time with the extra", &s.parts),
    ];
    for (what, list) in held {
        if let Some(e) = list.first().filter(|e| e.extra_ns() > 0) {
            let _ = writeln!(
                out,
                "  {what}: {} (+{} per slow instance)",
                e.name,
                d(e.extra_ns() as u64)
            );
        }
    }
    if let Some(b) = s.blocking.first() {
        let _ = writeln!(
            out,
            "  blocking call: {} ({} blocked)",
            crate::frames::format_frame(&b.frame.symbol, b.frame.location.as_deref()),
            d(b.blocked_ns)
        );
    }
    if !s.fields.is_empty() {
        out.push_str("  over-represented among the slow:\n");
        for l in &s.fields {
            let lift = if l.lift.is_finite() {
                format!("×{}", js_number((l.lift * 10.0).round() / 10.0))
            } else {
                "only slow".into()
            };
            let _ = writeln!(
                out,
                "    {}={}  {} slow, {} typical ({lift})",
                l.field, l.value, l.slow, l.typical
            );
        }
    }
    if !s.exemplars.is_empty() {
        out.push_str("  slowest:\n");
        for x in &s.exemplars {
            let _ = writeln!(out, "    {}", instance_text(x));
        }
    }
    out
}

/// `d9lens events --json`.
pub fn events_json(events: &[EventSummary], files_left_out: u64) -> Value {
    json!({
        "events": events.iter().map(|e| json!({
            "name": e.name,
            "count": e.count,
            "fields": e.fields.iter().map(|f| (f.name.clone(), json!({
                "unit": f.unit,
                "kind": f.kind.map(|k| k.label()),
                "count": f.count,
                "min": f.min,
                "max": f.max,
                "p50": f.p50,
            }))).collect::<Map<_, _>>(),
        })).collect::<Vec<_>>(),
        "files_left_out": files_left_out,
    })
}

/// `d9lens events`, for a terminal.
pub fn events_text(events: &[EventSummary]) -> String {
    let mut out = String::from("EVENTS\n");
    if events.is_empty() {
        out.push_str("  (no custom event)\n");
    }
    let num = |v: Option<f64>| v.map_or("-".into(), js_number);
    for e in events {
        let _ = writeln!(out, "\n  {}  {} events", e.name, e.count);
        for f in &e.fields {
            let about: Vec<String> = [f.unit.clone(), f.kind.map(|k| k.label().to_string())]
                .into_iter()
                .flatten()
                .collect();
            let about = if about.is_empty() {
                String::new()
            } else {
                format!(" [{}]", about.join(", "))
            };
            match f.p50 {
                Some(_) => {
                    let _ = writeln!(
                        out,
                        "    {}{about}: min {}  p50 {}  max {}",
                        f.name,
                        num(f.min),
                        num(f.p50),
                        num(f.max)
                    );
                }
                None => {
                    let _ = writeln!(out, "    {}{about}: {} values", f.name, f.count);
                }
            }
        }
    }
    out
}
