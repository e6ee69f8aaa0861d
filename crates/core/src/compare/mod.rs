//! Two selections side by side (before/after a deploy, two hosts, two
//! windows): their key figures with deltas ranked by how much they moved,
//! the findings only one side has, and the frames whose share of the
//! samples grew or shrank most (the differential flamegraph's headline;
//! `profile::diff_flamegraph` draws it).

mod figures;
pub mod text;

pub use figures::{Figure, Unit, figures, span_names};

use crate::hashing::FastIndexMap;
use crate::profile::flame::Order;
use crate::profile::labels::Label;
use crate::profile::{diff_flamegraph, origin::Origin};
use crate::report::{Finding, Report, SampleKind};
use serde::{Deserialize, Serialize};

/// Frames listed per direction in `movers`.
pub const MOVERS: usize = 10;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    pub a: Side,
    pub b: Side,
    /// Most changed first.
    pub figures: Vec<Delta>,
    pub findings_only_in_b: Vec<Finding>,
    pub findings_only_in_a: Vec<Finding>,
    /// On-CPU frames (self samples) whose share changed most, grown first.
    pub movers: Vec<Mover>,
    /// The samples `movers` weighs.
    pub movers_kind: SampleKind,
}

/// What one side is.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Side {
    pub label: String,
    pub files: usize,
    pub duration_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Delta {
    pub name: String,
    pub unit: Unit,
    pub a: Option<f64>,
    pub b: Option<f64>,
    /// `(b - a) / a`, when both are known and `a` is not 0.
    pub relative: Option<f64>,
    /// How far apart they are: `|ln((b + e) / (a + e))|`, with `e` 1% of
    /// the larger or the unit's noise (`Unit::noise`), so tiny absolute
    /// moves near zero do not top the list. A figure only one side has
    /// ranks first.
    pub significance: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Mover {
    pub frame: String,
    pub origin: Origin,
    /// Share of the side's samples with this frame on top (self), 0..1.
    pub a_share: f64,
    pub b_share: f64,
}

pub fn compare(a: &Report, b: &Report) -> Comparison {
    let spans = span_names(b);
    let mut figures: Vec<Delta> = figures(a, &spans)
        .into_iter()
        .zip(figures(b, &spans))
        .map(|(fa, fb)| delta(fa, fb))
        .collect();
    // Stable: equal moves keep the fixed order.
    figures.sort_by(|x, y| y.significance.total_cmp(&x.significance));
    let only = |x: &Report, y: &Report| -> Vec<Finding> {
        x.red_flags
            .iter()
            .filter(|f| !y.red_flags.iter().any(|g| g.check == f.check))
            .cloned()
            .collect()
    };
    let kind = [SampleKind::OnCpu, SampleKind::Blocking]
        .into_iter()
        .find(|&k| a.profiles.total(k) > 0 && b.profiles.total(k) > 0)
        .unwrap_or(SampleKind::OnCpu);
    Comparison {
        a: side(a),
        b: side(b),
        figures,
        findings_only_in_b: only(b, a),
        findings_only_in_a: only(a, b),
        movers: movers(a, b, kind),
        movers_kind: kind,
    }
}

fn side(r: &Report) -> Side {
    Side {
        label: r.label.clone(),
        files: r.files.len(),
        duration_ms: r.summary.duration_ms,
    }
}

fn delta(a: Figure, b: Figure) -> Delta {
    let significance = match (a.value, b.value) {
        (Some(x), Some(y)) => {
            let e = (x.abs().max(y.abs()) * 0.01).max(b.unit.noise());
            ((y.abs() + e) / (x.abs() + e)).ln().abs()
        }
        (None, None) => 0.0,
        _ => f64::INFINITY,
    };
    Delta {
        relative: a
            .value
            .zip(b.value)
            .filter(|&(x, _)| x != 0.0)
            .map(|(x, y)| (y - x) / x),
        name: b.name,
        unit: b.unit,
        a: a.value,
        b: b.value,
        significance,
    }
}

/// Self shares by frame text on both sides (from the differential graph, so
/// both sides' frames are labelled alike), largest gains then largest losses.
fn movers(a: &Report, b: &Report, kind: SampleKind) -> Vec<Mover> {
    let g = diff_flamegraph(&a.profiles, &b.profiles, kind, Order::Name, Default::default());
    let (ta, tb) = (g.node(0).baseline as f64, g.total() as f64);
    if ta == 0.0 || tb == 0.0 {
        return Vec::new();
    }
    // Self weight of a node: its total less its children's.
    let mut by_label: FastIndexMap<&Label, (u64, u64)> = FastIndexMap::default();
    for (i, n) in g.nodes().iter().enumerate().skip(1) {
        let (mut ca, mut cb) = (0, 0);
        let mut c = i as u32 + 1;
        while c < n.end {
            let child = g.node(c);
            ca += child.baseline;
            cb += child.total;
            c = child.end;
        }
        let e = by_label.entry(g.label(i as u32)).or_default();
        e.0 += n.baseline - ca;
        e.1 += n.total - cb;
    }
    let mut all: Vec<Mover> = by_label
        .into_iter()
        .map(|(l, (sa, sb))| Mover {
            frame: l.text.to_string(),
            origin: l.origin,
            a_share: sa as f64 / ta,
            b_share: sb as f64 / tb,
        })
        .filter(|m| m.a_share != m.b_share)
        .collect();
    all.sort_by(|x, y| (y.b_share - y.a_share).total_cmp(&(x.b_share - x.a_share)));
    let grown = all.iter().filter(|m| m.b_share > m.a_share).take(MOVERS).cloned();
    let shrunk = all.iter().rev().filter(|m| m.b_share < m.a_share).take(MOVERS).cloned();
    grown.chain(shrunk).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig(value: Option<f64>) -> Figure {
        Figure {
            name: "x".into(),
            unit: Unit::Nanos,
            value,
        }
    }

    #[test]
    fn deltas_rank_by_ratio() {
        let d = delta(fig(Some(100.0)), fig(Some(300.0)));
        assert_eq!(d.relative, Some(2.0));
        let small = delta(fig(Some(100.0)), fig(Some(110.0)));
        assert!(d.significance > small.significance);
        // Near zero, a move of one does not outrank a tripling.
        let tiny = delta(fig(Some(0.0)), fig(Some(1e-9)));
        assert!(tiny.significance < d.significance);
        assert_eq!(delta(fig(None), fig(Some(1.0))).significance, f64::INFINITY);
        assert_eq!(delta(fig(None), fig(None)).significance, 0.0);
        assert_eq!(delta(fig(Some(0.0)), fig(Some(5.0))).relative, None);
    }
}
