//! Every case of the AWS SigV4 signing test suite (`tests/fixtures/aws-signing-test-suite/v4/`,
//! copied from the aws-sigv4 1.6.4 crate) through `d9lens_core::s3::sigv4`, natively.
//! The runner (`sigv4_suite/mod.rs`, which documents how each case is checked) also
//! runs in wasm: `tests/sigv4_suite.rs` of the web crate.

mod sigv4_suite;

use std::path::Path;

const FILES: &sigv4_suite::Files = include!("../../../tests/fixtures/aws-signing-test-suite/files.rs");

#[test]
fn every_case_of_the_aws_sigv4_suite() {
    let run = sigv4_suite::run_suite(FILES);
    println!(
        "SigV4 suite: {}/{} cases pass ({} checks)",
        run.passed, run.cases, run.checks
    );
    sigv4_suite::assert_all_pass(&run);
}

/// Records why the context cases use single encoding: with `PathEncoding::Double`
/// every case still passes except `get-space-normalized`, whose wire path
/// `/example%20space/` the suite expects canonicalised as `/example%20space/`.
#[test]
fn double_encoding_differs_only_where_the_path_holds_a_percent() {
    assert_eq!(
        sigv4_suite::cases_differing_with_double_encoding(FILES),
        ["get-space-normalized"]
    );
}

/// `files.rs` embeds exactly the files of `v4/` (so the wasm run covers them all).
#[test]
fn the_embedded_file_list_is_the_whole_suite() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/aws-signing-test-suite/v4");
    let mut on_disk = Vec::new();
    for case in std::fs::read_dir(&dir).expect("suite folder") {
        let case = case.unwrap();
        for file in std::fs::read_dir(case.path()).unwrap() {
            on_disk.push(format!(
                "{}/{}",
                case.file_name().to_string_lossy(),
                file.unwrap().file_name().to_string_lossy()
            ));
        }
    }
    on_disk.sort();
    let mut embedded: Vec<&str> = FILES.iter().map(|(path, _)| *path).collect();
    embedded.sort();
    assert_eq!(
        embedded, on_disk,
        "regenerate tests/fixtures/aws-signing-test-suite/files.rs"
    );
}
