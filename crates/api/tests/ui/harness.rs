//! A UI server on port 0 over a fresh SQLite store, with an admin and a reader key, and a
//! small HTTP client that speaks forms and cookies.

use crate::support::{header, t};
use std::net::SocketAddr;
use std::sync::Arc;
use tidings_api::auth::{Auth, AuthConfig, Role, issue};
use tidings_api::{AppState, router};
use tidings_model::{FeedId, FeedUrl};
use tidings_policy::Profile;
use tidings_store::{NewFeed, Store};

/// The one script tag every page carries (our own `/ui.js`).
pub const OUR_SCRIPT: &str = "<script src=\"/ui.js?v=test\" defer></script>";

/// A page without our own script tag: what is left must hold no script at all.
pub fn without_our_script(body: &str) -> String {
    body.replace(OUR_SCRIPT, "")
}

/// A running UI over its own store.
pub struct Ui {
    pub store: Arc<dyn Store>,
    pub addr: SocketAddr,
    /// An admin key's token and a reader key's.
    pub admin: String,
    pub reader: String,
    _dir: tempfile::TempDir,
}

/// One answer.
#[derive(Debug)]
pub struct Page {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Page {
    pub fn header(&self, name: &str) -> Option<String> {
        header(&self.head, name)
    }

    /// Where a redirect points.
    pub fn location(&self) -> String {
        self.header("location").unwrap_or_default()
    }
}

impl Ui {
    /// Public reads (`serve --public-reads`), the default profile.
    pub async fn start() -> Ui {
        Ui::with("default", true).await
    }

    /// The embedded profile `profile`; reads public when `public_reads`.
    pub async fn with(profile: &str, public_reads: bool) -> Ui {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("ui.db");
        let store = tidings_store::open(path.to_str().expect("utf-8 temp path"))
            .await
            .expect("open store");
        let profile = Arc::new(Profile::embedded(profile).expect("profile"));
        let state =
            AppState::new(store.clone(), profile, "test").with_auth(Auth::new(AuthConfig {
                public_reads,
                ..AuthConfig::default()
            }));
        let mut tokens = Vec::new();
        for role in [Role::Admin, Role::Reader] {
            let (token, key) = issue(None, role, t(0)).expect("issue a key");
            store.create_key(&key).await.expect("store the key");
            tokens.push(token);
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind port 0");
        let addr = listener.local_addr().expect("bound address");
        tokio::spawn(async move {
            let _ = axum::serve(listener, router(state)).await;
        });
        let reader = tokens.pop().expect("reader");
        let admin = tokens.pop().expect("admin");
        Ui {
            store,
            addr,
            admin,
            reader,
            _dir: dir,
        }
    }

    /// The cookie header a logged-in browser sends.
    pub fn cookie(token: &str) -> String {
        format!("Cookie: tidings_key={token}\r\n")
    }

    /// GET `path` with extra `headers` (each line ending in CRLF).
    pub async fn get(&self, path: &str, headers: &str) -> Page {
        self.send("GET", path, headers, None).await
    }

    /// GET `path` as the admin key's browser; the page must be a 200.
    pub async fn admin_page(&self, path: &str) -> String {
        let page = self.get(path, &Ui::cookie(&self.admin)).await;
        assert_eq!(page.status, 200, "GET {path}: {}", page.body);
        page.body
    }

    /// POST a form (`a=1&b=2`, already encoded) with extra `headers`.
    pub async fn post(&self, path: &str, form: &str, headers: &str) -> Page {
        self.send("POST", path, headers, Some(form)).await
    }

    /// POST a form as the admin's browser on this site (`Origin` is this server).
    pub async fn admin_post(&self, path: &str, form: &str) -> Page {
        let headers = format!(
            "{}Origin: http://{}\r\n",
            Ui::cookie(&self.admin),
            self.addr
        );
        self.post(path, form, &headers).await
    }

    /// Every stored entry (up to 500), newest first.
    pub async fn stored_entries(&self) -> Vec<tidings_store::StoredEntry> {
        self.store
            .entries(&tidings_store::EntryQuery {
                limit: 500,
                ..tidings_store::EntryQuery::default()
            })
            .await
            .expect("entries")
    }

    /// Make account `name` with login password `password`; its id.
    pub async fn account(&self, name: &str, password: &str, admin: bool) -> i64 {
        let role = if admin {
            tidings_store::AccountRole::Admin
        } else {
            tidings_store::AccountRole::Reader
        };
        self.store
            .add_account(&tidings_store::NewAccount {
                name: name.to_owned(),
                role,
                password_hash: tidings_api::accounts::hash_password(password).expect("hash"),
                created_at: t(0),
            })
            .await
            .expect("add account")
            .expect("a new name")
            .id
    }

    /// Log in at `/login` with a name and password: the cookie header the browser then sends.
    pub async fn login(&self, name: &str, password: &str) -> String {
        let origin = format!("Origin: http://{}\r\n", self.addr);
        let form = format!(
            "name={}&password={}",
            form_value(name),
            form_value(password)
        );
        let page = self.post("/login", &form, &origin).await;
        assert_eq!(page.status, 303, "login: {}", page.body);
        let cookie = page
            .head
            .lines()
            .filter_map(|l| l.split_once(':'))
            .filter(|(n, _)| n.eq_ignore_ascii_case("set-cookie"))
            .map(|(_, v)| v.trim())
            .find(|v| v.starts_with("tidings_session=tds_"))
            .expect("a session cookie");
        let pair = cookie.split(';').next().expect("name=value");
        format!("Cookie: {pair}\r\n")
    }

    /// POST a form from this site with `cookie` (a header line from [`Ui::login`]).
    pub async fn post_as(&self, cookie: &str, path: &str, form: &str) -> Page {
        let headers = format!("{cookie}Origin: http://{}\r\n", self.addr);
        self.post(path, form, &headers).await
    }

    /// POST a file in a multipart form field `field`, from this site, with `cookie`.
    pub async fn upload(&self, cookie: &str, path: &str, field: &str, file: &str) -> Page {
        let boundary = "tidingsboundary7x";
        let body = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; \
             filename=\"subs.opml\"\r\nContent-Type: text/x-opml\r\n\r\n{file}\r\n--{boundary}--\r\n"
        );
        let headers = format!("{cookie}Origin: http://{}\r\n", self.addr);
        let kind = format!("multipart/form-data; boundary={boundary}");
        self.send_body("POST", path, &headers, Some((&kind, &body)))
            .await
    }

