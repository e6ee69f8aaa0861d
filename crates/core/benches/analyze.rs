//! Criterion benchmarks of the core's hot path on the real fixtures.
//!
//! Run: `cargo bench -p d9lens-core --bench analyze -- --sample-size 10`
//! (see docs/benchmarks.md for recorded numbers).
//!
//! * `demo-trace/gunzip`       — inflating demo-trace.bin (4.2 MB gzip → 12.3 MB raw), natively with zlib-rs
//! * `demo-trace/gunzip_miniz` — the same with miniz_oxide, the engine the tests check it against
//! * `demo-trace/decode`       — `parse_trace` of the raw demo trace (~570k events)
//! * `demo-trace/build_spans`  — spans from the decoded demo trace's span events
//! * `demo-trace/analyze_file` — the whole per-file path: gunzip + decode + analysis
//! * `demo-trace/report_render` — the demo partial's report and text (the partial is made once)
//! * `rotation/merge_render`   — merging the 5 rotation partials, `finish` and text render
//!   (partials are computed once, outside the timed loop)
//! * `flamegraph/build`        — the demo's off-CPU flamegraph (7,720 samples, every
//!   distinct stack; more samples of the same stacks only change weights)
//! * `flamegraph/frame`        — one frame's nodes at 1,400 px: the whole graph, then
//!   zoomed into its heaviest path, ten levels down
//! * `worker-side/analyze_cli` — a busy S3 segment (~1 MB gzip) analyzed as the CLI does
//! * `worker-side/analyze_page` — the same with its timeline, as the page's workers do
//! * `worker-side/wire_encode` — that outcome put on the wire for the page
//! * `page-side/wire_decode`  — reading a busy S3 segment's outcome (with its timeline)
//!   off the wire, as the page does for every file a worker answers
//! * `page-side/decode_fold`  — that, then folding it into a merger holding one
//!   such file already: the page's thread's own work per file of a fleet
//! * `compare/demo_vs_blocking` — `compare` of two merged reports (the demo trace's and
//!   blocking.bin's: every key figure, the findings, the differential flamegraph's
//!   movers); what a comparison adds to analyzing both sides
//! * `requests/explore_where` — the span explorer over two copies of the demo trace
//!   (~105,000 span instances), filtered by a field value (on the span or one around it)
//! * `requests/slow_vs_typical` — slow (over p99) against typical for its most
//!   frequent span name, the profiles of both sides included

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use d9lens_core::analysis::{Merger, Options, Partial, analyze_file, wire};
use d9lens_core::container::Gunzip;
use d9lens_core::inflate::Miniz;
use d9lens_core::{container, report, trace};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

