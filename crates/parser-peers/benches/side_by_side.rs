//! tidings' parser side by side with the other Rust feed parsers, on the same bytes in one run:
//! `cargo bench -p tidings-parser-peers` (figures in docs/benchmarks.md).
//!
//! Peers: `feed-rs`, and `rss` + `atom_syndication` taken together (each document is given to
//! the one of the two that reads it, found once before timing, so that peer never pays for a
//! failed attempt). Sets: the four large generated feeds of the parser benchmark, 2,000 small
//! generated feeds of the four kinds, and every input document of the golden corpus
//! (`crates/feed/tests/fixtures`). A small set is timed on the documents every parser reads
//! (the fair comparison: a parser that rejects a document fails fast) and, for tidings and
//! feed-rs, on all of them.
//!
//! Each parser reads its input from memory, one call per document, results dropped outside the
//! timed region's hot loop only by `black_box`. Rounds alternate the parsers (so a slow
//! spell of the shared machine hits them alike); each parser's figure is the median round.
//! Nothing here asserts a speed.

#[path = "../../feed/benches/feedgen/mod.rs"]
mod feedgen;

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

/// One document of a set.
struct Doc {
    bytes: Vec<u8>,
    /// Which of `rss` and `atom_syndication` reads it, if either.
    classic: Classic,
    tidings: bool,
    feed_rs: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Classic {
    Rss,
    Atom,
    Neither,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Parser {
    Tidings,
    FeedRs,
    RssAtom,
}

impl Parser {
    const ALL: [Parser; 3] = [Parser::Tidings, Parser::FeedRs, Parser::RssAtom];

    fn name(self) -> &'static str {
        match self {
            Parser::Tidings => "tidings",
            Parser::FeedRs => "feed-rs",
            Parser::RssAtom => "rss + atom_syndication",
        }
    }

    fn reads(self, doc: &Doc) -> bool {
        match self {
            Parser::Tidings => doc.tidings,
            Parser::FeedRs => doc.feed_rs,
            Parser::RssAtom => doc.classic != Classic::Neither,
        }
    }

    /// Parse one document; the result is kept from the optimiser and dropped.
    fn parse(self, doc: &Doc) {
        let bytes = black_box(&doc.bytes[..]);
        match self {
            Parser::Tidings => {
                let _ = black_box(tidings_feed::parse(
                    bytes,
                    &tidings_feed::ParseOptions::default(),
                ));
            }
            Parser::FeedRs => {
                let _ = black_box(feed_rs::parser::parse(bytes));
            }
            Parser::RssAtom => match doc.classic {
                Classic::Rss | Classic::Neither => {
                    let _ = black_box(rss::Channel::read_from(bytes));
                }
                Classic::Atom => {
                    let _ = black_box(atom_syndication::Feed::read_from(bytes));
                }
            },
        }
    }
}

impl Doc {
    fn new(bytes: Vec<u8>) -> Doc {
        let classic = if rss::Channel::read_from(&bytes[..]).is_ok() {
            Classic::Rss
        } else if atom_syndication::Feed::read_from(&bytes[..]).is_ok() {
            Classic::Atom
        } else {
            Classic::Neither
        };
        Doc {
            tidings: tidings_feed::parse(&bytes, &tidings_feed::ParseOptions::default()).is_ok(),
            feed_rs: feed_rs::parser::parse(&bytes[..]).is_ok(),
            classic,
            bytes,
        }
    }
}

/// A named set of documents.
struct Set {
    name: String,
    docs: Vec<Doc>,
}

/// How long each parser is timed on one set, at least, over all its rounds.
const TIME_PER_PARSER: Duration = Duration::from_millis(1500);
const MIN_ROUNDS: usize = 5;
const MAX_ROUNDS: usize = 41;

/// Time each of `parsers` over `docs`: the median seconds of one pass, per parser.
fn time(parsers: &[Parser], docs: &[&Doc]) -> Vec<f64> {
    let pass = |parser: Parser| {
        let started = Instant::now();
        for doc in docs {
            parser.parse(doc);
        }
        started.elapsed()
    };
    // One untimed pass each (caches, allocator), and a guess of the rounds that fill the time.
    let slowest = parsers.iter().map(|&p| pass(p)).max().unwrap_or_default();
    let rounds = (TIME_PER_PARSER.as_secs_f64() / slowest.as_secs_f64().max(1e-6)).ceil() as usize;
    let rounds = rounds.clamp(MIN_ROUNDS, MAX_ROUNDS);
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); parsers.len()];
    for _ in 0..rounds {
        for (i, &parser) in parsers.iter().enumerate() {
            samples[i].push(pass(parser).as_secs_f64());
        }
    }
    samples
        .into_iter()
        .map(|mut s| {
            s.sort_by(f64::total_cmp);
            s[s.len() / 2]
        })
        .collect()
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

