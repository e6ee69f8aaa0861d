//! The page ↔ worker protocol, in a real browser (headless Chromium):
//! `CHROMEDRIVER=/usr/bin/chromedriver cargo test -p d9lens-web --target wasm32-unknown-unknown`.
#![cfg(target_arch = "wasm32")]

use d9lens_core::analysis::inspect::{InspectAnswer, InspectQuery};
use d9lens_core::analysis::{FileOutcome, Options, analyze_file};
use d9lens_core::bucket::listing_plan::{ListRequest, ListingLimits, ListingProgress};
use d9lens_core::bucket::scope::Period;
use d9lens_core::bucket::spec::SelectionSpec;
use d9lens_web::protocol::{self, CatalogReply, CatalogRequest, FromWorker, Phase, ToWorker};
use d9lens_web::worker;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The last, short segment of the rotation fixture (13 KB, 8 events).
const SMALL_TRACE: &[u8] = include_bytes!("fixtures/rotation-trace.4.bin");

fn analyze_request(id: u32, name: &str, bytes: &[u8]) -> ToWorker {
    ToWorker::Analyze {
        id,
        name: name.into(),
        options: Options::default(),
        bytes: bytes.to_vec(),
        relay: None,
        inspect: None,
    }
}

#[wasm_bindgen_test]
fn analyze_request_round_trips_with_its_bytes_as_an_array_buffer() {
    let bytes: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
    let (msg, transfer) = protocol::encode_to_worker(analyze_request(7, "a/b.bin.gz", &bytes));
    assert_eq!(transfer.length(), 1);
    assert!(transfer.get(0).is_instance_of::<js_sys::ArrayBuffer>());
    let header = js_sys::Reflect::get(&msg, &"header".into())
        .unwrap()
        .as_string()
        .unwrap();
    assert!(header.starts_with("{\"analyze\":{"), "{header}");
    assert!(
        !header.contains("bytes"),
        "bytes travel outside the JSON header: {header}"
    );

    let ToWorker::Analyze {
        id,
        name,
        options,
        bytes: decoded,
        relay,
        ..
    } = protocol::decode_to_worker(&msg).unwrap()
    else {
        panic!("an Analyze request decodes as Analyze")
    };
    assert_eq!((id, name.as_str()), (7, "a/b.bin.gz"));
    assert_eq!(options.reference_compatible, Options::default().reference_compatible);
    assert_eq!(decoded, bytes);
    assert!(relay.is_none(), "analyzed where it is sent unless it has a relay");
}

#[wasm_bindgen_test]
fn transferring_the_buffer_detaches_it_from_the_sender() {
    let buffer = js_sys::Uint8Array::from(&[1u8, 2, 3][..]).buffer();
    let (msg, transfer) = protocol::encode(analyze_request(1, "x.bin", &[]), Some(buffer.clone()));
    let channel = web_sys::MessageChannel::new().unwrap();
    channel.port1().post_message_with_transferable(&msg, &transfer).unwrap();
    assert_eq!(
        buffer.byte_length(),
        0,
        "the page gives the bytes away instead of copying them"
    );
}

