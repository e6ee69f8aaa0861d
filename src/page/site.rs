//! Where this page is served from: the facts the core reads from the page's own
//! address and from what the deploy wrote into it (`d9lens deploy`).

use d9lens_core::s3::served_from::{ServedFrom, is_insecure_page, is_loopback_host, served_from};
use d9lens_core::site::{ENDPOINTS_META_NAME, endpoints_from_meta};

/// Facts about the page's own address.
#[derive(Clone, Debug, Default)]
pub struct Site {
    /// The bucket this page is an object of, when served from an S3 REST endpoint.
    pub served_from: Option<ServedFrom>,
    /// Served from this machine: the local demo bucket may be running.
    pub loopback: bool,
    /// Plain HTTP from elsewhere: keys typed here are readable and alterable on the way.
    pub insecure: bool,
}

impl Site {
    pub fn current() -> Self {
        let Some(location) = web_sys::window().map(|w| w.location()) else {
            return Site::default();
        };
        let href = location.href().unwrap_or_default();
        Site {
            served_from: served_from(&href, &deployed_endpoints()),
            loopback: location.host().is_ok_and(|h| is_loopback_host(&h)),
            insecure: is_insecure_page(&href),
        }
    }
}

/// The S3-compatible endpoints the deploy wrote into the page (`d9lens deploy`):
/// where it may be served from and connect to.
fn deployed_endpoints() -> Vec<String> {
    let content = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| {
            d.query_selector(&format!("meta[name={ENDPOINTS_META_NAME}]"))
                .ok()
                .flatten()
        })
        .and_then(|m| m.get_attribute("content"))
        .unwrap_or_default();
    endpoints_from_meta(&content).iter().map(|o| o.to_string()).collect()
}
