//! The listing walk against the fixture bucket's keys and a 100,000-key
//! bucket, answered by an in-memory bucket with S3's listing semantics (the
//! CLI's tests run the same walk against s3s-fs).

mod common;

use common::bucket::Bucket;
use d9lens_core::bucket::catalog::TimeWindow;
use d9lens_core::bucket::layout::{KeyDate, KeyTime};
use d9lens_core::bucket::listing_plan::{
    ListRequest, ListingLimits, ListingPlan, NotListed, NotListedReason, PlanError,
};
use d9lens_core::bucket::scope::{Period, SEGMENT_PAD_SECS, Scope};
use d9lens_core::bucket::walk::BucketWalk;
use d9lens_core::s3::{ListPage, ObjectEntry};
use std::collections::BTreeSet;

/// What a walk did: every request in the order sent, the keys listed.
struct Walk {
    requests: Vec<ListRequest>,
    keys: BTreeSet<String>,
    max_in_flight: usize,
    /// Round trips if every request in flight is answered at once.
    rounds: usize,
    plan: ListingPlan,
}

impl Walk {
    /// Each partition once: `D prefix` (delimiter) or `F prefix` (flat).
    fn partitions(&self) -> BTreeSet<String> {
        self.requests
            .iter()
            .map(|r| {
                format!(
                    "{} {}",
                    if r.list.delimiter.is_some() { "D" } else { "F" },
                    r.list.prefix
                )
            })
            .collect()
    }
}

/// Runs `plan` against `bucket`: in each round every request in flight is
/// answered, newest first, so partitions complete out of order.
fn walk(bucket: &Bucket, mut plan: ListingPlan) -> Walk {
    let answered = run(bucket, &mut plan);
    Walk {
        requests: answered.requests,
        keys: answered.keys.into_iter().collect(),
        max_in_flight: answered.max_in_flight,
        rounds: answered.rounds,
        plan,
    }
}

/// What answering a plan until it is done saw: the requests sent and every
/// key of every page (a key listed twice appears twice).
struct Answered {
    requests: Vec<ListRequest>,
    keys: Vec<String>,
    max_in_flight: usize,
    rounds: usize,
}

/// Answers `plan` from `bucket` until it is done, as [`walk`] does; the
/// plan stays the caller's, to go on with another scope.
fn run(bucket: &Bucket, plan: &mut ListingPlan) -> Answered {
    let mut a = Answered {
        requests: Vec::new(),
        keys: Vec::new(),
        max_in_flight: 0,
        rounds: 0,
    };
    loop {
        let round = plan.next_requests();
        if round.is_empty() {
            break;
        }
        a.rounds += 1;
        a.max_in_flight = a.max_in_flight.max(plan.progress().in_flight);
        for request in round.iter().rev() {
            let page = bucket.list(&request.list);
            a.keys.extend(page.contents.iter().map(|o| o.key.clone()));
            plan.on_page(request.id, &page).unwrap();
        }
        a.requests.extend(round);
    }
    assert!(plan.is_done() && plan.progress().done);
    a
}

fn fixture() -> Bucket {
    Bucket::new(common::s3_fixture_objects())
}

fn limits(page_size: Option<u16>) -> ListingLimits {
    ListingLimits {
        page_size,
        ..ListingLimits::default()
    }
}

/// Every key under `prefix` was listed, or lies under a prefix the walk says it left out.
fn assert_accounted_for(bucket: &Bucket, prefix: &str, w: &Walk) {
    for key in bucket.keys().filter(|k| k.starts_with(prefix)) {
        assert!(
            w.keys.contains(key) || w.plan.not_listed().iter().any(|n| key.starts_with(&n.prefix)),
            "{key} was neither listed nor reported as not listed"
        );
    }
}

