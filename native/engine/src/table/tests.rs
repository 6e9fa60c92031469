//! Table-level tests: round trips against a model, corruption, block cache.

use std::cmp::Ordering;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering as AtomicOrdering};

use parking_lot::Mutex;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use super::*;
use crate::cache::LruCache;
use crate::error::{Error, Result};
use crate::fs::{RandomAccessFile, WritableFile};
use crate::iterator::InternalIterator;
use crate::key::{
    MAX_SEQUENCE, SequenceNumber, ValueKind, append_internal_key, compare_internal,
    make_internal_key, parse_internal_key,
};
use crate::memtable::{Lookup, RangeTombstone};
use crate::options::{CompressionType, Options, PrefixExtractor};

// ---------------------------------------------------------------- test doubles

/// An in-memory writable file.
#[derive(Clone, Default)]
struct MemWritable {
    data: Arc<Mutex<Vec<u8>>>,
    synced: Arc<AtomicBool>,
}

impl WritableFile for MemWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.data.lock().extend_from_slice(data);
        Ok(())
    }
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }
    fn sync(&mut self) -> Result<()> {
        self.synced.store(true, AtomicOrdering::SeqCst);
        Ok(())
    }
    fn len(&self) -> u64 {
        self.data.lock().len() as u64
    }
}

/// An in-memory random-access file that counts its reads.
#[derive(Debug)]
struct CountingFile {
    data: Vec<u8>,
    reads: AtomicUsize,
}

impl CountingFile {
    fn new(data: Vec<u8>) -> Arc<Self> {
        Arc::new(CountingFile {
            data,
            reads: AtomicUsize::new(0),
        })
    }
    fn reads(&self) -> usize {
        self.reads.load(AtomicOrdering::SeqCst)
    }
}

impl RandomAccessFile for CountingFile {
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.reads.fetch_add(1, AtomicOrdering::SeqCst);
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        match start
            .checked_add(buf.len())
            .and_then(|end| self.data.get(start..end))
        {
            Some(src) => {
                buf.copy_from_slice(src);
                Ok(())
            }
            None => Err(Error::io(
                "read past end of test file",
                &io::Error::from(io::ErrorKind::UnexpectedEof),
            )),
        }
    }
    fn size(&self) -> Result<u64> {
        Ok(self.data.len() as u64)
    }
}

// ---------------------------------------------------------------- helpers

const FILE: &str = "/db/000042.sst";

/// A table's contents, sorted in internal-key order.
#[derive(Clone)]
struct Model {
    entries: Vec<(Vec<u8>, Vec<u8>)>,
    tombstones: Vec<RangeTombstone>,
}

impl Model {
    /// Random keys with 1–3 versions each (some deletions), values that
    /// compress, and a few range tombstones.
    fn random(rng: &mut SmallRng, num_keys: usize) -> Model {
        let mut seqs: Vec<SequenceNumber> = (1..=(num_keys as u64 * 3)).collect();
        seqs.shuffle(rng);
        let mut seqs = seqs.into_iter();
        let mut entries = Vec::new();
        for i in 0..num_keys {
            let tail_len = rng.random_range(0..12);
            let mut uk = format!("user{:07}", i * 3).into_bytes();
            uk.extend((0..tail_len).map(|_| rng.random_range(b'a'..=b'z')));
            for _ in 0..rng.random_range(1..=3) {
                let seq = seqs.next().unwrap();
                let kind = if rng.random_bool(0.15) {
                    ValueKind::Deletion
                } else {
                    ValueKind::Value
                };
                let value = if kind == ValueKind::Value {
                    let n = rng.random_range(0..120);
                    format!("value-of-{i}-at-{seq}-")
                        .into_bytes()
                        .into_iter()
                        .cycle()
                        .take(n)
                        .collect()
                } else {
                    Vec::new()
                };
                entries.push((make_internal_key(&uk, seq, kind), value));
            }
        }
        entries.sort_by(|a, b| compare_internal(&a.0, &b.0));
        let mut tombstones = Vec::new();
        for _ in 0..5 {
            let a = rng.random_range(0..num_keys * 3);
            let b = a + rng.random_range(1..300);
            tombstones.push(RangeTombstone {
                begin: format!("user{a:07}").into_bytes(),
                end: format!("user{b:07}").into_bytes(),
                seq: rng.random_range(1..num_keys as u64 * 3),
            });
        }
        Model {
            entries,
            tombstones,
        }
    }

    fn get(&self, user_key: &[u8], snapshot: SequenceNumber) -> (Lookup, Vec<u8>) {
        let seek = seek_key(user_key, snapshot);
        let i = self.lower_bound(&seek);
        match self.entries.get(i) {
            Some((k, v)) => {
                let p = parse_internal_key(k).unwrap();
                if p.user_key != user_key {
                    return (Lookup::Absent, Vec::new());
                }
                match p.kind {
                    ValueKind::Value => (Lookup::Value(p.seq), v.clone()),
                    _ => (Lookup::Deleted(p.seq), Vec::new()),
                }
            }
            None => (Lookup::Absent, Vec::new()),
        }
    }

    fn lower_bound(&self, target: &[u8]) -> usize {
        self.entries
            .partition_point(|(k, _)| compare_internal(k, target) == Ordering::Less)
    }

    fn max_covering(&self, user_key: &[u8], snapshot: SequenceNumber) -> Option<SequenceNumber> {
        self.tombstones
            .iter()
            .filter(|t| t.covers(user_key, snapshot))
            .map(|t| t.seq)
            .max()
    }
}

fn seek_key(user_key: &[u8], snapshot: SequenceNumber) -> Vec<u8> {
    let mut v = Vec::new();
    append_internal_key(&mut v, user_key, snapshot, ValueKind::SEEK);
    v
}

fn build_opts(
    compression: CompressionType,
    block_size: usize,
    restart: usize,
) -> TableBuildOptions {
    TableBuildOptions {
        block_size,
        block_restart_interval: restart,
        compression,
        filter_bits_per_key: Some(10.0),
        whole_key_filtering: true,
        prefix_extractor: None,
        file_name: FILE.into(),
        statistics: None,
        ..TableBuildOptions::default()
    }
}

/// ZSTD options with a dictionary of `max_dict_bytes`, trained from
/// `train_bytes` of samples (0: the samples are the dictionary).
fn zstd_dict_opts(block_size: usize, max_dict_bytes: u32, train_bytes: u32) -> TableBuildOptions {
    TableBuildOptions {
        compression_opts: crate::options::CompressionOptions {
            max_dict_bytes,
            zstd_max_train_bytes: train_bytes,
            level: 5,
            ..Default::default()
        },
        ..build_opts(CompressionType::Zstd, block_size, 16)
    }
}

/// Builds a table of `m` and returns its bytes and the builder's properties.
fn build(m: &Model, opts: TableBuildOptions) -> (Vec<u8>, TableProperties) {
    let file = MemWritable::default();
    let mut b = TableBuilder::new(Box::new(file.clone()), opts);
    for (i, (k, v)) in m.entries.iter().enumerate() {
        b.add(k, v).unwrap();
        if let Some(t) = m.tombstones.get(i) {
            b.add_range_tombstone(t);
        }
    }
    for t in m.tombstones.iter().skip(m.entries.len()) {
        b.add_range_tombstone(t);
    }
    assert_eq!(b.num_entries(), m.entries.len() as u64);
    let props = b.finish().unwrap();
    assert!(file.synced.load(AtomicOrdering::SeqCst), "finish syncs");
    let data = file.data.lock().clone();
    assert_eq!(props.file_size, data.len() as u64);
    (data, props)
}

