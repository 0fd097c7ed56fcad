//! Redirects are followed by our code, hop by hop, up to the limit; each hop is recorded.

mod support;

use support::{Reply, Server, config, fetcher, get, response};
use tidings_fetch::{FetchOutcome, Hop};

const FEED: &[u8] = b"<feed xmlns=\"http://www.w3.org/2005/Atom\"/>";

fn redirect(status: u16, location: &str) -> Reply {
    Reply::Raw(response(status, &[("location", location.as_bytes())], b""))
}

#[tokio::test]
async fn chain_301_302_200_is_followed_and_recorded() {
    let server = Server::start(|req, _| match req.path() {
        "/a" => redirect(301, "/b"),
        "/b" => redirect(302, "/c"),
        "/c" => Reply::Raw(response(200, &[], FEED)),
        _ => Reply::Raw(response(404, &[], b"")),
    })
    .await;
    let got = get(&fetcher(config()), server.url("/a")).await;
    assert_eq!(support::body(&got.outcome), FEED);
    assert_eq!(got.final_url, server.url("/c"));
    assert_eq!(
        got.redirects,
        vec![
            Hop {
                status: 301,
                from: server.url("/a"),
                to: server.url("/b")
            },
            Hop {
                status: 302,
                from: server.url("/b"),
                to: server.url("/c")
            },
        ]
    );
    let requests = server.requests();
    let paths: Vec<&str> = requests.iter().map(|r| r.path()).collect();
    assert_eq!(paths, ["/a", "/b", "/c"]);
}

#[tokio::test]
async fn c1_user_agent_is_identical_on_every_hop() {
    let server = Server::start(|req, _| match req.path() {
        "/a" => redirect(307, "/b"),
        "/b" => redirect(308, "/c"),
        _ => Reply::Raw(response(200, &[], FEED)),
    })
    .await;
    let got = get(&fetcher(config()), server.url("/a")).await;
    assert_eq!(support::body(&got.outcome), FEED);
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    for req in &requests {
        assert_eq!(
            req.header("user-agent"),
            Some(support::UA.as_bytes()),
            "{}",
            req.path()
        );
    }
}

