//! The S3 half of the page: connect to a bucket, list it, pick segments.
//!
//! Credentials live in this module's signals (memory) and, only when the user
//! ticks "remember in this tab", in `sessionStorage`. They never go into the
//! URL, `localStorage`, a console message, an error text or a worker message:
//! workers get presigned URLs made here.

pub mod bucket_picker;
pub mod connect_form;
pub mod errors_view;
pub mod panel;
pub mod sts;

use crate::net::client::Client;
use crate::page::discovery::Discovery;
use crate::page::site::Site;
use crate::page::url_state;
use bucket_picker::BucketChoices;
use d9lens_core::bucket::link::BucketLink;
use d9lens_core::bucket::listing_plan::{DEFAULT_MAX_OBJECTS, ListingLimits};
use d9lens_core::bucket::scope::Period;
use d9lens_core::s3::link_endpoint;
use d9lens_core::s3::{Account, BucketEntry, BucketName, Credentials, Endpoint, Region};
use errors_view::Problem;
use leptos::prelude::*;

/// Where the demo bucket is served (`scripts/s3-servers.sh start`: the CORS front).
pub const DEMO_ENDPOINT: &str = "http://127.0.0.1:9001";
pub const DEMO_BUCKET: &str = "d9lens-demo";
pub const DEMO_REGION: &str = "us-east-1";
/// A public demo key pair, valid only for the local test server.
pub const DEMO_ACCESS_KEY: &str = "d9lensdemo";
pub const DEMO_SECRET_KEY: &str = "d9lens-demo-secret-key";
/// ListObjectsV2 page size unless the form says otherwise.
pub const DEFAULT_MAX_KEYS: u16 = 1000;
/// Lambda invocations in flight at once unless the form says otherwise.
pub const DEFAULT_LAMBDA_JOBS: usize = 16;
/// sessionStorage key of remembered credentials.
const REMEMBER_KEY: &str = "d9lens.s3.credentials";

/// The connection form's fields.
#[derive(Clone, Copy)]
pub struct Form {
    pub endpoint: RwSignal<String>,
    pub bucket: RwSignal<String>,
    pub region: RwSignal<String>,
    pub prefix: RwSignal<String>,
    pub access_key: RwSignal<String>,
    pub secret_key: RwSignal<String>,
    pub session_token: RwSignal<String>,
    pub role_arn: RwSignal<String>,
    pub public: RwSignal<bool>,
    pub remember: RwSignal<bool>,
    pub max_keys: RwSignal<String>,
    pub max_objects: RwSignal<String>,
    /// A d9lens-lambda function URL: analyze there instead of in this tab.
    pub lambda_url: RwSignal<String>,
    /// Invocations in flight at once.
    pub lambda_jobs: RwSignal<String>,
    /// Where the function may store results too large to answer (empty: nowhere).
    pub lambda_results: RwSignal<String>,
}

/// The S3 side's state. `Copy`: hand it to any component or closure.
#[derive(Clone, Copy)]
pub struct S3State {
    pub form: Form,
    pub problem: RwSignal<Option<Problem>>,
    /// A short, secret-free note (e.g. "filled from pasted credentials").
    pub note: RwSignal<Option<String>>,
    pub connecting: RwSignal<bool>,
    /// `bucket (region)` once a listing started.
    pub connected: RwSignal<Option<String>>,
    pub discovery: Discovery,
    client: StoredValue<Option<Client>, LocalStorage>,
    /// A selection from the URL, applied once the listing is complete.
    pub restore: StoredValue<Option<BucketLink>, LocalStorage>,
    /// Where the page is served from (same-origin bucket, loopback, plain HTTP).
    pub site: StoredValue<Site>,
    /// The endpoint a link filled in, until the user approves it (or changes it).
    link_endpoint: StoredValue<Option<String>>,
    /// The host a link's endpoint would send signed requests to, shown for approval.
    pub approve_host: RwSignal<Option<String>>,
    /// What "List buckets" found.
    pub buckets: RwSignal<BucketChoices>,
}

