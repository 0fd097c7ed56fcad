//! `tidings users add/list/passwd/remove`: accounts are made with a password read from
//! standard input, listed without any secret, their passwords replaced (the login's and the
//! sync clients' apart), and removed; bad names and short passwords are refused with a reason.

mod support;

use std::path::Path;
use support::{Publisher, Resource, fast_profile, rss, stderr, stdout, tidings, with_stdin};

/// The stored hashes of `name`, read from the database itself.
async fn hashes(db: &Path, name: &str) -> (String, Option<String>) {
    let store = tidings_store::open(db.to_str().unwrap()).await.unwrap();
    let secrets = store.account_secrets(name).await.unwrap().expect("account");
    (secrets.password_hash, secrets.api_password_hash)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounts_are_made_listed_without_secrets_given_passwords_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");

    let out = tidings(&db, &["users", "list"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("no accounts"), "{}", stdout(&out));

    let out = with_stdin(
        &db,
        &["users", "add", "Ana", "--role", "admin"],
        "hunter2hunter2\n",
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("account Ana made (admin)"),
        "{}",
        stdout(&out)
    );
    let (login, api) = hashes(&db, "ana").await;
    assert!(login.starts_with("$argon2id$"), "{login}");
    assert!(tidings_api::accounts::verify_password(
        &login,
        "hunter2hunter2"
    ));
    assert_eq!(api, None);

    // Refused, each with its reason, and nothing made.
    for (args, input, why) in [
        (
            &["users", "add", "ANA"][..],
            "another-password\n",
            "exists already",
        ),
        (
            &["users", "add", "bo:b"][..],
            "another-password\n",
            "cannot hold `:`",
        ),
        (
            &["users", "add", "bob"][..],
            "short\n",
            "at least 8 characters",
        ),
        (
            &["users", "add", "bob", "--role", "owner"][..],
            "another-password\n",
            "owner",
        ),
    ] {
        let out = with_stdin(&db, args, input).await;
        assert!(!out.status.success(), "{args:?}");
        assert!(stderr(&out).contains(why), "{args:?}: {}", stderr(&out));
    }

    let out = with_stdin(&db, &["users", "add", "bob"], "bob's password\r\n").await;
    assert!(out.status.success(), "{}", stderr(&out));
    let (bob, _) = hashes(&db, "bob").await;
    assert!(
        tidings_api::accounts::verify_password(&bob, "bob's password"),
        "the line ending is not part of the password"
    );

    // The API password is apart from the login's.
    let out = with_stdin(
        &db,
        &["users", "passwd", "bob", "--api"],
        "sync-client-pw\n",
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let (login, api) = hashes(&db, "bob").await;
    assert_eq!(login, bob, "the login password is unchanged");
    let api = api.expect("an API password");
    assert!(tidings_api::accounts::verify_password(
        &api,
        "sync-client-pw"
    ));
    // The Fever key (md5 of "name:API password", as a Fever client sends it) finds bob.
    let store = tidings_store::open(db.to_str().unwrap()).await.unwrap();
    let key = tidings_api::accounts::fever_key("bob", "sync-client-pw");
    let by_key = store
        .account_by_fever_key(&tidings_api::accounts::fever_key_hash(&key))
        .await
        .unwrap();
    assert_eq!(by_key.map(|a| a.name).as_deref(), Some("bob"));
    assert!(!tidings_api::accounts::verify_password(
        &api,
        "bob's password"
    ));
    let out = with_stdin(&db, &["users", "passwd", "BOB"], "a new login pw\n").await;
    assert!(out.status.success(), "{}", stderr(&out));
    let (login, _) = hashes(&db, "bob").await;
    assert!(tidings_api::accounts::verify_password(
        &login,
        "a new login pw"
    ));

    let out = tidings(&db, &["users", "list"]).await;
    let table = stdout(&out);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 3, "{table}");
    assert!(
        lines[1].starts_with("admin   no ") && lines[1].ends_with("Ana"),
        "{table}"
    );
    assert!(
        lines[2].starts_with("reader  yes") && lines[2].ends_with("bob"),
        "{table}"
    );
    let out = tidings(&db, &["users", "list", "--json"]).await;
    let text = stdout(&out);
    assert!(!text.contains("argon2"), "no hash is printed: {text}");
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows[1]["name"], "bob");
    assert_eq!(rows[1]["role"], "reader");
    assert_eq!(rows[1]["api_password"], true);

    let out = tidings(&db, &["users", "passwd", "bob", "--api", "--clear"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(hashes(&db, "bob").await.1, None);
    assert_eq!(
        store
            .account_by_fever_key(&tidings_api::accounts::fever_key_hash(&key))
            .await
            .unwrap(),
        None,
        "no Fever key without an API password"
    );
    let out = tidings(&db, &["users", "passwd", "nobody", "--api", "--clear"]).await;
    assert!(!out.status.success());
    assert!(stderr(&out).contains("no account named nobody"));

    let out = tidings(&db, &["users", "remove", "ana"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let out = tidings(&db, &["users", "remove", "ana"]).await;
    assert!(!out.status.success(), "removed once");
    let out = tidings(&db, &["users", "list"]).await;
    assert_eq!(stdout(&out).lines().count(), 2, "{}", stdout(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_accounts_subscriptions_come_from_opml_with_folders_and_go_back_out() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let profile = fast_profile(dir.path());
    let common = ["--profile", profile.as_str(), "--allow-private-networks"];
    let publisher = Publisher::start().await;
    publisher.set("/alpha.xml", Resource::feed(rss("alpha", 1, 3), "\"a1\""));
    publisher.set("/beta.xml", Resource::feed(rss("beta", 1, 2), "\"b1\""));
    let out = with_stdin(&db, &["users", "add", "ana"], "hunter2hunter2\n").await;
    assert!(out.status.success(), "{}", stderr(&out));

    // An unknown account is named, and nothing is subscribed.
    let out = tidings(
        &db,
        &[
            &common[..],
            &["add", "--user", "nobody", &publisher.url("/alpha.xml")],
        ]
        .concat(),
    )
    .await;
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("no account named nobody"),
        "{}",
        stderr(&out)
    );

    let opml = dir.path().join("in.opml");
    std::fs::write(
        &opml,
        format!(
            "<opml version=\"2.0\"><body><outline text=\"News &amp; more\">\
             <outline type=\"rss\" text=\"Alpha\" xmlUrl=\"{}\"/></outline>\
             <outline type=\"rss\" text=\"Beta\" xmlUrl=\"{}\"/></body></opml>",
            publisher.url("/alpha.xml"),
            publisher.url("/beta.xml")
        ),
    )
    .unwrap();
    let out = tidings(
        &db,
        &[
            &common[..],
            &["import-opml", opml.to_str().unwrap(), "--user", "ana"],
        ]
        .concat(),
    )
    .await;
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let store = tidings_store::open(db.to_str().unwrap()).await.unwrap();
    let ana = store
        .account_secrets("ana")
        .await
        .unwrap()
        .unwrap()
        .account
        .id;
    let subs = store.subscriptions(ana).await.unwrap();
    let folders: Vec<Option<&str>> = subs.iter().map(|s| s.folder.as_deref()).collect();
    assert_eq!(
        folders,
        [Some("News & more"), None],
        "the OPML folder is kept"
    );

    let out = tidings(&db, &["export-opml", "--user", "ana"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let doc = stdout(&out);
    let back = tidings_feed::opml::read(&doc).unwrap();
    let filed: Vec<(bool, Option<&str>)> = back
        .iter()
        .map(|o| (o.xml_url.ends_with("/alpha.xml"), o.folder.as_deref()))
        .collect();
    assert_eq!(filed, [(false, None), (true, Some("News & more"))], "{doc}");

    let out = tidings(
        &db,
        &["unsubscribe", &publisher.url("/beta.xml"), "--user", "ana"],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("unsubscribed for ana"),
        "{}",
        stdout(&out)
    );
    assert_eq!(store.subscriptions(ana).await.unwrap().len(), 1);
    let out = tidings(
        &db,
        &["unsubscribe", &publisher.url("/beta.xml"), "--user", "ana"],
    )
    .await;
    assert!(!out.status.success(), "not subscribed any more");
    assert!(
        stderr(&out).contains("is not among the subscriptions of ana"),
        "{}",
        stderr(&out)
    );
}
