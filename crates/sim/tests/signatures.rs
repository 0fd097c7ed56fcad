//! Web Bot Auth (SR11) checked on the publisher's side with Cloudflare's `web-bot-auth`:
//! requests signed by tidings' own signer (`tidings_fetch::signing`) and by `web-bot-auth`'s
//! verify, and each way a signature can be bad is its own problem; key directory responses
//! likewise; the auditor turns a bad or missing signature into one SR11 violation.

mod support;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, SystemTime};

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use indexmap::IndexMap;
use sha2::{Digest as _, Sha256};
use tidings_fetch::signing::{BotKey, ComponentId, SignatureParams, WebBotAuthRequest};
use tidings_sim::clock::SCENARIO_START_UNIX_SECS;
use tidings_sim::signatures::DEFAULT_SKEW;
use tidings_sim::{
    DirectoryError, DirectoryProblem, Exchange, Expectations, FeedSpec, Header, HostSpec,
    KeyDirectory, Resource, Rule, SignatureCheck, SignatureProblem, Stamp, TimeBase, Verified, Web,
    audit, verify_directory_response, verify_request,
};
use url::Url;
use web_bot_auth::components::{
    CoveredComponent, DerivedComponent, HTTPField, HTTPFieldParameters, HTTPFieldParametersSet,
};
use web_bot_auth::keyring::Algorithm;
use web_bot_auth::message_signatures::{MessageSigner, UnsignedMessage};

const AGENT: &str = "https://bot.example";
const HOST: &str = "news.test:8080";
/// The web's clock in these tests, Unix seconds.
const NOW: i64 = SCENARIO_START_UNIX_SECS as i64;

fn key(n: u8) -> BotKey {
    BotKey::from_seed(&[n; 32])
}

fn at(secs: i64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(secs as u64)
}

/// One key as the directory lists it, `kid` included.
fn jwk(key: &BotKey, nbf: Option<i64>, exp: Option<i64>) -> serde_json::Value {
    let mut jwk = serde_json::json!({
        "kty": "OKP",
        "crv": "Ed25519",
        "kid": key.keyid(),
        "x": URL_SAFE_NO_PAD.encode(key.public_key()),
        "use": "sig",
    });
    if let Some(nbf) = nbf {
        jwk["nbf"] = nbf.into();
    }
    if let Some(exp) = exp {
        jwk["exp"] = exp.into();
    }
    jwk
}

fn directory_json(keys: &[serde_json::Value]) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({ "keys": keys })).unwrap()
}

/// The directory of `keys`, valid a day either side of [`NOW`].
fn directory(keys: &[&BotKey]) -> KeyDirectory {
    let jwks: Vec<_> = keys
        .iter()
        .map(|k| jwk(k, Some(NOW - 86_400), Some(NOW + 86_400)))
        .collect();
    KeyDirectory::from_json(&directory_json(&jwks)).unwrap()
}

fn stamp(secs: i64) -> Stamp {
    Stamp {
        mono: Duration::ZERO,
        wall: at(secs),
        sim: at(secs),
    }
}

/// A GET of `/feed.xml` on `news.test` that arrived at [`NOW`] with `headers`.
fn exchange(id: u64, headers: Vec<Header>) -> Exchange {
    Exchange {
        id,
        host: "news.test".into(),
        local: SocketAddr::new(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)), 8080),
        peer: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 40000),
        method: "GET".into(),
        target: "/feed.xml".into(),
        headers,
        status: Some(200),
        response_headers: Vec::new(),
        body_bytes: 0,
        started: stamp(NOW),
        responded: Some(stamp(NOW)),
        ended: Some(stamp(NOW)),
        completed: true,
    }
}

/// The request as tidings signs it: `key`, for `http://HOST/feed.xml`, naming `agent`.
fn signed_as(key: &BotKey, agent: &str, created: i64, expires: i64) -> Exchange {
    let target = Url::parse(&format!("http://{HOST}/feed.xml")).unwrap();
    let headers = key
        .sign_web_bot_auth(&WebBotAuthRequest {
            target: &target,
            signature_agent: agent,
            created,
            expires,
            nonce: Some("bm9uY2U="),
        })
        .unwrap();
    exchange(
        0,
        vec![
            Header::new("Host", HOST),
            Header::new("User-Agent", "tidings-test/1"),
            Header::new("Signature-Agent", headers.signature_agent),
            Header::new("Signature-Input", headers.signature_input),
            Header::new("Signature", headers.signature),
        ],
    )
}

