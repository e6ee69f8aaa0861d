//! Trace decoding: bytes → typed events (on the official `dial9-trace-format` decoder).
