//! The reader's pages: lists, one feed, one entry (sanitised or plain text), search, paging,
//! and the headers and error pages of every page.

use crate::harness::{Page, Ui};
use crate::support::{dated, ok, t};
use tidings_api::ui::CSP;
use tidings_model::{Entry, FeedId};
use tidings_store::StoredEntry;

async fn entries(ui: &Ui) -> Vec<StoredEntry> {
    ui.stored_entries().await
}

/// One feed read once with `entries`.
async fn feed_with(ui: &Ui, entries: Vec<Entry>) -> FeedId {
    let feed = ui.subscribe("https://example.org/feed.xml", "alice").await;
    ui.store
        .apply_fetch(ok(feed, t(3600), entries))
        .await
        .expect("apply fetch");
    feed
}

#[tokio::test]
async fn entries_and_feeds_render() {
    let ui = Ui::start().await;
    let feed = feed_with(&ui, vec![dated("one", t(60)), dated("two", t(120))]).await;

    let home = ui.get("/", "").await;
    assert_eq!(home.status, 200, "{}", home.body);
    let two = home.body.find("Title two").expect("newest entry listed");
    let one = home.body.find("Title one").expect("older entry listed");
    assert!(two < one, "newest first");
    assert!(home.body.contains("<h2>Subscriptions</h2>"));
    assert!(
        home.body
            .contains(&format!("<a href=\"/feeds/{feed}\">A feed</a>")),
        "the subscription is listed: {}",
        home.body
    );
    assert!(
        home.body.contains("<span class=\"icon m"),
        "a monogram icon"
    );
    assert!(!home.body.contains("<img"), "no image is loaded");
    assert!(
        !home.body.contains("Older entries"),
        "one page holds them all"
    );

    let page = ui.get(&format!("/feeds/{feed}"), "").await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("<h1>A feed</h1>"));
    assert!(
        page.body
            .contains("<span class=\"state-active\">active</span>")
    );
    assert!(page.body.contains("interval 1h"), "the next read's reason");
    assert!(page.body.contains("Title one") && page.body.contains("Title two"));

    let stored = entries(&ui).await;
    let entry = stored
        .iter()
        .find(|e| e.entry.identity == "one")
        .expect("stored");
    let page = ui.get(&format!("/entries/{}", entry.id), "").await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("<h1>Title one</h1>"));
    assert!(page.body.contains("Summary of one"));
    assert!(page.body.contains(
        "<a href=\"https://example.org/one\" rel=\"noopener noreferrer nofollow\">Read the original</a>"
    ));
    assert!(
        page.body
            .contains(&format!("<a href=\"/feeds/{feed}\">A feed</a>"))
    );
    assert!(page.body.contains("2026-01-01 00:01 UTC"), "the date");
}

/// An entry whose title and content try everything.
fn hostile() -> Entry {
    Entry {
        title: Some("<script>alert('title')</script> Breaking".to_owned()),
        link: Some("javascript:alert('link')".to_owned()),
        content: Some(
            "<p style=\"position:fixed\" onmouseover=\"alert('hover')\">Kept <b>bold</b> text</p>\
             <script>alert('script')</script>\
             <img src=\"https://tracker.example/pixel.gif\" onerror=\"alert('img')\">\
             <a href=\"javascript:alert('href')\">bad link</a>\
             <a href=\"https://good.example/page\">good link</a>\
             <iframe src=\"https://evil.example/\"></iframe>\
             <style>body { display: none }</style>\
             <svg onload=\"alert('svg')\"><circle r=\"1\"/></svg>"
                .to_owned(),
        ),
        ..dated("hostile", t(60))
    }
}

#[tokio::test]
async fn a_hostile_entry_comes_out_sanitised() {
    let ui = Ui::start().await;
    feed_with(&ui, vec![hostile()]).await;
    let id = entries(&ui).await[0].id;
    let page = ui.get(&format!("/entries/{id}"), "").await;
    assert_eq!(page.status, 200, "{}", page.body);
    // The title is shown, as text; the content keeps nothing active.
    let lower = crate::harness::without_our_script(&page.body).to_ascii_lowercase();
    assert!(!lower.contains("<script"), "{}", page.body);
    let body = lower
        .split("<div class=\"content\">")
        .nth(1)
        .and_then(|c| c.split("</div>").next())
        .expect("the content")
        .to_owned();
    for bad in [
        "<script",
        "alert(",
        "onmouseover",
        "onerror",
        "onload",
        "javascript:",
        "<iframe",
        "evil.example",
        "<style",
        "style=",
        "<img",
        "tracker.example",
        "<svg",
    ] {
        assert!(!body.contains(bad), "{bad} survived: {body}");
    }
    assert!(page.body.contains("Kept <b>bold</b> text"), "{}", page.body);
    assert!(
        page.body.contains(
            "<a href=\"https://good.example/page\" rel=\"noopener noreferrer nofollow\">good link</a>"
        ),
        "{}",
        page.body
    );
    assert!(
        page.body
            .contains("&lt;script&gt;alert(&#39;title&#39;)&lt;/script&gt; Breaking"),
        "the title is text"
    );
    assert!(
        !page.body.contains("Read the original"),
        "a javascript: link is no link"
    );
    assert!(page.body.contains("not shown here"), "images are mentioned");
    // The list shows the title as text too.
    let home = ui.get("/", "").await;
    assert!(
        !crate::harness::without_our_script(&home.body).contains("<script"),
        "{}",
        home.body
    );
}

