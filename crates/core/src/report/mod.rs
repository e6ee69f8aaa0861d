//! The report model and its renderings.

pub mod model;
pub mod text;

pub use model::*;
