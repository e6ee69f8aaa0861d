//! The application's custom events on the timeline: a lane per event type,
//! a mark at each event's moment on the scene's axis, and what a click on
//! one reads (its fields with their units). The marks come from the run's
//! kept request details, placed by the scene's files; a file the scene
//! does not draw has none.

use super::scene::Scene;
use crate::requests::detail::NONE;
use crate::requests::events::value_text;
use crate::requests::kept::Details;
use indexmap::IndexMap;

/// Marks kept over every lane; the rest are counted (`EventLanes::left_out`).
pub const MAX_MARKS: usize = 1 << 20;

/// One event on the axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EventMark {
    /// Axis ns.
    pub t: f64,
    /// Index into the details' files, and into that file's events.
    pub file: u32,
    pub event: u32,
}

/// The events of one type, by time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventLane {
    pub name: String,
    pub marks: Vec<EventMark>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventLanes {
    /// By name.
    pub lanes: Vec<EventLane>,
    /// Events past `MAX_MARKS`.
    pub left_out: u64,
}

impl EventLane {
    /// The marks with `a <= t <= b`.
    pub fn within(&self, a: f64, b: f64) -> &[EventMark] {
        let lo = self.marks.partition_point(|m| m.t < a);
        let hi = self.marks.partition_point(|m| m.t <= b);
        &self.marks[lo..hi.max(lo)]
    }

    /// The mark nearest `t`, if one is within `tol` (equals: the earlier).
    pub fn nearest(&self, t: f64, tol: f64) -> Option<EventMark> {
        self.within(t - tol, t + tol)
            .iter()
            .copied()
            .min_by(|a, b| (a.t - t).abs().total_cmp(&(b.t - t).abs()))
    }
}

impl EventLanes {
    pub fn new(scene: &Scene, details: &Details) -> EventLanes {
        let mut lanes: IndexMap<String, Vec<EventMark>> = IndexMap::new();
        let mut kept = 0usize;
        let mut left_out = 0u64;
        for (f, d) in details.files.iter().enumerate() {
            let Some(map) = scene.file_index(&d.file).map(|i| scene.maps[i]) else {
                continue;
            };
            for (i, e) in d.events.iter().enumerate() {
                let Some(t) = d.event_types.get(e.kind as usize) else {
                    continue;
                };
                if kept == MAX_MARKS {
                    left_out += 1;
                    continue;
                }
                kept += 1;
                lanes.entry(d.text(t.name).to_string()).or_default().push(EventMark {
                    t: map.axis(e.ts),
                    file: f as u32,
                    event: i as u32,
                });
            }
        }
        let mut lanes: Vec<EventLane> = lanes
            .into_iter()
            .map(|(name, mut marks)| {
                marks.sort_by(|a, b| a.t.total_cmp(&b.t).then((a.file, a.event).cmp(&(b.file, b.event))));
                EventLane { name, marks }
            })
            .collect();
        lanes.sort_by(|a, b| a.name.cmp(&b.name));
        EventLanes { lanes, left_out }
    }
}

/// One event as a click shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventFields {
    pub name: String,
    pub file: String,
    /// Trace ns of its file.
    pub ts: u64,
    /// (field, value, unit), in schema order; absent values left out.
    pub fields: Vec<(String, String, Option<String>)>,
}

/// What `mark` recorded (`None`: not an event of these details).
pub fn fields_of(details: &Details, mark: EventMark) -> Option<EventFields> {
    let d = details.files.get(mark.file as usize)?;
    let e = d.events.get(mark.event as usize)?;
    let t = d.event_types.get(e.kind as usize)?;
    Some(EventFields {
        name: d.text(t.name).to_string(),
        file: d.file.clone(),
        ts: e.ts,
        fields: t
            .fields
            .iter()
            .zip(d.values_of(e))
            .filter_map(|(f, &v)| {
                let unit = (f.unit != NONE).then(|| d.text(f.unit).to_string());
                Some((d.text(f.name).to_string(), value_text(d, v)?, unit))
            })
            .collect(),
    })
}
