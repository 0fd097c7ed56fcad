//! Namespaces and element names as the feed adapters see them.
//!
//! Feeds are matched by namespace URI, never by the prefix a publisher happened to choose;
//! a prefix used without a declaration falls back to its conventional meaning (`dc`, `media`,
//! `itunes`, ...). Element names are compared case-insensitively through [`Key`], because old
//! RSS writes `<RSS>` and `<Item>`.

/// The namespaces the adapters know, closed: everything else is [`Ns::Other`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ns {
    /// No namespace (RSS 0.9x/2.0 core elements).
    None,
    Atom10,
    Atom03,
    Rdf,
    /// RSS 1.0 core (`http://purl.org/rss/1.0/`).
    Rss10,
    /// RSS / RDF 0.90 core (`http://my.netscape.com/rdf/simple/0.9/`).
    Rss090,
    Dc,
    Dcterms,
    Content,
    Media,
    Itunes,
    /// Userland's `creativeCommons:license` module.
    CreativeCommons,
    /// The RDF Creative Commons vocabulary (`cc:license`).
    Cc,
    Sy,
    Xhtml,
    Xml,
    Other,
}

impl Ns {
    /// Core RSS elements: no namespace, or the RSS 1.0 / 0.90 namespaces.
    pub(crate) fn is_rss_core(self) -> bool {
        matches!(self, Ns::None | Ns::Rss10 | Ns::Rss090)
    }

    /// Atom elements, in either version.
    pub(crate) fn is_atom(self) -> bool {
        matches!(self, Ns::Atom10 | Ns::Atom03)
    }
}

/// The namespace a URI names. URIs are compared loosely (case, trailing `/` or `#`, scheme),
/// because publishers copy them by hand.
pub(crate) fn by_uri(uri: &str) -> Ns {
    let u = uri.trim();
    let u = u
        .strip_prefix("http://")
        .or_else(|| u.strip_prefix("https://"))
        .unwrap_or(u);
    let u = u.trim_end_matches(['/', '#']);
    let eq = |s: &str| u.eq_ignore_ascii_case(s);
    if eq("www.w3.org/2005/Atom") {
        Ns::Atom10
    } else if eq("purl.org/atom/ns") {
        Ns::Atom03
    } else if eq("www.w3.org/1999/02/22-rdf-syntax-ns") {
        Ns::Rdf
    } else if eq("purl.org/rss/1.0") {
        Ns::Rss10
    } else if eq("my.netscape.com/rdf/simple/0.9") {
        Ns::Rss090
    } else if eq("purl.org/dc/elements/1.1") || eq("purl.org/dc/elements/1.0") {
        Ns::Dc
    } else if eq("purl.org/dc/terms") {
        Ns::Dcterms
    } else if eq("purl.org/rss/1.0/modules/content") {
        Ns::Content
    } else if eq("search.yahoo.com/mrss")
        || eq("video.search.yahoo.com/mrss")
        || eq("www.rssboard.org/media-rss")
    {
        Ns::Media
    } else if eq("www.itunes.com/dtds/podcast-1.0.dtd") || eq("www.itunes.com/dtds/podcast-1.0") {
        Ns::Itunes
    } else if eq("backend.userland.com/creativeCommonsRssModule")
        || eq("cyber.law.harvard.edu/rss/creativeCommonsRssModule.html")
    {
        Ns::CreativeCommons
    } else if eq("web.resource.org/cc") || eq("creativecommons.org/ns") {
        Ns::Cc
    } else if eq("purl.org/rss/1.0/modules/syndication") {
        Ns::Sy
    } else if eq("www.w3.org/1999/xhtml") {
        Ns::Xhtml
    } else if eq("backend.userland.com/rss2") || eq("backend.userland.com/rss") {
        Ns::None
    } else {
        Ns::Other
    }
}

/// The conventional meaning of a prefix used without a declaration, if it has one.
pub(crate) fn by_prefix(prefix: &str) -> Option<Ns> {
    let k = Key::new(prefix);
    Some(match k.as_str() {
        "xml" => Ns::Xml,
        "atom" | "atom10" => Ns::Atom10,
        "atom03" => Ns::Atom03,
        "rdf" => Ns::Rdf,
        "dc" => Ns::Dc,
        "dcterms" => Ns::Dcterms,
        "content" => Ns::Content,
        "media" => Ns::Media,
        "itunes" => Ns::Itunes,
        "creativecommons" => Ns::CreativeCommons,
        "cc" => Ns::Cc,
        "sy" => Ns::Sy,
        "xhtml" => Ns::Xhtml,
        _ => return None,
    })
}

/// A name lower-cased on the stack, for case-insensitive matching without allocation: a
/// name already in lower case (nearly all) is borrowed as it is. Names longer than the buffer
/// become the empty key, which matches nothing.
pub(crate) enum Key<'a> {
    Lower(&'a str),
    Folded { buf: [u8; KEY_CAP], len: usize },
}

const KEY_CAP: usize = 32;

impl<'a> Key<'a> {
    pub(crate) fn new(name: &'a str) -> Key<'a> {
        let bytes = name.as_bytes();
        if !bytes.iter().any(u8::is_ascii_uppercase) {
            return Key::Lower(if bytes.len() > KEY_CAP { "" } else { name });
        }
        let mut buf = [0u8; KEY_CAP];
        if bytes.len() > KEY_CAP {
            return Key::Folded { buf, len: 0 };
        }
        for (slot, b) in buf.iter_mut().zip(bytes) {
            *slot = b.to_ascii_lowercase();
        }
        Key::Folded {
            buf,
            len: bytes.len(),
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        match self {
            Key::Lower(name) => name,
            // Lower-casing ASCII bytes keeps UTF-8 valid, so this never fails in practice.
            Key::Folded { buf, len } => buf
                .get(..*len)
                .and_then(|b| std::str::from_utf8(b).ok())
                .unwrap_or(""),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_names_whatever_their_case() {
        let long = "a".repeat(KEY_CAP + 1);
        let cases = [
            ("channel", "channel"),
            ("Channel", "channel"),
            ("pubDate", "pubdate"),
            ("ITEM", "item"),
            ("élément", "élément"),
            ("Élan", "Élan"),
            ("", ""),
            (long.as_str(), ""),
            (&"B".repeat(KEY_CAP + 1), ""),
        ];
        for (name, want) in cases {
            assert_eq!(Key::new(name).as_str(), want, "{name}");
        }
        assert!(matches!(Key::new("link"), Key::Lower(_)));
        assert!(matches!(Key::new("Link"), Key::Folded { .. }));
    }
}
