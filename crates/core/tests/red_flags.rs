//! The red-flag scan on the real fixtures: each finding is asserted.

mod common;
use common::*;
use d9lens_core::analysis::Options;
use d9lens_core::report::{Finding, Severity};

fn flags(rels: &[&str]) -> Vec<Finding> {
    analyze(rels, &Options::default(), None).red_flags
}

fn find<'a>(flags: &'a [Finding], check: &str) -> Vec<&'a Finding> {
    flags.iter().filter(|f| f.check == check).collect()
}

#[test]
fn blocking_trace_flags_its_sleeping_polls_and_the_sleep_itself() {
    let f = flags(&["blocking.bin"]);
    let polls = find(&f, "long-poll");
    assert_eq!(polls.len(), 2, "{f:#?}");
    assert_eq!(polls[0].severity, Severity::Critical);
    assert!(
        polls[0]
            .message
            .starts_with("Poll of 50.3ms on worker 0 at 231.2ms (task 108"),
        "{}",
        polls[0].message
    );
    assert_eq!(polls[1].severity, Severity::Warning);
    assert!(
        polls[1].message.contains("(35 total, worst 49.2ms)"),
        "{}",
        polls[1].message
    );
    let blocking = find(&f, "blocking-calls");
    assert_eq!(blocking.len(), 1);
    assert!(
        blocking[0].message.starts_with(
            "143 off-CPU samples inside polls (real blocking; 2678 more were idle parking). \
             Top blocker: legacy_sync_lookup workload.rs:108 (1.22s blocked, 36 samples), \
             blocked in __GI___clock_nanosleep"
        ),
        "{}",
        blocking[0].message
    );
    assert!(blocking[0].moment.is_some(), "the flag shows its moment");
    assert!(
        f.windows(2).all(|w| w[0].severity <= w[1].severity),
        "sorted by severity"
    );
    assert!(f.iter().all(|x| !x.fix.is_empty()), "every flag says what to do");
}

#[test]
fn demo_trace_flags_match_the_fixed_reference_scan() {
    let f = flags(&["demo-trace.bin"]);
    let polls = find(&f, "long-poll");
    assert_eq!(polls.len(), 1);
    assert_eq!(polls[0].severity, Severity::Warning);
    assert_eq!(
        polls[0].message,
        "Poll of 32.3ms on worker 1 at 1.7ms (task 9, spawn: examples/metrics-service/src/main.rs:334:14)"
    );
    let imbalance = find(&f, "worker-imbalance");
    assert_eq!(
        imbalance[0].message,
        "Worker poll imbalance: 837–49094 polls across workers (58.7x ratio)"
    );
    assert_eq!(imbalance[0].severity, Severity::Info);
    assert!(find(&f, "sched-delay").is_empty(), "worst delay 2.38ms stays under 5ms");
}

#[test]
fn healthy_trace_has_no_long_poll_flag_but_shows_its_preemption_delays() {
    let f = flags(&["healthy.bin"]);
    assert!(
        find(&f, "long-poll").is_empty(),
        "worst poll 4.62ms is under 10ms: {f:#?}"
    );
    let delays = find(&f, "sched-delay");
    assert_eq!(delays.len(), 1);
    assert_eq!(delays[0].message, "3 scheduling delays > 5ms (worst: 5.5ms)");
    assert!(find(&f, "task-leak").is_empty());
}

#[test]
fn every_fixture_scans_without_failing() {
    for rel in SINGLE_FILES {
        let f = flags(&[rel]);
        assert!(f.iter().all(|x| !x.message.is_empty()), "{rel}");
    }
    let f = flags(ROTATION);
    assert!(find(&f, "long-poll").is_empty(), "rotation worst poll 2.47ms");
    for key in s3_reference_keys() {
        flags(&[&format!("s3-bucket/{key}")]);
    }
}

/// A trace of one task polled on two workers, with spans inside its polls.
fn busy_task_trace() -> Vec<u8> {
    use dial9_trace_format::types::FieldType::Varint as V;
    use dial9_trace_format::types::FieldValue::{String as S, Varint};
    let [enter, exit, close] = common::SPAN_SCHEMAS;
    let schemas = [
        ("PollStartEvent", &[("worker_id", V), ("task_id", V)][..]),
        ("PollEndEvent", &[("worker_id", V)][..]),
        enter,
        exit,
        close,
    ];
    let (start, end) = (0, 1);
    let mut events = vec![
        (1_000, start, vec![Varint(0), Varint(7)]),
        (100_000, end, vec![Varint(0)]),
        (200_000, start, vec![Varint(1), Varint(7)]),
        (300_000, end, vec![Varint(1)]),
    ];
    let mut span = |id: u64, from: u64, to: u64| {
        events.push((from, 2, vec![Varint(id), S("step".into()), Varint(7)]));
        events.push((to, 3, vec![Varint(id)]));
        events.push((to + 1, 4, vec![Varint(id)]));
    };
    // 20 spans in the first poll (not more than 20), one more that outlives
    // it (not in it), 25 in the second.
    for i in 0..20 {
        span(i + 1, 2_000 + i * 100, 2_050 + i * 100);
    }
    span(10, 90_000, 110_000);
    for i in 0..25 {
        span(100 + i, 201_000 + i * 1_000, 201_500 + i * 1_000);
    }
    common::encode_trace(&schemas, events)
}

#[test]
fn a_poll_that_runs_many_spans_of_its_task_is_flagged() {
    let opts = Options::default();
    let outcome = d9lens_core::analysis::analyze_file("busy.bin", &busy_task_trace(), &opts);
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    let mut merger = d9lens_core::analysis::Merger::new(opts);
    merger.add(outcome.partial);
    let f = merger.finish().red_flags;
    let busy = find(&f, "many-spans-per-poll");
    assert_eq!(busy.len(), 1, "{f:#?}");
    assert_eq!(
        busy[0].message,
        "1 poll(s) ran more than 20 spans each (worst: 25 spans in one 100.0µs poll of task 7 on worker 1)"
    );
}
