//! [`TableReader`] (point lookups, range tombstones, properties) and
//! [`TableIter`] (a two-level iterator: index block → data blocks).
//!
//! Every block comes through one function, `TableReader::read_block` (block
//! cache lookup → file read → checksum → decompression → parse → cache
//! insert), whose file part is `TableReader::read_block_from_file`; the
//! bloom filter is consulted only in `TableReader::check_filter`. The
//! `// METRICS:` comments mark where statistics counters belong; the perf
//! context is recorded at the same places (block cache hits and misses by
//! block kind, file reads by kind with their read, checksum and
//! decompression times, and the bloom verdict of point lookups). The table
//! does not know its level: the read path attributes a lookup's counts to a
//! level (`perf_context::LevelProbe`).
//!
//! Thread-safety contract: a `TableReader` is immutable after `open` and is
//! shared by any number of threads through `Arc` (`get` takes `&self`). A
//! `TableIter` is used by one thread at a time and keeps its reader alive.

use std::sync::{Arc, OnceLock};

use super::block::{Block, BlockGet, BlockIter};
use super::codec::{DecodeError, ZstdDictionary, decompress_block};
use super::filter::{BloomFilter, filter_hash};
use super::format::{
    BLOCK_TRAILER_LEN, BLOCK_TYPE_NONE, BlockHandle, FOOTER_LEN, Footer, verify_block_checksum,
};
use super::properties::TableProperties;
use super::range_del;
use super::readahead::Readahead;
use crate::cache::{CacheKey, CacheValue, LruCache, Priority, new_cache_owner_id};
use crate::error::{Error, Result};
use crate::fs::RandomAccessFile;
use crate::iterator::InternalIterator;
use crate::key::{self, MAX_SEQUENCE, SequenceNumber, ValueKind};
use crate::memtable::{Lookup, RangeTombstone, SeekKey};
use crate::options::{PrefixExtractor, ReadOptions, ReadTier};
use crate::perf_context::{self, F, Laps, PerfLevel};
use crate::perf_count;
use crate::range_del::FragmentedRangeTombstoneList;
use crate::rate_limiter::ReadCharger;
use crate::statistics::{Histogram, Statistics, Ticker};

/// Largest stored block (with trailer) read into the per-thread scratch
/// buffer; larger ones get a buffer of their own.
const READ_SCRATCH_MAX: usize = 256 << 10;

thread_local! {
    /// Per-thread buffer the stored bytes of a block are read into (see
    /// `TableReader::read_block_from_file`); grows to the largest block read,
    /// at most [`READ_SCRATCH_MAX`].
    static READ_SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The block cache shared by table readers.
pub type BlockCache = LruCache<CachedBlock>;

/// A parsed block as kept in the [`BlockCache`].
#[derive(Clone, Debug)]
pub enum CachedBlock {
    /// A data block.
    Data(Arc<Block>),
    /// An index block.
    Index(Arc<Block>),
    /// A filter block.
    Filter(Arc<BloomFilter>),
}

impl CachedBlock {
    /// Memory the block occupies: what it is charged in the cache.
    pub fn charge(&self) -> usize {
        match self {
            CachedBlock::Data(b) | CachedBlock::Index(b) => b.size_in_bytes(),
            CachedBlock::Filter(f) => f.size_in_bytes(),
        }
    }
}

impl CacheValue for CachedBlock {
    /// Pinned while an iterator, a lookup in progress or a reader holding its
    /// index and filter has a clone.
    fn is_pinned(&self, cache_clones: usize) -> bool {
        match self {
            CachedBlock::Data(b) | CachedBlock::Index(b) => b.is_pinned(cache_clones),
            CachedBlock::Filter(f) => f.is_pinned(cache_clones),
        }
    }

    /// A block no one else holds keeps its allocation for this thread's
    /// next block read ([`Block::recycle`]).
    fn retire(self) {
        match self {
            CachedBlock::Data(b) | CachedBlock::Index(b) => Block::recycle(b),
            CachedBlock::Filter(_) => {}
        }
    }

    /// The block's reference count and fields: the lines a lookup's
    /// caller touches first (the count when it clones, the fields when it
    /// reads the block).
    fn prefetch(&self) {
        if let CachedBlock::Data(b) | CachedBlock::Index(b) = self {
            // `Arc::as_ptr` points at the block, after the two counts.
            let block = Arc::as_ptr(b).cast::<u8>();
            crate::prefetch::line(block.wrapping_sub(2 * size_of::<usize>()));
            crate::prefetch::line(block.wrapping_add(size_of::<Block>() - 1));
        }
    }
}

/// How a table is opened.
#[derive(Clone, Debug)]
pub struct TableReaderOptions {
    /// Name of the file, for error messages.
    pub file_name: String,
    /// Cache for data blocks (and index and filter blocks, see below).
    pub block_cache: Option<Arc<BlockCache>>,
    /// Keep the index and filter blocks in the block cache (high priority)
    /// instead of in the reader. Ignored without a block cache.
    pub cache_index_and_filter_blocks: bool,
    /// With `cache_index_and_filter_blocks`, also hold them in the reader, so
    /// they stay pinned in the cache for the reader's lifetime.
    pub pin_index_and_filter: bool,
    /// Verify the checksums of the blocks read while opening.
    pub verify_checksums: bool,
    /// Tickers for block cache, block reads, checksums and decompression.
    pub statistics: Option<Arc<crate::statistics::Statistics>>,
    /// Where the block reads of reads with
    /// [`TableReadOptions::rate_limited`] are charged (a database's rate
    /// limiter in a mode that covers reads); `None` charges nothing.
    pub read_charger: Option<ReadCharger>,
    /// The prefix extractor of the reads: the filter is probed with its
    /// prefixes only when the table recorded the same extractor's name.
    pub prefix_extractor: Option<PrefixExtractor>,
}

impl Default for TableReaderOptions {
    fn default() -> Self {
        TableReaderOptions {
            file_name: String::new(),
            block_cache: None,
            cache_index_and_filter_blocks: false,
            pin_index_and_filter: false,
            verify_checksums: true,
            statistics: None,
            read_charger: None,
            prefix_extractor: None,
        }
    }
}

/// Options of one read.
#[derive(Clone, Copy, Debug)]
pub struct TableReadOptions {
    /// Verify the checksum of every block read from the file.
    pub verify_checksums: bool,
    /// Put data blocks read from the file into the block cache.
    pub fill_cache: bool,
    /// Charge the blocks read from the file to the reader's
    /// [`TableReaderOptions::read_charger`] (a compaction's reads). Off for
    /// the reads of `get`, iterators and checksum verification.
    pub rate_limited: bool,
    /// Read nothing from the file: a block not in the block cache (nor
    /// held by the reader) is `Incomplete` ([`ReadTier::BlockCache`]).
    pub no_io: bool,
    /// The calling thread's perf level, read by the operation these reads
    /// serve (a point lookup), so the reader's perf-context points need not
    /// read the thread-local again; `None` (the default): read it at each
    /// point, for readers that outlive one operation (iterators).
    pub perf_level: Option<PerfLevel>,
    /// An iterator's readahead in bytes ([`ReadOptions::readahead_size`]):
    /// 0 automatic.
    pub readahead_size: u64,
}

impl TableReadOptions {
    /// The thread's perf level for these reads (see [`Self::perf_level`]).
    #[inline(always)]
    fn perf_level_now(&self) -> u8 {
        match self.perf_level {
            Some(l) => l as u8,
            None => perf_context::level_u8(),
        }
    }
}

impl Default for TableReadOptions {
    fn default() -> Self {
        TableReadOptions {
            verify_checksums: true,
            fill_cache: true,
            rate_limited: false,
            no_io: false,
            perf_level: None,
            readahead_size: 0,
        }
    }
}

impl From<&ReadOptions> for TableReadOptions {
    fn from(ro: &ReadOptions) -> Self {
        TableReadOptions {
            verify_checksums: ro.verify_checksums,
            fill_cache: ro.fill_cache,
            rate_limited: false,
            no_io: ro.read_tier == ReadTier::BlockCache,
            perf_level: None,
            readahead_size: ro.readahead_size,
        }
    }
}

/// What a batch of lookups in one table remembers between keys: the data
/// block the last index seek found and that index entry's key (see
/// [`TableReader::get_hinted`]).
#[derive(Default)]
pub struct BlockHint {
    separator: Vec<u8>,
    block: Option<(BlockHandle, Arc<Block>)>,
}

impl BlockHint {
    /// Forgets the block, before the hint serves keys of another table.
    pub fn reset(&mut self) {
        self.block = None;
    }
}

/// What [`TableReader::locate`] found for one key.
pub enum Located {
    /// The lookup is decided without a data block (the filter or the
    /// index ruled the key out, or the table's entries are all newer than
    /// the snapshot).
    Decided(TableGet),
    /// The data block that holds the key if the table does.
    Block(LocatedBlock),
}

/// A lookup between [`TableReader::locate`] and [`TableReader::finish_get`]:
/// its data block and what the search of it needs.
pub struct LocatedBlock {
    out: TableGet,
    handle: BlockHandle,
    block: Arc<Block>,
    /// The user key at the sequence number the seek looks from.
    seek: SeekKey,
    snapshot: SequenceNumber,
    level: u8,
}

impl LocatedBlock {
    /// The block has an entry directory: it came from the block cache
    /// (the directory is built on a lookup's first reuse), not from the
    /// file just now, and its search reads the directory first.
    pub fn searched_by_directory(&self) -> bool {
        self.block.directory_bytes() > 0
    }

    /// Prefetches the block's entry directory ([`Block::prefetch_for_get`]).
    pub fn prefetch_directory(&self) {
        self.block.prefetch_for_get();
    }

    /// Prefetches the entry of the block that [`TableReader::finish_get`]
    /// will read first ([`Block::prefetch_entry_for_get`]), once the
    /// directory's lines have arrived.
    pub fn prefetch_entry(&self) {
        self.block.prefetch_entry_for_get(self.seek.ikey_bytes());
    }
}

/// What [`TableReader::get`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableGet {
    /// The newest visible point entry (range tombstones are not applied:
    /// see [`TableReader::max_covering_tombstone`]).
    pub result: Lookup,
    /// The bloom filter was consulted.
    pub filter_checked: bool,
    /// The bloom filter ruled the key out (no block was read).
    pub filter_rejected: bool,
}

