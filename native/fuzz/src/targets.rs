//! The fuzz targets: each takes arbitrary bytes, feeds them to one decoder
//! of the engine and walks whatever it accepts. A target must never panic
//! (nor hang, nor allocate without bound); every rejection must be an
//! `Err`. Each returns a small *signature* of what happened (how far the
//! input got, how many entries it held), which the stable driver uses as a
//! cheap stand-in for coverage feedback. libFuzzer targets (`fuzz/` for
//! cargo-fuzz) call the same functions.

use std::path::Path;
use std::sync::Arc;

use talus::error::{Error, Result};
use talus::fs::{FaultFs, FileSystem, RandomAccessFile, SequentialFile, WriteFileOptions};
use talus::iterator::InternalIterator;
use talus::key::{MAX_SEQUENCE, ValueKind, make_internal_key};
use talus::table::{
    Block, BlockCache, BlockIter, TableReadOptions, TableReader, TableReaderOptions,
};
use talus::version::{Version, VersionBuilder, VersionEdit, VersionSet};
use talus::wal::{LogReader, LogWriter, ReadEvent};
use talus::{Options, WriteBatch};

/// A target: bytes in, signature out.
pub type Target = fn(&[u8]) -> u64;

/// Every target by name.
pub const TARGETS: &[(&str, Target)] = &[
    ("block", block),
    ("table", table),
    ("log", log),
    ("write_batch", write_batch),
    ("manifest", manifest),
];

/// The target called `name`.
pub fn by_name(name: &str) -> Option<Target> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

fn mix(sig: u64, x: u64) -> u64 {
    (sig ^ x).wrapping_mul(0x0100_0000_01b3).rotate_left(7)
}

/// Log2 bucket of a count: signatures must not grow with every new count.
fn bucket(n: usize) -> u64 {
    u64::from(usize::BITS - n.leading_zeros())
}

/// A signature of an error: its kind and the first word of its reason.
fn err_sig(e: &Error) -> u64 {
    let s = e.to_string();
    let reason = s.split(':').nth(1).unwrap_or("");
    let first = reason
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ");
    crate::hash(first.as_bytes()) ^ e.code() as u64
}

/// Walks an iterator forwards, backwards and through seeks to `probes`
/// (user keys; a seek target is an internal key, a precondition of the
/// iterators). The number of entries of a decoder over `len` bytes is
/// bounded by `len`: more means a loop that never ends.
fn walk(it: &mut dyn InternalIterator, len: usize, probes: &[Vec<u8>]) -> u64 {
    let probes: Vec<Vec<u8>> = probes
        .iter()
        .map(|p| make_internal_key(p, MAX_SEQUENCE, ValueKind::Value))
        .collect();
    let bound = len + 1;
    let mut n = 0usize;
    it.seek_to_first();
    while it.valid() {
        let _ = (it.key().len(), it.value().len());
        n += 1;
        assert!(
            n <= bound,
            "forward iteration over {len} bytes yields more than {bound} entries"
        );
        it.next();
    }
    let mut sig = mix(bucket(n), it.status().map_or_else(|e| err_sig(&e), |()| 1));
    let mut m = 0usize;
    it.seek_to_last();
    while it.valid() {
        m += 1;
        assert!(
            m <= bound,
            "backward iteration over {len} bytes yields more than {bound} entries"
        );
        it.prev();
    }
    sig = mix(sig, bucket(m));
    for p in &probes {
        it.seek(p);
        if it.valid() {
            it.next();
        }
        it.seek_for_prev(p);
        if it.valid() {
            it.prev();
        }
    }
    mix(sig, it.status().map_or(3, |()| 4))
}

/// A block (data or index format): parse, then walk.
pub fn block(data: &[u8]) -> u64 {
    let block = match Block::new(data.to_vec(), Arc::from("fuzz.block"), 0) {
        Ok(b) => Arc::new(b),
        Err(e) => return err_sig(&e),
    };
    let probes = [
        data[..data.len().min(9)].to_vec(),
        vec![0xff; 9],
        Vec::new(),
    ];
    let mut it = BlockIter::new(block);
    mix(7, walk(&mut it, data.len(), &probes))
}

/// An in-memory file for the table reader.
struct MemFile(Vec<u8>);

impl RandomAccessFile for MemFile {
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let end = offset.checked_add(buf.len() as u64);
        match end {
            Some(end) if end <= self.0.len() as u64 => {
                buf.copy_from_slice(&self.0[offset as usize..end as usize]);
                Ok(())
            }
            _ => Err(Error::io(
                "read past the end of fuzz.sst",
                &std::io::Error::from(std::io::ErrorKind::UnexpectedEof),
            )),
        }
    }
    fn size(&self) -> Result<u64> {
        Ok(self.0.len() as u64)
    }
}

