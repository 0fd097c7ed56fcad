//! Web Bot Auth request signing, the pure core (SR11).
//!
//! Owns the three pieces a signed request needs and nothing else:
//! - the RFC 9421 signature base (§2.5) over a caller-given list of covered components, with the
//!   `@signature-params` line serialized as RFC 9421 §2.3 says;
//! - Ed25519 signing ([`BotKey`]) and the `Signature-Input` / `Signature` header values;
//! - the RFC 7638 JWK SHA-256 thumbprint of the public key, which is the `keyid`.
//!
//! [`BotKey::sign_web_bot_auth`] puts them together the way the Web Bot Auth drafts
//! (`draft-meunier-webbotauth-httpsig-protocol`, now `draft-ietf-webbotauth-httpsig-protocol`)
//! ask: covered components `@authority` and the `Signature-Agent` member keyed by the signature
//! label, parameters `created`, `keyid`, `alg="ed25519"`, `expires`, an optional `nonce` and
//! `tag="web-bot-auth"`.
//!
//! Pure: no clock, no randomness, no I/O. `created`, `expires`, the nonce and the key seed are
//! arguments; the shell reads the clock and the key store. Key management, the key directory and
//! attaching the headers to requests live elsewhere.

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ed25519_dalek::{Signer as _, SigningKey};
use sha2::{Digest as _, Sha256};
use url::Url;

/// The `tag` parameter Web Bot Auth requires on every signature.
pub const WEB_BOT_AUTH_TAG: &str = "web-bot-auth";

/// The RFC 9421 algorithm name of Ed25519 (HTTP Signature Algorithms registry).
pub const ED25519_ALG: &str = "ed25519";

/// The label of the one signature tidings puts on a request; the `Signature-Agent` member
/// carries the same key, as the current drafts ask of new senders.
pub const SIGNATURE_LABEL: &str = "sig1";

/// Why a signature base could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SigningError {
    /// A covered value holds a line break, which would forge another line of the base.
    #[error("value of covered component {component} contains a line break")]
    LineBreak { component: String },
    /// The target URL has no host, so there is no `@authority`.
    #[error("target url has no host")]
    NoHost,
}

/// A covered component identifier (RFC 9421 §2): a lower-case name such as `@authority` or
/// `signature-agent`, and the `key` parameter when it covers one member of a Dictionary field
/// (§2.1.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentId {
    name: String,
    key: Option<String>,
    /// The `req` flag (§2.4): in a response's signature, the value comes from the request.
    req: bool,
}

impl ComponentId {
    /// A derived component (`@authority`) or a whole header field; field names are lower-cased.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_ascii_lowercase(),
            key: None,
            req: false,
        }
    }

    /// A component of the request a response answers, as in `"@authority";req` (RFC 9421
    /// §2.4): what a signed key directory covers.
    pub fn of_request(name: &str) -> Self {
        Self {
            req: true,
            ..Self::new(name)
        }
    }

    /// One member of a Dictionary header field, as in `"signature-agent";key="sig1"`.
    pub fn member(name: &str, key: &str) -> Self {
        Self {
            name: name.to_ascii_lowercase(),
            key: Some(key.to_owned()),
            req: false,
        }
    }

    /// The identifier as it appears in the base and in `Signature-Input` (RFC 9421 §2.1).
    fn serialize(&self) -> String {
        let mut out = sf_string(&self.name);
        if let Some(key) = &self.key {
            out.push_str(&format!(";key={}", sf_string(key)));
        }
        if self.req {
            out.push_str(";req");
        }
        out
    }
}

/// The signature parameters (RFC 9421 §2.3), serialized in the order the Web Bot Auth test
/// vectors use: `created`, `keyid`, `alg`, `expires`, `nonce`, `tag`; absent ones are left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureParams {
    /// Creation time, seconds since the Unix epoch.
    pub created: i64,
    /// The key identifier; for Web Bot Auth the JWK thumbprint of the public key.
    pub keyid: String,
    pub alg: Option<String>,
    /// Expiry time, seconds since the Unix epoch.
    pub expires: Option<i64>,
    pub nonce: Option<String>,
    pub tag: Option<String>,
}

