//! RFC 9309 section 2.3.1 and the profiles' choices: what a robots.txt fetch means.

use tidings_robots::{
    FailurePolicy, OnFailure, ProductToken, Robots, RobotsFetch, RobotsStatus, interpret,
};

/// SR10: 5xx counts as permission.
const SERENE: FailurePolicy = FailurePolicy {
    server_error: OnFailure::Allow,
    unreachable: OnFailure::Allow,
    access_denied: OnFailure::Allow,
};
/// DFB8: 5xx, stay away.
const DAILY_FOOTBALL: FailurePolicy = FailurePolicy {
    server_error: OnFailure::Disallow,
    unreachable: OnFailure::Disallow,
    access_denied: OnFailure::Allow,
};
/// FF11: access failures, 5xx and timeouts defer.
const FRIENDLY_FEEDS: FailurePolicy = FailurePolicy {
    server_error: OnFailure::Defer,
    unreachable: OnFailure::Defer,
    access_denied: OnFailure::Defer,
};

fn status(code: u16, body: &[u8], policy: FailurePolicy) -> RobotsStatus {
    interpret(RobotsFetch::from_status(code, body), policy)
}

#[test]
fn rfc9309_2_3_1_3_missing_file_allows_all() {
    for code in [400, 404, 410, 451] {
        for policy in [
            SERENE,
            DAILY_FOOTBALL,
            FRIENDLY_FEEDS,
            FailurePolicy::RFC_9309,
        ] {
            assert_eq!(status(code, b"", policy), RobotsStatus::AllowAll, "{code}");
        }
    }
}

#[test]
fn rfc9309_2_3_1_2_unfinished_redirects_allow_all() {
    assert_eq!(status(301, b"", DAILY_FOOTBALL), RobotsStatus::AllowAll);
}

#[test]
fn rfc9309_2_3_1_1_success_is_parsed() {
    let body = b"User-agent: *\nDisallow: /\n";
    assert_eq!(
        status(200, body, FRIENDLY_FEEDS),
        RobotsStatus::Rules(Robots::parse(body))
    );
    let RobotsStatus::Rules(robots) = status(203, body, SERENE) else {
        panic!("a 2xx body is the file");
    };
    let token = ProductToken::new("Bot").unwrap();
    assert!(!robots.check(&token, "/a").is_allowed());
}

#[test]
fn sr10_server_error_counts_as_permission() {
    for code in [500, 502, 503, 504] {
        assert_eq!(status(code, b"", SERENE), RobotsStatus::AllowAll, "{code}");
    }
}

#[test]
fn dfb8_server_error_stays_away() {
    for code in [500, 503, 429] {
        assert_eq!(
            status(code, b"", DAILY_FOOTBALL),
            RobotsStatus::DisallowAll,
            "{code}"
        );
    }
    assert_eq!(
        interpret(RobotsFetch::Unreachable, DAILY_FOOTBALL),
        RobotsStatus::DisallowAll
    );
}

#[test]
fn ff11_failures_and_timeouts_defer() {
    assert_eq!(status(503, b"", FRIENDLY_FEEDS), RobotsStatus::Defer);
    assert_eq!(
        interpret(RobotsFetch::Unreachable, FRIENDLY_FEEDS),
        RobotsStatus::Defer
    );
}

#[test]
fn rfc9309_2_3_1_4_unreachable_disallows_by_default() {
    assert_eq!(
        interpret(RobotsFetch::Unreachable, FailurePolicy::RFC_9309),
        RobotsStatus::DisallowAll
    );
    assert_eq!(
        status(500, b"", FailurePolicy::RFC_9309),
        RobotsStatus::DisallowAll
    );
}

/// FF11: access failures (401, 403) defer under FFBot; RFC 9309 and the other profiles read
/// them as an unavailable file, which allows everything.
#[test]
fn ff11_access_failures_follow_the_profiles_choice() {
    for code in [401, 403] {
        assert_eq!(
            RobotsFetch::from_status(code, b""),
            RobotsFetch::AccessDenied
        );
        assert_eq!(
            status(code, b"", FRIENDLY_FEEDS),
            RobotsStatus::Defer,
            "{code}"
        );
        assert_eq!(status(code, b"", SERENE), RobotsStatus::AllowAll, "{code}");
        assert_eq!(
            status(code, b"", FailurePolicy::RFC_9309),
            RobotsStatus::AllowAll,
            "{code}"
        );
    }
}

#[test]
fn too_many_requests_is_not_a_missing_file() {
    assert_eq!(RobotsFetch::from_status(429, b""), RobotsFetch::ServerError);
    assert_eq!(status(429, b"", FRIENDLY_FEEDS), RobotsStatus::Defer);
}

#[test]
fn failure_choices_are_separate() {
    let mixed = FailurePolicy {
        server_error: OnFailure::Allow,
        unreachable: OnFailure::Defer,
        access_denied: OnFailure::Disallow,
    };
    assert_eq!(status(500, b"", mixed), RobotsStatus::AllowAll);
    assert_eq!(
        interpret(RobotsFetch::Unreachable, mixed),
        RobotsStatus::Defer
    );
}

#[test]
fn odd_statuses_are_server_errors() {
    for code in [0, 100, 199, 600, 999] {
        assert_eq!(
            RobotsFetch::from_status(code, b""),
            RobotsFetch::ServerError,
            "{code}"
        );
    }
}