/// The kinds of block, for cache priorities, error messages and metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockKind {
    Data,
    Index,
    Filter,
    RangeDel,
    Properties,
    CompressionDict,
}

impl BlockKind {
    fn name(self) -> &'static str {
        match self {
            BlockKind::Data => "data",
            BlockKind::Index => "index",
            BlockKind::Filter => "filter",
            BlockKind::RangeDel => "range-del",
            BlockKind::Properties => "properties",
            BlockKind::CompressionDict => "compression dictionary",
        }
    }
}

/// An open table. See the module docs.
pub struct TableReader {
    file: Arc<dyn RandomAccessFile>,
    file_name: Arc<str>,
    file_size: u64,
    footer: Footer,
    props: TableProperties,
    range_dels: Vec<RangeTombstone>,
    /// `range_dels` fragmented, built on first use and kept while the
    /// reader lives (in the table cache).
    fragmented: OnceLock<Arc<FragmentedRangeTombstoneList>>,
    cache: Option<Arc<BlockCache>>,
    cache_owner: u64,
    /// Index and filter live in the block cache.
    meta_in_cache: bool,
    /// The index block, when the reader holds it (always, unless
    /// `meta_in_cache` without pinning).
    index: Option<Arc<Block>>,
    /// The filter, when the reader holds it (same rule as `index`).
    filter: Option<Arc<BloomFilter>>,
    /// The filter holds whole user keys (properties).
    filter_whole_keys: bool,
    /// The reads' prefix extractor, when the filter holds its prefixes
    /// (the table recorded the same name); `None`: never probe prefixes.
    filter_prefix: Option<PrefixExtractor>,
    /// Where block cache and block read tickers go, if anywhere.
    stats: Option<Arc<Statistics>>,
    /// See [`TableReaderOptions::read_charger`].
    read_charger: Option<ReadCharger>,
    /// The table's ZSTD dictionary, loaded at open (properties
    /// `compression_dict`).
    zstd_dict: Option<ZstdDictionary>,
    /// The sequence number every entry of this external table takes
    /// ([`Self::apply_global_seqno`]); `None` for other tables, and for an
    /// external table ingested at sequence 0 (its keys are reported as
    /// stored).
    global_seqno: Option<SequenceNumber>,
}

impl std::fmt::Debug for TableReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableReader")
            .field("file_name", &self.file_name)
            .field("file_size", &self.file_size)
            .field("footer", &self.footer)
            .field("num_entries", &self.props.num_entries)
            .field("meta_in_cache", &self.meta_in_cache)
            .finish()
    }
}

impl TableReader {
    /// Opens the table in `file`, whose size is `file_size`: reads the
    /// footer, the properties and range-deletion blocks, and the index and
    /// filter blocks (into the reader or the cache, see
    /// [`TableReaderOptions`]).
    pub fn open(
        file: Arc<dyn RandomAccessFile>,
        file_size: u64,
        opts: TableReaderOptions,
    ) -> Result<TableReader> {
        let pin_index_and_filter = opts.pin_index_and_filter;
        let verify = opts.verify_checksums;
        let mut t = Self::open_meta(file, file_size, opts)?;
        // Load index and filter now, so a damaged one fails the open. Cached
        // ones are inserted with high priority; held ones are kept.
        let ro = TableReadOptions {
            verify_checksums: verify,
            fill_cache: true,
            rate_limited: false,
            no_io: false,
            perf_level: None,
            readahead_size: 0,
        };
        let index = t.index_block(ro)?;
        let filter = t.filter_block(ro)?;
        if !t.meta_in_cache || pin_index_and_filter {
            t.index = Some(index);
            t.filter = filter;
        }
        Ok(t)
    }

    /// What a table says about itself, read cheaply: the footer, the
    /// properties block and the range tombstones (three small reads, the
    /// checksums verified), not the index, filter or data. For checks of a
    /// table against the manifest at open (`paranoid_checks`).
    pub fn read_metadata(
        file: Arc<dyn RandomAccessFile>,
        file_size: u64,
        file_name: &str,
    ) -> Result<(TableProperties, Vec<RangeTombstone>)> {
        let mut t = Self::open_meta(
            file,
            file_size,
            TableReaderOptions {
                file_name: file_name.to_string(),
                block_cache: None,
                cache_index_and_filter_blocks: false,
                pin_index_and_filter: false,
                verify_checksums: true,
                statistics: None,
                read_charger: None,
                prefix_extractor: None,
            },
        )?;
        Ok((
            std::mem::take(&mut t.props),
            std::mem::take(&mut t.range_dels),
        ))
    }

    /// The part of [`Self::open`] that reads the footer, properties and
    /// range-deletion blocks.
    fn open_meta(
        file: Arc<dyn RandomAccessFile>,
        file_size: u64,
        opts: TableReaderOptions,
    ) -> Result<TableReader> {
        let file_name: Arc<str> = Arc::from(opts.file_name.as_str());
        let Some(footer_offset) = file_size.checked_sub(FOOTER_LEN as u64) else {
            return Err(Error::corruption(
                &*file_name,
                0,
                format!("file of {file_size} bytes is too short to be a table"),
            ));
        };
        let mut buf = [0u8; FOOTER_LEN];
        // METRICS: footer read (count, bytes, time); part of table-open time.
        file.read_exact_at(footer_offset, &mut buf)?;
        let footer = Footer::decode(&buf, &file_name, footer_offset)?;
        let meta_in_cache = opts.cache_index_and_filter_blocks && opts.block_cache.is_some();
        let mut t = TableReader {
            file,
            file_name,
            file_size,
            footer,
            props: TableProperties::default(),
            range_dels: Vec::new(),
            fragmented: OnceLock::new(),
            cache: opts.block_cache,
            cache_owner: new_cache_owner_id(),
            meta_in_cache,
            index: None,
            filter: None,
            filter_whole_keys: false,
            filter_prefix: None,
            stats: opts.statistics,
            read_charger: opts.read_charger,
            zstd_dict: None,
            global_seqno: None,
        };
        let verify = opts.verify_checksums;
        let raw =
            t.read_block_from_file(footer.properties, BlockKind::Properties, verify, false)?;
        t.props = TableProperties::decode(&raw, &t.file_name, footer.properties.offset)?;
        t.props.file_size = file_size;
        t.filter_whole_keys = t.props.whole_key_filtering;
        // A table built with another extractor (or none) holds other
        // prefixes, or none: probing it with ours could rule out keys it
        // holds. RocksDB checks the recorded name the same way.
        t.filter_prefix = opts
            .prefix_extractor
            .filter(|p| t.props.prefix_extractor.as_deref() == Some(p.name().as_str()));
        let dict = t.props.compression_dict;
        if !dict.is_none() {
            // Before any block that may need it is read.
            let raw = t.read_block_from_file(dict, BlockKind::CompressionDict, verify, false)?;
            t.zstd_dict = Some(ZstdDictionary::new(&raw));
        }
        if !footer.range_del.is_none() {
            let raw =
                t.read_block_from_file(footer.range_del, BlockKind::RangeDel, verify, false)?;
            t.range_dels = range_del::decode(&raw, &t.file_name, footer.range_del.offset)?;
        }
        Ok(t)
    }