/// Signed by `key` at [`NOW`], valid for 300 s.
fn signed(key: &BotKey) -> Exchange {
    signed_as(key, AGENT, NOW, NOW + 300)
}

fn with(mut e: Exchange, name: &str, value: &str) -> Exchange {
    e.headers.retain(|h| !h.name.eq_ignore_ascii_case(name));
    e.headers.push(Header::new(name, value));
    e
}

fn without(mut e: Exchange, name: &str) -> Exchange {
    e.headers.retain(|h| !h.name.eq_ignore_ascii_case(name));
    e
}

fn verify(e: &Exchange, directory: &KeyDirectory) -> Result<Verified, SignatureProblem> {
    verify_request(e, directory, at(NOW), DEFAULT_SKEW)
}

#[test]
fn sr11_a_request_signed_by_tidings_verifies_with_web_bot_auth() {
    let k = key(1);
    let dir = directory(&[&key(9), &k]);
    // The thumbprint web-bot-auth computes is the keyid tidings sends.
    assert!(dir.get(&k.keyid()).is_some());
    assert_eq!(
        verify(&signed(&k), &dir),
        Ok(Verified {
            label: "sig1".into(),
            keyid: k.keyid(),
            created: NOW,
            expires: NOW + 300,
            nonce: Some("bm9uY2U=".into()),
            signature_agent: AGENT.into(),
            authority: HOST.into(),
        })
    );
    // Header names in any case, an upper-case Host.
    let shouted = with(signed(&k), "HOST", "NEWS.test:8080");
    assert!(verify(&shouted, &dir).is_ok());
}

/// A message `web-bot-auth`'s own `MessageSigner` signs.
struct Unsigned {
    covered: Vec<(CoveredComponent, String)>,
    input: String,
    signature: String,
}

impl UnsignedMessage for Unsigned {
    fn fetch_components_to_cover(&self) -> IndexMap<CoveredComponent, String> {
        self.covered.iter().cloned().collect()
    }

    fn register_header_contents(&mut self, signature_input: String, signature_header: String) {
        self.input = signature_input;
        self.signature = signature_header;
    }
}

/// Sign `covered` with the key of seed `[n; 32]`, as `web-bot-auth` does: created is now (the
/// real clock), expires 300 s later. Returns the `Signature-Input` and `Signature` members.
fn web_bot_auth_sign(
    n: u8,
    tag: &str,
    covered: Vec<(CoveredComponent, String)>,
) -> (String, String) {
    let signer = MessageSigner {
        keyid: key(n).keyid(),
        nonce: format!("nonce-{n}"),
        tag: tag.into(),
    };
    let mut message = Unsigned {
        covered,
        input: String::new(),
        signature: String::new(),
    };
    signer
        .generate_signature_headers_content(
            &mut message,
            Duration::from_secs(300),
            Algorithm::Ed25519,
            &[n; 32],
        )
        .unwrap();
    (message.input, message.signature)
}

fn field(name: &str, key: Option<&str>) -> CoveredComponent {
    CoveredComponent::HTTP(HTTPField {
        name: name.into(),
        parameters: HTTPFieldParametersSet(
            key.map(|k| HTTPFieldParameters::Key(k.into()))
                .into_iter()
                .collect(),
        ),
    })
}

fn authority(req: bool) -> CoveredComponent {
    CoveredComponent::Derived(DerivedComponent::Authority { req })
}

#[test]
fn sr11_a_request_signed_by_web_bot_auth_itself_verifies() {
    let (input, signature) = web_bot_auth_sign(
        3,
        "web-bot-auth",
        vec![
            (authority(false), HOST.into()),
            (
                field("signature-agent", Some("agent")),
                format!("\"{AGENT}\""),
            ),
        ],
    );
    let e = exchange(
        0,
        vec![
            Header::new("host", HOST),
            Header::new("signature-agent", format!("agent=\"{AGENT}\"")),
            Header::new("signature-input", format!("sig7={input}")),
            Header::new("signature", format!("sig7={signature}")),
        ],
    );
    // Signed on the real clock: a directory whose key has no nbf or exp.
    let dir = KeyDirectory::from_json(&directory_json(&[jwk(&key(3), None, None)])).unwrap();
    let verified = verify_request(&e, &dir, SystemTime::now(), DEFAULT_SKEW)
        .expect("web-bot-auth's own signature verifies");
    assert_eq!(verified.label, "sig7");
    assert_eq!(verified.keyid, key(3).keyid());
    assert_eq!(verified.signature_agent, AGENT);
    assert_eq!(verified.authority, HOST);
}