impl S3State {
    pub fn new() -> Self {
        let s = |v: &str| RwSignal::new(v.to_owned());
        let state = S3State {
            form: Form {
                endpoint: s(""),
                bucket: s(""),
                region: s("us-east-1"),
                prefix: s(""),
                access_key: s(""),
                secret_key: s(""),
                session_token: s(""),
                role_arn: s(""),
                public: RwSignal::new(false),
                remember: RwSignal::new(false),
                max_keys: s(&DEFAULT_MAX_KEYS.to_string()),
                max_objects: s(&DEFAULT_MAX_OBJECTS.to_string()),
                lambda_url: s(""),
                lambda_jobs: s(&DEFAULT_LAMBDA_JOBS.to_string()),
                lambda_results: s(""),
            },
            problem: RwSignal::new(None),
            note: RwSignal::new(None),
            connecting: RwSignal::new(false),
            connected: RwSignal::new(None),
            discovery: Discovery::new(),
            client: StoredValue::new_local(None),
            restore: StoredValue::new_local(None),
            site: StoredValue::new(Site::current()),
            link_endpoint: StoredValue::new(None),
            approve_host: RwSignal::new(None),
            buckets: RwSignal::new(BucketChoices::None),
        };
        state.load_remembered();
        // Unticking "remember" forgets the keys at once, not at the next connect.
        let form = state.form;
        Effect::new(move |_| {
            if !form.remember.get()
                && let Some(storage) = Self::storage()
            {
                let _ = storage.remove_item(REMEMBER_KEY);
            }
        });
        if let Some(url) = url_state::read() {
            state.apply_url(&url);
            state.restore.set_value(Some(url));
        } else {
            state.fill_from_site();
        }
        state
    }

    /// A page served from its bucket's own S3 endpoint starts with that bucket filled in.
    fn fill_from_site(&self) {
        let Some(from) = self.site.with_value(|s| s.served_from.clone()) else {
            return;
        };
        let f = self.form;
        f.endpoint.set(from.endpoint.unwrap_or_default());
        f.bucket.set(from.bucket.as_str().to_owned());
        if let Some(region) = from.region {
            f.region.set(region.as_str().to_owned());
        }
        self.note.set(Some(format!(
            "This page is served from the bucket {}'s own S3 endpoint: its requests there are same-origin and need no CORS rule.",
            from.bucket.as_str()
        )));
    }

    pub fn client(&self) -> Option<Client> {
        self.client.with_value(|c| c.clone())
    }

    fn apply_url(&self, url: &BucketLink) {
        let f = self.form;
        f.endpoint.set(url.endpoint.clone());
        self.link_endpoint
            .set_value((!url.endpoint.trim().is_empty()).then(|| url.endpoint.trim().to_owned()));
        f.bucket.set(url.bucket.clone());
        if !url.region.is_empty() {
            f.region.set(url.region.clone());
        }
        f.prefix.set(url.prefix.clone());
        if let Some(n) = url.max_keys {
            f.max_keys.set(n.to_string());
        }
        if let Some(n) = url.max_objects {
            f.max_objects.set(n.to_string());
        }
    }

    /// The URL state of the current form (selection and view added by the caller).
    pub fn url_state(&self) -> BucketLink {
        let f = self.form;
        let limits = self.limits();
        BucketLink {
            endpoint: f.endpoint.get_untracked().trim().to_owned(),
            bucket: f.bucket.get_untracked().trim().to_owned(),
            region: self
                .client()
                .map(|c| c.region().as_str().to_owned())
                .unwrap_or_else(|| f.region.get_untracked().trim().to_owned()),
            prefix: f.prefix.get_untracked(),
            max_keys: limits.page_size.filter(|&n| n != DEFAULT_MAX_KEYS),
            max_objects: Some(limits.max_objects).filter(|&n| n != DEFAULT_MAX_OBJECTS),
            selection: None,
            view: None,
        }
    }

    /// The listing walk's limits from the form (page size, object cap).
    fn limits(&self) -> ListingLimits {
        let f = self.form;
        let max_keys = f.max_keys.get_untracked().trim().parse::<u16>();
        let max_objects = f.max_objects.get_untracked().trim().parse::<u64>();
        ListingLimits {
            page_size: Some(max_keys.unwrap_or(DEFAULT_MAX_KEYS).clamp(1, 1000)),
            max_objects: max_objects.ok().filter(|&n| n > 0).unwrap_or(DEFAULT_MAX_OBJECTS),
            ..ListingLimits::default()
        }
    }

    /// Fills the form for the local demo bucket and connects.
    pub fn try_demo(&self) {
        let f = self.form;
        f.endpoint.set(DEMO_ENDPOINT.into());
        f.bucket.set(DEMO_BUCKET.into());
        f.region.set(DEMO_REGION.into());
        f.prefix.set(String::new());
        f.access_key.set(DEMO_ACCESS_KEY.into());
        f.secret_key.set(DEMO_SECRET_KEY.into());
        f.session_token.set(String::new());
        f.role_arn.set(String::new());
        f.public.set(false);
        self.connect();
    }

