//! The forms that change something (subscribe, rules) and the operator's pages.

use crate::harness::{Ui, form_value};
use crate::support::{ok, t};
use tidings_model::FeedUrl;
use tidings_store::{FeedState, NewBlock};

#[tokio::test]
async fn the_subscribe_form_creates_the_subscription() {
    let ui = Ui::start().await;
    let url = "https://feeds.example/news.xml";
    let page = ui
        .admin_post("/subscribe", &format!("url={}", form_value(url)))
        .await;
    assert_eq!(page.status, 303, "{}", page.body);
    let feed = ui
        .store
        .feed_by_url(&FeedUrl::parse(url).unwrap())
        .await
        .unwrap()
        .expect("the feed exists");
    assert_eq!(feed.subscribers, 1);
    assert_eq!(feed.state, FeedState::Active);
    assert_eq!(page.location(), format!("/feeds/{}?added=1", feed.id));
    assert!(feed.last_fetch_at.is_none(), "nothing is fetched inline");
    let shown = ui.admin_page(&page.location()).await;
    assert!(shown.contains("the crawler reads it shortly"), "{shown}");
    assert!(shown.contains("not read yet"));
    // The subscriber is the admin key, as with POST /v1/feeds: unsubscribing it works.
    assert!(ui.store.unsubscribe(feed.id, "key:1").await.unwrap());

    let page = ui.admin_post("/subscribe", "url=not%20a%20url").await;
    assert_eq!(page.status, 400, "{}", page.body);
    assert!(page.body.contains("not a feed URL"), "{}", page.body);
    assert!(
        page.body.contains("value=\"not a url\""),
        "the input is kept"
    );
}

#[tokio::test]
async fn a_blocked_url_shows_the_rule() {
    let ui = Ui::start().await;
    ui.store
        .add_block(&NewBlock {
            kind: "host".to_owned(),
            value: "blocked.example".to_owned(),
            reason: Some("asked by mail".to_owned()),
            created_at: t(0),
        })
        .await
        .unwrap();
    let page = ui
        .admin_post("/subscribe", "url=https%3A%2F%2Fblocked.example%2Ffeed.xml")
        .await;
    assert_eq!(page.status, 422, "{}", page.body);
    assert!(
        page.body
            .contains("may not be crawled: do-not-crawl: host blocked.example (FF13)"),
        "{}",
        page.body
    );
    assert!(ui.store.feeds().await.unwrap().is_empty());
}

/// Issue 12: a feed the crawler could never read is refused in the form, with the reason
/// and the flag that would allow it.
#[tokio::test]
async fn a_private_address_is_refused_with_the_flag_named() {
    let ui = Ui::start().await;
    let page = ui
        .admin_post("/subscribe", "url=http%3A%2F%2F10.0.0.1%2Ffeed")
        .await;
    assert_eq!(page.status, 400, "{}", page.body);
    assert!(
        page.body.contains("address 10.0.0.1 is private")
            && page.body.contains("--allow-private-networks"),
        "{}",
        page.body
    );
    assert!(ui.store.feeds().await.unwrap().is_empty());
}

