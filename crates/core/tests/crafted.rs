//! Crafted traces that stress what a hostile or broken recorder could write
//! (issue 17). Each must give a report, not a hang or a crash.

mod common;

use d9lens_core::analysis::{Options, analyze_file};
use d9lens_core::trace::parse_trace;

/// One poll on each of 100,000 workers, the workers taking turns: every
/// event switches worker, which once cost a search through every worker
/// seen (quadratic). Finishing at all is the point; the report counts them.
#[test]
fn a_hundred_thousand_workers_each_get_their_poll() {
    use dial9_trace_format::types::FieldValue::Varint;
    const WORKERS: u64 = 100_000;
    let schemas = poll_schemas();
    let mut events = Vec::new();
    for w in 0..WORKERS {
        events.push((1_000 + w * 10, 0, vec![Varint(w), Varint(w + 1)]));
    }
    for w in 0..WORKERS {
        events.push((10_000_000 + w * 10, 1, vec![Varint(w)]));
    }
    let bytes = common::encode_trace(&schemas, events);
    let outcome = analyze_file("many-workers.bin", &bytes, &Options::default());
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    let p = &outcome.partial;
    assert_eq!(p.worker_stats.len(), WORKERS as usize);
    assert!(p.worker_stats.values().all(|w| w.poll_count == 1));
}

/// Schemas of poll starts (worker, task) and ends (worker).
fn poll_schemas() -> [(
    &'static str,
    &'static [(&'static str, dial9_trace_format::types::FieldType)],
); 2] {
    use dial9_trace_format::types::FieldType::Varint as V;
    [
        ("PollStartEvent", &[("worker_id", V), ("task_id", V)]),
        ("PollEndEvent", &[("worker_id", V)]),
    ]
}

/// Schemas of symbol entries and CPU samples, for the symbol-table cases.
fn symbol_schemas() -> [(
    &'static str,
    &'static [(&'static str, dial9_trace_format::types::FieldType)],
); 2] {
    use dial9_trace_format::types::FieldType::{StackFrames as Stack, String as S, Varint as V};
    [
        (
            "SymbolTableEntry",
            &[("addr", V), ("inline_depth", V), ("symbol_name", S)],
        ),
        (
            "CpuSampleEvent",
            &[("worker_id", V), ("tid", V), ("source", V), ("callchain", Stack)],
        ),
    ]
}

/// Each of 200,000 addresses named only at the deepest inline depth the
/// decoder takes (1,023): once 1,024 slots an address (6 GB in all), now the
/// names the file holds.
#[test]
fn addresses_named_only_at_the_deepest_inline_depth_cost_what_they_hold() {
    use dial9_trace_format::types::FieldValue::{String as S, Varint};
    let events: Vec<_> = (0..200_000u64)
        .map(|a| {
            (
                1_000 + a,
                0,
                vec![Varint(0x1000 + a), Varint(1_023), S(format!("f{a}"))],
            )
        })
        .collect();
    let bytes = common::encode_trace(&symbol_schemas(), events);
    let (trace, failure) = parse_trace(&bytes);
    assert!(failure.is_none(), "{failure:?}");
    assert_eq!(trace.symbols.len(), 200_000);
    let frames = trace.symbols.symbolize(&[0x1000]);
    // The name, then the owning function (unnamed: its address).
    assert_eq!(frames.len(), 2);
    assert_eq!(&*frames[0].symbol, "f0");
    assert_eq!(&*frames[1].symbol, "0x1000");
}

