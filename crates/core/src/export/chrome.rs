//! The Chrome Trace Event Format (its JSON object form), as Perfetto UI
//! (ui.perfetto.dev) and chrome://tracing open it:
//!
//! - each file is a process (`pid` 1, 2, … in the files' time order;
//!   `process_name` the file name, `process_labels` its poll and wake counts);
//! - each worker is a thread (`tid` = the worker id, `thread_name`
//!   "worker N (runtime)"); its polls are complete events (`ph: "X"`,
//!   `cat: "poll"`), named by the task's spawn location, else "task N", with
//!   `args` `{task, spawn_loc}`;
//! - spans are complete events (`cat: "span"`) on threads of their own, one
//!   per span row of the page's timeline (`tid` = [`span_tid_base`] + row);
//!   the last row, which the timeline shares among overlapping spans, is
//!   spread over as many more threads as it needs, so that no two slices of a
//!   thread overlap;
//! - a wake made inside a poll of its waker is a flow: `ph: "s"` at the wake,
//!   in that poll, to `ph: "f"`, `bp: "e"`, in the woken task's next poll (at
//!   its middle: inside it, whatever order a viewer gives events of equal
//!   times; `cat` and `name` "wake"; ids unique over the document). A wake
//!   whose waker is unknown (0) or was not in a traced poll at that moment
//!   (most wakes of the fixtures: their waker id is not a task polled on a
//!   worker) has no slice to start from and is left out; the process label
//!   says how many of the file's wakes became flows;
//! - counters (`ph: "C"`): global queue depth, active tasks, and each worker's
//!   kernel scheduling wait when it unparked (µs).
//!
//! Time (`ts`, `dur`) is in microseconds, as the format has it, with the
//! nanoseconds as decimals; `displayTimeUnit` is "ns". All files share one
//! axis, as on the page (`timeline::Scene`): 0 is the earliest file's first
//! exported event and the other files sit at their wall-clock distance from
//! it (a file without a clock anchor starts at 0). `otherData.timeOriginUnixNs`
//! is the Unix time of 0 (a string, exact), when some file has a clock.
//!
//! The document is written event by event into a `Write` (serde_json escapes
//! every string); what is held is each file's timeline (12 bytes a poll) and
//! its flows (24 bytes each).

use crate::analysis::Partial;
use crate::hashing::FastMap;
use crate::timeline::{AxisMap, CounterKind, DEFAULT_RUNTIME, FileTimeline, MAX_SPAN_DEPTH};
use crate::trace::{ParsedTrace, Wake};
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use std::borrow::Cow;
use std::io::{self, Write};

/// Span rows' thread ids start here, or just above the highest worker id.
pub const SPAN_TID_BASE: u64 = 1_000_000;

/// A wake drawn as an arrow from the waker's poll to the woken task's next
/// poll: each end a lane and a time strictly inside that poll where it can
/// (the wake; the poll's middle), so that it binds to the poll whatever order
/// a viewer gives events of equal times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Flow {
    from: u64,
    to: u64,
    from_lane: u32,
    to_lane: u32,
}

/// One file, ready to be written.
#[derive(Debug, Clone, PartialEq)]
pub struct ChromeFile {
    pub timeline: FileTimeline,
    flows: Vec<Flow>,
    /// The file's wakes (all of them, flows or not).
    pub wake_count: u64,
}

impl ChromeFile {
    /// The file's timeline, exactly as the page gets it
    /// (`Partial::with_timeline`), and its wakes as flows.
    pub fn from_trace(file: &str, trace: ParsedTrace) -> ChromeFile {
        let wakes = trace.known_wakes();
        let wake_count = trace.wakes.len() as u64;
        let (_, timeline) = Partial::with_timeline(file, trace);
        ChromeFile {
            wake_count,
            ..ChromeFile::new(timeline, &wakes)
        }
    }

    /// A file's timeline and its wakes (`wake_count` counts them all).
    pub fn new(timeline: FileTimeline, wakes: &[Wake]) -> ChromeFile {
        ChromeFile {
            flows: flows(&timeline, wakes),
            timeline,
            wake_count: wakes.len() as u64,
        }
    }

    /// Wakes written as flows.
    pub fn flow_count(&self) -> usize {
        self.flows.len()
    }

