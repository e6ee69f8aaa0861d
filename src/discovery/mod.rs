//! What a bucket holds, from its listing alone (nothing is downloaded).
//!
//! ListObjectsV2 answers go, unparsed, to the catalog worker
//! ([`remote_catalog`]), which parses them and keeps the bucket [`Catalog`]:
//! the page's thread only fetches, and renders the summary the worker sends
//! back (throttled while pages stream in), so rendering walks hosts and
//! boots, never 100k keys. Selections are resolved by the worker too.
//!
//! [`Catalog`]: d9lens_core::s3::catalog::Catalog

pub mod density;
pub mod remote_catalog;
pub mod selection;
pub mod summary;

use crate::clock::now_ms;
use crate::protocol::{CatalogReply, CatalogRequest};
use crate::s3::client::Client;
use crate::s3::errors_view::Problem;
use d9lens_core::s3::ListObjectsV2;
use d9lens_core::s3::catalog::{CatalogSummary, Selection};
use d9lens_core::s3::spec::SelectionSpec;
use leptos::prelude::*;
use remote_catalog::RemoteCatalog;
use std::sync::Arc;

/// Stop listing after this many objects (and say so).
pub const MAX_LISTED_OBJECTS: u64 = 200_000;
/// Ask for a fresh summary at most this often while pages arrive.
const SUMMARY_INTERVAL_MS: f64 = 1000.0;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListingStatus {
    pub running: bool,
    pub done: bool,
    pub pages: u32,
    pub objects: u64,
    /// Set when a cap stopped the listing early.
    pub truncated: Option<String>,
    /// Wall time of the listing so far, on the page's clock.
    pub elapsed_ms: f64,
    /// The catalog worker's time: parsing and cataloguing every page, and the last summary.
    pub worker_pages_ms: f64,
    pub worker_summary_ms: f64,
}

#[derive(Clone, Copy)]
pub struct Discovery {
    catalog: StoredValue<Option<RemoteCatalog>, LocalStorage>,
    pub summary: RwSignal<Option<Arc<CatalogSummary>>>,
    pub status: RwSignal<ListingStatus>,
    /// Bumped whenever the catalog changes (selections depend on it).
    pub version: RwSignal<u32>,
    generation: StoredValue<u32>,
    /// A summary request is on its way (at most one while pages stream in).
    summarizing: StoredValue<bool>,
}

impl Discovery {
    pub fn new() -> Self {
        Discovery {
            catalog: StoredValue::new_local(None),
            summary: RwSignal::new(None),
            status: RwSignal::new(ListingStatus::default()),
            version: RwSignal::new(0),
            generation: StoredValue::new(0),
            summarizing: StoredValue::new(false),
        }
    }

    /// The catalog worker, started on first use.
    fn catalog(&self) -> Result<RemoteCatalog, Problem> {
        if let Some(catalog) = self.catalog.with_value(|c| c.clone()) {
            return Ok(catalog);
        }
        let catalog = RemoteCatalog::new().map_err(|e| Problem::input(e, "Reload the page."))?;
        self.catalog.set_value(Some(catalog.clone()));
        Ok(catalog)
    }

    /// The segments `spec` stands for in the catalog listed so far.
    pub async fn resolve(&self, spec: SelectionSpec) -> Selection {
        let Ok(catalog) = self.catalog() else {
            return Selection::default();
        };
        match catalog.call(CatalogRequest::Resolve { spec }).await {
            CatalogReply::Resolved { selection } => selection,
            _ => Selection::default(),
        }
    }

    /// Lists everything under `prefix`, page by page. A newer call supersedes this one.
    pub async fn list(&self, client: Client, prefix: String, max_keys: u16) -> Result<(), Problem> {
        let generation = self.generation.get_value() + 1;
        self.generation.set_value(generation);
        let catalog = self.catalog()?;
        self.summary.set(None);
        let started = now_ms();
        self.status.set(ListingStatus {
            running: true,
            ..ListingStatus::default()
        });
        self.version.update(|v| *v += 1);
        if let CatalogReply::Failed { message } = catalog.call(CatalogRequest::Reset { prefix: prefix.clone() }).await {
            return Err(Problem::input(message, "Reload the page."));
        }
        let mut token: Option<String> = None;
        let mut last_summary = now_ms();
        let result = loop {
            let list = ListObjectsV2 {
                prefix: prefix.clone(),
                continuation_token: token.take(),
                max_keys: Some(max_keys),
                ..ListObjectsV2::default()
            };
            let body = match client.list_raw(&list).await {
                Ok(body) => body,
                Err(e) => break Err(Problem::from_s3(&e)),
            };
            if self.generation.get_value() != generation {
                return Ok(());
            }
            let (objects, next, elapsed_ms) = match catalog.call(CatalogRequest::AddPage { bytes: body }).await {
                CatalogReply::PageAdded {
                    objects,
                    next_continuation_token,
                    elapsed_ms,
                } => (objects, next_continuation_token, elapsed_ms),
                CatalogReply::Failed { message } => break Err(Problem::bad_answer(&message)),
                other => break Err(Problem::bad_answer(&format!("unexpected catalog answer {other:?}"))),
            };
            self.status.update(|s| {
                s.pages += 1;
                s.objects = objects;
                s.worker_pages_ms += elapsed_ms;
                s.elapsed_ms = now_ms() - started;
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
            if now_ms() - last_summary >= SUMMARY_INTERVAL_MS && !self.summarizing.get_value() {
                // Not awaited: the next page is fetched while the worker summarizes.
                let this = *self;
                let catalog = catalog.clone();
                wasm_bindgen_futures::spawn_local(async move { this.refresh_summary(&catalog, generation).await });
                last_summary = now_ms();
            }
        };
        if self.generation.get_value() == generation {
            self.refresh_summary(&catalog, generation).await;
            self.status.update(|s| {
                s.running = false;
                s.done = result.is_ok();
                s.elapsed_ms = now_ms() - started;
            });
        }
        result
    }

    async fn refresh_summary(&self, catalog: &RemoteCatalog, generation: u32) {
        self.summarizing.set_value(true);
        let reply = catalog.call(CatalogRequest::Summary).await;
        self.summarizing.set_value(false);
        if self.generation.get_value() != generation {
            return;
        }
        if let CatalogReply::Summary { summary, elapsed_ms } = reply {
            self.summary.set(Some(Arc::new(*summary)));
            self.status.update(|s| s.worker_summary_ms = elapsed_ms);
            self.version.update(|v| *v += 1);
        }
    }
}

impl Default for Discovery {
    fn default() -> Self {
        Self::new()
    }
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
