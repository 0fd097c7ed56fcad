//! The words a date may hold: month and weekday names in eleven languages, filler words,
//! meridiems and zone abbreviations, looked up case- and accent-insensitively.
//!
//! Every table stores names already folded (lower case, accents removed, Greek final sigma
//! written `σ`); [`classify`] folds the word once into a stack buffer and scans the tables,
//! so nothing is allocated.

/// What one word of a date means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Word {
    /// A month, 1..=12. `also_weekday` when the same spelling also abbreviates a weekday
    /// (Spanish, French and Italian "mar", Hungarian "sze"); the reader resolves it by position.
    Month { month: u32, also_weekday: bool },
    /// A weekday, a filler ("de", "à", "feira", "um") or an ordinal suffix ("nd", "er"):
    /// carries nothing the date needs.
    Skip,
    /// A named zone, its offset east of UTC in minutes. `utc` for UT, UTC and GMT, which a
    /// numeric offset may follow ("GMT+2").
    Zone { minutes: i32, utc: bool },
    /// A zone abbreviation with several common meanings (IST): refused.
    AmbiguousZone,
    /// A North American zone named without saying standard or daylight time (ET, CT, MT, PT;
    /// AT after the time): its standard offset in minutes east of UTC. Which of the two held
    /// is read off the date by the US daylight-saving rule.
    NorthAmerican { standard: i32 },
    /// AM or PM written after the time ("am", "pm").
    TrailingMeridiem { pm: bool },
    /// AM or PM written before the time (Korean 오전, 오후).
    LeadingMeridiem { pm: bool },
    /// A date-time separator "T" or "t" (ISO 8601); once the time is read, an upper-case
    /// one is the military zone letter T.
    T { upper: bool },
    /// A single upper-case letter other than T: a military zone once the time is read.
    Letter(char),
    /// A unit marker after a number (Korean 년 월 일 시 분 초, CJK 年 月 日 時 分 秒).
    Unit(Unit),
    /// The French hour separator in "10h30".
    H,
    /// Anything else.
    Unknown,
}

/// The field a CJK unit marker names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
}

/// Full month names, folded. A word of three letters or more that begins exactly one month's
/// names (in any language) is that month: "janv", "Sept", "märz", "ιουν".
const MONTHS: &[(&str, u32)] = &[
    // English
    ("january", 1),
    ("february", 2),
    ("march", 3),
    ("april", 4),
    ("may", 5),
    ("june", 6),
    ("july", 7),
    ("august", 8),
    ("september", 9),
    ("october", 10),
    ("november", 11),
    ("december", 12),
    // French
    ("janvier", 1),
    ("fevrier", 2),
    ("mars", 3),
    ("avril", 4),
    ("mai", 5),
    ("juin", 6),
    ("juillet", 7),
    ("aout", 8),
    ("septembre", 9),
    ("octobre", 10),
    ("novembre", 11),
    ("decembre", 12),
    // German (and Austrian Jänner)
    ("januar", 1),
    ("janner", 1),
    ("februar", 2),
    ("marz", 3),
    ("juni", 6),
    ("juli", 7),
    ("oktober", 10),
    ("dezember", 12),
    // Spanish
    ("enero", 1),
    ("febrero", 2),
    ("marzo", 3),
    ("abril", 4),
    ("mayo", 5),
    ("junio", 6),
    ("julio", 7),
    ("agosto", 8),
    ("septiembre", 9),
    ("setiembre", 9),
    ("octubre", 10),
    ("noviembre", 11),
    ("diciembre", 12),
    // Portuguese
    ("janeiro", 1),
    ("fevereiro", 2),
    ("marco", 3),
    ("maio", 5),
    ("junho", 6),
    ("julho", 7),
    ("setembro", 9),
    ("outubro", 10),
    ("novembro", 11),
    ("dezembro", 12),
    // Dutch
    ("januari", 1),
    ("februari", 2),
    ("maart", 3),
    ("mei", 5),
    ("augustus", 8),
    // Italian
    ("gennaio", 1),
    ("febbraio", 2),
    ("aprile", 4),
    ("maggio", 5),
    ("giugno", 6),
    ("luglio", 7),
    ("settembre", 9),
    ("ottobre", 10),
    ("dicembre", 12),
    // Hungarian
    ("marcius", 3),
    ("aprilis", 4),
    ("majus", 5),
    ("junius", 6),
    ("julius", 7),
    ("augusztus", 8),
    ("szeptember", 9),
    // Greek, nominative and genitive
    ("ιανουαριος", 1),
    ("ιανουαριου", 1),
    ("φεβρουαριος", 2),
    ("φεβρουαριου", 2),
    ("μαρτιος", 3),
    ("μαρτιου", 3),
    ("απριλιος", 4),
    ("απριλιου", 4),
    ("μαιος", 5),
    ("μαιου", 5),
    ("ιουνιος", 6),
    ("ιουνιου", 6),
    ("ιουλιος", 7),
    ("ιουλιου", 7),
    ("αυγουστος", 8),
    ("αυγουστου", 8),
    ("σεπτεμβριος", 9),
    ("σεπτεμβριου", 9),
    ("οκτωβριος", 10),
    ("οκτωβριου", 10),
    ("νοεμβριος", 11),
    ("νοεμβριου", 11),
    ("δεκεμβριος", 12),
    ("δεκεμβριου", 12),
];

