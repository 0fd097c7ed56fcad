//! HTML named character references, which feeds use inside XML (`&eacute;`, `&nbsp;`, ...).
//!
//! XML knows only five named entities, but feeds written by HTML tools are full of HTML's.
//! [`lookup`] resolves a name (without `&` and `;`) against the complete HTML5 list, which
//! includes the HTML 4.01 names and the legacy ones browsers accept without `;`. Names are
//! case-sensitive, as in HTML (`Eacute` is not `eacute`). The table lives in a generated,
//! sorted data file (see `entities/table.rs` for the command that remakes it) and is searched
//! by binary search: no allocation, no start-up cost, about a dozen comparisons per lookup.

mod table;

use table::ENTITIES;

/// The longest name in the HTML5 list (`CounterClockwiseContourIntegral`) has 31 bytes.
const MAX_NAME_LEN: usize = 31;

/// The replacement text of an HTML named entity (without `&` and `;`), if it is one.
pub fn lookup(name: &str) -> Option<&'static str> {
    if name.is_empty() || name.len() > MAX_NAME_LEN {
        return None;
    }
    ENTITIES
        .binary_search_by(|(key, _)| key.as_bytes().cmp(name.as_bytes()))
        .ok()
        .and_then(|i| ENTITIES.get(i))
        .map(|(_, value)| *value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_strictly_sorted_so_binary_search_finds_every_name() {
        for pair in ENTITIES.windows(2) {
            if let [(a, _), (b, _)] = pair {
                assert!(a.as_bytes() < b.as_bytes(), "{a:?} is not before {b:?}");
            }
        }
        for (name, value) in ENTITIES {
            assert!(
                name.len() <= MAX_NAME_LEN,
                "{name:?} is longer than MAX_NAME_LEN"
            );
            assert_eq!(lookup(name), Some(*value), "lookup({name:?})");
        }
        assert_eq!(ENTITIES.len(), 2125);
    }
}
