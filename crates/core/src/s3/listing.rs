//! ListObjectsV2 responses (`<ListBucketResult>`) as a typed page.
//!
//! Keys come back entity-decoded (`&amp;` is `&`; `=` and `%` are literal, dial9's
//! partition escapes stay as `%2F`). If the response says `<EncodingType>url</EncodingType>`
//! the key fields are URL-decoded as well (`+` is a space there).

use std::fmt;

use super::encode::form_decode;
use super::time::Timestamp;
use super::xml::{self, Element};

/// One listed object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectEntry {
    pub key: String,
    pub size: u64,
    /// As S3 sends it, quotes included (`"9b2cf535f27731c974343645a3985328"`), which is
    /// also the form of the `ETag` response header.
    pub etag: Option<String>,
    pub last_modified: Option<Timestamp>,
}

/// One page of a ListObjectsV2 listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListPage {
    /// The bucket name (`<Name>`).
    pub bucket: Option<String>,
    /// The prefix listed (empty for the root).
    pub prefix: String,
    pub delimiter: Option<String>,
    pub start_after: Option<String>,
    pub max_keys: Option<u32>,
    /// `<KeyCount>`: objects plus common prefixes on this page.
    pub key_count: Option<u32>,
    pub contents: Vec<ObjectEntry>,
    /// The "sub-directories" under `prefix` when listing with a delimiter, each
    /// ending with the delimiter.
    pub common_prefixes: Vec<String>,
    /// The token for the next page: present exactly when the listing is truncated.
    pub next_continuation_token: Option<String>,
}

impl ListPage {
    /// True when more pages follow (`IsTruncated`).
    pub fn is_truncated(&self) -> bool {
        self.next_continuation_token.is_some()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListError {
    /// Not well-formed XML.
    Xml(String),
    /// A well-formed document that is not a `ListBucketResult` (an `<Error>`
    /// document belongs to [`S3Error::from_response`](super::error::S3Error::from_response)).
    UnexpectedRoot(String),
    MissingField(&'static str),
    InvalidNumber {
        field: &'static str,
        value: String,
    },
    /// `IsTruncated` is true but no `NextContinuationToken` came with it.
    TruncatedWithoutToken,
}

impl fmt::Display for ListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Xml(e) => write!(f, "the listing is not valid XML: {e}"),
            Self::UnexpectedRoot(root) => write!(f, "expected a ListBucketResult document, got <{root}>"),
            Self::MissingField(field) => write!(f, "the listing has an entry without <{field}>"),
            Self::InvalidNumber { field, value } => write!(f, "the listing's <{field}> is not a number: {value:?}"),
            Self::TruncatedWithoutToken => {
                f.write_str("the listing is truncated but has no NextContinuationToken to continue with")
            }
        }
    }
}

impl std::error::Error for ListError {}

/// Parses a ListObjectsV2 response body.
pub fn parse_list_page(body: &[u8]) -> Result<ListPage, ListError> {
    let root = xml::parse(body).map_err(ListError::Xml)?;
    if root.name != "ListBucketResult" {
        return Err(ListError::UnexpectedRoot(root.name));
    }
    let url_encoded = root
        .child_text("EncodingType")
        .is_some_and(|e| e.eq_ignore_ascii_case("url"));
    let key_field = |e: &Element, name: &str| -> Option<String> {
        e.child_text(name)
            .map(|t| if url_encoded { form_decode(t) } else { t.to_owned() })
    };

    let mut contents = Vec::new();
    for entry in root.children_named("Contents") {
        let key = key_field(entry, "Key").ok_or(ListError::MissingField("Key"))?;
        let size = number(entry, "Size")?.ok_or(ListError::MissingField("Size"))?;
        contents.push(ObjectEntry {
            key,
            size,
            etag: entry.child_text("ETag").map(str::to_owned),
            last_modified: entry.child_text("LastModified").and_then(Timestamp::parse_rfc3339),
        });
    }
    let common_prefixes = root
        .children_named("CommonPrefixes")
        .map(|cp| key_field(cp, "Prefix").ok_or(ListError::MissingField("Prefix")))
        .collect::<Result<Vec<_>, _>>()?;

    let truncated = root.child_text("IsTruncated").is_some_and(|t| t.trim() == "true");
    let next_continuation_token = match (truncated, root.child_text("NextContinuationToken")) {
        (true, Some(token)) if !token.is_empty() => Some(token.to_owned()),
        (true, _) => return Err(ListError::TruncatedWithoutToken),
        (false, _) => None,
    };
    let to_u32 = |field: &'static str| -> Result<Option<u32>, ListError> {
        number(&root, field)?
            .map(|n| {
                u32::try_from(n).map_err(|_| ListError::InvalidNumber {
                    field,
                    value: n.to_string(),
                })
            })
            .transpose()
    };

    Ok(ListPage {
        bucket: root.child_text("Name").map(str::to_owned),
        prefix: key_field(&root, "Prefix").unwrap_or_default(),
        delimiter: key_field(&root, "Delimiter").filter(|d| !d.is_empty()),
        start_after: key_field(&root, "StartAfter").filter(|s| !s.is_empty()),
        max_keys: to_u32("MaxKeys")?,
        key_count: to_u32("KeyCount")?,
        contents,
        common_prefixes,
        next_continuation_token,
    })
}

