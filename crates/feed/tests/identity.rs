//! Entry identity (`tidings_feed::identity`): every branch of the rule, stability under
//! reordering, and the disambiguation of duplicates.

use chrono::{TimeZone, Utc};
use proptest::prelude::*;
use std::collections::HashSet;
use tidings_feed::identity::assign;
use tidings_model::{Enclosure, Entry, WarningKind};

/// A compact way to describe an entry in a table row.
#[derive(Debug, Clone, Copy, Default)]
struct E {
    guid: Option<&'static str>,
    id: &'static str,
    link: Option<&'static str>,
    title: Option<&'static str>,
    published: Option<i64>,
    enclosure: Option<&'static str>,
    summary: Option<&'static str>,
}

impl E {
    fn build(self) -> Entry {
        Entry {
            identity: self.id.to_owned(),
            id: self.guid.map(str::to_owned),
            link: self.link.map(str::to_owned),
            title: self.title.map(str::to_owned),
            published: self
                .published
                .and_then(|s| Utc.timestamp_opt(s, 0).single()),
            summary: self.summary.map(str::to_owned),
            enclosures: self
                .enclosure
                .map(|url| Enclosure {
                    url: url.to_owned(),
                    ..Enclosure::default()
                })
                .into_iter()
                .collect(),
            ..Entry::default()
        }
    }
}

/// Assign ids to `rows` and return (ids, number of DuplicateId warnings).
fn ids_of(rows: &[E]) -> (Vec<String>, usize) {
    let mut entries: Vec<Entry> = rows.iter().map(|r| r.build()).collect();
    let mut warnings = Vec::new();
    assign(&mut entries, &mut warnings);
    assert!(warnings.iter().all(|w| w.kind == WarningKind::DuplicateId));
    (
        entries.into_iter().map(|e| e.identity).collect(),
        warnings.len(),
    )
}

fn one(row: E) -> String {
    let (ids, warnings) = ids_of(&[row]);
    assert_eq!(warnings, 0);
    ids.into_iter().next().unwrap()
}

const T: i64 = 1_767_225_600; // 2026-01-01T00:00:00Z

#[test]
fn natural_id_branches() {
    // (name, entry, expected id; `None` means "a hash: id")
    let rows: &[(&str, E, Option<&str>)] = &[
        (
            "guid wins over link",
            E {
                guid: Some("urn:uuid:1"),
                link: Some("https://e.example/1"),
                ..E::default()
            },
            Some("urn:uuid:1"),
        ),
        (
            "guid is trimmed",
            E {
                guid: Some("\n  abc \t"),
                ..E::default()
            },
            Some("abc"),
        ),
        (
            "blank guid falls back to the link",
            E {
                guid: Some("   "),
                link: Some(" https://e.example/2 "),
                ..E::default()
            },
            Some("https://e.example/2"),
        ),
        (
            "an identity set before is derived again: only the rule sets it",
            E {
                id: " earlier-identity ",
                link: Some("https://e.example/3"),
                ..E::default()
            },
            Some("https://e.example/3"),
        ),
        (
            "the publisher's id wins over an identity set before",
            E {
                guid: Some("g"),
                id: "other",
                ..E::default()
            },
            Some("g"),
        ),
        (
            "no guid, blank link: hash",
            E {
                link: Some(""),
                title: Some("t"),
                ..E::default()
            },
            None,
        ),
        ("nothing at all: hash", E::default(), None),
    ];
    for (name, row, expected) in rows {
        let id = one(*row);
        match expected {
            Some(expected) => assert_eq!(id, *expected, "{name}"),
            None => {
                let hex = id
                    .strip_prefix("hash:")
                    .unwrap_or_else(|| panic!("{name}: {id}"));
                assert_eq!(hex.len(), 32, "{name}: {id}");
                assert!(
                    hex.bytes()
                        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
                );
            }
        }
    }
}

#[test]
fn hash_id_depends_on_title_published_and_first_enclosure_only() {
    let base = E {
        title: Some("Title"),
        published: Some(T),
        enclosure: Some("https://e.example/a.mp3"),
        summary: Some("summary one"),
        ..E::default()
    };
    let id = one(base);
    // Same three fields, other summary: same id (edits to the text keep the identity).
    assert_eq!(
        one(E {
            summary: Some("edited summary"),
            ..base
        }),
        id
    );
    // Each of the three fields changes it.
    for changed in [
        E {
            title: Some("Other"),
            ..base
        },
        E {
            title: None,
            ..base
        },
        E {
            published: Some(T + 1),
            ..base
        },
        E {
            published: None,
            ..base
        },
        E {
            enclosure: Some("https://e.example/b.mp3"),
            ..base
        },
        E {
            enclosure: None,
            ..base
        },
    ] {
        assert_ne!(one(changed), id);
    }
    // The encoding is unambiguous: moving text between fields changes the hash, and an
    // empty field is not an absent one.
    let a = one(E {
        title: Some("ab"),
        enclosure: Some("c"),
        ..E::default()
    });
    let b = one(E {
        title: Some("a"),
        enclosure: Some("bc"),
        ..E::default()
    });
    assert_ne!(a, b);
    assert_ne!(
        one(E {
            title: Some(""),
            ..E::default()
        }),
        one(E::default())
    );
}