    /// Makes this reader report every entry and range tombstone of an
    /// external table (property `EXTERNAL_FILE_VERSION`, whose entries are
    /// stored at sequence 0) at sequence `seq`, the global sequence number
    /// the manifest entry it is opened for records (module docs of
    /// `table`). Keys, sequence ranges of the properties and tombstones
    /// change as [`external_view`] says; gets and iterators then see keys
    /// at `seq`, and skip the table for snapshots older than `seq`. No
    /// effect on a table written by a database, nor with `seq` 0.
    pub fn apply_global_seqno(&mut self, seq: SequenceNumber) {
        if self.props.external_file_version.is_none() || seq == 0 {
            return;
        }
        external_view(&mut self.props, &mut self.range_dels, seq);
        self.fragmented = OnceLock::new();
        self.global_seqno = Some(seq);
    }

    /// The global sequence number applied ([`Self::apply_global_seqno`]).
    pub fn global_seqno(&self) -> Option<SequenceNumber> {
        self.global_seqno
    }

    /// Name of the file.
    pub fn file_name(&self) -> &str {
        &self.file_name
    }

    /// The table's properties.
    pub fn properties(&self) -> &TableProperties {
        &self.props
    }

    /// The table's range tombstones.
    pub fn range_tombstones(&self) -> &[RangeTombstone] {
        &self.range_dels
    }

    /// The table's range tombstones fragmented for lookups: built on the
    /// first call (`O(N log N)`; concurrent first callers wait for one
    /// build) and shared after.
    pub fn fragmented_range_tombstones(&self) -> &Arc<FragmentedRangeTombstoneList> {
        self.fragmented.get_or_init(|| {
            Arc::new(FragmentedRangeTombstoneList::from_tombstones(
                &self.range_dels,
            ))
        })
    }

    /// Largest sequence number of a range tombstone of this table covering
    /// `user_key` and visible at `snapshot`: `O(log N)` for N tombstones
    /// (readers at old snapshots `O(log² N)`).
    pub fn max_covering_tombstone(
        &self,
        user_key: &[u8],
        snapshot: SequenceNumber,
    ) -> Option<SequenceNumber> {
        if self.range_dels.is_empty() {
            return None;
        }
        self.fragmented_range_tombstones()
            .max_covering(user_key, snapshot)
    }

    /// False only when the bloom filter rules `user_key` out. True without
    /// a filter, or when the filter cannot be read.
    pub fn may_contain(&self, user_key: &[u8]) -> bool {
        !matches!(
            self.check_filter(user_key, None, TableReadOptions::default()),
            Ok(Some(false))
        )
    }

    /// Finds the newest point entry for `user_key` with a sequence number ≤
    /// `snapshot`: the filter first, then the index, then one data block. A
    /// value or merge operand is copied into `value_out` (cleared first).
    pub fn get(
        &self,
        user_key: &[u8],
        snapshot: SequenceNumber,
        ro: &TableReadOptions,
        value_out: &mut Vec<u8>,
    ) -> Result<TableGet> {
        self.get_hinted(user_key, None, snapshot, ro, value_out, None)
    }

    /// [`TableReader::get`] for one key of a batch: `key_hash` is
    /// [`super::filter::filter_hash`] of `user_key` when the caller has it
    /// (computed once for every table of the batch), and `hint` remembers
    /// the data block the previous key of the batch in this table led to.
    /// Keys given with one hint must come in ascending order at one
    /// snapshot, and the hint must be [`BlockHint::reset`] before it serves
    /// another table: a key at or below the remembered block's index
    /// separator then lies in that block (the index seek would find the
    /// same entry, the previous keys' ones being below it), which is used
    /// without an index seek or a block-cache lookup.
    pub fn get_hinted(
        &self,
        user_key: &[u8],
        key_hash: Option<u64>,
        snapshot: SequenceNumber,
        ro: &TableReadOptions,
        value_out: &mut Vec<u8>,
        hint: Option<&mut BlockHint>,
    ) -> Result<TableGet> {
        match self.locate(user_key, key_hash, snapshot, ro, hint)? {
            Located::Decided(out) => Ok(out),
            Located::Block(b) => self.finish_get(b, user_key, value_out),
        }
    }

    /// Prefetches the filter line a lookup of `key_hash` (the key's
    /// [`super::filter::filter_hash`]) will probe, when this reader holds
    /// a whole-key filter. A hint only: no result depends on it.
    pub fn prefetch_filter(&self, key_hash: u64) {
        if let Some(f) = &self.filter
            && self.filter_whole_keys
        {
            f.prefetch_hash(key_hash);
        }
    }

    /// The first half of [`Self::get_hinted`]: the filter, the index seek
    /// and the data block (through the cache). Either decides the lookup
    /// (the filter or the index rules the key out) or hands the block to
    /// [`Self::finish_get`]. A multi-get locates every key of a table
    /// before it finishes any, prefetching what each block's search will
    /// read ([`LocatedBlock::prefetch_directory`]), so that the misses of
    /// one key's block search overlap with the other keys' work.
    pub fn locate(
        &self,
        user_key: &[u8],
        key_hash: Option<u64>,
        snapshot: SequenceNumber,
        ro: &TableReadOptions,
        hint: Option<&mut BlockHint>,
    ) -> Result<Located> {
        let mut out = TableGet {
            result: Lookup::Absent,
            filter_checked: false,
            filter_rejected: false,
        };
        // Read once for the lookup's counters here and in its block reads.
        let level = ro.perf_level_now();
        let ro = TableReadOptions {
            perf_level: PerfLevel::from_u8(level),
            ..*ro
        };
        if let Some(may) = self.check_filter(user_key, key_hash, ro)? {
            out.filter_checked = true;
            if !may {
                perf_count!(at level => bloom_sst_miss_count);
                out.filter_rejected = true;
                return Ok(Located::Decided(out));
            }
            perf_count!(at level => bloom_sst_hit_count);
        }
        // An external table's entries all take its global sequence number:
        // none is visible below it, and each user key has one entry, found
        // by a seek at any sequence (the stored ones are 0).
        let seek_seq = match self.global_seqno {
            Some(g) if snapshot < g => return Ok(Located::Decided(out)),
            Some(_) => MAX_SEQUENCE,
            None => snapshot.min(MAX_SEQUENCE),
        };
        let seek = SeekKey::new(user_key, seek_seq);
        let target = seek.ikey_bytes();
        let reuse = hint.as_ref().and_then(|h| {
            h.block
                .as_ref()
                .filter(|_| key::compare_internal(target, &h.separator) != std::cmp::Ordering::Greater)
                .map(|(handle, b)| (*handle, b.clone()))
        });
        let (handle, block) = match reuse {
            Some(found) => found,
            None => {
                let mut index = BlockIter::new(self.index_ref(ro)?);
                index.seek_at(target, level);
                if !index.valid() {
                    index.status()?;
                    return Ok(Located::Decided(out));
                }
                let handle = self.decode_index_value(&index)?;
                let block = self.data_block_for_get(handle, ro)?;
                if let Some(h) = hint {
                    h.separator.clear();
                    h.separator.extend_from_slice(index.key());
                    h.block = Some((handle, block.clone()));
                }
                (handle, block)
            }
        };
        Ok(Located::Block(LocatedBlock {
            out,
            handle,
            block,
            seek,
            snapshot,
            level,
        }))
    }

