//! The `tidings` binary (stub: being written).
fn main() {}
