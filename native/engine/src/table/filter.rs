//! The table's bloom filter: [`FilterBuilder`] and [`BloomFilter`].
//!
//! One filter holds whole user keys, key prefixes, or both (what a table's
//! filter holds is recorded in its properties, `properties.rs`): a prefix
//! is added as if it were a key, so the format below does not depend on it.
//!
//! Format of a filter block (**part of the table format**):
//!
//! ```text
//! +-----------------------------+------------------+-------------------+
//! | bit array (m / 8 bytes)     | num_probes: u8   | scheme: u8 (= 1)  |
//! +-----------------------------+------------------+-------------------+
//! ```
//!
//! Scheme 1 ("double-hashed bloom"): for a user key, `h = hash64(key,
//! FILTER_SEED)` ([`super::hash`]), `delta = h.rotate_left(32)`, and probe
//! `i` (for `i` in `0..num_probes`) sets or tests bit
//! `x_i * m / 2^64` (the high half of the 128-bit product), where
//! `x_i = h + i·delta (mod 2^64)`. Bit `b` is bit `b % 8` (LSB first) of byte
//! `b / 8`.
//!
//! Sizing: `m = max(64, ceil(n × bits_per_key))` rounded up to whole bytes;
//! `num_probes = round(bits_per_key × ln 2)` clamped to `[1, 30]`. The false
//! positive rate is then close to the ideal `(1 − e^(−k·n/m))^k` (the test
//! measures it).

use super::hash::hash64;
use crate::error::{Error, Result};

/// Seed of the filter hash (part of the format).
pub const FILTER_SEED: u64 = 0x7461_6c75_735f_626c; // "talus_bl"
/// Scheme byte of a double-hashed bloom filter.
pub const SCHEME_BLOOM_V1: u8 = 1;
/// Smallest bit array.
const MIN_BITS: u64 = 64;
/// Bits per key above this buy nothing measurable; larger requests are clamped.
pub const MAX_BITS_PER_KEY: f64 = 100.0;
/// Largest number of probes.
pub const MAX_PROBES: u32 = 30;

/// Probes per key for `bits_per_key`.
pub fn num_probes(bits_per_key: f64) -> u32 {
    let k = (bits_per_key * std::f64::consts::LN_2).round();
    if k.is_nan() || k < 1.0 {
        1
    } else {
        (k as u32).min(MAX_PROBES)
    }
}

#[inline]
fn probe_positions(h: u64, num_bits: u64, k: u32) -> impl Iterator<Item = u64> {
    let delta = h.rotate_left(32);
    (0..u64::from(k)).map(move |i| {
        let x = h.wrapping_add(i.wrapping_mul(delta));
        ((u128::from(x) * u128::from(num_bits)) >> 64) as u64
    })
}

/// Collects key hashes while a table is written and builds the filter at the
/// end, when the number of keys is known.
#[derive(Debug)]
pub struct FilterBuilder {
    bits_per_key: f64,
    hashes: Vec<u64>,
    /// Hash of the last whole key added, to count repeats once.
    last_key: Option<u64>,
    /// Hash of the last prefix added, to count repeats once.
    last_prefix: Option<u64>,
}

impl FilterBuilder {
    /// A builder for filters of `bits_per_key` bits per distinct key
    /// (clamped to `[0, MAX_BITS_PER_KEY]`).
    pub fn new(bits_per_key: f64) -> Self {
        FilterBuilder {
            bits_per_key: if bits_per_key.is_nan() {
                0.0
            } else {
                bits_per_key.clamp(0.0, MAX_BITS_PER_KEY)
            },
            hashes: Vec::new(),
            last_key: None,
            last_prefix: None,
        }
    }

    /// Adds a user key. Consecutive repeats (versions of one key) count once.
    pub fn add(&mut self, user_key: &[u8]) {
        let h = hash64(user_key, FILTER_SEED);
        if self.last_key != Some(h) {
            self.last_key = Some(h);
            self.hashes.push(h);
        }
    }

    /// Adds a key prefix (probed with [`BloomFilter::may_contain`] like a
    /// key). Consecutive repeats (keys of one prefix) count once, even when
    /// whole keys are added in between.
    pub fn add_prefix(&mut self, prefix: &[u8]) {
        let h = hash64(prefix, FILTER_SEED);
        if self.last_prefix != Some(h) {
            self.last_prefix = Some(h);
            self.hashes.push(h);
        }
    }

    /// Number of keys and prefixes added (consecutive repeats counted once).
    pub fn num_keys(&self) -> usize {
        self.hashes.len()
    }

    /// The filter block for the keys added.
    pub fn finish(&self) -> Vec<u8> {
        let n = self.hashes.len() as f64;
        let want = (n * self.bits_per_key).ceil();
        let bits = if want > MIN_BITS as f64 {
            want as u64
        } else {
            MIN_BITS
        };
        let bytes = bits.div_ceil(8) as usize;
        let num_bits = bytes as u64 * 8;
        let k = num_probes(self.bits_per_key);
        let mut out = vec![0u8; bytes + 2];
        for &h in &self.hashes {
            for b in probe_positions(h, num_bits, k) {
                out[(b / 8) as usize] |= 1 << (b % 8);
            }
        }
        out[bytes] = k as u8;
        out[bytes + 1] = SCHEME_BLOOM_V1;
        out
    }
}

/// A parsed filter block.
pub struct BloomFilter {
    data: Vec<u8>,
    num_bits: u64,
    num_probes: u32,
}

