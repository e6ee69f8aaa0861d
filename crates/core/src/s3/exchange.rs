//! One S3 request's attempts, sans IO: the policy every shell follows. The
//! shell signs and sends the request, feeds in what came back ([`Attempt`]:
//! an answer or a failure) and does the [`Step`] that comes out: hand the
//! answer over, sign again after a fix and send at once, wait and send again,
//! or give up for a named reason.
//!
//! What a bucket's requests learn (its real region, S3's clock) lives in a
//! [`Connection`], shared by all of them; a presigned request, which cannot
//! be signed again, has none.
//!
//! - Throttling, server errors and timeouts are retried with
//!   [`RetryPolicy::default`]'s jittered backoff; network failures (no answer
//!   at all) at most [`NETWORK_RETRIES`] times, as in a page most of them are a
//!   missing CORS rule that no retry mends.
//! - No attempt starts later than [`DEADLINE`] after the first.
//! - A wrong region is fixed once, from the region S3 names; a clock S3
//!   calls skewed once, from S3's time, and only by up to [`MAX_CLOCK_OFFSET_MS`].

use super::retry::RetryPolicy;
use super::time::clock_offset_millis;
use super::{Region, S3Config, S3Error, Timestamp};
use std::time::Duration;

/// Retries after network failures, of the policy's retries.
pub const NETWORK_RETRIES: u32 = 2;
/// No attempt starts later than this after the first.
pub const DEADLINE: Duration = Duration::from_secs(120);
/// A clock correction larger than a day is refused: S3's `Date` is not that
/// wrong, so the answer did not come from S3.
pub const MAX_CLOCK_OFFSET_MS: i64 = 24 * 3600 * 1000;
/// `Date` headers have whole seconds and the answer took a while to arrive:
/// offsets below this are noise, not a skewed clock.
const MIN_CLOCK_OFFSET_MS: i64 = 2_000;

/// A bucket's requests: where they go, and what their answers taught (the
/// region in the config, S3's clock as an offset to the local one).
#[derive(Debug, Clone)]
pub struct Connection {
    config: S3Config,
    clock_offset_ms: i64,
}

impl Connection {
    pub fn new(config: S3Config) -> Self {
        Connection {
            config,
            clock_offset_ms: 0,
        }
    }

    /// The bucket, with the region requests are now signed for.
    pub fn config(&self) -> &S3Config {
        &self.config
    }

    /// Added to the local clock for signing.
    pub fn clock_offset_ms(&self) -> i64 {
        self.clock_offset_ms
    }

    /// The time to sign with: the local clock, corrected by what S3 said.
    pub fn now(&self, local_now: Timestamp) -> Timestamp {
        local_now.offset_by_millis(self.clock_offset_ms)
    }

    /// Keeps S3's clock from an answer's `Date` header, where it is readable.
    fn learn_date(&mut self, headers: &[(String, String)], local_now: Timestamp) {
        let Some(server) = headers
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case("date"))
            .and_then(|(_, value)| Timestamp::parse_http_date(value))
        else {
            return;
        };
        let offset = clock_offset_millis(local_now, server);
        self.clock_offset_ms = if (MIN_CLOCK_OFFSET_MS..=MAX_CLOCK_OFFSET_MS).contains(&offset.abs()) {
            offset
        } else {
            0
        };
    }
}

/// What one attempt came to.
#[derive(Debug)]
pub enum Attempt<'a> {
    /// An HTTP answer, any status. `headers`: the readable ones, names in any case.
    Answer {
        status: u16,
        headers: &'a [(String, String)],
        body: &'a [u8],
    },
    /// No answer ([`S3Error::NetworkFailure`], [`S3Error::Unreachable`]) or
    /// not in time ([`S3Error::TimedOut`]).
    Failed(S3Error),
}

/// What the shell does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The answer is a success: hand it over.
    Done,
    /// Sign the request again (the connection holds the fix) and send it now.
    Resign { fix: Fix, error: S3Error },
    /// Send the request again after `delay` (signed again, where it can be);
    /// `retry` counts from 1.
    Wait {
        delay: Duration,
        retry: u32,
        error: S3Error,
    },
    /// Stop with `error`.
    GiveUp { error: S3Error, reason: GiveUp },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fix {
    Region(Region),
    Clock { offset_ms: i64 },
}

