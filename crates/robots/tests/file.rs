//! The file as a whole: encoding, line endings, the size limit (RFC 9309 section 2.5),
//! comments, unknown lines, crawl-delay and sitemaps.

mod common;

use std::time::Duration;

use common::{check, row};
use tidings_robots::{BYTE_LIMIT, ProductToken, Robots};

#[test]
#[rustfmt::skip]
fn bom_and_line_endings() {
    check(&[
        row("BOM skipped", b"\xef\xbb\xbfUser-agent: Bot\nDisallow: /a\n", "Bot", "/a", "disallowed by group Bot line 2: Disallow: /a"),
        row("CRLF", b"User-agent: Bot\r\nDisallow: /a\r\nDisallow: /b\r\n", "Bot", "/b", "disallowed by group Bot line 3: Disallow: /b"),
        row("CR alone", b"User-agent: Bot\rDisallow: /a\rDisallow: /b\r", "Bot", "/b", "disallowed by group Bot line 3: Disallow: /b"),
        row("mixed endings", b"User-agent: Bot\r\nDisallow: /a\rDisallow: /b\nDisallow: /c", "Bot", "/c", "disallowed by group Bot line 4: Disallow: /c"),
        row("BOM with CRLF", b"\xef\xbb\xbfUser-agent: *\r\nDisallow: /\r\n", "Bot", "/x", "disallowed by group * line 2: Disallow: /"),
    ]);
}

#[test]
#[rustfmt::skip]
fn comments_and_unknown_lines_ignored() {
    let file: &[u8] = b"# robots for example.com
User-agent: Bot # our friend
Noindex: /x
Host: example.com
this line means nothing
Disallow: /a # not /a/b only
Disallow: # nothing
";
    check(&[
        row("comment stripped from the rule", file, "Bot", "/a/c", "disallowed by group Bot line 6: Disallow: /a"),
        row("unknown keys are not rules", file, "Bot", "/x", "allowed by group Bot: no rule matched"),
    ]);
}

#[test]
#[rustfmt::skip]
fn non_utf8_tolerated() {
    check(&[
        row("Latin-1 byte in a rule matches its encoding", b"User-agent: *\nDisallow: /caf\xe9\n", "Bot", "/caf%E9", "disallowed by group * line 2: Disallow: /caf\u{FFFD}"),
        row("garbage lines around rules", b"\xff\xfe\x00\nUser-agent: *\n\x80\x81: \x82\nDisallow: /a\n", "Bot", "/a", "disallowed by group * line 4: Disallow: /a"),
        row("NUL inside a rule", b"User-agent: *\nDisallow: /a\x00b\n", "Bot", "/a%00b", "disallowed by group * line 2: Disallow: /a\0b"),
    ]);
}

/// A group for `Bot`, comment lines up to `last_line_starts_at`, then `last_line`.
fn file_crossing_the_limit(last_line: &str, last_line_starts_at: usize) -> Vec<u8> {
    let mut file = b"User-agent: Bot\nDisallow: /first\n".to_vec();
    while file.len() < last_line_starts_at {
        let room = last_line_starts_at - file.len();
        let pad = room.min(100);
        file.extend(std::iter::repeat_n(b'#', pad - 1));
        file.push(b'\n');
    }
    file.extend_from_slice(last_line.as_bytes());
    file
}

#[test]
fn limit_500_kib() {
    let token = ProductToken::new("Bot").unwrap();
    // A rule whose line ending is the last byte within the limit counts, and so does one
    // whose line ending is the first byte past it: its text is complete.
    let line = "Disallow: /inside\n";
    for starts_at in [BYTE_LIMIT - line.len(), BYTE_LIMIT - line.len() + 1] {
        let file = file_crossing_the_limit(line, starts_at);
        let robots = Robots::parse(&file);
        assert!(
            !robots.check(&token, "/inside").is_allowed(),
            "a rule ending at the limit"
        );
    }

    // A rule whose last character falls past the limit is dropped as a whole, so the cut
    // `Disallow: /insid` never applies.
    let file = file_crossing_the_limit(line, BYTE_LIMIT - line.len() + 2);
    let robots = Robots::parse(&file);
    assert!(
        robots.check(&token, "/inside").is_allowed(),
        "a rule crossing the limit"
    );
    assert!(
        robots.check(&token, "/in").is_allowed(),
        "the cut rule never applies"
    );
    assert!(
        !robots.check(&token, "/first").is_allowed(),
        "rules before the limit"
    );

    // Anything after the limit is ignored.
    let mut file = file_crossing_the_limit("Disallow: /last-inside\n", BYTE_LIMIT - 100);
    file.extend_from_slice(&[b'#'; 200]);
    file.extend_from_slice(b"\nDisallow: /after\n");
    assert!(file.len() > BYTE_LIMIT + 17);
    let robots = Robots::parse(&file);
    assert!(!robots.check(&token, "/last-inside").is_allowed());
    assert!(
        robots.check(&token, "/after").is_allowed(),
        "a rule after the limit"
    );

    // A 2 MB file parses (and its group is found).
    let mut file = file_crossing_the_limit("", 2_000_000);
    file.extend_from_slice(b"Disallow: /never\n");
    let robots = Robots::parse(&file);
    let verdict = robots.check(&token, "/first/x");
    assert_eq!(
        verdict.to_string(),
        "disallowed by group Bot line 2: Disallow: /first"
    );
}