    /// Fills the key fields from pasted credential text (any shape the core reads).
    pub fn paste_credentials(&self, text: &str) -> bool {
        match Credentials::parse(text) {
            Ok(c) => {
                let f = self.form;
                f.access_key.set(c.access_key_id().to_owned());
                f.secret_key.set(c.secret_access_key().to_owned());
                f.session_token.set(c.session_token().unwrap_or_default().to_owned());
                f.public.set(false);
                let expiry = c
                    .expiration()
                    .map(|e| format!(" (they expire {})", e.to_rfc3339()))
                    .unwrap_or_default();
                self.note.set(Some(format!(
                    "Filled the key fields from the pasted credentials{expiry}."
                )));
                true
            }
            Err(e) => {
                self.note.set(Some(format!("Could not read the pasted text: {e}.")));
                false
            }
        }
    }

    /// Validates the form into the account: endpoint, region and credentials
    /// (without AssumeRole).
    fn account(&self) -> Result<Account, Problem> {
        let f = self.form;
        let endpoint_text = f.endpoint.get_untracked();
        let endpoint = if endpoint_text.trim().is_empty() {
            Endpoint::Aws
        } else {
            Endpoint::custom(&endpoint_text).map_err(|e| {
                Problem::input(format!("The endpoint is not usable: {e}."), "Check the endpoint field: leave it empty for AWS S3, or enter the S3 API URL of a compatible server, e.g. http://127.0.0.1:9001.")
            })?
        };
        let region = Region::new(&f.region.get_untracked()).map_err(|e| {
            Problem::input(
                format!("The region is not usable: {e}."),
                "Check the region field, e.g. us-east-1 or eu-west-1.",
            )
        })?;
        let credentials = if f.public.get_untracked() {
            None
        } else {
            let token = Some(f.session_token.get_untracked()).filter(|t| !t.trim().is_empty());
            let c = Credentials::new(f.access_key.get_untracked(), f.secret_key.get_untracked(), token).map_err(|e| {
                Problem::input(format!("The credentials are not usable: {e}."), "Check the access key, secret key and session token fields, or tick \"public bucket\" to read without credentials.")
            })?;
            if c.lacks_session_token() {
                return Err(Problem::input(
                    "This is a temporary access key (ASIA…) without its session token.",
                    "Fill in the session token field with the token that came with this key.",
                ));
            }
            Some(c)
        };
        Ok(Account {
            endpoint,
            region,
            credentials,
        })
    }

    fn bucket_name(&self) -> Result<BucketName, Problem> {
        BucketName::new(&self.form.bucket.get_untracked()).map_err(|e| {
            Problem::input(
                format!("The bucket name is not usable: {e}."),
                "Check the bucket field: only the name, without s3:// or a path (\"List buckets\" shows those you may read).",
            )
        })
    }

    /// The form's account with the role assumed, if one is named.
    async fn signed_account(account: Account, role_arn: &str) -> Result<Account, Problem> {
        if role_arn.is_empty() {
            Ok(account)
        } else {
            sts::assume_role(account, role_arn).await
        }
    }

    /// Whether the endpoint came from a link and still needs the user's
    /// approval before anything is signed for it (then the approval is asked).
    fn awaits_approval(&self, endpoint: &Endpoint) -> bool {
        let typed = self.form.endpoint.get_untracked().trim().to_owned();
        if self.link_endpoint.get_value().is_some_and(|e| e == typed)
            && let Some(host) = link_endpoint::needs_approval(endpoint, &crate::net::fetch::origin())
        {
            self.approve_host.set(Some(host));
            return true;
        }
        false
    }

    /// Lists the buckets the form's credentials may see (the bucket picker).
    pub fn list_buckets(&self) {
        self.problem.set(None);
        let account = match self.account() {
            Ok(account) => account,
            Err(problem) => return self.problem.set(Some(problem)),
        };
        if self.awaits_approval(&account.endpoint) {
            return;
        }
        let role_arn = self.form.role_arn.get_untracked().trim().to_owned();
        let state = *self;
        self.buckets.set(BucketChoices::Listing);
        wasm_bindgen_futures::spawn_local(async move {
            let listed = match Self::signed_account(account, &role_arn).await {
                Ok(account) => bucket_picker::list(&account).await,
                Err(problem) => Err(problem),
            };
            match listed {
                Ok(choices) => state.buckets.set(choices),
                Err(problem) => {
                    state.buckets.set(BucketChoices::None);
                    state.problem.set(Some(problem));
                }
            }
        });
    }

