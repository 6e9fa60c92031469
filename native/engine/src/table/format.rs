//! Block handles, block trailers (checksum and compression framing) and the
//! footer. **Everything here is part of the table format**; the layouts are
//! drawn in [`super`] and pinned by the golden-byte tests below.

use crate::coding::{Reader, put_varint32, put_varint64};
use crate::error::{Error, Result};
use crate::options::CompressionType;

/// Bytes after every block: compression type (1) + CRC-32 (4).
///
/// ```text
/// +----------------------------+-----------+----------------+
/// | stored block (handle.size) | type: u8  | crc32: u32 LE  |
/// +----------------------------+-----------+----------------+
/// crc32 = CRC-32 (IEEE, crc32fast) of stored block || type
/// type 0: stored block = the block
/// other types: a codec's stored form, specified in `codec.rs`
/// ```
pub const BLOCK_TRAILER_LEN: usize = 5;

/// Length of the footer at the end of every table.
///
/// ```text
/// offset  size
///      0     16  index block handle       (offset u64 LE, size u64 LE)
///     16     16  filter block handle      (0, 0 when there is no filter)
///     32     16  range-del block handle   (0, 0 when there are no range tombstones)
///     48     16  properties block handle
///     64      4  format version: u32 LE   (= FORMAT_VERSION)
///     68      4  CRC-32 of bytes 0..68: u32 LE
///     72      8  magic: u64 LE            (= TABLE_MAGIC, the ASCII bytes "TALUSTBL")
/// ```
pub const FOOTER_LEN: usize = 80;

/// Magic number ending every table: the bytes `TALUSTBL` on disk.
pub const TABLE_MAGIC: u64 = u64::from_le_bytes(*b"TALUSTBL");

/// The format version this code writes and the only one it reads.
pub const FORMAT_VERSION: u32 = 1;

/// Compression type byte of an uncompressed block.
pub const BLOCK_TYPE_NONE: u8 = CompressionType::None as u8;

/// Longest varint encoding of a [`BlockHandle`] (two varint64s).
pub const MAX_HANDLE_LEN: usize = 20;

/// Where a block lives: its offset and the length of its stored bytes
/// (compressed if compressed; the trailer not included).
///
/// In index blocks a handle is encoded as `varint64 offset || varint64 size`;
/// in the footer as two fixed u64s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BlockHandle {
    /// Offset of the block's first byte in the file.
    pub offset: u64,
    /// Length of the stored block, trailer excluded.
    pub size: u64,
}

impl BlockHandle {
    /// The "no such block" handle of optional footer entries. A present
    /// block is never empty, so it cannot be confused with this.
    pub const NONE: BlockHandle = BlockHandle { offset: 0, size: 0 };

    /// True for [`BlockHandle::NONE`].
    pub fn is_none(&self) -> bool {
        self.size == 0
    }

    /// Offset just past the block's trailer, `None` on overflow.
    pub fn end_with_trailer(&self) -> Option<u64> {
        self.offset
            .checked_add(self.size)?
            .checked_add(BLOCK_TRAILER_LEN as u64)
    }

    /// Appends the varint encoding.
    pub fn encode_to(&self, dst: &mut Vec<u8>) {
        put_varint64(dst, self.offset);
        put_varint64(dst, self.size);
    }

    /// Decodes a varint-encoded handle that must fill `src` exactly.
    pub fn decode(src: &[u8]) -> Option<BlockHandle> {
        let mut r = Reader::new(src);
        let h = BlockHandle {
            offset: r.varint64()?,
            size: r.varint64()?,
        };
        r.is_empty().then_some(h)
    }
}

/// The decoded footer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footer {
    /// The index block.
    pub index: BlockHandle,
    /// The filter block, or [`BlockHandle::NONE`].
    pub filter: BlockHandle,
    /// The range-deletion block, or [`BlockHandle::NONE`].
    pub range_del: BlockHandle,
    /// The properties block.
    pub properties: BlockHandle,
    /// Format version of the file.
    pub format_version: u32,
}

