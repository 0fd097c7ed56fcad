//! Properties over arbitrary input: parsing and checking never panic, and `/robots.txt` is
//! always allowed whatever the file says.

use proptest::prelude::*;
use tidings_robots::{Basis, ProductToken, Robots, StarGroup};

/// Bytes that look like robots.txt often enough to reach deep code paths.
fn robots_like() -> impl Strategy<Value = Vec<u8>> {
    let line = prop_oneof![
        Just(b"User-agent: *".to_vec()),
        Just(b"User-agent: Bot/1.0".to_vec()),
        Just(b"user agent: bot".to_vec()),
        "(Allow|Disallow|Crawl-delay|Sitemap): [ -~]{0,12}".prop_map(String::into_bytes),
        "(Allow|Disallow): /[a-z*$%/.?=]{0,10}".prop_map(String::into_bytes),
        proptest::collection::vec(any::<u8>(), 0..20),
    ];
    let ending = prop_oneof![Just(&b"\n"[..]), Just(&b"\r\n"[..]), Just(&b"\r"[..])];
    proptest::collection::vec((line, ending), 0..30).prop_map(|lines| {
        let mut file = b"\xef\xbb\xbf".to_vec();
        for (line, ending) in lines {
            file.extend(line);
            file.extend_from_slice(ending);
        }
        file
    })
}

fn token() -> impl Strategy<Value = ProductToken> {
    "[A-Za-z_-]{1,12}|Bot".prop_map(|t| ProductToken::new(&t).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(file in proptest::collection::vec(any::<u8>(), 0..2048),
                                   path in any::<String>(), token in token()) {
        let robots = Robots::parse(&file);
        let _ = robots.check(&token, &path);
        let _ = robots.check_with(&token, &path, StarGroup::Ignore);
        let _ = robots.crawl_delay(&token);
        let _ = robots.sitemaps();
    }

    #[test]
    fn robots_like_files_never_panic(file in robots_like(), path in "/[ -~]{0,20}",
                                     token in token()) {
        let robots = Robots::parse(&file);
        let verdict = robots.check(&token, &path);
        // A verdict names a rule line only within the file.
        if let Some(rule) = verdict.rule() {
            prop_assert!(rule.line >= 1 && rule.line <= file.len());
        }
        let _ = robots.crawl_delay(&token);
    }

    #[test]
    fn robots_txt_always_allowed(file in prop_oneof![
                                     robots_like(),
                                     proptest::collection::vec(any::<u8>(), 0..512)],
                                 token in token()) {
        let robots = Robots::parse(&file);
        for star in [StarGroup::Apply, StarGroup::Ignore] {
            let verdict = robots.check_with(&token, "/robots.txt", star);
            prop_assert!(verdict.is_allowed());
            prop_assert_eq!(verdict.basis, Basis::RobotsTxt);
        }
    }

    #[test]
    fn ignoring_star_never_disallows_more(file in robots_like(), path in "/[a-z*$%/.?=]{0,10}",
                                          token in token()) {
        let robots = Robots::parse(&file);
        let with_star = robots.check(&token, &path);
        let without = robots.check_with(&token, &path, StarGroup::Ignore);
        prop_assert!(without.is_allowed() || !with_star.is_allowed());
    }
}
