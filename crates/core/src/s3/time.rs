//! Points in time as plain values: the core never reads a clock.
//!
//! The shell passes "now" in (`js_sys::Date::now()` in the page, `SystemTime` in the
//! CLI), corrected by the clock offset learnt from a `RequestTimeTooSkewed` answer.
//! This module formats the SigV4 dates and parses the date forms S3 and STS send:
//! ISO 8601 (`2026-12-01T10:00:00.000Z`), SigV4's basic form (`20261201T100000Z`)
//! and the HTTP `Date` header (`Tue, 01 Dec 2026 10:00:00 GMT`).

use crate::civil::{civil_from_days, days_from_civil, days_in_month};
use std::fmt;

/// A UTC instant with millisecond precision, as milliseconds since the Unix epoch.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    unix_millis: i64,
}

/// The instant a request is signed at. Signatures use whole seconds.
pub type SigningTime = Timestamp;

const MILLIS_PER_DAY: i64 = 86_400_000;

impl Timestamp {
    pub const fn from_unix_millis(unix_millis: i64) -> Self {
        Self { unix_millis }
    }

    pub const fn from_unix_secs(unix_secs: i64) -> Self {
        Self {
            unix_millis: unix_secs * 1000,
        }
    }

    pub const fn unix_millis(self) -> i64 {
        self.unix_millis
    }

    /// Whole seconds, rounded down.
    pub const fn unix_secs(self) -> i64 {
        self.unix_millis.div_euclid(1000)
    }

    /// This instant moved by `millis` (negative moves back), e.g. to apply a clock offset.
    pub const fn offset_by_millis(self, millis: i64) -> Self {
        Self {
            unix_millis: self.unix_millis.saturating_add(millis),
        }
    }

    /// SigV4's `X-Amz-Date` form: `20150830T123600Z`.
    pub fn amz_date(self) -> String {
        let (y, mo, d, h, mi, s) = self.civil();
        format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z")
    }

    /// SigV4's credential-scope date: `20150830`.
    pub fn date_stamp(self) -> String {
        let (y, mo, d, ..) = self.civil();
        format!("{y:04}{mo:02}{d:02}")
    }

    /// ISO 8601 / RFC 3339 in UTC, whole seconds: `2015-08-30T12:36:00Z`.
    pub fn to_rfc3339(self) -> String {
        let (y, mo, d, h, mi, s) = self.civil();
        format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
    }

    /// Parses RFC 3339 as S3 and STS send it (`2009-10-12T17:50:30.000Z`), also with a
    /// numeric offset (`+02:00`) or without fractional seconds.
    pub fn parse_rfc3339(text: &str) -> Option<Self> {
        let t = text.trim().as_bytes();
        if t.len() < 19 || t[4] != b'-' || t[7] != b'-' || !matches!(t[10], b'T' | b't' | b' ') {
            return None;
        }
        if t[13] != b':' || t[16] != b':' {
            return None;
        }
        let year = digits(&t[0..4])?;
        let month = digits(&t[5..7])?;
        let day = digits(&t[8..10])?;
        let hour = digits(&t[11..13])?;
        let minute = digits(&t[14..16])?;
        let second = digits(&t[17..19])?;
        let mut rest = &t[19..];
        let mut millis = 0;
        if let Some(frac) = rest.strip_prefix(b".") {
            let n = frac.iter().take_while(|b| b.is_ascii_digit()).count();
            if n == 0 {
                return None;
            }
            let mut scale = 100;
            for &b in &frac[..n.min(3)] {
                millis += i64::from(b - b'0') * scale;
                scale /= 10;
            }
            rest = &frac[n..];
        }
        let offset_secs = match rest {
            b"Z" | b"z" => 0,
            [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
                let secs = digits(&[*h1, *h2])? * 3600 + digits(&[*m1, *m2])? * 60;
                if *sign == b'+' { secs } else { -secs }
            }
            _ => return None,
        };
        let secs = civil_to_unix(year, month, day, hour, minute, second)? - offset_secs;
        Some(Self::from_unix_millis(secs * 1000 + millis))
    }

    /// Parses SigV4's basic form `20150830T123600Z`.
    pub fn parse_amz_date(text: &str) -> Option<Self> {
        let t = text.trim().as_bytes();
        if t.len() != 16 || t[8] != b'T' || t[15] != b'Z' {
            return None;
        }
        let secs = civil_to_unix(
            digits(&t[0..4])?,
            digits(&t[4..6])?,
            digits(&t[6..8])?,
            digits(&t[9..11])?,
            digits(&t[11..13])?,
            digits(&t[13..15])?,
        )?;
        Some(Self::from_unix_secs(secs))
    }

