//! AssumeRole from the page (STS answers CORS): the form's keys are the base
//! credentials, the role's temporary keys sign the S3 requests. The call
//! goes through the core's exchange like every S3 request (retries, the
//! deadline), signed afresh for each attempt.

use super::errors_view::Problem;
use crate::net::client::{drive, local_now};
use d9lens_core::s3::{Account, AssumeRole, StsEndpoint, assume_role_request, parse_assume_role_response};

/// `account` with its credentials replaced by the role's temporary ones.
pub async fn assume_role(mut account: Account, role_arn: &str) -> Result<Account, Problem> {
    let Some(base) = account.credentials.clone() else {
        return Err(Problem::input(
            "Assuming a role needs base credentials.",
            "Fill in the access key and secret key fields (or clear the role ARN field for a public bucket).",
        ));
    };
    let params = AssumeRole {
        role_arn: role_arn.to_owned(),
        session_name: "d9lens-web".into(),
        duration_secs: None,
        external_id: None,
        mfa: None,
    };
    let endpoint = StsEndpoint::Regional(account.region.clone());
    let first = assume_role_request(&base, &endpoint, &params, local_now())
        .map_err(|e| Problem::input(format!("The role is not usable: {e}."), "Check the role ARN field."))?;
    // Only the role ARN can make signing fail, and it did not.
    let sign = || assume_role_request(&base, &endpoint, &params, local_now()).unwrap_or_else(|_| first.clone());
    let response = drive(None, sign).await.map_err(|e| Problem::from_s3(&e))?;
    let credentials = parse_assume_role_response(&response.body).map_err(|e| {
        Problem::input(
            format!("STS answered, but: {e}."),
            "Check the role ARN field and that the base keys may assume it.",
        )
    })?;
    account.credentials = Some(credentials);
    Ok(account)
}
