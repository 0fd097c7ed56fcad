//! Listing entries: full-text search, filters and keyset pagination.

use crate::support::{all_entries, dated, entry, feed, ok, subscribe, t};
use std::collections::HashSet;
use std::sync::Arc;
use tidings_model::Entry;
use tidings_store::{EntryQuery, Store};

async fn ids(store: &Arc<dyn Store>, query: EntryQuery) -> Vec<String> {
    let found = store.entries(&query).await.expect("list entries");
    found.into_iter().map(|e| e.entry.identity).collect()
}

fn search(q: &str) -> EntryQuery {
    EntryQuery {
        search: Some(q.to_owned()),
        ..Default::default()
    }
}

pub async fn search_finds_title_and_summary_words(store: Arc<dyn Store>) {
    let one = feed(&store, "https://one.example/feed").await;
    let two = feed(&store, "https://two.example/feed").await;
    store
        .apply_fetch(ok(
            one,
            t(60),
            vec![
                entry("rust", "Rust 2026 released", "A systems language"),
                entry("tokio", "Runtime news", "The tokio runtime grows"),
            ],
        ))
        .await
        .unwrap();
    store
        .apply_fetch(ok(
            two,
            t(120),
            vec![
                entry("both", "Rust and tokio", "Together at last"),
                entry("none", "Gardening", "Tomatoes"),
            ],
        ))
        .await
        .unwrap();

    assert_eq!(
        ids(&store, search("rust")).await,
        vec!["both", "rust"],
        "title, any case"
    );
    assert_eq!(
        ids(&store, search("RUNTIME")).await,
        vec!["tokio"],
        "summary and title"
    );
    assert_eq!(ids(&store, search("tokio")).await, vec!["both", "tokio"]);
    assert_eq!(
        ids(&store, search("rust tokio")).await,
        vec!["both"],
        "every word"
    );
    assert_eq!(ids(&store, search("  language  ")).await, vec!["rust"]);
    assert!(ids(&store, search("python")).await.is_empty());
    let in_one = EntryQuery {
        feed: Some(one),
        ..search("rust")
    };
    assert_eq!(
        ids(&store, in_one).await,
        vec!["rust"],
        "search within a feed"
    );
    assert_eq!(
        ids(&store, search("   ")).await.len(),
        4,
        "a blank search is no filter"
    );
}

/// Search reads the text of the summary and the content, never their markup; a change to
/// either is found at once.
pub async fn search_reads_summary_and_content_text_never_markup(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed").await;
    let mut marked = entry(
        "marked",
        "Harbour notes",
        "<p>The <strong>ferry</strong> &amp; the <em>gulls</em></p>",
    );
    marked.content = Some(
        "<div class=\"longread\"><p>Lighthouse keepers<script>var hidden = 1;</script></p></div>"
            .into(),
    );
    let plain = entry("plain", "Weather", "Rain at noon");
    store
        .apply_fetch(ok(id, t(60), vec![marked.clone(), plain]))
        .await
        .unwrap();
    for (words, found) in [
        ("ferry", &["marked"][..]),
        ("gulls", &["marked"]),
        ("lighthouse keepers", &["marked"]),
        ("strong", &[]),
        ("longread", &[]),
        ("div", &[]),
        ("amp", &[]),
        ("hidden", &[]),
        ("rain", &["plain"]),
    ] {
        assert_eq!(ids(&store, search(words)).await, found, "{words:?}");
    }
    // The content changes: the old words go, the new are found.
    marked.content = Some("<p>Tide tables</p>".into());
    store
        .apply_fetch(ok(id, t(120), vec![marked]))
        .await
        .unwrap();
    assert_eq!(ids(&store, search("tide")).await, ["marked"]);
    assert!(ids(&store, search("lighthouse")).await.is_empty());
    assert_eq!(
        ids(&store, search("ferry")).await,
        ["marked"],
        "the summary stays"
    );
}

