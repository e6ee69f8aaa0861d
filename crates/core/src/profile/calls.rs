//! Blocking stacks grouped by the call that blocked: the innermost
//! application frame of each stack (else its innermost dependency frame, else
//! its leaf). A kernel address says nothing to someone reading their own
//! code; the line of theirs that made the blocking call does.

use super::labels::KERNEL;
use super::origin::{Origin, origin};
use crate::frames::format_frame;
use crate::frames::is_kernel_address;
use crate::hashing::FastIndexMap;
use crate::report::{BlockingCall, Frame, Moment};
use std::sync::Arc;

/// The frame a leaf-first stack is named by (a blocking call, an allocation
/// site): its innermost application frame, else dependency frame, else the
/// innermost frame with a name, else `[kernel]` (kernel addresses only).
pub fn naming_frame(leaf_first: &[Frame]) -> Option<Frame> {
    let first = |o: Option<Origin>| {
        leaf_first
            .iter()
            .find(|f| o.map_or(!is_kernel_address(&f.symbol), |o| origin(f) == o))
    };
    let named = first(Some(Origin::App))
        .or_else(|| first(Some(Origin::Dependency)))
        .or_else(|| first(None));
    match named {
        Some(f) => Some(f.clone()),
        None => leaf_first.first().map(|_| Frame {
            symbol: Arc::from(KERNEL),
            location: None,
        }),
    }
}

/// `naming_frame` as the text a person reads (`format_frame`).
pub fn naming_text(leaf_first: &[Frame]) -> Option<String> {
    naming_frame(leaf_first).map(|f| format_frame(&f.symbol, f.location.as_deref()))
}

/// The frame an allocation site is named by: `naming_frame` of the stack
/// above its allocation machinery, the leaf-side run of allocator frames
/// (Rust's `alloc`, the global allocator and a profiler's hook in it,
/// whoever wrote them) and of the standard library and system between them.
pub fn allocation_frame(leaf_first: &[Frame]) -> Option<Frame> {
    let machinery = |f: &Frame| {
        f.symbol.to_ascii_lowercase().contains("alloc") || !matches!(origin(f), Origin::App | Origin::Dependency)
    };
    let callers = leaf_first
        .iter()
        .position(|f| !machinery(f))
        .map_or(leaf_first, |i| &leaf_first[i..]);
    naming_frame(callers)
}

/// One group of blocking samples: how many, how long blocked (ns), its
/// leaf-first frames and where its first sample was.
pub type BlockedStack<'a> = (u64, u64, &'a [Frame], Option<&'a Moment>);

/// Groups stacks by their blocking frame's text, the longest blocked first
/// (then the most sampled; equals keep their first-seen order). Each group
/// keeps its most sampled stack.
pub fn by_call<'a>(groups: impl IntoIterator<Item = BlockedStack<'a>>) -> Vec<BlockingCall> {
    let mut calls: FastIndexMap<String, (BlockingCall, u64)> = FastIndexMap::default();
    for (count, blocked_ns, frames, moment) in groups {
        let Some(frame) = naming_frame(frames) else {
            continue;
        };
        let key = format_frame(&frame.symbol, frame.location.as_deref());
        let (call, heaviest) = calls.entry(key).or_insert_with(|| {
            let call = BlockingCall {
                frame,
                count: 0,
                blocked_ns: 0,
                stacks: 0,
                heaviest: Vec::new(),
                moment: None,
            };
            (call, 0)
        });
        call.count += count;
        call.blocked_ns = call.blocked_ns.saturating_add(blocked_ns);
        call.stacks += 1;
        if count > *heaviest {
            *heaviest = count;
            call.heaviest = frames.to_vec();
            call.moment = moment.cloned();
        }
    }
    let mut out: Vec<BlockingCall> = calls.into_values().map(|(c, _)| c).collect();
    out.sort_by_key(|c| std::cmp::Reverse((c.blocked_ns, c.count)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(symbol: &str, location: &str) -> Frame {
        Frame {
            symbol: Arc::from(symbol),
            location: Some(Arc::from(location)),
        }
    }

    #[test]
    fn names_stacks_by_their_innermost_application_frame() {
        let reg = "/x/cargo/registry/src/index.crates.io-1/";
        let kernel = Frame {
            symbol: Arc::from("0xffff8000812a2118"),
            location: None,
        };
        let sleep = f("__GI___clock_nanosleep", "./time/clock_nanosleep.c:48");
        let lookup = f("legacy_sync_lookup", "/opt/app/src/workload.rs:108");
        let handler = f("handle", "/opt/app/src/main.rs:9");
        let mio = f("wake", &format!("{reg}mio-1.2.5/src/eventfd.rs:53"));
        let tokio = f("run", &format!("{reg}tokio-1.54.1/src/runtime/x.rs:1"));
        let a = [kernel.clone(), sleep.clone(), lookup.clone(), handler.clone()];
        let b = [sleep.clone(), lookup.clone(), tokio.clone()];
        let c = [kernel.clone(), mio.clone(), tokio.clone()];
        let d = [kernel.clone()];
        // Fewer samples but longer blocked: the sleep comes first.
        let calls = by_call([
            (5, 40_000_000, &a[..], None),
            (7, 60_000_000, &b[..], None),
            (9, 90_000, &c[..], None),
            (1, 0, &d[..], None),
            (2, 0, &d[..], None),
        ]);
        let got: Vec<(String, u64, u64)> = calls
            .iter()
            .map(|c| {
                (
                    format_frame(&c.frame.symbol, c.frame.location.as_deref()),
                    c.count,
                    c.stacks,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("legacy_sync_lookup workload.rs:108".to_string(), 12, 2),
                ("wake eventfd.rs:53".to_string(), 9, 1),
                ("[kernel]".to_string(), 3, 2),
            ]
        );
        assert_eq!(calls[0].heaviest, b);
    }
}
