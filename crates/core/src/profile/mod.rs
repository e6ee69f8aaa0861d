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
use crate::trace::CUT_FRAMES;
use flame::{Builder, FlameGraph, Order};
use labels::{Label, Labeler, Path};
use origin::Origin;

/// The frame above the stacks that hold no application frame, when stacks
/// start at the application.
pub const RUNTIME_ONLY: &str = "[runtime only: no application frame]";

/// How a flamegraph lays its stacks out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shape {
    /// Each stack from its first application or dependency frame: the
    /// thread's start, Tokio's worker loop and task harness, libc, left out
    /// (stacks with no such frame stay whole, under `RUNTIME_ONLY`).
    pub from_application: bool,
    /// Leaf first (bottom-up): the functions the samples were in at the
    /// root, their callers above.
    pub inverted: bool,
}

impl Shape {
    /// What the page opens on: the application's frames first.
    pub const APPLICATION: Shape = Shape {
        from_application: true,
        inverted: false,
    };

    fn apply(self, mut path: Path, labeler: &mut Labeler) -> Path {
        if self.from_application {
            let own = |&l: &u32| matches!(labeler.get(l).origin, Origin::App | Origin::Dependency);
            // A stack cut for its depth keeps the frame that says so at its root.
            let cut = usize::from(
                path.labels
                    .first()
                    .is_some_and(|&l| &*labeler.get(l).text == CUT_FRAMES),
            );
            match path.labels.iter().position(own) {
                Some(k) => {
                    let gone = cut..k.max(cut);
                    let n = gone.len();
                    path.labels.drain(gone.clone());
                    path.kernel.retain(|(at, _)| !gone.contains(at));
                    path.kernel
                        .iter_mut()
                        .filter(|(at, _)| *at >= gone.end)
                        .for_each(|(at, _)| *at -= n);
                }
                // Stacks of the runtime alone, whole, under one frame that says so.
                None if !self.inverted => {
                    let group = labeler.intern(Label {
                        text: RUNTIME_ONLY.into(),
                        origin: Origin::Runtime,
                    });
                    path.labels.insert(0, group);
                    path.kernel.iter_mut().for_each(|(at, _)| *at += 1);
                }
                None => {}
            }
        }
        if self.inverted {
            let last = path.labels.len().saturating_sub(1);
            path.labels.reverse();
            path.kernel.iter_mut().for_each(|(at, _)| *at = last - *at);
            path.kernel.reverse();
        }
        path
    }
}

/// The flamegraph of one kind of samples.
pub fn flamegraph(profiles: &Profiles, kind: SampleKind, order: Order, shape: Shape) -> FlameGraph {
    let mut labeler = Labeler::default();
    let mut builder = Builder::new();
    for w in profiles.stacks(kind) {
        let path = labeler.path(&profiles.frames, &w.stack);
        builder.add(w.weight, &shape.apply(path, &mut labeler));
    }
    builder.finish(labeler.into_labels(), order)
}

/// The differential flamegraph of `after` against `before`: laid out as
/// `after`, each node knowing its share of `before` too (`FlameGraph::change`).
pub fn diff_flamegraph(
    before: &Profiles,
    after: &Profiles,
    kind: SampleKind,
    order: Order,
    shape: Shape,
) -> FlameGraph {
    let mut labeler = Labeler::default();
    let mut builder = Builder::new();
    for w in after.stacks(kind) {
        let path = labeler.path(&after.frames, &w.stack);
        builder.add(w.weight, &shape.apply(path, &mut labeler));
    }
    labeler.next_frame_list();
    for w in before.stacks(kind) {
        let path = labeler.path(&before.frames, &w.stack);
        builder.add_baseline(w.weight, &shape.apply(path, &mut labeler));
    }
    builder.finish(labeler.into_labels(), order)
}
