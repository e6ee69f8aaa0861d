//! Flamegraphs, folded stacks and blocking calls on the real fixtures: every
//! profile weighs exactly what the report counts.

mod common;
use common::*;
use d9lens_core::analysis::Options;
use d9lens_core::frames::format_frame;
use d9lens_core::frames::is_kernel_address;
use d9lens_core::profile::flame::Order;
use d9lens_core::profile::flamegraph;
use d9lens_core::profile::folded::write_folded;
use d9lens_core::profile::labels::KERNEL;
use d9lens_core::report::{Report, SampleKind};

fn expected(r: &Report, kind: SampleKind) -> u64 {
    match kind {
        SampleKind::OnCpu => r.summary.on_cpu_sample_count,
        SampleKind::Blocking => r.blocking.in_poll,
        SampleKind::Idle => r.blocking.idle_park,
        SampleKind::OffCpu => r.summary.off_cpu_sample_count,
        SampleKind::Alloc => r.memory.as_ref().map_or(0, |m| m.total_alloc_bytes),
        SampleKind::Waits => r.summary.task_dump_idle_ns,
    }
}

#[test]
fn every_profile_weighs_what_the_report_counts() {
    let mut files: Vec<Vec<&str>> = SINGLE_FILES.iter().map(|f| vec![*f]).collect();
    files.push(ROTATION.to_vec());
    for rels in files {
        let r = analyze(&rels, &Options::default(), None);
        for kind in SampleKind::ALL {
            let want = expected(&r, kind);
            for order in [Order::Name, Order::Heaviest] {
                let g = flamegraph(&r.profiles, kind, order, Default::default());
                assert_eq!(g.total(), want, "{rels:?} {kind:?} flamegraph");
                // Children never weigh more than their parent.
                for (i, n) in g.nodes().iter().enumerate() {
                    let children: u64 = (i as u32 + 1..n.end)
                        .filter(|&c| g.node(c).parent == i as u32)
                        .map(|c| g.node(c).total)
                        .sum();
                    assert_eq!(children + n.self_weight, n.total, "{rels:?} {kind:?} node {i}");
                }
            }
            let mut out = Vec::new();
            write_folded(&mut out, &r.profiles, kind).unwrap();
            let text = String::from_utf8(out).unwrap();
            let sum: u64 = text
                .lines()
                .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
                .sum();
            assert_eq!(sum, want, "{rels:?} {kind:?} folded");
        }
    }
}

#[test]
fn blocking_calls_are_named_by_the_application_frame() {
    let r = analyze(&["blocking.bin"], &Options::default(), None);
    let b = &r.blocking;
    assert_eq!(b.in_poll_calls.iter().map(|c| c.count).sum::<u64>(), b.in_poll);
    // The sleeps lead: fewer samples than the spawn site's brief futex
    // switches (83), but each held its worker for 20-50 ms.
    let lookup = &b.in_poll_calls[0];
    assert_eq!(
        format_frame(&lookup.frame.symbol, lookup.frame.location.as_deref()),
        "legacy_sync_lookup workload.rs:108"
    );
    assert_eq!(lookup.count, 36);
    assert!(lookup.moment.is_some());
    assert!(
        (36 * 20_000_000..=36 * 50_000_000).contains(&lookup.blocked_ns),
        "{}",
        lookup.blocked_ns
    );
    assert!(
        b.in_poll_calls[1..]
            .iter()
            .all(|c| c.blocked_ns < lookup.blocked_ns / 10)
    );
    // The flamegraph's search finds the same share.
    let g = flamegraph(&r.profiles, SampleKind::Blocking, Order::Name, Default::default());
    assert_eq!(g.search("legacy_sync_lookup").weight, 36);

    // dial9's demo: every stack ends in kernel addresses; none names a group,
    // and the flamegraph shows them as one frame with its addresses.
    let r = analyze(&["demo-trace.bin"], &Options::default(), None);
    let calls = &r.blocking.in_poll_calls;
    assert!(!calls.is_empty());
    assert!(calls.iter().all(|c| !is_kernel_address(&c.frame.symbol)));
    assert!(calls.windows(2).all(|w| w[0].blocked_ns >= w[1].blocked_ns));
    assert!(calls.iter().any(|c| &*c.frame.symbol
        == "<dial9_perf_self_profile::memory_profiling::allocator::Dial9Allocator<A> as core::alloc::global::GlobalAlloc>::dealloc"));
    let g = flamegraph(&r.profiles, SampleKind::Blocking, Order::Heaviest, Default::default());
    let kernel: Vec<u32> = (0..g.nodes().len() as u32)
        .filter(|&i| &*g.label(i).text == KERNEL)
        .collect();
    assert!(!kernel.is_empty());
    assert!(kernel.iter().all(|&i| !g.kernel_addresses(i).is_empty()));
    assert!((0..g.nodes().len() as u32).all(|i| !is_kernel_address(&g.label(i).text)));
}

