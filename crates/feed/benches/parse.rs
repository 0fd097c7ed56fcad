//! Parser throughput on large generated feeds (`cargo bench -p tidings-feed`).
//!
//! Each case is generated in memory from a fixed seed (see `feedgen`), checked once, then
//! parsed repeatedly; criterion reports MB/s from the input size. The JSON case must parse
//! with every entry; an XML case that the parser cannot read yet is still timed (it fails
//! fast) and reported on stderr, while one it does read must yield every entry.

#[path = "feedgen/mod.rs"]
mod feedgen;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;
use tidings_feed::ParseOptions;

const OPTIONS: ParseOptions<'static> = ParseOptions {
    base_url: Some("https://feeds.example.com/feed"),
    charset: None,
    content_type: None,
    max_entries: None,
    max_text_bytes: None,
};

/// Parse once and check the result before timing anything.
fn check(case: &feedgen::Case) {
    let mb = case.bytes.len() as f64 / 1e6;
    match tidings_feed::parse(&case.bytes, &OPTIONS) {
        Ok(parsed) => {
            assert_eq!(
                parsed.entries.len(),
                case.entries,
                "{}: wrong entry count",
                case.name
            );
            eprintln!(
                "{}: {mb:.2} MB, {} entries, {} warnings",
                case.name,
                case.entries,
                parsed.warnings.len()
            );
        }
        Err(error) => {
            assert!(!case.required, "{} must parse: {error}", case.name);
            eprintln!("{}: {mb:.2} MB, not parsed yet: {error}", case.name);
        }
    }
}

fn parse(c: &mut Criterion) {
    let cases = feedgen::all();
    let mut group = c.benchmark_group("parse");
    group.sample_size(20);
    group.warm_up_time(Duration::from_secs(2));
    group.measurement_time(Duration::from_secs(6));
    for case in &cases {
        check(case);
        group.throughput(Throughput::Bytes(case.bytes.len() as u64));
        group.bench_function(case.name, |b| {
            b.iter(|| tidings_feed::parse(black_box(&case.bytes), &OPTIONS))
        });
    }
    // The floor for the JSON case: serde_json reading the same bytes into a `Value` tree,
    // which is the first step of the JSON adapter.
    if let Some(case) = cases.iter().find(|c| c.name.starts_with("json")) {
        group.throughput(Throughput::Bytes(case.bytes.len() as u64));
        group.bench_function("json_feed_2mb_serde_value_only", |b| {
            b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(&case.bytes)))
        });
    }
    group.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
