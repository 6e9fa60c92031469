//! [`TableBuilder`]: writes a table front to back in one pass.
//!
//! Entries arrive in strictly increasing internal-key order. Data blocks are
//! cut when they reach `block_size` (uncompressed), or, once more than
//! `100 - block_size_deviation` percent full, before an entry that would
//! take them past it (RocksDB's rule, so blocks end near `block_size` from
//! below; pinned by `blocks_end_short_of_block_size_within_the_deviation`).
//! A block's index entry is
//! added when the next key arrives, so its separator can be shortened to lie
//! between the block's last key and the next block's first. The filter keeps
//! only key hashes until [`TableBuilder::finish`] sizes it. Not thread-safe:
//! one flush or compaction job owns a builder.

use std::cmp::Ordering;
use std::time::{SystemTime, UNIX_EPOCH};

use super::block::BlockBuilder;
use super::codec::{BlockCompressor, make_zstd_dictionary};
use super::filter::FilterBuilder;
use super::format::{
    BLOCK_TRAILER_LEN, BLOCK_TYPE_NONE, BlockHandle, FORMAT_VERSION, Footer, MAX_HANDLE_LEN,
    block_trailer,
};
use super::properties::TableProperties;
use super::range_del;
use crate::error::{Error, Result};
use crate::fs::WritableFile;
use crate::identity::DbId;
use crate::key::{
    MAX_SEQUENCE, ValueKind, append_internal_key, compare_internal, parse_internal_key, user_key,
};
use crate::memtable::RangeTombstone;
use crate::options::{CompressionOptions, CompressionType, Options, PrefixExtractor};

/// How a table is written.
#[derive(Clone, Debug)]
pub struct TableBuildOptions {
    /// Target uncompressed size of a data block.
    pub block_size: usize,
    /// Entries between restart points in data blocks (at least 1).
    pub block_restart_interval: usize,
    /// Percent of `block_size` a data block may end short of (0 to 100;
    /// module docs).
    pub block_size_deviation: u32,
    /// Compression of data and index blocks.
    pub compression: CompressionType,
    /// Codec parameters: the ZSTD level and dictionary sizes (see
    /// `table::codec`).
    pub compression_opts: CompressionOptions,
    /// Bloom filter bits per key; `None` (or not positive) writes no filter.
    pub filter_bits_per_key: Option<f64>,
    /// Put whole user keys in the filter.
    pub whole_key_filtering: bool,
    /// Put the prefixes of keys (those in its domain) in the filter. With
    /// neither whole keys nor an extractor, no filter is written.
    pub prefix_extractor: Option<PrefixExtractor>,
    /// Name of the file, for error messages.
    pub file_name: String,
    /// Where compression tickers go, if anywhere.
    pub statistics: Option<std::sync::Arc<crate::statistics::Statistics>>,
    /// The database the table is written for: recorded in its properties.
    pub db_id: Option<DbId>,
    /// The file number the table is written as: recorded in its properties.
    pub file_number: Option<u64>,
    /// The table is written outside a database (`SstFileWriter`): recorded
    /// as the property `EXTERNAL_FILE_VERSION`.
    pub external: bool,
}

impl Default for TableBuildOptions {
    fn default() -> Self {
        TableBuildOptions {
            block_size: 4 * 1024,
            block_restart_interval: 16,
            block_size_deviation: 10,
            compression: CompressionType::default(),
            compression_opts: CompressionOptions::default(),
            filter_bits_per_key: None,
            whole_key_filtering: true,
            prefix_extractor: None,
            file_name: String::new(),
            statistics: None,
            db_id: None,
            file_number: None,
            external: false,
        }
    }
}

