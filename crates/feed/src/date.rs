//! Every date format feeds use, read leniently into UTC, and never guessed.
//!
//! [`parse`] reads one date as a feed wrote it and returns the instant in UTC, or `None`.
//! It aims at the coverage of Python feedparser without its guesses: a value is returned
//! only when every part of it was written in the input (or is the documented default: a
//! missing time is midnight, a missing zone is UTC).
//!
//! # Accepted families (one example each)
//!
//! | Family | Example |
//! |---|---|
//! | RFC 822 / 1123 / 2822, named zone | `Tue, 02 Jan 2024 10:00:00 GMT` |
//! | RFC 2822, numeric zone | `Tue, 02 Jan 2024 10:00:00 +0200` (also `+02:00`, `-05`, `GMT+2`) |
//! | RFC 822 military zone (RFC 822 signs) | `02 Jan 2024 10:00 N` (= +01:00) |
//! | RFC 822 mistakes | `tuesday,2 jan 24 9:05 est (EST)` (no seconds, two-digit year, odd case and spacing, wrong or missing weekday, full or `Sept` month names, comments) |
//! | RFC 2822 obsolete three-digit year | `Tue, 02 Jan 124 10:00:00 GMT` (= 2024: year + 1900) |
//! | Month first, ordinal suffix | `January 2nd, 2024 10:00 AM` |
//! | Day-month-year with dashes | `02-Jan-2024 10:00:00 +0000` |
//! | RFC 3339 | `2024-01-02T03:04:05.123+02:00` |
//! | ISO 8601 extended variants | `2024-01-02 03:04:05 +0200`, `2024-01-02t03:04:05z`, `2024-01-02T03:04` |
//! | ISO 8601 basic | `20240102T030405Z` |
//! | ISO 8601 ordinal | `2024-032` (1 February) |
//! | W3C-DTF reduced precision | `2024-01` and `2024` (first day, midnight UTC) |
//! | Date only | `2024-01-02`, `2 Jan 2024` (midnight UTC) |
//! | asctime | `Sun Nov  6 08:49:37 1994` |
//! | Year-first with slashes or dots | `2024/01/02 03:04:05`, `Fri, 2024/01/02 03:04:05 EDT` |
//! | French | `lun., 02 janv. 2024 10:00:00 +0100`, `le 2 janvier 2024 à 10h00` |
//! | German | `Dienstag, 2. Januar 2024 10:00`, `Di, 02 Mär 2024` |
//! | Spanish | `martes, 02 de enero de 2024 10:00:00 +0100` |
//! | Portuguese | `ter, 02 jan 2024`, `terça-feira, 2 de janeiro de 2024` |
//! | Dutch | `di, 02 mrt 2024 10:00:00 +0100` |
//! | Italian | `martedì 2 gennaio 2024 alle ore 10:00` |
//! | Greek | `Τρι, 02 Ιαν 2024 10:00:00 +0200` |
//! | Hungarian | `2024. január 2. 10:00` |
//! | Korean (and CJK units) | `2024년 1월 2일 오후 3:04:05`, `2024-01-02 오후 3:04:05`, `2024年1月2日` |
//!
//! Month and weekday names are matched without regard to case or accents, abbreviated or
//! not, with or without a dot: any prefix of three letters or more that names exactly one
//! month across the eleven languages is that month ("janv", "Sept", "märz", "Ιούν"). Weekday
//! names are skipped and never checked against the date. A spelling that is both a month and
//! a weekday (Spanish "mar") is the weekday when another month name follows, else the month.
//!
//! # Zones
//!
//! A missing zone is UTC. Numeric offsets are `±HHMM`, `±HH:MM`, `±H` or `±HH`, up to
//! ±23:59, alone or after UT, UTC or GMT. Named zones (see `names::ZONES`): UT, UTC, GMT, Z,
//! WET, WEST, BST (British), CET, MET, MEZ, CEST, MEST, MESZ, EET, EEST, MSK, EST, EDT, CST
//! (US Central), CDT, MST, MDT, PST, PDT, AKST, AKDT, HST, AST (Atlantic), ADT, NST, NDT, JST,
//! KST, HKT, SGT, AWST, ACST, ACDT, AEST, AEDT, NZST, NZDT. Military letters follow the table
//! of RFC 822 as written (A = -01:00 … M = -12:00, N = +01:00 … Y = +12:00, Z = UTC; J is
//! unused), as feedparser does, and are read only in upper case after the time, since lower
//! case single letters are words in several languages. A named zone next to a numeric offset
//! must agree with it. A leap second (`:60`) is read as `:59`; `24:00` is the next midnight.
//!
//! # Refused (`None`)
//!
//! - empty or blank input; anything past 40 tokens; a leading sign (`-2024-01-02`, `--01-02`);
//! - an instant whose UTC year falls outside 0000..=9999 (RFC 3339 cannot write it);
//! - out-of-range fields (month 13, day 32, 30 February, hour 25, minute 60), never clamped;
//! - ambiguous zone names: IST (India, Ireland or Israel) and the season-less US names ET, CT,
//!   MT, PT; an offset beyond ±23:59;
//! - all-numeric day-month orders (`01/02/2024`: US or European?) and two-digit years in a
//!   numeric date (`24-01-02`); only year-first numeric dates are read;
//! - bare integers such as Unix timestamps (`1704160800`): nothing says they are seconds, and
//!   feedparser does not read them either; eight digits are the ISO basic date `YYYYMMDD`;
//! - ISO week dates (`2024-W01-2`) and feedparser's dates relative to the current year
//!   (`--01-02`): the first is rare in feeds, the second needs a clock;
//! - a minute or second not written with two digits (`9:5:00`); a year of one digit; a date without a year or without a day (`January 2024`), except the
//!   W3C-DTF `2024-01` and `2024`;
//! - unknown words, except trailing ones once the date is complete and no digit follows them
//!   (`… +0000 Europe/Paris`), and only when the zone is already known or no time was given:
//!   an unknown word after a zone-less time may be the zone.

