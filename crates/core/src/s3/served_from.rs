//! Where the page itself is served from, when that is an S3 endpoint.
//!
//! A team may host the page in the very bucket its traces are in, on the bucket's
//! REST endpoint (`https://BUCKET.s3.REGION.amazonaws.com/PREFIX/index.html`). The
//! page's S3 requests then go to its own origin, so the bucket needs no CORS rule,
//! and the page can fill in the bucket and region from its own address.
//!
//! Recognised addresses:
//! - AWS virtual-hosted: `https://BUCKET.s3.REGION.amazonaws.com/…` (the client's own
//!   request style for buckets without a `.`, so its requests stay same-origin);
//! - AWS path style: `https://s3.REGION.amazonaws.com/BUCKET/…` (requests go to that
//!   origin as a path-style endpoint);
//! - an S3-compatible endpoint the deploy named (`d9lens deploy --endpoint`, written
//!   into the page): `ORIGIN[/base]/BUCKET/…`, path style.
//!
//! Website endpoints (`s3-website`) are not REST endpoints and serve only HTTP: they
//! are not recognised, and [`is_insecure_page`] tells the page to warn.

use super::request::{BucketName, CustomEndpoint, Endpoint, Region, split_host_port};

/// What the page's address says about the bucket it is served from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServedFrom {
    /// The endpoint field's text: `None` for AWS's own (virtual-hosted) endpoint, else
    /// the path-style endpoint URL to use, the page's origin (plus a base path).
    pub endpoint: Option<String>,
    pub bucket: BucketName,
    /// Known from AWS host names; an S3-compatible server's address does not say.
    pub region: Option<Region>,
}

/// Reads a page URL (`location.href`). `known_endpoints` are the S3-compatible
/// endpoints the deploy named (path-style base URLs).
pub fn served_from(page_url: &str, known_endpoints: &[String]) -> Option<ServedFrom> {
    let page = PageUrl::parse(page_url)?;
    aws_virtual_hosted(&page)
        .or_else(|| aws_path_style(&page))
        .or_else(|| known_endpoints.iter().find_map(|e| custom_path_style(&page, e)))
}

/// True for `localhost`, `127.0.0.0/8` and `[::1]` (with or without a port): where the
/// local demo bucket can be.
pub fn is_loopback_host(authority: &str) -> bool {
    let Some((host, _)) = split_host_port(authority) else {
        return false;
    };
    let host = host.to_ascii_lowercase();
    host == "localhost"
        || host == "[::1]"
        || host
            .strip_prefix("127.")
            .is_some_and(|rest| rest.split('.').count() == 3 && rest.split('.').all(|o| o.parse::<u8>().is_ok()))
}

/// A page served over plain HTTP from a host other than this machine: keys typed into
/// it cross the network in the clear, and anyone on the path can alter the page.
pub fn is_insecure_page(page_url: &str) -> bool {
    PageUrl::parse(page_url).is_some_and(|p| !p.endpoint.is_https() && !is_loopback_host(p.endpoint.authority()))
}

/// A page URL read as an endpoint (scheme and authority) whose base path is the
/// page's path; query and fragment dropped.
struct PageUrl {
    endpoint: CustomEndpoint,
}

impl PageUrl {
    fn parse(url: &str) -> Option<Self> {
        let url = url.split(['?', '#']).next().unwrap_or_default();
        match Endpoint::custom(url).ok()? {
            Endpoint::Custom(endpoint) => Some(PageUrl { endpoint }),
            Endpoint::Aws => None,
        }
    }

    fn https(&self) -> bool {
        self.endpoint.is_https()
    }

    fn authority(&self) -> &str {
        self.endpoint.authority()
    }

    fn host(&self) -> &str {
        split_host_port(self.authority()).map_or("", |(host, _)| host)
    }

    fn segments(&self) -> Vec<&str> {
        self.endpoint.base_path().split('/').filter(|s| !s.is_empty()).collect()
    }
}

/// The region of `s3.REGION.amazonaws.com[.cn]` (the part after a virtual-hosted
/// bucket, or the whole host in path style).
fn aws_s3_region(host: &str) -> Option<Region> {
    let rest = host.strip_prefix("s3.")?;
    let region = rest
        .strip_suffix(".amazonaws.com")
        .or_else(|| rest.strip_suffix(".amazonaws.com.cn"))?;
    // `s3.dualstack.REGION…` and other variants are not the client's request style.
    if region.contains('.') {
        return None;
    }
    Region::new(region).ok()
}

fn aws_virtual_hosted(page: &PageUrl) -> Option<ServedFrom> {
    if !page.https() {
        return None;
    }
    let host = page.host();
    let (bucket, rest) = host.split_once('.')?;
    let region = aws_s3_region(rest)?;
    Some(ServedFrom {
        endpoint: None,
        bucket: BucketName::new(bucket).ok()?,
        region: Some(region),
    })
}

fn aws_path_style(page: &PageUrl) -> Option<ServedFrom> {
    if !page.https() {
        return None;
    }
    let region = aws_s3_region(page.host())?;
    // The page is an object: the bucket is followed by at least its key.
    let segments = page.segments();
    let [bucket, _, ..] = segments.as_slice() else {
        return None;
    };
    Some(ServedFrom {
        endpoint: Some(format!("https://{}", page.authority())),
        bucket: BucketName::new(bucket).ok()?,
        region: Some(region),
    })
}