/// Each way a signature fails, with the problem it must give.
#[test]
fn sr11_each_bad_signature_is_its_own_problem() {
    let k = key(1);
    let dir = directory(&[&k]);
    let keyid = k.keyid();
    let bad_signature = |e: &Exchange| matches!(verify(e, &dir), Err(SignatureProblem::BadSignature { keyid: id, .. }) if id == keyid);
    assert!(verify(&signed(&k), &dir).is_ok());

    // The request went to another authority than the one signed.
    assert!(bad_signature(&with(signed(&k), "host", "other.test:8080")));
    assert!(bad_signature(&with(signed(&k), "host", "news.test")));
    // Another agent than the one signed.
    let agent = "sig1=\"https://evil.example\"";
    assert!(bad_signature(&with(signed(&k), "signature-agent", agent)));
    // Another signature by the same key (over another `created`).
    let other = signed_as(&k, AGENT, NOW - 1, NOW + 300);
    let other_sig = other
        .header("signature")
        .map(|v| String::from_utf8_lossy(v).into_owned());
    assert!(bad_signature(&with(
        signed(&k),
        "signature",
        &other_sig.unwrap()
    )));

    let rows: Vec<(&str, Exchange, SignatureProblem)> = vec![
        (
            "a key the directory does not list",
            signed(&key(2)),
            SignatureProblem::UnknownKey(key(2).keyid()),
        ),
        (
            "no signature",
            without(signed(&k), "signature"),
            SignatureProblem::MissingHeader("signature"),
        ),
        (
            "no signature-input",
            without(signed(&k), "signature-input"),
            SignatureProblem::MissingHeader("signature-input"),
        ),
        (
            "no signature-agent",
            without(signed(&k), "signature-agent"),
            SignatureProblem::MissingHeader("signature-agent"),
        ),
        (
            "no host",
            without(signed(&k), "host"),
            SignatureProblem::MissingHeader("host"),
        ),
        (
            "an agent that is no url",
            signed_as(&k, "bot.example", NOW, NOW + 300),
            SignatureProblem::AgentNotUrl("sig1=\"bot.example\"".into()),
        ),
        (
            "expired: now is expires plus the skew",
            signed_as(&k, AGENT, NOW - 300, NOW - 5),
            SignatureProblem::Expired {
                expires: NOW - 5,
                now: NOW,
            },
        ),
        (
            "created beyond the skew ahead of now",
            signed_as(&k, AGENT, NOW + 6, NOW + 300),
            SignatureProblem::NotYetValid {
                created: NOW + 6,
                now: NOW,
            },
        ),
        (
            "expires not after created",
            signed_as(&k, AGENT, NOW, NOW),
            SignatureProblem::Window {
                created: NOW,
                expires: NOW,
            },
        ),
    ];
    for (name, e, expected) in rows {
        assert_eq!(verify(&e, &dir), Err(expected), "{name}");
    }

    // Within the skew either way is fine.
    assert!(verify(&signed_as(&k, AGENT, NOW + 5, NOW + 300), &dir).is_ok());
    assert!(verify(&signed_as(&k, AGENT, NOW - 300, NOW - 4), &dir).is_ok());
}

