//! The bucket catalog against the fixture listing, and at 100,000 keys.

use d9lens_core::bucket::catalog::{
    BootAnomaly, BootStart, Catalog, CatalogObject, CatalogSummary, HostKey, HostSummary, Load, Selection,
    ServiceSummary, TimeWindow, host_ipv4,
};
use d9lens_core::bucket::layout::{Layout, OtherReason};
use d9lens_core::bucket::sample::Coverage;
use serde_json::Value;
use std::collections::BTreeMap;

mod common;

fn fixture_objects() -> Vec<CatalogObject> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/s3-bucket.listing.json"
    ))
    .expect("fixture listing");
    let json: Value = serde_json::from_str(&text).expect("listing JSON");
    json["objects"]
        .as_array()
        .expect("objects")
        .iter()
        .map(|o| CatalogObject {
            key: o["key"].as_str().unwrap().to_owned(),
            size: o["bytes"].as_u64().unwrap(),
            etag: None,
            last_modified_secs: None,
        })
        .collect()
}

fn fixture_catalog() -> Catalog {
    let mut catalog = Catalog::new("");
    // Pages of 7, as a listing would stream them.
    let objects = fixture_objects();
    for page in objects.chunks(7) {
        catalog.add_page(page.to_vec());
    }
    catalog
}

fn service<'a>(summary: &'a CatalogSummary, name: &str) -> &'a ServiceSummary {
    summary
        .services
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("service {name}"))
}

fn host<'a>(summary: &'a CatalogSummary, service_name: &str, instance: &str) -> &'a HostSummary {
    service(summary, service_name)
        .subnets
        .iter()
        .flat_map(|g| &g.hosts)
        .find(|h| h.instance == instance)
        .unwrap_or_else(|| panic!("host {instance}"))
}

/// 2026-11-30 14:00:00 UTC.
const NOV30_1400: u64 = 1_796_047_200;

#[test]
fn fixture_overview() {
    let summary = fixture_catalog().summary();
    assert_eq!(summary.objects, 30);
    // The listing's own `summary.totalBytes` (9,266,201) is stale; its objects sum to this.
    let listed: u64 = fixture_objects().iter().map(|o| o.size).sum();
    assert_eq!(listed, 6_860_045);
    assert_eq!(summary.total_bytes, listed);
    // README.txt, index.json and upload.lock (_SUCCESS is empty).
    assert_eq!(summary.segment_bytes, listed - (94 + 57 + 22));
    assert_eq!(
        (summary.segments, summary.v1_segments, summary.positional_segments),
        (26, 24, 2)
    );
    assert_eq!(summary.other_objects, 4);
    let names: Vec<&str> = summary.services.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["checkout-api", "inventory-svc", "payments/api"]);
    assert_eq!(service(&summary, "payments/api").raw_names, ["payments%2Fapi"]);
    assert_eq!(
        summary.instances,
        [
            "ip-10-0-1-23",
            "ip-10-0-1-57",
            "ip-10-0-1-88",
            "ip-10-0-2-14",
            "ip-10-0-3-101",
            "ip-10-0-3-102"
        ]
    );
    let dates: Vec<String> = summary.dates.iter().map(ToString::to_string).collect();
    assert_eq!(dates, ["2026-11-30", "2026-12-01"]);
    let range = summary.time_range.unwrap();
    assert_eq!(
        (range.first_start_secs, range.last_start_secs),
        (1_796_026_492, 1_796_119_217)
    );
    assert_eq!(summary.roots, [""]);
}

#[test]
fn fixture_hosts_grouped_by_subnet() {
    let summary = fixture_catalog().summary();
    let checkout = service(&summary, "checkout-api");
    assert_eq!((checkout.hosts, checkout.segments), (3, 7 + 7 + 3));
    let groups: Vec<(String, Vec<&str>)> = checkout
        .subnets
        .iter()
        .map(|g| {
            (
                g.subnet.unwrap().to_string(),
                g.hosts.iter().map(|h| h.instance.as_str()).collect(),
            )
        })
        .collect();
    assert_eq!(
        groups,
        [
            ("10.0.1.0/24".to_owned(), vec!["ip-10-0-1-23", "ip-10-0-1-57"]),
            ("10.0.2.0/24".to_owned(), vec!["ip-10-0-2-14"])
        ]
    );
    let inventory = service(&summary, "inventory-svc");
    assert_eq!(inventory.subnets.len(), 1);
    assert_eq!(inventory.subnets[0].hosts.len(), 2);
}

