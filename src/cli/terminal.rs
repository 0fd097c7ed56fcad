//! Publisher- and user-supplied text on a terminal. Feed and entry titles, links, reasons,
//! rule values, key names, file names and error messages may hold bytes a terminal acts on
//! (`ESC ] 0 ; … BEL` retitles the window, `ESC [ 2 J` clears the screen) or that reorder
//! what is shown (bidi overrides). Every printing path of the command line that carries such
//! text puts it through [`visible`] (or [`one_line`], [`lines`], which call it). `--json`
//! output stays JSON: serde writes the C0 controls as escapes itself, and [`json`] writes the
//! rest (DEL, C1, bidi) as `\uXXXX` escapes too, which read back as the same strings.
//!
//! The visible form is Rust's `\u{…}` notation in lowercase hex: ESC is shown as `\u{1b}`,
//! BEL as `\u{7}`, a right-to-left override as `\u{202e}`. It covers:
//!
//! - the C0 controls U+0000–U+001F, tab, newline and carriage return included: a field is
//!   one cell of a table, and a newline inside it must not start a fake row;
//! - DEL (U+007F) and the C1 controls U+0080–U+009F (U+009B is a one-byte CSI to many
//!   terminals);
//! - the bidi embeddings and overrides U+202A–U+202E and isolates U+2066–U+2069, and the line
//!   and paragraph separators U+2028 and U+2029.
//!
//! A backslash is left as it is: the form is for reading, not for parsing back.

use std::borrow::Cow;
use std::fmt::Write as _;

/// True for a character a terminal would act on rather than show.
fn acts_on_terminal(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// `text` with every character a terminal would act on shown as `\u{…}`.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(acts_on_terminal) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if acts_on_terminal(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A serialised JSON text made inert on a terminal: DEL, the C1 controls and the bidi and
/// line-separator characters (which serde writes as they are) become `\uXXXX` escapes. They
/// can only stand inside strings, so the JSON means the same; its own newlines (pretty
/// output) are left alone, and serde never leaves a C0 control raw inside a string.
pub fn json(text: &str) -> Cow<'_, str> {
    let raw = |c: char| c >= '\u{7f}' && acts_on_terminal(c);
    if !text.chars().any(raw) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if raw(c) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A table cell: runs of whitespace (newlines, tabs, U+0085, U+2028 …) become one space,
/// then what is left that a terminal would act on is shown by [`visible`].
pub fn one_line(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    visible(&joined).into_owned()
}

/// A message of several lines (an error with a snippet of a config file): its line breaks
/// are kept, everything else goes through [`visible`].
pub fn lines(text: &str) -> String {
    text.split('\n')
        .map(|line| visible(line.strip_suffix('\r').unwrap_or(line)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `n` things, in the singular for one: `1 entry`, `3 entries`, `0 feeds`.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// An error and its causes on one line, `: ` between them, each cause said once: a cause
/// whose text an earlier message already holds (a library that quotes its source in its own
/// message) is left out.
pub fn error_chain(messages: impl IntoIterator<Item = String>) -> String {
    let mut out = String::new();
    for message in messages {
        if out.contains(message.as_str()) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&message);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{count, error_chain, json, lines, one_line, visible};

    #[test]
    fn counts_are_singular_for_one() {
        assert_eq!(count(0, "feed", "feeds"), "0 feeds");
        assert_eq!(count(1, "entry", "entries"), "1 entry");
        assert_eq!(count(2, "entry", "entries"), "2 entries");
    }

    #[test]
    fn an_error_chain_says_each_cause_once() {
        let cases: [(&[&str], &str); 3] = [
            (
                &[
                    "cannot open the database t.db",
                    "database error: error returned from database: (code: 26) file is not a database",
                    "error returned from database: (code: 26) file is not a database",
                    "(code: 26) file is not a database",
                ],
                "cannot open the database t.db: database error: error returned from database: \
                 (code: 26) file is not a database",
            ),
            (
                &["cannot read x.toml", "permission denied"],
                "cannot read x.toml: permission denied",
            ),
            (&["one"], "one"),
        ];
        for (chain, want) in cases {
            assert_eq!(error_chain(chain.iter().map(|s| (*s).to_owned())), want);
        }
    }

    fn check(input: &str, shown: &str) {
        assert_eq!(visible(input), shown, "{input:?}");
    }

    #[test]
    fn what_a_terminal_would_act_on_is_shown() {
        check(
            "\u{1b}]0;PWNED\u{7}\u{1b}[2J",
            "\\u{1b}]0;PWNED\\u{7}\\u{1b}[2J",
        );
        check("a\tb\nc\rd\0", "a\\u{9}b\\u{a}c\\u{d}d\\u{0}");
        check(
            "del\u{7f} csi\u{9b}2J nel\u{85}",
            "del\\u{7f} csi\\u{9b}2J nel\\u{85}",
        );
        check("\u{202e}txt.exe\u{202c}", "\\u{202e}txt.exe\\u{202c}");
        check(
            "\u{2066}\u{2067}\u{2068}\u{2069}",
            "\\u{2066}\\u{2067}\\u{2068}\\u{2069}",
        );
        check("a\u{2028}b\u{2029}", "a\\u{2028}b\\u{2029}");
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        for text in [
            "Harbour Gazette",
            "café ✓ 𝄞 日本語",
            "a\\u{1b}b",
            "עברית",
            "",
        ] {
            assert!(
                matches!(visible(text), std::borrow::Cow::Borrowed(_)),
                "{text}"
            );
            assert_eq!(visible(text), text);
        }
        // The marks that only hint a direction (U+200E, U+200F) override nothing.
        assert_eq!(visible("a\u{200e}b"), "a\u{200e}b");
    }

    #[test]
    fn json_stays_json_and_means_the_same() {
        let value = serde_json::json!({"t": "\u{1b}[2J\u{7f}\u{9b}\u{202e}\n"});
        let pretty = serde_json::to_string_pretty(&value).unwrap_or_default();
        let shown = json(&pretty);
        assert_eq!(
            shown,
            "{\n  \"t\": \"\\u001b[2J\\u007f\\u009b\\u202e\\n\"\n}"
        );
        let back: serde_json::Value = serde_json::from_str(&shown).unwrap_or_default();
        assert_eq!(back, value);
    }

    #[test]
    fn a_cell_is_one_line_and_a_message_keeps_its_lines() {
        assert_eq!(one_line("  a\n\tb\u{85}c \u{1b}[2J "), "a b c \\u{1b}[2J");
        assert_eq!(lines("first\r\nsecond \u{1b}\n"), "first\nsecond \\u{1b}\n");
    }
}
