//! Escaping text for HTML and XML, one function for both: what the bot page, the publisher
//! page and the Atom output interpolate goes through [`text`].

/// Escape text for element content and quoted attribute values in HTML and XML alike.
/// Characters XML 1.0 cannot hold (controls other than tab, newline and carriage return,
/// U+FFFE and U+FFFF) are dropped; HTML does not allow them either.
pub fn text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::text;

    #[test]
    fn markup_and_quotes_are_escaped_and_what_xml_cannot_hold_is_dropped() {
        assert_eq!(
            text("<a href=\"x\">O'Neil & co</a>"),
            "&lt;a href=&quot;x&quot;&gt;O&#39;Neil &amp; co&lt;/a&gt;"
        );
        assert_eq!(
            text("tab\tline\nbell\u{7}end\u{FFFF}"),
            "tab\tline\nbellend"
        );
        assert_eq!(text("café ✓"), "café ✓");
    }
}
