//! The bot page: rendered from the profile (every embedded one, and changed ones), in three
//! languages, escaped, well formed, and served with strict headers.

use std::sync::Arc;
use tidings_api::bot::{Lang, render};
use tidings_api::{AppState, router};
use tidings_policy::Profile;
use tidings_policy::profile::{EMBEDDED, LongCrawlDelay, OnRobotsFailure, PauseCount};
use tidings_sim::client::Answer;

const VERSION: &str = "9.8.7";

fn embedded(name: &str) -> Profile {
    match Profile::embedded(name) {
        Ok(p) => p,
        Err(e) => panic!("embedded profile {name}: {e}"),
    }
}

/// The phrases (English) each embedded profile's page must show: its numbers in words.
#[test]
fn every_embedded_profile_page_names_its_user_agent_and_numbers() {
    let rows: &[(&str, &[&str])] = &[
        (
            "default",
            &[
                "Usual time between two reads of a feed: 1 hour.",
                "Shortest, whatever the feed or the server says: 15 minutes.",
                "Longest usual interval between two reads of an active feed: 1 day. A server’s \
                 Retry-After can make us wait longer (see below).",
                "at least: 1 second",
                "<strong>Any failure</strong>: the next read waits 15 minutes",
                "up to 1 day",
                "Retry-After of up to 90 days is honoured in full",
                "up to 1 minute",
                "A longer crawl-delay counts as 1 minute.",
                "If robots.txt answers 429 or 5xx, we read nothing from that host",
                "If robots.txt cannot be reached at all, we read nothing now and ask for \
                 robots.txt again after 15 minutes.",
                "otherwise the <code>User-agent: *</code> group",
                "for 7 days of successful reads",
                "up to 5 redirects",
                "Time allowed to connect: 10 seconds.",
                "headers and body: 30 seconds.",
                "10 MiB (10,485,760 bytes)",
                "up to 10%",
                "User-agent: tidings\nDisallow: /",
                "Contact: see <a href=\"https://tidings.example/bot\">",
                "A request that gets no answer is not tried again before its next scheduled read.",
                "never on a schedule for being listed.</li>",
            ],
        ),
        (
            "worldfeedmonitor",
            &[
                "Usual time between two reads of a feed: 15 minutes.",
                "allowing up to 2 times the usual time",
                "<strong>403 (forbidden), 429 (too many requests) or a bot challenge \
                 page</strong>: successive failures wait 15 minutes, 15 minutes, 1 hour, 1 \
                 hour, 6 hours, 6 hours and 1 day, and each further one 1 day.",
                "<strong>Other failures</strong>: the next read waits 15 minutes",
                "User-agent: WorldFeedMonitor\nDisallow: /",
            ],
        ),
        (
            "serenereader",
            &[
                "Usual time between two reads of a feed: 30 minutes.",
                "<strong>Any failure</strong>: successive failures wait 15 minutes,",
                "15 minutes, 30 minutes, 1 hour, 2 hours, 4 hours, 8 hours, 16 hours and 1 day",
                "Feed addresses follow only the group for <code>User-agent: SereneReader</code>",
                "If robots.txt answers 429 or 5xx, we read feeds as if there were no robots.txt.",
                "does not wait for it",
                "Rules under <code>User-agent: *</code> alone do not stop feed reads",
                "A feed of our catalogue (a list our operators keep for readers to browse): \
                 read once to check it before it is listed, and when a signed-in reader views \
                 it and we have nothing stored; never on a schedule for being listed. These \
                 reads, like the first read of a new subscription, do not wait for a \
                 crawl-delay.",
            ],
        ),
        (
            "dailyfootballbot",
            &[
                "Usual time between two reads of a feed: 10 minutes.",
                "Shortest, whatever the feed or the server says: 10 minutes.",
                "at least: 2 seconds",
                "10 minutes, 20 minutes, 40 minutes, 1 hour 20 minutes, 2 hours 40 minutes, 5 \
                 hours 20 minutes and 6 hours",
                "nor longer than 6 hours.",
                "User-agent: DailyFootballBot",
            ],
        ),
        (
            "ffbot",
            &[
                "If robots.txt answers 429 or 5xx, we read nothing now and ask for robots.txt \
                 again after 15 minutes.",
                "A longer one is kept in full, however long",
                "User-agent: FFBot",
                "Contact: see <a href=\"https://rssfeeds.org/feedfinder/\">",
            ],
        ),
        (
            "plainfeeder",
            &[
                "Usual time between two reads of a feed: 6 hours.",
                "Shortest, whatever the feed or the server says: 1 hour.",
                "Longest usual interval between two reads of an active feed: 2 days.",
                "<strong>429 (too many requests) or a bot challenge page</strong>: successive \
                 failures wait 2, 4 and 8 times the feed’s interval, and each further one 8 \
                 times the feed’s interval.",
                "<strong>404 (not found) or 403 (forbidden)</strong>: after each \
                 failure, the next read waits the feed’s interval.",
                "After 4 failures of one kind in total (each kind counted apart, a success in \
                 between does not start the count again) the feed is paused until a person \
                 resumes it.",
                "After 2 failures in a row the feed is paused",
                "at the first successful read there",
                "PlainFeeder v9.8.7 (+http://plainfeeder.com/about ; Subscriber Count: {subscribers})",
            ],
        ),
    ];
    assert_eq!(rows.len(), EMBEDDED.len(), "one row per embedded profile");
    for &(name, phrases) in rows {
        let profile = embedded(name);
        let ua = profile.user_agent(VERSION);
        for lang in Lang::ALL {
            let page = render(&profile, lang, VERSION);
            assert!(page.contains(&ua), "{name} {lang:?}: no User-Agent {ua}");
            assert!(
                page.contains(&format!("User-agent: {}", profile.robots.token)),
                "{name} {lang:?}: no token"
            );
            assert!(page.contains(&format!("<html lang=\"{}\">", lang.tag())));
        }
        let page = render(&profile, Lang::En, VERSION);
        for phrase in phrases {
            assert!(page.contains(phrase), "{name}: missing {phrase:?}\n{page}");
        }
    }
}

