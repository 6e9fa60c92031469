//! Block codecs: the stored form of compressed blocks and the optional
//! compression dictionary of a table. **Everything here is part of the
//! table format**; the golden-byte tests below pin each codec's framing.
//!
//! The trailer's type byte (see `format.rs`) names the codec of the block,
//! with RocksJava's `CompressionType` byte values:
//!
//! ```text
//! type  codec   stored block
//!    0  none    the block
//!    1  Snappy  Snappy raw format (it begins with the uncompressed length as a varint32)
//!    4  LZ4     uncompressed length: varint32 || LZ4 block format
//!    7  ZSTD    uncompressed length: varint32 || one Zstandard frame
//! 2, 3, 5, 6    zlib, bzip2, LZ4HC, Xpress: RocksDB's codecs that this build does not
//!               include; reading such a block fails with NotSupported naming the codec
//! other         unknown (a newer writer): NotSupported naming the byte
//! ```
//!
//! A block is stored compressed only when that saves at least 1/8 of its
//! size; otherwise it is stored with type 0, whatever the table's codec.
//!
//! # Compression dictionary (ZSTD)
//!
//! With `max_dict_bytes > 0` a ZSTD table may carry a dictionary: the builder
//! holds back its first data blocks (up to the training budget,
//! `zstd_max_train_bytes`, or `max_dict_bytes` when that is 0), makes the
//! dictionary from them — trained by zstd's dictionary builder when
//! `zstd_max_train_bytes > 0`, else the samples' first `max_dict_bytes`
//! bytes as a raw-content dictionary — and compresses every ZSTD block of the
//! table (data and index) with it. The dictionary is written, uncompressed,
//! as a meta block after the data blocks; the properties field
//! `COMPRESSION_DICT` holds its handle (`varint64 offset || varint64 size`).
//! A reader loads it at open and decodes the table's ZSTD blocks with it.
//! A trained dictionary's id is in every frame, so a frame decoded with a
//! missing or wrong dictionary fails instead of yielding other bytes.

use std::cell::RefCell;

use crate::coding::{Reader, put_varint32};
use crate::error::{Error, Result};
use crate::options::CompressionType;

use super::format::{lz4_compress_block, lz4_decompress_block};

/// Why a stored block could not be decoded.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum DecodeError {
    /// The block's codec is not in this build (the message names it).
    NotSupported(String),
    /// The stored bytes are damaged (the reason).
    Corrupt(String),
}

/// The message for a block whose type byte names a codec this build lacks.
fn unsupported_block(ty: u8) -> DecodeError {
    match CompressionType::from_u8(ty) {
        Ok(c) => DecodeError::NotSupported(format!(
            "block compressed with {}, which this build of Talus does not include",
            c.java_name()
        )),
        Err(_) => DecodeError::NotSupported(format!(
            "block compressed with unknown compression type {ty:#04x} (written by a newer build?)"
        )),
    }
}

/// A prepared ZSTD decompression dictionary, loaded once per table.
pub(crate) struct ZstdDictionary {
    ddict: zstd::dict::DecoderDictionary<'static>,
}

impl ZstdDictionary {
    /// Prepares the dictionary stored in a table's dictionary block.
    pub(crate) fn new(bytes: &[u8]) -> Self {
        ZstdDictionary {
            ddict: zstd::dict::DecoderDictionary::copy(bytes),
        }
    }
}

/// Compresses blocks with one codec (and, for ZSTD, one level and maybe a
/// dictionary). One per table builder; not shared between threads.
pub(crate) struct BlockCompressor {
    ty: CompressionType,
    zstd: Option<zstd::bulk::Compressor<'static>>,
    snappy: snap::raw::Encoder,
}

impl std::fmt::Debug for BlockCompressor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockCompressor")
            .field("ty", &self.ty)
            .finish()
    }
}

/// RocksDB's "codec default" level (`kDefaultCompressionLevel`).
pub(crate) const DEFAULT_COMPRESSION_LEVEL: i32 = 32767;

/// The ZSTD level RocksDB uses for [`DEFAULT_COMPRESSION_LEVEL`].
const ZSTD_DEFAULT_LEVEL: i32 = 3;

