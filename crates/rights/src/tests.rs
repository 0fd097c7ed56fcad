//! Table tests for every decision, on declarations written for them.

use crate::decide::{self, Declarations};
use crate::directive::{self, Directives};
use crate::licence::{Licence, Sampling};
use crate::objection::{self, Signal, TdmRep};
use tidings_robots::Robots;

fn list(content: &str) -> Directives {
    Directives::parse_list(content)
}

#[test]
fn ff14_directive_words() {
    let d = |noindex, nofollow, nosnippet, noarchive| Directives {
        noindex,
        nofollow,
        nosnippet,
        noarchive,
        max_snippet: None,
    };
    for (content, want) in [
        ("noindex", d(true, false, false, false)),
        ("NoFollow", d(false, true, false, false)),
        ("none", d(true, true, false, false)),
        ("nosnippet, noarchive", d(false, false, true, true)),
        ("index, follow, all", Directives::NONE),
        ("index, noindex", d(true, false, false, false)),
        (
            "noimageindex, unavailable_after: 2030-01-01",
            Directives::NONE,
        ),
        ("", Directives::NONE),
        (" , ,noindex ,", d(true, false, false, false)),
    ] {
        assert_eq!(list(content), want, "{content:?}");
    }
    assert_eq!(
        list("max-snippet:0"),
        Directives {
            nosnippet: true,
            ..Directives::NONE
        }
    );
    assert_eq!(
        list("max-snippet: 120, max-snippet:50").max_snippet,
        Some(50)
    );
    assert_eq!(list("max-snippet:-1"), Directives::NONE);
    assert_eq!(list("max-snippet:lots"), Directives::NONE);
    assert_eq!(
        list("none, nosnippet").to_string(),
        "noindex, nofollow, nosnippet"
    );
    assert_eq!(Directives::NONE.to_string(), "no restriction");
}

#[test]
fn ff14_x_robots_tag_applies_generic_and_own_scopes_only() {
    let bot = "FFBot";
    for (headers, want) in [
        (vec!["noindex"], "noindex"),
        (vec!["FFBot: noindex, nosnippet"], "noindex, nosnippet"),
        (vec!["ffbot: noarchive"], "noarchive"),
        (vec!["googlebot: noindex"], "no restriction"),
        (
            vec!["googlebot: noindex, nofollow", "FFBot: nosnippet"],
            "nosnippet",
        ),
        (vec!["nofollow", "otherbot: noindex"], "nofollow"),
        // A bot's scope runs to the end of its header line, not into the next.
        (vec!["otherbot: noindex", "noarchive"], "noarchive"),
        (vec!["max-snippet: 20"], "max-snippet:20"),
        (vec!["FFBot: max-snippet: 0"], "nosnippet"),
        (vec!["FFBot:"], "no restriction"),
    ] {
        assert_eq!(
            directive::from_headers(headers.iter().copied(), bot).to_string(),
            want,
            "{headers:?}"
        );
    }
}

#[test]
fn ff14_meta_tags_for_robots_and_the_bot() {
    let tags = [
        ("robots", "nofollow"),
        ("FFBot", "noindex"),
        ("SereneReader", "nosnippet"),
        ("googlebot", "noarchive"),
    ];
    assert_eq!(
        directive::from_meta(tags.iter().copied(), "ffbot").to_string(),
        "noindex, nofollow"
    );
    assert_eq!(
        directive::from_meta(tags.iter().copied(), "SereneReader").to_string(),
        "nofollow, nosnippet"
    );
}

#[test]
fn ff14_a_304_adds_restrictions_and_never_clears_them() {
    let current = list("noindex");
    // A 304 with nothing, or with something new: kept, and added to.
    assert_eq!(
        directive::after_response(current, Directives::NONE, false),
        current
    );
    assert_eq!(
        directive::after_response(current, list("nosnippet"), false),
        list("noindex, nosnippet")
    );
    // A full response says what holds now.
    assert_eq!(
        directive::after_response(current, Directives::NONE, true),
        Directives::NONE
    );
    assert_eq!(
        directive::after_response(current, list("nofollow"), true),
        list("nofollow")
    );
    assert!(list("noindex, nosnippet").covers(&list("nosnippet")));
    assert!(!list("nosnippet").covers(&list("noindex")));
}

