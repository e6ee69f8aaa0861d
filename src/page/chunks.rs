//! Code the first paint does not need, split off the page's wasm into chunks
//! that the page fetches once it is up (`scripts/build-page.sh` splits them).
//! A shared page is opened cold, often on a slow link: the first paint waits
//! only for the form and the drop zone, while the report (with its timeline
//! and flamegraphs) and a listed bucket's views arrive in the background,
//! before they are drawn.
//!
//! Each split point is an async function: its first call waits for its chunk
//! (at once when the chunk is already in), and a chunk that cannot be fetched
//! is an error the view shows (a later call fetches it again).
//!
//! Only the page's build has the `chunks` feature: a split point is an export
//! of every binary that links it, and the worker must not carry the report.
//! Without the feature (the worker, the wasm tests) they are plain calls.

use crate::page::discovery::Discovery;
use crate::page::discovery::selection::{SelectionPanel, SelectionState};
use crate::page::discovery::summary::DiscoveryView;
use crate::page::report::ReportView;
use crate::page::retrieval::RetrievalPanel;
use crate::page::s3::S3State;
use crate::page::s3::bucket_picker::BucketPicker;
use crate::page::session::AppState;
use d9lens_core::bucket::catalog::Selection;
use d9lens_core::bucket::spec::SelectionSpec;
use d9lens_core::report::Report;
use d9lens_core::timeline::Scene;
use leptos::prelude::*;
use leptos::wasm_split::SplitLoaderError;
use std::future::Future;
use std::sync::Arc;

/// A split point's call: awaited where the page is built in chunks.
macro_rules! split_call {
    ($call:expr) => {{
        #[cfg(feature = "chunks")]
        let result = $call.await;
        #[cfg(not(feature = "chunks"))]
        let result = $call;
        result
    }};
}

#[cfg_attr(
    feature = "chunks",
    leptos::wasm_split::wasm_split(report, wasm_split_path = ::leptos::wasm_split, fallible, preload(preload_report))
)]
fn report_view(report: Arc<Report>, state: AppState) -> Result<AnyView, SplitLoaderError> {
    Ok(view! { <ReportView report=report state=state /> }.into_any())
}

#[cfg_attr(
    feature = "chunks",
    leptos::wasm_split::wasm_split(report, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn timeline_drawing(scene: Scene) -> Result<Box<dyn FnMut()>, SplitLoaderError> {
    Ok(Box::new(crate::page::timeline::warm_up(scene)))
}

/// What a listed bucket shows: its summary, and the choice of what to analyze.
pub struct Listed {
    pub discovery: Discovery,
    pub sel: SelectionState,
    pub services: Signal<Vec<String>>,
    pub on_analyze: Callback<(SelectionSpec, Selection)>,
    pub running: Signal<bool>,
    pub on_lambda: Signal<bool>,
}

#[cfg_attr(
    feature = "chunks",
    leptos::wasm_split::wasm_split(bucket, wasm_split_path = ::leptos::wasm_split, fallible, preload(preload_bucket))
)]
fn listed_view(l: Listed) -> Result<AnyView, SplitLoaderError> {
    Ok(view! {
        <DiscoveryView discovery=l.discovery sel=l.sel />
        <SelectionPanel
            discovery=l.discovery
            sel=l.sel
            services=l.services
            on_analyze=l.on_analyze
            running=l.running
            on_lambda=l.on_lambda
        />
    }
    .into_any())
}

#[cfg_attr(
    feature = "chunks",
    leptos::wasm_split::wasm_split(bucket, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn bucket_picker_view(s3: S3State) -> Result<AnyView, SplitLoaderError> {
    Ok(view! { <BucketPicker s3=s3 /> }.into_any())
}

#[cfg_attr(
    feature = "chunks",
    leptos::wasm_split::wasm_split(bucket, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn retrieval_view(app: AppState) -> Result<AnyView, SplitLoaderError> {
    Ok(view! { <RetrievalPanel app=app /> }.into_any())
}

/// The report, drawn as soon as its chunk is in.
pub fn report(report: Arc<Report>, state: AppState) -> impl IntoView {
    drawn(async move { split_call!(report_view(report, state)) })
}

/// A listed bucket's summary and selection, drawn as soon as their chunk is in.
pub fn listed(l: Listed) -> impl IntoView {
    drawn(async move { split_call!(listed_view(l)) })
}

/// The buckets "List buckets" found, drawn as soon as their chunk is in.
pub fn bucket_picker(s3: S3State) -> impl IntoView {
    drawn(async move { split_call!(bucket_picker_view(s3)) })
}

/// How an S3 run's downloads went, host by host, drawn as soon as its chunk is in.
pub fn retrieval(app: AppState) -> impl IntoView {
    drawn(async move { split_call!(retrieval_view(app)) })
}

/// The timeline's drawing of `scene`, over and over (`warm_up`), once its chunk is in.
pub async fn timeline_warm_up(scene: Scene) -> Option<Box<dyn FnMut()>> {
    split_call!(timeline_drawing(scene)).ok()
}

/// Starts fetching the chunks once the page has painted, so the first paint
/// never waits for them and a view rarely does.
pub fn fetch_after_first_paint() {
    #[cfg(feature = "chunks")]
    request_animation_frame(|| {
        set_timeout(
            || {
                wasm_bindgen_futures::spawn_local(async {
                    _ = preload_report().await;
                    _ = preload_bucket().await;
                })
            },
            std::time::Duration::ZERO,
        )
    });
}

fn drawn(view: impl Future<Output = Result<AnyView, SplitLoaderError>> + Send + 'static) -> impl IntoView {
    Suspend::new(async move { view.await.unwrap_or_else(not_loaded) })
}

fn not_loaded(_: SplitLoaderError) -> AnyView {
    view! {
        <p class="notice" data-testid="chunk-error" role="alert">
            "This part of d9lens could not be downloaded. Check the connection, then try again."
        </p>
    }
    .into_any()
}