/// Month abbreviations that are not a prefix of a name above; matched exactly.
const MONTH_ABBREVIATIONS: &[(&str, u32)] = &[("mrt", 3), ("ιον", 6), ("ιολ", 7)];

/// Full weekday names, folded. A word of three letters or more that begins one of them is
/// a weekday ("Tues", "lun", "Δευ").
const WEEKDAYS: &[&str] = &[
    // English
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    // French
    "lundi",
    "mardi",
    "mercredi",
    "jeudi",
    "vendredi",
    "samedi",
    "dimanche",
    // German
    "montag",
    "dienstag",
    "mittwoch",
    "donnerstag",
    "freitag",
    "samstag",
    "sonnabend",
    "sonntag",
    // Spanish
    "lunes",
    "martes",
    "miercoles",
    "jueves",
    "viernes",
    "sabado",
    "domingo",
    // Portuguese (the "-feira" part is a filler)
    "segunda",
    "terca",
    "quarta",
    "quinta",
    "sexta",
    // Dutch
    "maandag",
    "dinsdag",
    "woensdag",
    "donderdag",
    "vrijdag",
    "zaterdag",
    "zondag",
    // Italian
    "lunedi",
    "martedi",
    "mercoledi",
    "giovedi",
    "venerdi",
    "sabato",
    "domenica",
    // Hungarian
    "hetfo",
    "kedd",
    "szerda",
    "csutortok",
    "pentek",
    "szombat",
    "vasarnap",
    // Greek
    "δευτερα",
    "τριτη",
    "τεταρτη",
    "πεμπτη",
    "παρασκευη",
    "σαββατο",
    "κυριακη",
    // Korean
    "월요일",
    "화요일",
    "수요일",
    "목요일",
    "금요일",
    "토요일",
    "일요일",
];

/// Words skipped wherever they stand, matched exactly: two-letter weekday abbreviations
/// (German, Dutch, Hungarian "cs"), one-syllable Korean weekdays, prepositions and articles
/// that join date parts, the Portuguese "feira", the German "Uhr", ordinal suffixes, and
/// the "Etc" of "Etc/GMT".
const SKIPPED: &[&str] = &[
    "mo", "di", "mi", "do", "fr", "sa", "so", "ma", "wo", "vr", "za", "zo", "cs", "월", "화", "수",
    "목", "금", "토", "일", "de", "del", "da", "d", "le", "la", "las", "los", "el", "a", "as",
    "at", "um", "om", "alle", "ore", "on", "the", "of", "o", "den", "der", "feira", "uhr", "st",
    "nd", "rd", "th", "er", "e", "re", "º", "ª", "an", "en", "στισ", "etc",
];

/// Zone abbreviations with one well-established meaning, in minutes east of UTC.
/// CST is US Central (not China), BST British Summer (not Bangladesh), AST Atlantic (not
/// Arabia): the readings of RFC 822 and of most English-language feeds.
const ZONES: &[(&str, i32)] = &[
    ("ut", 0),
    ("utc", 0),
    ("gmt", 0),
    ("z", 0),
    ("wet", 0),
    ("west", 60),
    ("bst", 60),
    ("cet", 60),
    ("met", 60),
    ("mez", 60),
    ("cest", 120),
    ("mest", 120),
    ("mesz", 120),
    ("eet", 120),
    ("eest", 180),
    ("msk", 180),
    ("est", -300),
    ("edt", -240),
    ("cst", -360),
    ("cdt", -300),
    ("mst", -420),
    ("mdt", -360),
    ("pst", -480),
    ("pdt", -420),
    ("akst", -540),
    ("akdt", -480),
    ("hst", -600),
    ("ast", -240),
    ("adt", -180),
    ("nst", -210),
    ("ndt", -150),
    ("jst", 540),
    ("kst", 540),
    ("hkt", 480),
    ("sgt", 480),
    ("awst", 480),
    ("acst", 570),
    ("acdt", 630),
    ("aest", 600),
    ("aedt", 660),
    ("nzst", 720),
    ("nzdt", 780),
];

