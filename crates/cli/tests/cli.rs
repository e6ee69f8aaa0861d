//! The `d9lens` binary on the real fixtures.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

fn d9lens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_d9lens"))
        .args(args)
        .output()
        .expect("run d9lens")
}

fn path(rel: &str) -> String {
    fixtures().join(rel).to_string_lossy().into_owned()
}

#[test]
fn reference_compatible_text_equals_analyze_js_output() {
    let out = d9lens(&["analyze", &path("blocking.bin"), "--reference-compatible"]);
    assert!(out.status.success());
    let expected = std::fs::read(fixtures().join("blocking.bin.report.txt")).unwrap();
    assert!(out.stdout == expected, "stdout differs from blocking.bin.report.txt");
}

#[test]
fn json_carries_the_reference_numbers() {
    let out = d9lens(&["analyze", &path("demo-trace.bin"), "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["eventCount"], 311_335);
    assert_eq!(v["summary"]["workers"], serde_json::json!([0, 1, 2, 3]));
    assert_eq!(v["longPolls"]["count"], 3);
    assert_eq!(v["longPolls"]["worstNs"], 32_334_125);
    assert_eq!(v["workers"][0]["utilization"], 0.20082429761894885);
    assert_eq!(v["schedDelays"]["p99Ns"], 1_135_615);
}

#[test]
fn directory_with_sample_picks_files_evenly() {
    let out = d9lens(&["analyze", &path("rotation"), "--sample", "2", "--reference-compatible"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("TRACE SUMMARY: 2 files in rotation\n"), "{text}");
    assert!(text.contains("Files (2):\n  trace.0.bin\n  trace.2.bin\n"), "{text}");
}

#[test]
fn a_corrupt_file_is_reported_with_its_offset_and_the_others_still_analyzed() {
    let dir = std::env::temp_dir().join(format!("d9lens-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let blocking = std::fs::read(fixtures().join("blocking.bin")).unwrap();
    let cut = dir.join("cut.bin");
    std::fs::write(&cut, &blocking[..blocking.len() / 2]).unwrap();
    let out = d9lens(&["analyze", cut.to_str().unwrap(), &path("healthy.bin"), "--json"]);
    assert_eq!(out.status.code(), Some(1), "a file with errors makes the exit status 1");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cut.bin @"), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files"], serde_json::json!(["cut.bin", "healthy.bin"]));
    assert_eq!(v["errors"][0]["file"], "cut.bin");
    assert!(v["errors"][0]["offset"].as_u64().unwrap() > 0);
    // healthy.bin alone has 7 long polls; the first half of blocking.bin adds its own.
    assert!(v["longPolls"]["count"].as_u64().unwrap() > 7);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(d9lens(&["analyze"]).status.code(), Some(2));
    assert_eq!(d9lens(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(d9lens(&["analyze", "x.bin", "--sample", "0"]).status.code(), Some(2));
}

#[test]
fn a_single_gzip_file_cut_short_names_the_gzip_error() {
    // One gzip file is inflated and decoded on two threads: a broken gzip must
    // still end both and be reported.
    let seg = "s3-bucket/version=1/date=2026-11-30/service=checkout-api/time=1405/instance=ip-10-0-1-23/boot=qghy-22982/1796047550-1.bin.gz";
    let gz = std::fs::read(fixtures().join(seg)).unwrap();
    let dir = std::env::temp_dir().join(format!("d9lens-cli-gz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cut = dir.join("cut.bin.gz");
    std::fs::write(&cut, &gz[..gz.len() * 3 / 5]).unwrap();
    let out = d9lens(&["analyze", cut.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cut.bin.gz") && stderr.contains("gzip"), "{stderr}");
    let whole = d9lens(&["analyze", &path(seg), "--json"]);
    assert!(whole.status.success());
    let v: serde_json::Value = serde_json::from_slice(&whole.stdout).unwrap();
    assert_eq!(v["summary"]["eventCount"].as_u64().map(|n| n > 40_000), Some(true));
    std::fs::remove_dir_all(&dir).unwrap();
}
