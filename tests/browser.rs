//! The web UI in a real browser: headless Chromium, driven through chromedriver's WebDriver
//! HTTP API, against the real `tidings serve` crawling a simulated publisher on 127.0.0.x.
//!
//! Through the UI, as a person would: log in with the password of an account made by `tidings
//! users add`, subscribe to the simulated feed into a folder with the side column's form, wait
//! until the crawler has read it and its entries show unread on `/` with their count, move
//! through them with the keyboard (`j`, `o`), see the count fall once one is opened, star it
//! (`s`), search for a word, mark all read (`A`); then on a phone's width (390 px) check that no
//! page is wider than the screen, rename the feed with a long title, unsubscribe, and read
//! `/bot`.
//!
//! Needs `chromedriver` and Chromium on PATH (Debian: `chromium chromium-driver`; `.ci/run`
//! installs them). Without them the test is skipped with a message, unless `CI` is set, where
//! it fails.

mod support;

use serde_json::{Value, json};
use std::net::SocketAddr;
use std::process::Stdio;
use std::time::{Duration, Instant};
use support::{fast_profile, on_path, spawn_serve, stderr, with_stdin};
use tidings_sim::{FeedSpec, HostSpec, Resource, Web};

/// How long the crawler may take to read a new feed: it looks for new work at least every
/// 30 s, so this is generous. Waiting polls; nothing is asserted about the time taken.
const DEADLINE: Duration = Duration::from_secs(180);
/// How long one WebDriver call may take (a page load included).
const WEBDRIVER_WITHIN: Duration = Duration::from_secs(120);