#[wasm_bindgen_test]
fn worker_messages_round_trip() {
    let outcome = analyze_file("t.bin", SMALL_TRACE, &Options::default());
    let timeline = Options {
        timeline: true,
        ..Options::default()
    };
    let with_timeline = analyze_file("t.bin", SMALL_TRACE, &timeline);
    assert!(with_timeline.timeline.is_some());
    let messages = vec![
        FromWorker::Ready,
        FromWorker::Progress {
            id: 3,
            phase: Phase::Inflating,
            bytes: 12,
            events: 0,
        },
        FromWorker::Progress {
            id: 3,
            phase: Phase::Analyzing,
            bytes: 12,
            events: 8,
        },
        FromWorker::Done {
            id: 3,
            outcome: outcome.clone(),
            analysis_ms: 12.5,
        },
        FromWorker::Done {
            id: 5,
            outcome: with_timeline,
            analysis_ms: 1.0,
        },
        FromWorker::Inspected {
            id: 6,
            answer: InspectAnswer::NotFound,
        },
        FromWorker::Failed {
            id: 4,
            message: "nope".into(),
        },
    ];
    for msg in messages {
        let (js, transfer) = protocol::encode_from_worker(msg.clone());
        let has_bytes = matches!(&msg, FromWorker::Done { .. });
        assert_eq!(
            transfer.length(),
            u32::from(has_bytes),
            "a file's outcome moves beside the JSON"
        );
        let back = protocol::decode_from_worker(&js).unwrap();
        assert_eq!(format!("{msg:?}"), format!("{back:?}"));
    }
    assert!(protocol::decode_from_worker(&"{\"bogus\":{}}".into()).is_err());
    assert!(protocol::decode_from_worker(&wasm_bindgen::JsValue::from_f64(1.0)).is_err());
    // A file's answer whose outcome is missing or unreadable is an error the
    // pool turns into that file's failure.
    let (js, _) = protocol::encode_from_worker(FromWorker::Done {
        id: 3,
        outcome,
        analysis_ms: 1.0,
    });
    js_sys::Reflect::set(
        &js,
        &"bytes".into(),
        &js_sys::Uint8Array::from(&b"D9FO\x01junk"[..]).buffer(),
    )
    .unwrap();
    let err = protocol::decode_from_worker(&js).unwrap_err();
    assert!(err.0.contains("bad file outcome"), "{err}");
    js_sys::Reflect::delete_property(js.unchecked_ref::<js_sys::Object>(), &"bytes".into()).unwrap();
    assert!(protocol::decode_from_worker(&js).is_err());
}

/// The outcome and time of file `id` in the last message posted, which must be its `Done`.
fn last_done(id: u32, posted: &[FromWorker]) -> (&FileOutcome, f64) {
    match posted.last() {
        Some(FromWorker::Done {
            id: done,
            outcome,
            analysis_ms,
            ..
        }) if *done == id => (outcome, *analysis_ms),
        _ => panic!("no Done for file {id}: {posted:?}"),
    }
}

/// Runs the worker's message handler on an encoded request, as the worker would.
fn run_handler(msg: &wasm_bindgen::JsValue) -> Vec<FromWorker> {
    let posted = Rc::new(RefCell::new(Vec::new()));
    let sink = posted.clone();
    worker::handle_js(msg, move |m| sink.borrow_mut().push(m));
    posted.take()
}

#[wasm_bindgen_test]
fn handler_analyzes_a_trace_and_reports_progress_then_the_outcome() {
    let (msg, _) = protocol::encode_to_worker(analyze_request(11, "trace.4.bin", SMALL_TRACE));
    let posted = run_handler(&msg);
    assert!(
        matches!(posted.first(), Some(FromWorker::Progress { id: 11, phase: Phase::Decoding, bytes, .. }) if *bytes == SMALL_TRACE.len() as u64),
        "{posted:?}"
    );
    let (outcome, analysis_ms) = last_done(11, &posted);
    assert!(analysis_ms >= 0.0, "the worker times its own work: {analysis_ms}");
    let expected: FileOutcome = analyze_file("trace.4.bin", SMALL_TRACE, &Options::default());
    assert_eq!(outcome.events, expected.events);
    assert_eq!(outcome.raw_bytes, expected.raw_bytes);
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    assert_eq!(outcome.partial.file, "trace.4.bin");
    // The outcome survives the trip back to the page.
    let back = protocol::decode_from_worker(&protocol::encode_from_worker(posted.last().unwrap().clone()).0).unwrap();
    assert!(matches!(back, FromWorker::Done { id: 11, .. }));
}

#[wasm_bindgen_test]
fn handler_says_inflating_for_gzip_and_reports_a_corrupt_file_as_an_error() {
    // A gzip header followed by garbage: the core must answer with an error, not a panic.
    let bogus = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xde, 0xad, 0xbe, 0xef];
    let (msg, _) = protocol::encode_to_worker(analyze_request(12, "broken.bin.gz", &bogus));
    let posted = run_handler(&msg);
    assert!(
        matches!(
            posted.first(),
            Some(FromWorker::Progress {
                phase: Phase::Inflating,
                ..
            })
        ),
        "{posted:?}"
    );
    let (outcome, _) = last_done(12, &posted);
    let error = outcome.error.as_ref().expect("a corrupt gzip is an error");
    assert_eq!(error.file, "broken.bin.gz");
}

