//! The OpenAPI document at `/openapi.json` against the code: it is served and parses, it lists
//! every route under `/v1` and each answers, the bounds it states are the ones the handlers
//! apply, and real answers of a seeded server validate against its schemas.

#[allow(dead_code)]
#[path = "v1/support.rs"]
mod support;

use serde_json::{Value, json};
use support::{Server, dated, header, send, t};
use tidings_api::auth::{AuthConfig, RateLimit, Role, issue};
use tidings_model::{Author, Enclosure};

/// The served document.
async fn document(server: &Server) -> Value {
    let answer = server.get("/openapi.json").await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.content_type, "application/json");
    answer.json
}

/// A validator for `schema`, a part of `doc`: its `$ref`s resolve against the document's
/// components; formats (`date-time`, `date`, ...) are checked too.
fn validator(doc: &Value, schema: &Value) -> jsonschema::Validator {
    let mut root = schema.clone();
    root["components"] = doc["components"].clone();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&root)
        .unwrap_or_else(|e| panic!("schema does not compile ({e}): {schema}"))
}

/// One answer as sent: method, path template in the document, status, head, body.
struct Sent<'a> {
    method: &'a str,
    template: &'a str,
    status: u16,
    head: String,
    body: Vec<u8>,
}

/// `answer` is one of its operation's documented responses: its status is listed, its content
/// type is the one listed, a JSON body validates against the listed schema, and the listed
/// headers are sent. Returns the JSON body (`Null` for none or not JSON).
fn check(doc: &Value, answer: &Sent) -> Value {
    let Sent {
        method,
        template,
        status,
        ..
    } = *answer;
    let what = format!("{method} {template} → {status}");
    let operation = &doc["paths"][template][method.to_ascii_lowercase()];
    assert!(
        operation.is_object(),
        "{what}: no such operation documented"
    );
    let response = &operation["responses"][status.to_string()];
    assert!(
        response.is_object(),
        "{what}: status not documented: {}",
        String::from_utf8_lossy(&answer.body)
    );
    let content_type = header(&answer.head, "content-type").unwrap_or_default();
    let media_type = content_type.split(';').next().unwrap_or("").trim();
    let Some(contents) = response["content"].as_object() else {
        assert!(
            answer.body.is_empty(),
            "{what}: a body where none is documented"
        );
        return Value::Null;
    };
    let content = contents
        .get(media_type)
        .unwrap_or_else(|| panic!("{what}: {content_type:?} not documented: {contents:?}"));
    for name in response["headers"].as_object().into_iter().flatten() {
        assert!(
            header(&answer.head, name.0).is_some(),
            "{what}: documented header {} missing",
            name.0
        );
    }
    if !media_type.ends_with("json") {
        return Value::Null;
    }
    let body: Value = serde_json::from_slice(&answer.body)
        .unwrap_or_else(|e| panic!("{what}: body is not JSON ({e})"));
    let validator = validator(doc, &content["schema"]);
    let errors: Vec<String> = validator
        .iter_errors(&body)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}\n{body:#}");
    body
}

/// Send `method path` (with `token` as the key and a JSON `body`) and check the answer against
/// the document's `template` operation.
async fn call(
    server: &Server,
    doc: &Value,
    (method, template, path): (&str, &str, &str),
    token: Option<&str>,
    body: Option<&str>,
) -> (u16, Value) {
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    let (status, head, bytes) = send(server.addr, method, path, &auth, body).await;
    let json = check(
        doc,
        &Sent {
            method,
            template,
            status,
            head,
            body: bytes,
        },
    );
    (status, json)
}

/// An admin key's token, stored in the server's store.
async fn admin_key(server: &Server) -> String {
    let (token, key) = issue(None, Role::Admin, t(0)).expect("issue a key");
    server.store.create_key(&key).await.expect("store the key");
    token
}

