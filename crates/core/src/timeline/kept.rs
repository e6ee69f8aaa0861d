//! The timelines a run keeps in the tab, within a memory budget. A file's
//! timeline holds tens of bytes per poll: hundreds of busy segments would
//! hold hundreds of MB. The run keeps the timelines of its files in name
//! order (for S3 keys: by date and time, then host) as long as together they
//! stay within [`BUDGET_BYTES`], and counts the rest. Which files are kept
//! never depends on the order they arrive in: the kept ones are always the
//! longest prefix, in name order, whose timelines fit.

use super::FileTimeline;
use std::collections::BTreeMap;

/// The most bytes of timelines a run keeps.
pub const BUDGET_BYTES: usize = 128 << 20;

#[derive(Debug, Clone)]
pub struct KeptTimelines {
    budget: usize,
    kept: BTreeMap<String, FileTimeline>,
    bytes: usize,
    /// The first name, in name order, left out: every file from it on is.
    cut: Option<String>,
    left_out: usize,
}

impl Default for KeptTimelines {
    fn default() -> Self {
        Self::new(BUDGET_BYTES)
    }
}

impl KeptTimelines {
    pub fn new(budget: usize) -> Self {
        KeptTimelines {
            budget,
            kept: BTreeMap::new(),
            bytes: 0,
            cut: None,
            left_out: 0,
        }
    }

    /// Takes `timeline` in, and leaves out what no longer fits: from the
    /// last name on.
    pub fn add(&mut self, timeline: FileTimeline) {
        if self.cut.as_ref().is_some_and(|cut| timeline.file >= *cut) {
            self.left_out += 1;
            return;
        }
        self.bytes += timeline.bytes();
        self.kept.insert(timeline.file.clone(), timeline);
        while self.bytes > self.budget {
            let (name, last) = self.kept.pop_last().expect("over budget: something is kept");
            self.bytes -= last.bytes();
            self.left_out += 1;
            self.cut = Some(name);
        }
    }

    /// Files whose timelines are left out.
    pub fn left_out(&self) -> usize {
        self.left_out
    }

    /// The kept timelines, in name order.
    pub fn into_files(self) -> Vec<FileTimeline> {
        self.kept.into_values().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A timeline of 100 tasks: the same bytes for every name.
    fn timeline(file: &str) -> FileTimeline {
        FileTimeline {
            file: file.into(),
            tasks: (0..100).collect(),
            ..FileTimeline::default()
        }
    }

    #[test]
    fn the_kept_files_do_not_depend_on_the_order_they_come_in() {
        let size = timeline("a").bytes();
        assert!(size > 0);
        let names = ["e", "a", "d", "b", "c"];
        let mut kept_sets = Vec::new();
        // Every rotation of the arrival order, with room for three.
        for start in 0..names.len() {
            let mut kept = KeptTimelines::new(3 * size);
            for name in names.iter().cycle().skip(start).take(names.len()) {
                kept.add(timeline(name));
            }
            assert_eq!(kept.left_out(), 2);
            kept_sets.push(kept.into_files().into_iter().map(|t| t.file).collect::<Vec<_>>());
        }
        assert!(kept_sets.iter().all(|s| s == &["a", "b", "c"]), "{kept_sets:?}");
    }

    #[test]
    fn the_scene_says_how_many_were_left_out() {
        let size = timeline("a").bytes();
        let mut kept = KeptTimelines::new(2 * size);
        ["c", "b", "a"].iter().for_each(|n| kept.add(timeline(n)));
        let scene = crate::timeline::Scene::of_kept(kept);
        assert_eq!(scene.left_out, 1);
        let files: Vec<&str> = scene.files.iter().map(|f| f.file.as_str()).collect();
        assert_eq!(files, ["a", "b"]);
    }

    #[test]
    fn everything_is_kept_within_the_budget() {
        let mut kept = KeptTimelines::default();
        ["b", "a"].iter().for_each(|n| kept.add(timeline(n)));
        assert_eq!(kept.left_out(), 0);
        assert_eq!(kept.into_files().len(), 2);
    }
}
