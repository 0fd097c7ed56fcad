//! JSON Feed 1.0 and 1.1 (stub: to be written).

use crate::ParseError;
use tidings_model::{ParsedFeed, Warning};
use url::Url;

/// Parse a JSON Feed document.
pub fn parse(
    _text: &str,
    _base: Option<&Url>,
    _warnings: &mut Vec<Warning>,
) -> Result<ParsedFeed, ParseError> {
    Err(ParseError::NotAFeed(
        "json feed parsing is not written yet".into(),
    ))
}
