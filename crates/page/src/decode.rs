//! Which encoding a page's bytes are in, in the order HTML gives: a byte order mark, the
//! `Content-Type` charset, a `<meta>` charset in the first 1024 bytes, and else a guess
//! (UTF-8 when the bytes are valid UTF-8).

use encoding_rs::{Encoding, UTF_8, WINDOWS_1252};
use std::borrow::Cow;

/// How far into the page a `<meta>` charset is looked for (HTML's prescan).
const PRESCAN_BYTES: usize = 1024;

/// The page as text, and the encoding it was read in. Malformed sequences become U+FFFD.
pub fn decode<'b>(
    bytes: &'b [u8],
    content_type: Option<&str>,
) -> (Cow<'b, str>, &'static Encoding) {
    if let Some((encoding, bom)) = Encoding::for_bom(bytes) {
        let (text, _) = encoding.decode_without_bom_handling(&bytes[bom..]);
        return (text, encoding);
    }
    let declared = content_type
        .and_then(charset_of_content_type)
        .and_then(|label| Encoding::for_label(label.as_bytes()))
        .or_else(|| prescan(bytes));
    let encoding = declared.unwrap_or_else(|| guess(bytes));
    let (text, _) = encoding.decode_without_bom_handling(bytes);
    (text, encoding)
}

/// The charset a `<meta>` of the page's first bytes declares. UTF-16 declared inside the page
/// cannot be true of bytes read as ASCII, so it means UTF-8 (as HTML says).
fn prescan(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(PRESCAN_BYTES)];
    // windows-1252 maps every byte to one character, so ASCII markup reads as written.
    let (text, _) = WINDOWS_1252.decode_without_bom_handling(head);
    let label = crate::collect::meta_charset(&text)?;
    let encoding = Encoding::for_label(label.trim().as_bytes())?;
    Some(match encoding.name() {
        "UTF-16LE" | "UTF-16BE" => UTF_8,
        "x-user-defined" => WINDOWS_1252,
        _ => encoding,
    })
}

fn guess(bytes: &[u8]) -> &'static Encoding {
    if std::str::from_utf8(bytes).is_ok() {
        return UTF_8;
    }
    use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    detector.feed(bytes, true);
    detector.guess(None, Utf8Detection::Deny)
}

/// The `charset` parameter of a `Content-Type` value, or of a `<meta content>`, unquoted.
pub fn charset_of_content_type(value: &str) -> Option<String> {
    let lower = value.to_ascii_lowercase();
    let mut from = 0;
    while let Some(found) = lower[from..].find("charset") {
        let mut rest = value[from + found + "charset".len()..].trim_start();
        from += found + "charset".len();
        let Some(after) = rest.strip_prefix('=') else {
            continue;
        };
        rest = after.trim_start();
        let label = match rest.chars().next() {
            // An unclosed quote declares nothing.
            Some(q @ ('"' | '\'')) => rest[1..].split_once(q).map_or("", |(label, _)| label),
            _ => rest
                .split(|c: char| c == ';' || c.is_ascii_whitespace())
                .next()
                .unwrap_or(""),
        };
        return (!label.is_empty()).then(|| label.to_owned());
    }
    None
}