#[test]
fn distributions_count_every_value() {
    for rel in SINGLE_FILES {
        let r = analyze(&[rel], &Options::default(), None);
        let d = &r.distributions;
        let sum = |bins: &[d9lens_core::report::LogBin]| bins.iter().map(|b| b.count).sum::<u64>();
        let polls: u64 = r.workers.iter().map(|w| w.poll_count).sum();
        assert_eq!(sum(&d.polls), polls, "{rel}");
        assert_eq!(sum(&d.polls), r.all_polls.count, "{rel}");
        assert_eq!(sum(&d.sched_delays), r.sched_delays.count, "{rel}");
        // Bins are contiguous and ordered; the largest bin holds the max.
        assert!(
            d.polls.windows(2).all(|w| w[0].hi == w[1].lo && w[0].lo < w[1].lo),
            "{rel}"
        );
        if let Some(last) = d.polls.last() {
            assert!(last.lo <= r.all_polls.max_ns, "{rel}");
        }
        for (name, bins) in &d.spans {
            let stats = r.spans.iter().find(|s| &s.name == name).unwrap();
            assert_eq!(sum(bins), stats.count, "{rel} {name}");
        }
    }
}

#[test]
fn flamegraphs_open_on_the_application_and_invert() {
    use d9lens_core::profile::Shape;
    use d9lens_core::profile::origin::Origin;
    let r = analyze(&["blocking.bin"], &Options::default(), None);
    for kind in [SampleKind::OnCpu, SampleKind::Blocking] {
        let whole = flamegraph(&r.profiles, kind, Order::Heaviest, Shape::default());
        let app = flamegraph(&r.profiles, kind, Order::Heaviest, Shape::APPLICATION);
        // The same samples, fewer rows of plumbing above them.
        assert_eq!(app.total(), whole.total());
        assert!(app.max_depth() < whole.max_depth(), "{kind:?}");
        // The heaviest stacks under the root start in the application.
        let first = app.first_child(0).expect("a stack");
        let origin = app.label(first).origin;
        assert!(
            matches!(origin, Origin::App | Origin::Dependency),
            "{kind:?}: {}",
            app.label(first).text
        );
        // The rest of the first row too, but one frame over the runtime's own stacks.
        let row: Vec<u32> = std::iter::successors(app.first_child(0), |&n| app.next_sibling(n)).collect();
        assert!(row.iter().all(|&n| {
            let l = app.label(n);
            matches!(l.origin, Origin::App | Origin::Dependency) || &*l.text == d9lens_core::profile::RUNTIME_ONLY
        }));
        let first_whole = whole.first_child(0).expect("a stack");
        assert!(!matches!(
            whole.label(first_whole).origin,
            Origin::App | Origin::Dependency
        ));
    }
    // Bottom-up: the blocking samples' roots are where they were (the kernel's
    // sleep), legacy_sync_lookup among their callers, with its 36 samples.
    let up = flamegraph(
        &r.profiles,
        SampleKind::Blocking,
        Order::Heaviest,
        Shape {
            inverted: true,
            ..Shape::APPLICATION
        },
    );
    assert_eq!(up.search("legacy_sync_lookup").weight, 36);
    let top = up.first_child(0).expect("a leaf");
    assert!(!matches!(up.label(top).origin, Origin::App), "{}", up.label(top).text);
}

#[test]
fn allocation_sites_are_named_by_the_code_that_allocated() {
    use d9lens_core::profile::calls::allocation_frame;
    use d9lens_core::profile::origin::{Origin, origin};
    let r = analyze(&["demo-trace.bin"], &Options::default(), None);
    let sites = &r.memory.as_ref().expect("the demo samples allocations").top_sites;
    assert!(!sites.is_empty());
    for site in sites {
        // The leaf is the allocator's (dial9's profiler hook, here); the name is not.
        assert!(
            site.frames[0].symbol.to_lowercase().contains("alloc"),
            "{}",
            site.frames[0].symbol
        );
        let by = allocation_frame(&site.frames).expect("a name");
        assert!(!by.symbol.to_lowercase().contains("alloc"), "{}", by.symbol);
        assert!(matches!(origin(&by), Origin::App | Origin::Dependency), "{}", by.symbol);
    }
}