#[test]
fn ff8_licence_uris_of_every_version_and_port() {
    let cc = |s: &str| Licence::recognise(s).map(|l| l.to_string());
    for (uri, want) in [
        ("https://creativecommons.org/licenses/by/4.0/", "CC BY 4.0"),
        (
            "http://creativecommons.org/licenses/by-sa/3.0/de/",
            "CC BY-SA 3.0 (de)",
        ),
        (
            "https://creativecommons.org/licenses/by-nc-nd/2.5/scotland/deed.en",
            "CC BY-NC-ND 2.5 (scotland)",
        ),
        (
            "//www.creativecommons.org/licenses/by-nd/2.0/legalcode",
            "CC BY-ND 2.0",
        ),
        (
            "https://CreativeCommons.org/licenses/BY-NC-SA/4.0/deed.pt_BR",
            "CC BY-NC-SA 4.0",
        ),
        (
            "https://creativecommons.org/licenses/by-nd-nc/1.0/",
            "CC BY-NC-ND 1.0",
        ),
        (
            "https://creativecommons.org/licenses/nc-sa/1.0/",
            "CC NC-SA 1.0",
        ),
        (
            "https://creativecommons.org/licenses/by/3.0/igo/",
            "CC BY 3.0 (igo)",
        ),
        (
            "https://creativecommons.org/licenses/by/2.1/jp/",
            "CC BY 2.1 (jp)",
        ),
        (
            "https://creativecommons.org/publicdomain/zero/1.0/",
            "CC0 1.0",
        ),
        (
            "https://creativecommons.org/publicdomain/zero/1.0/deed.fr",
            "CC0 1.0",
        ),
        (
            "https://creativecommons.org/publicdomain/mark/1.0/",
            "Public Domain Mark 1.0",
        ),
        (
            "http://creativecommons.org/licenses/publicdomain/",
            "CC public domain dedication",
        ),
        (
            "https://creativecommons.org/licenses/sampling+/1.0/",
            "CC Sampling+ 1.0",
        ),
        (
            "https://creativecommons.org/licenses/nc-sampling+/1.0/br/",
            "CC NC-Sampling+ 1.0 (br)",
        ),
        ("https://creativecommons.org/licenses/by/4.0", "CC BY 4.0"),
    ] {
        assert_eq!(cc(uri).as_deref(), Some(want), "{uri}");
    }
    for not in [
        "https://creativecommons.org/licenses/by/5.0/",
        "https://creativecommons.org/licenses/by-sa-nd/4.0/",
        "https://creativecommons.org/licenses/by-by/4.0/",
        "https://creativecommons.org/licenses/",
        "https://creativecommons.org/about/",
        "https://creativecommons.org.evil.example/licenses/by/4.0/",
        "https://example.org/licenses/by/4.0/",
        "ftp://creativecommons.org/licenses/by/4.0/",
        "https://creativecommons.org/licenses/by/4.0/de/extra/more",
        "CC BY 4.0",
        "Licensed under a Creative Commons Attribution licence",
        "© 2026 Example News. All rights reserved.",
        "",
    ] {
        assert_eq!(cc(not), None, "{not}");
    }
}

#[test]
fn ff8_spdx_identifiers() {
    let cc = |s: &str| Licence::recognise(s).map(|l| l.to_string());
    for (id, want) in [
        ("CC-BY-4.0", "CC BY 4.0"),
        ("cc-by-sa-3.0-de", "CC BY-SA 3.0 (de)"),
        ("CC-BY-NC-ND-2.5", "CC BY-NC-ND 2.5"),
        ("CC0-1.0", "CC0 1.0"),
        ("CC-PDDC", "CC public domain dedication"),
        ("CC-PDM-1.0", "Public Domain Mark 1.0"),
        ("CC-BY-3.0-IGO", "CC BY 3.0 (igo)"),
    ] {
        assert_eq!(cc(id).as_deref(), Some(want), "{id}");
    }
    for not in [
        "CC-BY",
        "CC-BY-9.0",
        "MIT",
        "GPL-3.0-only",
        "CC-SA-1.0",
        "CC-BY-4.0-DE-XX",
    ] {
        assert_eq!(cc(not), None, "{not}");
    }
}