fn custom_path_style(page: &PageUrl, endpoint: &str) -> Option<ServedFrom> {
    let Endpoint::Custom(custom) = Endpoint::custom(endpoint).ok()? else {
        return None;
    };
    if custom.is_https() != page.https() || custom.authority() != page.authority() {
        return None;
    }
    let base: Vec<&str> = custom.base_path().split('/').filter(|s| !s.is_empty()).collect();
    let segments = page.segments();
    let rest = segments.strip_prefix(base.as_slice())?;
    let [bucket, _, ..] = rest else {
        return None;
    };
    Some(ServedFrom {
        endpoint: Some(custom.url()),
        bucket: BucketName::new(bucket).ok()?,
        region: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(s: &ServedFrom) -> (Option<&str>, &str, Option<&str>) {
        (
            s.endpoint.as_deref(),
            s.bucket.as_str(),
            s.region.as_ref().map(Region::as_str),
        )
    }

    #[test]
    fn the_buckets_virtual_hosted_rest_endpoint() {
        let s = served_from(
            "https://acme-traces.s3.eu-west-1.amazonaws.com/tools/d9lens/index.html#x",
            &[],
        )
        .unwrap();
        assert_eq!(names(&s), (None, "acme-traces", Some("eu-west-1")));
        let cn = served_from("https://t.s3.cn-north-1.amazonaws.com.cn/index.html", &[]).unwrap();
        assert_eq!(names(&cn), (None, "t", Some("cn-north-1")));
    }

    #[test]
    fn aws_path_style_uses_the_pages_origin_as_endpoint() {
        let s = served_from("https://s3.us-east-2.amazonaws.com/my.traces/site/index.html?a=b", &[]).unwrap();
        assert_eq!(
            names(&s),
            (
                Some("https://s3.us-east-2.amazonaws.com"),
                "my.traces",
                Some("us-east-2")
            )
        );
    }

    #[test]
    fn other_hosts_and_variants_are_not_taken_for_a_bucket() {
        for url in [
            "https://traces.example.com/index.html",
            // Website endpoints are HTTP-only and serve no S3 API.
            "http://b.s3-website-us-east-1.amazonaws.com/index.html",
            "http://b.s3.us-east-1.amazonaws.com/index.html",
            "https://b.s3.dualstack.us-east-1.amazonaws.com/index.html",
            "https://x.execute-api.us-east-1.amazonaws.com/b/index.html",
            "https://s3.us-east-1.amazonaws.com/",
            "https://s3.us-east-1.amazonaws.com/index.html",
            "file:///tmp/d9lens.html",
            "https://user@b.s3.us-east-1.amazonaws.com/index.html",
            "",
        ] {
            assert_eq!(served_from(url, &[]), None, "{url}");
        }
    }

    #[test]
    fn a_deploy_named_endpoint_is_read_path_style() {
        let known = vec![
            "http://127.0.0.1:9000".to_owned(),
            "https://minio.example.com/s3".to_owned(),
        ];
        let s = served_from("http://127.0.0.1:9000/d9lens-site/tools/d9lens/index.html", &known).unwrap();
        assert_eq!(names(&s), (Some("http://127.0.0.1:9000"), "d9lens-site", None));
        let m = served_from("https://MINIO.example.com/s3/b/index.html", &known).unwrap();
        assert_eq!(names(&m), (Some("https://minio.example.com/s3"), "b", None));
        // Another port, scheme or base path is another server.
        assert_eq!(
            served_from("http://127.0.0.1:8080/d9lens-site/index.html", &known),
            None
        );
        assert_eq!(
            served_from("https://127.0.0.1:9000/d9lens-site/index.html", &known),
            None
        );
        assert_eq!(served_from("https://minio.example.com/b/index.html", &known), None);
        // Unknown endpoints are never guessed.
        assert_eq!(served_from("http://127.0.0.1:9000/d9lens-site/index.html", &[]), None);
    }

    #[test]
    fn loopback_hosts() {
        for h in [
            "localhost",
            "LOCALHOST:8080",
            "127.0.0.1",
            "127.1.2.3:9001",
            "[::1]:8080",
            "[::1]",
        ] {
            assert!(is_loopback_host(h), "{h}");
        }
        for h in [
            "127.0.0.1.example.com",
            "localhost.example.com",
            "10.0.0.1",
            "128.0.0.1",
            "example.com",
        ] {
            assert!(!is_loopback_host(h), "{h}");
        }
    }

    #[test]
    fn insecure_pages_are_plain_http_away_from_this_machine() {
        assert!(is_insecure_page(
            "http://b.s3-website-us-east-1.amazonaws.com/index.html"
        ));
        assert!(!is_insecure_page("https://b.s3.us-east-1.amazonaws.com/index.html"));
        assert!(!is_insecure_page("http://127.0.0.1:8080/"));
        assert!(!is_insecure_page("http://localhost/"));
    }
}
