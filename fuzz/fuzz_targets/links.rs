//! Arbitrary bytes (as lossy UTF-8) → a shared link's URL fragment, read as
//! the page reads it: the bucket's state (`bucket::link`), the timeline's
//! keys beside it (`timeline::link`) and the endpoint it names, which may
//! need the user's approval (`s3::link_endpoint`). Besides any panic, a bug
//! is: state that reads back as something else once written, a rewrite by
//! one part that changes what the other reads, a written fragment with a
//! character outside what `uri_encode` emits, or an endpoint whose
//! normalised URL is another endpoint.
#![no_main]

use d9lens_core::bucket::link::BucketLink;
use d9lens_core::s3::Endpoint;
use d9lens_core::s3::link_endpoint::needs_approval;
use d9lens_core::timeline::TimelineLink;
use libfuzzer_sys::fuzz_target;

/// What a fragment written from state may hold: RFC 3986's unreserved
/// characters, `%` escapes and the pairs' `&` and `=` (plus `extra`).
fn url_safe(fragment: &str, extra: &str) -> bool {
    fragment
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-._~%&=".contains(c) || extra.contains(c))
}

/// An endpoint typed into the form or named by a link.
fn endpoint(text: &str) {
    let Ok(endpoint) = Endpoint::custom(text) else { return };
    let Endpoint::Custom(custom) = &endpoint else {
        panic!("Endpoint::custom gave {endpoint:?}")
    };
    assert!(!custom.authority().is_empty(), "{text:?}: an endpoint without a host");
    assert_eq!(
        Endpoint::custom(&custom.url()).as_ref(),
        Ok(&endpoint),
        "{text:?}: its URL is another endpoint"
    );
    // The page's own origin is never asked about; a foreign one by its host.
    let scheme = if custom.is_https() { "https" } else { "http" };
    let own = format!("{scheme}://{}", custom.authority());
    assert_eq!(needs_approval(&endpoint, &own), None, "{text:?}");
    if let Some(host) = needs_approval(&endpoint, "https://d9lens.example.test") {
        assert_eq!(host, custom.authority());
    }
}

fuzz_target!(|data: &[u8]| {
    let fragment = String::from_utf8_lossy(data);
    let bucket = BucketLink::from_fragment(&fragment);
    let timeline = TimelineLink::from_fragment(&fragment);

    // The timeline's rewrite (the page's `write_timeline`): its keys read
    // back, a second rewrite changes nothing, the rest is left as it is.
    let rewritten = timeline.apply(&fragment);
    assert_eq!(TimelineLink::from_fragment(&rewritten), timeline, "{rewritten:?}");
    assert_eq!(timeline.apply(&rewritten), rewritten, "not idempotent");
    assert_eq!(BucketLink::from_fragment(&rewritten), bucket, "{rewritten:?}");
    // The keys it writes: uri_encode's characters, and the poll's file keeps `/`.
    let own = timeline.apply("");
    assert!(url_safe(&own, "/"), "{own:?}");

    if let Some(link) = &bucket {
        // The bucket's state as the page writes it (`write`): the state,
        // then the timeline's keys; both read back as they were.
        let written = link.to_fragment();
        if !written.is_empty() {
            assert!(url_safe(&written, ""), "{written:?}");
            assert_eq!(BucketLink::from_fragment(&written).as_ref(), Some(link), "{written:?}");
            let whole = timeline.apply(&written);
            assert_eq!(BucketLink::from_fragment(&whole).as_ref(), Some(link), "{whole:?}");
            assert_eq!(TimelineLink::from_fragment(&whole), timeline, "{whole:?}");
        }
        endpoint(&link.endpoint);
    }
    endpoint(&fragment);
});
