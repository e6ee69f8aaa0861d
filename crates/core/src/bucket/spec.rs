//! A choice of segments in terms that survive a new listing, so that a shared
//! link (or the worker holding the catalog) can name it: a host and a window,
//! a fleet overview, an even sample, or one key. [`SelectionSpec::resolve`]
//! turns it into segments of a catalog with the window rule of
//! `d9lens s3 analyze`: a segment belongs to a window when its span overlaps it.

use super::catalog::{Catalog, Selection, TimeWindow};
use super::layout::{ParsedKey, parse_key};
use super::sample::Coverage;
use serde::{Deserialize, Serialize};

/// Windows are `[from, to)` in Unix seconds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SelectionSpec {
    /// One host's segments (`service` as decoded from the key).
    #[serde(rename_all = "camelCase")]
    Host {
        service: String,
        instance: String,
        from: u64,
        to: u64,
    },
    /// One segment per host, nearest the window's middle, optionally of one service.
    #[serde(rename_all = "camelCase")]
    Fleet {
        service: Option<String>,
        from: u64,
        to: u64,
    },
    /// `n` segments spread evenly over the window, optionally of one service.
    #[serde(rename_all = "camelCase")]
    Sample {
        service: Option<String>,
        n: usize,
        from: u64,
        to: u64,
    },
    /// One segment by key.
    #[serde(rename_all = "camelCase")]
    Single { key: String },
}

impl SelectionSpec {
    /// What to list to resolve this on a bucket not listed yet (a shared
    /// link): its window, or the minute of its one key; all of it when it
    /// names none.
    pub fn window(&self) -> Option<TimeWindow> {
        match self {
            SelectionSpec::Host { from, to, .. }
            | SelectionSpec::Fleet { from, to, .. }
            | SelectionSpec::Sample { from, to, .. } => TimeWindow::new(*from, *to),
            SelectionSpec::Single { key } => match parse_key(key, "") {
                ParsedKey::Segment(s) => TimeWindow::new(s.epoch_secs, s.epoch_secs + 1),
                ParsedKey::Other { .. } => None,
            },
        }
    }

    /// The segments this stands for in `catalog` (none for an empty window or an unknown key).
    pub fn resolve(&self, catalog: &Catalog) -> Selection {
        self.resolve_covered(catalog).0
    }

    /// [`SelectionSpec::resolve`], and for a sample what it covers of the window.
    pub fn resolve_covered(&self, catalog: &Catalog) -> (Selection, Option<Coverage>) {
        let window = |from: u64, to: u64| TimeWindow::new(from, to);
        let of_service = |service: &Option<String>, s: &str| service.as_deref().is_none_or(|v| v == s);
        match self {
            SelectionSpec::Host {
                service,
                instance,
                from,
                to,
            } => (
                window(*from, *to)
                    .map(|w| {
                        catalog
                            .segments_overlapping(w, |s| s.parts.service == *service && s.parts.instance == *instance)
                    })
                    .unwrap_or_default(),
                None,
            ),
            SelectionSpec::Fleet { service, from, to } => (
                window(*from, *to)
                    .map(|w| catalog.fleet_overview(w, service.as_deref()))
                    .unwrap_or_default(),
                None,
            ),
            SelectionSpec::Sample { service, n, from, to } => window(*from, *to)
                .map(|w| {
                    let (sample, coverage) = catalog
                        .segments_overlapping(w, |s| of_service(service, &s.parts.service))
                        .sample_covered(*n);
                    (sample, Some(coverage))
                })
                .unwrap_or_default(),
            SelectionSpec::Single { key } => (
                Selection {
                    segments: catalog.segment(key).into_iter().collect(),
                },
                None,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_names_the_window_to_list() {
        let host = SelectionSpec::Host {
            service: "api".into(),
            instance: "h".into(),
            from: 100,
            to: 200,
        };
        assert_eq!(host.window(), TimeWindow::new(100, 200));
        let key = "version=1/date=2026-11-30/service=api/time=1405/instance=h/boot=abcd/1796047535-0.bin.gz";
        let single = SelectionSpec::Single { key: key.into() };
        assert_eq!(single.window(), TimeWindow::new(1_796_047_535, 1_796_047_536));
        let other = SelectionSpec::Single {
            key: "notes.txt".into(),
        };
        assert_eq!(other.window(), None);
    }
}
