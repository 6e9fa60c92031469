//! A stable 64-bit hash of byte strings. **Part of the table format**: the
//! bloom filter stores bits at positions derived from it, so changing any
//! constant or step below makes existing filters answer wrongly. The golden
//! values in the tests pin it.
//!
//! Construction: the seed, xored with a constant, plus the length times an
//! odd constant starts the state (so inputs that differ only in trailing zero
//! bytes hash apart, and the empty input does not hash to 0); each 8-byte
//! little-endian word is multiplied, rotated and multiplied again before it
//! is folded into the state, which is then rotated, multiplied and offset;
//! a final 0–7 byte tail is zero-padded to a word and folded the same way; a
//! final xor-shift-multiply avalanche spreads every input bit over all output
//! bits. The multipliers are odd 64-bit constants with well-mixed bits.

const K1: u64 = 0x9e37_79b9_7f4a_7c15;
const K2: u64 = 0xc2b2_ae3d_27d4_eb4f;
const K3: u64 = 0x1656_67b1_9e37_79f9;

#[inline]
fn scramble(w: u64) -> u64 {
    w.wrapping_mul(K2).rotate_left(31).wrapping_mul(K1)
}

#[inline]
fn avalanche(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// Hashes `data` with `seed`. Stable across platforms and releases (see the
/// module docs).
pub fn hash64(data: &[u8], seed: u64) -> u64 {
    let mut h = (seed ^ K3).wrapping_add((data.len() as u64).wrapping_mul(K1));
    let mut words = data.chunks_exact(8);
    for w in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        h = (h ^ scramble(u64::from_le_bytes(b)))
            .rotate_left(27)
            .wrapping_mul(K1)
            .wrapping_add(K3);
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        let mut b = [0u8; 8];
        b[..tail.len()].copy_from_slice(tail);
        h = (h ^ scramble(u64::from_le_bytes(b)))
            .rotate_left(23)
            .wrapping_mul(K2);
    }
    avalanche(h)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn golden_values_pin_the_format() {
        let got: Vec<u64> = [
            &b""[..],
            b"a",
            b"a\0",
            b"talus",
            b"12345678",
            b"123456789",
            b"the quick brown fox jumps over the lazy dog",
        ]
        .iter()
        .map(|d| hash64(d, 0))
        .collect();
        assert_eq!(got, GOLDEN);
        assert_ne!(hash64(b"talus", 0), hash64(b"talus", 1));
    }

    /// Computed independently from the description in the module docs.
    const GOLDEN: [u64; 7] = [
        17622645311363874476,
        7235964489880815813,
        4211342155965450204,
        13500267000668134864,
        989218278640111265,
        3322384158445443395,
        14788244402389075178,
    ];

    #[test]
    fn distinct_and_balanced_over_many_keys() {
        let mut seen = HashSet::new();
        let mut ones = [0u32; 64];
        let n = 200_000u32;
        for i in 0..n {
            let h = hash64(format!("key{i:08}").as_bytes(), 0);
            assert!(seen.insert(h), "collision at {i}");
            for (b, c) in ones.iter_mut().enumerate() {
                *c += ((h >> b) & 1) as u32;
            }
        }
        for (b, c) in ones.iter().enumerate() {
            let frac = f64::from(*c) / f64::from(n);
            assert!((0.49..0.51).contains(&frac), "bit {b} set in {frac}");
        }
    }

    #[test]
    fn one_bit_changes_flip_about_half_the_output() {
        let base = *b"0123456789abcdef0123";
        let h0 = hash64(&base, 0);
        for byte in 0..base.len() {
            for bit in 0..8 {
                let mut m = base;
                m[byte] ^= 1 << bit;
                let d = (hash64(&m, 0) ^ h0).count_ones();
                assert!((12..=52).contains(&d), "byte {byte} bit {bit}: {d}");
            }
        }
    }
}
