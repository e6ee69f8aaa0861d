//! One window of a trace: what started in it, whole. Polls and spans that
//! began in the window keep their full length (a long poll is never cut in
//! two), and the workers' parked and running time is cut at the window's
//! edges, so the analysis of a window reads like the analysis of a trace
//! recorded over just that time.

use super::model::{ParsedTrace, SpanEvent, WorkerEvent, WorkerEventKind};
use crate::hashing::FastMap;
use serde::{Deserialize, Serialize};

/// A time range of one trace, in ns from its first event (as `d9lens zoom`
/// and the page's window chip count): `[from_ns, to_ns)`, reaching the
/// trace's end when `to_ns` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Window {
    from_ns: u64,
    to_ns: u64,
}

impl Window {
    /// The window between two offsets, in either order.
    pub fn new(a_ns: u64, b_ns: u64) -> Self {
        Window {
            from_ns: a_ns.min(b_ns),
            to_ns: a_ns.max(b_ns),
        }
    }

    /// From `from_ms` to `to_ms` after the trace's start (`None` unless both
    /// are finite and not negative).
    pub fn from_ms(from_ms: f64, to_ms: f64) -> Option<Self> {
        let ns = |ms: f64| (ms.is_finite() && ms >= 0.0).then(|| (ms * 1e6).min(u64::MAX as f64) as u64);
        Some(Window::new(ns(from_ms)?, ns(to_ms)?))
    }

    pub fn from_ns(&self) -> u64 {
        self.from_ns
    }

    pub fn to_ns(&self) -> u64 {
        self.to_ns
    }
}

fn is_park_or_unpark(e: &WorkerEvent) -> bool {
    matches!(e.kind, WorkerEventKind::Park { .. } | WorkerEventKind::Unpark { .. })
}

/// The worker's CPU-time counter at `at`, between an unpark's reading and the
/// next park's (a straight line: the active period's own CPU ratio).
fn cpu_at(unpark: (u64, u64), park: Option<(u64, u64)>, at: u64) -> u64 {
    let (t0, c0) = unpark;
    match park {
        Some((t1, c1)) if t1 > t0 && c1 > c0 => {
            let part = u128::from(c1 - c0) * u128::from(at.clamp(t0, t1) - t0) / u128::from(t1 - t0);
            c0 + part as u64
        }
        _ => c0,
    }
}

fn park_reading(e: &WorkerEvent) -> Option<(u64, u64)> {
    match e.kind {
        WorkerEventKind::Park { cpu_time, .. } => Some((e.ts, cpu_time)),
        _ => None,
    }
}

/// One worker's events (in time order) started in `[s, e)`, with the state it
/// was in at `s` and at the end made explicit. Returns them and when the
/// last poll kept ended (`e`, or later for a poll still running at `e`).
fn clip_worker(events: &[WorkerEvent], s: u64, e: u64) -> (Vec<WorkerEvent>, u64) {
    let a = events.partition_point(|x| x.ts < s);
    let b = events.partition_point(|x| x.ts < e);
    let mut out = Vec::with_capacity(b - a + 3);
    let next_park = |from: usize| events[from..].iter().find_map(park_reading);
    // Parked at `s`, or running since an unpark: say so at `s`.
    match events[..a].iter().rev().find(|x| is_park_or_unpark(x)) {
        Some(&WorkerEvent {
            kind: kind @ WorkerEventKind::Park { .. },
            ..
        }) => out.push(WorkerEvent { ts: s, kind }),
        Some(&WorkerEvent {
            ts,
            kind: WorkerEventKind::Unpark { cpu_time, tid, .. },
        }) => out.push(WorkerEvent {
            ts: s,
            kind: WorkerEventKind::Unpark {
                cpu_time: cpu_at((ts, cpu_time), next_park(a), s),
                sched_wait: None.into(),
                tid,
            },
        }),
        _ => {}
    }
    out.extend_from_slice(&events[a..b]);
    let mut end = e;
    // A poll still running at `e` is kept whole, closed where it ended.
    if let (Some(last), Some(next)) = (out.last(), events.get(b))
        && matches!(last.kind, WorkerEventKind::PollStart { .. })
    {
        end = next.ts;
        out.push(WorkerEvent {
            ts: next.ts,
            kind: WorkerEventKind::PollEnd,
        });
    }
    // Running at the end: the active period closes there.
    if let Some(&WorkerEvent {
        ts,
        kind: WorkerEventKind::Unpark { cpu_time, tid, .. },
    }) = out.iter().rev().find(|x| is_park_or_unpark(x))
        && let Some(park) = next_park(b)
    {
        out.push(WorkerEvent {
            ts: end,
            kind: WorkerEventKind::Park {
                cpu_time: cpu_at((ts, cpu_time), Some(park), end),
                tid,
            },
        });
    }
    (out, end)
}