#[test]
fn hash_id_is_a_fixed_value() {
    // Computed independently from the documented encoding (with Python's hashlib). Pinned so
    // that a change to the rule, which would re-identify every stored entry without a guid or
    // link, cannot go unnoticed.
    let id = one(E {
        title: Some("Hello"),
        published: Some(T),
        enclosure: Some("https://e.example/a.mp3"),
        ..E::default()
    });
    assert_eq!(id, "hash:7737bc74938d086f674aff6514d0ce0b");
}

#[test]
fn unique_ids_are_left_alone() {
    let rows = [
        E {
            guid: Some("1"),
            ..E::default()
        },
        E {
            guid: Some("2"),
            ..E::default()
        },
        E {
            link: Some("https://e.example/3"),
            ..E::default()
        },
    ];
    let (ids, warnings) = ids_of(&rows);
    assert_eq!(ids, ["1", "2", "https://e.example/3"]);
    assert_eq!(warnings, 0);
}

#[test]
fn duplicates_with_different_content_get_content_suffixes() {
    let a = E {
        guid: Some("X"),
        title: Some("first"),
        ..E::default()
    };
    let b = E {
        guid: Some("X"),
        title: Some("second"),
        ..E::default()
    };
    let (ids, warnings) = ids_of(&[a, b]);
    assert_eq!(warnings, 1);
    assert_ne!(ids[0], ids[1]);
    // One keeps X, the other is X#<8 hex digits>.
    let renamed: Vec<&String> = ids.iter().filter(|id| *id != "X").collect();
    assert_eq!(renamed.len(), 1);
    let suffix = renamed[0].strip_prefix("X#").unwrap();
    assert_eq!(suffix.len(), 8);
    assert!(suffix.bytes().all(|b| b.is_ascii_hexdigit()));

    // Reversed document order: each entry keeps the same id.
    let (reversed, _) = ids_of(&[b, a]);
    assert_eq!(reversed, [ids[1].clone(), ids[0].clone()]);
}

#[test]
fn identical_duplicates_are_numbered_in_document_order() {
    let a = E {
        guid: Some("X"),
        title: Some("same"),
        ..E::default()
    };
    let (ids, warnings) = ids_of(&[a, a, a]);
    assert_eq!(ids, ["X", "X#2", "X#3"]);
    assert_eq!(warnings, 2);
}

#[test]
fn mixed_duplicates_table() {
    let a = E {
        guid: Some("X"),
        title: Some("a"),
        ..E::default()
    };
    let b = E {
        guid: Some("X"),
        title: Some("b"),
        ..E::default()
    };
    let (ab, _) = ids_of(&[a, b]);
    let id_a = ab[0].clone();
    let id_b = ab[1].clone();
    // Copies of a take a's id plus an ordinal; b's id does not move.
    let (ids, warnings) = ids_of(&[a, b, a]);
    assert_eq!(ids, [id_a.clone(), id_b.clone(), format!("{id_a}#2")]);
    assert_eq!(warnings, 2);
    let (ids, _) = ids_of(&[b, a, a]);
    assert_eq!(ids, [id_b.clone(), id_a.clone(), format!("{id_a}#2")]);
}

#[test]
fn duplicates_across_branches_share_the_rule() {
    // Two entries with the same link and no guid.
    let (ids, warnings) = ids_of(&[
        E {
            link: Some("https://e.example/p"),
            title: Some("one"),
            ..E::default()
        },
        E {
            link: Some("https://e.example/p"),
            title: Some("two"),
            ..E::default()
        },
    ]);
    assert_eq!(warnings, 1);
    assert!(ids.contains(&"https://e.example/p".to_owned()));
    // Two hash ids that collide (same title, date, enclosure) but differ in summary.
    let (ids, warnings) = ids_of(&[
        E {
            title: Some("t"),
            summary: Some("one"),
            ..E::default()
        },
        E {
            title: Some("t"),
            summary: Some("two"),
            ..E::default()
        },
    ]);
    assert_eq!(warnings, 1);
    assert_ne!(ids[0], ids[1]);
    assert!(ids.iter().all(|id| id.starts_with("hash:")));
}