#[test]
fn sr11_a_signature_that_does_not_cover_the_agent_or_is_garbled_is_unparsable() {
    let k = key(1);
    let dir = directory(&[&k]);
    // Signed over `@authority` only, though a Signature-Agent is sent.
    let only_authority = k
        .sign_message(
            "sig1",
            &[(ComponentId::new("@authority"), HOST)],
            &SignatureParams::web_bot_auth(&k.keyid(), NOW, NOW + 300, None),
        )
        .unwrap();
    let e = with(
        signed(&k),
        "signature-input",
        &only_authority.signature_input,
    );
    let e = with(e, "signature", &only_authority.signature);
    assert!(matches!(
        verify(&e, &dir),
        Err(SignatureProblem::Unparsable(_))
    ));
    // Not a dictionary.
    let e = with(signed(&k), "signature-input", "sig1=(\"@authority\"");
    assert!(matches!(
        verify(&e, &dir),
        Err(SignatureProblem::Unparsable(_))
    ));
    // Another tag.
    let mut params = SignatureParams::web_bot_auth(&k.keyid(), NOW, NOW + 300, None);
    params.tag = Some("not-web-bot-auth".into());
    let covered = [
        (ComponentId::new("@authority"), HOST),
        (
            ComponentId::member("signature-agent", "sig1"),
            "\"https://bot.example\"",
        ),
    ];
    let other_tag = k.sign_message("sig1", &covered, &params).unwrap();
    let e = with(signed(&k), "signature-input", &other_tag.signature_input);
    let e = with(e, "signature", &other_tag.signature);
    assert!(matches!(
        verify(&e, &dir),
        Err(SignatureProblem::Unparsable(_))
    ));
    // Another algorithm named.
    let mut params = SignatureParams::web_bot_auth(&k.keyid(), NOW, NOW + 300, None);
    params.alg = Some("rsa-pss-sha512".into());
    let other_alg = k.sign_message("sig1", &covered, &params).unwrap();
    let e = with(signed(&k), "signature-input", &other_alg.signature_input);
    let e = with(e, "signature", &other_alg.signature);
    assert_eq!(
        verify(&e, &dir),
        Err(SignatureProblem::Unparsable(
            "alg \"rsa-pss-sha512\" is not ed25519".into()
        ))
    );
}

#[test]
fn sr11_the_key_must_be_valid_when_the_signature_was_created() {
    let k = key(1);
    let window = |nbf: i64, exp: i64| {
        KeyDirectory::from_json(&directory_json(&[jwk(&k, Some(nbf), Some(exp))])).unwrap()
    };
    let outside = |nbf: i64, exp: i64| SignatureProblem::KeyOutsideValidity {
        keyid: k.keyid(),
        created: NOW,
        nbf: Some(nbf),
        exp: Some(exp),
    };
    // Past its exp (exp is the first moment it is no longer valid), before its nbf.
    assert_eq!(
        verify(&signed(&k), &window(NOW - 10, NOW)),
        Err(outside(NOW - 10, NOW))
    );
    assert_eq!(
        verify(&signed(&k), &window(NOW + 1, NOW + 10)),
        Err(outside(NOW + 1, NOW + 10))
    );
    assert!(verify(&signed(&k), &window(NOW, NOW + 1)).is_ok());
    // A key without nbf and exp is always valid.
    let open = KeyDirectory::from_json(&directory_json(&[jwk(&k, None, None)])).unwrap();
    assert!(verify(&signed(&k), &open).is_ok());
}

#[test]
fn key_directory_is_keyed_by_thumbprint_and_refuses_a_kid_that_is_not_it() {
    let (a, b) = (key(1), key(2));
    let dir = KeyDirectory::from_json(&directory_json(&[
        jwk(&a, Some(10), Some(20)),
        jwk(&b, None, None),
    ]))
    .unwrap();
    assert_eq!(dir.len(), 2);
    let got = dir.get(&a.keyid()).unwrap();
    assert_eq!((got.nbf, got.exp), (Some(10), Some(20)));
    assert_eq!(got.public_key, a.public_key());

    let mut wrong_kid = jwk(&b, None, None);
    wrong_kid["kid"] = "key-2".into();
    assert_eq!(
        KeyDirectory::from_json(&directory_json(&[jwk(&a, None, None), wrong_kid])).unwrap_err(),
        DirectoryError::KidMismatch {
            index: 1,
            kid: "key-2".into(),
            thumbprint: b.keyid(),
        }
    );
    let mut no_kid = jwk(&a, None, None);
    no_kid.as_object_mut().unwrap().remove("kid");
    assert!(KeyDirectory::from_json(&directory_json(&[no_kid])).is_ok());

    let mut x25519 = jwk(&a, None, None);
    x25519["crv"] = "X25519".into();
    x25519.as_object_mut().unwrap().remove("kid");
    let mut text_nbf = jwk(&a, None, None);
    text_nbf["nbf"] = "soon".into();
    let failures = [
        (directory_json(&[]), "key directory has no keys"),
        (
            directory_json(&[jwk(&a, None, None), jwk(&a, Some(1), None)]),
            "is listed twice",
        ),
        (directory_json(&[x25519]), "is not an ed25519 public key"),
        (
            directory_json(&[text_nbf]),
            "has a nbf that is not an integer",
        ),
        (
            b"{\"keys\":[{\"kty\":\"OKP\"}]}".to_vec(),
            "not a json web key set",
        ),
        (b"<html>".to_vec(), "not a json web key set"),
    ];
    for (body, expected) in failures {
        let error = KeyDirectory::from_json(&body).unwrap_err().to_string();
        assert!(error.contains(expected), "{error:?} lacks {expected:?}");
    }
}

