//! Licence recognition (FF8): Creative Commons licence URIs of every version and port, CC0,
//! the Public Domain Mark, and the SPDX identifiers of the same licences.
//!
//! Only an identifier is recognised, never prose: "CC BY 4.0", "free to use" or a copyright
//! line is free text (FF15) and recognises nothing. A declaration is the publisher's, not a
//! verified fact of ownership; it is what the decision rests on.

use std::fmt;
use url::Url;

/// A recognised licence.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Licence {
    /// A Creative Commons licence: its elements, version (`4.0`) and jurisdiction port
    /// (`de`, `scotland`), if any.
    CreativeCommons {
        kind: CcKind,
        version: String,
        port: Option<String>,
    },
    /// CC0: the work is dedicated to the public domain.
    Cc0,
    /// The Public Domain Mark: the work is marked as free of known copyright.
    PublicDomainMark,
    /// The retired Creative Commons public domain dedication (`/licenses/publicdomain/`).
    PublicDomainDedication,
}

/// The elements of a Creative Commons licence, or one of its sampling licences.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CcKind {
    pub attribution: bool,
    pub share_alike: bool,
    pub no_derivatives: bool,
    pub non_commercial: bool,
    pub sampling: Sampling,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sampling {
    /// Not a sampling licence.
    No,
    /// Sampling 1.0: parts may be reused, the whole work may not be shared.
    Sampling,
    /// Sampling Plus: the whole work may be shared, not commercially.
    Plus,
}

/// What a licence permits of the work as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Permits {
    /// Copies of the whole, unmodified work may be shared (a thumbnail shown from our cache).
    pub redistribution: bool,
    /// Also for commercial purposes.
    pub commercial: bool,
    /// Modified versions (resized images, say) may be shared.
    pub derivatives: bool,
    /// The author must be credited.
    pub attribution: bool,
}

impl Licence {
    /// What the licence permits.
    pub fn permits(&self) -> Permits {
        match self {
            Licence::Cc0 | Licence::PublicDomainMark | Licence::PublicDomainDedication => Permits {
                redistribution: true,
                commercial: true,
                derivatives: true,
                attribution: false,
            },
            Licence::CreativeCommons { kind, .. } => Permits {
                redistribution: kind.sampling != Sampling::Sampling,
                commercial: !kind.non_commercial && kind.sampling == Sampling::No,
                derivatives: !kind.no_derivatives,
                attribution: kind.attribution || kind.sampling != Sampling::No,
            },
        }
    }

    /// Recognise a declaration: a licence URI (`https://creativecommons.org/licenses/by/4.0/`,
    /// with or without `www.`, `deed.xx`, `legalcode`) or an SPDX identifier (`CC-BY-SA-4.0`).
    pub fn recognise(declaration: &str) -> Option<Licence> {
        let text = declaration.trim();
        if text.is_empty() || text.len() > 512 {
            return None;
        }
        let uri = if text.starts_with("//") {
            Url::parse(&format!("https:{text}")).ok()
        } else {
            Url::parse(text).ok()
        };
        match uri {
            Some(uri) => of_uri(&uri),
            None => of_spdx(text),
        }
    }
}

