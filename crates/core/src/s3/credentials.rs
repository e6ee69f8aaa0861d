//! AWS credentials as a value, and parsing of the shapes people paste.
//!
//! Accepted input (whitespace around it is ignored):
//! - `aws sts assume-role` / `get-session-token` output:
//!   `{"Credentials":{"AccessKeyId","SecretAccessKey","SessionToken","Expiration"}}`
//! - `aws configure export-credentials` (`--format process`):
//!   `{"Version":1,"AccessKeyId",...}`
//! - the same names in camelCase (`accessKeyId`), snake_case (`aws_access_key_id`) or
//!   SCREAMING case (`AWS_ACCESS_KEY_ID`), flat or under a `credentials` object;
//! - lines of `NAME=value`: env files, `export NAME=value` (`--format env`),
//!   `set NAME=value` (`windows-cmd`), `$Env:NAME="value"` (`powershell`), and the
//!   `name = value` lines of `~/.aws/credentials` (one profile).
//!
//! Secrets never reach `Debug` output or error messages.

use std::fmt;

use serde_json::Value;

use super::time::Timestamp;

/// An access key pair, optionally temporary (session token and expiry).
///
/// Fields are private so that a value always holds a non-empty key id and secret;
/// read them with the accessors.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    access_key_id: String,
    secret_access_key: String,
    session_token: Option<String>,
    expiration: Option<Timestamp>,
}

/// Why pasted or configured credentials were not accepted. Messages name the field,
/// never its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CredentialsError {
    /// Nothing recognisable: neither JSON nor `NAME=value` lines.
    Unrecognized,
    /// A required field is missing or empty.
    Missing(&'static str),
    /// A field holds whitespace or a value that cannot be right.
    Invalid(&'static str),
    /// The access key id and the secret look swapped.
    Swapped,
    /// Several profiles with different keys were pasted.
    SeveralProfiles,
}

impl fmt::Display for CredentialsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unrecognized => f.write_str(
                "no credentials found: paste the JSON printed by `aws sts assume-role` or \
                 `aws configure export-credentials`, or AWS_ACCESS_KEY_ID=… lines",
            ),
            Self::Missing(field) => write!(f, "the credentials have no {field}"),
            Self::Invalid(field) => write!(f, "the {field} is not valid (it contains spaces or is malformed)"),
            Self::Swapped => f.write_str(
                "the access key id and the secret access key look swapped: the key id is the short \
                 one starting with AKIA or ASIA",
            ),
            Self::SeveralProfiles => f.write_str("several different keys were pasted: paste one profile only"),
        }
    }
}

impl std::error::Error for CredentialsError {}