fn read(rel: &str) -> Vec<u8> {
    let p = fixtures().join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

const ROTATION: &[&str] = &[
    "rotation/trace.0.bin",
    "rotation/trace.1.bin",
    "rotation/trace.2.bin",
    "rotation/trace.3.bin",
    "rotation/trace.4.bin",
];

fn demo(c: &mut Criterion) {
    let opts = Options {
        reference_compatible: true,
        ..Options::default()
    };
    let gz = read("demo-trace.bin");
    let raw = container::raw_trace(&gz, opts.max_inflated_bytes)
        .expect("demo-trace.bin inflates")
        .into_owned();

    let mut g = c.benchmark_group("demo-trace");
    g.measurement_time(Duration::from_secs(8));

    // Throughput in raw (inflated) trace bytes for all three.
    g.throughput(Throughput::Bytes(raw.len() as u64));
    g.bench_function("gunzip", |b| {
        b.iter(|| {
            container::raw_trace(black_box(&gz), opts.max_inflated_bytes)
                .unwrap()
                .len()
        })
    });

    // miniz_oxide, the engine the tests check zlib-rs against, for comparison.
    g.bench_function("gunzip_miniz", |b| {
        b.iter(|| {
            let mut gunzip = Gunzip::<Miniz>::with_engine(opts.max_inflated_bytes);
            let mut out = Vec::with_capacity(raw.len());
            gunzip.feed(black_box(&gz), &mut out).unwrap();
            gunzip.finish().unwrap();
            out.len()
        })
    });

    g.bench_function("decode", |b| {
        b.iter(|| {
            let (parsed, failure) = trace::parse_trace(black_box(&raw));
            assert!(failure.is_none());
            parsed.runtime_events
        })
    });

    // The longest single step of the analysis: 214k span events → 80k spans.
    let (parsed, _) = trace::parse_trace(&raw);
    g.bench_function("build_spans", |b| {
        b.iter(|| {
            trace::build_spans(black_box(&parsed.span_events), &parsed.strings)
                .spans
                .len()
        })
    });

    g.bench_function("analyze_file", |b| {
        b.iter(|| {
            let outcome = analyze_file("demo-trace.bin", black_box(&gz), &opts);
            assert!(outcome.error.is_none());
            outcome.events
        })
    });

    // What follows the analysis, on one core: the report and its text.
    let partial = analyze_file("demo-trace.bin", &gz, &opts).partial;
    g.bench_function("report_render", |b| {
        b.iter_batched(
            || partial.clone(),
            |partial| {
                let mut merger = Merger::new(opts.clone());
                merger.add(partial);
                report::text::render(black_box(&merger.into_report()), opts.text_style()).len()
            },
            criterion::BatchSize::LargeInput,
        )
    });
    g.finish();
}

fn rotation(c: &mut Criterion) {
    let opts = Options {
        reference_compatible: true,
        ..Options::default()
    };
    let partials: Vec<Partial> = ROTATION
        .iter()
        .map(|rel| {
            let name = Path::new(rel).file_name().unwrap().to_string_lossy().into_owned();
            let outcome = analyze_file(&name, &read(rel), &opts);
            assert!(outcome.error.is_none(), "{rel}: {:?}", outcome.error);
            outcome.partial
        })
        .collect();

    let mut g = c.benchmark_group("rotation");
    g.bench_function("merge_render", |b| {
        b.iter_batched(
            || partials.clone(),
            |parts| {
                let mut merger = Merger::new(opts.clone());
                for p in parts {
                    merger.add(p);
                }
                let report = merger.finish();
                report::text::render(black_box(&report), opts.text_style()).len()
            },
            criterion::BatchSize::LargeInput,
        )
    });
    g.finish();
}

/// A busy segment of the fixture bucket (~1 MB gzip), as a fleet has hundreds.
const BUSY: &str = "s3-bucket/version=1/date=2026-11-30/service=checkout-api/time=1405/instance=ip-10-0-1-23/boot=qghy-22982/1796047535-0.bin.gz";

/// A worker's own work per busy segment of a fleet: what the CLI does for
/// it, what the page's worker does (the same with the file's timeline), and
/// putting the worker's outcome on the wire.
fn worker_side(c: &mut Criterion) {
    let gz = read(BUSY);
    let cli = Options::default();
    let page = Options {
        timeline: true,
        ..Options::default()
    };
    let mut g = c.benchmark_group("worker-side");
    g.throughput(Throughput::Bytes(gz.len() as u64));
    g.bench_function("analyze_cli", |b| {
        b.iter(|| analyze_file("a.bin.gz", black_box(&gz), &cli).events)
    });
    g.bench_function("analyze_page", |b| {
        b.iter(|| analyze_file("a.bin.gz", black_box(&gz), &page).events)
    });
    let outcome = analyze_file("a.bin.gz", &gz, &page);
    g.bench_function("wire_encode", |b| b.iter(|| wire::encode(black_box(&outcome)).len()));
    g.finish();
}

fn page_side(c: &mut Criterion) {
    let opts = Options {
        timeline: true,
        ..Options::default()
    };
    let outcome = analyze_file("a.bin.gz", &read(BUSY), &opts);
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    let bytes = wire::encode(&outcome);
    let mut g = c.benchmark_group("page-side");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("wire_decode", |b| {
        b.iter(|| wire::decode(black_box(&bytes)).unwrap().events)
    });
    let mut first = outcome.partial.clone();
    first.file = "0.bin.gz".into();
    let names = ["0.bin.gz".to_string(), "a.bin.gz".to_string()];
    g.bench_function("decode_fold", |b| {
        b.iter_batched(
            || {
                let mut merger = Merger::new(opts.clone()).with_files(names.clone());
                merger.add(first.clone());
                merger
            },
            |mut merger| {
                merger.add(wire::decode(black_box(&bytes)).unwrap().partial);
                merger.len()
            },
            criterion::BatchSize::LargeInput,
        )
    });
    g.finish();
}

fn flamegraph(c: &mut Criterion) {
    use d9lens_core::profile::flame::Order;
    use d9lens_core::report::SampleKind;
    let opts = Options::default();
    let mut merger = Merger::new(opts.clone());
    merger.add(analyze_file("demo-trace.bin", &read("demo-trace.bin"), &opts).partial);
    let report = merger.finish();
    let mut g = c.benchmark_group("flamegraph");
    g.bench_function("build", |b| {
        b.iter(|| {
            d9lens_core::profile::flamegraph(
                black_box(&report.profiles),
                SampleKind::OffCpu,
                Order::Name,
                Default::default(),
            )
        })
    });
    let graph = d9lens_core::profile::flamegraph(
        &report.profiles,
        SampleKind::OffCpu,
        Order::Heaviest,
        Default::default(),
    );
    let mut deep = 0;
    for _ in 0..10 {
        deep = graph.first_child(deep).unwrap_or(deep);
    }
    g.bench_function("frame", |b| {
        b.iter(|| {
            let whole = graph.rects(0, 1400.0, 0.75, 6, 160).len();
            whole + graph.rects(black_box(deep), 1400.0, 0.75, 6, 160).len()
        })
    });
    g.finish();
}

fn compare(c: &mut Criterion) {
    let opts = Options::default();
    let report = |rel: &str| {
        let mut merger = Merger::new(opts.clone());
        merger.add(analyze_file(rel, &read(rel), &opts).partial);
        merger.finish()
    };
    let (a, b) = (report("demo-trace.bin"), report("blocking.bin"));
    let mut g = c.benchmark_group("compare");
    g.bench_function("demo_vs_blocking", |bench| {
        bench.iter(|| d9lens_core::compare::compare(black_box(&a), black_box(&b)))
    });
    g.finish();
}

fn requests(c: &mut Criterion) {
    use d9lens_core::requests::query::Query;
    use d9lens_core::requests::slow::{Threshold, slow_vs_typical};
    use d9lens_core::requests::{explore, kept::Details};
    let opts = Options {
        requests: true,
        ..Options::default()
    };
    // Two hosts' copies of the demo trace: past 100,000 instances.
    let mut merger = Merger::new(opts.clone());
    let demo = read("demo-trace.bin");
    for host in ["a", "b"] {
        merger.add(analyze_file(&format!("{host}/demo-trace.bin"), &demo, &opts).partial);
    }
    let details: std::sync::Arc<Details> = merger.finish().requests;
    let instances: usize = details.files.iter().map(|d| d.spans.len()).sum();
    assert!(instances > 100_000, "{instances} span instances");
    let by_field = Query {
        fields: vec![("MetricName".into(), "latency".into())],
        ..Query::default()
    };
    let named = Query {
        name: Some("RecordMetric".into()),
        ..Query::default()
    };
    let mut g = c.benchmark_group("requests");
    g.bench_function("explore_where", |b| {
        b.iter(|| explore::explore(black_box(&details), &by_field))
    });
    g.bench_function("slow_vs_typical", |b| {
        b.iter(|| slow_vs_typical(black_box(&details), &named, Threshold::Percentile(99.0)))
    });
    g.finish();
}

criterion_group!(
    benches,
    demo,
    rotation,
    worker_side,
    page_side,
    flamegraph,
    compare,
    requests
);
criterion_main!(benches);
