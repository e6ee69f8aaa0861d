//! Arguments of `d9lens deploy`, parsed into one [`Command`] per mode so each
//! mode holds only what it uses.

use std::path::PathBuf;

use crate::s3::args::{Location, value};
use d9lens_core::s3::{BucketName, Region};
use d9lens_core::site::{Origin, Prefix, SiteError, allow_endpoints, allow_loopback};

/// Where `trunk build --release` writes the page.
pub const DEFAULT_DIST: &str = "dist";

#[derive(Debug)]
pub enum Command {
    Upload(UploadArgs),
    /// Rewrite `DIR/index.html` itself; nothing is sent.
    InPlace {
        dist: PathBuf,
        allow: Allow,
    },
    PrintCors(Origin),
    PrintPolicy {
        bucket: BucketName,
        prefix: Option<Prefix>,
        /// Its ARNs' partition (`aws-cn`, `aws-us-gov`), else `aws`.
        region: Option<Region>,
    },
}

#[derive(Debug)]
pub struct UploadArgs {
    pub bucket: String,
    pub prefix: Prefix,
    pub dist: PathBuf,
    pub endpoint: Option<String>,
    pub region: Option<String>,
    pub allow: Allow,
    pub dry_run: bool,
}

/// What the page's CSP should allow beyond what it was built with.
#[derive(Debug, Default)]
pub struct Allow {
    pub origins: Vec<Origin>,
    /// `http://127.0.0.1:*` and `http://localhost:*`: local builds only.
    pub loopback: bool,
}

impl Allow {
    pub fn is_empty(&self) -> bool {
        self.origins.is_empty() && !self.loopback
    }

    /// `index_html` rewritten to allow all of it.
    pub fn apply(&self, index_html: &str) -> Result<String, SiteError> {
        let html = allow_endpoints(index_html, &self.origins)?;
        if self.loopback { allow_loopback(&html) } else { Ok(html) }
    }

    /// Adds `origin` unless it is already there.
    pub fn add(&mut self, origin: Origin) {
        if !self.origins.contains(&origin) {
            self.origins.push(origin);
        }
    }
}

impl Command {
    pub fn parse(args: &[String]) -> Result<Self, String> {
        let mut location = None;
        let mut dist = None;
        let mut endpoint = None;
        let mut region = None;
        let mut allow = Allow::default();
        let mut dry_run = false;
        let mut in_place = false;
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let flag = arg.as_str();
            match flag {
                "--print-cors" | "--print-policy" if args.len() > 1 && args[0] != flag => {
                    return Err(format!("{flag} goes alone: d9lens deploy {flag} ..."));
                }
                "--print-cors" => return print_cors(&args[1..]),
                "--print-policy" => return print_policy(&args[1..]),
                "--dist" => dist = Some(PathBuf::from(value(&mut it, flag)?)),
                "--endpoint" => endpoint = Some(value(&mut it, flag)?.to_owned()),
                "--region" => region = Some(value(&mut it, flag)?.to_owned()),
                "--allow-endpoint" => allow.add(Origin::parse(value(&mut it, flag)?).map_err(|e| e.to_string())?),
                "--allow-loopback" => allow.loopback = true,
                "--dry-run" => dry_run = true,
                "--in-place" => in_place = true,
                _ if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
                url if location.is_none() => location = Some(Location::parse(url)?),
                extra => return Err(format!("unexpected argument {extra:?}")),
            }
        }
        let dist = dist.unwrap_or_else(|| PathBuf::from(DEFAULT_DIST));
        if in_place {
            if location.is_some() || endpoint.is_some() || region.is_some() || dry_run {
                return Err("--in-place rewrites DIR/index.html and sends nothing: \
                            no s3:// URL, --endpoint, --region or --dry-run"
                    .into());
            }
            if allow.is_empty() {
                return Err("--in-place needs --allow-endpoint URL or --allow-loopback".into());
            }
            return Ok(Command::InPlace { dist, allow });
        }
        let location = location.ok_or("missing s3://BUCKET[/PREFIX]")?;
        Ok(Command::Upload(UploadArgs {
            prefix: Prefix::new(&location.prefix).map_err(|e| e.to_string())?,
            bucket: location.bucket,
            dist,
            endpoint,
            region,
            allow,
            dry_run,
        }))
    }
}

