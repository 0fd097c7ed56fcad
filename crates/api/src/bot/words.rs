//! Numbers in words for the bot page: durations, sizes and counts in each language, and HTML
//! escaping. Everything here is pure and total: any `u64` or finite `f64` has a rendering.

use super::lang::Lang;

pub use crate::escape::text as esc;

/// Units of time, largest first, with their length in seconds.
const UNITS: [(u64, Unit); 4] = [
    (86_400, Unit::Day),
    (3600, Unit::Hour),
    (60, Unit::Minute),
    (1, Unit::Second),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Day,
    Hour,
    Minute,
    Second,
}

fn unit_name(lang: Lang, unit: Unit, plural: bool) -> &'static str {
    match (lang, unit, plural) {
        (Lang::En, Unit::Day, false) => "day",
        (Lang::En, Unit::Day, true) => "days",
        (Lang::En, Unit::Hour, false) => "hour",
        (Lang::En, Unit::Hour, true) => "hours",
        (Lang::En, Unit::Minute, false) => "minute",
        (Lang::En, Unit::Minute, true) => "minutes",
        (Lang::En, Unit::Second, false) => "second",
        (Lang::En, Unit::Second, true) => "seconds",
        (Lang::Fr, Unit::Day, false) => "jour",
        (Lang::Fr, Unit::Day, true) => "jours",
        (Lang::Fr, Unit::Hour, false) => "heure",
        (Lang::Fr, Unit::Hour, true) => "heures",
        (Lang::Fr, Unit::Minute, false) => "minute",
        (Lang::Fr, Unit::Minute, true) => "minutes",
        (Lang::Fr, Unit::Second, false) => "seconde",
        (Lang::Fr, Unit::Second, true) => "secondes",
        (Lang::Pt, Unit::Day, false) => "dia",
        (Lang::Pt, Unit::Day, true) => "dias",
        (Lang::Pt, Unit::Hour, false) => "hora",
        (Lang::Pt, Unit::Hour, true) => "horas",
        (Lang::Pt, Unit::Minute, false) => "minuto",
        (Lang::Pt, Unit::Minute, true) => "minutos",
        (Lang::Pt, Unit::Second, false) => "segundo",
        (Lang::Pt, Unit::Second, true) => "segundos",
    }
}

/// The word for "and" between the last two items of a list.
fn and(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "and",
        Lang::Fr => "et",
        Lang::Pt => "e",
    }
}

/// The word for "or" between the last two items of a list.
fn or(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "or",
        Lang::Fr | Lang::Pt => "ou",
    }
}

fn join_last(items: &[String], word: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} {word} {last}", init.join(", ")),
    }
}

/// "a, b and c" in the page's language.
pub fn join_and(lang: Lang, items: &[String]) -> String {
    join_last(items, and(lang))
}

/// "a, b or c" in the page's language.
pub fn join_or(lang: Lang, items: &[String]) -> String {
    join_last(items, or(lang))
}

/// The text with its first letter in upper case.
pub fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A whole number of seconds in words: "1 hour", "1 hour 30 minutes", "2 days".
pub fn duration(lang: Lang, secs: u64) -> String {
    if secs == 0 {
        return format!("0 {}", unit_name(lang, Unit::Second, lang != Lang::Fr));
    }
    let mut rest = secs;
    let mut parts = Vec::new();
    for (len, unit) in UNITS {
        let n = rest / len;
        rest %= len;
        if n > 0 {
            parts.push(format!(
                "{} {}",
                count(lang, n),
                unit_name(lang, unit, n > 1)
            ));
        }
    }
    // "1 hour 20 minutes" reads well in English and French, and keeps lists of durations
    // unambiguous; Portuguese says "1 hora e 20 minutos".
    match lang {
        Lang::En | Lang::Fr => parts.join(" "),
        Lang::Pt => join_and(lang, &parts),
    }
}

/// Seconds that may have a fraction (the host gap): whole ones as [`duration`], others as a
/// decimal number of seconds ("0.5 seconds", « 1,5 seconde »).
pub fn seconds_f64(lang: Lang, secs: f64) -> String {
    if secs.fract() == 0.0 && (0.0..=u64::MAX as f64).contains(&secs) {
        return duration(lang, secs as u64);
    }
    let text = format!("{}", (secs * 1000.0).round() / 1000.0);
    let text = match lang {
        Lang::En => text,
        Lang::Fr | Lang::Pt => text.replace('.', ","),
    };
    // French keeps the singular below 2; English and Portuguese use the plural for fractions.
    let plural = match lang {
        Lang::Fr => secs >= 2.0,
        Lang::En | Lang::Pt => true,
    };
    format!("{text} {}", unit_name(lang, Unit::Second, plural))
}