#[test]
fn ff8_what_each_licence_permits() {
    let permits = |s: &str| Licence::recognise(s).unwrap().permits();
    let by = permits("CC-BY-4.0");
    assert!(by.redistribution && by.commercial && by.derivatives && by.attribution);
    let nd = permits("https://creativecommons.org/licenses/by-nd/4.0/");
    assert!(nd.redistribution && nd.commercial && !nd.derivatives);
    let nc = permits("CC-BY-NC-4.0");
    assert!(nc.redistribution && !nc.commercial);
    let zero = permits("CC0-1.0");
    assert!(zero.redistribution && !zero.attribution);
    let sampling =
        Licence::recognise("https://creativecommons.org/licenses/sampling/1.0/").unwrap();
    assert!(
        matches!(sampling, Licence::CreativeCommons { kind, .. } if kind.sampling == Sampling::Sampling)
    );
    assert!(!sampling.permits().redistribution);
}

#[test]
fn ff8_thumbnails_by_the_most_specific_declaration() {
    let by = ["https://creativecommons.org/licenses/by/4.0/"];
    let nd = ["https://creativecommons.org/licenses/by-nd/4.0/"];
    let nc = ["https://creativecommons.org/licenses/by-nc/4.0/"];
    let arr = ["All rights reserved"];
    let sampling = ["https://creativecommons.org/licenses/sampling/1.0/"];
    let none: [&str; 0] = [];
    let case = |image: &[&str], entry: &[&str], feed: &[&str], commercial| {
        decide::thumbnail(&Declarations { image, entry, feed }, commercial)
    };
    for (name, ruling, allowed, reason) in [
        (
            "CC BY on the feed, inherited",
            case(&none, &none, &by, false),
            true,
            "CC BY 4.0 declared by the feed",
        ),
        (
            "CC BY-ND",
            case(&none, &nd, &none, false),
            true,
            "CC BY-ND 4.0 declared by the entry, shown unmodified",
        ),
        (
            "all rights reserved",
            case(&none, &arr, &none, false),
            false,
            "licence declared by the entry not recognised",
        ),
        (
            "nothing declared",
            case(&none, &none, &none, false),
            false,
            "no licence declared",
        ),
        (
            "the entry overrides the feed",
            case(&none, &arr, &by, false),
            false,
            "licence declared by the entry not recognised",
        ),
        (
            "the image overrides the entry",
            case(&by, &arr, &none, false),
            true,
            "CC BY 4.0 declared by the image",
        ),
        (
            "NC for a non-commercial service",
            case(&nc, &none, &none, false),
            true,
            "CC BY-NC 4.0 declared by the image",
        ),
        (
            "NC for a commercial service",
            case(&nc, &none, &none, true),
            false,
            "CC BY-NC 4.0 declared by the image is non-commercial and this service is commercial",
        ),
        (
            "sampling",
            case(&none, &none, &sampling, false),
            false,
            "CC Sampling 1.0 declared by the feed does not permit redistribution",
        ),
    ] {
        assert_eq!(
            (ruling.allowed, ruling.reason.as_str()),
            (allowed, reason),
            "{name}"
        );
    }
    // Dual licensing: any one usable licence of the level suffices.
    let dual = [
        "https://creativecommons.org/licenses/by-nc/4.0/",
        "CC-BY-SA-4.0",
    ];
    assert!(case(&none, &dual, &none, true).allowed);
}

/// Supplied summary, objections, directives; the excerpt kept and the reason.
type ExcerptCase<'a> = (
    Option<&'a str>,
    &'a [objection::Objection],
    Directives,
    Option<&'a str>,
    &'a str,
);

