//! Large, realistic feeds generated in memory for the parser benchmark and the peak-memory
//! example: RSS 2.0 with `content:encoded` (~5 MB), Atom 1.0 with escaped HTML (~4 MB), RSS 1.0
//! (RDF) in ISO-8859-1 with non-ASCII text (~4 MB) and JSON Feed 1.1 (~2 MB).
//!
//! Everything is derived from a fixed seed, so every run parses exactly the same bytes. Shared
//! by `benches/parse.rs` and `examples/peak_memory.rs` through `#[path]`.

#![allow(dead_code)]

use chrono::{DateTime, Duration, TimeZone, Utc};
use std::fmt::Write as _;

/// One generated document.
pub struct Case {
    /// Short name used as the benchmark id, e.g. `rss20_5mb`.
    pub name: &'static str,
    pub bytes: Vec<u8>,
    /// How many entries the document holds.
    pub entries: usize,
    /// Whether the parser must read it today (the JSON case); the XML cases are reported but
    /// not required until the XML parser lands.
    pub required: bool,
}

const MB: usize = 1024 * 1024;

/// All four cases, largest first.
pub fn all() -> Vec<Case> {
    vec![
        rss20(5 * MB),
        atom10(4 * MB),
        rdf_latin1(4 * MB),
        json_feed(2 * MB),
    ]
}

/// `n` small documents of the four kinds in turn, from 1 KB to 64 KB (sizes spread evenly on a
/// log scale), each from its own seed: the per-document costs a crawler pays on most feeds.
pub fn small(n: usize) -> Vec<Case> {
    let mut rng = Rng::new(0x534d_414c);
    (0..n)
        .map(|i| {
            // 2^10 .. 2^16 bytes.
            let target = 1usize << (10 + rng.below(6)) | rng.below(1024);
            let seed = rng.next();
            match i % 4 {
                0 => rss20_seeded(target, seed),
                1 => atom10_seeded(target, seed),
                2 => rdf_latin1_seeded(target, seed),
                _ => json_feed_seeded(target, seed),
            }
        })
        .collect()
}

/// The input documents of the golden corpus under `dir` (`crates/feed/tests/fixtures`): the
/// files ending in `.xml` or `.json` that are not `.expected.json` or `.options.json`, as
/// `tests/golden.rs` reads them, in path order.
pub fn golden_inputs(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                walk(&path, out);
            } else if (name.ends_with(".xml") || name.ends_with(".json"))
                && !name.ends_with(".expected.json")
                && !name.ends_with(".options.json")
            {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// A small xorshift generator: deterministic and dependency-free.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items.get(self.below(items.len())).copied().unwrap_or("")
    }
}

const WORDS: &[&str] = &[
    "the",
    "council",
    "announced",
    "a",
    "new",
    "plan",
    "for",
    "river",
    "transport",
    "and",
    "local",
    "schools",
    "will",
    "open",
    "next",
    "week",
    "after",
    "months",
    "of",
    "debate",
    "residents",
    "said",
    "weather",
    "market",
    "prices",
    "rose",
    "sharply",
    "in",
    "spring",
    "researchers",
    "found",
    "evidence",
    "that",
    "small",
    "changes",
    "matter",
    "library",
    "festival",
    "returns",
    "with",
    "music",
    "theatre",
    "volunteers",
    "bridge",
    "repairs",
    "delayed",
    "until",
    "autumn",
    "budget",
    "hospital",
    "railway",
    "station",
    "museum",
];

/// Words with Latin-1 letters, all encodable in ISO-8859-1.
const LATIN1_WORDS: &[&str] = &[
    "café",
    "naïve",
    "Zürich",
    "señor",
    "garçon",
    "über",
    "façade",
    "déjà",
    "crème",
    "brûlée",
    "Ålesund",
    "smørrebrød",
    "Málaga",
    "São",
    "Paulo",
    "fiancée",
    "résumé",
    "jalapeño",
    "Köln",
    "Straße",
    "élève",
    "côte",
    "années",
    "été",
    "«bientôt»",
    "¿qué?",
    "año",
    "Ærø",
];

const NAMES: &[&str] = &[
    "Ada Lovelace",
    "Grace Hopper",
    "Alan Turing",
    "Edsger Dijkstra",
    "Barbara Liskov",
    "Donald Knuth",
    "Frances Allen",
    "Ken Thompson",
    "Radia Perlman",
    "John McCarthy",
];

