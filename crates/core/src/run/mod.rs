//! A run of many files, at fleet scale: [`rows`] which of its files the
//! page's progress table lists, [`ahead`] how many S3 downloads a worker
//! holds ahead of the file it analyzes, [`progress`] the CLI's progress line.

pub mod ahead;
pub mod progress;
pub mod rows;
