//! Profiles: the selection's sampled stacks as flamegraphs (`flame`), named
//! by origin (`origin`), with kernel addresses folded into one frame
//! (`labels`), blocking stacks grouped by the call that blocked (`calls`),
//! and written out for other tools (`folded`).

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