#[test]
fn the_fixture_bucket_is_walked_by_partition() {
    let bucket = fixture();
    let w = walk(&bucket, ListingPlan::new("", limits(None)));
    let v1 = "version=1/date=2026-11-30";
    let v1b = "version=1/date=2026-12-01";
    let expected: BTreeSet<String> = [
        "D ".to_owned(),
        "D 2026-11-30/".into(),
        "F 2026-11-30/08".into(),
        "D version=1/".into(),
        format!("D {v1}/"),
        format!("D {v1b}/"),
        format!("D {v1}/service=checkout-api/"),
        format!("F {v1}/service=checkout-api/time=14"),
        format!("D {v1}/service=payments%2Fapi/"),
        format!("F {v1}/service=payments%2Fapi/time=23"),
        format!("D {v1b}/service=inventory-svc/"),
        format!("F {v1b}/service=inventory-svc/_tmp/"),
        format!("F {v1b}/service=inventory-svc/time=09"),
        format!("F {v1b}/service=inventory-svc/time=10"),
        format!("D {v1b}/service=payments%2Fapi/"),
        format!("F {v1b}/service=payments%2Fapi/time=00"),
    ]
    .into();
    assert_eq!(w.partitions(), expected);
    assert_eq!(w.requests.len(), 16, "one page each");
    // Every object, the junk included (README.txt, _SUCCESS, index.json, upload.lock).
    assert_eq!(w.keys, bucket.keys().map(str::to_owned).collect());
    assert!(w.plan.not_listed().is_empty());
    let progress = w.plan.progress();
    assert_eq!((progress.partitions, progress.partitions_listed), (16, 16));
    assert_eq!((progress.pages, progress.objects), (16, 30));
    assert_eq!(progress.truncation_note(), None);
    // Delimiter levels first, then six hours at once: five round trips, not sixteen.
    assert_eq!((w.rounds, w.max_in_flight), (5, 6));
}

#[test]
fn small_pages_continue_each_partition_from_its_token() {
    let bucket = fixture();
    let w = walk(&bucket, ListingPlan::new("", limits(Some(2))));
    assert_eq!(w.partitions().len(), 16);
    assert_eq!(w.keys.len(), 30);
    let continued = w
        .requests
        .iter()
        .filter(|r| r.list.continuation_token.is_some())
        .count();
    assert_eq!(w.requests.len(), 16 + continued);
    assert!(continued >= 8, "{continued}");
    assert!(w.requests.iter().all(|r| r.list.max_keys == Some(2)));
}

#[test]
fn the_layout_is_found_below_a_prefix_and_unknown_trees_stay_visible() {
    let mut objects: Vec<(String, u64)> = common::s3_fixture_objects()
        .into_iter()
        .map(|(k, s)| (format!("dial9-traces/{k}"), s))
        .collect();
    objects.extend(
        [
            "dial9-traces/dumps/d-42.json",
            "other/app/logs/2026/a.txt",
            "other/app/logs/2026/b.txt",
            "notes.txt",
        ]
        .map(|k| (k.to_owned(), 10)),
    );
    let bucket = Bucket::new(objects);
    let w = walk(&bucket, ListingPlan::new("", limits(None)));
    assert_eq!(w.keys, bucket.keys().map(str::to_owned).collect());
    let partitions = w.partitions();
    for p in [
        "D dial9-traces/",
        "D dial9-traces/version=1/",
        "D dial9-traces/2026-11-30/",
        "F dial9-traces/dumps/",
        "D other/",
        "D other/app/",
        // Three levels searched: below that, listed flat.
        "F other/app/logs/",
    ] {
        assert!(partitions.contains(p), "{p} missing from {partitions:?}");
    }
    assert_eq!(partitions.len(), 16 + 5);

    // Starting at the prefix skips the search.
    let w = walk(&bucket, ListingPlan::new("dial9-traces/", limits(None)));
    assert_eq!(w.keys.len(), 31);
    assert!(w.partitions().iter().all(|p| p[2..].starts_with("dial9-traces/")));
}

#[test]
fn a_prefix_may_end_mid_component() {
    let bucket = fixture();
    let w = walk(
        &bucket,
        ListingPlan::new("version=1/date=2026-11-30/service=payments", limits(None)),
    );
    let base = "version=1/date=2026-11-30/service=payments";
    assert_eq!(
        w.partitions(),
        [
            format!("D {base}"),
            format!("D {base}%2Fapi/"),
            format!("F {base}%2Fapi/time=23")
        ]
        .into()
    );
    assert_eq!(w.keys.len(), 2);

    // Narrower than an hour: listed as given, never wider.
    let narrow = "version=1/date=2026-11-30/service=checkout-api/time=140";
    let w = walk(&bucket, ListingPlan::new(narrow, limits(None)));
    assert_eq!(w.partitions(), [format!("D {narrow}"), format!("F {narrow}")].into());
    assert_eq!(w.keys.len(), 6 + 8, "time=1405 and time=1406, not time=1420");
    assert!(w.keys.iter().all(|k| k.starts_with(narrow)));

    // Inside a partition: one flat listing.
    let w = walk(&bucket, ListingPlan::new("2026-11-30/0814/", limits(None)));
    assert_eq!(w.partitions(), ["F 2026-11-30/0814/".to_owned()].into());
    assert_eq!(w.keys.len(), 1);
}