/// Time the set on `docs` and print one table row per parser.
fn report(set: &str, view: &str, parsers: &[Parser], docs: &[&Doc]) {
    let bytes: usize = docs.iter().map(|d| d.bytes.len()).sum();
    if docs.is_empty() || parsers.is_empty() {
        return;
    }
    let secs = time(parsers, docs);
    let speeds: Vec<f64> = secs.iter().map(|s| mb(bytes) / s).collect();
    let fastest_peer = parsers
        .iter()
        .zip(&speeds)
        .filter(|(p, _)| **p != Parser::Tidings)
        .map(|(_, s)| *s)
        .fold(0.0, f64::max);
    for (parser, speed) in parsers.iter().zip(&speeds) {
        let ratio = if *parser == Parser::Tidings && fastest_peer > 0.0 {
            format!("**{:.2}x**", speed / fastest_peer)
        } else {
            String::new()
        };
        println!(
            "| {set} | {view} | {} | {} | {:.2} MB | {:.0} MB/s | {ratio} |",
            parser.name(),
            docs.len(),
            mb(bytes),
            speed
        );
    }
}

fn sets() -> Vec<Set> {
    let mut sets: Vec<Set> = feedgen::all()
        .into_iter()
        .map(|case| Set {
            name: case.name.to_owned(),
            docs: vec![Doc::new(case.bytes)],
        })
        .collect();
    sets.push(Set {
        name: "small_generated_2000".into(),
        docs: feedgen::small(2_000)
            .into_iter()
            .map(|c| Doc::new(c.bytes))
            .collect(),
    });
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../feed/tests/fixtures");
    let paths = feedgen::golden_inputs(&fixtures);
    let docs: Vec<Doc> = paths
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .map(Doc::new)
        .collect();
    sets.push(Set {
        name: format!("golden_corpus_{}", docs.len()),
        docs,
    });
    sets
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument picks sets by name.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    println!("| set | documents timed | parser | docs | bytes | speed | tidings / fastest peer |");
    println!("|---|---|---|---|---|---|---|");
    for set in sets() {
        if filter
            .as_ref()
            .is_some_and(|f| !set.name.contains(f.as_str()))
        {
            continue;
        }
        let readers: Vec<Parser> = Parser::ALL
            .into_iter()
            .filter(|p| set.docs.iter().all(|d| p.reads(d)))
            .collect();
        let counts: Vec<String> = Parser::ALL
            .iter()
            .map(|p| {
                let n = set.docs.iter().filter(|d| p.reads(d)).count();
                format!("{} {n}/{}", p.name(), set.docs.len())
            })
            .collect();
        eprintln!("{}: read by {}", set.name, counts.join(", "));
        if set.docs.len() == 1 {
            let docs: Vec<&Doc> = set.docs.iter().collect();
            report(&set.name, "the document", &readers, &docs);
            continue;
        }
        let common: Vec<&Doc> = set
            .docs
            .iter()
            .filter(|d| Parser::ALL.iter().all(|p| p.reads(d)))
            .collect();
        report(&set.name, "read by all three", &Parser::ALL, &common);
        let all: Vec<&Doc> = set.docs.iter().collect();
        report(&set.name, "all", &[Parser::Tidings, Parser::FeedRs], &all);
    }
}