#[tokio::test]
async fn the_document_is_served_as_openapi_3_1_and_is_the_codes() {
    let server = Server::start().await;
    let served = document(&server).await;
    assert_eq!(served["openapi"], "3.1.0");
    let parsed: utoipa::openapi::OpenApi =
        serde_json::from_value(served.clone()).expect("the document parses as OpenAPI");
    assert_eq!(
        serde_json::to_value(&parsed).unwrap(),
        serde_json::to_value(tidings_api::openapi::document()).unwrap()
    );
    let bearer = &served["components"]["securitySchemes"]["bearer"];
    assert_eq!(bearer["type"], "http");
    assert_eq!(bearer["scheme"], "bearer");
    // Every error answer of every operation is a problem document; operation ids are unique.
    let mut ids = std::collections::BTreeSet::new();
    for (path, item) in served["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let id = operation["operationId"].as_str().unwrap().to_owned();
            assert!(ids.insert(id), "{method} {path}: operationId used twice");
            for (status, response) in operation["responses"].as_object().unwrap() {
                if status.starts_with('4') || status.starts_with('5') {
                    let schema = &response["content"]["application/problem+json"]["schema"];
                    assert_eq!(
                        schema["$ref"], "#/components/schemas/Problem",
                        "{method} {path} {status}"
                    );
                }
            }
            assert!(
                operation["security"].is_array() || path == "/healthz",
                "{method} {path}"
            );
        }
    }
}

/// Paths routed without documentation, on purpose: the problem for a path that names nothing.
const UNDOCUMENTED: &[&str] = &["/v1", "/v1/{*rest}"];

/// Every `.route(` in the crate's source names a literal path (or `PATH`, `/openapi.json`, or
/// `DIRECTORY_PATH`, the key directory's well-known path), and
/// none under `/v1` but [`UNDOCUMENTED`]: a `/v1` route is added only through `routes!`, which
/// takes its path from the handler's `#[utoipa::path]`.
#[test]
fn no_route_under_v1_bypasses_the_document() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src];
    let mut seen = 0;
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for call in [".route(", ".route_service(", ".nest("] {
            for (at, _) in text.match_indices(call) {
                let rest = text[at + call.len()..].trim_start();
                let name = path.display();
                if rest.starts_with("PATH,") && name.to_string().ends_with("openapi.rs") {
                    continue;
                }
                // The key directory's well-known path, shared with the signer's crate.
                if rest.starts_with("DIRECTORY_PATH,") && name.to_string().ends_with("keydir.rs") {
                    assert!(!tidings_fetch::botkeys::DIRECTORY_PATH.starts_with("/v1"));
                    seen += 1;
                    continue;
                }
                let literal = rest
                    .strip_prefix('"')
                    .and_then(|r| r.split('"').next())
                    .unwrap_or_else(|| panic!("{name}: {call} without a literal path"));
                seen += 1;
                if literal.starts_with("/v1") || literal == "/healthz" {
                    assert!(
                        UNDOCUMENTED.contains(&literal),
                        "{name}: {literal} is routed with {call}: route it with \
                         utoipa_axum::routes! and a #[utoipa::path] so it is documented"
                    );
                }
            }
        }
    }
    assert!(
        seen >= UNDOCUMENTED.len(),
        "the scan found no routes at all"
    );
}

/// A value for each path parameter, to call every documented operation.
fn sample(parameter: &str) -> &'static str {
    match parameter {
        "id" => "1",
        "name" => "example.org",
        other => panic!("add a sample value for path parameter {{{other}}} here"),
    }
}

/// Every documented operation is routed: called without a key on an empty store it answers
/// with one of its documented statuses, never the problem for an unknown path nor a 405.
#[tokio::test]
async fn every_documented_operation_is_routed_and_answers_as_documented() {
    let server = Server::start().await;
    let doc = document(&server).await;
    let mut operations = 0;
    for (template, item) in doc["paths"].as_object().unwrap() {
        let mut path = template.clone();
        while let Some(open) = path.find('{') {
            let close = open + path[open..].find('}').unwrap();
            path = format!(
                "{}{}{}",
                &path[..open],
                sample(&path[open + 1..close]),
                &path[close + 1..]
            );
        }
        for method in item.as_object().unwrap().keys() {
            let method = method.to_ascii_uppercase();
            let body = (method == "POST").then_some("{}");
            let (status, json) = call(&server, &doc, (&method, template, &path), None, body).await;
            assert_ne!(status, 405, "{method} {path}");
            assert_ne!(json["detail"], "no such resource", "{method} {path}");
            operations += 1;
        }
    }
    assert!(operations >= 10, "only {operations} operations documented");
}

