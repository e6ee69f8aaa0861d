//! The S3 shell's pure pieces and its browser glue (fetch, Cache Storage), in
//! headless Chromium:
//! `CHROMEDRIVER=/usr/bin/chromedriver cargo test -p d9lens-web --target wasm32-unknown-unknown --test s3_shell`.
#![cfg(target_arch = "wasm32")]

use d9lens_core::bucket::catalog::{DensityBucket, Load};
use d9lens_core::s3::{HttpRequest, Method, S3Error};
use d9lens_web::net::{cache, fetch};
use d9lens_web::page::discovery::density::bin;
use d9lens_web::page::discovery::{parse_utc, utc};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

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
async fn segment_cache_stores_by_object_identity() {
    let bytes = [1u8, 2, 3, 4];
    let (e1, e2) = ("aws|b|a/b/1-0.bin.gz|etag=\"e1\"", "aws|b|a/b/1-0.bin.gz|etag=\"e2\"");
    cache::put(e1, &bytes).await;
    let hit = cache::get(e1).await.expect("cached");
    assert_eq!(js_sys::Uint8Array::new(&hit).to_vec(), vec![1, 2, 3, 4]);
    assert!(cache::get(e2).await.is_none(), "another ETag is another object");
    let (entries, held) = cache::usage().await;
    assert!(entries >= 1 && held >= 4);
    cache::delete(e1).await;
    assert!(cache::get(e1).await.is_none(), "deleted");
    cache::put(e1, &bytes).await;
    cache::evict(0).await;
    assert!(cache::get(e1).await.is_none(), "evicted");
    cache::put(e1, &bytes).await;
    cache::clear().await;
    assert_eq!(cache::usage().await, (0, 0), "cleared");
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
