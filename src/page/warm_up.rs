//! Readies the page's own code for the first file's answer. A browser runs
//! wasm from a quick baseline compile of each function when it is first
//! called, and optimizes a function only once it has run for a while; so
//! the first answer of a page would pay for compiling, and running cold,
//! every function of the merge, the report and the timeline, and its
//! timeline would come markedly later than a second one's
//! (docs/benchmarks.md). So while the page waits for files it runs that
//! side of an answer on a worker's warm-up trace (`ToWorker::WarmUp`) for a
//! while, in short tasks: nothing of it is kept or shown.

use crate::clock::now_ms;
use d9lens_core::analysis::{Merger, Options, wire};
use d9lens_core::timeline::Scene;
use leptos::prelude::set_timeout;
use std::time::Duration;

/// How long each part runs (the answer read and reported, the timeline
/// drawn), in tasks of about `TASK_MS` so that a click meanwhile waits little.
const REPORT_MS: f64 = 150.0;
const DRAW_MS: f64 = 100.0;
const TASK_MS: f64 = 15.0;

/// `outcome`: the warm-up trace's outcome as a worker's answer carries it.
pub fn page(outcome: Vec<u8>) {
    let Ok(first) = wire::decode(&outcome) else { return };
    repeat(REPORT_MS, move || {
        let Ok(answer) = wire::decode(&outcome) else { return };
        let mut merger = Merger::new(Options::default());
        merger.add(answer.partial);
        std::hint::black_box(merger.into_report());
    });
    if let Some(timeline) = first.timeline {
        // The drawing is in the report's chunk: it runs once that is in.
        wasm_bindgen_futures::spawn_local(async move {
            if let Some(draw) = crate::page::chunks::timeline_warm_up(Scene::new(vec![timeline])).await {
                repeat(DRAW_MS, draw);
            }
        });
    }
}

/// Runs `step` over and over for `ms` in all, in tasks of about `TASK_MS`.
fn repeat(ms: f64, mut step: impl FnMut() + 'static) {
    set_timeout(
        move || {
            let started = now_ms();
            while now_ms() - started < TASK_MS.min(ms) {
                step();
            }
            let left = ms - (now_ms() - started);
            if left > 0.0 {
                repeat(left, step);
            }
        },
        Duration::ZERO,
    );
}