/// A whole number with the language's thousands separator: 10,485,760 / 10 485 760 / 10.485.760.
pub fn count(lang: Lang, n: u64) -> String {
    let sep = match lang {
        Lang::En => ",",
        Lang::Fr => "\u{202f}",
        Lang::Pt => ".",
    };
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 * sep.len());
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push_str(sep);
        }
        out.push(c);
    }
    out
}

/// A size in bytes: "10 MiB (10,485,760 bytes)", or the bytes alone when no binary unit fits.
pub fn bytes(lang: Lang, n: u64) -> String {
    let (mib, kib, word) = match lang {
        Lang::En => ("MiB", "KiB", if n == 1 { "byte" } else { "bytes" }),
        Lang::Fr => ("Mio", "Kio", if n < 2 { "octet" } else { "octets" }),
        Lang::Pt => ("MiB", "KiB", if n == 1 { "byte" } else { "bytes" }),
    };
    let exact = format!("{} {word}", count(lang, n));
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} {mib} ({exact})", count(lang, n >> 20))
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{} {kib} ({exact})", count(lang, n >> 10))
    } else {
        exact
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_words() {
        let rows: &[(Lang, u64, &str)] = &[
            (Lang::En, 3600, "1 hour"),
            (Lang::En, 900, "15 minutes"),
            (Lang::En, 5400, "1 hour 30 minutes"),
            (Lang::En, 90_061, "1 day 1 hour 1 minute 1 second"),
            (Lang::En, 2_592_000, "30 days"),
            (Lang::En, 0, "0 seconds"),
            (Lang::Fr, 3600, "1 heure"),
            (Lang::Fr, 5400, "1 heure 30 minutes"),
            (Lang::Fr, 172_800, "2 jours"),
            (Lang::Fr, 0, "0 seconde"),
            (Lang::Pt, 900, "15 minutos"),
            (Lang::Pt, 86_400, "1 dia"),
            (Lang::Pt, 21_600, "6 horas"),
            (Lang::Pt, 4800, "1 hora e 20 minutos"),
            (Lang::Pt, 90_060, "1 dia, 1 hora e 1 minuto"),
        ];
        for &(lang, secs, want) in rows {
            assert_eq!(duration(lang, secs), want, "{lang:?} {secs}");
        }
    }

    #[test]
    fn fractional_seconds_use_the_decimal_comma_where_it_is_used() {
        assert_eq!(seconds_f64(Lang::En, 0.5), "0.5 seconds");
        assert_eq!(seconds_f64(Lang::Fr, 1.5), "1,5 seconde");
        assert_eq!(seconds_f64(Lang::Pt, 2.25), "2,25 segundos");
        assert_eq!(seconds_f64(Lang::En, 2.0), "2 seconds");
        assert_eq!(seconds_f64(Lang::Fr, 1.0), "1 seconde");
    }

    #[test]
    fn counts_and_sizes_group_digits() {
        assert_eq!(count(Lang::En, 10_485_760), "10,485,760");
        assert_eq!(count(Lang::Fr, 1000), "1\u{202f}000");
        assert_eq!(count(Lang::Pt, 999), "999");
        assert_eq!(
            bytes(Lang::En, 10 * 1024 * 1024),
            "10 MiB (10,485,760 bytes)"
        );
        assert_eq!(bytes(Lang::Fr, 2048), "2 Kio (2\u{202f}048 octets)");
        assert_eq!(bytes(Lang::Pt, 1000), "1.000 bytes");
    }

    #[test]
    fn lists_and_capitals() {
        let items = ["a".to_string(), "b".to_string(), "c".to_string()];
        assert_eq!(join_and(Lang::En, &items), "a, b and c");
        assert_eq!(join_or(Lang::Fr, &items[..2]), "a ou b");
        assert_eq!(join_or(Lang::Pt, &items[..1]), "a");
        assert_eq!(capitalized("une page"), "Une page");
        assert_eq!(capitalized("éte"), "Éte");
        assert_eq!(capitalized(""), "");
    }

    #[test]
    fn escaping_covers_markup_and_quotes() {
        assert_eq!(
            esc(r#"<script>alert("x")</script> & 'y'"#),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;"
        );
    }
}
