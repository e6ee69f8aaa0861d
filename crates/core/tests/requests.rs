//! Requests on the real fixtures: span instances with their fields against
//! what dial9's own parser makes of them (`trace_parser.js` + `buildSpanData`,
//! saved by `scripts/span-oracle.mjs` as `*.spans.json`), time splits,
//! parents, task dumps and custom events.

mod common;
use common::*;
use d9lens_core::analysis::{Options, analyze_file};
use d9lens_core::requests::detail::{FileDetail, NONE};
use serde_json::Value;
use std::collections::BTreeMap;

fn with_requests() -> Options {
    Options {
        requests: true,
        ..Options::default()
    }
}

fn detail(rel: &str) -> FileDetail {
    let outcome = analyze_file(rel, &read(rel), &with_requests());
    assert!(outcome.error.is_none(), "{rel}: {:?}", outcome.error);
    *outcome.partial.detail.expect("asked for")
}

fn oracle(rel: &str) -> Value {
    serde_json::from_slice(&read(&format!("{rel}.spans.json"))).unwrap()
}

/// Span name → (instances, field → value → count), as the detail has them.
type Counts = BTreeMap<String, (u64, BTreeMap<String, BTreeMap<String, u64>>)>;

fn counts(d: &FileDetail) -> Counts {
    let mut out = Counts::new();
    for s in &d.spans {
        let e = out.entry(d.text(s.name).to_string()).or_default();
        e.0 += 1;
        for &(k, v) in d.fields_of(s) {
            *e.1.entry(d.text(k).into())
                .or_default()
                .entry(d.text(v).into())
                .or_default() += 1;
        }
    }
    out
}

/// The oracle's field counts of one span name: a value → count map, or for
/// a field with many values its distinct count, total and top ten.
fn check_fields(rel: &str, name: &str, ours: &BTreeMap<String, BTreeMap<String, u64>>, theirs: &Value) {
    let theirs = theirs.as_object().unwrap();
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        theirs.keys().collect::<Vec<_>>(),
        "{rel} {name}: field names"
    );
    for (field, values) in theirs {
        let ours = &ours[field];
        if let Some(distinct) = values.get("__distinct") {
            assert_eq!(
                ours.len() as u64,
                distinct.as_u64().unwrap(),
                "{rel} {name}.{field}: distinct"
            );
            let total: u64 = ours.values().sum();
            assert_eq!(
                total,
                values["__total"].as_u64().unwrap(),
                "{rel} {name}.{field}: total"
            );
            for pair in values["__top"].as_array().unwrap() {
                let (v, n) = (pair[0].as_str().unwrap(), pair[1].as_u64().unwrap());
                assert_eq!(ours.get(v), Some(&n), "{rel} {name}.{field}={v}");
            }
        } else {
            let theirs: BTreeMap<String, u64> = values
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
                .collect();
            assert_eq!(ours, &theirs, "{rel} {name}.{field}");
        }
    }
}

#[test]
fn spans_and_their_fields_equal_what_dial9s_parser_makes_of_them() {
    for rel in ["healthy.bin", "blocking.bin", "demo-trace.bin"] {
        let ours = counts(&detail(rel));
        let theirs = oracle(rel);
        let mut expected: BTreeMap<String, u64> = BTreeMap::new();
        for key in ["spans", "singleEventSpans"] {
            for (name, s) in theirs[key].as_object().unwrap() {
                *expected.entry(name.clone()).or_default() += s["count"].as_u64().unwrap();
            }
        }
        let got: BTreeMap<String, u64> = ours.iter().map(|(n, (c, _))| (n.clone(), *c)).collect();
        assert_eq!(got, expected, "{rel}: instances by name");
        for (name, s) in theirs["spans"].as_object().unwrap() {
            // Names shared with single-event spans would mix their fields.
            if theirs["singleEventSpans"].get(name).is_none() {
                check_fields(rel, name, &ours[name].1, &s["fields"]);
            }
        }
        for (name, s) in theirs["singleEventSpans"].as_object().unwrap() {
            for (field, f) in s["fields"].as_object().unwrap() {
                let n: u64 = ours[name].1.get(field).map_or(0, |v| v.values().sum());
                assert_eq!(n, f["count"].as_u64().unwrap(), "{rel} {name}.{field}");
            }
        }
    }
}

