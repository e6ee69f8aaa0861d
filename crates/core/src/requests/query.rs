//! Which span instances a question is about: a span name, field values
//! (`route=POST /checkout`, matched on the span or any span around it), a
//! parent span's name, a host and a boot; and the instances that match, as
//! (file, span) pairs over a run's kept details.

use super::detail::{FileDetail, NONE};
use super::kept::Details;
use super::parents::MAX_PARENT_DEPTH;
use crate::bucket::layout::{ParsedKey, parse_key};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Query {
    /// Instances of this span name only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Field = value, all of them: on the span itself or on a span around it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<(String, String)>,
    /// Instances whose parent span has this name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Files of this host (from the S3 key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Files of this boot (from the S3 key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot: Option<String>,
}

/// `FIELD=VALUE` (the value may hold `=`).
pub fn parse_where(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
        _ => Err(format!("not FIELD=VALUE: {text:?}")),
    }
}

/// The host and boot a file's name says (an S3 segment key), if any.
pub fn host_boot(file: &str) -> (Option<String>, Option<String>) {
    match parse_key(file, "") {
        ParsedKey::Segment(k) => (Some(k.instance), k.boot),
        _ => (None, None),
    }
}

/// One instance: which kept file, which span of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hit {
    pub file: u32,
    pub span: u32,
}

/// A query resolved against one file: its strings' indices, or `None`
/// when the file cannot match (it lacks a name or value).
struct Resolved {
    name: Option<u32>,
    fields: Vec<(u32, u32)>,
    parent: Option<u32>,
}

impl Query {
    pub fn is_empty(&self) -> bool {
        *self == Query::default()
    }

    fn resolve(&self, d: &FileDetail) -> Option<Resolved> {
        if self.host.is_some() || self.boot.is_some() {
            let (host, boot) = host_boot(&d.file);
            if self.host.as_ref().is_some_and(|h| host.as_ref() != Some(h))
                || self.boot.as_ref().is_some_and(|b| boot.as_ref() != Some(b))
            {
                return None;
            }
        }
        let fields = self
            .fields
            .iter()
            .map(|(k, v)| Some((d.find(k)?, d.find(v)?)))
            .collect::<Option<Vec<_>>>()?;
        Some(Resolved {
            name: d.find_wanted(self.name.as_deref())?,
            fields,
            parent: d.find_wanted(self.parent.as_deref())?,
        })
    }

    /// Every instance that matches, file by file, each file's by start.
    pub fn hits(&self, details: &Details) -> Vec<Hit> {
        let mut out = Vec::new();
        for (f, d) in details.files.iter().enumerate() {
            let Some(r) = self.resolve(d) else { continue };
            for (i, s) in d.spans.iter().enumerate() {
                if r.name.is_some_and(|n| s.name != n) {
                    continue;
                }
                if let Some(p) = r.parent
                    && (s.parent == NONE || d.spans.get(s.parent as usize).is_none_or(|ps| ps.name != p))
                {
                    continue;
                }
                if r.fields.iter().all(|&kv| has_field(d, i, kv)) {
                    out.push(Hit {
                        file: f as u32,
                        span: i as u32,
                    });
                }
            }
        }
        out
    }
}

/// Whether span `i` or one around it (within `MAX_PARENT_DEPTH`) has the field.
fn has_field(d: &FileDetail, mut i: usize, kv: (u32, u32)) -> bool {
    for _ in 0..=MAX_PARENT_DEPTH {
        let Some(s) = d.spans.get(i) else { return false };
        if d.fields_of(s).contains(&kv) {
            return true;
        }
        if s.parent == NONE {
            return false;
        }
        i = s.parent as usize;
    }
    false
}
