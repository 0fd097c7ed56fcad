//! The frame every UI page shares: the layout (a top bar with navigation and search, an
//! optional side column, the main column), the response headers, the feed icons, times,
//! and the error pages.

use super::media::Icons;
use crate::auth::{Caller, Role};
use crate::escape::text as esc;
use crate::publishers::public_url;
use axum::http::header::{self, HeaderValue};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, SecondsFormat, Utc};
use tidings_store::FeedRecord;

/// The pages' Content-Security-Policy: their own stylesheet and script (`/ui.js`, no inline
/// script, no other origin), images only from the server itself (icons and the image cache)
/// or `data:`, forms only to the server, no frames.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                       img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; \
                       base-uri 'none'";

/// The stylesheet, served at `/ui.css`.
const CSS: &str = include_str!("ui.css");

/// The script, served at `/ui.js`: keyboard shortcuts and local times, for pages that work
/// without it.
const JS: &str = include_str!("ui.js");

/// The keyboard shortcuts `/ui.js` adds, as the footer lists them: (key, what it does).
pub const SHORTCUTS: [(&str, &str); 8] = [
    ("j / k", "next / previous entry"),
    ("o or Enter", "open the selected entry"),
    ("m", "mark read or unread"),
    ("s", "star or unstar"),
    ("A", "mark all read"),
    ("r", "read this feed now"),
    ("/", "search"),
    ("?", "show or hide this list"),
];

/// How long a browser may keep the stylesheet: a year. The pages ask for
/// `/ui.css?v=VERSION`, so a new version is fetched anew.
const CSS_MAX_AGE: &str = "public, max-age=31536000, immutable";

/// Monogram colours: `.m0` to `.m11` in the stylesheet.
const PALETTE: u64 = 12;

/// What the frame needs to know about the request.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// The key the viewer logged in with, if any.
    pub who: Option<Caller>,
    pub version: &'a str,
    /// The navigation item to mark as current: `reader`, `search`, `subscribe`, `admin`,
    /// `login`.
    pub current: &'a str,
}

impl Frame<'_> {
    pub fn is_admin(&self) -> bool {
        self.who.is_some_and(|c| c.role == Role::Admin)
    }
}

/// A whole page: `title` (plain text, escaped here), an optional side column and the main
/// column (both HTML, already escaped).
pub fn render(frame: &Frame<'_>, title: &str, side: Option<&str>, main: &str) -> String {
    let title = esc(title);
    let version = esc(frame.version);
    let mut html = String::with_capacity(main.len() + 2048);
    html.push_str(&format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <title>{title} · tidings</title>\n\
         <link rel=\"stylesheet\" href=\"/ui.css?v={version}\">\n\
         <script src=\"/ui.js?v={version}\" defer></script>\n</head>\n<body>\n\
         <a class=\"skip\" href=\"#main\">Skip to content</a>\n"
    ));
    top_bar(&mut html, frame);
    let layout = if side.is_some() {
        "layout"
    } else {
        "layout single"
    };
    html.push_str(&format!("<div class=\"{layout}\">\n"));
    if let Some(side) = side {
        html.push_str("<aside id=\"subscriptions\" aria-label=\"Subscriptions\">\n");
        html.push_str(side);
        html.push_str("</aside>\n");
    }
    html.push_str("<main id=\"main\">\n");
    if side.is_some() {
        // On a phone the list of feeds follows the entries: one tap reaches it from the top.
        html.push_str("<p class=\"to-feeds\"><a href=\"#subscriptions\">Subscriptions</a></p>\n");
    }
    html.push_str(main);
    html.push_str("</main>\n</div>\n");
    html.push_str(&format!(
        "<footer><p>tidings {version} · <a href=\"/bot\">about this bot</a> · \
         <a href=\"/publishers\">for publishers</a></p>\n\
         <details id=\"shortcuts\"><summary>Keyboard shortcuts</summary><dl class=\"keys\">"
    ));
    for (key, what) in SHORTCUTS {
        html.push_str(&format!("<dt>{}</dt><dd>{what}</dd>", esc(key)));
    }
    html.push_str("</dl></details>\n</footer>\n</body>\n</html>\n");
    html
}

fn top_bar(html: &mut String, frame: &Frame<'_>) {
    html.push_str(
        "<header class=\"top\">\n<a class=\"brand\" href=\"/\">tidings</a>\n\
         <nav aria-label=\"Main\"><ul>\n",
    );
    let mut items = vec![("reader", "/", "Reader")];
    if frame.who.is_some() {
        items.push(("catalogue", "/catalogue", "Catalogue"));
    }
    if frame.is_admin() {
        items.push(("subscribe", "/subscribe", "Subscribe"));
        items.push(("admin", "/admin", "Admin"));
    }
    for (name, href, label) in items {
        let current = if name == frame.current {
            " aria-current=\"page\""
        } else {
            ""
        };
        html.push_str(&format!(
            "<li><a href=\"{href}\"{current}>{label}</a></li>\n"
        ));
    }
    match frame.who {
        Some(caller) => html.push_str(&format!(
            "<li><form class=\"logout\" method=\"post\" action=\"/logout\">\
             <button class=\"quiet\" type=\"submit\">Log out ({caller}, {role})</button>\
             </form></li>\n",
            role = caller.role.as_str(),
        )),
        None => html.push_str("<li><a href=\"/login\">Log in</a></li>\n"),
    }
    html.push_str("</ul></nav>\n");
    html.push_str(
        "<form class=\"search\" method=\"get\" action=\"/search\" role=\"search\">\
         <label for=\"top-q\" class=\"skip\">Search entries</label>\
         <input id=\"top-q\" type=\"search\" name=\"q\" placeholder=\"Search entries\">\
         <button type=\"submit\">Search</button></form>\n</header>\n",
    );
}

