//! Key layouts against every object of the fixture bucket, plus the edge cases
//! of `s3-layout.md` (escaping, fail-closed v1, hosts containing `/`).

use d9lens_core::bucket::layout::{
    DecodeError, KeyDate, KeyTime, Layout, OtherReason, ParsedKey, Partition, SegmentKey, V1Defect,
    decode_partition_value, escape_partition_value, is_boot_id, parse_key,
};
use serde_json::Value;

fn listing() -> Vec<Value> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/s3-bucket.listing.json"
    ))
    .expect("fixture listing");
    let json: Value = serde_json::from_str(&text).expect("listing JSON");
    json["objects"].as_array().expect("objects").clone()
}

fn segment(parsed: ParsedKey) -> SegmentKey {
    match parsed {
        ParsedKey::Segment(segment) => segment,
        ParsedKey::Other { reason } => panic!("expected a segment, got other: {reason}"),
    }
}

fn other(parsed: ParsedKey) -> OtherReason {
    match parsed {
        ParsedKey::Other { reason } => reason,
        ParsedKey::Segment(segment) => panic!("expected other, got segment {segment:?}"),
    }
}

/// Compares a parse with the listing's expected parts; `root` is the prefix prepended to the key.
fn check_against_listing(object: &Value, parsed: ParsedKey, root: &str) {
    let key = object["key"].as_str().unwrap();
    let Some(layout) = object["layout"].as_str() else {
        let reason = other(parsed);
        assert_eq!(reason, OtherReason::NotSegmentFileName, "{key}");
        return;
    };
    let s = segment(parsed);
    let expected_layout = match layout {
        "v1" => Layout::V1,
        "positional" => Layout::Positional,
        other => panic!("unknown layout {other}"),
    };
    assert_eq!(s.layout, expected_layout, "{key}");
    let expected_prefix = format!("{root}{}", object["prefix"].as_str().unwrap_or(""));
    assert_eq!(s.prefix, expected_prefix, "{key}");
    assert_eq!(s.date.to_string(), object["date"].as_str().unwrap(), "{key}");
    assert_eq!(s.time.to_string(), object["time"].as_str().unwrap(), "{key}");
    assert_eq!(s.service, object["service"].as_str().unwrap(), "{key}");
    // The listing records serviceRaw only for v1; positional keys are unescaped.
    let raw = object["serviceRaw"].as_str().or(object["service"].as_str()).unwrap();
    assert_eq!(s.service_raw, raw, "{key}");
    assert_eq!(s.instance, object["instance"].as_str().unwrap(), "{key}");
    assert_eq!(s.boot.as_deref(), object["boot"].as_str(), "{key}");
    assert_eq!(s.epoch_secs, object["epochSecs"].as_u64().unwrap(), "{key}");
    assert_eq!(s.segment_index, object["segmentIndex"].as_u64().unwrap(), "{key}");
    assert_eq!(s.gzip_suffix, object["gzipSuffix"].as_bool().unwrap(), "{key}");
    assert_eq!(
        s.key_time_consistent(),
        object["keyTimeConsistent"].as_bool().unwrap_or(true),
        "{key}"
    );
}

#[test]
fn every_fixture_key_parses_as_listed() {
    let objects = listing();
    assert_eq!(objects.len(), 30);
    for object in &objects {
        let key = object["key"].as_str().unwrap();
        check_against_listing(object, parse_key(key, ""), "");
    }
    let parsed: Vec<ParsedKey> = objects
        .iter()
        .map(|o| parse_key(o["key"].as_str().unwrap(), ""))
        .collect();
    let count = |layout| {
        parsed
            .iter()
            .filter(|p| matches!(p, ParsedKey::Segment(s) if s.layout == layout))
            .count()
    };
    assert_eq!(count(Layout::V1), 24);
    assert_eq!(count(Layout::Positional), 2);
    assert_eq!(
        parsed.iter().filter(|p| matches!(p, ParsedKey::Other { .. })).count(),
        4
    );
}

#[test]
fn every_fixture_key_parses_under_a_prefix() {
    for root in ["dial9-traces/", "team/prod/dial9-traces/"] {
        for object in &listing() {
            let key = format!("{root}{}", object["key"].as_str().unwrap());
            // Discovered anywhere in the bucket…
            check_against_listing(object, parse_key(&key, ""), root);
            // …and under the known root, with or without its trailing slash.
            check_against_listing(object, parse_key(&key, root), root);
            check_against_listing(object, parse_key(&key, root.trim_end_matches('/')), root);
        }
    }
}

#[test]
fn keys_outside_the_prefix_are_reported() {
    let key = "version=1/date=2026-11-30/service=a/time=1405/instance=h/boot=abcd/1796047535-0.bin.gz";
    assert_eq!(other(parse_key(key, "dial9-traces/")), OtherReason::OutsidePrefix);
    // A prefix is whole components: `dial9` does not cover `dial9-traces/…`.
    assert_eq!(
        other(parse_key(&format!("dial9-traces/{key}"), "dial9")),
        OtherReason::OutsidePrefix
    );
}