impl BlockCompressor {
    /// A compressor for `ty`. `level` matters to ZSTD only
    /// ([`DEFAULT_COMPRESSION_LEVEL`]: zstd's default, 3; zstd clamps levels
    /// above its maximum); `dict` is a ZSTD dictionary. Precondition: `ty`
    /// is implemented ([`CompressionType::is_supported`]).
    pub(crate) fn new(ty: CompressionType, level: i32, dict: Option<&[u8]>) -> Result<Self> {
        let zstd = if ty == CompressionType::Zstd {
            let level = if level == DEFAULT_COMPRESSION_LEVEL {
                ZSTD_DEFAULT_LEVEL
            } else {
                level
            };
            let c = match dict {
                Some(d) => zstd::bulk::Compressor::with_dictionary(level, d),
                None => zstd::bulk::Compressor::new(level),
            };
            Some(c.map_err(|e| Error::InvalidArgument(format!("ZSTD level {level}: {e}")))?)
        } else {
            None
        };
        Ok(BlockCompressor {
            ty,
            zstd,
            snappy: snap::raw::Encoder::new(),
        })
    }

    /// The table's codec.
    pub(crate) fn compression(&self) -> CompressionType {
        self.ty
    }

    /// Puts the stored form of `raw` (under this codec) into `out`, replacing
    /// its contents, when that saves at least 1/8 of the size; returns false
    /// (leaving `out` unspecified) when the block should be stored as is.
    pub(crate) fn compress(&mut self, raw: &[u8], out: &mut Vec<u8>) -> bool {
        match self.ty {
            CompressionType::Lz4 => lz4_compress_block(raw, out),
            CompressionType::Snappy => snappy_compress_block(&mut self.snappy, raw, out),
            CompressionType::Zstd => match &mut self.zstd {
                Some(c) => zstd_compress_block(c, raw, out),
                None => false,
            },
            _ => false,
        }
    }
}

/// True when `stored` saves at least 1/8 of `raw_len`.
fn worth_it(stored: usize, raw_len: usize) -> bool {
    stored <= raw_len - raw_len / 8
}

fn snappy_compress_block(enc: &mut snap::raw::Encoder, raw: &[u8], out: &mut Vec<u8>) -> bool {
    out.clear();
    out.resize(snap::raw::max_compress_len(raw.len()), 0);
    if out.is_empty() {
        // Input too large for the format.
        return false;
    }
    match enc.compress(raw, out) {
        Ok(n) => {
            out.truncate(n);
            worth_it(n, raw.len())
        }
        Err(_) => false,
    }
}

fn zstd_compress_block(
    c: &mut zstd::bulk::Compressor<'static>,
    raw: &[u8],
    out: &mut Vec<u8>,
) -> bool {
    let Ok(raw_len) = u32::try_from(raw.len()) else {
        return false;
    };
    out.clear();
    put_varint32(out, raw_len);
    let header = out.len();
    out.resize(header + zstd::zstd_safe::compress_bound(raw.len()), 0);
    match c.compress_to_buffer(raw, &mut out[header..]) {
        Ok(n) => {
            out.truncate(header + n);
            worth_it(out.len(), raw.len())
        }
        Err(_) => false,
    }
}

/// Upper bound of Snappy's expansion ratio: a copy element of at least 2
/// stored bytes yields at most 64 bytes. A larger claimed length is corrupt.
const SNAPPY_MAX_RATIO: usize = 32;

/// Upper bound of ZSTD's expansion: every Zstandard block takes at least 4
/// stored bytes (3-byte header and an RLE byte) and yields at most 128 KiB.
/// A larger claimed length is corrupt; checking it keeps a damaged length
/// from becoming a huge allocation.
const ZSTD_MAX_BLOCK: usize = 128 << 10;

thread_local! {
    /// One ZSTD decompression context per thread: creating one per block
    /// would cost an allocation of the context's tables on every read.
    static ZSTD_DCTX: RefCell<Option<zstd::zstd_safe::DCtx<'static>>> = const { RefCell::new(None) };
}