    /// The second half of [`Self::get_hinted`]: the search of the block
    /// [`Self::locate`] found for `user_key`. A value or merge operand is
    /// copied into `value_out` (cleared first).
    pub fn finish_get(
        &self,
        located: LocatedBlock,
        user_key: &[u8],
        value_out: &mut Vec<u8>,
    ) -> Result<TableGet> {
        let LocatedBlock {
            mut out,
            handle,
            block,
            seek,
            snapshot,
            level,
        } = located;
        let seek = seek.ikey_bytes();
        // The entry directory decides most lookups in a cached block after
        // one binary search of its prefixes; else the iterator's seek.
        let mut data;
        let decided = block.seek_for_get(seek);
        if decided.is_some() {
            perf_count!(at level => user_key_comparison_count = block.directory_comparisons());
        }
        let (trailer, value) = match decided {
            Some(BlockGet::NotHere) => return Ok(out),
            Some(BlockGet::Entry { trailer, value }) => (trailer, block.value_at(value)),
            None => {
                // Borrowed: the lookup holds the block already.
                data = BlockIter::new(&*block);
                data.seek_at(seek, level);
                if !data.valid() {
                    data.status()?;
                    return Ok(out);
                }
                let found = data.key();
                if key::user_key(found) != user_key {
                    return Ok(out);
                }
                (key::trailer(found), data.value())
            }
        };
        let (seq, kind) = key::unpack_trailer(trailer);
        let seq = self.global_seqno.unwrap_or(seq);
        debug_assert!(seq <= snapshot, "table lookup at {snapshot} found {seq}");
        out.result = match ValueKind::from_u8(kind) {
            Some(ValueKind::Value) => {
                value_out.clear();
                value_out.extend_from_slice(value);
                Lookup::Value(seq)
            }
            Some(ValueKind::Merge) => {
                value_out.clear();
                value_out.extend_from_slice(value);
                Lookup::Merge(seq)
            }
            Some(ValueKind::Deletion | ValueKind::SingleDeletion) => Lookup::Deleted(seq),
            _ => {
                return Err(Error::corruption(
                    &*self.file_name,
                    handle.offset,
                    format!("data block entry of kind {kind}"),
                ));
            }
        };
        // METRICS: bloom "true positive" when filter_checked and a value or
        // tombstone was found, "false positive" when filter_checked and not.
        Ok(out)
    }

    /// Approximate file offset where `ikey` is or would be: the offset of
    /// the data block that may hold it, or the end of the data blocks when
    /// it sorts after all of them.
    pub fn approximate_offset_of(&self, ikey: &[u8]) -> u64 {
        let found = self.index_block(TableReadOptions::default()).and_then(|b| {
            let mut it = BlockIter::new(b);
            it.seek(ikey);
            if it.valid() {
                self.decode_index_value(&it).map(|h| Some(h.offset))
            } else {
                it.status().map(|()| None)
            }
        });
        match found {
            Ok(Some(offset)) => offset,
            _ => self.props.data_size,
        }
    }

    /// Up to `max` points spread over the table's data, for cutting a
    /// compaction into key ranges: from the index block, pairs of a data
    /// block's separator user key and the block's bytes, neighbouring
    /// blocks merged (the last key, the summed bytes) so that at most
    /// `max` remain, in key order.
    pub fn approximate_key_anchors(&self, max: usize) -> Result<Vec<(Vec<u8>, u64)>> {
        let mut it = BlockIter::new(self.index_block(TableReadOptions::default())?);
        let mut blocks: Vec<(Vec<u8>, u64)> = Vec::new();
        it.seek_to_first();
        while it.valid() {
            let h = self.decode_index_value(&it)?;
            blocks.push((crate::key::user_key(it.key()).to_vec(), h.size));
            it.next();
        }
        it.status()?;
        let per = blocks.len().div_ceil(max.max(1)).max(1);
        let mut out = Vec::with_capacity(blocks.len() / per + 1);
        for chunk in blocks.chunks(per) {
            let bytes = chunk.iter().map(|(_, b)| b).sum();
            let (key, _) = chunk.last().expect("chunks are non-empty");
            out.push((key.clone(), bytes));
        }
        Ok(out)
    }

    /// Reads every block of the table from the file (bypassing the cache)
    /// and verifies its checksum and structure.
    pub fn verify_checksums(&self) -> Result<()> {
        for (h, kind) in [
            (self.footer.properties, BlockKind::Properties),
            (self.footer.range_del, BlockKind::RangeDel),
            (self.footer.filter, BlockKind::Filter),
        ] {
            if !h.is_none() {
                let raw = self.read_block_from_file(h, kind, true, false)?;
                if kind == BlockKind::Filter {
                    BloomFilter::new(raw, &self.file_name, h.offset)?;
                }
            }
        }
        let raw = self.read_block_from_file(self.footer.index, BlockKind::Index, true, false)?;
        let index = Arc::new(Block::new(
            raw,
            self.file_name.clone(),
            self.footer.index.offset,
        )?);
        let mut it = BlockIter::new(index);
        it.seek_to_first();
        while it.valid() {
            let h = self.decode_index_value(&it)?;
            let raw = self.read_block_from_file(h, BlockKind::Data, true, false)?;
            let block = Arc::new(Block::new(raw, self.file_name.clone(), h.offset)?);
            let mut entries = BlockIter::new(block);
            entries.seek_to_first();
            while entries.valid() {
                entries.next();
            }
            entries.status()?;
            it.next();
        }
        it.status()
    }

    /// An iterator over the table's point entries.
    pub fn iter(self: &Arc<Self>, ro: TableReadOptions) -> TableIter {
        TableIter::new(self.clone(), ro)
    }

    fn decode_index_value<B>(&self, index: &BlockIter<B>) -> Result<BlockHandle>
    where
        B: std::ops::Deref<Target = Block> + Send,
    {
        BlockHandle::decode(index.value()).ok_or_else(|| {
            Error::corruption(
                &*self.file_name,
                index.block().offset(),
                "bad block handle in index entry",
            )
        })
    }

    fn wrong_kind(&self, handle: BlockHandle, want: BlockKind) -> Error {
        Error::corruption(
            &*self.file_name,
            handle.offset,
            format!("block is not a {} block", want.name()),
        )
    }

    /// The index block: held by the reader, or through the cache.
    fn index_block(&self, ro: TableReadOptions) -> Result<Arc<Block>> {
        if let Some(b) = &self.index {
            return Ok(b.clone());
        }
        let h = self.footer.index;
        match self.read_block(h, BlockKind::Index, ro)? {
            CachedBlock::Index(b) => Ok(b),
            _ => Err(self.wrong_kind(h, BlockKind::Index)),
        }
    }