/// What a form did, as the page that answers it opens: a notice when it was done, an alert
/// when it was refused.
pub fn outcome(html: &mut String, outcome: Option<Result<String, String>>) {
    match outcome {
        None => {}
        Some(Ok(text)) => html.push_str(&format!(
            "<p class=\"notice\" role=\"status\">{}</p>\n",
            esc(&text)
        )),
        Some(Err(text)) => html.push_str(&format!(
            "<p class=\"error\" role=\"alert\">{}</p>\n",
            esc(&text)
        )),
    }
}

/// An HTML answer with `status`; never stored by caches (pages may show a logged-in view).
pub fn html(status: StatusCode, body: String) -> Response {
    (
        status,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        body,
    )
        .into_response()
}

/// A page of `title` saying `message` (plain text) with `status`: every error the UI shows.
pub fn message(frame: &Frame<'_>, status: StatusCode, title: &str, message: &str) -> Response {
    let class = if status.is_success() {
        "notice"
    } else {
        "error"
    };
    let main = format!(
        "<h1>{}</h1>\n<p class=\"{class}\" role=\"status\">{}</p>\n<p><a href=\"/\">Back to the \
         reader</a></p>\n",
        esc(title),
        esc(message)
    );
    html(status, render(frame, title, None, &main))
}

/// The page for a failure on our side: the cause is logged, never shown.
pub fn failed(frame: &Frame<'_>, cause: &dyn std::fmt::Display) -> Response {
    tracing::error!(error = %cause, "ui page failed");
    message(
        frame,
        StatusCode::INTERNAL_SERVER_ERROR,
        "Something went wrong",
        "The page could not be built just now; try again later.",
    )
}

/// Any path no route names.
pub async fn not_found() -> Response {
    let frame = Frame {
        who: None,
        version: "",
        current: "",
    };
    message(
        &frame,
        StatusCode::NOT_FOUND,
        "Not found",
        "There is no page at this address.",
    )
}

/// `GET /ui.js`.
pub async fn script() -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/javascript; charset=utf-8"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static(CSS_MAX_AGE)),
        ],
        JS,
    )
        .into_response()
}

/// `GET /ui.css`.
pub async fn stylesheet() -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/css; charset=utf-8"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static(CSS_MAX_AGE)),
        ],
        CSS,
    )
        .into_response()
}

/// The headers every UI answer carries, added to whatever the handler set.
pub async fn strict_headers(mut response: Response) -> Response {
    set_strict_headers(response.headers_mut());
    response
}

fn set_strict_headers(headers: &mut HeaderMap) {
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_FRAME_OPTIONS, "DENY"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
}

/// A feed's icon: its site's icon from tidings' own store when one is kept, else a monogram.
pub fn icon(feed: &FeedRecord, big: bool, icons: &Icons) -> String {
    if icons.has(feed.id) {
        let size = if big { " big" } else { "" };
        return format!(
            "<img class=\"icon kept{size}\" src=\"/icons/{}\" alt=\"\">",
            feed.id
        );
    }
    monogram(feed, big)
}

/// A feed's icon when none is kept: the first letter of its title (else of its host) on a
/// colour picked from a hash of its URL. Drawn here rather than loaded from the publisher: a
/// reader's browser does not contact publishers just to show a list.
pub fn monogram(feed: &FeedRecord, big: bool) -> String {
    let letter = feed
        .title
        .as_deref()
        .and_then(|t| t.chars().find(|c| c.is_alphanumeric()))
        .or_else(|| {
            feed.url
                .as_url()
                .host_str()
                .and_then(|h| h.trim_start_matches("www.").chars().next())
        })
        .unwrap_or('?');
    let letter: String = letter.to_uppercase().collect();
    let colour = fnv1a(feed.url.as_str()) % PALETTE;
    let size = if big { " big" } else { "" };
    format!(
        "<span class=\"icon m{colour}{size}\" aria-hidden=\"true\">{}</span>",
        esc(&letter)
    )
}

/// A byte count as people read it: `812 bytes`, `3.4 kB`, `12.3 MB`, `1.2 GB`.
pub fn size(bytes: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1_000_000_000, "GB"), (1_000_000, "MB"), (1_000, "kB")];
    for (unit, name) in UNITS {
        if bytes >= unit {
            // One decimal, rounded: exact enough for a download's size.
            let tenths = (u128::from(bytes) * 10 + u128::from(unit / 2)) / u128::from(unit);
            return format!("{}.{} {name}", tenths / 10, tenths % 10);
        }
    }
    format!("{bytes} bytes")
}