impl Footer {
    /// The 80 footer bytes.
    pub fn encode(&self) -> [u8; FOOTER_LEN] {
        let mut b = [0u8; FOOTER_LEN];
        let handles = [self.index, self.filter, self.range_del, self.properties];
        for (i, h) in handles.iter().enumerate() {
            b[i * 16..i * 16 + 8].copy_from_slice(&h.offset.to_le_bytes());
            b[i * 16 + 8..i * 16 + 16].copy_from_slice(&h.size.to_le_bytes());
        }
        b[64..68].copy_from_slice(&self.format_version.to_le_bytes());
        let crc = crc32fast::hash(&b[..68]);
        b[68..72].copy_from_slice(&crc.to_le_bytes());
        b[72..80].copy_from_slice(&TABLE_MAGIC.to_le_bytes());
        b
    }

    /// Decodes footer bytes read at `offset` of `file`, checking the magic,
    /// the checksum, the version and that every handle lies before the footer.
    pub fn decode(src: &[u8], file: &str, offset: u64) -> Result<Footer> {
        let bad = |reason: String| Error::corruption(file, offset, reason);
        if src.len() != FOOTER_LEN {
            return Err(bad(format!("footer of {} bytes", src.len())));
        }
        let mut r = Reader::new(src);
        let mut handles = [BlockHandle::NONE; 4];
        for h in &mut handles {
            *h = BlockHandle {
                offset: r.u64().unwrap_or_default(),
                size: r.u64().unwrap_or_default(),
            };
        }
        let version = r.u32().unwrap_or_default();
        let crc = r.u32().unwrap_or_default();
        let magic = r.u64().unwrap_or_default();
        if magic != TABLE_MAGIC {
            return Err(bad(format!(
                "bad table magic number {magic:#018x}: not a Talus table, or truncated"
            )));
        }
        let actual = crc32fast::hash(&src[..68]);
        if crc != actual {
            return Err(bad(format!(
                "footer checksum mismatch: stored {crc:#010x}, computed {actual:#010x}"
            )));
        }
        if version != FORMAT_VERSION {
            return Err(bad(format!(
                "unsupported table format version {version} (this build reads {FORMAT_VERSION})"
            )));
        }
        let [index, filter, range_del, properties] = handles;
        for (name, h, optional) in [
            ("index", index, false),
            ("filter", filter, true),
            ("range-del", range_del, true),
            ("properties", properties, false),
        ] {
            if h.is_none() {
                if optional {
                    continue;
                }
                return Err(bad(format!("footer has no {name} block")));
            }
            if h.end_with_trailer().is_none_or(|end| end > offset) {
                return Err(bad(format!(
                    "{name} block handle (offset {}, size {}) runs past the footer",
                    h.offset, h.size
                )));
            }
        }
        Ok(Footer {
            index,
            filter,
            range_del,
            properties,
            format_version: version,
        })
    }
}

/// The trailer of `stored` (the bytes written for a block) with type `ty`.
pub fn block_trailer(stored: &[u8], ty: u8) -> [u8; BLOCK_TRAILER_LEN] {
    let mut h = crc32fast::Hasher::new();
    h.update(stored);
    h.update(&[ty]);
    let crc = h.finalize();
    let mut t = [0u8; BLOCK_TRAILER_LEN];
    t[0] = ty;
    t[1..].copy_from_slice(&crc.to_le_bytes());
    t
}

/// Checks the checksum of `buf` = stored block || trailer. Precondition:
/// `buf.len() >= BLOCK_TRAILER_LEN`. `Err` carries the stored and computed
/// checksums.
pub fn verify_block_checksum(buf: &[u8]) -> std::result::Result<(), (u32, u32)> {
    let n = buf.len() - 4;
    let mut stored = [0u8; 4];
    stored.copy_from_slice(&buf[n..]);
    let stored = u32::from_le_bytes(stored);
    let actual = crc32fast::hash(&buf[..n]);
    if stored == actual {
        Ok(())
    } else {
        Err((stored, actual))
    }
}