    /// [`Self::index_block`] for one lookup: borrowed when the reader holds
    /// the block (the default, `cache_index_and_filter_blocks` off), so
    /// concurrent lookups do not share a reference count ([`Held`]).
    fn index_ref(&self, ro: TableReadOptions) -> Result<Held<'_, Block>> {
        match &self.index {
            Some(b) => Ok(Held::Borrowed(b)),
            None => self.index_block(ro).map(Held::Owned),
        }
    }

    /// [`Self::filter_block`] for one lookup, borrowed as [`Self::index_ref`] is.
    fn filter_ref(&self, ro: TableReadOptions) -> Result<Option<Held<'_, BloomFilter>>> {
        match &self.filter {
            Some(f) => Ok(Some(Held::Borrowed(f))),
            None => Ok(self.filter_block(ro)?.map(Held::Owned)),
        }
    }

    /// The filter, if the table has one: held by the reader, or through the cache.
    fn filter_block(&self, ro: TableReadOptions) -> Result<Option<Arc<BloomFilter>>> {
        if let Some(f) = &self.filter {
            return Ok(Some(f.clone()));
        }
        let h = self.footer.filter;
        if h.is_none() {
            return Ok(None);
        }
        match self.read_block(h, BlockKind::Filter, ro)? {
            CachedBlock::Filter(f) => Ok(Some(f)),
            _ => Err(self.wrong_kind(h, BlockKind::Filter)),
        }
    }

    /// A data block for an iterator, through the cache and the iterator's
    /// readahead.
    fn data_block(
        &self,
        handle: BlockHandle,
        ro: TableReadOptions,
        readahead: &mut Readahead,
    ) -> Result<Arc<Block>> {
        match self.read_block_hit(handle, BlockKind::Data, ro, Some(readahead))?.0 {
            CachedBlock::Data(b) => Ok(b),
            _ => Err(self.wrong_kind(handle, BlockKind::Data)),
        }
    }

    /// [`Self::data_block`] for a point lookup. A block it finds in the
    /// block cache gets its entry directory there and then, on this first
    /// reuse (`block.rs`, "Entry directory"), and its charge in the cache
    /// grows by the directory. A block read from the file is searched
    /// without one: most such blocks are not looked up again before they
    /// are evicted, once the data outgrows the cache.
    fn data_block_for_get(&self, handle: BlockHandle, ro: TableReadOptions) -> Result<Arc<Block>> {
        let (b, hit) = self.read_block_hit(handle, BlockKind::Data, ro, None)?;
        let CachedBlock::Data(b) = b else {
            return Err(self.wrong_kind(handle, BlockKind::Data));
        };
        if hit
            && b.ensure_entry_directory()?
            && let Some(cache) = &self.cache
        {
            let key = CacheKey {
                owner: self.cache_owner,
                offset: handle.offset,
            };
            cache.set_charge(&key, b.size_in_bytes());
        }
        Ok(b)
    }

    /// True when the filter can tell whether keys with `prefix` (a prefix
    /// of the reads' extractor) may be in the table, and says they may not:
    /// the table holds none. Never true without a filter holding that
    /// extractor's prefixes.
    pub fn prefix_ruled_out(&self, prefix: &[u8], ro: TableReadOptions) -> Result<bool> {
        if self.filter_prefix.is_none() {
            return Ok(false);
        }
        let Some(filter) = self.filter_block(ro)? else {
            return Ok(false);
        };
        Ok(!filter.may_contain(prefix))
    }

    /// The one place the bloom filter is consulted for a point lookup:
    /// `None` without a filter that can answer for `user_key`, else whether
    /// it may be present. Whole keys are probed when the filter holds them,
    /// else the key's prefix when the filter holds the reads' extractor's
    /// prefixes and the key has one.
    /// `key_hash`, when given, is the filter hash of `user_key`.
    fn check_filter(
        &self,
        user_key: &[u8],
        key_hash: Option<u64>,
        ro: TableReadOptions,
    ) -> Result<Option<bool>> {
        let probe = if self.filter_whole_keys {
            key_hash.unwrap_or_else(|| filter_hash(user_key))
        } else {
            match self.filter_prefix.and_then(|p| p.prefix_of(user_key)) {
                Some(prefix) => filter_hash(prefix),
                None => return Ok(None),
            }
        };
        let Some(filter) = self.filter_ref(ro)? else {
            return Ok(None);
        };
        let may = filter.may_contain_hash(probe);
        // METRICS: bloom filter checked (perf: bloom_sst_hit_count / miss);
        // `!may` is "bloom filter useful", `may` a "positive" whose truth
        // `get` learns.
        Ok(Some(may))
    }

    /// The one place a cacheable block (data, index, filter) is obtained:
    /// block cache lookup → file read, checksum, decompression → parse →
    /// cache insert.
    fn read_block(
        &self,
        handle: BlockHandle,
        kind: BlockKind,
        ro: TableReadOptions,
    ) -> Result<CachedBlock> {
        self.read_block_hit(handle, kind, ro, None).map(|(b, _)| b)
    }

    /// [`Self::read_block`], and whether the block came from the block
    /// cache (true) or from the file. With `readahead` (an iterator's), a
    /// block not in the cache may come out of, or start, a readahead window
    /// (`readahead.rs`).
    fn read_block_hit(
        &self,
        handle: BlockHandle,
        kind: BlockKind,
        ro: TableReadOptions,
        readahead: Option<&mut Readahead>,
    ) -> Result<(CachedBlock, bool)> {
        let cache = self
            .cache
            .as_ref()
            .filter(|_| kind == BlockKind::Data || self.meta_in_cache);
        let key = CacheKey {
            owner: self.cache_owner,
            offset: handle.offset,
        };
        if let Some(cache) = cache {
            match cache.lookup(&key) {
                Some(b) => {
                    if let Some(st) = &self.stats {
                        st.record_tick(Ticker::BlockCacheHit, 1);
                        st.record_tick(Ticker::BlockCacheBytesRead, b.charge() as u64);
                        st.record_tick(
                            match kind {
                                BlockKind::Index => Ticker::BlockCacheIndexHit,
                                BlockKind::Filter => Ticker::BlockCacheFilterHit,
                                _ => Ticker::BlockCacheDataHit,
                            },
                            1,
                        );
                    }
                    let level = ro.perf_level_now();
                    match kind {
                        BlockKind::Index => {
                            perf_count!(at level => block_cache_hit_count, block_cache_index_hit_count)
                        }
                        BlockKind::Filter => {
                            perf_count!(at level => block_cache_hit_count, block_cache_filter_hit_count)
                        }
                        _ => perf_count!(at level => block_cache_hit_count),
                    }
                    return Ok((b, true));
                }
                None => {
                    perf_count!(at ro.perf_level_now() => block_cache_miss_count);
                    if let Some(st) = &self.stats {
                        st.record_tick(Ticker::BlockCacheMiss, 1);
                        st.record_tick(
                            match kind {
                                BlockKind::Index => Ticker::BlockCacheIndexMiss,
                                BlockKind::Filter => Ticker::BlockCacheFilterMiss,
                                _ => Ticker::BlockCacheDataMiss,
                            },
                            1,
                        );
                    }
                }
            }
        }
        if ro.no_io {
            return Err(Error::Incomplete(format!(
                "{}: the {} block at offset {} is not in the block cache and the read may not \
                 do IO (read tier BLOCK_CACHE_TIER)",
                self.file_name,
                kind.name(),
                handle.offset
            )));
        }
        let raw = match readahead {
            Some(ra) => self.read_block_ahead(handle, kind, ro, ra)?,
            None => {
                self.read_block_from_file(handle, kind, ro.verify_checksums, ro.rate_limited)?
            }
        };
        let block = match kind {
            BlockKind::Filter => CachedBlock::Filter(Arc::new(BloomFilter::new(
                raw,
                &self.file_name,
                handle.offset,
            )?)),
            _ => {
                let b = Block::new(raw, self.file_name.clone(), handle.offset)?;
                if kind == BlockKind::Index {
                    CachedBlock::Index(b.with_search_samples()?.into_shared())
                } else {
                    // A data block gets its entry directory when a lookup
                    // finds it in the cache (`data_block_for_get`).
                    CachedBlock::Data(b.into_shared())
                }
            }
        };
        // A block read without checksum verification is never cached: the
        // cache serves every later read, including those asking for it.
        if let Some(cache) = cache
            && (kind != BlockKind::Data || ro.fill_cache)
            && ro.verify_checksums
        {
            let priority = if kind == BlockKind::Data {
                Priority::Low
            } else {
                Priority::High
            };
            // Under strict_capacity_limit a full cache refuses the block;
            // the read still succeeds, the block is just not cached.
            let added = cache.insert(key, block.clone(), block.charge(), priority);
            if let Some(st) = &self.stats {
                if added.is_ok() {
                    let bytes = block.charge() as u64;
                    st.record_tick(Ticker::BlockCacheAdd, 1);
                    st.record_tick(Ticker::BlockCacheBytesWrite, bytes);
                    let (add, insert) = match kind {
                        BlockKind::Index => (
                            Ticker::BlockCacheIndexAdd,
                            Ticker::BlockCacheIndexBytesInsert,
                        ),
                        BlockKind::Filter => (
                            Ticker::BlockCacheFilterAdd,
                            Ticker::BlockCacheFilterBytesInsert,
                        ),
                        _ => (Ticker::BlockCacheDataAdd, Ticker::BlockCacheDataBytesInsert),
                    };
                    st.record_tick(add, 1);
                    st.record_tick(insert, bytes);
                } else {
                    st.record_tick(Ticker::BlockCacheAddFailures, 1);
                }
            }
        }
        Ok((block, false))
    }

    /// The one place block bytes are read from the file: read stored block +
    /// trailer, verify the checksum, decompress. Returns the block contents.
    /// With `charged`, the bytes are first charged to the reader's
    /// [`ReadCharger`], if it has one (after the handle is checked, so that a
    /// corrupt size never becomes a request to the limiter).
    fn read_block_from_file(
        &self,
        handle: BlockHandle,
        kind: BlockKind,
        verify: bool,
        charged: bool,
    ) -> Result<Vec<u8>> {
        let total = self.stored_len(handle, kind)?;
        self.read_block_alone(handle, kind, total, verify, charged)
    }

    /// [`Self::read_block_from_file`] once the handle is checked: `total`
    /// is its [`Self::stored_len`].
    fn read_block_alone(
        &self,
        handle: BlockHandle,
        kind: BlockKind,
        total: usize,
        verify: bool,
        charged: bool,
    ) -> Result<Vec<u8>> {
        let bad = |reason: String| self.block_corruption(handle, kind, reason);
        if charged && let Some(c) = &self.read_charger {
            c.charge(total as u64);
        }
        // The stored block is read into this thread's scratch buffer and
        // decompressed (or, uncompressed, copied) out of it: no allocation
        // and no zeroing for the read itself. Blocks above
        // READ_SCRATCH_MAX (a huge filter, say) get their own buffer, so
        // that no thread keeps one that size.
        if total <= READ_SCRATCH_MAX {
            let from_scratch = READ_SCRATCH.with(|cell| {
                // Not re-entered today; a nested read would simply not use it.
                let mut scratch = cell.try_borrow_mut().ok()?;
                if scratch.len() < total {
                    scratch.resize(total, 0);
                }
                Some(self.read_stored_block(handle, kind, verify, &mut scratch[..total], bad))
            });
            if let Some(r) = from_scratch {
                return r;
            }
        }
        let mut buf = vec![0u8; total];
        self.read_stored_block(handle, kind, verify, &mut buf, bad)
    }

    /// A corruption of the `kind` block at `handle`.
    fn block_corruption(&self, handle: BlockHandle, kind: BlockKind, reason: String) -> Error {
        Error::corruption(
            &*self.file_name,
            handle.offset,
            format!("{} block: {reason}", kind.name()),
        )
    }

    /// The stored size with trailer of the block at `handle`, checked to
    /// end before the footer (so a corrupt handle never becomes a read
    /// past the blocks, nor a huge allocation).
    fn stored_len(&self, handle: BlockHandle, kind: BlockKind) -> Result<usize> {
        let blocks_end = self.file_size - FOOTER_LEN as u64;
        handle
            .end_with_trailer()
            .filter(|&end| end <= blocks_end)
            .and_then(|_| usize::try_from(handle.size).ok())
            .map(|len| len + BLOCK_TRAILER_LEN)
            .ok_or_else(|| {
                self.block_corruption(
                    handle,
                    kind,
                    format!(
                        "handle (offset {}, size {}) runs past the last block",
                        handle.offset, handle.size
                    ),
                )
            })
    }

    /// [`Self::read_block_from_file`] for an iterator: the block's stored
    /// bytes come out of `ra`'s window when it holds them, else from a new
    /// window read when the iterator's visits call for one
    /// ([`Readahead::plan`]), else from a read of the block alone (also
    /// when the window's read fails: that read then reports the trouble).
    fn read_block_ahead(
        &self,
        handle: BlockHandle,
        kind: BlockKind,
        ro: TableReadOptions,
        ra: &mut Readahead,
    ) -> Result<Vec<u8>> {
        let total = self.stored_len(handle, kind)?;
        if ra.get(handle.offset, total).is_none() {
            let limit = self.file_size - FOOTER_LEN as u64;
            let Some((start, n)) = ra.plan(handle.offset, total, limit) else {
                return self.read_block_alone(
                    handle,
                    kind,
                    total,
                    ro.verify_checksums,
                    ro.rate_limited,
                );
            };
            if ro.rate_limited
                && let Some(c) = &self.read_charger
            {
                c.charge(n as u64);
            }
            if self.read_timed(start, ra.buffer(start, n)).is_err() {
                ra.failed();
                return self.read_block_alone(handle, kind, total, ro.verify_checksums, false);
            }
        }
        let Some(stored) = ra.get(handle.offset, total) else {
            // The window was just read to hold the block; never reached.
            return self.read_block_alone(handle, kind, total, ro.verify_checksums, false);
        };
        let bad = |reason: String| self.block_corruption(handle, kind, reason);
        count_block_read(kind, total);
        self.decode_stored_block(handle, kind, ro.verify_checksums, stored, bad)
    }

    /// [`Self::read_block_from_file`]'s read, checksum and decompression
    /// into `buf` (stored block + trailer). Returns the block contents.
    fn read_stored_block(
        &self,
        handle: BlockHandle,
        kind: BlockKind,
        verify: bool,
        buf: &mut [u8],
        bad: impl Fn(String) -> Error,
    ) -> Result<Vec<u8>> {
        count_block_read(kind, buf.len());
        self.read_timed(handle.offset, buf)?;
        self.decode_stored_block(handle, kind, verify, buf, bad)
    }

    /// Reads `buf.len()` bytes of the file at `offset`: a block, or an
    /// iterator's readahead window. A read that succeeds is timed into the
    /// perf context (`block_read_time`) and the `SstReadMicros` histogram.
    fn read_timed(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let mut laps = Laps::start(PerfLevel::EnableTimeExceptForMutex);
        let read_start = self
            .stats
            .as_ref()
            .filter(|s| s.is_enabled(Histogram::SstReadMicros))
            .map(|_| std::time::Instant::now());
        self.file.read_exact_at(offset, buf)?;
        laps.lap(F::block_read_time);
        if let (Some(st), Some(t)) = (&self.stats, read_start) {
            st.record_in_histogram(Histogram::SstReadMicros, t.elapsed().as_micros() as u64);
        }
        Ok(())
    }

    /// Checksum and decompression of a block's stored bytes with trailer
    /// (`buf`), read from the file or a readahead window. Returns the
    /// block contents.
    fn decode_stored_block(
        &self,
        handle: BlockHandle,
        kind: BlockKind,
        verify: bool,
        buf: &[u8],
        bad: impl Fn(String) -> Error,
    ) -> Result<Vec<u8>> {
        let len = buf.len() - BLOCK_TRAILER_LEN;
        let mut laps = Laps::start(PerfLevel::EnableTimeExceptForMutex);
        if verify {
            if let Some(st) = &self.stats {
                st.record_tick(Ticker::BlockChecksumComputeCount, 1);
            }
            verify_block_checksum(buf).map_err(|(stored, actual)| {
                if let Some(st) = &self.stats {
                    st.record_tick(Ticker::BlockChecksumMismatchCount, 1);
                }
                bad(format!(
                    "checksum mismatch: stored {stored:#010x}, computed {actual:#010x}"
                ))
            })?;
            laps.lap(F::block_checksum_time);
        }
        let ty = buf[len];
        let buf = &buf[..len];
        match ty {
            BLOCK_TYPE_NONE => {
                let mut out = super::buffers::take_empty(len);
                out.extend_from_slice(buf);
                Ok(out)
            }
            ty => {
                let start = self
                    .stats
                    .as_ref()
                    .filter(|s| s.is_enabled(Histogram::DecompressionTimesNanos))
                    .map(|_| std::time::Instant::now());
                let out = decompress_block(ty, buf, self.zstd_dict.as_ref()).map_err(|e| match e {
                    DecodeError::Corrupt(reason) => bad(reason),
                    DecodeError::NotSupported(what) => Error::NotSupported(format!(
                        "table {}, {} block at offset {}: {what}",
                        self.file_name,
                        kind.name(),
                        handle.offset
                    )),
                });
                laps.lap(F::block_decompress_time);
                if let Some(st) = &self.stats {
                    if let Some(t) = start {
                        st.record_in_histogram(
                            Histogram::DecompressionTimesNanos,
                            t.elapsed().as_nanos() as u64,
                        );
                    }
                    if let Ok(o) = &out {
                        st.record_tick(Ticker::NumberBlockDecompressed, 1);
                        st.record_tick(Ticker::BytesDecompressedFrom, buf.len() as u64);
                        st.record_tick(Ticker::BytesDecompressedTo, o.len() as u64);
                    }
                }
                out
            }
        }
    }
}

