//! The page.

use crate::page::chunks;
use crate::page::drop_zone::{DEMO_NAME, DropZone};
use crate::page::errors::ErrorsPanel;
use crate::page::progress::ProgressPanel;
use crate::page::s3::panel::S3Panel;
use crate::page::session::AppState;
use crate::page::timeline::Focus;
use leptos::prelude::*;

#[component]
pub fn App() -> impl IntoView {
    let state = AppState::new(crate::page::warm_up::page);
    provide_context(Focus(RwSignal::new(None)));
    // A link to the demo trace's report reopens it.
    if crate::page::url_state::opens_demo()
        && let Some(url) = crate::page::assets::demo_trace()
    {
        state.analyze_url(&url, DEMO_NAME);
    }
    chunks::fetch_after_first_paint();
    view! {
        <header class="topbar">
            <div class="topbar-inner">
                <span class="brand">
                    <span class="brand-mark" aria-hidden="true">"◉"</span>
                    "d9lens"
                </span>
                <span class="tagline">"Tokio runtime trace analyzer for dial9 traces"</span>
            </div>
        </header>
        <main class="page">
            <DropZone state=state />
            <S3Panel app=state />
            {move || state.notice.get().map(|n| view! { <p class="notice" data-testid="notice">{n}</p> })}
            <ProgressPanel state=state />
            <ErrorsPanel state=state />
            {move || state.report.get().map(|r| chunks::report(r, state))}
        </main>
        <footer class="footer">
            "d9lens · runs entirely in your browser · numbers as dial9's analyze.js prints them"
        </footer>
    }
}
