//! One trace decoded in two parts at once (the CLI, on two cores): the
//! bytes before a sub-stream header by a `TraceParser`, the bytes from it on
//! by a `TracePart`, joined into exactly what one walk over all gives.
//!
//! A header candidate can lie inside a frame, so the cut is only believed
//! when the parser's own walk stops exactly on it; otherwise the parser
//! decodes the rest itself and the part is dropped.

use super::app::FieldSetId;
use super::decode::{Builder, DecodeFailure, STREAM_HEADER, TraceParser, Walk, union};
use super::model::{ParsedTrace, SpanEvent, WorkerEventKind};
use crate::container::TRACE_MAGIC;
use crate::parallel::join;

/// The end of a trace, decoded apart from the bytes before it.
pub struct TracePart {
    /// File offset of its first byte.
    at: usize,
    builder: Builder,
    walk: Walk,
}

/// Where to cut `raw`, bytes not decoded yet, past its start: the header
/// candidate nearest to `target` (the middle, for two parts of about equal
/// work). The `STREAM_HEADER` bytes from the cut on are all there.
pub fn find_cut(raw: &[u8], target: usize) -> Option<usize> {
    nearest(candidates(raw), target)
}

/// `find_cut` over bytes held in blocks, without joining them first: the
/// block and the offset in it. A header split between two blocks is not
/// seen (any header will do as a cut; the nearest is only the best).
pub fn find_cut_in(blocks: &[Vec<u8>], target: usize) -> Option<(usize, usize)> {
    let starts: Vec<usize> = blocks
        .iter()
        .scan(0, |at, b| {
            let start = *at;
            *at += b.len();
            Some(start)
        })
        .collect();
    let all = blocks
        .iter()
        .zip(&starts)
        .flat_map(|(b, &start)| candidates(b).map(move |c| start + c));
    let cut = nearest(all, target)?;
    let i = starts.partition_point(|&s| s <= cut) - 1;
    Some((i, cut - starts[i]))
}

/// The header candidates of `raw` that can be cuts: past its start, with the
/// whole header there.
fn candidates(raw: &[u8]) -> impl Iterator<Item = usize> + '_ {
    memchr::memmem::find_iter(raw, &TRACE_MAGIC).filter(|&c| c > 0 && c + STREAM_HEADER <= raw.len())
}

/// Of ascending positions, the one nearest to `target`.
fn nearest(positions: impl Iterator<Item = usize>, target: usize) -> Option<usize> {
    let mut best: Option<usize> = None;
    for c in positions {
        if best.is_none_or(|b| c.abs_diff(target) < b.abs_diff(target)) {
            best = Some(c);
        }
        if c >= target {
            break;
        }
    }
    best
}

impl TracePart {
    /// Decodes the whole end of a trace from file offset `at` on (a cut from
    /// `find_cut`), given in pieces: each sub-stream is decoded as soon as it
    /// is complete, so the pieces are never copied into one buffer.
    pub fn decode(at: usize, pieces: &[impl AsRef<[u8]>]) -> Self {
        let mut parser = TraceParser::at(at);
        for piece in pieces {
            parser.push(piece.as_ref());
        }
        let (builder, walk) = parser.end();
        TracePart { at, builder, walk }
    }
}

impl TraceParser {
    /// Finishes a parse that was fed every byte before `part`'s offset and
    /// the stream header there: the header tells the walk that the sub-stream
    /// before it is complete, so feeding it early has that one decoded while
    /// `part` is. `rest` holds the bytes from the offset on (those `part`
    /// decoded), in pieces.
    pub fn finish_with(mut self, part: TracePart, rest: &[impl AsRef<[u8]>]) -> (ParsedTrace, Option<DecodeFailure>) {
        let rest_len: usize = rest.iter().map(|p| p.as_ref().len()).sum();
        let fed = self.len().checked_sub(part.at);
        let on_cut = !self.walk.done && self.walk.base + self.walk.start == part.at;
        if fed != Some(STREAM_HEADER.min(rest_len)) || !on_cut {
            // Decode the rest here, whatever of it was fed already.
            let mut skip = fed.unwrap_or(0);
            for piece in rest {
                let piece = piece.as_ref();
                let s = skip.min(piece.len());
                self.push(&piece[s..]);
                skip -= s;
            }
            return self.finish();
        }
        self.builder.append(part.builder);
        (self.builder.finish(), part.walk.failure)
    }
}

