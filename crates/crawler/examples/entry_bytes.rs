//! How many bytes a stored entry takes (issue 17, "bytes per entry"; docs/benchmarks.md):
//!
//! ```text
//! cargo run --release -p tidings-crawler --example entry_bytes -- DB FEEDS [XML_DIR]
//! ```
//!
//! Fills the SQLite file `DB` (which must not exist) with `FEEDS` generated feeds of 20
//! articles each (see [`document`]), parsed and stored as a read stores them; then vacuums the
//! file and prints its size, the entries stored and the bytes per entry. With `XML_DIR`, each
//! feed's document is also written there (`feed-N.xml`), for other readers to store the same
//! feeds (`tools/reader_size.py`).

use chrono::{TimeZone, Utc};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use tidings_feed::ParseOptions;
use tidings_model::FeedUrl;
use tidings_store::{FeedMeta, NewFeed, Store};

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (db, feeds, xml_dir) = match args.as_slice() {
        [db, feeds] => (db, feeds, None),
        [db, feeds, dir] => (db, feeds, Some(Path::new(dir))),
        _ => {
            eprintln!("usage: entry_bytes DB FEEDS [XML_DIR]");
            return ExitCode::from(2);
        }
    };
    let Ok(feeds) = feeds.parse::<usize>() else {
        eprintln!("FEEDS is a number");
        return ExitCode::from(2);
    };
    if Path::new(db).exists() {
        eprintln!("{db} exists: give a new file");
        return ExitCode::from(2);
    }
    match run(db, feeds, xml_dir).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("entry_bytes: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Words the generated articles are made of.
const WORDS: &[&str] = &[
    "council",
    "river",
    "budget",
    "school",
    "harbour",
    "festival",
    "election",
    "storm",
    "railway",
    "museum",
    "market",
    "hospital",
    "bridge",
    "library",
    "season",
    "energy",
    "the",
    "a",
    "of",
    "and",
    "to",
    "in",
    "for",
    "with",
    "on",
    "after",
    "before",
    "during",
    "announced",
    "reported",
    "opened",
    "closed",
    "approved",
    "delayed",
    "visited",
    "said",
    "residents",
    "officials",
    "students",
    "players",
    "workers",
    "visitors",
    "experts",
    "new",
    "local",
    "national",
    "early",
    "late",
    "record",
    "annual",
    "public",
    "final",
];

/// A deterministic run of `n` words from `seed`.
fn words(seed: &mut u64, n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        if i > 0 {
            out.push(' ');
        }
        out.push_str(WORDS[(*seed >> 33) as usize % WORDS.len()]);
    }
    out
}

/// Feed `f` as a publisher would write it: RSS 2.0 with 20 items, each a title, a link, a
/// guid, a date, an author, three categories, an HTML description of a few sentences and the
/// article in `content:encoded` (about 4 KB of HTML), as news and blog feeds commonly are.
fn document(f: usize) -> String {
    let mut seed = f as u64 + 1;
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\" \
         xmlns:content=\"http://purl.org/rss/1.0/modules/content/\" \
         xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><channel><title>{}</title>\
         <link>https://site{f}.example/</link><description>{}</description>",
        words(&mut seed, 4),
        words(&mut seed, 12)
    );
    for i in 0..20 {
        let mut article = String::new();
        for p in 0..8 {
            article.push_str(&format!(
                "<p>{} <a href=\"https://site{f}.example/topic/{p}\">{}</a> {}.</p>",
                words(&mut seed, 40),
                words(&mut seed, 3),
                words(&mut seed, 30)
            ));
        }
        xml.push_str(&format!(
            "<item><title>{}</title><link>https://site{f}.example/{i}/{}</link>\
             <guid isPermaLink=\"false\">site{f}-post-{i}</guid>\
             <pubDate>Thu, {:02} Jan 2026 {:02}:15:00 GMT</pubDate><dc:creator>{}</dc:creator>\
             <category>{}</category><category>{}</category><category>{}</category>\
             <description><![CDATA[<p>{}</p>]]></description>\
             <content:encoded><![CDATA[{article}]]></content:encoded></item>",
            words(&mut seed, 9),
            words(&mut seed, 4).replace(' ', "-"),
            1 + i % 28,
            i % 24,
            words(&mut seed, 2),
            words(&mut seed, 1),
            words(&mut seed, 1),
            words(&mut seed, 1),
            words(&mut seed, 45),
        ));
    }
    xml.push_str("</channel></rss>");
    xml
}

async fn run(
    db: &str,
    feeds: usize,
    xml_dir: Option<&Path>,
) -> Result<(), Box<dyn std::error::Error>> {
    if let Some(dir) = xml_dir {
        std::fs::create_dir_all(dir)?;
    }
    let store: Arc<dyn Store> = tidings_store::open(db).await?;
    let at = Utc
        .with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
        .single()
        .unwrap_or_default();
    let mut entries = 0usize;
    let mut input = 0usize;
    for f in 0..feeds {
        let url = FeedUrl::parse(&format!("https://site{f}.example/feed.xml"))?;
        let bytes = document(f);
        input += bytes.len();
        if let Some(dir) = xml_dir {
            std::fs::write(dir.join(format!("feed-{f}.xml")), &bytes)?;
        }
        let options = ParseOptions {
            base_url: Some(url.as_str()),
            ..ParseOptions::default()
        };
        let parsed = tidings_feed::parse(bytes.as_bytes(), &options)?;
        let (doc_entries, title) = (parsed.entries, parsed.feed.title);
        let new = NewFeed {
            next_fetch_at: at,
            next_fetch_reason: "first add".into(),
            interval_secs: 3600,
        };
        let id = store.subscribe(&url, "bench", at, &new).await?.feed_id;
        entries += doc_entries.len();
        let mut record =
            tidings_store::testkit::answered(id, at, tidings_model::Label::Ok, Some(200));
        record.update.content_hash = Some(format!("body-{f}"));
        record.update.meta = Some(FeedMeta {
            title: title.clone(),
            site_link: None,
            expires: None,
            thumbnail: None,
        });
        record.entries = doc_entries;
        let row = &mut record.log[0];
        row.host = "https://corpus.example:443".into();
        row.url = url.to_string();
        row.bytes = 10_000;
        row.duration_ms = 50;
        row.rule = "first add".into();
        store.apply_fetch(record).await?;
    }
    let stored = store.count_entries(None).await?;
    drop(store);
    // Measured as a copy would be: compacted, nothing in the write-ahead log.
    let conn = format!("sqlite://{db}");
    {
        use sqlx::Connection;
        let mut c = sqlx::SqliteConnection::connect(&conn).await?;
        sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(&mut c)
            .await?;
        sqlx::query("VACUUM").execute(&mut c).await?;
    }
    let size = std::fs::metadata(db)?.len();
    println!(
        "{feeds} feeds of 20 items ({input} bytes of XML), {stored} entries stored \
         ({entries} parsed), {size} bytes, {} bytes per entry",
        size / stored.max(1)
    );
    Ok(())
}
