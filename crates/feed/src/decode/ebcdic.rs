//! EBCDIC code pages, which encoding_rs does not read: IBM 037 (US/Canada), 500
//! (international), 875 (Greek) and 1140 (037 with the euro sign). Each table gives the
//! character of every byte, generated once from the code page definitions; NEL (0x15), the
//! line end of EBCDIC text, is read as a line feed, so XML 1.0 sees the line breaks it expects.
//!
//! A document is taken for EBCDIC when it starts with `<?xm` in EBCDIC (`4C 6F A7 94`, XML 1.0
//! appendix F); its declaration, written in characters these code pages share, then names the
//! page.

/// One of the EBCDIC code pages read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CodePage {
    Ibm037,
    Ibm500,
    Ibm875,
    Ibm1140,
}

impl CodePage {
    /// The code page a charset label names (lower-case, `_` read as `-`), if it is one of these.
    pub(super) fn for_label(label: &[u8]) -> Option<CodePage> {
        let label: Vec<u8> = label
            .iter()
            .map(|b| {
                if *b == b'_' {
                    b'-'
                } else {
                    b.to_ascii_lowercase()
                }
            })
            .collect();
        let name = std::str::from_utf8(&label).ok()?.trim();
        Some(match name {
            "cp037" | "ibm037" | "ibm-037" | "ibm037-1" | "037" | "csibm037" | "ebcdic-cp-us"
            | "ebcdic-cp-ca" | "ebcdic-cp-wt" | "ebcdic-cp-nl" | "cp-037" => CodePage::Ibm037,
            "cp500" | "ibm500" | "ibm-500" | "500" | "csibm500" | "ebcdic-cp-be"
            | "ebcdic-cp-ch" | "cp-500" => CodePage::Ibm500,
            "cp875" | "ibm875" | "ibm-875" | "875" | "csibm875" | "cp-875" => CodePage::Ibm875,
            "cp1140" | "ibm1140" | "ibm01140" | "ibm-1140" | "1140" | "csibm1140"
            | "csibm01140" | "ccsid01140" | "cp01140" | "ebcdic-us-37+euro" | "cp-1140" => {
                CodePage::Ibm1140
            }
            _ => return None,
        })
    }

    fn table(self) -> &'static [char; 256] {
        match self {
            CodePage::Ibm037 => &IBM037,
            CodePage::Ibm500 => &IBM500,
            CodePage::Ibm875 => &IBM875,
            CodePage::Ibm1140 => &IBM1140,
        }
    }

    /// `bytes` as text: every byte is one character.
    pub(super) fn decode(self, bytes: &[u8]) -> String {
        let table = self.table();
        bytes.iter().map(|&b| table[usize::from(b)]).collect()
    }
}

/// Whether `bytes` start with `<?xm` in EBCDIC.
pub(super) fn sniff(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x4C, 0x6F, 0xA7, 0x94])
}

/// The encoding label of an EBCDIC document's declaration, read through IBM 037 (the
/// declaration's characters are the same in every page here).
pub(super) fn declared_label(bytes: &[u8]) -> Option<Vec<u8>> {
    let head = CodePage::Ibm037.decode(bytes.get(..bytes.len().min(256))?);
    let end = head.find("?>")?;
    let decl = &head[..end];
    let at = decl.find("encoding")? + "encoding".len();
    let rest = decl[at..].trim_start().strip_prefix('=')?.trim_start();
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let value = &rest[1..];
    let close = value.find(quote)?;
    Some(value.as_bytes()[..close].to_vec())
}