/// Zone abbreviations refused because their common meanings disagree: IST (India +05:30,
/// Ireland +01:00, Israel +02:00).
const AMBIGUOUS_ZONES: &[&str] = &["ist"];

/// North American zones named without standard or daylight time, with their standard offset
/// in minutes east of UTC ("at", Atlantic, is also the English word: see [`ATLANTIC`]).
const NORTH_AMERICAN: &[(&str, i32)] = &[("et", -300), ("ct", -360), ("mt", -420), ("pt", -480)];

/// Atlantic time's standard offset, for an "AT" after the time.
pub(super) const ATLANTIC: i32 = -240;

/// The longest zone abbreviation in [`ZONES`] and [`AMBIGUOUS_ZONES`], in characters.
const MAX_ZONE: usize = 4;

/// The longest word compared, in characters; longer words are unknown.
const MAX_WORD: usize = 16;

/// A word folded into a stack buffer, as UTF-8 so table names compare as bytes.
struct Folded {
    bytes: [u8; MAX_WORD * 4],
    /// Bytes used.
    size: usize,
    /// Characters, for the three-letter prefix rule.
    len: usize,
}

impl Folded {
    fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..self.size).unwrap_or(&[])
    }

    /// Whether the word equals `name`.
    fn is(&self, name: &str) -> bool {
        let (n, w) = (name.as_bytes(), self.as_bytes());
        // The first byte settles most comparisons without a call to memcmp.
        n.len() == w.len() && n.first() == w.first() && n == w
    }

    /// Whether the word is a prefix of `name` (or equal to it).
    fn begins(&self, name: &str) -> bool {
        let (n, w) = (name.as_bytes(), self.as_bytes());
        n.len() >= w.len() && n.first() == w.first() && n.starts_with(w)
    }
}

/// Lower-case `word`, drop accents and combining marks; `None` when longer than [`MAX_WORD`].
fn fold(word: &str) -> Option<Folded> {
    let mut folded = Folded {
        bytes: [0; MAX_WORD * 4],
        size: 0,
        len: 0,
    };
    for c in word.chars() {
        if is_combining(c) {
            continue;
        }
        for lower in c.to_lowercase() {
            if folded.len == MAX_WORD {
                return None;
            }
            let slot = folded.bytes.get_mut(folded.size..)?;
            folded.size += plain(lower).encode_utf8(slot).len();
            folded.len += 1;
        }
    }
    Some(folded)
}

/// Combining diacritical marks, dropped so decomposed accents fold like composed ones.
pub(super) fn is_combining(c: char) -> bool {
    ('\u{300}'..='\u{36f}').contains(&c)
}

/// The unaccented form of a lower-case letter.
fn plain(c: char) -> char {
    match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => 'a',
        'ç' => 'c',
        'è' | 'é' | 'ê' | 'ë' => 'e',
        'ì' | 'í' | 'î' | 'ï' => 'i',
        'ñ' => 'n',
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ő' => 'o',
        'ù' | 'ú' | 'û' | 'ü' | 'ű' => 'u',
        'ý' | 'ÿ' => 'y',
        'ά' => 'α',
        'έ' => 'ε',
        'ή' => 'η',
        'ί' | 'ϊ' | 'ΐ' => 'ι',
        'ό' => 'ο',
        'ύ' | 'ϋ' | 'ΰ' => 'υ',
        'ώ' => 'ω',
        'ς' => 'σ',
        other => other,
    }
}

