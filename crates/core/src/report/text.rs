//! The text report. In reference-compatible mode it is line for line what
//! dial9's `analyze.js` prints (setup diagnostic, then the analysis).

use super::*;
use crate::fmt::{fmt_dur, grouped, pct, to_fixed};
use crate::frames::is_kernel_address;
use crate::frames::{FrameKind, diagnose_stack, format_frame, frame_kind};
use crate::hashing::FastMap;
use std::fmt::Write;
use std::sync::Arc;

const HEAVY: &str = "============================================================";
const LIGHT: &str = "────────────────────────────────────────────────────────────";

struct Out(String);

impl Out {
    fn line(&mut self, s: impl AsRef<str>) {
        self.0.push_str(s.as_ref());
        self.0.push('\n');
    }
    fn major(&mut self, title: &str) {
        self.line(format!("\n{HEAVY}\n{title}\n{HEAVY}"));
    }
    fn section(&mut self, title: &str) {
        self.line(format!("\n{LIGHT}\n{title}\n{LIGHT}"));
    }
}

fn display(f: &Frame) -> String {
    format_frame(&f.symbol, f.location.as_deref())
}

fn icon(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "🔴",
        Severity::Warning => "🟡",
        Severity::Info => "ℹ️",
    }
}

/// Which text report to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Exactly what dial9's `analyze.js` prints, quirks included.
    Reference,
    /// Wall-clock times, runtime names, grouped stacks, red flags, per-file errors.
    Improved,
}

/// The text report in `style`.
pub fn render(r: &Report, style: Style) -> String {
    let mut o = Out(String::new());
    let improved = style == Style::Improved;
    setup(&mut o, &r.setup);
    summary(&mut o, r, improved);
    o.0
}

fn wall_clock(r: &Report, offset_ns: i64) -> Option<String> {
    let start = r.summary.wall_clock_start_ns?;
    let ms = (start + offset_ns).div_euclid(1_000_000);
    Some(crate::s3::time::Timestamp::from_unix_millis(ms).to_rfc3339())
}

fn red_flags(o: &mut Out, r: &Report) {
    o.section("RED FLAGS");
    if r.red_flags.is_empty() {
        o.line("  ✅ No red flags found");
    }
    for f in &r.red_flags {
        let mut lines = f.message.lines();
        o.line(format!(
            "  {} [{}] {}",
            icon(f.severity),
            f.check,
            lines.next().unwrap_or_default()
        ));
        for l in lines {
            o.line(format!("      {l}"));
        }
        o.line(format!("      Fix: {}", f.fix));
    }
    if !r.errors.is_empty() {
        o.section("FILES WITH ERRORS");
        for e in &r.errors {
            let at = e.offset.map_or(String::new(), |off| format!(" (byte {off})"));
            o.line(format!("  {}{at}: {}", e.file, e.message));
        }
    }
}

fn setup(o: &mut Out, s: &SetupDiagnostic) {
    o.major("DIAL9 SETUP DIAGNOSTIC");
    o.line(format!(
        "CPU samples: {} on-CPU, {} off-CPU",
        s.on_cpu_samples, s.off_cpu_samples
    ));
    o.line(format!(
        "Tasks spawned: {}, Wake events: {}, Task polls: {}",
        s.tasks_spawned, s.wake_events, s.task_polls
    ));
    o.line(format!("Worker unparks: {}", s.worker_unparks));
    o.line(format!(
        "Symbols: {} resolved ({} with source locations)",
        s.symbols, s.symbols_with_location
    ));
    o.line("");
    if s.issues.is_empty() {
        o.line("✅ No setup issues detected");
    } else {
        for f in &s.issues {
            o.line(format!("{} [{}] {}", icon(f.severity), f.check, f.message));
            o.line("");
            o.line("  Fix:");
            for l in f.fix.split('\n') {
                o.line(format!("  {l}"));
            }
            o.line("");
        }
        let n = |sev| s.issues.iter().filter(|f| f.severity == sev).count();
        o.line(format!(
            "{} critical, {} warnings, {} info",
            n(Severity::Critical),
            n(Severity::Warning),
            n(Severity::Info)
        ));
    }
}