#[wasm_bindgen_test]
fn a_warm_up_request_is_not_answered_and_leaves_the_worker_analyzing() {
    let (msg, _) = protocol::encode_to_worker(ToWorker::WarmUp {
        heap_bytes: 8 << 20,
        page: false,
        downloads: 1,
    });
    assert!(run_handler(&msg).is_empty());
    let (msg, _) = protocol::encode_to_worker(analyze_request(13, "trace.4.bin", SMALL_TRACE));
    let posted = run_handler(&msg);
    let (outcome, _) = last_done(13, &posted);
    assert_eq!(
        outcome.events,
        analyze_file("trace.4.bin", SMALL_TRACE, &Options::default()).events
    );
}

#[wasm_bindgen_test]
async fn a_warm_up_for_the_page_answers_with_an_outcome_the_page_readies_itself_on() {
    let (msg, _) = protocol::encode_to_worker(ToWorker::WarmUp {
        heap_bytes: 0,
        page: true,
        downloads: 1,
    });
    let posted = run_handler(&msg);
    let [FromWorker::WarmedUp { .. }] = posted.as_slice() else {
        panic!("one answer: {posted:?}")
    };
    // The page gets the outcome's bytes as they were posted: a whole
    // outcome of the warm-up trace, with its timeline.
    let back = protocol::decode_from_worker(&protocol::encode_from_worker(posted[0].clone()).0).unwrap();
    let FromWorker::WarmedUp { outcome } = back else {
        panic!("{back:?}")
    };
    let answer = d9lens_core::analysis::wire::decode(&outcome).unwrap();
    assert!(answer.error.is_none() && answer.events > 1000, "{:?}", answer.error);
    assert!(answer.timeline.is_some_and(|t| !t.lanes.is_empty()));
    // The page's side runs in tasks; the page stays usable meanwhile and after.
    d9lens_web::page::warm_up::page(outcome);
    sleep(400).await;
    let posted = run_handler(&protocol::encode_to_worker(analyze_request(14, "trace.4.bin", SMALL_TRACE)).0);
    assert!(last_done(14, &posted).0.error.is_none());
}

#[wasm_bindgen_test]
fn handler_rejects_a_malformed_request_with_its_id() {
    let msg = js_sys::Object::new();
    js_sys::Reflect::set(
        &msg,
        &"header".into(),
        &"{\"analyze\":{\"id\":5,\"name\":\"x\",\"options\":{}}}".into(),
    )
    .unwrap();
    let posted = run_handler(&msg.into());
    assert!(
        matches!(posted.as_slice(), [FromWorker::Failed { id: 5, .. }]),
        "{posted:?}"
    );

    let posted = run_handler(&wasm_bindgen::JsValue::from_str("hello"));
    assert!(
        matches!(posted.as_slice(), [FromWorker::Failed { id: u32::MAX, .. }]),
        "{posted:?}"
    );
}

/// One catalog request through the worker's handler, as the catalog worker runs it.
fn catalog_call(id: u32, request: CatalogRequest) -> CatalogReply {
    let (msg, _) = protocol::encode_to_worker(ToWorker::Catalog { id, request });
    match run_handler(&msg).as_slice() {
        [FromWorker::Catalog { id: answered, reply }] if *answered == id => reply.clone(),
        other => panic!("expected one catalog answer for {id}: {other:?}"),
    }
}

