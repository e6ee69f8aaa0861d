//! Arbitrary bytes → what the page reads from outside itself besides trace
//! files: a worker's answer for a file (its outcome, `analysis::wire`), a
//! timeline's bytes (decoded, then placed and reduced for drawing at a few
//! zooms), and S3's and STS's answers (a listing page, an error body, an
//! AssumeRole response). Any panic, abort or OOM is a bug; a timeline or an
//! outcome that decodes must encode to bytes that decode again, and fold
//! into a report, as one file and as two (the fold's sums saturate: crafted
//! counts may add up past `u64::MAX`).
#![no_main]

use d9lens_core::analysis::{Merger, Options, wire};
use d9lens_core::s3::{S3Error, parse_assume_role_response, parse_list_page};
use d9lens_core::timeline::{
    self, CounterKind, MarkKind, Scene, View, counter_marks, park_marks, poll_at, poll_marks, span_marks, tick_marks,
    worker_load,
};
use libfuzzer_sys::fuzz_target;

/// Every reduction the canvas asks of a scene, over `view`.
fn draw(scene: &Scene, view: &View, width: f64) {
    let (mut marks, mut spans, mut ticks, mut parks, mut points) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (f, file) in scene.files.iter().enumerate() {
        let map = scene.maps[f];
        for lane in &file.lanes {
            marks.clear();
            poll_marks(&lane.polls, map, view, width, &mut marks);
            for m in &marks {
                if let MarkKind::One(i) = m.kind {
                    let task = lane.polls.task.get(i as usize);
                    let _ = (file.tasks.get(task as usize), file.task_loc(task));
                }
            }
            let _ = poll_at(&lane.polls, map, view.start + view.span() / 2.0, view.span() / 100.0);
            park_marks(&lane.parks, map, view, width, &mut parks);
            tick_marks(&lane.on_cpu, map, view, width, &mut ticks);
            tick_marks(&lane.off_cpu, map, view, width, &mut ticks);
        }
        for c in &file.counters {
            counter_marks(c, map, view, width, &mut points);
        }
        span_marks(&file.spans, map, view, width, &mut spans);
        for (_, m) in &spans {
            if let MarkKind::One(i) = m.kind {
                let _ = file.loc(file.spans.name.get(i as usize));
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(t) = timeline::decode(data) {
        assert_eq!(
            timeline::decode(&timeline::encode(&t)).as_ref(),
            Ok(&t),
            "a decoded timeline survives its bytes"
        );
        let scene = Scene::new(vec![t]);
        let all = scene.view();
        for view in [
            all,
            all.zoom(1000.0, 0.5),
            all.window(all.total * 0.25, all.total * 0.26),
        ] {
            draw(&scene, &view, 1000.0);
        }
        let _ = worker_load(&scene, 100);
        let _ = timeline::counter_sums(&scene, CounterKind::Allocated, 100);
        let _ = scene.legend(8);
    }
    if let Ok(outcome) = wire::decode(data) {
        assert!(
            wire::decode(&wire::encode(&outcome)).is_ok(),
            "a decoded outcome survives its bytes"
        );
        let mut again = outcome.partial.clone();
        again.file.push_str(".again");
        for partials in [vec![outcome.partial.clone()], vec![outcome.partial, again]] {
            let mut merger = Merger::new(Options::default());
            for p in partials {
                merger.add(p);
            }
            let _ = merger.into_report();
        }
    }
    let _ = parse_list_page(data);
    let _ = S3Error::from_response(403, &[], data);
    let _ = parse_assume_role_response(data);
});