/// One profile change and the phrase it must replace (English page of `base`); an empty
/// `after` means the phrase only goes away.
struct Change {
    name: &'static str,
    base: &'static str,
    change: fn(&mut Profile),
    before: &'static str,
    after: &'static str,
}

/// The default profile lists `websub` (the CLI drops it when no callback is configured): the
/// page names the hub request with the profile's lease and poll, in every language.
#[test]
fn websub_the_page_says_a_hub_is_asked_and_how_often_the_feed_is_read_meanwhile() {
    let mut profile = embedded("default");
    for (lang, phrase) in [
        (
            Lang::En,
            "a subscription of 10 days, renewed before it ends, with a secret so that we keep \
             only what your hub signed; while it lasts we read your feed itself at most every 6 \
             hours",
        ),
        (Lang::Fr, "un abonnement de 10 jours"),
        (Lang::Pt, "uma assinatura de 10 dias"),
    ] {
        let page = render(&profile, lang, VERSION);
        assert!(
            page.contains(phrase),
            "{lang:?}: missing {phrase:?}\n{page}"
        );
    }
    profile.websub.live_poll = 12 * 3_600;
    profile.websub.renew_before = 86_400;
    let page = render(&profile, Lang::En, VERSION);
    assert!(page.contains("at most every 12 hours"), "{page}");
    profile
        .requests
        .purposes
        .retain(|p| *p != tidings_model::RequestPurpose::WebSub);
    assert!(!render(&profile, Lang::En, VERSION).contains("WebSub"));
}