const TOPICS: &[&str] = &[
    "politics",
    "science",
    "culture",
    "sport",
    "economy",
    "health",
    "travel",
    "technology",
    "education",
    "environment",
];

fn sentence(rng: &mut Rng, out: &mut String, words: &[&str], extra: &[&str]) {
    let n = 8 + rng.below(14);
    for i in 0..n {
        let word = if !extra.is_empty() && rng.below(4) == 0 {
            rng.pick(extra)
        } else {
            rng.pick(words)
        };
        if i == 0 {
            let mut chars = word.chars();
            if let Some(first) = chars.next() {
                out.extend(first.to_uppercase());
                out.push_str(chars.as_str());
            }
        } else {
            out.push(' ');
            out.push_str(word);
        }
    }
    out.push_str(". ");
}

/// HTML paragraphs of about `target` bytes with links and emphasis.
fn html(rng: &mut Rng, target: usize, extra: &[&str]) -> String {
    let mut out = String::with_capacity(target + 256);
    while out.len() < target {
        out.push_str("<p>");
        for _ in 0..3 + rng.below(4) {
            match rng.below(6) {
                0 => {
                    let _ = write!(
                        out,
                        "<a href=\"https://news.example.com/topics/{}?ref=feed&amp;x={}\">",
                        rng.pick(TOPICS),
                        rng.below(1000)
                    );
                    sentence(rng, &mut out, WORDS, extra);
                    out.push_str("</a> ");
                }
                1 => {
                    out.push_str("<em>");
                    sentence(rng, &mut out, WORDS, extra);
                    out.push_str("</em> ");
                }
                2 => {
                    out.push_str("<strong>");
                    sentence(rng, &mut out, WORDS, extra);
                    out.push_str("</strong> ");
                }
                _ => sentence(rng, &mut out, WORDS, extra),
            }
        }
        out.push_str("</p>\n");
    }
    out
}

fn plain(rng: &mut Rng, target: usize, extra: &[&str]) -> String {
    let mut out = String::with_capacity(target + 128);
    while out.len() < target {
        sentence(rng, &mut out, WORDS, extra);
    }
    out
}

/// Escape text for XML character data and attribute values: the escaper tidings writes its
/// own XML with.
fn escape(text: &str) -> String {
    tidings_feed::escape::text(text)
}

fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0)
        .single()
        .unwrap_or_default()
}

fn item_date(i: usize) -> DateTime<Utc> {
    start() - Duration::minutes(37 * i as i64)
}

/// RSS 2.0 with `content:encoded` CDATA HTML, categories, `dc:creator`, enclosures, pubDate.
pub fn rss20(target: usize) -> Case {
    rss20_seeded(target, 0x5255_5353)
}

/// [`rss20`] from another seed: another document of the same shape.
pub fn rss20_seeded(target: usize, seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let mut doc = String::with_capacity(target + 8192);
    doc.push_str(concat!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
        "<rss version=\"2.0\" xmlns:content=\"http://purl.org/rss/1.0/modules/content/\" ",
        "xmlns:dc=\"http://purl.org/dc/elements/1.1/\" xmlns:atom=\"http://www.w3.org/2005/Atom\">\n",
        "<channel>\n<title>Example News</title>\n<link>https://news.example.com/</link>\n",
        "<description>All the news from the example town</description>\n",
        "<language>en-us</language>\n<ttl>30</ttl>\n",
        "<atom:link rel=\"self\" type=\"application/rss+xml\" href=\"https://news.example.com/feed.xml\"/>\n",
        "<lastBuildDate>Thu, 15 Jan 2026 12:00:00 +0000</lastBuildDate>\n",
    ));
    let mut entries = 0;
    while doc.len() < target {
        let i = entries;
        let mut title = String::new();
        sentence(&mut rng, &mut title, WORDS, &[]);
        let title = title.trim_end_matches([' ', '.']).to_owned();
        let date = item_date(i).format("%a, %d %b %Y %H:%M:%S +0000");
        let summary = plain(&mut rng, 300, &[]);
        let body = html(&mut rng, 4000, &[]);
        let _ = write!(
            doc,
            "<item>\n<title>{title}</title>\n<link>https://news.example.com/2026/{i}/story</link>\n\
             <guid isPermaLink=\"false\">tag:news.example.com,2026:story-{i}</guid>\n\
             <pubDate>{date}</pubDate>\n<dc:creator>{author}</dc:creator>\n\
             <category>{c1}</category>\n<category>{c2}</category>\n\
             <description>{summary}</description>\n\
             <content:encoded><![CDATA[{body}]]></content:encoded>\n\
             <enclosure url=\"https://media.example.com/audio/{i}.mp3\" length=\"{len}\" type=\"audio/mpeg\"/>\n\
             </item>\n",
            title = escape(&title),
            author = rng.pick(NAMES),
            c1 = rng.pick(TOPICS),
            c2 = rng.pick(TOPICS),
            summary = escape(&summary),
            len = 1_000_000 + rng.below(9_000_000),
        );
        entries += 1;
    }
    doc.push_str("</channel>\n</rss>\n");
    Case {
        name: "rss20_5mb",
        bytes: doc.into_bytes(),
        entries,
        required: false,
    }
}

