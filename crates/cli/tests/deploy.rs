//! `d9lens deploy` end to end: the helpers that send nothing, `--in-place`, a dry
//! run without a server, and real deploys into a minimal in-process S3 stand-in
//! (it stores what is PUT, answers GET and DELETE, and records every request; it
//! checks no signature: the signature is the core's, tested there and against
//! s3s-fs by the e2e tests).

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

const REAL_INDEX: &str = include_str!("../../../index.html");

fn d9lens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_d9lens"))
        .args(args)
        .env_remove("AWS_ENDPOINT_URL_S3")
        .env_remove("AWS_ENDPOINT_URL")
        .env_remove("AWS_REGION")
        .env_remove("AWS_DEFAULT_REGION")
        .env("AWS_ACCESS_KEY_ID", "AKIDEXAMPLEDEPLOY")
        .env("AWS_SECRET_ACCESS_KEY", "deploy-test-secret-key")
        .env_remove("AWS_SESSION_TOKEN")
        .output()
        .expect("run d9lens")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A fresh temporary directory holding a small built site (the real index.html).
fn temp_dist(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("d9lens-deploy-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    for (path, text) in [
        ("index.html", REAL_INDEX),
        ("boot.js", "import init from './d9lens-web-0123456789abcdef.js';"),
        ("d9lens-web-0123456789abcdef.js", "export default function init() {}"),
        ("d9lens-web-0123456789abcdef_bg.wasm", "\0asm"),
        ("assets/main-fedcba9876543210.css", "body{}"),
    ] {
        std::fs::write(dir.join(path), text).unwrap();
    }
    dir
}

/// The sources of the CSP meta's `connect-src` directive.
fn connect_src(html: &str) -> Vec<&str> {
    let csp = html.split("http-equiv=\"Content-Security-Policy\"").nth(1).unwrap();
    let content = csp.split("content=\"").nth(1).unwrap().split('"').next().unwrap();
    let directive = content
        .split(';')
        .find(|d| d.trim_start().starts_with("connect-src"))
        .unwrap();
    directive.split_whitespace().skip(1).collect()
}

/// `d9lens deploy s3://site/tools/d9lens --dist DIST --endpoint ENDPOINT EXTRA...`.
fn deploy_site(dist: &Path, endpoint: &str, extra: &[&str]) -> Output {
    let dist = arg(dist);
    let mut args = vec![
        "deploy",
        "s3://site/tools/d9lens",
        "--dist",
        &dist,
        "--endpoint",
        endpoint,
    ];
    args.extend_from_slice(extra);
    d9lens(&args)
}

/// Exit 1 with an error that names `DIR/index.html`.
fn assert_fails_naming_the_index(out: &Output, dist: &Path) {
    assert_eq!(out.status.code(), Some(1), "{}", stdout(out));
    let index = arg(&dist.join("index.html"));
    assert!(stderr(out).contains(&index), "{}", stderr(out));
}