/// A store with two feeds, entries with every field, a key; the server's answers to each kind
/// of request validate against the document.
#[tokio::test]
async fn real_answers_validate_against_their_schemas() {
    let server = Server::start().await;
    let doc = document(&server).await;
    let token = admin_key(&server).await;
    let a = server
        .subscribe("https://example.org/feed.xml", "alice")
        .await;
    let b = server
        .subscribe("https://example.net/feed.xml", "bob")
        .await;
    let mut rich = dated("rich", t(60));
    rich.content = Some("<p>content</p>".to_owned());
    rich.categories = vec!["news".to_owned()];
    rich.authors = vec![Author {
        name: Some("Ann".to_owned()),
        email: Some("ann@example.org".to_owned()),
        uri: None,
    }];
    rich.enclosures = vec![Enclosure {
        url: "https://example.org/a.mp3".to_owned(),
        media_type: Some("audio/mpeg".to_owned()),
        length: Some(1234),
    }];
    let mut bare = dated("bare", t(30));
    bare.published = None;
    bare.summary = None;
    server.read(a, t(100), vec![rich, bare]).await;
    server.read(b, t(200), vec![dated("other", t(150))]).await;
    let key = Some(token.as_str());

    let get = |template: &'static str, path: String| (template, path);
    let cases = [
        get("/v1/feeds", "/v1/feeds".into()),
        get("/v1/feeds/{id}", format!("/v1/feeds/{a}")),
        get("/v1/feeds/{id}", "/v1/feeds/999".into()),
        get("/v1/feeds/{id}", "/v1/feeds/abc".into()),
        get("/v1/entries", "/v1/entries".into()),
        get("/v1/entries", format!("/v1/entries?feed={a}&q=content")),
        get("/v1/entries", "/v1/entries?limit=0".into()),
        get("/v1/entries", "/v1/entries?since=yesterday".into()),
        get("/v1/log", "/v1/log?host=example.org".into()),
        get("/v1/log", "/v1/log?feed=x".into()),
        get("/v1/hosts/{name}", "/v1/hosts/example.org".into()),
        get("/v1/hosts/{name}", "/v1/hosts/a_b".into()),
        get(
            "/v1/feeds/{id}/feed.json",
            format!("/v1/feeds/{a}/feed.json"),
        ),
        get("/v1/feeds/{id}/atom", format!("/v1/feeds/{a}/atom")),
        get("/v1/entries/feed.json", "/v1/entries/feed.json".into()),
        get("/v1/entries/atom", "/v1/entries/atom?limit=501".into()),
        get("/healthz", "/healthz".into()),
    ];
    let mut statuses = Vec::new();
    for (template, path) in &cases {
        let (status, _) = call(&server, &doc, ("GET", template, path), key, None).await;
        statuses.push(status);
    }
    assert_eq!(
        statuses,
        [
            200, 200, 404, 400, 200, 200, 400, 400, 200, 400, 200, 400, 200, 200, 200, 400, 200
        ]
    );

    // A page with a next cursor, and the page it leads to.
    let (_, page) = call(
        &server,
        &doc,
        ("GET", "/v1/entries", "/v1/entries?limit=2"),
        None,
        None,
    )
    .await;
    let cursor = page["next_cursor"].as_str().expect("a next page");
    let (status, _) = call(
        &server,
        &doc,
        (
            "GET",
            "/v1/entries",
            &format!("/v1/entries?cursor={cursor}"),
        ),
        None,
        None,
    )
    .await;
    assert_eq!(status, 200);

    // Writes: a subscription, a refusal, a bad body, no key, an unsubscription.
    let feeds = ("POST", "/v1/feeds", "/v1/feeds");
    let url = r#"{"url": "https://example.com/feed.xml"}"#;
    let (status, created) = call(&server, &doc, feeds, key, Some(url)).await;
    assert_eq!(status, 201);
    let (status, _) = call(&server, &doc, feeds, key, Some(r#"{"url": "ftp://x"}"#)).await;
    assert_eq!(status, 400);
    let (status, _) = call(&server, &doc, feeds, key, Some("[1]")).await;
    assert_eq!(status, 400);
    let (status, _) = call(&server, &doc, feeds, None, Some(url)).await;
    assert_eq!(status, 401);
    let (status, _) = call(&server, &doc, feeds, Some("tdg_unknown"), Some(url)).await;
    assert_eq!(status, 401);
    let delete = format!("/v1/feeds/{}", created["id"]);
    let (status, _) = call(
        &server,
        &doc,
        ("DELETE", "/v1/feeds/{id}", &delete),
        key,
        None,
    )
    .await;
    assert_eq!(status, 204);

    // An account's reading, with a key of the account; an operator's key is refused.
    let ana = server
        .store
        .add_account(&tidings_store::NewAccount {
            name: "ana".into(),
            role: tidings_store::AccountRole::Admin,
            password_hash: "$argon2id$x".into(),
            created_at: t(0),
        })
        .await
        .unwrap()
        .unwrap();
    let (ana_token, mut ana_key) =
        tidings_api::auth::issue(None, tidings_api::auth::Role::Admin, t(0)).unwrap();
    ana_key.account_id = Some(ana.id);
    server.store.create_key(&ana_key).await.unwrap();
    let ana_key = Some(ana_token.as_str());
    let (status, subscribed) = call(&server, &doc, feeds, ana_key, Some(url)).await;
    assert_eq!(status, 201);
    let fed = subscribed["id"].as_i64().unwrap();
    server
        .read(
            tidings_model::FeedId(fed),
            t(300),
            vec![dated("mine", t(250))],
        )
        .await;
    let patch = format!("/v1/subscriptions/{fed}");
    // (method, template, path, key, body, status)
    type Case<'a> = (
        &'a str,
        &'a str,
        &'a str,
        Option<&'a str>,
        Option<&'a str>,
        u16,
    );
    let reading: [Case; 8] = [
        (
            "GET",
            "/v1/subscriptions",
            "/v1/subscriptions",
            ana_key,
            None,
            200,
        ),
        (
            "GET",
            "/v1/subscriptions",
            "/v1/subscriptions",
            key,
            None,
            403,
        ),
        (
            "GET",
            "/v1/reading",
            "/v1/reading?status=unread",
            ana_key,
            None,
            200,
        ),
        (
            "GET",
            "/v1/reading",
            "/v1/reading?limit=x",
            ana_key,
            None,
            400,
        ),
        (
            "PATCH",
            "/v1/subscriptions/{id}",
            &patch,
            ana_key,
            Some(r#"{"folder": "News"}"#),
            200,
        ),
        (
            "POST",
            "/v1/reading/marks",
            "/v1/reading/marks",
            ana_key,
            Some(r#"{"entry_ids": [1], "starred": true}"#),
            200,
        ),
        (
            "POST",
            "/v1/reading/mark-all-read",
            "/v1/reading/mark-all-read",
            ana_key,
            Some("{}"),
            200,
        ),
        (
            "POST",
            "/v1/reading/mark-all-read",
            "/v1/reading/mark-all-read",
            None,
            Some("{}"),
            401,
        ),
    ];
    for (method, template, path, who, body, want) in reading {
        let (status, answer) = call(&server, &doc, (method, template, path), who, body).await;
        assert_eq!(status, want, "{method} {path}: {answer}");
    }
}

/// The schemas are not vacuous: answers that break them are refused.
#[tokio::test]
async fn the_schemas_refuse_what_breaks_them() {
    let server = Server::start().await;
    let doc = document(&server).await;
    let schema = |name: &str| json!({"$ref": format!("#/components/schemas/{name}")});
    let problem = validator(&doc, &schema("Problem"));
    let good = json!({"type": "https://tidings.example/problems/not-found", "title": "Not found",
        "status": 404, "detail": "no feed with id 7"});
    assert!(problem.is_valid(&good));
    for bad in [
        json!({"type": "https://tidings.example/problems/x", "title": "X", "status": 200, "detail": "d"}),
        json!({"title": "X", "status": 404, "detail": "d"}),
    ] {
        assert!(!problem.is_valid(&bad), "{bad}");
    }
    let page = validator(&doc, &schema("EntryPage"));
    assert!(page.is_valid(&json!({"entries": [], "next_cursor": null})));
    assert!(!page.is_valid(&json!({"entries": [{"id": "x"}], "next_cursor": null})));
    let feed = validator(&doc, &schema("Feed"));
    assert!(!feed.is_valid(&json!({"id": 1})));
}

/// What the document says a parameter takes is what the handler takes: a value is valid by the
/// parameter's schema exactly when the server does not answer 400.
#[tokio::test]
async fn parameter_bounds_are_the_handlers() {
    // Room for every request of the table under one key.
    let server = Server::with_auth(AuthConfig {
        rate: RateLimit {
            burst: 1000,
            ..RateLimit::default()
        },
        ..support::public()
    })
    .await;
    let doc = document(&server).await;
    let token = admin_key(&server).await;
    let long = "a".repeat(301);
    let rows: &[(&str, &str, &str, &[&str])] = &[
        (
            "/v1/entries",
            "limit",
            "/v1/entries?limit=",
            &["1", "50", "500", "0", "501", "-1", "1.5", "ten"],
        ),
        (
            "/v1/entries",
            "feed",
            "/v1/entries?feed=",
            &["1", "99", "0", "-3", "x"],
        ),
        (
            "/v1/entries",
            "since",
            "/v1/entries?since=",
            &[
                "2026-11-30",
                "2026-11-30T12:00:00Z",
                "2026-11-30T12:00:00%2B01:00",
                "yesterday",
                "2026-13-01",
                "24h",
            ],
        ),
        (
            "/v1/entries",
            "cursor",
            "/v1/entries?cursor=",
            &[
                "0100000000000000000000000000000001",
                "01FFFFFFFFFFFFFFFF7FFFFFFFFFFFFFFF",
                "0200000000000000000000000000000001",
                "0100000000000000000000000000000000",
                "0100000000000000008000000000000001",
                "01000000000000000000000000000001",
                "zz",
            ],
        ),
        (
            "/v1/log",
            "host",
            "/v1/log?host=",
            &[
                "example.org",
                "EXAMPLE.org.",
                "https://example.org:443",
                "[::1]",
                "-",
                "...",
                "a_b",
                "a%3Cb",
                &long,
            ],
        ),
        (
            "/v1/hosts/{name}",
            "name",
            "/v1/hosts/",
            &["example.org", "a-b.example", "...", "a_b", "a%3Cb", &long],
        ),
        (
            "/v1/feeds/{id}/atom",
            "limit",
            "/v1/feeds/1/atom?limit=",
            &["1", "500", "0", "501"],
        ),
    ];
    for (template, name, prefix, values) in rows {
        let operation = &doc["paths"][template]["get"];
        let parameter = operation["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == *name)
            .unwrap_or_else(|| panic!("{template}: no parameter {name}"));
        let validator = validator(&doc, &parameter["schema"]);
        for value in *values {
            let path = format!("{prefix}{value}");
            let auth = format!("Authorization: Bearer {token}\r\n");
            let (status, _, _) = send(server.addr, "GET", &path, &auth, None).await;
            // As a client would send it: a number where the schema says integer.
            let decoded = value.replace("%3C", "<").replace("%2B", "+");
            let typed = serde_json::from_str::<Value>(&decoded)
                .ok()
                .filter(Value::is_number)
                .unwrap_or(Value::String(decoded));
            assert_eq!(
                validator.is_valid(&typed),
                status != 400,
                "{path}: schema {} but the server answered {status}",
                parameter["schema"]
            );
        }
    }
    // The body of POST /v1/feeds: a URL matching the pattern is subscribed to.
    let body = validator(&doc, &json!({"$ref": "#/components/schemas/Subscribe"}));
    for url in [
        "https://example.org/feed.xml",
        "HTTP://a-b.example:8080/x?y=1#z",
        "http://localhost",
        "",
        "ftp://example.org/",
        "http://user@example.org/",
        "http://1.2.3.256/",
        "HTTP://A*",
        "http://a!b.example/",
    ] {
        let request = json!({ "url": url }).to_string();
        let auth = format!("Authorization: Bearer {token}\r\n");
        let (status, _, _) = send(server.addr, "POST", "/v1/feeds", &auth, Some(&request)).await;
        assert_eq!(
            body.is_valid(&json!({ "url": url })),
            status == 201,
            "{url}: the server answered {status}"
        );
    }
    let limit = doc["paths"]["/v1/entries"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "limit")
        .unwrap()["schema"]
        .clone();
    assert_eq!(limit["maximum"], tidings_api::v1::MAX_LIMIT);
    assert_eq!(limit["default"], tidings_api::v1::DEFAULT_LIMIT);
}
