//! A bucket's connection (the core's [`Connection`]: its config and what
//! the page learns while talking to S3, the server's clock and the bucket's
//! real region), shared by every request the page signs.
//!
//! Each request is an [`Exchange`]: signed afresh for every attempt, so a
//! retry after a clock or region fix uses the fixed values; the core decides
//! what comes after each attempt.

use super::fetch::{self, HttpResponse};
use d9lens_core::analysis::FileOutcome;
use d9lens_core::bucket::cached::CachedObject;
use d9lens_core::bucket::catalog::SegmentRecord;
use d9lens_core::fleet::packed::read_answer;
use d9lens_core::fleet::{Answered, Batch, FunctionUrl, function_url_request, invocation_error};
use d9lens_core::s3::{Connection, Exchange, HttpRequest, ListObjectsV2, Region, S3Config, S3Error, Step, Timestamp};
use std::cell::RefCell;
use std::rc::Rc;

#[derive(Clone)]
pub struct Client {
    inner: Rc<RefCell<Connection>>,
}

impl Client {
    pub fn new(config: S3Config) -> Self {
        Client {
            inner: Rc::new(RefCell::new(Connection::new(config))),
        }
    }

    /// The region requests are signed for (changes after a wrong-region retry).
    pub fn region(&self) -> Region {
        self.inner.borrow().config().region.clone()
    }

    pub fn bucket(&self) -> String {
        self.inner.borrow().config().bucket.as_str().to_owned()
    }

    pub fn clock_offset_ms(&self) -> i64 {
        self.inner.borrow().clock_offset_ms()
    }

    /// Now by S3's clock, as far as it is known.
    pub fn now(&self) -> Timestamp {
        self.inner.borrow().now(local_now())
    }

    /// The segment cache's identity of `segment` in this bucket.
    pub fn cached(&self, segment: &SegmentRecord) -> Option<CachedObject> {
        CachedObject::of(self.inner.borrow().config(), segment)
    }

    /// A presigned GET URL for `key`, signed now (credentials stay on this thread).
    pub fn presign_get(&self, key: &str) -> String {
        let now = self.now();
        self.inner.borrow().config().get_object(key, None, now).url
    }

    /// A batch analyzed by the Lambda function behind `url` (auth type
    /// `AWS_IAM`), signed with this bucket's credentials: its files' outcomes,
    /// or why not. The function reads the bucket with its own role; with a
    /// `results_prefix` it may store outcomes too large to answer there, and
    /// they are read from there with this bucket's credentials.
    pub async fn analyze_on_lambda(
        &self,
        url: &FunctionUrl,
        keys: Vec<String>,
        results_prefix: Option<String>,
    ) -> Result<Vec<FileOutcome>, String> {
        let config = self.inner.borrow().config().clone();
        let credentials = config
            .credentials
            .clone()
            .ok_or("Invoking a Lambda function needs credentials: fill in the access key and secret key.")?;
        let batch = Batch {
            results_prefix,
            ..Batch::of(&config, keys, false)
        };
        let payload = serde_json::to_string(&batch).expect("a batch serializes");
        let response = drive(None, || function_url_request(url, &credentials, &payload, self.now()))
            .await
            .map_err(|e| invocation_error(&e))?;
        match read_answer(&batch, &response.headers, &response.body)? {
            Answered::Outcomes(outcomes) => Ok(outcomes),
            Answered::Stored(stored) => {
                let object = self
                    .execute(|config, now| stored.get_object(config, now))
                    .await
                    .map_err(|e| format!("the stored results {}: {}", stored.key(), e.cause()))?;
                stored.unpack(&object.body)
            }
        }
    }

    /// One ListObjectsV2 answer, unparsed (the catalog worker reads it).
    pub async fn list_raw(&self, list: &ListObjectsV2) -> Result<Vec<u8>, S3Error> {
        let response = self.execute(|config, now| config.list_objects_v2(list, now)).await?;
        Ok(response.body)
    }

    /// Sends the request `build` makes, with retries (see the module docs).
    pub async fn execute(&self, build: impl Fn(&S3Config, Timestamp) -> HttpRequest) -> Result<HttpResponse, S3Error> {
        let sign = || {
            let connection = self.inner.borrow();
            build(connection.config(), connection.now(local_now()))
        };
        drive(Some(&self.inner), sign).await
    }
}

/// Sends the request `request` makes (afresh for every attempt) until the
/// core's [`Exchange`] is done with it or gives up. `connection`: the
/// bucket's, for a request signed from it (fixes go into it); `None` for a
/// presigned one.
pub async fn drive(
    connection: Option<&RefCell<Connection>>,
    request: impl Fn() -> HttpRequest,
) -> Result<HttpResponse, S3Error> {
    let mut exchange = Exchange::new(local_now());
    loop {
        let sent = fetch::send(&request()).await;
        let step = {
            let mut fixes = connection.map(RefCell::borrow_mut);
            let attempt = fetch::attempt(&sent);
            exchange.after(fixes.as_deref_mut(), attempt, local_now(), js_sys::Math::random())
        };
        match (step, sent) {
            (Step::Done, Ok(response)) => return Ok(response),
            (Step::Wait { delay, .. }, _) => fetch::sleep(delay).await,
            (Step::GiveUp { error, .. }, _) => return Err(error),
            // Made and signed again at the top (`Done` comes only with an answer).
            (Step::Resign { .. } | Step::Done, _) => {}
        }
    }
}

pub fn local_now() -> Timestamp {
    Timestamp::from_unix_millis(js_sys::Date::now() as i64)
}