#[test]
fn fixture_boots_and_restarts() {
    let summary = fixture_catalog().summary();
    let h = host(&summary, "checkout-api", "ip-10-0-1-23");
    let boots: Vec<(&str, &BootStart, u64, &[Layout])> = h
        .boots
        .iter()
        .map(|b| (b.boot.as_deref().unwrap(), &b.start, b.segments, b.layouts.as_slice()))
        .collect();
    assert_eq!(boots.len(), 3);
    assert_eq!(
        boots[0],
        ("gauu-25994", &BootStart::First, 2, &[Layout::Positional][..])
    );
    assert_eq!(
        (boots[1].0, boots[1].2, boots[1].3),
        ("qghy-22982", 3, &[Layout::V1][..])
    );
    assert!(matches!(boots[1].1, BootStart::Restart { previous_boot: Some(p), .. } if p == "gauu-25994"));
    assert_eq!((boots[2].0, boots[2].2), ("zgmu-24044", 2));
    // qghy's last segment starts 14:06:05 and lasts ~15 s; zgmu starts 14:20:05.
    assert_eq!(
        boots[2].1,
        &BootStart::Restart {
            previous_boot: Some("qghy-22982".into()),
            downtime_secs: 1_796_048_405 - 1_796_047_580
        }
    );
    assert_eq!(h.segments, 7);
    assert_eq!(
        h.bytes,
        60_121 + 46_550 + 1_002_236 + 1_032_943 + 944_637 + 58_497 + 57_396
    );
    assert_eq!(h.typical_interval_secs, Some(15));
    // Two silences: before qghy (hours) and before zgmu (the restart).
    let gaps: Vec<(Option<&str>, Option<&str>)> = h
        .gaps
        .iter()
        .map(|g| (g.boot_before.as_deref(), g.boot_after.as_deref()))
        .collect();
    assert_eq!(
        gaps,
        [
            (Some("gauu-25994"), Some("qghy-22982")),
            (Some("qghy-22982"), Some("zgmu-24044"))
        ]
    );

    // One boot across midnight: no gap, no restart.
    let p = host(&summary, "payments/api", "ip-10-0-1-88");
    assert_eq!(p.boots.len(), 1);
    assert!(p.gaps.is_empty());
    assert!(p.boots[0].anomalies.is_empty());
}

#[test]
fn fixture_missing_indices_and_junk_segments() {
    let summary = fixture_catalog().summary();
    let h = host(&summary, "checkout-api", "ip-10-0-1-57");
    let boot = &h.boots[0];
    assert_eq!(boot.boot.as_deref(), Some("nzuq-22983"));
    assert_eq!((boot.segments, boot.first_index, boot.last_index), (7, 0, 99));
    assert_eq!(
        boot.anomalies,
        [
            BootAnomaly::MissingIndices { first: 3, last: 95 },
            BootAnomaly::OutOfOrder { index: 97 },
            BootAnomaly::EmptySegment { index: 97 },
            BootAnomaly::OutOfOrder { index: 98 },
            BootAnomaly::OutOfOrder { index: 99 },
        ]
    );
    assert_eq!(h.empty_segments, 1);
    // Every other boot is clean.
    for s in &summary.services {
        for g in &s.subnets {
            for other in g.hosts.iter().filter(|x| x.instance != "ip-10-0-1-57") {
                assert!(other.boots.iter().all(|b| b.anomalies.is_empty()), "{}", other.instance);
            }
        }
    }
}