#[test]
fn v1_values_are_unescaped_once() {
    let key = "version=1/date=2026-11-30/service=payments%2fapi/time=1405/instance=cluster%2Fworker%3Dblue/boot=qmxz-48291/1796047535-3.bin";
    let s = segment(parse_key(key, ""));
    assert_eq!(s.service, "payments/api");
    assert_eq!(s.service_raw, "payments%2fapi");
    assert_eq!(s.instance, "cluster/worker=blue");
    assert_eq!(s.boot.as_deref(), Some("qmxz-48291"));
    assert!(!s.gzip_suffix);
    // One layer only: `%252F` is the literal text `%2F`.
    let s = segment(parse_key(&key.replace("payments%2fapi", "a%252Fb"), ""));
    assert_eq!(s.service, "a%2Fb");
    // Non-ASCII passes through.
    let s = segment(parse_key(&key.replace("payments%2fapi", "zahlungsdienst-ä"), ""));
    assert_eq!(s.service, "zahlungsdienst-ä");
}

#[test]
fn malformed_escapes_make_the_key_other() {
    let base = "version=1/date=2026-11-30/service=SVC/time=1405/instance=h/boot=abcd/1796047535-0.bin.gz";
    for bad in ["a%", "a%2", "a%GG", "%FF"] {
        let reason = other(parse_key(&base.replace("SVC", bad), ""));
        assert_eq!(
            reason,
            OtherReason::MalformedV1 {
                defect: V1Defect::BadEscape {
                    partition: Partition::Service
                }
            }
        );
    }
    assert_eq!(decode_partition_value("a%"), Err(DecodeError::BadEscape { at: 1 }));
    assert_eq!(decode_partition_value("%C3%A4"), Ok("ä".to_owned()));
    assert_eq!(decode_partition_value("%C3"), Err(DecodeError::InvalidUtf8));
}

#[test]
fn escape_round_trips_and_matches_the_uploader() {
    assert_eq!(escape_partition_value("payments/api"), "payments%2Fapi");
    assert_eq!(escape_partition_value("cluster/worker=blue"), "cluster%2Fworker%3Dblue");
    assert_eq!(escape_partition_value("a\u{1}b\u{7f}"), "a%01b%7F");
    let all = "\"#%'*/:=?\\{[]^ plain-ä";
    assert_eq!(
        escape_partition_value(all),
        "%22%23%25%27%2A%2F%3A%3D%3F%5C%7B%5B%5D%5E plain-ä"
    );
    assert_eq!(decode_partition_value(&escape_partition_value(all)).unwrap(), all);
}

#[test]
fn partial_v1_keys_fail_closed() {
    let cases = [
        // boot= missing
        (
            "version=1/date=2026-11-30/service=a/time=1405/instance=h/1796047535-0.bin.gz",
            V1Defect::WrongDepth,
        ),
        // positional-looking tail below version=1 must not be read as positional
        (
            "version=1/date=2026-11-30/2026-11-30/1405/svc/host/abcd/1796047535-0.bin.gz",
            V1Defect::WrongDepth,
        ),
        // unescaped `/` in the instance
        (
            "version=1/date=2026-11-30/service=a/time=1405/instance=us-east-1/i-0abc/boot=abcd/1-0.bin.gz",
            V1Defect::WrongDepth,
        ),
    ];
    for (key, defect) in cases {
        assert_eq!(other(parse_key(key, "")), OtherReason::MalformedV1 { defect }, "{key}");
    }
    let reordered = "version=1/service=a/date=2026-11-30/time=1405/instance=h/boot=abcd/1796047535-0.bin.gz";
    assert_eq!(
        other(parse_key(reordered, "")),
        OtherReason::MalformedV1 {
            defect: V1Defect::WrongPartition {
                expected: Partition::Date,
                found: "service=a".to_owned()
            }
        }
    );
    let bad_date = "version=1/date=2026-02-30/service=a/time=1405/instance=h/boot=abcd/1796047535-0.bin.gz";
    assert!(matches!(
        other(parse_key(bad_date, "")),
        OtherReason::MalformedV1 {
            defect: V1Defect::InvalidDate { .. }
        }
    ));
    let bad_time = "version=1/date=2026-11-30/service=a/time=14h5/instance=h/boot=abcd/1796047535-0.bin.gz";
    assert!(matches!(
        other(parse_key(bad_time, "")),
        OtherReason::MalformedV1 {
            defect: V1Defect::InvalidTime { .. }
        }
    ));
    let empty = "version=1/date=2026-11-30/service=/time=1405/instance=h/boot=abcd/1796047535-0.bin.gz";
    assert_eq!(
        other(parse_key(empty, "")),
        OtherReason::MalformedV1 {
            defect: V1Defect::Empty {
                partition: Partition::Service
            }
        }
    );
    let future = "version=2/2026-11-30/1405/svc/host/abcd/1796047535-0.bin.gz";
    assert_eq!(
        other(parse_key(future, "")),
        OtherReason::UnsupportedVersion {
            component: "version=2".to_owned()
        }
    );
}

