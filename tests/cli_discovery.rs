//! Subscribing by a site's URL from the command line (FF1): a URL that answers an HTML page is
//! not kept as a feed; the page's one declared feed is taken, several are listed to choose
//! from (`--pick`, `--all`), and nothing is requested that was not needed.

mod support;

use support::{Publisher, Resource, fast_profile, rss, stderr, stdout, tidings};

fn html(head: &str) -> Resource {
    Resource {
        content_type: "text/html; charset=utf-8".into(),
        ..Resource::feed(
            format!(
                "<!doctype html><html><head><title>Home</title>{head}</head><body></body></html>"
            ),
            "\"page\"",
        )
    }
}

fn paths(publisher: &Publisher) -> Vec<String> {
    publisher.seen().into_iter().map(|s| s.path).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff1_add_by_a_site_url_takes_its_feed_or_lists_its_feeds_to_pick_from() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let profile = fast_profile(dir.path());
    let publisher = Publisher::start().await;
    publisher.set(
        "/",
        html(
            "<link rel=alternate type=application/rss+xml title=\"All posts\" href=/posts.xml>\
             <link rel=alternate type=application/atom+xml title=Comments href=/comments.atom>",
        ),
    );
    publisher.set("/posts.xml", Resource::feed(rss("posts", 1, 3), "\"p1\""));
    publisher.set(
        "/comments.atom",
        Resource::feed(rss("comments", 1, 2), "\"c1\""),
    );
    publisher.set(
        "/blog/",
        html("<link rel=alternate type=application/rss+xml href=/posts.xml>"),
    );
    publisher.set("/empty/", html(""));
    let common = ["--profile", profile.as_str(), "--allow-private-networks"];
    let site = publisher.url("/");

    // Two feeds named: listed, nothing kept, and only the page was read (after robots.txt).
    let out = tidings(&db, &[&common[..], &["add", &site]].concat()).await;
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("is an HTML page naming 2 feeds; nothing added"),
        "{err}"
    );
    assert!(err.contains("1. All posts <"), "{err}");
    assert!(err.contains("2. Comments <"), "{err}");
    assert_eq!(paths(&publisher), ["/robots.txt", "/"]);
    let feeds = tidings(&db, &[&common[..], &["feeds", "--json"]].concat()).await;
    assert_eq!(stdout(&feeds).trim(), "", "the page is not kept as a feed");

    // The reader picks the second: it alone is added and read.
    let out = tidings(&db, &[&common[..], &["add", &site, "--pick", "2"]].concat()).await;
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("comments.atom added, 2 entries"),
        "{}",
        stdout(&out)
    );
    assert_eq!(paths(&publisher)[2..], ["/", "/comments.atom"]);

    // A page naming one feed: that feed is taken.
    let out = tidings(
        &db,
        &[&common[..], &["add", &publisher.url("/blog/")]].concat(),
    )
    .await;
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let said = stdout(&out);
    assert!(said.contains("is an HTML page naming one feed"), "{said}");
    assert!(said.contains("posts.xml added, 3 entries"), "{said}");
    // A page naming none: said, nothing kept.
    let out = tidings(
        &db,
        &[&common[..], &["add", &publisher.url("/empty/")]].concat(),
    )
    .await;
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("is an HTML page that names no feed; nothing added"),
        "{}",
        stderr(&out)
    );
    let feeds = stdout(&tidings(&db, &[&common[..], &["feeds", "--json"]].concat()).await);
    let urls: Vec<&str> = feeds
        .lines()
        .map(|l| {
            l.split("\"url\":\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
        })
        .collect();
    assert_eq!(
        urls,
        [publisher.url("/comments.atom"), publisher.url("/posts.xml")]
    );

    // --pick out of range lists the feeds again; --all takes both (one already known).
    let out = tidings(&db, &[&common[..], &["add", &site, "--pick", "3"]].concat()).await;
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("--pick 3 is not in the list (1 to 2)"),
        "{}",
        stderr(&out)
    );
    let out = tidings(&db, &[&common[..], &["add", &site, "--all"]].concat()).await;
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("naming 2 feeds: adding all"),
        "{}",
        stdout(&out)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff18_queries_are_kept_listed_and_not_run_without_a_provider() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let out = tidings(
        &db,
        &["queries", "add", "websearch", "parish newsletter rss"],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "query 1: parish newsletter rss for websearch\n"
    );
    let out = tidings(&db, &["queries", "run"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "query 1: not run: no search provider named \"websearch\" is connected\n"
    );
    let listed = stdout(&tidings(&db, &["queries", "list"]).await);
    assert!(
        listed.contains("websearch  parish newsletter rss  (never run)"),
        "{listed}"
    );
    assert!(
        tidings(&db, &["queries", "remove", "1"])
            .await
            .status
            .success()
    );
    assert!(
        !tidings(&db, &["queries", "remove", "1"])
            .await
            .status
            .success()
    );
    assert_eq!(stdout(&tidings(&db, &["queries", "list"]).await), "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff4_spider_reports_what_it_found_and_spent_within_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let publisher = Publisher::start().await;
    publisher.set(
        "/",
        html("<link rel=alternate type=application/rss+xml title=News href=/news.xml>"),
    );
    publisher.set("/news.xml", Resource::feed(rss("news", 1, 2), "\"n1\""));
    let site = publisher.url("/");
    // The default profile does not discover: refused, nothing asked.
    let out = tidings(&db, &["--allow-private-networks", "spider", &site]).await;
    assert!(!out.status.success());
    assert!(stderr(&out).contains("\"discovery\""), "{}", stderr(&out));
    assert!(publisher.seen().is_empty());
    // Past the profile's ceilings: refused.
    let ffbot = ["--profile", "ffbot", "--allow-private-networks"];
    let out = tidings(
        &db,
        &[&ffbot[..], &["spider", &site, "--depth", "99"]].concat(),
    )
    .await;
    assert!(!out.status.success());
    assert!(stderr(&out).contains("ceiling"), "{}", stderr(&out));
    // Three requests: robots.txt, the page, its declared feed; then the budget is spent.
    let out = tidings(
        &db,
        &[&ffbot[..], &["spider", &site, "--max-requests", "3"]].concat(),
    )
    .await;
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let said = stdout(&out);
    assert!(said.contains("1 page read, 1 feed found"), "{said}");
    assert!(said.contains("  news <"), "{said}");
    assert!(said.contains("budget: 3 of 3 requests"), "{said}");
    assert!(
        said.contains("stopped: the requests budget is spent"),
        "{said}"
    );
    assert_eq!(paths(&publisher), ["/robots.txt", "/", "/news.xml"]);
    // The run is a job: ended, it cannot be resumed; an unknown one neither.
    assert!(said.contains("(job 1)"), "{said}");
    let out = tidings(&db, &[&ffbot[..], &["spider", "--resume", "1"]].concat()).await;
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("job 1 has ended (done, the requests budget spent)"),
        "{}",
        stderr(&out)
    );
    let out = tidings(&db, &[&ffbot[..], &["spider", "--resume", "7"]].concat()).await;
    assert!(!out.status.success());
    assert!(stderr(&out).contains("no job 7"), "{}", stderr(&out));
    assert_eq!(paths(&publisher).len(), 3, "nothing more asked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sr2_catalogue_add_verifies_a_feed_with_one_read() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let publisher = Publisher::start().await;
    publisher.set("/news.xml", Resource::feed(rss("news", 1, 2), "\"n1\""));
    publisher.set("/about", html(""));
    let common = ["--allow-private-networks"];
    let feed = publisher.url("/news.xml");
    let out = tidings(&db, &[&common[..], &["catalogue", "add", &feed]].concat()).await;
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("is in the catalogue as feed 1: news"),
        "{}",
        stdout(&out)
    );
    let out = tidings(
        &db,
        &[&common[..], &["catalogue", "add", &publisher.url("/about")]].concat(),
    )
    .await;
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("was not added to the catalogue"),
        "{}",
        stderr(&out)
    );
    let out = tidings(&db, &["catalogue", "list"]).await;
    let listed = stdout(&out);
    assert_eq!(listed.lines().count(), 1, "{listed}");
    assert!(listed.contains("/news.xml news (added "), "{listed}");
    assert_eq!(paths(&publisher), ["/robots.txt", "/news.xml", "/about"]);
    let out = tidings(&db, &["catalogue", "remove", "1"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let out = tidings(&db, &["catalogue", "remove", "1"]).await;
    assert!(!out.status.success());
    assert!(stdout(&tidings(&db, &["catalogue", "list"]).await).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff1_discover_lists_what_each_url_was_and_the_feeds_without_subscribing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let publisher = Publisher::start().await;
    publisher.set(
        "/",
        html("<link rel=alternate type=application/rss+xml href=/posts.xml>"),
    );
    publisher.set("/posts.xml", Resource::feed(rss("posts", 1, 3), "\"p1\""));
    let common = ["--allow-private-networks"];
    let out = tidings(
        &db,
        &[&common[..], &["discover", &publisher.url("/")]].concat(),
    )
    .await;
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let said = stdout(&out);
    assert!(said.contains("not_a_feed"), "{said}");
    assert!(
        said.contains("1 feed found, 2 URLs checked, 3 requests sent"),
        "{said}"
    );
    assert!(said.contains("posts <"), "{said}");
    assert_eq!(paths(&publisher), ["/robots.txt", "/", "/posts.xml"]);
    let feeds = tidings(&db, &[&common[..], &["feeds", "--json"]].concat()).await;
    assert_eq!(stdout(&feeds).trim(), "", "nothing subscribed");
    // A page naming no feed: exit 1, said.
    publisher.set("/empty/", html(""));
    let out = tidings(
        &db,
        &[&common[..], &["discover", &publisher.url("/empty/")]].concat(),
    )
    .await;
    assert!(!out.status.success());
    assert!(stdout(&out).contains("0 feeds found"), "{}", stdout(&out));
}