#[test]
fn the_object_cap_stops_the_walk_and_names_what_was_left_out() {
    let bucket = fixture();
    let capped = ListingLimits {
        max_objects: 10,
        ..limits(Some(3))
    };
    let w = walk(&bucket, ListingPlan::new("", capped));
    assert!(w.keys.len() >= 10 && w.keys.len() < 30, "{}", w.keys.len());
    assert_accounted_for(&bucket, "", &w);
    let not_listed = w.plan.not_listed();
    assert!(!not_listed.is_empty());
    assert!(
        not_listed
            .iter()
            .all(|n| n.reason == NotListedReason::ObjectCap { max_objects: 10 })
    );
    assert!(
        not_listed.iter().any(|n| n.objects_listed > 0),
        "one was cut mid-listing"
    );
    let progress = w.plan.progress();
    assert_eq!(progress.not_listed_count, not_listed.len());
    let note = progress.truncation_note().unwrap();
    assert!(note.contains("not listed completely"), "{note}");
    let line = not_listed[0].to_string();
    assert!(line.contains("the listing stopped at 10 objects"), "{line}");
}

#[test]
fn the_partition_budget_and_the_cap_on_other_prefixes() {
    let bucket = fixture();
    let budget = ListingLimits {
        max_partitions: 5,
        ..limits(None)
    };
    let w = walk(&bucket, ListingPlan::new("", budget));
    assert_eq!(w.partitions().len(), 5);
    assert_eq!(w.plan.progress().partitions, 5);
    assert_accounted_for(&bucket, "", &w);
    assert!(
        w.plan
            .not_listed()
            .iter()
            .all(|n| n.reason == NotListedReason::PartitionBudget { max_partitions: 5 } && n.objects_listed == 0)
    );
    assert!(!w.plan.not_listed().is_empty());

    let junk = Bucket::new((0..5).map(|i| (format!("junk/{i}.txt"), 1)));
    let capped = ListingLimits {
        max_other_objects: 2,
        search_depth: 1,
        ..limits(Some(2))
    };
    let w = walk(&junk, ListingPlan::new("", capped));
    assert_eq!(w.keys.len(), 2);
    assert_eq!(
        w.plan.not_listed(),
        [NotListed {
            prefix: "junk/".into(),
            objects_listed: 2,
            reason: NotListedReason::OtherCap { max_other_objects: 2 }
        }]
    );
}

#[test]
fn a_failed_partition_is_reported_and_the_rest_listed() {
    let bucket = fixture();
    let mut plan = ListingPlan::new("", limits(None));
    let mut keys = BTreeSet::new();
    while let Some(request) = plan.next_request() {
        if request.list.prefix == "version=1/" {
            plan.on_failed(request.id, "Access Denied").unwrap();
            continue;
        }
        let page = bucket.list(&request.list);
        keys.extend(page.contents.iter().map(|o| o.key.clone()));
        plan.on_page(request.id, &page).unwrap();
    }
    assert!(plan.is_done());
    assert_eq!(keys.len(), 3, "README.txt and the two positional segments");
    assert_eq!(
        plan.not_listed(),
        [NotListed {
            prefix: "version=1/".into(),
            objects_listed: 0,
            reason: NotListedReason::Failed {
                message: "Access Denied".into()
            }
        }]
    );
    assert_eq!(
        plan.not_listed()[0].to_string(),
        "version=1/: not listed, its listing failed: Access Denied"
    );
}

#[test]
fn answers_are_checked() {
    let mut plan = ListingPlan::new("p/", limits(None));
    let first = plan.next_request().unwrap();
    assert_eq!(
        plan.on_page(first.id + 1, &page(None)),
        Err(PlanError::UnknownRequest(first.id + 1))
    );
    plan.on_page(first.id, &page(Some("t"))).unwrap();
    // A server that hands out the same token again would loop forever.
    let second = plan.next_request().unwrap();
    assert_eq!(second.list.continuation_token.as_deref(), Some("t"));
    plan.on_page(second.id, &page(Some("t"))).unwrap();
    assert!(plan.is_done());
    assert!(matches!(
        &plan.not_listed()[0].reason,
        NotListedReason::Failed { message } if message.contains("listing loop")
    ));
    assert_eq!(
        plan.on_page(second.id, &page(None)),
        Err(PlanError::UnknownRequest(second.id))
    );
}