fn reader_opts() -> TableReaderOptions {
    TableReaderOptions {
        file_name: FILE.into(),
        ..TableReaderOptions::default()
    }
}

fn open(data: Vec<u8>, opts: TableReaderOptions) -> Result<(Arc<TableReader>, Arc<CountingFile>)> {
    let file = CountingFile::new(data);
    let size = file.data.len() as u64;
    let t = TableReader::open(file.clone(), size, opts)?;
    Ok((Arc::new(t), file))
}

fn ro() -> TableReadOptions {
    TableReadOptions::default()
}

/// Asserts the iterator sits on `m.entries[i]`, or is invalid when `i` is
/// out of range.
fn assert_at(it: &TableIter, m: &Model, i: Option<usize>) {
    it.status().unwrap();
    match i.and_then(|i| m.entries.get(i).map(|e| (i, e))) {
        Some((i, (k, v))) => {
            assert!(it.valid(), "expected entry {i}");
            assert_eq!(it.key(), k.as_slice(), "key of entry {i}");
            assert_eq!(it.value(), v.as_slice(), "value of entry {i}");
        }
        None => assert!(!it.valid(), "expected invalid, at {:?}", it.key()),
    }
}

// ---------------------------------------------------------------- round trips

fn check_round_trip(seed: u64, compression: CompressionType, block_size: usize, restart: usize) {
    check_round_trip_with(seed, build_opts(compression, block_size, restart));
}

fn check_round_trip_with(seed: u64, opts: TableBuildOptions) {
    let (compression, block_size, restart) = (
        opts.compression,
        opts.block_size,
        opts.block_restart_interval,
    );
    let mut rng = SmallRng::seed_from_u64(seed);
    let m = Model::random(&mut rng, 8000);
    let (data, built) = build(&m, opts);
    // The builder's checksum covers every byte of the file.
    assert_eq!(built.file_checksum, Some(crate::xxh64::hash(&data)));
    let built = TableProperties {
        file_checksum: None,
        ..built
    };
    let cache = Arc::new(LruCache::new(1 << 20, 2, false, 0.5).unwrap());
    let (t, _) = open(
        data,
        TableReaderOptions {
            block_cache: Some(cache),
            ..reader_opts()
        },
    )
    .unwrap();
    let ctx = format!("seed {seed} {compression:?} block {block_size} restart {restart}");

    // Properties.
    let p = t.properties();
    assert_eq!(p.file_size, built.file_size);
    assert_eq!(p, &built, "{ctx}");
    assert_eq!(p.num_entries, m.entries.len() as u64);
    let dels = m
        .entries
        .iter()
        .filter(|(k, _)| parse_internal_key(k).unwrap().kind == ValueKind::Deletion)
        .count();
    assert_eq!(p.num_deletions, dels as u64);
    assert_eq!(p.num_range_deletions, m.tombstones.len() as u64);
    assert_eq!(p.smallest_key, m.entries[0].0);
    assert_eq!(p.largest_key, m.entries.last().unwrap().0);
    let seqs = m
        .entries
        .iter()
        .map(|(k, _)| crate::key::sequence(k))
        .chain(m.tombstones.iter().map(|t| t.seq));
    assert_eq!(p.smallest_seqno, seqs.clone().min().unwrap());
    assert_eq!(p.largest_seqno, seqs.max().unwrap());
    assert!(
        p.num_data_blocks > 10,
        "{ctx}: {} blocks",
        p.num_data_blocks
    );
    assert_eq!(p.compression, compression);
    assert_eq!(p.format_version, FORMAT_VERSION);
    assert!(p.filter_size > 0 && p.index_size > 0 && p.data_size < p.file_size);
    assert!(p.creation_time > 1_600_000_000);
    assert_eq!(t.range_tombstones(), m.tombstones.as_slice());

    // Point lookups at several snapshots.
    let mut value = Vec::new();
    let mut user_keys: Vec<Vec<u8>> = m
        .entries
        .iter()
        .map(|(k, _)| crate::key::user_key(k).to_vec())
        .collect();
    user_keys.dedup();
    for uk in user_keys.iter().step_by(3) {
        for snap in [
            0,
            rng.random_range(1..24_000),
            rng.random_range(1..24_000),
            MAX_SEQUENCE,
            u64::MAX,
        ] {
            let (want, want_value) = m.get(uk, snap.min(MAX_SEQUENCE));
            value.clear();
            value.extend_from_slice(b"garbage");
            let got = t.get(uk, snap, &ro(), &mut value).unwrap();
            assert_eq!(
                got.result,
                want,
                "{ctx}: {:?} at {snap}",
                String::from_utf8_lossy(uk)
            );
            assert!(got.filter_checked && !got.filter_rejected);
            if let Lookup::Value(_) = want {
                assert_eq!(value, want_value);
            }
            assert_eq!(t.max_covering_tombstone(uk, snap), m.max_covering(uk, snap));
            assert!(t.may_contain(uk));
        }
    }
    // Absent keys: mostly rejected by the filter, always Absent.
    let mut rejected = 0;
    for i in 0..2000 {
        let uk = format!("user{:07}", i * 3 + 1).into_bytes();
        let got = t.get(&uk, MAX_SEQUENCE, &ro(), &mut value).unwrap();
        assert_eq!(got.result, Lookup::Absent);
        rejected += usize::from(got.filter_rejected);
        assert_eq!(got.filter_rejected, !t.may_contain(&uk));
    }
    assert!(
        rejected > 1900,
        "{ctx}: filter rejected only {rejected}/2000"
    );

    // Full scans both ways.
    let mut it = t.iter(ro());
    it.seek_to_first();
    for i in 0..m.entries.len() {
        assert_at(&it, &m, Some(i));
        it.next();
    }
    assert_at(&it, &m, None);
    it.seek_to_last();
    for i in (0..m.entries.len()).rev() {
        assert_at(&it, &m, Some(i));
        it.prev();
    }
    assert_at(&it, &m, None);

    // Seeks to existing keys, to points between versions, and to absent keys.
    let n = m.entries.len();
    for _ in 0..3000 {
        let target = match rng.random_range(0..3) {
            0 => m.entries[rng.random_range(0..n)].0.clone(),
            1 => {
                let (k, _) = &m.entries[rng.random_range(0..n)];
                seek_key(crate::key::user_key(k), rng.random_range(0..24_000))
            }
            _ => seek_key(
                format!("user{:07}", rng.random_range(0..25_000)).as_bytes(),
                rng.random_range(0..MAX_SEQUENCE),
            ),
        };
        let lb = m.lower_bound(&target);
        it.seek(&target);
        assert_at(&it, &m, Some(lb));
        // seek_for_prev: the last entry ≤ target.
        let le = if lb < n && m.entries[lb].0 == target {
            Some(lb)
        } else {
            lb.checked_sub(1)
        };
        it.seek_for_prev(&target);
        assert_at(&it, &m, le);
        // A short random walk from there.
        let mut pos = le;
        for _ in 0..5 {
            if !it.valid() {
                break;
            }
            if rng.random_bool(0.5) {
                it.next();
                pos = pos.map(|p| p + 1);
            } else {
                it.prev();
                pos = pos.and_then(|p| p.checked_sub(1));
            }
            assert_at(&it, &m, pos);
        }
    }
    for (target, want) in [
        (seek_key(b"", MAX_SEQUENCE), (Some(0), None)),
        (seek_key(b"zzz", 0), (None, Some(n - 1))),
    ] {
        it.seek(&target);
        assert_at(&it, &m, want.0);
        it.seek_for_prev(&target);
        assert_at(&it, &m, want.1);
    }

    // Offsets grow with the key and stay within the data.
    let mut last = 0;
    for (k, _) in m.entries.iter().step_by(97) {
        let off = t.approximate_offset_of(k);
        assert!(off >= last && off < p.data_size);
        last = off;
    }
    assert_eq!(t.approximate_offset_of(&seek_key(b"zzz", 0)), p.data_size);
    assert_eq!(t.approximate_offset_of(&seek_key(b"", MAX_SEQUENCE)), 0);
    t.verify_checksums().unwrap();
}

