//! A trace file is many streams back to back; the parser decodes each one as
//! soon as it is complete, in pieces or whole, and must agree with dial9's own
//! sequential decoder, even when the header magic shows up inside a frame.

mod common;

use d9lens_core::analysis::{FileAnalysis, FileOutcome, Partial, TraceAnalysis, analyze_file};
use d9lens_core::container::Unpack;
use d9lens_core::trace::{
    DecodeFailure, ParsedTrace, STREAM_HEADER, TraceParser, TracePart, find_cut, find_cut_in, parse_trace,
};
use dial9_trace_format::decoder::Decoder;
use dial9_trace_format::encoder::Encoder;
use dial9_trace_format::schema::FieldDef;
use dial9_trace_format::types::{FieldType, FieldValue};

/// One stream: task spawns with the given spawn locations, then terminations.
fn stream(spawns: &[(u64, &str)], terminations: &[u64]) -> Vec<u8> {
    let mut enc = Encoder::new();
    let spawn = enc
        .register_schema(
            "TaskSpawnEvent",
            vec![
                FieldDef::new("task_id", FieldType::Varint),
                FieldDef::new("spawn_loc", FieldType::String),
            ],
        )
        .unwrap();
    let terminate = enc
        .register_schema("TaskTerminateEvent", vec![FieldDef::new("task_id", FieldType::Varint)])
        .unwrap();
    let mut ts = 1_000;
    for &(task, loc) in spawns {
        ts += 10;
        let values = [FieldValue::Varint(task), FieldValue::String(loc.into())];
        enc.write_event(&spawn, ts, &values).unwrap();
    }
    for &task in terminations {
        ts += 10;
        enc.write_event(&terminate, ts, &[FieldValue::Varint(task)]).unwrap();
    }
    enc.finish()
}

/// Three streams; strings of the first carry the header magic mid-frame,
/// once with its version byte and once right at a frame's end.
fn tricky_trace() -> Vec<u8> {
    let mut raw = stream(&[(1, "src/a.rs:1:1"), (2, "evil TRC\0\x01 inside"), (3, "xTRC\0")], &[]);
    raw.extend(stream(&[], &[2]));
    raw.extend(stream(&[(4, "src/d.rs:4:4")], &[1, 3]));
    raw
}

fn partial_json(trace: ParsedTrace) -> String {
    serde_json::to_string(&Partial::from_trace("t.bin", trace)).unwrap()
}

fn streamed(raw: &[u8], piece: usize) -> ParsedTrace {
    let mut p = TraceParser::default();
    for chunk in raw.chunks(piece) {
        p.push(chunk);
    }
    let (trace, failure) = p.finish();
    assert_eq!(failure, None, "piece {piece}");
    trace
}

fn sequential_event_count(raw: &[u8]) -> u64 {
    let mut n = 0;
    Decoder::new(raw).unwrap().for_each_event(|_| n += 1).unwrap();
    n
}

#[test]
fn magic_inside_a_frame_is_not_a_stream_boundary() {
    let raw = tricky_trace();
    assert_eq!(sequential_event_count(&raw), 7);
    let (trace, failure) = parse_trace(&raw);
    assert_eq!(failure, None);
    let locs: Vec<(u64, &str)> = trace
        .task_spawn_locs
        .iter()
        .map(|(&t, &l)| (t, trace.spawn_loc(l).unwrap()))
        .collect();
    assert_eq!(
        locs,
        [
            (1, "src/a.rs:1:1"),
            (2, "evil TRC\0\x01 inside"),
            (3, "xTRC\0"),
            (4, "src/d.rs:4:4")
        ]
    );
    let ended: Vec<u64> = trace.task_terminate_times.keys().copied().collect();
    assert_eq!(ended, [2, 1, 3]);
    // Any piece size gives the same trace, down to single bytes.
    let whole = partial_json(trace);
    for piece in [1, 2, 3, 5, 8, 13, 64, raw.len()] {
        assert_eq!(partial_json(streamed(&raw, piece)), whole, "piece {piece}");
    }
}

