//! Tells a built page which S3 endpoints it may talk to: their origins go into the
//! `connect-src` of the page's Content-Security-Policy `<meta>` (without them the
//! browser blocks every request to an endpoint the CSP does not name), and into a
//! `<meta name="d9lens-endpoints" content="ORIGIN ORIGIN">` right after it, which
//! the page reads ([`endpoints_from_meta`]) to know the endpoints it was deployed
//! for.
//!
//! Only those bytes of `index.html` change. Applying the same origins twice gives
//! the same page as applying them once; applying others adds them to both lists.
//! Every origin the meta lists is in `connect-src` too.

use std::ops::Range;

use super::error::SiteError;
use super::html::{MetaTag, meta_tags};
use super::origin::Origin;

/// The `name` of the meta tag listing the allowed endpoints.
pub const ENDPOINTS_META_NAME: &str = "d9lens-endpoints";

/// The `connect-src` sources of servers on this machine, any port: the local demo
/// bucket and the test servers. A production page should not need them.
pub const LOOPBACK_SOURCES: [&str; 2] = ["http://127.0.0.1:*", "http://localhost:*"];

/// `index_html` with `origins` added to the CSP's `connect-src` (each once) and
/// listed in the `d9lens-endpoints` meta (after those it already lists). Errors
/// when the page has no CSP meta with a quoted `content` holding `connect-src`.
pub fn allow_endpoints(index_html: &str, origins: &[Origin]) -> Result<String, SiteError> {
    rewrite(index_html, origins, &[])
}

/// `index_html` with [`LOOPBACK_SOURCES`] added to the CSP's `connect-src` (not to
/// the endpoints meta: they are not where the page is served from). Same errors
/// as [`allow_endpoints`].
pub fn allow_loopback(index_html: &str) -> Result<String, SiteError> {
    rewrite(index_html, &[], &LOOPBACK_SOURCES)
}

/// Adds `origins` to `connect-src` and the endpoints meta, and `sources` to
/// `connect-src` only.
fn rewrite(index_html: &str, origins: &[Origin], sources: &[&str]) -> Result<String, SiteError> {
    let metas = meta_tags(index_html);
    let csp = metas
        .iter()
        .find(|m| m.attr_is("http-equiv", "content-security-policy"))
        .ok_or(SiteError::MissingCsp)?;
    let content = csp
        .attr("content")
        .ok_or(SiteError::UneditableCsp("has no content attribute"))?;
    if !content.quoted {
        return Err(SiteError::UneditableCsp("has an unquoted content attribute"));
    }
    let (directive_end, present) = connect_src(content.text).ok_or(SiteError::MissingConnectSrc)?;

    // Removed here, written again after the CSP meta with the new origins.
    let old_metas: Vec<&MetaTag<'_>> = metas.iter().filter(|m| is_endpoints_meta(m)).collect();
    let mut edits = Vec::new();
    let mut listed = Vec::new();
    for old in &old_metas {
        listed.extend(endpoints_from_meta(old.attr("content").map_or("", |v| v.text)));
        // The tag and the white space before it (its line, when it has one).
        let start = index_html[..old.span.start].trim_end().len();
        edits.push((start..old.span.end, String::new()));
    }
    listed.extend(origins.iter().cloned());
    let listed = dedup(listed);

    // Every listed origin is allowed, those listed before included.
    let mut allowed: Vec<String> = present.iter().map(|s| s.to_ascii_lowercase()).collect();
    let mut added = String::new();
    for source in listed.iter().map(Origin::as_str).chain(sources.iter().copied()) {
        if !allowed.iter().any(|s| s == source) {
            allowed.push(source.to_owned());
            added.push(' ');
            added.push_str(source);
        }
    }
    let insert_at = content.start + directive_end;
    edits.push((insert_at..insert_at, added));

    if !listed.is_empty() {
        let line_start = index_html[..csp.span.start].rfind('\n').map_or(0, |i| i + 1);
        let indent = &index_html[line_start..csp.span.start];
        let indent = if indent.trim().is_empty() { indent } else { "" };
        let list: Vec<&str> = listed.iter().map(Origin::as_str).collect();
        let tag = format!(
            "\n{indent}<meta name=\"{ENDPOINTS_META_NAME}\" content=\"{}\" />",
            list.join(" ")
        );
        edits.push((csp.span.end..csp.span.end, tag));
    }
    Ok(apply(index_html, edits))
}