#[test]
fn round_trip_uncompressed_4k_blocks() {
    check_round_trip(1, CompressionType::None, 4096, 16);
}

#[test]
fn round_trip_lz4_4k_blocks() {
    check_round_trip(2, CompressionType::Lz4, 4096, 16);
}

#[test]
fn round_trip_lz4_tiny_blocks_restart_every_entry() {
    check_round_trip(3, CompressionType::Lz4, 128, 1);
}

#[test]
fn round_trip_snappy_4k_blocks() {
    check_round_trip(11, CompressionType::Snappy, 4096, 16);
}

#[test]
fn round_trip_snappy_tiny_blocks_restart_every_entry() {
    check_round_trip(12, CompressionType::Snappy, 128, 1);
}

#[test]
fn round_trip_zstd_4k_blocks() {
    check_round_trip(13, CompressionType::Zstd, 4096, 16);
}

#[test]
fn round_trip_zstd_tiny_blocks_restart_every_entry() {
    check_round_trip(14, CompressionType::Zstd, 128, 1);
}

#[test]
fn round_trip_zstd_trained_dictionary() {
    // 4 KiB dictionary trained from the first 64 KiB of blocks.
    check_round_trip_with(15, zstd_dict_opts(1024, 4096, 64 << 10));
}

#[test]
fn round_trip_zstd_raw_dictionary() {
    check_round_trip_with(16, zstd_dict_opts(1024, 4096, 0));
}

#[test]
fn round_trip_zstd_dictionary_larger_than_the_table() {
    // Every data block is held back until `finish`.
    check_round_trip_with(17, zstd_dict_opts(4096, 64 << 20, 0));
}

/// The dictionary is made, stored in its meta block, named by the
/// properties, and makes small blocks smaller.
#[test]
fn zstd_dictionary_is_stored_and_shrinks_small_blocks() {
    let mut rng = SmallRng::seed_from_u64(18);
    let m = Model::random(&mut rng, 6000);
    let (plain, plain_props) = build(&m, build_opts(CompressionType::Zstd, 256, 16));
    assert!(plain_props.compression_dict.is_none());
    for train in [0, 64 << 10] {
        let (dict, props) = build(&m, zstd_dict_opts(256, 8192, train));
        let h = props.compression_dict;
        assert!(!h.is_none() && h.size <= 8192, "train {train}: {h:?}");
        assert!(
            h.offset >= props.data_size,
            "the dictionary follows the data"
        );
        assert!(
            dict.len() < plain.len(),
            "train {train}: with dictionary {} vs without {}",
            dict.len(),
            plain.len()
        );
        let (t, _) = open(dict, reader_opts()).unwrap();
        assert_eq!(t.properties().compression_dict, h);
        let mut it = t.iter(ro());
        it.seek_to_first();
        for i in 0..m.entries.len() {
            assert_at(&it, &m, Some(i));
            it.next();
        }
        assert_at(&it, &m, None);
    }
    // Other codecs ignore the dictionary options.
    let snappy = TableBuildOptions {
        compression: CompressionType::Snappy,
        ..zstd_dict_opts(256, 8192, 0)
    };
    assert!(build(&m, snappy).1.compression_dict.is_none());
}

#[test]
fn every_codec_shrinks_compressible_tables() {
    let mut rng = SmallRng::seed_from_u64(19);
    let m = Model::random(&mut rng, 3000);
    let (plain, _) = build(&m, build_opts(CompressionType::None, 4096, 16));
    for c in [
        CompressionType::Snappy,
        CompressionType::Lz4,
        CompressionType::Zstd,
    ] {
        let (data, props) = build(&m, build_opts(c, 4096, 16));
        assert_eq!(props.compression, c);
        assert!(
            data.len() * 10 < plain.len() * 8,
            "{c:?} {} vs plain {}",
            data.len(),
            plain.len()
        );
    }
}

/// Rewrites the type byte of the first data block to `ty`, with a valid
/// checksum: what a build with codec `ty` would have written.
fn with_first_block_type(data: &[u8], first: BlockHandle, ty: u8) -> Vec<u8> {
    let mut d = data.to_vec();
    let end = first.offset as usize + first.size as usize;
    let trailer = super::format::block_trailer(&d[first.offset as usize..end], ty);
    d[end..end + trailer.len()].copy_from_slice(&trailer);
    d
}

/// A block whose codec this build lacks fails the read with NotSupported
/// naming the codec; it is never decoded as something else.
#[test]
fn a_codec_this_build_lacks_is_not_supported_naming_it() {
    let m = small_table().0;
    // One data block, at offset 0.
    let (data, props) = build(&m, build_opts(CompressionType::None, 1 << 20, 4));
    assert_eq!(props.num_data_blocks, 1);
    let first = BlockHandle {
        offset: 0,
        size: props.data_size - 5,
    };
    for (ty, name) in [
        (2u8, "ZLIB_COMPRESSION"),
        (3, "BZLIB2_COMPRESSION"),
        (5, "LZ4HC_COMPRESSION"),
        (6, "XPRESS_COMPRESSION"),
        (0x42, "unknown compression type 0x42"),
    ] {
        let bad = with_first_block_type(&data, first, ty);
        let (t, _) = open(bad, reader_opts()).unwrap();
        let uk = crate::key::user_key(&m.entries[0].0);
        let e = t.get(uk, MAX_SEQUENCE, &ro(), &mut Vec::new()).unwrap_err();
        assert!(matches!(e, Error::NotSupported(_)), "{e}");
        let msg = e.to_string();
        assert!(msg.contains(name) && msg.contains(FILE), "{msg}");
        let mut it = t.iter(ro());
        it.seek_to_first();
        assert!(!it.valid());
        assert!(matches!(it.status(), Err(Error::NotSupported(_))));
    }
}

#[test]
fn round_trip_uncompressed_odd_restart_interval() {
    check_round_trip(4, CompressionType::None, 700, 3);
}

#[test]
fn lz4_shrinks_compressible_tables() {
    let mut rng = SmallRng::seed_from_u64(5);
    let m = Model::random(&mut rng, 3000);
    let (plain, _) = build(&m, build_opts(CompressionType::None, 4096, 16));
    let (lz4, _) = build(&m, build_opts(CompressionType::Lz4, 4096, 16));
    assert!(
        lz4.len() * 10 < plain.len() * 8,
        "lz4 {} vs plain {}",
        lz4.len(),
        plain.len()
    );
}