mod names;
mod token;

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Utc};
use names::{Unit, Word};
use token::{Kind, Token, Tokens};

/// Read a date as feeds write it. `None` when it cannot be read without guessing.
///
/// ```
/// use tidings_feed::date::parse;
///
/// let read = |s| parse(s).map(|d| d.to_rfc3339());
/// let want = Some("2024-01-02T08:00:00+00:00".to_owned());
/// assert_eq!(read("Tue, 02 Jan 2024 10:00:00 +0200"), want);
/// assert_eq!(read("martes, 02 de enero de 2024 09:00 +0100"), want);
/// assert_eq!(read("01/02/2024"), None); // January or February?
/// ```
pub fn parse(input: &str) -> Option<DateTime<Utc>> {
    let input = input.trim();
    if input.is_empty() {
        return None;
    }
    if let Some(instant) = rfc3339(input.as_bytes()).or_else(|| rfc1123(input)) {
        return Some(instant);
    }
    general(input)
}

/// The general reader: tokenize, assign every token to a field, check and assemble.
fn general(input: &str) -> Option<DateTime<Utc>> {
    let tokens = token::tokenize(input)?;
    let mut reader = Reader::new(input, &tokens);
    reader.run()?;
    reader.finish()
}

/// The fast path for the RFC 1123 form RSS uses (`Tue, 02 Jan 2024 10:00:00 GMT`, optional
/// weekday, one- or two-digit day, English month abbreviation, four-digit year, seconds, a
/// common zone name or `±hhmm`). `None` sends the input to [`general`], which reads the same
/// instant (a unit test checks).
fn rfc1123(s: &str) -> Option<DateTime<Utc>> {
    let b = s.as_bytes();
    let mut i = 0;
    if b.get(3) == Some(&b',') {
        if names::classify_fast(s.get(..3)?) != Some(Word::Skip) {
            return None;
        }
        i = 4 + usize::from(b.get(4) == Some(&b' '));
    }
    let number = |from: usize, len: usize| -> Option<u32> {
        let mut v = 0u32;
        for &c in b.get(from..from + len)? {
            v = v * 10 + u32::from(c.checked_sub(b'0').filter(|d| *d <= 9)?);
        }
        Some(v)
    };
    let day_len = if b.get(i + 1) == Some(&b' ') { 1 } else { 2 };
    let day = number(i, day_len)?;
    i += day_len;
    if b.get(i) != Some(&b' ') || b.get(i + 4) != Some(&b' ') {
        return None;
    }
    let Some(Word::Month { month, .. }) = names::classify_fast(s.get(i + 1..i + 4)?) else {
        return None;
    };
    i += 5;
    let year = i32::try_from(number(i, 4)?).ok()?;
    let t = i + 5;
    if b.get(i + 4) != Some(&b' ')
        || b.get(t + 2) != Some(&b':')
        || b.get(t + 5) != Some(&b':')
        || b.get(t + 8) != Some(&b' ')
    {
        return None;
    }
    let (hour, minute, second) = (number(t, 2)?, number(t + 3, 2)?, number(t + 6, 2)?);
    let zone = s.get(t + 9..)?;
    let offset = match zone.as_bytes() {
        [sign @ (b'+' | b'-'), ..] if zone.len() == 5 => {
            let (h, m) = (number(t + 10, 2)?, number(t + 12, 2)?);
            if h > 23 || m > 59 {
                return None;
            }
            let seconds = i32::try_from(h * 3600 + m * 60).ok()?;
            if *sign == b'-' { -seconds } else { seconds }
        }
        _ => match names::classify_fast(zone)? {
            Word::Zone { minutes, .. } => minutes * 60,
            _ => return None,
        },
    };
    let date = NaiveDate::from_ymd_opt(year, month, day)?;
    let time = NaiveTime::from_hms_opt(hour, minute, second)?;
    let utc = NaiveDateTime::new(date, time)
        .checked_sub_signed(TimeDelta::try_seconds(i64::from(offset))?)?;
    (0..=9999).contains(&utc.year()).then(|| utc.and_utc())
}