impl Credentials {
    /// Checks that the key id and secret are present and free of whitespace, and
    /// that a given session token is non-empty (an empty token counts as none).
    pub fn new(
        access_key_id: impl Into<String>,
        secret_access_key: impl Into<String>,
        session_token: Option<String>,
    ) -> Result<Self, CredentialsError> {
        let access_key_id = access_key_id.into().trim().to_owned();
        let secret_access_key = secret_access_key.into().trim().to_owned();
        let session_token = session_token.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty());
        if access_key_id.is_empty() {
            return Err(CredentialsError::Missing("access key id"));
        }
        if secret_access_key.is_empty() {
            return Err(CredentialsError::Missing("secret access key"));
        }
        if access_key_id.contains(char::is_whitespace) {
            return Err(CredentialsError::Invalid("access key id"));
        }
        if secret_access_key.contains(char::is_whitespace) {
            return Err(CredentialsError::Invalid("secret access key"));
        }
        if session_token
            .as_deref()
            .is_some_and(|t| t.contains(char::is_whitespace))
        {
            return Err(CredentialsError::Invalid("session token"));
        }
        if looks_like_key_id(&secret_access_key) && !looks_like_key_id(&access_key_id) {
            return Err(CredentialsError::Swapped);
        }
        Ok(Self {
            access_key_id,
            secret_access_key,
            session_token,
            expiration: None,
        })
    }

    /// The same credentials with an expiry instant.
    pub fn with_expiration(mut self, expiration: Timestamp) -> Self {
        self.expiration = Some(expiration);
        self
    }

    pub fn access_key_id(&self) -> &str {
        &self.access_key_id
    }

    pub fn secret_access_key(&self) -> &str {
        &self.secret_access_key
    }

    pub fn session_token(&self) -> Option<&str> {
        self.session_token.as_deref()
    }

    pub fn expiration(&self) -> Option<Timestamp> {
        self.expiration
    }

    /// True once `now` has reached the expiry (never for long-term keys).
    pub fn is_expired(&self, now: Timestamp) -> bool {
        self.expiration.is_some_and(|e| now >= e)
    }

    /// True for a temporary key id (`ASIA…`) pasted without its session token,
    /// which AWS rejects as `InvalidAccessKeyId`.
    pub fn lacks_session_token(&self) -> bool {
        self.access_key_id.starts_with("ASIA") && self.session_token.is_none()
    }

    /// Parses pasted credentials in any of the shapes listed in the module docs.
    pub fn parse(text: &str) -> Result<Self, CredentialsError> {
        let text = text.trim();
        if text.starts_with('{') {
            let value: Value = serde_json::from_str(text).map_err(|_| CredentialsError::Unrecognized)?;
            return Self::from_json(&value);
        }
        Self::from_lines(text)
    }

    /// Reads `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN` (or the
    /// older `AWS_SECURITY_TOKEN`) and `AWS_CREDENTIAL_EXPIRATION` through `lookup`.
    /// `Ok(None)` when neither key variable is set: anonymous access.
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<Option<Self>, CredentialsError> {
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let (id, secret) = match (get("AWS_ACCESS_KEY_ID"), get("AWS_SECRET_ACCESS_KEY")) {
            (None, None) => return Ok(None),
            (None, Some(_)) => return Err(CredentialsError::Missing("access key id (AWS_ACCESS_KEY_ID)")),
            (Some(_), None) => return Err(CredentialsError::Missing("secret access key (AWS_SECRET_ACCESS_KEY)")),
            (Some(id), Some(secret)) => (id, secret),
        };
        let token = get("AWS_SESSION_TOKEN").or_else(|| get("AWS_SECURITY_TOKEN"));
        let creds = Self::new(id, secret, token)?;
        match get("AWS_CREDENTIAL_EXPIRATION") {
            None => Ok(Some(creds)),
            Some(exp) => Ok(Some(creds.with_expiration(
                Timestamp::parse_rfc3339(&exp).ok_or(CredentialsError::Invalid("expiration"))?,
            ))),
        }
    }

    fn from_json(value: &Value) -> Result<Self, CredentialsError> {
        let Value::Object(map) = value else {
            return Err(CredentialsError::Unrecognized);
        };
        // A wrapper object (`Credentials`, `credentials`) holds the fields.
        if let Some(inner @ Value::Object(_)) = map
            .iter()
            .find(|(k, _)| field_of(k) == Some(Field::Wrapper))
            .map(|e| e.1)
        {
            return Self::from_json(inner);
        }
        let mut fields = Fields::default();
        for (key, value) in map {
            if let (Some(field), Some(text)) = (field_of(key), value.as_str()) {
                fields.set(field, text)?;
            }
        }
        fields.build()
    }

    fn from_lines(text: &str) -> Result<Self, CredentialsError> {
        let mut fields = Fields::default();
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with(['#', ';', '[']) {
                continue;
            }
            let line = ["export ", "set ", "$Env:", "$env:", "$ENV:"]
                .iter()
                .find_map(|p| line.strip_prefix(p))
                .unwrap_or(line);
            let Some((name, value)) = line.split_once('=') else {
                continue;
            };
            if let Some(field) = field_of(name.trim()) {
                let value = value.trim().trim_end_matches(';').trim();
                let value = value
                    .strip_prefix('"')
                    .and_then(|v| v.strip_suffix('"'))
                    .unwrap_or(value);
                let value = value
                    .strip_prefix('\'')
                    .and_then(|v| v.strip_suffix('\''))
                    .unwrap_or(value);
                fields.set(field, value)?;
            }
        }
        if fields.is_empty() {
            return Err(CredentialsError::Unrecognized);
        }
        fields.build()
    }
}

/// Redacts the secret and the token; the key id and expiry stay legible.
impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("access_key_id", &self.access_key_id)
            .field("secret_access_key", &"[redacted]")
            .field("session_token", &self.session_token.as_ref().map(|_| "[redacted]"))
            .field("expiration", &self.expiration)
            .finish()
    }
}

fn looks_like_key_id(s: &str) -> bool {
    s.len() == 20 && (s.starts_with("AKIA") || s.starts_with("ASIA")) && s.bytes().all(|b| b.is_ascii_alphanumeric())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Wrapper,
    AccessKeyId,
    SecretAccessKey,
    SessionToken,
    Expiration,
}

