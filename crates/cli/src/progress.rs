//! The progress line on stderr, drawn over itself as a run goes on: only on
//! a terminal and without `--quiet` (piped or quiet, a run writes nothing
//! extra). What the line says, and how often, is the core's
//! (`run::progress`); the clock is read here.

use d9lens_core::fmt::terminal_text;
use d9lens_core::run::progress::Refresh;
use std::io::{IsTerminal, Write};
use std::time::Instant;

pub struct Progress {
    live: bool,
    quiet: bool,
    start: Instant,
    refresh: Refresh,
    drawn: bool,
}

impl Progress {
    pub fn new(quiet: bool) -> Self {
        Progress {
            live: !quiet && std::io::stderr().is_terminal(),
            quiet,
            start: Instant::now(),
            refresh: Refresh::default(),
            drawn: false,
        }
    }

    /// Milliseconds since this run began.
    pub fn now_ms(&self) -> f64 {
        self.start.elapsed().as_secs_f64() * 1e3
    }

    /// Whether a line is drawn (the terminal takes the place of periodic notes).
    pub fn live(&self) -> bool {
        self.live
    }

    /// Draws the line `line` makes of the time now, over the last one, when one is due.
    pub fn show(&mut self, line: impl FnOnce(f64) -> String) {
        let now = self.now_ms();
        if !self.live || !self.refresh.due(now) {
            return;
        }
        let text = format!("\rd9lens: {}\x1b[K", terminal_text(&line(now)));
        let mut err = std::io::stderr().lock();
        // A progress line that cannot be written is no reason to stop the run.
        let _ = err.write_all(text.as_bytes()).and_then(|()| err.flush());
        self.drawn = true;
    }

    /// A note on stderr (what the run is about to do), unless quiet.
    pub fn note(&mut self, message: &str) {
        if !self.quiet {
            self.clear();
            eprintln!("d9lens: {}", terminal_text(message));
        }
    }

    /// Removes the line, before the run's result or a note.
    pub fn clear(&mut self) {
        if std::mem::take(&mut self.drawn) {
            let _ = std::io::stderr().lock().write_all(b"\r\x1b[K");
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.clear();
    }
}