/// Three addresses named at every inline depth, in a call chain of 30,000
/// of them: 30 million frames once, now one stack cut at `MAX_STACK_FRAMES`
/// whose outermost frame says so.
#[test]
fn a_chain_of_deeply_inlined_addresses_is_cut_not_expanded() {
    use d9lens_core::trace::{CUT_FRAMES, MAX_STACK_FRAMES};
    let bytes = inline_chain_trace(20);
    let chain = inline_chain();
    let report = common::analyze_bytes("inlined.bin", &bytes, &Options::default());
    assert_eq!(report.cpu_hotspots.samples, 20);
    let top = &report.cpu_hotspots.top_stacks[0];
    assert_eq!(top.count, 20);
    assert_eq!(top.frames.len(), MAX_STACK_FRAMES);
    assert_eq!(&*top.frames[0].symbol, "a0d1023", "deepest inline frame first");
    assert_eq!(&*top.frames.last().unwrap().symbol, CUT_FRAMES);
    // The same cut where a trace is symbolized frame by frame (diagnose, zoom).
    let (trace, _) = parse_trace(&bytes);
    let frames = trace.symbols.symbolize(&chain);
    assert_eq!(frames.len(), MAX_STACK_FRAMES);
    assert_eq!(&*frames.last().unwrap().symbol, CUT_FRAMES);
}

/// The chain of `inline_chain_trace`: 30,000 calls through three addresses.
fn inline_chain() -> Vec<u64> {
    (0..30_000u64).map(|i| 0x10 + i % 3).collect()
}

/// Three addresses named at every inline depth, and `samples` on-CPU
/// samples whose chain is `inline_chain`.
fn inline_chain_trace(samples: u64) -> Vec<u8> {
    use dial9_trace_format::types::FieldValue::{StackFrames, String as S, Varint};
    let mut events = Vec::new();
    for a in 0..3u64 {
        for depth in 0..1_024u64 {
            events.push((
                1_000,
                0,
                vec![Varint(0x10 + a), Varint(depth), S(format!("a{a}d{depth}"))],
            ));
        }
    }
    for i in 0..samples {
        events.push((
            2_000 + i,
            1,
            vec![Varint(0), Varint(7), Varint(0), StackFrames(inline_chain().into())],
        ));
    }
    common::encode_trace(&symbol_schemas(), events)
}

/// One on-CPU sample through 100,000 distinct application functions: the
/// stack that once overflowed the hotspot tree's recursion, natively and in
/// the page.
fn deep_stack_trace() -> Vec<u8> {
    use dial9_trace_format::types::FieldValue::{StackFrames, String as S, Varint};
    const DEPTH: u64 = 100_000;
    let mut events: Vec<_> = (0..DEPTH)
        .map(|i| {
            (
                1_000,
                0,
                vec![Varint(0x1_0000 + i), Varint(0), S(format!("app::level_{i}"))],
            )
        })
        .collect();
    let chain: Vec<u64> = (0..DEPTH).map(|i| 0x1_0000 + i).collect();
    events.push((
        2_000,
        1,
        vec![Varint(0), Varint(7), Varint(0), StackFrames(chain.into())],
    ));
    common::encode_trace(&symbol_schemas(), events)
}

/// The deep stack analyzes, renders as text and draws as a flamegraph,
/// cut to `MAX_STACK_FRAMES` with its outermost frame saying so; nothing on
/// the way recurses once per frame (this ran out of stack before).
#[test]
fn a_stack_a_hundred_thousand_calls_deep_gives_a_report() {
    use d9lens_core::profile::flame::Order;
    use d9lens_core::profile::flamegraph;
    use d9lens_core::report::{SampleKind, text};
    use d9lens_core::trace::{CUT_FRAMES, MAX_STACK_FRAMES};
    let opts = Options::default();
    let report = common::analyze_bytes("deep.bin", &deep_stack_trace(), &opts);
    assert_eq!(report.cpu_hotspots.samples, 1);
    let top = &report.cpu_hotspots.top_stacks[0];
    assert_eq!(top.frames.len(), MAX_STACK_FRAMES);
    assert_eq!(&*top.frames[0].symbol, "app::level_0", "leaf first");
    assert_eq!(&*top.frames.last().unwrap().symbol, CUT_FRAMES);
    assert!(text::render(&report, opts.text_style()).contains("app::level_0"));
    let graph = flamegraph(&report.profiles, SampleKind::OnCpu, Order::Name, Default::default());
    assert_eq!(graph.max_depth() as usize, MAX_STACK_FRAMES);
    // Opened on the application, the stack still says it was cut.
    let app = d9lens_core::profile::Shape::APPLICATION;
    let graph = flamegraph(&report.profiles, SampleKind::OnCpu, Order::Name, app);
    assert_eq!(graph.search(CUT_FRAMES).weight, 1);
}

