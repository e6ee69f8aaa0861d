//! ListBuckets: the buckets an account's credentials may see, for the bucket
//! picker (the page) and `d9lens s3 ls` without a bucket (the CLI).
//!
//! [`BucketListing`] is the whole conversation: the request to send next, the
//! answer fed back, pages followed by their continuation token up to
//! [`MAX_BUCKETS`]. AWS S3 answers ListBuckets without CORS headers (CORS is a
//! bucket's setting, and this request names none), so a browser gets no
//! answer there; S3-compatible servers may allow it.

use std::fmt;

use super::request::{Account, HttpRequest, Method};
use super::time::{SigningTime, Timestamp};
use super::xml;

/// Buckets asked for per page (S3 allows 1–10,000).
pub const PAGE_BUCKETS: u32 = 1000;
/// More buckets than this are left out, and said so. 10,000 is S3's default
/// quota of general purpose buckets per account.
pub const MAX_BUCKETS: usize = 10_000;

/// One bucket of the answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BucketEntry {
    pub name: String,
    pub created: Option<Timestamp>,
    /// `<BucketRegion>`, where S3 gives it.
    pub region: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BucketsError {
    Xml(String),
    /// A well-formed document that is not a `ListAllMyBucketsResult`.
    UnexpectedRoot(String),
    /// A `<Bucket>` without its `<Name>`.
    Unnamed,
}

impl fmt::Display for BucketsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Xml(e) => write!(f, "the bucket list is not valid XML: {e}"),
            Self::UnexpectedRoot(root) => write!(f, "expected a ListAllMyBucketsResult document, got <{root}>"),
            Self::Unnamed => f.write_str("the bucket list has a bucket without <Name>"),
        }
    }
}

impl std::error::Error for BucketsError {}

impl Account {
    /// A ListBuckets request (`GET /?max-buckets=…`), after `token` if given.
    pub fn list_buckets(&self, token: Option<&str>, now: SigningTime) -> HttpRequest {
        let mut query = vec![("max-buckets".to_owned(), PAGE_BUCKETS.to_string())];
        if let Some(token) = token {
            query.push(("continuation-token".to_owned(), token.to_owned()));
        }
        let signer = self.credentials.as_ref().map(|c| (c, &self.region));
        super::request::presigned(Method::Get, self.locate(), query, Vec::new(), signer, now)
    }
}