// The key directory response.

const DIRECTORY_AUTHORITY: &str = "bot.example";

/// A directory response body and its headers, signed by the keys of `signers` (seed byte and
/// tag), labels `sig0`, `sig1`, … The body lists `listed`.
fn directory_response(
    listed: &[u8],
    signers: &[(u8, &str)],
    cover_digest: bool,
) -> (Vec<Header>, Vec<u8>) {
    let keys: Vec<_> = listed
        .iter()
        .map(|n| jwk(&key(*n), Some(NOW), Some(NOW + 86_400)))
        .collect();
    let body = directory_json(&keys);
    let digest = format!("sha-256=:{}:", STANDARD.encode(Sha256::digest(&body)));
    let (mut inputs, mut signatures) = (Vec::new(), Vec::new());
    for (i, (n, tag)) in signers.iter().enumerate() {
        let mut covered = vec![(authority(true), DIRECTORY_AUTHORITY.to_owned())];
        if cover_digest {
            covered.push((field("content-digest", None), digest.clone()));
        }
        let (input, signature) = web_bot_auth_sign(*n, tag, covered);
        inputs.push(format!("sig{i}={input}"));
        signatures.push(format!("sig{i}={signature}"));
    }
    let headers = vec![
        Header::new(
            "Content-Type",
            "application/http-message-signatures-directory+json",
        ),
        Header::new("Content-Digest", digest),
        Header::new("Signature-Input", inputs.join(", ")),
        Header::new("Signature", signatures.join(", ")),
    ];
    (headers, body)
}

const TAG: &str = "http-message-signatures-directory";

#[test]
fn sr11_a_directory_signed_by_each_of_its_keys_verifies() {
    let (headers, body) = directory_response(&[1, 2], &[(2, TAG), (1, TAG)], true);
    let dir = verify_directory_response(&headers, &body, DIRECTORY_AUTHORITY).unwrap();
    assert_eq!(dir.len(), 2);
    assert!(dir.get(&key(1).keyid()).is_some());
    assert!(dir.get(&key(2).keyid()).is_some());
    // And its keys verify requests.
    assert!(verify(&signed(&key(2)), &dir).is_ok());
}

#[test]
fn sr11_each_bad_directory_response_is_its_own_problem() {
    let (headers, mut body) = directory_response(&[1, 2], &[(1, TAG), (2, TAG)], true);
    let check = |headers: &[Header], body: &[u8]| {
        verify_directory_response(headers, body, DIRECTORY_AUTHORITY).map(|_| ())
    };
    assert_eq!(check(&headers, &body), Ok(()));

    // The body changed after signing.
    let mut changed = body.clone();
    changed.push(b'\n');
    assert_eq!(
        check(&headers, &changed),
        Err(DirectoryProblem::ContentDigest(
            "sha-256 is not the digest of the body".into()
        ))
    );
    // Fetched from another authority than the one signed.
    assert!(matches!(
        verify_directory_response(&headers, &body, "evil.example"),
        Err(DirectoryProblem::BadSignature { .. })
    ));
    // Key 2 listed but not signing.
    let (only_one, listed) = directory_response(&[1, 2], &[(1, TAG)], true);
    assert_eq!(
        check(&only_one, &listed),
        Err(DirectoryProblem::Unsigned(key(2).keyid()))
    );
    // A request's tag.
    let (wrong_tag, listed) = directory_response(&[1], &[(1, "web-bot-auth")], true);
    assert_eq!(
        check(&wrong_tag, &listed),
        Err(DirectoryProblem::WrongTag {
            keyid: key(1).keyid(),
            tag: Some("web-bot-auth".into()),
        })
    );
    // The digest not covered.
    let (bare, listed) = directory_response(&[1], &[(1, TAG)], false);
    assert_eq!(
        check(&bare, &listed),
        Err(DirectoryProblem::NotCovered {
            keyid: key(1).keyid(),
            component: "\"content-digest\"",
        })
    );
    // Headers missing.
    for name in ["content-digest", "signature-input", "signature"] {
        let fewer: Vec<Header> = headers.iter().filter(|h| h.name != name).cloned().collect();
        assert_eq!(
            check(&fewer, &body),
            Err(DirectoryProblem::MissingHeader(name)),
            "{name}"
        );
    }
    // A digest and body both replaced: the signature covers the digest.
    body = directory_json(&[jwk(&key(1), None, None), jwk(&key(2), None, None)]);
    let digest = format!("sha-256=:{}:", STANDARD.encode(Sha256::digest(&body)));
    let swapped: Vec<Header> = headers
        .iter()
        .map(|h| match h.name.as_str() {
            "content-digest" => Header::new("content-digest", digest.clone()),
            _ => h.clone(),
        })
        .collect();
    assert!(matches!(
        check(&swapped, &body),
        Err(DirectoryProblem::BadSignature { .. })
    ));
}

