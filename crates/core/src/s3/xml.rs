//! A minimal element tree over quick-xml, for the small documents S3 and STS return.
//!
//! Namespaces are dropped (local names only), entity and character references are
//! resolved, CDATA is kept as text, and text is not trimmed (object keys may start or
//! end with spaces).

use quick_xml::Reader;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::Event;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Element {
    pub name: String,
    /// The element's own text, with references resolved.
    pub text: String,
    pub children: Vec<Element>,
}

impl Element {
    /// The first child named `name`.
    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }

    /// All children named `name`, in document order.
    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// The text of the first child named `name`.
    pub fn child_text(&self, name: &str) -> Option<&str> {
        self.child(name).map(|c| c.text.as_str())
    }

    /// The first element named `name` at any depth (this one included).
    pub fn find(&self, name: &str) -> Option<&Element> {
        if self.name == name {
            return Some(self);
        }
        self.children.iter().find_map(|c| c.find(name))
    }
}

/// Parses a whole document into its root element.
pub(crate) fn parse(body: &[u8]) -> Result<Element, String> {
    let text = std::str::from_utf8(body).map_err(|e| format!("not UTF-8: {e}"))?;
    let mut reader = Reader::from_str(text.strip_prefix('\u{feff}').unwrap_or(text));
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("at byte {}: {e}", reader.buffer_position()))?;
        match event {
            Event::Start(start) => {
                stack.push(Element {
                    name: local_name(start.name().as_ref()),
                    ..Element::default()
                });
            }
            Event::Empty(start) => {
                let element = Element {
                    name: local_name(start.name().as_ref()),
                    ..Element::default()
                };
                attach(&mut stack, &mut root, element)?;
            }
            Event::End(_) => {
                let element = stack.pop().ok_or("unbalanced end tag")?;
                attach(&mut stack, &mut root, element)?;
            }
            Event::Text(text) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&text.xml10_content());
                }
            }
            Event::CData(data) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&data.into_inner());
                }
            }
            Event::GeneralRef(reference) => {
                let resolved = match reference.resolve_char_ref().map_err(|e| e.to_string())? {
                    Some(c) => c.to_string(),
                    None => resolve_predefined_entity(&reference)
                        .ok_or_else(|| format!("unknown entity &{};", &*reference))?
                        .to_owned(),
                };
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&resolved);
                }
            }
            Event::Eof => break,
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_) => {}
        }
    }
    if !stack.is_empty() {
        return Err("document ends inside an element".into());
    }
    root.ok_or_else(|| "no root element".into())
}

fn attach(stack: &mut [Element], root: &mut Option<Element>, element: Element) -> Result<(), String> {
    match stack.last_mut() {
        Some(parent) => parent.children.push(element),
        None if root.is_none() => *root = Some(element),
        None => return Err("more than one root element".into()),
    }
    Ok(())
}

fn local_name(qname: &str) -> String {
    qname.rsplit_once(':').map_or(qname, |(_, local)| local).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_references_and_keeps_spaces() {
        let doc = parse(
            br#"<?xml version="1.0" encoding="UTF-8"?>
<r xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><k> a&amp;b &lt;c&gt; &#x41;&#66;&quot;&apos; </k><e/><x:n xmlns:x="u"><![CDATA[<raw>]]></x:n></r>"#,
        )
        .unwrap();
        assert_eq!(doc.name, "r");
        assert_eq!(doc.child_text("k"), Some(" a&b <c> AB\"' "));
        assert_eq!(doc.child_text("e"), Some(""));
        assert_eq!(doc.child_text("n"), Some("<raw>"));
    }

    #[test]
    fn rejects_broken_documents() {
        assert!(parse(b"<a><b></a>").is_err());
        assert!(parse(b"<a>").is_err());
        assert!(parse(b"").is_err());
        assert!(parse(b"<a>&bogus;</a>").is_err());
    }
}
