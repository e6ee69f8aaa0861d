//! The native executor of the core's S3 requests: sends each [`HttpRequest`] with
//! ureq, retries throttling, 5xx and dropped connections with the core's backoff,
//! re-signs in the right region after a wrong-region answer, and corrects the clock
//! after a skew answer. Nothing here prints or returns a URL with its signature.
//! GET, HEAD and DELETE carry no body; POST sends the request's own, PUT the bytes
//! the caller gives ([`Client::fetch_with_body`]).

use d9lens_core::s3::request::redact_url;
use d9lens_core::s3::{
    Endpoint, HttpRequest, ListError, ListObjectsV2, Method, Region, S3Config, S3Error, Timeouts, Timestamp,
    backoff_delay,
};
use std::hash::BuildHasher;
use std::sync::RwLock;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Object bodies larger than this are refused (segments are a few MB).
const MAX_BODY_BYTES: u64 = 1 << 30;

/// An HTTP answer, any status.
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// Why a request failed for good.
#[derive(Debug)]
pub enum FetchError {
    /// S3 answered with an error.
    S3(S3Error),
    /// No HTTP answer at all.
    Network { host: String, message: String },
    /// A 2xx listing that does not parse.
    Listing(ListError),
}

impl FetchError {
    pub fn cause(&self) -> String {
        match self {
            FetchError::S3(e) => e.to_string(),
            FetchError::Network { host, message } => format!("No answer from {host}: {message}."),
            FetchError::Listing(e) => format!("The listing answer is not a ListObjectsV2 result: {e}."),
        }
    }

    pub fn fix(&self) -> String {
        match self {
            FetchError::S3(e) => e.fix(),
            FetchError::Network { .. } => "Check the endpoint (--endpoint, AWS_ENDPOINT_URL_S3), that the server is \
                 running, and network or proxy settings (HTTPS_PROXY, NO_PROXY)."
                .to_owned(),
            FetchError::Listing(_) => {
                "Check that the endpoint is an S3 API endpoint (not a website or console URL).".to_owned()
            }
        }
    }

    /// Cause and fix, for a terminal.
    pub fn explain(&self) -> String {
        format!("{}\nFix: {}", self.cause(), self.fix())
    }
}

/// Sends requests for one bucket. Shared by the download threads.
pub struct Client {
    agent: ureq::Agent,
    config: RwLock<S3Config>,
    /// Added to the local clock for signing, learnt from a clock-skew answer.
    clock_offset_ms: AtomicI64,
}

fn loopback(config: &S3Config) -> bool {
    let Endpoint::Custom(_) = &config.endpoint else {
        return false;
    };
    let url = config
        .list_objects_v2(&ListObjectsV2::default(), Timestamp::from_unix_secs(0))
        .url;
    let host = url.split("://").nth(1).and_then(|r| r.split('/').next()).unwrap_or("");
    let host = host
        .rsplit_once(':')
        .map_or(host, |(h, port)| if port.contains(']') { host } else { h });
    host == "localhost" || host.starts_with("127.") || host == "[::1]"
}

fn local_now() -> Timestamp {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    Timestamp::from_unix_millis(ms)
}