#[test]
fn dfb2_excerpts_need_a_supplied_summary_and_no_objection() {
    let long = "word ".repeat(100);
    let objection = objection::in_header(["1"]).unwrap();
    let cases: [ExcerptCase<'_>; 5] = [
        (
            None,
            &[],
            Directives::NONE,
            None,
            "the feed supplies no excerpt",
        ),
        (
            Some("  "),
            &[],
            Directives::NONE,
            None,
            "the feed supplies no excerpt",
        ),
        (
            Some("A short summary."),
            &[],
            Directives::NONE,
            Some("A short summary."),
            "supplied by the feed, 16 characters",
        ),
        (
            Some("A short summary."),
            std::slice::from_ref(&objection),
            Directives::NONE,
            None,
            "the publisher objects: tdm-reservation header (tdm-reservation: 1)",
        ),
        (
            Some("A short summary."),
            &[],
            list("nosnippet"),
            None,
            "directives: nosnippet",
        ),
    ];
    for (supplied, objections, directives, kept, reason) in cases {
        let (excerpt, ruling) = decide::excerpt(supplied, objections, &directives, 300);
        assert_eq!((excerpt.as_deref(), ruling.reason.as_str()), (kept, reason));
        assert_eq!(ruling.allowed, kept.is_some());
    }
    let (excerpt, ruling) = decide::excerpt(Some(&long), &[], &Directives::NONE, 300);
    let excerpt = excerpt.unwrap();
    assert!(
        excerpt.chars().count() <= 300,
        "{}",
        excerpt.chars().count()
    );
    assert!(excerpt.ends_with("word…"), "{excerpt}");
    assert_eq!(ruling.reason, "supplied by the feed, cut to 300 characters");
    // max-snippet shortens further.
    let (excerpt, _) = decide::excerpt(Some(&long), &[], &list("max-snippet:12"), 300);
    assert_eq!(excerpt.as_deref(), Some("word word…"));
    // Characters, not bytes.
    let (excerpt, _) = decide::excerpt(Some(&"é".repeat(400)), &[], &Directives::NONE, 300);
    assert_eq!(excerpt.unwrap().chars().count(), 300);
}

#[test]
fn dfb2_ai_crawler_groups_in_robots_txt() {
    let (tokens, bad) = objection::ai_tokens(["GPTBot", "CCBot", "Google-Extended", "not a token"]);
    assert_eq!(bad, ["not a token"]);
    let robots = Robots::parse(
        b"User-agent: *\nDisallow: /private/\n\nUser-agent: CCBot\nDisallow: /\n\nUser-agent: GPTBot\nDisallow: /news/\n",
    );
    let found = objection::in_robots(&robots, &tokens, "/news/feed.xml").unwrap();
    assert_eq!(found.signal, Signal::AiCrawlerGroup);
    assert!(
        found
            .detail
            .starts_with("GPTBot for /news/feed.xml: disallowed by group GPTBot line 8"),
        "{}",
        found.detail
    );
    // The star group speaks to every crawler, not to AI crawlers.
    let star_only = Robots::parse(b"User-agent: *\nDisallow: /\n");
    assert_eq!(objection::in_robots(&star_only, &tokens, "/feed.xml"), None);
    let allows = Robots::parse(b"User-agent: GPTBot\nAllow: /\n");
    assert_eq!(objection::in_robots(&allows, &tokens, "/feed.xml"), None);
}

#[test]
fn dfb2_tdmrep_header_meta_and_file() {
    assert_eq!(objection::in_header(["0"]), None);
    assert_eq!(objection::in_header(["yes"]), None);
    assert!(objection::in_header(["0", " 1 "]).is_some());
    assert!(objection::in_meta(Some("1")).is_some());
    assert_eq!(objection::in_meta(Some("0")), None);
    assert_eq!(objection::in_meta(None), None);

    let file = TdmRep::parse(
        br#"[
            {"location": "/", "tdm-reservation": 0},
            {"location": "/news/*", "tdm-reservation": 1, "tdm-policy": "https://pub.example/policy.json"},
            {"location": "/news/free/", "tdm-reservation": "0"},
            {"location": "/bad", "tdm-reservation": 7},
            {"tdm-reservation": 1}
        ]"#,
    )
    .unwrap();
    assert_eq!(file.objection("/about"), None);
    let o = file.objection("/news/2026/story.html").unwrap();
    assert_eq!(o.signal, Signal::TdmRepFile);
    assert_eq!(
        o.detail,
        "location /news/* reserved, policy https://pub.example/policy.json"
    );
    // The longest matching location decides.
    assert_eq!(file.objection("/news/free/story.html"), None);
    assert!(TdmRep::parse(b"{\"location\": \"/\"}").is_err());
    assert!(TdmRep::parse(b"not json").is_err());
}

#[test]
fn ff14_index_follow_and_retain() {
    assert!(!decide::index_text(&list("noindex")).allowed);
    assert!(decide::index_text(&list("nofollow")).allowed);
    assert!(!decide::follow_links(&list("none")).allowed);
    // Page text needs the operator's permission first, then no noarchive.
    assert!(!decide::retain_page_text(&Directives::NONE, false).allowed);
    assert!(!decide::retain_page_text(&list("noarchive"), true).allowed);
    assert!(decide::retain_page_text(&Directives::NONE, true).allowed);
}

