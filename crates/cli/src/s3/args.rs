//! Arguments of `d9lens s3 ls` and `d9lens s3 analyze`.

use d9lens_core::analysis::Options;
use d9lens_core::bucket::listing_plan::DEFAULT_MAX_OBJECTS;
pub use d9lens_core::bucket::scope::Period;
use d9lens_core::fleet::batch::{self, DEFAULT_BATCH_MB};
use d9lens_core::s3::Timestamp;

/// `s3://BUCKET[/PREFIX]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub bucket: String,
    /// Listing prefix as given (may end mid-component); empty for the whole bucket.
    pub prefix: String,
}

impl Location {
    pub fn parse(url: &str) -> Result<Self, String> {
        let rest = url
            .strip_prefix("s3://")
            .ok_or_else(|| format!("{url:?} is not an s3://BUCKET[/PREFIX] URL"))?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(format!("{url:?} names no bucket"));
        }
        Ok(Self {
            bucket: bucket.to_owned(),
            prefix: prefix.to_owned(),
        })
    }

    pub fn url(&self) -> String {
        format!("s3://{}/{}", self.bucket, self.prefix)
    }
}

/// Options both subcommands take.
#[derive(Debug, Clone)]
pub struct Common {
    pub location: Location,
    pub endpoint: Option<String>,
    pub region: Option<String>,
    /// `--profile`: the AWS CLI profile to take credentials and region from.
    pub profile: Option<String>,
    pub max_keys: Option<u16>,
    /// Objects listed at most (the listing says what it left out).
    pub max_objects: u64,
    pub json: bool,
    /// No progress line, no notes.
    pub quiet: bool,
    /// The time the listing covers: `--from`/`--to`, `--last`, or all of it.
    pub period: Period,
}

#[derive(Debug, Clone)]
pub struct LsArgs {
    pub common: Common,
}

#[derive(Debug, Clone)]
pub struct AnalyzeArgs {
    pub common: Common,
    pub service: Option<String>,
    pub host: Option<String>,
    pub boot: Option<String>,
    pub sample: Option<usize>,
    /// One segment per host (the page's fleet overview).
    pub fleet: bool,
    /// `--jobs`: downloads (or Lambda invocations) at once.
    pub jobs: Option<usize>,
    pub opts: Options,
    /// Analyze on AWS Lambda instead of here.
    pub lambda: Option<LambdaArgs>,
}

/// `--lambda FUNCTION [--lambda-endpoint URL] [--lambda-results PREFIX] [--batch-mb N]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LambdaArgs {
    /// The function's name or ARN.
    pub function: String,
    /// A Lambda-compatible endpoint (an emulator): `--lambda-endpoint`, else
    /// `AWS_ENDPOINT_URL_LAMBDA`, else `AWS_ENDPOINT_URL`; else AWS Lambda.
    pub endpoint: Option<String>,
    /// Compressed bytes of segments per invocation.
    pub batch_bytes: u64,
    /// Where in the bucket the function stores results too large to
    /// answer (`fleet::stored`), normalized (`d9lens-results/`).
    pub results_prefix: Option<String>,
}

/// Downloads under way at once unless `--jobs` says otherwise. The
/// analysis runs on one thread per core beside them.
pub const DEFAULT_DOWNLOADS: usize = d9lens_core::analysis::fetched::DOWNLOADS_AT_ONCE;
/// Lambda invocations at once unless `--jobs` says otherwise.
pub const DEFAULT_INVOCATIONS: usize = 4;

/// The value after `flag`.
pub fn value<'a>(it: &mut impl Iterator<Item = &'a String>, flag: &str) -> Result<&'a str, String> {
    it.next()
        .map(String::as_str)
        .ok_or_else(|| format!("{flag} needs a value"))
}

pub fn number<T: std::str::FromStr>(text: &str, flag: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("{flag} needs a whole number, not {text:?}"))
}

