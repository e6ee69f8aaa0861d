//! What a bucket holds, from its listing alone (nothing is downloaded).
//!
//! The catalog worker ([`remote_catalog`]) plans the walk of listings (the
//! core's `ListingPlan`: partitions, several at once, caps) and keeps the
//! bucket [`Catalog`]; the page's thread only sends the ListObjectsV2
//! requests it is handed, passes each answer back unparsed, and renders the
//! summary the worker sends (throttled while pages stream in), so rendering
//! walks hosts and boots, never 100k keys. Selections are resolved by the
//! worker too.
//!
//! [`Catalog`]: d9lens_core::bucket::catalog::Catalog

pub mod density;
pub mod find_box;
pub mod remote_catalog;
pub mod selection;
pub mod summary;
pub mod window_bar;

use crate::clock::now_ms;
use crate::net::client::Client;
use crate::page::s3::errors_view::Problem;
use crate::protocol::{CatalogReply, CatalogRequest, WalkView};
use d9lens_core::bucket::catalog::{CatalogSummary, Selection};
use d9lens_core::bucket::find::Findings;
use d9lens_core::bucket::listing_plan::{ListingLimits, ListingProgress};
use d9lens_core::bucket::sample::Coverage;
use d9lens_core::bucket::scope::Period;
use d9lens_core::bucket::spec::SelectionSpec;
use futures::StreamExt;
use futures::channel::mpsc;
use leptos::prelude::*;
use remote_catalog::RemoteCatalog;
use std::sync::Arc;

