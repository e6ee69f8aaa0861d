//! The `d9lens` binary on the real fixtures.

mod terminal;

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
fn a_directory_is_walked_into_its_sub_folders() {
    // The fixture bucket: segments six folders deep, and objects that are not traces.
    let out = d9lens(&["analyze", &path("s3-bucket"), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = v["files"].as_array().unwrap();
    let mut want = 0;
    let mut folders = vec![std::path::PathBuf::from(path("s3-bucket"))];
    while let Some(f) = folders.pop() {
        for e in std::fs::read_dir(f).unwrap().map(Result::unwrap) {
            let p = e.path();
            if p.is_dir() {
                folders.push(p);
            } else if p.to_string_lossy().ends_with(".bin.gz") {
                want += 1;
            }
        }
    }
    assert!(want > 20);
    assert_eq!(files.len(), want);
    assert_eq!(v["label"], format!("{want} files in s3-bucket"));
}

#[test]
fn a_terminal_sees_the_progress_and_a_pipe_nothing_extra() {
    let dir = path("rotation");
    let traces: Vec<u64> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .map(|p| p.metadata().unwrap().len())
        .collect();
    let screen = terminal::stderr_on_a_terminal(&["analyze", &dir], |_| {});
    // Drawn over itself, from the first file done on, then cleared.
    let total = d9lens_core::fmt::bytes(traces.iter().sum());
    assert!(
        screen.starts_with(&format!("\rd9lens: 1 of {} files, ", traces.len())),
        "{screen:?}"
    );
    assert!(screen.contains(&format!(" of {total}\x1b[K")), "{screen:?}");
    assert!(screen.ends_with("\r\x1b[K"), "{screen:?}");
    let quiet = terminal::stderr_on_a_terminal(&["analyze", &dir, "--quiet"], |_| {});
    assert!(!quiet.contains("files"), "{quiet:?}");
    let piped = d9lens(&["analyze", &dir]);
    let stderr = String::from_utf8_lossy(&piped.stderr);
    assert!(!stderr.contains('\r') && !stderr.contains(" files, "), "{stderr:?}");
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

/// Poll slices (`ph: "X"`, `cat: "poll"`) of a Chrome trace by (pid, tid).
fn chrome_polls(trace: &serde_json::Value) -> std::collections::BTreeMap<(u64, u64), u64> {
    let mut polls = std::collections::BTreeMap::new();
    for e in trace["traceEvents"].as_array().expect("traceEvents") {
        if e["ph"] == "X" && e["cat"] == "poll" {
            *polls
                .entry((e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap()))
                .or_default() += 1;
        }
    }
    polls
}

/// The report's poll count of each worker that polled.
fn report_polls(rel: &str) -> std::collections::BTreeMap<u64, u64> {
    let out = d9lens(&["analyze", &path(rel), "--json"]);
    assert!(out.status.success(), "{rel}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let workers = v["workers"].as_array().unwrap().iter();
    let polls = workers.map(|w| (w["worker"].as_u64().unwrap(), w["pollCount"].as_u64().unwrap()));
    polls.filter(|&(_, n)| n > 0).collect()
}

#[test]
fn chrome_export_is_json_with_every_poll_of_each_worker() {
    let gz = "s3-bucket/version=1/date=2026-11-30/service=checkout-api/time=1405/instance=ip-10-0-1-23/boot=qghy-22982/1796047550-1.bin.gz";
    let traces = [
        "healthy.bin",
        "blocking.bin",
        "demo-trace.bin",
        "hostile-names.bin",
        "rotation/trace.0.bin",
        "rotation/trace.4.bin",
        gz,
    ];
    for rel in traces {
        let out = d9lens(&["export", &path(rel), "--format", "chrome"]);
        assert!(out.status.success(), "{rel}: {}", String::from_utf8_lossy(&out.stderr));
        let trace: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(trace["displayTimeUnit"], "ns");
        let per_worker: std::collections::BTreeMap<u64, u64> = chrome_polls(&trace)
            .into_iter()
            .map(|((pid, tid), n)| {
                assert_eq!(pid, 1, "{rel}: one file, one process");
                (tid, n)
            })
            .collect();
        assert_eq!(per_worker, report_polls(rel), "{rel}: poll slices per worker thread");
        let events = trace["traceEvents"].as_array().unwrap();
        let named = |tid: u64| events.iter().any(|e| e["name"] == "thread_name" && e["tid"] == tid);
        assert!(
            per_worker.keys().all(|&w| named(w)),
            "{rel}: every worker thread is named"
        );
        // Wakes become flows, each id once at each end.
        let ends = |ph: &str| {
            let mut ids: Vec<u64> = events
                .iter()
                .filter(|e| e["ph"] == ph)
                .map(|e| e["id"].as_u64().unwrap())
                .collect();
            ids.sort_unstable();
            ids
        };
        let starts = ends("s");
        assert_eq!(starts, ends("f"), "{rel}");
        assert!(starts.windows(2).all(|w| w[0] < w[1]), "{rel}: flow ids are unique");
        if rel != "hostile-names.bin" {
            assert!(!starts.is_empty(), "{rel}: wakes as flows");
        }
    }
}

#[test]
fn chrome_export_of_a_directory_is_one_process_per_file_into_a_file() {
    let dir = std::env::temp_dir().join(format!("d9lens-cli-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("rotation.json");
    let out = d9lens(&[
        "export",
        &path("rotation"),
        "--format",
        "chrome",
        "-o",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty());
    let trace: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let polls = chrome_polls(&trace);
    let events = trace["traceEvents"].as_array().unwrap();
    for i in 0..5u64 {
        let name = format!("trace.{i}.bin");
        // Files in time order: the rotation's segments follow each other.
        let pid = i + 1;
        assert!(
            events
                .iter()
                .any(|e| e["name"] == "process_name" && e["pid"] == pid && e["args"]["name"] == name),
            "{name} is process {pid}"
        );
        let exported: u64 = polls.iter().filter(|((p, _), _)| *p == pid).map(|(_, n)| n).sum();
        let reported: u64 = report_polls(&format!("rotation/{name}")).values().sum();
        assert_eq!(exported, reported, "{name}");
    }
    // Later files start later on the one axis.
    let first_poll = |pid: u64| {
        let e = events.iter().find(|e| e["cat"] == "poll" && e["pid"] == pid).unwrap();
        e["ts"].as_f64().unwrap()
    };
    assert!((1..5).all(|p| first_poll(p) < first_poll(p + 1)));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn export_usage_errors_exit_2() {
    let demo = path("healthy.bin");
    for args in [
        &["export", demo.as_str()][..],
        &["export", "--format", "chrome"],
        &["export", demo.as_str(), "--format", "svg"],
        &["export", demo.as_str(), "--format", "chrome", "--samples", "on-cpu"],
        &["export", demo.as_str(), "--format", "folded", "--samples", "everything"],
    ] {
        assert_eq!(d9lens(args).status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn folded_export_weighs_what_the_report_counts() {
    let traces = [
        "healthy.bin",
        "blocking.bin",
        "demo-trace.bin",
        "hostile-names.bin",
        "rotation",
    ];
    for rel in traces {
        let out = d9lens(&["analyze", &path(rel), "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let want = [
            ("on-cpu", v["summary"]["onCpuSampleCount"].as_u64().unwrap()),
            ("off-cpu", v["summary"]["offCpuSampleCount"].as_u64().unwrap()),
            ("blocking", v["blocking"]["inPoll"].as_u64().unwrap()),
            ("idle", v["blocking"]["idlePark"].as_u64().unwrap()),
            ("alloc", v["memory"]["totalAllocBytes"].as_u64().unwrap_or(0)),
        ];
        for (samples, total) in want {
            let out = d9lens(&["export", &path(rel), "--format", "folded", "--samples", samples]);
            assert!(
                out.status.success(),
                "{rel} {samples}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let text = String::from_utf8(out.stdout).unwrap();
            let sum: u64 = text
                .lines()
                .map(|l| {
                    let (stack, n) = l.rsplit_once(' ').expect("stack count");
                    assert!(!stack.is_empty() && !stack.contains('\n'), "{rel}: {l}");
                    n.parse::<u64>().unwrap()
                })
                .sum();
            assert_eq!(sum, total, "{rel} {samples}");
        }
    }
    // On-CPU is the default; a kind the CLI does not know is refused.
    let default = d9lens(&["export", &path("blocking.bin"), "--format", "folded"]);
    let on_cpu = d9lens(&[
        "export",
        &path("blocking.bin"),
        "--format",
        "folded",
        "--samples",
        "on-cpu",
    ]);
    assert_eq!(default.stdout, on_cpu.stdout);
    let bad = d9lens(&[
        "export",
        &path("blocking.bin"),
        "--format",
        "folded",
        "--samples",
        "cpu",
    ]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn compare_ranks_what_moved_and_names_new_findings() {
    let out = d9lens(&["compare", &path("healthy.bin"), "--", &path("blocking.bin"), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(c["a"]["label"], "healthy.bin");
    assert_eq!(c["b"]["label"], "blocking.bin");
    assert_eq!(c["figures"][0]["name"], "span legacy_sync_lookup p99");
    let only_b: Vec<&str> = c["findingsOnlyInB"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["check"].as_str().unwrap())
        .collect();
    assert!(only_b.contains(&"long-poll"), "{only_b:?}");
    let text = d9lens(&["compare", &path("healthy.bin"), "--", &path("blocking.bin")]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.starts_with("COMPARISON\n  A: healthy.bin"), "{text}");
    assert!(text.contains("KEY FIGURES (most changed first)"));
    // Both sides are needed.
    assert_eq!(d9lens(&["compare", &path("healthy.bin")]).status.code(), Some(2));
}

#[test]
fn windows_of_one_trace_split_its_polls_and_compare() {
    let polls = |args: &[&str]| {
        let out = d9lens(args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        r["workers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["pollCount"].as_u64().unwrap())
            .sum::<u64>()
    };
    let demo = path("demo-trace.bin");
    let whole = polls(&["analyze", &demo, "--json"]);
    let first = polls(&["analyze", &demo, "--json", "--window", "0..2000"]);
    let rest = polls(&["analyze", &demo, "--json", "--window", "2000..1e9"]);
    assert!(first > 0 && rest > 0);
    assert_eq!(first + rest, whole);
    let out = d9lens(&[
        "compare",
        &demo,
        "--window",
        "0..2000",
        "--",
        &demo,
        "--window",
        "2000..4000",
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(c["a"]["label"], "demo-trace.bin 0ns–2.00s");
    assert_eq!(c["b"]["label"], "demo-trace.bin 2.00s–4.00s");
    assert!(!c["figures"].as_array().unwrap().is_empty());
    for bad in ["2000", "a..b", "-1..5"] {
        let out = d9lens(&["analyze", &demo, "--window", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("FROM_MS..TO_MS"), "{bad}");
    }
}

#[test]
fn markdown_and_html_exports_keep_trace_strings_inert() {
    let md = d9lens(&["export", &path("blocking.bin"), "--format", "markdown"]);
    assert!(md.status.success());
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(md.starts_with("# d9lens report: blocking.bin\n"), "{md}");
    assert!(
        md.contains("| 36 | 25.2% | legacy\\_sync\\_lookup workload.rs:108 |"),
        "{md}"
    );
    let hostile = d9lens(&["export", &path("hostile-names.bin"), "--format", "markdown"]);
    let hostile = String::from_utf8(hostile.stdout).unwrap();
    assert!(!hostile.contains("<img") && !hostile.contains("<script"), "{hostile}");
    assert!(hostile.contains("&lt;img src=x"));
    let html = d9lens(&["export", &path("hostile-names.bin"), "--format", "html"]);
    assert!(html.status.success());
    let html = String::from_utf8(html.stdout).unwrap();
    assert!(html.starts_with("<!doctype html>"));
    assert!(!html.contains("<img") && !html.contains("<script"), "{html}");
    assert!(html.contains("&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt;"));
    assert!(html.contains("default-src 'none'"));
}

#[test]
fn terminal_escapes_in_trace_strings_reach_no_terminal() {
    let file = path("escape-names.bin");
    for args in [
        vec!["analyze", &file],
        vec!["analyze", &file, "--json"],
        vec!["diagnose", &file],
        vec!["compare", &file, "--", &file],
        vec!["export", &file, "--format", "markdown"],
        vec!["export", &file, "--format", "chrome"],
    ] {
        let out = d9lens(&args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for (what, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            assert!(
                !bytes.iter().any(|&b| b == 0x1b || b == 0x07 || b == b'\r'),
                "{args:?}: a raw control character on {what}"
            );
        }
    }
    let text = String::from_utf8(d9lens(&["analyze", &file]).stdout).unwrap();
    assert!(text.contains("spawn: \\u{1b}]0;pwned\\u{7}src/main.rs:1:1"), "{text}");
}

#[test]
fn deploy_lambda_prints_the_policies_as_json() {
    let out = d9lens(&[
        "deploy-lambda",
        "--function",
        "d9lens",
        "--region",
        "eu-west-1",
        "--print-policies",
        "acme-traces",
        "dial9",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let policies: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let statements = |policy: &str| policies[policy]["Statement"].as_array().unwrap().clone();
    let role = statements("functionRole");
    assert_eq!(role[0]["Action"], "s3:GetObject");
    assert_eq!(role[0]["Resource"], "arn:aws:s3:::acme-traces/dial9/*");
    assert!(role.iter().all(|s| s["Action"] != "s3:ListBucket"));
    let cli = statements("cliCaller");
    assert_eq!(cli[0]["Action"], "lambda:InvokeFunction");
    assert_eq!(cli[0]["Resource"][0], "arn:aws:lambda:eu-west-1:*:function:d9lens");
    assert_eq!(cli[1]["Action"], "s3:ListBucket");
    assert_eq!(cli[1]["Resource"], "arn:aws:s3:::acme-traces");
    let page = statements("pageCaller");
    assert_eq!(page[0]["Action"], "lambda:InvokeFunctionUrl");
    assert_eq!(
        page[0]["Condition"]["StringEquals"]["lambda:FunctionUrlAuthType"],
        "AWS_IAM"
    );
    assert_eq!(
        policies["functionRoleTrust"]["Statement"][0]["Principal"]["Service"],
        "lambda.amazonaws.com"
    );
}

#[test]
fn deploy_lambda_dry_run_lists_the_requests_and_sends_none() {
    let dir = std::env::temp_dir().join(format!("d9lens-deploy-lambda-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let zip = dir.join("bootstrap.zip");
    // Bytes whose base64 would be recognisable in the output.
    std::fs::write(&zip, b"PK\x03\x04 the function's code").unwrap();
    // TEST-NET-1: nothing answers there, so a request sent would fail the run.
    let out = deploy_lambda_against("http://192.0.2.1:9", &zip, &["--dry-run"]);
    std::fs::remove_dir_all(&dir).unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{stdout}{stderr}");
    let requests: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.trim().split(" (").next())
        .filter(|l| l.starts_with(['G', 'P']) && l.contains(" /20"))
        .collect();
    assert_eq!(
        requests,
        [
            "GET /2015-03-31/functions/d9lens",
            "POST /2015-03-31/functions",
            "PUT /2015-03-31/functions/d9lens/code",
            "PUT /2015-03-31/functions/d9lens/configuration",
            "GET /2015-03-31/functions/d9lens/configuration",
            "GET /2021-10-31/functions/d9lens/url",
            "POST /2021-10-31/functions/d9lens/url",
            "PUT /2021-10-31/functions/d9lens/url",
        ],
        "{stdout}"
    );
    assert!(stdout.contains("nothing is sent"), "{stdout}");
    assert!(stdout.contains("https://traces.example.com"), "{stdout}");
    for secret in [SECRET, SESSION_TOKEN, "UEsDBCB0aGUg", "Signature"] {
        assert!(
            !stdout.contains(secret) && !stderr.contains(secret),
            "{secret}: {stdout}{stderr}"
        );
    }
    assert!(stderr.is_empty(), "{stderr}");
}

/// A Lambda API stand-in on loopback: answers each request by its method and
/// path from `answer` (status, error type, JSON body) and records it (method,
/// path, authorization header, body).
fn fake_lambda(
    answer: fn(&str, &str) -> (u16, &'static str, String),
) -> (String, std::sync::mpsc::Receiver<(String, String, String, String)>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let mut parts = line.split_whitespace();
            let (method, path) = (parts.next().unwrap().to_owned(), parts.next().unwrap().to_owned());
            let (mut length, mut authorization) = (0, String::new());
            loop {
                let mut header = String::new();
                reader.read_line(&mut header).unwrap();
                let Some((name, value)) = header.trim_end().split_once(':') else {
                    break;
                };
                match name.to_ascii_lowercase().as_str() {
                    "content-length" => length = value.trim().parse().unwrap(),
                    "authorization" => authorization = value.trim().to_owned(),
                    _ => {}
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let (status, error_type, json) = answer(&method, &path);
            // Recorded before the answer, so the run never ends before its record.
            let _ = tx.send((method, path, authorization, String::from_utf8(body).unwrap()));
            let error = match error_type {
                "" => String::new(),
                kind => format!("x-amzn-ErrorType: {kind}\r\n"),
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\n{error}content-length: {}\r\nconnection: close\r\n\r\n{json}",
                json.len()
            );
        }
    });
    (endpoint, rx)
}

/// The secret and session token `deploy_lambda_against` runs with.
const SECRET: &str = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
const SESSION_TOKEN: &str = "SESSIONTOKEN";

/// `d9lens deploy-lambda` of `zip` as function d9lens in eu-west-1, sent to
/// `endpoint`, its URL open to https://traces.example.com, with `extra` flags.
fn deploy_lambda_against(endpoint: &str, zip: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_d9lens"))
        .args([
            "deploy-lambda",
            "--function",
            "d9lens",
            "--role",
            "arn:aws:iam::123456789012:role/d9lens-lambda",
            "--zip",
            zip.to_str().unwrap(),
            "--region",
            "eu-west-1",
            "--endpoint",
            endpoint,
            "--allow-origin",
            "https://traces.example.com",
        ])
        .args(extra)
        .env("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
        .env("AWS_SECRET_ACCESS_KEY", SECRET)
        .env("AWS_SESSION_TOKEN", SESSION_TOKEN)
        .output()
        .expect("run d9lens")
}

#[test]
fn deploy_lambda_creates_a_missing_function_and_its_url() {
    static ROLE_REFUSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let (endpoint, requests) = fake_lambda(|method, path| {
        const NOT_FOUND: &str = r#"{"Type":"User","message":"Function not found"}"#;
        let arn = r#""FunctionArn":"arn:aws:lambda:eu-west-1:123456789012:function:d9lens""#;
        match (method, path) {
            ("GET", "/2015-03-31/functions/d9lens") => (404, "ResourceNotFoundException", NOT_FOUND.into()),
            // A role created moments before: refused once, until IAM has propagated it.
            ("POST", "/2015-03-31/functions") if !ROLE_REFUSED.swap(true, std::sync::atomic::Ordering::SeqCst) => (
                400,
                "InvalidParameterValueException",
                r#"{"Type":"User","message":"The role defined for the function cannot be assumed by Lambda."}"#.into(),
            ),
            ("POST", "/2015-03-31/functions") => (
                201,
                "",
                format!(r#"{{{arn},"State":"Pending","LastUpdateStatus":"InProgress"}}"#),
            ),
            ("GET", "/2015-03-31/functions/d9lens/configuration") => (
                200,
                "",
                format!(r#"{{{arn},"State":"Active","LastUpdateStatus":"Successful"}}"#),
            ),
            ("GET", "/2021-10-31/functions/d9lens/url") => (404, "ResourceNotFoundException", NOT_FOUND.into()),
            ("POST", "/2021-10-31/functions/d9lens/url") => (
                201,
                "",
                r#"{"AuthType":"AWS_IAM","FunctionUrl":"https://abc.lambda-url.eu-west-1.on.aws/"}"#.into(),
            ),
            _ => (
                400,
                "InvalidRequestContentException",
                r#"{"message":"unexpected"}"#.into(),
            ),
        }
    });
    let zip = std::env::temp_dir().join(format!("d9lens-create-lambda-{}.zip", std::process::id()));
    std::fs::write(&zip, b"PK\x03\x04code").unwrap();
    let out = deploy_lambda_against(&endpoint, &zip, &[]);
    std::fs::remove_file(&zip).unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        stdout.contains("Function URL (AWS_IAM): https://abc.lambda-url.eu-west-1.on.aws/"),
        "{stdout}"
    );
    let sent: Vec<_> = requests.try_iter().collect();
    let lines: Vec<String> = sent.iter().map(|(m, p, ..)| format!("{m} {p}")).collect();
    assert_eq!(
        lines,
        [
            "GET /2015-03-31/functions/d9lens",
            "POST /2015-03-31/functions",
            "POST /2015-03-31/functions",
            "GET /2015-03-31/functions/d9lens/configuration",
            "GET /2021-10-31/functions/d9lens/url",
            "POST /2021-10-31/functions/d9lens/url",
        ]
    );
    assert!(stdout.contains("Lambda cannot assume the role yet"), "{stdout}");
    assert!(
        sent.iter()
            .all(|(.., auth, _)| auth.contains("/eu-west-1/lambda/aws4_request"))
    );
    assert_eq!(sent[1].3, sent[2].3, "the same request again");
    let create: serde_json::Value = serde_json::from_str(&sent[2].3).unwrap();
    assert_eq!(create["Code"]["ZipFile"], "UEsDBGNvZGU=");
    assert_eq!(create["Runtime"], "provided.al2023");
    assert_eq!(create["Architectures"], serde_json::json!(["arm64"]));
    let url: serde_json::Value = serde_json::from_str(&sent[5].3).unwrap();
    assert_eq!(url["AuthType"], "AWS_IAM");
    assert_eq!(
        url["Cors"]["AllowOrigins"],
        serde_json::json!(["https://traces.example.com"])
    );
}

#[test]
fn deploy_lambda_names_lambdas_error() {
    let (endpoint, _requests) = fake_lambda(|_, _| {
        (
            403,
            "AccessDeniedException",
            r#"{"Message":"User is not authorized to perform: lambda:GetFunction"}"#.into(),
        )
    });
    let zip = std::env::temp_dir().join(format!("d9lens-denied-lambda-{}.zip", std::process::id()));
    std::fs::write(&zip, b"PK\x03\x04code").unwrap();
    let out = deploy_lambda_against(&endpoint, &zip, &[]);
    std::fs::remove_file(&zip).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "GET /2015-03-31/functions/d9lens (GetFunction) failed: HTTP 403 AccessDeniedException: \
             User is not authorized to perform: lambda:GetFunction"
        ),
        "{stderr}"
    );
}
