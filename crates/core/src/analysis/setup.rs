//! The setup diagnostic (`diagnose_setup.js`): is the recording itself
//! complete enough to trust (frame pointers, wake events, symbols, sched
//! events, tokio_unstable, task polls)?

use super::Options;
use super::workers::Timelines;
use crate::fmt::to_fixed;
use crate::report::{Finding, SetupDiagnostic, Severity};
use crate::trace::{ParsedTrace, SOURCE_ON_CPU, SymbolTable};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

const RUSTFLAGS: &str = "[build]\nrustflags = [\"--cfg\", \"tokio_unstable\", \"-C\", \"force-frame-pointers=yes\"]";

/// Inputs of the setup diagnostic.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SetupPartial {
    pub symbols: u64,
    pub symbols_with_location: u64,
    pub wake_events: u64,
    pub poll_starts: u64,
    pub unparks: u64,
    pub on_cpu_chain_frames: u64,
    pub on_cpu_addresses: BTreeSet<u64>,
    pub tokio_unstable_false: bool,
    #[serde(default)]
    pub time: crate::trace::TimeAnomalies,
}

impl SetupPartial {
    /// One file's inputs.
    pub(super) fn of(trace: &ParsedTrace, tl: &Timelines) -> SetupPartial {
        let symbols: &SymbolTable = &trace.symbols;
        let mut s = SetupPartial {
            symbols: symbols.len() as u64,
            symbols_with_location: symbols.with_location() as u64,
            wake_events: trace.wakes.len() as u64,
            tokio_unstable_false: trace.metadata.get("tokio.unstable").is_some_and(|v| v == "false"),
            time: trace.time,
            ..SetupPartial::default()
        };
        for wt in tl.workers.values() {
            s.poll_starts += wt.poll_starts;
            s.unparks += wt.unparks;
        }
        for sample in trace.samples.iter().filter(|x| x.source == SOURCE_ON_CPU) {
            s.on_cpu_chain_frames += sample.callchain.len() as u64;
            s.on_cpu_addresses.extend(sample.callchain.iter().copied());
        }
        s
    }

    /// Another file's inputs added to these.
    pub(super) fn add(&mut self, o: &SetupPartial) {
        self.symbols = self.symbols.saturating_add(o.symbols);
        self.symbols_with_location = self.symbols_with_location.saturating_add(o.symbols_with_location);
        self.wake_events = self.wake_events.saturating_add(o.wake_events);
        self.poll_starts = self.poll_starts.saturating_add(o.poll_starts);
        self.unparks = self.unparks.saturating_add(o.unparks);
        self.on_cpu_chain_frames = self.on_cpu_chain_frames.saturating_add(o.on_cpu_chain_frames);
        self.on_cpu_addresses.extend(&o.on_cpu_addresses);
        self.tokio_unstable_false |= o.tokio_unstable_false;
        self.time.add(&o.time);
    }
}

fn finding(severity: Severity, check: &str, message: String, fix: String) -> Finding {
    Finding {
        severity,
        check: check.into(),
        message,
        fix,
        moment: None,
    }
}

