//! Bytes to text: BOM, UTF-16/32 byte patterns, the HTTP charset hint, the XML declaration,
//! and detection when every label is missing or wrong.
//!
//! [`decode`] turns the bytes of a feed (XML or JSON) into UTF-8 text. It never fails and
//! never panics; whenever the result needed a fallback, a guess or replacement characters it
//! pushes a [`WarningKind::Encoding`] warning. Valid UTF-8 that nothing contradicts is
//! returned borrowed, without a copy (one validation pass: the hot path).
//!
//! # Precedence
//!
//! The first rule that applies decides:
//!
//! 1. **Byte order mark** (UTF-8, UTF-16 LE/BE, UTF-32 LE/BE): the mark is stripped and the
//!    rest decoded in that form; labels that say otherwise are overruled (with a warning).
//! 2. **UTF-16/32 byte pattern** without a BOM: zero bytes around the first ASCII characters
//!    (`<?xml`, `<`, `{`, whitespace), as in appendix F of the XML specification. Structural
//!    evidence, so it too beats any label.
//! 3. **Valid UTF-8**: bytes that are valid UTF-8 and hold any non-ASCII character are UTF-8,
//!    whatever a label says (a warning notes the label it overrules): multi-byte UTF-8 is
//!    strong evidence, while a legacy label is weak (every byte decodes in windows-1252), so
//!    a server default such as `charset=iso-8859-1` or a stale declaration cannot turn a UTF-8
//!    feed into mojibake. feedparser reads such documents the same way. Pure ASCII that claims
//!    UTF-8, or claims nothing, is returned as it is.
//! 4. **HTTP charset**, if the bytes decode in it without error (RFC 7303: the transport's
//!    label beats the document's when both are legacy encodings; a warning notes the clash).
//! 5. **XML declaration** `encoding`, if the bytes decode in it without error.
//! 6. **Valid UTF-8** after all (a label was wrong), with a warning.
//! 7. **EBCDIC**: a document that starts `<?xm` in EBCDIC is read in the IBM code page its
//!    declaration names (037, 500, 875, 1140 and their aliases), else the HTTP charset's, else
//!    037 with a warning (see `ebcdic`). It is tested before rules 3 to 6, which read
//!    ASCII-compatible bytes.
//! 8. **Fallback**, with a warning: text that is mostly UTF-8 with a few stray bytes keeps
//!    its UTF-8 and reads each stray byte as windows-1252; otherwise chardetng guesses a legacy
//!    encoding, and if even that guess has errors the first label (or the guess) is used with
//!    U+FFFD replacements.
//!
//! Labels are read leniently (case, quotes, `_` for `-`, a few common aliases such as
//! `cp932`); ISO-8859-1 and US-ASCII mean windows-1252, as in browsers and encoding_rs. An
//! unknown label is ignored with a warning. A UTF-16/32 label on a document without BOM or
//! pattern is ignored with a warning too: such a document is ASCII-compatible, since its
//! declaration could be read byte by byte. The XML declaration is read from the raw bytes (in
//! the prolog's code units for UTF-16/32); it is not rewritten in the output, where the XML
//! reader ignores it.

mod ebcdic;
mod repair;
mod sniff;

use std::borrow::Cow;

use encoding_rs::Encoding;
use tidings_model::{Warning, WarningKind};

use sniff::{Charset, Form};