#[tokio::test]
async fn pf12_the_plainfeeder_profile_shows_content_as_plain_text() {
    let content = Entry {
        content: Some(
            "<p>Hello <b>bold</b> &amp; <a href=\"https://x.example/\">linked</a> world</p>"
                .to_owned(),
        ),
        ..dated("plain", t(60))
    };
    let plain = Ui::with("plainfeeder", true).await;
    feed_with(&plain, vec![content.clone()]).await;
    let id = entries(&plain).await[0].id;
    let page = plain.get(&format!("/entries/{id}"), "").await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains("Hello bold &amp; linked world"),
        "{}",
        page.body
    );
    assert!(!page.body.contains("<b>"), "tags are not rendered");
    assert!(!page.body.contains("https://x.example/"), "nor links");

    // The default profile shows the same entry as HTML.
    let html = Ui::start().await;
    feed_with(&html, vec![content]).await;
    let id = entries(&html).await[0].id;
    let page = html.get(&format!("/entries/{id}"), "").await;
    assert!(page.body.contains("Hello <b>bold</b>"), "{}", page.body);
}

#[tokio::test]
async fn pages_of_entries_follow_the_keyset_cursor() {
    let ui = Ui::start().await;
    let many: Vec<Entry> = (0..35)
        .map(|i| dated(&format!("e{i:02}"), t(60 * (i + 1))))
        .collect();
    feed_with(&ui, many).await;
    let first = ui.get("/", "").await;
    assert_eq!(first.status, 200);
    assert!(first.body.contains("Title e34") && first.body.contains("Title e05"));
    assert!(!first.body.contains("Title e04"), "30 on the first page");
    let start = first.body.find("/?before=").expect("an older link");
    let end = first.body[start..].find('"').expect("end of link") + start;
    let older = ui.get(&first.body[start..end], "").await;
    assert_eq!(older.status, 200, "{}", older.body);
    for i in 0..5 {
        assert!(older.body.contains(&format!("Title e0{i}")), "e0{i}");
    }
    assert!(!older.body.contains("Title e05"), "no entry twice");
    assert!(!older.body.contains("Older entries"), "the last page");
}

#[tokio::test]
async fn search_finds_an_entry_by_a_word_in_its_title() {
    let ui = Ui::start().await;
    let zebra = Entry {
        title: Some("Zebra crossing reopens".to_owned()),
        ..dated("zebra", t(60))
    };
    feed_with(&ui, vec![zebra, dated("other", t(120))]).await;
    let page = ui.get("/search?q=zebra", "").await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains("Zebra crossing reopens"),
        "{}",
        page.body
    );
    assert!(!page.body.contains("Title other"));
    let none = ui.get("/search?q=giraffe", "").await;
    assert!(none.body.contains("No entry matches"));
    let form = ui.get("/search", "").await;
    assert_eq!(form.status, 200);
    assert!(
        form.body
            .contains("<label>Words in the title, summary or text")
    );
    let hostile = ui.get("/search?q=%3Cscript%3Ex", "").await;
    assert_eq!(hostile.status, 200);
    assert!(
        !crate::harness::without_our_script(&hostile.body).contains("<script"),
        "{}",
        hostile.body
    );
    assert!(hostile.body.contains("&lt;script&gt;x"));
}

fn assert_strict(path: &str, page: &Page) {
    assert!(page.status < 500, "{path}: {} {}", page.status, page.body);
    assert_eq!(
        page.header("content-security-policy").as_deref(),
        Some(CSP),
        "{path}"
    );
    assert_eq!(
        page.header("x-content-type-options").as_deref(),
        Some("nosniff"),
        "{path}"
    );
    assert_eq!(
        page.header("referrer-policy").as_deref(),
        Some("no-referrer"),
        "{path}"
    );
}

