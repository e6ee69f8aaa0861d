//! What folding many files holds: one file's partial folded COPIES times
//! under new names, its task ids moved to a range of their own per copy
//! (`new-ids`, as a fleet's files bring tasks the fold has not seen: a
//! runtime numbers them from one upward) or left alone (`same-ids`), with
//! the process's resident memory after each quarter and the report's time.
//!
//! cargo run --release -p d9lens-core --example fold_memory -- FILE COPIES new-ids|same-ids

use d9lens_core::analysis::{Merger, Options, analyze_file};
use std::time::Instant;

fn resident_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok());
    kb.unwrap_or(0) / 1024
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, copies, ids] = &args[..] else {
        eprintln!("usage: fold_memory FILE COPIES new-ids|same-ids");
        std::process::exit(2);
    };
    let copies: u64 = copies.parse().expect("COPIES is a number");
    let new_ids = match ids.as_str() {
        "new-ids" => true,
        "same-ids" => false,
        other => panic!("new-ids or same-ids, not {other}"),
    };
    let bytes = std::fs::read(file).expect("FILE reads");
    let opts = Options::default();
    let base = analyze_file("0.bin", &bytes, &opts).partial;
    println!(
        "one file: {} tasks with a spawn location, {} terminated, {} active-task points; {} MB resident",
        base.task_spawn_locs.len(),
        base.tasks_terminated.len(),
        base.active_tasks.len(),
        resident_mb()
    );
    let names: Vec<String> = (0..copies).map(|i| format!("{i:06}.bin")).collect();
    let mut merger = Merger::new(opts).with_files(names.clone());
    let start = Instant::now();
    for (i, name) in (0u64..).zip(&names) {
        let mut p = base.clone();
        p.file = name.clone();
        if new_ids {
            let moved = |task: u64| task + (i << 32);
            p.task_spawn_locs = p.task_spawn_locs.into_iter().map(|(t, l)| (moved(t), l)).collect();
            p.tasks_left_alive = p.tasks_left_alive.iter().map(|&t| moved(t)).collect();
            p.tasks_terminated = p.tasks_terminated.iter().map(moved).collect();
        }
        merger.add(p);
        if (i + 1) % (copies / 4).max(1) == 0 {
            println!(
                "{} files folded: {} MB resident, {:?}",
                i + 1,
                resident_mb(),
                start.elapsed()
            );
        }
    }
    let start = Instant::now();
    let report = merger.into_report();
    println!(
        "report in {:?}; task lifecycle leaves out {} files",
        start.elapsed(),
        report.lifecycle.files_left_out
    );
}
