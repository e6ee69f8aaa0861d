//! Every `formatframe-vectors.json` entry (generated from the dial9-viewer
//! 0.5.7 JavaScript toolkit) must round-trip: display text, docs.rs URL and
//! frame kind.

use d9lens_core::frames::{FrameKind, docs_url, format_frame, frame_kind};
use serde::Deserialize;

#[derive(Deserialize)]
struct VectorFile {
    count: usize,
    vectors: Vec<Vector>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Vector {
    symbol: String,
    location: Option<String>,
    text: String,
    docs_url: Option<String>,
    kind: FrameKind,
}

#[test]
fn frames_vectors_round_trip() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/formatframe-vectors.json"
    );
    let raw = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    let file: VectorFile = serde_json::from_str(&raw).expect("parsing the vector file");
    assert_eq!(file.vectors.len(), file.count, "vector count");

    let mut mismatches = Vec::new();
    for (i, v) in file.vectors.iter().enumerate() {
        let location = v.location.as_deref();
        let text = format_frame(&v.symbol, location);
        if text != v.text {
            mismatches.push(format!(
                "#{i} text {:?} @ {location:?}\n  want {:?}\n  got  {text:?}",
                v.symbol, v.text
            ));
        }
        // `formatFrame` returns no URL for an empty or `0x…` symbol whatever
        // the location, and only builds one for a truthy location.
        let unresolved = v.symbol.is_empty() || v.symbol.starts_with("0x");
        let url = if unresolved { None } else { location.and_then(docs_url) };
        if url != v.docs_url {
            mismatches.push(format!(
                "#{i} docsUrl {location:?}\n  want {:?}\n  got  {url:?}",
                v.docs_url
            ));
        }
        let kind = frame_kind(&v.symbol);
        if kind != v.kind {
            mismatches.push(format!("#{i} kind {:?}: want {:?}, got {kind:?}", v.symbol, v.kind));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches over {} vectors:\n{}",
        mismatches.len(),
        file.vectors.len(),
        mismatches.join("\n")
    );
}