/// App frames as lines, elided as the reference does: all if ≤ 8, else the
/// first and last 3 around a `... N more frames ...` line at `indent`.
fn elided<T>(o: &mut Out, frames: &[T], indent: &str, line: impl Fn(&T) -> String) {
    let (head, tail) = if frames.len() <= 8 {
        (frames, &frames[..0])
    } else {
        (&frames[..3], &frames[frames.len() - 3..])
    };
    head.iter().for_each(|f| o.line(line(f)));
    if !tail.is_empty() {
        o.line(format!("{indent}... {} more frames ...", frames.len() - 6));
    }
    tail.iter().for_each(|f| o.line(line(f)));
}

fn summary(o: &mut Out, r: &Report, improved: bool) {
    let s = &r.summary;
    let min_ts = s.min_ts.unwrap_or(0) as i64;
    o.major(&format!("TRACE SUMMARY: {}", r.label));
    if !r.files.is_empty() {
        o.line(format!("Files ({}):", r.files.len()));
        for f in &r.files {
            o.line(format!("  {f}"));
        }
    }
    o.line(format!("Duration:       {}ms", to_fixed(s.duration_ms, 1)));
    let ids: Vec<String> = s.workers.iter().map(u64::to_string).collect();
    o.line(format!("Workers:        {} (IDs: {})", ids.len(), ids.join(", ")));
    o.line(format!("Events:         {}", grouped(s.event_count as i64)));
    o.line(format!("CPU samples:    {}", grouped(s.cpu_sample_count as i64)));
    o.line(format!("Tasks spawned:  {}", s.task_spawn_count));
    if improved {
        if let (Some(start), Some(end)) = (wall_clock(r, 0), wall_clock(r, (s.duration_ms * 1e6) as i64)) {
            o.line(format!("Wall clock:     {start} → {end}"));
        }
        for rt in &s.runtimes {
            let ids: Vec<String> = rt.workers.iter().map(u64::to_string).collect();
            o.line(format!("Runtime:        {} (workers {})", rt.name, ids.join(", ")));
        }
    }

    o.section("WORKER UTILIZATION");
    for w in &r.workers {
        let ratio = w.avg_cpu_ratio.map_or("N/A".to_string(), |x| to_fixed(x, 3));
        o.line(format!(
            "  Worker {}: {}% active, {} polls, {} parks, avg CPU ratio: {ratio}",
            w.worker,
            to_fixed(w.utilization * 100.0, 1),
            w.poll_count,
            w.park_count
        ));
    }

    o.section("LONG POLLS (>1ms)");
    let lp = &r.long_polls;
    if lp.count == 0 {
        o.line("  None found ✅");
    } else {
        let worst = lp.worst.first().map_or("n/a".into(), |p| fmt_dur(p.dur_ns as f64));
        o.line(format!("  Found {} long poll(s) — worst {worst}", lp.count));
        o.line(format!(
            "  Showing the worst {}, ranked by duration\n",
            lp.worst.len().min(10)
        ));
        for p in lp.worst.iter().take(10) {
            long_poll(o, p, min_ts, improved);
        }
    }

    o.line(LIGHT);
    o.line("SCHEDULING DELAYS (wake → poll latency)");
    o.line(LIGHT);
    let sd = &r.sched_delays;
    if sd.count == 0 {
        o.line("  No tasks instrumented — use dial9::spawn() to measure scheduling delays");
    } else if sd.count_over_1ms == 0 {
        o.line("  No delays > 1ms ✅");
    } else {
        o.line(format!("  {} delays > 1ms", sd.count_over_1ms));
        if sd.has_histogram {
            o.line(format!(
                "  p50: {}, p99: {}, max: {}",
                fmt_dur(sd.p50_ns as f64),
                fmt_dur(sd.p99_ns as f64),
                fmt_dur(sd.max_ns as f64)
            ));
        }
        o.line("\n  Top 5 worst:");
        for d in sd.worst.iter().take(5) {
            o.line(format!(
                "    {} — task {} (spawn: {}) at {}",
                fmt_dur(d.delay_ns as f64),
                d.task_id,
                d.spawn_loc.as_deref().unwrap_or("?"),
                fmt_dur(d.wake_offset_ns as f64)
            ));
        }
    }

    if !r.poll_by_spawn.is_empty() {
        o.section("POLL DURATION BY SPAWN LOCATION");
        for l in &r.poll_by_spawn {
            let max_ms = l.max_ns as f64 / 1e6;
            let flag = if max_ms > 10.0 {
                " ⚠️"
            } else if max_ms > 1.0 {
                " 🟡"
            } else {
                ""
            };
            o.line(format!(
                "  {}: count={} p50={}µs p99={}µs max={}ms{flag}",
                l.name,
                l.count,
                to_fixed(l.p50_ns as f64 / 1e3, 1),
                to_fixed(l.p99_ns as f64 / 1e3, 1),
                to_fixed(max_ms, 2)
            ));
        }
    }

    lifecycle(o, &r.lifecycle);
    blocking(o, r, improved);
    hotspots(o, &r.cpu_hotspots);

    o.section("QUEUE DEPTH");
    let q = &r.queue;
    match (q.global_max, q.global_avg) {
        (Some(max), Some(avg)) => {
            o.line(format!(
                "  Global queue: max={max}, avg={}, samples={}",
                to_fixed(avg, 1),
                q.samples
            ));
            if max > 100 {
                o.line("  ⚠ High queue depth — runtime may be overloaded");
            }
        }
        _ => o.line("  No queue samples"),
    }
    o.line(format!("  Max local queue: {}", q.max_local_queue));

    o.section("KERNEL SCHEDULING WAIT");
    for k in &r.kernel_wait {
        o.line(format!(
            "  Worker {}: max={}ms, p50={}ms, {} events > 1ms",
            k.worker,
            to_fixed(k.max_ns as f64 / 1e6, 1),
            to_fixed(k.p50_ns as f64 / 1e6, 2),
            k.count_over_1ms
        ));
    }

    if !r.spans.is_empty() {
        o.section("SPAN DURATIONS");
        for s in &r.spans {
            o.line(format!(
                "  {}: count={} p50={}µs p99={}µs max={}µs",
                s.name,
                s.count,
                to_fixed(s.p50_ns as f64 / 1e3, 1),
                to_fixed(s.p99_ns as f64 / 1e3, 1),
                to_fixed(s.max_ns as f64 / 1e3, 1)
            ));
        }
    }
    if let Some(m) = &r.memory {
        memory(o, m);
    }
    if improved {
        red_flags(o, r);
    }
    o.line(format!("\n{HEAVY}"));
}

