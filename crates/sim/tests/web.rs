//! The web itself: virtual hosts on loopback addresses, `--resolve` arguments, the recorder's
//! exact header bytes and times, silent and slow servers, refusals by client address, shutdown.

mod support;

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use support::{UA, connect, ended, get, send, until};
use tidings_sim::{Behaviour, FeedSpec, HostSpec, Resource, Web};
use tokio::io::AsyncWriteExt;

fn feed_host(name: &str) -> HostSpec {
    HostSpec::new(name).at("/feed.xml", Resource::feed(FeedSpec::fixed(name)))
}

#[tokio::test]
async fn hosts_get_their_own_loopback_addresses_and_resolve_arguments() {
    let web = Web::start(vec![
        feed_host("a.test"),
        feed_host("b.test"),
        feed_host("c.test"),
    ])
    .await
    .unwrap();
    let ips: Vec<IpAddr> = ["a.test", "b.test", "c.test"]
        .iter()
        .map(|h| web.addr(h).unwrap().ip())
        .collect();
    let want: Vec<IpAddr> = (2..=4)
        .map(|o| IpAddr::V4(Ipv4Addr::new(127, 0, 0, o)))
        .collect();
    assert_eq!(ips, want);
    let port = web.addr("b.test").unwrap().port();
    assert_eq!(web.resolve_args()[1], format!("b.test:{port}:127.0.0.3"));
    assert_eq!(
        web.url("b.test", "/feed.xml").unwrap(),
        format!("http://b.test:{port}/feed.xml")
    );
    assert_eq!(web.url("nowhere.test", "/"), None);

    let r = get(&web, "c.test", "/feed.xml", &[]).await;
    assert_eq!(r.status, 200);
    assert!(r.text().contains("<title>c.test</title>"));
    let seen = web.recorder().exchanges();
    assert_eq!(seen[0].host, "c.test");
    assert_eq!(seen[0].local.ip(), IpAddr::V4(Ipv4Addr::new(127, 0, 0, 4)));
}

#[tokio::test]
async fn three_hundred_hosts_wrap_around_the_253_addresses() {
    let hosts = (0..300)
        .map(|i| HostSpec::new(&format!("h{i}.test")))
        .collect();
    let web = Web::start(hosts).await.unwrap();
    assert_eq!(web.resolve_args().len(), 300);
    assert_eq!(
        web.addr("h252.test").unwrap().ip(),
        IpAddr::V4(Ipv4Addr::new(127, 0, 0, 254))
    );
    assert_eq!(
        web.addr("h253.test").unwrap().ip(),
        IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2))
    );
    assert_eq!(get(&web, "h299.test", "/", &[]).await.status, 404);
}

#[tokio::test]
async fn two_hosts_with_one_name_are_refused() {
    let err = Web::start(vec![HostSpec::new("a.test"), HostSpec::new("a.test")])
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "two virtual hosts are named a.test");
}

#[tokio::test]
async fn the_recorder_keeps_every_header_byte_for_byte() {
    let web = Web::start(vec![feed_host("a.test")]).await.unwrap();
    let port = web.addr("a.test").unwrap().port();
    // An odd-cased name, inner spaces, quotes and a non-UTF-8 byte in a value.
    let mut raw = format!(
        "GET /feed.xml?x=1&y=%20 HTTP/1.1\r\nHost: a.test:{port}\r\nUser-Agent: {UA}\r\n\
         IF-None-Match: W/\"a  b\"\r\nX-Odd: caf"
    )
    .into_bytes();
    raw.push(0xE9);
    raw.extend_from_slice(b"\r\nX-Twice: 1\r\nX-Twice: 2\r\nConnection: close\r\n\r\n");
    let r = send(&web, "a.test", None, &raw).await;
    assert_eq!(r.status, 200);

    let e = ended(web.recorder(), 0).await;
    assert_eq!(e.method, "GET");
    assert_eq!(e.target, "/feed.xml?x=1&y=%20");
    assert_eq!(e.path(), "/feed.xml");
    assert_eq!(e.header("if-none-match"), Some(&b"W/\"a  b\""[..]));
    assert_eq!(e.header("x-odd"), Some(&b"caf\xE9"[..]));
    let names: Vec<&str> = e.headers.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "host",
            "user-agent",
            "if-none-match",
            "x-odd",
            "x-twice",
            "x-twice",
            "connection"
        ]
    );
    assert_eq!(e.headers[4].value, b"1");
    assert_eq!(e.headers[5].value, b"2");
    assert_eq!(e.headers[3].value_str(), "caf\u{e9}");
    // The response side too, and the times are in order.
    assert_eq!(e.status, Some(200));
    assert_eq!(
        e.response_header("etag").map(<[u8]>::to_vec),
        r.header("etag").map(|v| v.as_bytes().to_vec())
    );
    assert!(e.completed);
    assert_eq!(e.body_bytes, r.body.len() as u64);
    let (responded, end) = (e.responded.unwrap(), e.ended.unwrap());
    assert!(e.started.mono <= responded.mono && responded.mono <= end.mono);
    assert!(e.started.wall <= end.wall);
    assert_eq!(
        e.started.sim,
        web.clock().now(),
        "a manual clock stands still"
    );
}

