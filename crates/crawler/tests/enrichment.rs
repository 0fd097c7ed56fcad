//! SereneReader on the simulated web: an entry without an image has its article page read
//! once, at most 1 MB of it, for its og:image (SR1); the site's icon is read into the store
//! (SR1), the request made at a feed's first add without robots.txt, later ones with it
//! (SR7); a page that fails is asked again at the SR4/SR6 steps and then held. The auditor
//! times every page and icon request from the publisher's side.

mod sim_support;

use bytes::Bytes;
use sim_support::{Sim, assert_clean, gap, start};
use std::time::Duration;
use tidings_model::RequestPurpose;
use tidings_sim::{Behaviour, HostSpec, Resource, RetryAfter, When};
use tidings_store::{EntryQuery, QueueState};

const MINUTE: Duration = Duration::from_secs(60);
const HOUR: Duration = Duration::from_secs(3600);

fn serenereader(p: &mut tidings_policy::Profile) {
    *p = tidings_policy::Profile::embedded("serenereader").unwrap();
    p.hints.adaptive = false;
    p.hints.jitter = 0.0;
}

fn body(content_type: &str, bytes: impl Into<Bytes>) -> Resource {
    Resource::new(Behaviour::Body {
        content_type: content_type.into(),
        body: bytes.into(),
    })
}

fn html(head: &str) -> Resource {
    body(
        "text/html; charset=utf-8",
        format!(
            "<!doctype html><html><head><title>t</title>{head}</head><body><p>words</p></body></html>"
        ),
    )
}

/// An ICO file's first bytes: enough to be known as one.
const ICO: &[u8] = b"\x00\x00\x01\x00\x01\x00\x10\x10\x00\x00\x01\x00\x20\x00";

/// An RSS feed whose items link `links` (absolute URLs), each with a thumbnail when asked for;
/// the channel links `site`.
fn rss(site: &str, items: &[(&str, bool)]) -> Resource {
    let mut xml = format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\" xmlns:media=\"http://search.yahoo.com/mrss/\">\
         <channel><title>Pub</title><link>{site}</link>"
    );
    for (i, (link, pictured)) in items.iter().enumerate() {
        xml.push_str(&format!(
            "<item><guid>item-{i}</guid><title>Story {i}</title><link>{link}</link>\
             <pubDate>Tue, 01 Dec 2026 1{i}:00:00 GMT</pubDate>"
        ));
        if *pictured {
            xml.push_str(&format!("<media:thumbnail url=\"{link}.jpg\"/>"));
        }
        xml.push_str("</item>");
    }
    xml.push_str("</channel></rss>");
    body("application/rss+xml", xml)
}

/// The newest hundred rows of the request log (C7).
async fn request_log(sim: &Sim) -> Vec<tidings_store::RequestLogRow> {
    sim.store
        .request_log(&tidings_store::LogQuery {
            host: None,
            feed: None,
            limit: 100,
        })
        .await
        .unwrap()
}

fn count(exchanges: &[tidings_sim::Exchange], host: &str, path: &str) -> usize {
    exchanges
        .iter()
        .filter(|e| e.host == host && e.target == path)
        .count()
}