/// The most common English words of dates, classified without folding or scanning: the same
/// answers [`classify_slow`] gives (a unit test checks), found faster.
const FAST: &[(&[u8], Word)] = &[
    (b"jan", month_word(1)),
    (b"feb", month_word(2)),
    (
        b"mar",
        Word::Month {
            month: 3,
            also_weekday: true,
        },
    ),
    (b"apr", month_word(4)),
    (b"may", month_word(5)),
    (b"jun", month_word(6)),
    (b"june", month_word(6)),
    (b"jul", month_word(7)),
    (b"july", month_word(7)),
    (b"aug", month_word(8)),
    (b"sep", month_word(9)),
    (b"sept", month_word(9)),
    (b"oct", month_word(10)),
    (b"nov", month_word(11)),
    (b"dec", month_word(12)),
    (b"mon", Word::Skip),
    (b"tue", Word::Skip),
    (b"tues", Word::Skip),
    (b"wed", Word::Skip),
    (b"thu", Word::Skip),
    (b"thur", Word::Skip),
    (b"fri", Word::Skip),
    (b"sat", Word::Skip),
    (b"sun", Word::Skip),
    (b"gmt", utc()),
    (b"utc", utc()),
    (b"ut", utc()),
    (b"est", zone(-300)),
    (b"edt", zone(-240)),
    (b"cst", zone(-360)),
    (b"cdt", zone(-300)),
    (b"mst", zone(-420)),
    (b"mdt", zone(-360)),
    (b"pst", zone(-480)),
    (b"pdt", zone(-420)),
    (b"am", Word::TrailingMeridiem { pm: false }),
    (b"pm", Word::TrailingMeridiem { pm: true }),
];

const fn month_word(month: u32) -> Word {
    Word::Month {
        month,
        also_weekday: false,
    }
}

const fn utc() -> Word {
    Word::Zone {
        minutes: 0,
        utc: true,
    }
}

const fn zone(minutes: i32) -> Word {
    Word::Zone {
        minutes,
        utc: false,
    }
}

/// A word of two to four ASCII letters packed into one integer for [`FAST_KEYS`]: the length,
/// then the bytes. (The length falls off a four-letter key, whose top byte is then a letter,
/// never a length: keys of different lengths still differ.)
const fn pack(bytes: &[u8]) -> u32 {
    let mut key = bytes.len() as u32;
    let mut i = 0;
    while i < bytes.len() {
        key = key << 8 | bytes[i] as u32;
        i += 1;
    }
    key
}

/// [`FAST`] packed, so a lookup compares integers.
const FAST_KEYS: [u32; FAST.len()] = {
    let mut keys = [0u32; FAST.len()];
    let mut i = 0;
    while i < FAST.len() {
        keys[i] = pack(FAST[i].0);
        i += 1;
    }
    keys
};

/// [`FAST`] lookup for ASCII words of two to four letters.
pub(super) fn classify_fast(word: &str) -> Option<Word> {
    let bytes = word.as_bytes();
    if !(2..=4).contains(&bytes.len()) {
        return None;
    }
    let mut lower = [0u8; 4];
    for (l, b) in lower.iter_mut().zip(bytes) {
        if !b.is_ascii_alphabetic() {
            return None;
        }
        *l = b.to_ascii_lowercase();
    }
    let key = pack(lower.get(..bytes.len())?);
    let at = FAST_KEYS.iter().position(|&k| k == key)?;
    FAST.get(at).map(|&(_, w)| w)
}

/// What `word` (a run of letters, as written) means in a date.
pub(super) fn classify(word: &str) -> Word {
    classify_fast(word).unwrap_or_else(|| classify_slow(word))
}

/// [`classify`] by folding and scanning every table.
fn classify_slow(word: &str) -> Word {
    if let Some(unit) = unit(word) {
        return Word::Unit(unit);
    }
    let mut chars = word.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        match c {
            'T' | 't' => return Word::T { upper: c == 'T' },
            'h' => return Word::H,
            'z' => {}
            'A'..='I' | 'K'..='Z' => return Word::Letter(c),
            _ => {}
        }
    }
    let Some(folded) = fold(word) else {
        return Word::Unknown;
    };
    if folded.len <= MAX_ZONE {
        if let Some(&(_, minutes)) = ZONES.iter().find(|(name, _)| folded.is(name)) {
            let utc = minutes == 0 && (folded.is("ut") || folded.is("utc") || folded.is("gmt"));
            return Word::Zone { minutes, utc };
        }
        if AMBIGUOUS_ZONES.iter().any(|name| folded.is(name)) {
            return Word::AmbiguousZone;
        }
        if let Some(&(_, standard)) = NORTH_AMERICAN.iter().find(|(name, _)| folded.is(name)) {
            return Word::NorthAmerican { standard };
        }
    }
    if folded.is("am") {
        return Word::TrailingMeridiem { pm: false };
    }
    if folded.is("pm") {
        return Word::TrailingMeridiem { pm: true };
    }
    if folded.is("오전") {
        return Word::LeadingMeridiem { pm: false };
    }
    if folded.is("오후") {
        return Word::LeadingMeridiem { pm: true };
    }
    let weekday = folded.len >= 3 && WEEKDAYS.iter().any(|name| folded.begins(name));
    if let Some(month) = month(&folded) {
        return Word::Month {
            month,
            also_weekday: weekday,
        };
    }
    if weekday || SKIPPED.iter().any(|name| folded.is(name)) {
        return Word::Skip;
    }
    Word::Unknown
}