/// A ListObjectsV2 page as S3 writes it: two segments of one boot and a non-segment.
const LISTING_PAGE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix></Prefix>
<NextContinuationToken>page-2</NextContinuationToken><KeyCount>3</KeyCount><MaxKeys>3</MaxKeys><IsTruncated>true</IsTruncated>
<Contents><Key>README.txt</Key><LastModified>2026-11-30T14:00:00.000Z</LastModified><ETag>&quot;aa&quot;</ETag><Size>94</Size></Contents>
<Contents><Key>version=1/date=2026-11-30/service=payments%2Fapi/time=2359/instance=ip-10-0-1-88/boot=lovg-24843/1796083180-0.bin.gz</Key><LastModified>2026-11-30T23:59:55.000Z</LastModified><ETag>&quot;bb&quot;</ETag><Size>57401</Size></Contents>
<Contents><Key>version=1/date=2026-11-30/service=payments%2Fapi/time=2359/instance=ip-10-0-1-88/boot=lovg-24843/1796083195-1.bin.gz</Key><LastModified>2026-12-01T00:00:10.000Z</LastModified><ETag>&quot;cc&quot;</ETag><Size>59435</Size></Contents>
</ListBucketResult>"#;

/// The catalog worker's walk: the listings it plans, and where it stands.
fn planned(reply: CatalogReply) -> (Vec<ListRequest>, ListingProgress, u64) {
    match reply {
        CatalogReply::Planned {
            requests,
            progress,
            objects,
            ..
        } => (requests, progress, objects),
        other => panic!("expected the walk's plan: {other:?}"),
    }
}

#[wasm_bindgen_test]
fn catalog_requests_walk_parse_summarize_and_resolve_in_the_worker() {
    let start = CatalogRequest::Start {
        prefix: String::new(),
        limits: ListingLimits::default(),
        period: Period::All,
    };
    let (requests, progress, objects) = planned(catalog_call(1, start));
    assert_eq!((progress.partitions, progress.done, objects), (1, false, 0));
    let [root] = requests.as_slice() else {
        panic!("{requests:?}")
    };
    assert_eq!(
        (root.list.prefix.as_str(), root.list.delimiter.as_deref()),
        ("", Some("/"))
    );

    let page = CatalogRequest::AddPage {
        listing: root.id,
        bytes: LISTING_PAGE.as_bytes().to_vec(),
    };
    let (requests, progress, objects) = planned(catalog_call(2, page));
    assert_eq!((objects, progress.pages), (3, 1));
    // The root listing continues from its token.
    let [next] = requests.as_slice() else {
        panic!("{requests:?}")
    };
    assert_eq!(next.list.continuation_token.as_deref(), Some("page-2"));

    let CatalogReply::Summary { summary, .. } = catalog_call(3, CatalogRequest::Summary) else {
        panic!("no summary")
    };
    assert_eq!(summary.segments, 2);
    assert_eq!(
        summary.services.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["payments/api"]
    );
    assert_eq!(summary.others.iter().map(|g| g.objects.len()).sum::<usize>(), 1);

    let spec = SelectionSpec::Host {
        service: "payments/api".into(),
        instance: "ip-10-0-1-88".into(),
        // After the first segment's upload (23:59:55): only the second overlaps.
        from: 1_796_083_196,
        to: 1_796_083_200,
    };
    let CatalogReply::Resolved { selection, coverage } = catalog_call(4, CatalogRequest::Resolve { spec }) else {
        panic!("no selection")
    };
    assert_eq!(coverage, None, "only a sample says what it covers");
    assert_eq!(
        selection.keys().map(|k| &k[k.len() - 19..]).collect::<Vec<_>>(),
        ["1796083195-1.bin.gz"]
    );
    assert_eq!(selection.segments[0].segment.etag.as_deref(), Some("\"cc\""));

    // An answer that is not a listing leaves the catalog as it was and its prefix not listed.
    let page = CatalogRequest::AddPage {
        listing: next.id,
        bytes: b"<Error><Code>AccessDenied</Code></Error>".to_vec(),
    };
    let (requests, progress, objects) = planned(catalog_call(5, page));
    assert!(requests.is_empty() && progress.done);
    assert_eq!(objects, 3);
    assert_eq!(progress.not_listed_count, 1);
    assert!(
        progress.not_listed[0]
            .to_string()
            .contains("not a ListObjectsV2 listing"),
        "{:?}",
        progress.not_listed
    );
    // The finished walk says what it covers: everything, no window to pick.
    let reply = catalog_call(
        6,
        CatalogRequest::SetPeriod {
            period: Period::Last { secs: 3600 },
        },
    );
    let CatalogReply::Planned { view: Some(view), .. } = reply else {
        panic!("no view of the finished walk: {reply:?}")
    };
    // No dated partition in this listing: nothing to count back from, and the
    // shape (the root's listing) says so.
    assert_eq!((view.window, view.shape.newest_secs), (None, None));
    // An answer to no request of the walk is refused.
    let stray = CatalogRequest::ListingFailed {
        listing: 99,
        message: "x".into(),
    };
    assert!(matches!(catalog_call(60, stray), CatalogReply::Failed { .. }));
    // A new walk starts from nothing.
    let start = CatalogRequest::Start {
        prefix: "x/".into(),
        limits: ListingLimits::default(),
        period: Period::All,
    };
    let (requests, ..) = planned(catalog_call(7, start));
    assert_eq!(requests[0].list.prefix, "x/");
    let CatalogReply::Summary { summary, .. } = catalog_call(8, CatalogRequest::Summary) else {
        panic!("no summary")
    };
    assert_eq!(summary.objects, 0);
}