/// WebDriver's key for an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// The account's password.
const PASSWORD: &str = "a long browser password";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn browser_logs_in_subscribes_reads_marks_and_unsubscribes() {
    let Some(chromedriver) = on_path("chromedriver") else {
        if std::env::var_os("CI").is_some() {
            panic!("chromedriver is not on PATH: install chromium chromium-driver");
        }
        eprintln!("skipped: install chromium chromium-driver (chromedriver is not on PATH)");
        return;
    };

    // The publisher: one host on 127.0.0.x with one feed of ten entries.
    let web = Web::start(vec![
        HostSpec::new("breeze.test")
            .at("/robots.txt", Resource::robots("User-agent: *\nAllow: /\n"))
            .at("/feed.xml", Resource::feed(FeedSpec::fixed("breeze"))),
    ])
    .await
    .expect("start the simulated web");
    let feed_url = web.url("breeze.test", "/feed.xml").expect("feed url");

    // tidings: a fresh store, an account, and `serve` crawling the simulated web.
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("browser.db");
    let out = with_stdin(&db, &["users", "add", "ana"], &format!("{PASSWORD}\n")).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let profile = fast_profile(dir.path());
    let mut global = vec![
        "--allow-private-networks".to_owned(),
        "--profile".to_owned(),
        profile.clone(),
    ];
    for resolve in web.resolve_args() {
        global.extend(["--resolve".to_owned(), resolve]);
    }
    let (mut child, addr) = spawn_serve(&db, &global, &[] as &[&str], Stdio::null()).await;
    let base = format!("http://{addr}");

    // The browser.
    let port = free_port();
    let _driver = tokio::process::Command::new(&chromedriver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start chromedriver");
    let driver = SocketAddr::from(([127, 0, 0, 1], port));
    let browser = Browser::start(driver).await;

    // Log in with the account's password.
    browser.go(&format!("{base}/")).await;
    browser
        .wait_for("the login page", |source| {
            source.contains("id=\"password\"")
        })
        .await;
    browser.type_into("#name", "ana").await;
    browser.type_into("#password", PASSWORD).await;
    browser.click("main form button[type=submit]").await;
    let page = browser
        .wait_for("the logged-in reader", |source| {
            source.contains("Log out (account 1, reader)")
        })
        .await;
    assert!(!page.contains(PASSWORD), "the password is never on a page");

    // Subscribe into a folder with the side column's form.
    browser.type_into("#side-url", &feed_url).await;
    browser.type_into("#side-folder", "Weather").await;
    browser.click("aside form button[type=submit]").await;
    let page = browser
        .wait_for("the subscribed feed's page", |source| {
            source.contains("the crawler reads it shortly")
        })
        .await;
    assert!(page.contains("breeze.test"), "the feed's page");

    // The crawler reads it; its ten entries show unread on the front page, counted.
    let start = Instant::now();
    loop {
        browser.go(&format!("{base}/")).await;
        if browser.source().await.contains("breeze story 9") {
            break;
        }
        assert!(
            start.elapsed() < DEADLINE,
            "the feed's entries never appeared on /"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert_eq!(
        browser.text("h3.folder .count").await,
        "10",
        "unread in the folder"
    );

    // The keyboard: j selects the first entry, j the second, o opens it.
    browser.press("j").await;
    browser.press("j").await;
    let second = browser.text("li.selected a.title").await;
    assert!(second.starts_with("breeze story"), "{second}");
    browser.press("o").await;
    let page = browser
        .wait_for("the opened entry", |source| {
            source.contains("Read the original")
        })
        .await;
    assert!(
        page.contains(&format!("<h1>{second}</h1>")),
        "the selected one"
    );
    assert!(browser.url().await.contains("/entries/"));
    // Opened: read. Starred with s.
    browser.press("s").await;
    browser
        .wait_for("the starred entry", |source| source.contains("★ Starred"))
        .await;
    browser.go(&format!("{base}/")).await;
    assert_eq!(
        browser.text("h3.folder .count").await,
        "9",
        "one fewer unread"
    );
    browser.go(&format!("{base}/?show=starred")).await;
    let page = browser.source().await;
    assert!(page.contains(&second), "starred: {page}");

    // Search for a word only one entry holds.
    browser.type_into("#top-q", "7").await;
    browser.click("header form.search button").await;
    let page = browser
        .wait_for("the search results", |source| {
            source.contains("Entries matching")
        })
        .await;
    assert!(page.contains("breeze story 7"), "the match");
    assert!(!page.contains("breeze story 6"), "only the match");

    // A marks everything read.
    browser.go(&format!("{base}/")).await;
    browser.press("A").await;
    browser
        .wait_for("nothing unread", |source| {
            source.contains("Nothing unread here.")
        })
        .await;

    // On a phone (390 px wide) no page is wider than the screen.
    browser
        .command(
            "POST",
            "/window/rect",
            Some(json!({ "width": 390, "height": 844 })),
        )
        .await;
    for path in ["/import", "/?show=starred", "/?show=all"] {
        browser.go(&format!("{base}{path}")).await;
        assert!(
            browser.fits_the_width().await,
            "{path} is wider than a phone"
        );
    }
    browser.click("ol.entries a.title").await;
    browser
        .wait_for("an entry's page", |source| {
            source.contains("Read the original")
        })
        .await;
    assert!(
        browser.fits_the_width().await,
        "an entry is wider than a phone"
    );
    browser.go(&format!("{base}/")).await;

    // Unsubscribe from the feed's page.
    browser
        .click("ol.entries a[href^='/feeds/'], aside ul.feeds a[href^='/feeds/']")
        .await;
    browser
        .wait_for("the feed's page", |source| {
            source.contains("Manage this subscription")
        })
        .await;
    assert!(
        browser.fits_the_width().await,
        "a feed's page is wider than a phone"
    );
    // Rename it, with a long word for a title: it wraps rather than widening the page.
    let long = "Thebreezeofthemorningblowingoverthehillsandfarawayintothevalley";
    browser.click("details.manage summary").await;
    browser.type_into("#sub-title", long).await;
    browser.click("details.manage form.stack button").await;
    browser
        .wait_for("the renamed feed", |source| {
            source.contains(&format!("<h1>{long}</h1>"))
        })
        .await;
    assert!(
        browser.fits_the_width().await,
        "a long title widens the page"
    );
    browser.click("details.manage summary").await;
    browser.click("form[action$='/unsubscribe'] button").await;
    let page = browser
        .wait_for("the unsubscribed notice", |source| {
            source.contains("Unsubscribed.")
        })
        .await;
    assert!(!page.contains("Weather"), "no folder left: {page}");

    // The bot page shows the User-Agent of the running profile.
    browser.go(&format!("{base}/bot")).await;
    let page = browser.source().await;
    assert!(
        page.contains("tidings-test/"),
        "the profile's User-Agent on /bot"
    );

    browser.quit().await;
    // The publisher saw robots.txt first, then the feed, each with that User-Agent (C1); the
    // reader's browser never contacted it.
    let exchanges = web.recorder().exchanges();
    let paths: Vec<&str> = exchanges.iter().map(|e| e.path()).collect();
    assert_eq!(paths.first(), Some(&"/robots.txt"), "{paths:?}");
    assert!(paths.contains(&"/feed.xml"), "{paths:?}");
    for exchange in &exchanges {
        let agent = exchange.header("user-agent").unwrap_or_default();
        assert!(agent.starts_with(b"tidings-test/"), "{paths:?}");
    }
    let _ = child.start_kill();
    let _ = child.wait().await;
}

/// A port nobody listens on now (the OS picks it; chromedriver takes it right after).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// A WebDriver session.
struct Browser {
    driver: SocketAddr,
    session: String,
}

impl Browser {
    /// Wait for chromedriver, then open a headless Chromium.
    async fn start(driver: SocketAddr) -> Browser {
        let start = Instant::now();
        while webdriver(driver, "GET", "/status", None).await.is_err() {
            assert!(start.elapsed() < DEADLINE, "chromedriver never answered");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let mut options = json!({
            "args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage"]
        });
        if let Some(binary) = ["chromium", "chromium-browser", "google-chrome"]
            .into_iter()
            .find_map(on_path)
        {
            options["binary"] = json!(binary.to_string_lossy());
        }
        let capabilities = json!({
            "capabilities": {
                "alwaysMatch": { "browserName": "chrome", "goog:chromeOptions": options }
            }
        });
        let value = webdriver(driver, "POST", "/session", Some(capabilities))
            .await
            .unwrap_or_else(|e| panic!("cannot open a browser session: {e}"));
        let session = value["sessionId"]
            .as_str()
            .expect("a session id")
            .to_owned();
        Browser { driver, session }
    }

    async fn command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let path = format!("/session/{}{path}", self.session);
        webdriver(self.driver, method, &path, body)
            .await
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"))
    }

    async fn go(&self, url: &str) {
        self.command("POST", "/url", Some(json!({ "url": url })))
            .await;
    }

    async fn url(&self) -> String {
        self.command("GET", "/url", None)
            .await
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    async fn source(&self) -> String {
        self.command("GET", "/source", None)
            .await
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    async fn element(&self, css: &str) -> String {
        let found = self
            .command(
                "POST",
                "/element",
                Some(json!({ "using": "css selector", "value": css })),
            )
            .await;
        found[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}"))
            .to_owned()
    }

    async fn type_into(&self, css: &str, text: &str) {
        let id = self.element(css).await;
        self.command(
            "POST",
            &format!("/element/{id}/value"),
            Some(json!({ "text": text })),
        )
        .await;
    }

    /// The visible text of the first element `css` selects.
    async fn text(&self, css: &str) -> String {
        let id = self.element(css).await;
        self.command("GET", &format!("/element/{id}/text"), None)
            .await
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// Whether the page is no wider than the window less its scroll bar (nothing to scroll
    /// sideways).
    async fn fits_the_width(&self) -> bool {
        let script = json!({
            "script": "const page = document.documentElement; \
                       return page.scrollWidth <= page.clientWidth;",
            "args": []
        });
        self.command("POST", "/execute/sync", Some(script))
            .await
            .as_bool()
            .unwrap_or(false)
    }

    /// Press and release one key on the page (WebDriver's key actions).
    async fn press(&self, key: &str) {
        let actions = json!({
            "actions": [{
                "type": "key",
                "id": "keyboard",
                "actions": [
                    { "type": "keyDown", "value": key },
                    { "type": "keyUp", "value": key }
                ]
            }]
        });
        self.command("POST", "/actions", Some(actions)).await;
    }

    async fn click(&self, css: &str) {
        let id = self.element(css).await;
        self.command("POST", &format!("/element/{id}/click"), Some(json!({})))
            .await;
    }

    /// Poll the page until `ready` holds; returns its source.
    async fn wait_for(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let source = self.source().await;
            if ready(&source) {
                return source;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "never saw {what}; last page: {source}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn quit(mut self) {
        let path = format!("/session/{}", self.session);
        let _ = webdriver(self.driver, "DELETE", &path, None).await;
        self.session.clear();
    }
}

impl Drop for Browser {
    /// A test that failed half-way still closes Chromium: killing chromedriver alone would
    /// leave it running.
    fn drop(&mut self) {
        use std::io::{Read, Write};
        if self.session.is_empty() {
            return;
        }
        let Ok(mut stream) = std::net::TcpStream::connect(self.driver) else {
            return;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
        let request = format!(
            "DELETE /session/{} HTTP/1.1\r\nHost: {}\r\nContent-Length: 0\r\n\r\n",
            self.session, self.driver
        );
        if stream.write_all(request.as_bytes()).is_ok() {
            let _ = stream.read(&mut [0u8; 1024]);
        }
    }
}

/// One WebDriver call over HTTP/1.1: the answer's `value`, or its error.
async fn webdriver(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> Result<Value, String> {
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let answer = tidings_sim::client::request(
        addr,
        method,
        path,
        &[("Content-Type", "application/json; charset=utf-8")],
        body.as_bytes(),
        WEBDRIVER_WITHIN,
    )
    .await
    .map_err(|e| e.to_string())?;
    let text = answer.text();
    let json: Value = serde_json::from_str(&text).map_err(|e| format!("{e}: {text}"))?;
    if answer.status == 200 {
        Ok(json["value"].clone())
    } else {
        Err(format!("{}: {}", answer.status, json["value"]))
    }
}
