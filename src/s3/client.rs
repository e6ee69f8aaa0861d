//! A bucket connection: the core's [`S3Config`] plus what the page learns while
//! talking to S3 (the server's clock offset, the bucket's real region).
//!
//! Every request is re-signed on each attempt, so a retry after a clock or
//! region correction uses the corrected values. Retryable answers (throttling,
//! 5xx) and requests that timed out are retried as the core's `Attempts`
//! say; a wrong region is retried once in the region S3 named; a clock
//! problem once with S3's time.

use super::fetch::{self, HttpResponse};
use d9lens_core::s3::cached::CachedObject;
use d9lens_core::s3::catalog::SegmentRecord;
use d9lens_core::s3::{Attempts, ListObjectsV2, Region, S3Config, S3Error, Timestamp, clock_offset_millis};
use std::cell::RefCell;
use std::rc::Rc;

/// Ignore `Date`-header offsets below this: the header has whole seconds and
/// the answer took a while to arrive.
const MIN_CLOCK_CORRECTION_MS: i64 = 2_000;

#[derive(Clone)]
pub struct Client {
    inner: Rc<RefCell<State>>,
}

struct State {
    config: S3Config,
    clock_offset_ms: i64,
}

impl Client {
    pub fn new(config: S3Config) -> Self {
        Client {
            inner: Rc::new(RefCell::new(State {
                config,
                clock_offset_ms: 0,
            })),
        }
    }

    /// The region requests are signed for (changes after a wrong-region retry).
    pub fn region(&self) -> String {
        self.inner.borrow().config.region.as_str().to_owned()
    }

    pub fn bucket(&self) -> String {
        self.inner.borrow().config.bucket.as_str().to_owned()
    }

    pub fn clock_offset_ms(&self) -> i64 {
        self.inner.borrow().clock_offset_ms
    }

    /// Now by S3's clock, as far as it is known.
    pub fn now(&self) -> Timestamp {
        local_now().offset_by_millis(self.clock_offset_ms())
    }

    /// The segment cache's identity of `segment` in this bucket.
    pub fn cached(&self, segment: &SegmentRecord) -> Option<CachedObject> {
        CachedObject::of(&self.inner.borrow().config, segment)
    }

    /// A presigned GET URL for `key`, signed now (credentials stay on this thread).
    pub fn presign_get(&self, key: &str) -> String {
        let now = self.now();
        self.inner.borrow().config.get_object(key, None, now).url
    }

    /// One ListObjectsV2 answer, unparsed (the catalog worker reads it).
    pub async fn list_raw(&self, list: &ListObjectsV2) -> Result<Vec<u8>, S3Error> {
        let response = self.execute(|config, now| config.list_objects_v2(list, now)).await?;
        Ok(response.body)
    }

    /// Sends the request `build` makes, with retries (see the module docs).
    pub async fn execute(
        &self,
        build: impl Fn(&S3Config, Timestamp) -> d9lens_core::s3::HttpRequest,
    ) -> Result<HttpResponse, S3Error> {
        let (mut attempts, mut region_fixed, mut clock_fixed) = (Attempts::default(), false, false);
        loop {
            let request = {
                let now = self.now();
                build(&self.inner.borrow().config, now)
            };
            let error = match fetch::send(&request).await {
                Ok(response) if response.ok() => {
                    self.learn_clock(&response);
                    return Ok(response);
                }
                Ok(response) => {
                    self.learn_clock(&response);
                    response.error()
                }
                Err(error) => error,
            };
            if !clock_fixed && let Some(offset) = error.clock_offset_millis(local_now()) {
                clock_fixed = true;
                self.inner.borrow_mut().clock_offset_ms = offset;
                continue;
            }
            if !region_fixed
                && let Some(region) = error.retry_region().and_then(|r| Region::new(r).ok())
                && region.as_str() != self.region()
            {
                region_fixed = true;
                self.inner.borrow_mut().config.region = region;
                continue;
            }
            match attempts.after(&error, js_sys::Math::random()) {
                Some(delay) => fetch::sleep(delay).await,
                None => return Err(error),
            }
        }
    }

    /// Keeps S3's clock offset from any answer's `Date` header.
    fn learn_clock(&self, response: &HttpResponse) {
        let Some(server) = response.header("date").and_then(Timestamp::parse_http_date) else {
            return;
        };
        let offset = clock_offset_millis(local_now(), server);
        self.inner.borrow_mut().clock_offset_ms = if offset.abs() >= MIN_CLOCK_CORRECTION_MS {
            offset
        } else {
            0
        };
    }
}

pub fn local_now() -> Timestamp {
    Timestamp::from_unix_millis(js_sys::Date::now() as i64)
}
