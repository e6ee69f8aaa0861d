//! The shareable part of the page state, kept in the URL fragment (`#…`, never
//! sent to any server): where the bucket is, the selection and the view.
//! Credentials are never part of it.

pub use d9lens_core::bucket::spec::SelectionSpec;
use d9lens_core::s3::encode::{form_decode, uri_encode};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UrlState {
    pub endpoint: String,
    pub bucket: String,
    pub region: String,
    pub prefix: String,
    pub max_keys: Option<u16>,
    /// The listing's object cap, when not the default.
    pub max_objects: Option<u64>,
    pub selection: Option<SelectionSpec>,
    /// `report` once a selection was analyzed.
    pub view: Option<String>,
}

impl UrlState {
    /// The fragment without `#` (`s3&bucket=…`); empty when there is no bucket.
    pub fn to_fragment(&self) -> String {
        if self.bucket.is_empty() {
            return String::new();
        }
        let mut pairs: Vec<(&str, String)> = vec![("bucket", self.bucket.clone()), ("region", self.region.clone())];
        for (name, value) in [("endpoint", &self.endpoint), ("prefix", &self.prefix)] {
            if !value.is_empty() {
                pairs.push((name, value.clone()));
            }
        }
        if let Some(n) = self.max_keys {
            pairs.push(("maxKeys", n.to_string()));
        }
        if let Some(n) = self.max_objects {
            pairs.push(("maxObjects", n.to_string()));
        }
        let service = |s: &Option<String>| s.clone().map(|s| ("service", s));
        match &self.selection {
            None => {}
            Some(SelectionSpec::Host {
                service,
                instance,
                from,
                to,
            }) => {
                pairs.extend([
                    ("sel", "host".into()),
                    ("service", service.clone()),
                    ("host", instance.clone()),
                ]);
                pairs.extend([("from", from.to_string()), ("to", to.to_string())]);
            }
            Some(SelectionSpec::Fleet { service: s, from, to }) => {
                pairs.push(("sel", "fleet".into()));
                pairs.extend(service(s));
                pairs.extend([("from", from.to_string()), ("to", to.to_string())]);
            }
            Some(SelectionSpec::Sample {
                service: s,
                n,
                from,
                to,
            }) => {
                pairs.extend([("sel", "sample".into()), ("n", n.to_string())]);
                pairs.extend(service(s));
                pairs.extend([("from", from.to_string()), ("to", to.to_string())]);
            }
            Some(SelectionSpec::Single { key }) => pairs.extend([("sel", "one".into()), ("key", key.clone())]),
        }
        if let Some(view) = &self.view {
            pairs.push(("view", view.clone()));
        }
        let query: Vec<String> = pairs
            .iter()
            .map(|(k, v)| format!("{k}={}", uri_encode(v, false)))
            .collect();
        format!("s3&{}", query.join("&"))
    }

    /// Reads a fragment (with or without `#`); `None` unless it is an S3 state.
    pub fn from_fragment(fragment: &str) -> Option<Self> {
        let rest = fragment.trim_start_matches('#').strip_prefix("s3")?;
        let mut map = std::collections::HashMap::new();
        for pair in rest.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            map.insert(k.to_owned(), form_decode(v));
        }
        let get = |k: &str| map.get(k).cloned().unwrap_or_default();
        let num = |k: &str| map.get(k).and_then(|v| v.parse::<u64>().ok());
        let opt = |k: &str| map.get(k).filter(|v| !v.is_empty()).cloned();
        let window = num("from").zip(num("to")).filter(|(f, t)| f < t);
        let selection = match (get("sel").as_str(), window) {
            ("host", Some((from, to))) => Some(SelectionSpec::Host {
                service: get("service"),
                instance: get("host"),
                from,
                to,
            }),
            ("fleet", Some((from, to))) => Some(SelectionSpec::Fleet {
                service: opt("service"),
                from,
                to,
            }),
            ("sample", Some((from, to))) => num("n").map(|n| SelectionSpec::Sample {
                service: opt("service"),
                n: n as usize,
                from,
                to,
            }),
            ("one", _) => opt("key").map(|key| SelectionSpec::Single { key }),
            _ => None,
        };
        Some(UrlState {
            endpoint: get("endpoint"),
            bucket: get("bucket"),
            region: get("region"),
            prefix: get("prefix"),
            max_keys: num("maxKeys").and_then(|n| u16::try_from(n).ok()),
            max_objects: num("maxObjects"),
            selection,
            view: opt("view"),
        })
    }
}

/// The current fragment's state, if it is an S3 state.
pub fn read() -> Option<UrlState> {
    let hash = web_sys::window()?.location().hash().ok()?;
    UrlState::from_fragment(&hash)
}

/// Replaces the fragment (no new history entry, no reload), keeping the
/// timeline's part of it.
pub fn write(state: &UrlState) {
    let Some(window) = web_sys::window() else { return };
    replace_fragment(&window, &read_timeline().apply(&state.to_fragment()));
}

/// The timeline's part of the current fragment (view, poll, window).
pub fn read_timeline() -> d9lens_core::timeline::TimelineLink {
    let hash = web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    d9lens_core::timeline::TimelineLink::from_fragment(&hash)
}

/// Replaces the timeline's part of the fragment, keeping the rest.
pub fn write_timeline(link: &d9lens_core::timeline::TimelineLink) {
    let Some(window) = web_sys::window() else { return };
    let hash = window.location().hash().unwrap_or_default();
    replace_fragment(&window, &link.apply(&hash));
}

/// Replaces the fragment (no new history entry, no reload); an empty one removes it.
fn replace_fragment(window: &web_sys::Window, fragment: &str) {
    let url = if fragment.is_empty() {
        window.location().pathname().unwrap_or_default() + &window.location().search().unwrap_or_default()
    } else {
        format!("#{fragment}")
    };
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

/// The fragment of a page showing the bundled demo trace.
pub const DEMO: &str = "demo";

/// Whether the page was opened on the demo trace (`#demo…`).
pub fn opens_demo() -> bool {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .is_some_and(|h| h.trim_start_matches('#').split('&').next() == Some(DEMO))
}

/// Starts the fragment of a new run over: `base` (`demo`, or nothing for
/// dropped files, which no link can reopen), with no timeline keys.
pub fn start_run(base: &str) {
    if let Some(window) = web_sys::window() {
        replace_fragment(&window, base);
    }
}
