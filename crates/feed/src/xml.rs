//! A tolerant XML reader for feeds (stub: to be written).

use crate::ParseError;
use tidings_model::{ParsedFeed, Warning};
use url::Url;

/// Parse an XML feed document (RSS, RDF, Atom).
pub fn parse(
    _text: &str,
    _base: Option<&Url>,
    _warnings: &mut Vec<Warning>,
) -> Result<ParsedFeed, ParseError> {
    Err(ParseError::NotAFeed(
        "xml feed parsing is not written yet".into(),
    ))
}
