//! WFM7, PF11: a request names the local address it is sent from, one of the configured egress
//! addresses; every hop of a read leaves from it, and an address not configured sends nothing.

mod support;

use std::net::IpAddr;
use support::{Reply, Server, config, fetcher, head, response};
use tidings_fetch::{FetchOutcome, FetchRequest};

const FEED: &[u8] = b"<rss version=\"2.0\"><channel><title>t</title></channel></rss>";

fn ip(text: &str) -> IpAddr {
    text.parse().expect("test address")
}

#[tokio::test]
async fn wfm7_a_read_leaves_from_its_egress_address_on_every_hop() {
    let server = Server::start(|req, addr| {
        if req.path() == "/old" {
            let to = format!("http://{addr}/feed");
            Reply::Raw(head(301, &[("location", to.as_bytes())]))
        } else {
            Reply::Raw(response(200, &[], FEED))
        }
    })
    .await;
    let mut cfg = config();
    cfg.egress = vec![ip("127.0.0.3"), ip("127.0.0.4")];
    let fetcher = fetcher(cfg);

    let bound = FetchRequest {
        egress: Some(ip("127.0.0.3")),
        ..FetchRequest::new(server.url("/old"))
    };
    let answer = fetcher.fetch(&bound).await;
    assert!(
        matches!(answer.outcome, FetchOutcome::Fetched(_)),
        "{:?}",
        answer.outcome
    );
    let other = FetchRequest {
        egress: Some(ip("127.0.0.4")),
        ..FetchRequest::new(server.url("/feed"))
    };
    assert!(matches!(
        fetcher.fetch(&other).await.outcome,
        FetchOutcome::Fetched(_)
    ));
    let default = fetcher.fetch(&FetchRequest::new(server.url("/feed"))).await;
    assert!(matches!(default.outcome, FetchOutcome::Fetched(_)));

    let sources: Vec<(String, IpAddr)> = server
        .requests()
        .iter()
        .map(|r| (r.path().to_owned(), r.peer.expect("peer recorded").ip()))
        .collect();
    assert_eq!(
        sources,
        [
            ("/old".to_owned(), ip("127.0.0.3")),
            ("/feed".to_owned(), ip("127.0.0.3")),
            ("/feed".to_owned(), ip("127.0.0.4")),
            ("/feed".to_owned(), ip("127.0.0.1")),
        ]
    );
}

#[tokio::test]
async fn an_egress_address_not_configured_sends_nothing() {
    let server = Server::start(|_, _| Reply::Raw(response(200, &[], FEED))).await;
    let fetcher = fetcher(config());
    let request = FetchRequest {
        egress: Some(ip("127.0.0.9")),
        ..FetchRequest::new(server.url("/feed"))
    };
    match fetcher.fetch(&request).await.outcome {
        FetchOutcome::Blocked { reason } => {
            assert_eq!(
                reason,
                "egress 127.0.0.9 is not one of the configured addresses"
            );
        }
        other => panic!("expected blocked, got {other:?}"),
    }
    assert!(server.requests().is_empty());
}