#[test]
fn each_time_split_adds_up_to_its_span() {
    for rel in ["healthy.bin", "blocking.bin", "demo-trace.bin"] {
        let d = detail(rel);
        let mut split = 0;
        for s in &d.spans {
            if let Some(sp) = s.split {
                assert_eq!(sp.total(), s.dur, "{rel}: {} at {}", d.text(s.name), s.start);
                split += 1;
            }
        }
        // Every span of these traces ran in a task the trace polled.
        assert!(split * 100 >= d.spans.len() * 99, "{rel}: {split} of {}", d.spans.len());
    }
}

#[test]
fn spans_nest_in_their_task_and_declared_parents_are_kept() {
    let d = detail("blocking.bin");
    let name = |i: u32| d.text(d.spans[i as usize].name);
    let mut parents: BTreeMap<(&str, &str), u64> = BTreeMap::new();
    for s in &d.spans {
        let p = if s.parent == NONE { "-" } else { name(s.parent) };
        *parents.entry((d.text(s.name), p)).or_default() += 1;
    }
    // The sleep runs inside the request's own poll: the request is its parent.
    assert_eq!(
        parents.get(&("legacy_sync_lookup", "handle_request")),
        Some(&36),
        "{parents:?}"
    );
    assert_eq!(
        parents.get(&("parse_request", "handle_request")),
        Some(&1021),
        "{parents:?}"
    );
    assert_eq!(parents.get(&("db_query", "handle_request")), Some(&1420), "{parents:?}");
    assert_eq!(parents.get(&("handle_request", "-")), Some(&1021), "{parents:?}");
    // demo-trace declares put_aggregate's parent.
    let d = detail("demo-trace.bin");
    let declared = d
        .spans
        .iter()
        .filter(|s| d.text(s.name) == "put_aggregate")
        .filter(|s| s.parent != NONE && d.text(d.spans[s.parent as usize].name) == "flush_to_ddb")
        .count();
    assert_eq!(declared, 20);
    assert_eq!(d.parents_cut, 0);
}

#[test]
fn the_explorer_filters_by_field_and_splits_sum_per_name() {
    use d9lens_core::requests::explore::explore;
    use d9lens_core::requests::query::Query;
    let r = analyze(&["healthy.bin"], &with_requests(), None);
    let all = explore(&r.requests, &Query::default());
    let handle = all.spans.iter().find(|s| s.name == "handle_request").unwrap();
    assert_eq!(handle.count, 1488);
    assert_eq!(
        handle.split.total() + handle.unattributed_ns,
        handle.total_ns,
        "the parts add up to the instances' time"
    );
    let routes = handle.fields.iter().find(|f| f.name == "route").unwrap();
    let (route, n) = routes.values[0].clone();
    // Filtered by that route: only its instances, and their children inherit it.
    let q = Query {
        fields: vec![("route".into(), route.clone())],
        ..Query::default()
    };
    let some = explore(&r.requests, &q);
    let handle = some.spans.iter().find(|s| s.name == "handle_request").unwrap();
    assert_eq!(handle.count, n);
    let fields = handle.fields.iter().find(|f| f.name == "route").unwrap();
    assert_eq!(fields.values, [(route, n)]);
    let parse = some.spans.iter().find(|s| s.name == "parse_request").unwrap();
    assert_eq!(parse.count, n, "each request parses once, under its route");
    // A value no span has: nothing.
    let q = Query {
        fields: vec![("route".into(), "DELETE /nothing".into())],
        ..Query::default()
    };
    assert!(explore(&r.requests, &q).spans.is_empty());
    // The exemplars are the slowest, slowest first, with their moment.
    let e = &handle.exemplars;
    assert!(e.windows(2).all(|w| w[0].dur_ns >= w[1].dur_ns));
    assert_eq!(e[0].dur_ns, handle.max_ns.min(e[0].dur_ns).max(e[0].dur_ns));
    assert_eq!(e[0].moment.file, "healthy.bin");
    // Their async wait by await: the dumps inside each instance, named by a frame.
    let d = &r.requests.files[0];
    let (mut dumps, mut idle) = (0, 0);
    for s in d
        .spans
        .iter()
        .filter(|s| d.text(s.name) == "handle_request" && s.task != 0)
    {
        for x in d.dumps_of(s.task, s.start, s.end()) {
            dumps += 1;
            idle += x.idle_ns.min(s.end() - x.ts);
        }
    }
    let handle = all.spans.iter().find(|s| s.name == "handle_request").unwrap();
    let a = &handle.awaits;
    assert!(dumps > 0 && a.len() < 10, "{a:?}");
    assert_eq!(a.iter().map(|x| x.dumps).sum::<u64>(), dumps);
    assert_eq!(a.iter().map(|x| x.wait_ns).sum::<u64>(), idle);
    assert!(a.windows(2).all(|w| w[0].wait_ns >= w[1].wait_ns));
    assert!(a[0].frame.contains(".rs:"), "{a:?}");
}

