//! DFB2, FF14: what of each entry reaches the store. DailyFootballBot keeps title, link and
//! date, and an excerpt of at most 300 characters only when the feed supplies one and the
//! publisher objects neither to AI crawlers (robots.txt) nor to text and data mining
//! (`tdm-reservation`); never content, never images. The default profile keeps everything.

mod support;

use support::{Answer, Script, as_profile, crawler_with, serve, subscribe};
use tidings_crawler::Purpose;
use tidings_store::{EntryQuery, StoredEntry};

/// One item with everything a feed can say of it: a long HTML summary, full content, a
/// thumbnail, an image and an audio enclosure, an author and a category.
fn rich_feed() -> String {
    let words = " and the match went on".repeat(30);
    format!(
        r#"<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:media="http://search.yahoo.com/mrss/">
<channel><title>Football</title><link>https://pub.test/</link>
<image><url>https://pub.test/logo.png</url><title>Football</title><link>https://pub.test/</link></image>
<item><guid>cup-final</guid><title>Cup final tonight</title><link>https://pub.test/cup</link>
<pubDate>Tue, 01 Dec 2026 18:00:00 GMT</pubDate>
<description>&lt;p&gt;The &lt;b&gt;final&lt;/b&gt; kicks off at eight{words}.&lt;/p&gt;</description>
<content:encoded><![CDATA[<p>The whole article, every word of it.</p>]]></content:encoded>
<media:thumbnail url="https://pub.test/thumb.jpg" width="120" height="80"/>
<enclosure url="https://pub.test/photo.jpg" type="image/jpeg" length="1000"/>
<author>editor@pub.test (Ana Editor)</author><category>cup</category>
</item></channel></rss>"#
    )
}