#[test]
fn fixture_busy_versus_quiet() {
    let catalog = fixture_catalog();
    let summary = catalog.summary();
    let busy: Vec<(&str, u64)> = summary
        .services
        .iter()
        .flat_map(|s| s.subnets.iter().flat_map(|g| &g.hosts))
        .filter(|h| h.busy_segments > 0)
        .map(|h| (h.instance.as_str(), h.busy_segments))
        .collect();
    assert_eq!(busy, [("ip-10-0-1-23", 3), ("ip-10-0-3-101", 3)]);
    // Busy segments are ~1 MB (0.68–1.03 MB here), quiet ones 45–65 KB.
    for segment in catalog.segments() {
        let load = summary.load.classify(segment.size);
        let expected = match segment.size {
            0 => Load::Empty,
            s if s >= 600_000 => Load::Busy,
            _ => Load::Quiet,
        };
        assert_eq!(load, expected, "{}", segment.key);
    }
    let busy_host = host(&summary, "inventory-svc", "ip-10-0-3-101");
    let quiet_host = host(&summary, "inventory-svc", "ip-10-0-3-102");
    assert_eq!(busy_host.relative_load_pct, Some(1777));
    assert_eq!(quiet_host.relative_load_pct, Some(101));
    // Density: bytes are conserved, and the busy host's minutes are busy.
    for h in [busy_host, quiet_host] {
        assert_eq!(h.density.iter().map(|b| b.bytes).sum::<u64>(), h.bytes);
        assert!(h.density.windows(2).all(|w| w[0].minute_secs < w[1].minute_secs));
    }
    assert!(busy_host.density.iter().all(|b| b.load == Load::Busy));
    assert!(quiet_host.density.iter().all(|b| b.load == Load::Quiet));
}

#[test]
fn fixture_non_segments_are_listed_with_reason() {
    let summary = fixture_catalog().summary();
    let others: Vec<(&str, &str, &OtherReason)> = summary
        .others
        .iter()
        .flat_map(|g| {
            g.objects
                .iter()
                .map(move |o| (g.parent.as_str(), o.key.as_str(), &o.reason))
        })
        .collect();
    let keys: Vec<&str> = others.iter().map(|o| o.1).collect();
    assert_eq!(
        keys,
        [
            "README.txt",
            "version=1/date=2026-11-30/_SUCCESS",
            "version=1/date=2026-11-30/service=checkout-api/time=1406/instance=ip-10-0-1-57/boot=nzuq-22983/index.json",
            "version=1/date=2026-12-01/service=inventory-svc/_tmp/upload.lock",
        ]
    );
    assert_eq!(others[0].0, "");
    assert_eq!(others[3].0, "version=1/date=2026-12-01/service=inventory-svc/_tmp");
    assert!(others.iter().all(|o| *o.2 == OtherReason::NotSegmentFileName));
}

#[test]
fn fixture_selections() {
    let catalog = fixture_catalog();
    let hour = TimeWindow::new(NOV30_1400, NOV30_1400 + 3600).unwrap();
    let host = HostKey::new("checkout-api", "ip-10-0-1-23");
    let selection = catalog.host_segments(&host, hour);
    let starts: Vec<u64> = selection.segments.iter().map(|s| s.segment.parts.epoch_secs).collect();
    assert_eq!(
        starts,
        [
            1_796_047_535,
            1_796_047_550,
            1_796_047_565,
            1_796_048_405,
            1_796_048_420
        ]
    );
    assert_eq!(
        selection.total_bytes(),
        1_002_236 + 1_032_943 + 944_637 + 58_497 + 57_396
    );
    let loads: Vec<Load> = selection.segments.iter().map(|s| s.load).collect();
    assert_eq!(loads, [Load::Busy, Load::Busy, Load::Busy, Load::Quiet, Load::Quiet]);

    // [start, end): a segment starting exactly at `end` is outside.
    let narrow = TimeWindow::new(1_796_047_535, 1_796_047_565).unwrap();
    assert_eq!(catalog.host_segments(&host, narrow).len(), 2);

    // One host's sample, by start time: its first segment, the middle, then the quarters.
    let pick = |s: &Selection| {
        s.segments
            .iter()
            .map(|x| x.segment.parts.epoch_secs)
            .collect::<Vec<_>>()
    };
    assert_eq!(pick(&selection.sample(2)), [starts[0], starts[2]]);
    assert_eq!(pick(&selection.sample(4)), [starts[0], starts[1], starts[2], starts[3]]);
    assert_eq!(selection.sample(9), selection);
    assert!(selection.sample(0).is_empty());

    // Fleet overview: one non-empty segment per host, nearest the window's middle.
    let fleet = catalog.fleet_overview(hour, None);
    let keys: Vec<(&str, u64)> = fleet
        .segments
        .iter()
        .map(|s| (s.segment.parts.instance.as_str(), s.segment.parts.epoch_secs))
        .collect();
    assert_eq!(
        keys,
        [
            ("ip-10-0-2-14", 1_796_047_568),
            ("ip-10-0-1-57", 1_796_047_575),
            ("ip-10-0-1-23", 1_796_048_420)
        ]
    );
    assert!(catalog.fleet_overview(hour, Some("inventory-svc")).is_empty());
    let all_hour = catalog.segments_in_window(hour, Some("checkout-api"));
    assert_eq!(all_hour.len(), 5 + 7 + 3);
}

