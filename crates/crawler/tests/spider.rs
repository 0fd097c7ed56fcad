//! Spider Mode on the simulated web (FF4): a 200-page site whose pages link on, with feeds
//! declared and hidden, and a linked site; the auditor checks robots.txt, pacing and purposes
//! on every request, and the publisher's own log is held against each budget: requests,
//! bytes, link depth and time.

mod sim_support;

use bytes::Bytes;
use sim_support::{Sim, assert_clean, start};
use std::time::Duration;
use tidings_crawler::spider::{SpiderLimits, SpiderReport};
use tidings_model::FeedUrl;
use tidings_sim::{Behaviour, FeedSpec, HostSpec, Resource};

const PAGES: usize = 200;

fn html(body: String) -> Resource {
    Resource::new(Behaviour::Body {
        content_type: "text/html; charset=utf-8".into(),
        body: Bytes::from(body),
    })
}

/// Page `i` links the next three pages, its section's feed every 50 pages, and page 0 links
/// the other site; `/p/7` is nofollow from everywhere.
fn site() -> HostSpec {
    let mut host = HostSpec::new("big.test").at(
        "/robots.txt",
        Resource::robots("User-agent: *\nDisallow: /private/\n"),
    );
    for i in 0..PAGES {
        let mut body = String::from("<!doctype html><html><head><title>p</title>");
        if i % 50 == 0 {
            body.push_str(&format!(
                "<link rel=alternate type=application/rss+xml href=/section{}.xml>",
                i / 50
            ));
        }
        body.push_str("</head><body>");
        for j in 1..=3 {
            body.push_str(&format!("<a href=/p/{}>next</a>", (i + j) % PAGES));
        }
        body.push_str("<a rel=nofollow href=/p/7>hidden</a><a href=/private/x>private</a>");
        body.push_str("<a href=/img/photo.jpg>photo</a>");
        if i == 0 {
            body.push_str("<a href=http://other.test/>our friends</a>");
        }
        body.push_str("</body></html>");
        let path = if i == 0 {
            "/".to_owned()
        } else {
            format!("/p/{i}")
        };
        host = host.at(&path, html(body));
    }
    for s in 0..PAGES / 50 {
        host = host.at(
            &format!("/section{s}.xml"),
            Resource::feed(FeedSpec::fixed(&format!("section{s}"))),
        );
    }
    host.at("/feed/", Resource::feed(FeedSpec::fixed("hidden")))
}

fn other() -> HostSpec {
    HostSpec::new("other.test")
        .at("/robots.txt", Resource::robots("User-agent: *\nAllow: /\n"))
        .at(
            "/",
            html(
                "<html><head><link rel=alternate type=application/atom+xml href=/atom.xml>\
                 </head></html>"
                    .into(),
            ),
        )
        .at("/atom.xml", Resource::feed(FeedSpec::fixed("friends")))
}

fn ffbot(p: &mut tidings_policy::Profile) {
    *p = tidings_policy::Profile::embedded("ffbot").unwrap();
}

async fn spider(sim: &Sim, limits: SpiderLimits) -> SpiderReport {
    let start = FeedUrl::parse(&sim.web.url("big.test", "/").unwrap()).unwrap();
    sim.crawler
        .spider(&start, limits, &|_, _| {})
        .await
        .unwrap()
}

