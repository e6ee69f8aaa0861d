//! Analysis: one trace file → a `Partial`; partials merge (any order in,
//! same report out) into a `Report`.

pub(crate) mod delays;
#[cfg(not(target_arch = "wasm32"))]
pub mod fetched;
mod file;
mod flag_counts;
mod fold;
pub mod frame_table;
mod lifecycle;
mod memory;
mod merge;
mod options;
mod partial;
pub mod process;
mod red_flags;
mod series;
mod setup;
mod spawn_locs;
pub mod stacks;
mod task_ids;
mod timeline;
pub(crate) mod workers;

pub use file::{FileAnalysis, FileOutcome, TraceAnalysis, analyze_file};
pub use merge::{Merger, in_fold_order};
pub use options::Options;
pub use partial::{Build, Partial};

/// `N` items picked evenly (indices floor(i × count / N)), always including the first; all when N ≥ count.
pub fn sample_evenly<T: Clone>(items: &[T], n: usize) -> Vec<T> {
    if n == 0 || n >= items.len() {
        return items.to_vec();
    }
    let step = items.len() as f64 / n as f64;
    (0..n)
        .map(|i| items[(i as f64 * step).floor() as usize].clone())
        .collect()
}

pub mod crash;
pub mod diagnose;
pub mod inspect;
pub mod interim;
pub mod wire;
pub mod zoom;