/// Decode a document to UTF-8, borrowing when the input already is valid UTF-8.
///
/// `charset_hint` is the `charset` parameter of the HTTP Content-Type, if any; it may be junk.
/// See the module docs for the precedence between the signs.
pub fn decode<'a>(
    bytes: &'a [u8],
    charset_hint: Option<&str>,
    warnings: &mut Vec<Warning>,
) -> Cow<'a, str> {
    if let Some((form, mark_len)) = sniff::bom(bytes) {
        let body = bytes.get(mark_len..).unwrap_or_default();
        let declared = declared_wide_or_narrow(body, form);
        let claims = Claims::read(charset_hint, declared.as_deref(), warnings);
        claims.note_overruled(form, "byte order mark", warnings);
        return unicode(body, form, warnings);
    }
    if let Some(form) = sniff::wide_pattern(bytes) {
        let declared = sniff::declared_label_wide(bytes, form);
        let claims = Claims::read(charset_hint, declared.as_deref(), warnings);
        claims.note_overruled(form, "byte pattern", warnings);
        return unicode(bytes, form, warnings);
    }
    if ebcdic::sniff(bytes) {
        return Cow::Owned(ebcdic_document(bytes, charset_hint, warnings));
    }
    let mut claims = Claims::read(charset_hint, sniff::declared_label(bytes), warnings);
    claims.drop_wide(warnings);
    narrow(bytes, &claims, warnings)
}

/// A document that starts `<?xm` in EBCDIC: in the code page its declaration names, else the
/// HTTP charset's, else IBM 037 (with a warning).
fn ebcdic_document(
    bytes: &[u8],
    charset_hint: Option<&str>,
    warnings: &mut Vec<Warning>,
) -> String {
    let declared = ebcdic::declared_label(bytes);
    let page = declared
        .as_deref()
        .and_then(ebcdic::CodePage::for_label)
        .or_else(|| charset_hint.and_then(|h| ebcdic::CodePage::for_label(h.as_bytes())));
    let page = page.unwrap_or_else(|| {
        let named: String = declared
            .map(|d| String::from_utf8_lossy(&d).chars().take(40).collect())
            .unwrap_or_default();
        warn(
            warnings,
            format!(
                "EBCDIC document declaring {named:?}, no code page tidings reads: read as ibm037"
            ),
        );
        ebcdic::CodePage::Ibm037
    });
    page.decode(bytes)
}

/// The declaration of a BOM-marked body, read in its own code units.
fn declared_wide_or_narrow(body: &[u8], form: Form) -> Option<Vec<u8>> {
    match form {
        Form::Utf8 => sniff::declared_label(body).map(<[u8]>::to_vec),
        _ => sniff::declared_label_wide(body, form),
    }
}

/// Decode in a Unicode form settled by a BOM or byte pattern.
fn unicode<'a>(bytes: &'a [u8], form: Form, warnings: &mut Vec<Warning>) -> Cow<'a, str> {
    let (text, replaced) = repair::unicode(bytes, form);
    if replaced {
        let how = match form {
            Form::Utf8 => "stray bytes read as windows-1252",
            _ => "replacement characters inserted",
        };
        warn(
            warnings,
            format!("invalid {} sequences: {how}", form.name()),
        );
    }
    text
}

/// Rules 3 to 7 for an ASCII-compatible document.
fn narrow<'a>(bytes: &'a [u8], claims: &Claims, warnings: &mut Vec<Warning>) -> Cow<'a, str> {
    let utf8 = repair::valid_utf8(bytes);
    if let Some(text) = utf8
        && (claims.utf8_claimed() || !text.is_ascii())
    {
        if let Some(other) = claims.legacy_named()
            && !text.is_ascii()
        {
            warn(
                warnings,
                format!("{} ignored: the bytes are valid utf-8", other.describe()),
            );
        }
        return Cow::Borrowed(text);
    }
    let mut tried: Vec<Charset> = Vec::with_capacity(2);
    for claim in [&claims.hint, &claims.declared].into_iter().flatten() {
        if tried.contains(&claim.charset) {
            continue;
        }
        tried.push(claim.charset);
        match claim.charset {
            Charset::Legacy(encoding) => {
                if let Some(text) = legacy_strict(encoding, bytes) {
                    if matches!(text, Cow::Owned(_)) {
                        claims.note_clash(claim, &tried, warnings);
                    }
                    return text;
                }
                warn(
                    warnings,
                    format!("{}: the bytes are not valid in it", claim.describe()),
                );
            }
            Charset::Utf8 => warn(
                warnings,
                format!("{}: the bytes are not valid utf-8", claim.describe()),
            ),
            Charset::Wide => {}
        }
    }
    if let Some(text) = utf8 {
        warn(
            warnings,
            "the labels were wrong: read as utf-8, which the bytes are".to_owned(),
        );
        return Cow::Borrowed(text);
    }
    fallback(bytes, claims, warnings)
}

