//! The report model carries the same numbers as the reference's
//! `*.reference.json` for every shared fixture (reference-compatible mode).

mod common;
use common::*;
use d9lens_core::frames::format_frame;
use d9lens_core::report::{LocationCount, Report};
use serde_json::{Value, json};

fn reference_json(rel: &str) -> Value {
    serde_json::from_slice(&read(&format!("{rel}.reference.json"))).unwrap()
}

fn locs(v: &[LocationCount]) -> Value {
    v.iter().map(|c| json!({"loc": c.loc, "count": c.count})).collect()
}

/// The reference's JSON view, rebuilt from our report.
fn as_reference(r: &Report) -> Value {
    let s = &r.summary;
    json!({
        "summary": {
            "durationMs": s.duration_ms, "workers": s.workers, "eventCount": s.event_count,
            "cpuSampleCount": s.cpu_sample_count, "onCpuSampleCount": s.on_cpu_sample_count,
            "offCpuSampleCount": s.off_cpu_sample_count, "taskSpawnCount": s.task_spawn_count,
            "taskAliveAtEnd": s.task_alive_at_end,
        },
        "workerUtilization": r.workers.iter().map(|w| json!({
            "worker": w.worker, "utilization": w.utilization, "avgCpuRatio": w.avg_cpu_ratio.unwrap_or(0.0),
            "pollCount": w.poll_count, "parkCount": w.park_count, "activeCount": w.active_count,
        })).collect::<Value>(),
        "longPolls": {
            "count": r.long_polls.count, "worstNs": r.long_polls.worst_ns,
            "worst10": r.long_polls.worst.iter().take(10).map(|p| json!({
                "durNs": p.dur_ns, "worker": p.worker, "taskId": p.task_id, "spawnLoc": p.spawn_loc,
                "startOffsetNs": p.start_offset_ns, "schedSamples": p.sched_samples.len(), "cpuSamples": p.cpu_samples.len(),
            })).collect::<Value>(),
        },
        "schedulingDelay": {
            "count": r.sched_delays.count, "countOver1ms": r.sched_delays.count_over_1ms,
            "p50Ns": r.sched_delays.p50_ns, "p99Ns": r.sched_delays.p99_ns, "maxNs": r.sched_delays.max_ns,
            "worst5": r.sched_delays.worst.iter().take(5).map(|d| json!({
                "delayNs": d.delay_ns, "taskId": d.task_id, "spawnLoc": d.spawn_loc, "wakeOffsetNs": d.wake_offset_ns,
            })).collect::<Value>(),
        },
        "pollDurationBySpawnLocation": r.poll_by_spawn.iter().map(|l| json!({
            "loc": l.name, "count": l.count, "p50Ns": l.p50_ns, "p99Ns": l.p99_ns, "maxNs": l.max_ns, "minNs": l.min_ns,
        })).collect::<Value>(),
        "taskLifecycle": {
            "spawnsByLocation": locs(&r.lifecycle.spawns_by_location),
            "peakActive": r.lifecycle.peak_active, "activeAtFirstSample": r.lifecycle.active_at_first_sample,
            "activeAtLastSample": r.lifecycle.active_at_last_sample, "possibleLeak": r.lifecycle.possible_leak,
            "aliveByLocation": locs(&r.lifecycle.alive_by_location),
        },
        "offCpu": {
            "samples": r.blocking.off_cpu_samples, "inPoll": r.blocking.in_poll, "idlePark": r.blocking.idle_park,
            "inPollBySpawnLocation": locs(&r.blocking.in_poll_by_location),
        },
        "cpuHotspots": r.cpu_hotspots.top_stacks.iter().take(5).map(|g| json!({
            "count": g.count,
            "leaf": g.frames.first().map_or("(unknown)".into(), |f| format_frame(&f.symbol, f.location.as_deref())),
        })).collect::<Value>(),
        "queueDepth": {
            "globalMax": r.queue.global_max.unwrap_or(0), "globalAvg": r.queue.global_avg.unwrap_or(0.0),
            "samples": r.queue.samples, "maxLocalQueue": r.queue.max_local_queue,
        },
        "kernelSchedWait": r.kernel_wait.iter().map(|k| json!({
            "worker": k.worker, "count": k.count, "maxNs": k.max_ns, "p50Ns": k.p50_ns, "countOver1ms": k.count_over_1ms,
        })).collect::<Value>(),
        "spanDurations": r.spans.iter().map(|s| json!({
            "name": s.name, "count": s.count, "p50Ns": s.p50_ns, "p99Ns": s.p99_ns, "maxNs": s.max_ns, "minNs": s.min_ns,
        })).collect::<Value>(),
        "memory": r.memory.as_ref().map(|m| json!({
            "sampleRateBytes": m.sample_rate_bytes, "totalAllocBytes": m.total_alloc_bytes,
            "totalAllocCount": m.total_alloc_count, "totalFreeCount": m.total_free_count,
            "leakedBytes": m.leaked_bytes, "leakedCount": m.leaked_count,
            "estimatedTotalBytes": m.estimated_total_bytes, "totalDroppedAllocs": m.dropped_allocs,
            "totalDroppedFrees": m.dropped_frees,
            "topSites": m.top_sites.iter().take(5).map(|s| json!({
                "estimatedBytes": s.estimated_bytes.round() as u64, "count": s.count,
                "frames": s.frames.iter().take(8).map(|f| f.symbol.clone()).collect::<Vec<_>>(),
            })).collect::<Value>(),
        })),
        "setupDiagnostic": {
            "issues": r.setup.issues.iter().map(|f| json!({"severity": f.severity, "check": f.check})).collect::<Value>(),
        },
    })
}