impl ParsedTrace {
    /// Keeps what started in `window` (see the module's doc). A window
    /// covering the whole trace changes nothing; one outside it leaves no events.
    pub fn clip(&mut self, window: Window) {
        let Some((lo, hi)) = self.bounds else { return };
        let s = lo.saturating_add(window.from_ns);
        let to = lo.saturating_add(window.to_ns);
        if s <= lo && to >= hi {
            return;
        }
        // Half-open, except that a window reaching the end keeps the last event.
        let e = if to >= hi { u64::MAX } else { to };
        let inside = |ts: u64| s <= ts && ts < e;
        let mut last = to.min(hi);
        let mut runtime_events = 0;
        // Polls kept past the window's end: (worker, start, end).
        let mut spilled: Vec<(u64, u64, u64)> = Vec::new();
        for (&w, events) in &mut self.workers {
            if !events.is_sorted_by_key(|x| x.ts) {
                events.sort_by_key(|x| x.ts);
            }
            let (kept, end) = clip_worker(events, s, e);
            if end > to.min(hi) {
                let start = kept
                    .iter()
                    .rev()
                    .find(|x| matches!(x.kind, WorkerEventKind::PollStart { .. }))
                    .map_or(end, |x| x.ts);
                spilled.push((w, start, end));
                last = last.max(end);
            }
            runtime_events += kept.len() as u64;
            *events = kept;
        }
        self.workers.retain(|_, events| !events.is_empty());
        self.wakes.retain(|x| inside(x.ts));
        self.queue_samples.retain(|x| inside(x.0));
        runtime_events += (self.wakes.len() + self.queue_samples.len()) as u64;
        self.runtime_events = runtime_events;
        self.samples.retain(|x| {
            inside(x.ts)
                || spilled
                    .iter()
                    .any(|&(w, start, end)| x.worker == w && start <= x.ts && x.ts <= end)
        });
        self.allocs.retain(|x| inside(x.ts));
        self.frees.retain(|x| inside(x.alloc_ts));
        self.runtime_metrics.retain(|x| inside(x.ts));
        self.app.retain(inside);
        self.legacy_active_tasks.retain(|x| inside(x.0));
        self.task_spawn_times.retain(|_, &mut ts| inside(ts));
        self.task_terminate_times.retain(|_, &mut ts| inside(ts));
        self.gaps.retain(|g| g.end >= s && g.start < e);
        self.clip_spans(&inside);
        let bound = |b: Option<(u64, u64)>| b.map(|(l, h)| (l.max(s), h.min(last))).filter(|(l, h)| l <= h);
        self.runtime_bounds = bound(self.runtime_bounds);
        self.bounds = bound(self.bounds);
    }

    /// Spans whose first enter (or, for single-event spans, whose start) is
    /// in the window, with all their events.
    fn clip_spans(&mut self, inside: &impl Fn(u64) -> bool) {
        let mut first_enter: FastMap<u64, u64> = FastMap::default();
        for x in &self.span_events {
            if let SpanEvent::Enter { span_id, .. } = x.event {
                let t = first_enter.entry(span_id).or_insert(x.ts);
                *t = (*t).min(x.ts);
            }
        }
        self.span_events.retain(|x| match x.event {
            SpanEvent::Single { start, .. } => inside(start),
            SpanEvent::Enter { span_id, .. } | SpanEvent::Exit { span_id, .. } | SpanEvent::Close { span_id } => {
                first_enter.get(&span_id).is_some_and(|&t| inside(t))
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{OptTid, OptU64};

    fn poll(ts: u64, task_id: u64) -> WorkerEvent {
        WorkerEvent {
            ts,
            kind: WorkerEventKind::PollStart {
                task_id,
                spawn_loc: None,
                scheduling_delay: OptU64::NONE,
            },
        }
    }

    fn ev(ts: u64, kind: WorkerEventKind) -> WorkerEvent {
        WorkerEvent { ts, kind }
    }

    const END: WorkerEventKind = WorkerEventKind::PollEnd;

    fn park(cpu_time: u64) -> WorkerEventKind {
        WorkerEventKind::Park {
            cpu_time,
            tid: OptTid::from(Some(7)),
        }
    }

    fn unpark(cpu_time: u64) -> WorkerEventKind {
        WorkerEventKind::Unpark {
            cpu_time,
            sched_wait: OptU64::NONE,
            tid: OptTid::from(Some(7)),
        }
    }

    #[test]
    fn a_worker_is_cut_at_the_edges_and_its_last_poll_kept_whole() {
        // Unpark at 0 (cpu 0), polls 10-20 and 40-70, park at 80 (cpu 40).
        let events = [
            ev(0, unpark(0)),
            poll(10, 1),
            ev(20, END),
            poll(40, 2),
            ev(70, END),
            ev(80, park(40)),
            ev(100, unpark(40)),
        ];
        let (kept, end) = clip_worker(&events, 15, 50);
        let got: Vec<(u64, String)> = kept.iter().map(|x| (x.ts, format!("{:?}", x.kind))).collect();
        // Running at 15: an unpark there, its CPU counter on the 0→40 line.
        assert_eq!(got[0].0, 15);
        assert!(got[0].1.starts_with("Unpark { cpu_time: 7,"), "{got:?}");
        // The orphan end at 20 stays (the walk ignores it), the poll at 40
        // ends at 70 although the window ends at 50, and the active period
        // closes there.
        assert_eq!(kept.iter().map(|x| x.ts).collect::<Vec<_>>(), [15, 20, 40, 70, 70]);
        assert_eq!(end, 70);
        assert!(matches!(kept[4].kind, WorkerEventKind::Park { cpu_time: 34, .. }));
        // Parked at 85: a park there.
        let (kept, _) = clip_worker(&events, 85, 200);
        assert_eq!(kept.iter().map(|x| x.ts).collect::<Vec<_>>(), [85, 100]);
        assert!(matches!(kept[0].kind, WorkerEventKind::Park { cpu_time: 40, .. }));
    }

    #[test]
    fn windows_normalize_and_refuse_nonsense() {
        assert_eq!(Window::new(5, 2), Window::new(2, 5));
        assert_eq!(Window::from_ms(1.0, 2.5), Some(Window::new(1_000_000, 2_500_000)));
        assert_eq!(Window::from_ms(-1.0, 2.0), None);
        assert_eq!(Window::from_ms(0.0, f64::NAN), None);
        assert_eq!(Window::from_ms(0.0, 1e300).map(|w| w.to_ns()), Some(u64::MAX));
    }
}