#[test]
fn a_damaged_stream_stops_where_the_sequential_decoder_stops() {
    let mut raw = tricky_trace();
    // An unknown frame tag right after the first stream's schemas and spawns.
    let second = stream(&[], &[2]);
    let at = raw.len() - second.len() - stream(&[(4, "src/d.rs:4:4")], &[1, 3]).len();
    raw.insert(at, 0x7f);
    let (trace, failure) = parse_trace(&raw);
    let failure = failure.expect("the bad tag is reported");
    assert_eq!(failure.offset, at as u64);
    assert_eq!(trace.task_spawn_locs.len(), 3, "the events before the damage are kept");
    assert!(trace.task_terminate_times.is_empty(), "nothing after the damage");
    let mut p = TraceParser::default();
    for chunk in raw.chunks(7) {
        p.push(chunk);
    }
    assert_eq!(p.finish().1, Some(failure));
}

#[test]
fn damage_in_a_later_stream_has_its_file_offset_in_pieces_too() {
    // The parser drops the streams it decoded: offsets must still count from the file's start.
    let mut raw = common::read("rotation/trace.1.bin");
    let last = memchr::memmem::rfind(&raw, b"TRC\0").expect("several streams");
    assert!(last > 100_000, "the damage lies far from the start ({last})");
    let at = last + 5;
    raw.insert(at, 0x7f);
    let (whole, failure) = parse_trace(&raw);
    let failure = failure.expect("the bad tag is reported");
    assert_eq!(failure.offset, at as u64);
    for piece in [997, 65_536] {
        let mut p = TraceParser::default();
        for chunk in raw.chunks(piece) {
            p.push(chunk);
        }
        assert_eq!(p.len(), raw.len(), "every byte is counted");
        let (trace, streamed) = p.finish();
        assert_eq!(streamed.as_ref(), Some(&failure), "pieces of {piece}");
        assert_eq!(trace.runtime_events, whole.runtime_events);
    }
}

#[test]
fn fixtures_parse_the_same_in_pieces_as_whole() {
    for rel in ["blocking.bin", "rotation/trace.1.bin"] {
        let raw = common::read(rel);
        let (trace, failure) = parse_trace(&raw);
        assert_eq!(failure, None, "{rel}");
        let whole = partial_json(trace);
        for piece in [4096, 65_536 + 7] {
            assert_eq!(partial_json(streamed(&raw, piece)), whole, "{rel} in pieces of {piece}");
        }
    }
}

#[test]
fn a_download_in_pieces_gives_the_same_outcome_as_the_whole_file() {
    let opts = common::reference();
    let rel = "s3-bucket/version=1/date=2026-11-30/service=checkout-api/time=1405/instance=ip-10-0-1-23/boot=qghy-22982/1796047550-1.bin.gz";
    let gz = common::read(rel);
    let json = |o: &FileOutcome| serde_json::to_string(o).unwrap();
    let whole = analyze_file("seg.bin.gz", &gz, &opts);
    assert!(whole.error.is_none() && whole.events > 40_000, "{:?}", whole.error);
    for (piece, hint) in [(1000, 0), (16_384 + 3, 0), (gz.len(), 1 << 20)] {
        let mut file = FileAnalysis::new("seg.bin.gz", &opts, hint);
        for chunk in gz.chunks(piece) {
            file.push(chunk);
        }
        if piece < gz.len() {
            assert!(file.events() > 0, "events are decoded while bytes arrive");
        }
        assert_eq!(json(&file.finish()), json(&whole), "pieces of {piece}");
    }
    // Cut short: the gzip error, with nothing analyzed (as for the whole cut file).
    let cut = &gz[..gz.len() / 2];
    let mut file = FileAnalysis::new("seg.bin.gz", &opts, 0);
    for chunk in cut.chunks(777) {
        file.push(chunk);
    }
    assert!(file.raw_bytes() > 0, "the first half inflates as it arrives");
    let streamed = file.finish();
    assert_eq!(json(&streamed), json(&analyze_file("seg.bin.gz", cut, &opts)));
    let err = streamed.error.expect("a truncated gzip is an error");
    assert!(err.message.contains("gzip"), "{}", err.message);
}