/// Why an exchange stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GiveUp {
    /// A failure no retry mends (denied, missing, malformed).
    Final,
    /// Still failing after this many attempts.
    Exhausted { attempts: u32 },
    /// The next attempt would have started past [`DEADLINE`].
    Deadline,
    /// S3 named a region or clock the request cannot be signed for: it is
    /// presigned, was fixed once already, or the clock is too far off.
    CannotFix,
}

impl Step {
    /// A line for a terminal about a retry, `what` naming the request; `None`
    /// for a step that is not one.
    pub fn note(&self, what: &str) -> Option<String> {
        match self {
            Step::Resign {
                fix: Fix::Region(region),
                error,
            } => Some(format!(
                "{what}: {} Retrying in region {}.",
                error.cause(),
                region.as_str()
            )),
            Step::Resign {
                fix: Fix::Clock { offset_ms },
                error,
            } => Some(format!(
                "{what}: {} Signing with S3's clock ({offset_ms:+} ms) and retrying.",
                error.cause()
            )),
            Step::Wait { delay, retry, error } => Some(format!(
                "{what}: {} Retry {retry} in {} ms.",
                error.cause(),
                delay.as_millis()
            )),
            Step::Done | Step::GiveUp { .. } => None,
        }
    }
}

/// The attempts at one request.
#[derive(Debug)]
pub struct Exchange {
    started: Timestamp,
    retries: u32,
    network_retries: u32,
    region_fixed: bool,
    clock_fixed: bool,
}

impl Exchange {
    /// An exchange whose first attempt starts at `local_now`.
    pub fn new(local_now: Timestamp) -> Self {
        Exchange {
            started: local_now,
            retries: 0,
            network_retries: 0,
            region_fixed: false,
            clock_fixed: false,
        }
    }