#[tokio::test]
async fn requests_on_one_kept_alive_connection_are_recorded_apart() {
    let web = Web::start(vec![feed_host("a.test")]).await.unwrap();
    let mut head = String::new();
    for path in ["/feed.xml", "/missing"] {
        head.push_str(&format!(
            "GET {path} HTTP/1.1\r\nHost: a.test\r\nUser-Agent: {UA}\r\n\r\n"
        ));
    }
    head.push_str("GET /last HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n");
    let r = send(&web, "a.test", None, head.as_bytes()).await;
    assert_eq!(r.status, 200);
    let all = until(web.recorder(), |all| {
        all.len() == 3 && all.iter().all(|e| e.ended.is_some())
    })
    .await;
    let got: Vec<(&str, Option<u16>)> = all.iter().map(|e| (e.target.as_str(), e.status)).collect();
    assert_eq!(
        got,
        [
            ("/feed.xml", Some(200)),
            ("/missing", Some(404)),
            ("/last", Some(404))
        ]
    );
    assert_eq!(all[0].peer, all[2].peer, "one connection");
}

#[tokio::test]
async fn chosen_client_addresses_are_refused_with_403_and_recorded_as_peers() {
    let refused = Ipv4Addr::new(127, 0, 0, 77);
    let host = HostSpec::new("a.test").at(
        "/feed.xml",
        Resource::feed(FeedSpec::fixed("a")).with(Behaviour::Refuse {
            peers: vec![IpAddr::V4(refused)],
            status: 403,
        }),
    );
    let web = Web::start(vec![host]).await.unwrap();
    let req = support::request(&web, "a.test", "/feed.xml", &[]);
    let bad = send(&web, "a.test", Some(refused), &req).await;
    let good = send(&web, "a.test", Some(Ipv4Addr::new(127, 0, 0, 78)), &req).await;
    assert_eq!((bad.status, good.status), (403, 200));
    let all = web.recorder().exchanges();
    assert_eq!(all[0].peer.ip(), IpAddr::V4(refused));
    assert_eq!(all[1].peer.ip(), IpAddr::V4(Ipv4Addr::new(127, 0, 0, 78)));
}

#[tokio::test]
async fn a_silent_server_reads_the_request_never_answers_and_records_the_client_leaving() {
    let host = HostSpec::new("a.test").at("/robots.txt", Resource::new(Behaviour::Silent));
    let web = Web::start(vec![host]).await.unwrap();
    let mut stream = connect(web.addr("a.test").unwrap(), None).await;
    stream
        .write_all(&support::request(&web, "a.test", "/robots.txt", &[]))
        .await
        .unwrap();
    let all = until(web.recorder(), |all| !all.is_empty()).await;
    assert_eq!(all[0].status, None);
    assert_eq!(all[0].ended, None);
    let mut buf = [0u8; 16];
    let nothing = stream.try_read(&mut buf);
    assert_eq!(nothing.unwrap_err().kind(), std::io::ErrorKind::WouldBlock);

    drop(stream);
    let e = ended(web.recorder(), 0).await;
    assert_eq!(e.status, None);
    assert!(!e.completed);
}

#[tokio::test]
async fn a_slow_server_waits_its_delay_before_answering() {
    let delay = Duration::from_millis(150);
    let host = HostSpec::new("a.test").at(
        "/feed.xml",
        Resource::feed(FeedSpec::fixed("a")).with(Behaviour::Delay(delay)),
    );
    let web = Web::start(vec![host]).await.unwrap();
    assert_eq!(get(&web, "a.test", "/feed.xml", &[]).await.status, 200);
    let e = ended(web.recorder(), 0).await;
    assert!(e.responded.unwrap().mono - e.started.mono >= delay);
}

