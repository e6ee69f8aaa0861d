//! The red-flag scan (`red_flag_scan.js`, fixed and extended): each finding
//! says what is wrong, how bad, and what to do about it.

use super::flag_counts::MANY_SPANS;
use super::fold::Acc;
use super::process::{ACCEPT_NEAR_BACKLOG, CPU_SATURATED, FIRST_POLL_SLOW_NS, ProcessPartial};
use crate::fmt::{fmt_dur, to_fixed};
use crate::frames::format_frame;
use crate::frames::is_kernel_address;
use crate::report::{BlockingCall, Finding, Frame, Moment, Severity};

/// A task that waited for a worker longer than this is critical.
const CRITICAL_WAIT_NS: u64 = 50_000_000;

/// How bad a wait for a worker was (a woken task's, a new task's), by the worst one.
fn wait_severity(worst_ns: u64) -> Severity {
    match worst_ns > CRITICAL_WAIT_NS {
        true => Severity::Critical,
        false => Severity::Warning,
    }
}

fn flag(severity: Severity, check: &str, message: String, fix: &str) -> Finding {
    Finding {
        severity,
        check: check.into(),
        message,
        fix: fix.into(),
        moment: None,
    }
}

/// Findings sorted critical → warning → info (stable within a severity).
/// `top_call`: the call that blocked workers longest (`profile::calls::by_call`).
pub fn scan(acc: &Acc, top_call: Option<&BlockingCall>) -> Vec<Finding> {
    let f = &acc.flags;
    let mut out = Vec::new();
    let ms = |ns: u64| to_fixed(ns as f64 / 1e6, 1);
    let min_ts = acc.min_ts.unwrap_or(0);
    if acc.incomplete_files > 0 {
        out.push(flag(
            Severity::Warning,
            "incomplete-file",
            format!("{} trace file(s) were sealed incomplete: events were lost or carried over at rotation, so counts are understated.", acc.incomplete_files),
            "Raise the recorder's max_file_size or shorten rotation_period so segments seal cleanly.",
        ));
    }
    for (sev, lo, hi, count) in [
        (Severity::Critical, 50_000_000, u64::MAX, f.polls_over_50ms),
        (
            Severity::Warning,
            10_000_000,
            50_000_000,
            // Never fewer, but a partial read off the wire is not trusted.
            f.polls_over_10ms.saturating_sub(f.polls_over_50ms),
        ),
    ] {
        if count == 0 {
            continue;
        }
        let tier: Vec<_> = acc.long_polls.iter().filter(|p| p.dur > lo && p.dur <= hi).collect();
        let mut lines: Vec<String> = tier
            .iter()
            .take(5)
            .map(|p| {
                format!(
                    "Poll of {}ms on worker {} at {}ms (task {}, spawn: {})",
                    ms(p.dur),
                    p.worker,
                    ms(p.start.saturating_sub(min_ts)),
                    p.task_id,
                    p.spawn_loc.as_deref().unwrap_or("(unknown)")
                )
            })
            .collect();
        if count > 5 {
            let worst = tier
                .first()
                .map_or(String::new(), |p| format!(", worst {}ms", ms(p.dur)));
            lines.push(format!(
                "... and {} more poll(s) over {}ms ({count} total{worst})",
                count - 5,
                lo / 1_000_000
            ));
        }
        let mut f = flag(
            sev,
            "long-poll",
            lines.join("\n"),
            "A poll this long blocks every task queued on that worker. Find the blocking call (see the long poll's stacks or `d9lens diagnose`), move it to spawn_blocking, or split the work with yield points. Calibrate against the runtime's own p99 poll time.",
        );
        f.moment = tier.first().map(|p| Moment {
            file: p.file.clone(),
            worker: Some(p.worker),
            start_ns: p.start,
            dur_ns: p.dur,
        });
        out.push(f);
    }
    if let Some((first, last)) = acc.active.ends() {
        let peak = acc.active.peak().unwrap_or(0);
        if acc.active.len() > 10 && last > first.saturating_mul(2) && last == peak {
            out.push(flag(
                Severity::Warning,
                "task-leak",
                format!("Active tasks grew from {first} to {last} and ended at their peak."),
                "Check the spawn locations of tasks that never terminate (TASK LIFECYCLE): a loop spawning without joining, or tasks waiting on something that never completes.",
            ));
        }
    }
    if f.delays_over_5ms > 0 {
        let worst = acc.delay_worst.first().map_or(0, |d| d.delay);
        let mut f = flag(
            wait_severity(worst),
            "sched-delay",
            format!(
                "{} scheduling delays > 5ms (worst: {}ms)",
                f.delays_over_5ms,
                to_fixed(worst as f64 / 1e6, 1)
            ),
            "Woken tasks waited for a worker: shorten long polls, add yield points in CPU-heavy loops, or add worker threads.",
        );
        f.moment = acc.delay_worst.first().map(|d| d.moment());
        out.push(f);
    }
    // The reference ranks all off-CPU samples, so idle parking (epoll_wait) tops it;
    // only samples taken inside a poll are a task blocking its worker, and the
    // call that held them longest is named by the line of the application
    // that made it, not by a kernel address.
    if let Some(top) = top_call.filter(|_| acc.in_poll > 5) {
        let text = |f: &Frame| format_frame(&f.symbol, f.location.as_deref());
        let user = top.heaviest.iter().find(|f| !is_kernel_address(&f.symbol));
        let within = match user {
            Some(f) if f != &top.frame => format!(", blocked in {}", text(f)),
            _ => String::new(),
        };
        let mut f = flag(
            Severity::Warning,
            "blocking-calls",
            format!(
                "{} off-CPU samples inside polls (real blocking; {} more were idle parking). Top blocker: {} ({} blocked, {} samples){within}",
                acc.in_poll,
                acc.idle,
                text(&top.frame),
                fmt_dur(top.blocked_ns as f64),
                top.count
            ),
            "A task blocked its worker thread mid-poll: move the blocking call to tokio::task::spawn_blocking or use its async equivalent.",
        );
        f.moment = top.moment.clone();
        out.push(f);
    }
    if f.queue_points_over_100 > 0 {
        out.push(flag(
            if acc.queue_max > 1000 { Severity::Critical } else { Severity::Warning },
            "queue-depth",
            format!("Global queue reached {} ({} sample(s) above 100)", acc.queue_max, f.queue_points_over_100),
            "Work arrives faster than the workers drain it: add backpressure (bounded channels, concurrency limits) or capacity.",
        ));
    }
    let polls: Vec<u64> = acc.workers.values().map(|w| w.poll_count).collect();
    if let (Some(&min), Some(&max)) = (polls.iter().min(), polls.iter().max())
        && polls.len() >= 2
        && min > 0
        && max > min.saturating_mul(3)
    {
        out.push(flag(
            Severity::Info,
            "worker-imbalance",
            format!("Worker poll imbalance: {min}–{max} polls across workers ({}x ratio)", to_fixed(max as f64 / min as f64, 1)),
            "Usually benign (work stealing keeps busy workers busy). If one runtime is idle by design (e.g. a dedicated io runtime) ignore it; otherwise look for tasks pinned to one worker by a LocalSet or block_on.",
        ));
    }
    for (w, c) in &f.contention {
        if c.periods > 10 && c.low.saturating_mul(10) > c.periods {
            out.push(flag(
                Severity::Warning,
                "cpu-contention",
                format!(
                    "Worker {w}: {} of {} active periods ran < 50% on-CPU (mean CPU ratio {})",
                    c.low,
                    c.periods,
                    to_fixed(c.low_ratio_sum / c.low as f64, 2)
                ),
                "The kernel descheduled this worker while it had work: other processes or threads compete for the cores. Check CPU limits (cgroups, noisy neighbours) and the number of threads per core.",
            ));
        }
    }
    for k in acc.kernel_waits() {
        if k.count_over_1ms > 0 {
            out.push(flag(
                if k.max_ns > 10_000_000 {
                    Severity::Warning
                } else {
                    Severity::Info
                },
                "kernel-sched-wait",
                format!(
                    "Worker {}: {} wake-ups waited > 1ms in the kernel run queue (worst {})",
                    k.worker,
                    k.count_over_1ms,
                    fmt_dur(k.max_ns as f64)
                ),
                "The worker was runnable but not running: the machine is short of CPU at those moments.",
            ));
        }
    }
    let mut busy = f.busy_polls.clone();
    busy.sort_by_key(|a| std::cmp::Reverse(a.spans));
    if let Some(top) = busy.first() {
        out.push(flag(
            Severity::Warning,
            "many-spans-per-poll",
            format!(
                "{} poll(s) ran more than {MANY_SPANS} spans each (worst: {} spans in one {} poll of task {} on worker {})",
                busy.len(),
                top.spans,
                fmt_dur(top.dur as f64),
                top.task_id,
                top.worker
            ),
            "One poll doing many units of work starves other tasks on that worker: process in batches with tokio::task::yield_now() between them.",
        ));
    }
    for (name, h) in &acc.span_stats {
        let p50 = h.percentile(50.0);
        if h.count() >= 10 && p50 > 0 {
            let outliers = h.count_above(p50.saturating_mul(10));
            if outliers > 0 {
                let mut f = flag(
                    Severity::Info,
                    "span-duration-outlier",
                    format!(
                        "{name}: {outliers} span(s) longer than 10× p50 ({} > {})",
                        fmt_dur(p50 as f64),
                        fmt_dur(10.0 * p50 as f64)
                    ),
                    "Open the slowest instances in the spans view and compare them with typical ones (arguments, contention, downstream latency).",
                );
                f.moment = acc.span_slowest.get(name).cloned();
                out.push(f);
            }
        }
    }
    let unmatched: u64 = f.unmatched_spans.values().sum();
    if unmatched > 0 {
        let names: Vec<String> = f.unmatched_spans.iter().map(|(n, c)| format!("{n}: {c}")).collect();
        out.push(flag(
            Severity::Info,
            "unmatched-spans",
            format!("{unmatched} span(s) entered but never exited ({})", names.join(", ")),
            "Spans still open when the segment was sealed, or exits lost at rotation; analyze the next segment too.",
        ));
    }
    out.extend(process_flags(&acc.process));
    out.sort_by_key(|f| f.severity);
    out
}