/// Compresses `raw` with LZ4 into `out` (replacing its contents) in the
/// stored form of a type-4 block, but only when that saves at least 1/8 of
/// the size. Returns false (and leaves `out` unspecified) otherwise.
///
/// The encoder is liblz4's `LZ4_compress_default` (`LZ4_compress_fast` with
/// acceleration 1), through the `lz4` crate's safe block API: it writes into
/// `out` directly, bounded by the slice it is given. Any LZ4 encoder's
/// output is a valid block for the decoder below, so tables written by an
/// earlier encoder stay readable (`codec::tests::blocks_of_the_former_lz4_encoder_still_read`);
/// a change of this encoder's output shows in
/// `codec::tests::golden_bytes_of_each_codec`.
pub fn lz4_compress_block(raw: &[u8], out: &mut Vec<u8>) -> bool {
    let Ok(raw_len) = u32::try_from(raw.len()) else {
        return false;
    };
    let Ok(bound) = lz4::block::compress_bound(raw.len()) else {
        // Beyond liblz4's input limit (about 2 GiB).
        return false;
    };
    out.clear();
    put_varint32(out, raw_len);
    let header = out.len();
    out.resize(header + bound, 0);
    let Ok(n) = lz4::block::compress_to_buffer(
        raw,
        Some(lz4::block::CompressionMode::DEFAULT),
        false,
        &mut out[header..],
    ) else {
        return false;
    };
    out.truncate(header + n);
    out.len() <= raw.len() - raw.len() / 8
}

/// Upper bound of the LZ4 expansion ratio: one input byte yields at most 255
/// output bytes. A claimed uncompressed length above this is corrupt, and
/// rejecting it keeps a flipped length from asking for a huge allocation.
const LZ4_MAX_RATIO: usize = 255;

