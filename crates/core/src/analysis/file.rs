//! One file, from its bytes to its `FileOutcome`: container sniffing, gunzip,
//! decoding and analysis, on the whole file or on bytes as they arrive.

use super::{Build, Options, Partial};
use crate::container::{self, Container, ContainerError, SNIFF_BYTES, Unpack};
use crate::report::FileError;
use crate::timeline::FileTimeline;
use crate::trace::{DecodeFailure, ParsedTrace, TraceParser, parse_trace_within};
use serde::{Deserialize, Serialize};

/// The result of analyzing one file: its partial (possibly from the events
/// before a decode error) and the error, if any. On the wire: `wire`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileOutcome {
    pub partial: Partial,
    pub error: Option<FileError>,
    pub raw_bytes: u64,
    pub events: u64,
    /// The file's timeline, when asked for (`Options::timeline`); it travels
    /// in columns of its own (`timeline::encode`), not through serde.
    #[serde(skip)]
    pub timeline: Option<FileTimeline>,
}

impl FileOutcome {
    /// A file of which nothing could be analyzed (unreadable, not downloaded).
    pub fn failed(name: &str, offset: Option<u64>, message: String) -> Self {
        FileOutcome {
            partial: Partial {
                file: name.to_string(),
                ..Partial::default()
            },
            error: Some(FileError {
                file: name.to_string(),
                offset,
                message,
            }),
            raw_bytes: 0,
            events: 0,
            timeline: None,
        }
    }

    /// A container error (corrupt gzip, size cap, not a trace) analyzes
    /// nothing; a decode failure keeps the events before it. With the file's
    /// timeline when `opts.timeline` is set, of `opts.window` when there is one.
    pub fn build(
        name: &str,
        raw_bytes: u64,
        parsed: Result<(ParsedTrace, Option<DecodeFailure>), ContainerError>,
        opts: &Options,
    ) -> Self {
        let (mut trace, failure) = match parsed {
            Ok(parsed) => parsed,
            Err(e) => return Self::failed(name, e.offset(), e.to_string()),
        };
        let error = failure.map(|f| FileError {
            file: name.to_string(),
            offset: Some(f.offset),
            message: format!(
                "trace decoding stopped at byte {}: {}; events before it are analyzed",
                f.offset, f.message
            ),
        });
        if let Some(window) = opts.window {
            trace.clip(window);
        }
        let events = trace.runtime_events;
        let build = Build {
            timeline: opts.timeline,
            detail: opts.requests,
        };
        let (partial, timeline) = Partial::analyze(name, trace, build);
        FileOutcome {
            events,
            partial,
            error,
            raw_bytes,
            timeline,
        }
    }
}

/// Inflates, decodes and analyzes one whole `.bin` / `.bin.gz` file.
pub fn analyze_file(name: &str, bytes: &[u8], opts: &Options) -> FileOutcome {
    match container::sniff(&bytes[..bytes.len().min(SNIFF_BYTES)]) {
        Ok(Container::Gzip) => {
            let hint = container::inflated_size_hint(bytes, opts.max_inflated_bytes);
            let mut file = FileAnalysis::new(name, opts, hint);
            file.push(bytes);
            file.finish()
        }
        // Decoded in place: no copy of an already raw trace.
        Ok(Container::Raw) => {
            let parsed = parse_trace_within(bytes, opts.max_decoded_bytes);
            FileOutcome::build(name, bytes.len() as u64, Ok(parsed), opts)
        }
        Err(e) => FileOutcome::failed(name, e.offset(), e.to_string()),
    }
}

/// `analyze_file` for bytes that arrive in pieces (a download): each
/// complete sub-stream is decoded as soon as it is in, and only the raw
/// trace (not the compressed bytes) is kept until the end.
pub struct FileAnalysis {
    unpack: Unpack,
    trace: TraceAnalysis,
}

impl FileAnalysis {
    /// `raw_size_hint`: the expected raw trace size, when known (0 if not).
    pub fn new(name: &str, opts: &Options, raw_size_hint: usize) -> Self {
        Self {
            unpack: Unpack::new(opts.max_inflated_bytes),
            trace: TraceAnalysis::new(name, raw_size_hint).options(opts),
        }
    }

    pub fn push(&mut self, bytes: &[u8]) {
        self.trace.parser.extend(|raw| self.unpack.push(bytes, raw));
    }

    /// Events decoded so far.
    pub fn events(&self) -> u64 {
        self.trace.events()
    }

    /// Raw trace bytes so far (inflated, for gzip).
    pub fn raw_bytes(&self) -> u64 {
        self.trace.raw_bytes()
    }

    /// The input ended.
    pub fn finish(self) -> FileOutcome {
        let unpacked = self.unpack.finish();
        self.trace.finish(unpacked)
    }
}

/// The second half of a file's analysis, after [`Unpack`]: raw trace bytes
/// in, decoded as they arrive, analyzed at the end.
pub struct TraceAnalysis {
    name: String,
    parser: TraceParser,
    opts: Options,
}

impl TraceAnalysis {
    /// `raw_size_hint`: the expected raw trace size, when known (0 if not).
    pub fn new(name: &str, raw_size_hint: usize) -> Self {
        Self {
            name: name.to_string(),
            parser: TraceParser::with_capacity(raw_size_hint),
            opts: Options::default(),
        }
    }

    /// What to build at the end (the timeline, a window: `FileOutcome::build`).
    pub fn options(self, opts: &Options) -> Self {
        Self {
            parser: self.parser.with_budget(opts.max_decoded_bytes),
            opts: opts.clone(),
            ..self
        }
    }

    /// Lets `fill` append raw bytes in place (saves a copy where they come
    /// from elsewhere, such as a browser buffer), then decodes what became complete.
    pub fn extend<R>(&mut self, fill: impl FnOnce(&mut Vec<u8>) -> R) -> R {
        self.parser.extend(fill)
    }

    /// Events decoded so far.
    pub fn events(&self) -> u64 {
        self.parser.events()
    }

    /// Raw trace bytes so far.
    pub fn raw_bytes(&self) -> u64 {
        self.parser.len() as u64
    }

    /// The raw trace ended; `unpacked`: how unpacking the file ended (a
    /// container error analyzes nothing).
    pub fn finish(self, unpacked: Result<(), ContainerError>) -> FileOutcome {
        let raw_bytes = self.raw_bytes();
        FileOutcome::build(
            &self.name,
            raw_bytes,
            unpacked.map(|()| self.parser.finish()),
            &self.opts,
        )
    }
}
