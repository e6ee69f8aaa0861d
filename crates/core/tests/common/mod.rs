//! Shared helpers for the core's integration tests: the real dial9 fixtures.
#![allow(dead_code)]

pub mod bucket;

use d9lens_core::analysis::{Merger, Options, analyze_file};
use d9lens_core::report::Report;
use std::path::{Path, PathBuf};

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

pub fn read(rel: &str) -> Vec<u8> {
    let p = fixtures().join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

pub fn reference() -> Options {
    Options {
        reference_compatible: true,
        ..Options::default()
    }
}

/// Analyzes fixture files (relative paths) together, in the given order.
pub fn analyze(rels: &[&str], opts: &Options, label: Option<&str>) -> Report {
    let mut merger = Merger::new(opts.clone());
    if let Some(l) = label {
        merger = merger.with_label(l);
    }
    for rel in rels {
        let name = Path::new(rel).file_name().unwrap().to_string_lossy().into_owned();
        let outcome = analyze_file(&name, &read(rel), opts);
        assert!(outcome.error.is_none(), "{rel}: {:?}", outcome.error);
        merger.add(outcome.partial);
    }
    merger.finish()
}

/// The report of one file given as bytes (a crafted trace).
pub fn analyze_bytes(name: &str, bytes: &[u8], opts: &Options) -> Report {
    let outcome = analyze_file(name, bytes, opts);
    assert!(outcome.error.is_none(), "{name}: {:?}", outcome.error);
    let mut merger = Merger::new(opts.clone());
    merger.add(outcome.partial);
    merger.finish()
}

pub const SINGLE_FILES: &[&str] = &[
    "healthy.bin",
    "blocking.bin",
    "demo-trace.bin",
    "rotation/trace.0.bin",
    "rotation/trace.1.bin",
    "rotation/trace.2.bin",
    "rotation/trace.3.bin",
    "rotation/trace.4.bin",
];

pub const ROTATION: &[&str] = &[
    "rotation/trace.0.bin",
    "rotation/trace.1.bin",
    "rotation/trace.2.bin",
    "rotation/trace.3.bin",
    "rotation/trace.4.bin",
];

/// Keys (relative to the bucket) of every S3 object the reference could read.
pub fn s3_reference_keys() -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, root, out);
            } else if let Some(key) = p.to_string_lossy().strip_suffix(".report.txt") {
                out.push(
                    Path::new(key)
                        .strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    let root = fixtures().join("s3-bucket.reference");
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    out.sort();
    out
}

/// (key, size) of every object of the fixture bucket (`s3-bucket.listing.json`).
pub fn s3_fixture_objects() -> Vec<(String, u64)> {
    let listing: serde_json::Value =
        serde_json::from_slice(&read("s3-bucket.listing.json")).expect("the fixture listing is JSON");
    listing["objects"]
        .as_array()
        .expect("objects")
        .iter()
        .map(|o| (o["key"].as_str().unwrap().to_owned(), o["bytes"].as_u64().unwrap()))
        .collect()
}

/// A hand-made trace, for shapes no recording has: `schemas` (name, fields)
/// registered in order, then `events` (time, schema index, values) written
/// in time order.
pub fn encode_trace(
    schemas: &[(&str, &[(&str, dial9_trace_format::types::FieldType)])],
    mut events: Vec<(u64, usize, Vec<dial9_trace_format::types::FieldValue>)>,
) -> Vec<u8> {
    events.sort_by_key(|e| e.0);
    encode_trace_in_order(schemas, events)
}

/// `encode_trace`, the events written in the order given (times may go back).
pub fn encode_trace_in_order(
    schemas: &[(&str, &[(&str, dial9_trace_format::types::FieldType)])],
    events: Vec<(u64, usize, Vec<dial9_trace_format::types::FieldValue>)>,
) -> Vec<u8> {
    use dial9_trace_format::encoder::Encoder;
    use dial9_trace_format::schema::FieldDef;
    let mut enc = Encoder::new();
    let handles: Vec<_> = schemas
        .iter()
        .map(|(name, fields)| {
            let defs = fields.iter().map(|&(n, t)| FieldDef::new(n, t)).collect();
            enc.register_schema(name, defs).unwrap()
        })
        .collect();
    for (ts, schema, values) in events {
        enc.write_event(&handles[schema], ts, &values).unwrap();
    }
    enc.finish()
}

/// The span events' schemas (enter with the task id, exit, close), as `encode_trace` takes them.
pub const SPAN_SCHEMAS: [(&str, &[(&str, dial9_trace_format::types::FieldType)]); 3] = {
    use dial9_trace_format::types::FieldType::{String as S, Varint as V};
    [
        (
            "SpanEnterEvent",
            &[("span_id", V), ("span_name", S), ("dial9.tokio.task_id", V)],
        ),
        ("SpanExitEvent", &[("span_id", V)]),
        ("SpanCloseEvent", &[("span_id", V)]),
    ]
};

/// Minimal gzip writer (RFC 1952) over miniz_oxide's raw deflate.
pub fn gzip(data: &[u8], level: u8) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    out.extend(miniz_oxide::deflate::compress_to_vec(data, level));
    out.extend(crc32(data).to_le_bytes());
    out.extend((data.len() as u32).to_le_bytes());
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}
