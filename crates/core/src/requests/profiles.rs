//! The sampled stacks of some span instances: those of their tasks taken
//! while they were open (a sample inside two matched instances counts once),
//! and their tasks' dumps weighed by the idle time inside them. What slow
//! versus typical compares, and what a span filter shows as flamegraphs.

use super::detail::{DumpRow, FileDetail, SampleKind as Caught};
use super::kept::Details;
use super::query::Hit;
use crate::analysis::frame_table::{FrameId, FrameTable};
use crate::hashing::FastMap;
use crate::report::{Profiles, Weighted};

/// Weights by stack while profiles are built, one table of frames for all files.
#[derive(Default)]
pub struct ProfileBuilder {
    frames: FrameTable,
    on_cpu: FastMap<Vec<FrameId>, u64>,
    blocking: FastMap<Vec<FrameId>, u64>,
    idle: FastMap<Vec<FrameId>, u64>,
    waits: FastMap<Vec<FrameId>, u64>,
}

impl ProfileBuilder {
    /// Adds what `pick` says of each file's samples and dumps: the sample
    /// indices and the (dump, weight) pairs to count.
    pub fn add_file(&mut self, d: &FileDetail, samples: &[usize], dumps: &[(usize, u64)]) {
        // Weighed by the file's own stack first: each distinct one is remapped once.
        let mut by_stack: FastMap<(Option<Caught>, u32), u64> = FastMap::default();
        for &i in samples {
            let s = &d.samples[i];
            *by_stack.entry((Some(s.kind), s.stack)).or_default() += 1;
        }
        for &(i, weight) in dumps {
            let e = by_stack.entry((None, d.dumps[i].stack)).or_default();
            *e = e.saturating_add(weight);
        }
        let remap = self.frames.absorb(d.frames.clone());
        for ((kind, stack), weight) in by_stack {
            let map = match kind {
                Some(Caught::OnCpu) => &mut self.on_cpu,
                Some(Caught::Blocking) => &mut self.blocking,
                Some(Caught::Idle) => &mut self.idle,
                None => &mut self.waits,
            };
            let e = map.entry(remap.stack(d.stacks.get(stack))).or_default();
            *e = e.saturating_add(weight);
        }
    }

    pub fn finish(self) -> Profiles {
        let weighted = |m: FastMap<Vec<FrameId>, u64>| {
            let mut v: Vec<Weighted> = m
                .into_iter()
                .map(|(stack, weight)| Weighted {
                    weight,
                    stack: stack.iter().map(|id| id.index()).collect(),
                })
                .collect();
            // Heaviest first; equals in a fixed order.
            v.sort_by(|a, b| b.weight.cmp(&a.weight).then_with(|| a.stack.cmp(&b.stack)));
            v
        };
        Profiles {
            frames: self.frames.to_vec(),
            on_cpu: weighted(self.on_cpu),
            blocking: weighted(self.blocking),
            idle: weighted(self.idle),
            alloc_bytes: Vec::new(),
            waits: weighted(self.waits),
        }
    }
}

/// The profiles of some instances.
pub fn profiles_of(details: &Details, hits: &[Hit]) -> Profiles {
    let mut builder = ProfileBuilder::default();
    let mut at = 0;
    while at < hits.len() {
        let file = hits[at].file;
        let n = hits[at..].iter().take_while(|h| h.file == file).count();
        let d = &details.files[file as usize];
        let (samples, dumps) = inside(d, hits[at..at + n].iter().map(|h| h.span as usize));
        builder.add_file(d, &samples, &dumps);
        at += n;
    }
    builder.finish()
}

/// The samples (indices) taken in some spans' tasks while the spans were
/// open, each once, and the dumps in them with the idle time inside each.
pub fn inside(d: &FileDetail, spans: impl Iterator<Item = usize>) -> (Vec<usize>, Vec<(usize, u64)>) {
    let mut samples = Vec::new();
    let mut dumps: FastMap<usize, u64> = FastMap::default();
    for i in spans {
        let s = &d.spans[i];
        if s.task == 0 {
            continue;
        }
        let (from, to) = (s.start, s.end());
        let base = d.samples.partition_point(|x| (x.task, x.ts) < (s.task, from));
        samples.extend(base..base + d.samples_of(s.task, from, to).len());
        let base = d.dumps.partition_point(|x| (x.task, x.ts) < (s.task, from));
        for (k, dump) in d.dumps_of(s.task, from, to).iter().enumerate() {
            let w = idle_within(dump, to);
            let e = dumps.entry(base + k).or_default();
            *e = (*e).max(w);
        }
    }
    samples.sort_unstable();
    samples.dedup();
    let mut dumps: Vec<(usize, u64)> = dumps.into_iter().collect();
    dumps.sort_unstable();
    (samples, dumps)
}

/// The idle time after a dump, up to `end`.
pub fn idle_within(dump: &DumpRow, end: u64) -> u64 {
    dump.idle_ns.min(end.saturating_sub(dump.ts))
}
