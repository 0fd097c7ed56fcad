//! tidings feed parser side by side with feed-rs, rss and atom_syndication: see
//! `benches/side_by_side.rs` and docs/benchmarks.md. This crate holds no code.