    /// The earliest time written (spans and counters may precede the first
    /// runtime event).
    fn first(&self) -> u64 {
        let t = &self.timeline;
        let counters = t.counters.iter().filter_map(|c| c.times().first());
        let spans = t.spans.slices().starts().iter();
        counters.chain(spans).fold(t.start, u64::min)
    }
}

/// Every wake by a task that was being polled at that moment, to the woken
/// task's first poll after it.
fn flows(t: &FileTimeline, wakes: &[Wake]) -> Vec<Flow> {
    let index: FastMap<u64, u32> = t.tasks.iter().enumerate().map(|(i, id)| (id, i as u32)).collect();
    // Every poll as (task, start, lane, index in the lane), by task then start.
    let mut by_task: Vec<(u32, u64, u32, u32)> = Vec::with_capacity(t.poll_count());
    for (k, lane) in t.lanes.iter().enumerate() {
        let p = &lane.polls;
        by_task.extend((0..p.len()).map(|i| (p.task.get(i), p.start(i), k as u32, i as u32)));
    }
    by_task.sort_unstable();
    wakes
        .iter()
        .filter_map(|w| {
            let (&waker, &woken) = (index.get(&w.waker)?, index.get(&w.task)?);
            // A worker runs one poll at a time: the one started last before the wake.
            let (from_lane, from) = t.lanes.iter().enumerate().find_map(|(k, l)| {
                let i = l
                    .polls
                    .starts()
                    .partition_point(0..l.polls.len(), |s| s <= w.ts)
                    .checked_sub(1)?;
                let (start, dur) = (l.polls.start(i), l.polls.dur(i));
                let inside = l.polls.task.get(i) == waker && w.ts < start.saturating_add(dur);
                let at = if w.ts > start {
                    w.ts
                } else {
                    start.saturating_add(dur / 2)
                };
                inside.then_some((k, at))
            })?;
            let k = by_task.partition_point(|&(task, start, ..)| (task, start) <= (woken, w.ts));
            let &(task, start, to_lane, i) = by_task.get(k)?;
            let dur = t.lanes[to_lane as usize].polls.dur(i as usize);
            (task == woken).then_some(Flow {
                from,
                to: start.saturating_add(dur / 2),
                from_lane: from_lane as u32,
                to_lane,
            })
        })
        .collect()
}

/// The first thread id of `t`'s span rows: above every worker's.
pub fn span_tid_base(t: &FileTimeline) -> u64 {
    let workers = t.lanes.iter().map(|l| l.worker.saturating_add(1));
    workers.fold(SPAN_TID_BASE, u64::max)
}

/// Microseconds on the document's axis, as the format counts time.
fn us(axis: AxisMap, ts: u64) -> f64 {
    axis.axis(ts) / 1e3
}

/// Writes `files` as one Chrome trace (a JSON object) into `out`.
pub fn write_chrome<W: Write>(files: &[ChromeFile], out: W) -> io::Result<()> {
    let mut order: Vec<&ChromeFile> = files.iter().collect();
    order.sort_by(|a, b| (a.timeline.wall_start, &a.timeline.file).cmp(&(b.timeline.wall_start, &b.timeline.file)));
    // Each file from its first exported event, at that event's Unix time.
    let (origin, axes) = AxisMap::place(order.iter().map(|f| {
        let first = f.first();
        let before = f.timeline.start.saturating_sub(first);
        (first, f.timeline.wall_start.map(|w| w.saturating_sub(before as i64)))
    }));
    let mut out = Events { out, first: true };
    out.out.write_all(b"{\"traceEvents\":[\n")?;
    let mut flow_id = 1;
    for (i, (f, axis)) in order.iter().zip(axes).enumerate() {
        write_file(&mut out, f, i as u64 + 1, axis, &mut flow_id)?;
    }
    let mut out = out.out;
    out.write_all(b"\n],\"displayTimeUnit\":\"ns\",\"otherData\":")?;
    serde_json::to_writer(
        &mut out,
        &OtherData {
            generator: "d9lens",
            time_origin_unix_ns: origin.map(|o| o.to_string()),
        },
    )?;
    out.write_all(b"}\n")?;
    out.flush()
}

