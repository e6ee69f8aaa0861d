//! Raw deflate engines behind `container::Gunzip`, which parses the gzip
//! framing around them. Every build inflates traces with zlib-rs, a port of
//! zlib-ng: ~1.4× miniz_oxide's speed natively, and more than twice it in
//! the browser's wasm (docs/benchmarks.md). miniz_oxide stays as a second,
//! independent engine: the container's tests check zlib-rs against it, byte
//! for byte, on real and crafted streams.

/// One deflate stream at a time, inflated in steps.
pub trait Inflater {
    fn new() -> Self;
    /// Ready for the next stream (a new gzip member).
    fn reset(&mut self);
    /// Inflates from `input`, appending at most `room` bytes to `out`.
    fn step(&mut self, input: &[u8], out: &mut Vec<u8>, room: usize) -> Step;
}

/// What one `Inflater::step` did.
pub struct Step {
    pub consumed: usize,
    pub written: usize,
    /// `Ok(true)` once the stream ended; `Err` says why the data is invalid.
    pub ended: Result<bool, String>,
}

/// The engine traces are inflated with.
pub type Native = ZlibRs;

pub struct Miniz {
    state: Box<miniz_oxide::inflate::stream::InflateState>,
    /// miniz writes into an initialized buffer: output lands here first.
    window: Vec<u8>,
}

impl Inflater for Miniz {
    fn new() -> Self {
        Miniz {
            state: miniz_oxide::inflate::stream::InflateState::new_boxed(miniz_oxide::DataFormat::Raw),
            window: Vec::new(),
        }
    }

    fn reset(&mut self) {
        self.state.reset_as(miniz_oxide::inflate::stream::MinReset);
    }

    fn step(&mut self, input: &[u8], out: &mut Vec<u8>, room: usize) -> Step {
        use miniz_oxide::{MZError, MZFlush, MZStatus};
        self.window.resize(room, 0);
        let r = miniz_oxide::inflate::stream::inflate(&mut self.state, input, &mut self.window, MZFlush::None);
        out.extend_from_slice(&self.window[..r.bytes_written]);
        let ended = match r.status {
            Ok(MZStatus::StreamEnd) => Ok(true),
            // `Buf`: nothing to do without more input.
            Ok(_) | Err(MZError::Buf) => Ok(false),
            Err(e) => Err(format!("{e:?}")),
        };
        Step {
            consumed: r.bytes_consumed,
            written: r.bytes_written,
            ended,
        }
    }
}

pub struct ZlibRs(zlib_rs::Inflate);

impl Inflater for ZlibRs {
    fn new() -> Self {
        ZlibRs(zlib_rs::Inflate::new(false, 15))
    }

    fn reset(&mut self) {
        self.0.reset(false);
    }

    fn step(&mut self, input: &[u8], out: &mut Vec<u8>, room: usize) -> Step {
        use zlib_rs::{InflateFlush, Status};
        let (in_before, out_before) = (self.0.total_in(), self.0.total_out());
        // Straight into `out`: no window to copy from.
        let len = out.len();
        out.resize(len + room, 0);
        let r = self.0.decompress(input, &mut out[len..], InflateFlush::NoFlush);
        let written = (self.0.total_out() - out_before) as usize;
        out.truncate(len + written);
        let ended = match r {
            Ok(Status::StreamEnd) => Ok(true),
            Ok(Status::Ok | Status::BufError) => Ok(false),
            Err(e) => Err(self.0.error_message().unwrap_or(e.as_str()).to_string()),
        };
        Step {
            consumed: (self.0.total_in() - in_before) as usize,
            written,
            ended,
        }
    }
}
