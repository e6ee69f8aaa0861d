//! What a bucket holds, from its listing alone (nothing is downloaded).
//!
//! ListObjectsV2 pages stream into a core [`Catalog`]. The catalog lives
//! outside the reactive graph; its summary is recomputed in the listing task
//! (throttled, never inside a render closure) and published as one signal, so
//! rendering only ever walks the summary (hosts and boots, not 100k keys).

pub mod density;
pub mod selection;
pub mod summary;

use crate::s3::client::Client;
use crate::s3::errors_view::Problem;
use d9lens_core::s3::ListObjectsV2;
use d9lens_core::s3::catalog::{Catalog, CatalogSummary};
use leptos::prelude::*;
use std::sync::Arc;

/// Stop listing after this many objects (and say so).
pub const MAX_LISTED_OBJECTS: u64 = 200_000;
/// Recompute the summary at most this often while pages arrive.
const SUMMARY_INTERVAL_MS: f64 = 500.0;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListingStatus {
    pub running: bool,
    pub done: bool,
    pub pages: u32,
    pub objects: u64,
    /// Set when a cap stopped the listing early.
    pub truncated: Option<String>,
}

#[derive(Clone, Copy)]
pub struct Discovery {
    catalog: StoredValue<Catalog, LocalStorage>,
    pub summary: RwSignal<Option<Arc<CatalogSummary>>>,
    pub status: RwSignal<ListingStatus>,
    /// Bumped whenever the catalog changes (selections depend on it).
    pub version: RwSignal<u32>,
    generation: StoredValue<u32>,
}

impl Discovery {
    pub fn new() -> Self {
        Discovery {
            catalog: StoredValue::new_local(Catalog::default()),
            summary: RwSignal::new(None),
            status: RwSignal::new(ListingStatus::default()),
            version: RwSignal::new(0),
            generation: StoredValue::new(0),
        }
    }

    /// Reads the catalog (untracked; track `version` for changes).
    pub fn with_catalog<R>(&self, f: impl FnOnce(&Catalog) -> R) -> R {
        self.catalog.with_value(f)
    }

    /// Lists everything under `prefix`, page by page. A newer call supersedes this one.
    pub async fn list(&self, client: Client, prefix: String, max_keys: u16) -> Result<(), Problem> {
        let generation = self.generation.get_value() + 1;
        self.generation.set_value(generation);
        self.catalog.set_value(Catalog::new(&prefix));
        self.summary.set(None);
        self.status.set(ListingStatus {
            running: true,
            ..ListingStatus::default()
        });
        self.version.update(|v| *v += 1);
        let mut token: Option<String> = None;
        let mut last_summary = now_ms();
        let result = loop {
            let list = ListObjectsV2 {
                prefix: prefix.clone(),
                continuation_token: token.take(),
                max_keys: Some(max_keys),
                ..ListObjectsV2::default()
            };
            let page = match client.list_page(&list).await {
                Ok(page) => page,
                Err(e) => break Err(Problem::from_call(&e)),
            };
            if self.generation.get_value() != generation {
                return Ok(());
            }
            let next = page.next_continuation_token.clone();
            let objects = self.catalog.try_update_value(|c| {
                c.add_page(page.contents);
                c.object_count() as u64
            });
            let objects = objects.unwrap_or_default();
            self.status.update(|s| {
                s.pages += 1;
                s.objects = objects;
            });
            match next {
                Some(_) if objects >= MAX_LISTED_OBJECTS => {
                    self.status.update(|s| {
                        s.truncated = Some(format!(
                            "Listing stopped after {objects} objects (the page's cap is {MAX_LISTED_OBJECTS}): \
                             the summary covers only the keys listed so far. Narrow the prefix to see the rest."
                        ))
                    });
                    break Ok(());
                }
                Some(next) => token = Some(next),
                None => break Ok(()),
            }
            if now_ms() - last_summary >= SUMMARY_INTERVAL_MS {
                // Let the page paint the progress first.
                crate::s3::fetch::sleep(std::time::Duration::ZERO).await;
                self.refresh_summary();
                last_summary = now_ms();
            }
        };
        if self.generation.get_value() == generation {
            self.refresh_summary();
            self.status.update(|s| {
                s.running = false;
                s.done = result.is_ok();
            });
        }
        result
    }

    fn refresh_summary(&self) {
        let summary = self.catalog.with_value(|c| c.summary());
        self.summary.set(Some(Arc::new(summary)));
        self.version.update(|v| *v += 1);
    }
}

impl Default for Discovery {
    fn default() -> Self {
        Self::new()
    }
}

pub fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// `2026-11-30 14:05:35` (UTC) for Unix seconds.
pub fn utc(secs: u64) -> String {
    let text = d9lens_core::s3::Timestamp::from_unix_secs(secs as i64).to_rfc3339();
    text.trim_end_matches('Z').replacen('T', " ", 1)
}

/// `14:05` (UTC) for Unix seconds.
pub fn utc_hm(secs: u64) -> String {
    utc(secs).get(11..16).unwrap_or_default().to_owned()
}

/// Parses [`utc`]'s form (also with `T`, without seconds, with `Z`).
pub fn parse_utc(text: &str) -> Option<u64> {
    let t = text.trim().trim_end_matches(['Z', 'z']).trim_end_matches(" UTC");
    let t = if t.len() == 16 { format!("{t}:00") } else { t.to_owned() };
    let ts = d9lens_core::s3::Timestamp::parse_rfc3339(&format!("{t}Z"))?;
    u64::try_from(ts.unix_secs()).ok()
}

/// `1 m 30 s`, `2 h 5 m` for a duration in seconds.
pub fn duration(secs: u64) -> String {
    match secs {
        s if s < 60 => format!("{s} s"),
        s if s < 3600 => format!("{} m {} s", s / 60, s % 60),
        s if s < 86_400 => format!("{} h {} m", s / 3600, (s % 3600) / 60),
        s => format!("{} d {} h", s / 86_400, (s % 86_400) / 3600),
    }
}