/// Maps a field name in any casing style to the field: letters only, lower case,
/// without an `aws` prefix (`AWS_ACCESS_KEY_ID`, `accessKeyId` → `accesskeyid`).
fn field_of(name: &str) -> Option<Field> {
    let folded: String = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let folded = folded.strip_prefix("aws").unwrap_or(&folded);
    match folded {
        "credentials" => Some(Field::Wrapper),
        "accesskeyid" | "accesskey" => Some(Field::AccessKeyId),
        "secretaccesskey" | "secretkey" => Some(Field::SecretAccessKey),
        "sessiontoken" | "securitytoken" => Some(Field::SessionToken),
        "expiration" | "credentialexpiration" | "expiry" => Some(Field::Expiration),
        _ => None,
    }
}

#[derive(Default)]
struct Fields {
    access_key_id: Option<String>,
    secret_access_key: Option<String>,
    session_token: Option<String>,
    expiration: Option<String>,
}

impl Fields {
    fn set(&mut self, field: Field, value: &str) -> Result<(), CredentialsError> {
        let slot = match field {
            Field::AccessKeyId => &mut self.access_key_id,
            Field::SecretAccessKey => &mut self.secret_access_key,
            Field::SessionToken => &mut self.session_token,
            Field::Expiration => &mut self.expiration,
            Field::Wrapper => return Ok(()),
        };
        match slot {
            Some(old) if old != value => Err(CredentialsError::SeveralProfiles),
            _ => {
                *slot = Some(value.to_owned());
                Ok(())
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.access_key_id.is_none() && self.secret_access_key.is_none() && self.session_token.is_none()
    }

    fn build(self) -> Result<Credentials, CredentialsError> {
        let id = self.access_key_id.ok_or(CredentialsError::Missing("access key id"))?;
        let secret = self
            .secret_access_key
            .ok_or(CredentialsError::Missing("secret access key"))?;
        let creds = Credentials::new(id, secret, self.session_token)?;
        match self.expiration.filter(|e| !e.trim().is_empty()) {
            None => Ok(creds),
            Some(e) => {
                Ok(creds.with_expiration(Timestamp::parse_rfc3339(&e).ok_or(CredentialsError::Invalid("expiration"))?))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "ASIAIOSFODNN7EXAMPLE";
    const SECRET: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    const TOKEN: &str = "FwoGZXIvYXdzEBYaDHqa0AFexampleTOKENvalue+/==";

    fn expected() -> Credentials {
        Credentials::new(ID, SECRET, Some(TOKEN.into()))
            .unwrap()
            .with_expiration(Timestamp::parse_rfc3339("2026-12-01T12:00:00Z").unwrap())
    }

    #[test]
    fn parses_sts_assume_role_output() {
        let json = format!(
            r#"{{
  "Credentials": {{
    "AccessKeyId": "{ID}",
    "SecretAccessKey": "{SECRET}",
    "SessionToken": "{TOKEN}",
    "Expiration": "2026-12-01T12:00:00+00:00"
  }},
  "AssumedRoleUser": {{"AssumedRoleId": "AROA3XFRBF535PLBIFPI4:s3-access", "Arn": "arn:aws:sts::123456789012:assumed-role/trace-reader/s3-access"}}
}}"#
        );
        assert_eq!(Credentials::parse(&json).unwrap(), expected());
    }

    #[test]
    fn parses_export_credentials_and_other_casings() {
        let shapes = [
            format!(
                r#"{{"Version": 1, "AccessKeyId": "{ID}", "SecretAccessKey": "{SECRET}", "SessionToken": "{TOKEN}", "Expiration": "2026-12-01T12:00:00Z"}}"#
            ),
            format!(
                r#"{{"accessKeyId": "{ID}", "secretAccessKey": "{SECRET}", "sessionToken": "{TOKEN}", "expiration": "2026-12-01T12:00:00.000Z"}}"#
            ),
            format!(
                r#"{{"credentials": {{"aws_access_key_id": "{ID}", "aws_secret_access_key": "{SECRET}", "aws_session_token": "{TOKEN}", "aws_credential_expiration": "2026-12-01T12:00:00Z"}}}}"#
            ),
            format!(
                r#"{{"AWS_ACCESS_KEY_ID": "{ID}", "AWS_SECRET_ACCESS_KEY": "{SECRET}", "AWS_SESSION_TOKEN": "{TOKEN}", "AWS_CREDENTIAL_EXPIRATION": "2026-12-01T12:00:00Z"}}"#
            ),
            format!(
                "export AWS_ACCESS_KEY_ID={ID}\nexport AWS_SECRET_ACCESS_KEY={SECRET}\nexport AWS_SESSION_TOKEN={TOKEN}\nexport AWS_CREDENTIAL_EXPIRATION=2026-12-01T12:00:00+00:00\n"
            ),
            format!(
                "# .env\nAWS_ACCESS_KEY_ID=\"{ID}\"\nAWS_SECRET_ACCESS_KEY='{SECRET}'\nAWS_SESSION_TOKEN={TOKEN}\nAWS_CREDENTIAL_EXPIRATION=2026-12-01T12:00:00Z"
            ),
            format!(
                "$Env:AWS_ACCESS_KEY_ID=\"{ID}\"\n$Env:AWS_SECRET_ACCESS_KEY=\"{SECRET}\"\n$Env:AWS_SESSION_TOKEN=\"{TOKEN}\"\n$Env:AWS_CREDENTIAL_EXPIRATION=\"2026-12-01T12:00:00Z\""
            ),
            format!(
                "set AWS_ACCESS_KEY_ID={ID}\r\nset AWS_SECRET_ACCESS_KEY={SECRET}\r\nset AWS_SESSION_TOKEN={TOKEN}\r\nset AWS_CREDENTIAL_EXPIRATION=2026-12-01T12:00:00Z\r\n"
            ),
            format!(
                "[default]\naws_access_key_id = {ID}\naws_secret_access_key = {SECRET}\naws_session_token = {TOKEN}\naws_credential_expiration = 2026-12-01T12:00:00Z\n"
            ),
        ];
        for shape in &shapes {
            assert_eq!(Credentials::parse(shape).as_ref(), Ok(&expected()), "{shape}");
        }
    }

    #[test]
    fn long_term_keys_need_no_token() {
        let creds = Credentials::parse(
            r#"{"AccessKeyId":"AKIAIOSFODNN7EXAMPLE","SecretAccessKey":"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}"#,
        )
        .unwrap();
        assert_eq!(creds.session_token(), None);
        assert_eq!(creds.expiration(), None);
        assert!(!creds.lacks_session_token());
        assert!(!creds.is_expired(Timestamp::from_unix_secs(i64::MAX / 1000)));
    }

    #[test]
    fn rejects_incomplete_swapped_or_ambiguous_input() {
        assert_eq!(Credentials::parse("hello"), Err(CredentialsError::Unrecognized));
        assert_eq!(Credentials::parse("{not json"), Err(CredentialsError::Unrecognized));
        assert_eq!(
            Credentials::parse(&format!(r#"{{"AccessKeyId":"{ID}"}}"#)),
            Err(CredentialsError::Missing("secret access key"))
        );
        assert_eq!(Credentials::new(SECRET, ID, None), Err(CredentialsError::Swapped));
        assert_eq!(
            Credentials::new(ID, "two words", None),
            Err(CredentialsError::Invalid("secret access key"))
        );
        let two_profiles = format!(
            "[a]\naws_access_key_id = {ID}\naws_secret_access_key = {SECRET}\n[b]\naws_access_key_id = AKIAI44QH8DHBEXAMPLE\naws_secret_access_key = je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY\n"
        );
        assert_eq!(
            Credentials::parse(&two_profiles),
            Err(CredentialsError::SeveralProfiles)
        );
    }

    #[test]
    fn reads_the_environment() {
        let env = |name: &str| match name {
            "AWS_ACCESS_KEY_ID" => Some(ID.to_owned()),
            "AWS_SECRET_ACCESS_KEY" => Some(SECRET.to_owned()),
            "AWS_SESSION_TOKEN" => Some(TOKEN.to_owned()),
            "AWS_CREDENTIAL_EXPIRATION" => Some("2026-12-01T12:00:00Z".to_owned()),
            _ => None,
        };
        assert_eq!(Credentials::from_env(env), Ok(Some(expected())));
        assert_eq!(Credentials::from_env(|_| None), Ok(None));
        assert!(Credentials::from_env(|n| (n == "AWS_ACCESS_KEY_ID").then(|| ID.to_owned())).is_err());
        let no_token = Credentials::from_env(|n| match n {
            "AWS_ACCESS_KEY_ID" => Some(ID.to_owned()),
            "AWS_SECRET_ACCESS_KEY" => Some(SECRET.to_owned()),
            _ => None,
        })
        .unwrap()
        .unwrap();
        assert!(no_token.lacks_session_token());
    }

    #[test]
    fn debug_and_errors_hide_secrets() {
        let shown = format!("{:?}", expected());
        assert!(shown.contains(ID));
        assert!(!shown.contains(SECRET) && !shown.contains(TOKEN), "{shown}");
        for err in [
            Credentials::new(ID, "two words", None).unwrap_err(),
            Credentials::new(SECRET, ID, None).unwrap_err(),
            Credentials::parse(&format!("AWS_SECRET_ACCESS_KEY={SECRET}")).unwrap_err(),
        ] {
            let text = format!("{err} {err:?}");
            assert!(!text.contains(SECRET) && !text.contains("two words"), "{text}");
        }
    }
}