#[test]
fn a_generated_id_never_clashes_with_a_publisher_id() {
    let a = E {
        guid: Some("X"),
        title: Some("a"),
        ..E::default()
    };
    let b = E {
        guid: Some("X"),
        title: Some("b"),
        ..E::default()
    };
    let (pair, _) = ids_of(&[a, b]);
    let renamed = pair.iter().find(|id| *id != "X").unwrap().clone();
    // A third entry whose publisher id is exactly the generated one.
    let sneaky = E {
        guid: Some(Box::leak(renamed.clone().into_boxed_str())),
        title: Some("c"),
        ..E::default()
    };
    let (ids, _) = ids_of(&[a, b, sneaky]);
    let unique: HashSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), 3, "{ids:?}");
}

fn arb_entry() -> impl Strategy<Value = E> {
    // Small vocabularies so that collisions are frequent.
    let guid = prop::option::of(prop::sample::select(vec!["g1", "g2", " g1 ", ""]));
    let link = prop::option::of(prop::sample::select(vec!["https://e.example/1", "l2", " "]));
    let title = prop::option::of(prop::sample::select(vec!["t1", "t2", ""]));
    let published = prop::option::of(prop::sample::select(vec![T, T + 60]));
    let enclosure = prop::option::of(prop::sample::select(vec!["https://e.example/a.mp3"]));
    let summary = prop::option::of(prop::sample::select(vec!["s1", "s2"]));
    (guid, link, title, published, enclosure, summary).prop_map(
        |(guid, link, title, published, enclosure, summary)| E {
            guid,
            id: "",
            link,
            title,
            published,
            enclosure,
            summary,
        },
    )
}

/// What the rule sees of an entry: its natural id and the fields of the content hash. Two
/// entries with equal keys are indistinguishable to it.
fn key(e: &E) -> String {
    format!("{:?}", (one(*e), e.link, e.title, e.published, e.summary))
}

proptest! {
    #[test]
    fn ids_are_unique_non_empty_and_stable_under_reordering(
        rows in prop::collection::vec(arb_entry(), 0..12),
        seed in any::<u64>(),
    ) {
        let (ids, _) = ids_of(&rows);
        prop_assert!(ids.iter().all(|id| !id.is_empty()));
        let unique: HashSet<&String> = ids.iter().collect();
        prop_assert_eq!(unique.len(), ids.len());

        // Shuffle deterministically from the seed.
        let mut order: Vec<usize> = (0..rows.len()).collect();
        let mut s = seed | 1;
        for i in (1..order.len()).rev() {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            order.swap(i, (s % (i as u64 + 1)) as usize);
        }
        let shuffled: Vec<E> = order.iter().map(|&i| rows[i]).collect();
        let (shuffled_ids, _) = ids_of(&shuffled);

        // The multiset of (content, id) is the same: an entry keeps its id wherever it is,
        // except among identical entries, which may trade ordinals.
        let mut before: Vec<(String, String)> =
            rows.iter().map(key).zip(ids.iter().cloned()).collect();
        let mut after: Vec<(String, String)> =
            shuffled.iter().map(key).zip(shuffled_ids.iter().cloned()).collect();
        before.sort();
        after.sort();
        prop_assert_eq!(before, after);
    }
}

#[test]
fn ids_survive_a_refetch_with_the_items_reordered() {
    let items = [
        r#"{"id":"guid-1","title":"one"}"#,
        r#"{"url":"https://e.example/2","title":"two"}"#,
        r#"{"title":"three","attachments":[{"url":"https://e.example/3.mp3"}]}"#,
        r#"{"id":"dup","title":"four"}"#,
        r#"{"id":"dup","title":"five"}"#,
        r#"{"id":"dup","title":"five"}"#,
    ];
    let parse = |order: &[usize]| {
        let body: Vec<&str> = order.iter().map(|&i| items[i]).collect();
        let text = format!(
            r#"{{"version":"https://jsonfeed.org/version/1.1","items":[{}]}}"#,
            body.join(",")
        );
        let parsed =
            tidings_feed::parse(text.as_bytes(), &tidings_feed::ParseOptions::default()).unwrap();
        let mut pairs: Vec<(Option<String>, String)> = parsed
            .entries
            .into_iter()
            .map(|e| (e.title, e.identity))
            .collect();
        pairs.sort();
        pairs
    };
    let first = parse(&[0, 1, 2, 3, 4, 5]);
    assert_eq!(parse(&[5, 4, 3, 2, 1, 0]), first);
    assert_eq!(parse(&[3, 0, 5, 1, 4, 2]), first);
    let ids: HashSet<&String> = first.iter().map(|(_, id)| id).collect();
    assert_eq!(ids.len(), items.len());
}
