//! The bucket summary: date range, services, hosts by subnet, boots with
//! restarts, load (busy vs quiet) and density, gaps and missing segments, and
//! the objects that are not segments.

use super::density::DensityStrip;
use super::find_box::FindBox;
use super::selection::SelectionState;
use super::window_bar::WindowBar;
use super::{Discovery, ListingStatus, utc};
use crate::page::units;
use d9lens_core::bucket::catalog::{
    BootStart, BootSummary, CatalogSummary, HostKey, HostSummary, OtherGroup, Selection, ServiceSummary,
};
use d9lens_core::bucket::listing_plan::ListingProgress;
use d9lens_core::bucket::spec::SelectionSpec;
use d9lens_core::fmt::secs as duration;
use leptos::prelude::*;
use std::sync::Arc;

/// Hosts shown per service (the counts above always cover all of them).
const MAX_HOSTS_SHOWN: usize = 200;
/// Segment chips shown for the selected host.
const MAX_CHIPS: usize = 300;

#[component]
pub fn DiscoveryView(discovery: Discovery, sel: SelectionState) -> impl IntoView {
    let status = move || {
        let s = discovery.status.get();
        let w = &s.walk;
        let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let pages = plural(w.pages, "page", "pages");
        let prefixes = plural(w.partitions as u64, "prefix", "prefixes");
        let elapsed = units::elapsed(s.elapsed_ms);
        if s.running {
            format!(
                "Listing… {} objects · {} of {prefixes} listed, {} at once · {pages} ({elapsed})",
                s.objects, w.partitions_listed, w.in_flight
            )
        } else if s.done {
            format!("Listed {} objects in {pages} over {prefixes} ({elapsed})", s.objects)
        } else {
            format!(
                "Listing stopped: {} objects in {pages} over {prefixes} ({elapsed})",
                s.objects
            )
        }
    };
    // The catalog worker's own times, for benchmarks (scripts/bench-browser.mjs).
    let timing = move |f: fn(&ListingStatus) -> f64| move || format!("{:.1}", discovery.status.with(f));
    let count = move |f: fn(&ListingStatus) -> u64| move || discovery.status.with(f).to_string();
    // Memoized: the box (and what is typed in it) stays while summaries stream in.
    let has_segments = Memo::new(move |_| discovery.summary.with(|s| s.as_ref().is_some_and(|s| s.segments > 0)));
    view! {
        <section class="card discovery" data-testid="discovery" data-done=move || discovery.status.get().done.to_string()>
            <h2 class="panel-title">"What the bucket holds"</h2>
            <p class="muted" data-testid="listing-status" data-elapsed-ms=timing(|s| s.elapsed_ms)
                data-worker-pages-ms=timing(|s| s.worker_pages_ms) data-worker-summary-ms=timing(|s| s.worker_summary_ms)
                data-objects=count(|s| s.objects) data-pages=count(|s| s.walk.pages) data-prefixes=count(|s| s.walk.partitions as u64)>
                {status}
            </p>
            <WindowBar discovery=discovery/>
            {move || has_segments.get().then(|| view! { <FindBox discovery=discovery sel=sel/> })}
            {move || not_listed_view(&discovery.status.get().walk)}
            {move || discovery.summary.get().map(|s| summary_view(s, discovery, sel))}
        </section>
    }
}

/// What a cap or a failed listing left out, prefix by prefix (the core says why).
fn not_listed_view(walk: &ListingProgress) -> Option<impl IntoView + use<>> {
    let note = walk.truncation_note()?;
    let more = walk.not_listed_count.saturating_sub(walk.not_listed.len());
    let items = walk
        .not_listed
        .iter()
        .map(|n| view! { <li data-testid="not-listed" data-prefix=n.prefix.clone()>{n.to_string()}</li> })
        .collect_view();
    Some(view! {
        <div class="warning" data-testid="listing-truncated" data-count=walk.not_listed_count.to_string()>
            <p>{note}</p>
            <ul class="not-listed">{items}</ul>
            {(more > 0).then(|| view! { <p class="muted">{format!("… and {more} more")}</p> })}
        </div>
    })
}

