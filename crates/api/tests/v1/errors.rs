//! Invalid input is a 400 problem naming the parameter, never a 500; unknown paths and wrong
//! methods are problems too.

use crate::support::Server;

#[tokio::test]
async fn a_non_numeric_feed_id_is_a_400() {
    let server = Server::start().await;
    for path in [
        "/v1/feeds/abc",
        "/v1/feeds/0",
        "/v1/feeds/-1",
        "/v1/feeds/1.5",
    ] {
        let problem = server.problem(path, 400, "invalid-parameter").await;
        assert_eq!(problem["parameter"], "id", "{path}");
        assert!(
            problem["detail"]
                .as_str()
                .is_some_and(|d| d.contains("positive whole number")),
            "{problem}"
        );
    }
    let problem = server
        .problem("/v1/feeds/%FF", 400, "invalid-parameter")
        .await;
    assert_eq!(
        problem["parameter"], "path",
        "not UTF-8: axum's rejection, as a problem"
    );
    let answer = server.get("/v1/entries?q=%FF%FE").await;
    assert_eq!(
        answer.status, 200,
        "a search that is not UTF-8 is still just words"
    );
}

#[tokio::test]
async fn limits_out_of_bounds_are_400s() {
    let server = Server::start().await;
    for limit in ["0", "501", "-5", "many", "", "1e3"] {
        let path = format!("/v1/entries?limit={limit}");
        let problem = server.problem(&path, 400, "invalid-parameter").await;
        assert_eq!(problem["parameter"], "limit", "{path}");
        assert!(
            problem["detail"]
                .as_str()
                .is_some_and(|d| d.contains("1 to 500")),
            "{problem}"
        );
    }
    for limit in ["1", "500"] {
        let answer = server.get(&format!("/v1/entries?limit={limit}")).await;
        assert_eq!(answer.status, 200, "limit={limit}");
    }
}

#[tokio::test]
async fn a_bad_cursor_is_a_400() {
    let server = Server::start().await;
    for cursor in ["nonsense", "00", "01", "%FF%FE", "01ffffffffffffffff"] {
        let path = format!("/v1/entries?cursor={cursor}");
        let problem = server.problem(&path, 400, "invalid-parameter").await;
        assert_eq!(problem["parameter"], "cursor", "{path}");
    }
}

#[tokio::test]
async fn bad_filters_are_400s() {
    let server = Server::start().await;
    for (query, parameter) in [
        ("feed=abc", "feed"),
        ("feed=0", "feed"),
        ("since=yesterday", "since"),
        ("until=2026-13-01", "until"),
        ("limit=5&limit=6", "query"),
    ] {
        let path = format!("/v1/entries?{query}");
        let problem = server.problem(&path, 400, "invalid-parameter").await;
        assert_eq!(problem["parameter"], parameter, "{path}");
    }
}

#[tokio::test]
async fn unknown_paths_and_methods_are_problems() {
    let server = Server::start().await;
    for path in ["/v1", "/v1/nothing", "/v1/feeds/1/entries", "/v1/feeds/"] {
        server.problem(path, 404, "not-found").await;
    }
    let answer = server.request("DELETE", "/v1/feeds").await;
    assert_eq!(answer.status, 405);
    assert_eq!(answer.content_type, "application/problem+json");
    assert_eq!(
        answer.json["type"],
        "https://tidings.example/problems/method-not-allowed"
    );
}