#[test]
fn ff15_files_never_read_as_permissions() {
    for path in [
        "/llms.txt",
        "/LLMS.TXT",
        "/ai.txt?x=1",
        "/AGENTS.md",
        "/.well-known/ai.txt",
        "/llms-full.txt#top",
    ] {
        assert!(decide::never_read(path), "{path}");
    }
    for path in [
        "/robots.txt",
        "/feed.xml",
        "/docs/llms.txt",
        "/agents.md.html",
    ] {
        assert!(!decide::never_read(path), "{path}");
    }
}

fn dfb2_feed() -> tidings_model::ParsedFeed {
    use tidings_model::{Author, Enclosure, Entry, MediaContent, ParsedFeed, Thumbnail};
    let mut parsed = ParsedFeed {
        format: tidings_model::FeedFormat::Rss20,
        feed: tidings_model::Feed::default(),
        entries: Vec::new(),
        warnings: Vec::new(),
    };
    parsed.feed.image = Some("https://pub.example/logo.png".into());
    parsed.feed.title = Some("Football".into());
    parsed.entries.push(Entry {
        identity: "e1".into(),
        title: Some("Cup final tonight".into()),
        link: Some("https://pub.example/cup".into()),
        summary: Some(format!(
            "<p>The <b>final</b> &amp; more.</p>{}",
            " Words".repeat(80)
        )),
        content: Some("<p>The whole article.</p>".into()),
        authors: vec![Author {
            name: Some("Ana".into()),
            ..Author::default()
        }],
        categories: vec!["cup".into()],
        thumbnails: vec![Thumbnail {
            url: "https://pub.example/t.jpg".into(),
            ..Thumbnail::default()
        }],
        enclosures: vec![
            Enclosure {
                url: "https://pub.example/p.jpg".into(),
                media_type: Some("image/jpeg".into()),
                ..Enclosure::default()
            },
            Enclosure {
                url: "https://pub.example/a.mp3".into(),
                media_type: Some("audio/mpeg".into()),
                ..Enclosure::default()
            },
        ],
        media: vec![MediaContent {
            url: Some("https://pub.example/m.png".into()),
            medium: Some("image".into()),
            ..MediaContent::default()
        }],
        ..Entry::default()
    });
    parsed.entries.push(Entry {
        identity: "e2".into(),
        title: Some("No summary".into()),
        ..Entry::default()
    });
    parsed
}

#[test]
fn dfb2_keeps_title_link_date_and_an_excerpt_only() {
    use crate::keep;
    use tidings_policy::profile::{KeepSettings, SummaryKeep};
    let dfb = KeepSettings {
        content: false,
        images: false,
        metadata: false,
        summary: SummaryKeep::Excerpt,
        excerpt_max_chars: 300,
    };
    let mut parsed = dfb2_feed();
    let kept = keep::apply(&mut parsed, &dfb, &[], &Directives::NONE);
    let e = &parsed.entries[0];
    assert_eq!(e.title.as_deref(), Some("Cup final tonight"));
    assert_eq!(e.link.as_deref(), Some("https://pub.example/cup"));
    let summary = e.summary.as_deref().unwrap();
    assert!(summary.starts_with("The final & more. Words"), "{summary}");
    assert!(
        summary.chars().count() <= 300 && summary.ends_with('…'),
        "{summary}"
    );
    assert_eq!(e.content, None);
    assert!(e.thumbnails.is_empty() && e.enclosures.is_empty() && e.media.is_empty());
    assert!(e.authors.is_empty() && e.categories.is_empty());
    assert_eq!(parsed.feed.image, None);
    assert_eq!(parsed.entries[1].summary, None);
    assert_eq!(
        kept.excerpt.unwrap().reason,
        "supplied by the feed, cut to 300 characters"
    );

    // With an objection, no excerpt at all.
    let mut parsed = dfb2_feed();
    let objection = objection::in_header(["1"]).unwrap();
    let kept = keep::apply(
        &mut parsed,
        &dfb,
        std::slice::from_ref(&objection),
        &Directives::NONE,
    );
    assert_eq!(parsed.entries[0].summary, None);
    assert!(!kept.excerpt.unwrap().allowed);

    // The default keeps everything as parsed.
    let mut parsed = dfb2_feed();
    keep::apply(
        &mut parsed,
        &KeepSettings::default(),
        &[objection],
        &Directives::NONE,
    );
    assert_eq!(parsed, dfb2_feed());

    // Images only: the audio enclosure and the metadata stay.
    let mut parsed = dfb2_feed();
    let images_off = KeepSettings {
        images: false,
        ..KeepSettings::default()
    };
    keep::apply(&mut parsed, &images_off, &[], &Directives::NONE);
    let e = &parsed.entries[0];
    assert_eq!(e.enclosures.len(), 1);
    assert_eq!(e.enclosures[0].media_type.as_deref(), Some("audio/mpeg"));
    assert!(e.media.is_empty() && e.thumbnails.is_empty());
    assert_eq!(e.authors.len(), 1);
    assert!(e.content.is_some());
}