/// IBM037: the character of each byte.
const IBM037: [char; 256] = [
    '\u{0000}', '\u{0001}', '\u{0002}', '\u{0003}', '\u{009c}', '\u{0009}', '\u{0086}', '\u{007f}',
    '\u{0097}', '\u{008d}', '\u{008e}', '\u{000b}', '\u{000c}', '\u{000d}', '\u{000e}', '\u{000f}',
    '\u{0010}', '\u{0011}', '\u{0012}', '\u{0013}', '\u{009d}', '\u{000a}', '\u{0008}', '\u{0087}',
    '\u{0018}', '\u{0019}', '\u{0092}', '\u{008f}', '\u{001c}', '\u{001d}', '\u{001e}', '\u{001f}',
    '\u{0080}', '\u{0081}', '\u{0082}', '\u{0083}', '\u{0084}', '\u{000a}', '\u{0017}', '\u{001b}',
    '\u{0088}', '\u{0089}', '\u{008a}', '\u{008b}', '\u{008c}', '\u{0005}', '\u{0006}', '\u{0007}',
    '\u{0090}', '\u{0091}', '\u{0016}', '\u{0093}', '\u{0094}', '\u{0095}', '\u{0096}', '\u{0004}',
    '\u{0098}', '\u{0099}', '\u{009a}', '\u{009b}', '\u{0014}', '\u{0015}', '\u{009e}', '\u{001a}',
    '\u{0020}', '\u{00a0}', '\u{00e2}', '\u{00e4}', '\u{00e0}', '\u{00e1}', '\u{00e3}', '\u{00e5}',
    '\u{00e7}', '\u{00f1}', '\u{00a2}', '\u{002e}', '\u{003c}', '\u{0028}', '\u{002b}', '\u{007c}',
    '\u{0026}', '\u{00e9}', '\u{00ea}', '\u{00eb}', '\u{00e8}', '\u{00ed}', '\u{00ee}', '\u{00ef}',
    '\u{00ec}', '\u{00df}', '\u{0021}', '\u{0024}', '\u{002a}', '\u{0029}', '\u{003b}', '\u{00ac}',
    '\u{002d}', '\u{002f}', '\u{00c2}', '\u{00c4}', '\u{00c0}', '\u{00c1}', '\u{00c3}', '\u{00c5}',
    '\u{00c7}', '\u{00d1}', '\u{00a6}', '\u{002c}', '\u{0025}', '\u{005f}', '\u{003e}', '\u{003f}',
    '\u{00f8}', '\u{00c9}', '\u{00ca}', '\u{00cb}', '\u{00c8}', '\u{00cd}', '\u{00ce}', '\u{00cf}',
    '\u{00cc}', '\u{0060}', '\u{003a}', '\u{0023}', '\u{0040}', '\u{0027}', '\u{003d}', '\u{0022}',
    '\u{00d8}', '\u{0061}', '\u{0062}', '\u{0063}', '\u{0064}', '\u{0065}', '\u{0066}', '\u{0067}',
    '\u{0068}', '\u{0069}', '\u{00ab}', '\u{00bb}', '\u{00f0}', '\u{00fd}', '\u{00fe}', '\u{00b1}',
    '\u{00b0}', '\u{006a}', '\u{006b}', '\u{006c}', '\u{006d}', '\u{006e}', '\u{006f}', '\u{0070}',
    '\u{0071}', '\u{0072}', '\u{00aa}', '\u{00ba}', '\u{00e6}', '\u{00b8}', '\u{00c6}', '\u{00a4}',
    '\u{00b5}', '\u{007e}', '\u{0073}', '\u{0074}', '\u{0075}', '\u{0076}', '\u{0077}', '\u{0078}',
    '\u{0079}', '\u{007a}', '\u{00a1}', '\u{00bf}', '\u{00d0}', '\u{00dd}', '\u{00de}', '\u{00ae}',
    '\u{005e}', '\u{00a3}', '\u{00a5}', '\u{00b7}', '\u{00a9}', '\u{00a7}', '\u{00b6}', '\u{00bc}',
    '\u{00bd}', '\u{00be}', '\u{005b}', '\u{005d}', '\u{00af}', '\u{00a8}', '\u{00b4}', '\u{00d7}',
    '\u{007b}', '\u{0041}', '\u{0042}', '\u{0043}', '\u{0044}', '\u{0045}', '\u{0046}', '\u{0047}',
    '\u{0048}', '\u{0049}', '\u{00ad}', '\u{00f4}', '\u{00f6}', '\u{00f2}', '\u{00f3}', '\u{00f5}',
    '\u{007d}', '\u{004a}', '\u{004b}', '\u{004c}', '\u{004d}', '\u{004e}', '\u{004f}', '\u{0050}',
    '\u{0051}', '\u{0052}', '\u{00b9}', '\u{00fb}', '\u{00fc}', '\u{00f9}', '\u{00fa}', '\u{00ff}',
    '\u{005c}', '\u{00f7}', '\u{0053}', '\u{0054}', '\u{0055}', '\u{0056}', '\u{0057}', '\u{0058}',
    '\u{0059}', '\u{005a}', '\u{00b2}', '\u{00d4}', '\u{00d6}', '\u{00d2}', '\u{00d3}', '\u{00d5}',
    '\u{0030}', '\u{0031}', '\u{0032}', '\u{0033}', '\u{0034}', '\u{0035}', '\u{0036}', '\u{0037}',
    '\u{0038}', '\u{0039}', '\u{00b3}', '\u{00db}', '\u{00dc}', '\u{00d9}', '\u{00da}', '\u{009f}',
];