/// Block boundaries where the next key's first differing byte is one more
/// than the last key's, the separator then being a proper prefix of the next
/// user key, or the last key with a later byte incremented: every key, every
/// separator-shaped key and every gap reads right, by get and by seek.
#[test]
fn separators_that_are_prefixes_of_the_next_key_keep_lookups_in_the_right_block() {
    let mut users: Vec<Vec<u8>> = Vec::new();
    for a in [0x10u8, 0x11, 0x12, 0xfe, 0xff] {
        for tail in [&[0x00u8, 0x05][..], &[0x7f, 0xff, 0x01], &[0xff, 0xff], &[0xff]] {
            let mut k = vec![0x40, a];
            k.extend_from_slice(tail);
            users.push(k);
        }
        // Bare keys after some groups only: a group without one starts
        // with a key that the previous group's last key's separator is a
        // proper prefix of.
        if a == 0x10 || a == 0xfe {
            users.push(vec![0x40, a]);
        }
    }
    // Next is exactly its prefix plus one: the separator increments 0x05.
    users.push(vec![0x40, 0xfd, 0x05, 0x07]);
    users.sort();
    users.dedup();
    let entries: Vec<_> = users
        .iter()
        .enumerate()
        .map(|(i, u)| {
            (
                make_internal_key(u, 1 + i as u64, ValueKind::Value),
                format!("v{i}").into_bytes(),
            )
        })
        .collect();
    let m = Model {
        entries,
        tombstones: Vec::new(),
    };
    // One entry per block: every key ends a block.
    let (data, props) = build(&m, build_opts(CompressionType::None, 1, 1));
    assert_eq!(props.num_data_blocks, users.len() as u64);
    let (t, _) = open(data, reader_opts()).unwrap();
    let mut probes = users.clone();
    for u in &users {
        for cut in 1..=u.len() {
            let mut p = u[..cut].to_vec();
            probes.push(p.clone());
            if let Some(last) = p.last_mut()
                && *last < 0xff
            {
                *last += 1;
                probes.push(p.clone());
            }
            p.push(0);
            probes.push(p);
        }
    }
    let mut v = Vec::new();
    for uk in &probes {
        let got = t.get(uk, MAX_SEQUENCE, &ro(), &mut v).unwrap();
        let (want, want_v) = m.get(uk, MAX_SEQUENCE);
        assert_eq!(got.result, want, "{uk:?}");
        if matches!(want, Lookup::Value(_)) {
            assert_eq!(v, want_v, "{uk:?}");
        }
        let target = seek_key(uk, MAX_SEQUENCE);
        let mut it = t.iter(ro());
        it.seek(&target);
        assert_at(&it, &m, Some(m.lower_bound(&target)));
    }
}

#[test]
fn one_user_key_spanning_many_blocks() {
    // 500 versions of one key, then a second key: index separators cannot
    // shorten, and lookups at every snapshot must land in the right block.
    let mut entries = Vec::new();
    for seq in (1..=500u64).rev() {
        let kind = if seq % 10 == 0 {
            ValueKind::Deletion
        } else {
            ValueKind::Value
        };
        entries.push((
            make_internal_key(b"k", seq, kind),
            format!("v{seq}").into_bytes(),
        ));
    }
    entries.push((make_internal_key(b"l", 7, ValueKind::Value), b"l7".to_vec()));
    let m = Model {
        entries,
        tombstones: Vec::new(),
    };
    let (data, props) = build(&m, build_opts(CompressionType::None, 64, 2));
    assert!(props.num_data_blocks > 50);
    let (t, _) = open(data, reader_opts()).unwrap();
    let mut v = Vec::new();
    for snap in 0..=502 {
        for uk in [&b"k"[..], b"l", b"j", b"kk", b"m"] {
            let got = t.get(uk, snap, &ro(), &mut v).unwrap();
            let (want, want_v) = m.get(uk, snap);
            assert_eq!(got.result, want, "{uk:?} at {snap}");
            if matches!(want, Lookup::Value(_)) {
                assert_eq!(v, want_v);
            }
        }
    }
    let mut it = t.iter(ro());
    it.seek(&seek_key(b"k", 250));
    assert_eq!(parse_internal_key(it.key()).unwrap().seq, 250);
    it.seek_for_prev(&seek_key(b"k", 250));
    assert_eq!(parse_internal_key(it.key()).unwrap().seq, 251);
}

#[test]
fn empty_and_tombstone_only_tables() {
    let m = Model {
        entries: Vec::new(),
        tombstones: vec![RangeTombstone {
            begin: b"a".to_vec(),
            end: b"m".to_vec(),
            seq: 9,
        }],
    };
    let (data, props) = build(&m, build_opts(CompressionType::Lz4, 4096, 16));
    assert_eq!((props.num_entries, props.num_data_blocks), (0, 0));
    assert_eq!((props.smallest_seqno, props.largest_seqno), (9, 9));
    assert_eq!(props.filter_size, 0, "no filter without keys");
    let (t, _) = open(data, reader_opts()).unwrap();
    let mut v = Vec::new();
    let got = t.get(b"c", MAX_SEQUENCE, &ro(), &mut v).unwrap();
    assert_eq!(
        got,
        TableGet {
            result: Lookup::Absent,
            filter_checked: false,
            filter_rejected: false
        }
    );
    assert_eq!(t.max_covering_tombstone(b"c", 100), Some(9));
    assert_eq!(t.max_covering_tombstone(b"c", 8), None);
    assert_eq!(t.max_covering_tombstone(b"m", 100), None);
    let mut it = t.iter(ro());
    it.seek_to_first();
    assert!(!it.valid());
    it.seek_to_last();
    assert!(!it.valid());
    it.seek(&seek_key(b"c", 5));
    assert!(!it.valid());
    it.status().unwrap();
    t.verify_checksums().unwrap();

    let (data, _) = build(
        &Model {
            entries: Vec::new(),
            tombstones: Vec::new(),
        },
        TableBuildOptions::default(),
    );
    let (t, _) = open(data, TableReaderOptions::default()).unwrap();
    assert_eq!(t.properties().num_entries, 0);
    assert!(t.range_tombstones().is_empty());
}

#[test]
fn no_filter_unless_asked_for_whole_keys() {
    let mut rng = SmallRng::seed_from_u64(6);
    let m = Model::random(&mut rng, 100);
    for (bits, whole) in [(None, true), (Some(10.0), false), (Some(0.0), true)] {
        let opts = TableBuildOptions {
            filter_bits_per_key: bits,
            whole_key_filtering: whole,
            ..build_opts(CompressionType::Lz4, 4096, 16)
        };
        let (data, props) = build(&m, opts);
        assert_eq!(props.filter_size, 0);
        let (t, _) = open(data, reader_opts()).unwrap();
        let mut v = Vec::new();
        let got = t.get(b"nope", MAX_SEQUENCE, &ro(), &mut v).unwrap();
        assert!(!got.filter_checked && !got.filter_rejected);
        assert!(t.may_contain(b"nope"));
    }
}

#[test]
fn builder_rejects_bad_keys_and_order() {
    let mut b = TableBuilder::new(
        Box::new(MemWritable::default()),
        TableBuildOptions::default(),
    );
    let k5 = make_internal_key(b"b", 5, ValueKind::Value);
    b.add(&k5, b"x").unwrap();
    let is_invalid = |r: Result<()>| matches!(r, Err(Error::InvalidArgument(_)));
    assert!(is_invalid(b.add(&k5, b"y")), "duplicate");
    assert!(
        is_invalid(b.add(&make_internal_key(b"b", 6, ValueKind::Value), b"")),
        "newer version after older"
    );
    assert!(
        is_invalid(b.add(&make_internal_key(b"a", 1, ValueKind::Value), b"")),
        "smaller user key"
    );
    assert!(is_invalid(b.add(b"short", b"")), "no trailer");
    assert!(is_invalid(b.add(
        &make_internal_key(b"c", 1, ValueKind::RangeDeletion),
        b"d"
    )));
    let mut bad_kind = make_internal_key(b"c", 1, ValueKind::Value);
    bad_kind[1] = 9;
    assert!(is_invalid(b.add(&bad_kind, b"")), "unknown kind");
    b.add(&make_internal_key(b"b", 4, ValueKind::Deletion), b"")
        .unwrap();
    assert_eq!(b.num_entries(), 2);
    assert!(b.estimated_file_size() > 0);
    b.abandon();
}

