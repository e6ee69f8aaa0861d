//! A file's terminated tasks as its partial carries them: the ids alone,
//! sorted, and on the wire as the gaps between them. A busy segment ends
//! thousands of tasks whose ids run nearly consecutively, so most gaps take
//! one byte where an id with its time took several, and reading them back builds
//! no map: the fold needs only to know which ids ended.

use serde::de::{Error, SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

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
