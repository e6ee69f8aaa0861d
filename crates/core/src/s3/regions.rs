//! AWS regions, and the hosts of their S3 and STS endpoints that the page's
//! Content-Security-Policy lets it connect to.
//!
//! `https://*.amazonaws.com` would also let a page altered by an injected script send
//! data to hosts anyone can own there (API Gateway, EC2 public names, load
//! balancers); naming each region's S3 and STS hosts narrows that to the S3 API.
//! `index.html` carries the list (a test holds it equal to [`connect_sources`]); a
//! region that opens later is added here, or named at deploy (`--allow-endpoint`).

use super::request::Region;

/// Every AWS region the page can reach: commercial, GovCloud and China.
pub const AWS_REGIONS: &[&str] = &[
    "us-east-1",
    "us-east-2",
    "us-west-1",
    "us-west-2",
    "af-south-1",
    "ap-east-1",
    "ap-east-2",
    "ap-south-1",
    "ap-south-2",
    "ap-southeast-1",
    "ap-southeast-2",
    "ap-southeast-3",
    "ap-southeast-4",
    "ap-southeast-5",
    "ap-southeast-6",
    "ap-southeast-7",
    "ap-northeast-1",
    "ap-northeast-2",
    "ap-northeast-3",
    "ca-central-1",
    "ca-west-1",
    "eu-central-1",
    "eu-central-2",
    "eu-west-1",
    "eu-west-2",
    "eu-west-3",
    "eu-south-1",
    "eu-south-2",
    "eu-north-1",
    "il-central-1",
    "me-south-1",
    "me-central-1",
    "mx-central-1",
    "sa-east-1",
    "us-gov-east-1",
    "us-gov-west-1",
    "cn-north-1",
    "cn-northwest-1",
];

/// The CSP `connect-src` sources for AWS: per region the S3 endpoint (path style),
/// its buckets (virtual-hosted) and STS, plus the global STS endpoint, and in the
/// commercial regions the Lambda function URLs (`ID.lambda-url.REGION.on.aws`,
/// the page's "run on AWS Lambda").
pub fn connect_sources() -> Vec<String> {
    let mut sources = vec!["https://sts.amazonaws.com".to_owned()];
    for name in AWS_REGIONS {
        let region = Region::new(name).expect("the list holds valid region names");
        let suffix = region.aws_dns_suffix();
        sources.push(format!("https://s3.{name}.{suffix}"));
        sources.push(format!("https://*.s3.{name}.{suffix}"));
        sources.push(format!("https://sts.{name}.{suffix}"));
        if suffix == "amazonaws.com" && !name.starts_with("us-gov-") {
            sources.push(format!("https://*.lambda-url.{name}.on.aws"));
        }
    }
    sources
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::s3::{BucketName, Endpoint, S3Config, SigningTime, StsEndpoint, Timestamp};

    /// The production CSP of `index.html`: `'self'` and the AWS hosts, no loopback,
    /// no wildcard over all of `amazonaws.com`.
    #[test]
    fn index_html_connects_only_to_s3_and_sts() {
        let html = include_str!("../../../../index.html");
        let csp_start = html.find("Content-Security-Policy").expect("index.html has a CSP");
        let csp = &html[csp_start..];
        let connect = csp
            .split(';')
            .find_map(|d| d.trim().strip_prefix("connect-src "))
            .expect("the CSP has connect-src");
        let got: Vec<&str> = connect.split_whitespace().collect();
        let mut want = vec!["'self'".to_owned()];
        want.extend(connect_sources());
        assert_eq!(
            got,
            want,
            "index.html's connect-src must be:\nconnect-src {}",
            want.join(" ")
        );
    }

    /// Every request the client makes for any region goes to a host the CSP allows.
    #[test]
    fn every_region_s_requests_are_allowed() {
        let sources = connect_sources();
        let allowed = |url: &str| {
            let host = url.strip_prefix("https://").unwrap().split('/').next().unwrap();
            sources.iter().any(|s| {
                let pattern = s.strip_prefix("https://").unwrap();
                match pattern.strip_prefix("*.") {
                    Some(suffix) => host
                        .strip_suffix(suffix)
                        .is_some_and(|b| b.ends_with('.') && b.len() > 1),
                    None => host == pattern,
                }
            })
        };
        let now: SigningTime = Timestamp::from_unix_secs(1_700_000_000);
        for region in AWS_REGIONS {
            for bucket in ["traces", "my.traces"] {
                let config = S3Config {
                    endpoint: Endpoint::Aws,
                    bucket: BucketName::new(bucket).unwrap(),
                    region: Region::new(region).unwrap(),
                    credentials: None,
                };
                let url = config.get_object("k", None, now).url;
                assert!(allowed(&url), "{url}");
            }
            let (sts, _) = StsEndpoint::Regional(Region::new(region).unwrap()).host_and_region();
            assert!(allowed(&format!("https://{sts}/")), "{sts}");
        }
        assert!(allowed(&format!(
            "https://{}/",
            StsEndpoint::Global.host_and_region().0
        )));
        assert!(!allowed("https://abc.execute-api.us-east-1.amazonaws.com/"));
        assert!(!allowed("https://ec2-1-2-3-4.compute-1.amazonaws.com/"));
    }
}
