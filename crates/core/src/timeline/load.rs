//! How busy each worker was over time: the scene's axis cut into equal bins
//! and, per worker lane of each group, the time spent inside polls in each
//! bin as a fraction of it. One pass over the polls, whatever the bin count.
//! The same bins sum a counter's values (allocated bytes over time).

use super::model::CounterKind;
use super::scene::{RowKind, Scene};

/// One worker of one group (host · boot, or file) over the axis.
#[derive(Debug, Clone, PartialEq)]
pub struct LaneLoad {
    pub group: usize,
    pub runtime: String,
    pub worker: u64,
    /// Per bin, the share of it spent in polls, 0 to 1.
    pub busy: Vec<f64>,
}

/// Every worker row of the scene, in the scene's order, over `bins` bins.
pub fn worker_load(scene: &Scene, bins: usize) -> Vec<LaneLoad> {
    let bins = bins.max(1);
    let width = scene.total / bins as f64;
    scene
        .rows
        .iter()
        .filter_map(|row| match &row.kind {
            RowKind::Worker { group, runtime, worker } => Some((*group, runtime, *worker)),
            _ => None,
        })
        .map(|(group, runtime, worker)| {
            let mut busy = vec![0.0; bins];
            if width > 0.0 {
                for (f, l) in scene.lanes_of(group, worker) {
                    let (map, polls) = (scene.maps[f], &scene.files[f].lanes[l].polls);
                    for i in 0..polls.len() {
                        let a = map.axis(polls.start(i));
                        add(&mut busy, width, a, a + polls.dur(i) as f64);
                    }
                }
                for v in &mut busy {
                    *v = (*v / width).min(1.0);
                }
            }
            LaneLoad {
                group,
                runtime: runtime.clone(),
                worker,
                busy,
            }
        })
        .collect()
}

/// The sum of one kind of counter's values over every file of the scene, in
/// `bins` slices of the axis (allocated bytes over time).
pub fn counter_sums(scene: &Scene, kind: CounterKind, bins: usize) -> Vec<u64> {
    let bins = bins.max(1);
    let mut sums = vec![0u64; bins];
    if scene.total <= 0.0 {
        return sums;
    }
    for (f, file) in scene.files.iter().enumerate() {
        for c in file.counters.iter().filter(|c| c.kind == kind) {
            for (ts, v) in c.points() {
                let at = scene.maps[f].axis(ts) / scene.total * bins as f64;
                let i = (at.max(0.0) as usize).min(bins - 1);
                sums[i] = sums[i].saturating_add(v);
            }
        }
    }
    sums
}

/// Adds the axis interval `[a, b)` to the bins it overlaps.
fn add(busy: &mut [f64], width: f64, a: f64, b: f64) {
    let n = busy.len();
    let (a, b) = (a.max(0.0), b.min(width * n as f64));
    if b <= a {
        return;
    }
    let first = ((a / width) as usize).min(n - 1);
    let last = ((b / width) as usize).min(n - 1);
    for (k, v) in busy.iter_mut().enumerate().take(last + 1).skip(first) {
        let (lo, hi) = (k as f64 * width, (k + 1) as f64 * width);
        *v += b.min(hi) - a.max(lo);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_split_across_bins() {
        let mut busy = vec![0.0; 4];
        add(&mut busy, 10.0, 5.0, 25.0);
        assert_eq!(busy, [5.0, 10.0, 5.0, 0.0]);
        add(&mut busy, 10.0, -5.0, 2.0);
        add(&mut busy, 10.0, 38.0, 90.0);
        assert_eq!(busy, [7.0, 10.0, 5.0, 2.0]);
        add(&mut busy, 10.0, 3.0, 3.0);
        assert_eq!(busy[0], 7.0);
    }
}
