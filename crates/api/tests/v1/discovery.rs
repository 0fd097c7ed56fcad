//! FF3 through the API: the feeds discovery holds as perhaps stored ones, listed for an admin
//! key and decided as a duplicate, a feed of its own, or rejected; each decision a new check
//! beside the held one (FF2).

use crate::auth::{call, is_problem, key};
use crate::support::{Server, t};
use tidings_api::auth::Role;
use tidings_model::{CheckSource, Disposition, FeedId};
use tidings_store::{CheckApply, UrlCheck};

async fn hold(server: &Server, url: &str, feed: FeedId) -> i64 {
    server
        .store
        .apply_check(&CheckApply {
            check: UrlCheck {
                url: url.into(),
                at: t(0),
                disposition: Disposition::Held,
                reason: "FF3: 10 of 20 entry ids in common with feed 1".into(),
                feed_id: Some(feed),
                source: CheckSource::Alternate,
                found_on: Some("https://mirror.example/".into()),
            },
            log: Vec::new(),
            host_floor: None,
        })
        .await
        .unwrap()
}

#[tokio::test]
async fn ff3_held_matches_are_listed_and_decided_by_an_admin() {
    let server = Server::start().await;
    let (_, admin) = key(&server, Role::Admin).await;
    let (_, reader) = key(&server, Role::Reader).await;
    let feed = server
        .subscribe("https://example.org/feed.xml", "alice")
        .await;
    let first = hold(&server, "https://mirror.example/feed.xml", feed).await;
    let second = hold(&server, "https://copy.example/rss", feed).await;

    is_problem(
        &call(&server, "GET", "/v1/discovery/held", Some(&reader), None).await,
        403,
        "forbidden",
    );
    let (status, _, listed) = call(&server, "GET", "/v1/discovery/held", Some(&admin), None).await;
    assert_eq!(status, 200, "{listed}");
    let held = listed["held"].as_array().unwrap();
    assert_eq!(held.len(), 2);
    assert_eq!(held[0]["id"], first);
    assert_eq!(held[0]["disposition"], "held");
    assert_eq!(held[0]["feed_id"], feed.0);
    assert_eq!(held[0]["source"], "alternate");

    let path = format!("/v1/discovery/held/{first}");
    is_problem(
        &call(
            &server,
            "POST",
            &path,
            Some(&admin),
            Some(r#"{"decision": "maybe"}"#),
        )
        .await,
        400,
        "invalid-parameter",
    );
    is_problem(
        &call(
            &server,
            "POST",
            "/v1/discovery/held/0",
            Some(&admin),
            Some(r#"{"decision": "new"}"#),
        )
        .await,
        400,
        "invalid-parameter",
    );
    is_problem(
        &call(
            &server,
            "POST",
            "/v1/discovery/held/99999",
            Some(&admin),
            Some(r#"{"decision": "new"}"#),
        )
        .await,
        404,
        "not-found",
    );
    is_problem(
        &call(
            &server,
            "POST",
            &path,
            Some(&reader),
            Some(r#"{"decision": "new"}"#),
        )
        .await,
        403,
        "forbidden",
    );
    let (status, _, decided) = call(
        &server,
        "POST",
        &path,
        Some(&admin),
        Some(r#"{"decision": "duplicate"}"#),
    )
    .await;
    assert_eq!(status, 200, "{decided}");
    assert_eq!(decided["disposition"], "duplicate");
    assert_eq!(decided["feed_id"], feed.0);
    assert!(
        decided["reason"]
            .as_str()
            .unwrap()
            .contains("accepted by key"),
        "{decided}"
    );
    // Decided once: not again.
    is_problem(
        &call(
            &server,
            "POST",
            &path,
            Some(&admin),
            Some(r#"{"decision": "reject"}"#),
        )
        .await,
        422,
        "refused",
    );
    let (_, _, listed) = call(&server, "GET", "/v1/discovery/held", Some(&admin), None).await;
    let ids: Vec<i64> = listed["held"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [second]);
    let history = server
        .store
        .url_checks("https://mirror.example/feed.xml", 10)
        .await
        .unwrap();
    assert_eq!(history.len(), 2, "the held check stays beside the decision");
}