/// `2026-11-30T14:05:38Z` (any RFC 3339), `2026-11-30T14:05[:38]` (UTC), `2026-11-30`
/// (midnight UTC) or Unix seconds.
pub fn parse_time(text: &str, flag: &str) -> Result<u64, String> {
    let t = text.trim();
    if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        return number(t, flag);
    }
    let has_zone = t.ends_with(['Z', 'z']) || t.get(19..).is_some_and(|rest| rest.contains(['+', '-']));
    let full = match t.len() {
        10 => format!("{t}T00:00:00Z"),
        16 => format!("{t}:00Z"),
        _ if has_zone => t.to_owned(),
        _ => format!("{t}Z"),
    };
    let ts = Timestamp::parse_rfc3339(&full)
        .ok_or_else(|| format!("{flag} needs a time like 2026-11-30T14:05:00Z, not {text:?}"))?;
    u64::try_from(ts.unix_secs()).map_err(|_| format!("{flag}: {text:?} is before 1970"))
}

/// `90s`, `15m`, `2h` or `7d`.
pub fn parse_duration(text: &str, flag: &str) -> Result<u64, String> {
    let t = text.trim();
    let (at, unit) = match t.char_indices().last() {
        Some((at, 's')) => (at, 1),
        Some((at, 'm')) => (at, 60),
        Some((at, 'h')) => (at, 3600),
        Some((at, 'd')) => (at, 86_400),
        _ => (0, 0),
    };
    let n: Option<u64> = t[..at].parse().ok();
    match n.and_then(|n| n.checked_mul(unit)) {
        Some(secs) if secs > 0 => Ok(secs),
        _ => Err(format!("{flag} needs a duration like 15m, 2h or 7d, not {text:?}")),
    }
}

/// Parses the flags after `ls` / `analyze`; `analyze` enables the selection flags.
fn parse(args: &[String], analyze: bool) -> Result<(Common, AnalyzeArgs), String> {
    let mut location = None;
    let mut common = Common {
        location: Location {
            bucket: String::new(),
            prefix: String::new(),
        },
        endpoint: None,
        region: None,
        profile: None,
        max_keys: None,
        max_objects: DEFAULT_MAX_OBJECTS,
        json: false,
        quiet: false,
        period: Period::All,
    };
    let mut a = AnalyzeArgs {
        common: common.clone(),
        service: None,
        host: None,
        boot: None,
        sample: None,
        fleet: false,
        jobs: None,
        opts: Options::default(),
        lambda: None,
    };
    let (mut function, mut lambda_endpoint, mut batch_mb) = (None, None, DEFAULT_BATCH_MB);
    let mut results_prefix = None;
    let (mut from, mut to, mut last) = (None, None, None);
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let flag = arg.as_str();
        match flag {
            "--endpoint" => common.endpoint = Some(value(&mut it, flag)?.to_owned()),
            "--region" => common.region = Some(value(&mut it, flag)?.to_owned()),
            "--profile" => common.profile = Some(value(&mut it, flag)?.to_owned()),
            "--max-keys" => {
                let n: u16 = number(value(&mut it, flag)?, flag)?;
                if !(1..=1000).contains(&n) {
                    return Err("--max-keys must be 1 to 1000".into());
                }
                common.max_keys = Some(n);
            }
            "--max-objects" => {
                common.max_objects = number(value(&mut it, flag)?, flag)?;
                if common.max_objects == 0 {
                    return Err("--max-objects must be >= 1".into());
                }
            }
            "--json" => common.json = true,
            "--quiet" | "-q" => common.quiet = true,
            "--service" if analyze => a.service = Some(value(&mut it, flag)?.to_owned()),
            "--host" if analyze => a.host = Some(value(&mut it, flag)?.to_owned()),
            "--boot" if analyze => a.boot = Some(value(&mut it, flag)?.to_owned()),
            "--from" => from = Some(parse_time(value(&mut it, flag)?, flag)?),
            "--to" => to = Some(parse_time(value(&mut it, flag)?, flag)?),
            "--last" => last = Some(parse_duration(value(&mut it, flag)?, flag)?),
            "--sample" if analyze => {
                let n: usize = number(value(&mut it, flag)?, flag)?;
                if n == 0 {
                    return Err("--sample must be >= 1".into());
                }
                a.sample = Some(n);
            }
            "--fleet" if analyze => a.fleet = true,
            "--jobs" if analyze => {
                a.jobs = Some(number::<usize>(value(&mut it, flag)?, flag)?.clamp(1, 32));
            }
            "--lambda" if analyze => function = Some(value(&mut it, flag)?.to_owned()),
            "--lambda-endpoint" if analyze => lambda_endpoint = Some(value(&mut it, flag)?.to_owned()),
            "--lambda-results" if analyze => {
                let prefix = batch::results_prefix(value(&mut it, flag)?).map_err(|e| format!("{flag}: {e}"))?;
                results_prefix = Some(prefix.as_str().to_owned());
            }
            "--batch-mb" if analyze => {
                batch_mb = number(value(&mut it, flag)?, flag)?;
                if batch_mb == 0 {
                    return Err("--batch-mb must be >= 1".into());
                }
            }
            "--reference-compatible" if analyze => a.opts.reference_compatible = true,
            "--max-inflated-bytes" if analyze => a.opts.max_inflated_bytes = number(value(&mut it, flag)?, flag)?,
            _ if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            url if location.is_none() => location = Some(Location::parse(url)?),
            extra => return Err(format!("unexpected argument {extra:?}")),
        }
    }
    common.location = location.ok_or("missing s3://BUCKET[/PREFIX]")?;
    common.period = match (from, to, last) {
        (Some(from), Some(to), _) if from >= to => return Err("--from must be before --to".into()),
        (None, None, Some(secs)) => Period::Last { secs },
        (_, _, Some(_)) => return Err("--last counts back from the newest data: not with --from or --to".into()),
        (None, None, None) => Period::All,
        (from, to, None) => Period::Range { from, to },
    };
    if a.fleet && (a.host.is_some() || a.boot.is_some() || a.sample.is_some()) {
        return Err("--fleet picks one segment per host: not with --host, --boot or --sample".into());
    }
    a.lambda = match function {
        Some(function) => Some(LambdaArgs {
            function,
            endpoint: d9lens_http::lambda_endpoint(lambda_endpoint.as_deref()),
            batch_bytes: batch_mb.saturating_mul(1 << 20),
            results_prefix,
        }),
        None if lambda_endpoint.is_some() || results_prefix.is_some() => {
            return Err("--lambda-endpoint and --lambda-results need --lambda FUNCTION".into());
        }
        None => None,
    };
    a.common = common.clone();
    Ok((common, a))
}

