//! Discovery on the simulated web (FF1–FF3): a site's home page read for the feeds it names,
//! its body's feed links and the common paths; each candidate read once and kept when it
//! parses; the same feed reached twice reported once; a feed already stored resolved to it;
//! an uncertain match held for review; what was checked remembered through the cooldown. The
//! auditor checks robots.txt, pacing and purposes on every request from the publisher's side.

mod sim_support;

use bytes::Bytes;
use sim_support::{Sim, assert_clean, start};
use tidings_crawler::discover::{Checked, Discovery, Reach};
use tidings_model::{Disposition, FeedUrl};
use tidings_sim::{Behaviour, HostSpec, Resource};

fn body(content_type: &str, bytes: impl Into<Bytes>) -> Resource {
    Resource::new(Behaviour::Body {
        content_type: content_type.into(),
        body: bytes.into(),
    })
}

fn page(head: &str, body_html: &str) -> Resource {
    body(
        "text/html; charset=utf-8",
        format!(
            "<!doctype html><html><head><title>Home</title>{head}</head>\
             <body>{body_html}</body></html>"
        ),
    )
}

/// An RSS feed titled `title` with items `ids`.
fn rss(title: &str, ids: &[String]) -> Resource {
    let mut xml = format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>{title}</title>\
         <link>https://example.org/</link>"
    );
    for id in ids {
        xml.push_str(&format!(
            "<item><guid isPermaLink=\"false\">{id}</guid><title>{id}</title></item>"
        ));
    }
    xml.push_str("</channel></rss>");
    body("application/rss+xml", xml)
}

fn atom(title: &str) -> Resource {
    body(
        "application/atom+xml",
        format!(
            "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\">\
             <title>{title}</title><id>urn:x</id><updated>2026-12-01T00:00:00Z</updated>\
             <entry><id>urn:a1</id><title>a</title><updated>2026-12-01T00:00:00Z</updated>\
             </entry></feed>"
        ),
    )
}

fn ids(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}-{i}")).collect()
}

fn ffbot(p: &mut tidings_policy::Profile) {
    *p = tidings_policy::Profile::embedded("ffbot").unwrap();
    p.hints.adaptive = false;
    p.hints.jitter = 0.0;
}

const ALLOW_ALL: &str = "User-agent: *\nAllow: /\n";

async fn discover(sim: &Sim, host: &str, path: &str, reach: Reach) -> Discovery {
    let url = FeedUrl::parse(&sim.web.url(host, path).unwrap()).unwrap();
    sim.crawler
        .discover(&url, reach, &|_: &Checked| {})
        .await
        .unwrap()
}

/// The path of each feed found, with the path it was found at.
fn found(d: &Discovery) -> Vec<(String, String)> {
    d.feeds
        .iter()
        .map(|f| {
            let path = |u: &str| url::Url::parse(u).unwrap().path().to_owned();
            (path(f.url.as_str()), path(&f.checked))
        })
        .collect()
}

fn disposition_of(d: &Discovery, path: &str) -> Option<Disposition> {
    d.checked
        .iter()
        .find(|c| url::Url::parse(&c.url).unwrap().path() == path)
        .map(|c| c.disposition)
}

