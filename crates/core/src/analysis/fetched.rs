//! Objects fetched and analyzed at once (the CLI's `s3 analyze`, the Lambda
//! function): the shell gives the fetch (a download), the core runs the
//! fan-out ([`crate::parallel::pipeline`]) and says what a failed fetch
//! means for its file. Native only.

use super::{FileOutcome, Options, analyze_file};
use std::fmt::Display;

/// Downloads under way at once unless a caller says otherwise. Enough that
/// the latency of small objects hides behind the analysis of others, few
/// enough that the bodies waiting stay a few MB (docs/benchmarks-history.md,
/// "The CLI from S3 in a pipeline"). A native client has no connection
/// limit per host: the page's own count (`run::ahead`) has a browser's
/// reason and only happens to be the same.
pub const DOWNLOADS_AT_ONCE: usize = 12;

/// Fetches the objects `keys`, `fetchers` at once, while `workers` threads
/// (one per core) analyze those in, and hands each outcome to `take` (with
/// its key's index) as it is ready; a failed fetch is its file's error.
/// What is held stays bounded: the fetches under way and one body waiting
/// per analysis thread. Stops at `take`'s first error.
pub fn analyze_fetched<K: AsRef<str> + Sync, D: Display + Send, E>(
    keys: &[K],
    fetchers: usize,
    workers: usize,
    fetch: impl Fn(&str) -> Result<Vec<u8>, D> + Sync,
    opts: &Options,
    mut take: impl FnMut(usize, FileOutcome) -> Result<(), E>,
) -> Result<(), E> {
    let indexed: Vec<(usize, &str)> = keys.iter().map(AsRef::as_ref).enumerate().collect();
    crate::parallel::pipeline(
        &indexed,
        fetchers,
        workers,
        |&(index, key)| (index, key, fetch(key)),
        |(index, key, fetched)| {
            let outcome = match fetched {
                Ok(bytes) => analyze_file(key, &bytes, opts),
                Err(e) => FileOutcome::failed(key, None, format!("download failed: {e}")),
            };
            (index, outcome)
        },
        |(index, outcome)| take(index, outcome),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_key_gets_its_outcome_and_a_failed_fetch_is_its_files_error() {
        let raw = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/rotation/trace.4.bin"
        ))
        .unwrap();
        let keys = ["a.bin", "missing.bin", "b.bin"];
        let mut got = vec![None; keys.len()];
        analyze_fetched(
            &keys,
            2,
            2,
            |key| {
                if key == "missing.bin" {
                    Err("404 NoSuchKey")
                } else {
                    Ok(raw.clone())
                }
            },
            &Options::default(),
            |index, outcome| {
                got[index] = Some(outcome);
                Ok::<(), ()>(())
            },
        )
        .unwrap();
        let error = |o: &Option<FileOutcome>| o.as_ref().unwrap().error.as_ref().map(|e| e.message.clone());
        assert_eq!(error(&got[1]).as_deref(), Some("download failed: 404 NoSuchKey"));
        assert_eq!((error(&got[0]), error(&got[2])), (None, None));
        assert_eq!(got[2].as_ref().unwrap().partial.file, "b.bin");
    }
}
