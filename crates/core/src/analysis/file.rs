//! One file, from its bytes to its `FileOutcome`: container sniffing, gunzip,
//! decoding and analysis, on the whole file or on bytes as they arrive.

use super::{Options, Partial};
use crate::container::{self, Container, ContainerError, Gunzip, SNIFF_BYTES};
use crate::report::FileError;
use crate::trace::{DecodeFailure, ParsedTrace, TraceParser, parse_trace};
use serde::{Deserialize, Serialize};

/// The result of analyzing one file: its partial (possibly from the events
/// before a decode error) and the error, if any.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileOutcome {
    pub partial: Partial,
    pub error: Option<FileError>,
    pub raw_bytes: u64,
    pub events: u64,
}

impl FileOutcome {
    /// A container error (corrupt gzip, size cap, not a trace) analyzes
    /// nothing; a decode failure keeps the events before it.
    pub fn new(
        name: &str,
        raw_bytes: u64,
        parsed: Result<(ParsedTrace, Option<DecodeFailure>), ContainerError>,
    ) -> Self {
        let (trace, failure) = match parsed {
            Ok(parsed) => parsed,
            Err(e) => {
                return FileOutcome {
                    partial: Partial {
                        file: name.to_string(),
                        ..Partial::default()
                    },
                    error: Some(FileError {
                        file: name.to_string(),
                        offset: e.offset(),
                        message: e.to_string(),
                    }),
                    raw_bytes: 0,
                    events: 0,
                };
            }
        };
        let error = failure.map(|f| FileError {
            file: name.to_string(),
            offset: Some(f.offset),
            message: format!(
                "trace decoding stopped at byte {}: {}; events before it are analyzed",
                f.offset, f.message
            ),
        });
        FileOutcome {
            events: trace.runtime_events,
            partial: Partial::from_trace(name, trace),
            error,
            raw_bytes,
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
        Ok(Container::Raw) => FileOutcome::new(name, bytes.len() as u64, Ok(parse_trace(bytes))),
        Err(e) => FileOutcome::new(name, 0, Err(e)),
    }
}

/// `analyze_file` for bytes that arrive in pieces (a download): each
/// complete sub-stream is decoded as soon as it is in, and only the raw
/// trace (not the compressed bytes) is kept until the end.
pub struct FileAnalysis {
    name: String,
    max_inflated: usize,
    input: Input,
    parser: TraceParser,
}

enum Input {
    /// Fewer than `SNIFF_BYTES` bytes seen.
    Sniffing(Vec<u8>),
    Gzip(Box<Gunzip>),
    Raw,
    Failed(ContainerError),
}

impl FileAnalysis {
    /// `raw_size_hint`: the expected raw trace size, when known (0 if not).
    pub fn new(name: &str, opts: &Options, raw_size_hint: usize) -> Self {
        Self {
            name: name.to_string(),
            max_inflated: opts.max_inflated_bytes,
            input: Input::Sniffing(Vec::new()),
            parser: TraceParser::with_capacity(raw_size_hint),
        }
    }

    pub fn push(&mut self, bytes: &[u8]) {
        match &mut self.input {
            Input::Sniffing(head) => {
                head.extend_from_slice(bytes);
                if head.len() >= SNIFF_BYTES {
                    let head = std::mem::take(head);
                    self.start(&head);
                }
            }
            Input::Gzip(gz) => {
                if let Err(e) = self.parser.extend(|raw| gz.feed(bytes, raw)) {
                    self.input = Input::Failed(e);
                }
            }
            Input::Raw => self.parser.push(bytes),
            Input::Failed(_) => {}
        }
    }

    /// The container is known from `head`: set up for it and take `head` in.
    fn start(&mut self, head: &[u8]) {
        self.input = match container::sniff(head) {
            Ok(Container::Gzip) => Input::Gzip(Box::new(Gunzip::new(self.max_inflated))),
            Ok(Container::Raw) => Input::Raw,
            Err(e) => Input::Failed(e),
        };
        self.push(head);
    }

    /// Events decoded so far.
    pub fn events(&self) -> u64 {
        self.parser.events()
    }

    /// Raw trace bytes so far (inflated, for gzip).
    pub fn raw_bytes(&self) -> u64 {
        self.parser.len() as u64
    }

    /// The input ended.
    pub fn finish(mut self) -> FileOutcome {
        if let Input::Sniffing(head) = &mut self.input {
            let head = std::mem::take(head);
            self.start(&head);
        }
        let raw_bytes = self.raw_bytes();
        let parsed = match self.input {
            Input::Failed(e) => Err(e),
            Input::Gzip(gz) => gz.finish().map(|()| self.parser.finish()),
            // `start` has run: sniffing is over.
            Input::Raw | Input::Sniffing(_) => Ok(self.parser.finish()),
        };
        FileOutcome::new(&self.name, raw_bytes, parsed)
    }
}
