//! An account's reader in the web UI (issue 15): a password login opens a web session; the
//! account sees only its own feeds, with unread counts and folders; opening an entry marks it
//! read; stars, "mark all read" up to the page's time, rename and move, read now, unsubscribe,
//! OPML import and export, all as plain forms.

use crate::harness::{OUR_SCRIPT, Ui, form_value};
use crate::support::{dated, ok, t};
use chrono::{Duration, Utc};
use tidings_model::FeedId;

const PASSWORD: &str = "correct horse battery";

/// The id of the stored entry with key `key`.
async fn entry_id(ui: &Ui, key: &str) -> i64 {
    ui.stored_entries()
        .await
        .into_iter()
        .find(|e| e.entry.identity == key)
        .unwrap_or_else(|| panic!("no entry {key}"))
        .id
}

/// Subscribe through the UI's form as `cookie`; the feed's id.
async fn subscribe(ui: &Ui, cookie: &str, url: &str, folder: &str) -> FeedId {
    let form = format!("url={}&folder={}", form_value(url), form_value(folder));
    let page = ui.post_as(cookie, "/subscribe", &form).await;
    assert_eq!(page.status, 303, "{}", page.body);
    let location = page.location();
    let id = location
        .strip_prefix("/feeds/")
        .and_then(|rest| rest.split('?').next())
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("to the feed's page: {location}"));
    FeedId(id)
}

/// The unread count the side column shows after `name` (none when zero).
fn side_count(body: &str, name: &str) -> Option<u64> {
    let side = body.split("<main").next().expect("a side column first");
    let at = side.find(&format!(">{name}</a>"))?;
    let rest = &side[at..];
    let end = rest.find("</li>").or_else(|| rest.find("</h3>"))?;
    let item = &rest[..end];
    item.split("title=\"unread\">")
        .nth(1)
        .and_then(|c| c.split('<').next())
        .and_then(|c| c.parse().ok())
}

#[tokio::test]
async fn an_account_logs_in_reads_its_own_feeds_and_marks_them() {
    let ui = Ui::with("default", false).await;
    ui.account("ana", PASSWORD, false).await;

    // Reading needs a login by default.
    let page = ui.get("/", "").await;
    assert_eq!(page.status, 303);
    assert_eq!(page.location(), "/login?next=/");

    // A wrong password: the same answer as an unknown name, and no cookie.
    let origin = format!("Origin: http://{}\r\n", ui.addr);
    for form in [
        "name=ana&password=wrong+password".to_owned(),
        format!("name=nobody&password={}", form_value(PASSWORD)),
    ] {
        let page = ui.post("/login", &form, &origin).await;
        assert_eq!(page.status, 401, "{form}");
        assert!(page.header("set-cookie").is_none(), "{form}");
        assert!(page.body.contains("do not match an account"), "{form}");
    }
    let ana = ui.login("ana", PASSWORD).await;
    assert!(!ana.contains(PASSWORD));

    // Subscribe into a folder; another subscriber's feed is not hers.
    let mine = subscribe(&ui, &ana, "https://a.example/feed.xml", "News").await;
    let theirs = ui.subscribe("https://b.example/feed.xml", "alice").await;
    ui.store
        .apply_fetch(ok(
            mine,
            t(3600),
            vec![dated("a1", t(60)), dated("a2", t(120)), dated("a3", t(180))],
        ))
        .await
        .expect("read a");
    ui.store
        .apply_fetch(ok(theirs, t(3600), vec![dated("b1", t(60))]))
        .await
        .expect("read b");

    let home = ui.get("/", &ana).await;
    assert_eq!(home.status, 200, "{}", home.body);
    assert!(home.body.contains("Unread entries"), "{}", home.body);
    assert!(home.body.contains("Title a3") && home.body.contains("Title a1"));
    assert!(!home.body.contains("Title b1"), "only her feeds");
    assert_eq!(side_count(&home.body, "News"), Some(3), "{}", home.body);
    assert_eq!(side_count(&home.body, "All"), Some(3));
    assert!(home.body.contains(OUR_SCRIPT), "the shortcuts' script");
    assert!(home.body.contains("id=\"shortcuts\""), "and their list");
    let (a3, a2, b1) = (
        entry_id(&ui, "a3").await,
        entry_id(&ui, "a2").await,
        entry_id(&ui, "b1").await,
    );
    // Another subscriber's entry is not hers to open.
    assert_eq!(ui.get(&format!("/entries/{b1}"), &ana).await.status, 404);

    // Opening an entry marks it read; its page offers the way back and its neighbours.
    let page = ui.get(&format!("/entries/{a2}"), &ana).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("Mark unread"), "{}", page.body);
    assert!(
        page.body
            .contains(&format!("href=\"/entries/{a3}\" rel=\"prev\""))
    );
    let home = ui.get("/", &ana).await;
    assert_eq!(side_count(&home.body, "News"), Some(2));
    assert!(
        !home.body.contains("Title a2"),
        "read: not in the unread list"
    );
    let all = ui.get("/?show=all", &ana).await;
    assert!(all.body.contains("Title a2"), "but in all");

    // Mark it unread again, and star another.
    let back = form_value("/?show=all");
    let page = ui
        .post_as(
            &ana,
            "/reading/mark",
            &format!("entry={a2}&read=0&back={back}"),
        )
        .await;
    assert_eq!((page.status, page.location().as_str()), (303, "/?show=all"));
    let page = ui
        .post_as(
            &ana,
            "/reading/mark",
            &format!("entry={a3}&star=1&back=%2F"),
        )
        .await;
    assert_eq!(page.status, 303, "{}", page.body);
    let starred = ui.get("/?show=starred", &ana).await;
    assert!(starred.body.contains("Title a3"), "{}", starred.body);
    assert!(!starred.body.contains("Title a2"));
    assert!(
        starred.body.contains("aria-pressed=\"true\""),
        "shown as starred"
    );
    assert_eq!(side_count(&ui.get("/", &ana).await.body, "News"), Some(3));
    // A mark of someone else's entry changes nothing; a bad form is a 400.
    let page = ui
        .post_as(&ana, "/reading/mark", &format!("entry={b1}&read=1"))
        .await;
    assert_eq!(page.status, 303);
    let page = ui
        .post_as(&ana, "/reading/mark", &format!("entry={a3}&read=yes"))
        .await;
    assert_eq!(page.status, 400);

    // Mark all read up to a time: what arrived later stays unread.
    let later = t(7200);
    ui.store
        .apply_fetch(ok(mine, later, vec![dated("a4", t(240))]))
        .await
        .expect("read a again");
    let page = ui
        .post_as(
            &ana,
            "/reading/mark-all-read",
            &format!(
                "folder=News&up_to={}&back=%2F",
                form_value(&t(5400).to_rfc3339())
            ),
        )
        .await;
    assert_eq!(page.status, 303, "{}", page.body);
    let home = ui.get("/", &ana).await;
    assert_eq!(side_count(&home.body, "News"), Some(1), "{}", home.body);
    assert!(home.body.contains("Title a4"));
    // Everything, up to the time the page was made.
    let up_to = Utc::now().to_rfc3339();
    let page = ui
        .post_as(
            &ana,
            "/reading/mark-all-read",
            &format!("up_to={}", form_value(&up_to)),
        )
        .await;
    assert_eq!(page.status, 303);
    let home = ui.get("/", &ana).await;
    assert!(home.body.contains("Nothing unread here."), "{}", home.body);
    assert_eq!(side_count(&home.body, "All"), None);
    let starred = ui.get("/?show=starred", &ana).await;
    assert!(starred.body.contains("Title a3"), "stars stay");

    // Logging out ends the session: the cookie is no login any more.
    let page = ui.post_as(&ana, "/logout", "").await;
    assert_eq!((page.status, page.location().as_str()), (303, "/login"));
    let page = ui.get("/", &ana).await;
    assert_eq!(page.status, 303);
    assert_eq!(page.location(), "/login?next=/&why=stale");
}