    async fn send(&self, method: &str, path: &str, headers: &str, form: Option<&str>) -> Page {
        let form = form.map(|body| ("application/x-www-form-urlencoded", body));
        self.send_body(method, path, headers, form).await
    }

    async fn send_body(
        &self,
        method: &str,
        path: &str,
        headers: &str,
        body: Option<(&str, &str)>,
    ) -> Page {
        let mut pairs: Vec<(&str, &str)> = headers
            .split("\r\n")
            .filter_map(|line| line.split_once(':'))
            .map(|(name, value)| (name.trim(), value.trim()))
            .collect();
        if let Some((kind, _)) = body {
            pairs.push(("Content-Type", kind));
        }
        let answer = tidings_sim::client::request(
            self.addr,
            method,
            path,
            &pairs,
            body.map_or(&b""[..], |(_, b)| b.as_bytes()),
            std::time::Duration::from_secs(30),
        )
        .await
        .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let mut head = format!("HTTP/1.1 {}\r\n", answer.status);
        for (name, value) in &answer.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        Page {
            status: answer.status,
            head,
            body: String::from_utf8(answer.body).expect("a UTF-8 answer"),
        }
    }

    /// Subscribe `who` to `url` through the store, due at `t(0)`.
    pub async fn subscribe(&self, url: &str, who: &str) -> FeedId {
        let new = NewFeed {
            next_fetch_at: t(0),
            next_fetch_reason: "first add".to_owned(),
            interval_secs: 3600,
        };
        self.store
            .subscribe(&FeedUrl::parse(url).expect("test url"), who, t(0), &new)
            .await
            .expect("subscribe")
            .feed_id
    }
}

/// Percent-encode a form value.
pub fn form_value(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(byte));
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}
