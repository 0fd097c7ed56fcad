//! Bytes to text: every BOM, BOM-less UTF-16/32, declared legacy and CJK encodings (text
//! encoded here with encoding_rs), HTTP charset against the declaration, wrong labels,
//! invalid UTF-8, and random bytes.

use std::borrow::Cow;

use encoding_rs::{
    BIG5, EUC_JP, EUC_KR, Encoding, GB18030, GBK, ISO_8859_2, ISO_8859_7, KOI8_R, SHIFT_JIS,
    WINDOWS_1251, WINDOWS_1252,
};
use proptest::prelude::*;
use tidings_feed::decode::decode;
use tidings_feed::{Warning, WarningKind};

/// One row of a table: a document, the HTTP charset, and what must come out.
struct Row {
    name: &'static str,
    bytes: Vec<u8>,
    hint: Option<&'static str>,
    want: String,
    warns: bool,
    borrowed: bool,
}

impl Row {
    fn new(name: &'static str, bytes: Vec<u8>, want: impl Into<String>) -> Self {
        Row {
            name,
            bytes,
            hint: None,
            want: want.into(),
            warns: false,
            borrowed: false,
        }
    }

    fn hint(mut self, hint: &'static str) -> Self {
        self.hint = Some(hint);
        self
    }

    /// An encoding warning is expected (without it, none may be pushed).
    fn warns(mut self) -> Self {
        self.warns = true;
        self
    }

    /// The output must borrow the input, without a copy.
    fn borrowed(mut self) -> Self {
        self.borrowed = true;
        self
    }
}

fn check(rows: Vec<Row>) {
    for row in rows {
        let mut warnings: Vec<Warning> = Vec::new();
        let out = decode(&row.bytes, row.hint, &mut warnings);
        assert_eq!(out, row.want, "{}: text", row.name);
        assert!(
            warnings.iter().all(|w| w.kind == WarningKind::Encoding),
            "{}: only encoding warnings, got {warnings:?}",
            row.name
        );
        assert_eq!(
            !warnings.is_empty(),
            row.warns,
            "{}: warnings {warnings:?}",
            row.name
        );
        if row.borrowed {
            assert!(
                matches!(out, Cow::Borrowed(_)),
                "{}: not borrowed",
                row.name
            );
        }
    }
}

/// `text` in `encoding`, which must be able to represent all of it.
fn encode(encoding: &'static Encoding, text: &str) -> Vec<u8> {
    let (bytes, _, unmappable) = encoding.encode(text);
    assert!(!unmappable, "{} cannot encode {text:?}", encoding.name());
    bytes.into_owned()
}

fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
    text.encode_utf16()
        .flat_map(|u| {
            if big_endian {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            }
        })
        .collect()
}

