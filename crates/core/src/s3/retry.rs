//! Retry schedule for throttling and server errors: capped exponential backoff with
//! "full jitter" (a uniform delay between zero and the exponential bound). Pure: the
//! caller supplies the random number and sleeps.

use std::time::Duration;

/// How often and how long to retry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt; attempt numbers `1..=max_retries` get a delay.
    pub max_retries: u32,
    pub base: Duration,
    pub cap: Duration,
}

impl Default for RetryPolicy {
    /// 4 retries, bounds 200 ms, 400 ms, 800 ms, 1.6 s (cap 20 s): the same order as
    /// the AWS SDKs' standard mode.
    fn default() -> Self {
        Self {
            max_retries: 4,
            base: Duration::from_millis(200),
            cap: Duration::from_secs(20),
        }
    }
}

impl RetryPolicy {
    /// The delay before retry number `retry` (1 for the first retry), or `None` when no
    /// retry is left. `random` is uniform in `[0, 1)`; values outside are clamped.
    pub fn delay(&self, retry: u32, random: f64) -> Option<Duration> {
        if retry == 0 || retry > self.max_retries {
            return None;
        }
        let bound = self
            .base
            .saturating_mul(1u32.checked_shl(retry - 1).unwrap_or(u32::MAX))
            .min(self.cap);
        let random = if random.is_finite() {
            random.clamp(0.0, 1.0)
        } else {
            0.0
        };
        Some(bound.mul_f64(random))
    }
}

/// How long one request may take before it is given up as timed out
/// (`S3Error::TimedOut`, retried like a server error): connecting, then
/// waiting for S3's answer (status and headers), then for the whole body.
/// S3 answers in milliseconds; a body may be large on a slow link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    pub connect: Duration,
    pub answer: Duration,
    pub body: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            connect: Duration::from_secs(10),
            answer: Duration::from_secs(30),
            body: Duration::from_secs(300),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_up_to_the_cap_and_stops() {
        let p = RetryPolicy::default();
        let bounds: Vec<u128> = (1..=4).map(|r| p.delay(r, 0.999).unwrap().as_millis()).collect();
        assert_eq!(bounds, [199, 399, 799, 1598]);
        assert_eq!(p.delay(0, 0.5), None);
        assert_eq!(p.delay(5, 0.5), None);
        assert_eq!(p.delay(1, 0.5), Some(Duration::from_millis(100)));
        assert_eq!(p.delay(2, 0.0), Some(Duration::ZERO));
    }

    #[test]
    fn caps_long_schedules_and_odd_randoms() {
        let p = RetryPolicy {
            max_retries: 40,
            ..RetryPolicy::default()
        };
        assert_eq!(p.delay(40, 0.999_999), Some(Duration::from_secs(20).mul_f64(0.999_999)));
        assert_eq!(p.delay(3, f64::NAN), Some(Duration::ZERO));
        assert_eq!(p.delay(3, 7.0), Some(Duration::from_millis(800)));
    }
}