/// Spare room to start a legacy decode with: the input's length and a quarter more (most
/// legacy text grows little in UTF-8), not encoding_rs's worst case of three times the input.
fn first_guess(len: usize) -> usize {
    len.saturating_add(len / 4).saturating_add(16)
}

/// Decode in a legacy encoding, or `None` at the first malformed sequence. The output grows
/// as needed, so peak memory stays near the size of the text.
fn legacy_strict<'a>(encoding: &'static Encoding, bytes: &'a [u8]) -> Option<Cow<'a, str>> {
    if encoding.is_ascii_compatible()
        && let Ok(ascii) = std::str::from_utf8(bytes)
        && ascii.is_ascii()
    {
        return Some(Cow::Borrowed(ascii));
    }
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut out = String::with_capacity(first_guess(bytes.len()));
    let mut input = bytes;
    loop {
        let (result, read) = decoder.decode_to_string_without_replacement(input, &mut out, true);
        input = input.get(read..).unwrap_or_default();
        match result {
            encoding_rs::DecoderResult::InputEmpty => return Some(Cow::Owned(out)),
            encoding_rs::DecoderResult::OutputFull => out.reserve_exact(first_guess(input.len())),
            encoding_rs::DecoderResult::Malformed(..) => return None,
        }
    }
}

/// Decode in a legacy encoding, replacing malformed sequences with U+FFFD.
fn legacy_lossy(encoding: &'static Encoding, bytes: &[u8]) -> String {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut out = String::with_capacity(first_guess(bytes.len()));
    let mut input = bytes;
    loop {
        let (result, read, _) = decoder.decode_to_string(input, &mut out, true);
        input = input.get(read..).unwrap_or_default();
        match result {
            encoding_rs::CoderResult::InputEmpty => return out,
            encoding_rs::CoderResult::OutputFull => out.reserve_exact(first_guess(input.len())),
        }
    }
}

/// Rule 7: no label fits and the bytes are not UTF-8.
fn fallback<'a>(bytes: &'a [u8], claims: &Claims, warnings: &mut Vec<Warning>) -> Cow<'a, str> {
    let profile = repair::Utf8Profile::of(bytes);
    if profile.mostly_utf8(claims.utf8_named()) {
        warn(
            warnings,
            format!(
                "read as utf-8 with {} stray byte run(s) read as windows-1252",
                profile.invalid
            ),
        );
        return Cow::Owned(repair::utf8_with_stray_bytes(bytes));
    }
    let guess = repair::guess(bytes);
    if let Some(text) = legacy_strict(guess, bytes) {
        warn(
            warnings,
            format!("encoding guessed as {}", lower_name(guess)),
        );
        return text;
    }
    let encoding = claims.first_legacy().unwrap_or(guess);
    let text = Cow::Owned(legacy_lossy(encoding, bytes));
    warn(
        warnings,
        format!(
            "read as {} with replacement characters",
            lower_name(encoding)
        ),
    );
    text
}

/// One label and where it came from.
struct Claim {
    charset: Charset,
    source: &'static str,
}

impl Claim {
    fn describe(&self) -> String {
        format!("{} {}", self.source, self.charset.name())
    }
}

/// The labels a document comes with: the HTTP charset and the XML declaration.
struct Claims {
    hint: Option<Claim>,
    declared: Option<Claim>,
}

impl Claims {
    /// Resolve both labels, warning about unknown ones.
    fn read(hint: Option<&str>, declared: Option<&[u8]>, warnings: &mut Vec<Warning>) -> Self {
        Claims {
            hint: hint.and_then(|label| resolve(label.as_bytes(), "http charset", warnings)),
            declared: declared.and_then(|label| resolve(label, "declared encoding", warnings)),
        }
    }

