//! The IAM policy a reader of a trace bucket needs (the one in README.md): list the
//! prefix, get the objects under it.

use serde::Serialize;

use super::error::SiteError;
use super::path::Prefix;
use crate::s3::{BucketName, Region};

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Policy {
    version: &'static str,
    statement: [Statement; 2],
}

/// One statement of a policy (shared with `fleet::deploy`'s policies).
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct Statement {
    effect: &'static str,
    action: &'static str,
    resource: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    condition: Option<Condition>,
}

#[derive(Serialize)]
struct Condition {
    #[serde(rename = "StringLike")]
    string_like: PrefixCondition,
}

#[derive(Serialize)]
struct PrefixCondition {
    #[serde(rename = "s3:prefix")]
    prefix: [String; 2],
}

/// The reader policy for `bucket`, limited to `prefix` when one is given (a root
/// prefix is the whole bucket), in the ARN partition of `region` (none:
/// `aws`). Refuses names with `*`, `?` or `$`, which the policy would read
/// as wildcards or variables.
pub fn reader_policy_json(
    bucket: &BucketName,
    prefix: Option<&Prefix>,
    region: Option<&Region>,
) -> Result<String, SiteError> {
    let prefix = prefix.map_or("", Prefix::as_str);
    if let Some(name) = wildcard_in([bucket.as_str(), prefix]) {
        return Err(SiteError::PolicyWildcard(name.to_owned()));
    }
    let partition = region.map_or("aws", Region::partition);
    let bucket_arn = format!("arn:{partition}:s3:::{}", bucket.as_str());
    let policy = Policy {
        version: "2012-10-17",
        statement: [list_bucket(&bucket_arn, prefix), get_objects(&bucket_arn, prefix)],
    };
    Ok(serde_json::to_string_pretty(&policy).expect("a policy always serialises"))
}

/// The first of `names` a policy would read as a wildcard or variable
/// (`*`, `?`, `$`), if any.
pub(crate) fn wildcard_in<'a>(names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    names.into_iter().find(|name| name.contains(['*', '?', '$']))
}

/// `s3:ListBucket` on the bucket `bucket_arn`, under `prefix` when there is one.
pub(crate) fn list_bucket(bucket_arn: &str, prefix: &str) -> Statement {
    Statement {
        effect: "Allow",
        action: "s3:ListBucket",
        resource: bucket_arn.to_owned(),
        condition: (!prefix.is_empty()).then(|| Condition {
            string_like: PrefixCondition {
                prefix: [prefix.to_owned(), format!("{prefix}*")],
            },
        }),
    }
}

/// `s3:GetObject` on the objects of `bucket_arn` under `prefix`.
pub(crate) fn get_objects(bucket_arn: &str, prefix: &str) -> Statement {
    objects("s3:GetObject", bucket_arn, prefix)
}

/// `s3:PutObject` on the objects of `bucket_arn` under `prefix`.
pub(crate) fn put_objects(bucket_arn: &str, prefix: &str) -> Statement {
    objects("s3:PutObject", bucket_arn, prefix)
}

fn objects(action: &'static str, bucket_arn: &str, prefix: &str) -> Statement {
    Statement {
        effect: "Allow",
        action,
        resource: format!("{bucket_arn}/{prefix}*"),
        condition: None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn policy(bucket: &str, prefix: Option<&str>) -> Value {
        let bucket = BucketName::new(bucket).unwrap();
        let prefix = prefix.map(|p| Prefix::new(p).unwrap());
        serde_json::from_str(&reader_policy_json(&bucket, prefix.as_ref(), None).unwrap()).unwrap()
    }

    #[test]
    fn the_readme_policy_with_a_prefix() {
        assert_eq!(
            policy("BUCKET", Some("dial9-traces")),
            json!({
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Action": "s3:ListBucket",
                        "Resource": "arn:aws:s3:::BUCKET",
                        "Condition": { "StringLike": { "s3:prefix": ["dial9-traces/", "dial9-traces/*"] } }
                    },
                    { "Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::BUCKET/dial9-traces/*" }
                ]
            })
        );
    }

    #[test]
    fn the_whole_bucket_without_one() {
        let expected = json!({
            "Version": "2012-10-17",
            "Statement": [
                { "Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::acme-traces" },
                { "Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::acme-traces/*" }
            ]
        });
        assert_eq!(policy("acme-traces", None), expected);
        assert_eq!(policy("acme-traces", Some("")), expected);
    }

    #[test]
    fn refuses_wildcards() {
        let bucket = BucketName::new("b*").unwrap();
        assert!(reader_policy_json(&bucket, None, None).is_err());
        let bucket = BucketName::new("b").unwrap();
        let prefix = Prefix::new("${aws:username}").unwrap();
        assert!(reader_policy_json(&bucket, Some(&prefix), None).is_err());
    }

    #[test]
    fn arns_are_in_the_regions_partition() {
        let bucket = BucketName::new("acme-traces").unwrap();
        for (region, arn) in [
            ("cn-north-1", "arn:aws-cn:s3:::acme-traces"),
            ("us-gov-west-1", "arn:aws-us-gov:s3:::acme-traces"),
            ("eu-west-1", "arn:aws:s3:::acme-traces"),
        ] {
            let region = Region::new(region).unwrap();
            let text = reader_policy_json(&bucket, None, Some(&region)).unwrap();
            let policy: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(policy["Statement"][0]["Resource"], arn);
            assert_eq!(policy["Statement"][1]["Resource"], format!("{arn}/*"));
        }
    }
}
