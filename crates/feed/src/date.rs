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
//! | RFC 850 | `Tuesday, 02-Jan-24 10:00:00 GMT` |
//! | RFC 2822 obsolete three-digit year | `Tue, 02 Jan 124 10:00:00 GMT` (= 2024: year + 1900) |
//! | Month first, ordinal suffix, 12-hour clock | `January 2nd, 2024 10:00 AM` (also `a.m.`) |
//! | Day-month-year with dashes | `02-Jan-2024 10:00:00 +0000` |
//! | RFC 3339 | `2024-01-02T03:04:05.123+02:00` |
//! | ISO 8601 extended variants | `2024-01-02 03:04:05 +0200`, `2024-01-02t03:04:05z`, `2024-01-02T03:04` |
//! | ISO 8601 with a zero-padded month (a publisher quirk) | `2024-001-02T10:00:00Z` |
//! | XML Schema date with offset | `2024-01-02+02:00` |
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
//! a weekday (Spanish "mar") is the weekday when a month was already read or another month
//! name follows, else the month.
//!
//! Two-digit years follow RFC 2822: below 50 is 20xx, else 19xx (feedparser pivots at 90
//! instead, so `75` is 1975 here and 2075 there).
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
//! - ambiguous zone names: IST (India, Ireland or Israel), the season-less US names ET, CT,
//!   MT, PT, and AT after a time; an offset beyond ±23:59;
//! - all-numeric day-month orders (`01/02/2024`: US or European?) and two-digit years in a
//!   numeric date (`24-01-02`); only year-first numeric dates are read;
//! - bare integers such as Unix timestamps (`1704160800`): nothing says they are seconds, and
//!   feedparser does not read them either; eight digits are the ISO basic date `YYYYMMDD`;
//! - ISO week dates (`2024-W01-2`) and feedparser's dates relative to the current year
//!   (`--01-02`): the first is rare in feeds, the second needs a clock;
//! - a minute or second not written with two digits (`9:5:00`); a year of one digit; a date
//!   without a year or without a day (`January 2024`), except the W3C-DTF `2024-01` and `2024`;
//! - a numeric zone whose digits do not touch the sign (`10:00 - 3 comments`), an offset
//!   where none may stand (`2024-01-02 +02:00`, `2013-01-27-01`, a second offset), any other
//!   `+`;
//! - unknown words, except trailing ones once the date is complete and no digit follows them
//!   (`… +0000 Europe/Paris`), and only when the zone is already known or no time was given:
//!   an unknown word after a zone-less time may be the zone.

// Inside: `fast` (strict RFC 3339 and RFC 1123 at fixed positions), then `reader` (every
// other family, over the tokens of `token` and the words of `names`).
mod fast;
mod names;
mod reader;
mod token;

use chrono::{DateTime, Datelike, NaiveDateTime, TimeDelta, Utc};

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
    let input = crate::text::trim(input);
    if input.is_empty() {
        return None;
    }
    fast::rfc3339(input.as_bytes())
        .or_else(|| fast::rfc1123(input))
        .or_else(|| reader::read(input))
}

/// The instant `local` names at `offset` seconds east of UTC, if its UTC year has the four
/// digits RFC 3339 can write.
fn to_utc(local: NaiveDateTime, offset: i32) -> Option<DateTime<Utc>> {
    let utc = local.checked_sub_signed(TimeDelta::try_seconds(i64::from(offset))?)?;
    (0..=9999).contains(&utc.year()).then(|| utc.and_utc())
}
