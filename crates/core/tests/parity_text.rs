//! `--reference-compatible` text equals what dial9's `node analyze.js` printed
//! for every shared fixture, line for line.

mod common;
use common::*;
use d9lens_core::analysis::{Merger, analyze_file};
use d9lens_core::report::text;

fn assert_same(expected: &str, actual: &str, what: &str) {
    if expected == actual {
        return;
    }
    let (e, a): (Vec<_>, Vec<_>) = (expected.lines().collect(), actual.lines().collect());
    let first = e
        .iter()
        .zip(&a)
        .position(|(x, y)| x != y)
        .unwrap_or(e.len().min(a.len()));
    panic!(
        "{what}: first difference at line {} (expected {} lines, got {}):\n- {}\n+ {}",
        first + 1,
        e.len(),
        a.len(),
        e.get(first).unwrap_or(&"<end>"),
        a.get(first).unwrap_or(&"<end>")
    );
}

#[test]
fn single_files_match_the_reference_report() {
    for rel in SINGLE_FILES {
        let report = analyze(&[rel], &reference(), None);
        let expected = String::from_utf8(read(&format!("{rel}.report.txt"))).unwrap();
        assert_same(&expected, &text::render(&report, reference().text_style()), rel);
    }
}

#[test]
fn every_s3_object_matches_the_reference_report() {
    let keys = s3_reference_keys();
    assert_eq!(keys.len(), 23);
    for key in keys {
        let report = analyze(&[&format!("s3-bucket/{key}")], &reference(), None);
        let expected = String::from_utf8(read(&format!("s3-bucket.reference/{key}.report.txt"))).unwrap();
        assert_same(&expected, &text::render(&report, reference().text_style()), &key);
    }
}

/// The reference merges directory partials in completion order, so its CPU
/// hotspot tree varies between its own runs: compare that section on its
/// sample total, everything else line for line.
#[test]
fn rotation_directory_matches_except_the_nondeterministic_hotspot_tree() {
    let report = analyze(ROTATION, &reference(), Some("5 files in rotation"));
    let actual = text::render(&report, reference().text_style());
    let expected = String::from_utf8(read("rotation.dir.report.txt")).unwrap();
    let strip = |s: &str| {
        let mut out = Vec::new();
        let mut in_tree = false;
        for l in s.lines() {
            if l.starts_with("CPU HOTSPOTS") {
                in_tree = true;
            } else if l.starts_with("QUEUE DEPTH") {
                in_tree = false;
            }
            if !in_tree || l.ends_with("CPU sample(s)") || l.starts_with("CPU HOTSPOTS") {
                out.push(l.to_string());
            }
        }
        out.join("\n")
    };
    assert_same(&strip(&expected), &strip(&actual), "rotation directory");
    assert!(actual.contains("\n  526 CPU sample(s)\n"));
}

#[test]
fn merge_order_does_not_change_the_report() {
    let forward = analyze(ROTATION, &reference(), Some("r"));
    let mut reversed: Vec<&str> = ROTATION.to_vec();
    reversed.reverse();
    let backward = analyze(&reversed, &reference(), Some("r"));
    assert_eq!(
        text::render(&forward, reference().text_style()),
        text::render(&backward, reference().text_style())
    );
}

/// Told the files in advance, the merger folds each partial once the files
/// before it are in: the same report for any arrival order, with only the
/// early arrivals held.
#[test]
fn folding_as_files_arrive_gives_the_same_report() {
    let opts = reference();
    let partials: Vec<_> = ROTATION
        .iter()
        .map(|rel| {
            let name = std::path::Path::new(rel).file_name().unwrap().to_str().unwrap();
            analyze_file(name, &common::read(rel), &opts).partial
        })
        .collect();
    let names = || partials.iter().map(|p| p.file.clone());
    let expected = text::render(&analyze(ROTATION, &opts, Some("r")), opts.text_style());
    for order in [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [2, 0, 4, 1, 3]] {
        let mut merger = Merger::new(opts.clone()).with_label("r").with_files(names());
        let mut most_waiting = 0;
        for &i in &order {
            merger.add(partials[i].clone());
            most_waiting = most_waiting.max(merger.waiting());
        }
        assert_eq!(merger.waiting(), 0, "{order:?}: everything folded once all are in");
        assert_eq!(
            text::render(&merger.into_report(), opts.text_style()),
            expected,
            "{order:?}"
        );
        assert!(most_waiting < partials.len(), "{order:?}: held {most_waiting}");
    }
    // In order, nothing waits.
    let mut merger = Merger::new(opts.clone()).with_files(names());
    for p in &partials {
        merger.add(p.clone());
        assert_eq!(merger.waiting(), 0);
    }
}