impl Builder {
    /// Takes in the builder of the bytes that follow (decoded from a
    /// sub-stream start on): the result is the one builder that saw both.
    fn append(&mut self, later: Builder) {
        let Builder {
            trace: l,
            workers,
            events,
            symbols,
            ..
        } = later;
        let strings = self.trace.strings.absorb(&l.strings);
        self.events += events;
        self.symbols.extend(symbols);
        // Every field, so that a new one cannot be forgotten here.
        let ParsedTrace {
            workers: _,
            mut wakes,
            mut queue_samples,
            runtime_events,
            max_local_queue,
            strings: _,
            mut samples,
            symbols: _,
            task_spawn_locs,
            task_spawn_times,
            task_terminate_times,
            tid_to_worker,
            gaps: _,
            metadata,
            sealed,
            incomplete,
            mut clock_anchors,
            mut runtime_metrics,
            mut legacy_active_tasks,
            mut allocs,
            mut frees,
            dropped_allocs,
            dropped_frees,
            span_events,
            runtime_bounds,
            bounds: single_bounds,
            // Checked once the whole trace is in (`Builder::finish`).
            time: _,
            app,
        } = l;
        let absorbed = self.trace.app.append(app, &|s| strings.get(s));
        let (timelines, t) = (&mut self.workers, &mut self.trace);
        // The two big copies side by side: worker events ‖ span events and the rest.
        join(
            || {
                for (worker, list) in workers.lists {
                    let i = timelines.index_of(worker);
                    timelines.lists[i].1.extend(list.into_iter().map(|mut e| {
                        if let WorkerEventKind::PollStart {
                            spawn_loc: Some(loc), ..
                        } = &mut e.kind
                        {
                            *loc = strings.get(*loc);
                        }
                        e
                    }));
                }
            },
            || {
                let set = |id: &mut FieldSetId| *id = absorbed.set(*id);
                t.span_events.extend(span_events.into_iter().map(|mut e| {
                    match &mut e.event {
                        SpanEvent::Enter { name, fields, .. } => {
                            *name = strings.get(*name);
                            set(fields);
                        }
                        SpanEvent::Single { name, fields, .. } => {
                            *name = strings.get(*name);
                            *fields = absorbed.fields(*fields);
                        }
                        SpanEvent::Exit { fields, .. } => fields.iter_mut().for_each(set),
                        SpanEvent::Close { .. } => {}
                    }
                    e
                }));
                t.runtime_metrics.extend(runtime_metrics.drain(..).map(|mut m| {
                    m.runtime = m.runtime.map(|r| strings.get(r));
                    m
                }));
                t.wakes.append(&mut wakes);
                t.queue_samples.append(&mut queue_samples);
                t.runtime_events += runtime_events;
                t.max_local_queue = t.max_local_queue.max(max_local_queue);
                t.samples.append(&mut samples);
                // A spawn sets the location; a poll sets it only for a task not seen
                // before. A later spawn also leaves a spawn time behind.
                for (task, loc) in task_spawn_locs {
                    let loc = loc.map(|l| strings.get(l));
                    match t.task_spawn_locs.get_mut(&task) {
                        Some(known) if task_spawn_times.contains_key(&task) => *known = loc,
                        Some(_) => {}
                        None => {
                            t.task_spawn_locs.insert(task, loc);
                        }
                    }
                }
                t.task_spawn_times.extend(task_spawn_times);
                t.task_terminate_times.extend(task_terminate_times);
                t.tid_to_worker.extend(tid_to_worker);
                t.metadata.extend(metadata);
                t.sealed |= sealed;
                t.incomplete |= incomplete;
                t.clock_anchors.append(&mut clock_anchors);
                t.legacy_active_tasks.append(&mut legacy_active_tasks);
                t.allocs.append(&mut allocs);
                t.frees.append(&mut frees);
                t.dropped_allocs += dropped_allocs;
                t.dropped_frees += dropped_frees;
            },
        );
        t.runtime_bounds = union(t.runtime_bounds, runtime_bounds);
        t.bounds = union(t.bounds, single_bounds);
    }
}
