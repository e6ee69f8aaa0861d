//! `d9lens s3` against a real S3-compatible server: s3s-fs (it verifies SigV4, in
//! the test server of tests/s3/server) serving a copy of tests/fixtures/s3-bucket/ as bucket `d9lens-demo`, behind the
//! CORS front of tests/s3/front.mjs; both started on free ports by
//! tests/s3/servers.mjs, once per test binary, and stopped when it exits.
//!
//! Skipped (with a message) only when that server is not built; under CI=true a
//! missing server fails instead, since scripts/setup.sh builds it.

mod terminal;

use d9lens_core::s3::{BucketName, ByteRange, Credentials, Endpoint, Region, S3Config, Timestamp};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, OnceLock};

const BUCKET: &str = "d9lens-demo";
const ACCESS_KEY_ID: &str = "d9lensdemo";
const SECRET: &str = "d9lens-demo-secret-key";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct Servers {
    cors: String,
    plain: String,
    /// Where s3s-fs keeps the bucket's objects, as files.
    data_dir: PathBuf,
    /// servers.mjs: it stops s3s-fs and itself when its stdin closes, i.e. when this
    /// test process exits (or, for a test's own servers, when they are dropped).
    _child: Mutex<Child>,
}

/// The S3 test server (`tests/s3/server`, built by scripts/setup.sh): s3s-fs with
/// SigV4 checks, or the binary `S3S_FS` names.
fn s3_server() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("S3S_FS") {
        return Some(p.into());
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from);
    Some(target.join("debug/d9lens-s3-server")).filter(|p| p.is_file())
}

/// The servers every test shares.
fn servers() -> Option<&'static Servers> {
    static SERVERS: OnceLock<Option<Servers>> = OnceLock::new();
    SERVERS.get_or_init(|| start_servers("shared")).as_ref()
}

/// Servers on a fresh copy of the bucket: the shared ones, or a test's own
/// when it writes to the bucket (the shared listings are checked object by
/// object); `name` tells their state files apart.
fn start_servers(name: &str) -> Option<Servers> {
    let Some(bin) = s3_server() else {
        let msg = "the S3 test server is not built: scripts/setup.sh builds it \
                   (cargo build -p d9lens-s3-server)";
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{msg}");
        // Straight to stderr: libtest captures eprintln! of passing tests.
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: the S3 tests need the S3 test server. {msg}"
        );
        return None;
    };
    let state = std::env::temp_dir().join(format!("d9lens-s3-test-{}-{name}.json", std::process::id()));
    let mut child = Command::new("node")
        .arg(root().join("tests/s3/servers.mjs"))
        .args(["run", "--watch-stdin"])
        .env("S3_PORT", "0")
        .env("S3_CORS_PORT", "0")
        .env("S3S_FS", bin)
        .env("D9LENS_S3_STATE", state)
        .env_remove("S3_CORS_ORIGINS")
        .env_remove("S3_REGION")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node runs tests/s3/servers.mjs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("piped"))
        .read_line(&mut line)
        .expect("read endpoints");
    let endpoints: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("servers.mjs printed {line:?}: {e}"));
    Some(Servers {
        cors: endpoints["corsEndpoint"].as_str().expect("corsEndpoint").to_owned(),
        plain: endpoints["plainEndpoint"].as_str().expect("plainEndpoint").to_owned(),
        data_dir: endpoints["dataDir"].as_str().expect("dataDir").into(),
        _child: Mutex::new(child),
    })
}

macro_rules! servers {
    () => {
        match servers() {
            Some(s) => s,
            None => return,
        }
    };
}

/// Runs `d9lens s3 ARGS` with only the given AWS environment (demo credentials by default).
fn d9lens_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_d9lens"));
    cmd.args(args);
    aws_env(&mut cmd, env);
    cmd.output().expect("run d9lens")
}

/// Only the given AWS environment for `cmd` (demo credentials by default).
fn aws_env(cmd: &mut Command, env: &[(&str, &str)]) {
    for var in [
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_SECURITY_TOKEN",
        "AWS_CREDENTIAL_EXPIRATION",
        "AWS_REGION",
        "AWS_DEFAULT_REGION",
        "AWS_ENDPOINT_URL",
        "AWS_ENDPOINT_URL_S3",
        "AWS_ENDPOINT_URL_STS",
        "AWS_PROFILE",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_EC2_METADATA_SERVICE_ENDPOINT",
    ] {
        cmd.env_remove(var);
    }
    // Nothing of this machine's own AWS setup: no profile files, no instance metadata.
    cmd.env("AWS_CONFIG_FILE", "/nonexistent/d9lens-test/config")
        .env("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/d9lens-test/credentials")
        .env("AWS_EC2_METADATA_DISABLED", "true");
    cmd.env("AWS_ACCESS_KEY_ID", ACCESS_KEY_ID)
        .env("AWS_SECRET_ACCESS_KEY", SECRET);
    for (k, v) in env {
        if v.is_empty() {
            cmd.env_remove(k);
        } else {
            cmd.env(k, v);
        }
    }
}

fn d9lens(args: &[&str]) -> Output {
    d9lens_env(args, &[])
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}); stderr:\n{}", text(&out.stderr)))
}

/// A raw HTTP/1.1 exchange: (status, lower-cased headers, body).
fn http(
    base: &str,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, BTreeMap<String, String>, Vec<u8>) {
    let authority = base.strip_prefix("http://").expect("http endpoint");
    let mut stream = TcpStream::connect(authority).expect("connect");
    let mut req = format!("{method} {target} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(req.as_bytes()).expect("send");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("receive");
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("header end");
    let head = text(&raw[..split]);
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status");
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        body = dechunk(&body);
    }
    (status, headers, body)
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n").expect("chunk size line");
        let size = usize::from_str_radix(text(&data[..line_end]).trim(), 16).expect("chunk size");
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[line_end + 2..line_end + 2 + size]);
        data = &data[line_end + 4 + size..];
    }
}

