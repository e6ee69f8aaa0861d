//! Arbitrary bytes → up to four trace files (the input split at `SEPARATOR`),
//! each analyzed, its outcome sent through `analysis::wire` as a worker
//! sends it to the page, then the partials merged as the CLI merges them
//! (all in, then folded) and as the page does (told the files first, folded
//! as they arrive) in another order. Besides any panic, a bug is: an
//! outcome that reads back from its bytes as another, or two reports that
//! differ (any order in, same report out).
#![no_main]

use d9lens_core::analysis::{FileOutcome, Merger, Options, analyze_file, wire};
use d9lens_core::report::Report;
use libfuzzer_sys::fuzz_target;

/// Between two files of the input (no trace holds it by chance; in the dictionary).
const SEPARATOR: &[u8] = b"D9PART";
const MAX_FILES: usize = 4;
/// As in the analyze target: no input may push towards the RSS limit.
const MAX_INFLATED: usize = 64 << 20;
const MAX_DECODED: usize = 64 << 20;
/// Names that do not sort in the order the files come in.
const NAMES: [&str; MAX_FILES] = ["c.bin", "a.bin.gz", "d.bin", "b.bin"];

fn files(data: &[u8]) -> Vec<&[u8]> {
    let mut files = Vec::new();
    let mut rest = data;
    while files.len() < MAX_FILES - 1
        && let Some(at) = rest.windows(SEPARATOR.len()).position(|w| w == SEPARATOR)
    {
        files.push(&rest[..at]);
        rest = &rest[at + SEPARATOR.len()..];
    }
    files.push(rest);
    files
}

fn json(outcome: &FileOutcome) -> String {
    serde_json::to_string(outcome).expect("an outcome serializes")
}

/// The report as the page and `--json` see it, with its stacks.
fn report_json(report: &Report) -> String {
    let report_json = serde_json::to_string(report).expect("a report serializes");
    report_json + &serde_json::to_string(&*report.profiles).expect("its profiles serialize")
}

fn add(merger: &mut Merger, outcome: FileOutcome) {
    if let Some(err) = outcome.error {
        merger.add_error(err);
    }
    merger.add(outcome.partial);
}

fuzz_target!(|data: &[u8]| {
    let opts = Options {
        reference_compatible: data.len() % 2 == 1,
        max_inflated_bytes: MAX_INFLATED,
        max_decoded_bytes: MAX_DECODED,
        timeline: false,
        requests: true,
        window: None,
    };
    let outcomes: Vec<FileOutcome> = files(data)
        .into_iter()
        .zip(NAMES)
        .map(|(bytes, name)| analyze_file(name, bytes, &opts))
        .collect();
    // What the page gets from its workers.
    let received: Vec<FileOutcome> = outcomes
        .iter()
        .map(|outcome| {
            let back = wire::decode(&wire::encode(outcome)).expect("an encoded outcome decodes");
            assert_eq!(json(&back), json(outcome), "an outcome changed on the wire");
            back
        })
        .collect();

    let names: Vec<String> = outcomes.iter().map(|o| o.partial.file.clone()).collect();
    let mut cli = Merger::new(opts.clone());
    for outcome in outcomes {
        add(&mut cli, outcome);
    }
    let mut page = Merger::new(opts).with_files(names);
    // Reversed, or rotated by one: the first file last.
    let mut received = received;
    match data.first().map(|b| b % 2) {
        Some(0) => received.reverse(),
        _ => received.rotate_left(1),
    }
    for outcome in received {
        add(&mut page, outcome);
    }
    assert_eq!(page.waiting(), 0, "every file came in, none is held");
    assert_eq!(
        report_json(&cli.finish()),
        report_json(&page.into_report()),
        "another order in, another report out"
    );
});
