//! `tidings robots FILE URL --agent TOKEN`: the verdict's first word, the deciding group and
//! line, and the exit code.

mod support;

use support::{stdout, tidings};

const ROBOTS: &str = "User-agent: *\nDisallow: /private\n\nUser-agent: SereneReader\nDisallow: /feeds/secret\nAllow: /feeds/secret/open\n";

#[tokio::test]
async fn robots_prints_the_verdict_and_the_line_that_decided() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("robots.txt");
    std::fs::write(&file, ROBOTS).unwrap();
    let db = dir.path().join("unused.db");
    let file = file.to_str().unwrap();
    let cases: [(&[&str], &str, bool); 5] = [
        (
            &[
                "https://site.test/feeds/secret/x.xml",
                "--agent",
                "SereneReader",
            ],
            "disallowed by group SereneReader line 5: Disallow: /feeds/secret",
            false,
        ),
        (
            &[
                "https://site.test/feeds/secret/open/x.xml",
                "--agent",
                "SereneReader",
            ],
            "allowed by group SereneReader line 6: Allow: /feeds/secret/open",
            true,
        ),
        (
            &["/private/feed.xml", "--agent", "DailyFootballBot"],
            "disallowed by group * line 2",
            false,
        ),
        (
            &["/private/feed.xml", "--agent", "SereneReader"],
            "allowed by group SereneReader",
            true,
        ),
        (
            &["/private/feed.xml", "--agent", "Other", "--ignore-star"],
            "allowed",
            true,
        ),
    ];
    for (args, want, allowed) in cases {
        let out = tidings(&db, &[&["robots", file][..], args].concat()).await;
        let printed = stdout(&out);
        assert!(printed.starts_with(want), "{args:?}: {printed}");
        assert_eq!(out.status.success(), allowed, "{args:?}");
    }
    let out = tidings(&db, &["robots", file, "/x", "--agent", "Not A Token"]).await;
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a product token"));
    assert!(!db.exists(), "robots needs no database");
}
