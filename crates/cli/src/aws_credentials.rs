//! Credentials and region as the AWS CLI finds them, through the AWS SDK's
//! own chain (`aws-config`): the environment, then the profile (`--profile`
//! or `AWS_PROFILE`, from `~/.aws/config` and `~/.aws/credentials`: static
//! keys, `role_arn` with `source_profile`, SSO with the token cache `aws sso
//! login` leaves, `credential_process`), web identity, and container or EC2
//! instance roles. The profile's `region` is used when no flag or variable
//! names one. Keys go into the request signer only; nothing is written down.

use aws_config::Region;
use aws_config::default_provider::credentials::DefaultCredentialsChain;
use aws_config::meta::region::ProvideRegion;
use aws_config::profile::{ProfileFileCredentialsProvider, ProfileFileRegionProvider};
use aws_config::provider_config::ProviderConfig;
use aws_credential_types::provider::{ProvideCredentials, error::CredentialsError};
use d9lens_core::s3::{Account, BucketName, Credentials, S3Config, Timestamp};
use d9lens_http::env;
use std::error::Error;

/// The account's service, signed with what the chain finds. A
/// named profile (`--profile`, `AWS_PROFILE`) is read alone, and one that
/// gives no credentials is an error that says why; without one, the whole
/// chain is asked, and when it finds nothing the requests go unsigned (a
/// public bucket), as the CLI always did.
pub fn account(endpoint: Option<&str>, region: Option<&str>, profile: Option<&str>) -> Result<Account, String> {
    let profile = profile.map(str::to_owned).or_else(|| env("AWS_PROFILE"));
    if profile.is_none() && env("AWS_ACCESS_KEY_ID").is_some() {
        // Keys in the environment come first in the chain anyway: no runtime needed.
        return d9lens_http::account_for(endpoint, region);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("could not start the credential lookup: {e}"))?;
    let (found, profile_region) = runtime.block_on(async {
        let mut from_profile = ProfileFileRegionProvider::builder();
        if let Some(p) = &profile {
            from_profile = from_profile.profile_name(p);
        }
        let region = match d9lens_http::region_given(region) {
            Some(r) => Some(Region::new(r)),
            None => from_profile.build().region().await,
        };
        let found = match &profile {
            // A named profile alone, as `aws --profile` reads it: its keys, role, SSO or process.
            Some(p) => {
                let mut provider = ProfileFileCredentialsProvider::builder().profile_name(p);
                if let Some(r) = &region {
                    // The region STS is asked in when a role is assumed.
                    provider = provider.configure(&ProviderConfig::default().with_region(Some(r.clone())));
                }
                provider.build().provide_credentials().await
            }
            None => {
                let mut chain = DefaultCredentialsChain::builder();
                if let Some(r) = &region {
                    chain = chain.region(r.clone());
                }
                chain.build().await.provide_credentials().await
            }
        };
        (found, region)
    });
    let region = profile_region.as_ref().map(|r| r.as_ref().to_owned());
    let mut account = d9lens_http::account_for(endpoint, region.as_deref())?;
    account.credentials = match (found, &profile) {
        (Ok(c), _) => Some(convert(&c).map_err(|e| format!("the credentials found are not usable: {e}"))?),
        (Err(e), Some(p)) => return Err(explain(&e, p)),
        // Nothing configured anywhere: a public bucket, unsigned (as the CLI always did).
        (Err(CredentialsError::CredentialsNotLoaded(_)), None) => None,
        (Err(e), None) => {
            crate::output::warn(&format!("no credentials found ({}): requests go unsigned", causes(&e)));
            None
        }
    };
    Ok(account)
}

/// [`account`]'s configuration of `bucket`.
pub fn s3_config(
    bucket: &str,
    endpoint: Option<&str>,
    region: Option<&str>,
    profile: Option<&str>,
) -> Result<S3Config, String> {
    let bucket = BucketName::new(bucket).map_err(|e| e.to_string())?;
    Ok(account(endpoint, region, profile)?.bucket(bucket))
}

fn convert(c: &aws_credential_types::Credentials) -> Result<Credentials, String> {
    let creds = Credentials::new(
        c.access_key_id().to_owned(),
        c.secret_access_key().to_owned(),
        c.session_token().map(str::to_owned),
    )
    .map_err(|e| e.to_string())?;
    Ok(
        match c.expiry().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()) {
            Some(d) => creds.with_expiration(Timestamp::from_unix_secs(d.as_secs() as i64)),
            None => creds,
        },
    )
}

/// The profile's error with its causes, and what to do.
fn explain(e: &CredentialsError, profile: &str) -> String {
    format!(
        "no credentials from profile {profile:?}: {}\n(profiles are read from ~/.aws/config and ~/.aws/credentials, \
         or AWS_CONFIG_FILE and AWS_SHARED_CREDENTIALS_FILE; check it with `aws configure list --profile {profile}`, \
         or `aws sso login --profile {profile}` for SSO)",
        causes(e)
    )
}

/// An error and its causes, each said once.
fn causes(e: &CredentialsError) -> String {
    let mut causes: Vec<String> = Vec::new();
    let mut cause: Option<&dyn Error> = Some(e);
    while let Some(c) = cause {
        let text = c.to_string();
        if !causes.iter().any(|known| known.contains(&text)) {
            causes.push(text);
        }
        cause = c.source();
    }
    causes.join(": ")
}