impl TableBuildOptions {
    /// The table options of `opts`, for the file `file_name`, with
    /// `opts.compression` and `opts.compression_opts` (a caller that knows
    /// the output level sets the codec from [`Options::compression_for`]).
    pub fn from_options(opts: &Options, file_name: impl Into<String>) -> Self {
        TableBuildOptions {
            block_size: opts.table.block_size,
            block_restart_interval: opts.table.block_restart_interval,
            // The rule `Options::sanitize` applies at open, for options
            // that were not opened with (`SstFileWriter`).
            block_size_deviation: crate::options::sanitize_block_size_deviation(
                opts.table.block_size_deviation,
            ),
            compression: opts.compression,
            compression_opts: opts.compression_opts,
            filter_bits_per_key: opts.table.filter_bits_per_key,
            whole_key_filtering: opts.table.whole_key_filtering,
            prefix_extractor: opts.prefix_extractor,
            file_name: file_name.into(),
            statistics: opts.statistics.clone(),
            db_id: None,
            file_number: None,
            external: false,
        }
    }
}

/// Appends blocks with their trailers and tracks the file offset and the
/// checksum of everything appended.
struct BlockWriter {
    file: Box<dyn WritableFile>,
    offset: u64,
    /// XXH64 of every byte appended (the whole file: it starts empty).
    crc: crate::xxh64::Xxh64,
    compressor: BlockCompressor,
    scratch: Vec<u8>,
    stats: Option<std::sync::Arc<crate::statistics::Statistics>>,
}

impl BlockWriter {
    /// Writes `raw`, compressed with the table's codec when `compressible`
    /// and that saves at least 1/8.
    fn write(&mut self, raw: &[u8], compressible: bool) -> Result<BlockHandle> {
        use crate::statistics::{Histogram, Ticker};
        let codec = self.compressor.compression();
        let try_compress = compressible && codec != CompressionType::None;
        let start = self
            .stats
            .as_ref()
            .filter(|s| try_compress && s.is_enabled(Histogram::CompressionTimesNanos))
            .map(|_| std::time::Instant::now());
        let compressed = try_compress && self.compressor.compress(raw, &mut self.scratch);
        if let Some(st) = &self.stats
            && try_compress
        {
            if let Some(t) = start {
                st.record_in_histogram(
                    Histogram::CompressionTimesNanos,
                    t.elapsed().as_nanos() as u64,
                );
            }
            if compressed {
                st.record_tick(Ticker::NumberBlockCompressed, 1);
                st.record_tick(Ticker::BytesCompressedFrom, raw.len() as u64);
                st.record_tick(Ticker::BytesCompressedTo, self.scratch.len() as u64);
            }
        }
        let (stored, ty) = if compressed {
            (&self.scratch[..], codec as u8)
        } else {
            (raw, BLOCK_TYPE_NONE)
        };
        let trailer = block_trailer(stored, ty);
        self.file.append(stored)?;
        self.file.append(&trailer)?;
        self.crc.update(stored);
        self.crc.update(&trailer);
        let handle = BlockHandle {
            offset: self.offset,
            size: stored.len() as u64,
        };
        self.offset += (stored.len() + BLOCK_TRAILER_LEN) as u64;
        Ok(handle)
    }
}

/// Data blocks held back until a ZSTD table's dictionary is made from them
/// (format in the docs of `table::codec`).
struct DictSampling {
    /// Uncompressed data blocks, in order.
    blocks: Vec<Vec<u8>>,
    /// Separator of each block but maybe the last, added when the next key
    /// arrived (the index entries, written once the blocks are).
    separators: Vec<Vec<u8>>,
    bytes: usize,
    /// Stop holding blocks back once `bytes` reaches this.
    budget: usize,
    max_dict_bytes: usize,
    train: bool,
    level: i32,
}

/// Writes one table. See the module docs.
pub struct TableBuilder {
    writer: BlockWriter,
    opts: TableBuildOptions,
    data_block: BlockBuilder,
    index_block: BlockBuilder,
    filter: Option<FilterBuilder>,
    range_dels: Vec<RangeTombstone>,
    /// Last key added (empty before the first).
    last_key: Vec<u8>,
    /// Handle of the last data block written, awaiting its index entry.
    pending: Option<BlockHandle>,
    props: TableProperties,
    separator: Vec<u8>,
    handle_buf: Vec<u8>,
    /// First write error; every later call returns it.
    failed: Option<Error>,
    /// While a dictionary is being sampled: the held-back data blocks. The
    /// last held block's index entry is pending when `blocks.len() >
    /// separators.len()`.
    sampling: Option<DictSampling>,
    /// The dictionary the table's ZSTD blocks use, written at `finish`.
    dictionary: Option<Vec<u8>>,
}