pub fn diagnose(s: &SetupPartial, on_cpu: u64, off_cpu: u64, spawns: u64, opts: &Options) -> SetupDiagnostic {
    let mut issues = Vec::new();
    // Beyond the reference: time that makes no sense is named, never shown as centuries.
    if !opts.reference_compatible {
        time_issues(s, &mut issues);
    }
    let addresses = s.on_cpu_addresses.len() as u64;
    if on_cpu > 10 {
        let depth = s.on_cpu_chain_frames as f64 / on_cpu as f64;
        if depth < 3.0 {
            issues.push(finding(
                Severity::Critical,
                "missing-frame-pointers",
                format!("CPU stack traces are only {} frames deep on average (expected 10+). Frame pointers are not enabled.", to_fixed(depth, 1)),
                format!("Add to .cargo/config.toml:\n\n{RUSTFLAGS}\n\nThen rebuild your application. This enables the compiler to emit frame pointer instructions,\nwhich dial9 uses to walk the call stack during CPU profiling."),
            ));
        }
    }
    if spawns > 0 && s.wake_events == 0 {
        issues.push(finding(
            Severity::Warning,
            "missing-wake-events",
            format!("{spawns} tasks were spawned but 0 wake events were recorded. Tasks are not instrumented."),
            "Use dial9's spawn() instead of tokio::spawn() to instrument tasks:\n\nuse dial9_tokio_telemetry::telemetry::spawn;\n\nspawn(async { /* your task */ });\n\nWake events let dial9 measure scheduling delays (time between Waker::wake()\nand the task actually being polled). Without them, you cannot diagnose\nwhether tasks are waiting too long in the queue.".into(),
        ));
    }
    if on_cpu > 10 && addresses > 0 {
        let rate = s.symbols as f64 / addresses as f64;
        if s.symbols == 0 || (rate < 0.1 && s.symbols_with_location == 0) {
            issues.push(finding(
                Severity::Warning,
                "missing-debug-symbols",
                format!("Only {} symbols resolved out of {addresses} unique addresses ({} with source locations). Debug symbols are missing.", s.symbols, s.symbols_with_location),
                "Ensure your release profile includes debug info. In Cargo.toml:\n\n[profile.release]\ndebug = \"line-tables-only\"   # minimal size overhead, enough for dial9\nstrip = false                # do NOT strip symbols\n\nDo NOT pass -C strip=symbols in RUSTFLAGS for builds you want to profile.\nDebug info is needed for dial9 to resolve stack addresses to function names\nand source locations. Without it, CPU profiles show only hex addresses.".into(),
            ));
        }
    }
    if on_cpu > 0 && off_cpu == 0 {
        issues.push(finding(
            Severity::Info,
            "no-scheduling-events",
            "No off-CPU scheduling samples found. Schedule profiling is not enabled or not available.".into(),
            "To enable scheduling event capture:\n\n1. Set perf_event_paranoid <= 1:\n   sudo sysctl kernel.perf_event_paranoid=1\n\n2. Enable sched events in your dial9 config:\n   use dial9_tokio_telemetry::telemetry::cpu_profile::SchedEventConfig;\n\n   Dial9Config::builder()\n       .with_runtime(|r| r.with_sched_events(SchedEventConfig::default()))\n\n   Or via environment variable:\n   DIAL9_SCHEDULE_PROFILE_ENABLED=true\n\nScheduling events show stack traces when the kernel deschedules your worker\nthreads. This reveals blocking calls (file I/O, DNS, mutexes) that should\nuse spawn_blocking instead of running on the async runtime.".into(),
        ));
    }
    if s.tokio_unstable_false {
        issues.push(finding(
            Severity::Warning,
            "no-tokio-unstable",
            "This trace was recorded without --cfg tokio_unstable. Poll events cover only tasks spawned through dial9's own helpers, and task lifetimes and per-worker queue depth are unavailable.".into(),
            format!("Add to .cargo/config.toml:\n\n{RUSTFLAGS}\n\nThen rebuild. Tokio gates its poll and task hooks behind this flag; without it\ndial9 only sees tasks spawned through its own helpers (spawn, spawn_in,\nblock_on, spawn_with)."),
        ));
    }
    if !s.tokio_unstable_false && s.unparks > 10 && s.poll_starts == 0 {
        issues.push(finding(
            Severity::Warning,
            "no-task-polls",
            format!("The runtime unparked {} times but recorded 0 task polls. Its work is running outside any task.", s.unparks),
            "Drive the runtime with dial9's block_on instead of Runtime::block_on:\n\nuse dial9::block_on;\n\nblock_on(&runtime, async { /* your work */ });\n\nPoll and wake events come from Tokio's per-task hooks. Runtime::block_on polls\nits future on the calling thread, outside any task, so that future and anything\nawaited inline under it never reach the trace. dial9::block_on spawns it first.\n#[dial9::main] already does this.".into(),
        ));
    }
    SetupDiagnostic {
        on_cpu_samples: on_cpu,
        off_cpu_samples: off_cpu,
        tasks_spawned: spawns,
        wake_events: s.wake_events,
        task_polls: s.poll_starts,
        worker_unparks: s.unparks,
        symbols: s.symbols,
        symbols_with_location: s.symbols_with_location,
        issues,
    }
}

fn time_issues(s: &SetupPartial, issues: &mut Vec<Finding>) {
    let t = &s.time;
    if t.absurd > 0 {
        issues.push(finding(
            Severity::Warning,
            "absurd-timestamps",
            format!(
                "{} event(s) carried timestamps more than a day away from the rest of the trace (such as u64::MAX or a clock reset to 0). They were left out, so no duration or wall clock is distorted by them.",
                t.absurd
            ),
            "The recorder or the file is damaged: check which dial9 version wrote it, and report it with the file.".into(),
        ));
    }
    if t.backwards > 0 {
        issues.push(finding(
            Severity::Info,
            "timestamps-out-of-order",
            format!(
                "{} worker event(s) were earlier than the event before them in the file; they were analyzed in time order.",
                t.backwards
            ),
            "A worker thread handing off (block_in_place) does this now and then; many of them point at a clock problem where the trace was recorded.".into(),
        ));
    }
}
