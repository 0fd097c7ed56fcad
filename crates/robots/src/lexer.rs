//! Bytes to numbered directive lines.
//!
//! Owns the file-level rules of RFC 9309: the 500 KiB limit (section 2.5), the UTF-8 byte
//! order mark, CR, LF and CRLF line endings, `#` comments and the `key: value` shape. Lines
//! are numbered as an editor shows them (CR, LF and CRLF each end one line), so a verdict can
//! point at the line that decided. Unknown keys and lines without a key become
//! [`Directive::Other`] and are ignored by the grouping.

/// The number of bytes of a robots.txt file that are parsed (RFC 9309, section 2.5: at least
/// 500 kibibytes). The rest is ignored, including a line that crosses the limit, so a rule cut
/// in the middle never applies.
pub const BYTE_LIMIT: usize = 500 * 1024;

/// The UTF-8 byte order mark, skipped at the start of the file.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// What one line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Directive<'a> {
    UserAgent(&'a [u8]),
    Allow(&'a [u8]),
    Disallow(&'a [u8]),
    CrawlDelay(&'a [u8]),
    Sitemap(&'a [u8]),
    /// An empty line, a comment, an unknown key or a line without a key.
    Other,
}

/// One line of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Line<'a> {
    /// 1-based, as an editor counts.
    pub number: usize,
    /// The line without its comment and surrounding spaces, for reports.
    pub text: &'a [u8],
    pub directive: Directive<'a>,
}

/// The part of the file that is parsed: at most [`BYTE_LIMIT`] bytes, cut after the last
/// complete line if the file is longer.
pub(crate) fn within_limit(file: &[u8]) -> &[u8] {
    let (Some(window), Some(next)) = (file.get(..BYTE_LIMIT), file.get(BYTE_LIMIT)) else {
        return file;
    };
    if matches!(next, b'\n' | b'\r') {
        // The last line in the window ends right at the limit.
        return window;
    }
    let end = window
        .iter()
        .rposition(|b| matches!(b, b'\n' | b'\r'))
        .map_or(0, |at| at + 1);
    window.get(..end).unwrap_or_default()
}

/// Splits the parsed part of `file` into numbered lines.
pub(crate) fn lines(file: &[u8]) -> impl Iterator<Item = Line<'_>> {
    let file = within_limit(file);
    let mut rest = file.strip_prefix(BOM).unwrap_or(file);
    let mut number = 0;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        number += 1;
        let end = rest
            .iter()
            .position(|b| matches!(b, b'\n' | b'\r'))
            .unwrap_or(rest.len());
        let (line, tail) = rest.split_at(end);
        rest = match tail {
            [b'\r', b'\n', after @ ..] | [b'\r' | b'\n', after @ ..] => after,
            _ => &[],
        };
        Some(lex_line(number, line))
    })
}

/// Reads one line (without its line ending).
fn lex_line(number: usize, raw: &[u8]) -> Line<'_> {
    let content = raw
        .iter()
        .position(|&b| b == b'#')
        .and_then(|at| raw.get(..at))
        .unwrap_or(raw);
    let text = trim(content);
    Line {
        number,
        text,
        directive: directive(text),
    }
}

/// Splits `key: value` (or `key value`) and recognises the key.
fn directive(text: &[u8]) -> Directive<'_> {
    let (key, value) = match text.iter().position(|&b| b == b':') {
        Some(colon) => (
            text.get(..colon).unwrap_or_default(),
            text.get(colon + 1..).unwrap_or_default(),
        ),
        None => match text.iter().position(|&b| is_space(b)) {
            Some(space) => (
                text.get(..space).unwrap_or_default(),
                text.get(space..).unwrap_or_default(),
            ),
            None => return Directive::Other,
        },
    };
    let value = trim(value);
    match Key::recognise(key) {
        Some(Key::UserAgent) => Directive::UserAgent(value),
        Some(Key::Allow) => Directive::Allow(value),
        Some(Key::Disallow) => Directive::Disallow(value),
        Some(Key::CrawlDelay) => Directive::CrawlDelay(value),
        Some(Key::Sitemap) => Directive::Sitemap(value),
        None => Directive::Other,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    UserAgent,
    Allow,
    Disallow,
    CrawlDelay,
    Sitemap,
}

