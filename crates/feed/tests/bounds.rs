//! C8: a document with more entries than `ParseOptions::max_entries` is refused as a whole
//! (`ParseError::TooManyEntries`), in every format and through every repair path; at the
//! bound it is read whole.

use tidings_feed::{ParseError, ParseOptions, parse};

fn rss(n: usize) -> String {
    let items: String = (0..n)
        .map(|i| format!("<item><guid>g{i}</guid><title>t{i}</title></item>"))
        .collect();
    format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>x</title>{items}</channel></rss>"
    )
}

fn rss_unclosed(n: usize) -> String {
    // Items never closed: each new `<item>` closes the one before (the tolerant reader).
    let items: String = (0..n).map(|i| format!("<item><guid>g{i}</guid>")).collect();
    format!("<rss version=\"2.0\"><channel><title>x</title>{items}")
}

fn atom(n: usize) -> String {
    let entries: String = (0..n)
        .map(|i| format!("<entry><id>urn:e{i}</id><title>t{i}</title></entry>"))
        .collect();
    format!("<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>x</title>{entries}</feed>")
}

fn rdf(n: usize) -> String {
    let items: String = (0..n)
        .map(|i| format!("<item rdf:about=\"https://e.example/{i}\"><title>t{i}</title><link>https://e.example/{i}</link></item>"))
        .collect();
    format!(
        "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" \
         xmlns=\"http://purl.org/rss/1.0/\"><channel><title>x</title></channel>{items}</rdf:RDF>"
    )
}

fn json(n: usize) -> String {
    let items: Vec<String> = (0..n).map(|i| format!("{{\"id\":\"{i}\"}}")).collect();
    format!(
        "{{\"version\":\"https://jsonfeed.org/version/1.1\",\"title\":\"x\",\"items\":[{}]}}",
        items.join(",")
    )
}

fn json_trailing_comma(n: usize) -> String {
    // Repaired (trailing commas dropped) before it is read: the bound holds on the repair too.
    let items: String = (0..n).map(|i| format!("{{\"id\":\"{i}\",}},")).collect();
    format!("{{\"version\":\"https://jsonfeed.org/version/1.1\",\"items\":[{items}]}}")
}

fn json_truncated(n: usize) -> String {
    let mut text = json(n);
    text.truncate(text.len() - 4);
    text
}

fn json_after_junk(n: usize) -> String {
    format!("Warning: something went wrong on line 3\n{}", json(n))
}

fn json_not_items_first(n: usize) -> String {
    // `items` before `version`: the entries are read as they stream, the version after.
    let items: Vec<String> = (0..n).map(|i| format!("{{\"id\":\"{i}\"}}")).collect();
    format!(
        "{{\"items\":[{}],\"version\":\"https://jsonfeed.org/version/1\"}}",
        items.join(",")
    )
}