    /// Forget UTF-16/32 labels on an ASCII-compatible document.
    fn drop_wide(&mut self, warnings: &mut Vec<Warning>) {
        for slot in [&mut self.hint, &mut self.declared] {
            if let Some(claim) = slot.take_if(|c| c.charset == Charset::Wide) {
                warn(
                    warnings,
                    format!(
                        "{} ignored: the document has no utf-16/utf-32 byte order mark or pattern",
                        claim.describe()
                    ),
                );
            }
        }
    }

    /// Rule 3 applies: someone says UTF-8, or nobody says anything else.
    fn utf8_claimed(&self) -> bool {
        let says_utf8 =
            |claim: &Option<Claim>| claim.as_ref().is_some_and(|c| c.charset == Charset::Utf8);
        let hint_ascii_compatible = match &self.hint {
            Some(Claim {
                charset: Charset::Legacy(encoding),
                ..
            }) => encoding.is_ascii_compatible(),
            _ => true,
        };
        says_utf8(&self.hint)
            || says_utf8(&self.declared)
            || (self.declared.is_none() && hint_ascii_compatible)
    }

    /// A label (HTTP or XML declaration) names UTF-8.
    fn utf8_named(&self) -> bool {
        [&self.hint, &self.declared]
            .into_iter()
            .flatten()
            .any(|c| c.charset == Charset::Utf8)
    }

    /// A label naming a legacy encoding, overruled when the bytes prove to be UTF-8.
    fn legacy_named(&self) -> Option<&Claim> {
        [&self.hint, &self.declared]
            .into_iter()
            .flatten()
            .find(|c| matches!(c.charset, Charset::Legacy(_)))
    }

    /// The first legacy encoding named, HTTP first.
    fn first_legacy(&self) -> Option<&'static Encoding> {
        self.legacy_named().and_then(|c| match c.charset {
            Charset::Legacy(encoding) => Some(encoding),
            _ => None,
        })
    }

    /// Warn when the winning label contradicts one not yet tried (the HTTP charset beating
    /// the declaration). Called only for non-ASCII text, where the clash matters.
    fn note_clash(&self, winner: &Claim, tried: &[Charset], warnings: &mut Vec<Warning>) {
        for other in [&self.hint, &self.declared].into_iter().flatten() {
            if !tried.contains(&other.charset) {
                warn(
                    warnings,
                    format!("{} overrides {}", winner.describe(), other.describe()),
                );
            }
        }
    }

    /// Warn about labels that a BOM or byte pattern overrules.
    fn note_overruled(&self, form: Form, evidence: &str, warnings: &mut Vec<Warning>) {
        for claim in [&self.hint, &self.declared].into_iter().flatten() {
            let agrees = match claim.charset {
                Charset::Utf8 => form == Form::Utf8,
                Charset::Wide => form != Form::Utf8,
                Charset::Legacy(_) => false,
            };
            if !agrees {
                warn(
                    warnings,
                    format!(
                        "{} ignored: the {evidence} says {}",
                        claim.describe(),
                        form.name()
                    ),
                );
            }
        }
    }
}

/// Resolve a label, warning when it names nothing we can decode.
fn resolve(label: &[u8], source: &'static str, warnings: &mut Vec<Warning>) -> Option<Claim> {
    if label.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let charset = sniff::charset(label);
    if charset.is_none() {
        let shown: String = String::from_utf8_lossy(label).chars().take(40).collect();
        warn(warnings, format!("unknown {source} {shown:?} ignored"));
    }
    charset.map(|charset| Claim { charset, source })
}

fn lower_name(encoding: &'static Encoding) -> String {
    encoding.name().to_ascii_lowercase()
}

fn warn(warnings: &mut Vec<Warning>, message: String) {
    warnings.push(Warning::new(WarningKind::Encoding, message));
}
