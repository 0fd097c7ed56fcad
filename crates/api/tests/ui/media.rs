//! Icons and images from tidings' own store: a kept site icon replaces the monogram and is
//! served from `/icons/{feed}` (SR1); a thumbnail is served from the image cache only under a
//! profile that caches images and while its licence decision shows it (FF8, FF9); enclosures
//! show as links with their type and size. The reader's browser never asks a publisher.

use crate::harness::Ui;
use crate::support::{dated, ok, t};
use tidings_model::{Enclosure, Entry, FeedId, SelectedImage};
use tidings_rights::{Directives, PageRecord};
use tidings_store::{EntryQuery, NewPage, ResourceFound};

/// A GIF's first bytes: ASCII, so the test client reads it as text.
const GIF: &[u8] = b"GIF89a-a-tiny-picture";
const ICO: &[u8] = b"\x00\x00\x01\x00\x01\x00";

/// Read every due resource of the store with `found` as its body.
async fn read_due(ui: &Ui, found: impl Fn() -> ResourceFound) {
    for job in ui.store.due_resources(t(5000), 100).await.unwrap() {
        ui.store
            .apply_resource(&crate::support::resource_done(job.id, found()))
            .await
            .unwrap();
    }
}

fn pictured(key: &str, shown: bool) -> Entry {
    let mut e = dated(key, t(60));
    e.selected_image = Some(SelectedImage {
        url: format!("https://img.example/{key}.gif"),
        source: "media:thumbnail".into(),
        width: Some(64),
        height: Some(48),
        credit: Some("Ana <Photo>".into()),
        licence: Some("https://creativecommons.org/licenses/by/4.0/".into()),
        shown,
        why: if shown {
            "CC BY 4.0 permits redistribution".into()
        } else {
            "all rights reserved".into()
        },
        ..SelectedImage::default()
    });
    e
}

async fn feed_with(ui: &Ui, at: i64, entries: Vec<Entry>) -> FeedId {
    let feed = ui.subscribe("https://example.org/feed.xml", "alice").await;
    ui.store
        .apply_fetch(ok(feed, t(at), entries))
        .await
        .unwrap();
    feed
}

async fn entry_id(ui: &Ui) -> i64 {
    ui.store.entries(&EntryQuery::default()).await.unwrap()[0].id
}

#[tokio::test]
async fn sr1_a_kept_site_icon_replaces_the_monogram_and_is_served_from_the_store() {
    let ui = Ui::with("serenereader", true).await;
    let feed = feed_with(&ui, 3600, vec![dated("one", t(60))]).await;
    // Before the icon is kept: the monogram, and no icon to serve.
    let home = ui.get("/", "").await;
    assert!(home.body.contains("<span class=\"icon m"), "{}", home.body);
    assert_eq!(ui.get(&format!("/icons/{feed}"), "").await.status, 404);

    let site = "https://example.org".to_owned();
    ui.store
        .queue_icons(
            feed,
            &site,
            &[format!("{site}/favicon.ico")],
            true,
            t(3600),
            "icon",
        )
        .await
        .unwrap();
    read_due(&ui, || ResourceFound::Icon {
        site: site.clone(),
        media_type: "image/x-icon".into(),
        body: ICO.to_vec(),
    })
    .await;

    let home = ui.get("/", "").await;
    let img = format!("<img class=\"icon kept\" src=\"/icons/{feed}\" alt=\"\">");
    assert!(home.body.contains(&img), "{}", home.body);
    let page = ui.get(&format!("/feeds/{feed}"), "").await;
    assert!(
        page.body.contains(&format!(
            "<img class=\"icon kept big\" src=\"/icons/{feed}\""
        )),
        "{}",
        page.body
    );
    let icon = ui.get(&format!("/icons/{feed}"), "").await;
    assert_eq!(icon.status, 200);
    assert_eq!(icon.header("content-type").as_deref(), Some("image/x-icon"));
    assert_eq!(
        icon.header("x-content-type-options").as_deref(),
        Some("nosniff")
    );
    assert_eq!(icon.body.as_bytes(), ICO);
    assert_eq!(ui.get("/icons/99", "").await.status, 404);
    assert_eq!(ui.get("/icons/x", "").await.status, 404);

    // The API names the path.
    let feeds = ui.get("/v1/feeds", "").await;
    let json: serde_json::Value = serde_json::from_str(&feeds.body).unwrap();
    assert_eq!(json["feeds"][0]["icon"], format!("/icons/{feed}"));
}

