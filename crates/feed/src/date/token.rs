//! Splits a date into tokens (digit runs, letter runs, punctuation) into a fixed-size buffer,
//! skipping whitespace (with byte order marks, zero-width spaces and the `@` of
//! "Jan 2 @ 10:00") and parenthesised comments, without allocating.

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A run of ASCII digits.
    Num,
    /// A run of letters (any script) and combining marks.
    Word,
    Colon,
    Dot,
    Comma,
    Slash,
    Minus,
    Plus,
    /// Any other character.
    Other,
}

/// One token: its kind and the text it covers.
#[derive(Debug, Clone, Copy)]
pub(super) struct Token<'a> {
    pub(super) kind: Kind,
    pub(super) text: &'a str,
    /// Byte offset of the token in the input.
    pub(super) start: usize,
}

impl Token<'_> {
    /// The value of a digit run of at most nine digits.
    pub(super) fn value(&self) -> Option<u32> {
        if self.kind != Kind::Num || self.text.len() > 9 {
            return None;
        }
        self.text.parse().ok()
    }

    /// The number of digits (or bytes) the token covers.
    pub(super) fn len(&self) -> usize {
        self.text.len()
    }
}

/// The most tokens a date may have; a longer input is refused.
pub(super) const MAX_TOKENS: usize = 40;

/// The tokens of one input.
pub(super) struct Tokens<'a> {
    buf: [Option<Token<'a>>; MAX_TOKENS],
    len: usize,
}

impl<'a> Tokens<'a> {
    /// The token at `i`, if any.
    pub(super) fn get(&self, i: usize) -> Option<Token<'a>> {
        self.buf.get(i).copied().flatten()
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }
}

/// Split `input`; `None` when it holds more than [`MAX_TOKENS`] tokens.
pub(super) fn tokenize(input: &str) -> Option<Tokens<'_>> {
    let mut tokens = Tokens {
        buf: [None; MAX_TOKENS],
        len: 0,
    };
    let mut chars = input.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        let kind = match c {
            c if c.is_whitespace() || matches!(c, '\u{feff}' | '\u{200b}' | '@') => continue,
            '(' => {
                let mut depth = 1usize;
                for (_, c) in chars.by_ref() {
                    match c {
                        '(' => depth += 1,
                        ')' => depth -= 1,
                        _ => {}
                    }
                    if depth == 0 {
                        break;
                    }
                }
                continue;
            }
            '0'..='9' => {
                while chars.next_if(|&(_, c)| c.is_ascii_digit()).is_some() {}
                Kind::Num
            }
            c if is_letter(c) => {
                while chars.next_if(|&(_, c)| is_letter(c)).is_some() {}
                Kind::Word
            }
            ':' => Kind::Colon,
            '.' => Kind::Dot,
            ',' => Kind::Comma,
            '/' => Kind::Slash,
            '-' | '\u{2010}' | '\u{2013}' | '\u{2212}' => Kind::Minus,
            '+' => Kind::Plus,
            _ => Kind::Other,
        };
        let end = chars.peek().map_or(input.len(), |&(i, _)| i);
        let slot = tokens.buf.get_mut(tokens.len)?;
        *slot = Some(Token {
            kind,
            text: input.get(start..end).unwrap_or(""),
            start,
        });
        tokens.len += 1;
    }
    Some(tokens)
}

fn is_letter(c: char) -> bool {
    c.is_alphabetic() || super::names::is_combining(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(input: &str) -> Vec<(Kind, String)> {
        let tokens = tokenize(input).unwrap_or_else(|| panic!("too many tokens in {input}"));
        (0..tokens.len())
            .filter_map(|i| tokens.get(i))
            .map(|t| (t.kind, t.text.to_owned()))
            .collect()
    }

    #[test]
    fn splits_digits_letters_and_punctuation() {
        let got = kinds("20240102T03:04Z (EST) 년");
        let want = [
            (Kind::Num, "20240102"),
            (Kind::Word, "T"),
            (Kind::Num, "03"),
            (Kind::Colon, ":"),
            (Kind::Num, "04"),
            (Kind::Word, "Z"),
            (Kind::Word, "년"),
        ];
        let want: Vec<_> = want.iter().map(|&(k, t)| (k, t.to_owned())).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn unclosed_comment_runs_to_the_end_and_overflow_is_refused() {
        assert_eq!(kinds("1 (2 (3) 4").len(), 1);
        assert!(tokenize(&"1 ".repeat(MAX_TOKENS + 1)).is_none());
        assert!(tokenize(&"1 ".repeat(MAX_TOKENS)).is_some());
    }
}