/// User input is only ever words: no SQL or full-text syntax error, no injection.
pub async fn hostile_search_input_is_just_words(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed").await;
    store
        .apply_fetch(ok(
            id,
            t(60),
            vec![
                entry("foo", "foo and bar", "plain"),
                entry("drop", "How to drop a table", "entries of a table"),
            ],
        ))
        .await
        .unwrap();
    let hostile = [
        r#""foo AND ("#,
        "'; drop table entries; --",
        "foo OR bar NOT baz NEAR(a b)",
        "title:foo",
        "*",
        "foo*",
        "^foo",
        "\"",
        "(((",
        "\\' \\\" ` $1 ? ?1 :x @y",
        "a\u{0}b",
        "-foo",
        "!",
        "🎉",
    ];
    for q in hostile {
        let result = store.entries(&search(q)).await;
        assert!(result.is_ok(), "{q:?} failed: {:?}", result.err());
    }
    assert_eq!(
        ids(&store, search(r#""foo AND ("#)).await,
        vec!["foo"],
        "words foo and and"
    );
    assert_eq!(
        ids(&store, search("'; drop table entries; --")).await,
        vec!["drop"],
        "the words drop, table and entries"
    );
    assert!(
        ids(&store, search("(((")).await.is_empty(),
        "no words, no matches"
    );
    assert_eq!(
        store.count_entries(None).await.unwrap(),
        2,
        "nothing was dropped"
    );
}

pub async fn since_until_and_feed_filters(store: Arc<dyn Store>) {
    let one = feed(&store, "https://one.example/feed").await;
    let two = feed(&store, "https://two.example/feed").await;
    let day = 86_400;
    store
        .apply_fetch(ok(
            one,
            t(10 * day),
            vec![
                dated("d1", t(day)),
                dated("d2", t(2 * day)),
                dated("d3", t(3 * day)),
            ],
        ))
        .await
        .unwrap();
    store
        .apply_fetch(ok(two, t(10 * day), vec![dated("d4", t(4 * day))]))
        .await
        .unwrap();

    assert_eq!(
        ids(&store, EntryQuery::default()).await,
        vec!["d4", "d3", "d2", "d1"],
        "newest first by publication"
    );
    let window = EntryQuery {
        since: Some(t(2 * day)),
        until: Some(t(4 * day)),
        ..Default::default()
    };
    assert_eq!(
        ids(&store, window).await,
        vec!["d3", "d2"],
        "since inclusive, until exclusive"
    );
    let of_two = EntryQuery {
        feed: Some(two),
        ..Default::default()
    };
    assert_eq!(ids(&store, of_two).await, vec!["d4"]);
}

/// Every entry exactly once across pages, even when new entries arrive between pages.
pub async fn keyset_pages_return_each_entry_once_despite_inserts(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed").await;
    // Ties on purpose: three entries share each publication time, so the id breaks them.
    let original: Vec<_> = (0..30)
        .map(|i| dated(&format!("e{i:02}"), t(1000 + (i / 3) * 60)))
        .collect();
    store
        .apply_fetch(ok(id, t(5000), original.clone()))
        .await
        .unwrap();

    let mut seen = Vec::new();
    let mut after = None;
    let mut page_no = 0;
    loop {
        let page = store
            .entries(&EntryQuery {
                after,
                limit: 7,
                ..Default::default()
            })
            .await
            .unwrap();
        let Some(last) = page.last() else { break };
        after = Some(last.cursor());
        seen.extend(page.iter().map(|e| e.entry.identity.clone()));
        page_no += 1;
        // Arrivals between pages: one newer than everything, one as old as the oldest.
        let arrivals = vec![
            dated(&format!("new{page_no}"), t(100_000 + page_no)),
            dated(&format!("old{page_no}"), t(1000)),
        ];
        store
            .apply_fetch(ok(id, t(6000 + page_no * 60), arrivals))
            .await
            .unwrap();
        assert!(page_no < 20, "pagination must end");
    }

    let unique: HashSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "no entry twice: {seen:?}");
    for e in &original {
        assert!(unique.contains(&e.identity), "{} was skipped", e.identity);
    }
    assert!(
        !seen.iter().any(|s| s.starts_with("new")),
        "entries newer than the cursor do not appear on later pages"
    );
    let listing = all_entries(&store).await;
    let order: Vec<_> = listing.iter().map(|e| (e.sort_at, e.id)).collect();
    let mut sorted = order.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(order, sorted, "the listing is (sort_at, id) descending");
}

pub async fn limit_defaults_and_caps(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed").await;
    let many: Vec<_> = (0..60).map(|i| entry(&format!("e{i}"), "t", "s")).collect();
    store.apply_fetch(ok(id, t(60), many)).await.unwrap();
    assert_eq!(
        ids(&store, EntryQuery::default()).await.len(),
        50,
        "default 50"
    );
    let five = EntryQuery {
        limit: 5,
        ..Default::default()
    };
    assert_eq!(ids(&store, five).await.len(), 5);
    let huge = EntryQuery {
        limit: u32::MAX,
        ..Default::default()
    };
    assert_eq!(ids(&store, huge).await.len(), 60);
}

/// Entries sort by published time, else updated time, else first seen; a date in the future
/// sorts as first seen.
pub async fn sort_time_prefers_published_then_updated_and_never_the_future(store: Arc<dyn Store>) {
    let f = feed(&store, "https://example.org/sorting").await;
    let updated_only = Entry {
        updated: Some(t(500)),
        ..entry("updated-only", "u", "")
    };
    let entries = vec![
        dated("published", t(300)),
        updated_only,
        entry("undated", "n", ""),
        dated("future", t(1_000_000)),
    ];
    store
        .apply_fetch(ok(f, t(1000), entries))
        .await
        .expect("apply");
    let sorted: Vec<(String, i64)> = all_entries(&store)
        .await
        .into_iter()
        .map(|e| (e.entry.identity, e.sort_at.timestamp() - t(0).timestamp()))
        .collect();
    let want = [
        ("future", 1000),
        ("undated", 1000),
        ("updated-only", 500),
        ("published", 300),
    ];
    let sorted: Vec<(&str, i64)> = sorted.iter().map(|(id, s)| (id.as_str(), *s)).collect();
    assert_eq!(sorted, want);
}

pub async fn category_filter_matches_whole_categories_case_folded(store: Arc<dyn Store>) {
    let id = feed(&store, "https://example.org/feed").await;
    let filed = |key: &str, categories: &[&str]| Entry {
        categories: categories.iter().map(|c| (*c).to_owned()).collect(),
        ..entry(key, key, "")
    };
    store
        .apply_fetch(ok(
            id,
            t(60),
            vec![
                filed("a", &["Rust", "Web Dev"]),
                filed("b", &["rustacean"]),
                filed("c", &[" ÉCONOMIE "]),
                filed("d", &[]),
            ],
        ))
        .await
        .unwrap();
    let in_category = |c: &str| EntryQuery {
        category: Some(c.to_owned()),
        ..Default::default()
    };
    assert_eq!(ids(&store, in_category("rust")).await, ["a"]);
    assert_eq!(ids(&store, in_category("WEB DEV")).await, ["a"]);
    assert_eq!(ids(&store, in_category("économie")).await, ["c"]);
    assert!(ids(&store, in_category("web")).await.is_empty());
    assert!(ids(&store, in_category("   ")).await.is_empty());
    // A changed entry's categories follow it.
    store
        .apply_fetch(ok(id, t(120), vec![filed("b", &["Rust"])]))
        .await
        .unwrap();
    let mut found = ids(&store, in_category("rust")).await;
    found.sort();
    assert_eq!(found, ["a", "b"]);
}

pub async fn ff16_expired_entries_and_feeds_leave_current_listings(store: Arc<dyn Store>) {
    let one = feed(&store, "https://one.example/feed").await;
    let two = feed(&store, "https://two.example/feed").await;
    let expiring = |key: &str, at: i64| Entry {
        expires: Some(t(at)),
        ..entry(key, key, "word")
    };
    store
        .apply_fetch(ok(
            one,
            t(60),
            vec![
                expiring("gone", 500),
                expiring("later", 5000),
                entry("kept", "kept", "word"),
            ],
        ))
        .await
        .unwrap();
    let mut expired_feed = ok(two, t(60), vec![entry("of-expired-feed", "x", "word")]);
    if let Some(meta) = expired_feed.update.meta.as_mut() {
        meta.expires = Some(t(1000));
    }
    store.apply_fetch(expired_feed).await.unwrap();
    assert_eq!(
        store.feed(two).await.unwrap().unwrap().expires,
        Some(t(1000))
    );

    let current = |at: i64, search: Option<&str>| EntryQuery {
        current_at: Some(t(at)),
        search: search.map(str::to_owned),
        ..Default::default()
    };
    let mut at_100 = ids(&store, current(100, None)).await;
    at_100.sort();
    assert_eq!(at_100, ["gone", "kept", "later", "of-expired-feed"]);
    let mut at_2000 = ids(&store, current(2000, Some("word"))).await;
    at_2000.sort();
    assert_eq!(at_2000, ["kept", "later"], "search leaves them out too");
    assert_eq!(
        all_entries(&store).await.len(),
        4,
        "kept for administration"
    );

    // A later body without the end clears the feed's expiry.
    store.apply_fetch(ok(two, t(3000), vec![])).await.unwrap();
    assert_eq!(store.feed(two).await.unwrap().unwrap().expires, None);
    assert!(
        ids(&store, current(4000, None))
            .await
            .contains(&"of-expired-feed".to_owned())
    );
}

pub async fn subscriber_filter_lists_only_that_subscribers_feeds(store: Arc<dyn Store>) {
    let mine = subscribe(&store, "https://one.example/feed", "key:1", t(0))
        .await
        .feed_id;
    let theirs = subscribe(&store, "https://two.example/feed", "key:2", t(0))
        .await
        .feed_id;
    subscribe(&store, "https://two.example/feed", "key:3", t(0)).await;
    store
        .apply_fetch(ok(mine, t(60), vec![entry("m", "m", "")]))
        .await
        .unwrap();
    store
        .apply_fetch(ok(theirs, t(60), vec![entry("t", "t", "")]))
        .await
        .unwrap();
    let of = |who: &str| EntryQuery {
        subscriber: Some(who.to_owned()),
        ..Default::default()
    };
    assert_eq!(ids(&store, of("key:1")).await, ["m"]);
    assert_eq!(ids(&store, of("key:3")).await, ["t"]);
    assert!(ids(&store, of("key:9")).await.is_empty());

    let feeds = |who: &'static str| {
        let store = store.clone();
        async move {
            let found = store.feeds_of(who).await.expect("feeds of");
            found.into_iter().map(|f| f.id).collect::<Vec<_>>()
        }
    };
    assert_eq!(feeds("key:1").await, [mine]);
    assert_eq!(feeds("key:3").await, [theirs]);
    assert!(feeds("key:9").await.is_empty());
}

/// One entry by its row id is the entry the listing shows; an unknown id is none.
pub async fn one_entry_by_id_is_the_listed_entry(store: Arc<dyn Store>) {
    let f = feed(&store, "https://example.org/by-id").await;
    let content = Entry {
        content: Some("<p>Körper & <b>text</b></p>".to_owned()),
        ..dated("second", t(200))
    };
    store
        .apply_fetch(ok(f, t(1000), vec![dated("first", t(100)), content]))
        .await
        .expect("apply");
    let listed = all_entries(&store).await;
    assert_eq!(listed.len(), 2);
    for want in &listed {
        let got = store.entry(want.id).await.expect("entry by id");
        assert_eq!(got.as_ref(), Some(want), "entry {}", want.id);
    }
    assert_eq!(
        listed[0].entry.content.as_deref(),
        Some("<p>Körper & <b>text</b></p>")
    );
    let unknown = listed.iter().map(|e| e.id).max().unwrap_or(0) + 1000;
    assert_eq!(store.entry(unknown).await.expect("unknown id"), None);
    assert_eq!(store.entry(-1).await.expect("negative id"), None);
}