/// Ask for a fresh summary at most this often while pages arrive, per
/// `SUMMARY_SCALE` objects listed: decoding and rendering a summary grows with
/// the bucket, and on a big one the page's thread should go to the listing.
const SUMMARY_INTERVAL_MS: f64 = 1000.0;
const SUMMARY_SCALE: u64 = 25_000;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListingStatus {
    pub running: bool,
    /// The walk finished and listed something (a cap may still have left parts out).
    pub done: bool,
    /// Distinct objects in the catalog.
    pub objects: u64,
    /// The walk: prefixes, pages, what a cap or a failure left out.
    pub walk: ListingProgress,
    /// Wall time of the listing so far, on the page's clock.
    pub elapsed_ms: f64,
    /// The catalog worker's time: planning, parsing and cataloguing every page, and the last summary.
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
    /// What the finished walk covers: the bucket's shape and the window listed.
    pub view: RwSignal<Option<WalkView>>,
    /// The bucket's client, for listing a window picked later.
    client: StoredValue<Option<Client>, LocalStorage>,
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
            view: RwSignal::new(None),
            client: StoredValue::new_local(None),
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

    /// Hosts, boots and keys listed so far whose names hold `text`.
    pub async fn find(&self, text: String) -> Findings {
        let Ok(catalog) = self.catalog() else {
            return Findings::default();
        };
        match catalog.call(CatalogRequest::Find { text }).await {
            CatalogReply::Found { findings } => findings,
            _ => Findings::default(),
        }
    }

    /// The segments `spec` stands for in the catalog listed so far.
    pub async fn resolve(&self, spec: SelectionSpec) -> Selection {
        self.resolve_covered(spec).await.0
    }

    /// [`Discovery::resolve`], and for a sample what it covers of its window.
    pub async fn resolve_covered(&self, spec: SelectionSpec) -> (Selection, Option<Coverage>) {
        let Ok(catalog) = self.catalog() else {
            return (Selection::default(), None);
        };
        match catalog.call(CatalogRequest::Resolve { spec }).await {
            CatalogReply::Resolved { selection, coverage } => (selection, coverage),
            _ => (Selection::default(), None),
        }
    }

    /// Walks `period` under `prefix` (the shape first, when the period needs
    /// it): the catalog worker plans the listings (several at once), this
    /// thread sends them and hands each answer back. A newer call supersedes
    /// this one. `Err`: a listing failed (what the others found is still listed).
    pub async fn list(
        &self,
        client: Client,
        prefix: String,
        limits: ListingLimits,
        period: Period,
    ) -> Result<(), Problem> {
        let generation = self.generation.get_value() + 1;
        self.generation.set_value(generation);
        let catalog = self.catalog()?;
        self.summary.set(None);
        self.view.set(None);
        self.client.set_value(Some(client.clone()));
        self.version.update(|v| *v += 1);
        self.status.set(ListingStatus::default());
        let first = catalog.call(CatalogRequest::Start { prefix, limits, period });
        self.drive(&catalog, &client, generation, first).await
    }

    /// Lists another period of the same bucket (a window picked or widened):
    /// only the partitions not listed yet.
    pub async fn set_period(&self, period: Period) -> Result<(), Problem> {
        let (Ok(catalog), Some(client)) = (self.catalog(), self.client.with_value(|c| c.clone())) else {
            return Ok(());
        };
        let generation = self.generation.get_value() + 1;
        self.generation.set_value(generation);
        let first = catalog.call(CatalogRequest::SetPeriod { period });
        self.drive(&catalog, &client, generation, first).await
    }

    /// Sends the walk's listings and feeds their answers back until it is done.
    async fn drive(
        &self,
        catalog: &RemoteCatalog,
        client: &Client,
        generation: u32,
        first: impl std::future::Future<Output = CatalogReply>,
    ) -> Result<(), Problem> {
        let started = now_ms() - self.status.with_untracked(|s| s.elapsed_ms);
        self.status.update(|s| s.running = true);
        let (answers, mut answered) = mpsc::unbounded();
        let mut reply = first.await;
        let mut problem = None;
        let mut last_summary = now_ms();
        let result = loop {
            let (requests, walk, objects, elapsed_ms, view) = match reply {
                CatalogReply::Planned {
                    requests,
                    progress,
                    objects,
                    elapsed_ms,
                    view,
                } => (requests, progress, objects, elapsed_ms, view),
                CatalogReply::Failed { message } => break Err(Problem::bad_answer(&message)),
                other => break Err(Problem::bad_answer(&format!("unexpected catalog answer {other:?}"))),
            };
            for request in requests {
                let (client, answers) = (client.clone(), answers.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    let body = client.list_raw(&request.list).await;
                    // A closed channel: a newer listing replaced this one.
                    let _ = answers.unbounded_send((request.id, body));
                });
            }
            let done = walk.done;
            self.status.update(|s| {
                s.walk = walk;
                s.objects = objects;
                s.worker_pages_ms += elapsed_ms;
                s.elapsed_ms = now_ms() - started;
            });
            if done {
                self.view.set(view);
                break problem.map_or(Ok(()), Err);
            }
            let interval = SUMMARY_INTERVAL_MS * (1 + objects / SUMMARY_SCALE) as f64;
            if now_ms() - last_summary >= interval && !self.summarizing.get_value() {
                // Not awaited: listings go on while the worker summarizes.
                let this = *self;
                let catalog = catalog.clone();
                wasm_bindgen_futures::spawn_local(async move { this.refresh_summary(&catalog, generation).await });
                last_summary = now_ms();
            }
            let Some((listing, body)) = answered.next().await else {
                break Err(Problem::bad_answer("a listing gave no answer"));
            };
            if self.generation.get_value() != generation {
                return Ok(());
            }
            reply = match body {
                Ok(bytes) => catalog.call(CatalogRequest::AddPage { listing, bytes }).await,
                Err(e) => {
                    let failure = Problem::from_s3(&e);
                    let message = failure.cause.clone();
                    problem.get_or_insert(failure);
                    catalog.call(CatalogRequest::ListingFailed { listing, message }).await
                }
            };
        };
        if self.generation.get_value() == generation {
            self.refresh_summary(catalog, generation).await;
            self.status.update(|s| {
                s.running = false;
                s.done = s.walk.done && (result.is_ok() || s.walk.partitions_listed > 0);
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
            // Render in a task of its own, after the one that decoded the reply:
            // two shorter stalls of the page instead of one long one.
            crate::net::fetch::sleep(std::time::Duration::ZERO).await;
            if self.generation.get_value() != generation {
                return;
            }
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
