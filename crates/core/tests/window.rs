//! The analysis of a window of a trace (`Options::window`,
//! `ParsedTrace::clip`): what started in it, whole.

mod common;

use common::analyze;
use d9lens_core::analysis::Options;
use d9lens_core::report::Report;
use d9lens_core::trace::Window;

fn windowed(rel: &str, from_ms: f64, to_ms: f64) -> Report {
    let opts = Options {
        window: Window::from_ms(from_ms, to_ms),
        ..Options::default()
    };
    analyze(&[rel], &opts, None)
}

fn polls(r: &Report) -> u64 {
    r.workers.iter().map(|w| w.poll_count).sum()
}

fn spans(r: &Report) -> u64 {
    r.spans.iter().map(|s| s.count).sum()
}

#[test]
fn a_window_over_the_whole_trace_is_the_whole_report() {
    for rel in ["demo-trace.bin", "blocking.bin"] {
        let whole = analyze(&[rel], &Options::default(), None);
        let all = windowed(rel, 0.0, whole.summary.duration_ms + 1.0);
        assert_eq!(
            serde_json::to_value(&all).unwrap(),
            serde_json::to_value(&whole).unwrap(),
            "{rel}"
        );
    }
}

#[test]
fn two_halves_split_the_polls_and_spans_and_keep_each_poll_whole() {
    for rel in ["demo-trace.bin", "blocking.bin", "healthy.bin"] {
        let whole = analyze(&[rel], &Options::default(), None);
        let d = whole.summary.duration_ms;
        let mid = (d / 2.0).floor();
        let (a, b) = (windowed(rel, 0.0, mid), windowed(rel, mid, d + 1.0));
        // Every poll started in exactly one of the halves.
        assert_eq!(polls(&a) + polls(&b), polls(&whole), "{rel}");
        assert_eq!(a.all_polls.count + b.all_polls.count, whole.all_polls.count, "{rel}");
        assert_eq!(spans(&a) + spans(&b), spans(&whole), "{rel}");
        assert_eq!(
            a.sched_delays.count + b.sched_delays.count,
            whole.sched_delays.count,
            "{rel}"
        );
        assert_eq!(a.long_polls.count + b.long_polls.count, whole.long_polls.count, "{rel}");
        // The worst poll is in the half it started in, as long as it was.
        let worst = &whole.long_polls.worst[0];
        let rel_ms = (worst.start_ns - whole.summary.min_ts.unwrap()) as f64 / 1e6;
        let half = if rel_ms < mid { &a } else { &b };
        assert_eq!(half.long_polls.worst_ns, whole.long_polls.worst_ns, "{rel}");
        // Each half lasts about its share (the first may run on by a poll's end).
        assert!(
            (a.summary.duration_ms - mid).abs() < 60.0,
            "{rel}: {}",
            a.summary.duration_ms
        );
        assert!(
            (b.summary.duration_ms - (d - mid)).abs() < 60.0,
            "{rel}: {}",
            b.summary.duration_ms
        );
        // Busy shares stay shares.
        for w in a.workers.iter().chain(&b.workers) {
            assert!((0.0..=1.0).contains(&w.utilization), "{rel}: {w:?}");
        }
        // Samples taken in a poll that ran past the middle count in both
        // halves; no other sample does.
        let samples = |r: &Report| r.summary.cpu_sample_count;
        assert!(samples(&a) + samples(&b) >= samples(&whole), "{rel}");
        assert!(samples(&a) + samples(&b) <= samples(&whole) + 50, "{rel}");
    }
}

#[test]
fn a_window_after_the_end_is_empty() {
    let r = windowed("demo-trace.bin", 1e9, 2e9);
    assert_eq!(polls(&r), 0);
    assert_eq!(r.summary.duration_ms, 0.0);
    assert!(r.errors.is_empty());
}