/// Set the feed once the web knows its ports: its links name them.
fn set_feed(sim: &Sim, host: &str, site: &str, items: &[(&str, bool)]) {
    let urls: Vec<(String, bool)> = items
        .iter()
        .map(|(link, pictured)| {
            let (h, p) = link
                .split_once('/')
                .map(|(h, p)| (h, format!("/{p}")))
                .unwrap();
            (sim.web.url(h, &p).unwrap(), *pictured)
        })
        .collect();
    let refs: Vec<(&str, bool)> = urls.iter().map(|(u, p)| (u.as_str(), *p)).collect();
    let site = sim.web.url(site, "/").unwrap();
    assert!(sim.web.set(host, "/feed.xml", rss(&site, &refs)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sr1_sr7_ff6_each_article_page_without_an_image_is_read_once_for_its_og_image() {
    let mut long_page = String::from(
        "<!doctype html><html><head><meta property=\"og:image\" content=\"/img/long.jpg\">",
    );
    long_page.push_str(&"<!-- padding -->".repeat(100_000));
    long_page.push_str("</head></html>");
    assert!(long_page.len() > 1_500_000);
    let sim = start(
        vec![
            HostSpec::new("pub.test")
                .at(
                    "/robots.txt",
                    Resource::robots("User-agent: *\nDisallow: /private/\n"),
                )
                .at("/feed.xml", Resource::status(404))
                .at(
                    "/post/1",
                    html(
                        "<meta property=\"og:image\" content=\"/img/1.jpg\">\
                         <meta name=\"description\" content=\"The first post.\">\
                         <meta name=\"robots\" content=\"noarchive\">\
                         <link rel=\"license\" href=\"/licence\">\
                         <link rel=\"terms-of-service\" href=\"/terms\">",
                    )
                    .with(Behaviour::Header {
                        name: "x-robots-tag".into(),
                        value: "SereneReader: nosnippet".into(),
                    }),
                )
                .at("/post/2", html(""))
                .at(
                    "/post/3",
                    html("<meta property=\"og:image\" content=\"/img/3.jpg\">"),
                )
                .at("/private/4", html(""))
                .at("/post/5", body("text/html", long_page))
                .at("/favicon.ico", body("image/x-icon", ICO)),
        ],
        serenereader,
    )
    .await;
    set_feed(
        &sim,
        "pub.test",
        "pub.test",
        &[
            ("pub.test/post/1", false),
            ("pub.test/post/2", false),
            ("pub.test/post/3", true),
            ("pub.test/private/4", false),
            ("pub.test/post/5", false),
        ],
    );
    let feed = sim.subscribe("pub.test", "/feed.xml").await;
    sim.crawl_hours(3.0).await;

    let all = sim.exchanges().await;
    assert!(
        count(&all, "pub.test", "/feed.xml") >= 3,
        "the feed is read on"
    );
    for (path, times, why) in [
        ("/post/1", 1, "SR1: read once"),
        ("/post/2", 1, "SR1: read once, though it names no og:image"),
        ("/post/3", 0, "SR1: the entry has an image"),
        ("/private/4", 0, "SR7: the * group binds pages"),
        ("/post/5", 1, "SR1: its first megabyte is read, once"),
        ("/favicon.ico", 1, "SR1: the site's icon"),
        ("/apple-touch-icon.png", 0, "SR1: one icon is enough"),
        ("/img/1.jpg", 0, "SR1: no image files"),
    ] {
        assert_eq!(count(&all, "pub.test", path), times, "{path}: {why}");
    }

    // The previews, each with its source, and the icon, kept in the store.
    let entries = sim.store.entries(&EntryQuery::default()).await.unwrap();
    let linking = |link: &str| {
        let url = sim.web.url("pub.test", link).unwrap();
        entries
            .iter()
            .find(|e| e.entry.link.as_deref() == Some(url.as_str()))
            .unwrap()
    };
    let preview = |link: &str| linking(link).preview.clone();
    let first = preview("/post/1").expect("a preview");
    assert_eq!(first.url, sim.web.url("pub.test", "/img/1.jpg").unwrap());
    assert_eq!(first.source, "og:image");
    assert_eq!(
        preview("/post/5").map(|p| p.url),
        Some(sim.web.url("pub.test", "/img/long.jpg").unwrap())
    );
    assert_eq!(preview("/post/2"), None);
    // FF6: what was recorded of each page read: its metadata, licence and terms links and
    // its directives (the tag's and the header's for the bot), never its text.
    let record = |link: &str| linking(link).page.clone();
    let first = record("/post/1").expect("the page's record");
    assert_eq!(first.title.as_deref(), Some("t"));
    assert_eq!(first.description.as_deref(), Some("The first post."));
    assert_eq!(
        first.licences,
        [sim.web.url("pub.test", "/licence").unwrap()]
    );
    assert_eq!(first.terms, [sim.web.url("pub.test", "/terms").unwrap()]);
    assert_eq!(
        first.directives,
        tidings_rights::Directives::parse_list("nosnippet, noarchive"),
        "{}",
        first.directives
    );
    assert!(!first.truncated);
    assert!(record("/post/5").expect("the long page's record").truncated);
    assert!(
        record("/post/2").is_some(),
        "a page with no og:image is recorded"
    );
    assert_eq!(record("/post/3"), None, "never read");
    let stored = sim
        .store
        .feed_by_url(&tidings_model::FeedUrl::parse(&feed).unwrap())
        .await
        .unwrap()
        .unwrap();
    let site = stored.site.expect("the feed's site");
    let icon = sim
        .store
        .icon(&site)
        .await
        .unwrap()
        .expect("the site's icon");
    assert_eq!(icon.body, ICO);
    assert_eq!(icon.media_type, "image/x-icon");
    let pages = sim
        .store
        .resources(Some(RequestPurpose::ArticlePage), 10)
        .await
        .unwrap();
    // Four pages queued (the pictured entry's is not); the robots-denied one is held, never
    // asked, and none is left due.
    assert_eq!(pages.len(), 4, "{pages:?}");
    assert!(
        pages.iter().all(|p| p.state != QueueState::Due),
        "{pages:?}"
    );
    let private = pages
        .iter()
        .find(|p| p.url.ends_with("/private/4"))
        .expect("the denied page's row");
    assert_eq!(private.state, QueueState::Held, "{private:?}");
    assert_eq!(private.last_status, None, "{private:?}");

    // C7: each request is logged with its purpose and the rule that allowed it.
    let log = request_log(&sim).await;
    let page_row = log
        .iter()
        .find(|r| r.url.ends_with("/post/1"))
        .expect("the page's row");
    assert_eq!(page_row.purpose, "article_page");
    assert!(
        page_row
            .rule
            .starts_with("preview of an entry without an image (SR1); robots:"),
        "{}",
        page_row.rule
    );
    assert!(log.iter().any(|r| r.purpose == "icon"));
    let long = log.iter().find(|r| r.url.ends_with("/post/5")).unwrap();
    assert!(
        long.bytes <= 1_000_000 && long.outcome == tidings_model::Label::Ok,
        "SR1: its first megabyte read, no more: {long:?}"
    );
    assert_clean(&sim.audit(&sim.expectations()).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sr7_the_first_add_icon_skips_robots_txt_and_a_later_candidate_obeys_it() {
    let sim = start(
        vec![
            HostSpec::new("pub.test")
                .at("/robots.txt", Resource::robots("User-agent: *\nAllow: /\n"))
                .at("/feed.xml", Resource::status(404)),
            // The site the feed links: it forbids everything, and its favicon is missing.
            HostSpec::new("site.test")
                .at(
                    "/robots.txt",
                    Resource::robots("User-agent: *\nDisallow: /\n"),
                )
                .at("/favicon.ico", Resource::status(404))
                .at("/apple-touch-icon.png", body("image/png", ICO)),
        ],
        |p| {
            serenereader(p);
            // The next candidate an hour after a failed one, so the run sees it.
            p.pages.icon_spacing = 3600;
        },
    )
    .await;
    set_feed(&sim, "pub.test", "site.test", &[]);
    sim.subscribe("pub.test", "/feed.xml").await;
    sim.crawl_hours(3.0).await;

    let site: Vec<_> = sim
        .exchanges()
        .await
        .into_iter()
        .filter(|e| e.host == "site.test")
        .collect();
    let targets: Vec<&str> = site.iter().map(|e| e.target.as_str()).collect();
    assert_eq!(
        targets,
        ["/favicon.ico", "/robots.txt"],
        "SR7: the first-add icon request goes without robots.txt; the next candidate, a \
         scheduled one, reads it first and obeys its Disallow"
    );
    assert!(
        gap(&site[0], &site[1]) >= HOUR,
        "SR1: the next candidate only after the window"
    );
    let mut expect = sim.expectations();
    expect.robots_first.retain(|h| h != "site.test");
    assert_clean(&sim.audit(&expect).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sr4_sr6_a_failing_page_is_retried_at_its_steps_then_held() {
    let sim = start(
        vec![
            HostSpec::new("pub.test")
                .at("/robots.txt", Resource::robots("User-agent: *\nAllow: /\n"))
                .at("/feed.xml", Resource::status(404))
                .at("/favicon.ico", body("image/x-icon", ICO))
                .at("/post/1", Resource::status(500)),
            // Throttled for good, with a Retry-After shorter than the last step.
            HostSpec::new("busy.test")
                .at("/robots.txt", Resource::robots("User-agent: *\nAllow: /\n"))
                .at(
                    "/post/2",
                    Resource::new(Behaviour::Throttle {
                        status: 429,
                        retry_after: Some(RetryAfter::Seconds(90)),
                        when: When::Always,
                    })
                    .with(Behaviour::Status(200)),
                ),
        ],
        serenereader,
    )
    .await;
    set_feed(
        &sim,
        "pub.test",
        "pub.test",
        &[("pub.test/post/1", false), ("busy.test/post/2", false)],
    );
    sim.subscribe("pub.test", "/feed.xml").await;
    sim.crawl_hours(2.5).await;

    let failing = sim.requests("pub.test", "/post/1").await;
    assert!(failing.len() >= 5, "{} requests", failing.len());
    let waits: Vec<Duration> = failing.windows(2).map(|w| gap(&w[0], &w[1])).collect();
    // SR4: about 30 s, 1 min, 2 min, then at least an hour; then the steps again.
    for (i, (wait, least)) in waits
        .iter()
        .zip([30 * MINUTE / 60, MINUTE, 2 * MINUTE, HOUR])
        .enumerate()
    {
        assert!(*wait >= least, "wait {i}: {wait:?} < {least:?}");
    }
    assert!(waits[0] < 2 * MINUTE && waits[2] < 10 * MINUTE, "{waits:?}");
    assert!(waits[3] < 2 * HOUR, "held about an hour: {waits:?}");

    let throttled = sim.requests("busy.test", "/post/2").await;
    assert!(throttled.len() >= 4, "{} requests", throttled.len());
    let waits: Vec<Duration> = throttled.windows(2).map(|w| gap(&w[0], &w[1])).collect();
    // SR6 under C6: each retry after the step, and never before the Retry-After (90 s).
    assert!(waits[0] >= 90 * Duration::from_secs(1), "{waits:?}");
    assert!(waits[2] >= 2 * MINUTE, "{waits:?}");
    assert!(
        waits[..3].iter().sum::<Duration>() < 30 * MINUTE,
        "three quick retries: {waits:?}"
    );
    assert_clean(&sim.audit(&sim.expectations()).await);
}

/// A PNG's first bytes, padded to `len`.
fn png(len: usize) -> Resource {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.resize(len.max(8), b'p');
    body("image/png", bytes)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff8_ff9_only_thumbnails_a_licence_permits_are_cached_each_once_within_their_bounds() {
    let sim = start(
        vec![
            HostSpec::new("pub.test")
                .at(
                    "/robots.txt",
                    Resource::robots("User-agent: *\nDisallow: /private/\n"),
                )
                .at("/feed.xml", Resource::status(404))
                .at("/img/0.png", png(600))
                .at("/img/1.png", png(600))
                .at("/private/2.png", png(600))
                .at("/img/big.png", png(50_000)),
        ],
        |p| {
            *p = tidings_policy::Profile::embedded("ffbot").unwrap();
            p.hints.adaptive = false;
            p.hints.jitter = 0.0;
            p.images.max_image_bytes = 10_000;
        },
    )
    .await;
    let img = |path: &str| sim.web.url("pub.test", path).unwrap();
    let by = "http://creativecommons.org/licenses/by/4.0/";
    let items = [
        ("/img/0.png", Some(by), "CC BY: shown, cached"),
        ("/img/1.png", None, "no licence: hidden, never fetched"),
        (
            "/private/2.png",
            Some(by),
            "shown, but robots.txt disallows it",
        ),
        (
            "/img/big.png",
            Some(by),
            "shown, but over the per-image bound",
        ),
    ];
    let mut xml = String::from(
        "<?xml version=\"1.0\"?><rss version=\"2.0\" \
         xmlns:media=\"http://search.yahoo.com/mrss/\" \
         xmlns:creativeCommons=\"http://backend.userland.com/creativeCommonsRssModule\">\
         <channel><title>Pub</title><link>https://pub.example/</link>",
    );
    for (i, (path, licence, _)) in items.iter().enumerate() {
        xml.push_str(&format!(
            "<item><guid>item-{i}</guid><title>Story {i}</title>\
             <link>https://pub.example/{i}</link>\
             <pubDate>Tue, 01 Dec 2026 1{i}:00:00 GMT</pubDate>\
             <media:thumbnail url=\"{}\"/>",
            img(path)
        ));
        if let Some(l) = licence {
            xml.push_str(&format!(
                "<creativeCommons:license>{l}</creativeCommons:license>"
            ));
        }
        xml.push_str("</item>");
    }
    xml.push_str("</channel></rss>");
    assert!(
        sim.web
            .set("pub.test", "/feed.xml", body("application/rss+xml", xml))
    );
    sim.subscribe("pub.test", "/feed.xml").await;
    sim.crawl_hours(3.0).await;

    let all = sim.exchanges().await;
    assert!(
        count(&all, "pub.test", "/feed.xml") >= 3,
        "the feed is read on"
    );
    for (path, times, why) in [
        ("/img/0.png", 1, "FF9: one copy per image URL"),
        (
            "/img/1.png",
            0,
            "FF8: unrecognised stays hidden, so it is not fetched",
        ),
        ("/private/2.png", 0, "FF9: image requests obey robots.txt"),
        (
            "/img/big.png",
            1,
            "FF9: asked once, and its read stops at the bound",
        ),
    ] {
        assert_eq!(count(&all, "pub.test", path), times, "{path}: {why}");
    }
    let urls: Vec<String> = items.iter().map(|(p, _, _)| img(p)).collect();
    assert_eq!(
        sim.store.cached_images(&urls).await.unwrap(),
        vec![img("/img/0.png")],
        "only the permitted image within its bound is cached"
    );
    let copy = sim
        .store
        .image(&img("/img/0.png"), chrono::Utc::now())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(copy.media_type, "image/png");
    assert_eq!(copy.body.len(), 600, "kept as read: no resizing");
    let log = request_log(&sim).await;
    let row = log.iter().find(|r| r.url.ends_with("/img/0.png")).unwrap();
    assert_eq!(row.purpose, "image");
    assert!(row.rule.contains("(FF9)"), "{}", row.rule);
    assert_clean(&sim.audit(&sim.expectations()).await);
}