/// The auditor's expectations with the URLs a person named as feeds (the submitted page and
/// the alternates it declares) counted as feeds: guesses are the discovery purpose's.
fn expect_named(sim: &Sim, host: &str, named: &[&str]) -> tidings_sim::Expectations {
    let mut expect = sim.expectations();
    if let Some(purposes) = expect.purposes.as_mut() {
        for path in named {
            purposes.feeds.push((host.to_owned(), (*path).to_owned()));
        }
    }
    expect
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff1_a_home_page_gives_its_two_declared_feeds_and_the_one_it_hides_at_feed() {
    let sim = start(
        vec![
            HostSpec::new("site.test")
                .at("/robots.txt", Resource::robots(ALLOW_ALL))
                .at(
                    "/",
                    page(
                        "<link rel=alternate type=application/rss+xml href=/posts.xml>\
                         <link rel=alternate type=application/atom+xml href=/atom.xml>",
                        "<a href=/about>About</a>",
                    ),
                )
                .at("/posts.xml", rss("Posts", &ids("p", 3)))
                .at("/atom.xml", atom("Atom"))
                .at("/feed/", rss("Hidden", &ids("h", 2))),
        ],
        ffbot,
    )
    .await;
    let d = discover(&sim, "site.test", "/", Reach::Thorough).await;
    assert_eq!(
        found(&d),
        [
            ("/posts.xml".to_owned(), "/posts.xml".to_owned()),
            ("/atom.xml".to_owned(), "/atom.xml".to_owned()),
            ("/feed/".to_owned(), "/feed/".to_owned()),
        ]
    );
    assert_eq!(d.feeds[2].title.as_deref(), Some("Hidden"));
    assert_eq!(disposition_of(&d, "/"), Some(Disposition::NotAFeed));
    assert_eq!(disposition_of(&d, "/rss"), Some(Disposition::Refused));
    let exchanges = sim.exchanges().await;
    // Every candidate once: the page, the two alternates, the common paths (11, one of them
    // an alternate already), and robots.txt first.
    let paths: Vec<&str> = exchanges.iter().map(|e| e.target.as_str()).collect();
    assert_eq!(paths[0], "/robots.txt");
    let mut unique = paths.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), paths.len(), "nothing asked twice: {paths:?}");
    assert_eq!(d.requests, paths.len(), "every request counted");
    assert_eq!(
        d.checked.len(),
        paths.len() - 1,
        "every URL but robots.txt checked"
    );
    // Every check is stored (FF2) and every request logged (C7).
    let stored = sim
        .store
        .last_checks(&d.checked.iter().map(|c| c.url.clone()).collect::<Vec<_>>())
        .await
        .unwrap();
    assert_eq!(stored.len(), d.checked.len());
    let log = sim
        .store
        .request_log(&tidings_store::LogQuery {
            host: None,
            feed: None,
            limit: 1000,
        })
        .await
        .unwrap();
    assert_eq!(log.len(), paths.len());
    assert!(
        log.iter()
            .filter(|r| r.purpose != "robots")
            .all(|r| r.purpose == "discovery" && r.rule.contains("FF1")),
        "{log:?}"
    );
    assert_clean(
        &sim.audit(&expect_named(
            &sim,
            "site.test",
            &["/", "/posts.xml", "/atom.xml"],
        ))
        .await,
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff1_subscribing_by_a_site_takes_the_declared_feeds_without_guessing() {
    let sim = start(
        vec![
            HostSpec::new("blog.test")
                .at("/robots.txt", Resource::robots(ALLOW_ALL))
                .at(
                    "/",
                    page(
                        "<link rel=alternate type=application/rss+xml href=/feed.xml>",
                        "",
                    ),
                )
                .at("/feed.xml", rss("Blog", &ids("b", 2)))
                .at("/feed/", rss("Hidden", &ids("h", 2))),
        ],
        ffbot,
    )
    .await;
    let d = discover(&sim, "blog.test", "/", Reach::Declared).await;
    assert_eq!(
        found(&d),
        [("/feed.xml".to_owned(), "/feed.xml".to_owned())]
    );
    let paths: Vec<String> = sim
        .exchanges()
        .await
        .into_iter()
        .map(|e| e.target)
        .collect();
    assert_eq!(paths, ["/robots.txt", "/", "/feed.xml"]);

    // A feed's own URL is itself, and nothing more is read.
    let d = discover(&sim, "blog.test", "/feed.xml", Reach::Declared).await;
    assert_eq!(
        found(&d),
        [("/feed.xml".to_owned(), "/feed.xml".to_owned())]
    );
    assert_eq!(d.checked.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff1_a_profile_without_discovery_reads_only_what_is_named_as_a_feed() {
    // The default profile lists feeds and robots.txt only: the page (named by the person) and
    // its declared alternate are read; no body link, no common path.
    let sim = start(
        vec![
            HostSpec::new("plain.test")
                .at("/robots.txt", Resource::robots(ALLOW_ALL))
                .at(
                    "/",
                    page(
                        "<link rel=alternate type=application/rss+xml href=/news.rss>",
                        "<a href=/podcast/feed/>Podcast</a>",
                    ),
                )
                .at("/news.rss", rss("News", &ids("n", 1))),
        ],
        |_| {},
    )
    .await;
    let d = discover(&sim, "plain.test", "/", Reach::Thorough).await;
    assert_eq!(
        found(&d),
        [("/news.rss".to_owned(), "/news.rss".to_owned())]
    );
    let paths: Vec<String> = sim
        .exchanges()
        .await
        .into_iter()
        .map(|e| e.target)
        .collect();
    assert_eq!(paths, ["/robots.txt", "/", "/news.rss"]);
    assert_clean(
        &sim.audit(&expect_named(&sim, "plain.test", &["/", "/news.rss"]))
            .await,
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff3_the_same_feed_by_two_urls_is_found_once_and_a_stored_one_resolves_to_itself() {
    let entries = ids("s", 20);
    let sim = start(
        vec![
            HostSpec::new("dup.test")
                .at("/robots.txt", Resource::robots(ALLOW_ALL))
                .at(
                    "/",
                    page(
                        "<link rel=alternate type=application/rss+xml href=/rss>\
                         <link rel=alternate type=application/rss+xml href=/feed.xml>\
                         <link rel=alternate type=application/rss+xml href=/copy.xml>",
                        "",
                    ),
                )
                // One feed by a redirect, and by a copy of the same bytes.
                .at("/rss", Resource::redirect(301, "/feed.xml"))
                .at("/feed.xml", rss("Site", &entries))
                .at("/copy.xml", rss("Site", &entries)),
            HostSpec::new("mirror.test")
                .at("/robots.txt", Resource::robots(ALLOW_ALL))
                .at("/", page("", ""))
                // Half its entries are the stored feed's: perhaps the same feed.
                .at(
                    "/feed.xml",
                    rss("Mirror", &[ids("s", 10), ids("m", 10)].concat()),
                ),
        ],
        ffbot,
    )
    .await;
    let d = discover(&sim, "dup.test", "/", Reach::Declared).await;
    assert_eq!(
        found(&d),
        [("/feed.xml".to_owned(), "/rss".to_owned())],
        "{:?}",
        d.checked
    );
    assert_eq!(
        disposition_of(&d, "/feed.xml"),
        Some(Disposition::Duplicate)
    );
    assert_eq!(
        disposition_of(&d, "/copy.xml"),
        Some(Disposition::Duplicate)
    );

    // Stored and read: the site's feed, found again, is that feed.
    let stored = sim.subscribe("dup.test", "/feed.xml").await;
    sim.crawl_hours(0.5).await;
    let feed = sim
        .store
        .feed_by_url(&FeedUrl::parse(&stored).unwrap())
        .await
        .unwrap()
        .unwrap();
    let d = discover(&sim, "dup.test", "/copy.xml", Reach::Declared).await;
    assert_eq!(d.feeds.len(), 1);
    assert_eq!(d.feeds[0].known, Some(feed.id));
    assert_eq!(
        d.feeds[0].url.as_str(),
        stored,
        "resolved to the established feed"
    );
    assert_eq!(
        disposition_of(&d, "/copy.xml"),
        Some(Disposition::Duplicate)
    );

    // Half the entries in common: held for review, not offered.
    let d = discover(&sim, "mirror.test", "/feed.xml", Reach::Declared).await;
    assert_eq!(d.feeds.len(), 1);
    assert!(d.feeds[0].held);
    assert_eq!(d.offered().count(), 0);
    assert_eq!(disposition_of(&d, "/feed.xml"), Some(Disposition::Held));
    let held = sim.store.held_checks(10).await.unwrap();
    assert_eq!(held.len(), 1);
    assert_eq!(held[0].check.feed_id, Some(feed.id));
    assert!(held[0].check.reason.contains("10 of 20"), "{held:?}");

    // An operator decides: the decision is a new check beside the held one (FF2), and the
    // match waits no more; it cannot be decided twice.
    use tidings_crawler::operator::{Review, ReviewError, review};
    let decided = review(
        &*sim.store,
        held[0].id,
        Review::Duplicate,
        "ops",
        sim.crawler.now(),
    )
    .await
    .unwrap();
    assert_eq!(decided.check.disposition, Disposition::Duplicate);
    assert_eq!(decided.check.feed_id, Some(feed.id));
    assert!(
        decided.check.reason.contains("accepted by ops"),
        "{decided:?}"
    );
    assert!(sim.store.held_checks(10).await.unwrap().is_empty());
    let history = sim.store.url_checks(&held[0].check.url, 10).await.unwrap();
    assert_eq!(history.len(), 2);
    assert!(matches!(
        review(
            &*sim.store,
            held[0].id,
            Review::New,
            "ops",
            sim.crawler.now()
        )
        .await,
        Err(ReviewError::NotHeld { .. })
    ));
    assert!(matches!(
        review(
            &*sim.store,
            999_999,
            Review::Reject,
            "ops",
            sim.crawler.now()
        )
        .await,
        Err(ReviewError::NotFound(999_999))
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff2_what_was_checked_is_not_read_again_within_the_cooldown() {
    let sim = start(
        vec![
            HostSpec::new("quiet.test")
                .at("/robots.txt", Resource::robots(ALLOW_ALL))
                .at("/", page("", "<a href=/about>About</a>"))
                .at("/index.xml", rss("Found", &ids("f", 1))),
        ],
        ffbot,
    )
    .await;
    let first = discover(&sim, "quiet.test", "/", Reach::Thorough).await;
    assert_eq!(
        found(&first),
        [("/index.xml".to_owned(), "/index.xml".to_owned())]
    );
    let before = sim.exchanges().await.len();
    let again = discover(&sim, "quiet.test", "/", Reach::Thorough).await;
    let after = sim.exchanges().await;
    let new: Vec<&str> = after[before..].iter().map(|e| e.target.as_str()).collect();
    // Only the page (asked by a person now) is read again: the ten common paths that were
    // not feeds and the one that was are recalled, the feed still found.
    assert_eq!(new, ["/"]);
    assert_eq!(
        found(&again),
        [("/index.xml".to_owned(), "/index.xml".to_owned())]
    );
    let recalled: Vec<&Checked> = again.checked.iter().filter(|c| !c.read).collect();
    assert_eq!(recalled.len(), first.checked.len() - 1);
    assert!(
        recalled.iter().all(|c| c.reason.starts_with("FF2")),
        "{recalled:?}"
    );
    // The earlier results are kept; a recall adds none.
    let page = sim.web.url("quiet.test", "/").unwrap();
    assert_eq!(sim.store.url_checks(&page, 10).await.unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff1_a_subscribed_page_offers_its_feeds_from_where_it_was_read() {
    // The URL given redirects to a page in a directory; the page declares no feed, so the
    // common paths are tried under the page's own directory first.
    let sim = start(
        vec![
            HostSpec::new("moved.test")
                .at("/robots.txt", Resource::robots(ALLOW_ALL))
                .at("/", Resource::redirect(301, "/blog/"))
                .at("/blog/", page("", ""))
                .at("/blog/feed", rss("Blog", &ids("b", 2))),
        ],
        ffbot,
    )
    .await;
    let url = sim.subscribe("moved.test", "/").await;
    let feed = sim
        .store
        .feed_by_url(&FeedUrl::parse(&url).unwrap())
        .await
        .unwrap()
        .unwrap();
    let report = sim
        .crawler
        .refresh(&feed, tidings_crawler::Purpose::FirstAdd)
        .await
        .unwrap();
    let html = report.html_page.expect("an HTML page");
    assert_eq!(html.url.path(), "/blog/");
    let offered = sim
        .crawler
        .page_feeds(
            feed.id,
            tidings_store::Subscriber::Named("alice"),
            &html,
            &|_| {},
        )
        .await
        .unwrap();
    let urls: Vec<&str> = offered.offers.iter().map(|o| o.url.as_str()).collect();
    assert_eq!(urls, [sim.web.url("moved.test", "/blog/feed").unwrap()]);
    assert!(
        offered.offers[0].checked,
        "a guess is offered only once it parsed"
    );
    // The page is no feed of anyone's: its row is gone.
    assert!(sim.store.feed(feed.id).await.unwrap().is_none());
}

/// FF1: a site's home page subscribed to by its URL (as the API, the web UI and a sync
/// client's quick-add store it) is resolved by the crawl's first read: its subscribers move
/// to the page's first declared feed, keeping their folder, and the feed is read; what the
/// page offered is kept as a finished discovery job. Under FFBot a page that declares no
/// feed has its common paths tried; under a profile that does not discover it stays as it is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff1_a_page_subscribed_by_its_url_becomes_its_feed() {
    let hosts = || {
        vec![
            HostSpec::new("blog.test")
                .at("/robots.txt", Resource::robots(ALLOW_ALL))
                .at(
                    "/",
                    page(
                        "<link rel=alternate type=application/rss+xml title=Posts href=/posts.xml>\
                         <link rel=alternate type=application/atom+xml title=Comments \
                         href=/comments.atom>",
                        "<p>hello</p>",
                    ),
                )
                .at("/posts.xml", rss("Posts", &ids("p", 4)))
                .at("/comments.atom", atom("Comments")),
            HostSpec::new("quiet.test")
                .at("/robots.txt", Resource::robots(ALLOW_ALL))
                .at("/", page("", "<p>no feed named here</p>"))
                .at("/feed/", rss("Hidden", &ids("h", 2))),
        ]
    };
    let sim = start(hosts(), ffbot).await;
    let account = sim
        .store
        .add_account(&tidings_store::NewAccount {
            name: "ana".into(),
            role: tidings_store::AccountRole::Reader,
            password_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA".into(),
            created_at: sim.crawler.now(),
        })
        .await
        .unwrap()
        .unwrap()
        .id;
    let placement = tidings_store::Placement {
        title: None,
        folder: Some("Blogs".into()),
    };
    for host in ["blog.test", "quiet.test"] {
        let url = FeedUrl::parse(&sim.web.url(host, "/").unwrap()).unwrap();
        tidings_crawler::operator::subscribe(
            &*sim.store,
            &sim.profile,
            &url,
            tidings_store::Subscriber::Account {
                id: account,
                placement: &placement,
            },
            true,
            sim.crawler.now(),
        )
        .await
        .unwrap();
    }
    sim.crawl_hours(0.5).await;
    let subs = sim.store.subscriptions(account).await.unwrap();
    let mut urls = Vec::new();
    for s in &subs {
        let feed = sim.store.feed(s.feed_id).await.unwrap().unwrap();
        assert_eq!(s.folder.as_deref(), Some("Blogs"));
        assert!(feed.last_fetch_at.is_some(), "{} read", feed.url);
        urls.push(
            url::Url::parse(feed.url.as_str())
                .unwrap()
                .path()
                .to_owned(),
        );
    }
    urls.sort();
    assert_eq!(
        urls,
        ["/feed/", "/posts.xml"],
        "the first declared feed, the hidden one"
    );
    let listed = sim
        .store
        .reading(&tidings_store::ReadingQuery {
            account,
            limit: 100,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(listed.len(), 6, "the entries of both feeds");
    // What the blog's page offered: both of its feeds, kept for a reader to take another.
    let jobs = sim.store.page_jobs(10).await.unwrap();
    let blog = jobs
        .iter()
        .find(|j| j.url.contains("blog.test"))
        .expect("the blog's page job");
    let offered: Vec<String> = sim
        .store
        .page_job_feeds(blog.id)
        .await
        .unwrap()
        .iter()
        .map(|f| f.url.clone())
        .collect();
    assert_eq!(offered.len(), 2, "{offered:?}");
    assert!(offered[1].ends_with("/comments.atom"));
    // The page's own row is gone: no second read of the HTML page.
    assert_eq!(sim.requests("blog.test", "/").await.len(), 1);
    // The feeds the pages became are feeds to the auditor (a guess checked, then read as
    // the feed it is: its first read, a host's gap later).
    let mut expect = sim.expectations();
    let feeds = &mut expect.purposes.as_mut().unwrap().feeds;
    feeds.push(("blog.test".into(), "/posts.xml".into()));
    feeds.push(("quiet.test".into(), "/feed/".into()));
    assert_clean(&sim.audit(&expect).await);

    // A profile that does not discover: a page naming no feed stays as subscribed.
    let plain = start(hosts(), |_| {}).await;
    let url = plain.subscribe("quiet.test", "/").await;
    plain.crawl_hours(0.2).await;
    assert!(plain.requests("quiet.test", "/feed/").await.is_empty());
    let feeds = plain.store.feeds().await.unwrap();
    assert_eq!(feeds.len(), 1);
    assert_eq!(feeds[0].url.as_str(), url);
}

/// FF1: two pages that name each other as their feed are each resolved once: the first
/// page's subscribers move to the second, whose first read finds a page naming one already
/// met, so they stay there; neither page is asked back and forth.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff1_pages_naming_each_other_are_resolved_once() {
    let host = HostSpec::new("loop.test")
        .at("/robots.txt", Resource::robots(ALLOW_ALL))
        .at(
            "/a",
            page("<link rel=alternate type=application/rss+xml href=/b>", ""),
        )
        .at(
            "/b",
            page("<link rel=alternate type=application/rss+xml href=/a>", ""),
        );
    let sim = start(vec![host], |_| {}).await;
    sim.subscribe("loop.test", "/a").await;
    sim.crawl_hours(0.5).await;
    assert_eq!(sim.requests("loop.test", "/a").await.len(), 1);
    assert_eq!(sim.requests("loop.test", "/b").await.len(), 1);
    let feeds = sim.store.feeds().await.unwrap();
    assert_eq!(feeds.len(), 1, "{feeds:?}");
    assert!(feeds[0].url.as_str().ends_with("/b"));
    assert_eq!(
        feeds[0].subscribers, 1,
        "the subscription is kept, on the second page"
    );
}
