//! A bucket walk: the [`ListingPlan`] and the [`Catalog`] its answers fill,
//! fed answer by answer. The page's catalog worker and the CLI both drive
//! one: send [`BucketWalk::next_requests`], feed each answer's body (or why
//! its request failed) back, until [`BucketWalk::is_done`].

use super::catalog::Catalog;
use super::catalog::TimeWindow;
use super::listing_plan::{ListRequest, ListingLimits, ListingPlan, ListingProgress, NotListed, PlanError};
use super::scope::{Period, Scope, Shape};
use crate::s3::{ListError, parse_list_page};
use std::fmt;

#[derive(Debug)]
pub struct BucketWalk {
    plan: ListingPlan,
    catalog: Catalog,
    /// A period that needs the shape: applied once the listings so far are done.
    pending: Option<Period>,
}

/// An answer the walk could not use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WalkError {
    /// An answer to a request the walk is not waiting for.
    Plan(PlanError),
    /// The body is not a ListObjectsV2 result. The walk has counted the
    /// listing as failed and goes on without it.
    NotAListing(ListError),
}

impl fmt::Display for WalkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WalkError::Plan(e) => e.fmt(f),
            WalkError::NotAListing(e) => write!(f, "the answer is not a ListObjectsV2 listing ({e})"),
        }
    }
}

impl std::error::Error for WalkError {}

impl BucketWalk {
    /// A walk of everything under `prefix`.
    pub fn new(prefix: &str, limits: ListingLimits) -> Self {
        Self::scoped(prefix, limits, Scope::Everything)
    }

    /// A walk of what `scope` needs under `prefix`.
    fn scoped(prefix: &str, limits: ListingLimits, scope: Scope) -> Self {
        BucketWalk {
            plan: ListingPlan::scoped(prefix, limits, scope),
            // The layout root is found in each key, wherever the prefix stops.
            catalog: Catalog::new(""),
            pending: None,
        }
    }

    /// A walk of `period` under `prefix`: the shape first when the period
    /// depends on it, then what it resolves to, in one walk.
    pub fn for_period(prefix: &str, limits: ListingLimits, period: Period) -> Self {
        let mut walk = Self::scoped(prefix, limits, period.first_scope());
        walk.pending = (walk.plan.scope() == Scope::Shape).then_some(period);
        walk
    }

    /// Goes on with another period (a window picked, or widened): only what
    /// it adds is listed. One that needs the shape waits for the listings
    /// under way.
    pub fn set_period(&mut self, period: Period) {
        self.pending = Some(period);
        self.resolve_pending();
    }

    /// The window listed, once known (`None`: all of time, or the shape alone).
    pub fn window(&self) -> Option<TimeWindow> {
        self.plan.scope().window()
    }

    /// The shape is listed and no window is picked yet: the person picks one.
    pub fn awaits_window(&self) -> bool {
        self.plan.scope() == Scope::Shape && self.is_done() && self.pending.is_none()
    }

    fn resolve_pending(&mut self) {
        if !self.plan.is_done() {
            return;
        }
        if let Some(period) = self.pending.take()
            && let Some(scope) = period.scope_with(self.plan.shape())
        {
            self.plan.set_scope(scope);
        }
    }

    /// Every listing that may be sent now.
    pub fn next_requests(&mut self) -> Vec<ListRequest> {
        self.plan.next_requests()
    }

    /// Listing `id`'s answer body: its objects are catalogued and the walk
    /// goes on below and after it.
    pub fn on_body(&mut self, id: u32, body: &[u8]) -> Result<(), WalkError> {
        match parse_list_page(body) {
            Ok(page) => {
                self.plan.on_page(id, &page).map_err(WalkError::Plan)?;
                self.catalog.add_page(page.contents);
                self.resolve_pending();
                Ok(())
            }
            Err(e) => {
                let error = WalkError::NotAListing(e);
                self.on_failed(id, &error.to_string())?;
                Err(error)
            }
        }
    }