/// Decodes the stored bytes of a block of type `ty` (not 0). `dict` is the
/// table's ZSTD dictionary, if it has one.
pub(crate) fn decompress_block(
    ty: u8,
    stored: &[u8],
    dict: Option<&ZstdDictionary>,
) -> std::result::Result<Vec<u8>, DecodeError> {
    match ty {
        t if t == CompressionType::Lz4 as u8 => {
            lz4_decompress_block(stored).map_err(DecodeError::Corrupt)
        }
        t if t == CompressionType::Snappy as u8 => {
            snappy_decompress_block(stored).map_err(DecodeError::Corrupt)
        }
        t if t == CompressionType::Zstd as u8 => {
            zstd_decompress_block(stored, dict).map_err(DecodeError::Corrupt)
        }
        other => Err(unsupported_block(other)),
    }
}

fn snappy_decompress_block(stored: &[u8]) -> std::result::Result<Vec<u8>, String> {
    let len = snap::raw::decompress_len(stored)
        .map_err(|e| format!("bad uncompressed length in Snappy block: {e}"))?;
    if len
        > stored
            .len()
            .saturating_mul(SNAPPY_MAX_RATIO)
            .saturating_add(64)
    {
        return Err(format!(
            "Snappy block claims {len} uncompressed bytes from {} compressed bytes",
            stored.len()
        ));
    }
    let mut out = super::buffers::take(len);
    match snap::raw::Decoder::new().decompress(stored, &mut out) {
        Ok(n) if n == len => Ok(out),
        Ok(n) => Err(format!(
            "Snappy block decompressed to {n} bytes, expected {len}"
        )),
        Err(e) => Err(format!("Snappy decompression failed: {e}")),
    }
}

fn zstd_decompress_block(
    stored: &[u8],
    dict: Option<&ZstdDictionary>,
) -> std::result::Result<Vec<u8>, String> {
    let mut r = Reader::new(stored);
    let len = r
        .varint32()
        .ok_or("bad uncompressed length in ZSTD block")? as usize;
    let input = &stored[r.pos()..];
    let max = (input.len() / 4 + 1).saturating_mul(ZSTD_MAX_BLOCK);
    if len > max {
        return Err(format!(
            "ZSTD block claims {len} uncompressed bytes from {} compressed bytes",
            input.len()
        ));
    }
    let mut out = super::buffers::take_empty(len);
    let res = ZSTD_DCTX.with(|cell| {
        let mut slot = cell
            .try_borrow_mut()
            .map_err(|_| "ZSTD context in use".to_string())?;
        let dctx = slot.get_or_insert_with(zstd::zstd_safe::DCtx::create);
        match dict {
            Some(d) => dctx.decompress_using_ddict(&mut out, input, d.ddict.as_ddict()),
            None => dctx.decompress(&mut out, input),
        }
        .map_err(|code| {
            format!(
                "ZSTD decompression failed: {}",
                zstd::zstd_safe::get_error_name(code)
            )
        })
    })?;
    if res != len {
        return Err(format!(
            "ZSTD block decompressed to {res} bytes, expected {len}"
        ));
    }
    Ok(out)
}