#[test]
fn build_options_follow_database_options() {
    let mut o = Options::default();
    o.table.block_size = 16 << 10;
    o.table.block_restart_interval = 8;
    o.table.filter_bits_per_key = Some(12.0);
    o.compression = CompressionType::None;
    let b = TableBuildOptions::from_options(&o, "x.sst");
    assert_eq!(
        (
            b.block_size,
            b.block_restart_interval,
            b.filter_bits_per_key,
            b.compression
        ),
        (16 << 10, 8, Some(12.0), CompressionType::None)
    );
    assert!(b.whole_key_filtering);
    assert_eq!(b.file_name, "x.sst");
}

// ---------------------------------------------------------------- prefix filters

/// A table of keys `{prefix}{i}` for the prefixes given, 20 keys each.
fn prefix_table(prefixes: &[&str], whole: bool, extractor: Option<PrefixExtractor>) -> Vec<u8> {
    let mut entries = Vec::new();
    let mut seq = 1;
    for p in prefixes {
        for i in 0..20 {
            entries.push((
                make_internal_key(format!("{p}{i:02}").as_bytes(), seq, ValueKind::Value),
                b"v".to_vec(),
            ));
            seq += 1;
        }
    }
    entries.sort_by(|a, b| compare_internal(&a.0, &b.0));
    let m = Model {
        entries,
        tombstones: Vec::new(),
    };
    let opts = TableBuildOptions {
        whole_key_filtering: whole,
        prefix_extractor: extractor,
        ..build_opts(CompressionType::Lz4, 256, 4)
    };
    build(&m, opts).0
}

fn reader_with(extractor: Option<PrefixExtractor>) -> TableReaderOptions {
    TableReaderOptions {
        prefix_extractor: extractor,
        ..reader_opts()
    }
}

#[test]
fn prefix_filter_answers_for_its_extractor_only() {
    let fixed3 = Some(PrefixExtractor::Fixed(3));
    let data = prefix_table(&["abc", "abd", "xyz"], false, fixed3);
    let (t, _) = open(data.clone(), reader_with(fixed3)).unwrap();
    let p = t.properties();
    assert_eq!(p.prefix_extractor.as_deref(), Some("rocksdb.FixedPrefix.3"));
    assert!(!p.whole_key_filtering);
    assert!(p.filter_size > 0, "a filter of prefixes only");
    for present in ["abc", "abd", "xyz"] {
        assert!(!t.prefix_ruled_out(present.as_bytes(), ro()).unwrap());
    }
    let absent = (0..200)
        .filter(|i| {
            t.prefix_ruled_out(format!("q{i:02}").as_bytes(), ro())
                .unwrap()
        })
        .count();
    assert!(
        absent > 180,
        "only {absent} of 200 absent prefixes ruled out"
    );
    // Point lookups probe the prefix when the filter holds no whole keys.
    let mut v = Vec::new();
    let got = t.get(b"abc07", MAX_SEQUENCE, &ro(), &mut v).unwrap();
    assert!(got.filter_checked && matches!(got.result, Lookup::Value(_)));
    let got = t.get(b"ab", MAX_SEQUENCE, &ro(), &mut v).unwrap();
    assert!(
        !got.filter_checked,
        "a key outside the domain has no prefix"
    );

    // Another extractor (or none) never probes these prefixes.
    for other in [
        None,
        Some(PrefixExtractor::Fixed(2)),
        Some(PrefixExtractor::Capped(3)),
    ] {
        let (t, _) = open(data.clone(), reader_with(other)).unwrap();
        for i in 0..50 {
            assert!(
                !t.prefix_ruled_out(format!("q{i:02}").as_bytes(), ro())
                    .unwrap()
            );
        }
        let got = t.get(b"qqq01", MAX_SEQUENCE, &ro(), &mut v).unwrap();
        assert!(!got.filter_checked, "{other:?}");
    }
}

#[test]
fn whole_keys_and_prefixes_in_one_filter() {
    let capped = Some(PrefixExtractor::Capped(3));
    let data = prefix_table(&["abc", "xyz"], true, capped);
    let (t, _) = open(data, reader_with(capped)).unwrap();
    assert!(t.properties().whole_key_filtering);
    let mut v = Vec::new();
    // Point lookups probe the whole key; seeks probe the prefix.
    let rejected = (0..100)
        .filter(|i| {
            t.get(format!("abc{i:03}").as_bytes(), MAX_SEQUENCE, &ro(), &mut v)
                .unwrap()
                .filter_rejected
        })
        .count();
    assert!(
        rejected > 90,
        "absent keys of a present prefix: {rejected} of 100 rejected"
    );
    assert!(!t.prefix_ruled_out(b"abc", ro()).unwrap());
    assert!(!t.prefix_ruled_out(b"xyz", ro()).unwrap());
}

#[test]
fn a_table_iterator_skips_a_prefix_seek_its_filter_rules_out() {
    let fixed3 = Some(PrefixExtractor::Fixed(3));
    let data = prefix_table(&["abc", "xyz"], false, fixed3);
    let (t, _) = open(data, reader_with(fixed3)).unwrap();
    let mut it = t.iter(ro());
    // Present prefix: an ordinary seek.
    assert!(!it.seek_prefix(&seek_key(b"abc05", MAX_SEQUENCE), b"abc"));
    assert_eq!(crate::key::user_key(it.key()), b"abc05");
    // Absent prefix (pick one the filter rules out): left invalid.
    let absent = (0..100)
        .map(|i| format!("m{i:02}"))
        .find(|p| t.prefix_ruled_out(p.as_bytes(), ro()).unwrap())
        .unwrap();
    let target = seek_key(format!("{absent}x").as_bytes(), MAX_SEQUENCE);
    assert!(it.seek_prefix(&target, absent.as_bytes()));
    assert!(!it.valid());
    it.status().unwrap();
    assert!(it.seek_for_prev_prefix(&target, absent.as_bytes()));
    assert!(!it.valid());
    // A plain seek afterwards positions as usual.
    it.seek(&target);
    assert_eq!(crate::key::user_key(it.key()), b"xyz00");
}

#[test]
fn reads_without_io_are_incomplete_until_the_block_is_cached() {
    let (m, data) = small_table();
    let cache = Arc::new(LruCache::new(1 << 20, 0, false, 0.5).unwrap());
    let (t, file) = open(
        data,
        TableReaderOptions {
            block_cache: Some(cache),
            ..reader_opts()
        },
    )
    .unwrap();
    let no_io = TableReadOptions {
        no_io: true,
        ..ro()
    };
    let uk = crate::key::user_key(&m.entries[0].0).to_vec();
    let mut v = Vec::new();
    let reads = file.reads.load(AtomicOrdering::SeqCst);
    match t.get(&uk, MAX_SEQUENCE, &no_io, &mut v) {
        Err(Error::Incomplete(msg)) => assert!(msg.contains("BLOCK_CACHE_TIER"), "{msg}"),
        other => panic!("expected Incomplete, got {other:?}"),
    }
    assert_eq!(file.reads.load(AtomicOrdering::SeqCst), reads, "no IO");
    let want = t.get(&uk, MAX_SEQUENCE, &ro(), &mut v).unwrap().result;
    assert_eq!(
        t.get(&uk, MAX_SEQUENCE, &no_io, &mut v).unwrap().result,
        want
    );
}

