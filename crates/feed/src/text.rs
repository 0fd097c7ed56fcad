//! Small value readers shared by the XML adapters: entity references, people, durations,
//! numbers, URLs and base64.
//!
//! Each reader is total: it returns `None` (or the input as written) rather than failing, and
//! the caller decides whether that deserves a warning.

use std::borrow::Cow;
use tidings_model::Author;
use url::Url;

/// What an entity reference (`name` without `&` and `;`) stands for.
pub(crate) enum Resolved {
    Char(char),
    Str(&'static str),
    /// Neither XML's, a character reference, nor HTML's: kept as written.
    Unknown,
}

/// Resolve an entity reference: the five XML ones, `#N`/`#xN`, then HTML's named entities.
pub(crate) fn resolve_entity(name: &str) -> Resolved {
    match name {
        "lt" => return Resolved::Char('<'),
        "gt" => return Resolved::Char('>'),
        "amp" => return Resolved::Char('&'),
        "quot" => return Resolved::Char('"'),
        "apos" => return Resolved::Char('\''),
        _ => {}
    }
    if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok(),
            None => num.parse::<u32>().ok(),
        };
        return match code.map(windows_1252).and_then(char::from_u32) {
            Some(c) => Resolved::Char(c),
            None => Resolved::Unknown,
        };
    }
    match crate::entities::lookup(name) {
        Some(s) => Resolved::Str(s),
        None => Resolved::Unknown,
    }
}

/// Character references to U+0080–U+009F mean the Windows-1252 characters at those bytes, as
/// in HTML (`&#150;` is an en dash).
fn windows_1252(code: u32) -> u32 {
    const C1: [u16; 32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
        0x2039, 0x0152, 0x8D, 0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013,
        0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ];
    code.checked_sub(0x80)
        .and_then(|i| C1.get(i as usize))
        .map_or(code, |&c| u32::from(c))
}

/// Append the replacement of `&name;` to `out`; `false` (and nothing appended) when unknown.
pub(crate) fn push_entity(out: &mut String, name: &str) -> bool {
    match resolve_entity(name) {
        Resolved::Char(c) => out.push(c),
        Resolved::Str(s) => out.push_str(s),
        Resolved::Unknown => return false,
    }
    true
}

/// Append `&name;` as written.
pub(crate) fn push_as_written(out: &mut String, name: &str) {
    out.push('&');
    out.push_str(name);
    out.push(';');
}

/// Unescape references in an attribute value; a bare `&` stays literal.
pub(crate) fn unescape(raw: &str) -> Cow<'_, str> {
    unescape_with(raw, &mut push_as_written)
}