/// `--print-cors ORIGIN`.
fn print_cors(rest: &[String]) -> Result<Command, String> {
    match rest {
        [origin] => Ok(Command::PrintCors(Origin::parse(origin).map_err(|e| e.to_string())?)),
        _ => Err("--print-cors needs one ORIGIN, the page's (e.g. https://traces.example.com)".into()),
    }
}

/// `--print-policy BUCKET [PREFIX] [--region R]` or `--print-policy
/// s3://BUCKET[/PREFIX] [--region R]`.
fn print_policy(rest: &[String]) -> Result<Command, String> {
    let (rest, region) = match rest {
        [rest @ .., flag, region] if flag == "--region" => {
            (rest, Some(Region::new(region).map_err(|e| format!("--region: {e}"))?))
        }
        _ => (rest, None),
    };
    let (bucket, prefix) = match rest {
        [url] if url.starts_with("s3://") => {
            let l = Location::parse(url)?;
            (l.bucket, l.prefix)
        }
        [bucket] => (bucket.clone(), String::new()),
        [bucket, prefix] => (bucket.clone(), prefix.clone()),
        _ => return Err("--print-policy needs BUCKET [PREFIX] [--region R]".into()),
    };
    let prefix = Prefix::new(&prefix).map_err(|e| e.to_string())?;
    Ok(Command::PrintPolicy {
        bucket: BucketName::new(&bucket).map_err(|e| e.to_string())?,
        prefix: (!prefix.is_root()).then_some(prefix),
        region,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Command, String> {
        Command::parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn upload() {
        let Ok(Command::Upload(u)) = parse(&[
            "s3://b/tools/d9lens",
            "--allow-endpoint",
            "https://minio.example.com/x",
            "--allow-endpoint",
            "https://MINIO.example.com",
            "--dry-run",
        ]) else {
            panic!()
        };
        assert_eq!((u.bucket.as_str(), u.prefix.as_str()), ("b", "tools/d9lens/"));
        assert_eq!(u.dist, PathBuf::from("dist"));
        assert_eq!(u.allow.origins.len(), 1);
        assert!(u.dry_run && !u.allow.loopback);
    }

    #[test]
    fn in_place() {
        let Ok(Command::InPlace { dist, allow }) = parse(&["--in-place", "--dist", "d", "--allow-loopback"]) else {
            panic!()
        };
        assert_eq!(dist, PathBuf::from("d"));
        assert!(allow.loopback);
        assert!(parse(&["--in-place"]).is_err());
        assert!(parse(&["--in-place", "s3://b", "--allow-loopback"]).is_err());
    }

    #[test]
    fn printing() {
        assert!(matches!(
            parse(&["--print-cors", "https://t.example/"]),
            Ok(Command::PrintCors(_))
        ));
        assert!(parse(&["--print-cors", "https://x; script-src *"]).is_err());
        assert!(parse(&["--print-cors"]).is_err());
        assert!(parse(&["s3://b", "--print-cors", "https://t.example"]).is_err());
        let Ok(Command::PrintPolicy { bucket, prefix, region }) = parse(&["--print-policy", "b", "dial9-traces"])
        else {
            panic!()
        };
        assert_eq!((bucket.as_str(), prefix.unwrap().as_str()), ("b", "dial9-traces/"));
        assert!(region.is_none());
        let Ok(Command::PrintPolicy { prefix, region, .. }) =
            parse(&["--print-policy", "s3://b/", "--region", "cn-north-1"])
        else {
            panic!()
        };
        assert!(prefix.is_none());
        assert_eq!(region.unwrap().partition(), "aws-cn");
        assert!(parse(&["--print-policy", "b", "--region", "Not A Region"]).is_err());
    }

    #[test]
    fn errors() {
        assert!(parse(&[]).is_err());
        assert!(parse(&["s3://b//x"]).is_err());
        assert!(parse(&["s3://b", "--allow-endpoint", "*.example"]).is_err());
        assert!(parse(&["s3://b", "--frobnicate"]).is_err());
        assert!(parse(&["s3://b", "s3://c"]).is_err());
    }
}