impl std::fmt::Debug for TableBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableBuilder")
            .field("file_name", &self.opts.file_name)
            .field("num_entries", &self.props.num_entries)
            .field("offset", &self.writer.offset)
            .finish()
    }
}

/// Keys and values longer than this cannot be encoded in a block entry.
const MAX_ENTRY_PART: usize = u32::MAX as usize;

impl TableBuilder {
    /// Starts a table in `file`, which must be new and empty.
    pub fn new(file: Box<dyn WritableFile>, opts: TableBuildOptions) -> Self {
        let filter = match opts.filter_bits_per_key {
            Some(bits)
                if bits > 0.0 && (opts.whole_key_filtering || opts.prefix_extractor.is_some()) =>
            {
                Some(FilterBuilder::new(bits))
            }
            _ => None,
        };
        let copts = opts.compression_opts;
        let sampling = (opts.compression == CompressionType::Zstd && copts.max_dict_bytes > 0)
            .then(|| {
                let max_dict_bytes = copts.max_dict_bytes as usize;
                let train = copts.zstd_max_train_bytes > 0;
                DictSampling {
                    blocks: Vec::new(),
                    separators: Vec::new(),
                    bytes: 0,
                    budget: if train {
                        (copts.zstd_max_train_bytes as usize).max(max_dict_bytes)
                    } else {
                        max_dict_bytes
                    },
                    max_dict_bytes,
                    train,
                    level: copts.level,
                }
            });
        // Unsupported codecs are refused at open (`Options::validate`); a
        // builder made directly with one writes its blocks uncompressed.
        let codec = if opts.compression.is_supported() {
            opts.compression
        } else {
            CompressionType::None
        };
        let compressor = BlockCompressor::new(codec, copts.level, None).unwrap_or_else(|_| {
            BlockCompressor::new(CompressionType::None, 0, None).expect("no codec state")
        });
        TableBuilder {
            writer: BlockWriter {
                offset: file.len(),
                crc: crate::xxh64::Xxh64::new(),
                file,
                compressor,
                scratch: Vec::new(),
                stats: opts.statistics.clone(),
            },
            data_block: BlockBuilder::new(opts.block_restart_interval),
            index_block: BlockBuilder::new(1),
            filter,
            range_dels: Vec::new(),
            last_key: Vec::new(),
            pending: None,
            props: TableProperties {
                smallest_seqno: u64::MAX,
                compression: opts.compression,
                format_version: FORMAT_VERSION,
                whole_key_filtering: opts.whole_key_filtering,
                prefix_extractor: opts.prefix_extractor.map(|p| p.name()),
                db_id: opts.db_id,
                orig_file_number: opts.file_number,
                external_file_version: opts.external.then_some(super::EXTERNAL_FILE_VERSION),
                ..TableProperties::default()
            },
            separator: Vec::new(),
            handle_buf: Vec::with_capacity(MAX_HANDLE_LEN),
            failed: None,
            sampling,
            dictionary: None,
            opts,
        }
    }