fn arg(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

#[test]
fn print_cors_allows_exactly_the_origin_for_get_and_head() {
    let out = d9lens(&["deploy", "--print-cors", "https://tools.example.test"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules = doc["CORSRules"].as_array().unwrap();
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0]["AllowedOrigins"], json!(["https://tools.example.test"]));
    assert_eq!(rules[0]["AllowedMethods"], json!(["GET", "HEAD"]));

    let hostile = d9lens(&["deploy", "--print-cors", "https://x; script-src *"]);
    assert_eq!(hostile.status.code(), Some(2));
    assert!(hostile.stdout.is_empty());
    assert!(stderr(&hostile).contains("is not an origin"), "{}", stderr(&hostile));
}

#[test]
fn print_policy_with_and_without_a_prefix() {
    let out = d9lens(&["deploy", "--print-policy", "acme-traces", "dial9-traces/"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["Version"], "2012-10-17");
    assert_eq!(doc["Statement"][0]["Action"], "s3:ListBucket");
    assert_eq!(
        doc["Statement"][0]["Condition"]["StringLike"]["s3:prefix"],
        json!(["dial9-traces/", "dial9-traces/*"])
    );
    assert_eq!(
        doc["Statement"][1]["Resource"],
        "arn:aws:s3:::acme-traces/dial9-traces/*"
    );

    let whole: Value = serde_json::from_slice(&d9lens(&["deploy", "--print-policy", "acme-traces"]).stdout).unwrap();
    assert!(whole["Statement"][0].get("Condition").is_none());
    assert_eq!(whole["Statement"][1]["Resource"], "arn:aws:s3:::acme-traces/*");
}

#[test]
fn in_place_rewrites_index_html_only_and_is_idempotent() {
    let dist = temp_dist("in-place");
    let args = [
        "deploy",
        "--in-place",
        "--dist",
        &arg(&dist),
        "--allow-endpoint",
        "https://minio.example.test:9000/some/path",
        "--allow-loopback",
    ];
    let out = d9lens(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let once = std::fs::read_to_string(dist.join("index.html")).unwrap();
    assert!(once.contains("<meta name=\"d9lens-endpoints\" content=\"https://minio.example.test:9000\" />"));
    let connect = connect_src(&once);
    for source in [
        "https://minio.example.test:9000",
        "http://127.0.0.1:*",
        "http://localhost:*",
    ] {
        assert!(connect.contains(&source), "{source} in {connect:?}");
    }
    assert_eq!(
        std::fs::read_to_string(dist.join("boot.js")).unwrap(),
        "import init from './d9lens-web-0123456789abcdef.js';"
    );
    assert!(d9lens(&args).status.success());
    assert_eq!(std::fs::read_to_string(dist.join("index.html")).unwrap(), once);

    // Nothing to allow, or no page: usage error and failure.
    assert_eq!(
        d9lens(&["deploy", "--in-place", "--dist", &arg(&dist)]).status.code(),
        Some(2)
    );
    let missing = dist.join("nowhere");
    assert_fails_naming_the_index(
        &d9lens(&["deploy", "--in-place", "--dist", &arg(&missing), "--allow-loopback"]),
        &missing,
    );
    std::fs::remove_dir_all(&dist).unwrap();
}

#[test]
fn a_dry_run_shows_the_uploads_without_a_reachable_server() {
    let dist = temp_dist("dry-run");
    let out = deploy_site(&dist, "http://127.0.0.1:1", &["--dry-run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("nothing is sent but the GET of the previous manifest"),
        "{text}"
    );
    assert!(
        text.contains("upload tools/d9lens/d9lens-web-0123456789abcdef_bg.wasm (application/wasm, public, max-age=31536000, immutable, 4 B)"),
        "{text}"
    );
    assert!(
        text.contains("upload tools/d9lens/index.html (text/html; charset=utf-8, no-cache, "),
        "{text}"
    );
    assert!(!text.contains("delete "), "{text}");
    assert!(
        text.ends_with("Open: http://127.0.0.1:1/site/tools/d9lens/index.html\n"),
        "{text}"
    );
    assert!(stderr(&out).contains("stale files unknown"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("boot.js"),
        "boot.js is not content-hashed: {}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(dist.join("index.html")).unwrap(), REAL_INDEX);

    let no_index = dist.join("assets");
    assert_fails_naming_the_index(
        &d9lens(&["deploy", "s3://site", "--dist", &arg(&no_index), "--dry-run"]),
        &no_index,
    );
    assert_eq!(d9lens(&["deploy"]).status.code(), Some(2));
    std::fs::remove_dir_all(&dist).unwrap();
}

#[test]
fn deploys_then_replaces_a_site_deleting_only_its_own_stale_files() {
    let s3 = MiniS3::start();
    let dist = temp_dist("real");
    let endpoint = s3.endpoint();

    // Someone else's objects, under and beside the prefix.
    s3.put("tools/d9lens/notes.txt", b"keep me");
    s3.put("traces/2026/segment.bin.gz", b"keep me too");

    let out = deploy_site(&dist, &endpoint, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(&format!("Open: {endpoint}/site/tools/d9lens/index.html\n")),
        "{text}"
    );
    assert!(text.contains("Deployed 5 files"), "{text}");

    let requests = s3.requests();
    let order: Vec<&str> = requests.iter().map(|r| r.line.as_str()).collect();
    assert_eq!(
        order,
        [
            "GET site/tools/d9lens/.d9lens-deploy.json",
            "PUT site/tools/d9lens/assets/main-fedcba9876543210.css",
            "PUT site/tools/d9lens/boot.js",
            "PUT site/tools/d9lens/d9lens-web-0123456789abcdef.js",
            "PUT site/tools/d9lens/d9lens-web-0123456789abcdef_bg.wasm",
            "PUT site/tools/d9lens/index.html",
            "PUT site/tools/d9lens/.d9lens-deploy.json",
        ]
    );
    for r in &requests {
        assert!(r.query.contains("X-Amz-SignedHeaders=host"), "presigned: {}", r.line);
        if r.line.starts_with("PUT") {
            assert!(r.headers.contains_key("content-length"), "{}: {:?}", r.line, r.headers);
        }
    }

    let wasm = s3.get("site/tools/d9lens/d9lens-web-0123456789abcdef_bg.wasm").unwrap();
    assert_eq!(wasm.body, b"\0asm");
    assert_eq!(wasm.header("content-type"), "application/wasm");
    assert_eq!(wasm.header("cache-control"), "public, max-age=31536000, immutable");
    let boot = s3.get("site/tools/d9lens/boot.js").unwrap();
    assert_eq!(boot.header("content-type"), "text/javascript; charset=utf-8");
    assert_eq!(boot.header("cache-control"), "public, max-age=300");
    let index = s3.get("site/tools/d9lens/index.html").unwrap();
    assert_eq!(index.header("content-type"), "text/html; charset=utf-8");
    assert_eq!(index.header("cache-control"), "no-cache");
    let index_text = String::from_utf8(index.body).unwrap();
    assert!(
        index_text.contains(&format!("<meta name=\"d9lens-endpoints\" content=\"{endpoint}\" />")),
        "the custom endpoint is written into the uploaded page"
    );
    assert_eq!(std::fs::read_to_string(dist.join("index.html")).unwrap(), REAL_INDEX);

    let manifest = s3.get("site/tools/d9lens/.d9lens-deploy.json").unwrap();
    assert_eq!(manifest.header("content-type"), "application/json");
    let doc: Value = serde_json::from_slice(&manifest.body).unwrap();
    assert_eq!(doc["version"], 1);
    let listed: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["key"].as_str().unwrap())
        .collect();
    assert_eq!(listed.len(), 5);
    assert!(listed.iter().all(|k| k.starts_with("tools/d9lens/")));
    let index_entry = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["key"] == "tools/d9lens/index.html")
        .unwrap();
    assert_eq!(index_entry["size"], index_text.len());

    // A new build: boot.js gone, a new wasm name.
    std::fs::remove_file(dist.join("boot.js")).unwrap();
    std::fs::rename(
        dist.join("d9lens-web-0123456789abcdef_bg.wasm"),
        dist.join("d9lens-web-1111111111111abc_bg.wasm"),
    )
    .unwrap();
    s3.clear_requests();
    let out = deploy_site(&dist, &endpoint, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("delete tools/d9lens/boot.js\n"), "{text}");
    let requests = s3.requests();
    let order: Vec<&str> = requests.iter().map(|r| r.line.as_str()).collect();
    assert_eq!(
        order[order.len() - 3..],
        [
            "PUT site/tools/d9lens/.d9lens-deploy.json",
            "DELETE site/tools/d9lens/boot.js",
            "DELETE site/tools/d9lens/d9lens-web-0123456789abcdef_bg.wasm",
        ]
    );
    assert!(s3.get("site/tools/d9lens/boot.js").is_none());
    assert!(
        s3.get("site/tools/d9lens/d9lens-web-1111111111111abc_bg.wasm")
            .is_some()
    );
    assert!(s3.get("site/tools/d9lens/notes.txt").is_some());
    assert!(s3.get("site/traces/2026/segment.bin.gz").is_some());

    // A dry run now reads the manifest and lists nothing stale.
    let out = deploy_site(&dist, &endpoint, &["--dry-run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stdout(&out).contains("delete "), "{}", stdout(&out));
    assert!(!stderr(&out).contains("stale files unknown"), "{}", stderr(&out));
    std::fs::remove_dir_all(&dist).unwrap();
}

#[test]
fn a_manifest_that_is_not_ours_stops_the_deploy() {
    let s3 = MiniS3::start();
    let dist = temp_dist("foreign-manifest");
    s3.put(".d9lens-deploy.json", b"{\"version\": 99, \"files\": []}");
    let out = d9lens(&[
        "deploy",
        "s3://site/",
        "--dist",
        &arg(&dist),
        "--endpoint",
        &s3.endpoint(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains(".d9lens-deploy.json: the previous deploy's manifest is unreadable: version 99"),
        "{}",
        stderr(&out)
    );
    assert_eq!(s3.requests().len(), 1, "nothing but the manifest GET");
    std::fs::remove_dir_all(&dist).unwrap();
}

/// A stored object.
#[derive(Clone)]
struct Object {
    body: Vec<u8>,
    headers: BTreeMap<String, String>,
}

impl Object {
    fn header(&self, name: &str) -> &str {
        self.headers.get(name).map_or("", String::as_str)
    }
}

/// One request as the server saw it: `METHOD bucket/key`, the query, the headers.
#[derive(Clone)]
struct Seen {
    line: String,
    query: String,
    headers: BTreeMap<String, String>,
}

#[derive(Default)]
struct State {
    objects: BTreeMap<String, Object>,
    requests: Vec<Seen>,
}

/// Path-style S3 on 127.0.0.1: `/{bucket}/{key}`, GET / PUT / DELETE, one
/// request per connection.
struct MiniS3 {
    port: u16,
    state: Arc<Mutex<State>>,
}

impl MiniS3 {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let state = Arc::new(Mutex::new(State::default()));
        let shared = state.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let _ = serve(stream, &shared);
            }
        });
        Self { port, state }
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Stores an object in bucket `site`.
    fn put(&self, key: &str, body: &[u8]) {
        let object = Object {
            body: body.to_vec(),
            headers: BTreeMap::new(),
        };
        self.state.lock().unwrap().objects.insert(format!("site/{key}"), object);
    }

    fn get(&self, bucket_and_key: &str) -> Option<Object> {
        self.state.lock().unwrap().objects.get(bucket_and_key).cloned()
    }

    fn requests(&self) -> Vec<Seen> {
        self.state.lock().unwrap().requests.clone()
    }

    fn clear_requests(&self) {
        self.state.lock().unwrap().requests.clear();
    }
}

fn serve(stream: TcpStream, state: &Mutex<State>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut headers = BTreeMap::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
        }
    }
    let length: usize = headers.get("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;

    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let target = parts.next().unwrap_or_default();
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let key = percent_decode(path.trim_start_matches('/'));
    let (status, answer) = {
        let mut state = state.lock().unwrap();
        state.requests.push(Seen {
            line: format!("{method} {key}"),
            query: query.to_owned(),
            headers: headers.clone(),
        });
        match method.as_str() {
            "GET" => match state.objects.get(&key) {
                Some(object) => ("200 OK", object.body.clone()),
                None => (
                    "404 Not Found",
                    b"<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>".to_vec(),
                ),
            },
            "PUT" => {
                state.objects.insert(key, Object { body, headers });
                ("200 OK", Vec::new())
            }
            "DELETE" => {
                state.objects.remove(&key);
                ("204 No Content", Vec::new())
            }
            _ => ("405 Method Not Allowed", Vec::new()),
        }
    };
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        answer.len()
    )?;
    stream.write_all(&answer)?;
    stream.flush()
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(hex, 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
