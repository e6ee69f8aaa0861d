//! The native executor of the core's S3 requests (the CLI's and the Lambda
//! function's), and nothing more: sends each [`HttpRequest`] with
//! ureq and does what the core's [`Exchange`] says next (retry with backoff,
//! re-sign in S3's region or with S3's clock, give up), noting each retry on
//! stderr. Nothing here prints or returns a URL with its signature.
//! GET, HEAD and DELETE carry no body; POST sends the request's own, PUT the bytes
//! the caller gives ([`Client::fetch_with_body`]).

use d9lens_core::s3::request::redact_url;
use d9lens_core::s3::{
    Account, Attempt, BucketEntry, BucketListing, BucketName, BucketsError, Connection, Credentials, Endpoint,
    Exchange, HttpRequest, ListError, Method, Region, S3Config, S3Error, Step, Timeouts, Timestamp,
};
use std::hash::BuildHasher;
use std::sync::{RwLock, RwLockWriteGuard};
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
    /// S3 answered with an error, or did not answer.
    S3(S3Error),
    /// A 2xx listing that does not parse.
    Listing(ListError),
    /// A 2xx bucket list that does not parse.
    Buckets(BucketsError),
}

impl FetchError {
    pub fn cause(&self) -> String {
        match self {
            FetchError::S3(e) => e.to_string(),
            FetchError::Listing(e) => format!("The listing answer is not a ListObjectsV2 result: {e}."),
            FetchError::Buckets(e) => format!("The answer is not a ListBuckets result: {e}."),
        }
    }

    pub fn fix(&self) -> String {
        match self {
            FetchError::S3(e) => e.fix(),
            FetchError::Listing(_) | FetchError::Buckets(_) => {
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
    connection: RwLock<Connection>,
}

fn loopback(endpoint: &Endpoint) -> bool {
    let Endpoint::Custom(custom) = endpoint else {
        return false;
    };
    let host = custom.authority();
    let host = host
        .rsplit_once(':')
        .map_or(host, |(h, port)| if port.contains(']') { host } else { h });
    let ipv4_loopback = host.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback());
    host == "localhost" || ipv4_loopback || host == "[::1]"
}

/// The agent for requests to `endpoint`, with the core's timeouts.
fn agent(endpoint: &Endpoint) -> ureq::Agent {
    let timeouts = Timeouts::default();
    let mut builder = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_connect(Some(timeouts.connect))
        .timeout_recv_response(Some(timeouts.answer))
        .timeout_recv_body(Some(timeouts.body))
        .user_agent(concat!("d9lens/", env!("CARGO_PKG_VERSION")));
    if loopback(endpoint) {
        // A local test server: never through a proxy from the environment.
        builder = builder.proxy(None);
    }
    builder.build().into()
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
        Self {
            agent: agent(&config.endpoint),
            connection: RwLock::new(Connection::new(config)),
        }
    }

    pub fn config(&self) -> S3Config {
        self.connection
            .read()
            .expect("no panics while holding the lock")
            .config()
            .clone()
    }

    fn connection(&self) -> RwLockWriteGuard<'_, Connection> {
        self.connection.write().expect("no panics while holding the lock")
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
        let sign = || {
            let connection = self.connection();
            build(connection.config(), connection.now(local_now()))
        };
        exchange(what, Some(&self.connection), sign, |req| {
            send(&self.agent, req, payload)
        })
    }

    /// The whole object.
    pub fn get_object(&self, key: &str) -> Result<Vec<u8>, FetchError> {
        self.fetch(key, |config, now| config.get_object(key, None, now))
            .map(|r| r.body)
    }
}