    /// Listing `id` failed for good; `message` says why, for the user.
    pub fn on_failed(&mut self, id: u32, message: &str) -> Result<(), WalkError> {
        self.plan.on_failed(id, message).map_err(WalkError::Plan)?;
        self.resolve_pending();
        Ok(())
    }

    /// Nothing in flight and nothing left to request.
    pub fn is_done(&self) -> bool {
        self.plan.is_done()
    }

    pub fn progress(&self) -> ListingProgress {
        self.plan.progress()
    }

    /// Every prefix left out or listed in part, in the order it happened.
    pub fn not_listed(&self) -> &[NotListed] {
        self.plan.not_listed()
    }

    /// What the listings so far say of the bucket's shape.
    pub fn shape(&self) -> &Shape {
        self.plan.shape()
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    pub fn into_catalog(self) -> Catalog {
        self.catalog
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(prefixes: &[&str], keys: &[&str]) -> Vec<u8> {
        let mut xml = String::from("<ListBucketResult><IsTruncated>false</IsTruncated>");
        for p in prefixes {
            xml += &format!("<CommonPrefixes><Prefix>{p}</Prefix></CommonPrefixes>");
        }
        for k in keys {
            xml += &format!(
                "<Contents><Key>{k}</Key><LastModified>2026-11-30T14:07:00.000Z</LastModified>\
                 <ETag>\"e\"</ETag><Size>1000</Size></Contents>"
            );
        }
        (xml + "</ListBucketResult>").into_bytes()
    }

    /// Answers every request from `answer` until the walk is done.
    fn walk(answer: impl Fn(&ListRequest) -> Result<Vec<u8>, String>) -> (BucketWalk, Vec<WalkError>) {
        let mut walk = BucketWalk::new("", ListingLimits::default());
        let mut errors = Vec::new();
        while !walk.is_done() {
            for request in walk.next_requests() {
                let fed = match answer(&request) {
                    Ok(body) => walk.on_body(request.id, &body),
                    Err(message) => walk.on_failed(request.id, &message),
                };
                errors.extend(fed.err());
            }
        }
        (walk, errors)
    }

    const KEY: &str = "version=1/date=2026-11-30/service=api/time=1405/instance=ip-1/boot=ab-1/1796047535-0.bin.gz";

    #[test]
    fn a_walk_lists_partitions_and_catalogues_their_keys() {
        let (walk, errors) = walk(|r| {
            Ok(match r.list.prefix.as_str() {
                "" => page(&["version=1/"], &[]),
                "version=1/" => page(&["version=1/date=2026-11-30/"], &[]),
                "version=1/date=2026-11-30/" => page(&["version=1/date=2026-11-30/service=api/"], &[]),
                _ => page(&[], &[KEY]),
            })
        });
        assert_eq!(errors, []);
        assert_eq!(walk.catalog().object_count(), 1);
        assert!(walk.progress().done);
        assert_eq!(walk.not_listed(), []);
    }

    #[test]
    fn a_body_that_is_not_a_listing_fails_its_listing_and_the_walk_goes_on() {
        let (walk, errors) = walk(|r| match r.list.prefix.as_str() {
            "" => Ok(page(&["a/", "b/"], &[])),
            "a/" => Ok(b"<html>a website</html>".to_vec()),
            _ => Ok(page(&[], &["b/x.bin.gz"])),
        });
        assert!(matches!(errors[..], [WalkError::NotAListing(_)]), "{errors:?}");
        assert_eq!(walk.catalog().object_count(), 1);
        assert_eq!(walk.not_listed().len(), 1);
        assert!(walk.not_listed()[0].to_string().contains("not a ListObjectsV2 listing"));
    }

    #[test]
    fn answers_nobody_asked_for_are_refused() {
        let mut walk = BucketWalk::new("", ListingLimits::default());
        assert_eq!(
            walk.on_body(7, &page(&[], &[])),
            Err(WalkError::Plan(PlanError::UnknownRequest(7)))
        );
        assert!(matches!(walk.on_failed(7, "no"), Err(WalkError::Plan(_))));
    }
}