/// A loop over several tokens (a → b → c → a) is a loop too.
#[test]
fn a_loop_over_several_tokens_stops_the_listing() {
    let mut plan = ListingPlan::new("p/", limits(None));
    for token in ["a", "b", "c", "a"] {
        let request = plan.next_request().expect("a page to ask for");
        plan.on_page(request.id, &page(Some(token))).unwrap();
    }
    assert!(plan.is_done() && plan.next_request().is_none());
    assert!(matches!(
        &plan.not_listed()[0].reason,
        NotListedReason::Failed { message } if message.contains("listing loop")
    ));
}

fn page(token: Option<&str>) -> ListPage {
    ListPage {
        bucket: None,
        prefix: "p/".into(),
        delimiter: Some("/".into()),
        start_after: None,
        max_keys: None,
        key_count: None,
        contents: vec![ObjectEntry {
            key: "p/x".into(),
            size: 1,
            etag: None,
            last_modified: None,
        }],
        common_prefixes: Vec::new(),
        next_continuation_token: token.map(str::to_owned),
    }
}

#[test]
fn concurrency_is_bounded() {
    let bucket = fixture();
    let two = ListingLimits {
        concurrency: 2,
        ..limits(None)
    };
    let w = walk(&bucket, ListingPlan::new("", two));
    assert_eq!(w.max_in_flight, 2);
    assert_eq!(w.keys.len(), 30);
}

/// 100,000 keys (v1 under `dial9-traces/` and positional, across midnight):
/// listed completely in a fraction of the round trips one sequential listing needs.
#[test]
fn a_hundred_thousand_keys_in_few_round_trips() {
    let bucket = Bucket::new(common::bucket::hundred_thousand_keys());
    let w = walk(&bucket, ListingPlan::new("", limits(None)));
    assert_eq!(w.keys.len(), 100_000);
    assert!(w.plan.not_listed().is_empty());
    assert_eq!(w.max_in_flight, 6);
    let progress = w.plan.progress();
    // 14 delimiter listings (root, prefix, version=1/, 2 dates, 8 services, 1
    // positional date), 9 hours × 4 services of v1, 9 positional hours (each
    // holding every service) …
    assert_eq!(progress.partitions, 14 + 36 + 9, "{:?}", w.partitions());
    assert_eq!(progress.pages, 132);
    // … against 100 pages one after the other.
    assert_eq!(w.rounds, 25);
}

/// The start (Unix seconds) of a segment key of either layout.
fn segment_start(key: &str) -> Option<u64> {
    let name = key.rsplit('/').next()?;
    name.split_once('-')?.0.parse().ok()
}

/// The shape of 100,000 keys: days, services and the newest minute, from a
/// handful of delimiter listings and no segment key.
#[test]
fn the_shape_costs_a_few_delimiter_listings() {
    use common::bucket::{PER_BOOT, T0};
    let bucket = Bucket::new(common::bucket::hundred_thousand_keys());
    let mut plan = ListingPlan::scoped("", limits(None), Scope::Shape);
    let Answered { requests, keys, .. } = run(&bucket, &mut plan);
    assert!(requests.iter().all(|r| r.list.delimiter.is_some()), "{requests:?}");
    assert!(keys.iter().all(|k| segment_start(k).is_none()), "{keys:?}");
    // root, prefix, version=1/, 2 days, the newest day's 4 services, the newest positional day.
    assert_eq!(requests.len(), 10, "{requests:?}");
    let shape = plan.shape();
    let services: BTreeSet<String> = (0..4).map(|s| format!("svc{s}")).collect();
    let day1 = KeyDate::parse("2026-11-30").unwrap();
    let day2 = KeyDate::parse("2026-12-01").unwrap();
    assert_eq!(shape.days[&day1], services);
    assert_eq!(shape.days.keys().copied().collect::<Vec<_>>(), [day1, day2]);
    // The last segment: host 24's second boot, at minute 499.
    let last = T0 + 24 + (PER_BOOT * 60 + 600) + 499 * 60;
    assert_eq!(shape.newest_secs, Some(last - last % 60));
}