#[tokio::test]
async fn admin_pages_show_a_paused_feeds_reason_its_errors_host_and_log() {
    let ui = Ui::start().await;
    let paused = ui.subscribe("https://example.org/feed.xml", "alice").await;
    let healthy = ui.subscribe("https://other.example/feed.xml", "bob").await;
    let reason = "PF5: paused after 4 404 answers in total";
    let mut record = ok(paused, t(3600), Vec::new());
    record.update.state = FeedState::Paused;
    record.update.state_reason = Some(reason.to_owned());
    record.update.consecutive_failures = 4;
    record.update.last_status = Some(404);
    record.update.last_outcome = tidings_model::Label::NotFound;
    record.update.last_error = Some("404 Not Found <b>".to_owned());
    record.update.next_fetch_reason = "paused until an operator resumes it".to_owned();
    record.log[0].status = Some(404);
    record.log[0].outcome = tidings_model::Label::NotFound;
    ui.store.apply_fetch(record).await.unwrap();
    ui.store
        .apply_fetch(ok(healthy, t(3600), Vec::new()))
        .await
        .unwrap();

    let page = ui.admin_page("/admin").await;
    let section = page
        .split("<h2 id=\"paused\">")
        .nth(1)
        .expect("a paused section");
    let section = section.split("<h2").next().unwrap_or_default();
    assert!(section.contains(reason), "{section}");
    assert!(section.contains("paused until an operator resumes it"));
    assert!(section.contains("https://example.org/feed.xml"));
    assert!(
        !section.contains("other.example"),
        "the active feed is elsewhere"
    );
    assert!(page.contains("Paused: 1") && page.contains("Active: 1"));

    let page = ui.admin_page("/admin/errors").await;
    assert!(page.contains("404 Not Found &lt;b&gt;"), "{page}");
    assert!(!page.contains("other.example"), "no error there");

    let page = ui.admin_page("/admin/hosts/example.org").await;
    assert!(page.contains("<h1>Host example.org</h1>"));
    assert!(page.contains(reason), "{page}");
    assert!(page.contains("Paused: 1"));

    let page = ui.admin_page("/admin/log?host=example.org").await;
    assert!(
        page.contains("<code>https://example.org/feed.xml</code>"),
        "{page}"
    );
    assert!(page.contains("404 not_found"), "status and outcome");
    assert!(page.contains("due: interval 1h"), "why it was sent");
    let page = ui.admin_page(&format!("/admin/log?feed={healthy}")).await;
    assert!(!page.contains("404"), "only the healthy feed's request");
    assert!(page.contains("200 ok"));
}

#[tokio::test]
async fn a_rule_added_through_the_form_pauses_a_covered_feed() {
    let ui = Ui::start().await;
    let covered = ui
        .subscribe("https://blocked.example/feed.xml", "alice")
        .await;
    let free = ui.subscribe("https://free.example/feed.xml", "alice").await;

    let page = ui
        .admin_post(
            "/admin/rules",
            "kind=host&value=Blocked.Example.&reason=asked+by+mail",
        )
        .await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains("Added rule 1: host blocked.example."),
        "{}",
        page.body
    );
    assert!(
        page.body.contains(&format!("Paused: feed {covered}.")),
        "{}",
        page.body
    );
    assert!(
        page.body.contains("<td>asked by mail</td>"),
        "the list shows it"
    );

    let feed = ui.store.feed(covered).await.unwrap().unwrap();
    assert_eq!(feed.state, FeedState::Paused);
    assert_eq!(
        feed.state_reason.as_deref(),
        Some("blocked: do-not-crawl: host blocked.example (FF13)")
    );
    let other = ui.store.feed(free).await.unwrap().unwrap();
    assert_eq!(other.state, FeedState::Active, "a feed no rule covers");
    let admin = ui.admin_page("/admin").await;
    assert!(admin.contains("blocked: do-not-crawl: host blocked.example (FF13)"));

    // A bad rule is refused with its reason.
    let page = ui
        .admin_post("/admin/rules", "kind=domain&value=co.uk")
        .await;
    assert_eq!(page.status, 400);
    assert!(page.body.contains("public suffix"), "{}", page.body);
    assert!(page.body.contains("value=\"co.uk\""), "the input is kept");
    assert_eq!(ui.store.blocks().await.unwrap().len(), 1);

    // Removing the rule resumes the feed.
    let page = ui
        .admin_post("/admin/rules/remove", "kind=host&value=blocked.example")
        .await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains(&format!("Resumed: feed {covered}.")),
        "{}",
        page.body
    );
    assert!(ui.store.blocks().await.unwrap().is_empty());
    let feed = ui.store.feed(covered).await.unwrap().unwrap();
    assert_eq!(feed.state, FeedState::Active);
    let page = ui
        .admin_post("/admin/rules/remove", "kind=host&value=blocked.example")
        .await;
    assert_eq!(page.status, 404, "no such rule any more");
}