#[test]
fn ff14_feed_directives_cut_what_is_kept() {
    use crate::keep;
    use tidings_policy::profile::KeepSettings;
    let mut parsed = dfb2_feed();
    keep::apply(
        &mut parsed,
        &KeepSettings::default(),
        &[],
        &list("nosnippet, noarchive"),
    );
    assert_eq!(parsed.entries[0].summary, None);
    assert_eq!(parsed.entries[0].content, None);
    assert_eq!(parsed.entries[0].authors.len(), 1, "metadata is not text");
    let mut parsed = dfb2_feed();
    keep::apply(
        &mut parsed,
        &KeepSettings::default(),
        &[],
        &list("max-snippet:10"),
    );
    assert_eq!(parsed.entries[0].summary.as_deref(), Some("The final…"));
    assert!(parsed.entries[0].content.is_some());
    // noindex says nothing of what is kept.
    let mut parsed = dfb2_feed();
    keep::apply(&mut parsed, &KeepSettings::default(), &[], &list("noindex"));
    assert_eq!(parsed, dfb2_feed());
}

fn rights() -> tidings_policy::profile::RightsSettings {
    tidings_policy::profile::RightsSettings::default()
}

#[test]
fn ff7_ff8_one_thumbnail_per_entry_explicit_first_then_images_then_the_html() {
    use crate::thumbnail;
    use tidings_model::{Enclosure, Entry, MediaContent, Thumbnail};
    let base = url::Url::parse("https://pub.example/2026/story").unwrap();
    let by = "https://creativecommons.org/licenses/by/4.0/";
    let entry = Entry {
        license: Some(by.into()),
        thumbnails: vec![
            Thumbnail {
                url: "not a url".into(),
                ..Thumbnail::default()
            },
            Thumbnail {
                url: "https://pub.example/t.jpg".into(),
                width: Some(120),
                credit: Some("Ana".into()),
                ..Thumbnail::default()
            },
        ],
        media: vec![MediaContent {
            url: Some("https://pub.example/m.jpg".into()),
            medium: Some("image".into()),
            ..MediaContent::default()
        }],
        content: Some("<p><img src=\"inline.png\"></p>".into()),
        ..Entry::default()
    };
    let picked = thumbnail::for_entry(&entry, None, Some(&base), &rights()).unwrap();
    assert_eq!(
        (picked.url.as_str(), picked.source.as_str()),
        ("https://pub.example/t.jpg", "media:thumbnail")
    );
    assert_eq!(
        (picked.width, picked.credit.as_deref()),
        (Some(120), Some("Ana"))
    );
    assert!(picked.shown, "{}", picked.why);
    assert_eq!(picked.why, "CC BY 4.0 declared by the entry");
    assert_eq!(picked.licence.as_deref(), Some(by));

    let media_only = Entry {
        thumbnails: vec![],
        ..entry.clone()
    };
    assert_eq!(
        thumbnail::for_entry(&media_only, None, Some(&base), &rights())
            .unwrap()
            .source,
        "media:content"
    );
    let enclosure = Entry {
        media: vec![],
        enclosures: vec![
            Enclosure {
                url: "https://pub.example/a.mp3".into(),
                media_type: Some("audio/mpeg".into()),
                ..Enclosure::default()
            },
            Enclosure {
                url: "https://pub.example/e.png".into(),
                media_type: Some("image/png".into()),
                ..Enclosure::default()
            },
        ],
        ..media_only.clone()
    };
    assert_eq!(
        thumbnail::for_entry(&enclosure, None, Some(&base), &rights())
            .unwrap()
            .url,
        "https://pub.example/e.png"
    );
    let html_only = Entry {
        enclosures: vec![],
        ..enclosure.clone()
    };
    let picked = thumbnail::for_entry(&html_only, None, Some(&base), &rights()).unwrap();
    assert_eq!(
        (picked.url.as_str(), picked.source.as_str()),
        ("https://pub.example/2026/inline.png", "img")
    );
    let nothing = Entry {
        content: None,
        ..html_only.clone()
    };
    assert_eq!(
        thumbnail::for_entry(&nothing, None, Some(&base), &rights()),
        None
    );

    // FF8: inherited from the feed, overridden by the entry, hidden when unrecognised.
    let bare = Entry {
        license: None,
        ..html_only.clone()
    };
    assert!(
        thumbnail::for_entry(&bare, Some(by), Some(&base), &rights())
            .unwrap()
            .shown
    );
    let reserved = Entry {
        license: Some("All rights reserved".into()),
        ..html_only
    };
    let hidden = thumbnail::for_entry(&reserved, Some(by), Some(&base), &rights()).unwrap();
    assert!(!hidden.shown);
    assert_eq!(hidden.why, "licence declared by the entry not recognised");
    let none = thumbnail::for_entry(&bare, None, Some(&base), &rights()).unwrap();
    assert_eq!(
        (none.shown, none.why.as_str()),
        (false, "no licence declared")
    );
}

