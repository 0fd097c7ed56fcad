//! What tidings writes as XML is well-formed whatever it is given: arbitrary titles, URLs and
//! text (every control character, `]]>`, quotes, ampersands, astral characters) go through
//! `escape::text` and `opml::write`, and a conforming XML 1.0 parser (roxmltree, which checks
//! the `Char` production and normalises attribute values as the specification says) reads
//! back exactly the input without the characters XML cannot hold.

use proptest::prelude::*;
use tidings_feed::escape::{self, is_xml_char};
use tidings_feed::opml::{self, Outline};

/// The input as it must come back: what XML 1.0 cannot hold dropped, nothing else changed.
fn sanitised(s: &str) -> String {
    s.chars().filter(|&c| is_xml_char(c)).collect()
}

/// Text weighted towards what breaks XML and terminals: every C0 control, DEL, the C1
/// controls, bidi overrides, the two non-characters, markup, quotes, astral characters.
fn hostile() -> impl Strategy<Value = String> {
    let nasty = prop_oneof![
        (0u32..0x20).prop_map(|c| char::from_u32(c).unwrap_or('?').to_string()),
        Just("\u{7f}".to_owned()),
        (0x80u32..0xa0).prop_map(|c| char::from_u32(c).unwrap_or('?').to_string()),
        Just("\u{202e}".to_owned()),
        Just("\u{2066}".to_owned()),
        Just("\u{FFFE}".to_owned()),
        Just("\u{FFFF}".to_owned()),
        Just("]]>".to_owned()),
        Just("<![CDATA[".to_owned()),
        Just("&amp;".to_owned()),
        Just("&".to_owned()),
        Just("\"".to_owned()),
        Just("'".to_owned()),
        Just("<".to_owned()),
        Just(">".to_owned()),
        Just("\r\n".to_owned()),
        Just("𝄞😀".to_owned()),
        Just("\u{1b}]0;PWNED\u{7}\u{1b}[2J".to_owned()),
        any::<char>().prop_map(String::from),
        "[a-z ]{1,8}",
    ];
    proptest::collection::vec(nasty, 0..12).prop_map(|parts| parts.concat())
}

fn parse(doc: &str) -> roxmltree::Document<'_> {
    match roxmltree::Document::parse(doc) {
        Ok(parsed) => parsed,
        Err(e) => panic!("not well-formed XML ({e}):\n{doc:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn escaped_text_is_well_formed_in_content_and_attributes(value in hostile()) {
        let escaped = escape::text(&value);
        let doc = format!("<t a=\"{escaped}\" b='{escaped}'>{escaped}</t>");
        let parsed = parse(&doc);
        let root = parsed.root_element();
        let want = sanitised(&value);
        prop_assert_eq!(root.attribute("a"), Some(want.as_str()));
        prop_assert_eq!(root.attribute("b"), Some(want.as_str()));
        prop_assert_eq!(root.text().unwrap_or(""), want.as_str());
    }

    #[test]
    fn written_opml_is_well_formed_and_says_what_it_was_given(
        list_title in hostile(),
        feeds in proptest::collection::vec(
            (hostile(), proptest::option::of(hostile()), proptest::option::of(hostile())),
            0..4,
        ),
    ) {
        let outlines: Vec<Outline> = feeds
            .into_iter()
            .map(|(xml_url, title, html_url)| Outline { xml_url, title, html_url, folder: None })
            .collect();
        let doc = opml::write(&list_title, &outlines);
        let parsed = parse(&doc);
        let title = parsed
            .descendants()
            .find(|n| n.has_tag_name("title"))
            .and_then(|n| n.text())
            .unwrap_or("");
        prop_assert_eq!(title, sanitised(&list_title));
        let written: Vec<_> = parsed
            .descendants()
            .filter(|n| n.has_tag_name("outline"))
            .collect();
        prop_assert_eq!(written.len(), outlines.len());
        for (node, given) in written.iter().zip(&outlines) {
            let label = sanitised(given.title.as_deref().unwrap_or(&given.xml_url));
            let url = sanitised(&given.xml_url);
            prop_assert_eq!(node.attribute("xmlUrl"), Some(url.as_str()));
            prop_assert_eq!(node.attribute("title"), Some(label.as_str()));
            prop_assert_eq!(node.attribute("text"), Some(label.as_str()));
            // Only a web link is written, normalised.
            let html = given
                .html_url
                .as_deref()
                .and_then(tidings_model::web_url)
                .map(|u| sanitised(&u));
            prop_assert_eq!(node.attribute("htmlUrl"), html.as_deref());
        }
    }
}

/// The title of the outside abuse test (issue 12): the terminal escape survives as data
/// without its ESC and BEL, which XML cannot hold.
#[test]
fn a_terminal_escape_in_a_title_leaves_the_opml_well_formed() {
    let outlines = [Outline {
        xml_url: "https://a.test/feed?x=1&y=2".into(),
        title: Some("\u{1b}]0;PWNED\u{7}\u{1b}[2J".into()),
        html_url: None,
        folder: None,
    }];
    let doc = opml::write("subscriptions", &outlines);
    let parsed = parse(&doc);
    let outline = parsed
        .descendants()
        .find(|n| n.has_tag_name("outline"))
        .expect("an outline");
    assert_eq!(outline.attribute("title"), Some("]0;PWNED[2J"));
    assert_eq!(
        outline.attribute("xmlUrl"),
        Some("https://a.test/feed?x=1&y=2")
    );
}

#[test]
fn opml_writes_only_web_site_links() {
    let outlines = [
        Outline {
            xml_url: "https://a.example/feed".into(),
            title: Some("A".into()),
            html_url: Some("javascript:alert(1)".into()),
            folder: None,
        },
        Outline {
            xml_url: "https://b.example/feed".into(),
            title: Some("B".into()),
            html_url: Some("https://b.example/".into()),
            folder: None,
        },
    ];
    let doc = opml::write("subscriptions", &outlines);
    assert!(!doc.contains("javascript:"), "{doc}");
    assert!(doc.contains("htmlUrl=\"https://b.example/\""), "{doc}");
}
