//! HTML named character references, which feeds use inside XML (`&eacute;`, `&nbsp;`, ...).
//!
//! XML knows only five named entities, but feeds written by HTML tools are full of HTML's.
//! [`lookup`] resolves a name (without `&` and `;`) against the complete HTML5 list (2,125
//! names), which includes the 252 of HTML 4.01 and the legacy ones browsers accept without
//! `;`. Names are case-sensitive, as in HTML (`Eacute` is not `eacute`).
//!
//! The table is a generated data file (`entities/table.rs`, which quotes the script that
//! remakes it): the names sorted, plus an open-addressing hash index over them (FNV-1a,
//! linear probing, at most 12 extra slots). A lookup hashes the name and
//! compares it with one or two candidates: no allocation, no start-up cost, no dependency.

mod table;

use table::{EMPTY, ENTITIES, MAX_PROBES, SLOT_COUNT, SLOTS};

/// The longest name in the HTML5 list (`CounterClockwiseContourIntegral`) has 31 bytes.
const MAX_NAME_LEN: usize = 31;

/// The replacement text of an HTML named entity (without `&` and `;`), if it is one.
pub fn lookup(name: &str) -> Option<&'static str> {
    if name.is_empty() || name.len() > MAX_NAME_LEN {
        return None;
    }
    let mut slot = home_slot(name);
    for _ in 0..=MAX_PROBES {
        let index = *SLOTS.get(slot)?;
        if index == EMPTY {
            return None;
        }
        if let Some((key, value)) = ENTITIES.get(usize::from(index))
            && *key == name
        {
            return Some(value);
        }
        slot = (slot + 1) % SLOT_COUNT;
    }
    None
}

/// FNV-1a (32 bits) of the name, modulo the slot count: the same function as the generator's.
fn home_slot(name: &str) -> usize {
    let hash = name.bytes().fold(0x811C_9DC5_u32, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    });
    hash as usize % SLOT_COUNT
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_in_the_table_is_found_through_the_index() {
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
        let used = SLOTS.iter().filter(|&&s| s != EMPTY).count();
        assert_eq!(used, ENTITIES.len(), "each name has exactly one slot");
    }
}