// The auditor.

fn signature_check(keys: &[&BotKey]) -> Expectations {
    Expectations {
        signatures: Some(SignatureCheck::new(directory(keys))),
        ..Expectations::default()
    }
}

fn numbered(id: u64, mut e: Exchange, target: &str) -> Exchange {
    e.id = id;
    e.target = target.into();
    e
}

#[test]
fn sr11_signed_exchanges_pass_the_audit() {
    let k = key(1);
    let run = [
        numbered(0, signed(&k), "/robots.txt"),
        numbered(1, signed(&k), "/feed.xml"),
    ];
    assert_eq!(audit(&run, &signature_check(&[&k])), []);
}

#[test]
fn sr11_one_unsigned_exchange_among_signed_ones_is_one_violation_naming_it() {
    let k = key(1);
    let run = [
        numbered(0, signed(&k), "/robots.txt"),
        numbered(1, without(signed(&k), "signature"), "/feed.xml"),
        numbered(2, signed(&k), "/feed.xml"),
    ];
    let violations = audit(&run, &signature_check(&[&k]));
    assert_eq!(violations.len(), 1, "{violations:?}");
    let v = &violations[0];
    assert_eq!(
        (v.rule, v.exchanges.as_slice()),
        (Rule::Signature, &[1][..])
    );
    assert_eq!(v.rule.id(), "SR11");
    assert_eq!(v.detail, "GET /feed.xml on news.test: no signature header");
}

#[test]
fn sr11_without_a_signature_check_unsigned_exchanges_are_fine() {
    let run = [
        numbered(0, without(signed(&key(1)), "signature"), "/robots.txt"),
        numbered(1, without(signed(&key(1)), "signature-input"), "/feed.xml"),
    ];
    assert_eq!(audit(&run, &Expectations::default()), []);
}

#[test]
fn sr11_signature_times_are_read_on_the_chosen_clock() {
    let k = key(1);
    // Arrived at NOW in scenario time, an hour later on the wall clock.
    let mut e = signed(&k);
    e.started.wall = at(NOW + 3600);
    let mut expect = signature_check(&[&k]);
    assert_eq!(audit(std::slice::from_ref(&e), &expect), []);
    if let Some(check) = expect.signatures.as_mut() {
        check.clock = TimeBase::Monotonic;
    }
    let found: Vec<_> = audit(&[e], &expect).into_iter().map(|v| v.rule).collect();
    assert_eq!(found, [Rule::Signature]);
}

#[tokio::test]
async fn sr11_signatures_recorded_by_the_live_web_verify() {
    let web = Web::start(vec![
        HostSpec::new("news.test").at("/feed.xml", Resource::feed(FeedSpec::fixed("news"))),
    ])
    .await
    .unwrap();
    let port = web.addr("news.test").unwrap().port();
    let k = key(1);
    let target = Url::parse(&format!("http://news.test:{port}/feed.xml")).unwrap();
    let headers = k
        .sign_web_bot_auth(&WebBotAuthRequest {
            target: &target,
            signature_agent: AGENT,
            created: NOW,
            expires: NOW + 300,
            nonce: None,
        })
        .unwrap();
    let extra = [
        ("Signature-Agent", headers.signature_agent.as_str()),
        ("Signature-Input", headers.signature_input.as_str()),
        ("Signature", headers.signature.as_str()),
    ];
    assert_eq!(
        support::get(&web, "news.test", "/feed.xml", &extra)
            .await
            .status,
        200
    );
    support::get(&web, "news.test", "/feed.xml", &[]).await;
    let found: Vec<_> = audit(&web.recorder().exchanges(), &signature_check(&[&k]))
        .into_iter()
        .filter(|v| v.rule == Rule::Signature)
        .map(|v| v.exchanges)
        .collect();
    assert_eq!(found, [vec![1]]);
}