/// A generous budget within the profile's ceilings: depth 3, onto linked sites.
fn limits(sim: &Sim) -> SpiderLimits {
    let ceilings = &sim.profile.spider;
    SpiderLimits {
        depth: 3,
        max_urls: 10_000.min(ceilings.ceiling_urls),
        max_requests: 10_000.min(ceilings.ceiling_requests),
        max_bytes: 100_000_000.min(ceilings.ceiling_bytes),
        max_time: Duration::from_secs(ceilings.ceiling_time),
        linked_sites: true,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff4_a_spider_run_follows_links_to_its_depth_and_finds_the_feeds() {
    let sim = start(vec![site(), other()], ffbot).await;
    let report = spider(&sim, limits(&sim)).await;
    let seen = sim.exchanges().await;
    // Depth 3 from the home page: pages 0..=9 (each links the next three), never /p/7 by its
    // nofollow link alone (it is also linked plainly from /p/4..6), never /private/ or images.
    let pages: Vec<&str> = seen
        .iter()
        .filter(|e| {
            e.host == "big.test"
                && (e.target == "/"
                    || e.target
                        .strip_prefix("/p/")
                        .is_some_and(|n| n.parse::<u32>().is_ok()))
        })
        .map(|e| e.target.as_str())
        .collect();
    assert_eq!(pages.len(), 10, "{pages:?}");
    assert!(seen.iter().all(|e| !e.target.starts_with("/private/")));
    assert!(seen.iter().all(|e| !e.target.ends_with(".jpg")));
    assert_eq!(
        report.pages, 11,
        "ten pages of big.test and other.test's home"
    );
    let found: Vec<String> = report
        .feeds
        .iter()
        .map(|f| url::Url::parse(f.url.as_str()).unwrap().path().to_owned())
        .collect();
    assert!(found.contains(&"/section0.xml".to_owned()), "{found:?}");
    assert!(
        found.contains(&"/feed/".to_owned()),
        "the hidden one: {found:?}"
    );
    assert!(
        found.contains(&"/atom.xml".to_owned()),
        "the linked site's: {found:?}"
    );
    assert_eq!(report.stopped_by, None);
    // Every request is counted, and every request is in the request log.
    assert_eq!(report.budget.requests as usize, seen.len());
    assert_eq!(report.requests, seen.len());
    let mut expect = sim.expectations();
    expect.purposes = None; // a spider's pages are the discovery purpose FFBot lists
    assert_clean(&sim.audit(&expect).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff4_no_budget_is_ever_passed() {
    // Requests: the run stops at exactly its allowance, robots.txt and feed checks counted.
    let sim = start(vec![site(), other()], ffbot).await;
    let report = spider(
        &sim,
        SpiderLimits {
            max_requests: 17,
            ..limits(&sim)
        },
    )
    .await;
    let seen = sim.exchanges().await;
    assert_eq!(seen.len(), 17, "the publishers saw exactly the allowance");
    assert_eq!(report.budget.requests, 17);
    assert_eq!(report.stopped_by.as_deref(), Some("requests"));

    // Bytes: what the publishers sent never passes the allowance.
    let sim = start(vec![site(), other()], ffbot).await;
    let report = spider(
        &sim,
        SpiderLimits {
            max_bytes: 3_000,
            ..limits(&sim)
        },
    )
    .await;
    // The run reads no more than its allowance: the answer that would pass it is cut there,
    // and nothing is asked after it. (The publisher may have pushed the rest of that one
    // answer into the connection's buffers; it is never read.)
    let all = sim.exchanges().await;
    let (last, before) = all.split_last().unwrap();
    let read_before: u64 = before.iter().map(|e| e.body_bytes).sum();
    assert!(read_before < 3_000, "{read_before}");
    assert_eq!(
        report.budget.requests as usize,
        all.len(),
        "nothing after the cut"
    );
    assert!(
        last.body_bytes > 3_000 - read_before,
        "the last answer was the one cut: {} bytes with {} left",
        last.body_bytes,
        3_000 - read_before
    );
    assert!(report.budget.bytes <= 3_000, "{}", report.budget.bytes);
    assert_eq!(report.stopped_by.as_deref(), Some("bytes"));

    // URLs looked at.
    let sim = start(vec![site(), other()], ffbot).await;
    let report = spider(
        &sim,
        SpiderLimits {
            max_urls: 5,
            ..limits(&sim)
        },
    )
    .await;
    assert_eq!(report.budget.urls, 5);
    assert_eq!(report.checked.len(), 5);

    // Depth 0: the first page and its candidates only.
    let sim = start(vec![site(), other()], ffbot).await;
    let report = spider(
        &sim,
        SpiderLimits {
            depth: 0,
            ..limits(&sim)
        },
    )
    .await;
    assert_eq!(report.pages, 1);
    assert!(sim.requests("big.test", "/p/1").await.is_empty());

    // Time: no request starts after the allowance (scenario time runs an hour a second).
    let sim = start(vec![site(), other()], ffbot).await;
    let report = spider(
        &sim,
        SpiderLimits {
            max_time: Duration::from_secs(60),
            ..limits(&sim)
        },
    )
    .await;
    assert_eq!(report.stopped_by.as_deref(), Some("time"));
    let first = sim.exchanges().await[0].started.sim;
    for e in sim.exchanges().await {
        let after = e.started.sim.duration_since(first).unwrap_or_default();
        assert!(
            after <= Duration::from_secs(61),
            "{} started {after:?} in",
            e.target
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff4_a_run_is_refused_past_the_ceilings_or_without_discovery() {
    let sim = start(vec![site()], ffbot).await;
    let start_url = FeedUrl::parse(&sim.web.url("big.test", "/").unwrap()).unwrap();
    let over = SpiderLimits {
        depth: sim.profile.spider.ceiling_depth + 1,
        ..limits(&sim)
    };
    let err = sim
        .crawler
        .spider(&start_url, over, &|_, _| {})
        .await
        .unwrap_err();
    assert!(err.to_string().contains("ceiling"), "{err}");
    let plain = start(vec![site()], |_| {}).await;
    let err = plain
        .crawler
        .spider(&start_url, limits(&plain), &|_, _| {})
        .await
        .unwrap_err();
    assert!(err.to_string().contains("discovery"), "{err}");
    // A run queued under another profile and taken by a crawl under one that does not
    // discover fails whole, with the reason, and asks nothing.
    let queued = plain
        .store
        .submit_page_job(&tidings_store::NewPageJob {
            kind: tidings_model::PageJobKind::Spider,
            url: start_url.as_str().to_owned(),
            limits: Some(limits(&plain)),
            requested_by: "key:1".into(),
            at: plain.crawler.now(),
            running: false,
        })
        .await
        .unwrap();
    let taken = plain.crawler.claim_page_job(None).await.unwrap().unwrap();
    plain.crawler.work_page_job(taken, &|| false).await.unwrap();
    let failed = plain.store.page_job(queued.id).await.unwrap().unwrap();
    assert_eq!(failed.state, tidings_model::PageJobState::Failed);
    assert!(
        failed.error.as_deref().unwrap_or("").contains("discovery"),
        "{failed:?}"
    );
    assert!(sim.exchanges().await.is_empty());
    assert!(plain.exchanges().await.is_empty());
}

/// FF4: a run stopped part-way goes back to the queue with its frontier, spending and finds;
/// taken again it goes on where it was: every page is read once over both stints, the same
/// pages and feeds are found as by a run never stopped, and the budget counts every request
/// of both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff4_a_stopped_run_goes_on_where_it_was() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let sim = start(vec![site(), other()], ffbot).await;
    let start_url = FeedUrl::parse(&sim.web.url("big.test", "/").unwrap()).unwrap();
    let job = sim
        .crawler
        .submit_spider(&start_url, limits(&sim), "test", true)
        .await
        .unwrap();
    let looked = AtomicUsize::new(0);
    let first = sim
        .crawler
        .spider_job(
            job.clone(),
            &|_, _| {
                looked.fetch_add(1, Ordering::Relaxed);
            },
            &|| looked.load(Ordering::Relaxed) >= 12,
        )
        .await
        .unwrap();
    assert!(!first.finished);
    assert!(first.pages >= 1 && first.pages < 11, "{}", first.pages);
    let stored = sim.store.page_job(job.id).await.unwrap().unwrap();
    assert_eq!(stored.state, tidings_model::PageJobState::Queued);
    assert_eq!(stored.spent.requests, first.budget.requests);
    let sent_first = sim.exchanges().await.len();
    assert_eq!(first.budget.requests as usize, sent_first);

    let again = sim
        .crawler
        .claim_page_job(Some(job.id))
        .await
        .unwrap()
        .expect("a stopped job is taken again");
    let second = sim
        .crawler
        .spider_job(again, &|_, _| {}, &|| false)
        .await
        .unwrap();
    assert!(second.finished);
    assert_eq!(second.pages, 11, "the pages of a run never stopped");
    let seen = sim.exchanges().await;
    let mut targets: Vec<(String, String)> = seen
        .iter()
        .filter(|e| e.target != "/robots.txt")
        .map(|e| (e.host.clone(), e.target.clone()))
        .collect();
    let all = targets.len();
    targets.sort();
    targets.dedup();
    assert_eq!(targets.len(), all, "nothing read twice: {targets:?}");
    assert_eq!(
        second.budget.requests as usize,
        seen.len(),
        "every request of both stints is counted"
    );
    assert!(second.requests < seen.len() - sent_first + 1);
    let found: Vec<&str> = second.feeds.iter().map(|f| f.url.as_str()).collect();
    for path in ["/section0.xml", "/feed/", "/atom.xml"] {
        assert!(found.iter().any(|u| u.ends_with(path)), "{path}: {found:?}");
    }
    let done = sim.store.page_job(job.id).await.unwrap().unwrap();
    assert_eq!(done.state, tidings_model::PageJobState::Done);
    assert_eq!(done.spent.pages, 11);
    assert_clean(&sim.audit(&sim.expectations()).await);
}

/// FF1, FF4: what the API and the web UI submit is worked by the crawl beside the feeds: a
/// URL's feeds are found, a spider run is worked to its end, each request the crawler's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff1_a_crawl_works_the_page_queue() {
    let sim = start(vec![site(), other()], ffbot).await;
    let other_home = FeedUrl::parse(&sim.web.url("other.test", "/").unwrap()).unwrap();
    let start_url = FeedUrl::parse(&sim.web.url("big.test", "/").unwrap()).unwrap();
    let find = sim
        .crawler
        .submit_discovery(&other_home, "key:1")
        .await
        .unwrap();
    let spider = sim
        .crawler
        .submit_spider(
            &start_url,
            SpiderLimits {
                depth: 1,
                linked_sites: false,
                ..limits(&sim)
            },
            "account:2",
            false,
        )
        .await
        .unwrap();
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let crawler = sim.crawler.clone();
    let deadline = crawler.now() + chrono::Duration::days(1);
    let crawl = tokio::spawn(async move {
        crawler
            .crawl(
                tidings_crawler::CrawlUntil {
                    stop: stopped,
                    deadline: Some(deadline),
                },
                std::sync::Arc::new(tidings_crawler::NoProgress),
            )
            .await
    });
    let mut waited = 0;
    loop {
        let a = sim.store.page_job(find.id).await.unwrap().unwrap();
        let b = sim.store.page_job(spider.id).await.unwrap().unwrap();
        if a.state.finished() && b.state.finished() {
            break;
        }
        waited += 1;
        assert!(waited < 600, "jobs not worked: {a:?} {b:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    stop.send(true).unwrap();
    crawl.await.unwrap().unwrap();
    let found = sim.store.page_job_feeds(find.id).await.unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].url.ends_with("/atom.xml"), "{found:?}");
    let spider = sim.store.page_job(spider.id).await.unwrap().unwrap();
    assert_eq!(spider.state, tidings_model::PageJobState::Done);
    assert_eq!(
        spider.spent.pages, 4,
        "the home page and the three it links"
    );
    assert!(spider.spent.feeds >= 2, "{:?}", spider.spent);
    assert_clean(&sim.audit(&sim.expectations()).await);
}
