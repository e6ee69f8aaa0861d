//! Each task's spawn location, as a partial carries it. A busy segment has
//! thousands of tasks and a few dozen locations: each location is one shared
//! string, and on the wire the distinct locations come once, then each
//! task with its location's index. Read back, every index is checked.

use crate::hashing::{FastIndexMap, FastMap};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::sync::Arc;

/// A spawn location (`file:line:column`), shared by the tasks spawned there.
pub type Loc = Arc<str>;

/// Task id → where it was spawned, if the trace says.
pub type SpawnLocs = FastIndexMap<u64, Option<Loc>>;

/// The distinct locations, then each task with 0 (no location) or 1 + the
/// index of its location.
#[derive(Serialize, Deserialize)]
struct Wire<S> {
    locations: Vec<S>,
    tasks: Vec<(u64, u32)>,
}

pub fn serialize<S: Serializer>(locs: &SpawnLocs, serializer: S) -> Result<S::Ok, S::Error> {
    let mut index: FastMap<&str, u32> = FastMap::default();
    let mut locations = Vec::new();
    let tasks = locs
        .iter()
        .map(|(&task, loc)| {
            let code = loc.as_deref().map_or(0, |loc| {
                *index.entry(loc).or_insert_with(|| {
                    locations.push(loc);
                    locations.len() as u32
                })
            });
            (task, code)
        })
        .collect();
    Wire { locations, tasks }.serialize(serializer)
}

pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<SpawnLocs, D::Error> {
    let wire = Wire::<String>::deserialize(deserializer)?;
    let locations: Vec<Loc> = wire.locations.into_iter().map(Loc::from).collect();
    wire.tasks
        .into_iter()
        .map(|(task, code)| match code {
            0 => Ok((task, None)),
            _ => locations
                .get(code as usize - 1)
                .map(|loc| (task, Some(loc.clone())))
                .ok_or_else(|| D::Error::custom(format!("spawn location {code} of {}", locations.len()))),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Holder(#[serde(with = "super")] SpawnLocs);

    #[test]
    fn locations_travel_once_and_come_back_shared() {
        let (a, b): (Loc, Loc) = ("src/a.rs:1:1".into(), "src/b.rs:2:2".into());
        let locs: SpawnLocs = [(7, Some(a.clone())), (3, None), (9, Some(b)), (1, Some(a))]
            .into_iter()
            .collect();
        let bytes = postcard::to_allocvec(&Holder(locs.clone())).unwrap();
        assert!(bytes.windows(12).filter(|w| w == b"src/a.rs:1:1").count() == 1);
        let back: Holder = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back.0, locs, "same tasks, same order");
        let (first, last) = (back.0[&7].as_ref().unwrap(), back.0[&1].as_ref().unwrap());
        assert!(Arc::ptr_eq(first, last));
    }

    #[test]
    fn an_index_past_the_locations_is_an_error() {
        let bad = Wire {
            locations: vec!["x"],
            tasks: vec![(1, 2)],
        };
        let bytes = postcard::to_allocvec(&bad).unwrap();
        assert!(postcard::from_bytes::<Holder>(&bytes).is_err());
    }
}