/// Counts a block read from storage, `bytes` with its trailer, in the
/// perf context: the file, or an iterator's readahead window (whose own
/// read is timed as `block_read_time`).
fn count_block_read(kind: BlockKind, bytes: usize) {
    // METRICS: block read — count, bytes, time; by kind (index / filter
    // reads are counted separately from data reads).
    match kind {
        BlockKind::Index => {
            perf_count!(
                block_read_count,
                block_read_byte = bytes,
                index_block_read_count
            )
        }
        BlockKind::Filter => perf_count!(
            block_read_count,
            block_read_byte = bytes,
            filter_block_read_count
        ),
        _ => perf_count!(block_read_count, block_read_byte = bytes),
    }
}

impl Drop for TableReader {
    /// Index and filter blocks in the cache are useless once their reader is
    /// gone; drop them instead of waiting for eviction (their priority would
    /// keep them long). Data blocks simply age out.
    fn drop(&mut self) {
        if let (Some(cache), true) = (&self.cache, self.meta_in_cache) {
            for h in [self.footer.index, self.footer.filter] {
                if !h.is_none() {
                    cache.erase(&CacheKey {
                        owner: self.cache_owner,
                        offset: h.offset,
                    });
                }
            }
        }
    }
}

/// A two-level iterator over a table: an index-block cursor picks the data
/// block, a data-block cursor walks it. Owns its reader through an `Arc`.
///
/// The first error (IO or corruption) ends the iteration: the iterator stays
/// invalid, and `status()` returns the error, until it is dropped.
pub struct TableIter {
    table: Arc<TableReader>,
    ro: TableReadOptions,
    index: Option<BlockIter>,
    /// Cursor over the current data block; `None` when unpositioned.
    data: Option<BlockIter>,
    err: Option<Error>,
    /// The table's global sequence number, if any: keys are reported from
    /// `key_buf`, the stored key with its sequence replaced.
    global_seqno: Option<SequenceNumber>,
    key_buf: Vec<u8>,
    /// The blocks visited and the window read ahead (`readahead.rs`).
    readahead: Readahead,
}