#[test]
fn changing_a_profile_value_changes_the_page_and_the_behaviour() {
    let rows = [
        Change {
            name: "schedule.default_interval",
            base: "default",
            change: |p| p.schedule.default_interval = 7200,
            before: "reads of a feed: 1 hour.",
            after: "reads of a feed: 2 hours.",
        },
        Change {
            name: "schedule.min_interval",
            base: "default",
            change: |p| p.schedule.min_interval = 1200,
            before: "server says: 15 minutes.",
            after: "server says: 20 minutes.",
        },
        Change {
            name: "schedule.max_interval",
            base: "default",
            change: |p| p.schedule.max_interval = 3 * 86_400,
            before: "active feed: 1 day.",
            after: "active feed: 3 days.",
        },
        Change {
            name: "pacing.host_gap",
            base: "default",
            change: |p| p.pacing.host_gap = 2.5,
            before: "same host, at least: 1 second",
            after: "same host, at least: 2.5 seconds",
        },
        Change {
            name: "backoff.first",
            base: "default",
            change: |p| p.backoff.first = 1800,
            before: "the next read waits 15 minutes",
            after: "the next read waits 30 minutes",
        },
        Change {
            name: "backoff.max",
            base: "default",
            change: |p| p.backoff.max = 2 * 86_400,
            before: "failure in a row, up to 1 day.",
            after: "failure in a row, up to 2 days.",
        },
        Change {
            name: "backoff.retry_after_max",
            base: "default",
            change: |p| p.backoff.retry_after_max = 7 * 86_400,
            before: "Retry-After of up to 90 days is honoured in full",
            after: "Retry-After of up to 7 days is honoured in full",
        },
        Change {
            name: "ladder step (seconds)",
            base: "worldfeedmonitor",
            change: |p| p.ladders[0].steps[0] = 1200,
            before: "failures wait 15 minutes, 15 minutes, 1 hour",
            after: "failures wait 20 minutes, 15 minutes, 1 hour",
        },
        Change {
            name: "ladder step (interval)",
            base: "plainfeeder",
            change: |p| p.ladders[1].steps[0] = 3,
            before: "failures wait 2, 4 and 8 times the feed’s interval",
            after: "failures wait 3, 4 and 8 times the feed’s interval",
        },
        Change {
            name: "ladder pause_after",
            base: "plainfeeder",
            change: |p| p.ladders[2].pause_after = 3,
            before: "After 2 failures in a row",
            after: "After 3 failures in a row",
        },
        Change {
            name: "discovery.max_body_links",
            base: "ffbot",
            change: |p| p.discovery.max_body_links = 4,
            before: "look like feeds (at most 10) and 11 common feed paths",
            after: "look like feeds (at most 4) and 11 common feed paths",
        },
        Change {
            name: "discovery.cooldown",
            base: "ffbot",
            change: |p| p.discovery.cooldown = 7 * 86_400,
            before: "is not asked again for 30 days",
            after: "is not asked again for 7 days",
        },
        Change {
            name: "contact.email",
            base: "worldfeedmonitor",
            change: |p| p.contact.email = Some("stop@news.example".into()),
            before: "write to <a href=\"mailto:legal@worldfeedmonitor.com\">",
            after: "write to <a href=\"mailto:stop@news.example\">",
        },
        Change {
            name: "contact.email unset",
            base: "plainfeeder",
            change: |p| p.contact.email = None,
            before: "mailto:contact@plainfeeder.com",
            after: "ask the operator of this instance with the address of the feed or site",
        },
        Change {
            name: "ladder pause_counts",
            base: "plainfeeder",
            change: |p| p.ladders[2].pause_counts = PauseCount::Total,
            before: "After 2 failures in a row",
            after: "After 2 failures of one kind in total",
        },
        Change {
            name: "robots.token",
            base: "default",
            change: |p| p.robots.token = "NewsBot".into(),
            before: "User-agent: tidings\nDisallow: /",
            after: "User-agent: NewsBot\nDisallow: /",
        },
        Change {
            name: "robots.star_group_for_feeds",
            base: "default",
            change: |p| p.robots.star_group_for_feeds = false,
            before: "otherwise the <code>User-agent: *</code> group",
            after: "Feed addresses follow only the group",
        },
        Change {
            name: "robots.on_server_error",
            base: "default",
            change: |p| p.robots.on_server_error = OnRobotsFailure::Allow,
            before: "answers 429 or 5xx, we read nothing from that host",
            after: "answers 429 or 5xx, we read feeds as if there were no robots.txt",
        },
        Change {
            name: "robots.on_unreachable",
            base: "default",
            change: |p| p.robots.on_unreachable = OnRobotsFailure::Disallow,
            before: "reached at all, we read nothing now",
            after: "reached at all, we read nothing from that host",
        },
        Change {
            name: "robots.max_age",
            base: "default",
            change: |p| p.robots.max_age = 43_200,
            before: "older than 1 day",
            after: "older than 12 hours",
        },
        Change {
            name: "robots.crawl_delay_cap",
            base: "default",
            change: |p| p.robots.crawl_delay_cap = 120,
            before: "A longer crawl-delay counts as 1 minute.",
            after: "A longer crawl-delay counts as 2 minutes.",
        },
        Change {
            name: "robots.long_crawl_delay",
            base: "default",
            change: |p| p.robots.long_crawl_delay = LongCrawlDelay::Pause,
            before: "A longer crawl-delay counts as",
            after: "is kept in full",
        },
        Change {
            name: "robots.crawl_delay off",
            base: "default",
            change: |p| p.robots.crawl_delay = false,
            before: "We honour <code>Crawl-delay</code>",
            after: "We do not read <code>Crawl-delay</code>",
        },
        Change {
            name: "egress.off_when_refused_everywhere",
            base: "worldfeedmonitor",
            change: |p| p.egress.off_when_refused_everywhere = false,
            before: "once every address it was read from has refused it, through every step",
            after: "A refusal slows the feed down as described above.",
        },
        Change {
            name: "robots.on_access_denied",
            base: "default",
            change: |p| p.robots.on_access_denied = OnRobotsFailure::Defer,
            before: "If robots.txt answers 401 or 403, we read feeds as if there were no robots.txt.",
            after: "If robots.txt answers 401 or 403, we read nothing now",
        },
        Change {
            name: "retry.no_answer_patience",
            base: "worldfeedmonitor",
            change: |p| p.retry.no_answer_patience = 3,
            before: "allowing up to 2 times the usual time",
            after: "allowing up to 3 times the usual time",
        },
        Change {
            name: "retry off",
            base: "worldfeedmonitor",
            change: |p| p.retry.no_answer_patience = 0,
            before: "tried once more at once",
            after: "is not tried again before its next scheduled read",
        },
        Change {
            name: "hints all off",
            base: "default",
            change: |p| {
                p.hints.ttl = false;
                p.hints.skip_hours = false;
                p.hints.syndication = false;
                p.hints.cache_control = false;
            },
            before: "These hints can only make us wait longer",
            after: "only the intervals above apply",
        },
        Change {
            name: "hints.adaptive off",
            base: "default",
            change: |p| p.hints.adaptive = false,
            before: "follows how often the feed publishes",
            after: "",
        },
        Change {
            name: "hints.jitter",
            base: "default",
            change: |p| p.hints.jitter = 0.25,
            before: "up to 10%",
            after: "up to 25%",
        },
        Change {
            name: "redirects.persist_permanent_after",
            base: "default",
            change: |p| p.redirects.persist_permanent_after = 86_400,
            before: "for 7 days of successful reads",
            after: "for 1 day of successful reads",
        },
        Change {
            name: "fetch.connect_timeout",
            base: "default",
            change: |p| p.fetch.connect_timeout = 5,
            before: "to connect: 10 seconds.",
            after: "to connect: 5 seconds.",
        },
        Change {
            name: "fetch.timeout",
            base: "default",
            change: |p| p.fetch.timeout = 90,
            before: "headers and body: 30 seconds.",
            after: "headers and body: 1 minute 30 seconds.",
        },
        Change {
            name: "fetch.max_body_bytes",
            base: "default",
            change: |p| p.fetch.max_body_bytes = 1 << 20,
            before: "decompression: 10 MiB (10,485,760 bytes)",
            after: "decompression: 1 MiB (1,048,576 bytes)",
        },
        Change {
            name: "entries.max_per_response",
            base: "default",
            change: |p| p.entries.max_per_response = 2_500,
            before: "Most entries in one answer: 10,000;",
            after: "Most entries in one answer: 2,500;",
        },
        Change {
            name: "entries.max_new_per_day",
            base: "default",
            change: |p| p.entries.max_new_per_day = 50_000,
            before: "within 24 hours: 20,000;",
            after: "within 24 hours: 50,000;",
        },
        Change {
            name: "entries.max_text_bytes",
            base: "default",
            change: |p| p.entries.max_text_bytes = 65_536,
            before: "summary or article: 1 MiB (1,048,576 bytes);",
            after: "summary or article: 64 KiB (65,536 bytes);",
        },
        Change {
            name: "fetch.max_redirects",
            base: "default",
            change: |p| p.fetch.max_redirects = 2,
            before: "We follow up to 5 redirects",
            after: "We follow up to 2 redirects",
        },
        Change {
            name: "signing.enabled",
            base: "default",
            change: |p| p.signing.enabled = true,
            before: "Our requests are not signed",
            after: "names the origin that serves them.",
        },
        Change {
            name: "signing.agent",
            base: "serenereader",
            change: |p| p.signing.agent = Some("https://keys.example".into()),
            before: "serves them: <code>https://serenereader.com</code>.",
            after: "serves them: <code>https://keys.example</code>.",
        },
        Change {
            name: "signing.signature_validity",
            base: "serenereader",
            change: |p| p.signing.signature_validity = 60,
            before: "header, and is valid for 5 minutes.",
            after: "header, and is valid for 1 minute.",
        },
        Change {
            name: "signing.key_lifetime",
            base: "serenereader",
            change: |p| p.signing.key_lifetime = 30 * 86_400,
            before: "each is valid for 90 days.",
            after: "each is valid for 30 days.",
        },
        Change {
            name: "signing.rotate_before",
            base: "serenereader",
            change: |p| p.signing.rotate_before = 2 * 86_400,
            before: "made 7 days before the current one ends",
            after: "made 2 days before the current one ends",
        },
        Change {
            name: "keep.excerpt_max_chars",
            base: "dailyfootballbot",
            change: |p| p.keep.excerpt_max_chars = 120,
            before: "an excerpt of at most 300 characters of the summary",
            after: "an excerpt of at most 120 characters of the summary",
        },
        Change {
            name: "keep.summary",
            base: "default",
            change: |p| p.keep.summary = tidings_policy::profile::SummaryKeep::Excerpt,
            before: "It keeps each entry as the feed gives it",
            after: "Of each entry it keeps the title, the link and the dates, an excerpt",
        },
        Change {
            name: "keep.content",
            base: "default",
            change: |p| p.keep.content = false,
            before: "It keeps each entry as the feed gives it",
            after: "Never the full content: what is not kept is never stored",
        },
        Change {
            name: "rights.thumbnails",
            base: "ffbot",
            change: |p| p.rights.thumbnails = false,
            before: "It selects at most one thumbnail per entry",
            after: "",
        },
        Change {
            name: "rights.directives",
            base: "ffbot",
            change: |p| p.rights.directives = false,
            before: "<code>nosnippet</code> keeps summaries out",
            after: "",
        },
        Change {
            name: "user_agent",
            base: "default",
            change: |p| p.user_agent = "Other/{version} (+https://other.example/about)".into(),
            before: "tidings/9.8.7 (+https://tidings.example/bot)",
            after: "Other/9.8.7 (+https://other.example/about)",
        },
    ];
    let probed = rows.iter().filter(|r| behaviour(r.name).is_some()).count();
    for row in rows {
        let mut profile = embedded(row.base);
        let page = render(&profile, Lang::En, VERSION);
        assert!(
            page.contains(row.before),
            "{}: before {:?}",
            row.name,
            row.before
        );
        let replaced = !row.after.is_empty();
        assert!(
            !replaced || !page.contains(row.after),
            "{}: already {:?}",
            row.name,
            row.after
        );
        (row.change)(&mut profile);
        let changed = render(&profile, Lang::En, VERSION);
        assert!(
            !replaced || changed.contains(row.after),
            "{}: after {:?}\n{changed}",
            row.name,
            row.after
        );
        assert!(
            !changed.contains(row.before),
            "{}: still {:?}",
            row.name,
            row.before
        );
        // The page is true: where the value steers a decision, the decision moves with it.
        if let Some(probe) = behaviour(row.name) {
            let before = probe(&embedded(row.base));
            let after = probe(&profile);
            assert_ne!(
                before, after,
                "{}: the page changed, the behaviour did not",
                row.name
            );
        }
    }
    assert!(probed >= 18, "only {probed} rows check the behaviour too");
}