/// The Lambda endpoint to call instead of AWS Lambda: `explicit` when given,
/// else `AWS_ENDPOINT_URL_LAMBDA`, else `AWS_ENDPOINT_URL` (as the AWS CLI
/// Sends `req` once; `payload` is the body of a PUT (a POST sends `req.body`).
/// `Err`: no answer, or not within the core's [`Timeouts`].
fn send(agent: &ureq::Agent, req: &HttpRequest, payload: &[u8]) -> Result<Response, S3Error> {
    fn with_headers<B>(mut builder: ureq::RequestBuilder<B>, req: &HttpRequest) -> ureq::RequestBuilder<B> {
        for (name, value) in &req.headers {
            builder = builder.header(name, value);
        }
        builder
    }
    let body = req.body.as_ref().map_or(payload, |b| b.as_bytes());
    let result = match req.method {
        Method::Get => with_headers(agent.get(&req.url), req).call(),
        Method::Head => with_headers(agent.head(&req.url), req).call(),
        Method::Delete => with_headers(agent.delete(&req.url), req).call(),
        Method::Post => with_headers(agent.post(&req.url), req).send(body),
        Method::Put => with_headers(agent.put(&req.url), req).send(body),
    };
    // ureq's messages may quote the URL: never show its signature.
    let scrub = |e: ureq::Error| match e {
        ureq::Error::Timeout(which) => {
            let timeouts = Timeouts::default();
            S3Error::timed_out(match which {
                ureq::Timeout::Connect | ureq::Timeout::Resolve => timeouts.connect,
                ureq::Timeout::RecvBody => timeouts.body,
                _ => timeouts.answer,
            })
        }
        e => S3Error::Unreachable {
            host: host_of(&req.url),
            message: e.to_string().replace(&req.url, &redact_url(&req.url)),
        },
    };
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

/// Sends the request `sign` makes (afresh for every attempt) until the
/// core's [`Exchange`] is done with it or gives up; `connection` takes the
/// fixes it learns (S3's clock and region) for a bucket's requests.
fn exchange(
    what: &str,
    connection: Option<&RwLock<Connection>>,
    sign: impl Fn() -> HttpRequest,
    send: impl Fn(&HttpRequest) -> Result<Response, S3Error>,
) -> Result<Response, FetchError> {
    let mut exchange = Exchange::new(local_now());
    loop {
        let req = sign();
        let sent = send(&req);
        let attempt = match &sent {
            Ok(resp) => Attempt::Answer {
                status: resp.status,
                headers: &resp.headers,
                body: &resp.body,
            },
            Err(error) => Attempt::Failed(error.clone()),
        };
        let mut fixes = connection.map(|c| c.write().expect("no panics while holding the lock"));
        let step = exchange.after(fixes.as_deref_mut(), attempt, local_now(), jitter());
        drop(fixes);
        if let Some(note) = step.note(what) {
            eprintln!("d9lens: {note}");
        }
        match (step, sent) {
            (Step::Done, Ok(resp)) => return Ok(resp),
            (Step::Wait { delay, .. }, _) => std::thread::sleep(delay),
            (Step::GiveUp { error, .. }, _) => return Err(FetchError::S3(error)),
            // Signed again at the top (`Done` comes only with an answer).
            (Step::Resign { .. } | Step::Done, _) => {}
        }
    }
}

/// The buckets `account` may list (ListBuckets, every page), by name, and
/// whether more were left out.
pub fn list_buckets(account: &Account) -> Result<(Vec<BucketEntry>, bool), FetchError> {
    let agent = agent(&account.endpoint);
    let mut listing = BucketListing::default();
    while listing.request(account, local_now()).is_some() {
        let sign = || listing.request(account, local_now()).expect("a page is due");
        let answer = exchange("listing the buckets", None, sign, |req| send(&agent, req, &[]))?;
        listing.on_body(&answer.body).map_err(FetchError::Buckets)?;
    }
    Ok(listing.finish())
}

/// reads them); `None`: AWS Lambda itself.
pub fn lambda_endpoint(explicit: Option<&str>) -> Option<String> {
    explicit
        .map(str::to_owned)
        .or_else(|| env("AWS_ENDPOINT_URL_LAMBDA"))
        .or_else(|| env("AWS_ENDPOINT_URL"))
}

/// The account's service: `--endpoint` / `--region` when given, else the AWS
/// environment variables (as the AWS CLI reads them); keys from the environment.
pub fn account_for(endpoint: Option<&str>, region: Option<&str>) -> Result<Account, String> {
    let endpoint = match endpoint
        .map(str::to_owned)
        .or_else(|| env("AWS_ENDPOINT_URL_S3"))
        .or_else(|| env("AWS_ENDPOINT_URL"))
    {
        Some(url) => Endpoint::custom(&url).map_err(|e| e.to_string())?,
        None => Endpoint::Aws,
    };
    let region = region_given(region).unwrap_or_else(|| "us-east-1".to_owned());
    let credentials = Credentials::from_env(|name| std::env::var(name).ok())
        .map_err(|e| format!("AWS credentials in the environment: {e}"))?;
    Ok(Account {
        endpoint,
        region: Region::new(&region).map_err(|e| e.to_string())?,
        credentials,
    })
}

/// [`account_for`]'s configuration of `bucket`.
pub fn config_for(bucket: &str, endpoint: Option<&str>, region: Option<&str>) -> Result<S3Config, String> {
    let bucket = BucketName::new(bucket).map_err(|e| e.to_string())?;
    Ok(account_for(endpoint, region)?.bucket(bucket))
}

/// The region `--region` or the AWS environment variables name, if any.
pub fn region_given(region: Option<&str>) -> Option<String> {
    region
        .map(str::to_owned)
        .or_else(|| env("AWS_REGION"))
        .or_else(|| env("AWS_DEFAULT_REGION"))
}

/// An environment variable, unless unset or blank.
pub fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_endpoints_bypass_proxies() {
        assert!(loopback(&Endpoint::custom("http://127.0.0.1:9001").unwrap()));
        assert!(loopback(&Endpoint::custom("http://localhost:9000/").unwrap()));
        assert!(loopback(&Endpoint::custom("http://[::1]:9000/").unwrap()));
        assert!(!loopback(&Endpoint::custom("https://minio.example.com").unwrap()));
        assert!(!loopback(&Endpoint::custom("https://127.example.com").unwrap()));
        assert!(!loopback(&Endpoint::Aws));
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