#[tokio::test]
async fn c8_redirect_loop_stops_with_the_last_redirect() {
    let server = Server::start(|req, _| match req.path() {
        "/a" => redirect(301, "/b"),
        _ => redirect(301, "/a"),
    })
    .await;
    let got = get(&fetcher(config()), server.url("/a")).await;
    assert_eq!(
        got.outcome,
        FetchOutcome::Redirect {
            status: 301,
            location: Some("/a".to_owned())
        }
    );
    assert_eq!(got.redirects.len(), 1);
    assert_eq!(got.final_url, server.url("/b"));
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn c8_too_many_redirects_stop_at_the_limit() {
    // /0 -> /1 -> /2 -> ... forever, each URL new.
    let server = Server::start(|req, _| {
        let n: u32 = req.path().trim_start_matches('/').parse().unwrap_or(0);
        redirect(302, &format!("/{}", n + 1))
    })
    .await;
    let mut config = config();
    config.max_redirects = 3;
    let got = get(&fetcher(config), server.url("/0")).await;
    assert_eq!(
        got.outcome,
        FetchOutcome::Redirect {
            status: 302,
            location: Some("/4".to_owned())
        }
    );
    assert_eq!(got.redirects.len(), 3);
    assert_eq!(got.final_url, server.url("/3"));
    assert_eq!(server.requests().len(), 4, "three hops followed, then stop");
}

#[tokio::test]
async fn zero_redirects_allowed_returns_the_first_redirect() {
    let server = Server::start(|_, _| redirect(301, "/moved")).await;
    let mut config = config();
    config.max_redirects = 0;
    let got = get(&fetcher(config), server.url("/feed")).await;
    assert_eq!(
        got.outcome,
        FetchOutcome::Redirect {
            status: 301,
            location: Some("/moved".to_owned())
        }
    );
    assert!(got.redirects.is_empty());
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn relative_locations_resolve_against_the_current_url() {
    let server = Server::start(|req, addr| match req.path() {
        "/blog/feeds/rss" => redirect(301, "../atom.xml"),
        "/blog/atom.xml" => redirect(302, "latest?format=atom#top"),
        "/blog/latest?format=atom" => redirect(303, &format!("//{addr}/final")),
        "/final" => Reply::Raw(response(200, &[], FEED)),
        _ => Reply::Raw(response(404, &[], b"")),
    })
    .await;
    let got = get(&fetcher(config()), server.url("/blog/feeds/rss")).await;
    assert_eq!(support::body(&got.outcome), FEED);
    let tos: Vec<String> = got.redirects.iter().map(|h| h.to.to_string()).collect();
    assert_eq!(
        tos,
        [
            server.url("/blog/atom.xml").to_string(),
            // The fragment is dropped: it is never sent.
            server.url("/blog/latest?format=atom").to_string(),
            server.url("/final").to_string(),
        ]
    );
    let requests = server.requests();
    let paths: Vec<&str> = requests.iter().map(|r| r.path()).collect();
    assert_eq!(
        paths,
        [
            "/blog/feeds/rss",
            "/blog/atom.xml",
            "/blog/latest?format=atom",
            "/final"
        ]
    );
}

#[tokio::test]
async fn redirect_without_location_is_the_outcome() {
    let server = Server::start(|_, _| Reply::Raw(response(302, &[], b""))).await;
    let got = get(&fetcher(config()), server.url("/feed")).await;
    assert_eq!(
        got.outcome,
        FetchOutcome::Redirect {
            status: 302,
            location: None
        }
    );
    assert!(got.redirects.is_empty());
}

#[tokio::test]
async fn multiple_choices_is_not_followed() {
    let server = Server::start(|_, _| redirect(300, "/other")).await;
    let got = get(&fetcher(config()), server.url("/feed")).await;
    assert_eq!(
        got.outcome,
        FetchOutcome::Redirect {
            status: 300,
            location: Some("/other".to_owned())
        }
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn non_http_redirect_targets_are_blocked() {
    for target in [
        "file:///etc/passwd",
        "ftp://127.0.0.1/feed.xml",
        "gopher://127.0.0.1/1",
    ] {
        let server = Server::start(move |_, _| redirect(301, target)).await;
        let got = get(&fetcher(config()), server.url("/feed")).await;
        assert!(
            matches!(got.outcome, FetchOutcome::Blocked { .. }),
            "{target}: {:?}",
            got.outcome
        );
        assert_eq!(got.final_url.as_str(), target);
        assert_eq!(got.redirects.len(), 1);
        assert_eq!(server.requests().len(), 1);
    }
}

/// FF13: a check refusing a redirect hop stops the read before that hop is sent.
#[tokio::test]
async fn ff13_a_hop_check_refuses_a_hop_before_it_is_sent() {
    let server = Server::start(|req, _| match req.path() {
        "/a" => redirect(301, "/blocked/feed"),
        _ => Reply::Raw(response(200, &[], FEED)),
    })
    .await;
    let check: tidings_fetch::HopCheck = std::sync::Arc::new(|url: &url::Url| {
        if url.path().starts_with("/blocked/") {
            Err(format!("do-not-crawl: {}", url.path()))
        } else {
            Ok(())
        }
    });
    let mut request = tidings_fetch::FetchRequest::new(server.url("/a"));
    request.check = Some(check.clone());
    let got = fetcher(config()).fetch(&request).await;
    assert_eq!(
        got.outcome,
        FetchOutcome::Blocked {
            reason: "do-not-crawl: /blocked/feed".into()
        }
    );
    assert_eq!(got.final_url, server.url("/blocked/feed"));
    let requests = server.requests();
    let paths: Vec<&str> = requests.iter().map(|r| r.path()).collect();
    assert_eq!(paths, ["/a"], "the refused hop was never sent");

    let mut first = tidings_fetch::FetchRequest::new(server.url("/blocked/x"));
    first.check = Some(check);
    let got = fetcher(config()).fetch(&first).await;
    assert!(matches!(got.outcome, FetchOutcome::Blocked { .. }));
    assert_eq!(server.requests().len(), 1, "the first URL is checked too");
}

/// With `follow_redirects` off the first 3xx is the outcome, and its target is resolved for
/// the caller, who follows it as a request of its own.
#[tokio::test]
async fn a_caller_can_follow_redirects_itself() {
    let server = Server::start(|req, _| match req.path() {
        "/a" => redirect(302, "b#frag"),
        "/300" => redirect(300, "/b"),
        _ => Reply::Raw(response(200, &[], FEED)),
    })
    .await;
    let mut request = tidings_fetch::FetchRequest::new(server.url("/a"));
    request.follow_redirects = false;
    let got = fetcher(config()).fetch(&request).await;
    assert_eq!(got.outcome.status(), Some(302));
    assert!(got.redirects.is_empty());
    assert_eq!(got.final_url, server.url("/a"));
    assert_eq!(got.redirect_target(), Some(server.url("/b")));
    assert_eq!(server.requests().len(), 1);

    request.url = server.url("/300");
    let got = fetcher(config()).fetch(&request).await;
    assert_eq!(got.redirect_target(), None, "300 is not followed");
    request.url = server.url("/b");
    let got = fetcher(config()).fetch(&request).await;
    assert_eq!(got.redirect_target(), None);
}