fn long_poll(o: &mut Out, p: &LongPoll, min_ts: i64, improved: bool) {
    let file = if p.file.is_empty() {
        String::new()
    } else {
        format!(" [{}]", p.file)
    };
    o.line(format!(
        "  ▸ {} on worker {} at {}{file}",
        fmt_dur(p.dur_ns as f64),
        p.worker,
        fmt_dur((p.start_ns as i64 - min_ts) as f64)
    ));
    o.line(format!(
        "    Task {}, spawn: {}",
        p.task_id,
        p.spawn_loc.as_deref().unwrap_or("(unknown)")
    ));
    if !p.sched_samples.is_empty() {
        o.line(format!(
            "    {} scheduling sample(s) — blocking call stacks:",
            p.sched_samples.len()
        ));
        // Improved mode prints each distinct stack once, with its sample count.
        let stacks: Vec<(usize, &Stack)> = if improved {
            let mut groups: Vec<(usize, &Stack)> = Vec::new();
            for frames in &p.sched_samples {
                match groups.iter_mut().find(|g| g.1 == frames) {
                    Some(g) => g.0 += 1,
                    None => groups.push((1, frames)),
                }
            }
            groups.sort_by_key(|a| std::cmp::Reverse(a.0));
            groups
        } else {
            p.sched_samples.iter().map(|f| (1, f)).collect()
        };
        // Samples often share a stack (the reference prints each sample's):
        // each shared one is diagnosed and written once.
        let mut texts: FastMap<*const [Frame], String> = FastMap::default();
        for (count, frames) in stacks {
            if improved {
                o.line(format!("      ── {count} sample(s) with this stack:"));
            }
            let text = texts.entry(Arc::as_ptr(frames)).or_insert_with(|| stack_lines(frames));
            o.0.push_str(text);
        }
    }
    if !p.cpu_samples.is_empty() {
        o.line(format!("    {} CPU sample(s) — on-CPU stacks:", p.cpu_samples.len()));
        for frames in p.cpu_samples.iter().take(3) {
            let app: Vec<&Frame> = frames
                .iter()
                .filter(|f| frame_kind(&f.symbol) == FrameKind::App)
                .collect();
            if app.is_empty() {
                continue;
            }
            elided(o, &app, "      ", |f| match &f.location {
                Some(l) => format!("      {} [{l}]", display(f)),
                None => format!("      {}", display(f)),
            });
            if p.cpu_samples.len() > 1 {
                o.line("");
            }
        }
    }
    if p.sched_samples.is_empty() && p.cpu_samples.is_empty() {
        o.line("    (no profiling samples captured during this poll)");
    }
    o.line("");
}

