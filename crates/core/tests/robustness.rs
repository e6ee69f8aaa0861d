//! Robustness: damaged, truncated, hostile and random inputs through the whole
//! per-file path (container → decode → analysis → merge → render) on the real
//! fixtures. Deterministic (fixed-seed xorshift, fixed offsets), no panics
//! allowed, and every error must name its file and, where it has one, a byte
//! offset inside the input.
//!
//! The libFuzzer target in `fuzz/` explores the same surface at random; this
//! file is the part that runs on every `cargo test`.

mod common;

use common::gzip;
use d9lens_core::analysis::{FileOutcome, Merger, Options, analyze_file};
use d9lens_core::report::text;
use d9lens_core::{container, trace};
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

fn read(rel: &str) -> Vec<u8> {
    let p = fixtures().join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Raw (`TRC\0`) fixtures, smallest first.
const RAW: &[&str] = &[
    "rotation/trace.4.bin",
    "rotation/trace.0.bin",
    "blocking.bin",
    "healthy.bin",
];

/// The S3 fixture objects are small gzip segments.
const S3_GZ: &str = "s3-bucket/2026-11-30/0814/checkout-api/ip-10-0-1-23/gauu-25994/1796026492-0.bin.gz";

/// The page's options: the timeline is built (and must not fail) too.
fn opts() -> Options {
    Options {
        reference_compatible: false,
        max_inflated_bytes: 64 << 20,
        timeline: true,
        ..Options::default()
    }
}

/// A tiny deterministic PRNG (xorshift64*), so no `rand` dependency.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// Runs one input through the whole path and checks the error contract.
/// `max_offset` bounds where an error may point (the input or inflated length).
fn check(name: &str, bytes: &[u8], opts: &Options) -> FileOutcome {
    let outcome = analyze_file(name, bytes, opts);
    if let Some(t) = &outcome.timeline {
        let back = d9lens_core::timeline::decode(&d9lens_core::timeline::encode(t));
        assert_eq!(back.as_ref(), Ok(t), "{name}: the timeline survives its bytes");
    }
    if let Some(err) = &outcome.error {
        assert_eq!(err.file, name, "error must name its file: {err:?}");
        assert!(!err.message.is_empty(), "{name}: empty error message");
        if let Some(off) = err.offset {
            // Offsets are into the compressed input (container errors) or the
            // raw trace (decode errors); neither can lie beyond the data.
            let bound = (bytes.len() as u64).max(outcome.raw_bytes);
            assert!(
                off <= bound,
                "{name}: offset {off} beyond the data ({bound} bytes): {err:?}"
            );
        }
    }
    assert_eq!(outcome.partial.file, name);
    outcome
}

/// Merge + finish + render (text and JSON) must also survive what analysis let through.
fn render(outcomes: Vec<FileOutcome>, opts: &Options) -> String {
    let mut merger = Merger::new(opts.clone());
    for o in outcomes {
        if let Some(e) = o.error {
            merger.add_error(e);
        }
        merger.add(o.partial);
    }
    let report = merger.finish();
    serde_json::to_string(&report).expect("report serializes");
    text::render(&report, opts.text_style())
}

#[test]
fn zero_length_and_tiny_inputs() {
    let o = check("empty.bin", &[], &opts());
    let err = o.error.expect("empty input is an error");
    assert_eq!(err.offset, Some(0));
    assert_eq!(o.events, 0);

    for bytes in [
        &b"T"[..],
        b"TRC",
        b"TRC\0",
        b"\x1f",
        b"\x1f\x8b",
        b"\x1f\x8b\x08",
        b"hello world",
    ] {
        check("tiny.bin", bytes, &opts());
    }
    let o = check("text.bin", b"not a trace at all", &opts());
    assert!(o.error.expect("not a trace").message.contains("not a dial9 trace"));
}

#[test]
fn truncated_raw_traces_keep_the_events_before_the_cut() {
    for rel in RAW {
        let bytes = read(rel);
        let name = Path::new(rel).file_name().unwrap().to_str().unwrap();
        let full = check(name, &bytes, &opts());
        assert!(full.error.is_none(), "{rel}: intact fixture fails: {:?}", full.error);
        assert!(full.events > 0, "{rel}: no events");

        // Every offset of the small segment's head (header, schemas), then a
        // spread over the whole file; the big fixtures (slow in debug builds)
        // get a few cuts each, the biggest only the half.
        let len = bytes.len();
        let mut cuts: Vec<usize> = match len {
            0..65_536 => (0..256.min(len)).chain((256..len).step_by(97)).collect(),
            65_536..2_000_000 => vec![len / 3, len / 2 + 13, len * 2 / 3, len - 1],
            _ => vec![],
        };
        cuts.push(len / 2);
        for cut in cuts {
            let part = &bytes[..cut];
            let o = check(name, part, &opts());
            assert!(o.events <= full.events, "{rel}@{cut}: more events than the whole file");
            if let Some(e) = &o.error {
                let off = e
                    .offset
                    .unwrap_or_else(|| panic!("{rel}@{cut}: truncation error without offset: {e:?}"));
                assert!(off <= cut as u64, "{rel}@{cut}: error offset {off} past the cut");
            }
            if cut >= bytes.len() / 2 {
                assert!(o.events > 0, "{rel}@{cut}: events before the damage were dropped");
                assert!(
                    o.error.is_some() || o.events < full.events || cut == bytes.len(),
                    "{rel}@{cut}: truncation went unnoticed and lost nothing?"
                );
            }
        }
    }
}

#[test]
fn truncated_half_raw_trace_reports_file_and_offset() {
    let bytes = read("rotation/trace.0.bin");
    let half = &bytes[..bytes.len() / 2];
    let o = check("trace.0.bin", half, &opts());
    assert!(o.events > 0, "events before the cut must be counted");
    let err = o.error.clone().expect("a trace cut in half mid-frame is an error");
    assert_eq!(err.file, "trace.0.bin");
    let off = err.offset.expect("decode errors carry a byte offset");
    assert!(
        off > 0 && off <= half.len() as u64,
        "offset {off} for a {}-byte cut",
        half.len()
    );
    assert!(
        err.message.contains(&off.to_string()),
        "message names the offset: {}",
        err.message
    );
    let report = render(vec![o], &opts());
    assert!(
        report.contains("trace.0.bin"),
        "the rendered report names the damaged file"
    );
}

#[test]
fn truncated_gzip_names_file_and_compressed_offset() {
    let small = gzip(&read("rotation/trace.4.bin"), 6);
    let s3 = read(S3_GZ);
    let demo = read("demo-trace.bin");
    let cases: [(&str, &[u8]); 3] = [
        ("trace.4.bin.gz", &small),
        ("segment.bin.gz", &s3),
        ("demo-trace.bin", &demo),
    ];
    for (name, gz) in cases {
        let mut cuts: Vec<usize> = (1..12).chain((1..8).map(|i| gz.len() * i / 8)).collect();
        cuts.extend([gz.len() - 8, gz.len() - 4, gz.len() - 1]);
        for cut in cuts {
            let o = check(name, &gz[..cut], &opts());
            let err = o
                .error
                .unwrap_or_else(|| panic!("{name}@{cut}: truncated gzip accepted"));
            let off = err.offset.unwrap_or_else(|| panic!("{name}@{cut}: no offset: {err:?}"));
            assert!(off <= cut as u64, "{name}@{cut}: offset {off}");
        }
    }
    // The raw trace inside the small gzip, truncated then recompressed, still
    // yields the events before the damage.
    let raw = read("rotation/trace.4.bin");
    let o = check("cut.bin.gz", &gzip(&raw[..raw.len() / 2], 6), &opts());
    assert!(o.events > 0);
    assert!(o.error.and_then(|e| e.offset).is_some());
}

#[test]
fn flipped_bytes_in_the_middle() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let raw_small = read("rotation/trace.4.bin");
    let gz_small = gzip(&raw_small, 6);
    let mut inputs: Vec<(&str, Vec<u8>)> = vec![
        ("trace.4.bin", raw_small),
        ("trace.4.bin.gz", gz_small),
        ("segment.bin.gz", read(S3_GZ)),
    ];
    inputs.push(("trace.0.bin", read("rotation/trace.0.bin")));
    let mut outcomes = Vec::new();
    for (name, bytes) in &inputs {
        // Small inputs get many single flips; the large one a few.
        let rounds = if bytes.len() < 100_000 { 150 } else { 6 };
        for round in 0..rounds {
            let mut b = bytes.clone();
            let mid = b.len() / 2;
            let span = (b.len() / 4).max(1);
            let at = mid - span / 2 + rng.below(span);
            match round % 3 {
                0 => b[at] ^= 0xff,
                1 => b[at] = rng.next() as u8,
                _ => {
                    for i in at..(at + 16).min(b.len()) {
                        b[i] = rng.next() as u8;
                    }
                }
            }
            let o = check(name, &b, &opts());
            if round % 25 == 0 {
                outcomes.push(o);
            }
        }
    }
    render(outcomes, &opts());
}