/// Decompresses the stored bytes of a type-4 block. `Err` is the reason.
pub fn lz4_decompress_block(stored: &[u8]) -> std::result::Result<Vec<u8>, String> {
    let mut r = Reader::new(stored);
    let len = r.varint32().ok_or("bad uncompressed length in LZ4 block")? as usize;
    let input = &stored[r.pos()..];
    if len > input.len().saturating_mul(LZ4_MAX_RATIO).saturating_add(64) {
        return Err(format!(
            "LZ4 block claims {len} uncompressed bytes from {} compressed bytes",
            input.len()
        ));
    }
    // liblz4 takes lengths as C ints: larger ones are no block of ours.
    let (Ok(claimed), Ok(_)) = (i32::try_from(len), i32::try_from(input.len())) else {
        return Err(format!(
            "LZ4 block of {} compressed bytes claiming {len} is beyond liblz4's limits",
            input.len()
        ));
    };
    let mut out = super::buffers::take(len);
    // liblz4's `LZ4_decompress_safe`: reads only `input` and writes only
    // `out`, whatever the bytes; damaged input is an error, never a read or
    // write out of bounds (`lz4_decoding_a_damaged_block_errs_or_keeps_the_claimed_length`).
    match lz4::block::decompress_to_buffer(input, Some(claimed), &mut out) {
        Ok(n) if n == len => Ok(out),
        Ok(n) => Err(format!(
            "LZ4 block decompressed to {n} bytes, expected {len}"
        )),
        Err(e) => Err(format!("LZ4 decompression failed: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn footer_golden_bytes() {
        let f = Footer {
            index: BlockHandle {
                offset: 0x1234,
                size: 0x56,
            },
            filter: BlockHandle::NONE,
            range_del: BlockHandle {
                offset: 0x1000,
                size: 0x20,
            },
            properties: BlockHandle {
                offset: 0x1300,
                size: 0x40,
            },
            format_version: 1,
        };
        let b = f.encode();
        let mut want = Vec::new();
        for v in [0x1234u64, 0x56, 0, 0, 0x1000, 0x20, 0x1300, 0x40] {
            want.extend_from_slice(&v.to_le_bytes());
        }
        want.extend_from_slice(&[1, 0, 0, 0]);
        want.extend_from_slice(&crc32fast::hash(&want).to_le_bytes());
        want.extend_from_slice(b"TALUSTBL");
        assert_eq!(b.as_slice(), want.as_slice());
        assert_eq!(&b[68..72], &FOOTER_GOLDEN_CRC);
        // Valid when the footer starts after every block.
        assert_eq!(Footer::decode(&b, "t.sst", 0x2000).unwrap(), f);
    }

    /// CRC-32 of the 68 bytes above, computed independently (Python zlib).
    const FOOTER_GOLDEN_CRC: [u8; 4] = [93, 56, 29, 54];

    #[test]
    fn footer_rejects_damage() {
        let f = Footer {
            index: BlockHandle {
                offset: 10,
                size: 10,
            },
            filter: BlockHandle::NONE,
            range_del: BlockHandle::NONE,
            properties: BlockHandle { offset: 0, size: 5 },
            format_version: FORMAT_VERSION,
        };
        let good = f.encode();
        Footer::decode(&good, "t", 25).unwrap();
        let e = Footer::decode(&good, "t", 24).unwrap_err();
        assert!(e.to_string().contains("runs past the footer"), "{e}");
        for i in 0..FOOTER_LEN {
            let mut b = good;
            b[i] ^= 0x10;
            let e = Footer::decode(&b, "t.sst", 99).unwrap_err();
            assert!(e.is_corruption());
            assert!(e.to_string().contains("file t.sst, offset 99"), "{e}");
        }
        assert!(Footer::decode(&good[1..], "t", 25).is_err());
    }

    #[test]
    fn block_trailer_golden_bytes() {
        let t = block_trailer(b"abc", BLOCK_TYPE_NONE);
        let mut h = crc32fast::Hasher::new();
        h.update(b"abc\0");
        assert_eq!(t[0], 0);
        assert_eq!(&t[1..], &h.finalize().to_le_bytes());
        assert_eq!(t, TRAILER_GOLDEN);
        let mut buf = b"abc".to_vec();
        buf.extend_from_slice(&t);
        assert!(verify_block_checksum(&buf).is_ok());
        buf[1] ^= 1;
        assert!(verify_block_checksum(&buf).is_err());
    }

    /// Type 0, then CRC-32 of "abc\0" computed independently (Python zlib).
    const TRAILER_GOLDEN: [u8; 5] = [0, 80, 104, 93, 167];

    #[test]
    fn handles_round_trip_as_varints() {
        let h = BlockHandle {
            offset: 300,
            size: 5,
        };
        let mut b = Vec::new();
        h.encode_to(&mut b);
        assert_eq!(b, [0xac, 0x02, 0x05]);
        assert_eq!(BlockHandle::decode(&b), Some(h));
        assert_eq!(BlockHandle::decode(&b[..2]), None);
        b.push(0);
        assert_eq!(BlockHandle::decode(&b), None, "trailing bytes");
    }

    #[test]
    fn lz4_framing_round_trips_and_keeps_only_real_savings() {
        let raw: Vec<u8> = b"abcdefgh".iter().cycle().take(4000).copied().collect();
        let mut out = Vec::new();
        assert!(lz4_compress_block(&raw, &mut out));
        assert!(out.len() < raw.len() / 8);
        assert_eq!(&out[..2], &[0xa0, 0x1f], "varint32 of 4000 leads");
        assert_eq!(lz4_decompress_block(&out).unwrap(), raw);
        // Incompressible data is stored raw.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let noise: Vec<u8> = (0..4000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 32) as u8
            })
            .collect();
        assert!(!lz4_compress_block(&noise, &mut out));
        // A lying length is rejected before any big allocation.
        let mut bad = Vec::new();
        put_varint32(&mut bad, u32::MAX);
        bad.extend_from_slice(&[0x10, 0x61]);
        assert!(lz4_decompress_block(&bad).is_err());
        assert!(lz4_decompress_block(&[]).is_err());
    }

    /// The decoded length must be the claimed one: a claim one byte short or
    /// long, every truncation and every flipped bit of a real block give an
    /// error or exactly the claimed length, never a panic or another length.
    #[test]
    fn lz4_decoding_a_damaged_block_errs_or_keeps_the_claimed_length() {
        let raw: Vec<u8> = (0..3000u32)
            .map(|i| (i % 251) as u8 ^ (i / 97) as u8)
            .collect();
        let mut out = Vec::new();
        assert!(lz4_compress_block(&raw, &mut out));
        let body = &out[2..]; // after the 2-byte varint of 3000
        for claim in [2999u32, 3001] {
            let mut lying = Vec::new();
            put_varint32(&mut lying, claim);
            lying.extend_from_slice(body);
            let r = lz4_decompress_block(&lying);
            assert!(r.is_err(), "claim {claim}: {r:?}");
        }
        for cut in 0..out.len() {
            if let Ok(v) = lz4_decompress_block(&out[..cut]) {
                assert_eq!(v.len(), 3000, "cut at {cut}");
            }
        }
        for bit in 0..out.len() * 8 {
            let mut flipped = out.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            if let Ok(v) = lz4_decompress_block(&flipped) {
                let claimed = Reader::new(&flipped).varint32().unwrap() as usize;
                assert_eq!(v.len(), claimed, "bit {bit}");
            }
        }
    }
}