fn fixtures() -> PathBuf {
    root().join("tests/fixtures")
}

fn listing() -> Value {
    serde_json::from_slice(&std::fs::read(fixtures().join("s3-bucket.listing.json")).unwrap()).unwrap()
}

fn find<'a>(items: &'a Value, field: &str, value: &str) -> &'a Value {
    items
        .as_array()
        .and_then(|a| a.iter().find(|i| i[field] == value))
        .unwrap_or_else(|| panic!("no {field} = {value} in {items}"))
}

#[test]
fn ls_walks_the_whole_bucket_by_partition() {
    let s = servers!();
    let out = d9lens(&[
        "s3",
        "ls",
        &format!("s3://{BUCKET}"),
        "--endpoint",
        &s.cors,
        "--max-keys",
        "7",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v = json(&out);
    // The walk: root, positional date, version=1/, 2 dates, 4 services (delimiter
    // listings), then 7 hours or other folders listed flat; 3 of them need a second page.
    assert_eq!(v["partitions"], 16);
    assert_eq!(
        v["pages"],
        16 + 2,
        "checkout-api's hour 14 holds 16 objects: 3 pages of 7"
    );
    assert_eq!(v["notListed"], serde_json::json!([]));

    // Every object of the fixture, with its size.
    let listed: BTreeMap<String, u64> = ["segments", "others"]
        .iter()
        .flat_map(|k| v["catalog"][k].as_array().unwrap().iter())
        .map(|o| (o["key"].as_str().unwrap().to_owned(), o["size"].as_u64().unwrap()))
        .collect();
    let expected: BTreeMap<String, u64> = listing()["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["key"].as_str().unwrap().to_owned(), o["bytes"].as_u64().unwrap()))
        .collect();
    assert_eq!(listed, expected);

    let summary = &v["summary"];
    assert_eq!(summary["objects"], 30);
    assert_eq!(summary["segments"], 26);
    assert_eq!(summary["v1Segments"], 24);
    assert_eq!(summary["positionalSegments"], 2);
    let services: Vec<&str> = summary["services"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(services, ["checkout-api", "inventory-svc", "payments/api"]);
    assert_eq!(
        find(&summary["services"], "name", "payments/api")["rawNames"],
        serde_json::json!(["payments%2Fapi"])
    );
    assert_eq!(summary["instances"].as_array().unwrap().len(), 6);
    assert_eq!(summary["dates"], serde_json::json!(["2026-11-30", "2026-12-01"]));

    // ip-10-0-1-23 restarted: gauu (positional) → qghy → zgmu.
    let checkout = find(&summary["services"], "name", "checkout-api");
    let host = checkout["subnets"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["hosts"].as_array().unwrap())
        .find(|h| h["instance"] == "ip-10-0-1-23")
        .expect("ip-10-0-1-23");
    assert_eq!(host["ip"], "10.0.1.23");
    let zgmu = find(&host["boots"], "boot", "zgmu-24044");
    assert_eq!(zgmu["start"]["kind"], "restart");
    assert_eq!(zgmu["start"]["previousBoot"], "qghy-22982");
    assert_eq!(
        find(&host["boots"], "boot", "gauu-25994")["layouts"],
        serde_json::json!(["positional"])
    );

    // The objects that are not segments, with their reason.
    let others: BTreeSet<&str> = summary["others"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["objects"].as_array().unwrap())
        .map(|o| o["key"].as_str().unwrap())
        .collect();
    let fixture = listing();
    let not_segments: BTreeSet<&str> = fixture["objects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["layout"].is_null())
        .map(|o| o["key"].as_str().unwrap())
        .collect();
    assert_eq!(others, not_segments);
    assert!(others.contains("README.txt") && others.len() == 4, "{others:?}");

    // The text form says the same.
    let out = d9lens(&[
        "s3",
        "ls",
        &format!("s3://{BUCKET}"),
        "--endpoint",
        &s.cors,
        "--max-keys",
        "7",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    for needle in [
        "30 objects",
        "18 listing pages over 16 prefixes",
        "SERVICE payments/api (in keys: payments%2Fapi)",
        "subnet 10.0.1.0/24",
        "boot zgmu-24044",
        "restart after 13m45s (previous: boot qghy-22982)",
        "segments #3–#95 missing (93)",
        "OTHER OBJECTS (not segments): 4",
        "upload.lock",
        "Segment starts: 2026-11-30T08:14:52Z",
    ] {
        assert!(shown.contains(needle), "{needle:?} missing from:\n{shown}");
    }
}

/// `--last 15m`: the bucket's shape first (delimiter listings only), then
/// only the 10-minute blocks of the newest quarter hour: its six segments.
#[test]
fn ls_of_the_last_minutes_lists_only_their_blocks() {
    let s = servers!();
    let url = format!("s3://{BUCKET}");
    let out = d9lens(&["s3", "ls", &url, "--endpoint", &s.cors, "--last", "15m", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v = json(&out);
    // 2026-12-01 10:00 is the newest minute: 09:46 → 10:01.
    assert_eq!(
        v["window"],
        serde_json::json!({"startSecs": 1_796_118_360u64, "endSecs": 1_796_119_260u64})
    );
    assert_eq!(v["summary"]["segments"], 6);
    assert_eq!(v["notListed"], serde_json::json!([]));
    // The shape: root, version=1/, 2 days, the newest day's 2 services, the
    // newest positional day; then inventory-svc's blocks 09:50 and 10:00.
    assert_eq!((v["partitions"].as_u64(), v["pages"].as_u64()), (Some(9), Some(9)));
    let (_, _, body) = http(&s.cors, "GET", "/__d9lens/requests", &[], "");
    let log = text(&body);
    let block = "prefix=version%3D1%2Fdate%3D2026-12-01%2Fservice%3Dinventory-svc%2Ftime%3D095\"";
    assert!(log.contains(block), "no listing of the 09:50 block in {log}");
    let err = text(&out.stderr);
    assert!(err.contains("the newest data is at 2026-12-01T10:01:00Z"), "{err}");

    // A window bounds the listing the same way, and analyze takes it.
    let out = d9lens(&[
        "s3",
        "analyze",
        &url,
        "--endpoint",
        &s.cors,
        "--from",
        "2026-12-01T09:55",
        "--to",
        "2026-12-01T10:05",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("analyzing 6 segments"), "{err}");
}

#[test]
fn ls_without_a_bucket_lists_the_buckets() {
    let s = servers!();
    // s3s-fs serves each folder of its data dir as a bucket.
    std::fs::create_dir_all(s.data_dir.join("d9lens-another")).unwrap();
    let out = d9lens(&["s3", "ls", "--endpoint", &s.cors, "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v = json(&out);
    let names: Vec<&str> = v["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert!(names.windows(2).all(|w| w[0] < w[1]), "by name: {names:?}");
    assert!(
        names.contains(&BUCKET) && names.contains(&"d9lens-another"),
        "{names:?}"
    );
    assert_eq!(v["truncated"], false);
    assert!(v["buckets"][0]["created"].as_str().unwrap().ends_with('Z'));
    let out = d9lens(&["s3", "ls", "--endpoint", &s.plain]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).lines().any(|l| l.ends_with(&format!("  {BUCKET}"))),
        "{}",
        text(&out.stdout)
    );
    // A wrong secret: S3's refusal, explained, and no bucket.
    let out = d9lens_env(
        &["s3", "ls", "--endpoint", &s.cors],
        &[("AWS_SECRET_ACCESS_KEY", "not-the-secret")],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(
        text(&out.stderr).contains("SignatureDoesNotMatch"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn ls_under_a_prefix_and_without_the_cors_front() {
    let s = servers!();
    let out = d9lens(&[
        "s3",
        "ls",
        &format!("s3://{BUCKET}/version=1/date=2026-12-01/"),
        "--endpoint",
        &s.plain,
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v = json(&out);
    assert_eq!(v["summary"]["objects"], 8);
    assert_eq!(v["summary"]["dates"], serde_json::json!(["2026-12-01"]));
}

#[test]
fn ls_names_what_the_object_cap_left_out() {
    let s = servers!();
    let out = d9lens(&[
        "s3",
        "ls",
        &format!("s3://{BUCKET}"),
        "--endpoint",
        &s.plain,
        "--max-keys",
        "3",
        "--max-objects",
        "10",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v = json(&out);
    let listed: BTreeSet<String> = ["segments", "others"]
        .iter()
        .flat_map(|k| v["catalog"][k].as_array().unwrap().iter())
        .map(|o| o["key"].as_str().unwrap().to_owned())
        .collect();
    assert!((10..30).contains(&listed.len()), "{}", listed.len());
    let not_listed: Vec<&str> = v["notListed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            assert_eq!(n["reason"], serde_json::json!({"kind": "objectCap", "maxObjects": 10}));
            n["prefix"].as_str().unwrap()
        })
        .collect();
    // Every object of the bucket is listed or under a prefix named as left out.
    for o in listing()["objects"].as_array().unwrap() {
        let key = o["key"].as_str().unwrap();
        assert!(
            listed.contains(key) || not_listed.iter().any(|p| key.starts_with(p)),
            "{key} is unaccounted for"
        );
    }
    let err = text(&out.stderr);
    assert!(err.contains("not listed completely"), "{err}");
    assert!(err.contains(&format!("d9lens:   {}: ", not_listed[0])), "{err}");
    assert!(err.contains("the listing stopped at 10 objects"), "{err}");
}

#[test]
fn wrong_secret_explains_without_showing_it() {
    let s = servers!();
    let wrong = "Wr0ngSecretKeyValue/abcdefghijklmnopqrstu";
    let out = d9lens_env(
        &["s3", "ls", &format!("s3://{BUCKET}"), "--endpoint", &s.cors],
        &[("AWS_SECRET_ACCESS_KEY", wrong)],
    );
    assert_eq!(out.status.code(), Some(1));
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(all.contains("SignatureDoesNotMatch"), "{all}");
    assert!(all.contains("secret access key is wrong"), "{all}");
    assert!(all.contains("Check the secret access key field"), "{all}");
    assert!(all.contains("AWS_SECRET_ACCESS_KEY"), "{all}");
    assert!(!all.contains(wrong) && !all.contains("Wr0ngSecret"), "{all}");
    assert!(!all.contains("X-Amz-Signature="), "{all}");
}

#[test]
fn anonymous_requests_are_refused_with_a_hint() {
    let s = servers!();
    let out = d9lens_env(
        &["s3", "ls", &format!("s3://{BUCKET}"), "--endpoint", &s.cors],
        &[("AWS_ACCESS_KEY_ID", ""), ("AWS_SECRET_ACCESS_KEY", "")],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("AccessDenied") && err.contains("s3:ListBucket"), "{err}");
    assert!(err.contains("sent unsigned"), "{err}");
}

#[test]
fn wrong_region_is_retried_in_the_right_one() {
    let s = servers!();
    let out = d9lens(&[
        "s3",
        "ls",
        &format!("s3://{BUCKET}/2026-11-30/"),
        "--endpoint",
        &s.cors,
        "--region",
        "eu-west-1",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("The bucket is in region us-east-1") && err.contains("Retrying in region us-east-1"),
        "{err}"
    );
    assert!(text(&out.stdout).contains("region us-east-1"));
    assert!(text(&out.stdout).contains("2 objects"));
}

/// Drops what names a file (its key here, its base name locally), so that reports
/// of the same traces compare equal.
fn without_file_names(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for k in ["label", "files", "file"] {
                map.remove(k);
            }
            map.values_mut().for_each(without_file_names);
        }
        Value::Array(items) => items.iter_mut().for_each(without_file_names),
        _ => {}
    }
}

fn reference(key: &str) -> Value {
    let path = fixtures()
        .join("s3-bucket.reference")
        .join(format!("{key}.reference.json"));
    serde_json::from_slice(&std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap()
}

#[test]
fn analyze_a_boot_window_equals_the_local_analysis() {
    let s = servers!();
    let out = d9lens(&[
        "s3",
        "analyze",
        &format!("s3://{BUCKET}/version=1/"),
        "--endpoint",
        &s.cors,
        "--service",
        "checkout-api",
        "--host",
        "ip-10-0-2-14",
        "--boot",
        "mioh-24043",
        "--from",
        "2026-11-30T14:05:00Z",
        "--to",
        "2026-11-30T14:07:00Z",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut remote = json(&out);
    let keys = [
        "version=1/date=2026-11-30/service=checkout-api/time=1405/instance=ip-10-0-2-14/boot=mioh-24043/1796047538-0.bin.gz",
        "version=1/date=2026-11-30/service=checkout-api/time=1405/instance=ip-10-0-2-14/boot=mioh-24043/1796047553-1.bin.gz",
        "version=1/date=2026-11-30/service=checkout-api/time=1406/instance=ip-10-0-2-14/boot=mioh-24043/1796047568-2.bin.gz",
    ];
    assert_eq!(remote["files"], serde_json::json!(keys));
    assert_eq!(remote["errors"], serde_json::json!([]));

    // The merged numbers are the sums of dial9's reference for each segment.
    let refs: Vec<Value> = keys.iter().map(|k| reference(k)).collect();
    let sum = |f: &dyn Fn(&Value) -> u64| refs.iter().map(f).sum::<u64>();
    assert_eq!(
        remote["summary"]["eventCount"],
        sum(&|r| r["summary"]["eventCount"].as_u64().unwrap())
    );
    assert_eq!(
        remote["summary"]["cpuSampleCount"],
        sum(&|r| r["summary"]["cpuSampleCount"].as_u64().unwrap())
    );
    assert_eq!(
        remote["summary"]["taskSpawnCount"],
        sum(&|r| r["summary"]["taskSpawnCount"].as_u64().unwrap())
    );
    assert_eq!(
        remote["longPolls"]["count"],
        sum(&|r| r["longPolls"]["count"].as_u64().unwrap())
    );
    assert_eq!(remote["longPolls"]["worstNs"], 4_157_646);

    // And everything equals `d9lens analyze` of the same files on disk.
    let paths: Vec<String> = keys
        .iter()
        .map(|k| fixtures().join("s3-bucket").join(k).to_string_lossy().into_owned())
        .collect();
    let mut args = vec!["analyze", "--json"];
    args.extend(paths.iter().map(String::as_str));
    let local = Command::new(env!("CARGO_BIN_EXE_d9lens")).args(&args).output().unwrap();
    assert!(local.status.success());
    let mut local = json(&local);
    without_file_names(&mut remote);
    without_file_names(&mut local);
    assert!(remote == local, "s3 analyze differs from the local analysis");
}

/// `s3 analyze` of a fleet overview from 2026-11-30 23:00 to 2026-12-01
/// 10:00: payments/api's host and inventory-svc's two.
fn fleet_overview_args<'a>(bucket: &'a str, endpoint: &'a str) -> [&'a str; 10] {
    [
        "s3",
        "analyze",
        bucket,
        "--endpoint",
        endpoint,
        "--fleet",
        "--from",
        "2026-11-30T23:00:00Z",
        "--to",
        "2026-12-01T10:00:00Z",
    ]
}

#[test]
fn analyze_a_fleet_overview_takes_one_segment_per_host() {
    let s = servers!();
    let bucket = format!("s3://{BUCKET}");
    let args = fleet_overview_args(&bucket, &s.cors);
    let out = d9lens(&[&args[..], &["--json"]].concat());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut remote = json(&out);
    // Each host's segment starting nearest 04:30, the middle of the window (in key order).
    let keys = [
        "version=1/date=2026-12-01/service=inventory-svc/time=0959/instance=ip-10-0-3-101/boot=mvkz-24844/1796119182-0.bin.gz",
        "version=1/date=2026-12-01/service=inventory-svc/time=0959/instance=ip-10-0-3-102/boot=ganz-25992/1796119187-0.bin.gz",
        "version=1/date=2026-12-01/service=payments%2Fapi/time=0000/instance=ip-10-0-1-88/boot=lovg-24843/1796083210-2.bin.gz",
    ];
    assert_eq!(remote["files"], serde_json::json!(keys));
    assert!(text(&out.stderr).contains("3 segments"), "{}", text(&out.stderr));
    // Partials fold in name order: copies named to sort like the keys.
    let dir = std::env::temp_dir().join(format!("d9lens-fleet-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let paths: Vec<String> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let copy = dir.join(format!("{i}.bin.gz"));
            std::fs::copy(fixtures().join("s3-bucket").join(k), &copy).unwrap();
            copy.to_string_lossy().into_owned()
        })
        .collect();
    let mut args = vec!["analyze", "--json"];
    args.extend(paths.iter().map(String::as_str));
    let mut local = json(&Command::new(env!("CARGO_BIN_EXE_d9lens")).args(&args).output().unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
    without_file_names(&mut remote);
    without_file_names(&mut local);
    assert!(remote == local, "s3 analyze --fleet differs from the local analysis");
    let both = d9lens(&["s3", "analyze", &format!("s3://{BUCKET}"), "--fleet", "--sample", "2"]);
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn a_terminal_sees_the_listing_and_the_files_progress() {
    let s = servers!();
    let bucket = format!("s3://{BUCKET}");
    let args = fleet_overview_args(&bucket, &s.cors);
    let screen = terminal::stderr_on_a_terminal(&args, |cmd| aws_env(cmd, &[]));
    assert!(screen.contains("\rd9lens: listing: "), "{screen:?}");
    assert!(screen.contains(" partitions listed, "), "{screen:?}");
    assert!(screen.contains("analyzing 3 segments"), "{screen:?}");
    // Each line drawn over the last (at most every 100 ms: which files' is timing's).
    assert!(
        screen.contains(" of 3 files, ") && screen.contains(" of 1.12 MB\x1b[K"),
        "{screen:?}"
    );
    assert!(screen.ends_with("\r\x1b[K"), "{screen:?}");
    let quiet = terminal::stderr_on_a_terminal(&[&args[..], &["--quiet"]].concat(), |cmd| aws_env(cmd, &[]));
    assert_eq!(quiet, "", "nothing but problems with --quiet");
}

#[test]
fn a_broken_segment_is_reported_and_the_rest_analyzed() {
    let s = servers!();
    let out = d9lens(&[
        "s3",
        "analyze",
        &format!("s3://{BUCKET}"),
        "--endpoint",
        &s.cors,
        "--host",
        "ip-10-0-1-57",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let v = json(&out);
    assert_eq!(v["files"].as_array().unwrap().len(), 7);
    let prefix = "version=1/date=2026-11-30/service=checkout-api/time=1406/instance=ip-10-0-1-57/boot=nzuq-22983/";
    let truncated = find(&v["errors"], "file", &format!("{prefix}1796047573-98.bin.gz"));
    assert!(truncated["offset"].as_u64().is_some_and(|o| o > 0), "{truncated}");
    assert!(
        truncated["message"].as_str().unwrap().contains("truncated"),
        "{truncated}"
    );
    let failed: BTreeSet<&str> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["file"].as_str().unwrap())
        .collect();
    assert_eq!(failed.len(), 3, "empty, truncated and XML objects: {failed:?}");

    // The readable segments (including the uncompressed one) are all counted.
    let readable: u64 = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .filter(|f| !failed.contains(f))
        .map(|f| reference(f)["summary"]["eventCount"].as_u64().unwrap())
        .sum();
    assert_eq!(v["summary"]["eventCount"], readable);

    let err = text(&out.stderr);
    assert!(err.contains(&format!("{prefix}1796047573-98.bin.gz @")), "{err}");
}

fn fault(s: &Servers, body: &str) {
    let (status, _, _) = http(
        &s.cors,
        "POST",
        "/__d9lens/fault",
        &[("Content-Type", "application/json")],
        body,
    );
    assert_eq!(status, 200);
}

fn requests(s: &Servers, containing: &str) -> Vec<(u64, bool)> {
    let (_, _, body) = http(&s.cors, "GET", "/__d9lens/requests", &[], "");
    let log: Value = serde_json::from_slice(&body).unwrap();
    log.as_array()
        .unwrap()
        .iter()
        .filter(|r| r["path"].as_str().unwrap().contains(containing))
        .map(|r| (r["status"].as_u64().unwrap(), r["fault"].as_bool().unwrap()))
        .collect()
}

#[test]
fn throttling_is_retried_with_backoff() {
    let s = servers!();
    // Two 503 SlowDown answers for one segment download, one for a listing page.
    fault(
        s,
        r#"{"status":503,"count":2,"pathContains":"boot%3Dlovg-24843/1796083195-1"}"#,
    );
    fault(
        s,
        r#"{"status":503,"count":1,"pathContains":"prefix=version%3D1%2Fdate%3D2026-11-30%2Fservice%3Dpayments"}"#,
    );
    let out = d9lens(&[
        "s3",
        "analyze",
        &format!("s3://{BUCKET}/version=1/date=2026-11-30/service=payments"),
        "--endpoint",
        &s.cors,
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains(r#"listing "version=1/date=2026-11-30/service=payments": S3 is throttling requests (HTTP 503)"#),
        "{err}"
    );
    assert!(err.contains("Retry 2 in"), "{err}");
    assert_eq!(json(&out)["errors"], serde_json::json!([]));
    assert_eq!(requests(s, "1796083195-1"), [(503, true), (503, true), (200, false)]);
}

#[test]
fn a_dropped_connection_is_retried() {
    let s = servers!();
    // A segment of the legacy layout, which no other test here downloads.
    fault(
        s,
        r#"{"reset":true,"count":1,"pathContains":"0815/checkout-api/ip-10-0-1-23/gauu-25994/"}"#,
    );
    let out = d9lens(&[
        "s3",
        "analyze",
        &format!("s3://{BUCKET}/2026-11-30/0815/"),
        "--endpoint",
        &s.cors,
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("No answer from 127.0.0.1:"), "{err}");
    assert!(err.contains("Retry 1 in"), "{err}");
    assert!(!err.contains("X-Amz-Signature"), "{err}");
    assert_eq!(json(&out)["errors"], serde_json::json!([]));
}

fn presigned(endpoint: &str, key: &str, range: Option<ByteRange>) -> (String, Vec<(String, String)>) {
    let config = S3Config {
        endpoint: Endpoint::custom(endpoint).unwrap(),
        bucket: BucketName::new(BUCKET).unwrap(),
        region: Region::new("us-east-1").unwrap(),
        credentials: Some(Credentials::new(ACCESS_KEY_ID, SECRET, None).unwrap()),
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let req = config.get_object(key, range, Timestamp::from_unix_secs(now as i64));
    let target = req.url.strip_prefix(endpoint).expect("the endpoint's URL").to_owned();
    (target, req.headers)
}

#[test]
fn the_front_answers_cors_like_s3_and_passes_requests_through() {
    let s = servers!();
    let origin = ("Origin", "http://localhost:8080");
    let key = "version=1/date=2026-11-30/service=payments%2Fapi/time=2359/instance=ip-10-0-1-88/boot=lovg-24843/1796083180-0.bin.gz";
    let size = find(&listing()["objects"], "key", key)["bytes"].as_u64().unwrap();

    // Preflight of a ranged GET.
    let (target, _) = presigned(&s.cors, key, None);
    let (status, h, _) = http(
        &s.cors,
        "OPTIONS",
        &target,
        &[
            origin,
            ("Access-Control-Request-Method", "GET"),
            ("Access-Control-Request-Headers", "range"),
        ],
        "",
    );
    assert_eq!(status, 200);
    assert_eq!(h["access-control-allow-origin"], "http://localhost:8080");
    assert!(h["access-control-allow-methods"].contains("GET") && h["access-control-allow-methods"].contains("HEAD"));
    assert_eq!(h["access-control-allow-headers"], "range");
    assert_eq!(h["access-control-max-age"], "3600");

    // A presigned ranged GET through the front: S3's answer plus the CORS headers.
    let range = ByteRange::new(0, 99);
    let (target, headers) = presigned(&s.cors, key, range);
    let mut all: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    all.push(origin);
    let (status, h, body) = http(&s.cors, "GET", &target, &all, "");
    assert_eq!(status, 206, "{}", text(&body));
    assert_eq!(body.len(), 100);
    assert_eq!(&body[..2], [0x1f, 0x8b]);
    assert_eq!(h["content-range"], format!("bytes 0-99/{size}"));
    assert_eq!(h["access-control-allow-origin"], "http://localhost:8080");
    for exposed in [
        "ETag",
        "Content-Length",
        "Content-Range",
        "Date",
        "x-amz-request-id",
        "x-amz-bucket-region",
    ] {
        assert!(h["access-control-expose-headers"].contains(exposed), "{exposed}");
    }

    // The same request to s3s-fs directly: the right bytes, no CORS headers at all.
    let (target, _) = presigned(&s.plain, key, None);
    let (status, h, body) = http(&s.plain, "GET", &target, &[origin], "");
    assert_eq!(status, 200);
    assert_eq!(body.len() as u64, size);
    assert!(!h.contains_key("access-control-allow-origin"));

    // Unsigned requests are refused (s3s-fs really checks signatures).
    let (status, _, _) = http(&s.cors, "GET", &format!("/{BUCKET}/README.txt"), &[origin], "");
    assert_eq!(status, 403);
}

#[test]
fn docs_show_the_cores_cors_rule() {
    let doc = std::fs::read_to_string(root().join("docs/s3.md")).unwrap();
    let blocks: Vec<Value> = doc
        .split("```json\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .filter_map(|b| serde_json::from_str(b).ok())
        .collect();
    for origin in ["http://localhost:8080", "https://traces.example.com"] {
        let rule: Value = serde_json::from_str(&d9lens_core::s3::cors_rule_json(origin)).unwrap();
        assert!(blocks.contains(&rule), "docs/s3.md lacks the CORS rule for {origin}");
    }
}

/// cargo-lambda's emulator of the Lambda APIs (`cargo lambda watch
/// --only-lambda-apis`: `pip install cargo-lambda`, scripts/setup.sh) with
/// the `d9lens-lambda` function (`cargo build -p d9lens-lambda`) attached
/// as its default function, `_`, with `env` added to its environment; both
/// stopped when dropped.
struct LambdaEmulator {
    endpoint: String,
    children: Vec<Child>,
}

impl Drop for LambdaEmulator {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn lambda_emulator(env: &[(&str, &str)]) -> LambdaEmulator {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from);
    let function = target.join("debug/bootstrap");
    assert!(
        function.is_file(),
        "the Lambda function is not built: cargo build -p d9lens-lambda (scripts/test.sh builds it)"
    );
    let mut emulator = LambdaEmulator {
        endpoint: format!("http://127.0.0.1:{port}"),
        children: Vec::new(),
    };
    emulator.children.push(
        Command::new("cargo")
            .args([
                "lambda",
                "watch",
                "--only-lambda-apis",
                "--ignore-changes",
                "--invoke-port",
            ])
            .arg(port.to_string())
            .current_dir(root())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("cargo lambda runs (pip install cargo-lambda; scripts/setup.sh installs it)"),
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "the Lambda emulator did not start"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // The function reads the bucket with the demo keys, as a role's would be in Lambda.
    emulator.children.push(
        Command::new(function)
            .env("AWS_LAMBDA_RUNTIME_API", format!("http://127.0.0.1:{port}/.rt"))
            .env("AWS_LAMBDA_FUNCTION_NAME", "_")
            .env("AWS_LAMBDA_FUNCTION_VERSION", "1")
            .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "2048")
            .env("AWS_ACCESS_KEY_ID", ACCESS_KEY_ID)
            .env("AWS_SECRET_ACCESS_KEY", SECRET)
            .env_remove("AWS_SESSION_TOKEN")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the Lambda function starts"),
    );
    emulator
}

/// How many invocations `d9lens s3 analyze --lambda` said it makes (in its
/// cost estimate).
fn invocations(stderr: &str) -> usize {
    stderr
        .split("d9lens: Lambda function ")
        .find_map(|l| l.split(" at once: ").nth(1)?.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no invocation count in {stderr}"))
}

/// `d9lens s3 analyze BUCKET --json` (past the CORS front) on the emulated
/// function, in batches of 1 MB, three at once, with `extra` flags.
fn analyze_on_lambda(bucket: &str, s: &Servers, emulator: &LambdaEmulator, extra: &[&str]) -> Output {
    let mut args = vec![
        "s3",
        "analyze",
        bucket,
        "--endpoint",
        &s.plain,
        "--json",
        "--lambda",
        "_",
    ];
    args.extend([
        "--lambda-endpoint",
        &emulator.endpoint,
        "--batch-mb",
        "1",
        "--jobs",
        "3",
    ]);
    args.extend(extra);
    d9lens(&args)
}

/// The whole bucket analyzed by the Lambda function in batches, several at
/// once, is the report a local run gives: same files, same errors (a broken
/// segment among them), same numbers.
#[test]
fn analysis_on_lambda_equals_the_local_analysis() {
    let s = servers!();
    let emulator = lambda_emulator(&[]);
    let bucket = format!("s3://{BUCKET}/version=1/");
    // Past the CORS front, whose request log and faults belong to other tests.
    let local = d9lens(&["s3", "analyze", &bucket, "--endpoint", &s.plain, "--json"]);
    let on_lambda = analyze_on_lambda(&bucket, s, &emulator, &[]);
    let err = text(&on_lambda.stderr);
    assert_eq!(on_lambda.status.code(), local.status.code(), "{err}");
    let invocations = invocations(&err);
    assert!(invocations > 3, "batches of 1 MB: several invocations, {invocations}");
    assert!(
        err.contains(" at 2048 MB: about $0.") && err.contains("at us-east-1 arm64 prices (estimated)"),
        "{err}"
    );
    let (local, on_lambda) = (json(&local), json(&on_lambda));
    assert!(on_lambda["errors"].as_array().is_some_and(|e| !e.is_empty()));
    assert!(local == on_lambda, "the report on Lambda differs from the local one");
}

/// Results too large to answer (every answer, with the function's test hook
/// `D9LENS_INLINE_ANSWER_LIMIT=0`) are stored under `--lambda-results` and
/// read from there: the report is still the local one, and each batch's
/// results stay under the prefix, one object each, for a lifecycle rule to
/// expire.
#[test]
fn results_stored_by_lambda_equal_the_local_analysis() {
    let Some(s) = start_servers("stored-results") else {
        return;
    };
    let emulator = lambda_emulator(&[("D9LENS_INLINE_ANSWER_LIMIT", "0")]);
    let bucket = format!("s3://{BUCKET}/version=1/");
    let local = d9lens(&["s3", "analyze", &bucket, "--endpoint", &s.plain, "--json"]);
    let stored = analyze_on_lambda(&bucket, &s, &emulator, &["--lambda-results", "d9lens-results"]);
    let err = text(&stored.stderr);
    assert_eq!(stored.status.code(), local.status.code(), "{err}");
    let invocations = invocations(&err);
    assert!(invocations > 3, "batches of 1 MB: several invocations, {invocations}");
    assert!(
        json(&local) == json(&stored),
        "the report from stored results differs from the local one"
    );
    let names: Vec<String> = std::fs::read_dir(s.data_dir.join(BUCKET).join("d9lens-results"))
        .expect("the results prefix holds the stored results")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert_eq!(names.len(), invocations, "one object per batch: {names:?}");
    for name in &names {
        let hash = name.strip_suffix(".d9lens-batch").unwrap_or_else(|| panic!("{name}"));
        assert!(
            hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()),
            "{name}"
        );
    }
}

/// A one-purpose HTTP server on loopback (an STS or instance-metadata
/// stand-in): `answer` gets each request's method, path, headers and body
/// and gives the status and body; every request is kept for the test.
struct StandIn {
    url: String,
    seen: std::sync::Arc<Mutex<Vec<String>>>,
}

fn stand_in(answer: impl Fn(&str, &str, &str) -> (u16, String) + Send + 'static) -> StandIn {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = std::sync::Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream);
            let mut head = String::new();
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                head.push_str(&line);
                line.clear();
            }
            let length = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse().unwrap_or(0))
                })
                .unwrap_or(0);
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let body = String::from_utf8_lossy(&body).into_owned();
            let mut first = head.lines().next().unwrap_or("").split(' ');
            let (method, path) = (first.next().unwrap_or(""), first.next().unwrap_or(""));
            let (status, reply) = answer(method, path, &body);
            log.lock().unwrap().push(format!("{head}\n{body}"));
            let mut stream = reader.into_inner();
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nx-aws-ec2-metadata-token-ttl-seconds: 21600\r\nConnection: close\r\n\r\n{reply}",
                reply.len()
            );
        }
    });
    StandIn { url, seen }
}

/// AWS config and credentials files in a temporary directory.
fn profile_files(name: &str, config: &str, credentials: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("d9lens-profiles-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (c, k) = (dir.join("config"), dir.join("credentials"));
    std::fs::write(&c, config).unwrap();
    std::fs::write(&k, credentials).unwrap();
    (c, k)
}

/// `s3 ls` with only the given AWS environment and no keys in it.
fn ls_with(s: &Servers, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut all = vec![("AWS_ACCESS_KEY_ID", ""), ("AWS_SECRET_ACCESS_KEY", "")];
    all.extend_from_slice(env);
    let url = format!("s3://{BUCKET}");
    let mut argv = vec!["s3", "ls", url.as_str(), "--endpoint", s.cors.as_str(), "--json"];
    argv.extend_from_slice(args);
    d9lens_env(&argv, &all)
}

fn listed_everything(out: &Output) {
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(json(out)["summary"]["objects"], 30, "{}", text(&out.stderr));
}

#[test]
fn a_profile_with_static_keys_signs_the_listing() {
    let s = servers!();
    let (config, credentials) = profile_files(
        "static",
        "[profile reader]\nregion = us-east-1\n",
        &format!("[reader]\naws_access_key_id = {ACCESS_KEY_ID}\naws_secret_access_key = {SECRET}\n"),
    );
    let files = [
        ("AWS_CONFIG_FILE", config.to_str().unwrap()),
        ("AWS_SHARED_CREDENTIALS_FILE", credentials.to_str().unwrap()),
    ];
    listed_everything(&ls_with(s, &["--profile", "reader"], &files));
    // AWS_PROFILE names it as well.
    let mut env = files.to_vec();
    env.push(("AWS_PROFILE", "reader"));
    listed_everything(&ls_with(s, &[], &env));
    // A profile that is not there is an error that says so, and what to do.
    let out = ls_with(s, &["--profile", "nope"], &files);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains(r#"no credentials from profile "nope""#), "{err}");
    assert!(err.contains("`nope` was not defined"), "{err}");
    assert!(err.contains("aws configure list --profile nope"), "{err}");
    assert!(!err.contains(SECRET));
}

#[test]
fn a_role_profile_assumes_the_role_through_sts() {
    let s = servers!();
    let sts = stand_in(|method, _, body| {
        assert_eq!(method, "POST");
        assert!(body.contains("Action=AssumeRole"), "{body}");
        let reply = format!(
            "<AssumeRoleResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><AssumeRoleResult>\
             <AssumedRoleUser><AssumedRoleId>AROAEXAMPLE:d9lens</AssumedRoleId>\
             <Arn>arn:aws:sts::123456789012:assumed-role/reader/d9lens</Arn></AssumedRoleUser>\
             <Credentials><AccessKeyId>{ACCESS_KEY_ID}</AccessKeyId><SecretAccessKey>{SECRET}</SecretAccessKey>\
             <SessionToken>stand-in-session-token</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration>\
             </Credentials></AssumeRoleResult><ResponseMetadata><RequestId>1</RequestId></ResponseMetadata>\
             </AssumeRoleResponse>"
        );
        (200, reply)
    });
    // The source keys are not the bucket's: only the assumed role's are.
    let (config, credentials) = profile_files(
        "role",
        "[profile reader]\nrole_arn = arn:aws:iam::123456789012:role/reader\nsource_profile = base\nregion = us-east-1\n",
        "[base]\naws_access_key_id = AKIASOURCEKEY0000000\naws_secret_access_key = source-secret\n",
    );
    let out = ls_with(
        s,
        &["--profile", "reader"],
        &[
            ("AWS_CONFIG_FILE", config.to_str().unwrap()),
            ("AWS_SHARED_CREDENTIALS_FILE", credentials.to_str().unwrap()),
            ("AWS_ENDPOINT_URL_STS", &sts.url),
        ],
    );
    listed_everything(&out);
    let seen = sts.seen.lock().unwrap();
    assert_eq!(seen.len(), 1, "one AssumeRole");
    assert!(
        seen[0].contains("Credential=AKIASOURCEKEY0000000/"),
        "signed with the source profile: {}",
        seen[0]
    );
    assert!(
        seen[0].contains("RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Freader"),
        "{}",
        seen[0]
    );
}

#[test]
fn a_credential_process_gives_the_keys() {
    let s = servers!();
    let dir = std::env::temp_dir().join(format!("d9lens-process-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("creds.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho '{{\"Version\": 1, \"AccessKeyId\": \"{ACCESS_KEY_ID}\", \"SecretAccessKey\": \"{SECRET}\"}}'\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let (config, credentials) = profile_files(
        "process",
        &format!("[profile tool]\ncredential_process = {}\n", script.display()),
        "",
    );
    listed_everything(&ls_with(
        s,
        &["--profile", "tool"],
        &[
            ("AWS_CONFIG_FILE", config.to_str().unwrap()),
            ("AWS_SHARED_CREDENTIALS_FILE", credentials.to_str().unwrap()),
        ],
    ));
}

#[test]
fn an_instance_role_signs_the_listing() {
    let s = servers!();
    let imds = stand_in(|method, path, _| match (method, path) {
        ("PUT", "/latest/api/token") => (200, "stand-in-imds-token".to_owned()),
        ("GET", "/latest/meta-data/iam/security-credentials/") => (200, "reader".to_owned()),
        ("GET", "/latest/meta-data/iam/security-credentials/reader") => (
            200,
            format!(
                r#"{{"Code": "Success", "LastUpdated": "2026-12-07T00:00:00Z", "Type": "AWS-HMAC",
                "AccessKeyId": "{ACCESS_KEY_ID}", "SecretAccessKey": "{SECRET}",
                "Token": "stand-in-session-token", "Expiration": "2099-01-01T00:00:00Z"}}"#
            ),
        ),
        _ => (404, String::new()),
    });
    let out = ls_with(
        s,
        &[],
        &[
            ("AWS_EC2_METADATA_DISABLED", ""),
            ("AWS_EC2_METADATA_SERVICE_ENDPOINT", &imds.url),
            ("AWS_REGION", "us-east-1"),
        ],
    );
    listed_everything(&out);
    let seen = imds.seen.lock().unwrap();
    assert!(
        seen.iter()
            .any(|r| r.contains("x-aws-ec2-metadata-token: stand-in-imds-token")),
        "{seen:?}"
    );
}
