//! One gzip file on two cores. One thread reads and inflates while the other
//! decodes what is inflated so far. Inflating is the faster of the two, so
//! when it is done the inflating thread takes the back half of the bytes the
//! decoder has not decoded, from a sub-stream start on, and decodes them
//! itself (`trace::TracePart`). The decoder goes on meanwhile, up to that
//! start (its header tells it that its last sub-stream is complete), then
//! joins the two parts.

use d9lens_core::analysis::{FileOutcome, Options};
use d9lens_core::container::{ContainerError, Gunzip};
use d9lens_core::trace::{STREAM_HEADER, TraceParser, TracePart, find_cut_in};
use std::collections::VecDeque;
use std::fs::File;
use std::io::Read;
use std::sync::{Condvar, Mutex, PoisonError};

/// Compressed bytes read and inflated per step (about 0.4 MB raw).
const PIECE: usize = 128 * 1024;

/// Inflated blocks on their way to the decoder. Not bounded: what the
/// inflater gets ahead (at most the raw trace) is what it shares at the end.
#[derive(Default)]
struct Blocks {
    state: Mutex<Queue>,
    changed: Condvar,
}

#[derive(Default)]
struct Queue {
    blocks: VecDeque<Vec<u8>>,
    /// Bytes the decoder took but has not decoded yet (an incomplete sub-stream).
    behind: usize,
    /// No block will follow those queued.
    closed: bool,
}

impl Blocks {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn push(&self, block: Vec<u8>) {
        self.lock().blocks.push_back(block);
        self.changed.notify_one();
    }

    /// Takes blocks from the back, in order, and says where in the bytes
    /// taken the back half of the work left begins (the bytes the decoder
    /// has not decoded). Sub-stream headers can be a megabyte apart, so the
    /// decoder keeps only half of its share: the cut nearest to the middle
    /// may lie on either side of it. The decoder goes on with those in front.
    fn take_back(&self) -> (Vec<Vec<u8>>, usize) {
        let mut q = self.lock();
        let mut kept = q.blocks.iter().map(Vec::len).sum::<usize>();
        let front = ((q.behind + kept) / 2).saturating_sub(q.behind);
        let mut back = Vec::new();
        while kept > front / 2
            && let Some(block) = q.blocks.pop_back()
        {
            kept -= block.len();
            back.push(block);
        }
        back.reverse();
        (back, front.saturating_sub(kept))
    }

    /// Queues last blocks (the empty ones left out) and closes the queue.
    fn close_with(&self, last: Vec<Vec<u8>>) {
        let mut q = self.lock();
        q.blocks.extend(last.into_iter().filter(|b| !b.is_empty()));
        q.closed = true;
        drop(q);
        self.changed.notify_one();
    }

    /// The next block, waiting for it; `None` once closed and drained.
    /// `behind`: the bytes taken before and not decoded yet.
    fn pop(&self, behind: usize) -> Option<Vec<u8>> {
        let mut q = self.lock();
        q.behind = behind;
        loop {
            if let Some(block) = q.blocks.pop_front() {
                return Some(block);
            }
            if q.closed {
                return None;
            }
            q = self.changed.wait(q).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// Reads and inflates `file` into `blocks`; the raw size when all went well.
fn inflate(mut file: File, blocks: &Blocks, max_inflated: usize) -> std::io::Result<Result<usize, ContainerError>> {
    let mut gunzip = Gunzip::new(max_inflated);
    let mut piece = vec![0; PIECE];
    let mut inflated = 0;
    loop {
        let n = file.read(&mut piece)?;
        if n == 0 {
            return Ok(gunzip.finish().map(|()| inflated));
        }
        let mut out = Vec::new();
        if let Err(e) = gunzip.feed(&piece[..n], &mut out) {
            return Ok(Err(e));
        }
        inflated += out.len();
        blocks.push(out);
    }
}

/// Splits the back of what the decoder has not decoded yet at the
/// sub-stream header nearest to the middle: the blocks before it and the
/// header go back to the decoder, the tail (from the header on) is decoded
/// here. Closes the queue.
fn decode_tail(blocks: &Blocks, inflated: usize) -> Option<(TracePart, Vec<Vec<u8>>)> {
    let (mut back, middle) = blocks.take_back();
    let Some((i, at)) = find_cut_in(&back, middle) else {
        blocks.close_with(back);
        return None;
    };
    let mut tail = vec![back[i].split_off(at)];
    tail.extend(back.drain(i + 1..));
    back[i].extend_from_slice(&tail[0][..STREAM_HEADER]);
    blocks.close_with(back);
    let at = inflated - tail.iter().map(Vec::len).sum::<usize>();
    Some((TracePart::decode(at, &tail), tail))
}

pub fn analyze_gzip(name: &str, file: File, opts: &Options) -> Result<FileOutcome, String> {
    let blocks = Blocks::default();
    std::thread::scope(|s| {
        let inflater = s.spawn(|| {
            let inflated = inflate(file, &blocks, opts.max_inflated_bytes);
            let tail = match inflated {
                Ok(Ok(n)) => decode_tail(&blocks, n),
                _ => {
                    blocks.close_with(Vec::new());
                    None
                }
            };
            inflated.map(|r| (r, tail))
        });
        let mut parser = TraceParser::default();
        while let Some(block) = blocks.pop(parser.pending()) {
            parser.push(&block);
        }
        let inflated = inflater.join().expect("the inflater thread does not panic");
        let (inflated, tail) = inflated.map_err(|e| format!("{name}: {e}"))?;
        let raw_bytes = *inflated.as_ref().unwrap_or(&0);
        let parsed = inflated.map(|_| match tail {
            Some((part, rest)) => parser.finish_with(part, &rest),
            None => parser.finish(),
        });
        Ok(FileOutcome::build(name, raw_bytes as u64, parsed, opts))
    })
}