/// IBM500: IBM037 with seven punctuation positions of the international page.
const IBM500: [char; 256] = {
    let mut table = IBM037;
    table[0x4A] = '[';
    table[0x4F] = '!';
    table[0x5A] = ']';
    table[0x5F] = '^';
    table[0xB0] = '\u{00a2}';
    table[0xBA] = '\u{00ac}';
    table[0xBB] = '|';
    table
};

/// IBM875: the character of each byte.
const IBM875: [char; 256] = [
    '\u{0000}', '\u{0001}', '\u{0002}', '\u{0003}', '\u{009c}', '\u{0009}', '\u{0086}', '\u{007f}',
    '\u{0097}', '\u{008d}', '\u{008e}', '\u{000b}', '\u{000c}', '\u{000d}', '\u{000e}', '\u{000f}',
    '\u{0010}', '\u{0011}', '\u{0012}', '\u{0013}', '\u{009d}', '\u{000a}', '\u{0008}', '\u{0087}',
    '\u{0018}', '\u{0019}', '\u{0092}', '\u{008f}', '\u{001c}', '\u{001d}', '\u{001e}', '\u{001f}',
    '\u{0080}', '\u{0081}', '\u{0082}', '\u{0083}', '\u{0084}', '\u{000a}', '\u{0017}', '\u{001b}',
    '\u{0088}', '\u{0089}', '\u{008a}', '\u{008b}', '\u{008c}', '\u{0005}', '\u{0006}', '\u{0007}',
    '\u{0090}', '\u{0091}', '\u{0016}', '\u{0093}', '\u{0094}', '\u{0095}', '\u{0096}', '\u{0004}',
    '\u{0098}', '\u{0099}', '\u{009a}', '\u{009b}', '\u{0014}', '\u{0015}', '\u{009e}', '\u{001a}',
    '\u{0020}', '\u{0391}', '\u{0392}', '\u{0393}', '\u{0394}', '\u{0395}', '\u{0396}', '\u{0397}',
    '\u{0398}', '\u{0399}', '\u{005b}', '\u{002e}', '\u{003c}', '\u{0028}', '\u{002b}', '\u{0021}',
    '\u{0026}', '\u{039a}', '\u{039b}', '\u{039c}', '\u{039d}', '\u{039e}', '\u{039f}', '\u{03a0}',
    '\u{03a1}', '\u{03a3}', '\u{005d}', '\u{0024}', '\u{002a}', '\u{0029}', '\u{003b}', '\u{005e}',
    '\u{002d}', '\u{002f}', '\u{03a4}', '\u{03a5}', '\u{03a6}', '\u{03a7}', '\u{03a8}', '\u{03a9}',
    '\u{03aa}', '\u{03ab}', '\u{007c}', '\u{002c}', '\u{0025}', '\u{005f}', '\u{003e}', '\u{003f}',
    '\u{00a8}', '\u{0386}', '\u{0388}', '\u{0389}', '\u{00a0}', '\u{038a}', '\u{038c}', '\u{038e}',
    '\u{038f}', '\u{0060}', '\u{003a}', '\u{0023}', '\u{0040}', '\u{0027}', '\u{003d}', '\u{0022}',
    '\u{0385}', '\u{0061}', '\u{0062}', '\u{0063}', '\u{0064}', '\u{0065}', '\u{0066}', '\u{0067}',
    '\u{0068}', '\u{0069}', '\u{03b1}', '\u{03b2}', '\u{03b3}', '\u{03b4}', '\u{03b5}', '\u{03b6}',
    '\u{00b0}', '\u{006a}', '\u{006b}', '\u{006c}', '\u{006d}', '\u{006e}', '\u{006f}', '\u{0070}',
    '\u{0071}', '\u{0072}', '\u{03b7}', '\u{03b8}', '\u{03b9}', '\u{03ba}', '\u{03bb}', '\u{03bc}',
    '\u{00b4}', '\u{007e}', '\u{0073}', '\u{0074}', '\u{0075}', '\u{0076}', '\u{0077}', '\u{0078}',
    '\u{0079}', '\u{007a}', '\u{03bd}', '\u{03be}', '\u{03bf}', '\u{03c0}', '\u{03c1}', '\u{03c3}',
    '\u{00a3}', '\u{03ac}', '\u{03ad}', '\u{03ae}', '\u{03ca}', '\u{03af}', '\u{03cc}', '\u{03cd}',
    '\u{03cb}', '\u{03ce}', '\u{03c2}', '\u{03c4}', '\u{03c5}', '\u{03c6}', '\u{03c7}', '\u{03c8}',
    '\u{007b}', '\u{0041}', '\u{0042}', '\u{0043}', '\u{0044}', '\u{0045}', '\u{0046}', '\u{0047}',
    '\u{0048}', '\u{0049}', '\u{00ad}', '\u{03c9}', '\u{0390}', '\u{03b0}', '\u{2018}', '\u{2015}',
    '\u{007d}', '\u{004a}', '\u{004b}', '\u{004c}', '\u{004d}', '\u{004e}', '\u{004f}', '\u{0050}',
    '\u{0051}', '\u{0052}', '\u{00b1}', '\u{00bd}', '\u{001a}', '\u{0387}', '\u{2019}', '\u{00a6}',
    '\u{005c}', '\u{001a}', '\u{0053}', '\u{0054}', '\u{0055}', '\u{0056}', '\u{0057}', '\u{0058}',
    '\u{0059}', '\u{005a}', '\u{00b2}', '\u{00a7}', '\u{001a}', '\u{001a}', '\u{00ab}', '\u{00ac}',
    '\u{0030}', '\u{0031}', '\u{0032}', '\u{0033}', '\u{0034}', '\u{0035}', '\u{0036}', '\u{0037}',
    '\u{0038}', '\u{0039}', '\u{00b3}', '\u{00a9}', '\u{001a}', '\u{001a}', '\u{00bb}', '\u{009f}',
];