    /// Opens a bucket the picker listed.
    pub fn pick_bucket(&self, bucket: &BucketEntry) {
        self.form.bucket.set(bucket.name.clone());
        if let Some(region) = &bucket.region {
            self.form.region.set(region.clone());
        }
        self.buckets.set(BucketChoices::None);
        self.connect();
    }

    /// Connects with the form's values and lists the bucket.
    pub fn connect(&self) {
        self.problem.set(None);
        let (account, bucket) = match self.account().and_then(|a| Ok((a, self.bucket_name()?))) {
            Ok(parts) => parts,
            Err(problem) => return self.problem.set(Some(problem)),
        };
        // An endpoint from a link is shown before anything is signed for it.
        if self.awaits_approval(&account.endpoint) {
            return;
        }
        self.remember_credentials();
        let limits = self.limits();
        let prefix = self.form.prefix.get_untracked();
        let role_arn = self.form.role_arn.get_untracked().trim().to_owned();
        // A shared link's selection: on a big bucket, its window is what is listed.
        let otherwise = self
            .restore
            .with_value(|r| r.as_ref().and_then(|l| l.selection.as_ref()).and_then(|s| s.window()));
        let period = Period::Auto { otherwise };
        let state = *self;
        self.connecting.set(true);
        wasm_bindgen_futures::spawn_local(async move {
            let config = match Self::signed_account(account, &role_arn).await {
                Ok(account) => account.bucket(bucket),
                Err(problem) => {
                    state.problem.set(Some(problem));
                    state.connecting.set(false);
                    return;
                }
            };
            let bucket = config.bucket.clone();
            let client = Client::new(config);
            state.client.set_value(Some(client.clone()));
            state
                .connected
                .set(Some(format!("{} ({})", client.bucket(), client.region().as_str())));
            url_state::write(&state.url_state());
            let result = state
                .discovery
                .list(client.clone(), prefix.clone(), limits, period)
                .await;
            // The region may have been corrected by S3's answer.
            if client.region().as_str() != state.form.region.get_untracked() {
                state.form.region.set(client.region().as_str().to_owned());
                state
                    .connected
                    .set(Some(format!("{} ({})", client.bucket(), client.region().as_str())));
            }
            state.connecting.set(false);
            match result {
                Ok(()) => url_state::write(&state.url_state()),
                Err(problem) => state
                    .problem
                    .set(Some(problem.for_bucket(&bucket, &prefix, &client.region()))),
            }
        });
    }

    /// The user approved the link's endpoint: connect to it.
    pub fn approve_endpoint(&self) {
        self.link_endpoint.set_value(None);
        self.approve_host.set(None);
        self.connect();
    }

    fn storage() -> Option<web_sys::Storage> {
        web_sys::window()?.session_storage().ok().flatten()
    }

    /// Keeps the key fields in sessionStorage when "remember" is ticked; removes them otherwise.
    fn remember_credentials(&self) {
        let Some(storage) = Self::storage() else { return };
        let f = self.form;
        if f.remember.get_untracked() && !f.public.get_untracked() {
            let value = serde_json::json!({
                "AccessKeyId": f.access_key.get_untracked(),
                "SecretAccessKey": f.secret_key.get_untracked(),
                "SessionToken": f.session_token.get_untracked(),
            });
            let _ = storage.set_item(REMEMBER_KEY, &value.to_string());
        } else {
            let _ = storage.remove_item(REMEMBER_KEY);
        }
    }

    fn load_remembered(&self) {
        let Some(text) = Self::storage().and_then(|s| s.get_item(REMEMBER_KEY).ok().flatten()) else {
            return;
        };
        if let Ok(c) = Credentials::parse(&text) {
            let f = self.form;
            f.access_key.set(c.access_key_id().to_owned());
            f.secret_key.set(c.secret_access_key().to_owned());
            f.session_token.set(c.session_token().unwrap_or_default().to_owned());
            f.remember.set(true);
        }
    }
}

impl Default for S3State {
    fn default() -> Self {
        Self::new()
    }
}