/// A named document maker: `n` entries in.
type Shape = (&'static str, fn(usize) -> String);

fn read(doc: &str, max_entries: Option<usize>) -> Result<usize, ParseError> {
    let options = ParseOptions {
        max_entries,
        ..ParseOptions::default()
    };
    parse(doc.as_bytes(), &options).map(|p| p.entries.len())
}

#[test]
fn c8_a_document_over_the_entry_bound_is_refused_whole_in_every_format() {
    let shapes: [Shape; 10] = [
        ("rss", rss),
        ("rss with unclosed items", rss_unclosed),
        ("atom", atom),
        ("rdf", rdf),
        ("json", json),
        ("json with trailing commas", json_trailing_comma),
        ("json cut short", json_truncated),
        ("json after junk", json_after_junk),
        ("json with items first", json_not_items_first),
        ("json (lone item object)", |n| {
            assert_eq!(n, 5);
            "{\"version\":\"https://jsonfeed.org/version/1.1\",\"items\":{\"id\":\"1\"}}".into()
        }),
    ];
    for (name, make) in shapes {
        let doc = make(5);
        let all = read(&doc, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        if name.starts_with("json (lone") {
            assert_eq!(all, 1, "{name}");
            assert_eq!(read(&doc, Some(1)), Ok(1), "{name}");
            continue;
        }
        let expect = if name == "json cut short" { 4 } else { 5 };
        assert_eq!(all, expect, "{name}: every entry without a bound");
        assert_eq!(read(&doc, Some(expect)), Ok(expect), "{name}: at the bound");
        assert_eq!(
            read(&doc, Some(expect - 1)),
            Err(ParseError::TooManyEntries { limit: expect - 1 }),
            "{name}: one past the bound"
        );
        assert_eq!(
            read(&doc, Some(0)),
            Err(ParseError::TooManyEntries { limit: 0 }),
            "{name}: a bound of none"
        );
    }
}

#[test]
fn c8_the_bound_counts_entries_not_other_elements() {
    // Many categories, links and nested markup in one item are no entries.
    let cats: String = (0..500)
        .map(|i| format!("<category>c{i}</category>"))
        .collect();
    let doc = format!(
        "<rss version=\"2.0\"><channel><title>x</title><item><guid>1</guid>{cats}\
         <description><p><b>deep</b></p></description></item></channel></rss>"
    );
    assert_eq!(read(&doc, Some(1)), Ok(1));
    let message = ParseError::TooManyEntries { limit: 7 }.to_string();
    assert_eq!(message, "more than 7 entries in one document");
}

fn parse_cut(doc: &str, max_text_bytes: Option<usize>) -> tidings_feed::ParsedFeed {
    let options = ParseOptions {
        max_text_bytes,
        ..ParseOptions::default()
    };
    parse(doc.as_bytes(), &options).expect("the document parses")
}

#[test]
fn c8_a_text_over_the_bound_is_cut_at_a_character_boundary_in_every_format() {
    // "é" is two bytes, so a cut at an odd byte count falls inside a character.
    let long = "é".repeat(5_000);
    let docs = [
        (
            "RSS description",
            format!(
                "<rss version=\"2.0\"><channel><title>x</title><item><guid>g</guid>\
                 <description>{long}</description></item></channel></rss>"
            ),
        ),
        (
            "Atom content",
            format!(
                "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>x</title><entry>\
                 <id>urn:g</id><content>{long}</content></entry></feed>"
            ),
        ),
        (
            "JSON Feed content_text",
            format!(
                "{{\"version\":\"https://jsonfeed.org/version/1.1\",\"title\":\"x\",\
                 \"items\":[{{\"id\":\"g\",\"content_text\":\"{long}\"}}]}}"
            ),
        ),
    ];
    for (what, doc) in docs {
        let parsed = parse_cut(&doc, Some(1_001));
        let entry = &parsed.entries[0];
        let text = entry
            .content
            .as_deref()
            .or(entry.summary.as_deref())
            .unwrap_or_else(|| panic!("{what}: no text"));
        assert_eq!(
            text,
            "é".repeat(500),
            "{what}: cut to the boundary under the bound"
        );
        let cuts: Vec<_> = parsed
            .warnings
            .iter()
            .filter(|w| w.kind == tidings_feed::WarningKind::TextCut)
            .collect();
        // One warning per field cut (Atom's content also stands in for its missing summary).
        assert!(!cuts.is_empty(), "{what}: the cut is reported");
        for cut in cuts {
            assert!(
                cut.message.contains("10000 to 1000 bytes"),
                "{what}: {}",
                cut.message
            );
        }
        // Without the bound the same document keeps the whole text and warns of nothing.
        let whole = parse_cut(&doc, None);
        let entry = &whole.entries[0];
        assert_eq!(
            entry.content.as_deref().or(entry.summary.as_deref()),
            Some(long.as_str()),
            "{what}"
        );
    }
}

#[test]
fn c8_texts_at_the_bound_are_kept_whole_and_identities_do_not_depend_on_it() {
    // No guid and no link: the identity is a hash of the title, which is over the bound.
    let title = "t".repeat(3_000);
    let doc = format!(
        "<rss version=\"2.0\"><channel><title>{title}</title><item><title>{title}</title>\
         </item></channel></rss>"
    );
    let cut = parse_cut(&doc, Some(2_000));
    let whole = parse_cut(&doc, None);
    assert_eq!(cut.entries[0].identity, whole.entries[0].identity);
    assert_eq!(cut.entries[0].title.as_deref().map(str::len), Some(2_000));
    assert_eq!(cut.feed.title.as_deref().map(str::len), Some(2_000));
    let at_bound = parse_cut(&doc, Some(3_000));
    assert_eq!(at_bound.entries[0].title.as_deref(), Some(title.as_str()));
    assert!(
        at_bound
            .warnings
            .iter()
            .all(|w| w.kind != tidings_feed::WarningKind::TextCut)
    );
}

#[test]
fn c8_a_flood_of_tiny_elements_is_refused_and_terse_real_feeds_are_not() {
    // Empty elements cost a tree node each (about 88 bytes) for four bytes of body.
    let flood = format!(
        "<rss version=\"2.0\"><channel><title>x</title><item><guid>1</guid>{}</item>\
         </channel></rss>",
        "<x/>".repeat(200_000)
    );
    match parse(flood.as_bytes(), &ParseOptions::default()) {
        Err(ParseError::TooManyElements { limit }) => {
            assert_eq!(limit, 65_536 + flood.len() / 12);
        }
        other => panic!(
            "the flood is refused, got {:?}",
            other.map(|p| p.entries.len())
        ),
    }
    // The same count of elements spread over many items, each as short as a real item can
    // be (a guid and nothing else), is a feed.
    let terse: String = (0..100_000)
        .map(|i| format!("<item><guid>{i}</guid></item>"))
        .collect();
    let doc = format!("<rss version=\"2.0\"><channel><title>x</title>{terse}</channel></rss>");
    assert_eq!(read(&doc, None), Ok(100_000));
    let message = ParseError::TooManyElements { limit: 9 }.to_string();
    assert!(message.contains("more than 9 XML elements"), "{message}");
}