/// The diagnosis of one blocking stack, as the report's lines.
fn stack_lines(frames: &[Frame]) -> String {
    let mut o = Out(String::new());
    let d = diagnose_stack(frames);
    if let Some(b) = d.blocker {
        o.line(format!("      Blocked by:  {} (kernel)", b.symbol));
    }
    if let Some(s) = d.syscall {
        o.line(format!("      Syscall:     {}", display(s)));
    }
    if let Some(t) = d.trigger {
        o.line(format!("      Called from:  {}", display(t)));
        if let Some(loc) = &t.location {
            o.line(format!("        at {loc}"));
        }
    }
    if d.kernel_path.len() > 1 {
        let path: Vec<&str> = d.kernel_path.iter().map(|f| &*f.symbol).collect();
        o.line(format!("      Kernel path: {}", path.join(" → ")));
    }
    if !d.app_frames.is_empty() {
        o.line(format!("      App call chain ({} frames):", d.app_frames.len()));
        elided(&mut o, &d.app_frames, "        ", |f| format!("        {}", display(f)));
    }
    o.0
}

fn lifecycle(o: &mut Out, l: &Lifecycle) {
    o.section("TASK LIFECYCLE");
    o.line("  Spawns by location:");
    for c in &l.spawns_by_location {
        o.line(format!("    {:>5} × {}", c.count, c.loc));
    }
    if let Some(note) = l.left_out() {
        o.line(format!("    ({note})"));
    }
    if let (Some(peak), Some(first), Some(last)) = (l.peak_active, l.active_at_first_sample, l.active_at_last_sample) {
        o.line(format!("\n  Peak active tasks: {peak}"));
        o.line(format!("  Active at first sample: {first}"));
        o.line(format!("  Active at last sample: {last}"));
        if l.possible_leak {
            o.line("  ⚠ POSSIBLE TASK LEAK — active count grew monotonically");
            for c in &l.alive_by_location {
                o.line(format!("    {} leaked from {}", c.count, c.loc));
            }
        }
    }
}