// ---------------------------------------------------------------- corruption

fn small_table() -> (Model, Vec<u8>) {
    small_table_with(build_opts(CompressionType::Lz4, 256, 4))
}

fn small_table_with(opts: TableBuildOptions) -> (Model, Vec<u8>) {
    let mut rng = SmallRng::seed_from_u64(7);
    let m = Model::random(&mut rng, 60);
    let (data, props) = build(&m, opts);
    assert!(props.num_data_blocks >= 4);
    (m, data)
}

/// Runs every read operation on a (possibly damaged) table; returns the
/// errors met. Must never panic or loop.
fn exercise(t: &Arc<TableReader>, m: &Model, ro: TableReadOptions) -> Vec<Error> {
    let mut errors = Vec::new();
    let mut v = Vec::new();
    for (k, _) in &m.entries {
        let uk = crate::key::user_key(k);
        if let Err(e) = t.get(uk, MAX_SEQUENCE, &ro, &mut v) {
            errors.push(e);
        }
        let _ = t.may_contain(uk);
        let _ = t.max_covering_tombstone(uk, MAX_SEQUENCE);
    }
    let _ = t.approximate_offset_of(&m.entries[m.entries.len() / 2].0);
    let limit = m.entries.len() * 4 + 10;
    let mut it = t.iter(ro);
    it.seek_to_first();
    let mut steps = 0;
    while it.valid() && steps < limit {
        it.next();
        steps += 1;
    }
    errors.extend(it.status().err());
    let mut it = t.iter(ro);
    it.seek_to_last();
    while it.valid() && steps < 2 * limit {
        it.prev();
        steps += 1;
    }
    errors.extend(it.status().err());
    for (k, _) in m.entries.iter().step_by(7) {
        let mut it = t.iter(ro);
        it.seek(k);
        it.seek_for_prev(k);
        errors.extend(it.status().err());
    }
    errors.extend(t.verify_checksums().err());
    errors
}

#[test]
fn flipped_data_byte_is_corruption_naming_file_and_block() {
    let (m, good) = small_table();
    let mut bad = good.clone();
    bad[10] ^= 0x40; // inside the first data block (offset 0)
    let (t, _) = open(bad.clone(), reader_opts()).unwrap();
    let uk = crate::key::user_key(&m.entries[0].0);
    let e = t.get(uk, MAX_SEQUENCE, &ro(), &mut Vec::new()).unwrap_err();
    assert!(e.is_corruption());
    let msg = e.to_string();
    assert!(msg.contains("checksum mismatch"), "{msg}");
    assert!(msg.contains(&format!("file {FILE}, offset 0")), "{msg}");
    let mut it = t.iter(ro());
    it.seek_to_first();
    assert!(!it.valid());
    assert!(it.status().unwrap_err().is_corruption());
    assert!(t.verify_checksums().unwrap_err().is_corruption());

    // Without verification the flip may go unnoticed or garble data, but
    // nothing panics and every error is a corruption.
    let (t, _) = open(
        bad,
        TableReaderOptions {
            verify_checksums: false,
            ..reader_opts()
        },
    )
    .unwrap();
    let unverified = TableReadOptions {
        verify_checksums: false,
        fill_cache: true,
        rate_limited: false,
        no_io: false,
        perf_level: None,
        readahead_size: 0,
    };
    let mut v = Vec::new();
    if let Err(e) = t.get(uk, MAX_SEQUENCE, &unverified, &mut v) {
        assert!(e.is_corruption(), "{e}");
    }
}

#[test]
fn every_flipped_byte_and_truncation_is_ok_or_corruption() {
    check_flips_and_truncations(small_table());
}

#[test]
fn every_flipped_byte_and_truncation_is_ok_or_corruption_snappy() {
    check_flips_and_truncations(small_table_with(build_opts(
        CompressionType::Snappy,
        256,
        4,
    )));
}

#[test]
fn every_flipped_byte_and_truncation_is_ok_or_corruption_zstd_dictionary() {
    let (m, data) = small_table_with(TableBuildOptions {
        block_restart_interval: 4,
        ..zstd_dict_opts(256, 1024, 0)
    });
    let (t, _) = open(data.clone(), reader_opts()).unwrap();
    assert!(!t.properties().compression_dict.is_none());
    check_flips_and_truncations((m, data));
}

fn check_flips_and_truncations((m, good): (Model, Vec<u8>)) {
    let cache = Arc::new(LruCache::new(64 << 10, 0, false, 0.5).unwrap());
    let unverified = TableReadOptions {
        verify_checksums: false,
        fill_cache: true,
        rate_limited: false,
        no_io: false,
        perf_level: None,
        readahead_size: 0,
    };
    for i in 0..good.len() {
        let mut bad = good.clone();
        bad[i] ^= 1 << (i % 8);
        // Verified: the damage is always found, at open or on some read.
        match open(bad.clone(), reader_opts()) {
            Err(e) => assert!(e.is_corruption(), "byte {i}: {e}"),
            Ok((t, _)) => {
                let errors = exercise(&t, &m, ro());
                assert!(!errors.is_empty(), "flip of byte {i} went unnoticed");
                for e in errors {
                    assert!(e.is_corruption(), "byte {i}: {e}");
                }
            }
        }
        // Unverified, through a cache and with index and filter in it.
        let opts = TableReaderOptions {
            verify_checksums: false,
            block_cache: Some(cache.clone()),
            cache_index_and_filter_blocks: i % 2 == 0,
            ..reader_opts()
        };
        // Unchecked, a flipped trailer type byte or compression property
        // may name a codec this build lacks: NotSupported naming it.
        let expected = |e: &Error| {
            e.is_corruption()
                || matches!(e, Error::NotSupported(m) if m.contains("compression type")
                    || m.contains("block compressed with"))
        };
        match open(bad, opts) {
            Err(e) => assert!(expected(&e), "byte {i}: {e}"),
            Ok((t, _)) => {
                for e in exercise(&t, &m, unverified) {
                    assert!(expected(&e), "byte {i}: {e}");
                }
            }
        }
    }
    for cut in 0..good.len() {
        let e = open(good[..cut].to_vec(), reader_opts()).unwrap_err();
        assert!(e.is_corruption(), "cut at {cut}: {e}");
        assert!(e.to_string().contains(FILE), "{e}");
    }
}

// ---------------------------------------------------------------- block cache

