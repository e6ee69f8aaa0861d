//! The request details a run keeps: those of the files in name order while
//! they fit a budget, so that the same files give the same answers whatever
//! order they arrived in; the rest are counted, and every answer says so.

use super::detail::FileDetail;
use crate::analysis::frame_table::FrameList;
use std::sync::Arc;

/// Bytes of details a run keeps (`FileDetail::bytes`): a few dozen busy
/// segments, hundreds of quiet ones.
pub const DETAIL_BUDGET: usize = 160 << 20;

/// The details of a run's files, in name order.
#[derive(Debug, Clone, Default)]
pub struct Details {
    pub files: Vec<Arc<FileDetail>>,
    /// Files with a detail past the budget (they and every later file by
    /// name are left out).
    pub left_out: u64,
    bytes: usize,
    budget: Option<usize>,
}

impl Details {
    /// With a budget other than `DETAIL_BUDGET` (tests).
    pub fn with_budget(budget: usize) -> Self {
        Details {
            budget: Some(budget),
            ..Details::default()
        }
    }

    /// Takes the detail of the next file in name order, if it fits, with
    /// the frames its stacks name (its partial's).
    pub fn add(&mut self, mut detail: FileDetail, frames: &FrameList) {
        let bytes = detail.bytes();
        let budget = self.budget.unwrap_or(DETAIL_BUDGET);
        if self.left_out > 0 || self.bytes.saturating_add(bytes) > budget {
            self.left_out += 1;
            return;
        }
        self.bytes += bytes;
        detail.frames = frames.clone();
        self.files.push(Arc::new(detail));
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// What the details leave out, in words, when they do.
    pub fn left_out_note(&self) -> Option<String> {
        (self.left_out > 0).then(|| {
            format!(
                "Over the first {} by name: the last {} would pass the {} the page and the CLI keep of instances.",
                crate::fmt::count(self.files.len(), "file"),
                crate::fmt::count(self.left_out as usize, "file"),
                crate::fmt::bytes(DETAIL_BUDGET as u64)
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detail(file: &str, strings: usize) -> FileDetail {
        FileDetail {
            file: file.into(),
            strings: vec!["x".repeat(100); strings],
            ..FileDetail::default()
        }
    }

    #[test]
    fn files_past_the_budget_and_all_after_them_are_left_out() {
        let one = detail("a", 10).bytes();
        let mut kept = Details::with_budget(2 * one + one / 2);
        let frames = FrameList::default();
        kept.add(detail("a", 10), &frames);
        kept.add(detail("b", 10), &frames);
        kept.add(detail("c", 10), &frames);
        // A small one after a left-out file would fit, but the kept files stay a prefix.
        kept.add(detail("d", 1), &frames);
        let names: Vec<&str> = kept.files.iter().map(|d| d.file.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(kept.left_out, 2);
        assert!(kept.left_out_note().unwrap().contains("the last 2 files"));
    }
}
