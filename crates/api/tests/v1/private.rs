//! Subscriptions the crawler could never read (issue 12): without private networks allowed,
//! a feed at an IP literal outside the public address space is refused when subscribed to,
//! with the guard's reason and the flag that would allow it, and nothing is stored.

use crate::auth::{call, is_problem, key};
use crate::support::Server;
use tidings_api::auth::Role;

const PRIVATE: &str = r#"{"url": "http://10.0.0.1/"}"#;

#[tokio::test]
async fn an_ip_literal_outside_the_public_space_is_a_400_and_nothing_is_stored() {
    let server = Server::start().await;
    let (_, admin) = key(&server, Role::Admin).await;
    let answer = call(&server, "POST", "/v1/feeds", Some(&admin), Some(PRIVATE)).await;
    is_problem(&answer, 400, "invalid-parameter");
    let detail = answer.2["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("address 10.0.0.1 is private")
            && detail.contains("--allow-private-networks"),
        "{detail}"
    );
    for url in [
        "http://127.0.0.1:8080/feed",
        "http://[::1]/feed",
        "http://169.254.169.254/",
    ] {
        let body = format!(r#"{{"url": "{url}"}}"#);
        let answer = call(&server, "POST", "/v1/feeds", Some(&admin), Some(&body)).await;
        is_problem(&answer, 400, "invalid-parameter");
    }
    assert!(server.store.feeds().await.unwrap().is_empty());

    // A name is left to the reads, where the resolver's answers are guarded: no DNS here.
    let named = r#"{"url": "http://localhost/feed"}"#;
    let answer = call(&server, "POST", "/v1/feeds", Some(&admin), Some(named)).await;
    assert_eq!(answer.0, 201, "{}", answer.2);
}

#[tokio::test]
async fn allowed_when_the_server_reads_private_networks() {
    let server = Server::allowing_private_networks().await;
    let (_, admin) = key(&server, Role::Admin).await;
    let answer = call(&server, "POST", "/v1/feeds", Some(&admin), Some(PRIVATE)).await;
    assert_eq!(answer.0, 201, "{}", answer.2);
    assert_eq!(answer.2["url"], "http://10.0.0.1/");
}

#[tokio::test]
async fn an_opml_import_subscribes_the_public_feeds_and_skips_the_private_one() {
    let server = Server::start().await;
    let (_, admin) = key(&server, Role::Admin).await;
    let opml = r#"<opml version="2.0"><body>
  <outline text="One" xmlUrl="https://one.example/feed.xml"/>
  <outline text="Inside" xmlUrl="http://192.168.1.1/feed"/>
  <outline text="Two" xmlUrl="https://two.example/rss"/>
</body></opml>"#;
    let imported = call(&server, "POST", "/v1/opml", Some(&admin), Some(opml)).await;
    assert_eq!(imported.0, 200, "{}", imported.2);
    let report = &imported.2;
    assert_eq!(
        report["subscribed"].as_array().map(Vec::len),
        Some(2),
        "{report}"
    );
    assert_eq!(
        report["skipped"][0]["url"], "http://192.168.1.1/feed",
        "{report}"
    );
    assert!(
        report["skipped"][0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("192.168.1.1 is private")),
        "{report}"
    );
    let urls: Vec<String> = server
        .store
        .feeds()
        .await
        .unwrap()
        .iter()
        .map(|f| f.url.to_string())
        .collect();
    assert_eq!(
        urls,
        ["https://one.example/feed.xml", "https://two.example/rss"]
    );
}
