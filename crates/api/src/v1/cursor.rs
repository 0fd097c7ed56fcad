//! The cursor of entry pages: opaque to clients, it names the last entry of a page by its
//! position in the listing (sort time, then id), so the next page starts strictly after it
//! however many entries arrived meanwhile (keyset pagination, never an offset).
//!
//! Encoding: a version byte, then the sort time in microseconds and the entry id, both as
//! big-endian `i64`, all as lower-case hex. Anything else is refused as a 400.

use crate::problem::Problem;
use chrono::DateTime;
use tidings_store::EntryCursor;

const VERSION: u8 = 1;
const LEN: usize = 1 + 8 + 8;

/// A decoded cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor(pub EntryCursor);

impl Cursor {
    pub fn encode(&self) -> String {
        let mut bytes = Vec::with_capacity(LEN);
        bytes.push(VERSION);
        bytes.extend_from_slice(&self.0.sort_at.timestamp_micros().to_be_bytes());
        bytes.extend_from_slice(&self.0.id.to_be_bytes());
        hex::encode(bytes)
    }

    pub fn decode(text: &str) -> Result<Cursor, Problem> {
        let invalid = || {
            Problem::invalid(
                "cursor",
                "the cursor is not one this API gave out; pass `next_cursor` from the previous page unchanged",
            )
        };
        let bytes = hex::decode(text).map_err(|_| invalid())?;
        let [version, rest @ ..] = bytes.as_slice() else {
            return Err(invalid());
        };
        if *version != VERSION || rest.len() != LEN - 1 {
            return Err(invalid());
        }
        let (micros, id) = rest.split_at(8);
        let micros = i64::from_be_bytes(micros.try_into().map_err(|_| invalid())?);
        let id = i64::from_be_bytes(id.try_into().map_err(|_| invalid())?);
        let sort_at = DateTime::from_timestamp_micros(micros).ok_or_else(invalid)?;
        if id <= 0 {
            return Err(invalid());
        }
        Ok(Cursor(EntryCursor { sort_at, id }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn cursors_round_trip() {
        let at = chrono::Utc
            .timestamp_micros(1_780_000_000_123_456)
            .single()
            .unwrap();
        let cursor = Cursor(EntryCursor {
            sort_at: at,
            id: 42,
        });
        let text = cursor.encode();
        assert_eq!(text.len(), 2 * LEN);
        assert_eq!(Cursor::decode(&text).unwrap(), cursor);
    }

    #[test]
    fn foreign_cursors_are_400s() {
        let good = Cursor(EntryCursor {
            sort_at: chrono::DateTime::UNIX_EPOCH,
            id: 1,
        })
        .encode();
        let wrong_version = format!("02{}", &good[2..]);
        let zero_id = format!("{}{}", &good[..18], "0".repeat(16));
        for bad in [
            "",
            "zz",
            "abc",
            &good[..good.len() - 2],
            &format!("{good}00"),
            &wrong_version,
            &zero_id,
            "017fffffffffffffff0000000000000001",
        ] {
            let problem = Cursor::decode(bad).unwrap_err();
            assert_eq!(problem.parameter, Some("cursor"), "{bad}");
        }
    }
}
