//! Named character references: HTML 4.01 names, HTML5 additions, legacy names, misses.

use tidings_feed::entities::lookup;

/// One row: a name and the text it must resolve to (`None` for "not an entity").
fn check(rows: &[(&str, Option<&str>)]) {
    for (name, want) in rows {
        assert_eq!(lookup(name), *want, "lookup({name:?})");
    }
}

#[test]
fn html4_names_resolve() {
    check(&[
        ("eacute", Some("é")),
        ("Eacute", Some("É")),
        ("nbsp", Some("\u{a0}")),
        ("hellip", Some("…")),
        ("rsquo", Some("\u{2019}")),
        ("lsquo", Some("\u{2018}")),
        ("ldquo", Some("\u{201c}")),
        ("rdquo", Some("\u{201d}")),
        ("mdash", Some("—")),
        ("ndash", Some("–")),
        ("copy", Some("©")),
        ("reg", Some("®")),
        ("trade", Some("™")),
        ("euro", Some("€")),
        ("laquo", Some("«")),
        ("raquo", Some("»")),
        ("szlig", Some("ß")),
        ("alpha", Some("α")),
        ("Omega", Some("Ω")),
        ("yuml", Some("ÿ")),
        ("Yuml", Some("Ÿ")),
        ("thetasym", Some("ϑ")),
        ("zwnj", Some("\u{200c}")),
        ("amp", Some("&")),
        ("lt", Some("<")),
        ("gt", Some(">")),
        ("quot", Some("\"")),
        ("apos", Some("'")),
    ]);
}

#[test]
fn html5_additions_resolve() {
    check(&[
        ("AMP", Some("&")),
        ("QUOT", Some("\"")),
        ("nbsp", Some("\u{a0}")),
        ("NewLine", Some("\n")),
        ("Tab", Some("\t")),
        ("bigstar", Some("★")),
        ("check", Some("✓")),
        ("phone", Some("☎")),
        ("CounterClockwiseContourIntegral", Some("∳")),
        ("NotEqualTilde", Some("\u{2242}\u{338}")),
        ("fjlig", Some("fj")),
        ("Afr", Some("\u{1d504}")),
    ]);
}

#[test]
fn names_are_case_sensitive() {
    check(&[
        ("EACUTE", None),
        ("Nbsp", None),
        ("HELLIP", None),
        ("Copy", None),
        ("COPY", Some("©")),
    ]);
}

#[test]
fn unknown_names_are_none() {
    check(&[
        ("", None),
        ("nosuchentity", None),
        ("eacute;", None),
        ("&eacute", None),
        (" nbsp", None),
        ("nbsp ", None),
        ("#233", None),
        ("#x00e9", None),
        ("a", None),
        ("CounterClockwiseContourIntegralX", None),
        ("é", None),
        ("\u{0}", None),
    ]);
}

#[test]
fn every_legacy_latin1_name_resolves() {
    // The 96 ISO 8859-1 names of HTML 4.01, in code point order from U+00A0.
    let names = [
        "nbsp", "iexcl", "cent", "pound", "curren", "yen", "brvbar", "sect", "uml", "copy", "ordf",
        "laquo", "not", "shy", "reg", "macr", "deg", "plusmn", "sup2", "sup3", "acute", "micro",
        "para", "middot", "cedil", "sup1", "ordm", "raquo", "frac14", "frac12", "frac34", "iquest",
        "Agrave", "Aacute", "Acirc", "Atilde", "Auml", "Aring", "AElig", "Ccedil", "Egrave",
        "Eacute", "Ecirc", "Euml", "Igrave", "Iacute", "Icirc", "Iuml", "ETH", "Ntilde", "Ograve",
        "Oacute", "Ocirc", "Otilde", "Ouml", "times", "Oslash", "Ugrave", "Uacute", "Ucirc",
        "Uuml", "Yacute", "THORN", "szlig", "agrave", "aacute", "acirc", "atilde", "auml", "aring",
        "aelig", "ccedil", "egrave", "eacute", "ecirc", "euml", "igrave", "iacute", "icirc",
        "iuml", "eth", "ntilde", "ograve", "oacute", "ocirc", "otilde", "ouml", "divide", "oslash",
        "ugrave", "uacute", "ucirc", "uuml", "yacute", "thorn", "yuml",
    ];
    assert_eq!(names.len(), 96);
    for (offset, name) in names.iter().enumerate() {
        let want = char::from_u32(0xa0 + offset as u32).map(String::from);
        assert_eq!(lookup(name).map(String::from), want, "lookup({name:?})");
    }
}