#[tokio::test]
async fn a_subscription_is_renamed_moved_read_sooner_and_left() {
    let ui = Ui::with("default", false).await;
    ui.account("bo", PASSWORD, false).await;
    let bo = ui.login("bo", PASSWORD).await;
    let feed = subscribe(&ui, &bo, "https://a.example/feed.xml", "").await;
    // Read ten minutes ago; due again in fifty.
    let last = Utc::now() - Duration::minutes(10);
    ui.store
        .apply_fetch(ok(feed, last, vec![dated("a1", t(60))]))
        .await
        .expect("read");

    let page = ui
        .post_as(
            &bo,
            &format!("/feeds/{feed}/subscription"),
            &format!("title=Morning+paper&folder=Tech&back=%2Ffeeds%2F{feed}"),
        )
        .await;
    assert_eq!(page.status, 303, "{}", page.body);
    let home = ui.get("/", &bo).await;
    assert!(home.body.contains(">Tech</a>"), "{}", home.body);
    assert_eq!(side_count(&home.body, "Morning paper"), Some(1));
    assert_eq!(side_count(&home.body, "Tech"), Some(1));

    // Read now: not sooner than the profile's shortest interval after the last read.
    let page = ui
        .post_as(
            &bo,
            &format!("/feeds/{feed}/read-now"),
            &format!("back=%2Ffeeds%2F{feed}"),
        )
        .await;
    assert_eq!(page.location(), format!("/feeds/{feed}?read=soon"));
    let record = ui.store.feed(feed).await.unwrap().unwrap();
    let min = Duration::seconds(900);
    assert!(
        (record.next_fetch_at - (last + min))
            .num_milliseconds()
            .abs()
            < 2,
        "{} vs {}",
        record.next_fetch_at,
        last + min
    );
    assert_eq!(
        record.next_fetch_reason,
        tidings_policy::schedule::READ_NOW_REASON
    );
    let page = ui.get(&format!("/feeds/{feed}?read=soon"), &bo).await;
    assert!(page.body.contains("shortest interval"), "{}", page.body);
    // Asked again: nothing moves.
    let page = ui
        .post_as(&bo, &format!("/feeds/{feed}/read-now"), "back=%2F")
        .await;
    assert_eq!(page.location(), "/?read=kept");

    // Unsubscribe: gone from the side column; the feed stays for the others.
    let page = ui
        .post_as(&bo, &format!("/feeds/{feed}/unsubscribe"), "")
        .await;
    assert_eq!(
        (page.status, page.location().as_str()),
        (303, "/?unsubscribed=1")
    );
    let home = ui.get("/?unsubscribed=1", &bo).await;
    assert!(!home.body.contains("Morning paper"), "{}", home.body);
    assert!(home.body.contains("Unsubscribed."), "{}", home.body);
    assert_eq!(ui.get(&format!("/feeds/{feed}"), &bo).await.status, 404);
}

