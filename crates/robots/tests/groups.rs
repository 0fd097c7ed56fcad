//! RFC 9309 sections 2.1 and 2.2.1, and the profile rules built on them: which group applies.

mod common;

use common::{check, feed_row, row};

const OWN_AND_STAR: &[u8] = b"# a publisher's file
User-agent: *
Disallow: /feeds/
Disallow: /private

User-agent: SereneReader
Disallow: /private
Allow: /private/feed.xml
";

#[test]
#[rustfmt::skip]
fn rfc9309_2_2_1_own_group_replaces_star() {
    check(&[
        row("own group decides", OWN_AND_STAR, "SereneReader", "/private/x", "disallowed by group SereneReader line 7: Disallow: /private"),
        row("star rules do not add to the own group", OWN_AND_STAR, "SereneReader", "/feeds/a.xml", "allowed by group SereneReader: no rule matched"),
        row("others fall back to star", OWN_AND_STAR, "OtherBot", "/feeds/a.xml", "disallowed by group * line 3: Disallow: /feeds/"),
        row("no group at all", b"User-agent: Someone\nDisallow: /\n", "Bot", "/x", "allowed: no group applies"),
        row("empty file", b"", "Bot", "/x", "allowed: no group applies"),
    ]);
}

#[test]
#[rustfmt::skip]
fn user_agent_with_version_matches_token() {
    check(&[
        row("Token/1.0", b"User-agent: SereneReader/1.0\nDisallow: /a\n", "SereneReader", "/a", "disallowed by group SereneReader line 2: Disallow: /a"),
        row("token and comment", b"User-agent: SereneReader (+https://example.org/bot)\nDisallow: /a\n", "SereneReader", "/a", "disallowed by group SereneReader line 2: Disallow: /a"),
        row("a longer token is another crawler", b"User-agent: SereneReader-News\nDisallow: /a\n", "SereneReader", "/a", "allowed: no group applies"),
        row("a prefix is another crawler", b"User-agent: Serene\nDisallow: /a\n", "SereneReader", "/a", "allowed: no group applies"),
    ]);
}

#[test]
#[rustfmt::skip]
fn rfc9309_2_2_1_user_agent_match_is_case_insensitive() {
    check(&[
        row("lower-case file", b"User-agent: serenereader\nDisallow: /a\n", "SereneReader", "/a", "disallowed by group serenereader line 2: Disallow: /a"),
        row("upper-case token", b"User-agent: SereneReader\nDisallow: /a\n", "SERENEREADER", "/a", "disallowed by group SereneReader line 2: Disallow: /a"),
    ]);
}

#[test]
#[rustfmt::skip]
fn merged_groups() {
    let file: &[u8] = b"User-agent: Bot
Disallow: /a

User-agent: *
Disallow: /

User-agent: bot/2
Disallow: /b
Allow: /a/open
";
    check(&[
        row("first group", file, "Bot", "/a/x", "disallowed by group Bot line 2: Disallow: /a"),
        row("second group", file, "Bot", "/b", "disallowed by group Bot line 8: Disallow: /b"),
        row("longest match across groups", file, "Bot", "/a/open", "allowed by group Bot line 9: Allow: /a/open"),
        row("star stays out", file, "Bot", "/c", "allowed by group Bot: no rule matched"),
        row("star groups merge too", b"User-agent: *\nDisallow: /a\nUser-agent: x\nDisallow: /\nUser-agent: *\nDisallow: /b\n", "Bot", "/b", "disallowed by group * line 6: Disallow: /b"),
    ]);
}

