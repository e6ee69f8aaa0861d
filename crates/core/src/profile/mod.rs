//! Profiles: the selection's sampled stacks as flamegraphs (`flame`), named
//! by origin (`origin`), with kernel addresses folded into one frame
//! (`labels`), blocking stacks grouped by the call that blocked (`calls`),
//! and written out for other tools (`folded`); `diff_flamegraph` compares two.

pub mod calls;
pub mod flame;
pub mod folded;
pub mod labels;
pub mod origin;

use crate::report::{Profiles, SampleKind};
use flame::{Builder, FlameGraph, Order};
use labels::Labeler;

/// The flamegraph of one kind of samples.
pub fn flamegraph(profiles: &Profiles, kind: SampleKind, order: Order) -> FlameGraph {
    let mut labeler = Labeler::default();
    let mut builder = Builder::new();
    for w in profiles.stacks(kind) {
        builder.add(w.weight, &labeler.path(&profiles.frames, &w.stack));
    }
    builder.finish(labeler.into_labels(), order)
}

/// The differential flamegraph of `after` against `before`: laid out as
/// `after`, each node knowing its share of `before` too (`FlameGraph::change`).
pub fn diff_flamegraph(before: &Profiles, after: &Profiles, kind: SampleKind, order: Order) -> FlameGraph {
    let mut labeler = Labeler::default();
    let mut builder = Builder::new();
    for w in after.stacks(kind) {
        builder.add(w.weight, &labeler.path(&after.frames, &w.stack));
    }
    labeler.next_frame_list();
    for w in before.stacks(kind) {
        builder.add_baseline(w.weight, &labeler.path(&before.frames, &w.stack));
    }
    builder.finish(labeler.into_labels(), order)
}