#[wasm_bindgen_test]
fn a_malformed_catalog_request_is_answered_as_a_catalog_failure() {
    let msg = js_sys::Object::new();
    js_sys::Reflect::set(
        &msg,
        &"header".into(),
        &"{\"catalog\":{\"id\":9,\"request\":\"bogus\"}}".into(),
    )
    .unwrap();
    let posted = run_handler(&msg.into());
    assert!(
        matches!(
            posted.as_slice(),
            [FromWorker::Catalog {
                id: 9,
                reply: CatalogReply::Failed { .. }
            }]
        ),
        "{posted:?}"
    );
}

/// A small real gzip segment (the workers' warm-up trace).
const SMALL_GZIP: &[u8] = include_bytes!("../assets/warm-up.bin.gz");

async fn sleep(ms: i32) {
    let wait = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(wait).await.unwrap();
}

/// One file through both halves, as two workers take it: the decoding
/// handler listens on one end of a real `MessageChannel`, the unpacking
/// handler streams into the other, both with the run's `options`. What each
/// posts to the page.
async fn on_two_workers(id: u32, name: &str, bytes: &[u8], options: &Options) -> (Vec<FromWorker>, Vec<FromWorker>) {
    let channel = web_sys::MessageChannel::new().unwrap();
    let decoded = Rc::new(RefCell::new(Vec::new()));
    let sink = decoded.clone();
    let decode = ToWorker::Decode {
        id,
        name: name.into(),
        options: options.clone(),
        from: Some(channel.port2()),
    };
    worker::handle_js(&protocol::encode(decode, None).0, move |m| sink.borrow_mut().push(m));
    let mut unpack = ToWorker::Analyze {
        id,
        name: name.into(),
        options: options.clone(),
        bytes: bytes.to_vec(),
        relay: None,
        inspect: None,
    };
    unpack.set_relay(channel.port1());
    let unpacked = run_handler(&protocol::encode_to_worker(unpack).0);
    for _ in 0..250 {
        if decoded
            .borrow()
            .iter()
            .any(|m| matches!(m, FromWorker::Done { .. } | FromWorker::Failed { .. }))
        {
            break;
        }
        sleep(20).await;
    }
    (unpacked, decoded.take())
}