/// The last hour, then six: only the partitions each window touches are
/// listed, every key of the window is found, and widening lists only what
/// is new. (10 listings for the shape, 7 for the hour, 34 more for six.)
#[test]
fn a_window_lists_its_hours_and_widening_lists_only_the_new_ones() {
    let bucket = Bucket::new(common::bucket::hundred_thousand_keys());
    let mut plan = ListingPlan::scoped("", limits(None), Scope::Shape);
    let shape_requests = run(&bucket, &mut plan).requests;
    let hour = plan.shape().last(3600).unwrap();
    plan.set_scope(Scope::Window(hour));
    let Answered { requests, keys, .. } = run(&bucket, &mut plan);
    let wanted = |w: &TimeWindow, k: &str| {
        segment_start(k).is_some_and(|s| s + SEGMENT_PAD_SECS > w.start_secs() && s < w.end_secs())
    };
    let found: BTreeSet<&str> = keys.iter().map(String::as_str).collect();
    assert_eq!(found.len(), keys.len(), "no key listed twice");
    for key in bucket.keys().filter(|k| wanted(&hour, k)) {
        assert!(found.contains(key), "{key} is in the last hour but was not listed");
    }
    // Listed: the 10-minute blocks the padded window touches, nothing else.
    let (from, to) = (hour.start_secs() - SEGMENT_PAD_SECS, hour.end_secs());
    assert!(keys.iter().all(|k| {
        let s = segment_start(k).unwrap();
        s + 600 > from - from % 600 && s < to + 600
    }));
    assert!(shape_requests.len() + requests.len() <= 60, "{requests:?}");
    assert!(
        requests.iter().all(|r| r.list.delimiter.is_none()),
        "the shape's listings are not repeated"
    );

    let six = TimeWindow::new(hour.end_secs() - 6 * 3600, hour.end_secs()).unwrap();
    plan.set_scope(Scope::Window(six));
    let Answered {
        requests: wider,
        keys: more,
        ..
    } = run(&bucket, &mut plan);
    let listed_before: BTreeSet<&str> = requests.iter().map(|r| r.list.prefix.as_str()).collect();
    for r in &wider {
        assert!(
            r.list.continuation_token.is_some() || !listed_before.contains(r.list.prefix.as_str()),
            "{} listed again",
            r.list.prefix
        );
    }
    let all: BTreeSet<&str> = keys.iter().chain(&more).map(String::as_str).collect();
    assert_eq!(all.len(), keys.len() + more.len(), "no key listed twice");
    for key in bucket.keys().filter(|k| wanted(&six, k)) {
        assert!(all.contains(key), "{key} is in the last 6 hours but was not listed");
    }
    assert!(plan.not_listed().is_empty());
}

/// A whole hour over one page goes on in its 10-minute blocks, all at
/// once, from where the first page stopped: every key once.
#[test]
fn an_hour_over_a_page_splits_into_blocks() {
    let bucket = Bucket::new(common::bucket::hundred_thousand_keys());
    // 2026-11-30 21:00–22:00 UTC: 4 services × 25 hosts × 60 v1 segments.
    let day = 1_795_996_800;
    let window = TimeWindow::new(day + 21 * 3600 + 600, day + 22 * 3600).unwrap();
    let mut plan = ListingPlan::scoped("dial9-traces/version=1/", limits(None), Scope::Window(window));
    let Answered { requests, keys, .. } = run(&bucket, &mut plan);
    let svc0 = "dial9-traces/version=1/date=2026-11-30/service=svc0/time=21";
    let of_svc0: Vec<&ListRequest> = requests.iter().filter(|r| r.list.prefix.starts_with(svc0)).collect();
    let prefixes: BTreeSet<&str> = of_svc0.iter().map(|r| r.list.prefix.as_str()).collect();
    // The hour (its first page: 1,000 of 1,500 keys) and the blocks from the one it stopped in.
    assert!(prefixes.contains(svc0), "{prefixes:?}");
    assert!(prefixes.contains(format!("{svc0}5").as_str()), "{prefixes:?}");
    let resumed = of_svc0
        .iter()
        .find(|r| r.list.start_after.is_some())
        .expect("a block starts after the page");
    assert_eq!(resumed.list.prefix.len(), svc0.len() + 1);
    assert!(
        of_svc0.iter().all(|r| r.list.continuation_token.is_none()),
        "no page waits on another"
    );
    let found: BTreeSet<&str> = keys.iter().map(String::as_str).collect();
    assert_eq!(found.len(), keys.len(), "no key listed twice");
    let expected = bucket.keys().filter(|k| k.starts_with(svc0)).count();
    assert_eq!(keys.iter().filter(|k| k.starts_with(svc0)).count(), expected);
    assert_eq!(expected, 1500);
}