#[tokio::test]
async fn the_unsubscribe_button_ends_this_keys_subscription_and_the_url_may_return() {
    let ui = Ui::start().await;
    let url = "https://feeds.example/news.xml";
    let feed = subscribe_by_form(&ui, url).await;
    let shown = ui.admin_page(&format!("/feeds/{}", feed.id)).await;
    assert!(
        shown.contains(&format!(
            "<form method=\"post\" action=\"/feeds/{}/unsubscribe\">",
            feed.id
        )),
        "{shown}"
    );
    let path = format!("/feeds/{}/unsubscribe", feed.id);

    // Another site cannot, nor can a reader key.
    let cross = ui
        .post(
            &path,
            "",
            &format!("{}Origin: https://evil.example\r\n", Ui::cookie(&ui.admin)),
        )
        .await;
    assert_eq!(cross.status, 403, "{}", cross.body);
    let reader = ui
        .post(
            &path,
            "",
            &format!("{}Origin: http://{}\r\n", Ui::cookie(&ui.reader), ui.addr),
        )
        .await;
    assert_eq!(reader.status, 403, "{}", reader.body);
    assert_eq!(
        ui.store.feed(feed.id).await.unwrap().unwrap().subscribers,
        1
    );

    let done = ui.admin_post(&path, "").await;
    assert_eq!(done.status, 303, "{}", done.body);
    assert_eq!(
        done.location(),
        format!("/feeds/{}?unsubscribed=1", feed.id)
    );
    let after = ui.store.feed(feed.id).await.unwrap().unwrap();
    assert_eq!(after.subscribers, 0);
    assert_eq!(
        after.state,
        FeedState::Active,
        "not removed, only unsubscribed"
    );
    let shown = ui.admin_page(&done.location()).await;
    assert!(shown.contains("Unsubscribed."), "{shown}");
    assert!(
        !shown.contains("action=\"/feeds/"),
        "no subscriber, no button: {shown}"
    );
    let again = ui.admin_post(&path, "").await;
    assert_eq!(again.status, 404, "{}", again.body);

    // Unlike a removal, the URL may be subscribed to again.
    assert_eq!(subscribe_by_form(&ui, url).await.subscribers, 1);
}

/// Subscribe the admin to `url` through the form; the feed as stored.
async fn subscribe_by_form(ui: &Ui, url: &str) -> tidings_store::FeedRecord {
    let page = ui
        .admin_post("/subscribe", &format!("url={}", form_value(url)))
        .await;
    assert_eq!(page.status, 303, "{}", page.body);
    ui.store
        .feed_by_url(&FeedUrl::parse(url).unwrap())
        .await
        .unwrap()
        .expect("the feed")
}

#[tokio::test]
async fn ff3_a_held_match_is_decided_from_the_admin_page() {
    let ui = Ui::start().await;
    let feed = ui.subscribe("https://example.org/feed.xml", "alice").await;
    let held = ui
        .store
        .apply_check(&tidings_store::CheckApply {
            check: tidings_store::UrlCheck {
                url: "https://mirror.example/feed.xml?<b>".into(),
                at: chrono::Utc::now(),
                disposition: tidings_model::Disposition::Held,
                reason: "FF3: 10 of 20 entry ids in common with feed 1 (uncertain)".into(),
                feed_id: Some(feed),
                source: tidings_model::CheckSource::Alternate,
                found_on: None,
            },
            log: Vec::new(),
            host_floor: None,
        })
        .await
        .unwrap();
    let page = ui.admin_page("/admin/discovery").await;
    assert!(page.contains("<h2>Waiting (1)</h2>"), "{page}");
    assert!(
        page.contains("mirror.example/feed.xml?&lt;b&gt;"),
        "escaped: {page}"
    );
    assert!(page.contains(&format!("feed {feed}")), "{page}");
    assert_eq!(
        ui.get("/admin/discovery", "").await.status,
        303,
        "admins only"
    );
    // A form from another site decides nothing.
    let forged = ui
        .post(
            "/admin/discovery",
            &format!("id={held}&decision=new"),
            &format!("{}Origin: http://evil.example\r\n", Ui::cookie(&ui.admin)),
        )
        .await;
    assert_ne!(forged.status, 200);
    assert_eq!(ui.store.held_checks(10).await.unwrap().len(), 1);

    let page = ui
        .admin_post("/admin/discovery", &format!("id={held}&decision=new"))
        .await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("as a feed of its own"), "{}", page.body);
    assert!(
        page.body.contains("Nothing waits for review."),
        "{}",
        page.body
    );
    let again = ui
        .admin_post("/admin/discovery", &format!("id={held}&decision=reject"))
        .await;
    assert_eq!(again.status, 422, "{}", again.body);
    let bad = ui
        .admin_post("/admin/discovery", &format!("id={held}&decision=maybe"))
        .await;
    assert_eq!(bad.status, 400);
}