#[tokio::test]
async fn opml_comes_in_and_goes_out_with_its_folders() {
    let ui = Ui::with("default", false).await;
    ui.account("cy", PASSWORD, false).await;
    let cy = ui.login("cy", PASSWORD).await;
    assert_eq!(ui.get("/import", &cy).await.status, 200);
    let opml = "<?xml version=\"1.0\"?><opml version=\"2.0\"><body>\
        <outline text=\"Loose\" xmlUrl=\"https://a.example/feed.xml\"/>\
        <outline text=\"Science\"><outline text=\"Stars\" xmlUrl=\"https://b.example/rss\"/>\
        <outline text=\"Bad\" xmlUrl=\"not a url\"/></outline></body></opml>";
    let page = ui.upload(&cy, "/import", "opml", opml).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("Imported 2 of 3 feeds"), "{}", page.body);
    assert!(
        page.body.contains("Not subscribed: not a url"),
        "{}",
        page.body
    );
    let home = ui.get("/?show=all", &cy).await;
    assert!(home.body.contains(">Science</a>"), "{}", home.body);

    let page = ui.get("/export.opml", &cy).await;
    assert_eq!(page.status, 200);
    assert!(
        page.header("content-type")
            .unwrap()
            .starts_with("text/x-opml")
    );
    assert!(page.body.contains("https://b.example/rss"), "{}", page.body);
    assert!(page.body.contains("text=\"Science\""), "{}", page.body);

    // Not OPML: said, nothing subscribed.
    let page = ui.upload(&cy, "/import", "opml", "<html></html>").await;
    assert_eq!(page.status, 400, "{}", page.body);
    let page = ui.upload(&cy, "/import", "other", opml).await;
    assert_eq!(page.status, 400, "{}", page.body);
}

#[tokio::test]
async fn reading_state_needs_an_account_and_a_same_site_form() {
    let ui = Ui::with("default", false).await;
    ui.account("di", PASSWORD, false).await;
    let di = ui.login("di", PASSWORD).await;
    let feed = subscribe(&ui, &di, "https://a.example/feed.xml", "").await;
    ui.store
        .apply_fetch(ok(feed, t(3600), vec![dated("a1", t(60))]))
        .await
        .expect("read");
    let a1 = entry_id(&ui, "a1").await;

    // An operator's key has no reading state.
    let page = ui
        .admin_post("/reading/mark", &format!("entry={a1}&read=1"))
        .await;
    assert_eq!(page.status, 403, "{}", page.body);
    assert!(page.body.contains("Account needed"));
    // Another site cannot mark for her.
    let page = ui
        .post(
            "/reading/mark",
            &format!("entry={a1}&read=1"),
            &format!("{di}Origin: http://evil.example\r\n"),
        )
        .await;
    assert_eq!(page.status, 403);
    assert_eq!(side_count(&ui.get("/", &di).await.body, "All"), Some(1));
    // Without a login: to the login page.
    let page = ui
        .post(
            "/reading/mark",
            &format!("entry={a1}&read=1"),
            &format!("Origin: http://{}\r\n", ui.addr),
        )
        .await;
    assert_eq!(page.status, 303);
    assert!(page.location().starts_with("/login"));

    // The script the pages load is ours, and only ours.
    let script = ui.get("/ui.js", "").await;
    assert_eq!(script.status, 200);
    assert!(
        script
            .header("content-type")
            .unwrap()
            .starts_with("text/javascript")
    );
    let csp = ui.get("/login", "").await.header("content-security-policy");
    assert!(csp.unwrap().contains("script-src 'self'"));
}

#[tokio::test]
async fn an_admin_account_opens_any_feed_a_reader_only_its_own() {
    let ui = Ui::with("default", false).await;
    ui.account("root", PASSWORD, true).await;
    ui.account("eve", PASSWORD, false).await;
    let feed = ui.subscribe("https://b.example/feed.xml", "alice").await;
    let root = ui.login("root", PASSWORD).await;
    let page = ui.get(&format!("/feeds/{feed}"), &root).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains("<dt>Subscribers</dt>"),
        "the operator's view"
    );
    assert_eq!(ui.get("/admin", &root).await.status, 200);
    let eve = ui.login("eve", PASSWORD).await;
    assert_eq!(ui.get(&format!("/feeds/{feed}"), &eve).await.status, 404);
    assert_eq!(ui.get("/admin", &eve).await.status, 403);
}