#[test]
fn slow_requests_of_blocking_bin_are_the_sleeping_lookup() {
    use d9lens_core::requests::query::Query;
    use d9lens_core::requests::slow::{Threshold, slow_vs_typical};
    let r = analyze(&["blocking.bin"], &with_requests(), None);
    let q = Query {
        name: Some("handle_request".into()),
        ..Query::default()
    };
    let s = slow_vs_typical(&r.requests, &q, Threshold::Percentile(95.0)).unwrap();
    assert!(s.slow > 0 && s.typical > s.slow, "{} / {}", s.slow, s.typical);
    // The extra time is in the child span that sleeps…
    assert_eq!(s.children[0].name, "legacy_sync_lookup", "{:?}", s.children);
    assert!(s.children[0].extra_ns() > 10_000_000, "{:?}", s.children[0]);
    // …blocked inside a poll…
    assert_eq!(s.parts[0].name, "blocked in a poll", "{:?}", s.parts);
    // …by the application's call to legacy_sync_lookup.
    let call = &s.blocking[0];
    assert!(call.frame.symbol.contains("legacy_sync_lookup"), "{:?}", call.frame);
    // The differential flamegraph has both sides.
    assert!(s.slow_profiles.total(d9lens_core::report::SampleKind::Blocking) > 0);
    assert!(s.typical_profiles.total(d9lens_core::report::SampleKind::OnCpu) > 0);
    assert_eq!(s.exemplars.len(), 10);
    assert!(s.exemplars[0].dur_ns > s.threshold_ns);
}

#[test]
fn where_tasks_wait_weighs_each_dump_by_the_idle_time_after_it() {
    use d9lens_core::report::SampleKind;
    let r = analyze(&["healthy.bin"], &with_requests(), None);
    let d = &r.requests.files[0];
    assert_eq!(d.dumps.len(), 1094);
    assert_eq!(r.summary.task_dumps, 1094);
    let idle: u64 = d.dumps.iter().map(|x| x.idle_ns).sum();
    assert!(idle > 0);
    assert_eq!(r.summary.task_dump_idle_ns, idle);
    assert_eq!(r.profiles.total(SampleKind::Waits), idle);
    // A dump's idle time ends at the task's next dump, if not before.
    for w in d.dumps.windows(2).filter(|w| w[0].task == w[1].task) {
        assert!(w[0].ts + w[0].idle_ns <= w[1].ts, "{:?}", w);
    }
}

#[test]
fn a_tasks_history_names_the_await_of_each_idle_gap() {
    use d9lens_core::analysis::inspect::{InspectAnswer, InspectQuery, inspect};
    use d9lens_core::trace::WorkerEventKind;
    let bytes = read("healthy.bin");
    let raw = d9lens_core::container::raw_trace(&bytes, usize::MAX).unwrap();
    let parsed = || d9lens_core::trace::parse_trace(&raw).0;
    let trace = parsed();
    // A poll of a dumped task, and the detail's name for what that task awaited.
    let d = detail("healthy.bin");
    let dump = d.dumps.iter().find(|x| x.idle_ns > 0).expect("a dump with idle time");
    let (worker, start) = trace
        .workers
        .iter()
        .flat_map(|(&w, events)| events.iter().map(move |e| (w, e)))
        .find_map(|(w, e)| match e.kind {
            WorkerEventKind::PollStart { task_id, .. } if task_id == dump.task && e.ts <= dump.ts => Some((w, e.ts)),
            _ => None,
        })
        .expect("a poll of the dumped task");
    let InspectAnswer::Poll(p) = inspect("healthy.bin", parsed(), &InspectQuery::Poll { worker, start }) else {
        panic!("the poll is found")
    };
    let h = &p.history;
    assert!(h.polls.iter().any(|q| q.awaiting.is_some()), "{:?}", h.polls);
    for w in h.polls.windows(2) {
        // The gap after a poll runs to the next one.
        let gap = w[0].idle_after_ns.expect("not the last");
        let next = (w[0].start_ms * 1e6) as i128 + w[0].dur_ns as i128 + gap as i128;
        assert!((next - (w[1].start_ms * 1e6) as i128).abs() <= 2, "{w:?}");
    }
    assert!(h.polls.last().unwrap().idle_after_ns.is_none() || h.poll_count > h.polls.len());
    // Named as the frame the where-tasks-wait flamegraph names the dump by.
    let frames = d.frames.clone();
    let named = d9lens_core::profile::calls::naming_frame(
        &d.stacks
            .get(dump.stack)
            .iter()
            .filter_map(|&f| frames.get(f).cloned())
            .collect::<Vec<_>>(),
    )
    .map(|f| d9lens_core::frames::format_frame(&f.symbol, f.location.as_deref()));
    assert!(
        h.polls.iter().any(|q| q.awaiting == named),
        "{named:?} in {:?}",
        h.polls
    );
}

