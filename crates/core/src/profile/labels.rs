//! A stack as a flamegraph sees it: root first, each frame as a label (its
//! display text and origin, interned) and every run of unresolved kernel
//! addresses as one `[kernel]` label, the addresses kept aside for a tooltip.

use super::origin::{Origin, origin};
use crate::frames::Frame;
use crate::frames::format_frame;
use crate::frames::is_kernel_address;
use crate::hashing::FastMap;
use std::sync::Arc;

pub const KERNEL: &str = "[kernel]";
/// The label of a flamegraph's root.
pub const ROOT: LabelId = 0;

pub type LabelId = u32;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Label {
    pub text: Arc<str>,
    pub origin: Origin,
}

/// Interns labels; each distinct frame (by its index in a frame list) is
/// formatted once, as stacks share most of their frames.
pub struct Labeler {
    labels: Vec<Label>,
    ids: FastMap<Label, LabelId>,
    by_frame: Vec<Option<LabelId>>,
    kernel: LabelId,
}

/// One stack's labels, root first.
#[derive(Debug, Default)]
pub struct Path {
    pub labels: Vec<LabelId>,
    /// Each `[kernel]` label's position in `labels` and its addresses, leaf first.
    pub kernel: Vec<(usize, Vec<Arc<str>>)>,
}

impl Default for Labeler {
    fn default() -> Self {
        let mut l = Labeler {
            labels: Vec::new(),
            ids: FastMap::default(),
            by_frame: Vec::new(),
            kernel: 0,
        };
        l.intern(Label {
            text: Arc::from("all"),
            origin: Origin::Unresolved,
        });
        l.kernel = l.intern(Label {
            text: Arc::from(KERNEL),
            origin: Origin::Kernel,
        });
        l
    }
}

impl Labeler {
    pub fn intern(&mut self, label: Label) -> LabelId {
        if let Some(&id) = self.ids.get(&label) {
            return id;
        }
        let id = self.labels.len() as LabelId;
        self.ids.insert(label.clone(), id);
        self.labels.push(label);
        id
    }

    /// The label of `frames[index]`.
    pub fn frame(&mut self, frames: &[Frame], index: u32) -> LabelId {
        let i = index as usize;
        if self.by_frame.len() <= i {
            self.by_frame.resize(i + 1, None);
        }
        if let Some(id) = self.by_frame[i] {
            return id;
        }
        let f = &frames[i];
        let id = self.intern(Label {
            text: format_frame(&f.symbol, f.location.as_deref()).into(),
            origin: origin(f),
        });
        self.by_frame[i] = Some(id);
        id
    }

    /// A leaf-first stack of indexes into `frames` → root first, kernel runs collapsed.
    pub fn path(&mut self, frames: &[Frame], leaf_first: &[u32]) -> Path {
        let mut path = Path {
            labels: Vec::with_capacity(leaf_first.len()),
            kernel: Vec::new(),
        };
        let mut in_run = false;
        for &i in leaf_first.iter().rev() {
            let symbol = &frames[i as usize].symbol;
            if is_kernel_address(symbol) {
                if !in_run {
                    path.labels.push(self.kernel);
                    path.kernel.push((path.labels.len() - 1, Vec::new()));
                    in_run = true;
                }
                path.kernel.last_mut().expect("pushed").1.push(symbol.clone());
                continue;
            }
            in_run = false;
            path.labels.push(self.frame(frames, i));
        }
        for (_, addrs) in &mut path.kernel {
            addrs.reverse();
        }
        path
    }

    /// Forgets which frame index had which label: the next stacks index
    /// another frame list (labels keep their ids).
    pub fn next_frame_list(&mut self) {
        self.by_frame.clear();
    }

    pub fn get(&self, id: LabelId) -> &Label {
        &self.labels[id as usize]
    }

    pub fn into_labels(self) -> Vec<Label> {
        self.labels
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(symbol: &str) -> Frame {
        Frame {
            symbol: Arc::from(symbol),
            location: None,
        }
    }

    #[test]
    fn kernel_runs_become_one_frame() {
        let frames = [
            f("0xffff8000812a2118"),
            f("0xffff8000812a0000"),
            f("syscall"),
            f("0xffff800081000000"),
            f("main"),
        ];
        let mut l = Labeler::default();
        let p = l.path(&frames, &[0, 1, 2, 3, 4]);
        let texts: Vec<&str> = p.labels.iter().map(|&id| &*l.get(id).text).collect();
        assert_eq!(texts, ["main", "[kernel]", "syscall", "[kernel]"]);
        assert_eq!(p.kernel.len(), 2);
        assert_eq!(p.kernel[1].0, 3);
        let leaf_run: Vec<&str> = p.kernel[1].1.iter().map(|a| &**a).collect();
        assert_eq!(leaf_run, ["0xffff8000812a2118", "0xffff8000812a0000"]);
        // A frame is formatted once; equal labels are one id.
        assert_eq!(l.frame(&frames, 4), p.labels[0]);
        assert_eq!(l.path(&frames, &[4]).labels, [p.labels[0]]);
    }
}
