//! Keys, values and random numbers, generated as db_bench generates them.
//!
//! * Key `i`: its 8-byte big-endian encoding (fewer bytes when `key_size`
//!   < 8: the low bytes, big-endian), padded with `'0'` to `key_size`.
//! * Values: slices of a 1 MiB buffer built from 100-byte pieces, each a
//!   random printable string of `100 × compression_ratio` bytes repeated to
//!   100 bytes, so that values compress to about `compression_ratio`.
//! * Hot keys (`--read_random_exp_range=r`): key `num × exp(-u)`, `u`
//!   uniform in `[0, r]`, multiplied by a large prime modulo `num` so that
//!   hot keys are spread over the key space.

/// A small, fast generator (SplitMix64): one per benchmark thread.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, n)` (0 when `n` is 0).
    pub fn uniform(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
        }
    }
}

/// Writes key `k` into `out` (of length `key_size`).
pub fn make_key(k: u64, out: &mut [u8]) {
    let n = out.len().min(8);
    let be = k.to_be_bytes();
    out[..n].copy_from_slice(&be[8 - n..]);
    out[n..].fill(b'0');
}

/// Picks keys in `[0, num)`: uniform, or skewed by `read_random_exp_range`.
#[derive(Clone, Copy, Debug)]
pub struct KeyChooser {
    pub num: u64,
    pub exp_range: f64,
}

impl KeyChooser {
    pub fn pick(&self, rng: &mut Rng) -> u64 {
        if self.num == 0 {
            return 0;
        }
        let r = rng.next_u64();
        if self.exp_range == 0.0 {
            return r % self.num;
        }
        const BIG: u64 = 1 << 62;
        let order = -((r % BIG) as f64 / BIG as f64) * self.exp_range;
        let hot = (order.exp() * self.num as f64) as u64;
        // Spread hot keys over the key space instead of packing them low.
        const BIG_PRIME: u64 = 0x5bd1_e995;
        hot.wrapping_mul(BIG_PRIME) % self.num
    }
}

const VALUE_BUFFER: usize = 1 << 20;

/// db_bench's `RandomGenerator`: values of compressible random bytes.
#[derive(Clone, Debug)]
pub struct ValueGenerator {
    data: Vec<u8>,
    pos: usize,
}

impl ValueGenerator {
    pub fn new(seed: u64, compression_ratio: f64, value_size: usize) -> ValueGenerator {
        let mut rng = Rng::new(seed ^ 0x5eed_1234_abcd);
        let len = VALUE_BUFFER.max(value_size);
        let mut data = Vec::with_capacity(len + 100);
        while data.len() < len {
            let raw = ((100.0 * compression_ratio) as usize).max(1);
            let piece: Vec<u8> = (0..raw).map(|_| b' ' + rng.uniform(95) as u8).collect();
            let start = data.len();
            while data.len() < start + 100 {
                let take = (start + 100 - data.len()).min(piece.len());
                data.extend_from_slice(&piece[..take]);
            }
        }
        ValueGenerator { data, pos: 0 }
    }

    /// The next value of `len` bytes.
    pub fn generate(&mut self, len: usize) -> &[u8] {
        if self.pos + len > self.data.len() {
            self.pos = 0;
        }
        self.pos += len;
        &self.data[self.pos - len..self.pos]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_big_endian_padded_with_zeros() {
        let mut k = [0u8; 12];
        make_key(0x0102, &mut k);
        assert_eq!(&k, b"\0\0\0\0\0\0\x01\x020000");
        let mut short = [0u8; 4];
        make_key(0x0102_0304_0506, &mut short);
        assert_eq!(&short, &[3, 4, 5, 6]);
    }

    #[test]
    fn keys_sort_like_their_numbers() {
        let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
        make_key(255, &mut a);
        make_key(256, &mut b);
        assert!(a < b);
    }

    #[test]
    fn hot_keys_are_skewed_and_in_range() {
        let mut rng = Rng::new(7);
        let chooser = KeyChooser {
            num: 1000,
            exp_range: 10.0,
        };
        let mut counts = std::collections::HashMap::new();
        for _ in 0..10_000 {
            let k = chooser.pick(&mut rng);
            assert!(k < 1000);
            *counts.entry(k).or_insert(0u32) += 1;
        }
        // With r = 10 a handful of keys take a large share of the reads.
        let max = counts.values().copied().max().unwrap();
        assert!(max > 200, "max {max}");
        let uniform = KeyChooser {
            num: 1000,
            exp_range: 0.0,
        };
        assert!((0..1000).all(|_| uniform.pick(&mut rng) < 1000));
    }

    #[test]
    fn values_have_the_size_asked_for() {
        let mut g = ValueGenerator::new(1, 0.5, 100);
        for _ in 0..20_000 {
            assert_eq!(g.generate(160).len(), 160);
        }
        let v = g.generate(100).to_vec();
        assert!(v.iter().all(|b| (b' '..=b'~').contains(b)));
    }
}
