//! XXH64 (seed 0): the checksum of whole table files that the manifest
//! records (`version::edit`, `file_checksum`), computed while a table is
//! written and compared by `Db::verify_checksum`. Implemented from the
//! published algorithm (xxHash specification, XXH64), in safe code; the
//! known values in the tests pin it.
//!
//! Why not a CRC-32 of the file, which `crc32fast` computes faster: every
//! block of a table (and its footer) ends with the CRC-32 of its bytes, and
//! a CRC register that has read a message followed by that message's own
//! CRC has forgotten the message. The CRC-32 of a whole table depends on the
//! lengths of its blocks, not on their bytes (test
//! `whole_file_crc32_is_blind_but_xxh64_is_not` in `table::tests`). A CRC
//! of another polynomial would see every byte, but at about a tenth of the
//! speed in safe code; XXH64 is not linear at all and runs at memory speed.

const P1: u64 = 0x9E37_79B1_85EB_CA87;
const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const P3: u64 = 0x1656_67B1_9E37_79F9;
const P4: u64 = 0x85EB_CA77_C2B2_AE63;
const P5: u64 = 0x27D4_EB2F_1656_67C5;

fn round(acc: u64, lane: u64) -> u64 {
    acc.wrapping_add(lane.wrapping_mul(P2))
        .rotate_left(31)
        .wrapping_mul(P1)
}

fn merge(acc: u64, v: u64) -> u64 {
    (acc ^ round(0, v)).wrapping_mul(P1).wrapping_add(P4)
}

fn lane(b: &[u8]) -> u64 {
    u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
}

/// A streaming XXH64: feed bytes with [`Xxh64::update`], read the hash of
/// everything fed with [`Xxh64::digest`].
#[derive(Clone, Debug)]
pub struct Xxh64 {
    seed: u64,
    total: u64,
    acc: [u64; 4],
    buf: [u8; 32],
    buf_len: usize,
}

impl Default for Xxh64 {
    fn default() -> Self {
        Self::with_seed(0)
    }
}

impl Xxh64 {
    /// A hasher with seed 0 (the file checksum's).
    pub fn new() -> Self {
        Self::default()
    }

    /// A hasher with `seed`.
    pub fn with_seed(seed: u64) -> Self {
        Xxh64 {
            seed,
            total: 0,
            acc: [
                seed.wrapping_add(P1).wrapping_add(P2),
                seed.wrapping_add(P2),
                seed,
                seed.wrapping_sub(P1),
            ],
            buf: [0; 32],
            buf_len: 0,
        }
    }

    fn stripe(&mut self, s: &[u8]) {
        for (i, a) in self.acc.iter_mut().enumerate() {
            *a = round(*a, lane(&s[8 * i..]));
        }
    }

    /// Feeds `data`.
    pub fn update(&mut self, mut data: &[u8]) {
        self.total = self.total.wrapping_add(data.len() as u64);
        if self.buf_len > 0 {
            let n = (32 - self.buf_len).min(data.len());
            self.buf[self.buf_len..self.buf_len + n].copy_from_slice(&data[..n]);
            self.buf_len += n;
            data = &data[n..];
            if self.buf_len < 32 {
                return;
            }
            let buf = self.buf;
            self.stripe(&buf);
            self.buf_len = 0;
        }
        let mut stripes = data.chunks_exact(32);
        for s in &mut stripes {
            self.stripe(s);
        }
        let rest = stripes.remainder();
        self.buf[..rest.len()].copy_from_slice(rest);
        self.buf_len = rest.len();
    }

    /// The hash of everything fed so far.
    pub fn digest(&self) -> u64 {
        let mut h = if self.total >= 32 {
            let [a, b, c, d] = self.acc;
            let mut h = a
                .rotate_left(1)
                .wrapping_add(b.rotate_left(7))
                .wrapping_add(c.rotate_left(12))
                .wrapping_add(d.rotate_left(18));
            for v in self.acc {
                h = merge(h, v);
            }
            h
        } else {
            self.seed.wrapping_add(P5)
        };
        h = h.wrapping_add(self.total);
        let mut rest = &self.buf[..self.buf_len];
        while rest.len() >= 8 {
            h ^= round(0, lane(rest));
            h = h.rotate_left(27).wrapping_mul(P1).wrapping_add(P4);
            rest = &rest[8..];
        }
        if rest.len() >= 4 {
            let w = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]);
            h ^= u64::from(w).wrapping_mul(P1);
            h = h.rotate_left(23).wrapping_mul(P2).wrapping_add(P3);
            rest = &rest[4..];
        }
        for &b in rest {
            h ^= u64::from(b).wrapping_mul(P5);
            h = h.rotate_left(11).wrapping_mul(P1);
        }
        h ^= h >> 33;
        h = h.wrapping_mul(P2);
        h ^= h >> 29;
        h = h.wrapping_mul(P3);
        h ^ (h >> 32)
    }
}

/// The XXH64 (seed 0) of `data`.
pub fn hash(data: &[u8]) -> u64 {
    let mut h = Xxh64::new();
    h.update(data);
    h.digest()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Published values of XXH64.
    #[test]
    fn known_values() {
        assert_eq!(hash(b""), 0xef46_db37_51d8_e999);
        assert_eq!(hash(b"a"), 0xd24e_c4f1_a98c_6e5b);
        assert_eq!(hash(b"abc"), 0x44bc_2cf5_ad77_0999);
        assert_eq!(
            hash(b"Nobody inspects the spammish repetition"),
            0xfbce_a83c_8a37_8bf1
        );
        let mut h = Xxh64::with_seed(20_141_025);
        h.update(b"xxhash");
        assert_eq!(h.digest(), 0xb559_b98d_844e_0635);
    }

    /// Fed in pieces of any sizes, the same hash as fed whole.
    #[test]
    fn streaming_equals_one_shot() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        for len in [0, 1, 3, 4, 7, 8, 31, 32, 33, 63, 64, 100, 1000] {
            let whole = hash(&data[..len]);
            for piece in [1, 3, 8, 31, 32, 33, 500] {
                let mut h = Xxh64::new();
                for c in data[..len].chunks(piece) {
                    h.update(c);
                }
                assert_eq!(h.digest(), whole, "{len} bytes in pieces of {piece}");
            }
        }
    }
}