#[wasm_bindgen_test]
async fn a_file_on_two_workers_gives_the_outcome_of_one() {
    let json = |o: &FileOutcome| serde_json::to_string(o).unwrap();
    let cut = &SMALL_GZIP[..SMALL_GZIP.len() / 2];
    for (what, bytes) in [
        ("whole gzip", SMALL_GZIP),
        ("gzip cut short", cut),
        ("raw trace", SMALL_TRACE),
    ] {
        // The page's options: the decoding half reads them too (the request detail).
        let options = Options {
            timeline: true,
            requests: true,
            ..Options::default()
        };
        let (unpacked, decoded) = on_two_workers(21, "seg.bin.gz", bytes, &options).await;
        // The unpacking worker says what it does, then that it is free; never Done.
        let phase = if bytes.starts_with(&[0x1f, 0x8b]) {
            Phase::Inflating
        } else {
            Phase::Decoding
        };
        assert!(
            matches!(unpacked.first(), Some(FromWorker::Progress { id: 21, phase: p, bytes: b, .. }) if *p == phase && *b == bytes.len() as u64),
            "{what}: {unpacked:?}"
        );
        assert!(
            matches!(unpacked.last(), Some(FromWorker::Relayed { id: 21 })),
            "{what}: {unpacked:?}"
        );
        assert!(!unpacked.iter().any(|m| matches!(m, FromWorker::Done { .. })), "{what}");
        let (outcome, analysis_ms) = last_done(21, &decoded);
        assert!(analysis_ms >= 0.0, "{what}: {analysis_ms}");
        let one = analyze_file("seg.bin.gz", bytes, &options);
        assert_eq!(json(outcome), json(&one), "{what}");
        assert!(outcome.error.is_some() || outcome.partial.detail.is_some(), "{what}");
    }
    let (_, decoded) = on_two_workers(22, "cut.bin.gz", cut, &Options::default()).await;
    let (outcome, _) = last_done(22, &decoded);
    let error = outcome.error.as_ref().expect("a gzip cut short is an error");
    assert!(error.message.contains("gzip") && error.offset.is_some(), "{error:?}");
}

#[wasm_bindgen_test]
fn the_page_gets_each_files_timeline_and_answers_to_its_questions() {
    let mut request = analyze_request(21, "trace.4.bin", SMALL_TRACE);
    if let ToWorker::Analyze { options, .. } = &mut request {
        options.timeline = true;
    }
    let posted = run_handler(&protocol::encode_to_worker(request).0);
    let Some(FromWorker::Done { outcome, .. }) = posted.last() else {
        panic!("a Done: {posted:?}")
    };
    let back = protocol::decode_from_worker(&protocol::encode_from_worker(posted.last().unwrap().clone()).0);
    let Ok(FromWorker::Done {
        outcome: FileOutcome {
            timeline: Some(timeline),
            ..
        },
        ..
    }) = back
    else {
        panic!("the outcome reaches the page with its timeline: {outcome:?}")
    };
    let lane = timeline.lanes.first().expect("a worker lane");
    let (worker, start) = (lane.worker, lane.polls.start(0));

    let mut ask = analyze_request(22, "trace.4.bin", SMALL_TRACE);
    if let ToWorker::Analyze { inspect, .. } = &mut ask {
        *inspect = Some(InspectQuery::Poll { worker, start });
    }
    let posted = run_handler(&protocol::encode_to_worker(ask).0);
    match posted.as_slice() {
        [
            FromWorker::Inspected {
                id: 22,
                answer: InspectAnswer::Poll(p),
            },
        ] => {
            assert_eq!((p.worker, p.start_ns), (worker, start));
        }
        other => panic!("one answer to the question: {other:?}"),
    }

    // A window's analysis comes back as a partial of the file, to merge.
    let window = d9lens_core::trace::Window::new(0, start - timeline.start + 1);
    let mut ask = analyze_request(23, "trace.4.bin", SMALL_TRACE);
    if let ToWorker::Analyze { inspect, .. } = &mut ask {
        *inspect = Some(InspectQuery::Analysis { window });
    }
    let posted = run_handler(&protocol::encode_to_worker(ask).0);
    match posted.as_slice() {
        [
            FromWorker::Inspected {
                id: 23,
                answer: InspectAnswer::Analysis(partial),
            },
        ] => {
            assert_eq!(partial.file, "trace.4.bin");
            assert!(partial.worker_stats.get(&worker).is_some_and(|w| w.poll_count >= 1));
            assert!(
                partial
                    .bounds
                    .is_some_and(|(lo, hi)| lo == timeline.start && hi <= timeline.end)
            );
        }
        other => panic!("one partial: {other:?}"),
    }
}
