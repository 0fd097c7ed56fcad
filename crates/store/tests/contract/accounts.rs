//! Accounts: created once per name (case ignored), listed without their secrets, their
//! password hashes replaced and removed.

use crate::support::t;
use std::sync::Arc;
use tidings_store::{AccountRole, NewAccount, Store};

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
            .set_api_password("ana", Some("$argon2id$api"), t(30))
            .await
            .unwrap()
    );
    let secrets = store.account_secrets("Ana").await.unwrap().expect("found");
    assert_eq!(secrets.password_hash, "$argon2id$new");
    assert_eq!(secrets.api_password_hash.as_deref(), Some("$argon2id$api"));
    assert!(secrets.account.api_password);
    assert_eq!(secrets.account.updated_at, t(30));
    assert_eq!(secrets.account.created_at, t(10));
    assert!(store.set_api_password("ana", None, t(40)).await.unwrap());
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
