//! One document parsed over and over by each parser, for the per-document cost:
//! `cargo run --release -p tidings-parser-peers --example one_file -- FILE [TIMES]`.

use std::hint::black_box;
use std::time::Instant;

/// A parser by name: whether it reads the document.
type Parser<'a> = (&'a str, &'a dyn Fn(&[u8]) -> bool);

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: one_file FILE [TIMES]");
        std::process::exit(2);
    };
    let times: usize = args.next().and_then(|t| t.parse().ok()).unwrap_or(10_000);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let parsers: [Parser; 4] = [
        ("tidings", &|b| {
            tidings_feed::parse(b, &Default::default()).is_ok()
        }),
        ("feed-rs", &|b| feed_rs::parser::parse(b).is_ok()),
        ("rss", &|b| rss::Channel::read_from(b).is_ok()),
        ("atom_syndication", &|b| {
            atom_syndication::Feed::read_from(b).is_ok()
        }),
    ];
    for (name, parse) in parsers {
        let reads = parse(&bytes);
        let started = Instant::now();
        for _ in 0..times {
            black_box(parse(black_box(&bytes)));
        }
        let each = started.elapsed().as_secs_f64() / times as f64;
        println!(
            "{name:>16}: {:8.2} µs per document, {:7.1} MB/s{}",
            each * 1e6,
            bytes.len() as f64 / 1e6 / each,
            if reads { "" } else { " (does not read it)" }
        );
    }
}