fn write_file<W: Write>(
    out: &mut Events<W>,
    f: &ChromeFile,
    pid: u64,
    axis: AxisMap,
    flow_id: &mut u64,
) -> io::Result<()> {
    let t = &f.timeline;
    out.meta("process_name", pid, None, MetaArgs::name(&t.file))?;
    out.meta("process_sort_index", pid, None, MetaArgs::sort_index(pid))?;
    let labels = format!(
        "{} polls · {} wakes, {} drawn as flows (from the waker's poll)",
        t.poll_count(),
        f.wake_count,
        f.flows.len()
    );
    out.meta("process_labels", pid, None, MetaArgs::labels(&labels))?;
    // Each task's slice name: its spawn location, else its id.
    let names: Vec<Cow<str>> = (0..t.tasks.len())
        .map(|i| match t.task_loc(i as u32) {
            Some(loc) => Cow::Borrowed(loc),
            None => Cow::Owned(format!("task {}", t.tasks.get(i))),
        })
        .collect();
    for (k, lane) in t.lanes.iter().enumerate() {
        let tid = lane.worker;
        let runtime = lane.runtime.as_deref().unwrap_or(DEFAULT_RUNTIME);
        let thread = format!("worker {} ({runtime})", lane.worker);
        out.meta("thread_name", pid, Some(tid), MetaArgs::name(&thread))?;
        out.meta("thread_sort_index", pid, Some(tid), MetaArgs::sort_index(k as u64))?;
        let p = &lane.polls;
        for i in 0..p.len() {
            let task = p.task.get(i);
            out.event(&Slice {
                ph: "X",
                cat: "poll",
                name: &names[task as usize],
                pid,
                tid,
                ts: us(axis, p.start(i)),
                dur: p.dur(i) as f64 / 1e3,
                args: PollArgs {
                    task: t.tasks.get(task as usize),
                    spawn_loc: t.task_loc(task),
                },
            })?;
        }
    }
    // Spans: a thread per row; the last, shared row spills over more threads.
    let base = span_tid_base(t);
    let last = u64::from(MAX_SPAN_DEPTH - 1);
    let s = &t.spans;
    let mut spill_free: Vec<u64> = Vec::new();
    let mut rows = 0;
    for i in 0..s.len() {
        let (start, end) = (s.start(i), s.end(i));
        let row = match u64::from(s.depth(i)) {
            d if d < last => d,
            _ => {
                // By start within the row: the first thread free by now.
                let k = spill_free.iter().position(|&free| free <= start).unwrap_or_else(|| {
                    spill_free.push(0);
                    spill_free.len() - 1
                });
                spill_free[k] = end;
                last + k as u64
            }
        };
        rows = rows.max(row + 1);
        out.event(&Slice {
            ph: "X",
            cat: "span",
            name: t.loc(s.name.get(i)).unwrap_or("span"),
            pid,
            tid: base + row,
            ts: us(axis, start),
            dur: (end - start) as f64 / 1e3,
            args: NoArgs {},
        })?;
    }
    for row in 0..rows {
        let thread = format!("spans · row {row}");
        out.meta("thread_name", pid, Some(base + row), MetaArgs::name(&thread))?;
        let order = t.lanes.len() as u64 + row;
        out.meta("thread_sort_index", pid, Some(base + row), MetaArgs::sort_index(order))?;
    }
    for c in &t.counters {
        let name = c.kind.label();
        for (ts, v) in c.points() {
            let ts = us(axis, ts);
            match c.kind {
                CounterKind::GlobalQueue => out.event(&CounterEvent::new(&name, pid, ts, One("depth", v)))?,
                CounterKind::ActiveTasks => out.event(&CounterEvent::new(&name, pid, ts, One("count", v)))?,
                CounterKind::Allocated => out.event(&CounterEvent::new(&name, pid, ts, One("bytes", v)))?,
                CounterKind::KernelWait { .. } => {
                    out.event(&CounterEvent::new(&name, pid, ts, One("µs", v as f64 / 1e3)))?
                }
                CounterKind::ProcessCpu { .. } => {
                    out.event(&CounterEvent::new(&name, pid, ts, One("cores", v as f64 / 1e3)))?
                }
                CounterKind::AcceptQueue { .. } => out.event(&CounterEvent::new(&name, pid, ts, One("pending", v)))?,
            }
        }
    }
    for fl in &f.flows {
        let id = *flow_id;
        *flow_id += 1;
        let flow = |ph, lane: u32, ts, bp| FlowEvent {
            ph,
            cat: "wake",
            name: "wake",
            id,
            pid,
            tid: t.lanes[lane as usize].worker,
            ts: us(axis, ts),
            bp,
        };
        out.event(&flow("s", fl.from_lane, fl.from, None))?;
        out.event(&flow("f", fl.to_lane, fl.to, Some("e")))?;
    }
    Ok(())
}

