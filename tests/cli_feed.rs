//! `tidings feed FEED --egress ADDR`: an operator assigns one of the configured egress
//! addresses to a feed (WFM7); anything else is refused with the reason.

mod support;

use support::{stderr, stdout, tidings};

#[tokio::test]
async fn wfm7_an_operator_assigns_a_configured_egress_address_and_takes_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let out = tidings(
        &db,
        &["add", "--no-fetch", "https://feeds.example/feed.xml"],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));

    let out = tidings(&db, &["feed", "1", "--egress", "192.0.2.7"]).await;
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("192.0.2.7 is not a configured egress address (none is configured)"),
        "{}",
        stderr(&out)
    );

    let configured = [
        "--egress-address",
        "192.0.2.7",
        "--egress-address",
        "192.0.2.8",
    ];
    let assign = [&configured[..], &["feed", "1", "--egress", "192.0.2.8"]].concat();
    let out = tidings(&db, &assign).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("is read from 192.0.2.8"),
        "{}",
        stdout(&out)
    );
    let out = tidings(&db, &["feeds", "--json"]).await;
    let feed: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().next().unwrap_or_default()).expect("json");
    assert_eq!(feed["egress"], "192.0.2.8", "{feed}");

    let out = tidings(&db, &["feed", "1", "--egress", "eth0"]).await;
    assert!(
        stderr(&out).contains("egress \"eth0\" is not an IP address"),
        "{}",
        stderr(&out)
    );
    let out = tidings(&db, &["feed", "1"]).await;
    assert!(
        stderr(&out).contains("nothing to change"),
        "{}",
        stderr(&out)
    );
    let out = tidings(&db, &["feed", "7", "--default-egress"]).await;
    assert!(stderr(&out).contains("no feed 7"), "{}", stderr(&out));

    let out = tidings(&db, &["feed", "1", "--default-egress"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("is read from the system's own address"),
        "{}",
        stdout(&out)
    );
}