#[tokio::test]
async fn every_ui_page_carries_the_csp_and_the_other_headers() {
    let ui = Ui::start().await;
    let feed = feed_with(&ui, vec![dated("one", t(60))]).await;
    let entry = entries(&ui).await[0].id;
    assert_eq!(
        CSP,
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
         form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    );
    let admin = Ui::cookie(&ui.admin);
    for (path, cookie, status) in [
        ("/".to_owned(), "", 200),
        (format!("/feeds/{feed}"), "", 200),
        (format!("/entries/{entry}"), "", 200),
        ("/search?q=title".to_owned(), "", 200),
        ("/login".to_owned(), "", 200),
        ("/logout".to_owned(), "", 200),
        ("/subscribe".to_owned(), admin.as_str(), 200),
        ("/admin".to_owned(), admin.as_str(), 200),
        ("/admin/errors".to_owned(), admin.as_str(), 200),
        ("/admin/log".to_owned(), admin.as_str(), 200),
        ("/admin/rules".to_owned(), admin.as_str(), 200),
        ("/admin/hosts/example.org".to_owned(), admin.as_str(), 200),
        ("/admin".to_owned(), "", 303),
        ("/no/such/page".to_owned(), "", 404),
        ("/entries/999999".to_owned(), "", 404),
        ("/feeds/999999".to_owned(), "", 404),
        ("/entries/x".to_owned(), "", 400),
        ("/feeds/-1".to_owned(), "", 400),
        ("/?before=not-a-cursor".to_owned(), "", 400),
        ("/admin/log?feed=x".to_owned(), admin.as_str(), 400),
        ("/admin/hosts/a%20b".to_owned(), admin.as_str(), 400),
    ] {
        let page = ui.get(&path, cookie).await;
        assert_eq!(page.status, status, "GET {path}: {}", page.body);
        assert_strict(&path, &page);
        if status != 303 {
            assert_eq!(
                page.header("content-type").as_deref(),
                Some("text/html; charset=utf-8"),
                "{path}"
            );
            assert!(page.body.starts_with("<!DOCTYPE html>"), "{path}: a page");
            assert!(page.body.contains("<html lang=\"en\">"), "{path}");
            assert!(page.body.contains("name=\"viewport\""), "{path}");
        }
    }
    let css = ui.get("/ui.css?v=test", "").await;
    assert_eq!(css.status, 200);
    assert_eq!(
        css.header("content-type").as_deref(),
        Some("text/css; charset=utf-8")
    );
    assert!(
        css.header("cache-control")
            .unwrap_or_default()
            .contains("max-age=31536000")
    );
    assert!(
        css.body.contains("@media (max-width: 600px)"),
        "one column on phones"
    );
    assert!(css.body.contains(":focus-visible"), "focus is visible");
}

#[tokio::test]
async fn ff16_an_expired_entry_is_kept_from_readers() {
    let ui = Ui::start().await;
    let expired = Entry {
        expires: Some(t(100)),
        ..dated("gone", t(60))
    };
    feed_with(&ui, vec![expired, dated("kept", t(120))]).await;
    let home = ui.get("/", "").await;
    assert!(home.body.contains("Title kept"));
    assert!(!home.body.contains("Title gone"), "not listed");
    let search = ui.get("/search?q=gone", "").await;
    assert!(search.body.contains("No entry matches"), "not found");
    let id = entries(&ui)
        .await
        .iter()
        .find(|e| e.entry.identity == "gone")
        .expect("stored")
        .id;
    let page = ui.get(&format!("/entries/{id}"), "").await;
    assert_eq!(page.status, 404, "{}", page.body);
    assert!(!page.body.contains("Summary of gone"));
    let page = ui.admin_page(&format!("/entries/{id}")).await;
    assert!(page.contains("Summary of gone") && page.contains("Expired (FF16)"));
}