fn blocking(o: &mut Out, r: &Report, improved: bool) {
    let b = &r.blocking;
    o.section("BLOCKING CALLS (scheduling/off-CPU samples)");
    if b.off_cpu_samples == 0 {
        o.line("  ℹ️  Schedule profiling not enabled — no off-CPU stack traces available.");
        o.line("     Enable with DIAL9_SCHEDULE_PROFILE_ENABLED=true to capture blocking call stacks.");
        if !b.sched_wait_workers.is_empty() {
            o.line("\n  Workers with kernel scheduling delays > 1ms (possible blocking):");
            for k in &b.sched_wait_workers {
                o.line(format!(
                    "    Worker {}: {} events, max {}ms",
                    k.worker,
                    k.count_over_1ms,
                    to_fixed(k.max_ns as f64 / 1e6, 1)
                ));
            }
        }
        return;
    }
    o.line(format!(
        "  {} off-CPU sample(s): {} IN-POLL (real blocking), {} idle-park",
        b.off_cpu_samples, b.in_poll, b.idle_park
    ));
    o.line("  NOTE: idle-park = a worker with no work parked between polls (itself a futex/condvar");
    o.line("        wait); it is NOT blocking. Only IN-POLL samples are a task blocked mid-poll.\n");
    if b.in_poll == 0 {
        o.line("  No in-poll blocking detected — all off-CPU samples are idle worker parking. ✅");
    } else {
        o.line("  IN-POLL blocking by task spawn location:");
        for c in b.in_poll_by_location.iter().take(10) {
            o.line(format!(
                "    {:>5} ({}%) — {}",
                c.count,
                pct(c.count as f64, b.in_poll as f64, 1),
                c.loc
            ));
        }
        if improved {
            blocking_calls(o, b);
        } else {
            o.line("\n  IN-POLL blocking call stacks:");
            for g in b.in_poll_stacks.iter().take(10) {
                let d = diagnose_stack(&g.frames);
                let leaf = g.frames.first().map_or("(unknown)".into(), display);
                o.line(format!(
                    "  {:>5} samples ({}%) — leaf: {leaf}",
                    g.count,
                    pct(g.count as f64, b.in_poll as f64, 1)
                ));
                if let Some(f) = d.blocker {
                    o.line(format!("         blocked by: {} (kernel)", f.symbol));
                }
                if let Some(f) = d.syscall {
                    o.line(format!("         syscall:    {}", display(f)));
                }
                if let Some(f) = d.trigger {
                    o.line(format!("         called from: {}", display(f)));
                }
            }
        }
    }
    o.line("\n  Caveat: an async lock wait (lock().await) ends the poll, so its off-CPU time");
    o.line("          is counted as idle-park, not in-poll. The IN-POLL bucket captures");
    o.line("          synchronous blocking but not .await-style async lock waits. To see async lock wait, consider enabling task dumps");
}

/// In-poll samples by the call that blocked (the innermost application
/// frame), each with what its heaviest stack blocked in.
fn blocking_calls(o: &mut Out, b: &Blocking) {
    o.line("\n  IN-POLL blocking by call (innermost application frame):");
    for c in b.in_poll_calls.iter().take(10) {
        let stacks = if c.stacks == 1 {
            String::new()
        } else {
            format!(", {} stacks", c.stacks)
        };
        o.line(format!(
            "  {:>9} blocked, {} samples ({}%{stacks}) — {}",
            fmt_dur(c.blocked_ns as f64),
            c.count,
            pct(c.count as f64, b.in_poll as f64, 1),
            display(&c.frame)
        ));
        // The leaf, unresolved kernel addresses read as one frame.
        let user = c.heaviest.iter().find(|f| !is_kernel_address(&f.symbol));
        let leaf = match (c.heaviest.first(), user) {
            (Some(f), Some(u)) if is_kernel_address(&f.symbol) => format!("[kernel] under {}", display(u)),
            (Some(f), _) if is_kernel_address(&f.symbol) => "[kernel]".to_string(),
            (Some(f), _) => display(f),
            (None, _) => continue,
        };
        // A stack whose leaf is the call itself blocked in nothing further down.
        if c.heaviest.first() != Some(&c.frame) {
            o.line(format!("         blocked in: {leaf}"));
        }
    }
}

