//! Publisher- and user-supplied text never reaches the terminal as control characters
//! (issue 12): a title that would retitle the window and clear the screen is shown in its
//! visible form (`\u{1b}`), in every table; `--json` stays JSON; the OPML export carries none.

mod support;

use support::{Publisher, Resource, fast_profile, stderr, stdout, tidings};

/// The outside abuse test's title: OSC 0 (set the window title), then clear the screen.
const PWNED: &str = "\u{1b}]0;PWNED\u{7}\u{1b}[2J";
/// The same as the command line shows it.
const SHOWN: &str = "\\u{1b}]0;PWNED\\u{7}\\u{1b}[2J";

/// What a terminal would act on: ESC, BEL, CSI (U+009B) and a right-to-left override.
fn assert_inert(what: &str, text: &str) {
    for c in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}'] {
        assert!(!text.contains(c), "{what} holds {c:?}: {text:?}");
    }
}

fn feed() -> String {
    // JSON Feed carries the bytes as written; an XML feed could not hold ESC and BEL.
    serde_json::json!({
        "version": "https://jsonfeed.org/version/1.1",
        "title": format!("Gazette {PWNED}"),
        "home_page_url": "https://gazette.test/",
        "items": [{
            "id": "1",
            "title": format!("Story {PWNED}\u{202e}lmth.exe"),
            "url": "https://gazette.test/1",
            "content_text": "body",
            "date_published": "2026-11-02T10:00:00Z"
        }]
    })
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_characters_in_titles_are_shown_not_obeyed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let profile = fast_profile(dir.path());
    let publisher = Publisher::start().await;
    let mut resource = Resource::feed(feed(), "\"1\"");
    resource.content_type = "application/feed+json".into();
    publisher.set("/feed.json", resource);
    let common = ["--profile", profile.as_str(), "--allow-private-networks"];
    let url = publisher.url("/feed.json");

    let out = tidings(&db, &[&common[..], &["add", &url]].concat()).await;
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert_inert("add", &stdout(&out));

    let out = tidings(&db, &["feeds"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_inert("feeds", &stdout(&out));
    assert!(
        stdout(&out).contains(&format!("Gazette {SHOWN}")),
        "{}",
        stdout(&out)
    );

    let out = tidings(&db, &["entries"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_inert("entries", &stdout(&out));
    assert!(
        stdout(&out).contains(&format!("Story {SHOWN}\\u{{202e}}lmth.exe")),
        "{}",
        stdout(&out)
    );

    // JSON stays JSON: serde writes the controls as escapes, and they read back as they were.
    for command in ["feeds", "entries"] {
        let out = tidings(&db, &[command, "--json"]).await;
        assert_inert(command, &stdout(&out));
        let line = stdout(&out).lines().next().unwrap_or_default().to_owned();
        let value: serde_json::Value = serde_json::from_str(&line).expect("one JSON line");
        let title = match command {
            "feeds" => value["title"].clone(),
            _ => value["entry"]["title"].clone(),
        };
        assert!(
            title.as_str().is_some_and(|t| t.contains(PWNED)),
            "{command}: {value}"
        );
    }

    // The OPML export holds neither ESC nor BEL (XML 1.0 cannot), and reads back.
    let out = tidings(&db, &["export-opml"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_inert("export-opml", &stdout(&out));
    assert!(
        stdout(&out).contains("Gazette ]0;PWNED[2J"),
        "{}",
        stdout(&out)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_an_operator_types_is_shown_not_obeyed_too() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");

    let reason = format!("asked {PWNED}");
    let out = tidings(&db, &["block", "host", "evil.test", "--reason", &reason]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    let out = tidings(&db, &["blocks"]).await;
    assert_inert("blocks", &stdout(&out));
    assert!(
        stdout(&out).contains(&format!("(asked {SHOWN})")),
        "{}",
        stdout(&out)
    );

    let name = format!("ops {PWNED}");
    let out = tidings(
        &db,
        &["keys", "create", "--role", "reader", "--name", &name],
    )
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_inert("keys create", &stderr(&out));
    let out = tidings(&db, &["keys", "list"]).await;
    assert_inert("keys list", &stdout(&out));
    assert!(
        stdout(&out).contains(&format!("ops {SHOWN}")),
        "{}",
        stdout(&out)
    );

    // Errors that echo what was given.
    let out = tidings(&db, &["add", &format!("not a url {PWNED}")]).await;
    assert!(!out.status.success());
    assert_inert("add's error", &stderr(&out));
    assert!(stderr(&out).contains(SHOWN), "{}", stderr(&out));
    let out = tidings(&db, &["remove", &format!("nothing {PWNED}")]).await;
    assert!(!out.status.success());
    assert_inert("remove's error", &stderr(&out));
    assert!(stderr(&out).contains(SHOWN), "{}", stderr(&out));
}