/// The fast path for strict RFC 3339 (`2024-01-02T03:04:05.123+02:00`, `T` or space, `Z` or
/// offset), the most common form by far. `None` sends the input to [`general`], which reads
/// the same instant (a unit test checks): this path only skips the tokenizer.
fn rfc3339(b: &[u8]) -> Option<DateTime<Utc>> {
    let digits = |from: usize, len: usize| -> Option<u32> {
        let mut v = 0u32;
        for &c in b.get(from..from + len)? {
            v = v * 10 + u32::from(c.checked_sub(b'0').filter(|d| *d <= 9)?);
        }
        Some(v)
    };
    let at = |i: usize| b.get(i).copied();
    if at(4) != Some(b'-')
        || at(7) != Some(b'-')
        || !matches!(at(10), Some(b'T' | b't' | b' '))
        || at(13) != Some(b':')
        || at(16) != Some(b':')
    {
        return None;
    }
    let date = NaiveDate::from_ymd_opt(
        i32::try_from(digits(0, 4)?).ok()?,
        digits(5, 2)?,
        digits(8, 2)?,
    )?;
    let (hour, minute, second) = (digits(11, 2)?, digits(14, 2)?, digits(17, 2)?);
    let mut i = 19;
    let mut nano = 0u32;
    if at(i) == Some(b'.') {
        i += 1;
        let start = i;
        let mut scale = 100_000_000u32;
        while let Some(c) = at(i).filter(u8::is_ascii_digit) {
            nano += u32::from(c - b'0') * scale;
            scale /= 10;
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    let offset = match at(i)? {
        b'Z' | b'z' if i + 1 == b.len() => 0,
        sign @ (b'+' | b'-') if i + 6 == b.len() && at(i + 3) == Some(b':') => {
            let (h, m) = (digits(i + 1, 2)?, digits(i + 4, 2)?);
            if h > 23 || m > 59 {
                return None;
            }
            let seconds = i32::try_from(h * 3600 + m * 60).ok()?;
            if sign == b'-' { -seconds } else { seconds }
        }
        _ => return None,
    };
    // Leap seconds and 24:00 take the general path.
    let time = NaiveTime::from_hms_nano_opt(hour, minute, second, nano)?;
    let utc = NaiveDateTime::new(date, time)
        .checked_sub_signed(TimeDelta::try_seconds(i64::from(offset))?)?;
    (0..=9999).contains(&utc.year()).then(|| utc.and_utc())
}

/// Whether the walk goes on after a token.
enum Flow {
    Next,
    Stop,
}

/// The fields read so far, and the position in the tokens.
struct Reader<'t, 'a> {
    input: &'a str,
    tokens: &'t Tokens<'a>,
    i: usize,
    year: Option<i32>,
    month: Option<u32>,
    day: Option<u32>,
    /// Day of the year of an ISO ordinal date.
    ordinal: Option<u32>,
    /// The date came from a W3C-DTF `YYYY` or `YYYY-MM`: no time may follow.
    reduced: bool,
    /// Numbers not yet assigned: the day and the year of a date with a month name.
    bare: [Option<Token<'a>>; 2],
    hour: Option<u32>,
    minute: Option<u32>,
    second: Option<u32>,
    nano: u32,
    pm: Option<bool>,
    /// Offset east of UTC, in seconds.
    offset: Option<i32>,
    /// Index of a UT/UTC/GMT word a numeric offset may refine.
    utc_word_at: Option<usize>,
    /// An ISO `T` was seen: a following digit run is a basic-format time.
    after_t: bool,
}

impl<'t, 'a> Reader<'t, 'a> {
    fn new(input: &'a str, tokens: &'t Tokens<'a>) -> Self {
        Reader {
            input,
            tokens,
            i: 0,
            year: None,
            month: None,
            day: None,
            ordinal: None,
            reduced: false,
            bare: [None; 2],
            hour: None,
            minute: None,
            second: None,
            nano: 0,
            pm: None,
            offset: None,
            utc_word_at: None,
            after_t: false,
        }
    }

    fn tok(&self, at: usize) -> Option<Token<'a>> {
        self.tokens.get(at)
    }

    fn tok_is(&self, at: usize, kind: Kind) -> bool {
        self.tok(at).is_some_and(|t| t.kind == kind)
    }

    /// Walk every token once.
    fn run(&mut self) -> Option<()> {
        while let Some(tok) = self.tok(self.i) {
            let flow = match tok.kind {
                Kind::Comma | Kind::Dot | Kind::Slash | Kind::Colon => {
                    self.i += 1;
                    Flow::Next
                }
                Kind::Minus | Kind::Plus => self.sign(tok)?,
                Kind::Num => self.number(tok)?,
                Kind::Word => self.word(tok)?,
                Kind::Other => self.garbage(tok)?,
            };
            if let Flow::Stop = flow {
                return Some(());
            }
        }
        Some(())
    }

    fn bare_len(&self) -> usize {
        self.bare.iter().flatten().count()
    }

    /// Whether a day, a month and a year are all known or assignable.
    fn date_complete(&self) -> bool {
        self.ordinal.is_some()
            || (self.month.is_some()
                && usize::from(self.year.is_some())
                    + usize::from(self.day.is_some())
                    + self.bare_len()
                    >= 2)
    }

    /// An unreadable token: the end of the date if it is complete and nothing numeric follows.
    fn garbage(&self, tok: Token<'a>) -> Option<Flow> {
        let rest = self.input.get(tok.start..).unwrap_or("");
        let zone_settled = self.offset.is_some() || self.hour.is_none();
        (self.date_complete() && zone_settled && !rest.bytes().any(|b| b.is_ascii_digit()))
            .then_some(Flow::Stop)
    }

    fn set_offset(&mut self, seconds: i32) -> Option<()> {
        match self.offset {
            Some(previous) if previous != seconds => None,
            _ => {
                self.offset = Some(seconds);
                Some(())
            }
        }
    }

    /// A `+` or `-`: a numeric zone, or a separator.
    fn sign(&mut self, tok: Token<'a>) -> Option<Flow> {
        if self.i == 0 {
            // A signed year (`-2024-01-02`) or a date relative to the current year
            // (`--01-02`): not something to read as a plain date.
            return None;
        }
        let next_is_num = self.tok_is(self.i + 1, Kind::Num);
        let refines_utc = self
            .i
            .checked_sub(1)
            .is_some_and(|prev| self.utc_word_at == Some(prev));
        let after_numeric_date = self.ordinal.is_some()
            || (self.year.is_some() && self.day.is_some() && self.adjacent_to_previous(tok));
        if next_is_num
            && (refines_utc
                || (self.offset.is_none() && (self.hour.is_some() || after_numeric_date)))
        {
            let seconds = self.numeric_zone(tok.kind == Kind::Plus)?;
            if refines_utc {
                self.offset = Some(seconds);
            } else {
                self.set_offset(seconds)?;
            }
            self.utc_word_at = None;
        } else {
            self.i += 1;
        }
        Some(Flow::Next)
    }

    fn adjacent_to_previous(&self, tok: Token<'a>) -> bool {
        self.i
            .checked_sub(1)
            .and_then(|prev| self.tok(prev))
            .is_some_and(|p| p.start + p.text.len() == tok.start)
    }

    /// `±HHMM`, `±HH:MM`, `±H`, `±HH` starting at the sign; returns seconds east of UTC.
    fn numeric_zone(&mut self, plus: bool) -> Option<i32> {
        let digits = self.tok(self.i + 1)?;
        let value = digits.value()?;
        let (hours, minutes, used) = match digits.len() {
            1 | 2 => {
                let minutes = self
                    .tok(self.i + 3)
                    .filter(|m| self.tok_is(self.i + 2, Kind::Colon) && m.len() == 2);
                match minutes {
                    Some(m) => (value, m.value()?, 4),
                    None => (value, 0, 2),
                }
            }
            4 => (value / 100, value % 100, 2),
            _ => return None,
        };
        if hours > 23 || minutes > 59 {
            return None;
        }
        self.i += used;
        let seconds = i32::try_from(hours * 3600 + minutes * 60).ok()?;
        Some(if plus { seconds } else { -seconds })
    }

    /// A digit run: a unit-marked field, a time, a numeric date, or a bare day or year.
    fn number(&mut self, tok: Token<'a>) -> Option<Flow> {
        let next = self.tok(self.i + 1);
        if let Some(unit) = next
            .filter(|n| n.kind == Kind::Word)
            .and_then(|n| names::unit(n.text))
        {
            self.unit(tok, unit)?;
            self.i += 2;
            return Some(Flow::Next);
        }
        let next_kind = next.map(|n| n.kind);
        if self.hour.is_none() && tok.len() <= 2 {
            if next_kind == Some(Kind::Colon) {
                self.extended_time(tok)?;
                return Some(Flow::Next);
            }
            if next.is_some_and(|n| n.kind == Kind::Word && n.text == "h") {
                self.hour = Some(tok.value()?);
                self.i += 2;
                if let Some(m) = self
                    .tok(self.i)
                    .filter(|m| m.kind == Kind::Num && m.len() == 2)
                {
                    self.minute = Some(m.value()?);
                    self.i += 1;
                }
                return Some(Flow::Next);
            }
        }
        if self.after_t && self.hour.is_none() && matches!(tok.len(), 2 | 4 | 6) {
            self.basic_time(tok)?;
            return Some(Flow::Next);
        }
        let no_date_yet = self.year.is_none()
            && self.month.is_none()
            && self.day.is_none()
            && self.ordinal.is_none()
            && self.bare_len() == 0;
        if no_date_yet {
            if tok.len() == 4
                && matches!(next_kind, Some(Kind::Minus | Kind::Slash | Kind::Dot))
                && self.tok_is(self.i + 2, Kind::Num)
            {
                self.numeric_date(tok)?;
                return Some(Flow::Next);
            }
            if tok.len() == 8 {
                let v = tok.value()?;
                self.year = Some(i32::try_from(v / 10_000).ok()?);
                self.month = Some(v / 100 % 100);
                self.day = Some(v % 100);
                self.i += 1;
                return Some(Flow::Next);
            }
            if tok.len() == 4 && self.tokens.len() == 1 {
                self.year = Some(i32::try_from(tok.value()?).ok()?);
                self.month = Some(1);
                self.day = Some(1);
                self.reduced = true;
                self.i += 1;
                return Some(Flow::Next);
            }
        }
        let slot = self.bare.iter_mut().find(|b| b.is_none())?;
        *slot = Some(tok);
        self.i += 1;
        Some(Flow::Next)
    }

    /// A number followed by a CJK unit marker.
    fn unit(&mut self, tok: Token<'a>, unit: Unit) -> Option<()> {
        let value = tok.value()?;
        let field = match unit {
            Unit::Year => {
                if self.year.is_some() {
                    return None;
                }
                self.year = Some(expand_year(tok)?);
                return Some(());
            }
            Unit::Month => &mut self.month,
            Unit::Day => &mut self.day,
            Unit::Hour => &mut self.hour,
            Unit::Minute => &mut self.minute,
            Unit::Second => &mut self.second,
        };
        if field.is_some() {
            return None;
        }
        *field = Some(value);
        Some(())
    }

    /// `H:MM`, `HH:MM:SS`, `HH:MM:SS.fff` starting at the hour.
    fn extended_time(&mut self, hour: Token<'a>) -> Option<()> {
        self.hour = Some(hour.value()?);
        let minute = self
            .tok(self.i + 2)
            .filter(|m| m.kind == Kind::Num && m.len() == 2)?;
        self.minute = Some(minute.value()?);
        self.i += 3;
        let second = self
            .tok(self.i + 1)
            .filter(|s| s.kind == Kind::Num && s.len() == 2);
        if self.tok_is(self.i, Kind::Colon)
            && let Some(second) = second
        {
            self.second = Some(second.value()?);
            self.i += 2;
            self.fraction(second)?;
        }
        Some(())
    }

    /// `HH`, `HHMM`, `HHMMSS` (ISO basic, after a `T`), with an optional fraction.
    fn basic_time(&mut self, tok: Token<'a>) -> Option<()> {
        let v = tok.value()?;
        match tok.len() {
            2 => self.hour = Some(v),
            4 => {
                self.hour = Some(v / 100);
                self.minute = Some(v % 100);
            }
            _ => {
                self.hour = Some(v / 10_000);
                self.minute = Some(v / 100 % 100);
                self.second = Some(v % 100);
            }
        }
        self.i += 1;
        if tok.len() == 6 {
            self.fraction(tok)?;
        }
        Some(())
    }

    /// An optional `.fff` or `,fff` written right after the seconds.
    fn fraction(&mut self, seconds: Token<'a>) -> Option<()> {
        let (Some(mark), Some(digits)) = (self.tok(self.i), self.tok(self.i + 1)) else {
            return Some(());
        };
        let touching =
            mark.start == seconds.start + seconds.len() && digits.start == mark.start + 1;
        if !matches!(mark.kind, Kind::Dot | Kind::Comma) || digits.kind != Kind::Num || !touching {
            return Some(());
        }
        let mut nano = 0u32;
        let mut scale = 100_000_000u32;
        for b in digits.text.bytes().take(9) {
            nano += u32::from(b.checked_sub(b'0')?) * scale;
            scale /= 10;
        }
        self.nano = nano;
        self.i += 2;
        Some(())
    }

    /// A year-first numeric date starting at the year: `YYYY-MM-DD`, `YYYY/M/D`,
    /// `YYYY.MM.DD`, `YYYY-DDD` (ordinal) or `YYYY-MM` (W3C-DTF).
    fn numeric_date(&mut self, year: Token<'a>) -> Option<()> {
        let sep = self.tok(self.i + 1)?.kind;
        let second = self.tok(self.i + 2)?;
        self.year = Some(i32::try_from(year.value()?).ok()?);
        let third = self
            .tok(self.i + 4)
            .filter(|d| self.tok_is(self.i + 3, sep) && d.kind == Kind::Num);
        match (second.len(), third) {
            (3, None) if sep == Kind::Minus => {
                self.ordinal = Some(second.value()?);
                self.i += 3;
            }
            (1 | 2, Some(day)) if day.len() <= 2 => {
                self.month = Some(second.value()?);
                self.day = Some(day.value()?);
                self.i += 5;
            }
            (2, None) if sep == Kind::Minus => {
                self.month = Some(second.value()?);
                self.day = Some(1);
                self.reduced = true;
                self.i += 3;
            }
            _ => return None,
        }
        Some(())
    }

    /// A run of letters.
    fn word(&mut self, tok: Token<'a>) -> Option<Flow> {
        match names::classify(tok.text) {
            Word::Skip | Word::Unit(_) => {}
            Word::T { .. } if self.hour.is_none() => self.after_t = true,
            Word::T { upper: true } => self.set_offset(military('T')?)?,
            Word::Letter(c) if self.hour.is_some() => self.set_offset(military(c)?)?,
            Word::T { upper: false } | Word::Letter(_) | Word::H | Word::Unknown => {
                return self.garbage(tok);
            }
            Word::Zone { minutes, utc } => {
                self.set_offset(minutes * 60)?;
                if utc {
                    self.utc_word_at = Some(self.i);
                }
            }
            Word::AmbiguousZone => return None,
            Word::TrailingMeridiem { pm } if self.hour.is_some() => self.set_pm(pm)?,
            Word::TrailingMeridiem { .. } => {}
            Word::LeadingMeridiem { pm } => self.set_pm(pm)?,
            Word::Month {
                month,
                also_weekday,
            } => {
                let weekday = also_weekday && (self.month.is_some() || self.month_follows());
                if !weekday {
                    if self.month.is_some() || self.ordinal.is_some() {
                        return None;
                    }
                    self.month = Some(month);
                }
            }
        }
        self.i += 1;
        Some(Flow::Next)
    }

    fn set_pm(&mut self, pm: bool) -> Option<()> {
        if self.pm.is_some() {
            return None;
        }
        self.pm = Some(pm);
        Some(())
    }

    /// Whether a later word names a month.
    fn month_follows(&self) -> bool {
        (self.i + 1..self.tokens.len())
            .filter_map(|at| self.tok(at))
            .filter(|t| t.kind == Kind::Word)
            .any(|t| matches!(names::classify(t.text), Word::Month { .. }))
    }

    /// Assemble the fields into an instant, checking every range.
    fn finish(&self) -> Option<DateTime<Utc>> {
        let date = self.date()?;
        if self.reduced && self.hour.is_some() {
            return None;
        }
        if (self.minute.is_some() && self.hour.is_none())
            || (self.second.is_some() && self.minute.is_none())
        {
            return None;
        }
        let mut hour = self.hour.unwrap_or(0);
        if let Some(pm) = self.pm {
            if self.hour.is_none() || !(1..=12).contains(&hour) {
                return None;
            }
            hour = match (pm, hour) {
                (false, 12) => 0,
                (true, 12) => 12,
                (true, h) => h + 12,
                (false, h) => h,
            };
        }
        let minute = self.minute.unwrap_or(0);
        let mut second = self.second.unwrap_or(0);
        if second == 60 {
            second = 59;
        }
        let (date, hour) = if hour == 24 && minute == 0 && second == 0 && self.nano == 0 {
            (date.succ_opt()?, 0)
        } else {
            (date, hour)
        };
        let time = NaiveTime::from_hms_nano_opt(hour, minute, second, self.nano)?;
        let offset = TimeDelta::try_seconds(i64::from(self.offset.unwrap_or(0)))?;
        let utc = NaiveDateTime::new(date, time).checked_sub_signed(offset)?;
        // RFC 3339 writes four-digit years only.
        (0..=9999).contains(&utc.year()).then(|| utc.and_utc())
    }

    /// The calendar date, assigning bare numbers to the day and the year.
    fn date(&self) -> Option<NaiveDate> {
        if let Some(ordinal) = self.ordinal {
            if self.bare_len() != 0 {
                return None;
            }
            return NaiveDate::from_yo_opt(self.year?, ordinal);
        }
        let month = self.month?;
        let mut bare = self.bare.iter().flatten();
        let (year, day) = match (self.year, self.day, bare.next(), bare.next()) {
            (Some(y), Some(d), None, None) => (y, d),
            (Some(y), None, Some(d), None) => (y, day_of(*d)?),
            (None, Some(d), Some(y), None) => (expand_year(*y)?, d),
            (None, None, Some(a), Some(b)) => {
                let (y, d) = match (a.len() >= 3, b.len() >= 3) {
                    (true, false) => (a, b),
                    (false, true) | (false, false) => (b, a),
                    (true, true) => return None,
                };
                (expand_year(*y)?, day_of(*d)?)
            }
            _ => return None,
        };
        NaiveDate::from_ymd_opt(year, month, day)
    }
}

/// A bare number as a day of the month: one or two digits.
fn day_of(tok: Token<'_>) -> Option<u32> {
    if tok.len() > 2 {
        return None;
    }
    tok.value()
}

/// A written year: four digits as is, three digits plus 1900 (RFC 2822 obsolete syntax),
/// two digits in 1950..=2049 (RFC 2822: below 50 is 20xx). One digit or more than four: none.
fn expand_year(tok: Token<'_>) -> Option<i32> {
    let v = i32::try_from(tok.value()?).ok()?;
    match tok.len() {
        4 => Some(v),
        3 => Some(v + 1900),
        2 if v < 50 => Some(v + 2000),
        2 => Some(v + 1900),
        _ => None,
    }
}

/// The offset in seconds of an RFC 822 military zone letter, with RFC 822's signs.
fn military(c: char) -> Option<i32> {
    let hours = match c {
        'A'..='I' => -(c as i32 - 'A' as i32 + 1),
        'K'..='M' => -(c as i32 - 'K' as i32 + 10),
        'N'..='Y' => c as i32 - 'N' as i32 + 1,
        'Z' => 0,
        _ => return None,
    };
    Some(hours * 3600)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_fast_path_agrees_with_general_reader() {
        let cases = [
            "2024-01-02T03:04:05Z",
            "2024-01-02t03:04:05z",
            "2024-01-02 03:04:05Z",
            "2024-01-02T03:04:05.123456789123+05:30",
            "2024-01-02T03:04:05.5-23:59",
            "2024-02-29T00:00:00+00:00",
            "0000-01-01T00:30:00+01:00",
            "9999-12-31T23:59:59-00:01",
        ];
        for input in cases {
            let fast = rfc3339(input.as_bytes());
            assert!(fast.is_some() || input.starts_with("0000") || input.starts_with("9999"));
            assert_eq!(fast, general(input), "{input}");
        }
        for input in [
            "2024-01-02T03:04:60Z",
            "2024-01-02T24:00:00Z",
            "2024-01-02T03:04:05.Z",
            "2024-01-02T03:04:05+0200",
            "2024-13-02T03:04:05Z",
            "2024-01-02T03:04:05+24:00",
            "2024-01-02T03:04:05Zjunk",
        ] {
            assert_eq!(rfc3339(input.as_bytes()), None, "{input}");
        }
    }

    #[test]
    fn rfc1123_fast_path_agrees_with_general_reader() {
        let cases = [
            "Tue, 02 Jan 2024 10:00:00 GMT",
            "Mon, 02 Jan 2024 10:00:00 gmt",
            "TUE,02 JAN 2024 10:00:00 UT",
            "Sat, 2 Mar 2024 23:59:59 +2359",
            "02 Sep 2024 10:00:00 -0530",
            "Wed, 31 Dec 2025 20:00:00 PDT",
            "Mon, 01 Jan 0000 00:30:00 +0100",
        ];
        for input in cases {
            let fast = rfc1123(input);
            assert!(fast.is_some() || input.contains("0000"), "{input}");
            assert_eq!(fast, general(input), "{input}");
        }
        for input in [
            "Tue, 02 Jan 2024 10:00:60 GMT",
            "Tue, 02 Jan 2024 10:00 GMT",
            "Tue, 02 Jan 24 10:00:00 GMT",
            "Tue, 02 Jan 2024 10:00:00 +02:00",
            "Tue, 02 Jan 2024 10:00:00 CET",
            "Tue, 30 Feb 2024 10:00:00 GMT",
            "Tue, 02 Jan 2024 10:00:00 +2400",
            "Tue, 02 Janv 2024 10:00:00 GMT",
            "lun, 02 Jan 2024 10:00:00 GMT",
        ] {
            assert_eq!(rfc1123(input), None, "{input}");
        }
    }

    #[test]
    fn military_letters_follow_rfc_822() {
        assert_eq!(military('A'), Some(-3600));
        assert_eq!(military('I'), Some(-9 * 3600));
        assert_eq!(military('K'), Some(-10 * 3600));
        assert_eq!(military('M'), Some(-12 * 3600));
        assert_eq!(military('N'), Some(3600));
        assert_eq!(military('Y'), Some(12 * 3600));
        assert_eq!(military('Z'), Some(0));
        assert_eq!(military('J'), None);
    }

    #[test]
    fn years_expand_by_digit_count() {
        let tokens = token::tokenize("2024 124 49 50 7").unwrap_or_else(|| unreachable!());
        let years: Vec<_> = (0..5)
            .map(|i| tokens.get(i).and_then(expand_year))
            .collect();
        assert_eq!(
            years,
            [Some(2024), Some(2024), Some(2049), Some(1950), None]
        );
    }
}
