//! A host's density strip: bytes uploaded per stretch of time (file size is
//! the load signal), busy stretches in a strong colour, quiet ones pale, gaps
//! empty. At most [`MAX_BINS`] bars whatever the time span.

use d9lens_core::bucket::catalog::{DensityBucket, Load};
use leptos::prelude::*;

pub const MAX_BINS: usize = 60;

/// One bar: `[start, end)` seconds, summed bytes, the strongest load inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bin {
    pub start: u64,
    pub end: u64,
    pub bytes: u64,
    pub load: Option<Load>,
}

/// Groups per-minute buckets into at most `max_bins` equal bins over `[from, to)`.
pub fn bin(buckets: &[DensityBucket], from: u64, to: u64, max_bins: usize) -> Vec<Bin> {
    let from = from - from % 60;
    let to = to.max(from + 60);
    let minutes = (to - from).div_ceil(60) as usize;
    let count = minutes.clamp(1, max_bins.max(1));
    let width = ((to - from) as f64 / count as f64).max(1.0);
    let mut bins: Vec<Bin> = (0..count)
        .map(|i| Bin {
            start: from + (i as f64 * width) as u64,
            end: from + ((i + 1) as f64 * width) as u64,
            bytes: 0,
            load: None,
        })
        .collect();
    for b in buckets {
        if b.minute_secs < from {
            continue;
        }
        let i = (((b.minute_secs - from) as f64 / width) as usize).min(count - 1);
        bins[i].bytes += b.bytes;
        bins[i].load = bins[i].load.max(Some(b.load));
    }
    bins
}

/// The CSS class of a bar.
fn class(load: Option<Load>) -> &'static str {
    match load {
        Some(Load::Busy) => "d-busy",
        Some(Load::Quiet) => "d-quiet",
        _ => "d-empty",
    }
}

/// The SVG path of `bins`' bars of one `class`, in a `WIDTH` × `HEIGHT` box of
/// whole units (hundreds of strips: integers format much faster than floats).
fn bars_path(bins: &[Bin], max: f64, of: &str) -> String {
    use std::fmt::Write;
    let n = bins.len().max(1);
    let width = (WIDTH * 85 / 100 / n).max(4);
    let mut d = String::new();
    for (i, b) in bins
        .iter()
        .enumerate()
        .filter(|(_, b)| b.bytes > 0 && class(b.load) == of)
    {
        // Square-root scale: a quiet minute stays visible next to a busy one.
        let h = ((b.bytes as f64 / max).sqrt() * (HEIGHT - 20) as f64) as usize + 20;
        let _ = write!(d, "M{} {}h{width}v{h}h-{width}z", i * WIDTH / n, HEIGHT - h);
    }
    d
}

const WIDTH: usize = 1000;
const HEIGHT: usize = 200;

/// One path per load class rather than an element per bar: a bucket with
/// hundreds of hosts draws hundreds of strips, and the page stays responsive.
#[component]
pub fn DensityStrip(buckets: Vec<DensityBucket>, from: u64, to: u64, scale: u64) -> impl IntoView {
    let bins = bin(&buckets, from, to, MAX_BINS);
    // One scale for every host (bytes per bin), so heights compare across hosts.
    let max = bins.iter().map(|b| b.bytes).max().unwrap_or(0).max(scale).max(1) as f64;
    let busiest = bins.iter().max_by_key(|b| b.bytes).filter(|b| b.bytes > 0).map(|b| {
        format!(
            "busiest {} – {} UTC: {}",
            super::utc_hm(b.start),
            super::utc_hm(b.end),
            crate::page::units::bytes(b.bytes)
        )
    });
    let title = format!(
        "bytes uploaded per {} over time{}",
        d9lens_core::fmt::secs(bins.first().map_or(60, |b| b.end - b.start)),
        busiest.map(|b| format!("; {b}")).unwrap_or_default()
    );
    let paths = ["d-busy", "d-quiet", "d-empty"]
        .into_iter()
        .map(|class| (bars_path(&bins, max, class), class))
        .filter(|(d, _)| !d.is_empty())
        .map(|(d, class)| view! { <path class=class d=d data-testid="density-bars"></path> })
        .collect_view();
    view! {
        <svg class="density" data-testid="density" viewBox=format!("0 0 {WIDTH} {HEIGHT}") preserveAspectRatio="none" role="img"
            aria-label="upload density over time">
            <title>{title}</title>
            {paths}
        </svg>
    }
}
