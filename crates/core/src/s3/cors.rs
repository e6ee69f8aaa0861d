//! The bucket CORS rule this page needs, filled in for the page's origin.
//!
//! Reading a bucket from a page needs GET (objects, listings) and HEAD; the `Range`
//! header of ranged GETs may be preflighted. The exposed headers let the page read
//! object sizes, ranges, the bucket's real region and request ids for support.

use serde_json::json;

/// Response headers the page reads; without `ExposeHeaders` a browser hides them.
pub const EXPOSED_HEADERS: [&str; 6] = [
    "ETag",
    "Content-Length",
    "Content-Range",
    "Date",
    "x-amz-bucket-region",
    "x-amz-request-id",
];

/// The rule for `aws s3api put-bucket-cors --bucket B --cors-configuration file://cors.json`
/// (a `{"CORSRules": [...]}` document). `origin` is the page's origin, e.g.
/// `https://traces.example.com` (a trailing `/` is dropped).
pub fn cors_rule_json(origin: &str) -> String {
    let doc = json!({ "CORSRules": [rule(origin)] });
    serde_json::to_string_pretty(&doc).expect("a JSON value always serialises")
}

/// The same rule in the form the S3 console's CORS editor takes (a bare array).
pub fn cors_rule_console_json(origin: &str) -> String {
    serde_json::to_string_pretty(&json!([rule(origin)])).expect("a JSON value always serialises")
}

fn rule(origin: &str) -> serde_json::Value {
    let origin = origin.trim().trim_end_matches('/');
    json!({
        "AllowedOrigins": [origin],
        "AllowedMethods": ["GET", "HEAD"],
        "AllowedHeaders": ["*"],
        "ExposeHeaders": EXPOSED_HEADERS,
        "MaxAgeSeconds": 3600
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_in_the_origin() {
        let text = cors_rule_json("https://traces.example.com/");
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        let rule = &doc["CORSRules"][0];
        assert_eq!(rule["AllowedOrigins"], json!(["https://traces.example.com"]));
        assert_eq!(rule["AllowedMethods"], json!(["GET", "HEAD"]));
        assert_eq!(rule["AllowedHeaders"], json!(["*"]));
        assert_eq!(
            rule["ExposeHeaders"],
            json!([
                "ETag",
                "Content-Length",
                "Content-Range",
                "Date",
                "x-amz-bucket-region",
                "x-amz-request-id"
            ])
        );
        let console: serde_json::Value =
            serde_json::from_str(&cors_rule_console_json("http://localhost:8080")).unwrap();
        assert_eq!(console[0]["AllowedOrigins"], json!(["http://localhost:8080"]));
    }

    #[test]
    fn escapes_odd_input() {
        let text = cors_rule_json("https://x\"}]");
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(doc["CORSRules"][0]["AllowedOrigins"][0], "https://x\"}]");
    }
}