/// FNV-1a, 64 bits: a stable hash (the same colour on every run and version).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A feed's name as shown: its title, else its URL (without credentials or query).
pub fn feed_name(feed: &FeedRecord) -> String {
    match feed.title.as_deref().map(str::trim) {
        Some(title) if !title.is_empty() => title.to_owned(),
        _ => public_url(feed.url.as_str()),
    }
}

/// One run of a name as [`natural_key`] compares it: digits by their value, text ignoring
/// case. Numbers sort before words, as in a file manager.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum NamePart {
    /// The digits without leading zeros: shorter is smaller, then digit by digit.
    Number(usize, String),
    Text(String),
}

/// The key that sorts names as people do: `Feed 2` before `Feed 10`, `b` after `A`, `É`
/// with `e`.
pub fn natural_key(name: &str) -> Vec<NamePart> {
    let mut parts = Vec::new();
    let mut rest = name;
    while let Some(first) = rest.chars().next() {
        let digits = first.is_ascii_digit();
        let end = rest
            .find(|c: char| c.is_ascii_digit() != digits)
            .unwrap_or(rest.len());
        let (run, tail) = rest.split_at(end);
        parts.push(if digits {
            let value = run.trim_start_matches('0');
            NamePart::Number(value.len(), value.to_owned())
        } else {
            // Accents and case do not decide: `Álbum` files with `album`.
            use unicode_normalization::{UnicodeNormalization, char::is_combining_mark};
            NamePart::Text(
                run.nfd()
                    .filter(|c| !is_combining_mark(*c))
                    .flat_map(char::to_lowercase)
                    .collect(),
            )
        });
        rest = tail;
    }
    parts
}

/// A time as `<time>`, in UTC to the minute.
pub fn time(at: DateTime<Utc>) -> String {
    format!(
        "<time datetime=\"{}\">{}</time>",
        at.to_rfc3339_opts(SecondsFormat::Secs, true),
        at.format("%Y-%m-%d %H:%M UTC")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_with_subscriptions_links_to_them_from_the_top() {
        let frame = Frame {
            who: None,
            version: "1",
            current: "reader",
        };
        let html = render(&frame, "t", Some("<p>feeds</p>"), "<p>main</p>");
        let link = html.find("<a href=\"#subscriptions\">").expect("the link");
        assert!(
            link > html.find("<main id=\"main\">").unwrap(),
            "at the top of main"
        );
        assert!(link < html.find("<p>main</p>").unwrap());
        assert!(html.contains("<aside id=\"subscriptions\""));
        let single = render(&frame, "t", None, "<p>main</p>");
        assert!(!single.contains("#subscriptions"), "no list, no link");
    }

    #[test]
    fn names_sort_as_people_read_them() {
        let mut names = vec![
            "Feed 10", "feed 2", "Feed 1", "Álbum", "album", "Zeta", "feed 02", "2 Cats",
            "10 Cats", "Feed 1b", "",
        ];
        names.sort_by_cached_key(|n| natural_key(n));
        assert_eq!(
            names,
            [
                "", "2 Cats", "10 Cats", "Álbum", "album", "Feed 1", "Feed 1b", "feed 2",
                "feed 02", "Feed 10", "Zeta"
            ]
        );
    }

    #[test]
    fn the_frame_escapes_the_title_and_links_the_versioned_stylesheet() {
        let frame = Frame {
            who: None,
            version: "1.0\"><script>",
            current: "reader",
        };
        let html = render(&frame, "<b>x</b>", None, "<p>main</p>");
        assert!(html.contains("<title>&lt;b&gt;x&lt;/b&gt; · tidings</title>"));
        assert!(html.contains("/ui.css?v=1.0&quot;&gt;&lt;script&gt;"));
        assert!(!html.contains("<script>"));
        assert!(html.contains("<html lang=\"en\">"));
        assert!(html.contains("name=\"viewport\""));
        assert!(html.contains("<a href=\"/\" aria-current=\"page\">Reader</a>"));
        assert!(
            !html.contains("/admin"),
            "no admin link without an admin key"
        );
    }

    #[test]
    fn byte_counts_read_as_people_write_them() {
        for (bytes, shown) in [
            (0, "0 bytes"),
            (812, "812 bytes"),
            (3_400, "3.4 kB"),
            (12_345_678, "12.3 MB"),
            (999_999, "1000.0 kB"),
            (1_250_000_000, "1.3 GB"),
            (u64::MAX, "18446744073.7 GB"),
        ] {
            assert_eq!(super::size(bytes), shown, "{bytes}");
        }
    }

    #[test]
    fn monogram_colours_are_stable_hashes() {
        assert_eq!(fnv1a(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(
            fnv1a("https://a.example/feed"),
            fnv1a("https://b.example/feed")
        );
    }
}