fn summary_view(s: Arc<CatalogSummary>, discovery: Discovery, sel: SelectionState) -> impl IntoView {
    let range = s
        .time_range
        .map(|r| format!("{} – {} UTC", utc(r.first_start_secs), utc(r.last_start_secs)))
        .unwrap_or_else(|| "no segments".into());
    let dates: Vec<String> = s.dates.iter().map(|d| d.to_string()).collect();
    let layouts = format!("{} v1 · {} positional", s.v1_segments, s.positional_segments);
    let services = s.services.clone();
    // The busiest minute anywhere: every strip is drawn to this scale.
    let scale = s
        .services
        .iter()
        .flat_map(|svc| {
            svc.subnets
                .iter()
                .flat_map(|g| g.hosts.iter().flat_map(|h| h.density.iter().map(|b| b.bytes)))
        })
        .max()
        .unwrap_or(0);
    let others = s.others.clone();
    view! {
        <div class="stats">
            {stat("Objects", s.objects.to_string(), "disc-objects")}
            {stat("Segments", format!("{} ({})", s.segments, units::bytes(s.segment_bytes)), "disc-segments")}
            {stat("Services", s.services.len().to_string(), "disc-services")}
            {stat("Hosts", s.instances.len().to_string(), "disc-hosts")}
            {stat("Layouts", layouts, "disc-layouts")}
        </div>
        <p class="range">
            "Segments from " <strong data-testid="discovery-range">{range}</strong>
            " · dates " <span data-testid="discovery-dates">{dates.join(", ")}</span>
        </p>
        <p class="muted small legend">
            <span class="swatch busy"></span>" busy (≥ "{units::bytes(s.load.busy_bytes.unwrap_or(0))}" per segment) "
            <span class="swatch quiet"></span>" quiet · bars: bytes uploaded over time, per host · click a host or boot to select it"
        </p>
        {services.into_iter().map(|svc| service_view(svc, scale, discovery, sel)).collect_view()}
        {others_view(others)}
    }
}

fn stat(label: &'static str, value: String, testid: &'static str) -> impl IntoView {
    view! {
        <div class="stat">
            <div class="stat-label">{label}</div>
            <div class="stat-value" data-testid=testid>{value}</div>
        </div>
    }
}

fn service_view(svc: ServiceSummary, scale: u64, discovery: Discovery, sel: SelectionState) -> impl IntoView {
    let name = svc.name.clone();
    let mut shown = 0usize;
    let subnets = svc
        .subnets
        .into_iter()
        .map(|group| {
            let label = group
                .subnet
                .map(|s| s.to_string())
                .unwrap_or_else(|| "hosts without an IP address".into());
            let hosts: Vec<HostSummary> = group
                .hosts
                .into_iter()
                .take(MAX_HOSTS_SHOWN.saturating_sub(shown))
                .collect();
            shown += hosts.len();
            let hosts = hosts
                .into_iter()
                .map(|h| host_view(name.clone(), h, scale, discovery, sel))
                .collect_view();
            view! {
                <div class="subnet" data-testid="subnet">
                    <h4 class="subnet-title">{label}</h4>
                    {hosts}
                </div>
            }
        })
        .collect_view();
    let hidden = (svc.hosts as usize).saturating_sub(shown);
    view! {
        <div class="service" data-testid="service" data-service=svc.name.clone()>
            <h3 class="service-title">
                <span class="service-name">{svc.name.clone()}</span>
                <span class="muted">
                    {format!(" {} host{} · {} segments · {}", svc.hosts, if svc.hosts == 1 { "" } else { "s" }, svc.segments, units::bytes(svc.bytes))}
                </span>
            </h3>
            {subnets}
            {(hidden > 0).then(|| view! { <p class="muted">{format!("… and {hidden} more hosts (narrow the prefix to see them)")}</p> })}
        </div>
    }
}

fn host_view(service: String, h: HostSummary, scale: u64, discovery: Discovery, sel: SelectionState) -> impl IntoView {
    let key = HostKey::new(&service, &h.instance);
    let load = if h.busy_segments > 0 { "busy" } else { "quiet" };
    let pick = {
        let key = key.clone();
        let (from, to) = (h.first_start_secs, h.last_start_secs);
        move |_| sel.pick_host(key.clone(), from, to)
    };
    let selected = {
        let key = key.clone();
        move || sel.host.get().as_ref() == Some(&key)
    };
    let loads = format!(
        "{} busy · {} quiet{}",
        h.busy_segments,
        h.quiet_segments,
        if h.empty_segments > 0 {
            format!(" · {} empty", h.empty_segments)
        } else {
            String::new()
        }
    );
    let from = h.first_start_secs;
    let to = h
        .boots
        .iter()
        .map(|b| b.end_secs)
        .max()
        .unwrap_or(h.last_start_secs + 60);
    let gaps = h
        .gaps
        .iter()
        .map(|g| {
            let text = format!(
                "no segments {} – {} UTC ({})",
                utc(g.from_secs),
                utc(g.to_secs),
                duration(g.to_secs - g.from_secs)
            );
            view! { <li class="gap" data-testid="gap">{text}</li> }
        })
        .collect_view();
    let boots = h
        .boots
        .iter()
        .cloned()
        .map(|b| boot_view(key.clone(), b, sel))
        .collect_view();
    let chips_key = key.clone();
    view! {
        <div class="host" class:selected=selected data-testid="host" data-host=h.instance.clone() data-service=service.clone() data-load=load>
            <div class="host-head">
                <button type="button" class="linkish host-name" data-testid="host-pick" on:click=pick>{h.instance.clone()}</button>
                <span class=format!("badge {load}") data-testid="host-load">{load}</span>
                <span class="muted">{format!("{} segments · {}", h.segments, units::bytes(h.bytes))}</span>
                <span class="muted">{loads}</span>
            </div>
            <DensityStrip buckets=h.density.clone() from=from to=to scale=scale />
            <ul class="boots">{boots}</ul>
            <ul class="gaps">{gaps}</ul>
            {move || (sel.host.get().as_ref() == Some(&chips_key)).then(|| view! { <Chips host=chips_key.clone() discovery=discovery sel=sel /> })}
        </div>
    }
}