    /// Parses an HTTP `Date` header in the IMF-fixdate form every server sends today:
    /// `Sun, 06 Nov 1994 08:49:37 GMT` (the weekday is not checked).
    pub fn parse_http_date(text: &str) -> Option<Self> {
        let rest = text.trim();
        let rest = rest.split_once(", ").map_or(rest, |(_, r)| r);
        let mut parts = rest.split_ascii_whitespace();
        let day = digits(parts.next()?.as_bytes())?;
        let month_name = parts.next()?;
        let month = MONTHS.iter().position(|m| m.eq_ignore_ascii_case(month_name))? as i64 + 1;
        let year = digits(parts.next()?.as_bytes())?;
        let mut hms = parts.next()?.split(':');
        let hour = digits(hms.next()?.as_bytes())?;
        let minute = digits(hms.next()?.as_bytes())?;
        let second = digits(hms.next()?.as_bytes())?;
        if hms.next().is_some() || !matches!(parts.next(), Some("GMT" | "UTC") | None) {
            return None;
        }
        Some(Self::from_unix_secs(civil_to_unix(
            year, month, day, hour, minute, second,
        )?))
    }

    /// (year, month, day, hour, minute, second) in UTC.
    fn civil(self) -> (i64, i64, i64, i64, i64, i64) {
        let days = self.unix_millis.div_euclid(MILLIS_PER_DAY);
        let secs_of_day = self.unix_millis.rem_euclid(MILLIS_PER_DAY) / 1000;
        let (y, m, d) = civil_from_days(days);
        (y, m, d, secs_of_day / 3600, secs_of_day / 60 % 60, secs_of_day % 60)
    }
}

impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Timestamp({}", self.to_rfc3339())?;
        match self.unix_millis.rem_euclid(1000) {
            0 => f.write_str(")"),
            ms => write!(f, " +{ms}ms)"),
        }
    }
}

/// The offset to add to the local clock so that it agrees with the server:
/// `server - local`, in milliseconds. Feed the result to [`Timestamp::offset_by_millis`]
/// for every later signing time.
pub fn clock_offset_millis(local_now: Timestamp, server_now: Timestamp) -> i64 {
    server_now.unix_millis - local_now.unix_millis
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

fn digits(bytes: &[u8]) -> Option<i64> {
    if bytes.is_empty() || bytes.len() > 9 || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(bytes.iter().fold(0, |n, b| n * 10 + i64::from(b - b'0')))
}

fn civil_to_unix(year: i64, month: i64, day: i64, hour: i64, minute: i64, second: i64) -> Option<i64> {
    let valid = (1..=12).contains(&month)
        && day >= 1
        && day <= days_in_month(year, month)
        && hour < 24
        && minute < 60
        && second <= 60; // a leap second is read as the next second's start
    valid.then(|| days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_sigv4_dates() {
        let t = Timestamp::parse_rfc3339("2015-08-30T12:36:00Z").unwrap();
        assert_eq!(t.unix_secs(), 1_440_938_160);
        assert_eq!(t.amz_date(), "20150830T123600Z");
        assert_eq!(t.date_stamp(), "20150830");
        assert_eq!(Timestamp::parse_amz_date("20150830T123600Z"), Some(t));
        assert_eq!(t.to_rfc3339(), "2015-08-30T12:36:00Z");
    }

    #[test]
    fn parses_the_forms_s3_and_sts_send() {
        let t = Timestamp::parse_rfc3339("2009-10-12T17:50:30.123Z").unwrap();
        assert_eq!(t.unix_millis(), 1_255_369_830_123);
        assert_eq!(
            Timestamp::parse_rfc3339("2009-10-12T19:50:30+02:00")
                .unwrap()
                .unix_secs(),
            t.unix_secs()
        );
        assert_eq!(
            Timestamp::parse_http_date("Mon, 12 Oct 2009 17:50:30 GMT")
                .unwrap()
                .unix_secs(),
            t.unix_secs()
        );
        assert_eq!(
            Timestamp::parse_rfc3339("2024-02-29T00:00:00Z").unwrap().amz_date(),
            "20240229T000000Z"
        );
        assert!(Timestamp::parse_rfc3339("2023-02-29T00:00:00Z").is_none());
        assert!(Timestamp::parse_rfc3339("2023-02-28").is_none());
        assert!(Timestamp::parse_http_date("yesterday").is_none());
    }

    #[test]
    fn round_trips_across_eras() {
        for secs in [-86_400 * 366, 0, 951_782_400, 4_102_444_800] {
            let t = Timestamp::from_unix_secs(secs);
            assert_eq!(Timestamp::parse_rfc3339(&t.to_rfc3339()), Some(t), "{secs}");
        }
    }

    #[test]
    fn clock_offset_is_server_minus_local() {
        let local = Timestamp::from_unix_secs(1_000);
        let server = Timestamp::from_unix_secs(1_900);
        let offset = clock_offset_millis(local, server);
        assert_eq!(offset, 900_000);
        assert_eq!(local.offset_by_millis(offset), server);
    }
}
