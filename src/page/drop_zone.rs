//! Getting traces in: drop files or folders anywhere on the page, pick files,
//! or open the bundled demo trace.

use crate::page::session::{AppState, Input};
use crate::page::worker_pool::Source;
use leptos::ev;
use leptos::prelude::*;
use std::collections::HashMap;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// Where the bundled demo trace is served (a gzip trace despite its name).
pub const DEMO_NAME: &str = "demo-trace.bin";

#[component]
pub fn DropZone(state: AppState) -> impl IntoView {
    let dragging = RwSignal::new(false);
    install_window_drop(state, dragging);

    let on_pick = move |ev: ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        if let Some(list) = input.files() {
            let files = (0..list.length()).filter_map(|i| list.item(i)).collect::<Vec<_>>();
            crate::page::url_state::start_run("");
            state.analyze(dedupe(files.into_iter().map(|f| (f.name(), f)).collect()));
        }
        // Picking the same file again must fire `change` again.
        input.set_value("");
    };

    view! {
        <section class="drop-zone" class:dragging=move || dragging.get() data-testid="drop-zone">
            <div class="drop-text">
                <p class="drop-title">"Drop dial9 trace files or folders anywhere on this page"</p>
                <p class="drop-sub">
                    "Raw " <code>".bin"</code> " or gzipped " <code>".bin.gz"</code>
                    " segments; a folder is searched recursively. Files opened together give one merged report. "
                    "Nothing is uploaded: the analysis runs in this browser."
                </p>
            </div>
            <div class="drop-actions">
                <label class="button primary">
                    "Choose files…"
                    <input type="file" multiple data-testid="file-input" class="visually-hidden" on:change=on_pick />
                </label>
                {crate::page::assets::demo_trace().map(|url| view! {
                    <button
                        type="button"
                        class="button"
                        data-testid="open-demo"
                        on:click=move |_| {
                            crate::page::url_state::start_run(crate::page::url_state::DEMO);
                            state.analyze_url(&url, DEMO_NAME)
                        }
                    >
                        "Open the demo trace"
                    </button>
                })}
            </div>
        </section>
        <div class="drop-overlay" class:visible=move || dragging.get() aria-hidden="true">
            <div class="drop-overlay-box">"Drop to analyze"</div>
        </div>
    }
}

/// Makes the whole window a drop target (and stops the browser from opening
/// a file dropped outside the drop zone).
fn install_window_drop(state: AppState, dragging: RwSignal<bool>) {
    let carries_files = |ev: &web_sys::DragEvent| {
        ev.data_transfer().is_some_and(|dt| {
            (0..dt.types().length()).any(|i| dt.types().get(i).as_string().as_deref() == Some("Files"))
        })
    };
    let depth = StoredValue::new(0i32);
    let _ = window_event_listener(ev::dragenter, move |ev| {
        if carries_files(&ev) {
            ev.prevent_default();
            depth.update_value(|d| *d += 1);
            dragging.set(true);
        }
    });
    let _ = window_event_listener(ev::dragover, move |ev| {
        ev.prevent_default();
        if let Some(dt) = ev.data_transfer() {
            dt.set_drop_effect("copy");
        }
    });
    let _ = window_event_listener(ev::dragleave, move |_| {
        depth.update_value(|d| *d -= 1);
        if depth.get_value() <= 0 {
            depth.set_value(0);
            dragging.set(false);
        }
    });
    let _ = window_event_listener(ev::drop, move |ev| {
        ev.prevent_default();
        depth.set_value(0);
        dragging.set(false);
        let Some(dt) = ev.data_transfer() else { return };
        let pending = take_dropped(&dt);
        wasm_bindgen_futures::spawn_local(async move {
            let files = collect(pending).await;
            crate::page::url_state::start_run("");
            state.analyze(dedupe(files));
        });
    });
}

/// What a drop carried, taken synchronously (the items die with the event).
enum Dropped {
    Entry(web_sys::FileSystemEntry),
    File(web_sys::File),
}

fn take_dropped(dt: &web_sys::DataTransfer) -> Vec<Dropped> {
    let mut out = Vec::new();
    let items = dt.items();
    for i in 0..items.length() {
        let Some(item) = items.get(i) else { continue };
        if item.kind() != "file" {
            continue;
        }
        match item.webkit_get_as_entry() {
            Ok(Some(entry)) => out.push(Dropped::Entry(entry)),
            _ => {
                if let Ok(Some(file)) = item.get_as_file() {
                    out.push(Dropped::File(file));
                }
            }
        }
    }
    if out.is_empty()
        && let Some(list) = dt.files()
    {
        out.extend((0..list.length()).filter_map(|i| list.item(i)).map(Dropped::File));
    }
    out
}

/// Resolves dropped entries to files: files dropped directly are kept
/// whatever their name (content decides); inside folders only `.bin` and
/// `.bin.gz` are taken, named by their path in the folder.
async fn collect(dropped: Vec<Dropped>) -> Vec<(String, web_sys::File)> {
    let mut out = Vec::new();
    let mut dirs: Vec<web_sys::FileSystemDirectoryEntry> = Vec::new();
    for d in dropped {
        match d {
            Dropped::File(file) => out.push((file.name(), file)),
            Dropped::Entry(entry) if entry.is_directory() => dirs.push(entry.unchecked_into()),
            Dropped::Entry(entry) => {
                if let Ok(file) = entry_file(entry.unchecked_ref()).await {
                    out.push((file.name(), file));
                }
            }
        }
    }
    while let Some(dir) = dirs.pop() {
        let reader = dir.create_reader();
        // readEntries returns at most ~100 entries per call: repeat until empty.
        loop {
            let Ok(batch) = read_entries(&reader).await else { break };
            if batch.length() == 0 {
                break;
            }
            for value in batch.iter() {
                let entry: web_sys::FileSystemEntry = value.unchecked_into();
                if entry.is_directory() {
                    dirs.push(entry.unchecked_into());
                } else if is_trace_name(&entry.name())
                    && let Ok(file) = entry_file(entry.unchecked_ref()).await
                {
                    let path = entry.full_path();
                    out.push((path.trim_start_matches('/').to_string(), file));
                }
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

pub fn is_trace_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".bin") || lower.ends_with(".bin.gz")
}

/// Turns named files into inputs, making names unique (the merged report keys
/// files by name).
fn dedupe(files: Vec<(String, web_sys::File)>) -> Vec<Input> {
    let mut seen: HashMap<String, u32> = HashMap::new();
    files
        .into_iter()
        .map(|(name, file)| {
            let n = seen.entry(name.clone()).or_insert(0);
            *n += 1;
            let name = if *n == 1 { name } else { format!("{name} ({n})") };
            Input {
                name,
                size: Some(file.size() as u64),
                source: Source::Blob(file.into()),
            }
        })
        .collect()
}

async fn entry_file(entry: &web_sys::FileSystemFileEntry) -> Result<web_sys::File, JsValue> {
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        entry.file_with_callback_and_callback(&resolve, &reject);
    });
    JsFuture::from(promise).await.map(|v| v.unchecked_into())
}

async fn read_entries(reader: &web_sys::FileSystemDirectoryReader) -> Result<js_sys::Array, JsValue> {
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        if let Err(err) = reader.read_entries_with_callback_and_callback(&resolve, &reject) {
            let _ = reject.call1(&JsValue::NULL, &err);
        }
    });
    JsFuture::from(promise).await.map(|v| v.unchecked_into())
}
