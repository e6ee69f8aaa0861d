use crate::trace::Window;
use serde::{Deserialize, Serialize};

/// Knobs shared by the CLI, the page and the workers.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Options {
    /// Reproduce dial9 `analyze.js` exactly, quirks included (see docs/differences.md).
    pub reference_compatible: bool,
    /// A gzip that inflates past this many bytes is refused.
    pub max_inflated_bytes: usize,
    /// Decoding a file stops (a failure, the events before it kept) once its
    /// decoded events hold more than this many bytes.
    pub max_decoded_bytes: usize,
    /// Also build each file's timeline (the page draws it; the CLI does not).
    #[serde(default)]
    pub timeline: bool,
    /// Also build each file's request detail (`Partial::detail`): the span
    /// explorer's instances, the page's and `d9lens spans|events`.
    #[serde(default)]
    pub requests: bool,
    /// Analyze only what started in this window of each file (`ParsedTrace::clip`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Window>,
}

impl Options {
    /// The text report these options ask for.
    pub fn text_style(&self) -> crate::report::text::Style {
        if self.reference_compatible {
            crate::report::text::Style::Reference
        } else {
            crate::report::text::Style::Improved
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Self {
            reference_compatible: false,
            max_inflated_bytes: crate::container::DEFAULT_MAX_INFLATED_BYTES,
            max_decoded_bytes: crate::trace::DEFAULT_MAX_DECODED_BYTES,
            timeline: false,
            requests: false,
            window: None,
        }
    }
}