#[test]
fn ff14_a_change_is_recorded_only_when_the_directives_move() {
    let noindex = list("noindex");
    assert_eq!(
        directive::change(Directives::NONE, Directives::NONE, true),
        None
    );
    assert_eq!(directive::change(noindex, noindex, true), None);
    assert_eq!(
        directive::change(noindex, Directives::NONE, false),
        None,
        "a 304 never clears"
    );
    let added = directive::change(noindex, list("nosnippet"), false).unwrap();
    assert_eq!(
        (added.current, added.full),
        (list("noindex, nosnippet"), false)
    );
    let cleared = directive::change(noindex, Directives::NONE, true).unwrap();
    assert_eq!(cleared.current, Directives::NONE);
    assert_eq!(Directives::NONE.to_words(), "");
}

#[test]
fn ff7_one_thumbnail_per_feed_its_own_first_then_its_image() {
    use crate::thumbnail;
    use tidings_model::{Feed, Thumbnail};
    let by = "https://creativecommons.org/licenses/by/4.0/";
    let feed = Feed {
        image: Some("https://pub.example/logo.png".into()),
        license: Some(by.into()),
        ..Feed::default()
    };
    let picked = thumbnail::for_feed(&feed, false).unwrap();
    assert_eq!(
        (picked.url.as_str(), picked.source.as_str()),
        ("https://pub.example/logo.png", "image")
    );
    assert_eq!(
        (picked.shown, picked.why.as_str()),
        (true, "CC BY 4.0 declared by the feed")
    );
    let own = Feed {
        thumbnails: vec![Thumbnail {
            url: "https://pub.example/cover.jpg".into(),
            license: Some("All rights reserved".into()),
            ..Thumbnail::default()
        }],
        ..feed.clone()
    };
    let picked = thumbnail::for_feed(&own, false).unwrap();
    assert_eq!(picked.url, "https://pub.example/cover.jpg");
    assert!(
        !picked.shown,
        "the image's own declaration overrides the feed's"
    );
    assert_eq!(thumbnail::for_feed(&Feed::default(), false), None);
}

proptest::proptest! {
    /// The stored words read back as the same directives.
    #[test]
    fn directive_words_read_back(
        noindex: bool, nofollow: bool, nosnippet: bool, noarchive: bool,
        max in proptest::option::of(1u32..100_000),
    ) {
        let d = Directives { noindex, nofollow, nosnippet, noarchive, max_snippet: max };
        proptest::prop_assert_eq!(Directives::parse_list(&d.to_words()), d);
    }

    /// Arbitrary declarations and directive text never panic, and an excerpt never passes
    /// its bound.
    #[test]
    fn any_text_is_read_without_panic(text in ".{0,400}", most in 0usize..400) {
        let _ = Licence::recognise(&text);
        let d = Directives::parse_list(&text);
        let _ = directive::from_headers([text.as_str()], "FFBot");
        let (excerpt, _) = decide::excerpt(Some(&text), &[], &d, most);
        if let Some(e) = excerpt {
            proptest::prop_assert!(e.chars().count() <= most.max(1));
        }
    }
}
