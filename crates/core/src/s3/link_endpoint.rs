//! An endpoint named by a link. A shared link may fill in the endpoint
//! field; signed requests then go wherever the link says, and whoever runs
//! that host sees what the user lists and downloads (the keys only sign,
//! they are never sent). So an endpoint that came from a link, and is
//! neither AWS's nor the page's own origin, is shown to the user, who
//! approves it before the first signed request goes there.

use super::regions::AWS_REGIONS;
use super::request::{Endpoint, Region};

/// The host to show for approval, or `None` when `endpoint` needs none: AWS
/// S3 itself (virtual-hosted, or a region's path-style host over HTTPS), or
/// the origin the page is served from (`page_origin`, as `location.origin`).
pub fn needs_approval(endpoint: &Endpoint, page_origin: &str) -> Option<String> {
    let Endpoint::Custom(custom) = endpoint else {
        return None;
    };
    let scheme = if custom.is_https() { "https" } else { "http" };
    let origin = format!("{scheme}://{}", custom.authority());
    if origin.eq_ignore_ascii_case(page_origin.trim_end_matches('/')) {
        return None;
    }
    let aws = custom.is_https()
        && AWS_REGIONS.iter().any(|name| {
            let suffix = Region::new(name).map(|r| r.aws_dns_suffix()).unwrap_or("amazonaws.com");
            custom.authority().eq_ignore_ascii_case(&format!("s3.{name}.{suffix}"))
        });
    (!aws).then(|| custom.authority().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(endpoint: &str, page: &str) -> Option<String> {
        needs_approval(&Endpoint::custom(endpoint).unwrap(), page)
    }

    #[test]
    fn only_foreign_hosts_are_asked_about() {
        assert_eq!(needs_approval(&Endpoint::Aws, "https://tools.example.test"), None);
        assert_eq!(
            ask("https://s3.eu-west-1.amazonaws.com", "https://tools.example.test"),
            None
        );
        assert_eq!(
            ask("https://s3.cn-north-1.amazonaws.com.cn", "https://tools.example.test"),
            None
        );
        // The page's own origin (hosted on an S3-compatible server).
        assert_eq!(ask("http://127.0.0.1:9001/base", "http://127.0.0.1:9001"), None);
        assert_eq!(
            ask("https://minio.example.com", "https://tools.example.test").as_deref(),
            Some("minio.example.com")
        );
        assert_eq!(
            ask("http://127.0.0.1:9001", "http://127.0.0.1:8080").as_deref(),
            Some("127.0.0.1:9001")
        );
        // Look-alikes are not AWS: plain HTTP, or another domain.
        assert_eq!(
            ask("http://s3.eu-west-1.amazonaws.com", "https://t.test").as_deref(),
            Some("s3.eu-west-1.amazonaws.com")
        );
        assert_eq!(
            ask("https://s3.eu-west-1.amazonaws.com.evil.test", "https://t.test").as_deref(),
            Some("s3.eu-west-1.amazonaws.com.evil.test")
        );
    }
}
