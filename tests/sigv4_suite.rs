//! The AWS SigV4 signing suite through the core signer compiled to wasm, in
//! headless Chromium (the same runner as the native test):
//! `CHROMEDRIVER=/usr/bin/chromedriver cargo test -p d9lens-web --target wasm32-unknown-unknown --test sigv4_suite`.
#![cfg(target_arch = "wasm32")]

#[path = "../crates/core/tests/sigv4_suite/mod.rs"]
mod sigv4_suite;

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const FILES: &sigv4_suite::Files = include!("fixtures/aws-signing-test-suite/files.rs");

#[wasm_bindgen_test]
fn every_case_of_the_aws_sigv4_suite_passes_in_wasm() {
    sigv4_suite::assert_all_pass(&sigv4_suite::run_suite(FILES));
}

#[wasm_bindgen_test]
fn double_encoding_differs_only_where_the_path_holds_a_percent() {
    assert_eq!(
        sigv4_suite::cases_differing_with_double_encoding(FILES),
        ["get-space-normalized"]
    );
}