/// FF4: an admin starts a spider run from the admin page within the profile's ceilings; it
/// is queued for the crawl (nothing is sent by the UI) and listed with its budget; a run past
/// the ceilings, from another site's form or under a profile that does not discover, is not.
#[tokio::test]
async fn ff4_a_spider_run_is_started_and_followed_from_the_admin_page() {
    let ui = Ui::with("ffbot", true).await;
    let page = ui.admin_page("/admin/jobs").await;
    assert!(page.contains("No job yet."), "{page}");
    assert_eq!(ui.get("/admin/jobs", "").await.status, 303, "admins only");
    let url = "https://site.example/blog/?a=<b>";
    let form = format!(
        "url={}&kind=spider&depth=1&max_requests=40&max_urls=&max_minutes=5&linked_sites=1",
        form_value(url)
    );
    let forged = ui
        .post(
            "/admin/jobs",
            &form,
            &format!("{}Origin: http://evil.example\r\n", Ui::cookie(&ui.admin)),
        )
        .await;
    assert_ne!(forged.status, 200);
    assert!(ui.store.page_jobs(10).await.unwrap().is_empty());

    let page = ui.admin_post("/admin/jobs", &form).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains("queued: the crawl works it"),
        "{}",
        page.body
    );
    let jobs = ui.store.page_jobs(10).await.unwrap();
    assert_eq!(jobs.len(), 1);
    let limits = jobs[0].limits.expect("a spider run's limits");
    assert_eq!((limits.depth, limits.max_requests), (1, 40));
    assert_eq!(limits.max_time.as_secs(), 300);
    assert!(limits.linked_sites);
    let ffbot = tidings_policy::Profile::embedded("ffbot").unwrap();
    assert_eq!(
        limits.max_urls, ffbot.spider.max_urls,
        "an empty limit is the profile's"
    );
    assert!(page.body.contains("0 of 40"), "{}", page.body);
    assert!(
        page.body
            .contains("<code>https://site.example/blog/?a=%3Cb%3E</code>"),
        "{}",
        page.body
    );
    let one = ui.admin_page(&format!("/admin/jobs/{}", jobs[0].id)).await;
    assert!(one.contains("Feeds found (0)"), "{one}");
    assert_eq!(
        ui.get("/admin/jobs/999", &Ui::cookie(&ui.admin))
            .await
            .status,
        404
    );

    let over = ui
        .admin_post(
            "/admin/jobs",
            "url=https%3A%2F%2Fsite.example%2F&kind=spider&depth=99",
        )
        .await;
    assert_eq!(over.status, 400, "{}", over.body);
    assert!(over.body.contains("ceiling"), "{}", over.body);
    let bad = ui
        .admin_post(
            "/admin/jobs",
            "url=https%3A%2F%2Fsite.example%2F&kind=spider&depth=x",
        )
        .await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    assert_eq!(ui.store.page_jobs(10).await.unwrap().len(), 1);

    // The default profile finds a page's feeds but runs no spider.
    let plain = Ui::start().await;
    let refused = plain
        .admin_post(
            "/admin/jobs",
            "url=https%3A%2F%2Fsite.example%2F&kind=spider",
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    let find = plain
        .admin_post(
            "/admin/jobs",
            "url=https%3A%2F%2Fsite.example%2F&kind=discover",
        )
        .await;
    assert_eq!(find.status, 200, "{}", find.body);
    let jobs = plain.store.page_jobs(10).await.unwrap();
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].kind, tidings_model::PageJobKind::Discover);
}