/// IBM1140: IBM037 with the euro sign where 037 has the currency sign (0x9F).
const IBM1140: [char; 256] = {
    let mut table = IBM037;
    table[0x9F] = '\u{20ac}';
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the pages part ways, byte by byte (from the code page definitions): 500 moves
    /// seven punctuation characters of 037, 1140 puts the euro sign on 037's currency sign.
    #[test]
    fn pages_differ_where_their_definitions_say() {
        let bytes = [0x4A, 0x4F, 0x5A, 0x5F, 0xB0, 0xBA, 0xBB, 0x9F];
        let cases = [
            (CodePage::Ibm037, "\u{a2}|!\u{ac}^[]\u{a4}"),
            (CodePage::Ibm500, "[!]^\u{a2}\u{ac}|\u{a4}"),
            (CodePage::Ibm1140, "\u{a2}|!\u{ac}^[]\u{20ac}"),
        ];
        for (page, want) in cases {
            assert_eq!(page.decode(&bytes), want, "{page:?}");
        }
        // Everywhere else 500 and 1140 are 037.
        let differ = |page: CodePage| {
            (0..=255u8)
                .filter(|&b| page.table()[usize::from(b)] != IBM037[usize::from(b)])
                .count()
        };
        assert_eq!(differ(CodePage::Ibm500), 7);
        assert_eq!(differ(CodePage::Ibm1140), 1);
        // NEL reads as a line feed in every page.
        for page in [
            CodePage::Ibm037,
            CodePage::Ibm500,
            CodePage::Ibm875,
            CodePage::Ibm1140,
        ] {
            assert_eq!(page.decode(&[0x15]), "\n");
        }
    }
}
