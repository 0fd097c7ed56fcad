//! The token sink that gathers a page's facts, and the one that finds its `<meta>` charset.
//!
//! Only the tokenizer runs (no tree is built): the sink switches it into the raw-text states
//! HTML gives `<script>`, `<style>`, `<title>` and their kin, so what they contain is text, not
//! tags. Elements inside `<svg>` and `<math>` are not HTML's (an SVG `<title>` is no page
//! title), and `<template>` contents are inert.

use crate::{
    Context, FeedFormat, FeedLink, Icon, IconKind, Image, ImageSource, Limits, Link, MetaDirective,
    Page,
};
use html5ever::TokenizerResult;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use std::cell::RefCell;
use url::Url;

/// Run the tokenizer over `text` into `sink`, and hand the sink back.
fn tokenize<S: TokenSink<Handle = ()>>(text: &str, sink: S) -> S {
    let tokenizer = Tokenizer::new(sink, TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(text));
    // `Script` and `EncodingIndicator` only pause the tokenizer; nothing is executed.
    while !matches!(tokenizer.feed(&input), TokenizerResult::Done) {}
    tokenizer.end();
    tokenizer.sink
}

/// The state HTML switches the tokenizer to after this start tag, if not the usual.
fn raw_state(name: &str) -> Option<TokenSinkResult<()>> {
    Some(match name {
        "title" | "textarea" => TokenSinkResult::RawData(RawKind::Rcdata),
        "style" | "xmp" | "iframe" | "noembed" | "noframes" => {
            TokenSinkResult::RawData(RawKind::Rawtext)
        }
        "script" => TokenSinkResult::RawData(RawKind::ScriptData),
        "plaintext" => TokenSinkResult::Plaintext,
        _ => return None,
    })
}

fn attr<'t>(tag: &'t Tag, name: &str) -> Option<&'t str> {
    tag.attrs
        .iter()
        .find(|a| &*a.name.local == name)
        .map(|a| &*a.value)
}

// --- the charset prescan ------------------------------------------------------------------

/// The charset the first `<meta charset>` or `<meta http-equiv=content-type>` of `text`
/// declares.
pub fn meta_charset(text: &str) -> Option<String> {
    tokenize(text, CharsetSink::default()).found.into_inner()
}

#[derive(Default)]
struct CharsetSink {
    found: RefCell<Option<String>>,
}

impl TokenSink for CharsetSink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let Token::TagToken(tag) = token else {
            return TokenSinkResult::Continue;
        };
        if tag.kind != TagKind::StartTag {
            return TokenSinkResult::Continue;
        }
        if &*tag.name == "meta" && self.found.borrow().is_none() {
            let declared = attr(&tag, "charset").map(str::to_owned).or_else(|| {
                attr(&tag, "http-equiv")
                    .filter(|v| v.trim().eq_ignore_ascii_case("content-type"))
                    .and_then(|_| attr(&tag, "content"))
                    .and_then(crate::decode::charset_of_content_type)
            });
            *self.found.borrow_mut() = declared;
        }
        raw_state(&tag.name).unwrap_or(TokenSinkResult::Continue)
    }
}

// --- the text of a fragment ---------------------------------------------------------------

/// The text of an HTML fragment (an entry's summary, say): what a reader sees, without
/// markup, with character references decoded, whitespace collapsed to single spaces, and the
/// contents of `<script>`, `<style>`, `<template>` and their kin dropped. At most `most`
/// characters are kept.
pub fn text(html: &str, most: usize) -> String {
    let sink = TextSink {
        state: RefCell::new(TextState {
            out: String::new(),
            skipping: None,
            space: false,
            chars: 0,
            most,
        }),
    };
    let state = tokenize(html, sink).state.into_inner();
    state.out
}

struct TextSink {
    state: RefCell<TextState>,
}

struct TextState {
    out: String,
    /// The raw-text element whose contents are being dropped.
    skipping: Option<html5ever::LocalName>,
    /// A space is owed before the next word.
    space: bool,
    chars: usize,
    most: usize,
}

/// Elements whose contents are not text a reader sees.
fn dropped(name: &str) -> bool {
    matches!(
        name,
        "script"
            | "style"
            | "template"
            | "iframe"
            | "noembed"
            | "noframes"
            | "object"
            | "svg"
            | "math"
    )
}

