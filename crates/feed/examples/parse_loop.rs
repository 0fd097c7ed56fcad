//! Parse one set of documents over and over, for a profiler: `cargo build --profile profiling
//! -p tidings-feed --example parse_loop`, then `perf record -g
//! ./target/profiling/examples/parse_loop ROUNDS [SET]`. SET is
//! `rss`, `atom`, `rdf` (the large generated feeds of the parser benchmark), `small` (2,000 small
//! generated feeds), a `.xml` or `.json` file, or by default the golden corpus. Prints the
//! throughput it saw.

#[path = "../benches/feedgen/mod.rs"]
mod feedgen;

use std::path::Path;

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100);
    let mut docs = Vec::new();
    match std::env::args().nth(2).as_deref() {
        Some("rss") => docs.push(feedgen::rss20(5 << 20).bytes),
        Some("atom") => docs.push(feedgen::atom10(4 << 20).bytes),
        Some("rdf") => docs.push(feedgen::rdf_latin1(4 << 20).bytes),
        Some(path) if path.ends_with(".xml") || path.ends_with(".json") => {
            docs.extend(std::fs::read(path).ok());
        }
        Some("small") => docs.extend(feedgen::small(2_000).into_iter().map(|c| c.bytes)),
        _ => {
            let fixtures = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures"));
            docs.extend(
                feedgen::golden_inputs(fixtures)
                    .iter()
                    .filter_map(|p| std::fs::read(p).ok()),
            );
        }
    }
    let started = std::time::Instant::now();
    let mut read = 0usize;
    for _ in 0..rounds {
        for doc in &docs {
            let parsed = tidings_feed::parse(std::hint::black_box(doc), &Default::default());
            read += usize::from(parsed.is_ok());
        }
    }
    let bytes: usize = docs.iter().map(Vec::len).sum::<usize>() * rounds;
    eprintln!(
        "{} documents x {rounds}: {:.1} MB/s, {read} parses read",
        docs.len(),
        bytes as f64 / 1e6 / started.elapsed().as_secs_f64()
    );
}
