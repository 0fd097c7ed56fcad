//! Reading the signs a document gives of its encoding, without decoding it: the byte order
//! mark, the byte pattern of a BOM-less UTF-16/32 start, the XML declaration's `encoding`,
//! and the meaning of a charset label.

use encoding_rs::Encoding;

/// A Unicode encoding form, the ones a BOM or a byte pattern can reveal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    Utf8,
    Utf16Le,
    Utf16Be,
    Utf32Le,
    Utf32Be,
}

impl Form {
    /// Lowercase name for warnings.
    pub(super) fn name(self) -> &'static str {
        match self {
            Form::Utf8 => "utf-8",
            Form::Utf16Le => "utf-16le",
            Form::Utf16Be => "utf-16be",
            Form::Utf32Le => "utf-32le",
            Form::Utf32Be => "utf-32be",
        }
    }

    /// Bytes per code unit.
    fn width(self) -> usize {
        match self {
            Form::Utf8 => 1,
            Form::Utf16Le | Form::Utf16Be => 2,
            Form::Utf32Le | Form::Utf32Be => 4,
        }
    }

    /// Whether the first byte of a code unit is its most significant one.
    fn big_endian(self) -> bool {
        matches!(self, Form::Utf16Be | Form::Utf32Be)
    }
}

/// What a charset label (HTTP `charset` or XML `encoding`) names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Charset {
    Utf8,
    /// UTF-16 or UTF-32 in some byte order: only a BOM or a byte pattern can confirm it.
    Wide,
    /// Any other encoding encoding_rs decodes: single-byte, CJK, ISO-2022-JP, x-user-defined.
    Legacy(&'static Encoding),
}

impl Charset {
    /// Lowercase name for warnings.
    pub(super) fn name(self) -> String {
        match self {
            Charset::Utf8 => "utf-8".to_owned(),
            Charset::Wide => "utf-16/utf-32".to_owned(),
            Charset::Legacy(encoding) => encoding.name().to_ascii_lowercase(),
        }
    }
}

/// The byte order mark at the start of `bytes`, if any, with its length.
///
/// UTF-32 LE is tested before UTF-16 LE, whose mark is its prefix.
pub(super) fn bom(bytes: &[u8]) -> Option<(Form, usize)> {
    match bytes {
        [0xEF, 0xBB, 0xBF, ..] => Some((Form::Utf8, 3)),
        [0xFF, 0xFE, 0x00, 0x00, ..] => Some((Form::Utf32Le, 4)),
        [0x00, 0x00, 0xFE, 0xFF, ..] => Some((Form::Utf32Be, 4)),
        [0xFF, 0xFE, ..] => Some((Form::Utf16Le, 2)),
        [0xFE, 0xFF, ..] => Some((Form::Utf16Be, 2)),
        _ => None,
    }
}

/// A BOM-less UTF-16/32 document, told by the zero bytes around its first ASCII characters
/// (`<?xml`, `<`, `{` or whitespace), as in appendix F of the XML specification.
pub(super) fn wide_pattern(bytes: &[u8]) -> Option<Form> {
    let ascii = |b: u8| b != 0 && b < 0x80;
    match bytes {
        [0, 0, 0, a, ..] if ascii(*a) => Some(Form::Utf32Be),
        [a, 0, 0, 0, ..] if ascii(*a) => Some(Form::Utf32Le),
        [0, a, 0, b, ..] if ascii(*a) && ascii(*b) => Some(Form::Utf16Be),
        [a, 0, b, 0, ..] if ascii(*a) && ascii(*b) => Some(Form::Utf16Le),
        _ => None,
    }
}

/// How far into a document the XML declaration is looked for.
const PROLOG_LIMIT: usize = 1024;

/// The `encoding` pseudo-attribute of the XML declaration near the start of an
/// ASCII-compatible document, as raw bytes. The declaration belongs at the very start, but
/// junk before it (a server's error line, whitespace) is tolerated within the first KiB.
pub(super) fn declared_label(bytes: &[u8]) -> Option<&[u8]> {
    let head = bytes.get(..PROLOG_LIMIT).unwrap_or(bytes);
    let start = head.windows(5).position(|w| w == b"<?xml")?;
    let rest = head.get(start + 5..)?;
    if !rest.first().is_some_and(|b| b.is_ascii_whitespace()) {
        return None; // `<?xml-stylesheet ...?>` or `<?xml?>`
    }
    let end = memchr::memchr(b'>', rest).unwrap_or(rest.len());
    let decl = rest.get(..end)?;
    // `encoding` is looked for only where an `e` is, not at every byte.
    let at = memchr::memchr2_iter(b'e', b'E', decl).find(|&i| {
        decl.get(i..i + 8)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"encoding"))
    })?;
    let after = trim_start(decl.get(at + 8..)?).strip_prefix(b"=")?;
    let after = trim_start(after);
    let (value, terminator): (&[u8], fn(u8) -> bool) = match after.first() {
        Some(b'"') => (after.get(1..)?, |b| b == b'"'),
        Some(b'\'') => (after.get(1..)?, |b| b == b'\''),
        _ => (after, |b| b.is_ascii_whitespace() || b == b'?'),
    };
    let len = value
        .iter()
        .position(|&b| terminator(b))
        .unwrap_or(value.len());
    value.get(..len).filter(|label| !label.is_empty())
}