#[test]
fn block_cache_serves_repeated_reads() {
    let (m, data) = small_table();
    let cache = Arc::new(LruCache::new(1 << 20, 0, false, 0.5).unwrap());
    let (t, file) = open(
        data,
        TableReaderOptions {
            block_cache: Some(cache.clone()),
            ..reader_opts()
        },
    )
    .unwrap();
    assert_eq!(cache.usage(), 0, "index and filter are held by the reader");
    let opened = file.reads();
    let uk = crate::key::user_key(&m.entries[0].0);
    let mut v = Vec::new();
    assert!(matches!(
        t.get(uk, MAX_SEQUENCE, &ro(), &mut v).unwrap().result,
        Lookup::Value(_) | Lookup::Deleted(_)
    ));
    assert_eq!(file.reads(), opened + 1, "one data block read");
    assert!(cache.usage() > 0);
    assert_eq!(cache.len(), 1);
    t.get(uk, MAX_SEQUENCE, &ro(), &mut v).unwrap();
    assert_eq!(
        file.reads(),
        opened + 1,
        "second get is served by the cache"
    );

    // fill_cache = false reads without inserting.
    let other = crate::key::user_key(&m.entries.last().unwrap().0);
    let no_fill = TableReadOptions {
        verify_checksums: true,
        fill_cache: false,
        rate_limited: false,
        no_io: false,
        perf_level: None,
        readahead_size: 0,
    };
    t.get(other, MAX_SEQUENCE, &no_fill, &mut v).unwrap();
    t.get(other, MAX_SEQUENCE, &no_fill, &mut v).unwrap();
    assert_eq!(file.reads(), opened + 3);
    assert_eq!(cache.len(), 1);

    // A full scan caches every data block; a second scan reads nothing.
    let mut it = t.iter(ro());
    it.seek_to_first();
    while it.valid() {
        it.next();
    }
    let after_scan = file.reads();
    assert_eq!(cache.len() as u64, t.properties().num_data_blocks);
    let mut it = t.iter(ro());
    it.seek_to_last();
    while it.valid() {
        it.prev();
    }
    assert_eq!(file.reads(), after_scan);
    // An iterator positioned on a block pins it.
    let mut it = t.iter(ro());
    it.seek_to_first();
    assert!(cache.pinned_usage() > 0);
    drop(it);
    assert_eq!(cache.pinned_usage(), 0);
}

#[test]
fn index_and_filter_blocks_in_the_cache() {
    let (m, data) = small_table();
    let uk = crate::key::user_key(&m.entries[3].0).to_vec();
    for pin in [false, true] {
        let cache = Arc::new(LruCache::new(1 << 20, 0, false, 0.9).unwrap());
        let (t, file) = open(
            data.clone(),
            TableReaderOptions {
                block_cache: Some(cache.clone()),
                cache_index_and_filter_blocks: true,
                pin_index_and_filter: pin,
                ..reader_opts()
            },
        )
        .unwrap();
        assert_eq!(cache.len(), 2, "index and filter inserted at open");
        let meta_usage = cache.usage();
        assert_eq!(cache.pinned_usage(), if pin { meta_usage } else { 0 });
        let opened = file.reads();
        let mut v = Vec::new();
        let got = t.get(&uk, MAX_SEQUENCE, &ro(), &mut v).unwrap();
        assert!(got.filter_checked);
        assert_eq!(
            file.reads(),
            opened + 1,
            "only the data block came from the file"
        );
        // Many data blocks at low priority do not push out index and filter
        // (they fit in the high-priority pool, 90% of the capacity).
        cache.set_capacity(2 * meta_usage + 600);
        let mut it = t.iter(ro());
        it.seek_to_first();
        while it.valid() {
            it.next();
        }
        drop(it);
        let before = file.reads();
        assert!(!t.may_contain(b"absent-key-0"));
        t.get(b"absent-key-0", MAX_SEQUENCE, &ro(), &mut v).unwrap();
        assert_eq!(file.reads(), before, "filter still cached");
        // Dropping the reader drops its index and filter from the cache.
        let len = cache.len();
        drop(t);
        assert_eq!(cache.len(), len - 2);
        assert_eq!(cache.pinned_usage(), 0);
    }
}

#[test]
fn evicted_index_and_filter_are_read_again() {
    let (m, data) = small_table();
    let cache = Arc::new(LruCache::new(1 << 20, 0, false, 0.5).unwrap());
    let (t, file) = open(
        data,
        TableReaderOptions {
            block_cache: Some(cache.clone()),
            cache_index_and_filter_blocks: true,
            ..reader_opts()
        },
    )
    .unwrap();
    cache.set_capacity(0);
    assert_eq!(cache.len(), 0);
    cache.set_capacity(1 << 20);
    let opened = file.reads();
    let mut v = Vec::new();
    for (k, _) in &m.entries {
        let uk = crate::key::user_key(k);
        let (want, _) = m.get(uk, MAX_SEQUENCE);
        assert_eq!(t.get(uk, MAX_SEQUENCE, &ro(), &mut v).unwrap().result, want);
    }
    assert!(file.reads() > opened + 2);
    assert_eq!(cache.len() as u64, 2 + t.properties().num_data_blocks);
}

#[test]
fn strict_limit_cache_still_serves_reads() {
    let (m, data) = small_table();
    // Every block is charged more than 64 bytes (its struct alone is 64).
    let cache = Arc::new(LruCache::new(64, 0, true, 0.5).unwrap());
    let (t, file) = open(
        data,
        TableReaderOptions {
            block_cache: Some(cache.clone()),
            cache_index_and_filter_blocks: true,
            pin_index_and_filter: true,
            ..reader_opts()
        },
    )
    .unwrap();
    assert_eq!(cache.len(), 0, "nothing fits in 64 bytes");
    let mut v = Vec::new();
    for round in 0..2 {
        let before = file.reads();
        for (k, _) in &m.entries {
            let uk = crate::key::user_key(k);
            let (want, want_v) = m.get(uk, MAX_SEQUENCE);
            let got = t.get(uk, MAX_SEQUENCE, &ro(), &mut v).unwrap();
            assert_eq!(got.result, want, "round {round}");
            if matches!(want, Lookup::Value(_)) {
                assert_eq!(v, want_v);
            }
        }
        assert_eq!(
            file.reads() - before,
            m.entries.len(),
            "every get reads its block"
        );
    }
    let mut it = t.iter(ro());
    it.seek_to_first();
    let mut n = 0;
    while it.valid() {
        n += 1;
        it.next();
    }
    it.status().unwrap();
    assert_eq!(n, m.entries.len());
    assert!(cache.usage() <= 64);
}

/// Why the manifest's file checksum is not a CRC-32 (`crate::xxh64`): every
/// block of a table (and its footer) ends with the CRC-32 of its bytes, and
/// a CRC register that has read a message followed by that message's CRC
/// has forgotten the message: the CRC-32 of a whole table depends on the
/// lengths of its blocks, not on their bytes. Two tables of the same shape
/// and different contents have the same CRC-32, and different XXH64s.
#[test]
fn whole_file_crc32_is_blind_but_xxh64_is_not() {
    let mut rng = SmallRng::seed_from_u64(30);
    let m = Model::random(&mut rng, 500);
    let mut other = m.clone();
    let v = other
        .entries
        .iter_mut()
        .map(|(_, v)| v)
        .find(|v| !v.is_empty())
        .unwrap();
    v[0] ^= 0x20;
    let opts = || build_opts(CompressionType::None, 1024, 16);
    let (a, pa) = build(&m, opts());
    let (b, pb) = build(&other, opts());
    assert_eq!(a.len(), b.len());
    assert_ne!(a, b);
    assert_eq!(crc32fast::hash(&a), crc32fast::hash(&b));
    assert_ne!(pa.file_checksum, pb.file_checksum);
    assert_eq!(pa.file_checksum, Some(crate::xxh64::hash(&a)));
}