/// The event array being written: a comma before every event but the first.
struct Events<W: Write> {
    out: W,
    first: bool,
}

impl<W: Write> Events<W> {
    fn event(&mut self, e: &impl Serialize) -> io::Result<()> {
        if !std::mem::take(&mut self.first) {
            self.out.write_all(b",\n")?;
        }
        serde_json::to_writer(&mut self.out, e).map_err(io::Error::from)
    }

    fn meta(&mut self, name: &'static str, pid: u64, tid: Option<u64>, args: MetaArgs<'_>) -> io::Result<()> {
        self.event(&Meta {
            ph: "M",
            name,
            pid,
            tid,
            args,
        })
    }
}

#[derive(Serialize)]
struct Meta<'a> {
    ph: &'static str,
    name: &'static str,
    pid: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    tid: Option<u64>,
    args: MetaArgs<'a>,
}

#[derive(Serialize, Default)]
struct MetaArgs<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sort_index: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    labels: Option<&'a str>,
}

impl<'a> MetaArgs<'a> {
    fn name(name: &'a str) -> Self {
        MetaArgs {
            name: Some(name),
            ..Self::default()
        }
    }

    fn sort_index(i: u64) -> Self {
        MetaArgs {
            sort_index: Some(i),
            ..Self::default()
        }
    }

    fn labels(labels: &'a str) -> Self {
        MetaArgs {
            labels: Some(labels),
            ..Self::default()
        }
    }
}

#[derive(Serialize)]
struct Slice<'a, A> {
    ph: &'static str,
    cat: &'static str,
    name: &'a str,
    pid: u64,
    tid: u64,
    ts: f64,
    dur: f64,
    args: A,
}

#[derive(Serialize)]
struct PollArgs<'a> {
    task: u64,
    spawn_loc: Option<&'a str>,
}

#[derive(Serialize)]
struct NoArgs {}

#[derive(Serialize)]
struct FlowEvent {
    ph: &'static str,
    cat: &'static str,
    name: &'static str,
    id: u64,
    pid: u64,
    tid: u64,
    ts: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    bp: Option<&'static str>,
}

#[derive(Serialize)]
struct CounterEvent<'a, V> {
    ph: &'static str,
    name: &'a str,
    pid: u64,
    ts: f64,
    args: One<V>,
}

impl<'a, V> CounterEvent<'a, V> {
    fn new(name: &'a str, pid: u64, ts: f64, args: One<V>) -> Self {
        CounterEvent {
            ph: "C",
            name,
            pid,
            ts,
            args,
        }
    }
}