fn of_uri(uri: &Url) -> Option<Licence> {
    if !matches!(uri.scheme(), "http" | "https") {
        return None;
    }
    let host = uri.host_str()?.to_ascii_lowercase();
    if host != "creativecommons.org" && host != "www.creativecommons.org" {
        return None;
    }
    let segments: Vec<String> = uri
        .path_segments()?
        .filter(|s| !s.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    // What may follow the licence itself: a deed in some language, the legal code, RDF.
    let tail_ok = |rest: &[&str]| match rest {
        [] => true,
        [page] => is_page(page),
        _ => false,
    };
    match segments.as_slice() {
        ["publicdomain", "zero", version, rest @ ..] if *version == "1.0" && tail_ok(rest) => {
            Some(Licence::Cc0)
        }
        ["publicdomain", "mark", version, rest @ ..] if *version == "1.0" && tail_ok(rest) => {
            Some(Licence::PublicDomainMark)
        }
        ["licenses", "publicdomain", rest @ ..] if tail_ok(rest) => {
            Some(Licence::PublicDomainDedication)
        }
        ["licenses", code, version, rest @ ..] => {
            let kind = cc_kind(code)?;
            if !is_version(version) {
                return None;
            }
            let (port, rest) = match rest {
                [port, rest @ ..] if is_port(port) => (Some((*port).to_owned()), rest),
                _ => (None, rest),
            };
            tail_ok(rest).then(|| Licence::CreativeCommons {
                kind,
                version: (*version).to_owned(),
                port,
            })
        }
        _ => None,
    }
}

/// The licence codes Creative Commons has published (the 1.0 forms without BY included).
fn cc_kind(code: &str) -> Option<CcKind> {
    let mut kind = CcKind {
        attribution: false,
        share_alike: false,
        no_derivatives: false,
        non_commercial: false,
        sampling: Sampling::No,
    };
    match code {
        "sampling" => kind.sampling = Sampling::Sampling,
        "sampling+" => kind.sampling = Sampling::Plus,
        "nc-sampling+" => {
            kind.sampling = Sampling::Plus;
            kind.non_commercial = true;
        }
        _ => {
            for element in code.split('-') {
                let flag = match element {
                    "by" => &mut kind.attribution,
                    "sa" => &mut kind.share_alike,
                    "nd" => &mut kind.no_derivatives,
                    "nc" => &mut kind.non_commercial,
                    _ => return None,
                };
                if *flag {
                    return None;
                }
                *flag = true;
            }
            // SA and ND contradict each other; a code needs some element.
            if (kind.share_alike && kind.no_derivatives) || code.is_empty() {
                return None;
            }
        }
    }
    Some(kind)
}

fn is_version(v: &str) -> bool {
    matches!(v, "1.0" | "2.0" | "2.1" | "2.5" | "3.0" | "4.0")
}

/// A jurisdiction port: `de`, `br`, `scotland`, `igo`.
fn is_port(s: &str) -> bool {
    (2..=12).contains(&s.len())
        && s.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
        && !is_page(s)
}

/// A page about the licence: `deed`, `deed.pt_BR`, `legalcode`, `legalcode.de`, `rdf`.
fn is_page(s: &str) -> bool {
    s == "deed" || s.starts_with("deed.") || s.starts_with("legalcode") || s == "rdf"
}

/// An SPDX licence identifier of the Creative Commons family (case ignored): `CC-BY-4.0`,
/// `CC-BY-NC-SA-3.0-DE`, `CC0-1.0`, `CC-PDDC`, `CC-PDM-1.0`.
fn of_spdx(id: &str) -> Option<Licence> {
    let id = id.to_ascii_uppercase();
    match id.as_str() {
        "CC0-1.0" => return Some(Licence::Cc0),
        "CC-PDM-1.0" => return Some(Licence::PublicDomainMark),
        "CC-PDDC" => return Some(Licence::PublicDomainDedication),
        _ => {}
    }
    let rest = id.strip_prefix("CC-")?;
    let parts: Vec<&str> = rest.split('-').collect();
    let at = parts.iter().position(|p| is_version(p))?;
    let code = parts[..at].join("-").to_ascii_lowercase();
    // SPDX writes the sampling licences without their `+`: `CC-BY-NC-SA-…` only covers the
    // element licences.
    let kind = cc_kind(&code).filter(|k| k.sampling == Sampling::No && k.attribution)?;
    let port = match &parts[at + 1..] {
        [] => None,
        [port] if is_port(&port.to_ascii_lowercase()) => Some(port.to_ascii_lowercase()),
        _ => return None,
    };
    Some(Licence::CreativeCommons {
        kind,
        version: parts[at].to_owned(),
        port,
    })
}

impl fmt::Display for Licence {
    /// `CC BY-SA 3.0 (de)`, `CC0`, `Public Domain Mark`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Licence::Cc0 => f.write_str("CC0 1.0"),
            Licence::PublicDomainMark => f.write_str("Public Domain Mark 1.0"),
            Licence::PublicDomainDedication => f.write_str("CC public domain dedication"),
            Licence::CreativeCommons {
                kind,
                version,
                port,
            } => {
                f.write_str("CC ")?;
                match kind.sampling {
                    Sampling::Sampling => f.write_str("Sampling")?,
                    Sampling::Plus if kind.non_commercial => f.write_str("NC-Sampling+")?,
                    Sampling::Plus => f.write_str("Sampling+")?,
                    Sampling::No => {
                        let elements: Vec<&str> = [
                            (kind.attribution, "BY"),
                            (kind.non_commercial, "NC"),
                            (kind.no_derivatives, "ND"),
                            (kind.share_alike, "SA"),
                        ]
                        .iter()
                        .filter(|(on, _)| *on)
                        .map(|(_, e)| *e)
                        .collect();
                        f.write_str(&elements.join("-"))?;
                    }
                }
                write!(f, " {version}")?;
                if let Some(port) = port {
                    write!(f, " ({port})")?;
                }
                Ok(())
            }
        }
    }
}
