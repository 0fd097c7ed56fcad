//! RFC 9309 section 2.2.2: which rule of the applicable group decides.

mod common;

use common::{check, row};

const MATCHING: &[u8] = b"User-agent: *
Disallow: /fish
Allow: /fish/salmon
Disallow: /fish/salmon/smoked
";

#[test]
#[rustfmt::skip]
fn rfc9309_2_2_2_longest_match_wins() {
    check(&[
        row("shorter disallow", MATCHING, "Bot", "/fishing", "disallowed by group * line 2: Disallow: /fish"),
        row("longer allow beats shorter disallow", MATCHING, "Bot", "/fish/salmon.html", "allowed by group * line 3: Allow: /fish/salmon"),
        row("longest disallow", MATCHING, "Bot", "/fish/salmon/smoked/1", "disallowed by group * line 4: Disallow: /fish/salmon/smoked"),
        row("order in the file does not matter", b"User-agent: *\nAllow: /a/b\nDisallow: /a\n", "Bot", "/a/b", "allowed by group * line 2: Allow: /a/b"),
        row("no rule matched", MATCHING, "Bot", "/cat", "allowed by group *: no rule matched"),
        row("a wildcard counts as one octet of length", b"User-agent: *\nDisallow: /*/private\nAllow: /a/priv\n", "Bot", "/a/private", "disallowed by group * line 2: Disallow: /*/private"),
    ]);
}

#[test]
#[rustfmt::skip]
fn allow_wins_ties() {
    check(&[
        row("same pattern", b"User-agent: *\nDisallow: /page\nAllow: /page\n", "Bot", "/page", "allowed by group * line 3: Allow: /page"),
        row("same length, different patterns", b"User-agent: *\nDisallow: /*.htm\nAllow: /page*\n", "Bot", "/page.htm", "allowed by group * line 3: Allow: /page*"),
        row("equal disallows report the first line", b"User-agent: *\nDisallow: /x\nDisallow: /x\n", "Bot", "/x", "disallowed by group * line 2: Disallow: /x"),
    ]);
}

#[test]
#[rustfmt::skip]
fn star_wildcard() {
    let file: &[u8] = b"User-agent: *\nDisallow: /*.php\nDisallow: /shop*/cart\n";
    check(&[
        row("anywhere in the path", file, "Bot", "/a/b/index.php?x=1", "disallowed by group * line 2: Disallow: /*.php"),
        row("in the middle", file, "Bot", "/shop-eu/cart", "disallowed by group * line 3: Disallow: /shop*/cart"),
        row("matches the empty string", file, "Bot", "/shop/cart", "disallowed by group * line 3: Disallow: /shop*/cart"),
        row("not where the rest does not match", file, "Bot", "/shop/basket", "allowed by group *: no rule matched"),
        row("a bare star is everything", b"User-agent: *\nDisallow: *\n", "Bot", "/anything", "disallowed by group * line 2: Disallow: *"),
    ]);
}

#[test]
#[rustfmt::skip]
fn dollar_anchors() {
    let file: &[u8] =
        b"User-agent: *\nDisallow: /*.pdf$\nDisallow: /exact$\nAllow: /$\nDisallow: /\n";
    check(&[
        row("at the end", file, "Bot", "/docs/a.pdf", "disallowed by group * line 2: Disallow: /*.pdf$"),
        row("a query defeats the anchor", file, "Bot", "/docs/a.pdf?v=2", "disallowed by group * line 5: Disallow: /"),
        row("exact path", file, "Bot", "/exact", "disallowed by group * line 3: Disallow: /exact$"),
        row("longer path is not exact", file, "Bot", "/exactly", "disallowed by group * line 5: Disallow: /"),
        row("home page alone is allowed", file, "Bot", "/", "allowed by group * line 4: Allow: /$"),
        row("a dollar inside a pattern is literal", b"User-agent: *\nDisallow: /a$b\n", "Bot", "/a$b/c", "disallowed by group * line 2: Disallow: /a$b"),
    ]);
}