/// Read the rich feed once under `profile`, robots.txt answering `robots` and the feed
/// carrying `headers`; the one stored entry.
async fn stored_after_one_read(
    profile: &'static str,
    robots: &str,
    headers: &[(&str, &str)],
) -> StoredEntry {
    let script = Script::default();
    script.push("/robots.txt", Answer::ok(robots));
    let mut answer = Answer::ok(&rich_feed());
    for (name, value) in headers {
        answer = answer.header(name, value);
    }
    script.push("/f.xml", answer);
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_with(dir.path(), as_profile(profile)).await;
    let feed = subscribe(&store, &format!("http://127.0.0.1:{port}/f.xml")).await;
    let report = crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    assert_eq!(report.new_entries, 1, "{report:?}");
    let mut entries = store
        .entries(&EntryQuery {
            feed: Some(feed.id),
            ..EntryQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(entries.len(), 1);
    entries.remove(0)
}

const OPEN: &str = "User-agent: *\nAllow: /\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dfb2_only_title_link_date_and_a_bounded_excerpt_are_stored() {
    let stored = stored_after_one_read("dailyfootballbot", OPEN, &[]).await;
    let e = &stored.entry;
    assert_eq!(e.title.as_deref(), Some("Cup final tonight"));
    assert_eq!(e.link.as_deref(), Some("https://pub.test/cup"));
    assert!(e.published.is_some());
    let excerpt = e
        .summary
        .as_deref()
        .expect("an excerpt of the supplied summary");
    assert!(
        excerpt.starts_with("The final kicks off at eight and the match"),
        "{excerpt}"
    );
    assert!(
        excerpt.chars().count() <= 300,
        "{}",
        excerpt.chars().count()
    );
    assert!(!excerpt.contains('<'), "text, not markup: {excerpt}");
    assert_eq!(e.content, None, "never full content");
    assert!(
        e.thumbnails.is_empty() && e.enclosures.is_empty() && e.media.is_empty(),
        "never images: {e:?}"
    );
    assert!(e.authors.is_empty() && e.categories.is_empty(), "{e:?}");
    let decided = e.excerpt_decision.as_ref().expect("the excerpt's decision");
    assert!(decided.allowed, "{decided:?}");
    assert!(
        decided.reason.starts_with("supplied by the feed"),
        "{decided:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dfb2_an_ai_crawler_group_in_robots_txt_keeps_the_excerpt_out() {
    let robots = "User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n";
    let stored = stored_after_one_read("dailyfootballbot", robots, &[]).await;
    assert_eq!(stored.entry.summary, None);
    assert_eq!(stored.entry.title.as_deref(), Some("Cup final tonight"));
    // The decision is stored with its reason, which names the objection.
    let decided = stored
        .entry
        .excerpt_decision
        .expect("the excerpt's decision");
    assert!(!decided.allowed);
    assert!(
        decided.reason.starts_with("the publisher objects") && decided.reason.contains("GPTBot"),
        "{decided:?}"
    );
    // A group that keeps AI crawlers from another part of the site is no objection here.
    let elsewhere = "User-agent: GPTBot\nDisallow: /private/\n";
    let stored = stored_after_one_read("dailyfootballbot", elsewhere, &[]).await;
    assert!(stored.entry.summary.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dfb2_a_tdm_reservation_header_keeps_the_excerpt_out() {
    let stored = stored_after_one_read("dailyfootballbot", OPEN, &[("tdm-reservation", "1")]).await;
    assert_eq!(stored.entry.summary, None);
    let stored = stored_after_one_read("dailyfootballbot", OPEN, &[("tdm-reservation", "0")]).await;
    assert!(stored.entry.summary.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_profile_keeps_the_whole_entry_and_ffbot_obeys_nosnippet() {
    let robots = "User-agent: GPTBot\nDisallow: /\n";
    let stored = stored_after_one_read("default", robots, &[("tdm-reservation", "1")]).await;
    let e = &stored.entry;
    assert!(
        e.summary
            .as_deref()
            .is_some_and(|s| s.contains("<b>final</b>")),
        "{e:?}"
    );
    assert!(e.content.is_some());
    assert_eq!(e.thumbnails.len(), 1);
    assert_eq!(e.enclosures.len(), 1);
    // FF14: a directive for FFBot on the feed's response keeps the summary out; one for
    // another bot does not.
    let stored = stored_after_one_read(
        "ffbot",
        OPEN,
        &[("x-robots-tag", "FFBot: nosnippet, noarchive")],
    )
    .await;
    assert_eq!(stored.entry.summary, None);
    assert_eq!(stored.entry.content, None);
    let stored =
        stored_after_one_read("ffbot", OPEN, &[("x-robots-tag", "otherbot: nosnippet")]).await;
    assert!(stored.entry.summary.is_some() && stored.entry.content.is_some());
}

/// A feed under `channel_licence` whose items carry a thumbnail, one without a licence of its
/// own and one that declares another.
fn licensed_feed(channel_licence: &str, item_licence: &str) -> String {
    format!(
        r#"<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/" xmlns:creativeCommons="http://backend.userland.com/creativeCommonsRssModule">
<channel><title>Photos</title><link>https://pub.test/</link>
<creativeCommons:license>{channel_licence}</creativeCommons:license>
<item><guid>inherits</guid><title>Harbour</title><link>https://pub.test/harbour</link>
<media:thumbnail url="https://pub.test/harbour.jpg" width="320" height="200"/>
<media:credit>Ana</media:credit>
</item>
<item><guid>overrides</guid><title>Bridge</title><link>https://pub.test/bridge</link>
<creativeCommons:license>{item_licence}</creativeCommons:license>
<description>&lt;p&gt;&lt;img src="/bridge.jpg"&gt;&lt;/p&gt;</description>
</item></channel></rss>"#
    )
}

/// Read `body` once under `profile`; the stored entries by key.
async fn stored_entries(profile: &'static str, body: &str) -> Vec<(String, StoredEntry)> {
    let script = Script::default();
    script.push("/robots.txt", Answer::ok(OPEN));
    script.push("/f.xml", Answer::ok(body));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_with(dir.path(), as_profile(profile)).await;
    let feed = subscribe(&store, &format!("http://127.0.0.1:{port}/f.xml")).await;
    crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    let mut entries: Vec<(String, StoredEntry)> = store
        .entries(&EntryQuery {
            feed: Some(feed.id),
            ..EntryQuery::default()
        })
        .await
        .unwrap()
        .into_iter()
        .map(|e| (e.entry.identity.clone(), e))
        .collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff7_ff8_one_thumbnail_per_entry_shown_only_under_a_licence_that_permits_it() {
    let by = "https://creativecommons.org/licenses/by/4.0/";
    let body = licensed_feed(by, "All rights reserved");
    let entries = stored_entries("ffbot", &body).await;
    let image = |key: &str| {
        entries
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, e)| e.entry.selected_image.clone())
            .unwrap_or_else(|| panic!("{key}: no image selected"))
    };
    let inherits = image("inherits");
    assert_eq!(inherits.url, "https://pub.test/harbour.jpg");
    assert_eq!(inherits.source, "media:thumbnail");
    assert_eq!((inherits.width, inherits.height), (Some(320), Some(200)));
    assert!(inherits.shown, "{}", inherits.why);
    assert_eq!(inherits.why, "CC BY 4.0 declared by the feed");
    // The entry's own declaration overrides the feed's, and prose is no licence.
    let overrides = image("overrides");
    assert_eq!(overrides.url, "https://pub.test/bridge.jpg");
    assert_eq!(overrides.source, "img");
    assert!(!overrides.shown);
    assert_eq!(
        overrides.why,
        "licence declared by the entry not recognised"
    );

    // CC BY-ND is shown as it is; a non-commercial licence is shown by a non-commercial
    // service.
    let nd = licensed_feed(
        "https://creativecommons.org/licenses/by-nd/3.0/de/",
        "http://creativecommons.org/licenses/by-nc/4.0/deed.fr",
    );
    let entries = stored_entries("ffbot", &nd).await;
    let shown: Vec<(bool, String)> = entries
        .iter()
        .map(|(_, e)| {
            let i = e.entry.selected_image.as_ref().unwrap();
            (i.shown, i.why.clone())
        })
        .collect();
    assert_eq!(
        shown,
        [
            (
                true,
                "CC BY-ND 3.0 (de) declared by the feed, shown unmodified".to_owned()
            ),
            (true, "CC BY-NC 4.0 declared by the entry".to_owned()),
        ]
    );

    // A profile that selects no thumbnails stores none.
    let entries = stored_entries("default", &body).await;
    assert!(
        entries
            .iter()
            .all(|(_, e)| e.entry.selected_image.is_none())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff14_a_full_response_replaces_the_directives_and_a_304_only_adds() {
    let script = Script::default();
    script.push("/robots.txt", Answer::ok(OPEN));
    let feed_body = rich_feed();
    script.push(
        "/f.xml",
        Answer::ok(&feed_body)
            .header("etag", "\"one\"")
            .header("x-robots-tag", "FFBot: noindex"),
    );
    script.push(
        "/f.xml",
        Answer::status(304)
            .header("etag", "\"one\"")
            .header("x-robots-tag", "nosnippet"),
    );
    script.push("/f.xml", Answer::status(304).header("etag", "\"one\""));
    script.push("/f.xml", Answer::ok(&feed_body).header("etag", "\"two\""));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_with(dir.path(), as_profile("ffbot")).await;
    let mut feed = subscribe(&store, &format!("http://127.0.0.1:{port}/f.xml")).await;
    let mut seen = Vec::new();
    for purpose in [
        Purpose::FirstAdd,
        Purpose::Scheduled,
        Purpose::Scheduled,
        Purpose::Scheduled,
    ] {
        crawler.refresh(&feed, purpose).await.unwrap();
        feed = store.feed(feed.id).await.unwrap().unwrap();
        seen.push(feed.directives.to_words());
    }
    assert_eq!(
        seen,
        ["noindex", "noindex, nosnippet", "noindex, nosnippet", ""]
    );
    let history: Vec<(String, bool)> = store
        .directive_history(feed.id, 10)
        .await
        .unwrap()
        .into_iter()
        .map(|r| (r.current.to_words(), r.full))
        .collect();
    assert_eq!(
        history,
        [
            (String::new(), true),
            ("noindex, nosnippet".to_owned(), false),
            ("noindex".to_owned(), true),
        ]
    );
    // noindex kept the feed's entries out of search while it held; now they are found.
    let found = store
        .entries(&EntryQuery {
            search: Some("final".into()),
            ..EntryQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(found.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff7_the_feeds_own_image_is_its_thumbnail_with_its_licence_decision() {
    let by_sa = "https://creativecommons.org/licenses/by-sa/4.0/";
    let without = licensed_feed(by_sa, "");
    // The same feed once its channel names an image.
    let with_image = without.replace(
        "<channel><title>Photos</title>",
        "<channel><title>Photos</title><image><url>https://pub.test/logo.png</url>\
         <title>Photos</title><link>https://pub.test/</link></image>",
    );
    let script = Script::default();
    script.push("/robots.txt", Answer::ok(OPEN));
    script.push("/f.xml", Answer::ok(&without));
    script.push("/f.xml", Answer::ok(&with_image));
    let port = serve(script.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_with(dir.path(), as_profile("ffbot")).await;
    let feed = subscribe(&store, &format!("http://127.0.0.1:{port}/f.xml")).await;
    crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    let stored = store.feed(feed.id).await.unwrap().unwrap();
    assert_eq!(
        stored.thumbnail, None,
        "no image of its own: nothing selected"
    );
    crawler.refresh(&stored, Purpose::Scheduled).await.unwrap();
    let stored = store.feed(feed.id).await.unwrap().unwrap();
    let thumb = stored.thumbnail.expect("the channel image");
    assert_eq!(
        (thumb.url.as_str(), thumb.source.as_str()),
        ("https://pub.test/logo.png", "image")
    );
    assert!(thumb.shown);
    assert_eq!(thumb.why, "CC BY-SA 4.0 declared by the feed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dfb2_an_ai_crawler_group_over_an_entrys_own_page_keeps_its_excerpt_out() {
    let script = Script::default();
    let port = serve(script.clone()).await;
    let origin = format!("http://127.0.0.1:{port}");
    // AI crawlers may read the feed, not the articles under /news/.
    script.push(
        "/robots.txt",
        Answer::ok("User-agent: GPTBot\nDisallow: /news/\n"),
    );
    let item = |guid: &str, link: &str| {
        format!(
            "<item><guid>{guid}</guid><title>{guid}</title><link>{link}</link>\
             <description>A summary of {guid}.</description></item>"
        )
    };
    let body = format!(
        "<rss version=\"2.0\"><channel><title>Mixed</title><link>{origin}/</link>{}{}{}</channel></rss>",
        item("article", &format!("{origin}/news/cup")),
        item("page", &format!("{origin}/about/team")),
        item("elsewhere", "https://other.test/news/cup"),
    );
    script.push("/f.xml", Answer::ok(&body));
    let dir = tempfile::tempdir().unwrap();
    let (crawler, store) = crawler_with(dir.path(), as_profile("dailyfootballbot")).await;
    let feed = subscribe(&store, &format!("{origin}/f.xml")).await;
    crawler.refresh(&feed, Purpose::FirstAdd).await.unwrap();
    let summaries: std::collections::BTreeMap<String, Option<String>> = store
        .entries(&EntryQuery {
            feed: Some(feed.id),
            ..EntryQuery::default()
        })
        .await
        .unwrap()
        .into_iter()
        .map(|e| (e.entry.identity, e.entry.summary))
        .collect();
    assert_eq!(
        summaries["article"], None,
        "its page is closed to AI crawlers"
    );
    assert_eq!(summaries["page"].as_deref(), Some("A summary of page."));
    // Another origin's robots.txt was not read: nothing is known against it.
    assert_eq!(
        summaries["elsewhere"].as_deref(),
        Some("A summary of elsewhere.")
    );
}