    /// The step after `attempt`, which ended at `local_now`. `connection`:
    /// the bucket's, for a request that can be signed again (fixes go into
    /// it), `None` for a presigned one. `random`: uniform in `[0, 1)`.
    pub fn after(
        &mut self,
        mut connection: Option<&mut Connection>,
        attempt: Attempt<'_>,
        local_now: Timestamp,
        random: f64,
    ) -> Step {
        let error = match attempt {
            Attempt::Answer { status, headers, body } => {
                if let Some(connection) = connection.as_deref_mut() {
                    connection.learn_date(headers, local_now);
                }
                if (200..300).contains(&status) {
                    return Step::Done;
                }
                S3Error::from_response(status, headers, body)
            }
            Attempt::Failed(error) => error,
        };
        let region = error.retry_region().and_then(|r| Region::new(r).ok());
        let offset = error.clock_offset_millis(local_now);
        if let Some(connection) = connection {
            if let Some(region) = region
                .clone()
                .filter(|r| !self.region_fixed && *r != connection.config.region)
            {
                self.region_fixed = true;
                connection.config.region = region.clone();
                return Step::Resign {
                    fix: Fix::Region(region),
                    error,
                };
            }
            if let Some(offset_ms) = offset.filter(|o| !self.clock_fixed && o.abs() <= MAX_CLOCK_OFFSET_MS) {
                self.clock_fixed = true;
                connection.clock_offset_ms = offset_ms;
                return Step::Resign {
                    fix: Fix::Clock { offset_ms },
                    error,
                };
            }
        }
        let network = matches!(error, S3Error::NetworkFailure { .. } | S3Error::Unreachable { .. });
        if !error.is_retryable() && !network {
            let reason = match region.is_some() || offset.is_some() {
                true => GiveUp::CannotFix,
                false => GiveUp::Final,
            };
            return Step::GiveUp { error, reason };
        }
        self.retries += 1;
        self.network_retries += u32::from(network);
        let delay = match self.network_retries > NETWORK_RETRIES {
            true => None,
            false => RetryPolicy::default().delay(self.retries, random),
        };
        let Some(delay) = delay else {
            return Step::GiveUp {
                error,
                reason: GiveUp::Exhausted { attempts: self.retries },
            };
        };
        let next_start = local_now.unix_millis() + delay.as_millis() as i64;
        if next_start - self.started.unix_millis() > DEADLINE.as_millis() as i64 {
            return Step::GiveUp {
                error,
                reason: GiveUp::Deadline,
            };
        }
        Step::Wait {
            delay,
            retry: self.retries,
            error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::s3::{BucketName, Endpoint};

    const T0: i64 = 1_796_000_000_000;

    fn at(ms: i64) -> Timestamp {
        Timestamp::from_unix_millis(T0 + ms)
    }

    fn connection() -> Connection {
        Connection::new(S3Config {
            endpoint: Endpoint::Aws,
            bucket: BucketName::new("traces").unwrap(),
            region: Region::new("us-east-1").unwrap(),
            credentials: None,
        })
    }

    fn answer(status: u16, code: &str) -> (u16, Vec<u8>) {
        let body = match code {
            "" => Vec::new(),
            code => format!("<Error><Code>{code}</Code><Message>m</Message></Error>").into_bytes(),
        };
        (status, body)
    }

    /// Feeds `(status, code)` answers until the exchange stops; the steps taken.
    fn run(connection: Option<&mut Connection>, answers: &[(u16, &str)]) -> Vec<Step> {
        let mut exchange = Exchange::new(at(0));
        let mut connection = connection;
        let mut steps = Vec::new();
        for (i, (status, code)) in answers.iter().enumerate() {
            let (status, body) = answer(*status, code);
            let step = exchange.after(
                connection.as_deref_mut(),
                Attempt::Answer {
                    status,
                    headers: &[],
                    body: &body,
                },
                at(i as i64 * 1000),
                0.5,
            );
            let stop = matches!(step, Step::Done | Step::GiveUp { .. });
            steps.push(step);
            if stop {
                break;
            }
        }
        steps
    }

    fn kinds(steps: &[Step]) -> Vec<&'static str> {
        steps
            .iter()
            .map(|s| match s {
                Step::Done => "done",
                Step::Resign { .. } => "resign",
                Step::Wait { .. } => "wait",
                Step::GiveUp { .. } => "give up",
            })
            .collect()
    }

    #[test]
    fn throttling_and_server_errors_back_off_then_give_up() {
        let steps = run(None, &[(503, "SlowDown"); 8]);
        assert_eq!(kinds(&steps), ["wait", "wait", "wait", "wait", "give up"]);
        let delays: Vec<u128> = steps
            .iter()
            .filter_map(|s| match s {
                Step::Wait { delay, .. } => Some(delay.as_millis()),
                _ => None,
            })
            .collect();
        assert_eq!(delays, [100, 200, 400, 800], "half of each jittered bound");
        assert!(matches!(
            steps[4],
            Step::GiveUp {
                reason: GiveUp::Exhausted { attempts: 5 },
                ..
            }
        ));
        assert_eq!(kinds(&run(None, &[(500, ""), (200, "")])), ["wait", "done"]);
    }

    #[test]
    fn what_no_retry_mends_stops_at_once() {
        for (status, code) in [
            (403, "AccessDenied"),
            (404, "NoSuchKey"),
            (403, "SignatureDoesNotMatch"),
        ] {
            let steps = run(Some(&mut connection()), &[(status, code)]);
            assert!(
                matches!(
                    steps[..],
                    [Step::GiveUp {
                        reason: GiveUp::Final,
                        ..
                    }]
                ),
                "{code}: {steps:?}"
            );
        }
    }

    #[test]
    fn network_failures_are_retried_twice() {
        let mut exchange = Exchange::new(at(0));
        let failed = || Attempt::Failed(S3Error::network_failure("https://page.example"));
        let steps: Vec<Step> = (0..3).map(|i| exchange.after(None, failed(), at(i), 0.5)).collect();
        assert_eq!(kinds(&steps), ["wait", "wait", "give up"]);
        // Timeouts count as server errors: the whole schedule.
        let mut exchange = Exchange::new(at(0));
        let timed_out = || Attempt::Failed(S3Error::timed_out(Duration::from_secs(30)));
        let waits = (0..5)
            .take_while(|i| {
                matches!(
                    exchange.after(None, timed_out(), at(i * 30_000), 0.5),
                    Step::Wait { .. }
                )
            })
            .count();
        assert_eq!(waits, 4);
    }

    #[test]
    fn no_attempt_starts_after_the_deadline() {
        let mut exchange = Exchange::new(at(0));
        let timed_out = || Attempt::Failed(S3Error::timed_out(Duration::from_secs(30)));
        assert!(matches!(
            exchange.after(None, timed_out(), at(60_000), 0.5),
            Step::Wait { .. }
        ));
        assert_eq!(
            exchange.after(None, timed_out(), at(119_900), 0.5),
            Step::GiveUp {
                error: S3Error::timed_out(Duration::from_secs(30)),
                reason: GiveUp::Deadline
            }
        );
    }

    fn wrong_region() -> Vec<u8> {
        b"<Error><Code>AuthorizationHeaderMalformed</Code><Message>the region 'us-east-1' is wrong; expecting \
          'eu-west-3'</Message></Error>"
            .to_vec()
    }

    #[test]
    fn a_wrong_region_is_fixed_once_where_the_request_can_be_signed_again() {
        let mut c = connection();
        let mut exchange = Exchange::new(at(0));
        let body = wrong_region();
        let refused = || Attempt::Answer {
            status: 400,
            headers: &[],
            body: &body,
        };
        let step = exchange.after(Some(&mut c), refused(), at(10), 0.5);
        assert!(matches!(&step, Step::Resign { fix: Fix::Region(r), .. } if r.as_str() == "eu-west-3"));
        assert_eq!(c.config().region.as_str(), "eu-west-3");
        assert!(step.note("listing").unwrap().ends_with("Retrying in region eu-west-3."));
        // S3 refusing the fixed region too: no loop.
        assert!(matches!(
            exchange.after(Some(&mut c), refused(), at(20), 0.5),
            Step::GiveUp {
                reason: GiveUp::CannotFix,
                ..
            }
        ));
        // Presigned: nothing to sign again.
        assert!(matches!(
            Exchange::new(at(0)).after(None, refused(), at(10), 0.5),
            Step::GiveUp {
                reason: GiveUp::CannotFix,
                ..
            }
        ));
    }

    fn skewed(server: Timestamp) -> Vec<u8> {
        format!(
            "<Error><Code>RequestTimeTooSkewed</Code><Message>m</Message><ServerTime>{}</ServerTime></Error>",
            server.to_rfc3339()
        )
        .into_bytes()
    }

    #[test]
    fn a_skewed_clock_is_fixed_once_and_within_a_day() {
        let mut c = connection();
        let body = skewed(at(-2 * 3600 * 1000));
        let refused = || Attempt::Answer {
            status: 403,
            headers: &[],
            body: &body,
        };
        let mut exchange = Exchange::new(at(0));
        let step = exchange.after(Some(&mut c), refused(), at(0), 0.5);
        assert!(
            matches!(
                step,
                Step::Resign {
                    fix: Fix::Clock { offset_ms: -7_200_000 },
                    ..
                }
            ),
            "{step:?}"
        );
        assert_eq!(c.now(at(0)), at(-7_200_000));
        assert!(matches!(
            exchange.after(Some(&mut c), refused(), at(10), 0.5),
            Step::GiveUp {
                reason: GiveUp::CannotFix,
                ..
            }
        ));
        // An answer claiming a time years away is not believed.
        let mut c = connection();
        let body = skewed(Timestamp::from_unix_secs(0));
        let refused = Attempt::Answer {
            status: 403,
            headers: &[],
            body: &body,
        };
        assert!(matches!(
            Exchange::new(at(0)).after(Some(&mut c), refused, at(0), 0.5),
            Step::GiveUp {
                reason: GiveUp::CannotFix,
                ..
            }
        ));
        assert_eq!(c.clock_offset_ms(), 0);
    }

    #[test]
    fn every_answer_teaches_the_clock_when_it_is_off() {
        let mut c = connection();
        let date = |text: &str| vec![("Date".to_owned(), text.to_owned())];
        let ok = |headers: &[(String, String)], c: &mut Connection, now| {
            let attempt = Attempt::Answer {
                status: 200,
                headers,
                body: b"",
            };
            Exchange::new(now).after(Some(c), attempt, now, 0.5)
        };
        // at(0) is Mon, 30 Nov 2026 00:53:20 GMT.
        assert_eq!(ok(&date("Mon, 30 Nov 2026 00:54:20 GMT"), &mut c, at(0)), Step::Done);
        assert_eq!(c.clock_offset_ms(), 60_000);
        ok(&date("Mon, 30 Nov 2026 00:53:21 GMT"), &mut c, at(0));
        assert_eq!(c.clock_offset_ms(), 0, "a second is noise");
        ok(&date("Thu, 01 Jan 1970 00:00:00 GMT"), &mut c, at(0));
        assert_eq!(c.clock_offset_ms(), 0, "decades away: not S3's clock");
    }
}