fn utf32(text: &str, big_endian: bool) -> Vec<u8> {
    text.chars()
        .flat_map(|c| {
            let c = u32::from(c);
            if big_endian {
                c.to_be_bytes()
            } else {
                c.to_le_bytes()
            }
        })
        .collect()
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// A small RSS document declaring `encoding` (none when empty) around `title`.
fn rss(encoding: &str, title: &str) -> String {
    let decl = if encoding.is_empty() {
        String::new()
    } else {
        format!("<?xml version=\"1.0\" encoding=\"{encoding}\"?>\n")
    };
    format!("{decl}<rss version=\"2.0\"><channel><title>{title}</title></channel></rss>\n")
}

const FRENCH: &str = "Noël à Paris : l'été, où « œuvre » coûte 5 € — déjà vu";
const RUSSIAN: &str = "Съешь же ещё этих мягких французских булок, да выпей чаю";
const JAPANESE: &str = "日本語のニュース：東京で桜が満開になりました。";
const CHINESE_SIMPLIFIED: &str = "中文新闻：北京今天天气晴朗，气温适中。";
const CHINESE_TRADITIONAL: &str = "中文新聞：臺北今天天氣晴朗，氣溫適中。";
const KOREAN: &str = "한국어 뉴스: 서울은 오늘 맑고 따뜻합니다.";
const GREEK: &str = "Ελληνικά νέα: η Αθήνα σήμερα έχει ήλιο.";
const POLISH: &str = "Zażółć gęślą jaźń";
const EMOJI: &str = "Grüße 😀 𝄞 end";

#[test]
fn byte_order_marks() {
    let text = rss("", EMOJI);
    check(vec![
        Row::new(
            "utf-8 bom",
            cat(&[b"\xEF\xBB\xBF", text.as_bytes()]),
            text.clone(),
        )
        .borrowed(),
        Row::new(
            "utf-16le bom",
            cat(&[b"\xFF\xFE", &utf16(&rss("UTF-16", EMOJI), false)]),
            rss("UTF-16", EMOJI),
        ),
        Row::new(
            "utf-16be bom",
            cat(&[b"\xFE\xFF", &utf16(&rss("utf-16", EMOJI), true)]),
            rss("utf-16", EMOJI),
        ),
        Row::new(
            "utf-32le bom",
            cat(&[b"\xFF\xFE\x00\x00", &utf32(&text, false)]),
            text.clone(),
        ),
        Row::new(
            "utf-32be bom",
            cat(&[b"\x00\x00\xFE\xFF", &utf32(&rss("UTF-32", EMOJI), true)]),
            rss("UTF-32", EMOJI),
        ),
        Row::new("bom only", b"\xEF\xBB\xBF".to_vec(), "").borrowed(),
        Row::new(
            "utf-8 bom with a stray windows-1252 byte",
            b"\xEF\xBB\xBF<a>caf\xC3\xA9 \x93quoted\x94</a>".to_vec(),
            "<a>café \u{201c}quoted\u{201d}</a>",
        )
        .warns(),
        Row::new("utf-16 bom only", b"\xFE\xFF".to_vec(), ""),
        Row::new(
            "bom beats a legacy declaration",
            cat(&[b"\xFF\xFE", &utf16(&rss("ISO-8859-1", FRENCH), false)]),
            rss("ISO-8859-1", FRENCH),
        )
        .warns(),
        Row::new(
            "bom beats the http charset",
            cat(&[b"\xEF\xBB\xBF", rss("", FRENCH).as_bytes()]),
            rss("", FRENCH),
        )
        .hint("iso-8859-1")
        .warns(),
        Row::new(
            "utf-16 bom agrees with a utf-16 http charset",
            cat(&[b"\xFE\xFF", &utf16(&rss("", RUSSIAN), true)]),
            rss("", RUSSIAN),
        )
        .hint("UTF-16"),
    ]);
}

#[test]
fn utf16_and_utf32_without_bom() {
    let xml = rss("UTF-16", JAPANESE);
    let json =
        format!("{{\"version\":\"https://jsonfeed.org/version/1.1\",\"title\":\"{KOREAN}\"}}");
    let spaced = format!("\n  {}", rss("", GREEK));
    check(vec![
        Row::new("utf-16le <?xml", utf16(&xml, false), xml.clone()),
        Row::new("utf-16be <?xml", utf16(&xml, true), xml.clone()),
        Row::new("utf-32le <?xml", utf32(&xml, false), xml.clone()),
        Row::new("utf-32be <?xml", utf32(&xml, true), xml.clone()),
        Row::new("utf-16le json", utf16(&json, false), json.clone()),
        Row::new("utf-16be json", utf16(&json, true), json.clone()),
        Row::new("utf-32le json", utf32(&json, false), json.clone()),
        Row::new("utf-32be json", utf32(&json, true), json.clone()),
        Row::new(
            "utf-16le leading whitespace",
            utf16(&spaced, false),
            spaced.clone(),
        ),
        Row::new(
            "utf-16 pattern beats a legacy declaration",
            utf16(&rss("windows-1252", FRENCH), true),
            rss("windows-1252", FRENCH),
        )
        .warns(),
        Row::new(
            "utf-16 pattern beats the http charset",
            utf16(&rss("", FRENCH), false),
            rss("", FRENCH),
        )
        .hint("utf-8")
        .warns(),
    ]);
}

#[test]
fn broken_utf16_and_utf32_get_replacement_characters() {
    let mut lone_high = b"\xFF\xFE".to_vec();
    lone_high.extend(utf16("<a>", false));
    lone_high.extend([0x3D, 0xD8]); // U+D83D, a high surrogate with no low one after it
    lone_high.extend(utf16("</a>", false));
    let mut lone_low = utf16("<a>", true);
    lone_low.extend([0xDC, 0x00]);
    let mut odd = cat(&[b"\xFE\xFF", &utf16("<a/>", true)]);
    odd.push(0x41);
    let mut bad32 = cat(&[b"\xFF\xFE\x00\x00", &utf32("<a>", false)]);
    bad32.extend(0x11_0000u32.to_le_bytes());
    bad32.extend(0xD800u32.to_le_bytes());
    bad32.extend(utf32("</a>", false));
    let mut cut32 = utf32("<a/>", true);
    cut32.extend([0x00, 0x00, 0x00]);
    check(vec![
        Row::new("utf-16le lone high surrogate", lone_high, "<a>\u{FFFD}</a>").warns(),
        Row::new("utf-16be lone low surrogate", lone_low, "<a>\u{FFFD}").warns(),
        Row::new("utf-16be odd length", odd, "<a/>\u{FFFD}").warns(),
        Row::new(
            "utf-32le past U+10FFFF and surrogate",
            bad32,
            "<a>\u{FFFD}\u{FFFD}</a>",
        )
        .warns(),
        Row::new("utf-32be cut last unit", cut32, "<a/>\u{FFFD}").warns(),
    ]);
}

#[test]
fn declared_legacy_encodings() {
    let cases: &[(&'static str, &'static Encoding, &str, &str)] = &[
        ("french windows-1252", WINDOWS_1252, "windows-1252", FRENCH),
        ("french iso-8859-1", WINDOWS_1252, "ISO-8859-1", FRENCH),
        (
            "french latin1 alias",
            WINDOWS_1252,
            "latin1",
            "l'été à Noël",
        ),
        ("russian koi8-r", KOI8_R, "KOI8-R", RUSSIAN),
        (
            "russian windows-1251",
            WINDOWS_1251,
            "windows-1251",
            RUSSIAN,
        ),
        ("japanese shift_jis", SHIFT_JIS, "Shift_JIS", JAPANESE),
        ("japanese cp932 alias", SHIFT_JIS, "cp932", JAPANESE),
        ("japanese euc-jp", EUC_JP, "EUC-JP", JAPANESE),
        ("chinese gb2312 label", GBK, "gb2312", CHINESE_SIMPLIFIED),
        ("chinese gbk", GBK, "GBK", CHINESE_SIMPLIFIED),
        ("chinese gb18030", GB18030, "GB18030", "中文 𠀀 新闻"),
        ("chinese big5", BIG5, "Big5", CHINESE_TRADITIONAL),
        ("korean euc-kr", EUC_KR, "EUC-KR", KOREAN),
        ("greek iso-8859-7", ISO_8859_7, "ISO-8859-7", GREEK),
        ("polish iso-8859-2", ISO_8859_2, "iso_8859-2", POLISH),
    ];
    let mut rows = Vec::new();
    for &(name, encoding, label, title) in cases {
        let text = rss(label, title);
        rows.push(Row::new(name, encode(encoding, &text), text));
    }
    let single_quoted = format!("  \n<?xml version='1.0' encoding = 'ISO-8859-7' ?><t>{GREEK}</t>");
    rows.push(Row::new(
        "single quotes, spaces and leading whitespace",
        encode(ISO_8859_7, &single_quoted),
        single_quoted,
    ));
    check(rows);
}

#[test]
fn http_charset_alone_and_against_the_declaration() {
    let koi8 = rss("", RUSSIAN);
    let greek_declared_wrong = rss("windows-1252", GREEK);
    let french_utf8 = rss("utf-8", FRENCH);
    let french_undeclared = rss("", FRENCH);
    let french_1252 = rss("windows-1252", FRENCH);
    let japanese = rss("Shift_JIS", JAPANESE);
    let japanese_bytes = encode(SHIFT_JIS, &japanese);
    assert!(
        BIG5.decode_without_bom_handling_and_without_replacement(&japanese_bytes)
            .is_none(),
        "precondition: the shift_jis bytes are not valid big5"
    );
    check(vec![
        Row::new(
            "koi8-r hint, no declaration",
            encode(KOI8_R, &koi8),
            koi8.clone(),
        )
        .hint("koi8-r"),
        Row::new("quoted hint with junk", encode(KOI8_R, &koi8), koi8.clone())
            .hint(" \"KOI8-R\"; "),
        Row::new(
            "hint beats a legacy declaration",
            encode(ISO_8859_7, &greek_declared_wrong),
            greek_declared_wrong,
        )
        .hint("iso-8859-7")
        .warns(),
        Row::new(
            "valid utf-8 declared utf-8 beats a latin-1 server default",
            french_utf8.clone().into_bytes(),
            french_utf8.clone(),
        )
        .hint("ISO-8859-1")
        .warns()
        .borrowed(),
        Row::new(
            "valid utf-8 undeclared beats a latin-1 server default",
            french_undeclared.clone().into_bytes(),
            french_undeclared,
        )
        .hint("iso-8859-1")
        .warns()
        .borrowed(),
        Row::new(
            "pure ascii: a legacy hint does not matter",
            rss("", "plain").into_bytes(),
            rss("", "plain"),
        )
        .hint("windows-1251")
        .borrowed(),
        Row::new(
            "utf-8 hint beats a legacy declaration when the bytes are utf-8",
            rss("windows-1252", FRENCH).into_bytes(),
            rss("windows-1252", FRENCH),
        )
        .hint("utf-8")
        .warns()
        .borrowed(),
        Row::new(
            "utf-8 hint wrong, legacy declaration right",
            encode(WINDOWS_1252, &french_1252),
            french_1252,
        )
        .hint("utf-8")
        .warns(),
        Row::new(
            "multi-byte hint that does not decode gives way to the declaration",
            japanese_bytes,
            japanese,
        )
        .hint("big5")
        .warns(),
        Row::new(
            "utf-8 hint agrees with valid utf-8",
            french_utf8.clone().into_bytes(),
            french_utf8.clone(),
        )
        .hint("UTF-8")
        .borrowed(),
        Row::new(
            "unknown hint is ignored",
            french_utf8.clone().into_bytes(),
            french_utf8.clone(),
        )
        .hint("x-klingon")
        .warns()
        .borrowed(),
        Row::new(
            "utf-16 hint on an ascii-compatible document is ignored",
            french_utf8.clone().into_bytes(),
            french_utf8,
        )
        .hint("utf-16")
        .warns()
        .borrowed(),
        Row::new("empty hint is no hint", b"<a/>".to_vec(), "<a/>")
            .hint("  ")
            .borrowed(),
    ]);
}

#[test]
fn wrong_or_missing_declarations() {
    let long_french = format!(
        "{FRENCH}. Les élèves étudièrent à l'école, près de la forêt où l'on récoltait des \
         châtaignes ; l'hiver était rude et la fenêtre gelée."
    );
    let latin1_declared_utf8 = rss("utf-8", &long_french);
    let latin1_undeclared = rss("", &long_french);
    let mut mixed = rss("utf-8", "Café déjà — it\u{2019}s").into_bytes();
    let apostrophe = mixed
        .windows(3)
        .position(|w| w == "\u{2019}".as_bytes())
        .expect("the test text has an apostrophe");
    mixed.splice(apostrophe..apostrophe + 3, [0x92]); // windows-1252's ’ pasted into UTF-8
    // "café" in UTF-8, then "café" with windows-1252's é (0xE9) before ASCII.
    let one_and_one = rss("utf-8", "café cafXbar")
        .into_bytes()
        .into_iter()
        .map(|b| if b == b'X' { 0xE9 } else { b })
        .collect::<Vec<u8>>();
    let one_and_one_undeclared = rss("", "café cafXbar")
        .into_bytes()
        .into_iter()
        .map(|b| if b == b'X' { 0xE9 } else { b })
        .collect::<Vec<u8>>();
    let long_japanese =
        format!("{JAPANESE}{JAPANESE}今日は雨が降っています。明日は晴れるでしょう。");
    let sjis_undeclared = rss("", &long_japanese);
    let utf8_declared_euc = rss("EUC-JP", JAPANESE);
    assert!(
        EUC_JP
            .decode_without_bom_handling_and_without_replacement(utf8_declared_euc.as_bytes())
            .is_none(),
        "precondition: the utf-8 bytes are not valid euc-jp"
    );
    check(vec![
        Row::new(
            "declared utf-8, bytes windows-1252",
            encode(WINDOWS_1252, &latin1_declared_utf8),
            latin1_declared_utf8,
        )
        .warns(),
        Row::new(
            "undeclared windows-1252",
            encode(WINDOWS_1252, &latin1_undeclared),
            latin1_undeclared,
        )
        .warns(),
        Row::new(
            "utf-8 with a stray windows-1252 byte",
            mixed,
            rss("utf-8", "Café déjà — it\u{2019}s"),
        )
        .warns(),
        Row::new(
            "declared utf-8: one good character and one stray byte",
            one_and_one.clone(),
            rss("utf-8", "café cafébar"),
        )
        .warns(),
        Row::new(
            "undeclared: one good character and one stray byte is not enough",
            one_and_one_undeclared.clone(),
            WINDOWS_1252
                .decode_without_bom_handling(&one_and_one_undeclared)
                .0
                .into_owned(),
        )
        .warns(),
        Row::new(
            "undeclared shift_jis is detected",
            encode(SHIFT_JIS, &sjis_undeclared),
            sjis_undeclared,
        )
        .warns(),
        Row::new(
            "declared euc-jp, bytes utf-8",
            utf8_declared_euc.clone().into_bytes(),
            utf8_declared_euc,
        )
        .warns()
        .borrowed(),
        Row::new(
            "junk before the declaration",
            encode(
                KOI8_R,
                &format!("Notice: undefined index\n{}", rss("koi8-r", RUSSIAN)),
            ),
            format!("Notice: undefined index\n{}", rss("koi8-r", RUSSIAN)),
        ),
        Row::new(
            "declared iso-8859-1, bytes valid utf-8: read as utf-8, as feedparser does",
            rss("ISO-8859-1", "été").into_bytes(),
            rss("ISO-8859-1", "été"),
        )
        .warns(),
        Row::new(
            "http says shift_jis, bytes valid utf-8: read as utf-8",
            rss("utf-8", "港町").into_bytes(),
            rss("utf-8", "港町"),
        )
        .hint("shift_jis")
        .warns(),
        Row::new(
            "declared utf-16 in an ascii-compatible document",
            rss("UTF-16", FRENCH).into_bytes(),
            rss("UTF-16", FRENCH),
        )
        .warns()
        .borrowed(),
        Row::new(
            "unknown declared encoding",
            rss("x-martian", FRENCH).into_bytes(),
            rss("x-martian", FRENCH),
        )
        .warns()
        .borrowed(),
        Row::new(
            "xml-stylesheet is not a declaration",
            b"<?xml-stylesheet encoding=\"koi8-r\"?><a>\xC3\xA9</a>".to_vec(),
            "<?xml-stylesheet encoding=\"koi8-r\"?><a>é</a>",
        )
        .borrowed(),
    ]);
}

#[test]
fn plain_utf8_and_empty_input() {
    let json = format!("{{\"title\":\"{JAPANESE} {EMOJI}\"}}");
    check(vec![
        Row::new("empty", Vec::new(), "").borrowed(),
        Row::new("empty with hint", Vec::new(), "")
            .hint("utf-8")
            .borrowed(),
        Row::new(
            "utf-8 declared",
            rss("UTF-8", RUSSIAN).into_bytes(),
            rss("UTF-8", RUSSIAN),
        )
        .borrowed(),
        Row::new(
            "utf-8 undeclared",
            rss("", KOREAN).into_bytes(),
            rss("", KOREAN),
        )
        .borrowed(),
        Row::new(
            "utf-8 label alias",
            rss("utf8", GREEK).into_bytes(),
            rss("utf8", GREEK),
        )
        .borrowed(),
        Row::new("json utf-8", json.clone().into_bytes(), json).borrowed(),
        Row::new("one byte", b"<".to_vec(), "<").borrowed(),
        Row::new("lone invalid byte", b"\xFF".to_vec(), "ÿ").warns(),
    ]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_never_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..600),
        hint in proptest::option::of(prop_oneof![
            Just("utf-8"), Just("iso-8859-1"), Just("shift_jis"), Just("utf-16"),
            Just("utf-32"), Just("x-junk"), Just("\"big5\";"), Just(""),
        ]),
    ) {
        let mut warnings = Vec::new();
        let out = decode(&bytes, hint, &mut warnings);
        prop_assert!(std::str::from_utf8(out.as_bytes()).is_ok());
        prop_assert!(warnings.iter().all(|w| w.kind == WarningKind::Encoding));
        if bytes.is_empty() {
            prop_assert_eq!(out.as_ref(), "");
        }
    }

    #[test]
    fn random_prefixed_bytes_never_panic(
        prefix in prop_oneof![
            Just(&b"\xEF\xBB\xBF"[..]), Just(&b"\xFF\xFE"[..]), Just(&b"\xFE\xFF"[..]),
            Just(&b"\xFF\xFE\x00\x00"[..]), Just(&b"\x00\x00\xFE\xFF"[..]),
            Just(&b"<\x00?\x00"[..]), Just(&b"\x00<\x00?"[..]), Just(&b"<\x00\x00\x00"[..]),
            Just(&b"\x00\x00\x00<"[..]), Just(&b"<?xml version=\"1.0\" encoding=\"euc-jp\"?>"[..]),
        ],
        bytes in proptest::collection::vec(any::<u8>(), 0..300),
    ) {
        let input = cat(&[prefix, &bytes]);
        let mut warnings = Vec::new();
        let out = decode(&input, None, &mut warnings);
        prop_assert!(std::str::from_utf8(out.as_bytes()).is_ok());
    }

    #[test]
    fn valid_utf8_comes_back_borrowed_and_unchanged(text in "\\PC{0,200}") {
        let mut warnings = Vec::new();
        let out = decode(text.as_bytes(), None, &mut warnings);
        prop_assert!(matches!(out, Cow::Borrowed(_)));
        prop_assert_eq!(out.as_ref(), text.as_str());
        prop_assert!(warnings.is_empty());
    }

    #[test]
    fn utf16_and_utf32_round_trip(text in "\\PC{0,200}", big_endian in any::<bool>()) {
        let mut warnings = Vec::new();
        let (bom16, bom32): (&[u8], &[u8]) = if big_endian {
            (b"\xFE\xFF", b"\x00\x00\xFE\xFF")
        } else {
            (b"\xFF\xFE", b"\xFF\xFE\x00\x00")
        };
        let sixteen = cat(&[bom16, &utf16(&text, big_endian)]);
        let out = decode(&sixteen, None, &mut warnings);
        prop_assert_eq!(out.as_ref(), text.as_str());
        let thirty_two = cat(&[bom32, &utf32(&text, big_endian)]);
        let out = decode(&thirty_two, None, &mut warnings);
        prop_assert_eq!(out.as_ref(), text.as_str());
        prop_assert!(warnings.is_empty());
    }
}
