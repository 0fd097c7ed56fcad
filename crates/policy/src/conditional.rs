//! What a feed request sends: the stored validators, exactly as received (C4).

use tidings_model::Validators;

/// The validators to echo on the next read of a feed: the stored ones, untouched. A feed that
/// was never fetched has none, so only its first read is unconditional.
pub fn request_validators(stored: &Validators) -> &Validators {
    stored
}

/// The validators to store after a 304: a validator the 304 repeats or changes replaces the
/// stored one; one it omits is kept (RFC 9111 4.3.4 updates stored headers from a 304).
/// `None` when that leaves the stored ones as they are (the usual 304, which repeats them):
/// nothing to write.
pub fn after_not_modified(stored: &Validators, sent: &Validators) -> Option<Validators> {
    let changes = |new: &Option<String>, old: &Option<String>| new.is_some() && new != old;
    if !changes(&sent.etag, &stored.etag) && !changes(&sent.last_modified, &stored.last_modified) {
        return None;
    }
    Some(Validators {
        etag: sent.etag.clone().or_else(|| stored.etag.clone()),
        last_modified: sent
            .last_modified
            .clone()
            .or_else(|| stored.last_modified.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(etag: Option<&str>, lm: Option<&str>) -> Validators {
        Validators {
            etag: etag.map(String::from),
            last_modified: lm.map(String::from),
        }
    }

    #[test]
    fn c4_stored_validators_are_echoed_byte_for_byte() {
        let stored = v(Some("W/\"a b\""), Some("Tue, 01 Jan 2030 00:00:00 GMT"));
        assert_eq!(request_validators(&stored), &stored);
        assert_eq!(
            request_validators(&Validators::default()),
            &Validators::default()
        );
    }

    #[test]
    fn c4_a_304_updates_what_it_sends_and_keeps_the_rest() {
        let stored = v(Some("\"1\""), Some("Mon, 01 Jan 2029 00:00:00 GMT"));
        let cases = [
            // Nothing sent, or only what is stored: the stored ones stay, nothing to write.
            (v(None, None), None),
            (v(Some("\"1\""), None), None),
            (stored.clone(), None),
            (
                v(Some("\"2\""), None),
                Some(v(Some("\"2\""), Some("Mon, 01 Jan 2029 00:00:00 GMT"))),
            ),
            (v(None, Some("x")), Some(v(Some("\"1\""), Some("x")))),
            (
                v(Some("\"1\""), Some("x")),
                Some(v(Some("\"1\""), Some("x"))),
            ),
        ];
        for (sent, want) in cases {
            assert_eq!(after_not_modified(&stored, &sent), want, "{sent:?}");
        }
    }
}