/// What the read machine's policy decides under a profile, for the values a row changes: the
/// same functions the crawler and the simulation call.
fn behaviour(name: &str) -> Option<fn(&Profile) -> String> {
    use tidings_model::{FetchOutcome, RetryAfter};
    use tidings_policy::{BodyVerdict, FeedSchedule, decide, first_fetch, robots};
    fn now() -> chrono::DateTime<chrono::Utc> {
        "2030-01-07T10:30:00Z".parse().unwrap()
    }
    /// The waits (seconds) and states after each of `answers`, each decision the next state.
    fn run(p: &Profile, answers: &[FetchOutcome]) -> String {
        run_from(p, p.schedule.default_interval, answers)
    }
    /// [`run`] for a feed read every `interval` seconds.
    fn run_from(p: &Profile, interval: u64, answers: &[FetchOutcome]) -> String {
        let mut p = p.clone();
        p.hints.jitter = 0.0;
        let mut state = FeedSchedule {
            interval_secs: interval,
            ..FeedSchedule::default()
        };
        let mut out = String::new();
        for answer in answers {
            let body = match answer {
                FetchOutcome::Fetched(_) => BodyVerdict::Parsed(Default::default()),
                _ => BodyVerdict::NotApplicable,
            };
            let d = decide(&state, answer, &body, now(), &p);
            out.push_str(&format!(
                "{} {:?}; ",
                (d.next_fetch_at - now()).num_seconds(),
                d.lifecycle
            ));
            state.interval_secs = d.interval_secs;
            state.consecutive_failures = d.consecutive_failures;
            state.last_failure = d.failure;
            state.failure_totals = d.failure_totals;
        }
        out
    }
    fn ok() -> FetchOutcome {
        FetchOutcome::Fetched(tidings_model::Fetched {
            status: 200,
            body: Vec::new(),
            content_type: None,
            validators: Default::default(),
            cache: Default::default(),
            rights: None,
        })
    }
    fn status(status: u16) -> FetchOutcome {
        match status {
            401 => FetchOutcome::ClientError { status },
            429 => FetchOutcome::Refused {
                status,
                retry_after: None,
            },
            _ => FetchOutcome::ServerError {
                status,
                retry_after: None,
            },
        }
    }
    /// What robots.txt `text` lets a feed path do.
    fn robots_say(p: &Profile, status: Option<u16>, text: &str) -> String {
        let stored = robots::StoredRobots {
            fetched_at: now(),
            status,
            body: Some(text.as_bytes()),
        };
        format!("{:?}", robots::gate_for_feed(&stored, "/feed.xml", p))
    }
    Some(match name {
        "schedule.default_interval" => |p| first_fetch(now(), p).interval_secs.to_string(),
        "backoff.max" => |p| run(p, &vec![status(500); 12]),
        "schedule.max_interval" => |p| {
            // A feed whose ttl asks for ten days is read at the longest interval.
            let body = BodyVerdict::Parsed(tidings_policy::FeedHints {
                ttl_minutes: Some(10 * 1440),
                ..Default::default()
            });
            let mut p = p.clone();
            p.hints.jitter = 0.0;
            let d = decide(&FeedSchedule::default(), &ok(), &body, now(), &p);
            (d.next_fetch_at - now()).num_seconds().to_string()
        },
        // A failure waits at least the feed's interval: seen on a feed read often.
        "backoff.first" => |p| run_from(p, p.schedule.min_interval, &[status(500)]),
        "backoff.retry_after_max" => |p| {
            run(
                p,
                &[FetchOutcome::ServerError {
                    status: 503,
                    retry_after: Some(RetryAfter::Seconds(30 * 86_400)),
                }],
            )
        },
        "ladder step (seconds)" => |p| run(p, &[status(429)]),
        "ladder step (interval)" => |p| run(p, &[status(429)]),
        "ladder pause_after" => |p| run(p, &[status(401), status(401), status(401)]),
        "ladder pause_counts" => |p| run(p, &[status(401), ok(), status(401)]),
        "pacing.host_gap" => |p| format!("{:?}", robots::host_gap(p, None, false)),
        "robots.crawl_delay_cap" => |p| {
            format!(
                "{:?}",
                robots::host_gap(p, Some(std::time::Duration::from_secs(100)), false)
            )
        },
        "robots.crawl_delay off" => |p| {
            format!(
                "{:?}",
                robots::host_gap(p, Some(std::time::Duration::from_secs(30)), false)
            )
        },
        "robots.token" => |p| robots_say(p, Some(200), "User-agent: NewsBot\nDisallow: /\n"),
        "robots.star_group_for_feeds" => {
            |p| robots_say(p, Some(200), "User-agent: *\nDisallow: /\n")
        }
        "robots.on_access_denied" => |p| robots_say(p, Some(403), ""),
        "robots.on_unreachable" => |p| robots_say(p, None, ""),
        "retry.no_answer_patience" | "retry off" => |p| {
            let silence = FetchOutcome::Transport(tidings_model::TransportError::Timeout);
            format!(
                "{:?}",
                tidings_policy::retry::second_attempt(&silence, 1, p)
            )
        },
        "keep.excerpt_max_chars" | "keep.summary" | "keep.content" => |p| kept_of(p, &[]),
        "rights.directives" => |p| kept_of(p, &["FFBot: nosnippet"]),
        "rights.thumbnails" => |p| {
            let mut parsed = tidings_model::ParsedFeed {
                format: tidings_model::FeedFormat::Rss20,
                feed: tidings_model::Feed::default(),
                entries: vec![tidings_model::Entry {
                    identity: "e".into(),
                    thumbnails: vec![tidings_model::Thumbnail {
                        url: "https://pub.example/t.jpg".into(),
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                warnings: Vec::new(),
            };
            tidings_rights::thumbnail::select(&mut parsed, None, &p.rights, &p.keep);
            format!(
                "{:?}",
                parsed.entries[0].selected_image.as_ref().map(|i| &i.url)
            )
        },
        _ => return None,
    })
}

/// What the read keeps of one rich entry under `p`, the feed answering with these
/// `X-Robots-Tag` values: the same `tidings_rights::keep::apply` the read machine calls.
fn kept_of(p: &Profile, robots_tag: &[&str]) -> String {
    use tidings_model::{Entry, Feed, FeedFormat, ParsedFeed};
    let mut parsed = ParsedFeed {
        format: FeedFormat::Rss20,
        feed: Feed::default(),
        entries: vec![Entry {
            identity: "e".into(),
            summary: Some("word ".repeat(200)),
            content: Some("<p>All of it.</p>".into()),
            ..Entry::default()
        }],
        warnings: Vec::new(),
    };
    let directives = if p.rights.directives {
        tidings_rights::directive::from_headers(robots_tag.iter().copied(), &p.robots.token)
    } else {
        tidings_rights::Directives::NONE
    };
    tidings_rights::keep::apply(&mut parsed, &p.keep, &[], &directives);
    let e = &parsed.entries[0];
    format!(
        "summary {:?} chars, content {}",
        e.summary.as_ref().map(|s| s.chars().count()),
        e.content.is_some()
    )
}

/// C10 (WFM10, DFB and FF "write to us"): every profile's page says a request to stop is
/// honoured at once and a removed feed or site cannot come back, and names the profile's own
/// address where it has one (the removal itself: the store contract's
/// `c10_wfm10_a_removed_feed_is_never_due_and_cannot_come_back`).
#[test]
fn c10_every_profile_states_removal_on_request_with_its_address() {
    for (name, _) in EMBEDDED {
        let profile = embedded(name);
        for lang in Lang::ALL {
            let page = render(&profile, lang, VERSION);
            if let Some(email) = &profile.contact.email {
                assert!(
                    page.contains(&format!("href=\"mailto:{email}\"")),
                    "{name} {lang:?}: no link to {email}"
                );
            }
        }
        let page = render(&profile, Lang::En, VERSION);
        assert!(
            page.contains("removes it at once, without asking why, and it cannot be added again")
                || page.contains(
                    "it is removed at once, without asking why, and it cannot be added again"
                ),
            "{name}: no removal on request"
        );
    }
    assert_eq!(
        embedded("worldfeedmonitor").contact.email.as_deref(),
        Some("legal@worldfeedmonitor.com"),
        "WFM10's own address"
    );
}

#[test]
fn translated_pages_carry_the_same_numbers() {
    let profile = embedded("dailyfootballbot");
    let fr = render(&profile, Lang::Fr, VERSION);
    for phrase in [
        "Intervalle habituel entre deux lectures d’un flux : 10 minutes.",
        "au moins : 2 secondes",
        "10 minutes, 20 minutes, 40 minutes, 1 heure 20 minutes",
        "10 Mio (10\u{202f}485\u{202f}760 octets)",
        "<a href=\"/bot?lang=en\" hreflang=\"en\" lang=\"en\">English</a>",
        "<a href=\"/bot?lang=pt\" hreflang=\"pt\" lang=\"pt\">Português</a>",
    ] {
        assert!(fr.contains(phrase), "fr: missing {phrase:?}");
    }
    assert!(!fr.contains("?lang=fr"), "no link to the page itself");
    let pt = render(&profile, Lang::Pt, VERSION);
    for phrase in [
        "Intervalo habitual entre duas leituras de um feed: 10 minutos.",
        "no mínimo: 2 segundos",
        "1 hora e 20 minutos",
        "10 MiB (10.485.760 bytes)",
        "<a href=\"/bot?lang=fr\" hreflang=\"fr\" lang=\"fr\">Français</a>",
    ] {
        assert!(pt.contains(phrase), "pt: missing {phrase:?}");
    }
}

#[test]
fn profile_text_is_escaped() {
    let mut profile = embedded("default");
    profile.user_agent =
        "Evil<script>alert('x')</script>/{version} (+https://e.example/\"a)".into();
    profile.robots.token = "<b>bot</b>".into();
    profile.name = "a&b".into();
    profile.signing.enabled = true;
    profile.signing.agent = Some("https://e.example/<i>x</i>".into());
    for lang in Lang::ALL {
        let page = render(&profile, lang, "1<2");
        assert!(!page.contains("<script"), "{lang:?}");
        assert!(!page.contains("<b>"), "{lang:?}");
        assert!(page.contains("Evil&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;/1&lt;2"));
        assert!(page.contains("User-agent: &lt;b&gt;bot&lt;/b&gt;"));
        assert!(page.contains("<code>a&amp;b</code>"));
        assert!(page.contains("href=\"https://e.example/&quot;a\""));
        assert!(!page.contains("<i>"), "{lang:?}");
        assert!(page.contains("<code>https://e.example/&lt;i&gt;x&lt;/i&gt;</code>"));
        well_formed(&page);
    }
}

/// Elements that have no end tag.
const VOID: &[&str] = &["meta", "link", "br"];

/// Every start tag has its end tag, properly nested; ids are unique; no script anywhere.
fn well_formed(page: &str) {
    assert!(page.starts_with("<!DOCTYPE html>\n"));
    assert!(!page.to_ascii_lowercase().contains("<script"));
    assert!(!page.contains(" style="), "no inline styles");
    let mut open: Vec<String> = Vec::new();
    let mut ids = std::collections::HashSet::new();
    let mut rest = page.trim_start_matches("<!DOCTYPE html>");
    while let Some(start) = rest.find('<') {
        let Some(end) = rest[start..].find('>') else {
            panic!("unclosed tag at {}", &rest[start..]);
        };
        let tag = &rest[start + 1..start + end];
        rest = &rest[start + end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(open.pop().as_deref(), Some(name), "misnested </{name}>");
            continue;
        }
        let name = tag.split_whitespace().next().unwrap_or("");
        if let Some(at) = tag.find("id=\"") {
            let id = tag[at + 4..].split('"').next().unwrap_or("");
            assert!(ids.insert(id.to_string()), "duplicate id {id}");
        }
        if !VOID.contains(&name) {
            open.push(name.to_string());
        }
    }
    assert!(open.is_empty(), "unclosed: {open:?}");
}

#[test]
fn every_page_is_well_formed_with_one_h1() {
    for (name, _) in EMBEDDED {
        let profile = embedded(name);
        for lang in Lang::ALL {
            let page = render(&profile, lang, VERSION);
            well_formed(&page);
            assert_eq!(page.matches("<h1>").count(), 1);
            assert!(page.matches("<h2 ").count() >= 8, "{name} {lang:?}");
            assert!(page.contains("<link rel=\"stylesheet\" href=\"/static/bot.css\">"));
            assert!(page.contains("name=\"viewport\""));
        }
    }
}

async fn state() -> (AppState, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let path = dir.path().join("tidings.db");
    let store = tidings_store::open(&path.to_string_lossy())
        .await
        .unwrap_or_else(|e| panic!("store: {e}"));
    let state = AppState::new(store, Arc::new(embedded("serenereader")), VERSION);
    (state, dir)
}

/// `GET path` with `headers` over a fresh connection (the sim's test client).
async fn get(addr: std::net::SocketAddr, path: &str, headers: &[(&str, &str)]) -> Answer {
    tidings_sim::client::request(
        addr,
        "GET",
        path,
        headers,
        b"",
        std::time::Duration::from_secs(10),
    )
    .await
    .unwrap_or_else(|e| panic!("GET {path}: {e}"))
}

#[tokio::test]
async fn bot_page_is_served_with_strict_headers() {
    let (state, _dir) = state().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap_or_else(|e| panic!("bind: {e}"));
    let addr = listener
        .local_addr()
        .unwrap_or_else(|e| panic!("addr: {e}"));
    let server = tokio::spawn(async move { axum::serve(listener, router(state)).await });

    let fr = get(
        addr,
        "/bot?lang=fr",
        &[("Accept-Language", "pt-BR, en;q=0.5")],
    )
    .await;
    assert_eq!(fr.status, 200, "{}", fr.text());
    assert_eq!(fr.header("content-type"), Some("text/html; charset=utf-8"));
    assert_eq!(fr.header("content-language"), Some("fr"));
    assert_eq!(fr.header("vary"), Some("Accept-Language"));
    assert_eq!(fr.header("x-content-type-options"), Some("nosniff"));
    let csp = fr.header("content-security-policy").unwrap_or("");
    assert!(
        csp.starts_with("default-src 'none'; style-src 'self'"),
        "{csp}"
    );
    assert!(!csp.contains("unsafe"), "{csp}");
    assert!(fr.text().contains("<html lang=\"fr\">"));
    assert!(
        fr.text()
            .contains("SereneReader/1.0 (+https://serenereader.com/bot)")
    );
    assert!(
        fr.text()
            .contains("Intervalle habituel entre deux lectures d’un flux : 30 minutes.")
    );

    let pt = get(
        addr,
        "/bot",
        &[("Accept-Language", "fr;q=0.4, pt-BR;q=0.8")],
    )
    .await;
    assert_eq!(pt.header("content-language"), Some("pt"));
    assert!(pt.text().contains("<html lang=\"pt\">"));

    let en = get(addr, "/bot?lang=xx", &[]).await;
    assert_eq!(en.header("content-language"), Some("en"));
    assert!(en.text().contains("<html lang=\"en\">"));

    let css = get(addr, "/static/bot.css", &[]).await;
    assert_eq!(css.status, 200, "{}", css.text());
    assert_eq!(css.header("content-type"), Some("text/css; charset=utf-8"));
    assert_eq!(css.header("x-content-type-options"), Some("nosniff"));
    assert!(css.text().contains("max-width"));

    server.abort();
}

/// Serve `state` on port 0; the address.
async fn serve(state: AppState) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap_or_else(|e| panic!("bind: {e}"));
    let addr = listener
        .local_addr()
        .unwrap_or_else(|e| panic!("addr: {e}"));
    tokio::spawn(async move { axum::serve(listener, router(state)).await });
    addr
}

#[tokio::test]
async fn pf11_sr12_feed_ips_are_published_only_when_the_profile_says_so() {
    let (serene, _a) = state().await;
    let addresses: Vec<std::net::IpAddr> = ["192.0.2.7", "2001:db8::1"]
        .iter()
        .map(|a| a.parse().unwrap_or_else(|e| panic!("{a}: {e}")))
        .collect();
    let serene = serve(serene.with_egress(addresses.clone())).await;
    let answer = get(serene, "/feed-ips.txt", &[]).await;
    assert_eq!(answer.status, 404, "{}", answer.text());
    assert!(
        !answer.text().contains("192.0.2.7"),
        "SR12: never published: {}",
        answer.text()
    );

    let (plain, _b) = state().await;
    let plain = AppState {
        profile: Arc::new(embedded("plainfeeder")),
        ..plain
    };
    let published = serve(plain.clone().with_egress(addresses)).await;
    let answer = get(published, "/feed-ips.txt", &[]).await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(
        answer.header("content-type"),
        Some("text/plain; charset=utf-8")
    );
    let body = answer.text();
    let listed: Vec<&str> = body.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(listed, ["192.0.2.7", "2001:db8::1"], "PF11: {body}");

    let unconfigured = serve(plain).await;
    let answer = get(unconfigured, "/feed-ips.txt", &[]).await;
    let body = answer.text();
    assert!(body.lines().all(|l| l.starts_with('#')), "{body}");
    assert!(body.contains("this server's own address"), "{body}");
}

#[test]
fn pf10_pf11_sr12_the_page_says_what_the_user_agent_counts_and_whether_addresses_are_published() {
    let plain = embedded("plainfeeder");
    let page = render(&plain, Lang::En, VERSION);
    assert!(page.contains("Subscriber Count: {subscribers}"), "{page}");
    assert!(page.contains("In place of <code>{subscribers}</code> each request carries"));
    assert!(page.contains("<a href=\"/feed-ips.txt\">/feed-ips.txt</a>"));
    assert!(page.contains("Only a person can move it to another"));
    for lang in [Lang::Fr, Lang::Pt] {
        let page = render(&plain, lang, VERSION);
        assert!(page.contains("<code>{subscribers}</code>"), "{lang:?}");
        assert!(page.contains("/feed-ips.txt"), "{lang:?}");
    }
    let serene = render(&embedded("serenereader"), Lang::En, VERSION);
    assert!(serene.contains("We do not publish the addresses we read from; they may change."));
    assert!(!serene.contains("/feed-ips.txt"));
    assert!(
        !serene.contains("In place of"),
        "its User-Agent counts nothing"
    );
    let fr = render(&embedded("serenereader"), Lang::Fr, VERSION);
    assert!(fr.contains("Nous ne publions pas les adresses"));
}

/// The directory link as the page writes it.
const DIRECTORY_LINK: &str = "<a href=\"/.well-known/http-message-signatures-directory\">\
                              /.well-known/http-message-signatures-directory</a>";

#[test]
fn sr11_the_page_says_requests_are_signed_and_where_the_keys_are() {
    let serene = embedded("serenereader");
    let rows: [(Lang, &[&str]); 3] = [
        (
            Lang::En,
            &[
                "<h3>Signed requests</h3>",
                "Every request we make, robots.txt and each redirect included, is signed with \
                 an Ed25519 key using HTTP Message Signatures (Web Bot Auth, RFC 9421).",
                "and is valid for 5 minutes.",
                "names the origin that serves them: <code>https://serenereader.com</code>.",
                "Keys are rotated: each is valid for 90 days. The next one is made 7 days \
                 before the current one ends, published at once and used 1 hour later",
                "an older key stays published until it expires",
                "To check a request, fetch the key directory",
            ],
        ),
        (
            Lang::Fr,
            &[
                "<h3>Requêtes signées</h3>",
                "Chacune de nos requêtes, robots.txt et chaque redirection compris, est signée \
                 avec une clé Ed25519 au moyen de HTTP Message Signatures (Web Bot Auth, \
                 RFC 9421).",
                "et reste valable 5 minutes.",
                "nomme l’origine qui les sert : <code>https://serenereader.com</code>.",
                "chacune est valable 90 jours. La suivante est créée 7 jours avant la fin",
                "une ancienne clé reste publiée jusqu’à son expiration",
                "Pour vérifier une requête",
            ],
        ),
        (
            Lang::Pt,
            &[
                "<h3>Requisições assinadas</h3>",
                "Toda requisição que fazemos, incluindo o robots.txt e cada redirecionamento, \
                 é assinada com uma chave Ed25519 por meio de HTTP Message Signatures (Web Bot \
                 Auth, RFC 9421).",
                "e vale por 5 minutos.",
                "indica a origem que as serve: <code>https://serenereader.com</code>.",
                "cada uma vale por 90 dias. A próxima é criada 7 dias antes do fim",
                "uma chave antiga continua publicada até expirar",
                "Para verificar uma requisição",
            ],
        ),
    ];
    for (lang, phrases) in rows {
        let page = render(&serene, lang, VERSION);
        assert!(page.contains(DIRECTORY_LINK), "{lang:?}: no link\n{page}");
        for phrase in phrases {
            assert!(
                page.contains(phrase),
                "{lang:?}: missing {phrase:?}\n{page}"
            );
        }
        well_formed(&page);
    }
}

#[test]
fn sr11_the_default_page_says_requests_are_not_signed() {
    let default = embedded("default");
    for (lang, sentence) in [
        (
            Lang::En,
            "Our requests are not signed: they carry no HTTP Message Signatures (Web Bot Auth).",
        ),
        (
            Lang::Fr,
            "Nos requêtes ne sont pas signées : elles ne portent aucune signature HTTP Message \
             Signatures (Web Bot Auth).",
        ),
        (
            Lang::Pt,
            "Nossas requisições não são assinadas: não trazem nenhuma assinatura HTTP Message \
             Signatures (Web Bot Auth).",
        ),
    ] {
        let page = render(&default, lang, VERSION);
        assert!(page.contains(sentence), "{lang:?}: missing {sentence:?}");
        assert!(
            !page.contains("http-message-signatures-directory"),
            "{lang:?}"
        );
        assert!(!page.contains("Ed25519"), "{lang:?}: no signing section");
        let serene = render(&embedded("serenereader"), lang, VERSION);
        assert!(!serene.contains(sentence), "{lang:?}: SereneReader signs");
    }
}

/// SR1, FF9, WFM1/DFB1/PF13: each page says what its bot fetches besides feeds, with how much
/// and why, and the bots that fetch nothing else say so.
#[test]
fn sr1_ff9_wfm1_each_page_says_what_it_fetches_besides_feeds() {
    let rows: [(&str, Lang, &[&str], &[&str]); 5] = [
        (
            "serenereader",
            Lang::En,
            &[
                "the page an entry links to when the entry has no image, once, reading at most \
                 1,000,000 bytes of it to find its preview image (<code>og:image</code>)",
                "your site’s icon (the one your feed names, else <code>/favicon.ico</code>",
                "read again every 30 days",
            ],
            &["thumbnail", "nothing else from your site"],
        ),
        (
            "serenereader",
            Lang::Pt,
            &["a página para a qual aponta uma entrada sem imagem, uma única vez"],
            &[],
        ),
        (
            "ffbot",
            Lang::En,
            &[
                "the thumbnail an entry declares, only when its licence permits showing it, \
               copied once (at most 2,000,000 bytes, never resized)",
            ],
            &["og:image", "favicon"],
        ),
        (
            "ffbot",
            Lang::Fr,
            &["seulement si sa licence permet de la montrer"],
            &[],
        ),
        (
            "worldfeedmonitor",
            Lang::En,
            &["and nothing else from your site: no pages, images or links found in the feeds."],
            &["og:image", "favicon", "thumbnail"],
        ),
    ];
    for (name, lang, present, absent) in rows {
        let page = render(&embedded(name), lang, VERSION);
        assert!(!page.contains("WebSub"), "{name}: lists no hub\n{page}");
        for phrase in present {
            assert!(
                page.contains(phrase),
                "{name} {lang:?}: missing {phrase:?}\n{page}"
            );
        }
        for phrase in absent {
            assert!(
                !page.contains(phrase),
                "{name} {lang:?}: has {phrase:?}\n{page}"
            );
        }
    }
}
