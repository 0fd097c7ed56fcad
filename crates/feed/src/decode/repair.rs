//! Decoders that never fail: the Unicode forms with replacement characters (UTF-32 written
//! here, since encoding_rs has none), UTF-8 with stray legacy bytes, and the chardetng guess
//! for documents whose labels all proved wrong.

use std::borrow::Cow;

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252};

use super::sniff::Form;

/// Decode `bytes` (BOM already removed) in a Unicode form; the flag says whether anything
/// was replaced (invalid UTF-8, lone surrogates, code points past U+10FFFF, a cut unit).
///
/// Invalid UTF-8 is not replaced by U+FFFD but read byte by byte as windows-1252, like
/// [`utf8_with_stray_bytes`].
pub(super) fn unicode(bytes: &[u8], form: Form) -> (Cow<'_, str>, bool) {
    match form {
        Form::Utf8 => match valid_utf8(bytes) {
            Some(text) => (Cow::Borrowed(text), false),
            None => (Cow::Owned(utf8_with_stray_bytes(bytes)), true),
        },
        Form::Utf16Le => UTF_16LE.decode_without_bom_handling(bytes),
        Form::Utf16Be => UTF_16BE.decode_without_bom_handling(bytes),
        Form::Utf32Le => utf32(bytes, u32::from_le_bytes),
        Form::Utf32Be => utf32(bytes, u32::from_be_bytes),
    }
}

/// `bytes` as text if they are valid UTF-8, without a copy.
///
/// encoding_rs validates with simdutf8's SIMD code on x86-64 and aarch64 (runtime dispatch):
/// measured about six times faster than `std::str::from_utf8` on text dense in non-ASCII
/// characters, at no cost in dependencies since encoding_rs already brings it.
pub(super) fn valid_utf8(bytes: &[u8]) -> Option<&str> {
    match UTF_8.decode_without_bom_handling_and_without_replacement(bytes) {
        Some(Cow::Borrowed(text)) => Some(text),
        // encoding_rs borrows valid UTF-8 always; should it ever copy, fall back to std.
        Some(Cow::Owned(_)) => std::str::from_utf8(bytes).ok(),
        None => None,
    }
}

/// UTF-32 in the byte order `read` gives; invalid code points and a trailing partial unit
/// become U+FFFD.
fn utf32(bytes: &[u8], read: fn([u8; 4]) -> u32) -> (Cow<'static, str>, bool) {
    let mut text = String::with_capacity(bytes.len() / 4 + 1);
    let mut replaced = false;
    let mut units = bytes.chunks_exact(4);
    for unit in &mut units {
        let code = <[u8; 4]>::try_from(unit).map(read).ok();
        match code.and_then(char::from_u32) {
            Some(c) => text.push(c),
            None => {
                text.push(char::REPLACEMENT_CHARACTER);
                replaced = true;
            }
        }
    }
    if !units.remainder().is_empty() {
        text.push(char::REPLACEMENT_CHARACTER);
        replaced = true;
    }
    (Cow::Owned(text), replaced)
}

/// How much of a not-valid UTF-8 document looks like UTF-8.
pub(super) struct Utf8Profile {
    /// Well-formed multi-byte sequences.
    pub(super) multibyte: usize,
    /// Maximal runs of bytes that are not well-formed UTF-8.
    pub(super) invalid: usize,
}

impl Utf8Profile {
    pub(super) fn of(bytes: &[u8]) -> Self {
        let mut profile = Utf8Profile {
            multibyte: 0,
            invalid: 0,
        };
        for chunk in bytes.utf8_chunks() {
            profile.multibyte += chunk.valid().bytes().filter(|&b| b >= 0xC0).count();
            if !chunk.invalid().is_empty() {
                profile.invalid += 1;
            }
        }
        profile
    }

    /// Mostly UTF-8 with a few stray bytes (typically windows-1252 pasted into UTF-8 text).
    /// When a label names UTF-8, well-formed multi-byte sequences (which legacy text almost
    /// never forms by chance) need only be half as many as the stray runs: a feed that says
    /// UTF-8 and has one `é` right and one pasted from windows-1252 is UTF-8 with a stray byte,
    /// not a legacy encoding that would turn its good `é` into mojibake.
    pub(super) fn mostly_utf8(&self, utf8_named: bool) -> bool {
        self.multibyte > self.invalid
            || (utf8_named && self.multibyte > 0 && self.multibyte * 2 >= self.invalid)
    }
}

/// UTF-8 whose invalid bytes are each read as windows-1252, the encoding stray bytes in
/// UTF-8 feeds nearly always come from.
pub(super) fn utf8_with_stray_bytes(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len() + bytes.len() / 8);
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        if !chunk.invalid().is_empty() {
            text.push_str(&WINDOWS_1252.decode_without_bom_handling(chunk.invalid()).0);
        }
    }
    text
}

/// chardetng's guess for a document that is not UTF-8 (UTF-8 is never guessed: the caller
/// has already tried it).
pub(super) fn guess(bytes: &[u8]) -> &'static Encoding {
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    detector.feed(bytes, true);
    detector.guess(None, Utf8Detection::Deny)
}