/// `bytes` through the two halves of an analysis as two workers run them:
/// unpacked in pieces of `piece`, each piece's raw bytes handed on in turn.
fn two_halves(name: &str, bytes: &[u8], piece: usize) -> FileOutcome {
    let mut unpack = Unpack::new(common::reference().max_inflated_bytes);
    let mut trace = TraceAnalysis::new(name, 0);
    for chunk in bytes.chunks(piece) {
        trace.extend(|raw| unpack.push(chunk, raw));
    }
    trace.finish(unpack.finish())
}

#[test]
fn unpacking_and_analysis_in_two_halves_give_the_same_outcome_as_one() {
    let opts = common::reference();
    let json = |o: &FileOutcome| serde_json::to_string(o).unwrap();
    let gz = common::read(
        "s3-bucket/version=1/date=2026-11-30/service=checkout-api/time=1405/instance=ip-10-0-1-23/boot=qghy-22982/1796047550-1.bin.gz",
    );
    let raw = common::read("healthy.bin");
    let mut cut_raw = raw.clone();
    cut_raw.truncate(raw.len() * 2 / 3);
    let cases: [(&str, &[u8]); 5] = [
        ("whole gzip", &gz),
        ("raw trace", &raw),
        ("gzip cut short", &gz[..gz.len() / 2]),
        ("raw trace cut short", &cut_raw),
        ("not a trace", b"PK\x03\x04 a zip"),
    ];
    for (what, bytes) in cases {
        let one = analyze_file("seg", bytes, &opts);
        for piece in [3, 4096 + 1, bytes.len().max(1)] {
            assert_eq!(
                json(&two_halves("seg", bytes, piece)),
                json(&one),
                "{what} in pieces of {piece}"
            );
        }
    }
    let gzip_error = two_halves("seg", &gz[..gz.len() / 2], 1000).error.unwrap();
    assert!(
        gzip_error.message.contains("gzip") && gzip_error.offset.is_some(),
        "{gzip_error:?}"
    );
    assert_eq!(two_halves("seg", b"PK\x03\x04", 2).error.unwrap().offset, Some(0));
    assert_eq!(two_halves("seg", b"", 1).error.unwrap().message, "empty file (0 bytes)");
}

/// Decodes `raw` cut at `at`: the bytes before it and the header there in
/// pieces by a parser, the rest apart and in pieces too (as the CLI's two
/// threads do), then joined.
fn split_parse(raw: &[u8], at: usize) -> (ParsedTrace, Option<DecodeFailure>) {
    let mut front = TraceParser::default();
    for chunk in raw[..(at + STREAM_HEADER).min(raw.len())].chunks(65_536 + 7) {
        front.push(chunk);
    }
    let rest: Vec<&[u8]> = raw[at..].chunks(65_536 + 3).collect();
    let part = TracePart::decode(at, &rest);
    front.finish_with(part, &rest)
}

/// What decoding gave, in full: the analysis' partial and what it does not show.
fn fingerprint((trace, failure): (ParsedTrace, Option<DecodeFailure>), addrs: &[u64]) -> String {
    let symbols: Vec<_> = addrs.iter().map(|&a| trace.symbols.symbolize(&[a])).collect();
    let locs: Vec<(u64, Option<String>)> = trace
        .task_spawn_locs
        .iter()
        .map(|(&t, &l)| (t, trace.spawn_loc(l).map(str::to_string)))
        .collect();
    format!("{failure:?} {symbols:?} {locs:?} {}", partial_json(trace))
}

/// Every header candidate of `raw` past the first byte, real or inside a frame.
fn candidates(raw: &[u8]) -> Vec<usize> {
    memchr::memmem::find_iter(raw, b"TRC\0").filter(|&i| i > 0).collect()
}