/// Elements that end a run of text (a space between their text and the next).
fn breaks(name: &str) -> bool {
    matches!(
        name,
        "p" | "br"
            | "div"
            | "li"
            | "ul"
            | "ol"
            | "dl"
            | "dt"
            | "dd"
            | "tr"
            | "td"
            | "th"
            | "table"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "blockquote"
            | "pre"
            | "section"
            | "article"
            | "header"
            | "footer"
            | "aside"
            | "figure"
            | "figcaption"
            | "hr"
            | "img"
            | "address"
            | "nav"
            | "main"
    )
}

impl TokenSink for TextSink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut state = self.state.borrow_mut();
        match token {
            Token::TagToken(tag) => {
                if let Some(open) = &state.skipping {
                    if tag.kind == TagKind::EndTag && tag.name == *open {
                        state.skipping = None;
                        state.space = true;
                    }
                    return TokenSinkResult::Continue;
                }
                if tag.kind == TagKind::StartTag && dropped(&tag.name) && !tag.self_closing {
                    state.skipping = Some(tag.name.clone());
                } else if breaks(&tag.name) {
                    state.space = true;
                }
                if tag.kind == TagKind::StartTag {
                    return raw_state(&tag.name).unwrap_or(TokenSinkResult::Continue);
                }
            }
            Token::CharacterTokens(text) if state.skipping.is_none() => state.push(&text),
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

impl TextState {
    fn push(&mut self, text: &str) {
        for c in text.chars() {
            if self.chars >= self.most {
                return;
            }
            if c.is_whitespace() {
                self.space = true;
                continue;
            }
            if self.space && !self.out.is_empty() {
                if self.chars + 1 >= self.most {
                    return;
                }
                self.out.push(' ');
                self.chars += 1;
            }
            self.space = false;
            self.out.push(c);
            self.chars += 1;
        }
    }
}

// --- the facts ----------------------------------------------------------------------------

/// The facts of a decoded page.
pub fn collect(text: &str, context: &Context<'_>) -> Page {
    let sink = FactSink {
        state: RefCell::new(State {
            page: Page::default(),
            base: context.url.clone(),
            base_set: false,
            bots: context
                .bots
                .iter()
                .map(|b| b.to_ascii_lowercase())
                .collect(),
            limits: context.limits,
            foreign: 0,
            template: 0,
            in_title: false,
            title: None,
            og_title: None,
            og_description: None,
            http_language: None,
            first_img: None,
        }),
    };
    tokenize(text, sink).state.into_inner().finish()
}

struct FactSink {
    state: RefCell<State>,
}

struct State {
    page: Page,
    base: Url,
    base_set: bool,
    bots: Vec<String>,
    limits: Limits,
    /// Depth of `<svg>`/`<math>` elements open: their children are not HTML's.
    foreign: u32,
    /// Depth of `<template>`: its contents are inert.
    template: u32,
    in_title: bool,
    /// The first `<title>`'s text, once it has begun.
    title: Option<String>,
    og_title: Option<String>,
    og_description: Option<String>,
    http_language: Option<String>,
    first_img: Option<Image>,
}

impl TokenSink for FactSink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut state = self.state.borrow_mut();
        match token {
            Token::TagToken(tag) => state.tag(&tag),
            Token::CharacterTokens(text) if state.in_title => state.title_text(&text),
            _ => TokenSinkResult::Continue,
        }
    }
}

impl State {
    fn tag(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        let name = &*tag.name;
        if tag.kind == TagKind::EndTag {
            match name {
                "svg" | "math" => self.foreign = self.foreign.saturating_sub(1),
                "template" => self.template = self.template.saturating_sub(1),
                "title" => self.in_title = false,
                _ => {}
            }
            return TokenSinkResult::Continue;
        }
        if self.foreign > 0 || self.template > 0 {
            // Foreign content has no raw-text elements; a nested one opens another level.
            match name {
                "svg" | "math" if !tag.self_closing => self.foreign += 1,
                "template" if self.foreign == 0 => self.template += 1,
                _ => {}
            }
            return if self.foreign > 0 {
                TokenSinkResult::Continue
            } else {
                raw_state(name).unwrap_or(TokenSinkResult::Continue)
            };
        }
        match name {
            "svg" | "math" if !tag.self_closing => self.foreign += 1,
            "template" => self.template += 1,
            "html" if self.page.language.is_none() => {
                self.page.language = attr(tag, "lang").and_then(|l| self.text(l));
            }
            "base" => self.base(tag),
            "title" if self.title.is_none() => {
                self.title = Some(String::new());
                self.in_title = true;
            }
            "meta" => self.meta(tag),
            "link" => self.link(tag),
            "a" | "area" => self.anchor(tag),
            "img" => {
                if self.first_img.is_none()
                    && let Some(url) = attr(tag, "src").and_then(|s| self.resolve(s))
                {
                    self.first_img = Some(Image {
                        url,
                        source: ImageSource::FirstImg,
                        width: attr(tag, "width").and_then(dimension),
                        height: attr(tag, "height").and_then(dimension),
                        mime: None,
                        alt: attr(tag, "alt").and_then(|a| self.text(a)),
                    });
                }
            }
            _ => {}
        }
        raw_state(name).unwrap_or(TokenSinkResult::Continue)
    }