#[test]
fn overlapping_pages_do_not_double_count() {
    let mut catalog = fixture_catalog();
    let again = catalog.add_page(fixture_objects().into_iter().take(10));
    assert_eq!((again.new_segments, again.new_others, again.replaced), (0, 0, 10));
    assert_eq!(catalog.summary().objects, 30);
}

#[test]
fn summary_is_independent_of_listing_order() {
    let mut reversed = Catalog::new("");
    let mut objects = fixture_objects();
    objects.reverse();
    reversed.add_page(objects);
    assert_eq!(reversed.summary(), fixture_catalog().summary());
}

#[test]
fn catalog_round_trips_through_json() {
    let catalog = fixture_catalog();
    let json = serde_json::to_string(&catalog).unwrap();
    let back: Catalog = serde_json::from_str(&json).unwrap();
    assert_eq!(back.summary(), catalog.summary());
    let summary_json = serde_json::to_string(&catalog.summary()).unwrap();
    assert_eq!(
        serde_json::from_str::<CatalogSummary>(&summary_json).unwrap(),
        catalog.summary()
    );
    assert!(serde_json::from_str::<TimeWindow>(r#"{"startSecs":5,"endSecs":5}"#).is_err());
}

#[test]
fn upload_times_bound_segment_spans() {
    let key = |i: u64, start: u64| {
        format!("version=1/date=2026-11-30/service=a/time=1405/instance=h/boot=abcd/{start}-{i}.bin.gz")
    };
    let mut catalog = Catalog::new("");
    catalog.add_page([
        CatalogObject {
            key: key(0, 1_796_047_500),
            size: 6000,
            etag: Some("\"e0\"".into()),
            last_modified_secs: Some(1_796_047_530),
        },
        CatalogObject {
            key: key(1, 1_796_047_560),
            size: 6000,
            etag: None,
            last_modified_secs: Some(1_796_047_620),
        },
    ]);
    assert_eq!(catalog.segments()[0].uploaded_secs, Some(1_796_047_530));
    let summary = catalog.summary();
    let h = &summary.services[0].subnets[0].hosts[0];
    assert!(summary.services[0].subnets[0].subnet.is_none());
    // Segment 0 spans 14:05:00–14:05:30 (its upload), segment 1 14:06:00–14:07:00.
    let buckets: Vec<(u64, u64)> = h.density.iter().map(|b| (b.minute_secs, b.bytes)).collect();
    assert_eq!(buckets, [(1_796_047_500, 6000), (1_796_047_560, 6000)]);
    assert_eq!(h.boots[0].end_secs, 1_796_047_620);
}

/// Segments of host `h` as (boot, index, start, upload), one listing.
fn host_catalog(segments: &[(&str, u64, u64, Option<u64>)]) -> CatalogSummary {
    let mut catalog = Catalog::new("");
    catalog.add_page(segments.iter().map(|&(boot, i, start, uploaded)| CatalogObject {
        key: format!("version=1/date=2026-11-30/service=a/time=1405/instance=h/boot={boot}/{start}-{i}.bin.gz"),
        size: 1000,
        etag: None,
        last_modified_secs: uploaded,
    }));
    catalog.summary()
}

/// Issue 17: objects uploaded (or copied) long after they closed do not
/// stretch a segment to an hour, nor make the next boot "concurrent".
#[test]
fn late_uploads_give_way_to_the_boots_cadence() {
    const T: u64 = 1_796_047_500;
    let late = Some(T + 5 * 3600);
    let summary = host_catalog(&[
        ("aaaa", 0, T, late),
        ("aaaa", 1, T + 15, late),
        ("bbbb", 0, T + 3600, late),
    ]);
    let h = host(&summary, "a", "h");
    // Two segments 15 s apart: busy for 30 s, not for an hour.
    let busy: Vec<u64> = h.density.iter().map(|b| b.minute_secs).collect();
    assert_eq!(busy, [T, T + 3600]);
    let first = &h.boots[0];
    assert_eq!((first.end_secs, first.end_guessed), (T + 30, true));
    assert_eq!(
        h.boots[1].start,
        BootStart::Restart {
            previous_boot: Some("aaaa".into()),
            downtime_secs: 3600 - 30
        }
    );
    // No upload time at all: the same.
    let summary = host_catalog(&[
        ("aaaa", 0, T, None),
        ("aaaa", 1, T + 15, None),
        ("bbbb", 0, T + 3600, None),
    ]);
    assert!(matches!(
        host(&summary, "a", "h").boots[1].start,
        BootStart::Restart {
            downtime_secs: 3570,
            ..
        }
    ));
}

#[test]
fn boots_run_concurrently_only_on_evidence() {
    const T: u64 = 1_796_047_500;
    // bbbb starts while aaaa still starts segments: two processes at once.
    let both = host_catalog(&[
        ("aaaa", 0, T, None),
        ("aaaa", 1, T + 60, None),
        ("aaaa", 2, T + 120, None),
        ("bbbb", 0, T + 90, None),
    ]);
    assert_eq!(
        host(&both, "a", "h").boots[1].start,
        BootStart::Concurrent {
            other_boot: Some("aaaa".into())
        }
    );
    // aaaa's last segment was uploaded (so closed) after bbbb started.
    let upload = host_catalog(&[
        ("aaaa", 0, T, None),
        ("aaaa", 1, T + 60, Some(T + 150)),
        ("bbbb", 0, T + 130, None),
    ]);
    let h = host(&upload, "a", "h");
    assert_eq!((h.boots[0].end_secs, h.boots[0].end_guessed), (T + 150, false));
    assert!(matches!(h.boots[1].start, BootStart::Concurrent { .. }));
    // Within a guessed end only: a restart, with no downtime to speak of.
    let guess = host_catalog(&[
        ("aaaa", 0, T, None),
        ("aaaa", 1, T + 60, None),
        ("bbbb", 0, T + 100, None),
    ]);
    assert!(matches!(
        host(&guess, "a", "h").boots[1].start,
        BootStart::Restart { downtime_secs: 0, .. }
    ));
}

#[test]
fn listing_entries_feed_the_catalog() {
    use d9lens_core::s3::{ObjectEntry, Timestamp};
    let mut catalog = Catalog::new("");
    catalog.add_page([ObjectEntry {
        key: "version=1/date=2026-11-30/service=a/time=1405/instance=h/boot=abcd/1796047500-0.bin.gz".into(),
        size: 10,
        etag: Some("\"e\"".into()),
        last_modified: Some(Timestamp::from_unix_millis(1_796_047_530_999)),
    }]);
    assert_eq!(catalog.segments()[0].uploaded_secs, Some(1_796_047_530));
    assert_eq!(catalog.segments()[0].etag.as_deref(), Some("\"e\""));
}

#[test]
fn helpers() {
    assert_eq!(host_ipv4("ip-10-0-1-23"), Some([10, 0, 1, 23].into()));
    assert_eq!(host_ipv4("ip-10-0-1-23.ec2.internal"), Some([10, 0, 1, 23].into()));
    assert_eq!(host_ipv4("us-east-1/ip-172-31-9-4"), Some([172, 31, 9, 4].into()));
    assert_eq!(host_ipv4("10.1.2.3"), Some([10, 1, 2, 3].into()));
    assert_eq!(host_ipv4("ip-10-0-1-300"), None);
    assert_eq!(host_ipv4("i-0abc123"), None);
}

/// The 100,000 keys of [`common::bucket::hundred_thousand_keys`].
#[test]
fn hundred_thousand_keys() {
    use common::bucket::{PER_BOOT, T0};
    let keys: Vec<CatalogObject> = common::bucket::hundred_thousand_keys()
        .into_iter()
        .map(|(key, size)| CatalogObject {
            key,
            size,
            etag: None,
            last_modified_secs: None,
        })
        .collect();
    assert_eq!(keys.len(), 100_000);

    let mut catalog = Catalog::new("dial9-traces/");
    for page in keys.chunks(1000) {
        catalog.add_page(page.to_vec());
    }
    let summary = catalog.summary();
    assert_eq!(summary.objects, 100_000);
    assert_eq!(summary.segments, 99_996);
    assert_eq!((summary.v1_segments, summary.positional_segments), (50_000, 49_996));
    assert_eq!(summary.other_objects, 4);
    assert_eq!(summary.roots, ["dial9-traces/"]);
    assert_eq!(summary.dates.len(), 2);
    assert_eq!(summary.instances.len(), 100);
    assert_eq!(summary.services.len(), 4);
    for service in &summary.services {
        assert_eq!(service.hosts, 25);
        assert_eq!(service.subnets.len(), 5);
        for h in service.subnets.iter().flat_map(|g| &g.hosts) {
            let lost = u64::from(h.instance.ends_with("-0-1"));
            assert_eq!(h.segments, 2 * PER_BOOT - lost, "{}", h.instance);
            assert_eq!(h.boots.len(), 2);
            assert_eq!(h.boots[0].start, BootStart::First);
            assert!(
                matches!(h.boots[1].start, BootStart::Restart { downtime_secs: 600, .. }),
                "{:?}",
                h.boots[1]
            );
            assert_eq!(h.busy_segments, 100);
            assert_eq!(h.typical_interval_secs, Some(60));
            assert_eq!(h.gaps.len(), 1, "{}: {:?}", h.instance, h.gaps);
            let expected: Vec<BootAnomaly> = if lost == 1 {
                vec![BootAnomaly::MissingIndices { first: 251, last: 251 }]
            } else {
                vec![]
            };
            assert_eq!(h.boots[1].anomalies, expected, "{}", h.instance);
            assert!(h.boots[0].anomalies.is_empty());
            assert_eq!(h.density.iter().map(|b| b.bytes).sum::<u64>(), h.bytes);
        }
    }
    let window = TimeWindow::new(T0, T0 + 3600).unwrap();
    assert_eq!(
        catalog
            .host_segments(&HostKey::new("svc2", "ip-10-2-3-4"), window)
            .len(),
        60
    );
    let fleet = catalog.fleet_overview(window, None);
    assert_eq!(fleet.len(), 100);
    assert_eq!(fleet.sample(10).len(), 10);

    // Fair samples of everything: the same whatever order the listing came in,
    // every host in turn, spread over each host's time, and grown in place.
    let everything = catalog.segments_overlapping(TimeWindow::ALL, |_| true);
    let sample = everything.sample(200);
    let mut reordered = Catalog::new("dial9-traces/");
    for page in keys.chunks(1000).rev() {
        reordered.add_page(page.to_vec());
    }
    assert_eq!(
        reordered.segments_overlapping(TimeWindow::ALL, |_| true).sample(200),
        sample
    );
    let mut per_host: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for s in &sample.segments {
        per_host
            .entry(&s.segment.parts.instance)
            .or_default()
            .push(s.segment.parts.epoch_secs);
    }
    assert_eq!(per_host.len(), 100);
    for (host, starts) in &per_host {
        let all: Vec<u64> = everything
            .segments
            .iter()
            .filter(|s| s.segment.parts.instance == *host)
            .map(|s| s.segment.parts.epoch_secs)
            .collect();
        // Its first segment and its middle one.
        assert_eq!(starts.len(), 2, "{host}");
        assert_eq!(starts[0], all[0], "{host}");
        assert_eq!(starts[1], all[all.len() / 2], "{host}");
    }
    let more = everything.sample(300);
    assert!(
        sample.keys().all(|k| more.keys().any(|m| m == k)),
        "add 100 more keeps the 200"
    );
    let coverage = Coverage::of(&sample, &everything);
    assert_eq!((coverage.segments, coverage.of_segments), (200, 99_996));
    assert_eq!((coverage.hosts, coverage.of_hosts), (100, 100));
    assert!(
        coverage.text().starts_with("200 of 99,996 segments ("),
        "{}",
        coverage.text()
    );
    assert!(
        coverage.text().contains("), 100 of 100 hosts, starting "),
        "{}",
        coverage.text()
    );
}

#[test]
fn fixture_selection_specs() {
    use d9lens_core::bucket::spec::SelectionSpec;
    let catalog = fixture_catalog();
    let keys = |s: &Selection| {
        s.keys()
            .map(|k| k.rsplit('/').next().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    // A boot's first to last start (as the page picks it): its three segments.
    let boot = SelectionSpec::Host {
        service: "checkout-api".into(),
        instance: "ip-10-0-2-14".into(),
        from: 1_796_047_538,
        to: 1_796_047_569,
    };
    assert_eq!(
        keys(&boot.resolve(&catalog)),
        ["1796047538-0.bin.gz", "1796047553-1.bin.gz", "1796047568-2.bin.gz"]
    );
    // Like `d9lens s3 analyze --from`: a window starting inside a segment still gets it.
    let late = SelectionSpec::Host {
        service: "checkout-api".into(),
        instance: "ip-10-0-2-14".into(),
        from: 1_796_047_560,
        to: 1_796_047_562,
    };
    assert_eq!(keys(&late.resolve(&catalog)), ["1796047553-1.bin.gz"]);
    // The decoded service name selects the escaped key.
    let payments = SelectionSpec::Host {
        service: "payments/api".into(),
        instance: "ip-10-0-1-88".into(),
        from: 0,
        to: u64::MAX,
    };
    let selection = payments.resolve(&catalog);
    assert_eq!(selection.len(), 3);
    assert!(selection.keys().all(|k| k.contains("service=payments%2Fapi")));

    let hour = (NOV30_1400, NOV30_1400 + 3600);
    let fleet = SelectionSpec::Fleet {
        service: None,
        from: hour.0,
        to: hour.1,
    };
    assert_eq!(
        fleet.resolve(&catalog),
        catalog.fleet_overview(TimeWindow::new(hour.0, hour.1).unwrap(), None)
    );
    let sample = SelectionSpec::Sample {
        service: Some("inventory-svc".into()),
        n: 2,
        from: 0,
        to: u64::MAX,
    };
    assert_eq!(
        keys(&sample.resolve(&catalog)),
        ["1796119182-0.bin.gz", "1796119187-0.bin.gz"],
        "the first segment of each of the service's two hosts"
    );

    let key = "version=1/date=2026-12-01/service=inventory-svc/time=1000/instance=ip-10-0-3-102/boot=ganz-25992/1796119202-1.bin.gz";
    let single = SelectionSpec::Single { key: key.into() }.resolve(&catalog);
    assert_eq!((single.len(), single.total_bytes()), (1, 60_371));
    assert!(
        SelectionSpec::Single {
            key: "README.txt".into()
        }
        .resolve(&catalog)
        .is_empty()
    );
    let empty = SelectionSpec::Host {
        service: "checkout-api".into(),
        instance: "ip-10-0-2-14".into(),
        from: 5,
        to: 5,
    };
    assert!(empty.resolve(&catalog).is_empty(), "an empty window selects nothing");

    // Specs travel between the page and its catalog worker as JSON.
    let json = serde_json::to_string(&payments).unwrap();
    assert_eq!(serde_json::from_str::<SelectionSpec>(&json).unwrap(), payments);
}