/// The month a folded word names, if exactly one.
fn month(folded: &Folded) -> Option<u32> {
    if let Some(&(_, m)) = MONTH_ABBREVIATIONS.iter().find(|(name, _)| folded.is(name)) {
        return Some(m);
    }
    if folded.len < 3 {
        return None;
    }
    let mut found = None;
    for &(name, m) in MONTHS {
        if folded.begins(name) {
            match found {
                None => found = Some(m),
                Some(other) if other != m => return None,
                Some(_) => {}
            }
        }
    }
    found
}

/// The CJK unit a marker word names.
pub(super) fn unit(word: &str) -> Option<Unit> {
    Some(match word {
        "년" | "年" => Unit::Year,
        "월" | "月" => Unit::Month,
        "일" | "日" => Unit::Day,
        "시" | "時" | "时" => Unit::Hour,
        "분" | "分" => Unit::Minute,
        "초" | "秒" => Unit::Second,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_case_accents_and_final_sigma() {
        let text = |f: Folded| String::from_utf8_lossy(f.as_bytes()).into_owned();
        let f = fold("FÉVR").map(text);
        assert_eq!(f.as_deref(), Some("fevr"));
        let f = fold("ΣΤΙΣ").map(text);
        assert_eq!(f.as_deref(), Some("στισ"));
        let f = fold("e\u{301}te\u{301}").map(text);
        assert_eq!(f.as_deref(), Some("ete"));
        assert!(fold("abcdefghijklmnopq").is_none());
    }

    #[test]
    fn prefixes_name_one_month_or_none() {
        let m = |w: &str| match classify(w) {
            Word::Month { month, .. } => Some(month),
            _ => None,
        };
        assert_eq!(m("Sept"), Some(9));
        assert_eq!(m("juil"), Some(7));
        assert_eq!(m("jui"), None, "juin or juillet");
        assert_eq!(m("Ιούν"), Some(6));
        assert_eq!(m("mrt"), Some(3));
        assert_eq!(m("ja"), None, "too short to be a prefix");
    }

    #[test]
    fn zone_names_fit_the_length_gate() {
        let names = ZONES
            .iter()
            .map(|(n, _)| *n)
            .chain(AMBIGUOUS_ZONES.iter().copied());
        for name in names {
            assert!(name.chars().count() <= MAX_ZONE, "{name}");
        }
    }

    #[test]
    fn fast_path_agrees_with_tables() {
        for &(key, want) in FAST {
            let word = std::str::from_utf8(key).unwrap_or_default();
            assert_eq!(classify_slow(word), want, "{word}");
            assert_eq!(classify(&word.to_uppercase()), want, "{word}");
        }
        for other in ["ja", "jant", "gm", "gmtx", "xyz", "janv", "mär", "a", ""] {
            assert_eq!(classify_fast(other), None, "{other}");
        }
    }

    #[test]
    fn mar_is_both_month_and_weekday() {
        assert_eq!(
            classify("mar"),
            Word::Month {
                month: 3,
                also_weekday: true
            }
        );
        assert_eq!(classify("martes"), Word::Skip);
    }

    #[test]
    fn zones_letters_and_markers() {
        assert_eq!(
            classify("gmt"),
            Word::Zone {
                minutes: 0,
                utc: true
            }
        );
        assert_eq!(classify("IST"), Word::AmbiguousZone);
        assert_eq!(classify("A"), Word::Letter('A'));
        assert_eq!(classify("a"), Word::Skip);
        assert_eq!(classify("월"), Word::Unit(Unit::Month));
        assert_eq!(classify("frobnicate"), Word::Unknown);
    }
}
