//! Arbitrary bytes → a walk of a bucket: S3's listing answers as dial9's
//! bucket model reads them (the listing plan, key layouts, the catalog and
//! its summary, selections of segments). The input is the answers to the
//! walk's requests in the order it sends them, separated by NUL bytes (which
//! no XML holds); an empty answer, or none left, stands for a failed
//! request. Any panic, abort, OOM or hang is a bug.
#![no_main]

use d9lens_core::bucket::listing_plan::ListingLimits;
use d9lens_core::bucket::spec::SelectionSpec;
use d9lens_core::bucket::walk::BucketWalk;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut answers = data.split(|&b| b == 0);
    let mut walk = BucketWalk::new("", ListingLimits::default());
    while !walk.is_done() {
        for request in walk.next_requests() {
            let fed = match answers.next() {
                Some(body) if !body.is_empty() => walk.on_body(request.id, body),
                _ => walk.on_failed(request.id, "no answer"),
            };
            // Only an answer to a request nobody sent may be refused.
            assert!(!matches!(fed, Err(d9lens_core::bucket::walk::WalkError::Plan(_))), "{fed:?}");
        }
    }
    let catalog = walk.catalog();
    let summary = catalog.summary();
    let (from, to) = summary
        .time_range
        .map_or((0, u64::MAX), |r| (r.first_start_secs, r.last_start_secs.saturating_add(1)));
    let host = catalog.hosts().next().cloned();
    let mut specs = vec![
        SelectionSpec::Fleet { service: None, from, to },
        SelectionSpec::Sample {
            service: None,
            n: 7,
            from,
            to,
        },
    ];
    if let Some(host) = host {
        specs.push(SelectionSpec::Host {
            service: host.service.clone(),
            instance: host.instance.clone(),
            from,
            to,
        });
    }
    if let Some(segment) = catalog.segments().first() {
        specs.push(SelectionSpec::Single {
            key: segment.key.clone(),
        });
    }
    for spec in specs {
        let _ = spec.resolve(catalog);
    }
});
