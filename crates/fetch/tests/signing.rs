//! SR11: with a signer, every request of a read, each redirect hop to another authority
//! included, carries a Web Bot Auth signature over its own authority; without a key nothing
//! is sent. (The simulated web checks the same with an independent implementation.)

mod support;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use ed25519_dalek::{Signature, VerifyingKey};
use std::sync::Arc;
use support::{Recorded, Reply, Server, config, fetcher, head, response};
use tidings_fetch::signing::BotKey;
use tidings_fetch::{FetchOutcome, FetchRequest, RequestSigner};

const FEED: &[u8] = b"<rss version=\"2.0\"><channel><title>t</title></channel></rss>";
const AGENT: &str = "https://bot.example";

fn text(r: &Recorded, name: &str) -> String {
    let value = r.header(name).unwrap_or_else(|| panic!("{name} missing"));
    String::from_utf8(value.to_vec()).expect("ASCII header")
}

/// Checks the request's signature by rebuilding the RFC 9421 base from what arrived.
fn verify(r: &Recorded, public: &VerifyingKey) {
    let host = text(r, "host");
    let agent = text(r, "signature-agent");
    let input = text(r, "signature-input");
    let params = input.strip_prefix("sig1=").expect("labelled sig1");
    let agent_value = agent.strip_prefix("sig1=").expect("agent member sig1");
    let base = format!(
        "\"@authority\": {host}\n\"signature-agent\";key=\"sig1\": {agent_value}\n\
         \"@signature-params\": {params}"
    );
    let signature = text(r, "signature");
    let bytes = signature
        .strip_prefix("sig1=:")
        .and_then(|s| s.strip_suffix(':'))
        .expect("sig1=:…: form");
    let signature = Signature::from_slice(&STANDARD.decode(bytes).expect("base64")).expect("64");
    assert!(
        public.verify_strict(base.as_bytes(), &signature).is_ok(),
        "signature over {host} does not verify"
    );
    assert!(params.contains(";tag=\"web-bot-auth\""), "{params}");
    assert!(params.contains(";created=1700000000;"), "{params}");
    assert!(params.contains(";expires=1700000300;"), "{params}");
}

#[tokio::test]
async fn sr11_every_hop_is_signed_over_its_own_authority() {
    let target = Server::start(|_, _| Reply::Raw(response(200, &[], FEED))).await;
    let feed_url = target.url("/feed");
    let first = Server::start(move |_, _| {
        Reply::Raw(head(301, &[("location", feed_url.as_str().as_bytes())]))
    })
    .await;
    let key = BotKey::from_seed(&[3; 32]);
    let public = VerifyingKey::from_bytes(&key.public_key()).expect("public key");
    let signer = Arc::new(RequestSigner::new(AGENT, 300, Arc::new(|| 1_700_000_000)));
    signer.set_key(key, 1_800_000_000);
    let mut cfg = config();
    cfg.signer = Some(signer);
    let answer = fetcher(cfg)
        .fetch(&FetchRequest::new(first.url("/old")))
        .await;
    assert!(
        matches!(answer.outcome, FetchOutcome::Fetched(_)),
        "{:?}",
        answer.outcome
    );
    let (hop, last) = (first.requests(), target.requests());
    assert_eq!((hop.len(), last.len()), (1, 1));
    assert_ne!(
        text(&hop[0], "host"),
        text(&last[0], "host"),
        "two authorities"
    );
    for r in [&hop[0], &last[0]] {
        assert_eq!(text(r, "signature-agent"), format!("sig1=\"{AGENT}\""));
        verify(r, &public);
    }
    assert_ne!(
        text(&hop[0], "signature"),
        text(&last[0], "signature"),
        "each hop is signed on its own"
    );
}

#[tokio::test]
async fn sr11_without_a_key_nothing_is_sent_unsigned() {
    let server = Server::start(|_, _| Reply::Raw(response(200, &[], FEED))).await;
    let mut cfg = config();
    cfg.signer = Some(Arc::new(RequestSigner::new(AGENT, 300, Arc::new(|| 0))));
    match fetcher(cfg)
        .fetch(&FetchRequest::new(server.url("/feed")))
        .await
        .outcome
    {
        FetchOutcome::Blocked { reason } => assert!(reason.contains("no bot key"), "{reason}"),
        other => panic!("expected Blocked, got {other:?}"),
    }
    assert!(server.requests().is_empty(), "nothing reached the server");
}

#[tokio::test]
async fn without_a_signer_no_signature_headers_are_sent() {
    let server = Server::start(|_, _| Reply::Raw(response(200, &[], FEED))).await;
    fetcher(config())
        .fetch(&FetchRequest::new(server.url("/feed")))
        .await;
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    for name in ["signature", "signature-input", "signature-agent"] {
        assert!(requests[0].header(name).is_none(), "{name} sent");
    }
}
