//! Finding hosts, boots and keys of a listed bucket by a piece of their
//! names (`ip-10-0-3`, a boot id, a segment's file name), each with the
//! selection that picks it: a search box over thousands of hosts, where a
//! list cannot be scrolled.

use super::catalog::{Catalog, SegmentRecord};
use super::spec::SelectionSpec;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Findings given at most; the rest are counted.
pub const MAX_FOUND: usize = 50;

/// One host, boot or key whose name holds the text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Found {
    pub what: FoundKind,
    /// What the person reads: `checkout-api / ip-10-0-1-23`, a boot, a key.
    pub label: String,
    pub segments: usize,
    /// Picks it.
    pub spec: SelectionSpec,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FoundKind {
    Host,
    Boot,
    Key,
}

/// The hosts, then boots, then keys holding `text` (case-insensitive), at
/// most [`MAX_FOUND`], and how many more there are. A key is found by what
/// its host and boot do not already say (its file name, its partitions).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Findings {
    pub found: Vec<Found>,
    pub more: usize,
}

pub fn find(catalog: &Catalog, text: &str) -> Findings {
    let needle = text.trim().to_lowercase();
    if needle.is_empty() {
        return Findings::default();
    }
    let holds = |s: &str| s.to_lowercase().contains(&needle);
    // (service, instance[, boot]) → (segments, first start, last start).
    let mut hosts: BTreeMap<(&str, &str), (usize, u64, u64)> = BTreeMap::new();
    let mut boots: BTreeMap<(&str, &str, &str), (usize, u64, u64)> = BTreeMap::new();
    let mut keys: Vec<&SegmentRecord> = Vec::new();
    let add =
        |entry: &mut (usize, u64, u64), start: u64| *entry = (entry.0 + 1, entry.1.min(start), entry.2.max(start));
    let unseen = (0, u64::MAX, 0);
    for s in catalog.segments() {
        let p = &s.parts;
        let (host, boot) = (holds(&p.instance), p.boot.as_deref().is_some_and(holds));
        if host {
            add(hosts.entry((&p.service, &p.instance)).or_insert(unseen), p.epoch_secs);
        }
        if let Some(b) = p.boot.as_deref().filter(|_| boot) {
            add(
                boots.entry((&p.service, &p.instance, b)).or_insert(unseen),
                p.epoch_secs,
            );
        }
        if !host && !boot && holds(&s.key) {
            keys.push(s);
        }
    }
    // A host or a boot is picked as its host over the boot's (or all) segments.
    let pick = |what, label, (n, first, last): (usize, u64, u64), service: &str, instance: &str| Found {
        what,
        label,
        segments: n,
        spec: SelectionSpec::Host {
            service: service.to_owned(),
            instance: instance.to_owned(),
            from: first,
            to: u64::saturating_add(last, 1),
        },
    };
    let hosts = hosts.into_iter().map(|((service, instance), seen)| {
        pick(
            FoundKind::Host,
            format!("{service} / {instance}"),
            seen,
            service,
            instance,
        )
    });
    let boots = boots.into_iter().map(|((service, instance, boot), seen)| {
        let label = format!("{service} / {instance} / boot {boot}");
        pick(FoundKind::Boot, label, seen, service, instance)
    });
    let keys = keys.into_iter().map(|s| Found {
        what: FoundKind::Key,
        label: s.key.clone(),
        segments: 1,
        spec: SelectionSpec::Single { key: s.key.clone() },
    });
    let mut all = hosts.chain(boots).chain(keys);
    let found: Vec<Found> = all.by_ref().take(MAX_FOUND).collect();
    Findings {
        found,
        more: all.count(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::s3::ObjectEntry;

    fn catalog(keys: &[&str]) -> Catalog {
        let mut c = Catalog::new("");
        c.add_page(keys.iter().map(|k| ObjectEntry {
            key: (*k).to_owned(),
            size: 1000,
            etag: None,
            last_modified: None,
        }));
        c
    }

    const A: &str =
        "version=1/date=2026-11-30/service=api/time=1405/instance=ip-10-0-1-23/boot=qghy-22982/1796047535-0.bin.gz";
    const B: &str =
        "version=1/date=2026-11-30/service=api/time=1406/instance=ip-10-0-1-23/boot=qghy-22982/1796047565-1.bin.gz";
    const C: &str =
        "version=1/date=2026-11-30/service=api/time=1405/instance=ip-10-0-2-14/boot=mioh-24043/1796047538-0.bin.gz";

    #[test]
    fn hosts_then_boots_then_keys_each_with_its_selection() {
        let c = catalog(&[A, B, C]);
        let f = find(&c, "IP-10-0-1");
        assert_eq!(f.found.len(), 1);
        assert_eq!(f.found[0].label, "api / ip-10-0-1-23");
        assert_eq!(f.found[0].segments, 2);
        assert_eq!(
            c.host_segments(
                &crate::bucket::catalog::HostKey::new("api", "ip-10-0-1-23"),
                crate::bucket::catalog::TimeWindow::ALL
            )
            .len(),
            f.found[0].spec.resolve(&c).len()
        );
        let f = find(&c, "mioh");
        assert_eq!((f.found[0].what, f.found[0].segments), (FoundKind::Boot, 1));
        assert_eq!(f.found[0].spec.resolve(&c).keys().collect::<Vec<_>>(), [C]);
        // A file name: the key itself.
        let f = find(&c, "1796047565-1");
        assert_eq!(f.found[0].what, FoundKind::Key);
        assert_eq!(f.found[0].spec, SelectionSpec::Single { key: B.into() });
        assert_eq!(find(&c, "  ").found, []);
        assert_eq!(find(&c, "nowhere").found, []);
    }

    #[test]
    fn findings_are_bounded() {
        let keys: Vec<String> = (0..80)
            .map(|i| {
                format!(
                    "version=1/date=2026-11-30/service=api/time=1405/instance=host-{i}/boot=abcd/1796047535-0.bin.gz"
                )
            })
            .collect();
        let c = catalog(&keys.iter().map(String::as_str).collect::<Vec<_>>());
        let f = find(&c, "host-");
        assert_eq!((f.found.len(), f.more), (MAX_FOUND, 30));
    }
}
