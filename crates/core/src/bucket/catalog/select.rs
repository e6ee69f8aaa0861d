//! Selections: a host's segments in a window, a window's, one segment per
//! host (a fleet overview), the segments whose spans overlap a window.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::load::LoadBaseline;
use super::spans::host_spans;
use super::window::TimeWindow;
use super::{Catalog, HostKey, Load, SegmentRecord};

/// A segment picked for download, with its load class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectedSegment {
    pub segment: SegmentRecord,
    pub load: Load,
}

/// Segments chosen for download, ordered by start time then key.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Selection {
    pub segments: Vec<SelectedSegment>,
}

impl Selection {
    fn sorted(mut segments: Vec<SelectedSegment>) -> Self {
        segments.sort_by(|a, b| {
            (a.segment.parts.epoch_secs, &a.segment.key).cmp(&(b.segment.parts.epoch_secs, &b.segment.key))
        });
        Self { segments }
    }

    pub fn len(&self) -> usize {
        self.segments.len()
    }

    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    /// Compressed bytes a download of the selection costs.
    pub fn total_bytes(&self) -> u64 {
        self.segments.iter().map(|s| s.segment.size).sum()
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.segments.iter().map(|s| s.segment.key.as_str())
    }

    /// Each segment's key and size.
    pub fn objects(&self) -> impl Iterator<Item = (&str, u64)> {
        self.segments.iter().map(|s| (s.segment.key.as_str(), s.segment.size))
    }
}

impl Catalog {
    /// Segments of one host whose key start lies in `window`, time-ordered.
    pub fn host_segments(&self, host: &HostKey, window: TimeWindow) -> Selection {
        let baseline = self.load_baseline();
        let segments = self
            .hosts
            .get(host)
            .into_iter()
            .flat_map(|set| set.range(window.slot_range()))
            .map(|&(_, slot)| self.selected(slot, &baseline))
            .collect();
        Selection::sorted(segments)
    }

    /// Every segment whose key start lies in `window`, optionally of one service.
    pub fn segments_in_window(&self, window: TimeWindow, service: Option<&str>) -> Selection {
        let baseline = self.load_baseline();
        let segments = self
            .hosts_of(service)
            .flat_map(|(_, set)| set.range(window.slot_range()))
            .map(|&(_, slot)| self.selected(slot, &baseline))
            .collect();
        Selection::sorted(segments)
    }

    /// One segment per host from `window` (optionally one service): the
    /// non-empty segment starting closest to the window's middle, so every host
    /// is represented by roughly the same moment.
    pub fn fleet_overview(&self, window: TimeWindow, service: Option<&str>) -> Selection {
        let baseline = self.load_baseline();
        let middle = window.start_secs() + (window.end_secs() - window.start_secs()) / 2;
        let segments = self
            .hosts_of(service)
            .filter_map(|(_, set)| {
                set.range(window.slot_range())
                    .filter(|&&(_, slot)| self.segments[slot].size > 0)
                    .min_by_key(|&&(start, slot)| (start.abs_diff(middle), start, &self.segments[slot].key))
            })
            .map(|&(_, slot)| self.selected(slot, &baseline))
            .collect();
        Selection::sorted(segments)
    }

    /// Every segment whose estimated span `[start, end)` (to its upload, clipped
    /// at the next start of its boot) overlaps `window` and that `keep` accepts:
    /// a window also catches the segment that started before it.
    pub fn segments_overlapping(&self, window: TimeWindow, keep: impl Fn(&SegmentRecord) -> bool) -> Selection {
        let baseline = self.load_baseline();
        let mut segments = Vec::new();
        for set in self.hosts.values() {
            for span in host_spans(&self.host_records(set)).spans {
                if span.end > window.start_secs() && span.start < window.end_secs() && keep(span.record) {
                    segments.push(SelectedSegment {
                        segment: span.record.clone(),
                        load: baseline.classify(span.record.size),
                    });
                }
            }
        }
        Selection::sorted(segments)
    }

    fn hosts_of<'a>(
        &'a self,
        service: Option<&'a str>,
    ) -> impl Iterator<Item = (&'a HostKey, &'a BTreeSet<(u64, usize)>)> + 'a {
        self.hosts
            .iter()
            .filter(move |(host, _)| service.is_none_or(|s| host.service == s))
    }

    pub(super) fn selected(&self, slot: usize, baseline: &LoadBaseline) -> SelectedSegment {
        let segment = self.segments[slot].clone();
        SelectedSegment {
            load: baseline.classify(segment.size),
            segment,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{T0, catalog_of, key};
    use super::*;

    #[test]
    fn selections_by_host_window_and_fleet() {
        let segs = [
            ("h1", "aaaa", T0, 0, 100, None),
            ("h1", "aaaa", T0 + 60, 1, 100, None),
            ("h1", "aaaa", T0 + 120, 2, 1000, None),
            ("h2", "bbbb", T0 + 30, 0, 0, None),
            ("h2", "bbbb", T0 + 90, 1, 120, None),
        ];
        let catalog = catalog_of(&segs);
        let w = TimeWindow::new(T0 + 60, T0 + 180).unwrap();
        let h1 = catalog.host_segments(&HostKey::new("api", "h1"), w);
        assert_eq!(h1.keys().collect::<Vec<_>>(), [key(&segs[1]), key(&segs[2])]);
        assert_eq!(h1.total_bytes(), 1100);
        assert_eq!(h1.segments[1].load, Load::Busy);
        // By start, then key, whichever host.
        let all = catalog.segments_in_window(w, Some("api"));
        assert_eq!(
            all.keys().collect::<Vec<_>>(),
            [key(&segs[1]), key(&segs[4]), key(&segs[2])]
        );
        assert!(catalog.segments_in_window(w, Some("other")).is_empty());
        // One non-empty segment per host, the nearest the middle (T0 + 120).
        let fleet = catalog.fleet_overview(TimeWindow::new(T0, T0 + 240).unwrap(), None);
        assert_eq!(fleet.keys().collect::<Vec<_>>(), [key(&segs[4]), key(&segs[2])]);
        // A window catches the segment that started before it and runs into it.
        let late = catalog.segments_overlapping(TimeWindow::new(T0 + 100, T0 + 110).unwrap(), |_| true);
        assert_eq!(late.keys().collect::<Vec<_>>(), [key(&segs[1]), key(&segs[4])]);
    }
}
