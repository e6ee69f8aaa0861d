//! The shareable part of the page's state, kept in the URL fragment (`#…`,
//! never sent to any server): where the bucket is, the selection and the
//! view. Credentials are never part of it. The timeline's keys beside it are
//! [`crate::timeline::TimelineLink`]'s.

use super::spec::SelectionSpec;
use crate::s3::encode::{form_decode, uri_encode};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BucketLink {
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

impl BucketLink {
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
        Some(BucketLink {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_state_round_trips_through_the_fragment() {
        let state = BucketLink {
            endpoint: "http://127.0.0.1:9001".into(),
            bucket: "d9lens-demo".into(),
            region: "us-east-1".into(),
            prefix: String::new(),
            max_keys: None,
            max_objects: None,
            selection: Some(SelectionSpec::Host {
                service: "payments/api".into(),
                instance: "ip-10-0-1-88".into(),
                from: 10,
                to: 20,
            }),
            view: Some("report".into()),
        };
        let fragment = state.to_fragment();
        assert!(fragment.starts_with("s3&bucket=d9lens-demo"), "{fragment}");
        assert_eq!(BucketLink::from_fragment(&fragment), Some(state));
    }

    #[test]
    fn every_selection_kind_round_trips_through_the_fragment() {
        let base = BucketLink {
            endpoint: "http://127.0.0.1:9001".into(),
            bucket: "d9lens-demo".into(),
            region: "us-east-1".into(),
            prefix: "dial9 traces/".into(),
            max_keys: Some(7),
            max_objects: Some(10),
            selection: None,
            view: Some("report".into()),
        };
        let selections = [
            SelectionSpec::Fleet {
                service: None,
                from: 1,
                to: 2,
            },
            SelectionSpec::Sample {
                service: Some("a&b=c".into()),
                n: 4,
                from: 1,
                to: 2,
            },
            SelectionSpec::Single {
                key: "version=1/date=2026-11-30/x%2Fy/1-0.bin.gz".into(),
            },
        ];
        for selection in selections {
            let state = BucketLink {
                selection: Some(selection),
                ..base.clone()
            };
            let fragment = state.to_fragment();
            assert!(!fragment.contains('/') && !fragment.contains(' '), "{fragment}");
            assert_eq!(BucketLink::from_fragment(&format!("#{fragment}")), Some(state));
        }
        assert_eq!(BucketLink::from_fragment("#other"), None);
        // A window that is empty (or not a window) is no selection.
        let bad = BucketLink::from_fragment("#s3&bucket=b&sel=host&service=s&host=h&from=9&to=9").unwrap();
        assert_eq!(bad.selection, None);
    }
}
