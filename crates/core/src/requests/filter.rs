//! Flamegraphs of some of a run's samples: those of one spawn location's
//! tasks, taken inside one span name's instances, in polls of a duration
//! band, on one thread, runtime or host. What the page's flamegraph filters
//! ask; an unset filter keeps everything. Task dumps ("where tasks wait")
//! follow the spawn location, span and host filters; they have no poll,
//! thread or runtime, so those filters leave them out.

use super::detail::FileDetail;
use super::kept::Details;
use super::profiles::{ProfileBuilder, inside};
use super::query::{Query, host_boot};
use crate::hashing::FastMap;
use crate::report::Profiles;
use std::collections::BTreeMap;

/// Poll durations a filter picks, by the poll a sample landed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PollBand {
    Under1ms,
    To10ms,
    To50ms,
    Over50ms,
}

impl PollBand {
    pub const ALL: [PollBand; 4] = [
        PollBand::Under1ms,
        PollBand::To10ms,
        PollBand::To50ms,
        PollBand::Over50ms,
    ];

    /// `[lo, hi)`, ns.
    pub fn range(self) -> (u64, u64) {
        match self {
            PollBand::Under1ms => (0, 1_000_000),
            PollBand::To10ms => (1_000_000, 10_000_000),
            PollBand::To50ms => (10_000_000, 50_000_000),
            PollBand::Over50ms => (50_000_000, u64::MAX),
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            PollBand::Under1ms => "polls under 1 ms",
            PollBand::To10ms => "polls of 1–10 ms",
            PollBand::To50ms => "polls of 10–50 ms",
            PollBand::Over50ms => "polls over 50 ms",
        }
    }

    /// By `label`.
    pub fn parse(label: &str) -> Option<PollBand> {
        PollBand::ALL.into_iter().find(|b| b.label() == label)
    }

    fn holds(self, poll_dur: u64) -> bool {
        let (lo, hi) = self.range();
        poll_dur > 0 && poll_dur >= lo && poll_dur < hi
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SampleFilter {
    pub spawn_loc: Option<String>,
    /// Samples taken inside instances of this span name.
    pub span: Option<String>,
    pub poll_band: Option<PollBand>,
    /// A thread id.
    pub thread: Option<u32>,
    pub runtime: Option<String>,
    pub host: Option<String>,
}

impl SampleFilter {
    pub fn is_empty(&self) -> bool {
        *self == SampleFilter::default()
    }
}

/// What each filter can pick, most sampled first (then by name), at most `CHOICES` each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Choices {
    pub spawn_locs: Vec<String>,
    pub spans: Vec<String>,
    pub threads: Vec<u32>,
    pub runtimes: Vec<String>,
    pub hosts: Vec<String>,
}

/// Choices a filter lists.
pub const CHOICES: usize = 50;

/// What the run's kept details offer each filter.
pub fn choices(details: &Details) -> Choices {
    let mut locs: BTreeMap<String, u64> = BTreeMap::new();
    let mut spans: BTreeMap<String, u64> = BTreeMap::new();
    let mut threads: BTreeMap<u32, u64> = BTreeMap::new();
    let mut runtimes: BTreeMap<String, u64> = BTreeMap::new();
    let mut hosts: BTreeMap<String, u64> = BTreeMap::new();
    for d in &details.files {
        let mut by_task: FastMap<u64, u64> = FastMap::default();
        for s in &d.samples {
            *threads.entry(s.tid).or_default() += 1;
            *by_task.entry(s.task).or_default() += 1;
            if let Some(r) = d.runtime(u64::from(s.worker)) {
                *runtimes.entry(r.to_string()).or_default() += 1;
            }
        }
        for (task, n) in by_task {
            if let Some(loc) = d.spawn_loc(task).filter(|_| task != 0) {
                *locs.entry(loc.to_string()).or_default() += n;
            }
        }
        for s in &d.spans {
            *spans.entry(d.text(s.name).to_string()).or_default() += 1;
        }
        if let (Some(h), _) = host_boot(&d.file) {
            *hosts.entry(h).or_default() += d.samples.len() as u64;
        }
    }
    fn top<K: Ord + Clone>(m: BTreeMap<K, u64>) -> Vec<K> {
        let mut v: Vec<(K, u64)> = m.into_iter().collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        v.into_iter().take(CHOICES).map(|(k, _)| k).collect()
    }
    Choices {
        spawn_locs: top(locs),
        spans: top(spans),
        threads: top(threads),
        runtimes: top(runtimes),
        hosts: top(hosts),
    }
}

/// The profiles of the samples and dumps `f` keeps.
pub fn filtered(details: &Details, f: &SampleFilter) -> Profiles {
    let mut builder = ProfileBuilder::default();
    // (Files of another host are passed over below, hits or not.)
    let hits = f.span.as_ref().map(|name| {
        Query {
            name: Some(name.clone()),
            ..Query::default()
        }
        .hits(details)
    });
    for (i, d) in details.files.iter().enumerate() {
        if f.host.is_some() && host_boot(&d.file).0 != f.host {
            continue;
        }
        let Some(keep) = Keep::new(d, f) else { continue };
        let (samples, dumps) = match &hits {
            Some(hits) => {
                let lo = hits.partition_point(|h| (h.file as usize) < i);
                let hi = hits.partition_point(|h| h.file as usize <= i);
                if lo == hi {
                    continue;
                }
                inside(d, hits[lo..hi].iter().map(|h| h.span as usize))
            }
            None => (
                (0..d.samples.len()).collect(),
                d.dumps.iter().enumerate().map(|(k, x)| (k, x.idle_ns)).collect(),
            ),
        };
        let samples: Vec<usize> = samples.into_iter().filter(|&k| keep.sample(d, k)).collect();
        let dumps: Vec<(usize, u64)> = match keep.dumps {
            true => dumps
                .into_iter()
                .filter(|&(k, _)| keep.task(d, d.dumps[k].task))
                .collect(),
            false => Vec::new(),
        };
        builder.add_file(d, &samples, &dumps);
    }
    builder.finish()
}

/// A filter resolved against one file's strings.
struct Keep {
    loc: Option<u32>,
    runtime: Option<u32>,
    band: Option<PollBand>,
    thread: Option<u32>,
    dumps: bool,
}

impl Keep {
    /// `None` when the file holds no sample the filter keeps (a name it lacks).
    fn new(d: &FileDetail, f: &SampleFilter) -> Option<Keep> {
        Some(Keep {
            loc: d.find_wanted(f.spawn_loc.as_deref())?,
            runtime: d.find_wanted(f.runtime.as_deref())?,
            band: f.poll_band,
            thread: f.thread,
            dumps: f.poll_band.is_none() && f.thread.is_none() && f.runtime.is_none(),
        })
    }

    fn task(&self, d: &FileDetail, task: u64) -> bool {
        let Some(loc) = self.loc else { return true };
        task != 0 && d.spawn_loc_id(task) == Some(loc)
    }

    fn sample(&self, d: &FileDetail, k: usize) -> bool {
        let s = &d.samples[k];
        self.band.is_none_or(|b| b.holds(s.poll_dur))
            && self.thread.is_none_or(|t| s.tid == t)
            && self
                .runtime
                .is_none_or(|r| d.runtime_id(u64::from(s.worker)) == Some(r))
            && self.task(d, s.task)
    }
}
