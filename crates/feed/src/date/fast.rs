//! Fast paths for the two forms most feeds use, strict RFC 3339 and RFC 1123. Each reads
//! bytes at fixed positions and gives up (`None`) on anything unusual, which then goes to the
//! general reader; a unit test checks both read the same instant.

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};

use super::names::{self, Word};
use super::to_utc;

/// The fast path for the RFC 1123 form RSS uses (`Tue, 02 Jan 2024 10:00:00 GMT`, optional
/// weekday, one- or two-digit day, English month abbreviation, four-digit year, seconds, a
/// common zone name or `±hhmm`). `None` sends the input to [`super::reader::read`], which reads the same
/// instant (a unit test checks).
pub(super) fn rfc1123(s: &str) -> Option<DateTime<Utc>> {
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
    to_utc(NaiveDateTime::new(date, time), offset)
}

/// The fast path for strict RFC 3339 (`2024-01-02T03:04:05.123+02:00`, `T` or space, `Z`,
/// offset or no zone), the most common form by far. `None` sends the input to [`super::reader::read`], which reads
/// the same instant (a unit test checks): this path only skips the tokenizer.
pub(super) fn rfc3339(b: &[u8]) -> Option<DateTime<Utc>> {
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
    let offset = match at(i) {
        // No zone: UTC, as the general reader has it.
        None => 0,
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if i + 6 == b.len() && at(i + 3) == Some(b':') => {
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
    to_utc(NaiveDateTime::new(date, time), offset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::date::reader::read as general;

    #[test]
    fn rfc3339_fast_path_agrees_with_general_reader() {
        let cases = [
            "2024-01-02T03:04:05Z",
            "2024-01-02t03:04:05z",
            "2024-01-02 03:04:05Z",
            "2024-01-02 03:04:05",
            "2024-01-02T03:04:05.25",
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
}