/// The origins of a `d9lens-endpoints` meta's `content`, in order, each once;
/// anything that is not an origin is skipped.
pub fn endpoints_from_meta(content: &str) -> Vec<Origin> {
    dedup(
        content
            .split_ascii_whitespace()
            .filter_map(|s| Origin::parse(s).ok())
            .collect(),
    )
}

/// The origins the `d9lens-endpoints` metas of a page list.
pub fn endpoints_in_html(html: &str) -> Vec<Origin> {
    let metas = meta_tags(html);
    let listed = metas
        .iter()
        .filter(|m| is_endpoints_meta(m))
        .flat_map(|m| endpoints_from_meta(m.attr("content").map_or("", |v| v.text)));
    dedup(listed.collect())
}

fn is_endpoints_meta(meta: &MetaTag<'_>) -> bool {
    meta.attr_is("name", ENDPOINTS_META_NAME)
}

/// In a CSP's text: the end (trailing space excluded) of its first `connect-src`
/// directive, the one browsers enforce, and that directive's sources.
fn connect_src(policy: &str) -> Option<(usize, Vec<&str>)> {
    let mut start = 0;
    for directive in policy.split(';') {
        let mut tokens = directive.split_ascii_whitespace();
        if tokens
            .next()
            .is_some_and(|name| name.eq_ignore_ascii_case("connect-src"))
        {
            return Some((start + directive.trim_end().len(), tokens.collect()));
        }
        start += directive.len() + 1;
    }
    None
}

fn dedup(origins: Vec<Origin>) -> Vec<Origin> {
    let mut seen = Vec::with_capacity(origins.len());
    for o in origins {
        if !seen.contains(&o) {
            seen.push(o);
        }
    }
    seen
}

