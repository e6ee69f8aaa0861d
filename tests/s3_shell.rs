//! The S3 shell's pure pieces and its browser glue (fetch, Cache Storage), in
//! headless Chromium:
//! `CHROMEDRIVER=/usr/bin/chromedriver cargo test -p d9lens-web --target wasm32-unknown-unknown --test s3_shell`.
#![cfg(target_arch = "wasm32")]

use d9lens_core::s3::catalog::{Catalog, CatalogObject, DensityBucket, HostKey, Load};
use d9lens_core::s3::{HttpRequest, Method, S3Error};
use d9lens_web::discovery::density::bin;
use d9lens_web::discovery::selection::resolve;
use d9lens_web::discovery::{parse_utc, utc};
use d9lens_web::url_state::{SelectionSpec, UrlState};
use d9lens_web::{cache, s3::fetch};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn object(key: &str, size: u64) -> CatalogObject {
    CatalogObject {
        key: key.into(),
        size,
        etag: Some(format!("\"{size}\"")),
        last_modified_secs: None,
    }
}

fn catalog() -> Catalog {
    let mut c = Catalog::new("");
    let base = "version=1/date=2026-11-30/service=payments%2Fapi/time=1405/instance=ip-10-0-1-88/boot=lovg-1";
    c.add_page((0..6u64).map(|i| object(&format!("{base}/{}-{i}.bin.gz", 1_796_047_500 + 15 * i), 1000 + i)));
    c.add_page([object(
        "version=1/date=2026-11-30/service=api/time=1405/instance=h2/boot=abcd/1796047510-0.bin.gz",
        5,
    )]);
    c
}

#[wasm_bindgen_test]
fn shared_state_round_trips_through_the_fragment() {
    let state = UrlState {
        endpoint: "http://127.0.0.1:9001".into(),
        bucket: "d9lens-demo".into(),
        region: "us-east-1".into(),
        prefix: String::new(),
        max_keys: None,
        selection: Some(SelectionSpec::Host {
            service: "payments/api".into(),
            instance: "ip-10-0-1-88".into(),
            from: 10,
            to: 20,
        }),
        view: Some("report".into()),
    };
    let fragment = state.to_fragment();
    assert!(fragment.starts_with("s3&bucket=d9lens-demo"), "{fragment}");
    assert_eq!(UrlState::from_fragment(&fragment), Some(state));
}

#[wasm_bindgen_test]
fn utc_text_round_trips() {
    assert_eq!(utc(1_796_047_538), "2026-11-30 14:05:38");
    assert_eq!(parse_utc("2026-11-30 14:05:38"), Some(1_796_047_538));
    assert_eq!(parse_utc("2026-11-30T14:05"), Some(1_796_047_500));
    assert_eq!(parse_utc("yesterday"), None);
}

#[wasm_bindgen_test]
fn density_bins_keep_every_byte_and_the_strongest_load() {
    let buckets: Vec<DensityBucket> = (0..300u64)
        .map(|m| DensityBucket {
            minute_secs: 6000 + m * 60,
            bytes: 10,
            load: if m == 7 { Load::Busy } else { Load::Quiet },
        })
        .collect();
    let bins = bin(&buckets, 6000, 6000 + 300 * 60, 60);
    assert_eq!(bins.len(), 60);
    assert_eq!(bins.iter().map(|b| b.bytes).sum::<u64>(), 3000);
    assert_eq!(bins[1].load, Some(Load::Busy));
    assert_eq!(bins[2].load, Some(Load::Quiet));
}

#[wasm_bindgen_test]
fn specs_resolve_to_the_catalog_segments() {
    let c = catalog();
    let host = SelectionSpec::Host {
        service: "payments/api".into(),
        instance: "ip-10-0-1-88".into(),
        from: 1_796_047_500,
        to: 1_796_047_531,
    };
    assert_eq!(resolve(&c, &host).len(), 3);
    let fleet = SelectionSpec::Fleet {
        service: None,
        from: 0,
        to: u64::MAX,
    };
    assert_eq!(resolve(&c, &fleet).len(), 2, "one per host");
    let sample = SelectionSpec::Sample {
        service: Some("payments/api".into()),
        n: 2,
        from: 0,
        to: u64::MAX,
    };
    assert_eq!(resolve(&c, &sample).len(), 2);
    let key = c.host_segments(
        &HostKey::new("api", "h2"),
        d9lens_core::s3::catalog::TimeWindow::new(0, u64::MAX).unwrap(),
    );
    let single = SelectionSpec::Single {
        key: key.keys().next().unwrap().to_owned(),
    };
    assert_eq!(resolve(&c, &single).total_bytes(), 5);
}

#[wasm_bindgen_test]
async fn segment_cache_stores_by_key_and_etag() {
    let bytes = js_sys::Uint8Array::from(&[1u8, 2, 3, 4][..]).buffer();
    cache::put("a/b/1-0.bin.gz", "\"e1\"", &bytes).await;
    let hit = cache::get("a/b/1-0.bin.gz", "\"e1\"").await.expect("cached");
    assert_eq!(js_sys::Uint8Array::new(&hit).to_vec(), vec![1, 2, 3, 4]);
    assert!(
        cache::get("a/b/1-0.bin.gz", "\"e2\"").await.is_none(),
        "another ETag is another object"
    );
    let (entries, bytes) = cache::usage().await;
    assert!(entries >= 1 && bytes >= 4);
    cache::evict(0).await;
    assert!(cache::get("a/b/1-0.bin.gz", "\"e1\"").await.is_none(), "evicted");
}

#[wasm_bindgen_test]
async fn a_request_without_any_answer_is_a_network_failure() {
    // Port 9 (discard) on the loopback: nothing listens, the fetch rejects.
    let request = HttpRequest {
        method: Method::Get,
        url: "http://127.0.0.1:9/x".into(),
        headers: vec![],
        body: None,
    };
    match fetch::send(&request).await {
        Err(S3Error::NetworkFailure { page_origin }) => assert!(page_origin.starts_with("http://127.0.0.1")),
        other => panic!("expected a network failure, got {other:?}"),
    }
}
