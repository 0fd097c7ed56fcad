//! The bot page's languages and how one is chosen: `?lang=` first, then `Accept-Language`
//! (q-values respected), then English.

/// A language the bot page is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    En,
    Fr,
    Pt,
}

impl Lang {
    /// Every language, in the order the page links them.
    pub const ALL: [Lang; 3] = [Lang::En, Lang::Fr, Lang::Pt];

    /// The language's tag, as in `lang` attributes, `?lang=` and `Content-Language`.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Fr => "fr",
            Lang::Pt => "pt",
        }
    }

    /// The language's own name, for the links between versions.
    pub fn endonym(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Fr => "Français",
            Lang::Pt => "Português",
        }
    }

    /// The language a tag names by its primary subtag ("fr-CA" is French), if the page has it.
    pub fn from_tag(tag: &str) -> Option<Lang> {
        let primary = tag.trim().split(['-', '_']).next().unwrap_or("");
        Lang::ALL
            .into_iter()
            .find(|l| primary.eq_ignore_ascii_case(l.tag()))
    }

    /// The language for a request: a known `?lang=` value wins, then the most preferred
    /// language of `Accept-Language` the page has, then English.
    pub fn negotiate(query_lang: Option<&str>, accept_language: Option<&str>) -> Lang {
        query_lang
            .and_then(Lang::from_tag)
            .or_else(|| accept_language.and_then(from_accept_language))
            .unwrap_or(Lang::En)
    }
}

/// The preferred language of an `Accept-Language` value (RFC 9110 12.5.4) the page has: the
/// highest q-value wins, earlier entries win ties, q=0 means "not this one", `*` stands for
/// English. Malformed entries are skipped.
fn from_accept_language(value: &str) -> Option<Lang> {
    let mut best: Option<(Lang, u16)> = None;
    for item in value.split(',') {
        let mut parts = item.split(';');
        let tag = parts.next().unwrap_or("").trim();
        let mut q = Some(1000);
        for param in parts {
            if let Some((name, v)) = param.split_once('=')
                && name.trim().eq_ignore_ascii_case("q")
            {
                q = parse_q(v.trim());
            }
        }
        let Some(q) = q else { continue };
        let lang = if tag == "*" {
            Some(Lang::En)
        } else {
            Lang::from_tag(tag)
        };
        if let Some(lang) = lang
            && q > 0
            && best.is_none_or(|(_, b)| q > b)
        {
            best = Some((lang, q));
        }
    }
    best.map(|(lang, _)| lang)
}

/// A q-value in thousandths ("0.8" is 800); `None` when it is not one.
fn parse_q(v: &str) -> Option<u16> {
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let milli = match int {
        "0" => {
            let padded = format!("{frac:0<3}");
            padded.parse::<u16>().ok()?
        }
        "1" if frac.bytes().all(|b| b == b'0') => 1000,
        _ => return None,
    };
    Some(milli)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_table() {
        let rows: &[(&str, Option<&str>, Option<&str>, Lang)] = &[
            ("nothing: English", None, None, Lang::En),
            ("query alone", Some("fr"), None, Lang::Fr),
            ("query beats header", Some("pt"), Some("fr"), Lang::Pt),
            ("query is case-blind", Some("PT"), None, Lang::Pt),
            (
                "unknown query falls to header",
                Some("de"),
                Some("fr"),
                Lang::Fr,
            ),
            (
                "unknown query, no header: English",
                Some("de"),
                None,
                Lang::En,
            ),
            ("empty query value", Some(""), Some("pt-BR"), Lang::Pt),
            ("header region subtag", None, Some("fr-CA"), Lang::Fr),
            ("first of equal q wins", None, Some("pt, fr"), Lang::Pt),
            (
                "q-values respected",
                None,
                Some("fr;q=0.5, pt;q=0.9"),
                Lang::Pt,
            ),
            (
                "unknown languages skipped",
                None,
                Some("de-DE, de;q=0.9, fr;q=0.3"),
                Lang::Fr,
            ),
            ("q=0 refuses", None, Some("fr;q=0, pt;q=0.1"), Lang::Pt),
            ("only unknown: English", None, Some("de, ja"), Lang::En),
            (
                "star is English",
                None,
                Some("de, *;q=0.5, fr;q=0.4"),
                Lang::En,
            ),
            (
                "malformed q skipped",
                None,
                Some("fr;q=2, pt;q=abc, en;q=0.1"),
                Lang::En,
            ),
            (
                "spaces and case",
                None,
                Some("  FR-fr ; Q=0.7 , en;q=0.6"),
                Lang::Fr,
            ),
            ("garbage header", None, Some(";;,,=;q="), Lang::En),
        ];
        for &(name, query, header, want) in rows {
            assert_eq!(Lang::negotiate(query, header), want, "{name}");
        }
    }

    #[test]
    fn q_values_parse_to_thousandths() {
        for (v, want) in [
            ("1", Some(1000)),
            ("1.000", Some(1000)),
            ("0.8", Some(800)),
            ("0.05", Some(50)),
            ("0", Some(0)),
            ("1.5", None),
            ("0.1234", None),
            ("", None),
            ("-1", None),
        ] {
            assert_eq!(parse_q(v), want, "{v}");
        }
    }
}