impl SignatureParams {
    /// The parameters Web Bot Auth requires, for a key and a validity window.
    pub fn web_bot_auth(keyid: &str, created: i64, expires: i64, nonce: Option<&str>) -> Self {
        Self {
            created,
            keyid: keyid.to_owned(),
            alg: Some(ED25519_ALG.to_owned()),
            expires: Some(expires),
            nonce: nonce.map(str::to_owned),
            tag: Some(WEB_BOT_AUTH_TAG.to_owned()),
        }
    }
}

/// The `@signature-params` value: the inner list of covered components, then the parameters.
/// It is also the member value of `Signature-Input`.
pub fn signature_params(components: &[ComponentId], params: &SignatureParams) -> String {
    let ids: Vec<String> = components.iter().map(ComponentId::serialize).collect();
    let mut out = format!("({});created={}", ids.join(" "), params.created);
    out.push_str(&format!(";keyid={}", sf_string(&params.keyid)));
    if let Some(alg) = &params.alg {
        out.push_str(&format!(";alg={}", sf_string(alg)));
    }
    if let Some(expires) = params.expires {
        out.push_str(&format!(";expires={expires}"));
    }
    if let Some(nonce) = &params.nonce {
        out.push_str(&format!(";nonce={}", sf_string(nonce)));
    }
    if let Some(tag) = &params.tag {
        out.push_str(&format!(";tag={}", sf_string(tag)));
    }
    out
}

/// The signature base (RFC 9421 §2.5): one `"id": value` line per covered component, in order,
/// then the `"@signature-params"` line, joined by LF with no trailing newline. Values are given
/// already canonical (a derived value, a field value trimmed and combined, or a dictionary
/// member re-serialized).
pub fn signature_base(
    components: &[(ComponentId, &str)],
    params: &SignatureParams,
) -> Result<String, SigningError> {
    let mut base = String::new();
    for (id, value) in components {
        if value.contains(['\r', '\n']) {
            return Err(SigningError::LineBreak {
                component: id.name.clone(),
            });
        }
        base.push_str(&format!("{}: {value}\n", id.serialize()));
    }
    let ids: Vec<ComponentId> = components.iter().map(|(id, _)| id.clone()).collect();
    base.push_str(&format!(
        "\"@signature-params\": {}",
        signature_params(&ids, params)
    ));
    Ok(base)
}

/// The derived `@authority` (RFC 9421 §2.2.3): the host lower-cased, with the port only when
/// it is not the scheme's default.
pub fn authority(target: &Url) -> Result<String, SigningError> {
    let host = target
        .host_str()
        .ok_or(SigningError::NoHost)?
        .to_ascii_lowercase();
    // `Url` already drops a port equal to the scheme's default.
    Ok(match target.port() {
        Some(port) => format!("{host}:{port}"),
        None => host,
    })
}

/// The RFC 7638 JWK SHA-256 thumbprint of an Ed25519 public key, base64url without padding:
/// the hash of `{"crv":"Ed25519","kty":"OKP","x":"…"}` (members sorted, no whitespace).
pub fn jwk_thumbprint(public_key: &[u8; 32]) -> String {
    let jwk = format!(
        r#"{{"crv":"Ed25519","kty":"OKP","x":"{}"}}"#,
        URL_SAFE_NO_PAD.encode(public_key)
    );
    URL_SAFE_NO_PAD.encode(Sha256::digest(jwk.as_bytes()))
}

/// The header values of one signature: `Signature-Input` and `Signature` (RFC 9421 §4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageSignature {
    /// `label=("…" …);created=…;…`
    pub signature_input: String,
    /// `label=:base64:`
    pub signature: String,
}

