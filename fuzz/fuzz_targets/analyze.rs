//! Arbitrary bytes → the whole per-file path: container detection (raw or
//! gzip, inflation capped), decode, analysis, merge, finish, text render and
//! JSON serialization, the span explorer and slow versus typical over the
//! request detail. Any panic, abort or OOM is a bug, and so is a
//! different outcome when the same bytes arrive in pieces (a download), or
//! when a raw trace is decoded in two parts and joined (the CLI's two cores).
#![no_main]

use d9lens_core::analysis::{FileAnalysis, FileOutcome, Merger, Options, analyze_file};
use d9lens_core::trace::{STREAM_HEADER, TracePart, TraceParser, Window, find_cut, parse_trace};
use d9lens_core::report::text;
use d9lens_core::requests::query::Query;
use d9lens_core::requests::slow::{Threshold, slow_vs_typical};
use d9lens_core::requests::{events, explore, render};
use d9lens_core::timeline;
use libfuzzer_sys::fuzz_target;

/// Small enough that no input can push the fuzzer towards its RSS limit by
/// design (an inflated segment lives next to its decoded events).
const MAX_INFLATED: usize = 64 << 20;
/// The decoded events' budget, small for the same reason: it is checked
/// at its limit too (a failure with the offset, the events before kept).
const MAX_DECODED: usize = 64 << 20;

/// A raw trace cut where the CLI would cut it, each part decoded apart.
fn joined_at_cut(data: &[u8]) {
    let Some(at) = find_cut(data, data.len() / 2) else { return };
    let mut front = TraceParser::default();
    front.push(&data[..at + STREAM_HEADER]);
    let rest: Vec<&[u8]> = data[at..].chunks(data.len() % 4093 + 1).collect();
    let joined = front.finish_with(TracePart::decode(at, &rest), &rest);
    let outcome = |parsed| serde_json::to_string(&FileOutcome::build("fuzz.bin", 0, Ok(parsed), &Options::default())).unwrap();
    assert_eq!(outcome(joined), outcome(parse_trace(data)), "decoded in two parts, another outcome");
}

fuzz_target!(|data: &[u8]| {
    // Each input is analyzed once, with options its length picks, and the
    // costly cross-checks (in pieces, in two parts, text and JSON) run on one
    // input in eight: many inputs a second, and every path still checked.
    let deep = data.len() % 8 == 0;
    let reference_compatible = data.len() / 8 % 2 == 1;
    if deep {
        joined_at_cut(data);
    }
    // The page's path builds the timeline too, which must survive its bytes.
    let opts = Options {
        reference_compatible,
        max_inflated_bytes: MAX_INFLATED,
        max_decoded_bytes: MAX_DECODED,
        timeline: !reference_compatible,
        // The page's run: each file's request detail too.
        requests: !reference_compatible,
        // One input in three analyzes a window of itself (`ParsedTrace::clip`).
        window: (data.len() % 3 == 0).then(|| Window::new(data.len() as u64 * 1_000, data.len() as u64 * 7_000)),
    };
    let mut outcome = analyze_file("fuzz.bin", data, &opts);
    let drawn = outcome.timeline.is_some();
    if let Some(t) = outcome.timeline.take() {
        assert_eq!(timeline::decode(&timeline::encode(&t)).as_ref(), Ok(&t), "a timeline survives its bytes");
    }
    if deep {
        let mut pieces = FileAnalysis::new("fuzz.bin", &opts, 0);
        for piece in data.chunks(data.len() % 61 + 1) {
            pieces.push(piece);
        }
        let mut streamed = pieces.finish();
        assert_eq!(streamed.timeline.take().is_some(), drawn);
        assert_eq!(
            serde_json::to_string(&streamed).unwrap(),
            serde_json::to_string(&outcome).unwrap(),
            "the same bytes in pieces give another outcome"
        );
    }
    if let Some(err) = &outcome.error {
        assert_eq!(err.file, "fuzz.bin");
        assert!(!err.message.is_empty());
    }
    let mut merger = Merger::new(opts.clone());
    if let Some(err) = outcome.error {
        merger.add_error(err);
    }
    merger.add(outcome.partial);
    let report = merger.finish();
    if deep {
        let _ = text::render(&report, opts.text_style());
        serde_json::to_string(&report).expect("a report always serializes");
        // The questions the page and `d9lens spans` / `events` ask of the details.
        let spans = explore::explore(&report.requests, &Query::default());
        if let Some(s) = spans.spans.first() {
            let one = Query {
                name: Some(s.name.clone()),
                ..Query::default()
            };
            let _ = slow_vs_typical(&report.requests, &one, Threshold::Percentile(99.0));
        }
        let _ = render::events_json(&events::summarize(&report.requests), 0);
    }
});
