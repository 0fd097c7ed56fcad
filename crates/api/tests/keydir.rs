//! SR11: the key directory at `/.well-known/http-message-signatures-directory`, served over a
//! fresh SQLite store and checked by the sim crate's verifier, which is built on Cloudflare's
//! `web-bot-auth` and shares no code with the signer.
//!
//! The handler reads the wall clock, so the keys here are dated around the real now.

use chrono::{Duration, Utc};
use std::collections::BTreeSet;
use std::sync::Arc;
use tidings_api::{AppState, router};
use tidings_fetch::botkeys::{DIRECTORY_MEDIA_TYPE, DIRECTORY_PATH, DatedKey};
use tidings_policy::Profile;
use tidings_sim::client;
use tidings_sim::signatures::{DirectoryProblem, verify_directory_response};
use tidings_sim::{Header, KeyDirectory};
use tidings_store::Store;

/// How long the server has to answer.
const ANSWER_WITHIN: std::time::Duration = std::time::Duration::from_secs(10);

/// The authority the tests ask for the directory under.
const HOST: &str = "keys.tidings.test:8080";

/// A server over its own store; the temporary directory lives as long as it.
struct Server {
    store: Arc<dyn Store>,
    addr: std::net::SocketAddr,
    _dir: tempfile::TempDir,
}

impl Server {
    async fn start() -> Server {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let path = dir.path().join("keydir.db");
        let store = tidings_store::open(&path.to_string_lossy())
            .await
            .unwrap_or_else(|e| panic!("store: {e}"));
        let profile = Profile::embedded("serenereader").unwrap_or_else(|e| panic!("{e}"));
        let state = AppState::new(store.clone(), Arc::new(profile), "test");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|e| panic!("bind: {e}"));
        let addr = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("addr: {e}"));
        tokio::spawn(async move { axum::serve(listener, router(state)).await });
        Server {
            store,
            addr,
            _dir: dir,
        }
    }

    /// A key made `started` ago (negative: ahead), valid for `lifetime`, stored the way a
    /// crawl stores it.
    async fn key(&self, started: Duration, lifetime: Duration) -> DatedKey {
        let lifetime = u64::try_from(lifetime.num_seconds()).unwrap_or(0);
        tidings_crawler::keys::make(self.store.as_ref(), Utc::now() - started, lifetime)
            .await
            .unwrap_or_else(|e| panic!("make a key: {e}"))
    }

    /// GET the directory with `host` as the Host header (`None`: no Host header at all,
    /// so the request is written by hand).
    async fn directory(&self, host: Option<&str>) -> Answer {
        let host = host.map(|h| format!("Host: {h}\r\n")).unwrap_or_default();
        let request = format!(
            "GET {DIRECTORY_PATH} HTTP/1.1\r\n{host}Accept: {DIRECTORY_MEDIA_TYPE}\r\n\
             Connection: close\r\n\r\n"
        );
        let answer = client::send_raw(self.addr, request.as_bytes(), ANSWER_WITHIN)
            .await
            .unwrap_or_else(|e| panic!("GET the directory: {e}"));
        Answer {
            status: answer.status,
            headers: answer
                .headers
                .iter()
                .map(|(name, value)| Header::new(name, value.as_str()))
                .collect(),
            body: answer.body,
        }
    }
}

/// One response: status, headers as received (the verifier reads them as bytes), body.
struct Answer {
    status: u16,
    headers: Vec<Header>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<String> {
        self.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| String::from_utf8_lossy(&h.value).into_owned())
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }

    /// Headers with `name` replaced by `value`.
    fn headers_with(&self, name: &str, value: &str) -> Vec<Header> {
        self.headers
            .iter()
            .map(|h| {
                if h.name.eq_ignore_ascii_case(name) {
                    Header::new(name, value)
                } else {
                    h.clone()
                }
            })
            .collect()
    }
}

fn days(n: i64) -> Duration {
    Duration::days(n)
}

fn kids(directory: &KeyDirectory) -> BTreeSet<String> {
    directory.keys().map(|k| k.keyid.clone()).collect()
}

/// `sha-256=:…:` of `body`, as RFC 9530 writes it, computed here.
fn content_digest(body: &[u8]) -> String {
    use base64::Engine as _;
    use sha2::{Digest as _, Sha256};
    let digest = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(body));
    format!("sha-256=:{digest}:")
}

#[tokio::test]
async fn sr11_without_a_published_key_the_directory_is_a_plain_404() {
    let server = Server::start().await;
    let answer = server.directory(Some(HOST)).await;
    assert_eq!(answer.status, 404, "{}", answer.text());
    assert_eq!(
        answer.header("content-type").as_deref(),
        Some("text/plain; charset=utf-8")
    );
    assert_eq!(
        answer.text(),
        "This bot publishes no signing keys: it does not sign its requests.\n"
    );
    assert_eq!(answer.header("signature"), None);

    server.key(days(10), days(5)).await;
    let answer = server.directory(Some(HOST)).await;
    assert_eq!(answer.status, 404, "an expired key is not published");
    assert!(answer.text().contains("publishes no signing keys"));
}

