//! Bytes to text: BOM, XML declaration, HTTP charset hint, detection (stub: to be written).

use std::borrow::Cow;
use tidings_model::Warning;

/// Decode a document to UTF-8, borrowing when the input already is valid UTF-8.
pub fn decode<'a>(
    bytes: &'a [u8],
    _charset_hint: Option<&str>,
    _warnings: &mut Vec<Warning>,
) -> Cow<'a, str> {
    String::from_utf8_lossy(bytes)
}