fn boot_view(host: HostKey, b: BootSummary, sel: SelectionState) -> impl IntoView {
    let name = b.boot.clone().unwrap_or_else(|| "(no boot id)".into());
    let restart = matches!(b.start, BootStart::Restart { .. });
    let start_text = b.start.describe().unwrap_or_default();
    let anomalies = b
        .anomalies
        .iter()
        .map(|a| {
            let text = a.to_string();
            view! { <span class="anomaly" data-testid="anomaly">{text}</span> }
        })
        .collect_view();
    let (from, to) = (b.first_start_secs, b.last_start_secs);
    let boot_id = name.clone();
    // A guessed end is marked: no upload time says when the last segment closed.
    let end = format!("{}{}", if b.end_guessed { "~" } else { "" }, super::utc_hm(b.end_secs));
    let end_title = b
        .end_guessed
        .then_some("~: the end is estimated from the boot's cadence (no upload time confirms it)");
    view! {
        <li class="boot" class:restart=restart data-testid="boot" data-boot=boot_id data-restart=restart.to_string()>
            <button type="button" class="linkish" data-testid="boot-pick" on:click=move |_| sel.pick_host(host.clone(), from, to)>
                {format!("boot {name}")}
            </button>
            <span class="muted" title=end_title>
                {format!(" {} – {end} · {} segments (index {}–{}) · {}", utc(b.first_start_secs), b.segments, b.first_index, b.last_index, units::bytes(b.bytes))}
            </span>
            {restart.then(|| view! { <span class="badge restart" data-testid="restart">{start_text.clone()}</span> })}
            {(!restart && !start_text.is_empty()).then(|| view! { <span class="badge">{start_text.clone()}</span> })}
            {anomalies}
        </li>
    }
}

/// The selected host's segments (from the catalog worker), each clickable to analyze alone.
#[component]
fn Chips(host: HostKey, discovery: Discovery, sel: SelectionState) -> impl IntoView {
    let segments = RwSignal::new(None::<Selection>);
    let spec = SelectionSpec::Host {
        service: host.service,
        instance: host.instance,
        from: 0,
        to: u64::MAX,
    };
    wasm_bindgen_futures::spawn_local(async move {
        let selection = discovery.resolve(spec).await;
        segments.try_set(Some(selection));
    });
    move || segments.get().map(|s| chip_list(s, sel))
}

fn chip_list(segments: Selection, sel: SelectionState) -> impl IntoView {
    let more = segments.len().saturating_sub(MAX_CHIPS);
    let items = segments
        .segments
        .into_iter()
        .take(MAX_CHIPS)
        .map(|s| {
            let key = s.segment.key.clone();
            let click_key = key.clone();
            let is_selected = key.clone();
            let label = format!("#{} {}", s.segment.parts.segment_index, super::utc_hm(s.segment.parts.epoch_secs));
            let title = format!("{} · {}", key, units::bytes(s.segment.size));
            let class = format!("seg-chip {}", serde_json::to_value(s.load).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default());
            view! {
                <button type="button" class=class title=title data-testid="segment-chip" data-key=key
                    class:selected=move || sel.mode.get() == super::selection::Mode::Single && sel.single.get().as_deref() == Some(is_selected.as_str())
                    on:click=move |_| sel.pick_segment(click_key.clone())>
                    {label}
                </button>
            }
        })
        .collect_view();
    view! {
        <div class="chips">
            <span class="muted small">"Segments (click one to analyze it alone): "</span>
            {items}
            {(more > 0).then(|| view! { <span class="muted">{format!(" … {more} more")}</span> })}
        </div>
    }
}

fn others_view(groups: Vec<OtherGroup>) -> impl IntoView {
    let count: usize = groups.iter().map(|g| g.objects.len()).sum();
    (count > 0).then(|| {
        let items = groups
            .into_iter()
            .flat_map(|g| g.objects)
            .take(500)
            .map(|o| {
                let key = o.key.clone();
                view! {
                    <li data-testid="non-segment" data-key=key>
                        <code class="key">{o.key.clone()}</code>
                        <span class="muted">{format!(" {} · ", units::bytes(o.size))}</span>
                        <span class="reason">{o.reason.to_string()}</span>
                    </li>
                }
            })
            .collect_view();
        view! {
            <div class="others" data-testid="non-segments">
                <h3 class="service-title">{format!("{count} object{} that are not trace segments", if count == 1 { "" } else { "s" })}</h3>
                <ul class="other-list">{items}</ul>
            </div>
        }
    })
}
