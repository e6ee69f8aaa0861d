//! The address of the deployed page.

use super::path::Prefix;
use crate::s3::S3Config;

/// The URL of the deployed `index.html`: AWS virtual-hosted style over HTTPS
/// (path style for a bucket with a `.`, which the wildcard certificate does not
/// cover), path style on a custom endpoint; the key percent-encoded as S3 reads it.
/// It opens when the bucket serves the prefix publicly.
pub fn site_url(config: &S3Config, prefix: &Prefix) -> String {
    config.object_url(&format!("{prefix}index.html"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::s3::Endpoint;

    fn config(endpoint: Endpoint, bucket: &str) -> S3Config {
        S3Config::unsigned(endpoint, bucket, "eu-west-1")
    }

    #[test]
    fn aws_custom_and_dotted_buckets() {
        let site = Prefix::new("tools/d9 lens").unwrap();
        assert_eq!(
            site_url(&config(Endpoint::Aws, "acme-tools"), &site),
            "https://acme-tools.s3.eu-west-1.amazonaws.com/tools/d9%20lens/index.html"
        );
        assert_eq!(
            site_url(&config(Endpoint::Aws, "acme-tools"), &Prefix::default()),
            "https://acme-tools.s3.eu-west-1.amazonaws.com/index.html"
        );
        assert_eq!(
            site_url(&config(Endpoint::Aws, "tools.acme.com"), &site),
            "https://s3.eu-west-1.amazonaws.com/tools.acme.com/tools/d9%20lens/index.html"
        );
        let minio = Endpoint::custom("http://127.0.0.1:9000").unwrap();
        assert_eq!(
            site_url(&config(minio, "site"), &Prefix::new("v1").unwrap()),
            "http://127.0.0.1:9000/site/v1/index.html"
        );
    }
}