/// The process's CPU and accept queues, new tasks' waits for their first
/// poll, and the tasks dial9 cannot see waking.
fn process_flags(p: &ProcessPartial) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(cpu) = &p.cpu
        && let Some(available) = cpu.available.filter(|&a| a > 0)
        && cpu.millicores * CPU_SATURATED.1 >= available * 1000 * CPU_SATURATED.0
    {
        let mut f = flag(
            Severity::Warning,
            "process-cpu-saturated",
            format!(
                "The process used {} of its {available} cores over {} (user + system CPU time)",
                to_fixed(cpu.millicores as f64 / 1e3, 2),
                fmt_dur(cpu.at.dur_ns as f64)
            ),
            "Every core was busy: polls wait for CPU, not for Tokio. Find the CPU in the on-CPU flamegraph, or give the process more cores.",
        );
        f.moment = Some(cpu.at.clone());
        out.push(f);
    }
    if let Some(q) = &p.accept
        && q.backlog > 0
        && q.pending * ACCEPT_NEAR_BACKLOG.1 >= q.backlog * ACCEPT_NEAR_BACKLOG.0
    {
        let port = q.port.map_or(String::new(), |p| format!(" on port {p}"));
        let mut f = flag(
            if q.pending >= q.backlog {
                Severity::Critical
            } else {
                Severity::Warning
            },
            "accept-queue-near-backlog",
            format!(
                "{} connections waited in the accept queue{port}, backlog {}: clients waited before Tokio saw them",
                q.pending, q.backlog
            ),
            "Accept faster (a dedicated accept task that only hands connections off), raise the listen backlog (and net.core.somaxconn), or add capacity.",
        );
        f.moment = Some(q.at.clone());
        out.push(f);
    }
    let first = &p.first_polls;
    if first.slow > 0
        && let Some(w) = &first.worst
    {
        let from = w
            .spawn_loc
            .as_deref()
            .map_or(String::new(), |l| format!(", spawned at {l}"));
        let mut f = flag(
            wait_severity(w.at.dur_ns),
            "first-poll-delay",
            format!(
                "{} new task(s) waited > {}ms from spawn to first poll (worst: {}, task {}{from})",
                first.slow,
                FIRST_POLL_SLOW_NS / 1_000_000,
                fmt_dur(w.at.dur_ns as f64),
                w.task
            ),
            "New tasks queued behind busy workers before their first poll: shorten long polls, move blocking work to spawn_blocking, or add worker threads.",
        );
        f.moment = Some(w.at.clone());
        out.push(f);
    }
    if p.uninstrumented > 0 {
        out.push(flag(
            Severity::Info,
            "tasks-not-instrumented",
            format!(
                "{} task(s) were spawned around dial9: their wakes are not recorded, so their scheduling delays are missing",
                p.uninstrumented
            ),
            "Spawn them through dial9's spawn helper (dial9-tokio-telemetry) instead of a plain tokio::spawn, so their wakes are traced.",
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::process::{FirstPollDelay, FirstPolls};

    #[test]
    fn slow_first_polls_are_flagged_at_the_worst_with_its_spawn() {
        let worst = |ns: u64, slow: u64| ProcessPartial {
            first_polls: FirstPolls {
                worst: Some(FirstPollDelay {
                    task: 7,
                    spawn_loc: Some("src/main.rs:3:5".into()),
                    at: Moment {
                        file: "a.bin".into(),
                        worker: None,
                        start_ns: 100,
                        dur_ns: ns,
                    },
                }),
                slow,
            },
            ..ProcessPartial::default()
        };
        let flags = process_flags(&worst(60_000_000, 3));
        let f = flags.iter().find(|f| f.check == "first-poll-delay").expect("flagged");
        assert_eq!(f.severity, Severity::Critical);
        assert_eq!(f.moment.as_ref().unwrap().dur_ns, 60_000_000);
        assert!(f.message.starts_with("3 new task(s) waited > 5ms"), "{}", f.message);
        assert!(
            f.message.contains("task 7, spawned at src/main.rs:3:5"),
            "{}",
            f.message
        );
        let warn = process_flags(&worst(6_000_000, 1));
        assert_eq!(warn[0].severity, Severity::Warning);
        // Under the threshold: nothing to say.
        assert!(process_flags(&worst(4_000_000, 0)).is_empty());
    }
}