#[tokio::test]
async fn resources_can_be_replaced_while_serving() {
    let web = Web::start(vec![feed_host("a.test")]).await.unwrap();
    assert_eq!(get(&web, "a.test", "/feed.xml", &[]).await.status, 200);
    assert!(web.set("a.test", "/feed.xml", Resource::status(410)));
    assert!(!web.set("nowhere.test", "/feed.xml", Resource::status(410)));
    assert_eq!(get(&web, "a.test", "/feed.xml", &[]).await.status, 410);
}

#[tokio::test]
async fn a_stopped_host_refuses_connections_while_the_others_serve() {
    let web = Web::start(vec![feed_host("a.test"), feed_host("b.test")])
        .await
        .unwrap();
    get(&web, "a.test", "/feed.xml", &[]).await;
    get(&web, "b.test", "/feed.xml", &[]).await;
    get(&web, "b.test", "/other", &[]).await;
    assert_eq!(web.recorder().to_host("b.test").len(), 2);
    assert_eq!(web.recorder().count("b.test", "/feed.xml"), 1);
    assert!(web.stop_host("a.test"));
    assert!(!web.stop_host("nowhere.test"));
    let addr = web.addr("a.test").unwrap();
    while tokio::net::TcpStream::connect(addr).await.is_ok() {
        tokio::task::yield_now().await;
    }
    assert_eq!(get(&web, "b.test", "/feed.xml", &[]).await.status, 200);
}

#[tokio::test]
async fn shutdown_closes_the_listeners() {
    let web = Web::start(vec![feed_host("a.test")]).await.unwrap();
    let addr = web.addr("a.test").unwrap();
    web.shutdown();
    // The accept loop is aborted on the runtime; wait until connecting fails.
    loop {
        if tokio::net::TcpStream::connect(addr).await.is_err() {
            break;
        }
        tokio::task::yield_now().await;
    }
}

#[tokio::test]
async fn a_trickling_server_sends_its_body_in_small_late_pieces() {
    let every = Duration::from_millis(5);
    let host = HostSpec::new("a.test").at(
        "/feed.xml",
        Resource::feed(FeedSpec::fixed("a")).with(Behaviour::Trickle { bytes: 500, every }),
    );
    let web = Web::start(vec![host]).await.unwrap();
    let r = get(&web, "a.test", "/feed.xml", &[]).await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-length"),
        Some(r.body.len().to_string().as_str())
    );
    assert!(r.text().ends_with("</rss>\n"));
    let e = ended(web.recorder(), 0).await;
    assert!(e.completed);
    let pieces = r.body.len().div_ceil(500) as u32;
    assert!(pieces >= 3);
    assert!(e.ended.unwrap().mono - e.responded.unwrap().mono >= every * (pieces - 1));
}

#[tokio::test]
async fn host_wide_behaviours_come_before_every_resource_and_unknown_paths() {
    let host = feed_host("a.test")
        .everywhere(Behaviour::Throttle {
            status: 429,
            retry_after: Some(tidings_sim::RetryAfter::Seconds(60)),
            when: tidings_sim::When::Until(Duration::from_secs(60)),
        })
        .everywhere(Behaviour::Header {
            name: "x-host".into(),
            value: "a".into(),
        });
    let web = Web::start(vec![host]).await.unwrap();
    for path in ["/feed.xml", "/unknown"] {
        let r = get(&web, "a.test", path, &[]).await;
        assert_eq!(
            (r.status, r.header("retry-after"), r.header("x-host")),
            (429, Some("60"), Some("a"))
        );
    }
    web.clock().advance(Duration::from_secs(60));
    let r = get(&web, "a.test", "/feed.xml", &[]).await;
    assert_eq!((r.status, r.header("x-host")), (200, Some("a")));
    let r = get(&web, "a.test", "/unknown", &[]).await;
    assert_eq!(r.status, 404, "host-wide modifiers alone are no content");
}

#[tokio::test]
async fn a_head_request_gets_the_headers_and_completes() {
    let web = Web::start(vec![feed_host("a.test")]).await.unwrap();
    let port = web.addr("a.test").unwrap().port();
    let raw =
        format!("HEAD /feed.xml HTTP/1.1\r\nHost: a.test:{port}\r\nConnection: close\r\n\r\n");
    let r = send(&web, "a.test", None, raw.as_bytes()).await;
    assert_eq!((r.status, r.header("etag")), (200, Some("\"v0\"")));
    assert!(r.body.is_empty());
    let e = ended(web.recorder(), 0).await;
    assert_eq!((e.method.as_str(), e.completed), ("HEAD", true));
}