/// RocksDB's block cut (`block_size_deviation`, default 10): a block more
/// than 90% full is cut before an entry that would take it past
/// `block_size`. Entries here take 232 bytes each in an uncompressed block
/// with a restart point per entry (24-byte internal key, 200-byte value,
/// three one- or two-byte lengths, four bytes of restart offset) plus the
/// block's 4-byte restart count: 17 entries make 3,948 bytes, above the
/// 3,687 of 90% and 4,191 bytes with the 18th, so blocks hold 17 entries;
/// with deviation 0 a block is cut only once it reaches 4,096 bytes, at 18
/// entries (4,180 bytes).
#[test]
fn blocks_end_short_of_block_size_within_the_deviation() {
    let entries: Vec<(Vec<u8>, Vec<u8>)> = (0..1700u32)
        .map(|i| {
            let mut k = Vec::new();
            append_internal_key(&mut k, format!("key{i:013}").as_bytes(), 1, ValueKind::Value as u8);
            (k, vec![b'v'; 200])
        })
        .collect();
    for (deviation, per_block) in [(10u32, 17u64), (0, 18)] {
        let opts = TableBuildOptions {
            block_size_deviation: deviation,
            ..build_opts(CompressionType::None, 4096, 1)
        };
        let file = MemWritable::default();
        let mut b = TableBuilder::new(Box::new(file.clone()), opts);
        for (k, v) in &entries {
            b.add(k, v).unwrap();
        }
        let p = b.finish().unwrap();
        assert_eq!(
            p.num_data_blocks,
            1700u64.div_ceil(per_block),
            "deviation {deviation}"
        );
        // Every block but the last holds `per_block` entries: 232 bytes
        // each, the restart count, and the 5-byte block trailer.
        let full = per_block * 232 + 4 + 5;
        let last = (1700 % per_block) * 232 + 4 + 5;
        let last = if last == 9 { full } else { last };
        assert_eq!(
            p.data_size,
            (p.num_data_blocks - 1) * full + last,
            "deviation {deviation}"
        );
        // And the table reads back whole.
        let (t, _) = open(file.data.lock().clone(), reader_opts()).unwrap();
        let mut it = t.iter(ro());
        it.seek_to_first();
        for (k, v) in &entries {
            assert!(it.valid());
            assert_eq!((it.key(), it.value()), (k.as_slice(), v.as_slice()));
            it.next();
        }
        assert!(!it.valid());
        it.status().unwrap();
    }
}

// ---------------------------------------------------------------- readahead

/// A table of many small blocks (`readahead.rs` windows span dozens).
fn many_block_table() -> (Model, Vec<u8>, TableProperties) {
    let mut rng = SmallRng::seed_from_u64(11);
    let m = Model::random(&mut rng, 2000);
    let (data, props) = build(&m, build_opts(CompressionType::Lz4, 256, 4));
    assert!(props.num_data_blocks >= 300, "{}", props.num_data_blocks);
    (m, data, props)
}

/// Entries as the model holds them: internal key, value.
type Entries = Vec<(Vec<u8>, Vec<u8>)>;

/// Every entry of a forward scan from `it`'s first, then its status.
fn scan_forward(it: &mut TableIter) -> (Entries, Result<()>) {
    let mut out = Vec::new();
    it.seek_to_first();
    while it.valid() {
        out.push((it.key().to_vec(), it.value().to_vec()));
        it.next();
    }
    (out, it.status())
}

#[test]
fn scans_read_blocks_in_windows_both_ways_and_a_seek_its_block_alone() {
    let (m, data, props) = many_block_table();
    let blocks = props.num_data_blocks as usize;
    let (t, file) = open(data, reader_opts()).unwrap();
    let opened = file.reads();
    let (got, status) = scan_forward(&mut t.iter(ro()));
    status.unwrap();
    assert!(got == m.entries, "the scan returns the model's entries");
    // Two blocks alone, then windows of 8 KiB growing to 256 KiB, each
    // holding many 256-byte blocks.
    let forward = file.reads() - opened;
    assert!(forward <= blocks / 8, "{forward} reads for {blocks} blocks");

    let before = file.reads();
    let mut it = t.iter(ro());
    it.seek_to_last();
    let mut n = 0;
    while it.valid() {
        n += 1;
        it.prev();
    }
    it.status().unwrap();
    assert_eq!(n, m.entries.len());
    let backward = file.reads() - before;
    assert!(backward <= blocks / 8, "{backward} reads for {blocks} blocks");

    // An explicit readahead_size reads a window from the first block on:
    // one read per 16 KiB (and its block) of data.
    let before = file.reads();
    let fixed = TableReadOptions {
        readahead_size: 16 << 10,
        ..ro()
    };
    let (got, status) = scan_forward(&mut t.iter(fixed));
    status.unwrap();
    assert!(got == m.entries);
    let windows = (file.reads() - before) as u64;
    assert!(windows <= props.data_size / (16 << 10) + 1, "{windows} reads");
    let mut it = t.iter(fixed);
    let before = file.reads();
    it.seek(&m.entries[m.entries.len() / 2].0);
    it.next();
    it.next();
    assert_eq!(file.reads() - before, 1, "a seek's window holds the next blocks");

    // Seeks elsewhere restart the count: two blocks alone after each.
    let mut it = t.iter(ro());
    for (k, _) in m.entries.iter().step_by(m.entries.len() / 4) {
        let before = file.reads();
        it.seek(k);
        assert_eq!(file.reads() - before, 1, "a seek reads its block alone");
        it.next();
    }
}

#[test]
fn a_corrupt_block_inside_a_window_fails_the_scan_naming_it() {
    let (m, good, props) = many_block_table();
    // Flip a byte in the middle of the data blocks: far into the scan's
    // windows.
    let at = props.data_size as usize / 2;
    let mut bad = good;
    bad[at] ^= 0x08;
    let (t, _) = open(bad, reader_opts()).unwrap();
    let (got, status) = scan_forward(&mut t.iter(ro()));
    let e = status.unwrap_err();
    assert!(e.is_corruption(), "{e}");
    assert!(e.to_string().contains("checksum mismatch"), "{e}");
    // Everything before the damaged block came back, and right.
    assert!(!got.is_empty() && got.len() < m.entries.len(), "{}", got.len());
    assert!(got[..] == m.entries[..got.len()]);
}

/// A file whose reads longer than `max` bytes fail; it notes the longest
/// it served.
struct ShortReadsOnly {
    inner: Arc<CountingFile>,
    max: usize,
    longest: AtomicUsize,
    failed: AtomicUsize,
}

impl RandomAccessFile for ShortReadsOnly {
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        if buf.len() > self.max {
            self.failed.fetch_add(1, AtomicOrdering::SeqCst);
            return Err(Error::io(
                "a read the test file refuses",
                &io::Error::from(io::ErrorKind::Other),
            ));
        }
        self.longest.fetch_max(buf.len(), AtomicOrdering::SeqCst);
        self.inner.read_exact_at(offset, buf)
    }
    fn size(&self) -> Result<u64> {
        self.inner.size()
    }
}

#[test]
fn a_failed_window_read_reads_the_block_alone() {
    let (m, data, _) = many_block_table();
    let size = data.len() as u64;
    let file = |max| {
        Arc::new(ShortReadsOnly {
            inner: CountingFile::new(data.clone()),
            max,
            longest: AtomicUsize::new(0),
            failed: AtomicUsize::new(0),
        })
    };
    // The longest read of an open (index, filter): reads up to it pass.
    let probe = file(usize::MAX);
    TableReader::open(probe.clone(), size, reader_opts()).unwrap();
    let max = probe.longest.load(AtomicOrdering::SeqCst);
    assert!(max < 64 << 10, "windows grow past {max}");
    let f = file(max);
    let t = Arc::new(TableReader::open(f.clone(), size, reader_opts()).unwrap());
    let (got, status) = scan_forward(&mut t.iter(ro()));
    status.unwrap();
    assert!(got == m.entries);
    assert!(f.failed.load(AtomicOrdering::SeqCst) > 0, "windows were tried");
}
