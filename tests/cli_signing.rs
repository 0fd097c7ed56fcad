//! SR11 from the command line: `tidings keys bot generate|rotate|list` manage the signing
//! keys, and a crawl under SereneReader's profile signs every request so that the simulated
//! publisher verifies each one, with an independent implementation, against the key directory
//! `tidings serve` publishes, whose own signatures verify too.

mod support;

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;
use support::{command, spawn_serve, stderr, stdout, tidings};
use tidings_sim::{FeedSpec, Header, HostSpec, Resource, TimeBase, Web};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sr11_bot_keys_are_generated_rotated_and_listed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");

    let out = tidings(&db, &["keys", "bot", "list"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("no bot keys"), "{}", stdout(&out));

    let out = tidings(&db, &["keys", "bot", "generate", "--valid-for", "1h"]).await;
    assert!(!out.status.success(), "a key shorter than a day is refused");
    assert!(stderr(&out).contains("--valid-for"), "{}", stderr(&out));

    let out = tidings(&db, &["keys", "bot", "generate"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let first = stdout(&out).trim_end().to_owned();
    assert_eq!(
        first.len(),
        43,
        "a SHA-256 thumbprint in base64url: {first}"
    );
    assert!(
        stderr(&out).contains("does not sign requests"),
        "the default profile does not use it, and says so: {}",
        stderr(&out)
    );

    let out = tidings(&db, &["keys", "bot", "generate"]).await;
    assert!(!out.status.success(), "a second first key is refused");
    assert!(
        stderr(&out).contains(&first) && stderr(&out).contains("rotate"),
        "{}",
        stderr(&out)
    );

    // A rotation publishes the next key an hour before it signs.
    let out = tidings(&db, &["--profile", "sr", "keys", "bot", "rotate"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let second = stdout(&out).trim_end().to_owned();
    assert_ne!(second, first);
    assert!(
        stderr(&out).contains(&format!("bot key {second} is published now, signs from "))
            && stderr(&out).contains(&format!("key {first} signs until ")),
        "{}",
        stderr(&out)
    );
    // `--now` switches at once.
    let out = tidings(&db, &["keys", "bot", "rotate", "--now"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let third = stdout(&out).trim_end().to_owned();
    assert!(
        stderr(&out).contains(&format!("key {first} no longer signs and stays published")),
        "{}",
        stderr(&out)
    );

    let out = tidings(&db, &["keys", "bot", "list"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let table = stdout(&out);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 4, "{table}");
    assert!(lines[0].starts_with("KEYID"), "{table}");
    let row = |keyid: &str| lines.iter().find(|l| l.starts_with(keyid)).copied();
    assert!(
        row(&first).is_some_and(|l| l.contains(" retired ")),
        "{table}"
    );
    assert!(
        row(&second).is_some_and(|l| l.contains(" pending ")),
        "{table}"
    );
    assert!(
        row(&third).is_some_and(|l| l.contains(" signing ")),
        "{table}"
    );

    let out = tidings(&db, &["keys", "bot", "list", "--json"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(rows.len(), 3);
    for row in &rows {
        let fields: Vec<&str> = row
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            fields,
            ["expires", "keyid", "not_before", "public_key", "state"],
            "never the secret"
        );
    }

    // A keyid is base64url and may begin with `-`: it is read as the keyid, not as a flag.
    let out = tidings(&db, &["keys", "bot", "remove", "-zAbc"]).await;
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("no bot key -zAbc"),
        "{}",
        stderr(&out)
    );

    // A compromised key is removed at once: the one before it signs again.
    let out = tidings(&db, &["keys", "bot", "remove", &third]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let out = tidings(&db, &["keys", "bot", "remove", &third]).await;
    assert!(!out.status.success(), "removed once");
    let out = tidings(&db, &["keys", "bot", "list"]).await;
    let table = stdout(&out);
    assert!(!table.contains(&third), "{table}");
    let row = |keyid: &str| {
        table
            .lines()
            .find(|l| l.starts_with(keyid))
            .map(str::to_owned)
    };
    assert!(
        row(&first).is_some_and(|l| l.contains(" signing ")),
        "{table}"
    );
}

/// `tidings GLOBAL serve --no-crawl` on a free port, and the address it printed.
async fn serve(db: &std::path::Path, global: &[&str]) -> (tokio::process::Child, SocketAddr) {
    spawn_serve(db, global, &["--no-crawl"], Stdio::null()).await
}

/// GET `path` with `Host: host`: status, headers (names lower-cased) and body.
async fn get(addr: SocketAddr, host: &str, path: &str) -> (u16, Vec<Header>, Vec<u8>) {
    let answer = tidings_sim::client::request(
        addr,
        "GET",
        path,
        &[("Host", host)],
        &[],
        Duration::from_secs(10),
    )
    .await
    .expect("an answer");
    let headers = answer
        .headers
        .iter()
        .map(|(name, value)| Header::new(name, value.as_bytes()))
        .collect();
    (answer.status, headers, answer.body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sr11_a_signed_crawl_verifies_against_the_directory_serve_publishes() {
    let web = Web::start(vec![
        HostSpec::new("calm.test")
            .at("/robots.txt", Resource::robots("User-agent: *\nAllow: /\n"))
            .at("/feed.xml", Resource::feed(FeedSpec::fixed("calm"))),
    ])
    .await
    .expect("start the simulated web");
    let feed = web.url("calm.test", "/feed.xml").expect("feed url");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");

    // Nothing is published before the first key.
    let (mut server, addr) = serve(&db, &[]).await;
    let authority = addr.to_string();
    let (status, _, body) = get(
        addr,
        &authority,
        "/.well-known/http-message-signatures-directory",
    )
    .await;
    assert_eq!(status, 404, "{}", String::from_utf8_lossy(&body));

    // SereneReader signs; `add` reads the feed once and makes the first key itself.
    let agent = format!("http://{authority}");
    let mut add = command(&db);
    add.args([
        "--profile",
        "serenereader",
        "--signature-agent",
        &agent,
        "--allow-private-networks",
    ]);
    for resolve in web.resolve_args() {
        add.args(["--resolve", &resolve]);
    }
    let out = add
        .args(["add", &feed])
        .output()
        .await
        .expect("run tidings add");
    assert!(out.status.success(), "{}", stderr(&out));

    // The directory, as a publisher's verifier fetches it, checked independently.
    let (status, headers, body) = get(
        addr,
        &authority,
        "/.well-known/http-message-signatures-directory",
    )
    .await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let media = headers.iter().find(|h| h.name == "content-type");
    assert_eq!(
        media.map(Header::value_str).as_deref(),
        Some("application/http-message-signatures-directory+json")
    );
    let directory = tidings_sim::verify_directory_response(&headers, &body, &authority)
        .unwrap_or_else(|p| panic!("the directory's own signatures: {p}"));
    assert_eq!(directory.len(), 1, "the key the crawl made");
    // A directory fetched under another name carries signatures over that name instead.
    let (_, other_headers, other_body) = get(
        addr,
        "bot.example",
        "/.well-known/http-message-signatures-directory",
    )
    .await;
    assert!(
        tidings_sim::verify_directory_response(&other_headers, &other_body, &authority).is_err(),
        "signatures bind the directory to the authority it was fetched from"
    );

    let exchanges = web.recorder().exchanges();
    let paths: Vec<&str> = exchanges.iter().map(|e| e.target.as_str()).collect();
    assert_eq!(paths, ["/robots.txt", "/feed.xml"]);
    for e in &exchanges {
        let verified =
            tidings_sim::verify_request(e, &directory, e.started.wall, Duration::from_secs(5))
                .unwrap_or_else(|p| panic!("{}: {p}", e.target));
        assert_eq!(verified.signature_agent, agent);
    }
    let expect = tidings_sim::Expectations {
        signatures: Some(tidings_sim::SignatureCheck {
            clock: TimeBase::Monotonic,
            ..tidings_sim::SignatureCheck::new(directory)
        }),
        ..tidings_sim::Expectations::default()
    };
    let violations = tidings_sim::audit(&exchanges, &expect);
    assert!(violations.is_empty(), "{violations:?}");
    server.kill().await.expect("stop serve");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sr11_the_bot_page_names_the_signature_agent_requests_carry() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let global = [
        "--profile",
        "serenereader",
        "--signature-agent",
        "https://keys.agent.example/",
    ];
    let (mut server, addr) = serve(&db, &global).await;
    let (status, _, body) = get(addr, &addr.to_string(), "/bot").await;
    let page = String::from_utf8_lossy(&body);
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("https://keys.agent.example") && !page.contains("https://serenereader.com<"),
        "the operator's agent, not the profile's: {page}"
    );
    server.kill().await.expect("stop serve");
}