/// Answers every listing of `walk` from `bucket` until it is done: how many there were.
fn run_walk(bucket: &Bucket, walk: &mut BucketWalk) -> usize {
    let mut requests = 0;
    loop {
        let round = walk.next_requests();
        if round.is_empty() {
            break;
        }
        requests += round.len();
        for request in round {
            walk.on_body(request.id, bucket.list_xml(&request.list).as_bytes())
                .unwrap();
        }
    }
    assert!(walk.is_done());
    requests
}

/// A period that needs the shape lists it first, then what it resolves to,
/// in one walk: a small bucket whole, a big one only once a window is picked.
#[test]
fn a_walk_for_a_period_lists_the_shape_then_what_it_resolves_to() {
    let bucket = Bucket::new(common::bucket::hundred_thousand_keys());
    let mut walk = BucketWalk::for_period("", limits(None), Period::Auto { otherwise: None });
    run_walk(&bucket, &mut walk);
    assert_eq!(walk.catalog().object_count(), 100_000, "two days: listed whole");
    assert!(!walk.awaits_window() && walk.window().is_none());

    let mut walk = BucketWalk::for_period("", limits(None), Period::Last { secs: 3600 });
    run_walk(&bucket, &mut walk);
    let hour = walk.window().expect("the last hour, from the shape");
    assert!(
        walk.catalog()
            .segments()
            .iter()
            .any(|s| hour.contains(s.parts.epoch_secs))
    );
    assert!(walk.catalog().object_count() < 10_000);

    // Three days of one host: the shape, then a pick.
    let day = 1_795_996_800;
    let keys = (0..3 * 24).map(|h| {
        let start = day + h * 3600;
        let (date, time) = (
            KeyDate::from_epoch_secs(start).unwrap(),
            KeyTime::from_epoch_secs(start),
        );
        (
            format!("version=1/date={date}/service=api/time={time}/instance=h/boot=abcd/{start}-{h}.bin.gz"),
            10,
        )
    });
    let bucket = Bucket::new(keys);
    let mut walk = BucketWalk::for_period("", limits(None), Period::Auto { otherwise: None });
    run_walk(&bucket, &mut walk);
    assert!(walk.awaits_window());
    assert_eq!(
        walk.catalog().segments().len(),
        0,
        "no segment listed before a window is picked"
    );
    walk.set_period(Period::Day {
        day: KeyDate::parse("2026-12-01").unwrap(),
    });
    run_walk(&bucket, &mut walk);
    assert!(!walk.awaits_window());
    assert_eq!(walk.catalog().segments().len(), 24);
}

/// 30 days of 12 hosts in two services, a segment every 5 minutes: 103,680
/// keys. Listing a window costs requests that grow with the window, not
/// with the bucket (the numbers are in docs/benchmarks.md).
#[test]
fn requests_grow_with_the_window_not_with_the_bucket() {
    let end = 1_796_601_600; // 2026-12-07 00:00 UTC
    let mut keys = Vec::new();
    for start in (end - 30 * 86_400..end).step_by(300) {
        for h in 0..12u64 {
            let s = start + h;
            let (date, time) = (KeyDate::from_epoch_secs(s).unwrap(), KeyTime::from_epoch_secs(s));
            let service = if h < 6 { "api" } else { "worker" };
            keys.push((
                format!("version=1/date={date}/service={service}/time={time}/instance=host-{h}/boot=abcd/{s}-0.bin.gz"),
                1,
            ));
        }
    }
    assert_eq!(keys.len(), 103_680);
    let bucket = Bucket::new(keys);
    let mut cost = Vec::new();
    for secs in [3600, 24 * 3600, 7 * 24 * 3600] {
        let mut walk = BucketWalk::for_period("", limits(None), Period::Last { secs });
        let requests = run_walk(&bucket, &mut walk);
        let window = walk.window().unwrap();
        let listed = walk.catalog().segments().len();
        let expected = bucket
            .keys()
            .filter(|k| {
                segment_start(k).is_some_and(|s| s + SEGMENT_PAD_SECS > window.start_secs() && s < window.end_secs())
            })
            .count();
        assert!(listed >= expected, "{listed} listed, {expected} in the window");
        cost.push((secs, requests, listed));
    }
    // The shape: root, version=1/, 30 days, the newest day's 2 services.
    let shape = 33;
    assert!(cost[0].1 <= 60, "{cost:?}");
    assert!(cost[0].1 < cost[1].1 && cost[1].1 < cost[2].1, "{cost:?}");
    assert_eq!(
        cost.iter().map(|c| c.1 - shape).collect::<Vec<_>>(),
        [17, 65, 365],
        "{cost:?}"
    );
}
