//! A host's density strip: bytes uploaded per stretch of time (file size is
//! the load signal), busy stretches in a strong colour, quiet ones pale, gaps
//! empty. At most [`MAX_BINS`] bars whatever the time span.

use d9lens_core::s3::catalog::{DensityBucket, Load};
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

#[component]
pub fn DensityStrip(buckets: Vec<DensityBucket>, from: u64, to: u64, scale: u64) -> impl IntoView {
    let bins = bin(&buckets, from, to, MAX_BINS);
    // One scale for every host (bytes per bin), so heights compare across hosts.
    let max = bins.iter().map(|b| b.bytes).max().unwrap_or(0).max(scale).max(1) as f64;
    let n = bins.len().max(1) as f64;
    let bars = bins
        .into_iter()
        .enumerate()
        .filter(|(_, b)| b.bytes > 0)
        .map(|(i, b)| {
            // Square-root scale: a quiet minute stays visible next to a busy one.
            let h = (b.bytes as f64 / max).sqrt() * 18.0 + 2.0;
            let class = match b.load {
                Some(Load::Busy) => "d-busy",
                Some(Load::Quiet) => "d-quiet",
                _ => "d-empty",
            };
            let title = format!(
                "{} – {} UTC: {}",
                super::utc_hm(b.start),
                super::utc_hm(b.end),
                crate::units::bytes(b.bytes)
            );
            view! {
                <rect class=class x=format!("{:.2}", i as f64 * 100.0 / n) y=format!("{:.2}", 20.0 - h)
                    width=format!("{:.2}", (100.0 / n * 0.85).max(0.4)) height=format!("{h:.2}")>
                    <title>{title}</title>
                </rect>
            }
        })
        .collect_view();
    view! {
        <svg class="density" data-testid="density" viewBox="0 0 100 20" preserveAspectRatio="none" role="img"
            aria-label="upload density over time">
            {bars}
        </svg>
    }
}