/// Recomputes the footer checksum, so that mutations reach the decoders
/// behind it (the footer's CRC covers its first 68 bytes, stored at 68..72).
pub fn fix_footer_crc(d: &mut [u8]) {
    if d.len() >= 80 {
        let f = d.len() - 80;
        let crc = crc32(&d[f..f + 68]);
        d[f + 68..f + 72].copy_from_slice(&crc.to_le_bytes());
    }
}

fn crc32(b: &[u8]) -> u32 {
    // Bitwise CRC-32 (IEEE), as the table format uses; speed is irrelevant here.
    let mut crc = !0u32;
    for &x in b {
        crc ^= u32::from(x);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A table file: the footer checksum is fixed up, then the table is opened
/// without and with checksum verification (and through a block cache) and
/// walked, probed and verified.
pub fn table(data: &[u8]) -> u64 {
    let mut d = data.to_vec();
    fix_footer_crc(&mut d);
    let len = d.len();
    let file: Arc<dyn RandomAccessFile> = Arc::new(MemFile(d));
    let mut sig = 11;
    for (verify, cached) in [(false, false), (true, true)] {
        let cache = cached
            .then(|| BlockCache::new(1 << 20, 0, false, 0.5).ok().map(Arc::new))
            .flatten();
        let opts = TableReaderOptions {
            file_name: "fuzz.sst".into(),
            block_cache: cache,
            cache_index_and_filter_blocks: cached,
            pin_index_and_filter: false,
            verify_checksums: verify,
            statistics: None,
            read_charger: None,
            prefix_extractor: None,
        };
        let t = match TableReader::open(file.clone(), len as u64, opts) {
            Ok(t) => Arc::new(t),
            Err(e) => {
                sig = mix(sig, err_sig(&e));
                continue;
            }
        };
        let ro = TableReadOptions {
            verify_checksums: verify,
            fill_cache: true,
            rate_limited: false,
            no_io: false,
            perf_level: None,
            readahead_size: 0,
        };
        let props = t.properties();
        let probes = vec![
            props.smallest_key.clone(),
            props.largest_key.clone(),
            b"k".to_vec(),
        ];
        let mut it = t.iter(ro);
        sig = mix(sig, walk(&mut it, len, &probes));
        let mut user_keys: Vec<Vec<u8>> = Vec::new();
        it.seek_to_first();
        while it.valid() && user_keys.len() < 16 {
            let k = it.key();
            user_keys.push(k[..k.len().saturating_sub(8)].to_vec());
            it.next();
        }
        user_keys.push(b"absent".to_vec());
        let mut out = Vec::new();
        for k in &user_keys {
            match t.get(k, u64::MAX >> 8, &ro, &mut out) {
                Ok(g) => sig = mix(sig, u64::from(g.filter_rejected)),
                Err(e) => sig = mix(sig, err_sig(&e)),
            }
            let _ = t.may_contain(k);
            let _ = t.max_covering_tombstone(k, u64::MAX >> 8);
        }
        for p in &probes {
            let _ = t.approximate_offset_of(&make_internal_key(p, MAX_SEQUENCE, ValueKind::Value));
        }
        sig = mix(
            sig,
            t.verify_checksums().map_or_else(|e| err_sig(&e), |()| 5),
        );
    }
    sig
}

/// A sequential in-memory file for the log reader, handing out reads of
/// varying sizes.
struct MemSeq {
    data: Vec<u8>,
    pos: usize,
}

impl SequentialFile for MemSeq {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        let n = buf.len().min(self.data.len() - self.pos).min(7919);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// A log (WAL or manifest framing): read every record, decoding each as a
/// write batch, through damage, as `SkipAnyCorruptedRecords` would.
pub fn log(data: &[u8]) -> u64 {
    let mut r = LogReader::new(Box::new(MemSeq {
        data: data.to_vec(),
        pos: 0,
    }));
    let mut sig = 13;
    let mut events = 0usize;
    loop {
        events += 1;
        assert!(
            events <= data.len() + 2,
            "the log reader reports more events than the log has bytes"
        );
        match r.next() {
            Ok(ReadEvent::Record { offset }) => {
                assert!(offset < data.len() as u64, "record offset past the end");
                // Recovery reads a log's first record as a start record
                // (owner and sequence) before taking it as a batch.
                if let Some(start) = talus::wal::decode_start_record(r.record()) {
                    sig = mix(sig, 43 + u64::from(start.owner.is_some()));
                }
                sig = mix(sig, write_batch(r.record()));
            }
            Ok(ReadEvent::Eof) => return mix(sig, 17),
            Ok(ReadEvent::TornTail { .. }) => return mix(sig, 19),
            Ok(ReadEvent::Corrupt { reason, .. }) => {
                sig = mix(
                    sig,
                    crate::hash(reason.split_whitespace().next().unwrap_or("").as_bytes()),
                );
            }
            Err(e) => return mix(sig, err_sig(&e)),
        }
    }
}

/// A write batch as stored in a WAL record: decode and walk every operation.
pub fn write_batch(data: &[u8]) -> u64 {
    let b = match WriteBatch::from_bytes(data, "fuzz.log", 0) {
        Ok(b) => b,
        Err(e) => return err_sig(&e),
    };
    let mut n = 0usize;
    for op in b.iter() {
        n += 1;
        assert!(
            n <= data.len(),
            "a batch of {} bytes yields {n} operations",
            data.len()
        );
        // Recovery applies an accepted batch with `expect`: every operation
        // of a batch `from_bytes` accepted must decode.
        if let Err(e) = op {
            panic!("from_bytes accepted a batch whose operation {n} does not decode: {e}");
        }
    }
    assert_eq!(
        n as u64,
        u64::from(b.count()),
        "operations versus the batch's count"
    );
    mix(23, bucket(n))
}

/// A version edit (a manifest record): decode, re-encode, apply to an
/// empty version and query the result; then the same bytes as the only
/// record of a manifest, recovered by `VersionSet::recover`.
pub fn manifest(data: &[u8]) -> u64 {
    let mut sig = 29;
    match VersionEdit::decode(data, "fuzz.manifest", 0) {
        Err(e) => sig = mix(sig, err_sig(&e)),
        Ok(edit) => {
            let mut again = Vec::new();
            edit.encode(&mut again);
            let back = VersionEdit::decode(&again, "re-encoded", 0)
                .expect("a decoded edit re-encodes to something decodable");
            assert_eq!(back, edit, "encode(decode(x)) does not round-trip");
            let base = Version::new(7);
            let mut b = VersionBuilder::new(&base, "fuzz.manifest");
            match b.apply(&edit, 0).and_then(|()| b.finish()) {
                Err(e) => sig = mix(sig, err_sig(&e)),
                Ok(v) => sig = mix(sig, query(&v)),
            }
        }
    }
    mix(sig, recover_manifest(data))
}

/// Reads through a version the way gets, iterators and the compaction
/// picker do.
fn query(v: &Version) -> u64 {
    let mut n = 0usize;
    for key in [&b""[..], b"a", b"k", b"\xff\xff"] {
        n += v.l0_files_for_key(key).count();
        for level in 1..v.num_levels() {
            n += v.files_for_key(level, key).len();
        }
    }
    for level in 0..v.num_levels() {
        n += v.overlapping_files(level, Some(b"a"), Some(b"z")).len();
        n += v.overlapping_files(level, None, None).len();
    }
    let _ = v.level_summary();
    let _ = talus::compaction::pick_compaction(
        v,
        &talus::compaction::PickerOptions::from(&Options::default()),
        &vec![Vec::new(); v.num_levels()],
        u64::MAX,
    );
    bucket(n)
}

fn recover_manifest(record: &[u8]) -> u64 {
    let fs = FaultFs::new(0);
    let dir = Path::new("/db");
    let setup = || -> Result<()> {
        fs.create_dir_all(dir)?;
        let mut c = fs.new_writable(&dir.join("CURRENT"), WriteFileOptions::default())?;
        c.append(b"MANIFEST-000001\n")?;
        c.sync()?;
        let f = fs.new_writable(&dir.join("MANIFEST-000001"), WriteFileOptions::default())?;
        let mut w = LogWriter::new(f, 1);
        w.add_record(record)?;
        w.sync()
    };
    if let Err(e) = setup() {
        return err_sig(&e);
    }
    let fs: Arc<dyn FileSystem> = Arc::new(fs);
    match VersionSet::recover(fs, dir, &Options::default()) {
        Err(e) => mix(31, err_sig(&e)),
        Ok(mut vs) => {
            let v = vs.current();
            let mut sig = mix(37, query(&v));
            // What recovery checks logs and tables against.
            sig = mix(
                sig,
                bucket(vs.wals().len()) + u64::from(vs.db_id().is_some()),
            );
            let checksummed = (0..v.num_levels())
                .flat_map(|l| v.files(l))
                .filter(|f| f.file_checksum.is_some())
                .count();
            sig = mix(sig, bucket(checksummed));
            // Writing the recovered state back must work too.
            mix(
                sig,
                vs.log_and_apply(VersionEdit::new())
                    .map_or_else(|e| err_sig(&e), |_| 41),
            )
        }
    }
}