#[tokio::test]
async fn sr11_the_directory_lists_every_unexpired_key_and_verifies_independently() {
    let server = Server::start().await;
    let expired = server.key(days(10), days(5)).await;
    let retired = server.key(days(30), days(90)).await;
    let signing = server.key(days(2), days(90)).await;
    let pending = server.key(days(-1), days(90)).await;
    let now = Utc::now().timestamp();
    assert_eq!(
        tidings_fetch::botkeys::signing_key(
            &tidings_crawler::keys::load(server.store.as_ref())
                .await
                .unwrap_or_else(|e| panic!("{e}")),
            now
        )
        .map(|k| k.key.keyid()),
        Some(signing.key.keyid()),
        "the newest started key signs"
    );

    let answer = server.directory(Some(HOST)).await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(
        answer.header("content-type").as_deref(),
        Some(DIRECTORY_MEDIA_TYPE)
    );
    assert_eq!(
        answer.header("cache-control").as_deref(),
        Some("max-age=3600"),
        "the profile's signing.directory_max_age"
    );

    let json = answer.json();
    let listed = json["keys"]
        .as_array()
        .unwrap_or_else(|| panic!("no keys array: {json}"));
    let published = [&retired, &signing, &pending];
    assert_eq!(listed.len(), published.len(), "{json}");
    for key in published {
        let kid = key.key.keyid();
        let jwk = listed
            .iter()
            .find(|j| j["kid"] == kid.as_str())
            .unwrap_or_else(|| panic!("key {kid} not listed: {json}"));
        assert_eq!(jwk["kty"], "OKP");
        assert_eq!(jwk["crv"], "Ed25519");
        assert_eq!(jwk["use"], "sig");
        assert_eq!(jwk["x"], key.public().as_str());
        assert_eq!(jwk["nbf"].as_i64(), Some(key.not_before));
        assert_eq!(jwk["exp"].as_i64(), Some(key.expires));
        assert!(jwk.get("d").is_none(), "never the secret: {jwk}");
    }
    let text = answer.text();
    assert!(
        !text.contains(&expired.key.keyid()),
        "an expired key is gone"
    );
    for key in [&expired, &retired, &signing, &pending] {
        assert!(!text.contains(&key.secret()), "a secret leaked: {text}");
    }

    let directory = verify_directory_response(&answer.headers, &answer.body, HOST)
        .unwrap_or_else(|e| panic!("the verifier refuses the directory: {e}\n{text}"));
    assert_eq!(
        kids(&directory),
        published.iter().map(|k| k.key.keyid()).collect(),
        "the verifier's thumbprints are the kids"
    );
    for key in published {
        let seen = directory
            .get(&key.key.keyid())
            .unwrap_or_else(|| panic!("no {}", key.key.keyid()));
        assert_eq!(
            (seen.nbf, seen.exp),
            (Some(key.not_before), Some(key.expires))
        );
    }
    let labels = answer.header("signature-input").unwrap_or_default();
    assert_eq!(
        labels
            .matches("tag=\"http-message-signatures-directory\"")
            .count(),
        published.len(),
        "one signature per published key: {labels}"
    );

    // One byte of the body changed: the digest no longer matches.
    let at = text
        .find("\"exp\":")
        .map(|i| i + "\"exp\":".len())
        .unwrap_or_else(|| panic!("no exp: {text}"));
    let mut tampered = answer.body.clone();
    tampered[at] = if tampered[at] == b'9' {
        b'8'
    } else {
        tampered[at] + 1
    };
    assert_ne!(tampered, answer.body);
    assert!(
        matches!(
            verify_directory_response(&answer.headers, &tampered, HOST),
            Err(DirectoryProblem::ContentDigest(_))
        ),
        "a changed body is refused"
    );
    // The same change with a digest made to match: the signatures, which cover the digest,
    // no longer verify.
    let forged = answer.headers_with("content-digest", &content_digest(&tampered));
    assert!(
        matches!(
            verify_directory_response(&forged, &tampered, HOST),
            Err(DirectoryProblem::BadSignature { .. })
        ),
        "a changed body with its own digest is refused"
    );
    // The helper computes digests the verifier accepts: the original body with its digest
    // recomputed here still verifies.
    let recomputed = answer.headers_with("content-digest", &content_digest(&answer.body));
    assert!(verify_directory_response(&recomputed, &answer.body, HOST).is_ok());
}

#[tokio::test]
async fn sr11_the_directory_is_signed_for_the_authority_the_request_named() {
    let server = Server::start().await;
    server.key(days(1), days(90)).await;

    let answer = server.directory(Some("Bot.Example")).await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    verify_directory_response(&answer.headers, &answer.body, "bot.example")
        .unwrap_or_else(|e| panic!("@authority is the Host, lower-cased: {e}"));
    assert!(
        matches!(
            verify_directory_response(&answer.headers, &answer.body, "other.example"),
            Err(DirectoryProblem::BadSignature { .. })
        ),
        "a directory served to one authority does not verify for another"
    );

    let other = server.directory(Some("other.example")).await;
    assert!(verify_directory_response(&other.headers, &other.body, "other.example").is_ok());
}

#[tokio::test]
async fn sr11_a_request_without_host_is_a_400() {
    let server = Server::start().await;
    server.key(days(1), days(90)).await;
    let answer = server.directory(None).await;
    assert_eq!(answer.status, 400, "{}", answer.text());
    assert_eq!(
        answer.header("content-type").as_deref(),
        Some("text/plain; charset=utf-8")
    );
    assert!(answer.text().contains("Host"), "{}", answer.text());
    assert_eq!(
        answer.header("signature"),
        None,
        "nothing signed for no one"
    );
}
