//! Deterministic draws without state: every random choice is a hash of the seed and the ids
//! it concerns, so a host behaves the same whichever thread simulates it.

/// The splitmix64 finaliser: a good 64-bit mix of one word.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A hash of the seed, a purpose tag and two ids.
pub fn hash(seed: u64, tag: u64, a: u64, b: u64) -> u64 {
    mix(mix(mix(seed ^ tag.wrapping_mul(0xD6E8_FEB8_6659_FD93)) ^ a) ^ b)
}

/// A uniform draw in `[0, 1)` from a hash.
pub fn unit(h: u64) -> f64 {
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// A uniform draw in `[lo, hi)` from a hash (`hi > lo`).
pub fn range(h: u64, lo: u64, hi: u64) -> u64 {
    lo + h % (hi - lo).max(1)
}

/// A log-uniform draw in `[lo, hi)`.
pub fn log_range(h: u64, lo: f64, hi: f64) -> f64 {
    (lo.ln() + unit(h) * (hi.ln() - lo.ln())).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_deterministic_and_in_range() {
        assert_eq!(hash(1, 2, 3, 4), hash(1, 2, 3, 4));
        assert_ne!(hash(1, 2, 3, 4), hash(2, 2, 3, 4));
        for i in 0..10_000 {
            let u = unit(hash(7, 0, i, 0));
            assert!((0.0..1.0).contains(&u));
            let r = range(hash(7, 1, i, 0), 50, 500);
            assert!((50..500).contains(&r));
            let l = log_range(hash(7, 2, i, 0), 300.0, 1_209_600.0);
            assert!((300.0..1_209_601.0).contains(&l));
        }
    }
}