/// Atom 1.0 with `type="html"` escaped content.
pub fn atom10(target: usize) -> Case {
    atom10_seeded(target, 0x4154_4f4d)
}

/// [`atom10`] from another seed: another document of the same shape.
pub fn atom10_seeded(target: usize, seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let mut doc = String::with_capacity(target + 8192);
    doc.push_str(concat!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n",
        "<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"en\">\n",
        "<title>Example Journal</title>\n<subtitle>Notes and essays</subtitle>\n",
        "<id>tag:journal.example.org,2026:feed</id>\n",
        "<link rel=\"alternate\" href=\"https://journal.example.org/\"/>\n",
        "<link rel=\"self\" href=\"https://journal.example.org/atom.xml\"/>\n",
        "<updated>2026-01-15T12:00:00Z</updated>\n",
        "<author><name>Journal Staff</name></author>\n",
    ));
    let mut entries = 0;
    while doc.len() < target {
        let i = entries;
        let mut title = String::new();
        sentence(&mut rng, &mut title, WORDS, &[]);
        let title = title.trim_end_matches([' ', '.']).to_owned();
        let published = item_date(i).to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let updated = (item_date(i) + Duration::minutes(5))
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let summary = plain(&mut rng, 300, &[]);
        let body = html(&mut rng, 3200, &[]);
        let author = rng.pick(NAMES);
        let _ = write!(
            doc,
            "<entry>\n<id>tag:journal.example.org,2026:entry-{i}</id>\n\
             <title type=\"text\">{title}</title>\n\
             <link rel=\"alternate\" type=\"text/html\" href=\"https://journal.example.org/{i}.html\"/>\n\
             <published>{published}</published>\n<updated>{updated}</updated>\n\
             <author><name>{author}</name><email>{email}@journal.example.org</email></author>\n\
             <category term=\"{c1}\"/>\n<category term=\"{c2}\"/>\n\
             <summary type=\"text\">{summary}</summary>\n\
             <content type=\"html\">{body}</content>\n</entry>\n",
            title = escape(&title),
            email = author.to_lowercase().replace(' ', "."),
            c1 = rng.pick(TOPICS),
            c2 = rng.pick(TOPICS),
            summary = escape(&summary),
            body = escape(&body),
        );
        entries += 1;
    }
    doc.push_str("</feed>\n");
    Case {
        name: "atom10_4mb",
        bytes: doc.into_bytes(),
        entries,
        required: false,
    }
}

/// RSS 1.0 (RDF) declared and encoded as ISO-8859-1, with accented text throughout.
pub fn rdf_latin1(target: usize) -> Case {
    rdf_latin1_seeded(target, 0x5244_4621)
}

