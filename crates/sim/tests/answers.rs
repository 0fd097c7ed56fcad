//! Every other scripted answer: error statuses, throttles with Retry-After, redirects and loops,
//! robots.txt variants, challenge pages, huge, endless and gzip-bomb bodies, malformed feeds.

mod support;

use std::io::Read;
use std::time::Duration;

use support::{connect, ended, get};
use tidings_sim::{
    Behaviour, FeedSpec, HostSpec, Malformed, Resource, RetryAfter, RunningWeb, Target, Web, When,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

async fn one_host(paths: Vec<(&str, Resource)>) -> RunningWeb {
    let mut host = HostSpec::new("a.test");
    for (path, r) in paths {
        host = host.at(path, r);
    }
    Web::start(vec![host]).await.unwrap()
}

#[tokio::test]
async fn error_statuses_and_unknown_paths() {
    let web = one_host(vec![
        ("/gone", Resource::status(410)),
        ("/broken", Resource::status(500)),
        ("/gateway", Resource::status(502)),
    ])
    .await;
    for (path, status) in [
        ("/gone", 410),
        ("/broken", 500),
        ("/gateway", 502),
        ("/nothing", 404),
    ] {
        assert_eq!(
            get(&web, "a.test", path, &[]).await.status,
            status,
            "{path}"
        );
    }
}

fn throttle(status: u16, retry_after: Option<RetryAfter>, when: When) -> Resource {
    Resource::feed(FeedSpec::fixed("t")).with(Behaviour::Throttle {
        status,
        retry_after,
        when,
    })
}

#[tokio::test]
async fn throttles_send_retry_after_in_seconds_as_a_date_or_raw() {
    let web = one_host(vec![
        (
            "/secs",
            throttle(429, Some(RetryAfter::Seconds(3600)), When::Always),
        ),
        (
            "/date",
            throttle(
                503,
                Some(RetryAfter::Date(Duration::from_secs(7200))),
                When::Always,
            ),
        ),
        (
            "/raw",
            throttle(429, Some(RetryAfter::Raw("tomorrow".into())), When::Always),
        ),
        ("/none", throttle(503, None, When::Always)),
    ])
    .await;
    web.clock().advance(Duration::from_secs(60));
    let r = get(&web, "a.test", "/secs", &[]).await;
    assert_eq!((r.status, r.header("retry-after")), (429, Some("3600")));
    let r = get(&web, "a.test", "/date", &[]).await;
    assert_eq!(
        (r.status, r.header("retry-after")),
        (503, Some("Sun, 01 Nov 2026 02:01:00 GMT"))
    );
    let r = get(&web, "a.test", "/raw", &[]).await;
    assert_eq!(r.header("retry-after"), Some("tomorrow"));
    let r = get(&web, "a.test", "/none", &[]).await;
    assert_eq!((r.status, r.header("retry-after")), (503, None));
}

#[tokio::test]
async fn throttles_apply_for_the_first_requests_or_a_span_of_scenario_time() {
    let hour = Duration::from_secs(3600);
    let web = one_host(vec![
        ("/first", throttle(429, None, When::FirstRequests(2))),
        ("/until", throttle(429, None, When::Until(hour))),
        (
            "/between",
            throttle(503, None, When::Between(hour, hour * 2)),
        ),
    ])
    .await;
    let mut statuses = Vec::new();
    for _ in 0..3 {
        statuses.push(get(&web, "a.test", "/first", &[]).await.status);
    }
    assert_eq!(statuses, [429, 429, 200]);
    assert_eq!(get(&web, "a.test", "/until", &[]).await.status, 429);
    assert_eq!(get(&web, "a.test", "/between", &[]).await.status, 200);
    web.clock().advance(hour);
    assert_eq!(get(&web, "a.test", "/until", &[]).await.status, 200);
    assert_eq!(get(&web, "a.test", "/between", &[]).await.status, 503);
    web.clock().advance(hour);
    assert_eq!(get(&web, "a.test", "/between", &[]).await.status, 200);
}

#[tokio::test]
async fn redirect_chains_cross_hosts_and_loops() {
    let a = HostSpec::new("a.test")
        .at("/1", Resource::redirect(301, "/2"))
        .at("/2", Resource::redirect(302, "/3"))
        .at(
            "/3",
            Resource::new(Behaviour::Redirect {
                status: 307,
                to: Target::Host {
                    host: "b.test".into(),
                    path: "/4".into(),
                },
            }),
        )
        .at("/loop", Resource::redirect(308, "/loop"));
    let b = HostSpec::new("b.test")
        .at(
            "/4",
            Resource::new(Behaviour::Redirect {
                status: 308,
                to: Target::Url("http://a.test/final".into()),
            }),
        )
        .at("/final", Resource::feed(FeedSpec::fixed("b")));
    let web = Web::start(vec![a, b]).await.unwrap();
    let b_port = web.addr("b.test").unwrap().port();
    let hops = [
        ("a.test", "/1", 301, "/2".to_string()),
        ("a.test", "/2", 302, "/3".to_string()),
        ("a.test", "/3", 307, format!("http://b.test:{b_port}/4")),
        ("b.test", "/4", 308, "http://a.test/final".to_string()),
        ("a.test", "/loop", 308, "/loop".to_string()),
    ];
    for (host, path, status, location) in hops {
        let r = get(&web, host, path, &[]).await;
        assert_eq!(
            (r.status, r.header("location")),
            (status, Some(location.as_str())),
            "{path}"
        );
    }
}

#[tokio::test]
async fn robots_txt_variants_are_ordinary_resources() {
    let own =
        "User-agent: tidings\nDisallow: /private\nCrawl-delay: 5\n\nUser-agent: *\nDisallow: /\n";
    let web = Web::start(vec![
        HostSpec::new("own.test").at("/robots.txt", Resource::robots(own)),
        HostSpec::new("missing.test"),
        HostSpec::new("error.test").at("/robots.txt", Resource::status(503)),
        HostSpec::new("slow.test").at(
            "/robots.txt",
            Resource::robots("User-agent: *\nAllow: /\n")
                .with(Behaviour::Delay(Duration::from_millis(20))),
        ),
    ])
    .await
    .unwrap();
    let r = get(&web, "own.test", "/robots.txt", &[]).await;
    assert_eq!((r.status, r.text()), (200, own.to_string()));
    assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
    assert_eq!(
        get(&web, "missing.test", "/robots.txt", &[]).await.status,
        404
    );
    assert_eq!(
        get(&web, "error.test", "/robots.txt", &[]).await.status,
        503
    );
    assert_eq!(get(&web, "slow.test", "/robots.txt", &[]).await.status, 200);
}

#[tokio::test]
async fn challenge_pages_carry_cf_mitigated_and_html() {
    let web = one_host(vec![
        ("/403", Resource::new(Behaviour::Challenge(403))),
        ("/503", Resource::new(Behaviour::Challenge(503))),
    ])
    .await;
    for (path, status) in [("/403", 403), ("/503", 503)] {
        let r = get(&web, "a.test", path, &[]).await;
        assert_eq!(r.status, status);
        assert_eq!(r.header("cf-mitigated"), Some("challenge"));
        assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
        assert!(r.text().contains("Just a moment"));
    }
}

#[tokio::test]
async fn a_huge_body_has_exactly_its_declared_length() {
    let len = 5 * 1024 * 1024 + 17;
    let web = one_host(vec![("/huge", Resource::new(Behaviour::Huge(len)))]).await;
    let r = get(&web, "a.test", "/huge", &[]).await;
    assert_eq!(r.header("content-length"), Some(len.to_string().as_str()));
    assert_eq!(r.body.len() as u64, len);
    assert!(r.body.starts_with(b"<?xml"));
    let e = ended(web.recorder(), 0).await;
    assert!(e.completed);
    assert_eq!(e.body_bytes, len);
}

#[tokio::test]
async fn an_endless_body_streams_until_the_client_leaves() {
    let web = one_host(vec![("/endless", Resource::new(Behaviour::Endless))]).await;
    let mut stream = connect(web.addr("a.test").unwrap(), None).await;
    stream
        .write_all(&support::request(&web, "a.test", "/endless", &[]))
        .await
        .unwrap();
    let mut got = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    while got.len() < 3 * 1024 * 1024 {
        let n = stream.read(&mut buf).await.unwrap();
        assert!(n > 0, "the body ended");
        got.extend_from_slice(&buf[..n]);
    }
    let head = String::from_utf8_lossy(&got[..200]).to_ascii_lowercase();
    assert!(head.contains("transfer-encoding: chunked"), "{head}");
    assert!(!head.contains("content-length"));
    drop(stream);
    let e = ended(web.recorder(), 0).await;
    assert_eq!(e.status, Some(200));
    assert!(!e.completed);
    assert!(e.body_bytes >= 2 * 1024 * 1024);
}

#[tokio::test]
async fn a_gzip_bomb_is_tiny_on_the_wire_and_huge_inflated() {
    let mib = 1024 * 1024;
    let web = one_host(vec![(
        "/bomb",
        Resource::new(Behaviour::GzipBomb(64 * mib)),
    )])
    .await;
    let r = get(&web, "a.test", "/bomb", &[("Accept-Encoding", "gzip")]).await;
    assert_eq!(r.header("content-encoding"), Some("gzip"));
    assert!(
        r.body.len() < 256 * 1024,
        "{} bytes on the wire",
        r.body.len()
    );
    // Inflate only the first 8 MiB: enough to show the ratio without paying for it all.
    let mut inflated = 0usize;
    let mut decoder = flate2::read::GzDecoder::new(&r.body[..]);
    let mut buf = vec![0u8; mib as usize];
    while inflated < 8 * mib as usize {
        let n = decoder.read(&mut buf).unwrap();
        assert!(n > 0);
        inflated += n;
    }
    assert!(inflated as u64 >= 8 * mib && r.body.len() * 32 < inflated);
}

#[tokio::test]
async fn malformed_feeds_are_served_byte_for_byte_with_a_feed_type() {
    let paths: Vec<String> = (0..Malformed::ALL.len())
        .map(|i| format!("/bad{i}"))
        .collect();
    let resources = paths
        .iter()
        .zip(Malformed::ALL)
        .map(|(p, m)| (p.as_str(), Resource::new(Behaviour::Malformed(m))))
        .collect();
    let web = one_host(resources).await;
    for (path, kind) in paths.iter().zip(Malformed::ALL) {
        let r = get(&web, "a.test", path, &[]).await;
        assert_eq!(r.status, 200);
        assert_eq!(
            r.header("content-type"),
            Some("application/rss+xml; charset=utf-8")
        );
        assert_eq!(r.body, kind.body().to_vec(), "{kind:?}");
    }
}

#[tokio::test]
async fn an_answer_the_client_leaves_unread_is_not_completed_though_all_was_handed_over() {
    let web = one_host(vec![("/feed.xml", Resource::feed(FeedSpec::fixed("a")))]).await;
    let port = web.addr("a.test").unwrap().port();
    let mut stream = connect(web.addr("a.test").unwrap(), None).await;
    // Keep-alive, as a crawler's pooled connection: the web waits for the next request.
    let head = format!(
        "GET /feed.xml HTTP/1.1\r\nHost: a.test:{port}\r\nUser-Agent: {}\r\n\r\n",
        support::UA
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut start = [0u8; 12];
    stream.read_exact(&mut start).await.unwrap();
    assert_eq!(&start, b"HTTP/1.1 200");
    // The whole answer is in the kernel's buffers: as far as the web can tell, it was sent.
    let e = ended(web.recorder(), 0).await;
    assert!(e.completed);
    // The client stops reading (a body cap) and hangs up with the rest unread: a reset.
    drop(stream);
    let all = support::until(web.recorder(), |all| !all[0].completed).await;
    assert!(all[0].abandoned());
    assert_eq!(
        all[0].ended, e.ended,
        "the end stays when the web finished writing"
    );
}