fn hotspots(o: &mut Out, h: &CpuHotspots) {
    o.section("CPU HOTSPOTS (on-CPU samples)");
    if h.samples == 0 {
        o.line("  No CPU samples in trace");
        return;
    }
    o.line(format!("  {} CPU sample(s)\n", h.samples));
    // Rows under 1% are skipped with their whole subtree, as the reference prints.
    let mut skip_below: Option<u32> = None;
    for row in &h.tree {
        if skip_below.is_some_and(|d| row.depth > d) {
            continue;
        }
        skip_below = None;
        let p = row.count as f64 / h.samples as f64 * 100.0;
        if p < 1.0 {
            skip_below = Some(row.depth);
            continue;
        }
        let self_str = if row.self_count > 0 {
            format!(" (self: {})", row.self_count)
        } else {
            String::new()
        };
        let mut line = " ".repeat(2 + 2 * row.depth as usize);
        let _ = write!(
            line,
            "{} samples ({}%) {}{self_str}",
            row.count,
            to_fixed(p, 1),
            row.name
        );
        o.line(line);
    }
}

fn memory(o: &mut Out, m: &Memory) {
    o.section("MEMORY ALLOCATIONS");
    o.line(format!("  Sample rate:  {} bytes", grouped(m.sample_rate_bytes as i64)));
    if let Some(trace_rate) = m.trace_sample_rate_bytes {
        o.line(format!(
            "                (the trace records {} bytes; the reference assumes 524,288)",
            grouped(trace_rate as i64)
        ));
    }
    o.line("  Formula:      weight(s) = s / (1 - exp(-s / R)),  estimated_total = Σ weight(s_i)");
    o.line(format!(
        "  Total allocs: {} sampled, ~{} bytes estimated",
        m.total_alloc_count,
        grouped(m.estimated_total_bytes as i64)
    ));
    o.line(format!("  Total frees:  {}", m.total_free_count));
    o.line(format!(
        "  Leaked:       {} allocs, {} sampled bytes",
        m.leaked_count,
        grouped(m.leaked_bytes as i64)
    ));
    if m.dropped_allocs > 0 || m.dropped_frees > 0 {
        o.line(format!(
            "  ⚠️  Ring buffer overflow: {} alloc samples and {} free samples dropped",
            m.dropped_allocs, m.dropped_frees
        ));
        if m.dropped_allocs > 0 {
            o.line("      Dropped allocs cause underreporting of allocation volume — increase ring_capacity");
        }
        if m.dropped_frees > 0 {
            o.line("      Dropped frees cause false positives in leak analysis — increase ring_capacity");
        }
    }
    if !m.top_sites.is_empty() {
        o.line("\n  Top allocation sites:");
        for s in &m.top_sites {
            let mut syms: Vec<&str> = s.frames.iter().take(16).map(|f| &*f.symbol).collect();
            let more = format!("... {} more", s.frames.len().saturating_sub(16));
            if s.frames.len() > 16 {
                syms.push(&more);
            }
            o.line(format!(
                "    ~{} bytes estimated ({} samples)",
                grouped(s.estimated_bytes.round() as i64),
                s.count
            ));
            o.line(format!("      {}", syms.join(" > ")));
        }
    }
    if !m.per_task.is_empty() {
        o.line("\n  Per-task allocations (top 20):");
        for t in m.per_task.iter().take(20) {
            o.line(format!(
                "    task {}: ~{} bytes ({} samples)  {}",
                t.task_id,
                grouped(t.estimated_bytes.round() as i64),
                t.count,
                t.spawn_loc.as_deref().unwrap_or("(unknown)")
            ));
        }
    }
}
