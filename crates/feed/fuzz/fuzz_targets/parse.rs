//! Fuzz target: arbitrary bytes, with an arbitrary charset hint and base URL, into
//! `tidings_feed::parse`. It must never panic, and parsing the same input twice must give
//! the same result.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use tidings_feed::ParseOptions;

/// Real charset labels, so that the hint often names an encoding `encoding_rs` knows.
const LABELS: &[&str] = &[
    "utf-8", "UTF-8", "iso-8859-1", "latin1", "windows-1252", "windows-1251", "koi8-r",
    "shift_jis", "euc-jp", "euc-kr", "gb2312", "gbk", "gb18030", "big5", "utf-16", "utf-16le",
    "utf-16be", "us-ascii", "iso-8859-15", "x-user-defined", "replacement",
];

#[derive(Debug, Arbitrary)]
enum Charset<'a> {
    None,
    Known(u8),
    Raw(&'a str),
}

#[derive(Debug, Arbitrary)]
struct Input<'a> {
    charset: Charset<'a>,
    base_url: Option<&'a str>,
    bytes: &'a [u8],
}

fuzz_target!(|input: Input<'_>| {
    let charset = match input.charset {
        Charset::None => None,
        Charset::Known(i) => LABELS.get(usize::from(i) % LABELS.len()).copied(),
        Charset::Raw(label) => Some(label),
    };
    let options = ParseOptions {
        base_url: input.base_url,
        charset,
        content_type: None,
        max_entries: None,
        max_text_bytes: None,
    };
    let first = tidings_feed::parse(input.bytes, &options);
    let second = tidings_feed::parse(input.bytes, &options);
    assert_eq!(first, second, "parse is not deterministic");
});