impl std::fmt::Debug for TableIter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableIter")
            .field("table", &self.table.file_name)
            .field("valid", &self.valid())
            .field("err", &self.err)
            .finish()
    }
}

/// A block, filter or table reader used for one lookup: borrowed from
/// whoever holds it for longer than the lookup (a table reader its index
/// and filter, a file's metadata its reader), or owned when it came from a
/// cache that may drop it meanwhile. Lookups run on many threads at once,
/// and cloning an `Arc` they all share would move its count's cache line
/// between cores twice per lookup; a borrow touches nothing shared.
pub(crate) enum Held<'a, T> {
    Borrowed(&'a T),
    Owned(Arc<T>),
}

impl<T> std::ops::Deref for Held<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        match self {
            Held::Borrowed(r) => r,
            Held::Owned(r) => r,
        }
    }
}

impl TableIter {
    fn new(table: Arc<TableReader>, ro: TableReadOptions) -> Self {
        let (index, err) = match table.index_block(ro) {
            Ok(b) => (Some(BlockIter::new(b)), None),
            Err(e) => (None, Some(e)),
        };
        let global_seqno = table.global_seqno;
        TableIter {
            table,
            ro,
            index,
            data: None,
            err,
            global_seqno,
            key_buf: Vec::new(),
            readahead: Readahead::new(ro.readahead_size),
        }
    }

    /// After a move: with a global sequence number, the current key with
    /// its stored sequence (0) replaced by it.
    fn refresh_key(&mut self) {
        let Some(g) = self.global_seqno else { return };
        self.key_buf.clear();
        if let Some(d) = &self.data
            && self.err.is_none()
            && d.valid()
        {
            let k = d.key();
            if k.len() >= key::TRAILER_LEN {
                let kind = key::kind_byte(k);
                key::append_internal_key(&mut self.key_buf, key::user_key(k), g, kind);
            }
        }
    }

    fn fail(&mut self, e: Error) {
        self.data = None;
        if self.err.is_none() {
            self.err = Some(e);
        }
    }

    /// After moving the index cursor: points `data` at the block the index
    /// entry names (unpositioned), or clears it when the index is exhausted.
    /// False when there is no block to position in.
    fn load_data_block(&mut self) -> bool {
        let Some(index) = &self.index else {
            return false;
        };
        if !index.valid() {
            if let Err(e) = index.status() {
                self.fail(e);
            }
            self.data = None;
            return false;
        }
        let handle = match self.table.decode_index_value(index) {
            Ok(h) => h,
            Err(e) => {
                self.fail(e);
                return false;
            }
        };
        if let Some(d) = &self.data
            && d.block().offset() == handle.offset
            && d.status().is_ok()
        {
            return true; // same block: keep it, skip the cache lookup
        }
        // A bad size stays for the read to report; the visit only counts.
        let stored = usize::try_from(handle.size).map_or(usize::MAX, |n| {
            n.saturating_add(BLOCK_TRAILER_LEN)
        });
        self.readahead.visit(handle.offset, stored);
        match self.table.data_block(handle, self.ro, &mut self.readahead) {
            Ok(block) => {
                match &mut self.data {
                    Some(d) => d.reset(block),
                    None => self.data = Some(BlockIter::new(block)),
                }
                true
            }
            Err(e) => {
                self.fail(e);
                false
            }
        }
    }

    /// Moves forward over exhausted (or empty) data blocks.
    fn skip_forward(&mut self) {
        while self.err.is_none() {
            let Some(d) = &self.data else { return };
            if d.valid() {
                return;
            }
            if let Err(e) = d.status() {
                return self.fail(e);
            }
            let Some(index) = &mut self.index else { return };
            index.next();
            if !self.load_data_block() {
                return;
            }
            if let Some(d) = &mut self.data {
                d.seek_to_first();
            }
            self.prefetch_next_blocks();
        }
    }

    /// A forward scan entering a block will likely look up the next blocks
    /// in the block cache. Each lookup is two cache misses, one waiting
    /// for the other: the map's bucket, then the block's count (profile of
    /// full scans over a cached database: `LruCache::lookup` 12% of
    /// samples, nearly all on those two loads). So entering block `n`
    /// prefetches the bucket of block `n + 2` and, through the bucket
    /// prefetched when it entered `n - 1`, the count of block `n + 1`: by
    /// the time the scan gets there, a block's lookup finds both in the CPU
    /// caches. Only from the second block in a row, as readahead
    /// (`SEQUENTIAL_VISITS`), and at the second only buckets (of `n + 1`
    /// and `n + 2`): a seek followed by a few dozen `next` reaches two or
    /// three blocks, and a count prefetched through a bucket not yet in
    /// the CPU caches waits for it (measured: seek + 50 `next` 2-3% slower
    /// when every block prefetched both). Hints only; nothing here changes
    /// the cache or what the scan reads.
    fn prefetch_next_blocks(&self) {
        let run = self.readahead.run();
        if run < super::readahead::SEQUENTIAL_VISITS {
            return;
        }
        let (Some(cache), Some(index)) = (&self.table.cache, &self.index) else {
            return;
        };
        let key = |v: &[u8]| {
            BlockHandle::decode(v).map(|h| CacheKey {
                owner: self.table.cache_owner,
                offset: h.offset,
            })
        };
        let [next, after] = index.peek_values::<2>();
        if let Some(k) = after.and_then(key) {
            cache.prefetch_bucket(&k);
        }
        if let Some(k) = next.and_then(key) {
            if run == super::readahead::SEQUENTIAL_VISITS {
                cache.prefetch_bucket(&k);
            } else {
                cache.prefetch_value(&k);
            }
        }
    }

