mod common;
use common::*;
use d9lens_core::analysis::{diagnose, zoom};
use d9lens_core::container::{DEFAULT_MAX_INFLATED_BYTES, raw_trace};
use d9lens_core::trace::{ParsedTrace, SpanEvent, parse_trace};

fn parse(rel: &str) -> ParsedTrace {
    let bytes = read(rel);
    let raw = raw_trace(&bytes, DEFAULT_MAX_INFLATED_BYTES).unwrap();
    parse_trace(&raw).0
}

fn all() -> Vec<String> {
    fn walk(dir: &std::path::Path, root: &std::path::Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() { walk(&p, root, out); }
            else { let s = p.to_string_lossy().into_owned(); if s.ends_with(".bin") || s.ends_with(".bin.gz") { out.push(p.strip_prefix(root).unwrap().to_string_lossy().into_owned()); } }
        }
    }
    let mut v = Vec::new(); walk(&fixtures(), &fixtures(), &mut v); v.sort(); v
}

#[test]
fn explore() {
    for f in all() {
        let bytes = read(&f);
        let Ok(raw) = raw_trace(&bytes, DEFAULT_MAX_INFLATED_BYTES) else { println!("{f}: container err"); continue };
        let (t, err) = parse_trace(&raw);
        let d = diagnose::diagnose(&t, &diagnose::DiagnoseOptions { top: 40, ..Default::default() });
        let mut v = std::collections::BTreeMap::new();
        for x in &d.targets { *v.entry(x.verdict.as_str()).or_insert(0) += 1; }
        let with_task = t.span_events.iter().filter(|e| matches!(e.event, SpanEvent::Enter{task_id: Some(_), ..})).count();
        let enters = t.span_events.iter().filter(|e| matches!(e.event, SpanEvent::Enter{..})).count();
        println!("{f}: err={} cands={} {:?} corr={:?} enters={enters} with_task={with_task}", err.is_some(), d.candidates, v, d.targets.iter().filter_map(|x| x.corroboration.as_ref()).collect::<Vec<_>>());
        if f.contains("1796047550-1") {
            let d = diagnose::diagnose(&t, &diagnose::DiagnoseOptions { top: 52, ..Default::default() });
            println!("{}", diagnose::render(&d));
        }
    }
    let t = parse("blocking.bin");
    let z = zoom::zoom(&t, 256.0, 30.0, None);
    println!("{}", zoom::render(&z, "<TRACE_URL>"));
}