/// [`rdf_latin1`] from another seed: another document of the same shape.
pub fn rdf_latin1_seeded(target: usize, seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    // The items first, so that the channel's rdf:Seq can list them.
    let mut items = String::with_capacity(target + 8192);
    let mut entries = 0;
    while items.len() < target {
        let i = entries;
        let mut title = String::new();
        sentence(&mut rng, &mut title, WORDS, LATIN1_WORDS);
        let title = title.trim_end_matches([' ', '.']).to_owned();
        let date = item_date(i).format("%Y-%m-%dT%H:%M:%S+00:00");
        let body = html(&mut rng, 3500, LATIN1_WORDS);
        let _ = write!(
            items,
            "<item rdf:about=\"https://revue.example.fr/articles/{i}\">\n\
             <title>{title}</title>\n<link>https://revue.example.fr/articles/{i}</link>\n\
             <description>{body}</description>\n<dc:date>{date}</dc:date>\n\
             <dc:creator>{author}</dc:creator>\n<dc:subject>{subject}</dc:subject>\n</item>\n",
            title = escape(&title),
            body = escape(&body),
            author = rng.pick(NAMES),
            subject = rng.pick(LATIN1_WORDS),
        );
        entries += 1;
    }
    let mut doc = String::with_capacity(items.len() + entries * 80 + 2048);
    doc.push_str(concat!(
        "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n",
        "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" ",
        "xmlns=\"http://purl.org/rss/1.0/\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\">\n",
        "<channel rdf:about=\"https://revue.example.fr/\">\n",
        "<title>La Revue de l'été</title>\n<link>https://revue.example.fr/</link>\n",
        "<description>Actualités, côté café et crème brûlée</description>\n",
        "<dc:language>fr</dc:language>\n<items>\n<rdf:Seq>\n",
    ));
    for i in 0..entries {
        let _ = writeln!(
            doc,
            "<rdf:li rdf:resource=\"https://revue.example.fr/articles/{i}\"/>"
        );
    }
    doc.push_str("</rdf:Seq>\n</items>\n</channel>\n");
    doc.push_str(&items);
    doc.push_str("</rdf:RDF>\n");
    let (bytes, _, unmappable) = encoding_rs::WINDOWS_1252.encode(&doc);
    debug_assert!(!unmappable, "the RDF text must fit ISO-8859-1");
    Case {
        name: "rdf_latin1_4mb",
        bytes: bytes.into_owned(),
        entries,
        required: false,
    }
}

/// JSON Feed 1.1 with HTML content, authors, tags, attachments and images.
pub fn json_feed(target: usize) -> Case {
    json_feed_seeded(target, 0x4a53_4f4e)
}

/// [`json_feed`] from another seed: another document of the same shape.
pub fn json_feed_seeded(target: usize, seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let mut items = Vec::new();
    let mut size = 0;
    while size < target {
        let i = items.len();
        let mut title = String::new();
        sentence(&mut rng, &mut title, WORDS, &[]);
        let body = html(&mut rng, 3500, &[]);
        let summary = plain(&mut rng, 250, &[]);
        let item = serde_json::json!({
            "id": format!("https://blog.example.net/posts/{i}"),
            "url": format!("https://blog.example.net/posts/{i}"),
            "title": title.trim_end_matches([' ', '.']),
            "content_html": body,
            "summary": summary,
            "image": format!("https://blog.example.net/images/{i}.jpg"),
            "date_published": item_date(i).to_rfc3339(),
            "date_modified": (item_date(i) + Duration::minutes(9)).to_rfc3339(),
            "authors": [{"name": rng.pick(NAMES), "url": "https://blog.example.net/about"}],
            "tags": [rng.pick(TOPICS), rng.pick(TOPICS)],
            "attachments": [{
                "url": format!("https://media.example.net/{i}.m4a"),
                "mime_type": "audio/x-m4a",
                "size_in_bytes": 1_000_000 + rng.below(9_000_000),
                "duration_in_seconds": 60 + rng.below(3600)
            }]
        });
        size += item.to_string().len() + 1;
        items.push(item);
    }
    let entries = items.len();
    let feed = serde_json::json!({
        "version": "https://jsonfeed.org/version/1.1",
        "title": "Example Blog",
        "home_page_url": "https://blog.example.net/",
        "feed_url": "https://blog.example.net/feed.json",
        "description": "Posts from an example blog",
        "icon": "https://blog.example.net/icon.png",
        "favicon": "https://blog.example.net/favicon.ico",
        "authors": [{"name": "Example Blog"}],
        "language": "en",
        "items": items
    });
    Case {
        name: "json_feed_2mb",
        bytes: serde_json::to_vec(&feed).unwrap_or_default(),
        entries,
        required: true,
    }
}