/// The three headers Web Bot Auth adds to a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebBotAuthHeaders {
    /// `sig1="https://…"`: where the key directory is.
    pub signature_agent: String,
    pub signature_input: String,
    pub signature: String,
}

/// What one Web Bot Auth signature covers and when it is valid. Times are seconds since the
/// Unix epoch, read by the caller.
#[derive(Debug, Clone, Copy)]
pub struct WebBotAuthRequest<'a> {
    pub target: &'a Url,
    /// The URL of the agent whose key directory holds this key.
    pub signature_agent: &'a str,
    pub created: i64,
    pub expires: i64,
    pub nonce: Option<&'a str>,
}

/// An Ed25519 signing key. Its `Debug` shows the `keyid`, never the secret.
#[derive(Clone)]
pub struct BotKey(SigningKey);

impl BotKey {
    /// The key whose 32-byte secret seed (RFC 8032 §5.1.5, the JWK `d`) is `seed`.
    pub fn from_seed(seed: &[u8; 32]) -> Self {
        Self(SigningKey::from_bytes(seed))
    }

    /// The 32-byte secret seed, to store the key.
    pub fn seed(&self) -> [u8; 32] {
        self.0.to_bytes()
    }

    /// The 32-byte public key (the JWK `x`).
    pub fn public_key(&self) -> [u8; 32] {
        self.0.verifying_key().to_bytes()
    }

    /// The `keyid`: the JWK thumbprint of the public key.
    pub fn keyid(&self) -> String {
        jwk_thumbprint(&self.public_key())
    }

    /// Signs the base built from `components` and `params` under `label`.
    pub fn sign_message(
        &self,
        label: &str,
        components: &[(ComponentId, &str)],
        params: &SignatureParams,
    ) -> Result<MessageSignature, SigningError> {
        let base = signature_base(components, params)?;
        let signature = self.0.sign(base.as_bytes()).to_bytes();
        let ids: Vec<ComponentId> = components.iter().map(|(id, _)| id.clone()).collect();
        Ok(MessageSignature {
            signature_input: format!("{label}={}", signature_params(&ids, params)),
            signature: format!("{label}=:{}:", STANDARD.encode(signature)),
        })
    }

    /// The Web Bot Auth headers for one request, labelled [`SIGNATURE_LABEL`].
    pub fn sign_web_bot_auth(
        &self,
        request: &WebBotAuthRequest<'_>,
    ) -> Result<WebBotAuthHeaders, SigningError> {
        self.sign_web_bot_auth_as(request, SIGNATURE_LABEL, SIGNATURE_LABEL)
    }

    /// As [`Self::sign_web_bot_auth`], with the signature label and the `Signature-Agent`
    /// member key chosen (the published test vectors use differing ones).
    fn sign_web_bot_auth_as(
        &self,
        request: &WebBotAuthRequest<'_>,
        label: &str,
        agent_key: &str,
    ) -> Result<WebBotAuthHeaders, SigningError> {
        let authority = authority(request.target)?;
        let agent = sf_string(request.signature_agent);
        let components = [
            (ComponentId::new("@authority"), authority.as_str()),
            (
                ComponentId::member("signature-agent", agent_key),
                agent.as_str(),
            ),
        ];
        let params = SignatureParams::web_bot_auth(
            &self.keyid(),
            request.created,
            request.expires,
            request.nonce,
        );
        let signed = self.sign_message(label, &components, &params)?;
        Ok(WebBotAuthHeaders {
            signature_agent: format!("{agent_key}={agent}"),
            signature_input: signed.signature_input,
            signature: signed.signature,
        })
    }
}

impl std::fmt::Debug for BotKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BotKey")
            .field("keyid", &self.keyid())
            .finish_non_exhaustive()
    }
}