/// Uniform in [0, 1): jitter for the backoff (std's per-instance random hash keys).
fn jitter() -> f64 {
    let bits = std::collections::hash_map::RandomState::new().hash_one(local_now().unix_millis());
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

fn host_of(url: &str) -> String {
    url.split("://")
        .nth(1)
        .and_then(|r| r.split(['/', '?']).next())
        .unwrap_or(url)
        .to_owned()
}

impl Client {
    pub fn new(config: S3Config) -> Self {
        let timeouts = Timeouts::default();
        let mut builder = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_connect(Some(timeouts.connect))
            .timeout_recv_response(Some(timeouts.answer))
            .timeout_recv_body(Some(timeouts.body))
            .user_agent(concat!("d9lens/", env!("CARGO_PKG_VERSION")));
        if loopback(&config) {
            // A local test server: never through a proxy from the environment.
            builder = builder.proxy(None);
        }
        Self {
            agent: builder.build().into(),
            config: RwLock::new(config),
            clock_offset_ms: AtomicI64::new(0),
        }
    }

    pub fn config(&self) -> S3Config {
        self.config.read().expect("no panics while holding the lock").clone()
    }

    fn now(&self) -> Timestamp {
        local_now().offset_by_millis(self.clock_offset_ms.load(Ordering::Relaxed))
    }

    /// Sends `req` once; `payload` is the body of a PUT (a POST sends `req.body`).
    fn send(&self, req: &HttpRequest, payload: &[u8]) -> Result<Response, String> {
        fn with_headers<B>(mut builder: ureq::RequestBuilder<B>, req: &HttpRequest) -> ureq::RequestBuilder<B> {
            for (name, value) in &req.headers {
                builder = builder.header(name, value);
            }
            builder
        }
        let body = req.body.as_ref().map_or(payload, |b| b.as_bytes());
        let result = match req.method {
            Method::Get => with_headers(self.agent.get(&req.url), req).call(),
            Method::Head => with_headers(self.agent.head(&req.url), req).call(),
            Method::Delete => with_headers(self.agent.delete(&req.url), req).call(),
            Method::Post => with_headers(self.agent.post(&req.url), req).send(body),
            Method::Put => with_headers(self.agent.put(&req.url), req).send(body),
        };
        // ureq's messages may quote the URL: never show its signature.
        let scrub = |e: ureq::Error| e.to_string().replace(&req.url, &redact_url(&req.url));
        let mut resp = result.map_err(scrub)?;
        let status = resp.status().as_u16();
        let headers = resp
            .headers()
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_owned(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let body = if req.method == Method::Head {
            Vec::new()
        } else {
            resp.body_mut()
                .with_config()
                .limit(MAX_BODY_BYTES)
                .read_to_vec()
                .map_err(scrub)?
        };
        Ok(Response { status, headers, body })
    }

    /// Sends the request `build` makes (signed afresh for every attempt) until it
    /// succeeds or fails for good. `what` names it in retry notes on stderr.
    pub fn fetch(
        &self,
        what: &str,
        build: impl Fn(&S3Config, Timestamp) -> HttpRequest,
    ) -> Result<Response, FetchError> {
        self.fetch_with_body(what, &[], build)
    }

    /// [`Client::fetch`] for a request whose body the shell supplies (a PUT's
    /// object bytes), sent again with every attempt.
    pub fn fetch_with_body(
        &self,
        what: &str,
        payload: &[u8],
        build: impl Fn(&S3Config, Timestamp) -> HttpRequest,
    ) -> Result<Response, FetchError> {
        let mut retries = 0;
        let mut region_switched = false;
        let mut clock_corrected = false;
        loop {
            let config = self.config();
            let req = build(&config, self.now());
            let failure = match self.send(&req, payload) {
                Ok(resp) if (200..300).contains(&resp.status) => return Ok(resp),
                Ok(resp) => {
                    let err = S3Error::from_response(resp.status, &resp.headers, &resp.body);
                    if let Some(region) = err.retry_region()
                        && !region_switched
                        && region != config.region.as_str()
                        && let Ok(region) = Region::new(region)
                    {
                        eprintln!("d9lens: {} Retrying in region {}.", err.cause(), region.as_str());
                        self.config.write().expect("no panics while holding the lock").region = region;
                        region_switched = true;
                        continue;
                    }
                    if let Some(offset) = err.clock_offset_millis(local_now())
                        && !clock_corrected
                    {
                        eprintln!(
                            "d9lens: {} Signing with S3's clock ({offset:+} ms) and retrying.",
                            err.cause()
                        );
                        self.clock_offset_ms.store(offset, Ordering::Relaxed);
                        clock_corrected = true;
                        continue;
                    }
                    if !err.is_retryable() {
                        return Err(FetchError::S3(err));
                    }
                    FetchError::S3(err)
                }
                Err(message) => FetchError::Network {
                    host: host_of(&req.url),
                    message,
                },
            };
            retries += 1;
            let Some(delay) = backoff_delay(retries, jitter()) else {
                return Err(failure);
            };
            eprintln!(
                "d9lens: {what}: {} Retry {retries} in {} ms.",
                failure.cause(),
                delay.as_millis()
            );
            std::thread::sleep(delay);
        }
    }

    /// The whole object.
    pub fn get_object(&self, key: &str) -> Result<Vec<u8>, FetchError> {
        self.fetch(key, |config, now| config.get_object(key, None, now))
            .map(|r| r.body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use d9lens_core::s3::BucketName;

    fn config(endpoint: Endpoint) -> S3Config {
        S3Config {
            endpoint,
            bucket: BucketName::new("b").unwrap(),
            region: Region::new("us-east-1").unwrap(),
            credentials: None,
        }
    }

    #[test]
    fn loopback_endpoints_bypass_proxies() {
        assert!(loopback(&config(Endpoint::custom("http://127.0.0.1:9001").unwrap())));
        assert!(loopback(&config(Endpoint::custom("http://localhost:9000/").unwrap())));
        assert!(!loopback(&config(
            Endpoint::custom("https://minio.example.com").unwrap()
        )));
        assert!(!loopback(&config(Endpoint::Aws)));
    }

    #[test]
    fn jitter_is_in_range() {
        for _ in 0..100 {
            let j = jitter();
            assert!((0.0..1.0).contains(&j));
        }
    }

    #[test]
    fn hosts() {
        assert_eq!(host_of("http://127.0.0.1:9001/b/k?X-Amz-Signature=1"), "127.0.0.1:9001");
    }
}