/// `{key: value}`: a counter's one series.
struct One<V>(&'static str, V);

impl<V: Serialize> Serialize for One<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry(self.0, &self.1)?;
        m.end()
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OtherData {
    generator: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    time_origin_unix_ns: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::{Counter, Lane};
    use serde_json::Value;
    use std::collections::BTreeMap;

    const HOSTILE: &str = "<img src=x onerror=alert(1)>\"quoted\"\\\n\u{7}é";

    /// Two workers, three tasks (one with a hostile spawn location), spans
    /// that overflow the last row, counters.
    fn timeline(file: &str, wall_start: Option<i64>) -> FileTimeline {
        let mut t = FileTimeline {
            file: file.into(),
            start: 1_000,
            end: 100_000,
            wall_start,
            strings: vec!["src/a.rs:1:1".into(), HOSTILE.into(), "request".into()],
            tasks: [7, 8, 9].into_iter().collect(),
            task_loc: [0, 1, crate::timeline::NO_LOC].into_iter().collect(),
            ..FileTimeline::default()
        };
        let mut w0 = Lane {
            worker: 0,
            runtime: Some("io".into()),
            ..Lane::default()
        };
        // Task 7 polls at 1000–2000 and 5000–6000; task 8 at 3000–4000.
        w0.polls.push(1_000, 1_000, 0);
        w0.polls.push(3_000, 1_000, 1);
        w0.polls.push(5_000, 1_000, 0);
        let mut w1 = Lane {
            worker: 1,
            ..Lane::default()
        };
        // Task 9 at 2500–2600 and 7000–7500; task 8 at 8000–9000.
        w1.polls.push(2_500, 100, 2);
        w1.polls.push(7_000, 500, 2);
        w1.polls.push(8_000, 1_000, 1);
        t.lanes = vec![w0, w1];
        // 16 overlapping spans: depths 0..15, the last two share row 15.
        for d in 0..=MAX_SPAN_DEPTH {
            let start = 500 + u64::from(d);
            t.spans.push(start, start + 10_000, 2, d.min(MAX_SPAN_DEPTH - 1));
        }
        t.counters = vec![
            Counter::new(CounterKind::GlobalQueue, [(900, 3), (2_000, 0)]),
            Counter::new(CounterKind::KernelWait { worker: 1 }, [(2_500, 1_500)]),
        ];
        t
    }

    fn wakes() -> Vec<Wake> {
        vec![
            // Task 7 (in its poll on worker 0) wakes task 9: next poll 2500 on worker 1.
            Wake {
                ts: 1_500,
                task: 9,
                waker: 7,
            },
            // Task 9 (polled on worker 1) wakes task 8: next poll 3000 on worker 0.
            Wake {
                ts: 2_550,
                task: 8,
                waker: 9,
            },
            // Task 8 wakes task 9 as its poll starts (the flow starts mid-poll).
            Wake {
                ts: 3_000,
                task: 9,
                waker: 8,
            },
            // Unknown waker, a waker not in a poll at that time, a task never polled after.
            Wake {
                ts: 1_600,
                task: 8,
                waker: 0,
            },
            Wake {
                ts: 4_500,
                task: 9,
                waker: 8,
            },
            Wake {
                ts: 5_500,
                task: 42,
                waker: 7,
            },
        ]
    }

    fn write(files: &[ChromeFile]) -> Value {
        let mut buf = Vec::new();
        write_chrome(files, &mut buf).unwrap();
        serde_json::from_slice(&buf).expect("valid JSON")
    }

    fn events(v: &Value) -> &[Value] {
        v["traceEvents"].as_array().unwrap()
    }

    #[test]
    fn polls_threads_metadata_and_paired_flows() {
        let f = ChromeFile::new(timeline("a.bin", None), &wakes());
        assert_eq!(f.flow_count(), 3);
        let v = write(&[f]);
        assert_eq!(v["displayTimeUnit"], "ns");
        assert!(v["otherData"].get("timeOriginUnixNs").is_none());
        let ev = events(&v);
        let meta = |name: &str, tid: Option<u64>| {
            ev.iter()
                .find(|e| e["ph"] == "M" && e["name"] == name && e["tid"].as_u64() == tid)
                .unwrap_or_else(|| panic!("{name} {tid:?}"))
                .clone()
        };
        assert_eq!(meta("process_name", None)["args"]["name"], "a.bin");
        assert_eq!(meta("thread_name", Some(0))["args"]["name"], "worker 0 (io)");
        assert_eq!(meta("thread_name", Some(1))["args"]["name"], "worker 1 (default)");
        let base = SPAN_TID_BASE;
        assert_eq!(meta("thread_name", Some(base))["args"]["name"], "spans · row 0");
        // Polls per worker; names and args.
        let polls: Vec<&Value> = ev.iter().filter(|e| e["ph"] == "X" && e["cat"] == "poll").collect();
        let per_tid = |tid: u64| polls.iter().filter(|e| e["tid"] == tid).count();
        assert_eq!((per_tid(0), per_tid(1)), (3, 3));
        // The first span, at 500 ns, is the axis' 0.
        assert_eq!(polls[0]["ts"], 0.5);
        assert_eq!(polls[0]["dur"], 1.0);
        assert_eq!(polls[1]["name"], HOSTILE, "strings round-trip, escaped by serde_json");
        assert_eq!(polls[1]["args"]["spawn_loc"], HOSTILE);
        assert_eq!(polls[3]["name"], "task 9");
        assert_eq!(polls[3]["args"]["task"], 9);
        assert!(polls[3]["args"]["spawn_loc"].is_null());
        // Flows: each id once as "s" and once as "f" (bound to the enclosing slice), later.
        let mut flows: BTreeMap<u64, Vec<&Value>> = BTreeMap::new();
        for e in ev.iter().filter(|e| e["ph"] == "s" || e["ph"] == "f") {
            flows.entry(e["id"].as_u64().unwrap()).or_default().push(e);
        }
        assert_eq!(flows.len(), 3);
        for pair in flows.values() {
            let [s, f] = pair.as_slice() else { panic!("{pair:?}") };
            assert!(s["ph"] == "s" && f["ph"] == "f" && f["bp"] == "e" && s.get("bp").is_none());
            assert!(s["ts"].as_f64() < f["ts"].as_f64());
            // Each end lies strictly inside a poll of its thread.
            for e in [s, f] {
                let ts = e["ts"].as_f64().unwrap();
                assert!(polls.iter().any(|p| {
                    let (a, d) = (p["ts"].as_f64().unwrap(), p["dur"].as_f64().unwrap());
                    p["tid"] == e["tid"] && a < ts && ts < a + d
                }));
            }
        }
        let first = &flows[&1];
        assert!(first[0]["tid"] == 0 && first[0]["ts"] == 1.0, "{:?}", first[0]);
        assert!(first[1]["tid"] == 1 && first[1]["ts"] == 2.05, "{:?}", first[1]);
        let at_start = &flows[&3];
        assert!(at_start[0]["tid"] == 0 && at_start[0]["ts"] == 3.0, "{:?}", at_start[0]);
        assert!(
            at_start[1]["tid"] == 1 && at_start[1]["ts"] == 6.75,
            "{:?}",
            at_start[1]
        );
        // Counters (and spans) may precede the first poll: still at 0 or after.
        let queue: Vec<&Value> = ev
            .iter()
            .filter(|e| e["ph"] == "C" && e["name"] == "global queue")
            .collect();
        assert_eq!(queue.len(), 2);
        assert_eq!(queue[0]["args"]["depth"], 3);
        assert!(ev.iter().all(|e| e["ts"].as_f64().is_none_or(|ts| ts >= 0.0)));
        let wait = ev.iter().find(|e| e["name"] == "kernel wait · worker 1").unwrap();
        assert_eq!(wait["args"]["µs"], 1.5);
    }

    #[test]
    fn spans_on_one_thread_never_overlap() {
        let v = write(&[ChromeFile::new(timeline("a.bin", None), &[])]);
        let spans: Vec<&Value> = events(&v).iter().filter(|e| e["cat"] == "span").collect();
        assert_eq!(spans.len(), usize::from(MAX_SPAN_DEPTH) + 1);
        let mut by_tid: BTreeMap<u64, Vec<(f64, f64)>> = BTreeMap::new();
        for s in &spans {
            let (a, d) = (s["ts"].as_f64().unwrap(), s["dur"].as_f64().unwrap());
            by_tid.entry(s["tid"].as_u64().unwrap()).or_default().push((a, a + d));
        }
        assert_eq!(by_tid.len(), spans.len(), "all overlap: a thread each");
        for slices in by_tid.values() {
            assert!(slices.windows(2).all(|w| w[0].1 <= w[1].0));
        }
        let names = events(&v).iter().filter(|e| e["name"] == "thread_name").count();
        assert_eq!(names, 2 + spans.len());
    }

    #[test]
    fn files_sit_on_one_axis_by_wall_clock_with_unique_flow_ids() {
        let later = ChromeFile::new(timeline("b.bin", Some(1_700_000_000_000_050_000)), &wakes());
        let earlier = ChromeFile::new(timeline("a.bin", Some(1_700_000_000_000_000_000)), &wakes());
        let v = write(&[later, earlier]);
        // The axis starts at a.bin's first event (its first span, 500 ns before its start).
        assert_eq!(v["otherData"]["timeOriginUnixNs"], "1699999999999999500");
        let ev = events(&v);
        let name = |pid: u64| {
            let e = ev
                .iter()
                .find(|e| e["name"] == "process_name" && e["pid"] == pid)
                .unwrap();
            e["args"]["name"].as_str().unwrap().to_string()
        };
        assert_eq!((name(1), name(2)), ("a.bin".into(), "b.bin".into()));
        let first_poll = |pid: u64| {
            let e = ev.iter().find(|e| e["cat"] == "poll" && e["pid"] == pid).unwrap();
            e["ts"].as_f64().unwrap()
        };
        assert_eq!((first_poll(1), first_poll(2)), (0.5, 50.5));
        let mut ids: Vec<u64> = ev
            .iter()
            .filter(|e| e["ph"] == "s")
            .map(|e| e["id"].as_u64().unwrap())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids, (1..=6).collect::<Vec<_>>());
    }
}
