//! Crafted traces that stress what a hostile or broken recorder could write
//! (issue 17). Each must give a report, not a hang or a crash.

mod common;

use d9lens_core::analysis::{Options, analyze_file};

/// One poll on each of 100,000 workers, the workers taking turns: every
/// event switches worker, which once cost a search through every worker
/// seen (quadratic). Finishing at all is the point; the report counts them.
#[test]
fn a_hundred_thousand_workers_each_get_their_poll() {
    use dial9_trace_format::types::FieldType::Varint as V;
    use dial9_trace_format::types::FieldValue::Varint;
    const WORKERS: u64 = 100_000;
    let schemas = [
        ("PollStartEvent", &[("worker_id", V), ("task_id", V)][..]),
        ("PollEndEvent", &[("worker_id", V)][..]),
    ];
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
