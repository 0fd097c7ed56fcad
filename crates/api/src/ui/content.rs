//! An entry's content as the reader shows it: HTML sanitised by ammonia, or plain text when the
//! profile says so (PF12).
//!
//! Sanitising keeps ammonia's list of harmless elements and attributes, and removes: scripts,
//! styles (elements and attributes), event handlers, frames, objects, forms, and every URL
//! scheme but http, https and mailto (so no `javascript:`). Relative URLs are made absolute
//! against the entry's HTML base (`Entry::html_base`: the `xml:base` its document declared for
//! it, else its link), or dropped when it has none. Links get
//! `rel="noopener noreferrer nofollow"`.
//!
//! Images are dropped, not shown: loading one would make the reader's browser contact the
//! publisher (or a tracker) each time an entry is opened, which tidings promises not to do
//! beyond the feed itself, and the Content-Security-Policy would block a remote image anyway.
//! The page says the entry had images and links to the original instead.

use ammonia::{Builder, Url, UrlRelative};
use std::collections::HashSet;

/// Elements removed with everything inside them (ammonia keeps the text of an element it
/// does not allow; for these the text is not content either).
const DROPPED_WITH_CONTENT: &[&str] = &[
    "script", "style", "iframe", "frame", "frameset", "object", "embed", "noscript", "template",
    "svg", "math", "form", "select", "textarea", "button", "canvas", "audio", "video",
];

/// Elements ammonia would allow that the reader does not show: images and image maps.
const NOT_SHOWN: &[&str] = &["img", "map", "area"];

/// What [`sanitise`] made of an entry's HTML.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// Safe HTML to put on the page as it is.
    pub html: String,
    /// The original had images (or media), which are not shown.
    pub had_images: bool,
}

/// The one sanitiser's settings: harmless elements only, `DROPPED_WITH_CONTENT` removed with
/// what they hold, http, https and mailto URLs only, relative ones resolved against `base`.
fn builder(base: Option<&str>) -> Builder<'static> {
    let mut builder = Builder::default();
    builder
        .add_clean_content_tags(DROPPED_WITH_CONTENT)
        .url_schemes(HashSet::from(["http", "https", "mailto"]))
        .link_rel(Some("noopener noreferrer nofollow"))
        .url_relative(match base.and_then(|b| Url::parse(b).ok()) {
            Some(url) if matches!(url.scheme(), "http" | "https") => {
                UrlRelative::RewriteWithBase(url)
            }
            _ => UrlRelative::Deny,
        });
    builder
}

/// HTML as it leaves tidings through the API and the exports: sanitised as on the reader's
/// page, but images kept (an API client or a feed reader decides whether to load them).
pub fn sanitise_outbound(html: &str, base: Option<&str>) -> String {
    builder(base).clean(html).to_string()
}

/// `html` made safe to show; relative URLs resolved against `base`.
pub fn sanitise(html: &str, base: Option<&str>) -> Shown {
    let mut builder = builder(base);
    builder.rm_tags(NOT_SHOWN);
    let lower = html.to_ascii_lowercase();
    let had_images = ["<img", "<picture", "<video", "<audio", "<svg"]
        .iter()
        .any(|tag| lower.contains(tag));
    Shown {
        html: builder.clean(html).to_string(),
        had_images,
    }
}

/// `html` as plain text, escaped for the page: the markup is dropped, paragraphs and line
/// breaks become new lines (the page shows it with `white-space: pre-line`).
pub fn plain_text(html: &str) -> String {
    // Keep only bare block elements, so that what is left between them is text that ammonia
    // has escaped: after this, a `<` can only start one of these tags.
    let blocks = [
        "p",
        "br",
        "div",
        "li",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "blockquote",
        "pre",
        "tr",
    ];
    let mut builder = Builder::empty();
    builder
        .tags(HashSet::from(blocks))
        .clean_content_tags(DROPPED_WITH_CONTENT.iter().copied().collect());
    let cleaned = builder.clean(html).to_string();
    let mut out = String::with_capacity(cleaned.len());
    let mut rest = cleaned.as_str();
    while let Some(start) = rest.find('<') {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find('>') else {
            break;
        };
        match &rest[start + 1..start + end] {
            "br" | "/li" | "/tr" => out.push('\n'),
            tag if tag.starts_with('/') => out.push_str("\n\n"),
            _ => {}
        }
        rest = &rest[start + end + 1..];
    }
    if !rest.contains('<') {
        out.push_str(rest);
    }
    collapse_blank_lines(&out)
}

/// At most one empty line in a row, none at the ends.
fn collapse_blank_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.trim().is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_html_is_defused() {
        let hostile = "<p onclick=\"steal()\" style=\"color:red\">Hi <b>there</b></p>\
                       <script>alert(1)</script>\
                       <a href=\"javascript:alert(2)\">js</a>\
                       <a href=\"/relative\">rel</a>\
                       <iframe src=\"https://evil.example\">frame text</iframe>\
                       <style>body{display:none}</style>\
                       <img src=\"https://tracker.example/p.gif\" onerror=\"alert(3)\">\
                       <form action=\"https://evil.example\"><input name=\"x\"></form>";
        let shown = sanitise(hostile, Some("https://blog.example/posts/1"));
        let html = shown.html.to_ascii_lowercase();
        for bad in [
            "<script",
            "alert",
            "onclick",
            "onerror",
            "style",
            "javascript:",
            "<iframe",
            "frame text",
            "<img",
            "tracker.example",
            "<form",
            "<input",
            "evil.example",
        ] {
            assert!(!html.contains(bad), "{bad} left in {html}");
        }
        assert!(html.contains("<b>there</b>"), "{html}");
        assert!(
            html.contains("href=\"https://blog.example/relative\""),
            "relative links resolved: {html}"
        );
        assert!(
            html.contains("rel=\"noopener noreferrer nofollow\""),
            "{html}"
        );
        assert!(shown.had_images);
    }

    #[test]
    fn without_a_base_relative_links_are_dropped() {
        let shown = sanitise(
            "<a href=\"/x\">x</a><a href=\"https://a.example/\">a</a>",
            None,
        );
        assert!(!shown.html.contains("/x\""), "{}", shown.html);
        assert!(shown.html.contains("https://a.example/"), "{}", shown.html);
        assert!(!shown.had_images);
    }

    #[test]
    fn plain_text_drops_markup_and_keeps_paragraphs() {
        let text = plain_text(
            "<p>One <b>bold</b> &amp; <a href=\"x\">link</a></p><p>Two<br>lines &lt;tag&gt;</p>\
             <script>alert(1)</script><style>p{}</style><img src=\"x\">",
        );
        assert_eq!(text, "One bold &amp; link\n\nTwo\nlines &lt;tag&gt;");
        assert_eq!(plain_text("just text < 3"), "just text &lt; 3");
        assert_eq!(plain_text(""), "");
    }
}