/// A Structured Field string (RFC 8941 §3.3.3): quoted, with `\` and `"` escaped. Callers pass
/// printable ASCII (URLs, base64, tokens).
fn sf_string(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed(d: &str) -> [u8; 32] {
        let bytes = URL_SAFE_NO_PAD.decode(d).expect("test seed is base64url");
        bytes.try_into().expect("test seed is 32 bytes")
    }

    /// RFC 9421 Appendix B.1.4, `test-key-ed25519`: the JWK `d`.
    const RFC9421_ED25519_D: &str = "n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU";
    /// Its public key, the JWK `x`.
    const RFC9421_ED25519_X: &str = "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs";

    #[test]
    fn rfc9421_b26_ed25519_base_and_signature_byte_for_byte() {
        let components = [
            (ComponentId::new("date"), "Tue, 20 Apr 2021 02:07:55 GMT"),
            (ComponentId::new("@method"), "POST"),
            (ComponentId::new("@path"), "/foo"),
            (ComponentId::new("@authority"), "example.com"),
            (ComponentId::new("Content-Type"), "application/json"),
            (ComponentId::new("content-length"), "18"),
        ];
        let params = SignatureParams {
            created: 1_618_884_473,
            keyid: "test-key-ed25519".to_owned(),
            alg: None,
            expires: None,
            nonce: None,
            tag: None,
        };
        let expected_base = concat!(
            "\"date\": Tue, 20 Apr 2021 02:07:55 GMT\n",
            "\"@method\": POST\n",
            "\"@path\": /foo\n",
            "\"@authority\": example.com\n",
            "\"content-type\": application/json\n",
            "\"content-length\": 18\n",
            "\"@signature-params\": (\"date\" \"@method\" \"@path\" \"@authority\" ",
            "\"content-type\" \"content-length\");created=1618884473;keyid=\"test-key-ed25519\"",
        );
        assert_eq!(signature_base(&components, &params).unwrap(), expected_base);

        let key = BotKey::from_seed(&seed(RFC9421_ED25519_D));
        assert_eq!(URL_SAFE_NO_PAD.encode(key.public_key()), RFC9421_ED25519_X);
        let signed = key.sign_message("sig-b26", &components, &params).unwrap();
        assert_eq!(
            signed.signature_input,
            "sig-b26=(\"date\" \"@method\" \"@path\" \"@authority\" \"content-type\" \
             \"content-length\");created=1618884473;keyid=\"test-key-ed25519\""
        );
        assert_eq!(
            signed.signature,
            "sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vu\
             Qv5lIp5WPpBKRCw==:"
        );
    }

    #[test]
    fn rfc8037_a3_ed25519_thumbprint() {
        // RFC 8037 Appendix A.1 (private key), A.3 (its thumbprint).
        let key = BotKey::from_seed(&seed("nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"));
        assert_eq!(
            URL_SAFE_NO_PAD.encode(key.public_key()),
            "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
        );
        assert_eq!(key.keyid(), "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k");
    }

    #[test]
    fn rfc9421_test_key_thumbprint_is_the_web_bot_auth_keyid() {
        // The keyid the Web Bot Auth test vectors give the RFC 9421 Ed25519 test key.
        let key = BotKey::from_seed(&seed(RFC9421_ED25519_D));
        assert_eq!(key.keyid(), "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U");
    }

    /// The Ed25519 vectors of cloudflare/web-bot-auth `web_bot_auth_architecture_v2.json`
    /// (from the http-message-signatures-directory drafts): target
    /// `https://example.com/path/to/resource`, created 1735689600, expires 4889289600.
    const VECTOR_CREATED: i64 = 1_735_689_600;
    const VECTOR_EXPIRES: i64 = 4_889_289_600;

    #[test]
    fn web_bot_auth_vector_authority_only() {
        let key = BotKey::from_seed(&seed(RFC9421_ED25519_D));
        let target = Url::parse("https://example.com/path/to/resource").unwrap();
        let nonce = "zIW8+cdmA3vdYagbxojpONwa/l0EKJ/O3/wD486VvsQjO/RxPaSt6ZxvQaMcQzNnqKN/mQ6hpGiFro2L2qkz5A==";
        let authority = authority(&target).unwrap();
        let components = [(ComponentId::new("@authority"), authority.as_str())];
        let params = SignatureParams::web_bot_auth(
            &key.keyid(),
            VECTOR_CREATED,
            VECTOR_EXPIRES,
            Some(nonce),
        );
        let signed = key.sign_message("sig1", &components, &params).unwrap();
        assert_eq!(
            signed.signature_input,
            format!(
                "sig1=(\"@authority\");created=1735689600;\
                 keyid=\"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U\";alg=\"ed25519\";\
                 expires=4889289600;nonce=\"{nonce}\";tag=\"web-bot-auth\""
            )
        );
        assert_eq!(
            signed.signature,
            "sig1=:QKN4fTdIYfh82fvoZCQiQA1weuozfCS/Led2zTMbewMMqH8PI2Wsy/5c4ao6B6D09nraNQdBNOADg8aM1MqfCg==:"
        );
    }

    #[test]
    fn web_bot_auth_vector_with_signature_agent_member() {
        let key = BotKey::from_seed(&seed(RFC9421_ED25519_D));
        let target = Url::parse("https://example.com/path/to/resource").unwrap();
        let nonce = "n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA==";
        let request = WebBotAuthRequest {
            target: &target,
            signature_agent: "https://signature-agent.test",
            created: VECTOR_CREATED,
            expires: VECTOR_EXPIRES,
            nonce: Some(nonce),
        };
        let headers = key
            .sign_web_bot_auth_as(&request, "sig2", "agent2")
            .unwrap();
        assert_eq!(
            headers.signature_agent,
            "agent2=\"https://signature-agent.test\""
        );
        assert_eq!(
            headers.signature_input,
            format!(
                "sig2=(\"@authority\" \"signature-agent\";key=\"agent2\");created=1735689600;\
                 keyid=\"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U\";alg=\"ed25519\";\
                 expires=4889289600;nonce=\"{nonce}\";tag=\"web-bot-auth\""
            )
        );
        assert_eq!(
            headers.signature,
            "sig2=:RdNFx5Bj6au3YgAMQL/RzmUlZE8QZLIaXGRpw985hWnwPfMxT228NMk6ehRS1PSl4e8PhbNZACSanGdhEwYCCg==:"
        );
    }

    fn web_bot_auth_base(target: &str) -> String {
        let target = Url::parse(target).unwrap();
        let authority = authority(&target).unwrap();
        let components = [
            (ComponentId::new("@authority"), authority.as_str()),
            (
                ComponentId::member("signature-agent", "sig1"),
                "\"https://tidings.example\"",
            ),
        ];
        let params = SignatureParams::web_bot_auth("kid", 100, 400, None);
        signature_base(&components, &params).unwrap()
    }

    #[test]
    fn authority_carries_the_port_only_when_not_the_default() {
        let params_line = "\"@signature-params\": (\"@authority\" \"signature-agent\";key=\"sig1\");\
                           created=100;keyid=\"kid\";alg=\"ed25519\";expires=400;tag=\"web-bot-auth\"";
        assert_eq!(
            web_bot_auth_base("https://example.com:8443/feed"),
            format!(
                "\"@authority\": example.com:8443\n\
                 \"signature-agent\";key=\"sig1\": \"https://tidings.example\"\n{params_line}"
            )
        );
        assert_eq!(
            web_bot_auth_base("https://example.com/feed"),
            format!(
                "\"@authority\": example.com\n\
                 \"signature-agent\";key=\"sig1\": \"https://tidings.example\"\n{params_line}"
            )
        );
        // An explicit default port, an upper-case host, plain http on its default port.
        let cases = [
            ("https://Example.COM:443/feed", "example.com"),
            ("http://example.com:80/feed", "example.com"),
            ("http://example.com:8080/feed", "example.com:8080"),
            ("https://[::1]:8443/feed", "[::1]:8443"),
        ];
        for (url, expected) in cases {
            assert_eq!(
                authority(&Url::parse(url).unwrap()).unwrap(),
                expected,
                "{url}"
            );
        }
    }

    #[test]
    fn sign_web_bot_auth_uses_the_label_as_agent_key_and_the_thumbprint_as_keyid() {
        let key = BotKey::from_seed(&[7; 32]);
        let target = Url::parse("https://example.com:8443/feed").unwrap();
        let request = WebBotAuthRequest {
            target: &target,
            signature_agent: "https://tidings.example",
            created: 100,
            expires: 400,
            nonce: None,
        };
        let headers = key.sign_web_bot_auth(&request).unwrap();
        assert_eq!(headers.signature_agent, "sig1=\"https://tidings.example\"");
        assert_eq!(
            headers.signature_input,
            format!(
                "sig1=(\"@authority\" \"signature-agent\";key=\"sig1\");created=100;keyid=\"{}\";\
                 alg=\"ed25519\";expires=400;tag=\"web-bot-auth\"",
                key.keyid()
            )
        );
        // The signature verifies over the base the RFC defines, and not over another authority.
        let sig = headers
            .signature
            .strip_prefix("sig1=:")
            .and_then(|s| s.strip_suffix(':'));
        let sig = STANDARD.decode(sig.expect("sig1=:…: form")).unwrap();
        let sig = ed25519_dalek::Signature::from_slice(&sig).unwrap();
        let verifying = key.0.verifying_key();
        let base = |authority: &str| {
            let components = [
                (ComponentId::new("@authority"), authority),
                (
                    ComponentId::member("signature-agent", "sig1"),
                    "\"https://tidings.example\"",
                ),
            ];
            let params = SignatureParams::web_bot_auth(&key.keyid(), 100, 400, None);
            signature_base(&components, &params).unwrap()
        };
        assert!(
            verifying
                .verify_strict(base("example.com:8443").as_bytes(), &sig)
                .is_ok()
        );
        assert!(
            verifying
                .verify_strict(base("example.com").as_bytes(), &sig)
                .is_err()
        );
    }

    #[test]
    fn a_request_component_in_a_response_carries_the_req_flag() {
        let components = [
            (ComponentId::of_request("@authority"), "bot.example"),
            (ComponentId::new("Content-Digest"), "sha-256=:AAAA:"),
        ];
        let params = SignatureParams {
            tag: Some("http-message-signatures-directory".to_owned()),
            ..SignatureParams::web_bot_auth("kid", 1, 2, None)
        };
        assert_eq!(
            signature_base(&components, &params).unwrap(),
            "\"@authority\";req: bot.example\n\"content-digest\": sha-256=:AAAA:\n\
             \"@signature-params\": (\"@authority\";req \"content-digest\");created=1;\
             keyid=\"kid\";alg=\"ed25519\";expires=2;tag=\"http-message-signatures-directory\""
        );
    }

    #[test]
    fn line_break_in_a_value_is_refused() {
        let components = [(
            ComponentId::new("signature-agent"),
            "\"a\"\n\"@method\": GET",
        )];
        let params = SignatureParams::web_bot_auth("kid", 1, 2, None);
        assert_eq!(
            signature_base(&components, &params),
            Err(SigningError::LineBreak {
                component: "signature-agent".to_owned()
            })
        );
    }

    #[test]
    fn sf_strings_escape_quote_and_backslash() {
        assert_eq!(sf_string(r#"a"b\c"#), r#""a\"b\\c""#);
    }

    #[test]
    fn debug_shows_the_keyid_not_the_secret() {
        let key = BotKey::from_seed(&seed(RFC9421_ED25519_D));
        assert_eq!(
            format!("{key:?}"),
            "BotKey { keyid: \"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U\", .. }"
        );
    }
}
