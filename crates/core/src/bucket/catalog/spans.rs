//! Each segment's estimated `[start, end)`: from its key's start to its
//! upload, clipped at the next start of its boot, or one interval of its
//! boot's cadence when nothing better is known.

use std::collections::BTreeMap;

use super::SegmentRecord;

/// Assumed segment length when a host has no consecutive segments to measure.
pub const DEFAULT_SEGMENT_SECS: u64 = 60;
/// Cap on a segment's assumed duration, whatever its boot's cadence.
pub const MAX_SEGMENT_SECS: u64 = 3600;
/// An upload this long after a segment's expected end (its start plus twice
/// its boot's interval) is not taken as the time the segment closed: the
/// objects were copied or synced later (a mirror, a demo bucket).
pub const UPLOAD_SLACK_SECS: u64 = 120;

/// A segment with its estimated `[start, end)`.
#[derive(Clone, Copy)]
pub(super) struct Span<'a> {
    pub(super) record: &'a SegmentRecord,
    pub(super) start: u64,
    pub(super) end: u64,
    /// `end` comes from the boot's cadence alone (no later segment of the
    /// boot, no plausible upload time).
    pub(super) guessed: bool,
}

/// Start-to-start deltas of consecutive indices (`i`, `i + 1`) in one boot:
/// the rotation interval, unaffected by lost segments in between.
fn consecutive_deltas(segs: &[&SegmentRecord]) -> Vec<u64> {
    let by_index: BTreeMap<u64, u64> = segs
        .iter()
        .map(|s| (s.parts.segment_index, s.parts.epoch_secs))
        .collect();
    by_index
        .iter()
        .zip(by_index.iter().skip(1))
        .filter(|((i, start), (j, next))| **j == **i + 1 && next > start)
        .map(|((_, start), (_, next))| next - start)
        .collect()
}

/// The median, rounding up: with a few junk pairs the real interval still wins ties.
fn typical_interval(mut deltas: Vec<u64>) -> Option<u64> {
    if deltas.is_empty() {
        return None;
    }
    let mid = deltas.len() / 2;
    Some(*deltas.select_nth_unstable(mid).1)
}

pub(super) fn median(values: impl Iterator<Item = u64>) -> Option<u64> {
    let mut values: Vec<u64> = values.collect();
    if values.is_empty() {
        return None;
    }
    let mid = (values.len() - 1) / 2;
    Some(*values.select_nth_unstable(mid).1)
}

/// A host's segments grouped by boot, with each segment's span.
pub(super) struct HostSpans<'a> {
    /// All spans, by start.
    pub(super) spans: Vec<Span<'a>>,
    /// (boot, its segments, their spans), by boot id.
    pub(super) boots: Vec<(Option<&'a str>, Vec<&'a SegmentRecord>, Vec<Span<'a>>)>,
    pub(super) host_interval: Option<u64>,
}

/// Each segment's `[start, end)`: to its upload, clipped at the next start on the same boot.
pub(super) fn host_spans<'a>(records: &[&'a SegmentRecord]) -> HostSpans<'a> {
    let mut by_boot: BTreeMap<Option<&str>, Vec<&SegmentRecord>> = BTreeMap::new();
    for record in records {
        by_boot.entry(record.parts.boot.as_deref()).or_default().push(record);
    }
    let host_interval = typical_interval(by_boot.values().flat_map(|segs| consecutive_deltas(segs)).collect());
    let mut spans = Vec::with_capacity(records.len());
    let mut boots = Vec::with_capacity(by_boot.len());
    for (boot, segs) in by_boot {
        let interval = typical_interval(consecutive_deltas(&segs)).or(host_interval);
        let boot_spans = segment_spans(&segs, interval.unwrap_or(DEFAULT_SEGMENT_SECS));
        spans.extend(boot_spans.iter().copied());
        boots.push((boot, segs, boot_spans));
    }
    spans.sort_by(|a, b| (a.start, &a.record.key).cmp(&(b.start, &b.record.key)));
    HostSpans {
        spans,
        boots,
        host_interval,
    }
}