impl LsArgs {
    pub fn parse(args: &[String]) -> Result<Self, String> {
        parse(args, false).map(|(common, _)| Self { common })
    }
}

/// `d9lens s3 ls` without `s3://…`: the buckets the credentials may list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketsArgs {
    pub endpoint: Option<String>,
    pub region: Option<String>,
    pub profile: Option<String>,
    pub json: bool,
}

impl BucketsArgs {
    /// `None` when `args` name a bucket (`s3://…`): a listing of it, not of buckets.
    pub fn parse(args: &[String]) -> Option<Result<Self, String>> {
        if args.iter().any(|a| a.starts_with("s3://")) {
            return None;
        }
        let mut b = BucketsArgs {
            endpoint: None,
            region: None,
            profile: None,
            json: false,
        };
        let mut it = args.iter();
        let parsed = (|| {
            while let Some(arg) = it.next() {
                let flag = arg.as_str();
                match flag {
                    "--endpoint" => b.endpoint = Some(value(&mut it, flag)?.to_owned()),
                    "--region" => b.region = Some(value(&mut it, flag)?.to_owned()),
                    "--profile" => b.profile = Some(value(&mut it, flag)?.to_owned()),
                    "--json" => b.json = true,
                    "--quiet" | "-q" => {}
                    _ if flag.starts_with("--") => {
                        return Err(format!(
                            "unknown option {flag} (for the buckets; a bucket is s3://BUCKET)"
                        ));
                    }
                    other => return Err(format!("{other:?} is not an s3://BUCKET[/PREFIX] URL")),
                }
            }
            Ok(b)
        })();
        Some(parsed)
    }
}

