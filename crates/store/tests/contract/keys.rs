//! API keys: stored by hash, listed by id, revoked once.

use crate::support::t;
use std::sync::Arc;
use tidings_store::{BotKeyRow, NewKey, Store};

fn key(name: Option<&str>, role: &str, hash: &str) -> NewKey {
    NewKey {
        name: name.map(Into::into),
        role: role.into(),
        hash: hash.into(),
        prefix: format!("tdg_{}", &hash[..4]),
        created_at: t(1),
        account_id: None,
    }
}

/// A key is found by its hash only, listed without it, and revoked once.
pub async fn keys_are_found_by_hash_listed_and_revoked(store: Arc<dyn Store>) {
    assert!(store.list_keys().await.unwrap().is_empty());
    let admin = store
        .create_key(&key(Some("ops"), "admin", "aaaa1111"))
        .await
        .unwrap();
    assert_eq!(admin.name.as_deref(), Some("ops"));
    assert_eq!(admin.role, "admin");
    assert_eq!(admin.prefix, "tdg_aaaa");
    assert_eq!(admin.created_at, t(1));
    assert_eq!(admin.revoked_at, None);
    assert_eq!(admin.last_used_at, None);
    let reader = store
        .create_key(&key(None, "reader", "bbbb2222"))
        .await
        .unwrap();
    assert_ne!(admin.id, reader.id);

    assert_eq!(
        store.key_by_hash("aaaa1111").await.unwrap(),
        Some(admin.clone())
    );
    assert_eq!(store.key_by_hash("aaaa").await.unwrap(), None);
    assert_eq!(store.key_by_hash("tdg_aaaa").await.unwrap(), None);
    assert_eq!(
        store.list_keys().await.unwrap(),
        vec![admin.clone(), reader.clone()]
    );

    store.touch_key(admin.id, t(3)).await.unwrap();
    store.touch_key(admin.id, t(2)).await.unwrap();
    store.touch_key(999, t(3)).await.unwrap();
    let used = store.key_by_hash("aaaa1111").await.unwrap().unwrap();
    assert_eq!(used.last_used_at, Some(t(3)), "last use only moves later");
    let admin = used;

    assert!(store.revoke_key(admin.id, t(5)).await.unwrap());
    assert!(
        !store.revoke_key(admin.id, t(6)).await.unwrap(),
        "revoking twice"
    );
    assert!(!store.revoke_key(999, t(6)).await.unwrap(), "no such key");
    let revoked = store.key_by_hash("aaaa1111").await.unwrap().unwrap();
    assert_eq!(revoked.revoked_at, Some(t(5)), "the first revocation stays");
    assert_eq!(store.list_keys().await.unwrap(), vec![revoked, reader]);

    assert!(
        store
            .create_key(&key(None, "admin", "aaaa1111"))
            .await
            .is_err(),
        "one key per hash"
    );
    assert!(
        store
            .create_key(&key(None, "owner", "cccc3333"))
            .await
            .is_err(),
        "the schema knows two roles"
    );
}

fn bot_key(keyid: &str, not_before: i64, expires: i64) -> BotKeyRow {
    BotKeyRow {
        keyid: keyid.into(),
        public_key: format!("pub-{keyid}"),
        secret: format!("secret-{keyid}"),
        created_at: t(not_before),
        not_before: t(not_before),
        expires_at: t(expires),
    }
}

/// SR11: bot keys round-trip whole, secret included, listed by `not_before`; a keyid is stored
/// once, a key that would end before it starts is refused, and a key is removed by keyid.
pub async fn sr11_bot_keys_round_trip_and_are_listed_by_start(store: Arc<dyn Store>) {
    assert!(store.bot_keys().await.unwrap().is_empty());
    let later = bot_key("kid-b", 50, 90);
    let earlier = bot_key("kid-a", 10, 60);
    assert!(store.add_bot_key(&later).await.unwrap());
    assert!(store.add_bot_key(&earlier).await.unwrap());
    let again = BotKeyRow {
        secret: "another".into(),
        ..bot_key("kid-a", 20, 70)
    };
    assert!(
        !store.add_bot_key(&again).await.unwrap(),
        "a keyid is stored once"
    );
    assert_eq!(
        store.bot_keys().await.unwrap(),
        vec![earlier.clone(), later.clone()]
    );
    // Two keys starting in the same second are listed in the order they were made.
    let made_first = BotKeyRow {
        created_at: t(69),
        ..bot_key("kid-z", 70, 200)
    };
    let made_next = bot_key("kid-y", 70, 200);
    assert!(store.add_bot_key(&made_next).await.unwrap());
    assert!(store.add_bot_key(&made_first).await.unwrap());
    let listed: Vec<String> = store
        .bot_keys()
        .await
        .unwrap()
        .into_iter()
        .map(|k| k.keyid)
        .collect();
    assert_eq!(listed, ["kid-a", "kid-b", "kid-z", "kid-y"]);
    assert!(
        store.add_bot_key(&bot_key("kid-c", 30, 30)).await.is_err(),
        "a key must start before it ends"
    );
    assert!(store.remove_bot_key("kid-z").await.unwrap());
    assert!(
        !store.remove_bot_key("kid-z").await.unwrap(),
        "removed once"
    );
    let left: Vec<String> = store
        .bot_keys()
        .await
        .unwrap()
        .into_iter()
        .map(|k| k.keyid)
        .collect();
    assert_eq!(left, ["kid-a", "kid-b", "kid-y"]);
    let text = format!("{earlier:?}");
    assert!(
        text.contains("kid-a") && !text.contains("secret-kid-a"),
        "Debug leaves the secret out: {text}"
    );
}

/// A key made for an account acts as it and goes with it.
pub async fn an_accounts_key_names_it_and_goes_with_it(store: Arc<dyn Store>) {
    let ana = store
        .add_account(&tidings_store::NewAccount {
            name: "ana".into(),
            role: tidings_store::AccountRole::Reader,
            password_hash: "$argon2id$x".into(),
            created_at: t(0),
        })
        .await
        .unwrap()
        .unwrap();
    let made = store
        .create_key(&NewKey {
            account_id: Some(ana.id),
            ..key(None, "reader", "cccc3333")
        })
        .await
        .unwrap();
    assert_eq!(made.account_id, Some(ana.id));
    let found = store.key_by_hash("cccc3333").await.unwrap().unwrap();
    assert_eq!(found.account_id, Some(ana.id));
    let operator = store
        .create_key(&key(None, "admin", "dddd4444"))
        .await
        .unwrap();
    assert_eq!(operator.account_id, None);
    assert!(store.remove_account("ana").await.unwrap());
    assert_eq!(store.key_by_hash("cccc3333").await.unwrap(), None);
    assert!(store.key_by_hash("dddd4444").await.unwrap().is_some());
}
