//! C8: what parsing costs on hostile shapes stays a small multiple of the body. A counting
//! global allocator (shared with the memory benchmarks) gives the exact heap high-water
//! mark, so these are deterministic, not timed. One test function, so no other test of
//! this binary allocates while a case is measured.

#[path = "../benches/counting/mod.rs"]
mod counting;

use counting::{LIVE, PEAK};
use std::sync::atomic::Ordering;
use tidings_feed::{ParseOptions, parse};

const SIZE: usize = 2_000_000;
const RSS_ITEM: &str =
    "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title><item><guid>1</guid>";

fn fill(head: &str, piece: &str, tail: &str) -> Vec<u8> {
    let mut doc = String::with_capacity(SIZE + 64);
    doc.push_str(head);
    while doc.len() + tail.len() < SIZE {
        doc.push_str(piece);
    }
    doc.push_str(tail);
    doc.into_bytes()
}

/// The heap the parse of `body` added at its peak, and the entries it read.
fn parse_peak(body: &[u8]) -> (usize, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let parsed = parse(body, &ParseOptions::default()).expect("the shape parses");
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(before);
    (peak, parsed.entries.len())
}

#[test]
fn c8_parsing_a_hostile_shape_costs_at_most_four_times_its_body() {
    let cases = [
        // quick-xml remembers every start tag until an end tag pops it: without the reader
        // being renewed this one cost 5x its body in that stack alone.
        (
            "unclosed <a> nested to the end",
            fill(&format!("{RSS_ITEM}<description>"), "<a>", ""),
        ),
        (
            "one item, an escaped HTML description",
            fill(
                &format!("{RSS_ITEM}<description>"),
                "&lt;p&gt;a &amp;amp; b&lt;/p&gt; ",
                "</description></item></channel></rss>",
            ),
        ),
        (
            "unclosed <br> in a CDATA-less description, then more items",
            fill(
                &format!("{RSS_ITEM}<description>"),
                "line<br>",
                "</description></item><item><guid>2</guid></item></channel></rss>",
            ),
        ),
    ];
    let mut over = Vec::new();
    for (what, body) in &cases {
        let (peak, entries) = parse_peak(body);
        assert!(entries >= 1, "{what}: no entry read");
        let ratio = peak as f64 / body.len() as f64;
        println!("{what}: {} bytes, peak {peak} ({ratio:.2}x)", body.len());
        if peak > 4 * body.len() {
            over.push(format!("{what}: {ratio:.2}x"));
        }
    }
    assert!(over.is_empty(), "over 4x the body: {over:?}");
}