/// The XML declaration's `encoding` of a UTF-16/32 document, read from its ASCII code units.
pub(super) fn declared_label_wide(bytes: &[u8], form: Form) -> Option<Vec<u8>> {
    let width = form.width();
    let narrow: Vec<u8> = bytes
        .chunks_exact(width)
        .take(PROLOG_LIMIT / 4)
        .map(|unit| {
            let (low, high) = if form.big_endian() {
                (unit.last(), unit.get(..width - 1))
            } else {
                (unit.first(), unit.get(1..))
            };
            match (low, high) {
                (Some(&b), Some(rest)) if b < 0x80 && rest.iter().all(|&z| z == 0) => b,
                _ => b'?',
            }
        })
        .collect();
    declared_label(&narrow).map(<[u8]>::to_vec)
}

fn trim_start(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    bytes.get(start..).unwrap_or_default()
}

/// Common names that are not WHATWG labels, mapped to the encoding they mean.
const ALIASES: &[(&str, &str)] = &[
    ("cp932", "shift_jis"),
    ("windows-932", "shift_jis"),
    ("cp936", "gbk"),
    ("windows-936", "gbk"),
    ("cp949", "euc-kr"),
    ("windows-949", "euc-kr"),
    ("uhc", "euc-kr"),
    ("cp950", "big5"),
    ("windows-950", "big5"),
    ("latin-1", "windows-1252"),
    ("cp-1252", "windows-1252"),
    ("win-1251", "windows-1251"),
    ("cp-1251", "windows-1251"),
];

/// What a charset label names, or `None` when it names nothing we can decode.
///
/// Lenient about what servers and authors write: surrounding whitespace, quotes and stray
/// `;`/`,`, any case, `_` for `-`, and a few common non-WHATWG names (`cp932`, `latin-1`, ...).
/// ISO-8859-1 and US-ASCII read as windows-1252, as browsers and encoding_rs do.
pub(super) fn charset(label: &[u8]) -> Option<Charset> {
    let trimmed = label
        .iter()
        .position(|b| !is_label_junk(*b))
        .and_then(|start| {
            let end = label.iter().rposition(|b| !is_label_junk(*b))?;
            label.get(start..=end)
        })?;
    // Most documents say UTF-8: known without building the label's other spellings.
    if trimmed.eq_ignore_ascii_case(b"utf-8") || trimmed.eq_ignore_ascii_case(b"utf8") {
        return Some(Charset::Utf8);
    }
    let lower = trimmed.to_ascii_lowercase();
    let mut candidates = vec![lower.clone()];
    let dashed: Vec<u8> = lower
        .iter()
        .map(|&b| if b == b'_' { b'-' } else { b })
        .collect();
    candidates.push(dashed.clone());
    if let Some((_, target)) = ALIASES.iter().find(|(alias, _)| alias.as_bytes() == dashed) {
        candidates.push(target.as_bytes().to_vec());
    }
    for candidate in &candidates {
        if matches!(
            candidate.as_slice(),
            b"utf-32"
                | b"utf-32le"
                | b"utf-32be"
                | b"utf32"
                | b"ucs-4"
                | b"ucs4"
                | b"iso-10646-ucs-4"
        ) {
            return Some(Charset::Wide);
        }
        if let Some(encoding) = Encoding::for_label(candidate) {
            return match encoding {
                e if e == encoding_rs::UTF_8 => Some(Charset::Utf8),
                e if e == encoding_rs::UTF_16LE || e == encoding_rs::UTF_16BE => {
                    Some(Charset::Wide)
                }
                // The "replacement" encoding (ISO-2022-KR, HZ, ...) would turn the whole
                // document into one U+FFFD: better to treat the label as unknown.
                e if e == encoding_rs::REPLACEMENT => None,
                e => Some(Charset::Legacy(e)),
            };
        }
    }
    None
}

fn is_label_junk(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b';' | b',')
}