fn number(element: &Element, field: &'static str) -> Result<Option<u64>, ListError> {
    element
        .child_text(field)
        .map(|t| {
            t.trim().parse::<u64>().map_err(|_| ListError::InvalidNumber {
                field,
                value: t.to_owned(),
            })
        })
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Name>acme-traces</Name>
  <Prefix>dial9-traces/version=1/date=2026-11-30/service=payments%2Fapi/</Prefix>
  <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
  <KeyCount>3</KeyCount>
  <MaxKeys>3</MaxKeys>
  <Delimiter>/</Delimiter>
  <StartAfter>dial9-traces/version=1/date=2026-11-30/service=payments%2Fapi/time=0000/</StartAfter>
  <IsTruncated>true</IsTruncated>
  <Contents>
    <Key>dial9-traces/version=1/date=2026-11-30/service=payments%2Fapi/notes &amp; todo.txt</Key>
    <LastModified>2026-11-30T10:15:02.000Z</LastModified>
    <ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag>
    <ChecksumAlgorithm>CRC32</ChecksumAlgorithm>
    <ChecksumType>FULL_OBJECT</ChecksumType>
    <Size>1234</Size>
    <StorageClass>STANDARD</StorageClass>
  </Contents>
  <CommonPrefixes>
    <Prefix>dial9-traces/version=1/date=2026-11-30/service=payments%2Fapi/time=1000/</Prefix>
  </CommonPrefixes>
  <CommonPrefixes>
    <Prefix>dial9-traces/version=1/date=2026-11-30/service=payments%2Fapi/time=1015/</Prefix>
  </CommonPrefixes>
</ListBucketResult>"#;

    #[test]
    fn parses_a_truncated_delimiter_page() {
        let page = parse_list_page(PAGE.as_bytes()).unwrap();
        let base = "dial9-traces/version=1/date=2026-11-30/service=payments%2Fapi/";
        assert_eq!(page.bucket.as_deref(), Some("acme-traces"));
        assert_eq!(page.prefix, base);
        assert_eq!(page.delimiter.as_deref(), Some("/"));
        assert_eq!(page.start_after.as_deref(), Some(&*format!("{base}time=0000/")));
        assert_eq!((page.key_count, page.max_keys), (Some(3), Some(3)));
        assert!(page.is_truncated());
        assert_eq!(
            page.next_continuation_token.as_deref(),
            Some("1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=")
        );
        assert_eq!(
            page.contents,
            vec![ObjectEntry {
                key: format!("{base}notes & todo.txt"),
                size: 1234,
                etag: Some("\"9b2cf535f27731c974343645a3985328\"".into()),
                last_modified: Timestamp::parse_rfc3339("2026-11-30T10:15:02Z"),
            }]
        );
        assert_eq!(
            page.common_prefixes,
            vec![format!("{base}time=1000/"), format!("{base}time=1015/")]
        );
    }

    #[test]
    fn parses_the_last_page_and_an_empty_listing() {
        let last = r#"<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix></Prefix>
<KeyCount>1</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>
<Contents><Key>2026-11-30/1015/payments/us-east-1/i-0abc123/nygg/1764497700-3.bin.gz</Key><LastModified>2026-11-30T10:16:00.000Z</LastModified><ETag>"e"</ETag><Size>5242880</Size><StorageClass>STANDARD</StorageClass></Contents>
</ListBucketResult>"#;
        let page = parse_list_page(last.as_bytes()).unwrap();
        assert!(!page.is_truncated());
        assert_eq!(page.prefix, "");
        assert_eq!(page.delimiter, None);
        assert_eq!(page.contents[0].size, 5_242_880);

        let empty = br#"<ListBucketResult><Name>b</Name><Prefix>nothing/</Prefix><KeyCount>0</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated></ListBucketResult>"#;
        let page = parse_list_page(empty).unwrap();
        assert!(page.contents.is_empty() && page.common_prefixes.is_empty());
    }

    #[test]
    fn url_encoded_listings_are_decoded() {
        let body = br#"<ListBucketResult><Name>b</Name><Prefix>a+b%2F</Prefix><EncodingType>url</EncodingType><IsTruncated>false</IsTruncated>
<Contents><Key>a+b%2Fservice%3Dx%252Fy</Key><Size>1</Size></Contents><CommonPrefixes><Prefix>a+b%2Fc%2F</Prefix></CommonPrefixes></ListBucketResult>"#;
        let page = parse_list_page(body).unwrap();
        assert_eq!(page.prefix, "a b/");
        assert_eq!(page.contents[0].key, "a b/service=x%2Fy");
        assert_eq!(page.common_prefixes, vec!["a b/c/".to_owned()]);
    }

    #[test]
    fn reports_what_is_wrong() {
        let error_doc = br#"<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>"#;
        assert_eq!(
            parse_list_page(error_doc),
            Err(ListError::UnexpectedRoot("Error".into()))
        );
        let no_token = br#"<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>"#;
        assert_eq!(parse_list_page(no_token), Err(ListError::TruncatedWithoutToken));
        let bad_size = br#"<ListBucketResult><Contents><Key>k</Key><Size>big</Size></Contents></ListBucketResult>"#;
        assert!(matches!(
            parse_list_page(bad_size),
            Err(ListError::InvalidNumber { field: "Size", .. })
        ));
        let no_key = br#"<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>"#;
        assert_eq!(parse_list_page(no_key), Err(ListError::MissingField("Key")));
        assert!(matches!(parse_list_page(b"<ListBucketResult>"), Err(ListError::Xml(_))));
    }
}
