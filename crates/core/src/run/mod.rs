//! A run of many files in the page, at fleet scale: [`rows`] which of its
//! files the progress table lists, [`ahead`] how many S3 downloads a worker
//! holds ahead of the file it analyzes.

pub mod ahead;
pub mod rows;
