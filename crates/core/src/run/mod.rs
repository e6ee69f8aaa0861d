//! A run of many files in the page, at fleet scale: [`rows`] which of its
//! files the progress table lists.

pub mod rows;
