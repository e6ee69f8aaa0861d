//! A file's outcome as bytes, as a worker hands it to the page: the partial
//! in postcard (a compact binary serde format: no field names, varint
//! integers) and the timeline in its own columns (`timeline::encode`).
//! Reading it back checks every length against the bytes left, so a bad
//! buffer is an error, never a panic or an allocation larger than it.

use super::FileOutcome;
use crate::timeline;

const MAGIC: &[u8; 4] = b"D9FO";
const VERSION: u8 = 4;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError(pub String);

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad file outcome: {}", self.0)
    }
}

pub fn encode(outcome: &FileOutcome) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.push(VERSION);
    let mut out = postcard::to_extend(outcome, out).expect("a file outcome serializes");
    match &outcome.timeline {
        Some(t) => {
            out.push(1);
            out.extend_from_slice(&timeline::encode(t));
        }
        None => out.push(0),
    }
    out
}

pub fn decode(bytes: &[u8]) -> Result<FileOutcome, WireError> {
    let rest = bytes
        .strip_prefix(MAGIC)
        .ok_or_else(|| WireError("not a file outcome".into()))?;
    let (&version, rest) = rest.split_first().ok_or_else(|| WireError("truncated".into()))?;
    if version != VERSION {
        // Only a Lambda function deployed from another version answers so:
        // a page and its workers come from one build.
        return Err(WireError(format!(
            "written by another version of d9lens (format {version}, this one reads {VERSION}): \
             deploy the Lambda function from this version"
        )));
    }
    let (mut outcome, rest): (FileOutcome, _) =
        postcard::take_from_bytes(rest).map_err(|e| WireError(e.to_string()))?;
    outcome.partial.check_refs().map_err(WireError)?;
    outcome.timeline = match rest.split_first() {
        Some((0, [])) => None,
        Some((1, t)) => Some(timeline::decode(t).map_err(|e| WireError(e.to_string()))?),
        _ => return Err(WireError("bad timeline marker".into())),
    };
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Merger, Options, analyze_file};
    use crate::report;

    fn demo(timeline: bool) -> FileOutcome {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/demo-trace.bin");
        let bytes = std::fs::read(path).unwrap();
        let opts = Options {
            timeline,
            ..Options::default()
        };
        analyze_file("demo-trace.bin", &bytes, &opts)
    }

    fn text(outcome: FileOutcome) -> String {
        let opts = Options::default();
        let mut merger = Merger::new(opts.clone());
        merger.add(outcome.partial);
        report::text::render(&merger.into_report(), opts.text_style())
    }

    #[test]
    fn an_outcome_reads_back_to_the_same_report_and_timeline() {
        let outcome = demo(true);
        let bytes = encode(&outcome);
        let back = decode(&bytes).unwrap();
        assert_eq!((back.raw_bytes, back.events), (outcome.raw_bytes, outcome.events));
        assert!(back.events > 300_000);
        let (a, b) = (outcome.timeline.as_ref().unwrap(), back.timeline.as_ref().unwrap());
        assert_eq!(timeline::encode(a), timeline::encode(b));
        // Every field of the partial: the report is made of all of them.
        assert_eq!(
            serde_json::to_string(&back.partial).unwrap(),
            serde_json::to_string(&outcome.partial).unwrap()
        );
        assert_eq!(text(back), text(outcome));
    }

    #[test]
    fn an_outcome_without_timeline_or_events_reads_back() {
        let failed = FileOutcome::failed("x.bin", Some(7), "corrupt".into());
        let back = decode(&encode(&failed)).unwrap();
        assert!(back.timeline.is_none());
        assert_eq!(back.error.unwrap().offset, Some(7));
    }

    #[test]
    fn the_fuzz_seed_is_a_current_outcome() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
        let trace = std::fs::read(format!("{dir}tests/fixtures/rotation/trace.4.bin")).unwrap();
        let opts = Options {
            timeline: true,
            requests: true,
            ..Options::default()
        };
        let bytes = encode(&analyze_file("trace.4.bin", &trace, &opts));
        let path = format!("{dir}fuzz/seeds/answers/outcome.bin");
        if std::env::var_os("D9LENS_WRITE_FIXTURES").is_some() {
            std::fs::write(&path, &bytes).unwrap();
        }
        assert!(
            std::fs::read(&path).is_ok_and(|seed| seed == bytes),
            "{path}: regenerate with D9LENS_WRITE_FIXTURES=1"
        );
    }

    #[test]
    fn bad_bytes_are_errors() {
        let bytes = encode(&demo(false));
        assert!(decode(b"D9TL").is_err());
        assert!(decode(&bytes[..5]).is_err());
        let mut other = bytes.clone();
        other[4] = 9;
        assert!(decode(&other).unwrap_err().0.starts_with(&format!(
            "written by another version of d9lens (format 9, this one reads {VERSION})"
        )));
        // Cut anywhere: an error, never a panic.
        for cut in (0..bytes.len()).step_by(997) {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut trailing = bytes;
        trailing.push(0);
        assert!(decode(&trailing).is_err());
    }

    #[test]
    fn references_past_what_a_partial_carries_are_errors() {
        use crate::analysis::memory::{Sample, Site};
        let outcome = demo(false);
        assert!(!outcome.partial.cpu_groups.is_empty());
        // Stacks whose frames are not in the partial (a fold would index past them).
        let mut no_frames = demo(false);
        no_frames.partial.frames = Default::default();
        let err = decode(&encode(&no_frames)).unwrap_err();
        assert_eq!(err.0, "a stack names a frame the partial does not carry");
        // An allocation of a call site it does not carry.
        let mut no_site = outcome;
        no_site.partial.memory.sites = vec![Site {
            chain: vec![1],
            stack: vec![],
        }];
        no_site.partial.memory.samples = vec![Sample {
            size: 64,
            site: 1,
            task: None,
            unfreed: None,
        }];
        let err = decode(&encode(&no_site)).unwrap_err();
        assert_eq!(err.0, "an allocation names a call site the partial does not carry");
        no_site.partial.memory.samples[0].site = 0;
        assert!(decode(&encode(&no_site)).is_ok());
    }
}
