//! Comparing two real recordings with known differences: blocking.bin is
//! healthy.bin's workload with a synchronous lookup that blocks its worker.

mod common;
use common::*;
use d9lens_core::analysis::Options;
use d9lens_core::compare::{compare, text};
use d9lens_core::profile::diff_flamegraph;
use d9lens_core::profile::flame::Order;
use d9lens_core::report::SampleKind;

#[test]
fn blocking_against_healthy() {
    let a = analyze(&["healthy.bin"], &Options::default(), None);
    let b = analyze(&["blocking.bin"], &Options::default(), None);
    let c = compare(&a, &b);
    let fig = |name: &str| {
        c.figures
            .iter()
            .find(|d| d.name == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    // The blocking lookup's span exists only in B, so it ranks first.
    assert_eq!(c.figures[0].name, "span legacy_sync_lookup p99");
    assert_eq!(c.figures[0].a, None);
    // Long polls and the worst poll grew several times over.
    assert!(fig("poll max").relative.unwrap() > 5.0);
    assert!(fig("long polls (> 1 ms)").relative.unwrap() > 3.0);
    assert_eq!(fig("poll max").b, Some(b.all_polls.max_ns as f64));
    // Ranked: significance never increases down the list.
    assert!(c.figures.windows(2).all(|w| w[0].significance >= w[1].significance));
    assert!(c.findings_only_in_b.iter().any(|f| f.check == "long-poll"));
    assert!(
        c.findings_only_in_b
            .iter()
            .all(|f| !a.red_flags.iter().any(|g| g.check == f.check))
    );
    assert!(c.findings_only_in_a.iter().any(|f| f.check == "sched-delay"));
    // Movers: gains first, then losses, each side's shares from its own samples.
    let grown = c.movers.iter().take_while(|m| m.b_share > m.a_share).count();
    assert!(grown > 0 && grown < c.movers.len());
    assert!(c.movers[grown..].iter().all(|m| m.b_share < m.a_share));
    let text = text::render(&c);
    assert!(
        text.contains("FINDINGS ONLY IN B\n  [long-poll] Poll of 50.3ms"),
        "{text}"
    );

    // The differential flamegraph: laid out as B, each node knowing A's share.
    let g = diff_flamegraph(
        &a.profiles,
        &b.profiles,
        SampleKind::Blocking,
        Order::Name,
        Default::default(),
    );
    assert_eq!(g.total(), b.blocking.in_poll);
    assert_eq!(g.node(0).baseline, a.blocking.in_poll);
    let lookup = (0..g.nodes().len() as u32)
        .find(|&i| g.label(i).text.starts_with("legacy_sync_lookup"))
        .unwrap();
    let change = g.change(lookup).unwrap();
    assert_eq!(change.before, 0.0);
    assert!((change.after - 36.0 / 143.0).abs() < 1e-9);
}

#[test]
fn a_selection_against_itself_changes_nothing() {
    let a = analyze(&["demo-trace.bin"], &Options::default(), None);
    let c = compare(&a, &a);
    assert!(
        c.figures
            .iter()
            .all(|d| d.significance == 0.0 && d.relative.is_none_or(|r| r == 0.0))
    );
    assert!(c.findings_only_in_a.is_empty() && c.findings_only_in_b.is_empty());
    assert!(c.movers.is_empty());
}