/// Unescape references in text: XML's, character references and HTML's named entities; a
/// bare `&` stays literal; an unknown entity is handed to `unknown`, which appends what it
/// stands for (or the reference as written).
pub(crate) fn unescape_with<'r>(
    raw: &'r str,
    unknown: &mut dyn FnMut(&mut String, &str),
) -> Cow<'r, str> {
    let Some(first) = memchr::memchr(b'&', raw.as_bytes()) else {
        return Cow::Borrowed(raw);
    };
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    let mut at = first;
    loop {
        let (before, tail) = rest.split_at(at);
        out.push_str(before);
        let after = tail.get(1..).unwrap_or("");
        match ref_name(after) {
            Some(name) => {
                if !push_entity(&mut out, name) {
                    unknown(&mut out, name);
                }
                rest = after.get(name.len() + 1..).unwrap_or("");
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
        match memchr::memchr(b'&', rest.as_bytes()) {
            Some(next) => at = next,
            None => break,
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// String equality without a `memcmp` call: names compared here are a few bytes long.
#[inline]
pub(crate) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

/// The name of the reference that `after` (the text after an `&`) starts with: up to 32
/// characters, then `;`. `None` for a bare `&`.
fn ref_name(after: &str) -> Option<&str> {
    after
        .bytes()
        .take(33)
        .position(|b| b == b';')
        .and_then(|n| after.get(..n))
        .filter(|n| !n.is_empty() && !n.contains([' ', '&', '<', '\n', '\t']))
}

/// `\r\n` and a lone `\r` become `\n`, as an XML processor reports line ends.
pub(crate) fn normalize_newlines(text: Cow<'_, str>) -> Cow<'_, str> {
    if memchr::memchr(b'\r', text.as_bytes()).is_none() {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' {
            if chars.peek() == Some(&'\n') {
                chars.next();
            }
            out.push('\n');
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Split an RSS-style person: `email (Name)`, `Name (email)`, `Name <email>`, a bare email
/// or a bare name.
pub(crate) fn person(raw: &str) -> Option<Author> {
    let s = raw.trim();
    if s.is_empty() {
        return None;
    }
    let mut author = Author::default();
    if let (Some(open), true) = (s.find('('), s.ends_with(')')) {
        let inside = s.get(open + 1..s.len() - 1).unwrap_or("").trim();
        let before = s.get(..open).unwrap_or("").trim();
        let (email, name) = if is_email(before) {
            (before, inside)
        } else if is_email(inside) {
            (inside, before)
        } else {
            ("", "")
        };
        if !email.is_empty() {
            author.email = Some(email.trim_start_matches("mailto:").to_owned());
            author.name = non_empty(name);
            return Some(author);
        }
    }
    if let (Some(open), true) = (s.find('<'), s.ends_with('>')) {
        let email = s.get(open + 1..s.len() - 1).unwrap_or("").trim();
        let name = s.get(..open).unwrap_or("").trim().trim_matches('"').trim();
        if email.contains('@') {
            author.email = Some(email.trim_start_matches("mailto:").to_owned());
            author.name = non_empty(name);
            return Some(author);
        }
    }
    if s.contains('@') && !s.contains(' ') {
        author.email = Some(s.trim_start_matches("mailto:").to_owned());
    } else {
        author.name = Some(s.to_owned());
    }
    Some(author)
}

/// `html` without its `script` and `style` elements, their content included (names matched
/// in any case; one never closed runs to the end).
pub(crate) fn without_script_and_style(html: &str) -> Cow<'_, str> {
    let has = |tag: &[u8]| {
        html.as_bytes()
            .windows(tag.len())
            .any(|w| w.eq_ignore_ascii_case(tag))
    };
    if !html.contains('<') || (!has(b"<script") && !has(b"<style")) {
        return Cow::Borrowed(html);
    }
    let lower = html.to_ascii_lowercase();
    let mut out = String::with_capacity(html.len());
    let mut at = 0;
    while at < html.len() {
        let next = ["script", "style"]
            .iter()
            .filter_map(|name| {
                let open = format!("<{name}");
                let mut from = at;
                // `<scripts>` or `<styled>` are other elements.
                while let Some(i) = lower.get(from..).and_then(|rest| rest.find(&open)) {
                    let start = from + i;
                    let after = lower.as_bytes().get(start + open.len());
                    if after.is_none_or(|b| b.is_ascii_whitespace() || *b == b'>' || *b == b'/') {
                        return Some((start, *name));
                    }
                    from = start + open.len();
                }
                None
            })
            .min_by_key(|(start, _)| *start);
        let Some((start, name)) = next else {
            out.push_str(&html[at..]);
            break;
        };
        out.push_str(&html[at..start]);
        let close = format!("</{name}");
        at = match lower[start..].find(&close) {
            Some(i) => {
                let end = start + i;
                lower[end..].find('>').map_or(html.len(), |j| end + j + 1)
            }
            None => html.len(),
        };
    }
    Cow::Owned(out)
}

/// Whether `s` reads as one email address: an `@` and no space.
fn is_email(s: &str) -> bool {
    s.contains('@') && !s.contains(char::is_whitespace)
}

pub(crate) fn non_empty(s: &str) -> Option<String> {
    let t = trim(s);
    (!t.is_empty()).then(|| t.to_owned())
}

/// A duration as `HH:MM:SS`, `MM:SS` or plain seconds (fractions dropped), in seconds.
pub(crate) fn duration(raw: &str) -> Option<u64> {
    let s = raw.trim();
    if s.is_empty() {
        return None;
    }
    let mut total: u64 = 0;
    let mut parts = 0;
    for part in s.split(':') {
        parts += 1;
        if parts > 3 {
            return None;
        }
        let whole = part.trim().split('.').next().unwrap_or("");
        let n: u64 = if whole.is_empty() && part.contains('.') {
            0
        } else {
            whole.parse().ok()?
        };
        total = total.checked_mul(60)?.checked_add(n)?;
    }
    Some(total)
}

/// An unsigned integer, tolerating surrounding spaces and a `+`.
pub(crate) fn number<T: std::str::FromStr>(raw: &str) -> Option<T> {
    let s = trim(raw);
    s.strip_prefix('+').unwrap_or(s).parse().ok()
}

/// `s.trim()`, without reading characters when neither end is white space, nor a byte of a
/// multi-byte character that might be (nearly every text): a cheap test before the call.
pub(crate) fn trim(s: &str) -> &str {
    match (s.as_bytes().first(), s.as_bytes().last()) {
        (Some(first), Some(last)) if first.is_ascii_graphic() && last.is_ascii_graphic() => s,
        _ => s.trim(),
    }
}

/// Whether `s` starts with a URL scheme (`http:`, `mailto:`, ...), i.e. is absolute: read
/// up to the first byte that cannot be in a scheme, not over the whole reference.
fn has_scheme(s: &str) -> bool {
    let mut bytes = s.bytes();
    if !bytes.next().is_some_and(|b| b.is_ascii_alphabetic()) {
        return false;
    }
    bytes.find(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))) == Some(b':')
}

/// Resolve `href` against `base`. Absolute references are returned exactly as written;
/// without a base, or when joining fails, the reference is returned as written.
pub(crate) fn resolve(base: Option<&Url>, href: &str) -> String {
    let h = trim(href);
    if has_scheme(h) {
        return h.to_owned();
    }
    match base.and_then(|b| b.join(h).ok()) {
        Some(u) => u.into(),
        None => h.to_owned(),
    }
}

/// Decode base64 (standard alphabet, whitespace ignored, padding optional).
pub(crate) fn base64(raw: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(raw.len() / 4 * 3);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for b in raw.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            b if b.is_ascii_whitespace() => continue,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// An iTunes-style boolean: yes/true/explicit, no/false/clean.
pub(crate) fn explicit(raw: &str) -> Option<bool> {
    match crate::names::Key::new(raw.trim()).as_str() {
        "yes" | "true" | "explicit" => Some(true),
        "no" | "false" | "clean" => Some(false),
        _ => None,
    }
}

/// Comma-separated keywords, trimmed, empty ones dropped.
pub(crate) fn keywords(raw: &str) -> impl Iterator<Item = String> + '_ {
    raw.split(',')
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::{person, without_script_and_style};

    /// A label's scripts and styles go with their content; the rest stays as found.
    #[test]
    fn script_and_style_are_dropped_with_their_content() {
        let rows = [
            ("<b>Tide</b> tables", "<b>Tide</b> tables"),
            ("Tide<script>alert(1)</script> tables", "Tide tables"),
            ("Tide<SCRIPT type=\"x\">a<b</Script > tables", "Tide tables"),
            ("<style>p{color:red}</style>Tide", "Tide"),
            ("Tide <script>never closed", "Tide "),
            (
                "<scripts>kept</scripts> and <styled>",
                "<scripts>kept</scripts> and <styled>",
            ),
            // HTML has no empty script element: what follows `<script/>` is its content.
            ("a<script/>b", "a"),
        ];
        for (html, want) in rows {
            assert_eq!(without_script_and_style(html), want, "{html}");
        }
    }

    /// Every way RSS writes a person, split into the name and the email.
    #[test]
    fn rss_people_are_split_into_name_and_email() {
        let rows: &[(&str, Option<&str>, Option<&str>)] = &[
            (
                "ana@example.org (Ana Lima)",
                Some("Ana Lima"),
                Some("ana@example.org"),
            ),
            (
                "Ana Lima (ana@example.org)",
                Some("Ana Lima"),
                Some("ana@example.org"),
            ),
            (
                "Ana Lima (mailto:ana@example.org)",
                Some("Ana Lima"),
                Some("ana@example.org"),
            ),
            (
                "Ana Lima <ana@example.org>",
                Some("Ana Lima"),
                Some("ana@example.org"),
            ),
            ("ana@example.org", None, Some("ana@example.org")),
            ("ana@example.org ()", None, Some("ana@example.org")),
            ("Ana Lima", Some("Ana Lima"), None),
            ("Ana Lima (editor)", Some("Ana Lima (editor)"), None),
            (
                "Ana (at) example (dot) org",
                Some("Ana (at) example (dot) org"),
                None,
            ),
        ];
        for &(raw, name, email) in rows {
            let got = person(raw).expect("a person");
            assert_eq!(
                (got.name.as_deref(), got.email.as_deref()),
                (name, email),
                "{raw}"
            );
        }
        assert_eq!(person("  "), None);
    }
}