#[test]
fn positional_hosts_may_contain_slashes() {
    let s = segment(parse_key(
        "2026-11-30/0814/api/us-east-1/i-0abc123/gauu-25994/1796026492-0.bin.gz",
        "",
    ));
    assert_eq!(
        (s.instance.as_str(), s.boot.as_deref()),
        ("us-east-1/i-0abc123", Some("gauu-25994"))
    );
    // Oldest layout: no boot. `i-0abc123` is not boot-shaped, so it is part of the host.
    let s = segment(parse_key(
        "2026-11-30/0814/api/us-east-1/i-0abc123/1796026492-0.bin.gz",
        "",
    ));
    assert_eq!((s.instance.as_str(), s.boot.as_deref()), ("us-east-1/i-0abc123", None));
    let s = segment(parse_key("logs/2026-11-30/0814/api/host-1/1796026492-0.bin.gz", ""));
    assert_eq!(
        (s.prefix.as_str(), s.instance.as_str(), s.boot),
        ("logs/", "host-1", None)
    );
    // A single component after the service is the host even if it looks like a boot id.
    let s = segment(parse_key("2026-11-30/0814/api/nygg/1796026492-0.bin.gz", ""));
    assert_eq!((s.instance.as_str(), s.boot), ("nygg", None));
    // The rightmost date/time pair anchors.
    let s = segment(parse_key(
        "archive/2020-01-01/0000/2026-11-30/0814/api/h/nygg/1796026492-0.bin.gz",
        "",
    ));
    assert_eq!(
        (s.prefix.as_str(), s.date.to_string(), s.service.as_str()),
        ("archive/2020-01-01/0000/", "2026-11-30".into(), "api")
    );
}

#[test]
fn non_segment_keys_say_why() {
    assert_eq!(other(parse_key("README.txt", "")), OtherReason::NotSegmentFileName);
    assert_eq!(
        other(parse_key("a/2026-11-30/0814/svc/h/1-2-3.bin.gz", "")),
        OtherReason::NotSegmentFileName
    );
    assert_eq!(
        other(parse_key("a/2026-11-30/0814/svc/h/x-3.bin.gz", "")),
        OtherReason::NotSegmentFileName
    );
    assert_eq!(other(parse_key("dial9-traces/", "")), OtherReason::DirectoryMarker);
    assert_eq!(
        other(parse_key("dial9-traces/dumps/d-42.json", "")),
        OtherReason::DumpManifest {
            dump_id: "d-42".to_owned()
        }
    );
    assert_eq!(other(parse_key("misc/1796026492-0.bin.gz", "")), OtherReason::NoLayout);
    assert_eq!(
        other(parse_key("2026-11-30/0814/svc/1796026492-0.bin.gz", "")),
        OtherReason::MalformedPositional
    );
}

#[test]
fn boot_id_shape() {
    for yes in ["nygg", "qmxz-48291", "gauu-25994"] {
        assert!(is_boot_id(yes), "{yes}");
    }
    for no in ["Nygg", "nyg", "nyggg", "nygg-", "nygg-12a", "i-0abc123", "abcd-1-2"] {
        assert!(!is_boot_id(no), "{no}");
    }
}

#[test]
fn dates_and_times() {
    assert!(KeyDate::parse("2024-02-29").is_some());
    assert!(KeyDate::parse("2026-02-29").is_none());
    assert!(KeyDate::parse("2026-1-01").is_none());
    assert!(KeyTime::parse("2400").is_none());
    assert!(KeyTime::parse("2359").is_some());
    let date = KeyDate::from_epoch_secs(1_796_083_210).unwrap();
    assert_eq!(date.to_string(), "2026-12-01");
    assert_eq!(KeyTime::from_epoch_secs(1_796_083_210).to_string(), "0000");
    assert_eq!(KeyDate::parse("1970-01-01").unwrap().days_since_epoch(), 0);
    assert_eq!(date.days_since_epoch() * 86_400, 1_796_083_200);
    assert_eq!(serde_json::to_string(&date).unwrap(), "\"2026-12-01\"");
    assert!(serde_json::from_str::<KeyDate>("\"2026-13-01\"").is_err());
}

#[test]
fn parsed_keys_round_trip_through_json() {
    for object in &listing() {
        let parsed = parse_key(object["key"].as_str().unwrap(), "");
        let json = serde_json::to_string(&parsed).unwrap();
        assert_eq!(serde_json::from_str::<ParsedKey>(&json).unwrap(), parsed, "{json}");
    }
}