    /// Only the first `<base href>` counts, resolved against the page URL.
    fn base(&mut self, tag: &Tag) {
        if self.base_set {
            return;
        }
        if let Some(href) = attr(tag, "href") {
            self.base_set = true;
            if let Some(url) = self.resolve(href) {
                self.base = url;
            }
        }
    }

    fn title_text(&mut self, text: &str) -> TokenSinkResult<()> {
        let most = self.limits.max_text_chars;
        if let Some(title) = self.title.as_mut()
            && title.len() < most * 4
        {
            title.push_str(text);
        }
        TokenSinkResult::Continue
    }

    fn meta(&mut self, tag: &Tag) {
        let content = attr(tag, "content");
        if let Some(equiv) = attr(tag, "http-equiv")
            && equiv.trim().eq_ignore_ascii_case("content-language")
        {
            if self.http_language.is_none() {
                // The first language of a list.
                let first = content.and_then(|c| c.split(',').next());
                self.http_language = first.and_then(|l| self.text(l));
            }
            return;
        }
        // OpenGraph writes `property`, many pages `name`; either is read.
        let Some(key) = attr(tag, "property").or_else(|| attr(tag, "name")) else {
            return;
        };
        let key = key.trim().to_ascii_lowercase();
        let Some(content) = content else {
            return;
        };
        match key.as_str() {
            "og:image" | "og:image:url" => self.image(content, ImageSource::OpenGraph),
            "og:image:secure_url" => {
                // The https address of the image just declared.
                if let Some(url) = self.resolve(content).filter(|u| u.scheme() == "https")
                    && let Some(last) = self.last_og_image()
                {
                    last.url = url;
                }
            }
            "og:image:width" | "og:image:height" => {
                let value = dimension(content);
                if let Some(last) = self.last_og_image() {
                    if key.ends_with("width") {
                        last.width = value;
                    } else {
                        last.height = value;
                    }
                }
            }
            "og:image:type" => {
                let mime = self.text(content);
                if let Some(last) = self.last_og_image() {
                    last.mime = mime;
                }
            }
            "og:image:alt" => {
                let alt = self.text(content);
                if let Some(last) = self.last_og_image() {
                    last.alt = alt;
                }
            }
            "twitter:image" | "twitter:image:src" => self.image(content, ImageSource::Twitter),
            "og:title" if self.og_title.is_none() => self.og_title = self.text(content),
            "og:description" if self.og_description.is_none() => {
                self.og_description = self.text(content);
            }
            "description" if self.page.description.is_none() => {
                self.page.description = self.text(content);
            }
            "tdm-reservation" if self.page.tdm.reservation.is_none() => {
                self.page.tdm.reservation = self.text(content);
            }
            "tdm-policy" if self.page.tdm.policy.is_none() => {
                self.page.tdm.policy = self.resolve(content);
            }
            name if (name == "robots" || self.bots.iter().any(|b| b == name))
                && self.page.directives.len() < self.limits.max_items =>
            {
                let content = bounded(content, self.limits.max_text_chars);
                self.page.directives.push(MetaDirective {
                    name: name.to_owned(),
                    content,
                });
            }
            _ => {}
        }
    }

    fn link(&mut self, tag: &Tag) {
        let Some(rel) = attr(tag, "rel") else {
            return;
        };
        let Some(href) = attr(tag, "href") else {
            return;
        };
        let rels: Vec<String> = rel
            .split_ascii_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        let has = |r: &str| rels.iter().any(|x| x == r);
        let most = self.limits.max_items;
        if has("alternate")
            && !has("stylesheet")
            && let Some(format) = attr(tag, "type").and_then(FeedFormat::of_type)
            && self.page.feeds.len() < most
            && let Some(url) = self.resolve(href)
            && !self.page.feeds.iter().any(|f| f.url == url)
        {
            let title = attr(tag, "title").and_then(|t| self.text(t));
            self.page.feeds.push(FeedLink { url, format, title });
        }
        let icon = if has("apple-touch-icon-precomposed") {
            Some(IconKind::AppleTouchPrecomposed)
        } else if has("apple-touch-icon") {
            Some(IconKind::AppleTouch)
        } else if has("mask-icon") {
            Some(IconKind::Mask)
        } else if has("icon") {
            Some(IconKind::Icon)
        } else {
            None
        };
        if let Some(kind) = icon
            && self.page.icons.len() < most
            && let Some(url) = self.resolve(href)
        {
            let sizes = attr(tag, "sizes").and_then(|s| self.text(s));
            let mime = attr(tag, "type").and_then(|t| self.text(t));
            self.page.icons.push(Icon {
                url,
                kind,
                sizes,
                mime,
            });
        }
        if has("image_src") {
            self.image(href, ImageSource::LinkImageSrc);
        }
        self.licence_and_terms(&rels, href);
    }