/// SR2: a logged-in reader browses the catalogue; viewing a feed with nothing stored queues
/// one read and says so; an admin adds a feed by queueing its verification read.
#[tokio::test]
async fn sr2_the_catalogue_is_browsed_and_a_bare_feed_is_read_on_view() {
    let ui = Ui::start().await;
    let feed = ui
        .subscribe("https://example.org/<feed>.xml", "verify")
        .await;
    ui.store.unsubscribe(feed, "verify").await.unwrap();
    ui.store.add_to_catalogue(feed, "cli", t(0)).await.unwrap();
    assert_eq!(ui.get("/catalogue", "").await.status, 303, "logged in only");
    let page = ui.admin_page("/catalogue").await;
    assert!(
        page.contains(&format!("href=\"/catalogue/{feed}\"")),
        "{page}"
    );
    assert!(!page.contains("<feed>"), "escaped: {page}");
    let catalogue_jobs = |ui: &Ui| {
        let store = ui.store.clone();
        async move {
            store
                .page_jobs(10)
                .await
                .unwrap()
                .into_iter()
                .filter(|j| j.kind == tidings_model::PageJobKind::Catalogue)
                .count()
        }
    };
    let shown = ui.admin_page(&format!("/catalogue/{feed}")).await;
    assert!(shown.contains("it is being read now"), "{shown}");
    let shown = ui.admin_page(&format!("/catalogue/{feed}")).await;
    assert!(shown.contains("it is being read now"), "{shown}");
    assert_eq!(catalogue_jobs(&ui).await, 1, "one read for two views");
    ui.store
        .apply_fetch(ok(
            feed,
            chrono::Utc::now(),
            vec![crate::support::dated("e1", t(0))],
        ))
        .await
        .unwrap();
    let shown = ui.admin_page(&format!("/catalogue/{feed}")).await;
    assert!(!shown.contains("being read now"), "{shown}");
    assert!(shown.contains("e1"), "{shown}");

    let added = ui
        .admin_post(
            "/catalogue",
            &format!("url={}", form_value("https://news.example/rss")),
        )
        .await;
    assert_eq!(added.status, 200, "{}", added.body);
    assert!(
        added.body.contains("is read once to check it"),
        "{}",
        added.body
    );
    assert_eq!(catalogue_jobs(&ui).await, 2);
    let bad = ui.admin_post("/catalogue", "url=ftp%3A%2F%2Fx").await;
    assert_eq!(bad.status, 400, "{}", bad.body);
}

/// FF1: the feed page of a URL that turned out to be a web page says which feed its
/// subscriptions follow now and offers the page's other feeds to subscribe to as well.
#[tokio::test]
async fn ff1_a_page_subscribed_by_url_shows_the_feeds_it_offered() {
    let ui = Ui::start().await;
    let page = ui.subscribe("https://site.example/", "key:1").await;
    let now = chrono::Utc::now();
    let new = tidings_store::NewFeed {
        next_fetch_at: now,
        next_fetch_reason: "first read".into(),
        interval_secs: 3600,
    };
    let posts = FeedUrl::parse("https://site.example/posts.xml").unwrap();
    let moved = ui
        .store
        .move_subscriptions(page, &posts, now, &new)
        .await
        .unwrap()
        .feed_id;
    let job = ui
        .store
        .submit_page_job(&tidings_store::NewPageJob {
            kind: tidings_model::PageJobKind::Discover,
            url: "https://site.example/".into(),
            limits: None,
            requested_by: tidings_crawler::discover::resolution_of(page),
            at: now,
            running: true,
        })
        .await
        .unwrap();
    let offer = |url: &str, title: &str, feed_id| tidings_store::JobFeed {
        url: url.into(),
        title: Some(title.into()),
        feed_id,
        held: false,
        note: None,
    };
    ui.store
        .page_job_step(
            job.id,
            &tidings_store::JobStep {
                found: vec![
                    offer("https://site.example/posts.xml", "Posts", Some(moved)),
                    offer("https://site.example/comments.atom", "Comments <all>", None),
                ],
                ..tidings_store::JobStep::default()
            },
            now,
        )
        .await
        .unwrap();
    let shown = ui.admin_page(&format!("/feeds/{page}")).await;
    assert!(shown.contains("is a web page, not a feed"), "{shown}");
    assert!(shown.contains("It offers 2 feeds"), "{shown}");
    assert!(
        shown.contains(&format!("href=\"/feeds/{moved}\"")),
        "{shown}"
    );
    assert!(
        shown.contains("value=\"https://site.example/comments.atom\""),
        "{shown}"
    );
    assert!(shown.contains("Comments &lt;all&gt;"), "escaped: {shown}");
    let missing = ui.get("/feeds/999", &Ui::cookie(&ui.admin)).await;
    assert_eq!(missing.status, 404);
}