impl std::fmt::Debug for BloomFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BloomFilter")
            .field("num_bits", &self.num_bits)
            .field("num_probes", &self.num_probes)
            .finish()
    }
}

impl BloomFilter {
    /// Parses the filter block read at `offset` of `file`.
    pub fn new(data: Vec<u8>, file: &str, offset: u64) -> Result<BloomFilter> {
        let bad = |reason: String| Error::corruption(file, offset, reason);
        let n = data.len();
        if n < 3 {
            return Err(bad(format!("filter block of {n} bytes")));
        }
        let (k, scheme) = (data[n - 2], data[n - 1]);
        if scheme != SCHEME_BLOOM_V1 {
            return Err(bad(format!("unknown filter scheme {scheme}")));
        }
        if !(1..=MAX_PROBES).contains(&u32::from(k)) {
            return Err(bad(format!("filter has {k} probes")));
        }
        Ok(BloomFilter {
            num_bits: (n as u64 - 2) * 8,
            num_probes: u32::from(k),
            data,
        })
    }

    /// False only when `user_key` (or prefix) was certainly not added.
    pub fn may_contain(&self, user_key: &[u8]) -> bool {
        let h = hash64(user_key, FILTER_SEED);
        probe_positions(h, self.num_bits, self.num_probes)
            .all(|b| self.data[(b / 8) as usize] & (1 << (b % 8)) != 0)
    }

    /// Bits in the array.
    pub fn num_bits(&self) -> u64 {
        self.num_bits
    }

    /// Probes per key.
    pub fn num_probes(&self) -> u32 {
        self.num_probes
    }

    /// Memory charged for this filter in the block cache.
    pub fn size_in_bytes(&self) -> usize {
        self.data.capacity() + std::mem::size_of::<BloomFilter>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(keys: impl Iterator<Item = Vec<u8>>, bpk: f64) -> BloomFilter {
        let mut b = FilterBuilder::new(bpk);
        for k in keys {
            b.add(&k);
        }
        BloomFilter::new(b.finish(), "f", 0).unwrap()
    }

    #[test]
    fn probes_follow_bits_per_key() {
        assert_eq!(num_probes(10.0), 7);
        assert_eq!(num_probes(1.0), 1);
        assert_eq!(num_probes(0.0), 1);
        assert_eq!(num_probes(5.0), 3);
        assert_eq!(num_probes(100.0), 30);
        assert_eq!(num_probes(f64::NAN), 1);
    }

    #[test]
    fn small_filter_golden_bytes() {
        let mut b = FilterBuilder::new(10.0);
        b.add(b"a");
        b.add(b"a");
        b.add(b"b");
        assert_eq!(b.num_keys(), 2);
        let f = b.finish();
        assert_eq!(f.len(), 8 + 2, "64-bit minimum array");
        assert_eq!(&f[8..], &[7, SCHEME_BLOOM_V1]);
        assert_eq!(&f[..8], &GOLDEN_BITS);
    }

    /// Computed independently from the description in the module docs.
    const GOLDEN_BITS: [u8; 8] = [66, 48, 0, 65, 16, 130, 32, 0];

    #[test]
    fn no_false_negatives() {
        let keys = || (0..20_000u32).map(|i| format!("user{i}").into_bytes());
        let f = build(keys(), 10.0);
        assert!(keys().all(|k| f.may_contain(&k)));
        let f = build(keys(), 1.0);
        assert!(keys().all(|k| f.may_contain(&k)));
        assert!(keys().all(|k| build(std::iter::once(k.clone()), 10.0).may_contain(&k)));
    }

    #[test]
    fn prefixes_and_keys_share_one_filter_and_repeats_count_once() {
        let mut b = FilterBuilder::new(10.0);
        for k in [&b"ab1"[..], b"ab2", b"ab3", b"cd1"] {
            b.add(k);
            b.add_prefix(&k[..2]);
        }
        assert_eq!(b.num_keys(), 4 + 2, "four keys, two distinct prefixes");
        let f = BloomFilter::new(b.finish(), "f", 0).unwrap();
        for probe in [&b"ab1"[..], b"ab2", b"ab3", b"cd1", b"ab", b"cd"] {
            assert!(f.may_contain(probe), "{probe:?}");
        }
    }

    #[test]
    fn false_positive_rate_matches_theory() {
        let n = 100_000u32;
        let f = build((0..n).map(|i| format!("present-{i}").into_bytes()), 10.0);
        let (m, k) = (f.num_bits() as f64, f64::from(f.num_probes()));
        let theory = (1.0 - (-k * f64::from(n) / m).exp()).powf(k);
        let probes = 200_000u32;
        let fp = (0..probes)
            .filter(|i| f.may_contain(format!("absent-{i}").as_bytes()))
            .count();
        let rate = fp as f64 / f64::from(probes);
        assert!(
            (rate - theory).abs() <= 0.2 * theory,
            "measured {rate:.5} vs theory {theory:.5} (m={m}, n={n}, k={k})"
        );
    }

    #[test]
    fn malformed_filters_are_rejected() {
        assert!(BloomFilter::new(vec![], "f", 0).is_err());
        assert!(BloomFilter::new(vec![0, 7, 2], "f", 0).is_err(), "scheme");
        assert!(BloomFilter::new(vec![0, 0, 1], "f", 0).is_err(), "k = 0");
        assert!(BloomFilter::new(vec![0, 31, 1], "f", 0).is_err(), "k > 30");
        let f = BloomFilter::new(vec![0xff, 30, 1], "f", 0).unwrap();
        assert!(f.may_contain(b"anything"));
    }
}