    /// Moves backward over exhausted (or empty) data blocks.
    fn skip_backward(&mut self) {
        while self.err.is_none() {
            let Some(d) = &self.data else { return };
            if d.valid() {
                return;
            }
            if let Err(e) = d.status() {
                return self.fail(e);
            }
            let Some(index) = &mut self.index else { return };
            index.prev();
            if !self.load_data_block() {
                return;
            }
            if let Some(d) = &mut self.data {
                d.seek_to_last();
            }
        }
    }

    /// Positions the index with `f`, loads its block and positions in it with `g`.
    fn position(&mut self, f: impl FnOnce(&mut BlockIter), g: impl FnOnce(&mut BlockIter)) {
        if self.err.is_some() {
            return;
        }
        let Some(index) = &mut self.index else { return };
        f(index);
        if self.load_data_block()
            && let Some(d) = &mut self.data
        {
            g(d);
        }
    }
}

impl InternalIterator for TableIter {
    fn valid(&self) -> bool {
        self.err.is_none() && self.data.as_ref().is_some_and(|d| d.valid())
    }

    fn seek_to_first(&mut self) {
        self.position(|i| i.seek_to_first(), |d| d.seek_to_first());
        self.skip_forward();
        self.refresh_key();
    }

    fn seek_to_last(&mut self) {
        self.position(|i| i.seek_to_last(), |d| d.seek_to_last());
        self.skip_backward();
        self.refresh_key();
    }

    fn seek(&mut self, target: &[u8]) {
        let translated;
        let target = match self.global_seqno {
            Some(g) => {
                translated = external_seek_target(target, g);
                &translated[..]
            }
            None => target,
        };
        // The first block whose separator is ≥ target holds the first key ≥
        // target, or (if all its keys are smaller) the next block does.
        self.position(|i| i.seek(target), |d| d.seek(target));
        self.skip_forward();
        self.refresh_key();
    }

    fn seek_prefix(&mut self, target: &[u8], prefix: &[u8]) -> bool {
        if self.err.is_some() {
            return false;
        }
        match self.table.prefix_ruled_out(prefix, self.ro) {
            Ok(true) => {
                // The table holds no key with this prefix: stay invalid.
                self.data = None;
                self.refresh_key();
                true
            }
            Ok(false) => {
                self.seek(target);
                false
            }
            Err(e) => {
                self.fail(e);
                false
            }
        }
    }

    fn seek_for_prev_prefix(&mut self, target: &[u8], prefix: &[u8]) -> bool {
        if self.err.is_some() {
            return false;
        }
        match self.table.prefix_ruled_out(prefix, self.ro) {
            Ok(true) => {
                self.data = None;
                self.refresh_key();
                true
            }
            Ok(false) => {
                self.seek_for_prev(target);
                false
            }
            Err(e) => {
                self.fail(e);
                false
            }
        }
    }

    fn seek_for_prev(&mut self, target: &[u8]) {
        let translated;
        let target = match self.global_seqno {
            Some(g) => {
                translated = external_seek_for_prev_target(target, g);
                &translated[..]
            }
            None => target,
        };
        // Keys after the first block whose separator is ≥ target are all >
        // target; with no such block, the answer is in the last one.
        self.position(
            |i| {
                i.seek(target);
                if !i.valid() && i.status().is_ok() {
                    i.seek_to_last();
                }
            },
            |d| d.seek_for_prev(target),
        );
        self.skip_backward();
        self.refresh_key();
    }

    fn next(&mut self) {
        if !self.valid() {
            return;
        }
        if let Some(d) = &mut self.data {
            d.next();
        }
        self.skip_forward();
        self.refresh_key();
    }

    fn prev(&mut self) {
        if !self.valid() {
            return;
        }
        if let Some(d) = &mut self.data {
            d.prev();
        }
        self.skip_backward();
        self.refresh_key();
    }

    fn key(&self) -> &[u8] {
        if self.global_seqno.is_some() {
            return &self.key_buf;
        }
        match &self.data {
            Some(d) if self.err.is_none() => d.key(),
            _ => &[],
        }
    }

    fn value(&self) -> &[u8] {
        match &self.data {
            Some(d) if self.err.is_none() => d.value(),
            _ => &[],
        }
    }

    fn status(&self) -> Result<()> {
        match &self.err {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }
}

/// What an external table opened with global sequence number `g > 0`
/// reports about itself: the sequence of its smallest and largest keys and
/// its sequence range become `g`, and so does each range tombstone's
/// (module docs of `table`). Used by [`TableReader::apply_global_seqno`]
/// and by the open-time check of a table against its manifest entry.
pub fn external_view(p: &mut TableProperties, tombs: &mut [RangeTombstone], g: SequenceNumber) {
    for k in [&mut p.smallest_key, &mut p.largest_key] {
        if k.len() >= key::TRAILER_LEN {
            let kind = key::kind_byte(k);
            let n = k.len() - key::TRAILER_LEN;
            k[n..].copy_from_slice(&key::pack_trailer(g, kind).to_le_bytes());
        }
    }
    p.smallest_seqno = g;
    p.largest_seqno = g;
    for t in tombs {
        t.seq = g;
    }
}

/// The seek target, in the stored keys of an external table, equivalent to
/// `target` in the keys it reports at global sequence `g > 0`: a stored
/// entry `(u, 0, k)` is reported as `(u, g, k)`. With `target = (t, s, tk)`
/// and the trailers ordered descending, `(u, g, k) ≥ target` holds for
/// `u > t`, and for `u == t` exactly when `pack(g, k) ≤ pack(s, tk)`: for
/// every kind when `s > g`, for none when `s < g`, and for kinds `k ≤ tk`
/// when `s == g`. The stored target with the same answers is `(t, MAX)`,
/// the first key after every `t` entry, and `(t, 0, tk)` respectively.
fn external_seek_target(target: &[u8], g: SequenceNumber) -> Vec<u8> {
    if target.len() < key::TRAILER_LEN {
        return target.to_vec();
    }
    let t = key::user_key(target);
    let (s, tk) = key::unpack_trailer(key::trailer(target));
    let mut out = Vec::with_capacity(target.len() + 1);
    match s.cmp(&g) {
        std::cmp::Ordering::Greater => {
            key::append_internal_key(&mut out, t, MAX_SEQUENCE, u8::MAX);
        }
        std::cmp::Ordering::Equal => key::append_internal_key(&mut out, t, 0, tk),
        std::cmp::Ordering::Less => {
            // Past every entry of `t`: the smallest key of the next user
            // key, `t ++ [0]`, at the largest trailer.
            out.extend_from_slice(t);
            out.push(0);
            out.extend_from_slice(&u64::MAX.to_le_bytes());
        }
    }
    out
}

/// As [`external_seek_target`] for `seek_for_prev`: `(u, g, k) ≤ target`
/// holds for `u == t` exactly when `pack(g, k) ≥ pack(s, tk)`: for every
/// kind when `s < g` (stored target `(t, 0, 0)`, the last possible key of
/// `t`), for none when `s > g` (`(t, MAX)`, the first possible key of `t`:
/// every stored `(t, 0, k)` follows it), and for `k ≥ tk` when `s == g`
/// (`(t, 0, tk)`).
fn external_seek_for_prev_target(target: &[u8], g: SequenceNumber) -> Vec<u8> {
    if target.len() < key::TRAILER_LEN {
        return target.to_vec();
    }
    let t = key::user_key(target);
    let (s, tk) = key::unpack_trailer(key::trailer(target));
    let mut out = Vec::with_capacity(target.len());
    match s.cmp(&g) {
        std::cmp::Ordering::Less => key::append_internal_key(&mut out, t, 0, 0),
        std::cmp::Ordering::Equal => key::append_internal_key(&mut out, t, 0, tk),
        std::cmp::Ordering::Greater => {
            out.extend_from_slice(t);
            out.extend_from_slice(&u64::MAX.to_le_bytes());
        }
    }
    out
}
