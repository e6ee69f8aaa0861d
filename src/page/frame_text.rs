//! Display text of a stack frame: the reference `formatFrame` from the core.

use d9lens_core::frames::format_frame;
use d9lens_core::report::Frame;

/// What the page shows for a frame.
pub fn frame_text(frame: &Frame) -> String {
    format_frame(&frame.symbol, frame.location.as_deref())
}
