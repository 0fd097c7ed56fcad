//! `tidings keys create/list/revoke`: the token is printed once and never again, only its
//! prefix is listed, and a revoked key says so.

mod support;

use support::{stderr, stdout, tidings};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_are_created_listed_without_their_token_and_revoked() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");

    let out = tidings(&db, &["keys", "list"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "no keys\n");

    let out = tidings(&db, &["keys", "create", "--role", "admin", "--name", "ops"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let admin = stdout(&out).trim_end().to_owned();
    assert!(admin.starts_with("tdg_"), "{admin}");
    assert_eq!(admin.len(), 4 + 64, "{admin}");
    assert!(!admin.contains('\n'), "the token alone on stdout");
    assert!(
        stderr(&out).contains("key 1 (admin) named \"ops\" created"),
        "{}",
        stderr(&out)
    );

    let out = tidings(&db, &["keys", "create", "--role", "reader"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let reader = stdout(&out).trim_end().to_owned();
    assert_ne!(reader, admin);

    let out = tidings(&db, &["keys", "create", "--role", "owner"]).await;
    assert!(!out.status.success(), "an unknown role is refused");

    let out = tidings(&db, &["keys", "list"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let table = stdout(&out);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 3, "{table}");
    assert!(lines[1].contains("admin") && lines[1].contains(&admin[..12]));
    assert!(lines[1].ends_with("ops"), "{table}");
    assert!(lines[2].contains("reader") && lines[2].contains(&reader[..12]));
    assert!(!table.contains(&admin[12..]) && !table.contains(&reader[12..]));

    let out = tidings(&db, &["keys", "revoke", "1"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "key 1 revoked\n");
    let out = tidings(&db, &["keys", "revoke", "1"]).await;
    assert!(!out.status.success(), "revoking twice fails");
    let out = tidings(&db, &["keys", "revoke", "9"]).await;
    assert!(!out.status.success(), "no such key");

    let out = tidings(&db, &["keys", "list", "--json"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let keys: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(keys.len(), 2);
    assert_eq!(keys[0]["id"], 1);
    assert_eq!(keys[0]["role"], "admin");
    assert_eq!(keys[0]["name"], "ops");
    assert!(keys[0]["revoked_at"].is_string(), "{text}");
    assert!(keys[1]["revoked_at"].is_null(), "{text}");
    assert!(!text.contains(&admin[12..]) && !text.contains(&reader[12..]));
}
