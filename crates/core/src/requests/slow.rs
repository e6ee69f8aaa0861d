//! Slow versus typical: the instances of a span over a threshold (a
//! percentile of their own durations, or a duration) against the rest.
//! Which field values are over-represented among the slow ones, which child
//! span and which part of the time split hold their extra time, which
//! blocking call, and the profiles of both sides for a differential
//! flamegraph.

use super::explore::{EXEMPLARS, Instance, children_of, keep_slowest};
use super::kept::Details;
use super::profiles::profiles_of;
use super::query::{Hit, Query};
use super::split::Split;
use crate::hashing::FastMap;
use crate::hdr::Tally;
use crate::profile::calls;
use crate::report::{BlockingCall, Profiles, SampleKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Where slow begins.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Threshold {
    /// Over this percentile of the instances' durations (95, 99, 99.9).
    Percentile(f64),
    /// Over this many ns.
    Duration(u64),
}

impl Threshold {
    /// `p95`, `p99`, `p99.9`, or a duration (`30ms`, `1.5s`, `800us`, `120ns`).
    pub fn parse(text: &str) -> Result<Threshold, String> {
        let t = text.trim();
        if let Some(p) = t.strip_prefix('p').and_then(|p| p.parse::<f64>().ok()) {
            return match p > 0.0 && p < 100.0 {
                true => Ok(Threshold::Percentile(p)),
                false => Err(format!("a percentile between 0 and 100: {text:?}")),
            };
        }
        let units = [("ns", 1.0), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9)];
        for (unit, ns) in units {
            if let Some(n) = t.strip_suffix(unit).and_then(|n| n.trim().parse::<f64>().ok())
                && n.is_finite()
                && n >= 0.0
            {
                return Ok(Threshold::Duration((n * ns).round() as u64));
            }
        }
        Err(format!("not a percentile (p99) or a duration (30ms): {text:?}"))
    }

    pub fn label(&self) -> String {
        match self {
            Threshold::Percentile(p) => format!("p{p}"),
            Threshold::Duration(ns) => crate::fmt::fmt_dur(*ns as f64),
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SlowVsTypical {
    pub name: String,
    /// Slow: longer than this.
    pub threshold_ns: u64,
    pub slow: u64,
    pub typical: u64,
    pub slow_mean_ns: u64,
    pub typical_mean_ns: u64,
    /// Field values by lift, the most over-represented first.
    pub fields: Vec<Lift>,
    /// Child spans by the extra time they hold per slow instance, most first.
    pub children: Vec<Extra>,
    /// The split's parts by the extra time they hold per slow instance, most first.
    pub parts: Vec<Extra>,
    /// The calls that blocked inside the slow instances, longest first.
    pub blocking: Vec<BlockingCall>,
    /// The slowest instances.
    pub exemplars: Vec<Instance>,
    #[serde(skip)]
    pub slow_profiles: Arc<Profiles>,
    #[serde(skip)]
    pub typical_profiles: Arc<Profiles>,
}

/// A field value's share among the slow instances against the typical ones.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lift {
    pub field: String,
    pub value: String,
    pub slow: u64,
    pub typical: u64,
    /// (slow share) / (typical share); infinite when no typical instance has it.
    pub lift: f64,
}

/// Mean ns per instance on each side, and the slow side's extra.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Extra {
    pub name: String,
    pub slow_mean_ns: u64,
    pub typical_mean_ns: u64,
}

impl Extra {
    pub fn extra_ns(&self) -> i64 {
        self.slow_mean_ns as i64 - self.typical_mean_ns as i64
    }
}

/// Field values listed.
const LIFTS: usize = 12;

/// Slow against typical for the instances of `query` (which names one span).
pub fn slow_vs_typical(details: &Details, query: &Query, threshold: Threshold) -> Option<SlowVsTypical> {
    let name = query.name.clone()?;
    let hits = query.hits(details);
    if hits.is_empty() {
        return None;
    }
    let dur = |h: &Hit| details.files[h.file as usize].spans[h.span as usize].dur;
    let threshold_ns = match threshold {
        Threshold::Duration(ns) => ns,
        Threshold::Percentile(p) => {
            let mut t = Tally::default();
            hits.iter().for_each(|h| t.record(dur(h).max(1)));
            t.into_histogram().percentile(p)
        }
    };
    let (slow, typical): (Vec<Hit>, Vec<Hit>) = hits.iter().partition(|h| dur(h) > threshold_ns);
    let side = |hits: &[Hit]| Side::of(details, hits);
    let (s, t) = (side(&slow), side(&typical));
    let mean = |total: u64, n: usize| total.checked_div(n as u64).unwrap_or(0);
    let min_support = (slow.len() as u64).div_ceil(20).max(2);
    let mut fields: Vec<Lift> = s
        .fields
        .iter()
        .map(|(kv, &n)| {
            let in_typical = t.fields.get(kv).copied().unwrap_or(0);
            let share = |n: u64, of: usize| n as f64 / of.max(1) as f64;
            Lift {
                field: kv.0.clone(),
                value: kv.1.clone(),
                slow: n,
                typical: in_typical,
                lift: match in_typical {
                    0 => f64::INFINITY,
                    _ => share(n, slow.len()) / share(in_typical, typical.len()),
                },
            }
        })
        // Enough slow instances to mean something, of a field that is not
        // an identifier (a request id is unique to its instance).
        .filter(|l| l.lift > 1.0 && l.slow >= min_support && !s.identifiers.contains(&l.field))
        .collect();
    fields.sort_by(|a, b| {
        b.lift
            .total_cmp(&a.lift)
            .then(b.slow.cmp(&a.slow))
            .then_with(|| (&a.field, &a.value).cmp(&(&b.field, &b.value)))
    });
    fields.truncate(LIFTS);
    let extras = |a: &BTreeMap<String, u64>, b: &BTreeMap<String, u64>| {
        let mut v: Vec<Extra> = a
            .keys()
            .chain(b.keys())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .map(|k| Extra {
                name: k.clone(),
                slow_mean_ns: mean(a.get(k).copied().unwrap_or(0), slow.len()),
                typical_mean_ns: mean(b.get(k).copied().unwrap_or(0), typical.len()),
            })
            .collect();
        v.sort_by(|x, y| y.extra_ns().cmp(&x.extra_ns()).then(x.name.cmp(&y.name)));
        v
    };
    let children = extras(&s.children, &t.children);
    let parts = extras(&s.parts, &t.parts);
    let slow_profiles = profiles_of(details, &slow);
    let blocking = {
        let resolved: Vec<(u64, Vec<crate::report::Frame>)> = slow_profiles
            .stacks(SampleKind::Blocking)
            .map(|w| {
                (
                    w.weight,
                    w.stack
                        .iter()
                        .map(|&i| slow_profiles.frames[i as usize].clone())
                        .collect(),
                )
            })
            .collect();
        let blocked = blocked_ns(details, &slow);
        calls::by_call(resolved.iter().map(|(n, frames)| {
            let ns = blocked.get(frames.as_slice()).copied().unwrap_or(0);
            (*n, ns, &frames[..], None)
        }))
    };
    let mut slowest = Vec::new();
    for h in &slow {
        keep_slowest(&mut slowest, (dur(h), h.file, h.span), EXEMPLARS);
    }
    Some(SlowVsTypical {
        name,
        threshold_ns,
        slow: slow.len() as u64,
        typical: typical.len() as u64,
        slow_mean_ns: mean(s.total, slow.len()),
        typical_mean_ns: mean(t.total, typical.len()),
        fields,
        children,
        parts,
        blocking,
        exemplars: slowest
            .iter()
            .map(|&(_, f, i)| {
                let d = &details.files[f as usize];
                Instance::of(d, &d.spans[i as usize])
            })
            .collect(),
        typical_profiles: Arc::new(profiles_of(details, &typical)),
        slow_profiles: Arc::new(slow_profiles),
    })
}

/// Blocked ns by resolved stack over the blocking samples inside some instances.
fn blocked_ns(details: &Details, hits: &[Hit]) -> FastMap<Vec<crate::report::Frame>, u64> {
    let mut out: FastMap<Vec<crate::report::Frame>, u64> = FastMap::default();
    let mut at = 0;
    while at < hits.len() {
        let file = hits[at].file;
        let n = hits[at..].iter().take_while(|h| h.file == file).count();
        let d = &details.files[file as usize];
        let (samples, _) = super::profiles::inside(d, hits[at..at + n].iter().map(|h| h.span as usize));
        for i in samples {
            let s = &d.samples[i];
            if s.kind != super::detail::SampleKind::Blocking {
                continue;
            }
            let stack: Vec<crate::report::Frame> = d
                .stacks
                .get(s.stack)
                .iter()
                .filter_map(|&id| d.frames.get(id).cloned())
                .collect();
            let e = out.entry(stack).or_default();
            *e = e.saturating_add(s.blocked_ns);
        }
        at += n;
    }
    out
}

/// What one side adds up to.
#[derive(Default)]
struct Side {
    total: u64,
    fields: BTreeMap<(String, String), u64>,
    /// Fields with a value for about every instance: identifiers.
    identifiers: std::collections::BTreeSet<String>,
    children: BTreeMap<String, u64>,
    parts: BTreeMap<String, u64>,
}

impl Side {
    fn of(details: &Details, hits: &[Hit]) -> Side {
        let mut side = Side::default();
        // Counted by each file's own text ids first, then named once per distinct id.
        let mut fields: FastMap<(u32, u32, u32), u64> = FastMap::default();
        let mut children: FastMap<(u32, u32), u64> = FastMap::default();
        let mut parts = [0u64; 4];
        let mut unattributed = None::<u64>;
        let mut kids_of: FastMap<u32, FastMap<u32, Vec<u32>>> = FastMap::default();
        for h in hits {
            let d = &details.files[h.file as usize];
            let s = &d.spans[h.span as usize];
            side.total = side.total.saturating_add(s.dur);
            for &(k, v) in d.fields_of(s) {
                *fields.entry((h.file, k, v)).or_default() += 1;
            }
            let kids = kids_of.entry(h.file).or_insert_with(|| children_of(d));
            for &c in kids.get(&h.span).map_or(&[][..], Vec::as_slice) {
                let c = &d.spans[c as usize];
                let e = children.entry((h.file, c.name)).or_default();
                *e = e.saturating_add(c.dur);
            }
            match s.split {
                Some(split) => {
                    for (sum, (_, ns)) in parts.iter_mut().zip(split.parts()) {
                        *sum = sum.saturating_add(ns);
                    }
                }
                None => unattributed = Some(unattributed.unwrap_or(0).saturating_add(s.dur)),
            }
        }
        let text = |file: u32, id: u32| details.files[file as usize].text(id).to_string();
        for ((file, k, v), n) in fields {
            *side.fields.entry((text(file, k), text(file, v))).or_default() += n;
        }
        for ((file, name), ns) in children {
            let e = side.children.entry(text(file, name)).or_default();
            *e = e.saturating_add(ns);
        }
        for (sum, (part, _)) in parts.into_iter().zip(Split::default().parts()) {
            side.parts.insert(part.label().to_string(), sum);
        }
        if let Some(ns) = unattributed {
            side.parts.insert("unattributed".to_string(), ns);
        }
        let mut distinct: BTreeMap<&str, u64> = BTreeMap::new();
        for (k, _) in side.fields.keys() {
            *distinct.entry(k).or_default() += 1;
        }
        let n = hits.len() as u64;
        side.identifiers = distinct
            .into_iter()
            .filter(|&(_, values)| n >= 10 && values * 2 > n)
            .map(|(k, _)| k.to_string())
            .collect();
        side
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_read_as_percentiles_or_durations() {
        assert_eq!(Threshold::parse("p99"), Ok(Threshold::Percentile(99.0)));
        assert_eq!(Threshold::parse("p99.9"), Ok(Threshold::Percentile(99.9)));
        assert_eq!(Threshold::parse("30ms"), Ok(Threshold::Duration(30_000_000)));
        assert_eq!(Threshold::parse("1.5s"), Ok(Threshold::Duration(1_500_000_000)));
        assert_eq!(Threshold::parse("800us"), Ok(Threshold::Duration(800_000)));
        assert!(Threshold::parse("p100").is_err());
        assert!(Threshold::parse("fast").is_err());
        assert!(Threshold::parse("-3ms").is_err());
    }
}
