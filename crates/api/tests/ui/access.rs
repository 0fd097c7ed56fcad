//! Logging in and out, who may open what, and the cross-site check of every form.

use crate::harness::{Ui, form_value};

#[tokio::test]
async fn login_sets_the_cookie_and_admin_pages_then_work() {
    let ui = Ui::start().await;
    let page = ui.get("/admin", "").await;
    assert_eq!(page.status, 303, "without a key: to the login page");
    assert_eq!(page.location(), "/login?next=/admin");
    let form = ui.get("/login?next=/admin", "").await;
    assert_eq!(form.status, 200);
    assert!(form.body.contains("<label for=\"token\">API key</label>"));
    assert!(form.body.contains("name=\"next\" value=\"/admin\""));

    let origin = format!("Origin: http://{}\r\n", ui.addr);
    let body = format!("token={}&next=%2Fadmin", form_value(&ui.admin));
    let page = ui.post("/login", &body, &origin).await;
    assert_eq!(page.status, 303, "{}", page.body);
    assert_eq!(page.location(), "/admin");
    let cookie = page.header("set-cookie").expect("a cookie");
    assert!(
        cookie.starts_with(&format!("tidings_key={};", ui.admin)),
        "{cookie}"
    );
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie.contains(attribute), "{attribute} in {cookie}");
    }
    assert!(!page.body.contains(&ui.admin), "the token is not echoed");

    let page = ui.get("/admin", &Ui::cookie(&ui.admin)).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("<h1>Feeds</h1>"));
    assert!(page.body.contains("Log out (key 1, admin)"));
    assert!(
        !page.body.contains(&ui.admin),
        "the token is never on a page"
    );
    // The API never takes the cookie, only a Bearer header (a cross-site request carries
    // the cookie, never the header).
    let api = ui.get("/v1/log", &Ui::cookie(&ui.admin)).await;
    assert_eq!(api.status, 401, "{}", api.body);
    let bearer = format!("Authorization: Bearer {}\r\n", ui.admin);
    let api = ui.get("/v1/log", &bearer).await;
    assert_eq!(api.status, 200, "{}", api.body);

    // A login elsewhere never sends the browser off the site.
    let body = format!("token={}&next=%2F%2Fevil.example", form_value(&ui.admin));
    let page = ui.post("/login", &body, &origin).await;
    assert_eq!(page.location(), "/");
}

#[tokio::test]
async fn a_bad_token_is_refused_and_sets_no_cookie() {
    let ui = Ui::start().await;
    let origin = format!("Origin: http://{}\r\n", ui.addr);
    let unknown = format!("tdg_{}", "0".repeat(64));
    for (token, status) in [
        (unknown.as_str(), 401),
        ("not a token", 401),
        ("tdg_x;Path=/evil", 401),
        // No key and no name: a password login missing both.
        ("", 400),
    ] {
        let page = ui
            .post("/login", &format!("token={}", form_value(token)), &origin)
            .await;
        assert_eq!(page.status, status, "{token:?}: {}", page.body);
        assert!(page.header("set-cookie").is_none(), "{token:?}");
        assert!(page.body.contains("role=\"alert\""), "{token:?}: says why");
    }
    // A revoked key's cookie is no login either.
    ui.store
        .revoke_key(1, crate::support::t(1))
        .await
        .expect("revoke");
    let page = ui.get("/admin", &Ui::cookie(&ui.admin)).await;
    assert_eq!(page.status, 303);
    assert_eq!(page.location(), "/login?next=/admin&why=stale");
}

#[tokio::test]
async fn a_reader_key_reads_but_may_not_administer() {
    let ui = Ui::start().await;
    let reader = Ui::cookie(&ui.reader);
    let page = ui.get("/admin/rules", &reader).await;
    assert_eq!(page.status, 403, "{}", page.body);
    assert!(page.body.contains("needs an admin account or key"));
    let page = ui.get("/", &reader).await;
    assert_eq!(page.status, 200);
    assert!(
        !page.body.contains("action=\"/subscribe\""),
        "no subscribe form"
    );
    let headers = format!("{reader}Origin: http://{}\r\n", ui.addr);
    let page = ui
        .post("/subscribe", "url=https%3A%2F%2Fa.example%2Ffeed", &headers)
        .await;
    assert_eq!(page.status, 403);
    assert!(ui.store.feeds().await.unwrap().is_empty());
}

#[tokio::test]
async fn reads_need_a_login_unless_public() {
    let keyed = Ui::with("default", false).await;
    let page = keyed.get("/search?q=x", "").await;
    assert_eq!(page.status, 303);
    assert_eq!(page.location(), "/login?next=/search%3Fq%3Dx");
    assert_eq!(keyed.get("/", &Ui::cookie(&keyed.reader)).await.status, 200);
    assert_eq!(keyed.get("/login", "").await.status, 200);
    assert_eq!(keyed.get("/ui.css", "").await.status, 200);

    let public = Ui::start().await;
    assert_eq!(public.get("/", "").await.status, 200);
    assert_eq!(public.get("/search?q=x", "").await.status, 200);
}

#[tokio::test]
async fn a_cross_site_post_is_refused() {
    let ui = Ui::start().await;
    let cookie = Ui::cookie(&ui.admin);
    for evil in [
        "Origin: http://evil.example\r\n".to_owned(),
        "Origin: null\r\n".to_owned(),
        "Referer: http://evil.example/page\r\n".to_owned(),
        format!(
            "Origin: http://{}\r\nSec-Fetch-Site: cross-site\r\n",
            ui.addr
        ),
    ] {
        let headers = format!("{cookie}{evil}");
        let page = ui
            .post("/subscribe", "url=https%3A%2F%2Fa.example%2Ffeed", &headers)
            .await;
        assert_eq!(page.status, 403, "{evil}: {}", page.body);
        assert!(page.body.contains("sent from another site"));
        let page = ui
            .post("/admin/rules", "kind=host&value=a.example", &headers)
            .await;
        assert_eq!(page.status, 403, "{evil}");
        let page = ui
            .post("/login", &format!("token={}", form_value(&ui.admin)), &evil)
            .await;
        assert_eq!(page.status, 403, "{evil}");
        assert!(page.header("set-cookie").is_none());
    }
    assert!(
        ui.store.feeds().await.unwrap().is_empty(),
        "nothing subscribed"
    );
    assert!(ui.store.blocks().await.unwrap().is_empty(), "no rule added");
    // The same form from the site itself goes through.
    let page = ui
        .admin_post("/subscribe", "url=https%3A%2F%2Fa.example%2Ffeed")
        .await;
    assert_eq!(page.status, 303, "{}", page.body);
}

#[tokio::test]
async fn logout_clears_the_cookie() {
    let ui = Ui::start().await;
    let page = ui.admin_post("/logout", "").await;
    assert_eq!(page.status, 303);
    assert_eq!(page.location(), "/login");
    let cookie = page.header("set-cookie").expect("a cookie");
    assert!(cookie.starts_with("tidings_key=;"), "{cookie}");
    assert!(cookie.contains("Max-Age=0"), "{cookie}");
    // The emptied cookie is no key.
    let page = ui.get("/admin", "Cookie: tidings_key=\r\n").await;
    assert_eq!(page.status, 303);
    assert_eq!(page.location(), "/login?next=/admin");
}