#[test]
fn accept_queue_samples_and_metrique_entries_keep_their_units() {
    use d9lens_core::requests::events::summarize;
    use d9lens_core::trace::MetricKind;
    let r = analyze(&["demo-trace.bin"], &with_requests(), None);
    let events = summarize(&r.requests);
    let of = |name: &str| {
        events
            .iter()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    let field = |e: &str, f: &str| {
        of(e)
            .fields
            .iter()
            .find(|x| x.name == f)
            .cloned()
            .unwrap_or_else(|| panic!("{e}.{f}"))
    };
    assert_eq!(of("TcpAcceptQueueEvent").count, 10);
    let pending = field("TcpAcceptQueueEvent", "pending_connections");
    assert_eq!(pending.kind, Some(MetricKind::Gauge));
    assert_eq!(pending.count, 10);
    assert_eq!(of("metrique:RequestMetrics").count, 25_123);
    assert_eq!(field("metrique:RequestMetrics", "Latency").unit.as_deref(), Some("ms"));
    assert_eq!(
        field("metrique:RequestMetrics", "dial9.span.duration_ns")
            .unit
            .as_deref(),
        Some("ns")
    );
    let rss = field("ProcessResourceUsageEvent", "max_rss_bytes");
    assert_eq!(
        (rss.unit.as_deref(), rss.kind),
        (Some("bytes"), Some(MetricKind::Gauge))
    );
    // The metrique entries are spans too, with their attributes.
    let spans = d9lens_core::requests::explore::explore(&r.requests, &Default::default());
    let metrique: Vec<_> = spans
        .spans
        .iter()
        .filter(|s| ["RecordMetric", "QueryMetric"].contains(&s.name.as_str()))
        .collect();
    assert_eq!(metrique.iter().map(|s| s.count).sum::<u64>(), 25_123);
    for s in metrique {
        let mut names: Vec<&str> = s.fields.iter().map(|f| f.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, ["Latency", "MetricName", "Operation", "Success"], "{}", s.name);
    }
}

#[test]
fn the_process_cpu_and_accept_queue_peaks_carry_their_moment() {
    let r = analyze(&["healthy.bin"], &with_requests(), None);
    let flags: Vec<&str> = r.red_flags.iter().map(|f| f.check.as_str()).collect();
    // healthy.bin ran on 2 cores with room to spare; no accept queue was sampled.
    assert!(!flags.contains(&"process-cpu-saturated"), "{flags:?}");
    assert!(!flags.contains(&"accept-queue-near-backlog"), "{flags:?}");
    let d = analyze_file("healthy.bin", &read("healthy.bin"), &Options::default()).partial;
    let cpu = d.process.cpu.expect("52 usage samples");
    assert_eq!(cpu.available, Some(2));
    assert!(cpu.millicores > 0 && cpu.millicores < 2000, "{cpu:?}");
    assert!(cpu.at.dur_ns > 0);
    let demo = analyze_file("demo-trace.bin", &read("demo-trace.bin"), &Options::default()).partial;
    let q = demo.process.accept.expect("10 accept-queue samples");
    assert!(q.backlog > 0, "{q:?}");
    // 36 of the demo's tasks were spawned around dial9: a finding names the fix.
    assert_eq!(demo.process.uninstrumented, 36);
    let r = analyze(&["demo-trace.bin"], &Options::default(), None);
    let f = r
        .red_flags
        .iter()
        .find(|f| f.check == "tasks-not-instrumented")
        .expect("flagged");
    assert!(f.message.starts_with("36 task(s)"), "{}", f.message);
}

#[test]
fn spawn_to_first_poll_delays_are_each_tasks_first_poll_after_its_spawn() {
    use d9lens_core::trace::WorkerEventKind;
    for rel in ["healthy.bin", "blocking.bin", "demo-trace.bin"] {
        let bytes = read(rel);
        let raw = d9lens_core::container::raw_trace(&bytes, usize::MAX).unwrap();
        let trace = d9lens_core::trace::parse_trace(&raw).0;
        // Each task's earliest poll start, from the raw worker events.
        let mut first: BTreeMap<u64, u64> = BTreeMap::new();
        for e in trace.workers.values().flatten() {
            if let WorkerEventKind::PollStart { task_id, .. } = e.kind {
                let f = first.entry(task_id).or_insert(e.ts);
                *f = (*f).min(e.ts);
            }
        }
        let delays: Vec<(u64, u64, u64)> = trace
            .task_spawn_times
            .iter()
            .filter_map(|(&t, &s)| Some((first.get(&t)?.checked_sub(s)?, s, t)))
            .collect();
        let p = analyze_file(rel, &bytes, &Options::default())
            .partial
            .process
            .first_polls;
        let slow = delays.iter().filter(|d| d.0 > 5_000_000).count() as u64;
        assert_eq!(p.slow, slow, "{rel}");
        let max = delays.iter().map(|d| d.0).max().expect("tasks spawned and polled");
        let w = p.worst.expect("a worst");
        assert_eq!(w.at.dur_ns, max, "{rel}");
        assert!(delays.contains(&(max, w.at.start_ns, w.task)), "{rel}");
        assert_eq!(w.at.file, rel);
    }
}

#[test]
fn flamegraph_filters_keep_the_samples_they_name() {
    use d9lens_core::report::SampleKind as K;
    use d9lens_core::requests::detail::SampleKind;
    use d9lens_core::requests::filter::{PollBand, SampleFilter, choices, filtered};
    use d9lens_core::requests::profiles::profiles_of;
    use d9lens_core::requests::query::Query;
    let r = analyze(&["demo-trace.bin"], &with_requests(), None);
    let details = &r.requests;
    let d = &details.files[0];
    let on_cpu = |keep: &dyn Fn(&d9lens_core::requests::detail::SampleRow) -> bool| {
        d.samples
            .iter()
            .filter(|s| s.kind == SampleKind::OnCpu && keep(s))
            .count() as u64
    };
    let total = |f: SampleFilter| filtered(details, &f).total(K::OnCpu);
    // Unfiltered: every sample, and every dump by its idle time.
    let all = filtered(details, &SampleFilter::default());
    assert_eq!(all.total(K::OnCpu), on_cpu(&|_| true));
    assert_eq!(all.total(K::Waits), d.dumps.iter().map(|x| x.idle_ns).sum::<u64>());
    // Poll bands split the samples taken in a poll.
    let banded: u64 = PollBand::ALL
        .into_iter()
        .map(|b| {
            total(SampleFilter {
                poll_band: Some(b),
                ..SampleFilter::default()
            })
        })
        .sum();
    assert_eq!(banded, on_cpu(&|s| s.poll_dur > 0));
    let c = choices(details);
    // A spawn location: its tasks' samples; a runtime: its workers' (and no dumps).
    let loc = c.spawn_locs[0].clone();
    assert_eq!(
        total(SampleFilter {
            spawn_loc: Some(loc.clone()),
            ..SampleFilter::default()
        }),
        on_cpu(&|s| s.task != 0 && d.spawn_loc(s.task) == Some(loc.as_str()))
    );
    assert!(c.runtimes.contains(&"io".to_string()), "{:?}", c.runtimes);
    let io = filtered(
        details,
        &SampleFilter {
            runtime: Some("io".into()),
            ..SampleFilter::default()
        },
    );
    assert_eq!(
        io.total(K::OnCpu),
        on_cpu(&|s| d.runtime(u64::from(s.worker)) == Some("io"))
    );
    let kinds = [K::OnCpu, K::Blocking, K::Idle];
    assert!(
        kinds.iter().map(|&k| io.total(k)).sum::<u64>() > 0,
        "samples on the io workers"
    );
    assert_eq!(io.total(K::Waits), 0);
    let tid = c.threads[0];
    assert_eq!(
        total(SampleFilter {
            thread: Some(tid),
            ..SampleFilter::default()
        }),
        on_cpu(&|s| s.tid == tid)
    );
    // A name no file has keeps nothing.
    assert_eq!(
        total(SampleFilter {
            runtime: Some("nowhere".into()),
            ..SampleFilter::default()
        }),
        0
    );
    // A span: the samples inside its instances, as slow versus typical counts them.
    let r = analyze(&["blocking.bin"], &with_requests(), None);
    let name = "legacy_sync_lookup".to_string();
    let hits = Query {
        name: Some(name.clone()),
        ..Query::default()
    }
    .hits(&r.requests);
    let inside = filtered(
        &r.requests,
        &SampleFilter {
            span: Some(name),
            ..SampleFilter::default()
        },
    );
    assert_eq!(inside, profiles_of(&r.requests, &hits));
    assert!(inside.total(K::Blocking) > 0);
}