fn delay(file: &[u8], agent: &str) -> Option<Duration> {
    Robots::parse(file).crawl_delay(&ProductToken::new(agent).unwrap())
}

#[test]
#[rustfmt::skip]
fn crawl_delay_fractional() {
    let rows: &[(&str, &[u8], Option<Duration>)] = &[
        ("whole seconds", b"User-agent: Bot\nCrawl-delay: 10\n", Some(Duration::from_secs(10))),
        ("half a second", b"User-agent: Bot\nCrawl-delay: 0.5\n", Some(Duration::from_millis(500))),
        ("leading dot", b"User-agent: Bot\nCrawl-delay: .25\n", Some(Duration::from_millis(250))),
        ("comment after the value", b"User-agent: Bot\nCrawl-delay: 1.5 # please\n", Some(Duration::from_millis(1500))),
        ("zero", b"User-agent: Bot\nCrawl-delay: 0\n", Some(Duration::ZERO)),
    ];
    check_delays("Bot", rows);
}

#[test]
#[rustfmt::skip]
fn crawl_delay_garbage_and_negative_ignored() {
    let rows: &[(&str, &[u8], Option<Duration>)] = &[
        ("negative", b"User-agent: Bot\nCrawl-delay: -5\n", None),
        ("unit", b"User-agent: Bot\nCrawl-delay: 5s\n", None),
        ("words", b"User-agent: Bot\nCrawl-delay: soon\n", None),
        ("exponent", b"User-agent: Bot\nCrawl-delay: 1e9\n", None),
        ("empty", b"User-agent: Bot\nCrawl-delay:\n", None),
        ("garbage beside a good value", b"User-agent: Bot\nCrawl-delay: x\nCrawl-delay: 3\n", Some(Duration::from_secs(3))),
    ];
    check_delays("Bot", rows);
}

#[test]
#[rustfmt::skip]
fn crawl_delay_own_group_else_star() {
    let rows: &[(&str, &[u8], Option<Duration>)] = &[
        ("own", b"User-agent: *\nCrawl-delay: 9\nUser-agent: Bot\nCrawl-delay: 2\n", Some(Duration::from_secs(2))),
        ("star when no own group", b"User-agent: *\nCrawl-delay: 9\nUser-agent: Other\nCrawl-delay: 2\n", Some(Duration::from_secs(9))),
        ("own group without a delay has none", b"User-agent: *\nCrawl-delay: 9\nUser-agent: Bot\nDisallow: /a\n", None),
        ("version in the user-agent line", b"User-agent: Bot/2.1\nCrawl-delay: 4\n", Some(Duration::from_secs(4))),
        ("merged groups: the longest", b"User-agent: Bot\nCrawl-delay: 2\nUser-agent: x\nDisallow:\nUser-agent: bot\nCrawl-delay: 7\n", Some(Duration::from_secs(7))),
        ("no group", b"User-agent: Other\nCrawl-delay: 2\n", None),
        ("before any group", b"Crawl-delay: 2\nUser-agent: Bot\nDisallow: /a\n", None),
    ];
    check_delays("Bot", rows);
}

fn check_delays(agent: &str, rows: &[(&str, &[u8], Option<Duration>)]) {
    let failures: Vec<String> = rows
        .iter()
        .filter_map(|(name, file, want)| {
            let got = delay(file, agent);
            (got != *want).then(|| format!("{name}: want {want:?}, got {got:?}"))
        })
        .collect();
    assert!(failures.is_empty(), "\n{}\n", failures.join("\n"));
}

#[test]
fn sitemaps() {
    let file: &[u8] = b"Sitemap: https://example.com/a.xml
User-agent: Bot
Disallow: /x
sitemap: https://example.com/b.xml # in a group, still global
Sitemap: /relative.xml
Sitemap: ftp://example.com/c.xml
Sitemap: https://example.com/a.xml
Sitemap:
";
    assert_eq!(
        Robots::parse(file).sitemaps(),
        ["https://example.com/a.xml", "https://example.com/b.xml"]
    );
    assert!(Robots::parse(b"").sitemaps().is_empty());
}