/// The page's end-to-end tests drop these (gzip, as segments are).
#[test]
fn the_crafted_fixtures_are_what_their_generators_write() {
    for (name, raw) in [
        ("crafted-inline-chain.bin.gz", inline_chain_trace(2)),
        ("crafted-deep-stack.bin.gz", deep_stack_trace()),
    ] {
        let path = common::fixtures().join(name);
        let bytes = common::gzip(&raw, 9);
        if std::env::var_os("D9LENS_WRITE_FIXTURES").is_some() {
            std::fs::write(&path, &bytes).unwrap();
        }
        assert!(
            std::fs::read(&path).unwrap() == bytes,
            "{name}: regenerate with D9LENS_WRITE_FIXTURES=1"
        );
        let outcome = analyze_file(name, &bytes, &Options::default());
        assert!(outcome.error.is_none(), "{name}: {:?}", outcome.error);
    }
}

/// Polls a few ms apart, then one stamped `u64::MAX`, one stamped 0 and one
/// earlier than the poll before it: no duration of centuries, no wall clock
/// in 2262; the setup diagnostic names both kinds.
#[test]
fn absurd_and_backward_timestamps_are_named_not_printed_as_centuries() {
    use dial9_trace_format::types::FieldValue::Varint;
    let schemas = poll_schemas();
    // Twelve days of uptime: a stamp of 0 is far from it.
    let base = 1_000_000_000_000_000u64;
    let mut events = Vec::new();
    for i in 0..20u64 {
        events.push((base + i * 1_000_000, 0, vec![Varint(0), Varint(1)]));
        events.push((base + i * 1_000_000 + 500_000, 1, vec![Varint(0)]));
    }
    events.push((base + 2_000_000, 0, vec![Varint(0), Varint(2)]));
    events.push((u64::MAX, 0, vec![Varint(0), Varint(3)]));
    events.push((0, 1, vec![Varint(0)]));
    let bytes = common::encode_trace_in_order(&schemas, events);
    let (trace, failure) = parse_trace(&bytes);
    assert!(failure.is_none(), "{failure:?}");
    assert_eq!(trace.time.absurd, 2);
    assert!(trace.time.backwards >= 1);
    let report = common::analyze_bytes("time.bin", &bytes, &Options::default());
    assert!(report.summary.duration_ms < 25.0, "{}", report.summary.duration_ms);
    let checks: Vec<&str> = report.setup.issues.iter().map(|f| f.check.as_str()).collect();
    assert!(checks.contains(&"absurd-timestamps"), "{checks:?}");
    assert!(checks.contains(&"timestamps-out-of-order"), "{checks:?}");
    let text = d9lens_core::report::text::render(&report, d9lens_core::report::text::Style::Improved);
    assert!(text.contains("Duration:       19.5ms"), "{text}");
    // The reference's report is the reference's: no new setup lines.
    let reference = common::analyze_bytes("time.bin", &bytes, &common::reference());
    assert!(reference.setup.issues.iter().all(|f| !f.check.contains("timestamps")));
}

