//! The timeline: each file's polls, parks, samples, counters and spans in
//! compact columns (`model`, of `column`s), moved as bytes (`codec`), placed with other
//! files on one axis (`scene`), how busy each worker was over it (`load`), navigated (`view`) and reduced to what a
//! window of some pixels can show (`lod`), with stable colours (`palette`),
//! and filled as pixels a row at a time (`pixels`), with the application's
//! custom events as marks (`events`). A run keeps its files' timelines
//! within a memory budget (`kept`).

mod codec;
mod column;
mod events;
mod kept;
mod link;
mod load;
mod lod;
mod model;
mod palette;
mod pixels;
mod scene;
mod view;

pub use codec::{CodecError, decode, encode};
pub use column::{Blocked, Indices, Slices};
pub use events::{EventFields, EventLane, EventLanes, EventMark, MAX_MARKS, fields_of};
pub use kept::{BUDGET_BYTES, KeptTimelines};
pub use link::{PollLink, TimelineLink};
pub use load::{LaneLoad, counter_sums, worker_load};
pub use lod::{AxisMap, Mark, MarkKind, counter_marks, park_marks, poll_at, poll_marks, span_marks, tick_marks};
pub use model::{Counter, CounterKind, FileTimeline, Lane, MAX_SPAN_DEPTH, NO_LOC, Polls, SpanTrack};
pub use palette::{Colour, colour};
pub use pixels::{Rgb, RowPixels};
pub use scene::{DEFAULT_RUNTIME, Group, PollRef, Row, RowKind, Scene, group_label};
pub use view::{KEYS, NavKey, View, ViewHistory, parse_time, ticks};
