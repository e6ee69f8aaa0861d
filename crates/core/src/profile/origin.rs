//! Where a frame's code comes from: the application, a dependency, the Rust
//! standard library or Tokio's runtime, the C library, the kernel, or an
//! address nobody could name. Flamegraphs colour by it and blocking stacks
//! are named by their innermost application frame.
//!
//! This is d9lens' own reading, finer than the reference's `frameKind`
//! (`frames::frame_kind`), which calls every unlisted C name (`syscall`) and
//! every dependency "app". It looks at the source path the symbol table gives:
//! Cargo's registry and git checkouts are dependencies, rustc's `library/` is
//! the standard library, non-Rust sources are the system.

use crate::frames::{Frame, FrameKind, frame_kind, is_kernel_address};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    App,
    Dependency,
    /// The standard library and Tokio's runtime.
    Runtime,
    /// The C library and allocators.
    System,
    Kernel,
    Unresolved,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::App => "application",
            Origin::Dependency => "dependency",
            Origin::Runtime => "std / runtime",
            Origin::System => "libc / system",
            Origin::Kernel => "kernel",
            Origin::Unresolved => "unresolved",
        }
    }

    pub const ALL: [Origin; 6] = [
        Origin::App,
        Origin::Dependency,
        Origin::Runtime,
        Origin::System,
        Origin::Kernel,
        Origin::Unresolved,
    ];
}

pub fn origin(frame: &Frame) -> Origin {
    let symbol = &*frame.symbol;
    if symbol.is_empty() || symbol.starts_with("0x") || symbol.starts_with("[unknown]") {
        return if is_kernel_address(symbol) {
            Origin::Kernel
        } else {
            Origin::Unresolved
        };
    }
    let location = frame.location.as_deref().unwrap_or("");
    if let Some(krate) = registry_crate(location) {
        return if is_tokio_dir(krate) {
            Origin::Runtime
        } else {
            Origin::Dependency
        };
    }
    if location.contains("/rustc/") || location.contains("/library/std/") || location.contains("/library/core/") {
        return Origin::Runtime;
    }
    // A Rust source of the application: the reference's C prefix lists
    // (`do_`, `schedule`, `free`…) say nothing about a Rust function's name.
    if location.contains(".rs") {
        return Origin::App;
    }
    match frame_kind(symbol) {
        FrameKind::Kernel => return Origin::Kernel,
        FrameKind::Libc | FrameKind::Allocator => return Origin::System,
        FrameKind::Runtime => return Origin::Runtime,
        FrameKind::App | FrameKind::Unknown => {}
    }
    if !location.is_empty() {
        return Origin::System;
    }
    let unbracketed = symbol.strip_prefix('<').unwrap_or(symbol);
    if ["std::", "core::", "alloc::", "tokio::"]
        .iter()
        .any(|p| unbracketed.starts_with(p))
    {
        return Origin::Runtime;
    }
    // With no source, a name with no path is a C symbol (`statx`, `writev`).
    if !symbol.contains("::") {
        return Origin::System;
    }
    Origin::App
}

/// The crate directory (`name-1.2.3`) of a source path in Cargo's registry
/// or git checkouts.
fn registry_crate(location: &str) -> Option<&str> {
    for marker in ["/cargo/registry/src/", "/cargo/git/checkouts/"] {
        if let Some(at) = location.find(marker) {
            let rest = &location[at + marker.len()..];
            // `index.crates.io-…/tokio-1.54.1/src/…`: the directory after the index.
            return rest.split('/').nth(1);
        }
    }
    None
}

/// `tokio-1.54.1`, not `tokio-util-0.7.0`.
fn is_tokio_dir(krate: &str) -> bool {
    krate
        .strip_prefix("tokio-")
        .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn frame(symbol: &str, location: &str) -> Frame {
        Frame {
            symbol: Arc::from(symbol),
            location: (!location.is_empty()).then(|| Arc::from(location)),
        }
    }

    #[test]
    fn reads_the_source_path() {
        let reg = "/build/cargo/registry/src/index.crates.io-1949cf8c6b5b557f";
        let cases = [
            ("legacy_sync_lookup", "/opt/builds/w/src/workload.rs:108", Origin::App),
            ("{async_fn#0}", "src/main.rs:3", Origin::App),
            (
                "wake",
                &*format!("{reg}/mio-1.2.5/src/sys/unix/waker/eventfd.rs:53"),
                Origin::Dependency,
            ),
            (
                "poll",
                &*format!("{reg}/tokio-util-0.7.1/src/x.rs:1"),
                Origin::Dependency,
            ),
            (
                "schedule_local",
                &*format!("{reg}/tokio-1.54.1/src/runtime/x.rs:9"),
                Origin::Runtime,
            ),
            (
                "try_with<x>",
                "/rustc/5980/library/std/src/thread/local.rs:513",
                Origin::Runtime,
            ),
            (
                "syscall",
                "./misc/../sysdeps/unix/sysv/linux/x86_64/syscall.S:38",
                Origin::System,
            ),
            ("__GI___libc_write", "./io/write.c:26", Origin::System),
            ("start_thread", "./nptl/pthread_create.c:442", Origin::System),
            ("do_syscall_64", "", Origin::Kernel),
            ("0xffff8000812a2118", "", Origin::Kernel),
            ("0x55d0c0ffee", "", Origin::Unresolved),
            ("", "", Origin::Unresolved),
            ("std::thread::local::x", "", Origin::Runtime),
            ("do_work", "/opt/app/src/jobs.rs:4", Origin::App),
            ("statx", "", Origin::System),
            ("[unknown] 0xffff88f00077", "", Origin::Unresolved),
            ("app::handler", "", Origin::App),
        ];
        for (symbol, location, want) in cases {
            assert_eq!(origin(&frame(symbol, location)), want, "{symbol} {location}");
        }
    }

    #[test]
    fn kernel_addresses_are_full_width_high_half() {
        assert!(is_kernel_address("0xffff8000812a2118"));
        assert!(!is_kernel_address("0xffff8000812a211"));
        assert!(!is_kernel_address("0x00007f00812a2118"));
        assert!(!is_kernel_address("0xffff8000812a21zz"));
    }
}
