//! Accounts: created once per name (case ignored), listed without their secrets, their
//! password hashes replaced and removed.

use crate::support::t;
use std::sync::Arc;
use tidings_store::{AccountRole, NewAccount, Store};

fn api_password(hash: &str) -> tidings_store::ApiPassword {
    tidings_store::ApiPassword {
        hash: hash.into(),
        fever_key_hash: format!("fever-of-{hash}"),
    }
}

fn new(name: &str, role: AccountRole) -> NewAccount {
    NewAccount {
        name: name.into(),
        role,
        password_hash: format!("$argon2id$v=19$m=19456,t=2,p=1$salt-of-{name}$hash"),
        created_at: t(10),
    }
}

pub async fn accounts_are_unique_by_name_ignoring_case_and_keep_only_hashes(store: Arc<dyn Store>) {
    let ana = store
        .add_account(&new("Ana", AccountRole::Admin))
        .await
        .unwrap()
        .expect("made");
    assert_eq!(ana.name, "Ana");
    assert_eq!(ana.role, AccountRole::Admin);
    assert!(!ana.api_password);
    assert_eq!(ana.created_at, t(10));
    assert_eq!(
        store
            .add_account(&new("ANA", AccountRole::Reader))
            .await
            .unwrap(),
        None,
        "the same name in other letters is the same account"
    );
    // Every letter folds, not only ASCII ones.
    store
        .add_account(&new("Łucja", AccountRole::Reader))
        .await
        .unwrap()
        .expect("made");
    assert_eq!(
        store
            .add_account(&new("łUCJA", AccountRole::Reader))
            .await
            .unwrap(),
        None
    );
    let names: Vec<(String, AccountRole)> = store
        .accounts()
        .await
        .unwrap()
        .into_iter()
        .map(|a| (a.name, a.role))
        .collect();
    assert_eq!(
        names,
        [
            ("Ana".to_owned(), AccountRole::Admin),
            ("Łucja".to_owned(), AccountRole::Reader)
        ]
    );

    let secrets = store.account_secrets("ana").await.unwrap().expect("found");
    assert_eq!(secrets.account, ana);
    assert!(secrets.password_hash.contains("salt-of-Ana"));
    assert_eq!(secrets.api_password_hash, None);
    assert_eq!(store.account_secrets("nobody").await.unwrap(), None);

    assert!(
        store
            .set_password("ANA", "$argon2id$new", t(20))
            .await
            .unwrap()
    );
    assert!(
        store
            .set_api_password("ana", Some(&api_password("$argon2id$api")), t(30))
            .await
            .unwrap()
    );
    let secrets = store.account_secrets("Ana").await.unwrap().expect("found");
    assert_eq!(secrets.password_hash, "$argon2id$new");
    assert_eq!(secrets.api_password_hash.as_deref(), Some("$argon2id$api"));
    assert!(secrets.account.api_password);
    assert_eq!(secrets.account.updated_at, t(30));
    assert_eq!(secrets.account.created_at, t(10));
    let by_key = store
        .account_by_fever_key("fever-of-$argon2id$api")
        .await
        .unwrap();
    assert_eq!(
        by_key.map(|a| a.name).as_deref(),
        Some("Ana"),
        "found by its Fever key"
    );
    assert!(store.set_api_password("ana", None, t(40)).await.unwrap());
    assert_eq!(
        store
            .account_by_fever_key("fever-of-$argon2id$api")
            .await
            .unwrap(),
        None,
        "the Fever key goes with the API password"
    );
    assert!(
        !store
            .account_secrets("ana")
            .await
            .unwrap()
            .unwrap()
            .account
            .api_password
    );
    assert!(!store.set_password("nobody", "x", t(50)).await.unwrap());
    assert!(!store.set_api_password("nobody", None, t(50)).await.unwrap());

    assert!(store.remove_account("aNa").await.unwrap());
    assert!(!store.remove_account("ana").await.unwrap());
    assert_eq!(store.accounts().await.unwrap().len(), 1);
    // The name is free again.
    assert!(
        store
            .add_account(&new("ana", AccountRole::Reader))
            .await
            .unwrap()
            .is_some()
    );
}

pub async fn sessions_live_until_they_expire_or_their_password_changes(store: Arc<dyn Store>) {
    use tidings_store::{NewSession, SessionKind};
    let ana = store
        .add_account(&new("Ana", AccountRole::Reader))
        .await
        .unwrap()
        .expect("made");
    let session = |hash: &str, kind, expires| NewSession {
        token_hash: hash.into(),
        account_id: ana.id,
        kind,
        created_at: t(100),
        expires_at: t(expires),
    };
    store
        .create_session(&session("sync-1", SessionKind::Sync, 1000))
        .await
        .unwrap();
    store
        .create_session(&session("web-1", SessionKind::Web, 1000))
        .await
        .unwrap();
    store
        .create_session(&session("old", SessionKind::Sync, 200))
        .await
        .unwrap();
    let found = |hash: &'static str, kind, at| {
        let store = store.clone();
        async move {
            store
                .session_account(hash, kind, t(at))
                .await
                .unwrap()
                .map(|a| a.name)
        }
    };
    assert_eq!(
        found("sync-1", SessionKind::Sync, 500).await.as_deref(),
        Some("Ana")
    );
    assert_eq!(
        found("sync-1", SessionKind::Web, 500).await,
        None,
        "a token is of one kind"
    );
    assert_eq!(found("old", SessionKind::Sync, 500).await, None, "expired");
    assert_eq!(found("nothing", SessionKind::Sync, 500).await, None);

    // A new API password ends the sync sessions, not the web ones; a new login password the
    // web ones.
    assert!(
        store
            .set_api_password("ana", Some(&api_password("$argon2id$x")), t(600))
            .await
            .unwrap()
    );
    assert_eq!(found("sync-1", SessionKind::Sync, 700).await, None);
    assert_eq!(
        found("web-1", SessionKind::Web, 700).await.as_deref(),
        Some("Ana")
    );
    assert!(
        store
            .set_password("ana", "$argon2id$y", t(800))
            .await
            .unwrap()
    );
    assert_eq!(found("web-1", SessionKind::Web, 900).await, None);

    store
        .create_session(&session("sync-2", SessionKind::Sync, 1000))
        .await
        .unwrap();
    assert!(store.end_session("sync-2").await.unwrap());
    assert!(!store.end_session("sync-2").await.unwrap());
    store
        .create_session(&session("sync-3", SessionKind::Sync, 1000))
        .await
        .unwrap();
    assert!(store.remove_account("ana").await.unwrap());
    assert_eq!(
        found("sync-3", SessionKind::Sync, 500).await,
        None,
        "gone with its account"
    );
}