/// `text` with each range replaced; the ranges do not overlap (an insertion may
/// start where a removal does, and goes first).
fn apply(text: &str, mut edits: Vec<(Range<usize>, String)>) -> String {
    edits.sort_by_key(|(r, _)| (r.start, r.end));
    let mut out = String::with_capacity(text.len() + 256);
    let mut at = 0;
    for (range, replacement) in edits {
        out.push_str(&text[at..range.start]);
        out.push_str(&replacement);
        at = range.end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The real page: its CSP will change, but it keeps a connect-src.
    const INDEX: &str = include_str!("../../../../index.html");

    fn origins(list: &[&str]) -> Vec<Origin> {
        list.iter().map(|o| Origin::parse(o).unwrap()).collect()
    }

    fn csp_of(html: &str) -> String {
        let metas = meta_tags(html);
        let csp = metas
            .iter()
            .find(|m| m.attr_is("http-equiv", "content-security-policy"))
            .unwrap();
        csp.attr("content").unwrap().text.to_owned()
    }

    fn connect_sources(html: &str) -> Vec<String> {
        let csp = csp_of(html);
        connect_src(&csp).unwrap().1.into_iter().map(str::to_owned).collect()
    }

    #[test]
    fn adds_origins_to_the_real_pages_connect_src_and_lists_them() {
        let allowed = origins(&["https://minio.example.com:9000", "http://10.0.0.5:9000/s3"]);
        let html = allow_endpoints(INDEX, &allowed).unwrap();
        let before = connect_sources(INDEX);
        let after = connect_sources(&html);
        assert_eq!(after[..before.len()], before[..]);
        assert_eq!(
            after[before.len()..],
            ["https://minio.example.com:9000", "http://10.0.0.5:9000"]
        );
        assert_eq!(endpoints_in_html(&html), allowed);
        // The meta follows the CSP meta; the rest of the page is untouched.
        let csp_end = html.find(&csp_of(&html)).unwrap();
        let meta = html.find("<meta name=\"d9lens-endpoints\"").unwrap();
        assert!(meta > csp_end && html[csp_end..meta].matches("<meta").count() == 0);
        let csp_before = csp_of(INDEX);
        let csp_after = csp_of(&html);
        assert_eq!(
            html.replacen(&csp_after, &csp_before, 1).replace(
                &format!(
                    "\n    <meta name=\"d9lens-endpoints\" content=\"{}\" />",
                    "https://minio.example.com:9000 http://10.0.0.5:9000"
                ),
                ""
            ),
            INDEX
        );
    }

    #[test]
    fn is_idempotent_and_accumulates() {
        let a = origins(&["https://a.example"]);
        let once = allow_endpoints(INDEX, &a).unwrap();
        assert_eq!(allow_endpoints(&once, &a).unwrap(), once);

        let b = origins(&["https://b.example", "https://a.example"]);
        let both = allow_endpoints(&once, &b).unwrap();
        assert_eq!(
            endpoints_in_html(&both),
            origins(&["https://a.example", "https://b.example"])
        );
        let sources = connect_sources(&both);
        assert_eq!(sources.iter().filter(|s| *s == "https://a.example").count(), 1);
        assert!(sources.iter().any(|s| s == "https://b.example"));
        assert_eq!(allow_endpoints(&both, &b).unwrap(), both);
        assert_eq!(both.matches(ENDPOINTS_META_NAME).count(), 1);
    }

    #[test]
    fn loopback_goes_into_connect_src_only() {
        let html = allow_loopback(INDEX).unwrap();
        let sources = connect_sources(&html);
        for loopback in LOOPBACK_SOURCES {
            assert_eq!(sources.iter().filter(|s| *s == loopback).count(), 1, "{loopback}");
        }
        assert!(endpoints_in_html(&html).is_empty());
        assert!(!html.contains(ENDPOINTS_META_NAME));
        assert_eq!(allow_loopback(&html).unwrap(), html);
        let both = allow_endpoints(&html, &origins(&["https://a.example"])).unwrap();
        assert_eq!(allow_loopback(&both).unwrap(), both);
        assert_eq!(endpoints_in_html(&both), origins(&["https://a.example"]));
    }

    #[test]
    fn no_origins_changes_nothing() {
        assert_eq!(allow_endpoints(INDEX, &[]).unwrap(), INDEX);
    }

    #[test]
    fn edits_only_the_first_connect_src_and_keeps_other_directives() {
        let html = r#"<meta http-equiv="content-security-policy" content="default-src 'self';connect-src 'self' ;connect-src https://ignored">"#;
        let out = allow_endpoints(html, &origins(&["https://s3.example"])).unwrap();
        assert_eq!(
            out,
            "<meta http-equiv=\"content-security-policy\" content=\"default-src 'self';connect-src 'self' https://s3.example ;connect-src https://ignored\">\n\
             <meta name=\"d9lens-endpoints\" content=\"https://s3.example\" />"
        );
        // An origin the CSP already names (in any case) is not repeated.
        let html = r#"<meta http-equiv="Content-Security-Policy" content="connect-src HTTPS://S3.example">"#;
        let out = allow_endpoints(html, &origins(&["https://s3.example"])).unwrap();
        assert!(out.starts_with(html), "{out}");
    }

    #[test]
    fn says_what_is_missing() {
        let no_csp = "<html><head><meta charset=\"utf-8\"></head></html>";
        assert_eq!(allow_endpoints(no_csp, &[]), Err(SiteError::MissingCsp));
        let commented = "<!-- <meta http-equiv=\"Content-Security-Policy\" content=\"connect-src 'self'\"> -->";
        assert_eq!(allow_endpoints(commented, &[]), Err(SiteError::MissingCsp));
        let no_connect = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'self'\">";
        assert_eq!(allow_endpoints(no_connect, &[]), Err(SiteError::MissingConnectSrc));
        let no_content = "<meta http-equiv=\"Content-Security-Policy\">";
        assert!(matches!(
            allow_endpoints(no_content, &[]),
            Err(SiteError::UneditableCsp(_))
        ));
    }

    #[test]
    fn hostile_meta_content_is_not_trusted() {
        let html = "<meta http-equiv=\"Content-Security-Policy\" content=\"connect-src 'self'\">\n\
                    <meta name=\"d9lens-endpoints\" content=\"https://ok.example https://x;script-src * javascript:alert(1)\">";
        assert_eq!(endpoints_in_html(html), origins(&["https://ok.example"]));
        let out = allow_endpoints(html, &[]).unwrap();
        assert!(!out.contains("script-src"), "{out}");
        assert_eq!(connect_sources(&out), ["'self'", "https://ok.example"]);
        assert_eq!(endpoints_in_html(&out), origins(&["https://ok.example"]));
    }
}
