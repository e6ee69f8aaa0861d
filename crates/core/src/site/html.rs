//! Just enough HTML to find `<meta>` tags and their attributes by byte position,
//! so an edit changes those bytes and nothing else of the page.
//!
//! Comments and the raw text of `<script>` / `<style>` are skipped; attribute
//! values are returned as written (entities are not decoded: the values edited
//! here, a CSP and a list of origins, have none).

use std::ops::Range;

/// One `<meta ...>` tag.
pub(super) struct MetaTag<'a> {
    /// The whole tag, `<` to `>` included.
    pub span: Range<usize>,
    attrs: Vec<Attr<'a>>,
}

struct Attr<'a> {
    name: &'a str,
    value: Option<AttrValue<'a>>,
}

/// An attribute's value as written, quotes excluded.
#[derive(Clone, Copy)]
pub(super) struct AttrValue<'a> {
    pub text: &'a str,
    /// Where `text` starts in the document.
    pub start: usize,
    pub quoted: bool,
}

impl<'a> MetaTag<'a> {
    /// The first attribute of that name (HTML ignores later duplicates); an
    /// attribute without `=value` gives an empty unquoted value.
    pub fn attr(&self, name: &str) -> Option<AttrValue<'a>> {
        let attr = self.attrs.iter().find(|a| a.name.eq_ignore_ascii_case(name))?;
        Some(attr.value.unwrap_or(AttrValue {
            text: "",
            start: self.span.end,
            quoted: false,
        }))
    }

    /// Whether attribute `name` is `value`, ignoring ASCII case.
    pub fn attr_is(&self, name: &str, value: &str) -> bool {
        self.attr(name)
            .is_some_and(|v| v.text.trim().eq_ignore_ascii_case(value))
    }
}

/// The `<meta>` tags of `html`, in document order.
pub(super) fn meta_tags(html: &str) -> Vec<MetaTag<'_>> {
    let bytes = html.as_bytes();
    let mut metas = Vec::new();
    let mut i = 0;
    while let Some(offset) = html[i..].find('<') {
        let lt = i + offset;
        if html[lt..].starts_with("<!--") {
            i = html[lt + 4..].find("-->").map_or(html.len(), |e| lt + 4 + e + 3);
            continue;
        }
        let name_len = bytes[lt + 1..].iter().take_while(|b| b.is_ascii_alphanumeric()).count();
        if name_len == 0 {
            i = lt + 1;
            continue;
        }
        let name = &html[lt + 1..lt + 1 + name_len];
        let (attrs, end) = attributes(html, lt + 1 + name_len);
        i = end;
        if name.eq_ignore_ascii_case("meta") {
            metas.push(MetaTag { span: lt..end, attrs });
        } else if name.eq_ignore_ascii_case("script") || name.eq_ignore_ascii_case("style") {
            let close = format!("</{}", name.to_ascii_lowercase());
            i = html[end..]
                .to_ascii_lowercase()
                .find(&close)
                .map_or(html.len(), |e| end + e);
        }
    }
    metas
}

/// The attributes from `start` (just after the tag name) to the tag's `>`, and the
/// position after it (the end of the document for an unclosed tag).
fn attributes(html: &str, start: usize) -> (Vec<Attr<'_>>, usize) {
    let bytes = html.as_bytes();
    let skip = |mut j: usize, stop: &dyn Fn(u8) -> bool| {
        while j < bytes.len() && !stop(bytes[j]) {
            j += 1;
        }
        j
    };
    let mut attrs = Vec::new();
    let mut j = start;
    loop {
        j = skip(j, &|b| !(b.is_ascii_whitespace() || b == b'/'));
        match bytes.get(j) {
            None => return (attrs, bytes.len()),
            Some(b'>') => return (attrs, j + 1),
            Some(_) => {}
        }
        // A name is at least one character, even a stray `=`.
        let name_start = j;
        j = skip(j + 1, &|b| b.is_ascii_whitespace() || matches!(b, b'/' | b'>' | b'='));
        let name = &html[name_start..j];
        let after_name = skip(j, &|b| !b.is_ascii_whitespace());
        if bytes.get(after_name) != Some(&b'=') {
            attrs.push(Attr { name, value: None });
            continue;
        }
        j = skip(after_name + 1, &|b| !b.is_ascii_whitespace());
        let value = match bytes.get(j) {
            Some(&q @ (b'"' | b'\'')) => {
                let end = skip(j + 1, &|b| b == q);
                let value = AttrValue {
                    text: &html[j + 1..end],
                    start: j + 1,
                    quoted: true,
                };
                j = (end + 1).min(bytes.len());
                value
            }
            _ => {
                let end = skip(j, &|b| b.is_ascii_whitespace() || b == b'>');
                let value = AttrValue {
                    text: &html[j..end],
                    start: j,
                    quoted: false,
                };
                j = end;
                value
            }
        };
        attrs.push(Attr {
            name,
            value: Some(value),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_meta_tags_outside_comments_and_scripts() {
        let html = r#"<!DOCTYPE html><head>
<!-- <meta name="in-comment" content="x"> -->
<META Name="a" CONTENT='1 2' data-x>
<script>let s = "<meta name='in-script'>";</script>
<meta name=b content=3/>
<meta name="c" content="x > y" />
</head>"#;
        let metas = meta_tags(html);
        let names: Vec<&str> = metas.iter().map(|m| m.attr("name").unwrap().text).collect();
        assert_eq!(names, ["a", "b", "c"]);
        let a = metas[0].attr("content").unwrap();
        assert_eq!((a.text, a.quoted), ("1 2", true));
        assert_eq!(&html[a.start..a.start + 3], "1 2");
        assert!(metas[0].attr("data-x").is_some_and(|v| v.text.is_empty()));
        assert!(metas[0].attr_is("NAME", "A"));
        assert_eq!(metas[1].attr("content").unwrap().text, "3/");
        assert_eq!(metas[2].attr("content").unwrap().text, "x > y");
        assert!(html[metas[2].span.clone()].ends_with("/>"));
    }

    #[test]
    fn tolerates_truncated_documents() {
        for html in [
            "<meta",
            "<meta name=\"x",
            "<meta name=",
            "<!-- <meta",
            "<script><meta>",
            "<",
            "<meta =>",
        ] {
            let _ = meta_tags(html);
        }
        assert_eq!(meta_tags("<meta name=\"x").len(), 1);
    }
}
