//! Arbitrary bytes → the questions asked of one trace after its report:
//! `d9lens diagnose` and `d9lens zoom` (their JSON and text), and the page's
//! `inspect` (a poll in depth, a window, a window's analysis, the wakes).
//! The first `HEADER` bytes pick the question (which poll, moment, window,
//! options), as a fraction of the trace where they name a time; the rest is
//! the trace file (raw or gzip). Any panic, abort or OOM is a bug, and so is
//! an answer about another poll than the one asked about.
#![no_main]

use d9lens_core::analysis::diagnose::{self, DiagnoseOptions};
use d9lens_core::analysis::inspect::{InspectAnswer, InspectQuery, inspect};
use d9lens_core::analysis::zoom;
use d9lens_core::container::raw_trace;
use d9lens_core::trace::{ParsedTrace, Window, WorkerEventKind, parse_trace_within};
use libfuzzer_sys::fuzz_target;

const HEADER: usize = 8;
/// As in the analyze target: no input may push towards the RSS limit.
const MAX_INFLATED: usize = 64 << 20;
const MAX_DECODED: usize = 64 << 20;

/// A profiling rate as the CLI's `--hz` takes it (above 0, infinity included).
fn hz(b: u8) -> Option<f64> {
    match b {
        0 => None,
        1 => Some(f64::MIN_POSITIVE),
        2 => Some(f64::INFINITY),
        3 => Some(1e300),
        b => Some(f64::from(b)),
    }
}

/// The worker and start of a poll in the trace, picked by the header (made
/// up from the header's bytes when the trace has no poll).
fn pick_poll(trace: &ParsedTrace, worker: u8, poll: u8) -> (u64, u64) {
    let lo = trace.bounds.map_or(0, |b| b.0);
    let made_up = (u64::from(worker), lo.saturating_add(u64::from(poll)));
    let Some((&worker, events)) = trace
        .workers
        .iter()
        .nth(usize::from(worker) % trace.workers.len().max(1))
    else {
        return made_up;
    };
    let starts: Vec<u64> = events
        .iter()
        .filter(|e| matches!(e.kind, WorkerEventKind::PollStart { .. }))
        .map(|e| e.ts)
        .collect();
    match starts.get(usize::from(poll) % starts.len().max(1)) {
        Some(&start) => (worker, start),
        None => made_up,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((head, file)) = data.split_first_chunk::<HEADER>() else {
        return;
    };
    let [kind, worker, poll, from, to, half, options, hz_byte] = *head;
    let Ok(raw) = raw_trace(file, MAX_INFLATED) else { return };
    let (trace, _failure) = parse_trace_within(&raw, MAX_DECODED);
    let (lo, hi) = trace.bounds.unwrap_or((0, 0));
    let span = hi.saturating_sub(lo);
    // A fraction of the trace's span, in ns after its start.
    let at = |b: u8| (span as u128 * u128::from(b) / 255) as u64;
    let (worker, start) = pick_poll(&trace, worker, poll);

    // `d9lens diagnose` with the options the header picks.
    let opts = DiagnoseOptions {
        poll_start: (options & 1 == 1).then_some(start),
        min_ms: (options & 2 == 2).then_some(f64::from(options >> 2) / 10.0),
        top: 1 + usize::from(options >> 4),
        hz: hz(hz_byte),
        ..DiagnoseOptions::default()
    };
    let d = diagnose::diagnose(&trace, &opts);
    assert!(
        d.targets.len() <= opts.top,
        "{} targets, {} asked for",
        d.targets.len(),
        opts.top
    );
    if opts.poll_start.is_some() {
        assert!(d.targets.iter().all(|t| t.start_ns == start), "another poll diagnosed");
    }
    let _ = diagnose::render(&d);
    serde_json::to_string(&d).expect("a diagnosis serializes");

    // `d9lens zoom FILE CENTER_MS HALF_MS`.
    let center_ms = at(from) as f64 / 1e6;
    let half_ms = at(half) as f64 / 2e6;
    let z = zoom::zoom(&trace, center_ms, half_ms, hz(hz_byte));
    let _ = zoom::render(&z, "<TRACE_URL>");
    serde_json::to_string(&z).expect("a zoom serializes");

    // The page's question, by the header's kind.
    let query = match kind % 4 {
        0 => InspectQuery::Poll { worker, start },
        1 => InspectQuery::Window {
            start: lo.saturating_add(at(from)),
            end: lo.saturating_add(at(to)),
        },
        2 => InspectQuery::Analysis {
            window: Window::new(at(from), at(to)),
        },
        _ => InspectQuery::Wakes,
    };
    let answer = inspect("fuzz.bin", trace, &query);
    match &answer {
        InspectAnswer::Poll(p) => {
            assert_eq!((p.worker, p.start_ns), (worker, start), "another poll inspected");
            assert!(
                p.history.polls.iter().any(|t| t.this),
                "the poll is not in its task's history"
            );
            assert!(p.history.polls.len() <= p.history.poll_count);
            assert!(p.diagnosis.as_ref().is_none_or(|t| t.start_ns == start));
        }
        InspectAnswer::Analysis(partial) => assert_eq!(partial.file, "fuzz.bin"),
        InspectAnswer::Wakes { by_task, total } => assert!(by_task.len() as u64 <= *total),
        InspectAnswer::Window(_) | InspectAnswer::NotFound => {}
    }
    serde_json::to_string(&answer).expect("an answer serializes");
});