impl Key {
    /// Keys are case-insensitive, and `-`, `_` and spaces inside them are ignored
    /// (`User-agent`, `user agent`, `USERAGENT`). Common misspellings of `Disallow` are
    /// obeyed too: honouring a publisher's evident intent to keep us out is the courteous
    /// reading; misspelt `Allow` lines are not, as they would only ever let us in further.
    fn recognise(key: &[u8]) -> Option<Self> {
        let mut folded = [0_u8; 16];
        let mut len = 0;
        for &b in trim(key) {
            if matches!(b, b'-' | b'_' | b' ' | b'\t') {
                continue;
            }
            *folded.get_mut(len)? = b.to_ascii_lowercase();
            len += 1;
        }
        match folded.get(..len)? {
            b"useragent" => Some(Self::UserAgent),
            b"allow" => Some(Self::Allow),
            b"disallow" | b"dissallow" | b"dissalow" | b"disalow" | b"diasllow" | b"disallaw" => {
                Some(Self::Disallow)
            }
            b"crawldelay" => Some(Self::CrawlDelay),
            b"sitemap" => Some(Self::Sitemap),
            _ => None,
        }
    }
}

const fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t')
}

/// Removes spaces and tabs at both ends.
fn trim(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|&b| !is_space(b));
    let end = bytes.iter().rposition(|&b| !is_space(b));
    match (start, end) {
        (Some(start), Some(end)) => bytes.get(start..=end).unwrap_or_default(),
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn directives(file: &[u8]) -> Vec<(usize, Directive<'_>)> {
        lines(file).map(|l| (l.number, l.directive)).collect()
    }

    #[test]
    fn line_endings_are_counted_like_an_editor() {
        let file = b"allow: /a\r\nallow: /b\rallow: /c\nallow: /d";
        assert_eq!(
            directives(file),
            vec![
                (1, Directive::Allow(b"/a")),
                (2, Directive::Allow(b"/b")),
                (3, Directive::Allow(b"/c")),
                (4, Directive::Allow(b"/d")),
            ]
        );
        // A lone CR before a CRLF is an empty line of its own.
        let file = b"allow: /a\r\r\nallow: /b";
        assert_eq!(
            directives(file),
            vec![
                (1, Directive::Allow(b"/a")),
                (2, Directive::Other),
                (3, Directive::Allow(b"/b")),
            ]
        );
    }

    #[test]
    fn bom_is_skipped_only_at_the_start() {
        assert_eq!(
            directives(b"\xef\xbb\xbfuser-agent: a"),
            vec![(1, Directive::UserAgent(b"a"))]
        );
        assert_eq!(
            directives(b"x\n\xef\xbb\xbfuser-agent: a"),
            vec![(1, Directive::Other), (2, Directive::Other)]
        );
    }

    #[test]
    fn keys_and_separators() {
        let file = b"User-Agent:a\nuser agent : b\nUSERAGENT c\n\tDisallow\t/d\nDisalow: /e\n\
                     crawl-delay: 2\nSite-map: https://x/\nallaw: /f\nhost: x\nallow";
        assert_eq!(
            directives(file),
            vec![
                (1, Directive::UserAgent(b"a")),
                (2, Directive::UserAgent(b"b")),
                (3, Directive::UserAgent(b"c")),
                (4, Directive::Disallow(b"/d")),
                (5, Directive::Disallow(b"/e")),
                (6, Directive::CrawlDelay(b"2")),
                (7, Directive::Sitemap(b"https://x/")),
                (8, Directive::Other),
                (9, Directive::Other),
                (10, Directive::Other),
            ]
        );
    }

    #[test]
    fn comments_are_removed_from_text_and_value() {
        let line = lines(b"  Disallow: /private   # keep out").next().unwrap();
        assert_eq!(line.text, b"Disallow: /private");
        assert_eq!(line.directive, Directive::Disallow(b"/private"));
        assert_eq!(
            directives(b"# only a comment\nDisallow: # empty"),
            vec![(1, Directive::Other), (2, Directive::Disallow(b""))]
        );
    }

    #[test]
    fn limit_keeps_complete_lines_only() {
        let mut file = vec![b'a'; BYTE_LIMIT - 3];
        file.extend_from_slice(b"\nbcdef\n");
        assert_eq!(within_limit(&file).len(), BYTE_LIMIT - 2);

        let mut file = vec![b'a'; BYTE_LIMIT];
        file.extend_from_slice(b"\nb");
        assert_eq!(within_limit(&file).len(), BYTE_LIMIT);

        let file = vec![b'a'; BYTE_LIMIT + 1];
        assert!(within_limit(&file).is_empty());

        let file = vec![b'a'; BYTE_LIMIT];
        assert_eq!(within_limit(&file).len(), BYTE_LIMIT);
    }
}