#[tokio::test]
async fn ff8_ff9_a_cached_thumbnail_is_shown_while_its_licence_permits_it() {
    let ui = Ui::with("ffbot", true).await;
    let feed = feed_with(&ui, 3600, vec![pictured("one", true)]).await;
    let id = entry_id(&ui).await;
    let url = "https://img.example/one.gif".to_owned();

    // Not cached yet: no figure, nothing served, no path in the API.
    let page = ui.get(&format!("/entries/{id}"), "").await;
    assert!(!page.body.contains("<figure"), "{}", page.body);
    assert_eq!(
        ui.get(&format!("/images/entries/{id}"), "").await.status,
        404
    );

    assert_eq!(
        ui.store
            .queue_images(feed, std::slice::from_ref(&url), t(3600), "FF9")
            .await
            .unwrap(),
        1
    );
    read_due(&ui, || ResourceFound::Image {
        media_type: "image/gif".into(),
        body: GIF.to_vec(),
    })
    .await;

    let page = ui.get(&format!("/entries/{id}"), "").await;
    assert!(
        page.body.contains(&format!(
            "<figure class=\"thumb\"><img src=\"/images/entries/{id}\" alt=\"\" width=\"64\" height=\"48\">"
        )),
        "{}",
        page.body
    );
    assert!(page.body.contains("Ana &lt;Photo&gt;"), "credit, escaped");
    assert!(
        !page.body.contains("img.example"),
        "the publisher's URL is not loaded"
    );
    let image = ui.get(&format!("/images/entries/{id}"), "").await;
    assert_eq!(image.status, 200);
    assert_eq!(image.header("content-type").as_deref(), Some("image/gif"));
    assert_eq!(image.body.as_bytes(), GIF);
    let listed = ui.get("/v1/entries", "").await;
    let json: serde_json::Value = serde_json::from_str(&listed.body).unwrap();
    assert_eq!(
        json["entries"][0]["image"]["cached"],
        format!("/images/entries/{id}")
    );

    // A refresh withdraws the permission: display goes at once, though the copy is held.
    ui.store
        .apply_fetch(ok(feed, t(7200), vec![pictured("one", false)]))
        .await
        .unwrap();
    assert_eq!(ui.store.cached_images(&[url]).await.unwrap().len(), 1);
    assert_eq!(
        ui.get(&format!("/images/entries/{id}"), "").await.status,
        404
    );
    let page = ui.get(&format!("/entries/{id}"), "").await;
    assert!(!page.body.contains("<figure"), "{}", page.body);
    let listed = ui.get("/v1/entries", "").await;
    let json: serde_json::Value = serde_json::from_str(&listed.body).unwrap();
    assert_eq!(
        json["entries"][0]["image"]["cached"],
        serde_json::Value::Null
    );
    assert_eq!(json["entries"][0]["image"]["shown"], false);

    // The operator sees the queue and the cache.
    let queue = ui.admin_page("/admin/queue").await;
    for shown in [
        "This profile requests: feed, robots, image, discovery.",
        "1 copy · 21 bytes of at most 268.4 MB · each at most 2.0 MB",
        "<td>image</td><td><code>https://img.example/one.gif</code></td><td>done</td>",
    ] {
        assert!(queue.contains(shown), "missing {shown:?}: {queue}");
    }
    assert_eq!(ui.get("/admin/queue", "").await.status, 303, "admins only");
}

#[tokio::test]
async fn ff9_a_profile_that_caches_no_images_serves_none() {
    let ui = Ui::start().await;
    let feed = feed_with(&ui, 3600, vec![pictured("one", true)]).await;
    let id = entry_id(&ui).await;
    ui.store
        .queue_images(
            feed,
            &["https://img.example/one.gif".into()],
            t(3600),
            "FF9",
        )
        .await
        .unwrap();
    read_due(&ui, || ResourceFound::Image {
        media_type: "image/gif".into(),
        body: GIF.to_vec(),
    })
    .await;
    assert_eq!(
        ui.get(&format!("/images/entries/{id}"), "").await.status,
        404
    );
    let page = ui.get(&format!("/entries/{id}"), "").await;
    assert!(!page.body.contains("<figure"), "{}", page.body);
}

#[tokio::test]
async fn enclosures_show_as_links_with_their_type_and_size() {
    let ui = Ui::start().await;
    let mut e = dated("episode", t(60));
    e.enclosures = vec![
        Enclosure {
            url: "https://cdn.example/show/ep-12.mp3".into(),
            media_type: Some("audio/mpeg".into()),
            length: Some(34_567_890),
        },
        Enclosure {
            url: "javascript:alert(1)".into(),
            media_type: Some("audio/mpeg".into()),
            length: None,
        },
    ];
    feed_with(&ui, 3600, vec![e]).await;
    let id = entry_id(&ui).await;
    let page = ui.get(&format!("/entries/{id}"), "").await;
    assert!(
        page.body.contains(
            "<li><a href=\"https://cdn.example/show/ep-12.mp3\" rel=\"noopener noreferrer nofollow\">\
             ep-12.mp3</a> <span class=\"meta\">(audio/mpeg, 34.6 MB)</span></li>"
        ),
        "{}",
        page.body
    );
    assert!(!page.body.contains("javascript:"), "{}", page.body);
}

