//! What a dead analysis worker means, in words a user can act on. A browser
//! worker that runs out of memory or hits a Rust panic dies with a trap
//! (`RuntimeError: unreachable`, "out of memory", …) that says nothing to
//! whoever dropped the file; the file's size says whether memory is the
//! likely cause.

use crate::fmt::bytes;

/// A browser worker's memory: wasm32 addresses at most 4 GiB, and browsers
/// often grant less.
const WORKER_MEMORY: u64 = 4 << 30;

/// The message for a file whose worker died with `error` (the browser's
/// error text). `size`: the file's size in bytes, when known.
pub fn worker_died(error: &str, size: Option<u64>) -> String {
    let e = error.to_ascii_lowercase();
    let size = size.map_or(String::new(), |s| format!(" (the file is {})", bytes(s)));
    if e.contains("out of memory")
        || e.contains("allocation")
        || e.contains("unreachable")
        || e.contains("memory access out of bounds")
    {
        format!(
            "this file needs more memory than a browser worker has{size}: a worker has at most {}. \
             Analyze it with the d9lens CLI, or pick fewer or shorter segments. The other files go on. ({error})",
            bytes(WORKER_MEMORY)
        )
    } else if e.contains("call stack") || e.contains("too much recursion") {
        format!("the analysis ran out of stack on this file{size}; please report it. The other files go on. ({error})")
    } else {
        format!("the analysis worker stopped on this file{size} ({error}). The other files go on.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trap_reads_as_memory_with_the_size() {
        let m = worker_died("Uncaught RuntimeError: unreachable", Some(2_600_000));
        assert!(m.starts_with("this file needs more memory than a browser worker has (the file is 2.60 MB): a worker has at most 4.29 GB."), "{m}");
        assert!(m.ends_with("(Uncaught RuntimeError: unreachable)"), "{m}");
        let m = worker_died("RangeError: Maximum call stack size exceeded", None);
        assert!(m.starts_with("the analysis ran out of stack on this file;"), "{m}");
        let m = worker_died("Script error.", Some(10));
        assert_eq!(
            m,
            "the analysis worker stopped on this file (the file is 10 B) (Script error.). The other files go on."
        );
    }
}
