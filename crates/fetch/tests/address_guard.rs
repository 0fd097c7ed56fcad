//! The address guard: non-public targets are refused before anything is sent, on the first
//! request and on every redirect hop; `resolve` overrides win over DNS and are trusted.

mod support;

use support::{Reply, Server, config, fetcher, get, parse, response};
use tidings_fetch::{FetchConfig, FetchOutcome};

const FEED: &[u8] = b"<rss version=\"2.0\"><channel/></rss>";

fn guarded() -> FetchConfig {
    let mut config = config();
    config.allow_private_networks = false;
    config
}

fn assert_blocked(outcome: &FetchOutcome, mentions: &str) {
    match outcome {
        FetchOutcome::Blocked { reason } => assert!(
            reason.contains(mentions),
            "reason {reason:?} lacks {mentions:?}"
        ),
        other => panic!("expected blocked, got {other:?}"),
    }
}

async fn feed_server() -> Server {
    Server::start(|_, _| Reply::Raw(response(200, &[], FEED))).await
}

#[tokio::test]
async fn loopback_literal_is_blocked_unless_allowed() {
    let server = feed_server().await;
    let got = get(&fetcher(guarded()), server.url("/feed")).await;
    assert_blocked(&got.outcome, "loopback");
    assert!(
        server.requests().is_empty(),
        "nothing may reach a blocked target"
    );

    let got = get(&fetcher(config()), server.url("/feed")).await;
    assert_eq!(support::body(&got.outcome), FEED);
}

#[tokio::test]
async fn private_link_local_and_ipv6_loopback_literals_are_blocked() {
    let fetcher = fetcher(guarded());
    for (url, mentions) in [
        ("http://10.0.0.1/feed", "private"),
        ("http://192.168.0.10:8080/feed", "private"),
        ("http://[::1]/feed", "loopback"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://[::ffff:169.254.169.254]/", "link-local"),
        // Issue 12: the IPv4-translated form of 127.0.0.1, exactly as reported.
        ("http://[::ffff:0:7f00:1]/", "ipv4-translated"),
        ("http://[64:ff9b::7f00:1]/", "loopback"),
        ("http://[2001:4:112::1]/", "ietf protocol assignment"),
        ("http://192.31.196.1/", "as112"),
        ("http://100.100.1.1/", "CGNAT"),
        ("http://0.0.0.0/", "this network"),
        ("http://2130706433/feed", "loopback"),
    ] {
        let got = get(&fetcher, parse(url)).await;
        assert_blocked(&got.outcome, mentions);
        assert_eq!(got.final_url, parse(url));
    }
}

#[tokio::test]
async fn resolve_override_reaches_a_simulated_publisher_without_dns() {
    // `.test` names never resolve in DNS: a fetched body proves the override was used.
    let server = feed_server().await;
    let port = server.addr.port();
    let mut config = guarded();
    config.resolve = vec![("feeds.example.test".to_owned(), port, server.addr)];
    let got = get(
        &fetcher(config),
        parse(&format!("http://feeds.example.test:{port}/feed")),
    )
    .await;
    assert_eq!(support::body(&got.outcome), FEED);
    assert_eq!(
        server.requests()[0].header("host"),
        Some(format!("feeds.example.test:{port}").as_bytes())
    );
}

#[tokio::test]
async fn resolve_override_port_is_used_when_the_url_has_none() {
    let server = feed_server().await;
    let mut config = config();
    config.resolve = vec![("Feeds.Example.Test".to_owned(), 80, server.addr)];
    let got = get(&fetcher(config), parse("http://feeds.example.test/feed")).await;
    assert_eq!(support::body(&got.outcome), FEED);
    assert_eq!(
        server.requests()[0].header("host"),
        Some(&b"feeds.example.test"[..])
    );
}

#[tokio::test]
async fn redirect_from_an_allowed_name_to_a_blocked_literal_is_blocked() {
    let server = Server::start(|req, addr| match req.path() {
        "/feed" => Reply::Raw(response(
            302,
            &[("location", format!("http://{addr}/inner").as_bytes())],
            b"",
        )),
        _ => Reply::Raw(response(200, &[], FEED)),
    })
    .await;
    let port = server.addr.port();
    let mut config = guarded();
    config.resolve = vec![("feeds.example.test".to_owned(), port, server.addr)];
    let start = parse(&format!("http://feeds.example.test:{port}/feed"));
    let got = get(&fetcher(config), start.clone()).await;
    assert_blocked(&got.outcome, "loopback");
    assert_eq!(got.redirects.len(), 1);
    assert_eq!(got.redirects[0].from, start);
    assert_eq!(got.final_url, server.url("/inner"));
    let requests = server.requests();
    let paths: Vec<&str> = requests.iter().map(|r| r.path()).collect();
    assert_eq!(paths, ["/feed"], "the blocked hop is never sent");
}

#[tokio::test]
async fn redirect_to_a_name_resolving_to_loopback_is_blocked_by_the_resolver() {
    // `localhost` is resolved by the system resolver (the hosts file), then refused.
    let server = Server::start(|req, addr| match req.path() {
        "/feed" => {
            let to = format!("http://localhost:{}/inner", addr.port());
            Reply::Raw(response(301, &[("location", to.as_bytes())], b""))
        }
        _ => Reply::Raw(response(200, &[], FEED)),
    })
    .await;
    let port = server.addr.port();
    let mut config = guarded();
    config.resolve = vec![("feeds.example.test".to_owned(), port, server.addr)];
    let got = get(
        &fetcher(config),
        parse(&format!("http://feeds.example.test:{port}/feed")),
    )
    .await;
    assert_blocked(
        &got.outcome,
        "localhost resolves only to non-public addresses",
    );
    assert_eq!(server.requests().len(), 1);
}
