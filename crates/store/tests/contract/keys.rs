//! API keys: stored by hash, listed by id, revoked once.

use crate::support::t;
use std::sync::Arc;
use tidings_store::{NewKey, Store};

fn key(name: Option<&str>, role: &str, hash: &str) -> NewKey {
    NewKey {
        name: name.map(Into::into),
        role: role.into(),
        hash: hash.into(),
        prefix: format!("tdg_{}", &hash[..4]),
        created_at: t(1),
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
