//! Peak heap used by `tidings_feed::parse` on each generated benchmark feed, against the input
//! size (the target is under 4x). Run: `cargo run --release -p tidings-feed --example peak_memory`.
//!
//! A counting global allocator tracks live and peak heap bytes. The input is generated first;
//! the figure reported is the peak reached during the parse above what was live just before
//! it (so the input itself is not counted), and the peak including the input.
//!
//! `--dump DIR` also writes each generated document to `DIR/<case>.<ext>`, to inspect them or
//! feed them to other parsers.

#[path = "../benches/feedgen/mod.rs"]
mod feedgen;

#[path = "../benches/counting/mod.rs"]
mod counting;

use counting::{LIVE, PEAK};
use std::sync::atomic::Ordering;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dump = match args.get(1).map(String::as_str) {
        Some("--dump") => args.get(2).map(std::path::PathBuf::from),
        _ => None,
    };
    let options = tidings_feed::ParseOptions {
        base_url: Some("https://feeds.example.com/feed"),
        ..Default::default()
    };
    println!(
        "{:<16} {:>10} {:>12} {:>7} {:>14} {:>7}  result",
        "case", "input MB", "parse peak MB", "ratio", "with input MB", "ratio"
    );
    for case in feedgen::all() {
        if let Some(dir) = &dump {
            let ext = if case.name.starts_with("json") {
                "json"
            } else {
                "xml"
            };
            let path = dir.join(format!("{}.{ext}", case.name));
            if let Err(error) = std::fs::write(&path, &case.bytes) {
                eprintln!("cannot write {}: {error}", path.display());
                std::process::exit(1);
            }
        }
        let input = case.bytes.len();
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let result = tidings_feed::parse(&case.bytes, &options);
        let peak = PEAK.load(Ordering::Relaxed);
        let outcome = match &result {
            Ok(parsed) => format!("{} entries", parsed.entries.len()),
            Err(error) => format!("error: {error}"),
        };
        drop(result);
        let extra = peak.saturating_sub(before);
        let mb = |n: usize| n as f64 / 1e6;
        println!(
            "{:<16} {:>10.2} {:>12.2} {:>6.2}x {:>14.2} {:>6.2}x  {outcome}",
            case.name,
            mb(input),
            mb(extra),
            extra as f64 / input as f64,
            mb(extra + input),
            (extra + input) as f64 / input as f64,
        );
    }
}
