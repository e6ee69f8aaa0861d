//! A file's terminated tasks as its partial carries them: the ids alone,
//! sorted, and on the wire as the gaps between them. A busy segment ends
//! thousands of tasks whose ids run nearly consecutively, so most gaps take
//! one byte where an id with its time took several, and reading them back builds
//! no map: the fold needs only to know which ids ended, which it keeps as
//! runs of consecutive ids (`IdRuns`): a few a file.

use serde::de::{Error, SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;

/// Task ids, ascending, each once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskIds(Vec<u64>);

impl TaskIds {
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.0.iter().copied()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The runs of consecutive ids, `(first, last)`, ascending.
    pub fn runs(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.0
            .chunk_by(|a, b| a.checked_add(1) == Some(*b))
            .map(|run| (run[0], run[run.len() - 1]))
    }
}

/// A set of task ids as runs of consecutive ids: a task id per file's end
/// of thousands costs a map entry each; their runs, a few a file.
#[derive(Debug, Clone, Default)]
pub struct IdRuns {
    /// first → last, disjoint and never adjacent.
    runs: BTreeMap<u64, u64>,
}

impl IdRuns {
    /// Adds every id of `ids`.
    pub fn extend(&mut self, ids: &TaskIds) {
        for (first, last) in ids.runs() {
            self.insert(first, last);
        }
    }

    /// Adds `first..=last`, joining the runs it touches.
    fn insert(&mut self, mut first: u64, mut last: u64) {
        if let Some((&start, &end)) = self.runs.range(..=first).next_back()
            && end.saturating_add(1) >= first
        {
            self.runs.remove(&start);
            first = start;
            last = last.max(end);
        }
        while let Some((&start, &end)) = self.runs.range(first..).next() {
            if start > last.saturating_add(1) {
                break;
            }
            self.runs.remove(&start);
            last = last.max(end);
        }
        self.runs.insert(first, last);
    }

    pub fn contains(&self, id: u64) -> bool {
        self.runs.range(..=id).next_back().is_some_and(|(_, &last)| last >= id)
    }

    /// How many runs it holds (what it costs).
    pub fn runs(&self) -> usize {
        self.runs.len()
    }
}

impl FromIterator<u64> for TaskIds {
    fn from_iter<I: IntoIterator<Item = u64>>(ids: I) -> Self {
        let mut ids: Vec<u64> = ids.into_iter().collect();
        ids.sort_unstable();
        ids.dedup();
        TaskIds(ids)
    }
}

impl Serialize for TaskIds {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        let mut last = 0;
        for &id in &self.0 {
            seq.serialize_element(&(id - last))?;
            last = id;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for TaskIds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Gaps;
        impl<'de> Visitor<'de> for Gaps {
            type Value = TaskIds;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("the gaps between ascending task ids")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TaskIds, A::Error> {
                // The length a crafted answer claims is not trusted for the
                // allocation: the ids grow as they are read.
                let mut ids = Vec::new();
                let mut last: u64 = 0;
                while let Some(gap) = seq.next_element::<u64>()? {
                    if gap == 0 && !ids.is_empty() {
                        return Err(A::Error::custom("a task id twice"));
                    }
                    last = last
                        .checked_add(gap)
                        .ok_or_else(|| A::Error::custom("a task id past u64"))?;
                    ids.push(last);
                }
                Ok(TaskIds(ids))
            }
        }
        d.deserialize_seq(Gaps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_hold_the_same_ids_as_a_set_in_any_order() {
        use std::collections::BTreeSet;
        // Files' ids: runs that overlap, touch, nest and stand apart, and
        // the ends of the id space.
        let files: Vec<TaskIds> = vec![
            (10..20).chain([25, 27]).collect(),
            (20..23).chain(5..8).collect(),
            [8, 9, 24, 26, u64::MAX - 1, u64::MAX, 0].into_iter().collect(),
            (1..4).chain(100..110).collect(),
            (15..18).collect(),
        ];
        let expected: BTreeSet<u64> = files.iter().flat_map(TaskIds::iter).collect();
        for order in [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [2, 0, 4, 1, 3]] {
            let mut runs = IdRuns::default();
            for i in order {
                runs.extend(&files[i]);
            }
            for id in (0..120).chain(u64::MAX - 3..=u64::MAX) {
                assert_eq!(runs.contains(id), expected.contains(&id), "id {id}, order {order:?}");
            }
            // 0..=3, 5..=22, 24..=27, 100..=109, the two last ids.
            assert_eq!(runs.runs(), 5, "order {order:?}: {runs:?}");
        }
        assert_eq!(files[0].runs().collect::<Vec<_>>(), [(10, 19), (25, 25), (27, 27)]);
    }

    #[test]
    fn ids_travel_as_gaps_and_read_back_sorted_once_each() {
        let ids: TaskIds = [9, 3, 4, 3, 0, u64::MAX].into_iter().collect();
        assert_eq!(ids.iter().collect::<Vec<_>>(), [0, 3, 4, 9, u64::MAX]);
        let bytes = postcard::to_allocvec(&ids).unwrap();
        assert_eq!(postcard::from_bytes::<TaskIds>(&bytes).unwrap(), ids);
        assert_eq!(
            serde_json::to_string(&ids).unwrap(),
            format!("[0,3,1,5,{}]", u64::MAX - 9)
        );
        // Consecutive ids: a byte each (and one for the count).
        let run: TaskIds = (1_000..1_100).collect();
        assert_eq!(postcard::to_allocvec(&run).unwrap().len(), 1 + 2 + 99);
    }

    #[test]
    fn crafted_gaps_are_errors() {
        for json in ["[5,0]", &format!("[1,{}]", u64::MAX), "[-1]"] {
            assert!(serde_json::from_str::<TaskIds>(json).is_err(), "{json}");
        }
        assert_eq!(
            serde_json::from_str::<TaskIds>("[0]")
                .unwrap()
                .iter()
                .collect::<Vec<_>>(),
            [0],
            "task 0"
        );
    }
}