    fn anchor(&mut self, tag: &Tag) {
        let Some(href) = attr(tag, "href") else {
            return;
        };
        let rels: Vec<String> = attr(tag, "rel")
            .map(|rel| {
                rel.split_ascii_whitespace()
                    .map(str::to_ascii_lowercase)
                    .collect()
            })
            .unwrap_or_default();
        self.licence_and_terms(&rels, href);
        if self.page.links.len() < self.limits.max_links
            && let Some(mut url) = self.resolve(href)
        {
            // The fragment names a place in the page, not another resource.
            url.set_fragment(None);
            if !self.page.links.iter().any(|l| l.url == url) {
                self.page.links.push(Link {
                    url,
                    feed_type: attr(tag, "type").and_then(FeedFormat::of_type),
                    nofollow: rels.iter().any(|r| r == "nofollow"),
                });
            }
        }
    }

    fn licence_and_terms(&mut self, rels: &[String], href: &str) {
        let most = self.limits.max_items;
        for rel in rels {
            let list = match rel.as_str() {
                "license" => &self.page.licences,
                "terms-of-service" => &self.page.terms,
                _ => continue,
            };
            if list.len() >= most {
                continue;
            }
            let Some(url) = self.resolve(href) else {
                continue;
            };
            let list = if rel == "license" {
                &mut self.page.licences
            } else {
                &mut self.page.terms
            };
            if !list.contains(&url) {
                list.push(url);
            }
        }
    }

    fn image(&mut self, src: &str, source: ImageSource) {
        if self.page.images.len() >= self.limits.max_items {
            return;
        }
        if let Some(url) = self.resolve(src) {
            self.page.images.push(Image {
                url,
                source,
                width: None,
                height: None,
                mime: None,
                alt: None,
            });
        }
    }

    fn last_og_image(&mut self) -> Option<&mut Image> {
        self.page
            .images
            .last_mut()
            .filter(|i| i.source == ImageSource::OpenGraph)
    }

    /// An http(s) URL from an attribute, resolved against the base; `None` when it is too
    /// long, does not parse, or is of another scheme (`data:`, `javascript:`).
    fn resolve(&self, value: &str) -> Option<Url> {
        let value = value.trim();
        if value.is_empty() || value.len() > self.limits.max_url_bytes {
            return None;
        }
        let url = self.base.join(value).ok()?;
        matches!(url.scheme(), "http" | "https").then_some(url)
    }

    /// An attribute's text, whitespace collapsed and bounded; `None` when empty.
    fn text(&self, value: &str) -> Option<String> {
        let text = bounded(value, self.limits.max_text_chars);
        (!text.is_empty()).then_some(text)
    }

    fn finish(mut self) -> Page {
        let title = self.title.take().and_then(|t| self.text(&t));
        self.page.title = title.or(self.og_title.take());
        if self.page.description.is_none() {
            self.page.description = self.og_description.take();
        }
        if self.page.language.is_none() {
            self.page.language = self.http_language.take();
        }
        if let Some(img) = self.first_img.take()
            && self.page.images.len() < self.limits.max_items
        {
            self.page.images.push(img);
        }
        self.page.base = Some(self.base);
        self.page
    }
}

/// `text` with runs of whitespace made one space, trimmed, at most `most` characters.
fn bounded(text: &str, most: usize) -> String {
    let mut out = String::new();
    for (i, word) in text.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if out.len() >= most * 4 {
            break;
        }
    }
    match out.char_indices().nth(most) {
        Some((cut, _)) => {
            out.truncate(cut);
            out.truncate(out.trim_end().len());
            out
        }
        None => out,
    }
}

/// A width or height: the leading digits of the value (`"1200"`, `"1200px"`), if any.
fn dimension(value: &str) -> Option<u32> {
    let digits: &str = {
        let v = value.trim();
        let end = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
        &v[..end]
    };
    digits.parse().ok().filter(|&n| n > 0)
}