#[test]
#[rustfmt::skip]
fn rfc9309_2_1_group_boundaries() {
    check(&[
        row("consecutive user-agent lines share a group", b"User-agent: Bot\n\nUser-agent: *\nDisallow: /a\n", "Bot", "/a", "disallowed by group Bot line 4: Disallow: /a"),
        row("a user-agent line after a rule starts a group", b"User-agent: Bot\nDisallow: /a\nUser-agent: Other\nDisallow: /b\n", "Bot", "/b", "allowed by group Bot: no rule matched"),
        row("crawl-delay also ends the user-agent lines", b"User-agent: Bot\nCrawl-delay: 1\nUser-agent: Other\nDisallow: /b\n", "Bot", "/b", "allowed by group Bot: no rule matched"),
        row("unknown lines do not end a group", b"User-agent: Bot\nDisallow: /a\nHost: example.com\nDisallow: /b\n", "Bot", "/b", "disallowed by group Bot line 4: Disallow: /b"),
        row("sitemap lines do not end a group", b"User-agent: Bot\nSitemap: https://example.com/s.xml\nDisallow: /b\n", "Bot", "/b", "disallowed by group Bot line 3: Disallow: /b"),
        row("rules before any group apply to no one", b"Disallow: /\nUser-agent: *\nDisallow: /b\n", "Bot", "/a", "allowed by group *: no rule matched"),
        row("a group without rules still applies", b"User-agent: Bot\n\nUser-agent: Other\nCrawl-delay: 2\nUser-agent: *\nDisallow: /\n", "Bot", "/a", "allowed by group Bot: no rule matched"),
    ]);
}

#[test]
#[rustfmt::skip]
fn sr8_star_group_does_not_apply_to_feeds() {
    check(&[
        feed_row("star disallow ignored for a feed", b"User-agent: *\nDisallow: /\n", "SereneReader", "/feed.xml", "allowed: no own group, the * group is ignored"),
        feed_row("no group at all", b"User-agent: Other\nDisallow: /\n", "SereneReader", "/feed.xml", "allowed: no group applies"),
        row("but star applies to pages (SR7)", b"User-agent: *\nDisallow: /\n", "SereneReader", "/article", "disallowed by group * line 2: Disallow: /"),
    ]);
}

#[test]
#[rustfmt::skip]
fn sr8_own_group_disallow_applies_to_feeds() {
    check(&[
        feed_row("own disallow obeyed", OWN_AND_STAR, "SereneReader", "/private/rss", "disallowed by group SereneReader line 7: Disallow: /private"),
        feed_row("own allow obeyed", OWN_AND_STAR, "SereneReader", "/private/feed.xml", "allowed by group SereneReader line 8: Allow: /private/feed.xml"),
        feed_row("star rules stay out", OWN_AND_STAR, "SereneReader", "/feeds/a.xml", "allowed by group SereneReader: no rule matched"),
        feed_row("a group naming us and star is ours", b"User-agent: *\nUser-agent: SereneReader\nDisallow: /feed\n", "SereneReader", "/feed", "disallowed by group SereneReader line 3: Disallow: /feed"),
    ]);
}

#[test]
#[rustfmt::skip]
fn wfm9_own_group_disallow_stops_the_fetch() {
    let file: &[u8] =
        b"User-agent: WorldFeedMonitor\nDisallow: /news/rss\n\nUser-agent: *\nAllow: /\n";
    check(&[
        row("feed path disallowed", file, "WorldFeedMonitor", "/news/rss?format=full", "disallowed by group WorldFeedMonitor line 2: Disallow: /news/rss"),
        feed_row("also when star is ignored", file, "WorldFeedMonitor", "/news/rss", "disallowed by group WorldFeedMonitor line 2: Disallow: /news/rss"),
        row("other paths allowed", file, "WorldFeedMonitor", "/blog/rss", "allowed by group WorldFeedMonitor: no rule matched"),
    ]);
}

#[test]
#[rustfmt::skip]
fn dfb7_own_group_otherwise_star() {
    let file: &[u8] = b"User-agent: *\nDisallow: /match/live\n\nUser-agent: DailyFootballBot\nDisallow: /scores\n";
    check(&[
        row("own group", file, "DailyFootballBot", "/scores/today", "disallowed by group DailyFootballBot line 5: Disallow: /scores"),
        row("own group replaces star", file, "DailyFootballBot", "/match/live", "allowed by group DailyFootballBot: no rule matched"),
        row("star for everyone else", file, "SereneReader", "/match/live/1", "disallowed by group * line 2: Disallow: /match/live"),
    ]);
}
