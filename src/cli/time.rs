//! Times typed on the command line.

use anyhow::{Result, bail};
use chrono::{DateTime, Duration, NaiveDate, Utc};

/// RFC 3339, a date (midnight UTC), or an age before `now` (`90m`, `24h`, `7d`, `2w`).
pub fn parse_since(input: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>> {
    let s = input.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Ok(t.with_timezone(&Utc));
    }
    if let Ok(d) = NaiveDate::parse_from_str(s, "%Y-%m-%d")
        && let Some(t) = d.and_hms_opt(0, 0, 0)
    {
        return Ok(t.and_utc());
    }
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (n, unit) = s.split_at(split);
    let unit_secs = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 604_800,
        _ => 0,
    };
    match n.parse::<i64>() {
        Ok(n) if unit_secs > 0 && n <= 100 * 365 * 86_400 / unit_secs => {
            Ok(now - Duration::seconds(n * unit_secs))
        }
        _ => bail!(
            "cannot read {input:?} as a time: use RFC 3339, YYYY-MM-DD or an age like 24h or 7d"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_accepts_times_dates_and_ages() {
        let now: DateTime<Utc> = "2030-06-15T12:00:00Z".parse().unwrap();
        let cases = [
            ("2030-06-01T00:00:00+02:00", "2030-05-31T22:00:00Z"),
            ("2030-06-01", "2030-06-01T00:00:00Z"),
            ("90m", "2030-06-15T10:30:00Z"),
            ("24h", "2030-06-14T12:00:00Z"),
            ("7d", "2030-06-08T12:00:00Z"),
            ("1w", "2030-06-08T12:00:00Z"),
        ];
        for (input, want) in cases {
            let want: DateTime<Utc> = want.parse().unwrap();
            assert_eq!(parse_since(input, now).unwrap(), want, "{input}");
        }
        for bad in ["yesterday", "7y", "", "-3d", "99999999999999d"] {
            assert!(parse_since(bad, now).is_err(), "{bad}");
        }
    }
}