/// One page: its buckets and the token of the next page, if any.
fn parse_page(body: &[u8]) -> Result<(Vec<BucketEntry>, Option<String>), BucketsError> {
    let root = xml::parse(body).map_err(BucketsError::Xml)?;
    if root.name != "ListAllMyBucketsResult" {
        return Err(BucketsError::UnexpectedRoot(root.name));
    }
    let buckets = root
        .child("Buckets")
        .into_iter()
        .flat_map(|b| b.children_named("Bucket"))
        .map(|b| {
            Ok(BucketEntry {
                name: b.child_text("Name").ok_or(BucketsError::Unnamed)?.to_owned(),
                created: b.child_text("CreationDate").and_then(Timestamp::parse_rfc3339),
                region: b
                    .child_text("BucketRegion")
                    .filter(|r| !r.is_empty())
                    .map(str::to_owned),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let token = root.child_text("ContinuationToken").filter(|t| !t.is_empty());
    Ok((buckets, token.map(str::to_owned)))
}

/// Where the conversation is.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Next {
    First,
    After(String),
    Done,
}

/// Lists an account's buckets page by page (sans-IO: the shell sends
/// [`BucketListing::request`] and feeds the body to [`BucketListing::on_body`]).
#[derive(Clone, Debug)]
pub struct BucketListing {
    buckets: Vec<BucketEntry>,
    next: Next,
    /// More buckets than [`MAX_BUCKETS`] were there.
    truncated: bool,
}

impl Default for BucketListing {
    fn default() -> Self {
        Self {
            buckets: Vec::new(),
            next: Next::First,
            truncated: false,
        }
    }
}

impl BucketListing {
    /// The request to send next; `None` once every page is in.
    pub fn request(&self, account: &Account, now: SigningTime) -> Option<HttpRequest> {
        match &self.next {
            Next::First => Some(account.list_buckets(None, now)),
            Next::After(token) => Some(account.list_buckets(Some(token), now)),
            Next::Done => None,
        }
    }

    /// Takes the answer to the last request.
    pub fn on_body(&mut self, body: &[u8]) -> Result<(), BucketsError> {
        let (page, token) = parse_page(body)?;
        self.buckets.extend(page);
        if self.buckets.len() > MAX_BUCKETS {
            self.buckets.truncate(MAX_BUCKETS);
            self.truncated = true;
        }
        self.next = match token {
            // A server that hands back the token it was given would loop forever.
            Some(t) if !self.truncated && self.next != Next::After(t.clone()) => Next::After(t),
            _ => Next::Done,
        };
        Ok(())
    }

    /// The buckets by name, and whether more were left out.
    pub fn finish(mut self) -> (Vec<BucketEntry>, bool) {
        self.buckets.sort_by(|a, b| a.name.cmp(&b.name));
        self.buckets.dedup_by(|a, b| a.name == b.name);
        (self.buckets, self.truncated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::s3::{Credentials, Endpoint, Region};

    fn account(endpoint: Endpoint) -> Account {
        Account {
            endpoint,
            region: Region::new("eu-west-1").unwrap(),
            credentials: Some(Credentials::new("AKIDEXAMPLE", "secret", None).unwrap()),
        }
    }

    fn page(names: &[&str], token: Option<&str>) -> Vec<u8> {
        let buckets: String = names
            .iter()
            .map(|n| {
                format!("<Bucket><BucketRegion>eu-west-1</BucketRegion><CreationDate>2026-01-02T03:04:05.000Z</CreationDate><Name>{n}</Name></Bucket>")
            })
            .collect();
        let token = token
            .map(|t| format!("<ContinuationToken>{t}</ContinuationToken>"))
            .unwrap_or_default();
        format!(r#"<?xml version="1.0" encoding="UTF-8"?><ListAllMyBucketsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Owner><ID>x</ID></Owner><Buckets>{buckets}</Buckets>{token}</ListAllMyBucketsResult>"#).into_bytes()
    }

    const NOW: SigningTime = SigningTime::from_unix_secs(1_796_000_000);

    #[test]
    fn asks_the_service_not_a_bucket() {
        let aws = account(Endpoint::Aws).list_buckets(None, NOW);
        assert!(
            aws.url.starts_with("https://s3.eu-west-1.amazonaws.com/?"),
            "{}",
            aws.url
        );
        assert!(aws.url.contains("max-buckets=1000") && aws.url.contains("X-Amz-Signature="));
        let custom = account(Endpoint::custom("http://127.0.0.1:9000/s3").unwrap()).list_buckets(Some("t/1"), NOW);
        assert!(custom.url.starts_with("http://127.0.0.1:9000/s3/?"), "{}", custom.url);
        assert!(custom.url.contains("continuation-token=t%2F1"), "{}", custom.url);
        let public = Account {
            credentials: None,
            ..account(Endpoint::Aws)
        }
        .list_buckets(None, NOW);
        assert!(!public.url.contains("X-Amz-Signature"));
    }

    #[test]
    fn follows_pages_and_sorts_by_name() {
        let account = account(Endpoint::Aws);
        let mut listing = BucketListing::default();
        assert!(listing.request(&account, NOW).is_some());
        listing
            .on_body(&page(&["traces-b", "traces-a"], Some("next-1")))
            .unwrap();
        let second = listing.request(&account, NOW).unwrap();
        assert!(second.url.contains("continuation-token=next-1"));
        listing.on_body(&page(&["logs"], None)).unwrap();
        assert!(listing.request(&account, NOW).is_none());
        let (buckets, truncated) = listing.finish();
        assert!(!truncated);
        let names: Vec<_> = buckets.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["logs", "traces-a", "traces-b"]);
        assert_eq!(buckets[0].region.as_deref(), Some("eu-west-1"));
        assert_eq!(buckets[0].created, Timestamp::parse_rfc3339("2026-01-02T03:04:05Z"));
    }

    #[test]
    fn hostile_answers_end_with_an_error_or_a_bound() {
        let mut listing = BucketListing::default();
        assert_eq!(
            listing.on_body(b"<Error><Code>AccessDenied</Code></Error>"),
            Err(BucketsError::UnexpectedRoot("Error".into()))
        );
        assert!(matches!(
            listing.on_body(b"<ListAllMyBucketsResult><Buckets>"),
            Err(BucketsError::Xml(_))
        ));
        assert_eq!(
            listing.on_body(b"<ListAllMyBucketsResult><Buckets><Bucket></Bucket></Buckets></ListAllMyBucketsResult>"),
            Err(BucketsError::Unnamed)
        );
        // The same token again ends the listing instead of looping.
        let mut same = BucketListing::default();
        same.on_body(&page(&["a"], Some("t"))).unwrap();
        same.on_body(&page(&["b"], Some("t"))).unwrap();
        assert!(same.request(&account(Endpoint::Aws), NOW).is_none());
        // More than the bound: kept to it, and said so.
        let mut many = BucketListing::default();
        let names: Vec<String> = (0..1000).map(|i| format!("b{i:05}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        for i in 0..11 {
            if many.request(&account(Endpoint::Aws), NOW).is_none() {
                break;
            }
            many.on_body(&page(&names, Some(&format!("t{i}")))).unwrap();
        }
        assert!(many.request(&account(Endpoint::Aws), NOW).is_none());
        let (buckets, truncated) = many.finish();
        assert!(truncated);
        assert!(buckets.len() <= MAX_BUCKETS);
    }
}
