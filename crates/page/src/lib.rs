//! HTML inspection for tidings: bytes of a page in, the facts it declares out.
//!
//! [`inspect`] reads at most [`Limits::max_bytes`] of a page (the caller's budget: SR1's 1 MB
//! is the profile's) with a real HTML
//! tokenizer (html5ever's, so a `<meta>` written inside a `<script>` or a comment is not
//! taken for one) and returns a [`Page`]: the preview images it names (`og:image`,
//! `twitter:image`, `link rel=image_src`, the first `<img>`), its icons (`rel=icon`,
//! `apple-touch-icon`, …), the feeds it links as alternates, the `<meta>` directives for
//! robots and for the bots the caller names, `rel=license` and terms links, the TDMRep meta
//! tags, and its title, description and language. Every URL is resolved against the page (or
//! its first `<base href>`) and kept only when it is http(s); every list and text is bounded.
//!
//! What the facts permit is not decided here: directives, licences and objections are read by
//! the `rights` crate. This crate does no I/O, is not async and never reads the clock.
//!
//! [`discover`] turns a page's facts into the feed candidates worth checking (FF1).
//!
//! Modules, in reading order: `decode` (which encoding the bytes are in), `collect` (the
//! token sink that gathers the facts), `discover` (feed candidates).

mod collect;
mod decode;
pub mod discover;

use url::Url;

/// How much of a page is read and kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of the page read; the rest is not looked at. No bound by default: a read of a
    /// page passes the profile's `pages.max_page_bytes` (SR1), the policy's number.
    pub max_bytes: usize,
    /// Entries kept in each list (images, icons, feeds, directives, licences, terms).
    pub max_items: usize,
    /// Characters kept of a title, a description or an alt text.
    pub max_text_chars: usize,
    /// Bytes of a URL as written; a longer one is dropped.
    pub max_url_bytes: usize,
    /// Links (`<a href>`, `<area href>`) kept, in document order, for discovery (FF1) and the
    /// spider (FF4).
    pub max_links: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: usize::MAX,
            max_items: 16,
            max_text_chars: 1_000,
            max_url_bytes: 2_048,
            max_links: 256,
        }
    }
}

/// What the caller knows of the page besides its bytes.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The page's URL (after redirects): relative URLs are resolved against it.
    pub url: &'a Url,
    /// The `Content-Type` header as sent, for its `charset`.
    pub content_type: Option<&'a str>,
    /// Bot names whose `<meta name=…>` directives are collected beside `robots` (for example
    /// `FFBot`); compared without regard to ASCII case.
    pub bots: &'a [&'a str],
    pub limits: Limits,
}

/// The facts a page declares.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Page {
    /// `<title>`, else `og:title`; whitespace collapsed.
    pub title: Option<String>,
    /// `<meta name=description>`, else `og:description`.
    pub description: Option<String>,
    /// `<html lang>`, else `<meta http-equiv=content-language>`.
    pub language: Option<String>,
    /// What relative URLs were resolved against: the first `<base href>`, else the page URL.
    pub base: Option<Url>,
    /// Preview images in the order the page declares them.
    pub images: Vec<Image>,
    pub icons: Vec<Icon>,
    /// `<link rel=alternate>` to a feed, in document order.
    pub feeds: Vec<FeedLink>,
    /// The page's links (`<a href>`, `<area href>`), each URL once, in document order, at most
    /// [`Limits::max_links`].
    pub links: Vec<Link>,
    /// `<meta name=robots>` and `<meta name=BOT>` for the bots asked about, in document order.
    pub directives: Vec<MetaDirective>,
    /// `rel=license` targets (on `<link>`, `<a>` and `<area>`).
    pub licences: Vec<Url>,
    /// `rel=terms-of-service` targets.
    pub terms: Vec<Url>,
    /// The TDMRep meta tags (`tdm-reservation`, `tdm-policy`).
    pub tdm: Tdm,
    /// The encoding the page was read in.
    pub encoding: &'static str,
    /// Whether the page was longer than [`Limits::max_bytes`] (only that much was read).
    pub truncated: bool,
}

/// A preview image a page names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    pub url: Url,
    pub source: ImageSource,
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// The declared media type (`og:image:type`).
    pub mime: Option<String>,
    pub alt: Option<String>,
}