/// Spans of one boot's segments (given time-ordered), `interval` the boot's
/// cadence. A segment ends by the boot's next start at the latest; before
/// that at its upload when that is plausible (a segment is uploaded once
/// closed: within twice the cadence and `UPLOAD_SLACK_SECS`), else after
/// one interval. An end from the cadence alone is a guess.
fn segment_spans<'a>(segs: &[&'a SegmentRecord], interval: u64) -> Vec<Span<'a>> {
    let mut spans = Vec::with_capacity(segs.len());
    // Walk backwards so the next later start is known without rescanning.
    let mut next_start: Option<u64> = None;
    let mut following: Option<u64> = None;
    for record in segs.iter().rev() {
        let start = record.parts.epoch_secs;
        if following.is_some_and(|f| f > start) {
            next_start = following;
        }
        following = Some(start);
        let latest_upload = start.saturating_add(2 * interval).saturating_add(UPLOAD_SLACK_SECS);
        let uploaded = record.uploaded_secs.filter(|&u| u > start && u <= latest_upload);
        let by_cadence = start.saturating_add(interval);
        let (end, guessed) = match (uploaded, next_start) {
            (Some(u), next) => (next.map_or(u, |n| u.min(n)), false),
            (None, Some(next)) if next <= by_cadence => (next, false),
            (None, _) => (by_cadence, true),
        };
        let end = end.clamp(start + 1, start.saturating_add(MAX_SEGMENT_SECS));
        spans.push(Span {
            record,
            start,
            end,
            guessed,
        });
    }
    spans.reverse();
    spans
}

#[cfg(test)]
mod tests {
    use super::super::tests::{T0, catalog_of};
    use super::*;

    fn spans_of(segs: &[super::super::tests::Seg<'_>]) -> Vec<(u64, u64, bool)> {
        let catalog = catalog_of(segs);
        let records: Vec<&SegmentRecord> = catalog.segments().iter().collect();
        host_spans(&records)
            .spans
            .iter()
            .map(|s| (s.start, s.end, s.guessed))
            .collect()
    }

    #[test]
    fn a_segment_ends_at_its_upload_or_the_next_start_or_after_its_cadence() {
        let spans = spans_of(&[
            // Uploaded 50 s after its start: ends then.
            ("h", "aaaa", T0, 0, 10, Some(T0 + 50)),
            // Uploaded after the next one started: clipped at that start.
            ("h", "aaaa", T0 + 60, 1, 10, Some(T0 + 130)),
            ("h", "aaaa", T0 + 120, 2, 10, None),
            // Index 3 lost; the last one's upload is a day late (a copy): its
            // end is a guess, one interval (60 s, from consecutive indices).
            ("h", "aaaa", T0 + 240, 4, 10, Some(T0 + 86_400)),
        ]);
        assert_eq!(
            spans,
            [
                (T0, T0 + 50, false),
                (T0 + 60, T0 + 120, false),
                (T0 + 120, T0 + 180, true),
                (T0 + 240, T0 + 300, true),
            ]
        );
    }

    #[test]
    fn without_a_cadence_a_segment_lasts_the_default_and_never_past_the_cap() {
        assert_eq!(
            spans_of(&[("h", "aaaa", T0, 0, 10, None)]),
            [(T0, T0 + DEFAULT_SEGMENT_SECS, true)]
        );
        // Two segments two hours apart by consecutive indices: the cadence is
        // 7,200 s, and a span stops at MAX_SEGMENT_SECS.
        let spans = spans_of(&[("h", "aaaa", T0, 0, 10, None), ("h", "aaaa", T0 + 7200, 1, 10, None)]);
        assert_eq!(spans[1], (T0 + 7200, T0 + 7200 + MAX_SEGMENT_SECS, true));
        assert_eq!(median([5, 1, 9, 3].into_iter()), Some(3));
        assert_eq!(median(std::iter::empty()), None);
    }
}
