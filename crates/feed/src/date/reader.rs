//! The general reader: the tokens of a date assigned one by one to its fields (year, month,
//! day, time, zone), then checked and assembled. Every family the fast paths do not take
//! ends here.

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};

use super::names::{self, Unit, Word};
use super::to_utc;
use super::token::{self, Kind, Token, Tokens};

/// The general reader: tokenize, assign every token to a field, check and assemble.
pub(super) fn read(input: &str) -> Option<DateTime<Utc>> {
    let tokens = token::tokenize(input)?;
    let mut reader = Reader::new(input, &tokens);
    reader.run()?;
    reader.finish()
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
    /// The offset is a North American zone's standard one, and daylight time is read off the
    /// date (ET, CT, MT, PT, AT).
    north_american: bool,
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
            north_american: false,
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
        // The digits of a zone touch their sign: `- 3` is a separator and a number.
        let next_is_num = self
            .tok(self.i + 1)
            .is_some_and(|n| n.kind == Kind::Num && n.start == tok.start + 1);
        let refines_utc = self
            .i
            .checked_sub(1)
            .is_some_and(|prev| self.utc_word_at == Some(prev));
        // A zone right after a date-only ISO date is XML Schema's `2024-01-02+02:00`: the
        // colon form only, so `2013-01-27-01` stays unread.
        let after_numeric_date = (self.ordinal.is_some()
            || (self.year.is_some() && self.day.is_some()))
            && self.adjacent_to_previous(tok)
            && self.tok_is(self.i + 2, Kind::Colon);
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
            // A plus is never a separator, and `-02:00` where no zone may stand is not a time.
            let zone_like = next_is_num && self.tok_is(self.i + 2, Kind::Colon);
            if tok.kind == Kind::Plus || zone_like {
                return None;
            }
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
            // ISO 8601 basic ordinal date, `YYYYDDD`: seven digits are no other form.
            if tok.len() == 7 {
                let v = tok.value()?;
                self.year = Some(i32::try_from(v / 1_000).ok()?);
                self.ordinal = Some(v % 1_000);
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
            // `2003-012-31`: a month padded to three digits, a known publisher quirk.
            (1 | 2, Some(day)) | (3, Some(day))
                if day.len() <= 2 && (second.len() < 3 || second.text.starts_with('0')) =>
            {
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
        if let Some(pm) = self.dotted_meridiem(tok) {
            self.set_pm(pm)?;
            self.i += 3;
            return Some(Flow::Next);
        }
        match names::classify(tok.text) {
            // "at" joins a date to its time; after the time it is Atlantic time.
            Word::Skip if self.hour.is_some() && tok.text.eq_ignore_ascii_case("at") => {
                self.set_offset(names::ATLANTIC * 60)?;
                self.north_american = true;
            }
            Word::NorthAmerican { standard } => {
                self.set_offset(standard * 60)?;
                self.north_american = true;
            }
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

    /// `a.m.` or `p.m.` after the time: whether it is PM.
    fn dotted_meridiem(&self, tok: Token<'a>) -> Option<bool> {
        let pm = match tok.text {
            "a" | "A" => false,
            "p" | "P" => true,
            _ => return None,
        };
        let m = self.tok(self.i + 2)?;
        let dotted = self.tok_is(self.i + 1, Kind::Dot) && m.text.eq_ignore_ascii_case("m");
        (self.hour.is_some() && dotted).then_some(pm)
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
        let local = NaiveDateTime::new(date, time);
        let mut offset = self.offset.unwrap_or(0);
        if self.north_american && us_daylight_time(local) {
            offset += 3600;
        }
        to_utc(local, offset)
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

/// Whether `local`, a wall-clock time in a North American zone, falls in US daylight-saving
/// time: from 2007 the second Sunday of March to the first Sunday of November, from 1987 the
/// first Sunday of April to the last Sunday of October, from 1967 the last Sundays of April and
/// October, each from 02:00 local time; never before 1967. In the hour a change repeats, the
/// daylight reading is taken.
fn us_daylight_time(local: NaiveDateTime) -> bool {
    use chrono::{Datelike, Weekday};
    let year = local.year();
    let sunday =
        |month: u32, nth: u8| NaiveDate::from_weekday_of_month_opt(year, month, Weekday::Sun, nth);
    let last_sunday = |month: u32| {
        let next = if month == 12 {
            NaiveDate::from_ymd_opt(year + 1, 1, 1)
        } else {
            NaiveDate::from_ymd_opt(year, month + 1, 1)
        }?;
        let last = next.pred_opt()?;
        let back = last.weekday().num_days_from_sunday();
        last.checked_sub_days(chrono::Days::new(u64::from(back)))
    };
    let (start, end) = match year {
        2007.. => (sunday(3, 2), sunday(11, 1)),
        1987..=2006 => (sunday(4, 1), last_sunday(10)),
        1967..=1986 => (last_sunday(4), last_sunday(10)),
        _ => return false,
    };
    let (Some(start), Some(end)) = (start, end) else {
        return false;
    };
    let two = NaiveTime::from_hms_opt(2, 0, 0).unwrap_or_default();
    local >= start.and_time(two) && local < end.and_time(two)
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