/// Where a page names an image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImageSource {
    /// `og:image` (or `og:image:url`), with its structured properties.
    OpenGraph,
    /// `twitter:image` (or `twitter:image:src`).
    Twitter,
    /// `<link rel=image_src>`.
    LinkImageSrc,
    /// The first `<img src>` of the document.
    FirstImg,
}

impl ImageSource {
    /// The name stored and served with a preview.
    pub fn as_str(self) -> &'static str {
        match self {
            ImageSource::OpenGraph => "og:image",
            ImageSource::Twitter => "twitter:image",
            ImageSource::LinkImageSrc => "link rel=image_src",
            ImageSource::FirstImg => "first img",
        }
    }
}

/// A site icon a page links.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Icon {
    pub url: Url,
    pub kind: IconKind,
    /// The `sizes` attribute as written (`32x32`, `any`).
    pub sizes: Option<String>,
    pub mime: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IconKind {
    /// `rel=icon` (also written `shortcut icon`).
    Icon,
    /// `rel=apple-touch-icon`.
    AppleTouch,
    /// `rel=apple-touch-icon-precomposed`.
    AppleTouchPrecomposed,
    /// `rel=mask-icon`: a one-colour SVG.
    Mask,
}

/// A feed a page links as an alternate of itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedLink {
    pub url: Url,
    pub format: FeedFormat,
    pub title: Option<String>,
}

/// A link in a page's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub url: Url,
    /// The feed format the link's `type` attribute names, if it names one.
    pub feed_type: Option<FeedFormat>,
    /// `rel=nofollow`: the page asks that the link not be followed.
    pub nofollow: bool,
}

/// The feed format a link's `type` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FeedFormat {
    Rss,
    Atom,
    Rdf,
    Json,
    /// `application/xml` or `text/xml`: a feed of some XML format, to be told by parsing.
    Xml,
}

impl FeedFormat {
    /// The format of a link `type` (parameters and case ignored), if it names a feed.
    pub fn of_type(mime: &str) -> Option<FeedFormat> {
        let essence = mime.split(';').next().unwrap_or("").trim();
        let known = [
            ("application/rss+xml", FeedFormat::Rss),
            ("application/atom+xml", FeedFormat::Atom),
            ("application/rdf+xml", FeedFormat::Rdf),
            ("application/feed+json", FeedFormat::Json),
            ("application/json", FeedFormat::Json),
            ("application/xml", FeedFormat::Xml),
            ("text/xml", FeedFormat::Xml),
        ];
        known
            .iter()
            .find(|(name, _)| essence.eq_ignore_ascii_case(name))
            .map(|&(_, format)| format)
    }
}

/// A `<meta>` directive: `name` is `robots` or one of the bots asked about, lower-cased;
/// `content` as written (read by the `rights` crate).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaDirective {
    pub name: String,
    pub content: String,
}

/// The TDMRep meta tags of a page (W3C CG TDMRep, the HTML form).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tdm {
    /// `<meta name=tdm-reservation content=…>` as written (`1`: rights reserved).
    pub reservation: Option<String>,
    /// `<meta name=tdm-policy content=URL>`.
    pub policy: Option<Url>,
}

/// The text of an HTML fragment, as a reader sees it: no markup, references decoded,
/// whitespace collapsed, script and style contents dropped; at most `most` characters.
pub fn text(html: &str, most: usize) -> String {
    collect::text(html, most)
}

/// The first `<img>` of an HTML fragment (an entry's content), resolved against `base`,
/// looking at most at its first `max_bytes` bytes (FF7's bounded fallback).
pub fn first_image(html: &str, base: &Url, max_bytes: usize) -> Option<Image> {
    let mut end = html.len().min(max_bytes);
    while !html.is_char_boundary(end) {
        end -= 1;
    }
    let context = Context {
        url: base,
        content_type: None,
        bots: &[],
        limits: Limits::default(),
    };
    collect::collect(&html[..end], &context)
        .images
        .into_iter()
        .find(|i| i.source == ImageSource::FirstImg)
}

/// Read the facts of a page: at most `context.limits.max_bytes` of `bytes`.
pub fn inspect(bytes: &[u8], context: &Context<'_>) -> Page {
    let limits = context.limits;
    let truncated = bytes.len() > limits.max_bytes;
    let bytes = &bytes[..bytes.len().min(limits.max_bytes)];
    let (text, encoding) = decode::decode(bytes, context.content_type);
    let mut page = collect::collect(&text, context);
    page.encoding = encoding.name();
    page.truncated = truncated;
    page
}

#[cfg(test)]
mod tests;