#[test]
fn random_bytes_with_and_without_magic() {
    let mut rng = XorShift(0xD9_1E45);
    let prefixes: [&[u8]; 4] = [b"", b"TRC\0", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", b"TRC\0\x01"];
    let mut outcomes = Vec::new();
    for i in 0..400 {
        let len = rng.below(if i % 10 == 0 { 64 << 10 } else { 2048 });
        let mut b = prefixes[i % prefixes.len()].to_vec();
        b.extend(rng.bytes(len));
        let o = check("random.bin", &b, &opts());
        if i % 40 == 0 {
            outcomes.push(o);
        }
        // The decoder on its own, on the same bytes.
        let _ = trace::parse_trace(&b);
    }
    // A real header and schema prefix followed by noise: the decoder gets far.
    let head = read("rotation/trace.4.bin");
    for i in 0..100 {
        let keep = 8 + rng.below(head.len() / 2);
        let mut b = head[..keep].to_vec();
        let noise = rng.below(4096);
        b.extend(rng.bytes(noise));
        let o = check("noisy.bin", &b, &opts());
        if i % 20 == 0 {
            outcomes.push(o);
        }
    }
    render(outcomes, &opts());
}

#[test]
fn gzip_bombs_are_refused_at_the_cap() {
    let cap = 1 << 20;
    let small = Options {
        max_inflated_bytes: cap,
        ..opts()
    };
    // One member that inflates to 4× the cap from a few KiB.
    let zeros = vec![0u8; 4 * cap];
    let bomb = gzip(&zeros, 9);
    assert!(bomb.len() < 64 << 10, "the bomb is small: {} bytes", bomb.len());
    let o = check("bomb.bin.gz", &bomb, &small);
    let err = o.error.expect("a bomb is refused");
    assert!(err.message.contains("refused"), "{}", err.message);
    assert_eq!(o.events, 0);
    assert!(matches!(
        container::raw_trace(&bomb, cap),
        Err(container::ContainerError::TooLarge { limit }) if limit == cap
    ));

    // Many members, each under the cap, that only together exceed it.
    let member = gzip(&vec![0u8; cap / 3], 9);
    let multi: Vec<u8> = std::iter::repeat_n(member.as_slice(), 5).flatten().copied().collect();
    let o = check("multi.bin.gz", &multi, &small);
    assert!(o.error.expect("multi-member bomb refused").message.contains("refused"));

    // A bomb whose payload starts like a real trace.
    let mut trc = read("rotation/trace.4.bin");
    trc.resize(2 * cap, 0);
    let o = check("trc-bomb.bin.gz", &gzip(&trc, 9), &small);
    assert!(o.error.is_some());

    // Exactly at the cap is allowed (raw_trace on its own: the zeros are no trace).
    let at_cap = gzip(&vec![0u8; cap], 9);
    assert_eq!(container::raw_trace(&at_cap, cap).map(|r| r.len()), Ok(cap));
}

#[test]
fn gzip_wrapped_fixture_matches_raw() {
    let raw = read("rotation/trace.4.bin");
    let a = check("trace.4.bin", &raw, &opts());
    let b = check("trace.4.bin", &gzip(&raw, 6), &opts());
    assert!(a.error.is_none() && b.error.is_none());
    assert_eq!(a.events, b.events);
    assert_eq!(render(vec![a], &opts()), render(vec![b], &opts()));
    // Trailing zero padding (as some uploaders leave) is tolerated.
    let mut padded = gzip(&raw, 6);
    padded.extend([0u8; 512]);
    assert!(check("padded.bin.gz", &padded, &opts()).error.is_none());
    // Trailing garbage after the member is an error with an offset, not a panic.
    let mut tail = gzip(&raw, 6);
    tail.extend(b"garbage!");
    let o = check("tail.bin.gz", &tail, &opts());
    if let Some(e) = o.error {
        assert!(e.offset.is_some());
    }
}

/// Inputs the fuzzer once crashed on (`tests/fixtures/fuzz-found/`), each
/// through the whole path with both sets of options: a report, no panic
/// (tests run with overflow checks on, as the fuzzer does).
#[test]
fn what_the_fuzzer_found_stays_fixed() {
    let dir = fixtures().join("fuzz-found");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a readable entry").path())
        .collect();
    found.sort();
    assert!(!found.is_empty());
    for path in found {
        let name = path.file_name().expect("a file").to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).expect("readable");
        for opts in [opts(), Options::default()] {
            let outcome = check(&name, &bytes, &opts);
            render(vec![outcome], &opts);
        }
    }
}