/// A timestamp base near `u64::MAX` plus an event's 24-bit delta passes
/// 64 bits. The decoder (patched: vendor/dial9-trace-format/PATCHED.md)
/// names it at its offset, where it panicked with overflow checks on and
/// wrapped to a time near zero without; the events before it are kept.
#[test]
fn a_timestamp_past_u64_max_is_named_at_its_offset() {
    use dial9_trace_format::types::FieldValue::Varint;
    let events = vec![
        (1_000, 0, vec![Varint(0), Varint(1)]),
        (2_000, 1, vec![Varint(0)]),
        (u64::MAX - 5, 0, vec![Varint(0), Varint(2)]),
    ];
    let mut bytes = common::encode_trace_in_order(&poll_schemas(), events);
    // The last frame: tag, type id (2 bytes), delta (3), worker, task.
    let n = bytes.len();
    assert_eq!(bytes[n - 5..n - 2], [0, 0, 0], "the last event sits on its reset");
    bytes[n - 5..n - 2].copy_from_slice(&[0xff; 3]);
    let outcome = analyze_file("overflow.bin", &bytes, &Options::default());
    let error = outcome.error.expect("the overflow is named");
    assert!(error.message.contains("timestamp overflows 64 bits"), "{error:?}");
    assert_eq!(error.offset, Some(n as u64 - 5), "{error:?}");
    assert_eq!(outcome.partial.worker_stats[&0].poll_count, 1);
}

/// Dense valid events in one stream (a recorder's file or a crafted one
/// can be a single sub-stream): decoding stops once the decoded events pass
/// the budget, with the file's offset, and the events before it are
/// analyzed; gzipped, the same through the streaming path.
#[test]
fn dense_events_stop_at_the_memory_budget_with_the_offset() {
    use dial9_trace_format::types::FieldValue::Varint;
    const POLLS: u64 = 200_000;
    let schemas = poll_schemas();
    let events = (0..POLLS).flat_map(|i| {
        [
            (1_000 + i * 100, 0, vec![Varint(0), Varint(i % 7)]),
            (1_050 + i * 100, 1, vec![Varint(0)]),
        ]
    });
    let raw = common::encode_trace(&schemas, events.collect());
    let opts = Options {
        max_decoded_bytes: 4 << 20,
        ..Options::default()
    };
    for (name, bytes) in [("dense.bin", raw.clone()), ("dense.bin.gz", common::gzip(&raw, 6))] {
        let outcome = analyze_file(name, &bytes, &opts);
        let error = outcome.error.as_ref().expect("over the budget");
        assert!(error.message.contains("need more than 4 MiB"), "{}", error.message);
        let offset = error.offset.expect("an offset") as usize;
        assert!(offset > 0 && offset < raw.len(), "{offset} of {}", raw.len());
        assert!(error.message.contains(&format!("before byte {offset}")));
        // What came before is analyzed: a fraction of the polls, not none.
        let polls: u64 = outcome.partial.worker_stats.values().map(|w| w.poll_count).sum();
        assert!(polls > 10_000 && polls < POLLS, "{polls}");
        // The default budget takes the whole file.
        assert!(analyze_file(name, &bytes, &Options::default()).error.is_none());
    }
}

/// Symbol names of a megabyte on a thousand addresses: kept cut to
/// `MAX_STRING_BYTES`, and counted against the memory budget.
#[test]
fn huge_names_are_cut_and_count_against_the_budget() {
    use d9lens_core::trace::MAX_STRING_BYTES;
    use dial9_trace_format::types::FieldValue::{String as S, Varint};
    let name = "x".repeat(1 << 20);
    let events: Vec<_> = (0..1_000u64)
        .map(|a| (1_000 + a, 0, vec![Varint(0x1000 + a), Varint(0), S(name.clone())]))
        .collect();
    let bytes = common::encode_trace(&symbol_schemas(), events);
    let (trace, failure) = parse_trace(&bytes);
    assert!(failure.is_none(), "{failure:?}");
    let frames = trace.symbols.symbolize(&[0x1000]);
    assert_eq!(frames[0].symbol.len(), MAX_STRING_BYTES);
    assert!(frames[0].symbol.ends_with('…'));
    // A thousand cut names hold about 4 MB: over a 2 MiB budget.
    let opts = Options {
        max_decoded_bytes: 2 << 20,
        ..Options::default()
    };
    let outcome = analyze_file("names.bin", &bytes, &opts);
    assert!(
        outcome
            .error
            .is_some_and(|e| e.message.contains("need more than 2 MiB"))
    );
}