/// Makes a table's ZSTD dictionary from `samples` (its first data blocks).
/// With `train`, zstd's dictionary builder makes one of at most
/// `max_dict_bytes`; else, and when training fails (too few or too uniform
/// samples), the samples' first `max_dict_bytes` bytes are the dictionary
/// (raw content). `None` when there is nothing to make one from.
pub(crate) fn make_zstd_dictionary(
    samples: &[Vec<u8>],
    max_dict_bytes: usize,
    train: bool,
) -> Option<Vec<u8>> {
    if max_dict_bytes == 0 || samples.iter().all(|s| s.is_empty()) {
        return None;
    }
    if train
        && let Ok(d) = zstd::dict::from_samples(samples, max_dict_bytes)
        && !d.is_empty()
    {
        return Some(d);
    }
    let mut raw = Vec::with_capacity(max_dict_bytes);
    for s in samples {
        let take = (max_dict_bytes - raw.len()).min(s.len());
        raw.extend_from_slice(&s[..take]);
        if raw.len() == max_dict_bytes {
            break;
        }
    }
    Some(raw)
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    use super::*;

    fn compressible() -> Vec<u8> {
        b"abcdefgh".repeat(64)
    }

    fn stored(ty: CompressionType, raw: &[u8]) -> Vec<u8> {
        let mut c = BlockCompressor::new(ty, DEFAULT_COMPRESSION_LEVEL, None).unwrap();
        let mut out = Vec::new();
        assert!(c.compress(raw, &mut out), "{ty:?}");
        out
    }

    /// The stored form of each codec, byte for byte: changing a codec's
    /// framing (or the library's output for these inputs) breaks this test,
    /// as it would break the tables already written.
    #[test]
    fn golden_bytes_of_each_codec() {
        let raw = compressible();
        // Snappy raw: varint 512, literal "abcdefgh", then copies of
        // offset 8.
        let snappy = stored(CompressionType::Snappy, &raw);
        let mut want = b"\x80\x04\x1cabcdefgh".to_vec();
        for _ in 0..7 {
            want.extend_from_slice(&[0xfe, 0x08, 0x00]); // copy 64 from 8 back
        }
        want.extend_from_slice(&[0xde, 0x08, 0x00]); // copy 56 from 8 back
        assert_eq!(snappy, want, "{snappy:02x?}");
        // LZ4 (liblz4): varint32 length, then the LZ4 block: 8 literals,
        // a match of 499 bytes from 8 back, the last 5 bytes as literals.
        let lz4 = stored(CompressionType::Lz4, &raw);
        assert_eq!(&lz4[..2], b"\x80\x04");
        assert_eq!(
            lz4,
            [
                0x80, 0x04, 0x8f, b'a', b'b', b'c', b'd', b'e', b'f', b'g', b'h', 0x08, 0x00, 0xff,
                0xe1, 0x50, b'd', b'e', b'f', b'g', b'h'
            ]
        );
        // ZSTD: varint32 length, then a frame (magic 28 b5 2f fd).
        let zstd = stored(CompressionType::Zstd, &raw);
        assert_eq!(&zstd[..6], b"\x80\x04\x28\xb5\x2f\xfd");
        assert_eq!(zstd, GOLDEN_ZSTD, "{zstd:02x?}");
        for (ty, s) in [
            (CompressionType::Snappy, &snappy),
            (CompressionType::Lz4, &lz4),
            (CompressionType::Zstd, &zstd),
        ] {
            assert_eq!(decompress_block(ty as u8, s, None).unwrap(), raw, "{ty:?}");
        }
    }

    /// The stored ZSTD block of `compressible()` at level 3. Should a new
    /// zstd encode it differently, this fixed block must still decode
    /// (`golden_zstd_block_decodes`): old tables stay readable.
    const GOLDEN_ZSTD: &[u8] = &[
        0x80, 0x04, // uncompressed length 512
        0x28, 0xb5, 0x2f, 0xfd, // frame magic
        0x60, 0x00, 0x01, // frame header: single segment, content size 512
        0x7d, 0x00, 0x00, // last block, compressed, 15 bytes
        0x40, b'a', b'b', b'c', b'd', b'e', b'f', b'g', b'h', 0x01, 0x00, 0xf5, 0x53, 0x0b, 0x17,
    ];

    #[test]
    fn golden_zstd_block_decodes() {
        assert_eq!(
            decompress_block(CompressionType::Zstd as u8, GOLDEN_ZSTD, None).unwrap(),
            compressible()
        );
    }

    /// The stored LZ4 block of `compressible()` as the pure-Rust encoder of
    /// earlier builds wrote it (a different, equally valid LZ4 encoding of
    /// the same bytes than liblz4's). Tables holding such blocks must stay
    /// readable.
    const GOLDEN_LZ4_FORMER_ENCODER: &[u8] = &[
        0x80, 0x04, 0x8f, b'a', b'b', b'c', b'd', b'e', b'f', b'g', b'h', 0x08, 0x00, 0xff, 0xe0,
        0x60, b'c', b'd', b'e', b'f', b'g', b'h',
    ];

    /// A data block as the bulk-import example's rows make it: sorted
    /// 48-byte keys (a big-endian row id, then pseudo-random bytes) with an
    /// 8-byte internal trailer, and 160-byte values whose second half
    /// repeats their first. Deterministic: the same bytes on every run.
    fn row_block() -> Vec<u8> {
        fn mix(mut z: u64) -> u64 {
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn fill(b: &mut [u8], mut x: u64) {
            for chunk in b.chunks_mut(8) {
                x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
                chunk.copy_from_slice(&mix(x).to_be_bytes()[..chunk.len()]);
            }
        }
        let mut ids: Vec<u64> = (0..18u64).map(|i| mix(i ^ 0x5eed) >> 8).collect();
        ids.sort_unstable();
        let mut b = super::super::block::BlockBuilder::new(16);
        for (seq, id) in ids.into_iter().enumerate() {
            let mut key = [0u8; 56];
            key[..8].copy_from_slice(&id.to_be_bytes());
            fill(&mut key[8..48], mix(id + 1));
            key[48..].copy_from_slice(&(((seq as u64 + 1) << 8) | 1).to_le_bytes());
            let mut value = [0u8; 160];
            fill(&mut value[..84], mix(id ^ 0xfeed));
            value.copy_within(8..84, 84);
            b.add(&key, &value);
        }
        b.finish().to_vec()
    }

    /// The LZ4 encoder's output for a realistic data block, pinned by its
    /// length and CRC-32: a new liblz4 (or another encoder) that encodes it
    /// differently fails here, so a change of the bytes on disk is noticed
    /// and its size effect measured before it ships.
    #[test]
    fn lz4_output_of_a_row_block_is_pinned() {
        let raw = row_block();
        assert_eq!(raw.len(), 3_956);
        let lz4 = stored(CompressionType::Lz4, &raw);
        assert_eq!(
            (lz4.len(), crc32fast::hash(&lz4)),
            (2_629, 0xf3f2a649),
            "length and CRC-32 of the stored LZ4 block"
        );
        assert_eq!(
            decompress_block(CompressionType::Lz4 as u8, &lz4, None).unwrap(),
            raw
        );
    }

    /// Tables written before the encoder became liblz4 hold the pure-Rust
    /// encoder's blocks; the decoder reads them: the pinned bytes above and
    /// freshly encoded blocks of many shapes.
    #[test]
    fn blocks_of_the_former_lz4_encoder_still_read() {
        assert_eq!(
            decompress_block(CompressionType::Lz4 as u8, GOLDEN_LZ4_FORMER_ENCODER, None).unwrap(),
            compressible()
        );
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        let mut blocks = vec![row_block(), compressible(), vec![0u8; 70_000]];
        for _ in 0..200 {
            blocks.push(random_block(&mut rng));
        }
        for raw in blocks {
            let mut old = Vec::new();
            put_varint32(&mut old, raw.len() as u32);
            old.extend_from_slice(&lz4_flex::block::compress(&raw));
            assert_eq!(
                decompress_block(CompressionType::Lz4 as u8, &old, None).unwrap(),
                raw
            );
        }
    }

    /// A block of random length (0 to 64 KiB) and compressibility: runs of
    /// a small alphabet, copies of earlier bytes and noise.
    fn random_block(rng: &mut rand::rngs::SmallRng) -> Vec<u8> {
        let len = rng.random_range(0..=64 << 10);
        let alphabet = rng.random_range(1..=256u32);
        let mut b = Vec::with_capacity(len);
        while b.len() < len {
            match rng.random_range(0..3) {
                0 if b.len() > 8 => {
                    let from = rng.random_range(0..b.len() - 4);
                    let n = rng.random_range(4..=(b.len() - from).min(300));
                    for i in 0..n {
                        b.push(b[from + i]);
                    }
                }
                1 => {
                    let c = rng.random_range(0..alphabet) as u8;
                    b.extend(std::iter::repeat_n(c, rng.random_range(1..40)));
                }
                _ => b.push(rng.random_range(0..alphabet) as u8),
            }
        }
        b.truncate(len);
        b
    }

    /// Random blocks round-trip through the stored LZ4 form, and the stored
    /// form is the standard LZ4 block format (another decoder reads it).
    #[test]
    fn lz4_round_trips_random_blocks() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
        let mut c = BlockCompressor::new(CompressionType::Lz4, DEFAULT_COMPRESSION_LEVEL, None)
            .unwrap();
        let mut out = Vec::new();
        let mut compressed = 0;
        for _ in 0..300 {
            let raw = random_block(&mut rng);
            if !c.compress(&raw, &mut out) {
                continue;
            }
            compressed += 1;
            assert_eq!(
                decompress_block(CompressionType::Lz4 as u8, &out, None).unwrap(),
                raw
            );
            let mut r = Reader::new(&out);
            assert_eq!(r.varint32(), Some(raw.len() as u32));
            assert_eq!(
                lz4_flex::block::decompress(&out[r.pos()..], raw.len()).unwrap(),
                raw
            );
        }
        assert!(compressed > 100, "only {compressed} blocks compressed");
    }

    #[test]
    fn incompressible_blocks_are_stored_as_is() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let noise: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        for ty in [
            CompressionType::Snappy,
            CompressionType::Lz4,
            CompressionType::Zstd,
        ] {
            let mut c = BlockCompressor::new(ty, DEFAULT_COMPRESSION_LEVEL, None).unwrap();
            let mut out = Vec::new();
            assert!(!c.compress(&noise, &mut out), "{ty:?}");
        }
    }

    #[test]
    fn codecs_this_build_lacks_are_not_supported() {
        for (ty, name) in [
            (2u8, "ZLIB_COMPRESSION"),
            (3, "BZLIB2_COMPRESSION"),
            (5, "LZ4HC_COMPRESSION"),
            (6, "XPRESS_COMPRESSION"),
        ] {
            match decompress_block(ty, b"whatever", None) {
                Err(DecodeError::NotSupported(m)) => assert!(m.contains(name), "{m}"),
                other => panic!("type {ty}: {other:?}"),
            }
        }
        match decompress_block(0x42, b"whatever", None) {
            Err(DecodeError::NotSupported(m)) => assert!(m.contains("0x42"), "{m}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn damaged_blocks_err_never_panic() {
        let raw = compressible();
        for ty in [
            CompressionType::Snappy,
            CompressionType::Lz4,
            CompressionType::Zstd,
        ] {
            let good = stored(ty, &raw);
            for cut in 0..good.len() {
                if let Ok(v) = decompress_block(ty as u8, &good[..cut], None) {
                    assert_eq!(v.len(), raw.len(), "{ty:?} cut {cut}");
                }
            }
            for i in 0..good.len() {
                let mut flipped = good.clone();
                flipped[i] ^= 0x5a;
                if let Ok(v) = decompress_block(ty as u8, &flipped, None) {
                    assert_eq!(v.len(), raw.len(), "{ty:?} flip {i}");
                }
            }
            // A length far beyond what the bytes can hold is refused
            // before anything that size is allocated.
            let mut lying = Vec::new();
            put_varint32(&mut lying, u32::MAX);
            lying.extend_from_slice(&good[2..]);
            if ty != CompressionType::Snappy {
                assert!(decompress_block(ty as u8, &lying, None).is_err(), "{ty:?}");
            }
        }
    }

    #[test]
    fn zstd_dictionary_round_trips_and_is_required() {
        // Blocks sharing a vocabulary the dictionary can learn.
        let blocks: Vec<Vec<u8>> = (0..200u32)
            .map(|i| {
                let mut b = Vec::new();
                for j in 0..40u32 {
                    b.extend_from_slice(
                        format!(
                            "user{:06}:name=person-{};city=town{};",
                            i * 40 + j,
                            j % 7,
                            i % 5
                        )
                        .as_bytes(),
                    );
                }
                b
            })
            .collect();
        for train in [true, false] {
            let dict = make_zstd_dictionary(&blocks, 4096, train).unwrap();
            assert!(dict.len() <= 4096);
            let mut c = BlockCompressor::new(CompressionType::Zstd, 3, Some(&dict)).unwrap();
            let d = ZstdDictionary::new(&dict);
            let mut out = Vec::new();
            assert!(c.compress(&blocks[7], &mut out));
            let ty = CompressionType::Zstd as u8;
            assert_eq!(decompress_block(ty, &out, Some(&d)).unwrap(), blocks[7]);
            if train {
                // The frame names the trained dictionary: without it,
                // decoding fails rather than yielding other bytes.
                assert!(decompress_block(ty, &out, None).is_err());
            }
        }
        assert_eq!(make_zstd_dictionary(&[], 4096, true), None);
        assert_eq!(make_zstd_dictionary(&blocks, 0, true), None);
    }
}
