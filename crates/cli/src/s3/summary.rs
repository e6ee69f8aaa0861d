//! The catalog summary as text: what `d9lens s3 ls` prints.

use d9lens_core::bucket::catalog::{BootSummary, CatalogSummary, HostSummary, Load};
use d9lens_core::bucket::layout::Layout;
use d9lens_core::fmt::{bytes, secs as duration};
use d9lens_core::s3::{Endpoint, S3Config, Timestamp};
use std::fmt::Write;

/// `endpoint http://127.0.0.1:9001` or `AWS S3`.
pub fn endpoint_text(config: &S3Config) -> String {
    match &config.endpoint {
        Endpoint::Aws => "AWS S3".to_owned(),
        Endpoint::Custom(_) => {
            // The URL of the bucket itself, without any query.
            let url = config
                .list_objects_v2(&Default::default(), Timestamp::from_unix_secs(0))
                .url;
            let base = url.split('?').next().unwrap_or(&url);
            let base = base
                .strip_suffix(&format!("/{}", config.bucket.as_str()))
                .unwrap_or(base);
            format!("endpoint {base}")
        }
    }
}

pub fn time(secs: u64) -> String {
    Timestamp::from_unix_secs(secs as i64).to_rfc3339()
}

fn plural(n: u64, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

fn boot_line(out: &mut String, b: &BootSummary) {
    let start = b.start.describe().unwrap_or_else(|| "first boot".to_owned());
    let layouts: Vec<&str> = b
        .layouts
        .iter()
        .map(|l| match l {
            Layout::V1 => "v1",
            Layout::Positional => "positional",
        })
        .collect();
    let _ = writeln!(
        out,
        "      boot {}: {}, #{}–#{}, {}, {} → {}{}, {start} [{}]",
        b.boot.as_deref().unwrap_or("(none)"),
        plural(b.segments, "segment"),
        b.first_index,
        b.last_index,
        bytes(b.bytes),
        time(b.first_start_secs),
        // A guessed end (from the boot's cadence: no upload time confirms it).
        if b.end_guessed { "~" } else { "" },
        time(b.end_secs),
        layouts.join(", ")
    );
    if !b.anomalies.is_empty() {
        let list: Vec<String> = b.anomalies.iter().map(ToString::to_string).collect();
        let _ = writeln!(out, "        anomalies: {}", list.join("; "));
    }
}

fn host_block(out: &mut String, h: &HostSummary) {
    let interval = h
        .typical_interval_secs
        .map_or(String::new(), |s| format!(", every {}", duration(s)));
    let load = h
        .relative_load_pct
        .map_or(String::new(), |p| format!(", median {p}% of typical"));
    let _ = writeln!(
        out,
        "    {}: {}, {}, {} → {}{interval}; {} busy, {} quiet, {} empty{load}",
        h.instance,
        plural(h.segments, "segment"),
        bytes(h.bytes),
        time(h.first_start_secs),
        time(h.last_start_secs),
        h.busy_segments,
        h.quiet_segments,
        h.empty_segments,
    );
    for b in &h.boots {
        boot_line(out, b);
    }
    for g in &h.gaps {
        let _ = writeln!(
            out,
            "      gap {} → {} ({}), boot {} → {}",
            time(g.from_secs),
            time(g.to_secs),
            duration(g.to_secs - g.from_secs),
            g.boot_before.as_deref().unwrap_or("-"),
            g.boot_after.as_deref().unwrap_or("-")
        );
    }
    if let Some(peak) = h
        .density
        .iter()
        .max_by_key(|d| (d.bytes, std::cmp::Reverse(d.minute_secs)))
    {
        let busy = h.density.iter().filter(|d| d.load == Load::Busy).count();
        let _ = writeln!(
            out,
            "      density: peak {}/min at {}; {} of {} minutes busy",
            bytes(peak.bytes),
            time(peak.minute_secs),
            busy,
            h.density.len()
        );
    }
}

/// The whole summary; `header` is the first line (what was listed, where).
pub fn render(header: &str, s: &CatalogSummary) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{header}");
    let _ = writeln!(
        out,
        "{}, {}: {} ({} v1, {} positional), {}; {}",
        plural(s.objects, "object"),
        bytes(s.total_bytes),
        plural(s.segments, "segment"),
        s.v1_segments,
        s.positional_segments,
        bytes(s.segment_bytes),
        plural(s.other_objects, "other object"),
    );
    if let Some(range) = s.time_range {
        let dates: Vec<String> = s.dates.iter().map(ToString::to_string).collect();
        let _ = writeln!(
            out,
            "Segment starts: {} → {} (dates {})",
            time(range.first_start_secs),
            time(range.last_start_secs),
            dates.join(", ")
        );
    }
    if !s.roots.is_empty() {
        let roots: Vec<&str> = s
            .roots
            .iter()
            .map(|r| if r.is_empty() { "(bucket root)" } else { r })
            .collect();
        let _ = writeln!(out, "Layout roots: {}", roots.join(", "));
    }
    if let (Some(typical), Some(busy)) = (s.load.typical_bytes, s.load.busy_bytes) {
        let _ = writeln!(
            out,
            "Load: typical segment {}, busy from {}",
            bytes(typical),
            bytes(busy)
        );
    }
    let _ = writeln!(
        out,
        "{}, {}: {}",
        plural(s.services.len() as u64, "service"),
        plural(s.instances.len() as u64, "instance"),
        s.instances.join(", ")
    );

    for svc in &s.services {
        let raw = match svc.raw_names.as_slice() {
            [only] if *only == svc.name => String::new(),
            names => format!(" (in keys: {})", names.join(", ")),
        };
        let _ = writeln!(
            out,
            "\nSERVICE {}{raw}: {}, {}, {}",
            svc.name,
            plural(svc.hosts, "host"),
            plural(svc.segments, "segment"),
            bytes(svc.bytes)
        );
        for group in &svc.subnets {
            match group.subnet {
                Some(subnet) => _ = writeln!(out, "  subnet {subnet}"),
                None => _ = writeln!(out, "  hosts without an IPv4 address in their name"),
            }
            for host in &group.hosts {
                host_block(&mut out, host);
            }
        }
    }

    if !s.others.is_empty() {
        let _ = writeln!(out, "\nOTHER OBJECTS (not segments): {}", s.other_objects);
        for group in &s.others {
            let parent = if group.parent.is_empty() {
                "(bucket root)"
            } else {
                &group.parent
            };
            let _ = writeln!(out, "  {parent}/");
            for o in &group.objects {
                let name = o.key.rsplit('/').next().unwrap_or(&o.key);
                let _ = writeln!(out, "    {name} ({}): {}", bytes(o.size), o.reason);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times() {
        assert_eq!(time(1_796_047_538), "2026-11-30T14:05:38Z");
    }
}