    fn check_failed(&self) -> Result<()> {
        match &self.failed {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    fn latch<T>(&mut self, r: Result<T>) -> Result<T> {
        if let Err(e) = &r {
            self.failed.get_or_insert_with(|| e.clone());
        }
        r
    }

    /// Adds a point entry: `ikey` is an internal key of any kind but
    /// `RangeDeletion`, strictly greater than every key added before.
    pub fn add(&mut self, ikey: &[u8], value: &[u8]) -> Result<()> {
        self.check_failed()?;
        let Some(parsed) = parse_internal_key(ikey) else {
            return Err(Error::InvalidArgument(format!(
                "table {}: malformed internal key of {} bytes",
                self.opts.file_name,
                ikey.len()
            )));
        };
        if parsed.kind == ValueKind::RangeDeletion {
            return Err(Error::InvalidArgument(format!(
                "table {}: range tombstones go through add_range_tombstone",
                self.opts.file_name
            )));
        }
        if ikey.len() >= MAX_ENTRY_PART || value.len() >= MAX_ENTRY_PART {
            return Err(Error::InvalidArgument(format!(
                "table {}: key or value of 4 GiB or more",
                self.opts.file_name
            )));
        }
        if self.props.num_entries > 0 && compare_internal(ikey, &self.last_key) != Ordering::Greater
        {
            return Err(Error::InvalidArgument(format!(
                "table {}: keys must be added in strictly increasing internal-key order",
                self.opts.file_name
            )));
        }
        if self.cut_before(ikey, value) {
            self.flush_data_block()?;
        }
        if let Some(handle) = self.pending.take() {
            separator(&self.last_key, ikey, &mut self.separator);
            self.add_index_entry(handle);
        } else if let Some(s) = &mut self.sampling
            && s.blocks.len() > s.separators.len()
        {
            let mut sep = Vec::new();
            separator(&self.last_key, ikey, &mut sep);
            s.separators.push(sep);
        }
        if let Some(f) = &mut self.filter {
            if self.opts.whole_key_filtering {
                f.add(parsed.user_key);
            }
            if let Some(prefix) = self
                .opts
                .prefix_extractor
                .as_ref()
                .and_then(|p| p.prefix_of(parsed.user_key))
            {
                f.add_prefix(prefix);
            }
        }
        self.data_block.add(ikey, value);

        let p = &mut self.props;
        if p.num_entries == 0 {
            p.smallest_key = ikey.to_vec();
        }
        p.num_entries += 1;
        if parsed.kind.is_point_tombstone() {
            p.num_deletions += 1;
        }
        p.raw_key_size += ikey.len() as u64;
        p.raw_value_size += value.len() as u64;
        p.smallest_seqno = p.smallest_seqno.min(parsed.seq);
        p.largest_seqno = p.largest_seqno.max(parsed.seq);
        self.last_key.clear();
        self.last_key.extend_from_slice(ikey);

        if self.data_block.estimated_size() >= self.opts.block_size {
            self.flush_data_block()?;
        }
        Ok(())
    }

    /// Whether the data block should be cut before `ikey`/`value` go in: it
    /// is more than `100 - block_size_deviation` percent full and the entry
    /// would take it past `block_size` (module docs).
    fn cut_before(&self, ikey: &[u8], value: &[u8]) -> bool {
        let deviation = self.opts.block_size_deviation.min(100) as usize;
        if deviation == 0 || self.data_block.is_empty() {
            return false;
        }
        let limit = self.opts.block_size.saturating_mul(100 - deviation).div_ceil(100);
        self.data_block.estimated_size() > limit
            && self.data_block.estimated_size_after(ikey, value) > self.opts.block_size
    }

    /// Adds a range tombstone. Tombstones may arrive in any order,
    /// interleaved with point entries.
    pub fn add_range_tombstone(&mut self, t: &RangeTombstone) {
        self.props.num_range_deletions += 1;
        self.props.smallest_seqno = self.props.smallest_seqno.min(t.seq);
        self.props.largest_seqno = self.props.largest_seqno.max(t.seq);
        self.range_dels.push(t.clone());
    }

    /// Point entries added so far.
    pub fn num_entries(&self) -> u64 {
        self.props.num_entries
    }

    /// Bytes written so far plus the block being filled: what the file would
    /// roughly measure if finished now (without the meta blocks).
    pub fn estimated_file_size(&self) -> u64 {
        let held = self.sampling.as_ref().map_or(0, |s| s.bytes as u64);
        self.writer.offset + held + self.data_block.estimated_size() as u64
    }

    fn add_index_entry(&mut self, handle: BlockHandle) {
        self.handle_buf.clear();
        handle.encode_to(&mut self.handle_buf);
        self.index_block.add(&self.separator, &self.handle_buf);
    }

    fn flush_data_block(&mut self) -> Result<()> {
        if let Some(s) = &mut self.sampling {
            let raw = self.data_block.finish().to_vec();
            s.bytes += raw.len();
            s.blocks.push(raw);
            self.data_block.reset();
            self.props.num_data_blocks += 1;
            if s.bytes >= s.budget {
                self.end_sampling()?;
            }
            return Ok(());
        }
        let raw = self.data_block.finish();
        let r = self.writer.write(raw, true);
        let handle = self.latch(r)?;
        self.data_block.reset();
        self.props.num_data_blocks += 1;
        self.pending = Some(handle);
        Ok(())
    }

    /// Makes the dictionary from the held-back blocks, switches the writer
    /// to it and writes those blocks with their index entries (the last
    /// one's stays pending if its separator is not known yet).
    fn end_sampling(&mut self) -> Result<()> {
        let Some(s) = self.sampling.take() else {
            return Ok(());
        };
        let dict = make_zstd_dictionary(&s.blocks, s.max_dict_bytes, s.train);
        if let Some(d) = &dict {
            let c = BlockCompressor::new(CompressionType::Zstd, s.level, Some(d));
            self.writer.compressor = self.latch(c)?;
        }
        self.dictionary = dict;
        let mut separators = s.separators.into_iter();
        for raw in &s.blocks {
            let r = self.writer.write(raw, true);
            let handle = self.latch(r)?;
            match separators.next() {
                Some(sep) => {
                    self.separator = sep;
                    self.add_index_entry(handle);
                }
                None => self.pending = Some(handle),
            }
        }
        Ok(())
    }

    /// Writes the remaining data, the meta blocks, the index and the footer,
    /// then syncs the file. Returns the table's properties, `file_size` and
    /// `file_checksum` included.
    pub fn finish(mut self) -> Result<TableProperties> {
        self.check_failed()?;
        if !self.data_block.is_empty() {
            self.flush_data_block()?;
        }
        self.end_sampling()?;
        if let Some(handle) = self.pending.take() {
            successor(&self.last_key, &mut self.separator);
            self.add_index_entry(handle);
        }
        self.props.data_size = self.writer.offset;

        let mut footer = Footer {
            index: BlockHandle::NONE,
            filter: BlockHandle::NONE,
            range_del: BlockHandle::NONE,
            properties: BlockHandle::NONE,
            format_version: FORMAT_VERSION,
        };
        if let Some(f) = &self.filter
            && f.num_keys() > 0
        {
            let block = f.finish();
            footer.filter = self.writer.write(&block, false)?;
            self.props.filter_size = footer.filter.size + BLOCK_TRAILER_LEN as u64;
        }
        if !self.range_dels.is_empty() {
            let block = range_del::encode(&self.range_dels);
            footer.range_del = self.writer.write(&block, false)?;
        }
        if let Some(d) = self.dictionary.take() {
            self.props.compression_dict = self.writer.write(&d, false)?;
        }
        footer.index = self.writer.write(self.index_block.finish(), true)?;
        self.props.index_size = footer.index.size + BLOCK_TRAILER_LEN as u64;

        if self.props.smallest_seqno == u64::MAX {
            self.props.smallest_seqno = 0;
        }
        self.props.largest_key = self.last_key.clone();
        self.props.creation_time = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        footer.properties = self.writer.write(&self.props.encode(), false)?;

        let w = &mut self.writer;
        let footer = footer.encode();
        w.file.append(&footer)?;
        w.crc.update(&footer);
        w.offset += footer.len() as u64;
        w.file.sync()?;
        self.props.file_size = w.offset;
        self.props.file_checksum = Some(w.crc.digest());
        Ok(self.props)
    }

    /// Gives up on the table. The file is left partly written; the caller
    /// deletes it.
    pub fn abandon(self) {}
}

/// Sets `out` to an internal key `s` with `a ≤ s < b`, shorter than `a` when
/// possible. Precondition: `a < b` in internal-key order.
///
/// Shortening replaces `a`'s user key `ua` by a shorter user key `u` with
/// `ua < u < ub` (`ub` being `b`'s) and gives it the largest trailer (it then
/// sorts before every real entry of `u`). Let `n` be the length of the common
/// prefix of `ua` and `ub`, `c = ua[n] < d = ub[n]`:
///
/// * `u = ua[..n] || c+1` when `c+1 < d`, or when `c+1 == d` and `ub` goes on
///   past `n` (then `u` is a proper prefix of `ub`, so below it);
/// * otherwise (`ub == ua[..n] || c+1`), `u = ua[..i] || ua[i]+1` for the
///   first `i > n` with `ua[i] < 0xff`: still below `ub` at byte `n`.
///
/// The strict "below" matters: were `u` equal to `ub`, a lookup of that key
/// could stop in the block before the one holding it. Neighbouring keys of
/// a sorted run often differ by one in their first differing byte (random
/// 64-bit ids, 2 million of them, share about 21 bits), so the `c+1 == d`
/// cases are common, not corner cases: without them one separator in seven
/// stayed a whole key. Pinned by `separators_lie_between_and_shorten_when_safe`.
pub(crate) fn separator(a: &[u8], b: &[u8], out: &mut Vec<u8>) {
    let (ua, ub) = (user_key(a), user_key(b));
    let n = ua.iter().zip(ub).take_while(|(x, y)| x == y).count();
    out.clear();
    if n < ua.len() && n < ub.len() && ua[n] < ub[n] {
        let (c, d) = (ua[n], ub[n]);
        let at = if c + 1 < d || n + 1 < ub.len() {
            Some(n)
        } else {
            (n + 1..ua.len()).find(|&i| ua[i] < 0xff)
        };
        if let Some(i) = at
            && i + 1 < ua.len()
        {
            out.extend_from_slice(&ua[..i]);
            out.push(ua[i] + 1);
            append_internal_key(out, &[], MAX_SEQUENCE, ValueKind::SEEK);
            return;
        }
    }
    out.extend_from_slice(a);
}

/// Sets `out` to an internal key `s ≥ a`, shorter than `a` when possible:
/// the separator after the last block.
pub(crate) fn successor(a: &[u8], out: &mut Vec<u8>) {
    let ua = user_key(a);
    out.clear();
    if let Some(i) = ua.iter().position(|&c| c != 0xff)
        && i + 1 < ua.len()
    {
        out.extend_from_slice(&ua[..i]);
        out.push(ua[i] + 1);
        append_internal_key(out, &[], MAX_SEQUENCE, ValueKind::SEEK);
        return;
    }
    out.extend_from_slice(a);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::make_internal_key;

    fn ik(k: &[u8], seq: u64) -> Vec<u8> {
        make_internal_key(k, seq, ValueKind::Value)
    }

    fn seek_key(k: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        append_internal_key(&mut v, k, MAX_SEQUENCE, ValueKind::SEEK);
        v
    }

    #[test]
    fn separators_lie_between_and_shorten_when_safe() {
        // (a's user key, a's seq, b's user key, b's seq, expected separator)
        type Case = (&'static [u8], u64, &'static [u8], u64, Vec<u8>);
        let cases: &[Case] = &[
            (b"abcdef", 5, b"abzzzz", 9, seek_key(b"abd")),
            (b"apple", 5, b"cherry", 5, seek_key(b"b")),
            // Incrementing would reach the next user key, and nothing
            // after the differing byte can be incremented instead: keep a.
            (b"abc", 5, b"abd", 5, ik(b"abc", 5)),
            (b"ab", 5, b"b", 5, ik(b"ab", 5)), // 'a'+1 == 'b'
            // 'c'+1 == 'd', but b goes on: "abd" is a proper prefix of b.
            (b"abcdef", 5, b"abdzzz", 9, seek_key(b"abd")),
            (b"\x12\x34\xff", 5, b"\x12\x35\x00", 5, seek_key(b"\x12\x35")),
            // b is exactly a's prefix plus the incremented byte: increment
            // the first byte after it that can be.
            (b"a1\x05xyz", 5, b"a2", 5, seek_key(b"a1\x06")),
            (b"a1\xff\xff\x07q", 5, b"a2", 5, seek_key(b"a1\xff\xff\x08")),
            // ... but not when that is a's last byte, nor when there is none.
            (b"a1\x05", 5, b"a2", 5, ik(b"a1\x05", 5)),
            (b"a1\xff\xff", 5, b"a2", 5, ik(b"a1\xff\xff", 5)),
            // Prefix: cannot shorten.
            (b"ab", 5, b"abc", 5, ik(b"ab", 5)),
            // Same user key across blocks.
            (b"k", 9, b"k", 3, ik(b"k", 9)),
            (b"a\xff\xff", 1, b"c", 1, seek_key(b"b")),
            // Already as short as it gets.
            (b"a", 1, b"c", 1, ik(b"a", 1)),
        ];
        let mut out = Vec::new();
        for (ua, sa, ub, sb, want) in cases {
            let (a, b) = (ik(ua, *sa), ik(ub, *sb));
            separator(&a, &b, &mut out);
            assert_eq!(&out, want, "{:?} {:?}", ua, ub);
            assert_ne!(compare_internal(&out, &a), Ordering::Less);
            assert_eq!(compare_internal(&out, &b), Ordering::Less);
        }
        // Random pairs, bytes drawn near 0x00 and 0xff and near each other.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..20_000 {
            let mut key = || {
                let len = (rnd() % 6) as usize;
                (0..len)
                    .map(|_| [0u8, 1, 0x40, 0x41, 0xfe, 0xff][(rnd() % 6) as usize])
                    .collect::<Vec<u8>>()
            };
            let (mut ua, mut ub) = (key(), key());
            if ua == ub {
                continue;
            }
            if ua > ub {
                std::mem::swap(&mut ua, &mut ub);
            }
            let (a, b) = (ik(&ua, 7), ik(&ub, 3));
            separator(&a, &b, &mut out);
            assert_ne!(compare_internal(&out, &a), Ordering::Less, "{ua:?} {ub:?}");
            assert_eq!(compare_internal(&out, &b), Ordering::Less, "{ua:?} {ub:?}");
            assert!(out.len() <= a.len(), "{ua:?} {ub:?}");
        }
        for (ua, want) in [
            (&b"abc"[..], seek_key(b"b")),
            (b"\xff\xffx", ik(b"\xff\xffx", 4)),
            (b"\xff\x01z", seek_key(b"\xff\x02")),
            (b"a", ik(b"a", 4)),
        ] {
            let a = ik(ua, 4);
            successor(&a, &mut out);
            assert_eq!(out, want);
            assert_ne!(compare_internal(&out, &a), Ordering::Less);
        }
    }

    /// Neighbouring keys of a sorted run of random ids mostly differ by one
    /// in their first differing byte; the separator used to stay the whole
    /// key there (one index entry in seven on the bulk import's tables).
    #[test]
    fn regression_separators_of_neighbouring_random_keys_stayed_whole_keys() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut keys: Vec<Vec<u8>> = (0..20_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let mut k = x.to_be_bytes().to_vec();
                k.extend_from_slice(&[0x5a; 40]); // 48-byte keys, as the import's
                k
            })
            .collect();
        keys.sort();
        keys.dedup();
        let mut out = Vec::new();
        for w in keys.windows(2) {
            let (a, b) = (ik(&w[0], 0), ik(&w[1], 0));
            separator(&a, &b, &mut out);
            assert!(out.len() <= 8 + 8, "{:?} {:?}: {} bytes", w[0], w[1], out.len());
            assert_eq!(compare_internal(&out, &b), Ordering::Less);
            assert_eq!(compare_internal(&a, &out), Ordering::Less);
        }
    }
}