enum Ev<'a> {
    Spawn(u64, &'a str),
    Poll(u64, &'a str),
    Symbol(u64, u64, &'a str),
}

fn stream_of(events: &[Ev<'_>]) -> Vec<u8> {
    let mut enc = Encoder::new();
    let (v, s) = (FieldType::Varint, FieldType::String);
    let spawn = enc
        .register_schema(
            "TaskSpawnEvent",
            vec![FieldDef::new("task_id", v), FieldDef::new("spawn_loc", s)],
        )
        .unwrap();
    let fields = ["worker_id", "task_id", "spawn_loc"];
    let types = [v, v, s];
    let poll = enc
        .register_schema(
            "PollStartEvent",
            fields.iter().zip(types).map(|(n, t)| FieldDef::new(*n, t)).collect(),
        )
        .unwrap();
    let fields = ["addr", "inline_depth", "symbol_name"];
    let symbol = enc
        .register_schema(
            "SymbolTableEntry",
            fields.iter().zip(types).map(|(n, t)| FieldDef::new(*n, t)).collect(),
        )
        .unwrap();
    for (i, e) in events.iter().enumerate() {
        let ts = 1_000 + 10 * i as u64;
        match *e {
            Ev::Spawn(task, loc) => {
                enc.write_event(&spawn, ts, &[FieldValue::Varint(task), FieldValue::String(loc.into())])
            }
            Ev::Poll(task, loc) => enc.write_event(
                &poll,
                ts,
                &[
                    FieldValue::Varint(0),
                    FieldValue::Varint(task),
                    FieldValue::String(loc.into()),
                ],
            ),
            Ev::Symbol(addr, depth, name) => enc.write_event(
                &symbol,
                ts,
                &[
                    FieldValue::Varint(addr),
                    FieldValue::Varint(depth),
                    FieldValue::String(name.into()),
                ],
            ),
        }
        .unwrap();
    }
    enc.finish()
}

#[test]
fn a_trace_cut_at_any_header_candidate_joins_into_the_whole() {
    // The later part updates what the earlier one set: a poll of a task spawned
    // before (no change), a respawn (new location, same place), symbols that
    // refine earlier ones.
    let mut raw = stream_of(&[
        Ev::Spawn(1, "src/a.rs:1:1"),
        Ev::Poll(2, "src/p.rs:2:2"),
        Ev::Symbol(0x10, 0, "f"),
        Ev::Symbol(0x20, 1, "inlined"),
    ]);
    let boundary = raw.len();
    raw.extend(stream_of(&[
        Ev::Poll(1, "src/q.rs:1:1"),
        Ev::Spawn(2, "src/b.rs:2:2"),
        Ev::Poll(3, "src/r.rs:3:3 TRC\0\x01"),
        Ev::Symbol(0x10, 1, "g"),
        Ev::Symbol(0x20, 0, "owner"),
        Ev::Symbol(0x10, 0, "f, again"),
        Ev::Spawn(4, ""),
    ]));
    let addrs = [0x10, 0x20];
    let whole = fingerprint(parse_trace(&raw), &addrs);
    let expected = r#"[[Frame { symbol: "g", location: None }, Frame { symbol: "f, again", location: None }], [Frame { symbol: "inlined", location: None }, Frame { symbol: "owner", location: None }]] [(1, Some("src/a.rs:1:1")), (2, Some("src/b.rs:2:2")), (3, Some("src/r.rs:3:3 TRC\0\u{1}")), (4, None)]"#;
    assert!(whole.contains(expected), "{whole}");
    assert_eq!(fingerprint(split_parse(&raw, boundary), &addrs), whole);
    // More streams after, with magics inside frames: every candidate.
    raw.extend(tricky_trace());
    let whole = fingerprint(parse_trace(&raw), &addrs);
    let cuts = candidates(&raw);
    assert!(cuts.contains(&boundary) && cuts.len() >= 6, "{cuts:?}");
    for at in cuts {
        assert_eq!(fingerprint(split_parse(&raw, at), &addrs), whole, "cut at {at}");
    }
}

#[test]
fn fixtures_cut_in_two_join_into_the_whole() {
    for rel in ["blocking.bin", "rotation/trace.1.bin"] {
        let raw = common::read(rel);
        let whole = fingerprint(parse_trace(&raw), &[]);
        let cuts = candidates(&raw);
        assert!(cuts.len() >= 2, "{rel}: {cuts:?}");
        for &at in cuts.iter().step_by(cuts.len().div_ceil(4)) {
            assert_eq!(fingerprint(split_parse(&raw, at), &[]), whole, "{rel} cut at {at}");
        }
        // A parser not fed the header at the cut decodes the rest itself.
        let at = cuts[cuts.len() / 2];
        let mut front = TraceParser::default();
        front.push(&raw[..at]);
        let rest = [&raw[at..]];
        let joined = front.finish_with(TracePart::decode(at, &rest), &rest);
        assert_eq!(fingerprint(joined, &[]), whole, "{rel} cut at {at}, no header fed");
        // The cut nearest to the target.
        for target in [raw.len() / 2, raw.len() / 5, 0, raw.len()] {
            let at = find_cut(&raw, target).expect("a cut");
            assert!(
                cuts.iter().all(|c| c.abs_diff(target) >= at.abs_diff(target)),
                "{rel}: {at} for {target} in {cuts:?}"
            );
        }
        // The same search over the bytes in blocks finds the same cut, and
        // one split between two blocks is not seen.
        let blocks: Vec<Vec<u8>> = raw.chunks(4096).map(<[u8]>::to_vec).collect();
        let target = raw.len() / 2;
        let at = find_cut(&raw, target).unwrap();
        assert_eq!(find_cut_in(&blocks, target), Some((at / 4096, at % 4096)), "{rel}");
        let split = [raw[..at + 2].to_vec(), raw[at + 2..].to_vec()];
        let (i, off) = find_cut_in(&split, at).expect("another cut");
        assert!(i * split[0].len() + off != at, "{rel}");
    }
}

#[test]
fn damage_after_the_cut_is_reported_at_its_file_offset() {
    let mut raw = common::read("rotation/trace.1.bin");
    let cut = find_cut(&raw, raw.len() / 2).expect("several streams");
    let at = cut + 5;
    raw.insert(at, 0x7f);
    let whole = parse_trace(&raw);
    assert_eq!(whole.1.as_ref().map(|f| f.offset), Some(at as u64));
    assert_eq!(fingerprint(split_parse(&raw, cut), &[]), fingerprint(whole, &[]));
    // Damage before the cut: the join is refused, the parser reports it.
    let mut raw = common::read("rotation/trace.1.bin");
    raw.insert(100, 0x7f);
    let cut = find_cut(&raw, raw.len() / 2).unwrap();
    assert_eq!(
        fingerprint(split_parse(&raw, cut), &[]),
        fingerprint(parse_trace(&raw), &[])
    );
}

/// A single-event span (schema annotated `dial9.role`) that began before
/// every runtime event and ended after them: the trace's bounds are its
/// own, from whichever part of a cut trace it is in.
#[test]
fn single_event_spans_widen_the_bounds_from_either_side_of_a_cut() {
    use dial9_trace_format::encoder::Schema;
    use dial9_trace_format::schema::{FieldAnnotation, SchemaEntry};
    let mut raw = stream_of(&[Ev::Poll(1, "src/a.rs:1:1"), Ev::Poll(2, "src/b.rs:2:2")]);
    let boundary = raw.len();
    let mut enc = Encoder::new();
    let query = Schema::from_entry(SchemaEntry::with_annotations(
        "DbQuery",
        [FieldDef::new("started_ns", FieldType::Varint)],
        [FieldAnnotation::new(0, "dial9.role", "span.start")],
    ));
    enc.write_event(&query, 9_000, &[FieldValue::Varint(400)]).unwrap();
    raw.extend(enc.finish());
    let (whole, failure) = parse_trace(&raw);
    assert_eq!(failure, None);
    assert_eq!(whole.runtime_bounds, Some((1_000, 1_010)));
    assert_eq!(whole.bounds, Some((400, 9_000)));
    let (split, _) = split_parse(&raw, boundary);
    assert_eq!(
        (split.runtime_bounds, split.bounds),
        (whole.runtime_bounds, whole.bounds)
    );
}