#[tokio::test]
async fn ff14_a_feeds_directives_show_on_its_page() {
    use tidings_rights::Directives;
    use tidings_rights::directive::Change;
    let ui = Ui::start().await;
    let feed = feed_with(&ui, vec![dated("one", t(60))]).await;
    let page = ui.get(&format!("/feeds/{feed}"), "").await;
    assert!(
        !page.body.contains("<dt>Directives</dt>"),
        "none: not shown"
    );
    let mut read = ok(feed, t(7200), Vec::new());
    read.update.directives = Some(Change {
        seen: Directives::parse_list("noindex, nosnippet"),
        current: Directives::parse_list("noindex, nosnippet"),
        full: true,
    });
    ui.store.apply_fetch(read).await.expect("apply fetch");
    let page = ui.get(&format!("/feeds/{feed}"), "").await;
    assert!(
        page.body
            .contains("<dt>Directives</dt><dd>noindex, nosnippet (the feed"),
        "{}",
        page.body
    );
    assert!(page.body.contains(&format!("/v1/feeds/{feed}/directives")));

    // A 304 adds nosnippet's sibling; an admin sees each change on its own page.
    let mut read = ok(feed, t(10_800), Vec::new());
    read.update.directives = Some(Change {
        seen: Directives::parse_list("noarchive"),
        current: Directives::parse_list("noindex, nosnippet, noarchive"),
        full: false,
    });
    ui.store.apply_fetch(read).await.expect("apply fetch");
    let shown = ui.admin_page(&format!("/feeds/{feed}")).await;
    assert!(
        shown.contains(&format!(
            "<a href=\"/admin/feeds/{feed}/directives\">history</a>"
        )),
        "{shown}"
    );
    let history = ui
        .admin_page(&format!("/admin/feeds/{feed}/directives"))
        .await;
    assert!(history.contains("The newest 2 changes"), "{history}");
    let rows: Vec<&str> = history.split("<tr><td>").skip(1).collect();
    assert_eq!(rows.len(), 2, "{history}");
    assert!(
        rows[0].contains("<td>304</td><td>noarchive</td><td>noindex, nosnippet, noarchive</td>"),
        "newest first: {}",
        rows[0]
    );
    assert!(
        rows[1].contains("<td>full</td><td>noindex, nosnippet</td><td>noindex, nosnippet</td>"),
        "{}",
        rows[1]
    );
    // Readers do not see the operator's page; an unknown feed is a 404.
    let as_reader = ui
        .get(
            &format!("/admin/feeds/{feed}/directives"),
            &Ui::cookie(&ui.reader),
        )
        .await;
    assert_eq!(as_reader.status, 403, "{}", as_reader.body);
    let missing = ui
        .get("/admin/feeds/999/directives", &Ui::cookie(&ui.admin))
        .await;
    assert_eq!(missing.status, 404);
}

#[tokio::test]
async fn ff10_an_entrys_publisher_metadata_shows_on_its_page() {
    let ui = Ui::start().await;
    let mut e = dated("meta", t(60));
    e.categories = vec!["harbour".into()];
    e.keywords = vec!["boats".into()];
    e.contributors = vec![tidings_model::Author {
        name: Some("Bea <b>".into()),
        ..Default::default()
    }];
    e.source = Some(tidings_model::Source {
        title: Some("The Coast Times".into()),
        link: Some("https://coast.example/".into()),
        url: None,
    });
    e.rights = Some("© 2026 The Coast Times".into());
    e.license = Some("https://creativecommons.org/licenses/by/4.0/".into());
    feed_with(&ui, vec![e]).await;
    let id = entries(&ui).await[0].id;
    let page = ui.get(&format!("/entries/{id}"), "").await;
    assert_eq!(page.status, 200, "{}", page.body);
    for shown in [
        "Filed under: harbour",
        "Keywords: boats",
        "With: Bea &lt;b&gt;",
        "From: <a href=\"https://coast.example/\" rel=\"noopener noreferrer nofollow\">The Coast Times</a>",
        "Rights: © 2026 The Coast Times",
        "Licence: <a href=\"https://creativecommons.org/licenses/by/4.0/\" rel=\"license",
    ] {
        assert!(
            page.body.contains(shown),
            "missing {shown:?}: {}",
            page.body
        );
    }
}

#[tokio::test]
async fn the_sidebar_sorts_feed_titles_as_people_read_them() {
    let ui = Ui::start().await;
    for (n, title) in ["Feed 10", "feed 2", "Feed 1", "Álbum", "Zeta"]
        .into_iter()
        .enumerate()
    {
        let feed = ui
            .subscribe(&format!("https://example.org/{n}.xml"), "alice")
            .await;
        let mut read = ok(feed, t(3600), Vec::new());
        if let Some(meta) = read.update.meta.as_mut() {
            meta.title = Some(title.to_owned());
        }
        ui.store.apply_fetch(read).await.expect("apply fetch");
    }
    let home = ui.get("/", "").await.body;
    let side = home
        .split("<ul class=\"feeds\">")
        .nth(1)
        .expect("the sidebar");
    let order: Vec<usize> = ["Álbum", "Feed 1<", "feed 2", "Feed 10", "Zeta"]
        .iter()
        .map(|t| side.find(t).unwrap_or_else(|| panic!("{t} in {side}")))
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{side}");
}