impl AnalyzeArgs {
    pub fn parse(args: &[String]) -> Result<Self, String> {
        parse(args, true).map(|(_, a)| a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn ls_without_a_bucket_lists_buckets() {
        let b = BucketsArgs::parse(&strings(&["--endpoint", "http://127.0.0.1:9000", "--json"]))
            .unwrap()
            .unwrap();
        assert_eq!(b.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
        assert!(b.json);
        assert!(BucketsArgs::parse(&strings(&["s3://b", "--json"])).is_none());
        assert!(BucketsArgs::parse(&strings(&["b"])).unwrap().is_err());
        assert!(BucketsArgs::parse(&strings(&["--last", "1h"])).unwrap().is_err());
    }

    #[test]
    fn locations() {
        assert_eq!(
            Location::parse("s3://b").unwrap(),
            Location {
                bucket: "b".into(),
                prefix: "".into()
            }
        );
        assert_eq!(Location::parse("s3://b/p/q").unwrap().prefix, "p/q");
        assert!(Location::parse("b/p").is_err());
        assert!(Location::parse("s3:///p").is_err());
    }

    #[test]
    fn times() {
        assert_eq!(parse_time("2026-11-30T14:05:38Z", "--from"), Ok(1_796_047_538));
        assert_eq!(parse_time("2026-11-30T14:05:38", "--from"), Ok(1_796_047_538));
        assert_eq!(parse_time("2026-11-30T14:05", "--from"), Ok(1_796_047_500));
        assert_eq!(parse_time("2026-11-30T15:05:38+01:00", "--from"), Ok(1_796_047_538));
        assert_eq!(parse_time("2026-11-30", "--from"), Ok(1_795_996_800));
        assert_eq!(parse_time("1796047538", "--from"), Ok(1_796_047_538));
        assert!(parse_time("yesterday", "--from").is_err());
    }

    #[test]
    fn durations_and_periods() {
        assert_eq!(parse_duration("90s", "--last"), Ok(90));
        assert_eq!(parse_duration("15m", "--last"), Ok(900));
        assert_eq!(parse_duration("2h", "--last"), Ok(7200));
        assert_eq!(parse_duration("7d", "--last"), Ok(604_800));
        for bad in ["", "h", "0h", "2", "2w", "2é", "-1h", "99999999999999999d"] {
            assert!(parse_duration(bad, "--last").is_err(), "{bad:?}");
        }
        let period = |args: &[&str]| LsArgs::parse(&strings(args)).map(|a| a.common.period);
        assert_eq!(period(&["s3://b"]), Ok(Period::All));
        assert_eq!(period(&["s3://b", "--last", "1h"]), Ok(Period::Last { secs: 3600 }));
        assert_eq!(
            period(&["s3://b", "--from", "1796047500"]),
            Ok(Period::Range {
                from: Some(1_796_047_500),
                to: None
            })
        );
        assert!(period(&["s3://b", "--last", "1h", "--to", "1796047500"]).is_err());
        assert!(period(&["s3://b", "--from", "2", "--to", "1"]).is_err());
    }

    #[test]
    fn analyze_flags() {
        let a = AnalyzeArgs::parse(&strings(&[
            "s3://b/x",
            "--host",
            "h",
            "--from",
            "2026-11-30T14:05:00Z",
            "--to",
            "2026-11-30T14:07:00Z",
            "--sample",
            "2",
            "--endpoint",
            "http://127.0.0.1:9001",
            "--json",
        ]))
        .unwrap();
        assert_eq!(a.host.as_deref(), Some("h"));
        assert_eq!(a.sample, Some(2));
        assert!(a.common.json);
        assert_eq!(a.common.location.prefix, "x");
        assert!(
            AnalyzeArgs::parse(&strings(&[
                "s3://b",
                "--from",
                "2026-11-30T15:00Z",
                "--to",
                "2026-11-30T14:00Z"
            ]))
            .is_err()
        );
        assert!(LsArgs::parse(&strings(&["s3://b", "--host", "h"])).is_err());
        assert!(LsArgs::parse(&strings(&["s3://b", "--max-keys", "0"])).is_err());
        assert!(LsArgs::parse(&strings(&[])).is_err());
    }

    #[test]
    fn lambda_flags() {
        let a = AnalyzeArgs::parse(&strings(&[
            "s3://b",
            "--lambda",
            "f",
            "--lambda-results",
            "d9lens-results",
        ]))
        .unwrap();
        assert_eq!(
            a.lambda.and_then(|l| l.results_prefix).as_deref(),
            Some("d9lens-results/")
        );
        for bad in [
            &["s3://b", "--lambda-results", "r"][..],
            &["s3://b", "--lambda", "f", "--lambda-results", "../r"],
            &["s3://b", "--lambda", "f", "--lambda-results", ""],
        ] {
            assert!(AnalyzeArgs::parse(&strings(bad)).is_err(), "{bad:?}");
        }
    }
}
