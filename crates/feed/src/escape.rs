//! Text into markup: the one escaping function for every XML document tidings writes (the
//! OPML in [`crate::opml`], the Atom output and the HTML pages of the API), whatever the text.
//!
//! [`text`] makes any string safe both as element content and as a quoted attribute value,
//! in XML 1.0 and in HTML alike:
//!
//! - `&`, `<`, `>`, `"` and `'` become references, so `]]>` and quotes cannot end anything;
//! - tab, newline and carriage return become character references (`&#9;`, `&#10;`,
//!   `&#13;`): a parser normalises them to spaces inside attribute values, and a bare
//!   carriage return to a newline in content, so only a reference carries them through;
//! - characters XML 1.0 cannot hold at all ([`is_xml_char`]: the C0 controls other than those
//!   three, U+FFFE and U+FFFF) are dropped, not replaced: no reference may stand for them
//!   either, and a feed title is better without them than with a stray U+FFFD.
//!
//! DEL, the C1 controls and the bidi controls are allowed by XML 1.0 and kept: the XML is
//! data, and whoever displays it decides how (the command line makes them visible).

/// Escape `text` for element content and quoted attribute values in XML 1.0 and HTML.
pub fn text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' => out.push_str("&#9;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            c if !is_xml_char(c) => {}
            c => out.push(c),
        }
    }
    out
}

/// True when XML 1.0 can hold `c` (its `Char` production; Rust strings hold no surrogates).
pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{FFFD}' | '\u{10000}'..)
}

#[cfg(test)]
mod tests {
    use super::{is_xml_char, text};

    #[test]
    fn markup_and_quotes_are_escaped_and_what_xml_cannot_hold_is_dropped() {
        assert_eq!(
            text("<a href=\"x\">O'Neil & co</a>]]>"),
            "&lt;a href=&quot;x&quot;&gt;O&#39;Neil &amp; co&lt;/a&gt;]]&gt;"
        );
        assert_eq!(
            text("tab\tline\ncr\rbell\u{7}esc\u{1b}end\u{FFFF}\u{FFFE}"),
            "tab&#9;line&#10;cr&#13;bellescend"
        );
        assert_eq!(
            text("café ✓ 𝄞 \u{7f}\u{85}\u{202e}"),
            "café ✓ 𝄞 \u{7f}\u{85}\u{202e}"
        );
    }

    #[test]
    fn the_char_production_of_xml_1_0() {
        for c in [
            '\t',
            '\n',
            '\r',
            ' ',
            '\u{D7FF}',
            '\u{E000}',
            '\u{FFFD}',
            '\u{10000}',
        ] {
            assert!(is_xml_char(c), "{c:?}");
        }
        for c in [
            '\0', '\u{8}', '\u{b}', '\u{c}', '\u{1f}', '\u{FFFE}', '\u{FFFF}',
        ] {
            assert!(!is_xml_char(c), "{c:?}");
        }
    }
}