/// Compares every field our view has against the reference (which has more).
fn assert_matches(expected: &Value, actual: &Value, path: &str, errors: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, av) in a {
                match e.get(k) {
                    Some(ev) => assert_matches(ev, av, &format!("{path}.{k}"), errors),
                    None => errors.push(format!("{path}.{k}: missing in reference")),
                }
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                errors.push(format!("{path}: {} items in reference, {} here", e.len(), a.len()));
            }
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                assert_matches(ev, av, &format!("{path}[{i}]"), errors);
            }
        }
        (Value::Object(e), Value::Array(_)) if e.is_empty() => {}
        (Value::Number(e), Value::Number(a)) => {
            if e.as_f64() != a.as_f64() {
                errors.push(format!("{path}: reference {e}, here {a}"));
            }
        }
        (e, a) => {
            if e != a {
                errors.push(format!("{path}: reference {e}, here {a}"));
            }
        }
    }
}

fn check(rels: &[&str], reference_rel: &str, label: Option<&str>) -> Vec<String> {
    let report = analyze(rels, &reference(), label);
    let mut expected = reference_json(reference_rel);
    // The reference's taskLifecycle counts active-task points; ours lists them (the report only needs the extremes).
    expected["taskLifecycle"]
        .as_object_mut()
        .unwrap()
        .retain(|k, _| k != "activeTaskSamples");
    let mut errors = Vec::new();
    assert_matches(&expected, &as_reference(&report), reference_rel, &mut errors);
    errors
}

#[test]
fn single_file_numbers_equal_the_reference_json() {
    let mut errors = Vec::new();
    for rel in SINGLE_FILES {
        errors.extend(check(&[rel], rel, None));
    }
    assert!(errors.is_empty(), "{} mismatches:\n{}", errors.len(), errors.join("\n"));
}

#[test]
fn s3_object_numbers_equal_the_reference_json() {
    let mut errors = Vec::new();
    for key in s3_reference_keys() {
        errors.extend(check(
            &[&format!("s3-bucket/{key}")],
            &format!("s3-bucket.reference/{key}"),
            None,
        ));
    }
    assert!(errors.is_empty(), "{} mismatches:\n{}", errors.len(), errors.join("\n"));
}

#[test]
fn directory_numbers_equal_the_reference_json_except_hotspots() {
    let mut errors = check(ROTATION, "rotation.dir", Some("5 files in rotation"));
    // Hotspot counts of the directory report vary between runs of the reference itself.
    errors.retain(|e| !e.contains(".cpuHotspots"));
    assert!(errors.is_empty(), "{} mismatches:\n{}", errors.len(), errors.join("\n"));
}