/// Queue entry `one`'s article page (SR1).
async fn queue_page(ui: &Ui, feed: FeedId) {
    let page = NewPage {
        entry_key: "one".into(),
        url: "https://example.org/one".into(),
    };
    ui.store
        .queue_pages(feed, &[page], t(3600), "SR1")
        .await
        .unwrap();
}

/// A read article page (SR1, FF6): its preview image, and what was recorded of the page.
fn page_read(description: &str, directives: &str) -> ResourceFound {
    ResourceFound::Page {
        preview: Some(SelectedImage {
            url: "https://cdn.example.org/cover.jpg".into(),
            source: "og:image".into(),
            width: Some(1200),
            height: Some(630),
            shown: true,
            why: "SR1: the og:image of the entry's article page".into(),
            ..SelectedImage::default()
        }),
        record: Box::new(PageRecord {
            title: Some("The <long> read".into()),
            description: Some(description.into()),
            language: Some("en".into()),
            licences: vec![
                "https://creativecommons.org/licenses/by/4.0/".into(),
                "javascript:alert(1)".into(),
            ],
            terms: vec!["https://example.org/terms".into()],
            directives: Directives::parse_list(directives),
            tdm_reservation: None,
            truncated: false,
        }),
    }
}

#[tokio::test]
async fn sr1_ff6_an_article_pages_preview_shows_as_a_card_that_loads_nothing_from_the_publisher() {
    let ui = Ui::with("serenereader", true).await;
    let feed = feed_with(&ui, 3600, vec![dated("one", t(60))]).await;
    let id = entry_id(&ui).await;
    let page = ui.get(&format!("/entries/{id}"), "").await;
    assert!(!page.body.contains("class=\"preview\""), "{}", page.body);

    queue_page(&ui, feed).await;
    read_due(&ui, || page_read("Ships <b>and</b> gulls, at length.", "")).await;

    let page = ui.get(&format!("/entries/{id}"), "").await;
    let body = &page.body;
    assert!(body.contains("<aside class=\"preview\">"), "{body}");
    assert!(
        body.contains("The &lt;long&gt; read"),
        "title escaped: {body}"
    );
    assert!(
        body.contains("Ships &lt;b&gt;and&lt;/b&gt; gulls, at length."),
        "description escaped: {body}"
    );
    assert!(
        body.contains(
            "Preview image (1200×630): <a href=\"https://cdn.example.org/cover.jpg\" \
             rel=\"noopener noreferrer nofollow\">cdn.example.org</a>"
        ),
        "{body}"
    );
    assert!(
        !body.contains("<img src=\"https://cdn.example.org"),
        "the image is never loaded from the publisher"
    );
    assert!(
        body.contains(
            "Page licence: <a href=\"https://creativecommons.org/licenses/by/4.0/\" \
             rel=\"license noopener noreferrer nofollow\">"
        ),
        "{body}"
    );
    assert!(!body.contains("javascript:"), "only web links: {body}");
    assert!(
        body.contains("Terms: <a href=\"https://example.org/terms\""),
        "{body}"
    );

    // The API carries the record.
    let listed = ui.get("/v1/entries", "").await;
    let json: serde_json::Value = serde_json::from_str(&listed.body).unwrap();
    let got = &json["entries"][0];
    assert_eq!(got["preview"]["url"], "https://cdn.example.org/cover.jpg");
    assert_eq!(got["page"]["title"], "The <long> read");
    assert_eq!(got["page"]["terms"][0], "https://example.org/terms");
    assert_eq!(got["page"]["directives"], "");
}

#[tokio::test]
async fn ff14_a_page_that_limits_snippets_shows_as_little_of_its_description() {
    for (directives, shown, hidden) in [
        ("nosnippet", None, "Ships and gulls"),
        ("max-snippet:5", Some("<p>Ships</p>"), "Ships and"),
    ] {
        let ui = Ui::with("serenereader", true).await;
        let feed = feed_with(&ui, 3600, vec![dated("one", t(60))]).await;
        let id = entry_id(&ui).await;
        queue_page(&ui, feed).await;
        read_due(&ui, || page_read("Ships and gulls", directives)).await;
        let body = ui.get(&format!("/entries/{id}"), "").await.body;
        assert!(
            body.contains("<aside class=\"preview\">"),
            "{directives}: {body}"
        );
        assert!(!body.contains(hidden), "{directives}: {body}");
        if let Some(shown) = shown {
            assert!(body.contains(shown), "{directives}: {body}");
        }
    }
}