#[test]
#[rustfmt::skip]
fn percent_encoding_normalised() {
    check(&[
        row("encoded unreserved in the path is decoded", b"User-agent: *\nDisallow: /~joe\n", "Bot", "/%7Ejoe/x", "disallowed by group * line 2: Disallow: /~joe"),
        row("encoded unreserved in the rule is decoded", b"User-agent: *\nDisallow: /%7ejoe\n", "Bot", "/~joe", "disallowed by group * line 2: Disallow: /%7ejoe"),
        row("hex digit case does not matter", b"User-agent: *\nDisallow: /a%2fb\n", "Bot", "/a%2Fb", "disallowed by group * line 2: Disallow: /a%2fb"),
        row("an encoded reserved character is not its literal", b"User-agent: *\nDisallow: /a%2Fb\n", "Bot", "/a/b", "allowed by group *: no rule matched"),
        row("UTF-8 in the rule matches its encoding", "User-agent: *\nDisallow: /café\n".as_bytes(), "Bot", "/caf%C3%A9/menu", "disallowed by group * line 2: Disallow: /café"),
        row("encoding in the rule matches UTF-8 in the path", b"User-agent: *\nDisallow: /caf%c3%a9\n", "Bot", "/café", "disallowed by group * line 2: Disallow: /caf%c3%a9"),
        row("stray percent is a literal percent", b"User-agent: *\nDisallow: /100%\n", "Bot", "/100%25-off", "disallowed by group * line 2: Disallow: /100%"),
        row("matching is case-sensitive", b"User-agent: *\nDisallow: /Private\n", "Bot", "/private", "allowed by group *: no rule matched"),
    ]);
}

#[test]
#[rustfmt::skip]
fn rfc9309_2_2_2_percent_encoding_examples() {
    check(&[
        row("UTF-8 path, encoded rule", b"User-agent: *\nDisallow: /foo/bar/%E3%83%84\n", "Bot", "/foo/bar/\u{30C4}", "disallowed by group * line 2: Disallow: /foo/bar/%E3%83%84"),
        row("UTF-8 rule, encoded path", "User-agent: *\nDisallow: /foo/bar/\u{30C4}\n".as_bytes(), "Bot", "/foo/bar/%E3%83%84", "disallowed by group * line 2: Disallow: /foo/bar/\u{30C4}"),
        row("encoded letters are letters", b"User-agent: *\nDisallow: /foo/bar/baz\n", "Bot", "/foo/bar/%62%61%7A", "disallowed by group * line 2: Disallow: /foo/bar/baz"),
    ]);
}

#[test]
#[rustfmt::skip]
fn rfc9309_2_2_3_special_characters_encoded_in_rules() {
    check(&[
        row("%2A is a literal star", b"User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "Bot", "/path/file-with-a-*.html", "disallowed by group * line 2: Disallow: /path/file-with-a-%2A.html"),
        row("%2A is not a wildcard", b"User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "Bot", "/path/file-with-a-b.html", "allowed by group *: no rule matched"),
        row("%24 is a literal dollar", b"User-agent: *\nDisallow: /path/foo-%24\n", "Bot", "/path/foo-$", "disallowed by group * line 2: Disallow: /path/foo-%24"),
        row("%24 is not an anchor", b"User-agent: *\nDisallow: /path/foo-%24\n", "Bot", "/path/foo-", "allowed by group *: no rule matched"),
        row("a hash starts a comment", b"User-agent: *\nDisallow: /a#b\n", "Bot", "/a", "disallowed by group * line 2: Disallow: /a"),
    ]);
}

#[test]
#[rustfmt::skip]
fn query_and_fragment() {
    let file: &[u8] = b"User-agent: *\nDisallow: /*?sessionid=\n";
    check(&[
        row("the query is matched", file, "Bot", "/a?sessionid=1", "disallowed by group * line 2: Disallow: /*?sessionid="),
        row("the fragment is not", file, "Bot", "/a#?sessionid=1", "allowed by group *: no rule matched"),
        row("a relative path is rooted", file, "Bot", "?sessionid=1", "disallowed by group * line 2: Disallow: /*?sessionid="),
    ]);
}

#[test]
#[rustfmt::skip]
fn empty_disallow_allows_everything() {
    check(&[row(
        "empty disallow",
        b"User-agent: *\nDisallow:\n",
        "Bot",
        "/x",
        "allowed by group *: no rule matched",
    )]);
}

#[test]
#[rustfmt::skip]
fn rfc9309_2_2_2_robots_txt_always_allowed() {
    let file: &[u8] = b"User-agent: *\nDisallow: /\n";
    check(&[
        row("disallow all", file, "Bot", "/robots.txt", "allowed: /robots.txt is always allowed"),
        row("an encoded spelling", file, "Bot", "/%72obots.txt", "allowed: /robots.txt is always allowed"),
        row("with a query it is another URL", file, "Bot", "/robots.txt?x", "disallowed by group * line 2: Disallow: /"),
        row("explicit disallow", b"User-agent: Bot\nDisallow: /robots.txt\n", "Bot", "/robots.txt", "allowed: /robots.txt is always allowed"),
    ]);
}
