//! Options, with RocksDB's defaults unless a field says otherwise.
//!
//! [`Options`] holds the database-wide and column-family options together (as
//! RocksJava's `Options` does); [`BlockBasedTableOptions`] the table format
//! options; [`ReadOptions`] and [`WriteOptions`] the per-call ones.
//! [`Options::validate`] rejects out-of-range values with `InvalidArgument`
//! naming the option, and [`Options::sanitize`] applies RocksDB's silent
//! fix-ups (stop ≥ slowdown ≥ compaction trigger, soft ≤ hard limit, ...).

use std::path::PathBuf;
use std::sync::Arc;

pub use crate::compaction::fifo::FifoOptions;
pub use crate::compaction::universal::{StopStyle, UniversalOptions};
use crate::env::{Env, Priority};
use crate::error::{Error, Result};
use crate::fs::{FileSystem, StdFileSystem};
use crate::key::SequenceNumber;
use crate::wal::WalRecoveryMode;

/// Block compression. Byte values are RocksJava's `CompressionType` values
/// and are stored in block trailers. Every RocksJava codec can be named;
/// Talus implements [`None`](Self::None), [`Snappy`](Self::Snappy),
/// [`Lz4`](Self::Lz4) and [`Zstd`](Self::Zstd), and open refuses the others
/// with `NotSupported` naming them ([`Options::validate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum CompressionType {
    /// No compression.
    None = 0,
    /// Snappy (raw format, via the pure-Rust `snap`).
    Snappy = 1,
    /// zlib: not implemented.
    Zlib = 2,
    /// bzip2: not implemented.
    Bzip2 = 3,
    /// LZ4 (block format, via liblz4, the reference C library). Talus's default.
    #[default]
    Lz4 = 4,
    /// LZ4HC: not implemented.
    Lz4hc = 5,
    /// Xpress: not implemented.
    Xpress = 6,
    /// Zstandard (via `zstd`, the reference C library), with levels and
    /// optional dictionary compression ([`CompressionOptions`]).
    Zstd = 7,
}

/// RocksJava's `DISABLE_COMPRESSION_OPTION` byte: "no bottommost codec of
/// its own" where a bottommost compression is expected.
pub const DISABLE_COMPRESSION_OPTION: u8 = 0x7f;

impl CompressionType {
    /// Decodes a RocksJava `CompressionType` byte (0..=7). Unknown bytes are
    /// `NotSupported`.
    pub fn from_u8(b: u8) -> Result<Self> {
        Ok(match b {
            0 => CompressionType::None,
            1 => CompressionType::Snappy,
            2 => CompressionType::Zlib,
            3 => CompressionType::Bzip2,
            4 => CompressionType::Lz4,
            5 => CompressionType::Lz4hc,
            6 => CompressionType::Xpress,
            7 => CompressionType::Zstd,
            other => {
                return Err(Error::NotSupported(format!(
                    "compression type {other:#04x}: not a RocksJava CompressionType"
                )));
            }
        })
    }

    /// RocksJava's enum name (`ZSTD_COMPRESSION`, ...).
    pub fn java_name(self) -> &'static str {
        match self {
            CompressionType::None => "NO_COMPRESSION",
            CompressionType::Snappy => "SNAPPY_COMPRESSION",
            CompressionType::Zlib => "ZLIB_COMPRESSION",
            CompressionType::Bzip2 => "BZLIB2_COMPRESSION",
            CompressionType::Lz4 => "LZ4_COMPRESSION",
            CompressionType::Lz4hc => "LZ4HC_COMPRESSION",
            CompressionType::Xpress => "XPRESS_COMPRESSION",
            CompressionType::Zstd => "ZSTD_COMPRESSION",
        }
    }

    /// Whether this build implements the codec.
    pub fn is_supported(self) -> bool {
        matches!(
            self,
            CompressionType::None
                | CompressionType::Snappy
                | CompressionType::Lz4
                | CompressionType::Zstd
        )
    }

    /// `Ok` when implemented; else `NotSupported` naming the codec and
    /// `option`, the option that chose it.
    pub fn check_supported(self, option: &str) -> Result<()> {
        if self.is_supported() {
            return Ok(());
        }
        Err(Error::NotSupported(format!(
            "{option} {}: this build of Talus implements NO_COMPRESSION, SNAPPY_COMPRESSION, \
             LZ4_COMPRESSION and ZSTD_COMPRESSION",
            self.java_name()
        )))
    }
}

/// Codec parameters (RocksDB's `CompressionOptions`, RocksJava's names and
/// defaults). What Talus does with each:
///
/// * `level`: the ZSTD level ([`Self::DEFAULT_LEVEL`] = zstd's default, 3;
///   negative levels are zstd's fast levels; above 22 zstd uses 22). LZ4
///   and Snappy have no levels and ignore it.
/// * `max_dict_bytes` / `zstd_max_train_bytes`: dictionary compression for
///   ZSTD tables (format in the docs of `table::codec`); other codecs ignore
///   them, as RocksDB's Snappy does.
/// * `window_bits` / `strategy`: zlib's parameters; zlib is not
///   implemented, so they have no effect (as for RocksDB's other codecs).
/// * `enabled`: for the bottommost options only, whether they replace
///   [`Options::compression_opts`] at the bottommost level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompressionOptions {
    /// zlib window bits. Default -14.
    pub window_bits: i32,
    /// Codec level. Default [`Self::DEFAULT_LEVEL`].
    pub level: i32,
    /// zlib strategy. Default 0.
    pub strategy: i32,
    /// Largest dictionary in bytes; 0 (the default) disables dictionaries.
    pub max_dict_bytes: u32,
    /// Bytes of samples the ZSTD dictionary trainer reads; 0 (the default)
    /// uses the samples themselves as the dictionary.
    pub zstd_max_train_bytes: u32,
    /// See the type's docs. Default false.
    pub enabled: bool,
}

impl CompressionOptions {
    /// RocksDB's `kDefaultCompressionLevel`: each codec's own default.
    pub const DEFAULT_LEVEL: i32 = 32767;
}

impl Default for CompressionOptions {
    fn default() -> Self {
        CompressionOptions {
            window_bits: -14,
            level: Self::DEFAULT_LEVEL,
            strategy: 0,
            max_dict_bytes: 0,
            zstd_max_train_bytes: 0,
            enabled: false,
        }
    }
}

/// What a table is written for, to choose its codec
/// ([`Options::compression_for`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputTarget {
    /// A memtable flush (its table goes to L0).
    Flush,
    /// A compaction into `level`, with the tree's current `base_level` (the
    /// level L0 compacts into) and `num_non_empty_levels` (one more than the
    /// deepest level holding files; 0 when none does).
    Compaction {
        /// Output level.
        level: usize,
        /// Base level.
        base_level: usize,
        /// Deepest non-empty level + 1.
        num_non_empty_levels: usize,
    },
}

/// How a column family compacts (RocksJava `CompactionStyle` byte values).
/// See the module docs of [`crate::compaction`] for each style's policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum CompactionStyle {
    /// Leveled compaction (the default).
    #[default]
    Level = 0,
    /// Universal compaction: sorted runs merged whole
    /// ([`crate::compaction::universal`]).
    Universal = 1,
    /// FIFO compaction: every table in L0, the oldest dropped
    /// ([`crate::compaction::fifo`]).
    Fifo = 2,
}

impl CompactionStyle {
    /// Decodes the RocksJava byte; `NONE` (3) and unknown bytes are `None`.
    pub fn from_u8(b: u8) -> Option<Self> {
        Some(match b {
            0 => Self::Level,
            1 => Self::Universal,
            2 => Self::Fifo,
            _ => return None,
        })
    }

    /// RocksJava's name of the style.
    pub fn java_name(self) -> &'static str {
        match self {
            Self::Level => "LEVEL",
            Self::Universal => "UNIVERSAL",
            Self::Fifo => "FIFO",
        }
    }
}

/// How the level compaction picker chooses a file within a level
/// (RocksJava `CompactionPriority` byte values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum CompactionPriority {
    /// Largest file (by size compensated for deletions) first.
    ByCompensatedSize = 0,
    /// File whose newest data is oldest first.
    OldestLargestSeqFirst = 1,
    /// File whose oldest data is oldest first.
    OldestSmallestSeqFirst = 2,
    /// File with the smallest ratio of overlapping next-level bytes to its own size (RocksDB's default).
    #[default]
    MinOverlappingRatio = 3,
    /// Files in key order, round robin.
    RoundRobin = 4,
}

impl CompactionPriority {
    /// Decodes the RocksJava byte.
    pub fn from_u8(b: u8) -> Option<Self> {
        Some(match b {
            0 => Self::ByCompensatedSize,
            1 => Self::OldestLargestSeqFirst,
            2 => Self::OldestSmallestSeqFirst,
            3 => Self::MinOverlappingRatio,
            4 => Self::RoundRobin,
            _ => return None,
        })
    }
}

/// A prefix extractor (RocksDB's `SliceTransform`): maps a user key to its
/// prefix, for prefix Bloom filters in tables and prefix seek. Set with
/// [`Options::prefix_extractor`].
///
/// The name ([`PrefixExtractor::name`]) is recorded in every table built
/// with it (property `prefix_extractor`, `table::properties`): a table's
/// filter is probed with prefixes only by a reader using the extractor of
/// the same name, so changing the extractor never makes a table's filter
/// answer for prefixes it was not built with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrefixExtractor {
    /// The first `n` bytes (RocksDB's `NewFixedPrefixTransform`); keys
    /// shorter than `n` are outside its domain (they have no prefix: not
    /// added to prefix filters, and seeks to them are total-order seeks).
    /// Name `rocksdb.FixedPrefix.{n}`.
    Fixed(usize),
    /// The first `min(n, key length)` bytes (RocksDB's
    /// `NewCappedPrefixTransform`); every key is in its domain. Name
    /// `rocksdb.CappedPrefix.{n}`.
    Capped(usize),
}

impl PrefixExtractor {
    /// The name recorded in tables (RocksDB's names for the same transforms).
    pub fn name(&self) -> String {
        match self {
            PrefixExtractor::Fixed(n) => format!("rocksdb.FixedPrefix.{n}"),
            PrefixExtractor::Capped(n) => format!("rocksdb.CappedPrefix.{n}"),
        }
    }

    /// Whether `key` has a prefix.
    #[inline]
    pub fn in_domain(&self, key: &[u8]) -> bool {
        match *self {
            PrefixExtractor::Fixed(n) => key.len() >= n,
            PrefixExtractor::Capped(_) => true,
        }
    }

    /// The prefix of `key`. Precondition: `in_domain(key)`.
    #[inline]
    pub fn transform<'k>(&self, key: &'k [u8]) -> &'k [u8] {
        match *self {
            PrefixExtractor::Fixed(n) | PrefixExtractor::Capped(n) => &key[..n.min(key.len())],
        }
    }

    /// The prefix of `key`, or `None` outside the domain.
    #[inline]
    pub fn prefix_of<'k>(&self, key: &'k [u8]) -> Option<&'k [u8]> {
        self.in_domain(key).then(|| self.transform(key))
    }
}

/// Options of the block-based table format: each column family's own
/// (`Options::table` of the options a family is opened or created with).
#[derive(Clone, Debug)]
pub struct BlockBasedTableOptions {
    /// Target uncompressed size of a data block in bytes, at most
    /// [`MAX_BLOCK_SIZE`]; 0 puts each entry in a block of its own. Default
    /// 4 KiB.
    pub block_size: usize,
    /// Entries between restart points in data blocks. Default 16; 0 is
    /// raised to 1 at open, as in RocksDB.
    pub block_restart_interval: usize,
    /// Percent of `block_size` a data block may end short of: a block more
    /// than `100 - block_size_deviation` percent full is cut before an
    /// entry that would take it past `block_size`, so blocks end near
    /// `block_size` from below rather than above it. Default 10; 0 cuts
    /// only at `block_size` or after. As in RocksDB, values outside 0..=100
    /// are taken as 0 at open.
    pub block_size_deviation: i32,
    /// Bloom filter bits per key; `None` builds no filter. Default `None`
    /// (as RocksDB: a filter must be asked for with `BloomFilter`). Taken at
    /// open as RocksDB's filter policy takes it ([`sanitize_bits_per_key`]).
    pub filter_bits_per_key: Option<f64>,
    /// Put whole user keys in the filter. Default true. With a prefix
    /// extractor the filter holds the keys' prefixes too; false leaves only
    /// those (point lookups then probe the key's prefix).
    pub whole_key_filtering: bool,
    /// Cache index and filter blocks in the block cache instead of holding
    /// them in the table reader. Default false.
    pub cache_index_and_filter_blocks: bool,
    /// With `cache_index_and_filter_blocks`, keep L0 tables' index and filter
    /// pinned in the cache. Default false.
    pub pin_l0_filter_and_index_blocks_in_cache: bool,
    /// Use no block cache at all. Default false.
    pub no_block_cache: bool,
    /// Capacity of the block cache a column family creates for itself when
    /// none is shared in. Default 8 MiB (RocksJava's default).
    pub block_cache_size: usize,
    /// A block cache shared between column families and databases (every
    /// family whose options hold the same `Arc` reads through the one
    /// cache); `None` gives the family a cache of its own of
    /// `block_cache_size` bytes (unless `no_block_cache`), as RocksDB's
    /// table factory does.
    pub block_cache: Option<Arc<crate::table::BlockCache>>,
}

impl Default for BlockBasedTableOptions {
    fn default() -> Self {
        BlockBasedTableOptions {
            block_size: 4 * 1024,
            block_restart_interval: 16,
            block_size_deviation: 10,
            filter_bits_per_key: None,
            whole_key_filtering: true,
            cache_index_and_filter_blocks: false,
            pin_l0_filter_and_index_blocks_in_cache: false,
            no_block_cache: false,
            block_cache_size: 8 << 20,
            block_cache: None,
        }
    }
}

/// Database and column-family options. Field docs give units and defaults.
#[derive(Clone)]
pub struct Options {
    // ---- database-wide ----
    /// Create the database if missing. Default false.
    pub create_if_missing: bool,
    /// Fail open if the database exists. Default false.
    pub error_if_exists: bool,
    /// Create the column families named at open that the database does not
    /// have yet (RocksDB's `create_missing_column_families`). Default false.
    pub create_missing_column_families: bool,
    /// Check aggressively and stop on damage (RocksDB's `paranoid_checks`).
    /// Default true.
    ///
    /// - `true`: open fails with `Corruption` naming the file when a table
    ///   the manifest names is missing, has another size, or is not the
    ///   table its manifest entry was made for (another database's, or
    ///   another of this database's: its properties are read and compared),
    ///   or when a write-ahead log the manifest records is missing or
    ///   shorter than what was synced (with the default
    ///   `wal_recovery_mode`: module docs of `db::recovery`); any failure of
    ///   a background job (flush, compaction, manifest write), a corruption
    ///   included, latches the background error: writes stop until
    ///   `Db::resume()` (IO errors) or a reopen (corruptions).
    /// - `false`: open does not check the tables (a missing, short or
    ///   foreign one is `Corruption` at the first read that needs it); a
    ///   missing or short recorded log is noted in the info log and replay
    ///   keeps the prefix before it (later logs are kept, renamed
    ///   `*.log.unreplayed`); a compaction that
    ///   meets a corruption is logged and counted in
    ///   `rocksdb.background-errors` but does not stop writes, and no
    ///   automatic compaction runs again until the set of tables changes.
    ///
    /// In both modes IO errors and failed flushes and WAL writes latch
    /// (acknowledged data depends on them), reads verify block checksums as
    /// `ReadOptions::verify_checksums` says, compactions always verify them,
    /// and damage in a log is handled as `wal_recovery_mode` says.
    pub paranoid_checks: bool,
    /// Use fsync instead of fdatasync. Default false.
    pub use_fsync: bool,
    /// Directory for write-ahead logs; `None` = the database directory.
    ///
    /// A database locks its `wal_dir` while open (`LOCK` there; a second
    /// database opening on it fails with an IO error naming the `wal_dir`
    /// and the lock, as for a database already open), and every log names its
    /// database in its start record: a database never replays or deletes a
    /// log another database wrote there. Still, give each database a
    /// directory of its own.
    pub wal_dir: Option<PathBuf>,
    /// How recovery treats damaged logs. Default `TolerateCorruptedTailRecords`.
    pub wal_recovery_mode: WalRecoveryMode,
    /// Sync the WAL in the background every this many bytes (0 = off). Default 0.
    pub wal_bytes_per_sync: u64,
    /// Reserve each new WAL's blocks when it is created (`fallocate` with
    /// `FALLOC_FL_KEEP_SIZE`, `write_buffer_size` × 1.1, at most
    /// `max_total_wal_size` when set), as RocksDB's `allow_fallocate` does;
    /// what the log did not use is given back when it is closed. Talus
    /// addition: a reserve over a quarter of the disk's free space at that
    /// moment is skipped (the log then allocates as it grows), so that it
    /// never takes the room flushes and compactions need. Default true.
    pub allow_fallocate: bool,
    /// Sync table files while writing them every this many bytes (0 = off). Default 0.
    pub bytes_per_sync: u64,
    /// Shared budget of background flush and compaction threads, 1 to
    /// [`MAX_BACKGROUND_THREADS`]. Default 2.
    pub max_background_jobs: i32,
    /// Deprecated split of the budget: compactions (-1 = derive, else 1 to
    /// [`MAX_BACKGROUND_THREADS`]). Default -1.
    pub max_background_compactions: i32,
    /// Deprecated split of the budget: flushes (-1 = derive, else 1 to
    /// [`MAX_BACKGROUND_THREADS`]). Default -1.
    pub max_background_flushes: i32,
    /// The most key ranges one compaction is split into, each compacted by
    /// its own thread (RocksDB's `max_subcompactions`): an L0 → base-level
    /// compaction, a manual one, or a universal one into a level below L0
    /// whose inputs fill more than one output file
    /// ([`crate::compaction::subcompaction`]). 0 counts as 1. Default 1 (no
    /// split).
    pub max_subcompactions: u32,
    /// Table files kept open (-1 = unlimited). Default -1. Other values are
    /// clamped at open to [`MAX_OPEN_FILES_RANGE`], as in RocksDB.
    pub max_open_files: i32,
    /// Write rate in delayed-write mode, bytes/s (0 = derive). Default 0.
    pub delayed_write_rate: u64,
    /// Flush memtables when the live WALs exceed this size (0 = 4 × the
    /// memtable budget). Default 0.
    pub max_total_wal_size: u64,
    /// The importer owns the flush rhythm: no flush is triggered by WAL
    /// size, only by a full write buffer or an explicit flush. Default false.
    pub manual_flush_enabled: bool,
    /// Write admission: while more threads than this write continuously,
    /// at most this many write at once; the others sleep and take turns of
    /// 1 ms, first come first served (see `db::write_gate`); while fewer
    /// do (a service's occasional writers), no put waits. -1 = one per core
    /// this process may run on, 0 = no limit (RocksDB's behaviour), else 1
    /// to [`MAX_CONCURRENT_WRITERS`]. `sync`, `no_slowdown` and `low_pri`
    /// writes are never held. Default -1.
    pub max_concurrent_writers: i32,
    /// Allow files to be ingested with
    /// `IngestExternalFileOptions::ingest_behind` (RocksDB's DB option):
    /// compactions then never treat their output as the bottom of a key's
    /// history (tombstones, and merge operands without a base, are kept:
    /// data ingested behind may later lie under them). Differs from
    /// RocksDB: the last level is not reserved, so an ingestion behind
    /// fails (`InvalidArgument`) when the last level already holds keys in
    /// a file's range. Default false.
    pub allow_ingest_behind: bool,
    /// The file system all IO goes through.
    pub fs: Arc<dyn FileSystem>,
    /// The CPU priorities of the background pools ([`crate::env`]). Default
    /// the process-wide [`Env::default_env`].
    pub env: Arc<Env>,
    /// Limits the bytes per second of flush and compaction writes; shareable
    /// between databases. Setting one also makes `bytes_per_sync` default to
    /// 1 MiB and `delayed_write_rate` default to its rate, as in RocksDB.
    pub rate_limiter: Option<Arc<crate::rate_limiter::RateLimiter>>,
    /// Tickers and histograms; `None` records nothing.
    pub statistics: Option<Arc<crate::statistics::Statistics>>,
    /// Dump `rocksdb.stats` (and statistics) to the info log this often, in
    /// seconds (0 = never). Default 600.
    pub stats_dump_period_sec: u32,
    /// Lowest level written to the info log. Default INFO.
    pub info_log_level: crate::logger::InfoLogLevel,
    /// Rotate the `LOG` file beyond this many bytes (0 = never). Default 0.
    pub max_log_file_size: u64,
    /// Old info log files kept. Default 1000.
    pub keep_log_file_num: usize,
    /// A user logger receiving the info log lines instead of the `LOG` file.
    pub logger: Option<Arc<dyn crate::logger::LogSink>>,

    // ---- column family ----
    /// Bytes in the active memtable before it is switched. Default 64 MiB.
    /// Clamped at open to [`WRITE_BUFFER_SIZE_RANGE`], as in RocksDB.
    /// Once a memtable has been flushed, up to this many bytes of its arena
    /// blocks stay allocated for the next memtables (see
    /// `memtable::block_pool`), freed at close.
    pub write_buffer_size: usize,
    /// Memtables (active + immutable) kept before writes stop. Default 2.
    /// Values below 2 are raised to 2 at open, as in RocksDB.
    pub max_write_buffer_number: i32,
    /// Immutable memtables merged into one L0 table by a flush. Default 1.
    /// Brought into `[1, max_write_buffer_number − 1]` at open, as in RocksDB.
    pub min_write_buffer_number_to_merge: i32,
    /// L0 files that trigger an L0 compaction. Default 4. Values below 1 are
    /// raised to 1 at open (RocksDB raises 0 and keeps negative values).
    pub level0_file_num_compaction_trigger: i32,
    /// L0 files at which writes slow down (< 0 disables). Default 20.
    pub level0_slowdown_writes_trigger: i32,
    /// L0 files at which writes stop. Default 36.
    pub level0_stop_writes_trigger: i32,
    /// Pending compaction bytes at which writes slow down (0 = off). Default 64 GiB.
    pub soft_pending_compaction_bytes_limit: u64,
    /// Pending compaction bytes at which writes stop (0 = off). Default 256 GiB.
    pub hard_pending_compaction_bytes_limit: u64,
    /// Number of levels, at most [`MAX_NUM_LEVELS`]. Default 7. As in
    /// RocksDB, values below 2 are raised to 2 at open (level compaction
    /// needs a level below L0).
    pub num_levels: i32,
    /// Target size of the base level in bytes. Default 256 MiB.
    pub max_bytes_for_level_base: u64,
    /// Growth factor between levels. Default 10. Values not above 0 (and
    /// NaN) are set to 1 at open, as in RocksDB.
    pub max_bytes_for_level_multiplier: f64,
    /// Size levels from the bottom up. Default true (RocksDB ≥ 8.4).
    pub level_compaction_dynamic_level_bytes: bool,
    /// Target size of a compaction output file in bytes. Default 64 MiB.
    /// Open raises a smaller value to [`Options::min_target_file_size`]
    /// (RocksDB keeps it).
    pub target_file_size_base: u64,
    /// Growth of the target file size per level. Default 1. Values below 1
    /// are raised to 1 at open (RocksDB keeps them).
    pub target_file_size_multiplier: i32,
    /// Which file of a level to compact first. Default `MinOverlappingRatio`.
    pub compaction_pri: CompactionPriority,
    /// Stop scheduling automatic compactions. Default false.
    pub disable_auto_compactions: bool,
    /// How the family compacts. Default [`CompactionStyle::Level`].
    pub compaction_style: CompactionStyle,
    /// Universal compaction's options (used with
    /// [`CompactionStyle::Universal`]). Default: RocksDB's.
    pub compaction_options_universal: UniversalOptions,
    /// FIFO compaction's options (used with [`CompactionStyle::Fifo`]).
    /// Default: RocksDB's.
    pub compaction_options_fifo: FifoOptions,
    /// Seconds after which FIFO compaction drops a table (by the creation
    /// time in its properties); 0 (the default) drops by size only. Only
    /// FIFO compaction honours it: with another style a non-zero value is
    /// refused at open (`NotSupported`) rather than ignored.
    pub ttl: u64,
    /// Block compression. Default LZ4. [`Self::compression_for`] says which
    /// codec each table gets.
    pub compression: CompressionType,
    /// Codec parameters. Default [`CompressionOptions::default`].
    pub compression_opts: CompressionOptions,
    /// Codec per level (RocksDB's `compression_per_level`); empty (the
    /// default) uses `compression` everywhere. See [`Self::compression_for`].
    pub compression_per_level: Vec<CompressionType>,
    /// Codec of tables written to the bottommost level; `None` (RocksJava's
    /// `DISABLE_COMPRESSION_OPTION`, the default) has no bottommost codec of
    /// its own.
    pub bottommost_compression: Option<CompressionType>,
    /// Codec parameters at the bottommost level, used when their `enabled`
    /// is set; else `compression_opts` apply there too.
    pub bottommost_compression_opts: CompressionOptions,
    /// The prefix extractor: with a filter configured, tables add key
    /// prefixes to their filter, and iterators seek by prefix unless
    /// [`ReadOptions::total_order_seek`] (module docs of `db::db_iter`).
    /// Default none.
    pub prefix_extractor: Option<PrefixExtractor>,
    /// Table format options, per column family (`db::family_options`).
    pub table: BlockBasedTableOptions,
    /// Resolves merge operands ([`crate::merge`]); `None` (the default)
    /// refuses merges. A database holding operands must be opened with the
    /// operator that wrote them: without one, reads that need them fail
    /// with `InvalidArgument`; with another, they are merged its way.
    pub merge_operator: Option<Arc<dyn crate::merge::MergeOperator>>,
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            create_if_missing: false,
            error_if_exists: false,
            create_missing_column_families: false,
            paranoid_checks: true,
            use_fsync: false,
            allow_ingest_behind: false,
            wal_dir: None,
            wal_recovery_mode: WalRecoveryMode::default(),
            wal_bytes_per_sync: 0,
            allow_fallocate: true,
            bytes_per_sync: 0,
            max_background_jobs: 2,
            max_background_compactions: -1,
            max_background_flushes: -1,
            max_subcompactions: 1,
            max_open_files: -1,
            delayed_write_rate: 0,
            max_total_wal_size: 0,
            manual_flush_enabled: false,
            max_concurrent_writers: -1,
            fs: StdFileSystem::shared(),
            env: Env::default_env(),
            rate_limiter: None,
            statistics: None,
            stats_dump_period_sec: 600,
            info_log_level: crate::logger::InfoLogLevel::Info,
            max_log_file_size: 0,
            keep_log_file_num: 1000,
            logger: None,
            write_buffer_size: 64 << 20,
            max_write_buffer_number: 2,
            min_write_buffer_number_to_merge: 1,
            level0_file_num_compaction_trigger: 4,
            level0_slowdown_writes_trigger: 20,
            level0_stop_writes_trigger: 36,
            soft_pending_compaction_bytes_limit: 64 << 30,
            hard_pending_compaction_bytes_limit: 256 << 30,
            num_levels: 7,
            max_bytes_for_level_base: 256 << 20,
            max_bytes_for_level_multiplier: 10.0,
            level_compaction_dynamic_level_bytes: true,
            target_file_size_base: 64 << 20,
            target_file_size_multiplier: 1,
            compaction_pri: CompactionPriority::default(),
            disable_auto_compactions: false,
            compaction_style: CompactionStyle::Level,
            compaction_options_universal: Default::default(),
            compaction_options_fifo: Default::default(),
            ttl: 0,
            compression: CompressionType::default(),
            compression_opts: CompressionOptions::default(),
            compression_per_level: Vec::new(),
            bottommost_compression: None,
            bottommost_compression_opts: CompressionOptions::default(),
            prefix_extractor: None,
            table: BlockBasedTableOptions::default(),
            merge_operator: None,
        }
    }
}

/// Upper bound of `max_background_jobs`, `max_background_compactions` and
/// `max_background_flushes`. The pools' threads are started at open, so
/// without a bound a value like `i32::MAX` started threads until the system
/// refused one (leaving thousands behind) or aborted the process.
pub const MAX_BACKGROUND_THREADS: i32 = 1024;

/// Upper bound of `max_concurrent_writers`.
pub const MAX_CONCURRENT_WRITERS: i32 = 1024;

/// Upper bound of `num_levels`: the manifest records levels below
/// `version::edit::MAX_LEVELS`.
pub const MAX_NUM_LEVELS: i32 = 64;

/// Upper bound of `table.block_size` (RocksDB's is 4 GiB − 1).
pub const MAX_BLOCK_SIZE: usize = 1 << 30;

/// `max_open_files` other than -1 is clamped to this range at open, as
/// RocksDB does (its upper bound is the process's file limit, or this when
/// that is unknown).
pub const MAX_OPEN_FILES_RANGE: (i32, i32) = (20, 0x40_0000);

/// `write_buffer_size` is clamped to this range at open, as RocksDB does.
pub const WRITE_BUFFER_SIZE_RANGE: (usize, usize) = (64 << 10, 64 << 30);

fn invalid(msg: String) -> Error {
    Error::InvalidArgument(msg)
}

/// `block_size_deviation` as RocksDB's table factory takes it: 0 to 100 as
/// given, anything else 0 (blocks close only at `block_size`).
pub fn sanitize_block_size_deviation(d: i32) -> u32 {
    u32::try_from(d).ok().filter(|&d| d <= 100).unwrap_or(0)
}

/// Bloom bits per key as RocksDB's filter policy takes them: below 0.5 no
/// filter, below 1 one bit, not below 100 (NaN included) 100.
pub fn sanitize_bits_per_key(b: f64) -> Option<f64> {
    if b < 0.5 {
        None
    } else if b < 1.0 {
        Some(1.0)
    } else if b >= 100.0 || b.is_nan() {
        Some(100.0)
    } else {
        Some(b)
    }
}

impl Options {
    /// Rejects values no database can run with, and those RocksDB's open
    /// refuses; the message names the option. Everything else RocksDB
    /// accepts is accepted, and what it corrects at open
    /// [`Options::sanitize`] corrects the same way.
    ///
    /// Refused where RocksDB accepts (the value cannot be run safely):
    /// more than [`MAX_BACKGROUND_THREADS`] background threads (all are
    /// started at open), `num_levels` above [`MAX_NUM_LEVELS`] (the manifest
    /// records levels below it), `block_size` above 1 GiB.
    pub fn validate(&self) -> Result<()> {
        if !(-1..=MAX_CONCURRENT_WRITERS).contains(&self.max_concurrent_writers) {
            return Err(invalid(format!(
                "max_concurrent_writers must be -1 (one per core), 0 (no limit) or 1..={MAX_CONCURRENT_WRITERS}, got {}",
                self.max_concurrent_writers
            )));
        }
        if self.num_levels > MAX_NUM_LEVELS {
            return Err(invalid(format!(
                "num_levels must be at most {MAX_NUM_LEVELS}, got {}",
                self.num_levels
            )));
        }
        if self.max_background_jobs > MAX_BACKGROUND_THREADS {
            return Err(invalid(format!(
                "max_background_jobs must be at most {MAX_BACKGROUND_THREADS}, got {}",
                self.max_background_jobs
            )));
        }
        for (name, v) in [
            (
                "max_background_compactions",
                self.max_background_compactions,
            ),
            ("max_background_flushes", self.max_background_flushes),
        ] {
            if v > MAX_BACKGROUND_THREADS {
                return Err(invalid(format!(
                    "{name} must be at most {MAX_BACKGROUND_THREADS}, got {v}"
                )));
            }
        }
        // As RocksDB's DBImpl::ValidateOptions.
        if self.keep_log_file_num == 0 {
            return Err(invalid("keep_log_file_num must be greater than 0".into()));
        }
        let t = &self.table;
        if t.block_size > MAX_BLOCK_SIZE {
            return Err(invalid(format!(
                "block_size must be at most 1 GiB, got {}",
                t.block_size
            )));
        }
        if self.ttl > 0 && self.compaction_style != CompactionStyle::Fifo {
            return Err(Error::NotSupported(format!(
                "ttl ({} s) with {} compaction: Talus drops tables by age in FIFO compaction only",
                self.ttl,
                self.compaction_style.java_name()
            )));
        }
        self.compression.check_supported("compression")?;
        for (level, c) in self.compression_per_level.iter().enumerate() {
            c.check_supported(&format!("compression_per_level[{level}]"))?;
        }
        if let Some(c) = self.bottommost_compression {
            c.check_supported("bottommost_compression")?;
        }
        // RocksDB also refuses cache_index_and_filter_blocks and
        // pin_l0_filter_and_index_blocks_in_cache with no_block_cache; Talus
        // keeps index and filter blocks in the table readers then (noted by
        // `sanitize`).
        Ok(())
    }

    /// The codec and codec parameters of a table written for `target`, by
    /// RocksDB's rules:
    ///
    /// * A flush uses `compression_per_level[0]` when the list is set, else
    ///   `compression`; never the bottommost codec.
    /// * A compaction whose output level is at or below the deepest
    ///   non-empty level (`level >= num_non_empty_levels - 1`) uses
    ///   `bottommost_compression` when set.
    /// * Otherwise, with `compression_per_level` set, L0 uses entry 0 and a
    ///   level `L ≥ 1` uses entry `L - base_level + 1` (so the base level
    ///   uses entry 1 however deep dynamic level sizing puts it), clamped to
    ///   the list; else `compression`.
    /// * The parameters are `bottommost_compression_opts` at the bottommost
    ///   level when their `enabled` is set, else `compression_opts`.
    ///
    /// Pinned by `options::tests::compression_for_follows_rocksdb`.
    pub fn compression_for(&self, target: OutputTarget) -> (CompressionType, CompressionOptions) {
        let per_level = |idx: i64| {
            let n = self.compression_per_level.len() as i64;
            self.compression_per_level[idx.clamp(0, n - 1) as usize]
        };
        match target {
            OutputTarget::Flush => {
                let c = if self.compression_per_level.is_empty() {
                    self.compression
                } else {
                    per_level(0)
                };
                (c, self.compression_opts)
            }
            OutputTarget::Compaction {
                level,
                base_level,
                num_non_empty_levels,
            } => {
                let bottommost = level + 1 >= num_non_empty_levels;
                let opts = if bottommost && self.bottommost_compression_opts.enabled {
                    self.bottommost_compression_opts
                } else {
                    self.compression_opts
                };
                let c = match self.bottommost_compression {
                    Some(c) if bottommost => c,
                    _ if self.compression_per_level.is_empty() => self.compression,
                    _ if level == 0 => per_level(0),
                    _ => per_level(level as i64 - base_level as i64 + 1),
                };
                (c, opts)
            }
        }
    }

    /// The smallest target size of a compaction output file Talus uses:
    /// 64 KiB, or `write_buffer_size / 1024` when that is smaller, so that
    /// a compaction writes at most about 1024 files per memtable's worth of
    /// data. Each output file is synced, and below this the syncs, not the
    /// bytes, set the pace of compaction. A target of 64 KiB or more is
    /// never changed.
    pub fn min_target_file_size(&self) -> u64 {
        (64 << 10).min(self.write_buffer_size as u64 / 1024).max(1)
    }

    /// Applies RocksDB's fix-ups and returns a note per change, for the info log.
    ///
    /// As RocksDB's `SanitizeOptions`: `write_buffer_size` clamped to
    /// [`WRITE_BUFFER_SIZE_RANGE`]; `max_open_files` other than -1 to
    /// [`MAX_OPEN_FILES_RANGE`]; `num_levels` below 2 raised to 2;
    /// `max_write_buffer_number` below 2 raised to 2;
    /// `min_write_buffer_number_to_merge` into `[1, max_write_buffer_number
    /// − 1]`; `max_bytes_for_level_multiplier` not above 0 set to 1;
    /// `level0_file_num_compaction_trigger` 0 raised to 1; the L0 triggers
    /// and the pending-bytes limits ordered; `block_restart_interval` 0
    /// raised to 1; bloom bits per key below 0.5 build no filter, below 1
    /// build 1, and not below 100 (or NaN) build 100.
    ///
    /// Talus's own (RocksDB keeps these values, and runs badly or not at
    /// all with them): `target_file_size_base` raised to
    /// [`Options::min_target_file_size`]; `target_file_size_multiplier` and
    /// a negative `level0_file_num_compaction_trigger` raised to 1; a
    /// NaN `max_bytes_for_level_multiplier` set to 1.
    pub fn sanitize(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        let (wbs_min, wbs_max) = WRITE_BUFFER_SIZE_RANGE;
        if !(wbs_min..=wbs_max).contains(&self.write_buffer_size) {
            let clamped = self.write_buffer_size.clamp(wbs_min, wbs_max);
            notes.push(format!(
                "write_buffer_size clamped from {} to {clamped} (range {wbs_min}..={wbs_max})",
                self.write_buffer_size
            ));
            self.write_buffer_size = clamped;
        }
        let (files_min, files_max) = MAX_OPEN_FILES_RANGE;
        if self.max_open_files != -1 && !(files_min..=files_max).contains(&self.max_open_files) {
            let clamped = self.max_open_files.clamp(files_min, files_max);
            notes.push(format!(
                "max_open_files clamped from {} to {clamped} (-1, or {files_min}..={files_max})",
                self.max_open_files
            ));
            self.max_open_files = clamped;
        }
        let m = self.max_bytes_for_level_multiplier;
        if m <= 0.0 || m.is_nan() {
            notes.push(format!(
                "max_bytes_for_level_multiplier set from {} to 1",
                self.max_bytes_for_level_multiplier
            ));
            self.max_bytes_for_level_multiplier = 1.0;
        }
        if self.target_file_size_multiplier < 1 {
            notes.push(format!(
                "target_file_size_multiplier raised from {} to 1",
                self.target_file_size_multiplier
            ));
            self.target_file_size_multiplier = 1;
        }
        if self.table.block_restart_interval < 1 {
            notes.push("table.block_restart_interval raised from 0 to 1".into());
            self.table.block_restart_interval = 1;
        }
        let deviation = sanitize_block_size_deviation(self.table.block_size_deviation);
        if i64::from(deviation) != i64::from(self.table.block_size_deviation) {
            notes.push(format!(
                "table.block_size_deviation {} taken as {deviation}",
                self.table.block_size_deviation
            ));
            self.table.block_size_deviation = deviation as i32;
        }
        if let Some(b) = self.table.filter_bits_per_key {
            let sane = sanitize_bits_per_key(b);
            if sane != Some(b) {
                notes.push(format!(
                    "bloom filter bits per key {b} taken as {}",
                    sane.map_or("no filter".to_string(), |s| s.to_string())
                ));
                self.table.filter_bits_per_key = sane;
            }
        }
        if let Some(rl) = &self.rate_limiter {
            if self.bytes_per_sync == 0 {
                self.bytes_per_sync = 1 << 20;
            }
            if self.delayed_write_rate == 0 {
                self.delayed_write_rate = rl.bytes_per_second();
            }
        }
        // RocksDB's SanitizeOptions: level-style compaction needs a level
        // below L0. With a single level nothing ever compacted L0, so once it
        // held `level0_stop_writes_trigger` files writes (and flushes) waited
        // forever.
        // Universal and FIFO compaction work in L0 alone.
        let min_levels = if self.compaction_style == CompactionStyle::Level {
            2
        } else {
            1
        };
        if self.num_levels < min_levels {
            notes.push(format!(
                "num_levels raised from {} to {min_levels}{}",
                self.num_levels,
                if min_levels == 2 {
                    " (level compaction needs a level below L0)"
                } else {
                    ""
                }
            ));
            self.num_levels = min_levels;
        }
        if self.max_write_buffer_number < 2 {
            notes.push(format!(
                "max_write_buffer_number raised from {} to 2",
                self.max_write_buffer_number
            ));
            self.max_write_buffer_number = 2;
        }
        let max_merge = self.max_write_buffer_number - 1;
        if self.min_write_buffer_number_to_merge > max_merge {
            notes.push(format!(
                "min_write_buffer_number_to_merge lowered from {} to {max_merge}",
                self.min_write_buffer_number_to_merge
            ));
            self.min_write_buffer_number_to_merge = max_merge;
        }
        if self.min_write_buffer_number_to_merge < 1 {
            notes.push(format!(
                "min_write_buffer_number_to_merge raised from {} to 1",
                self.min_write_buffer_number_to_merge
            ));
            self.min_write_buffer_number_to_merge = 1;
        }
        // RocksDB accepts any positive target file size; Talus raises one
        // below the floor (see `min_target_file_size`). With 1 byte every
        // compaction output held one key, each file created and synced, so
        // compaction ran at the pace of file syncs, L0 drained that slowly,
        // and a flush waiting for L0 to drain blocked as long (regression
        // test `regression_target_file_size_base_1_does_not_write_a_file_per_key`).
        let min_target = self.min_target_file_size();
        if self.target_file_size_base < min_target {
            notes.push(format!(
                "target_file_size_base raised from {} to {min_target} (the smaller of 64 KiB and \
                 write_buffer_size / 1024)",
                self.target_file_size_base
            ));
            self.target_file_size_base = min_target;
        }
        if self.level0_file_num_compaction_trigger < 1 {
            notes.push(format!(
                "level0_file_num_compaction_trigger raised from {} to 1",
                self.level0_file_num_compaction_trigger
            ));
            self.level0_file_num_compaction_trigger = 1;
        }
        if self.level0_slowdown_writes_trigger >= 0
            && self.level0_slowdown_writes_trigger < self.level0_file_num_compaction_trigger
        {
            notes.push(format!(
                "level0_slowdown_writes_trigger raised from {} to {}",
                self.level0_slowdown_writes_trigger, self.level0_file_num_compaction_trigger
            ));
            self.level0_slowdown_writes_trigger = self.level0_file_num_compaction_trigger;
        }
        let floor = self
            .level0_slowdown_writes_trigger
            .max(self.level0_file_num_compaction_trigger);
        if self.level0_stop_writes_trigger < floor {
            notes.push(format!(
                "level0_stop_writes_trigger raised from {} to {floor}",
                self.level0_stop_writes_trigger
            ));
            self.level0_stop_writes_trigger = floor;
        }
        // RocksDB's SanitizeOptions: FIFO compaction drops the oldest L0
        // tables instead of compacting them down, so L0's count means
        // nothing to it and never stalls writes.
        if self.compaction_style == CompactionStyle::Fifo {
            self.level0_slowdown_writes_trigger = i32::MAX;
            self.level0_stop_writes_trigger = i32::MAX;
        }
        if self.soft_pending_compaction_bytes_limit == 0
            && self.hard_pending_compaction_bytes_limit > 0
        {
            self.soft_pending_compaction_bytes_limit = self.hard_pending_compaction_bytes_limit;
        } else if self.hard_pending_compaction_bytes_limit > 0
            && self.soft_pending_compaction_bytes_limit > self.hard_pending_compaction_bytes_limit
        {
            notes.push(format!(
                "soft_pending_compaction_bytes_limit lowered from {} to the hard limit {}",
                self.soft_pending_compaction_bytes_limit, self.hard_pending_compaction_bytes_limit
            ));
            self.soft_pending_compaction_bytes_limit = self.hard_pending_compaction_bytes_limit;
        }
        // Two table settings that RocksDB also accepts and ignores; said in the
        // LOG so that neither goes unnoticed.
        if self.table.no_block_cache && self.table.block_cache.is_some() {
            notes.push("table.block_cache ignored: table.no_block_cache is set".into());
        }
        if self.table.pin_l0_filter_and_index_blocks_in_cache
            && !self.table.cache_index_and_filter_blocks
        {
            notes.push(
                "table.pin_l0_filter_and_index_blocks_in_cache has no effect without \
                 table.cache_index_and_filter_blocks (table readers hold those blocks)"
                    .into(),
            );
        }
        notes
    }

    /// Sets the options of a bulk load with RocksDB's values
    /// (`Options::PrepareForBulkLoad`): every write lands in L0, nothing is
    /// compacted automatically, writes never slow down or stop for L0 or
    /// pending compaction bytes, and one manual `compact_range` at the end
    /// compacts L0 into L1 (the caller issues it). Exactly:
    ///
    /// | option | value |
    /// |---|---|
    /// | `disable_auto_compactions` | true |
    /// | `level0_file_num_compaction_trigger` | 2^30 |
    /// | `level0_slowdown_writes_trigger` | 2^30 |
    /// | `level0_stop_writes_trigger` | 2^30 |
    /// | `soft_pending_compaction_bytes_limit` | 0 (off) |
    /// | `hard_pending_compaction_bytes_limit` | 0 (off) |
    /// | `num_levels` | 2 |
    /// | `max_write_buffer_number` | 6 |
    /// | `min_write_buffer_number_to_merge` | 1 |
    /// | `max_background_flushes` | 4 |
    /// | `max_background_compactions` | 2 |
    /// | `target_file_size_base` | 256 MiB |
    ///
    /// `write_buffer_size` is left as it is (RocksDB's does not change
    /// it either). RocksDB also sets `max_compaction_bytes` to 2^60 so one
    /// manual compaction takes every L0 file; Talus has no such option and
    /// its manual compaction of L0 always takes every L0 file.
    pub fn prepare_for_bulk_load(&mut self) -> &mut Self {
        self.disable_auto_compactions = true;
        self.level0_file_num_compaction_trigger = 1 << 30;
        self.level0_slowdown_writes_trigger = 1 << 30;
        self.level0_stop_writes_trigger = 1 << 30;
        self.soft_pending_compaction_bytes_limit = 0;
        self.hard_pending_compaction_bytes_limit = 0;
        self.num_levels = 2;
        self.max_write_buffer_number = 6;
        self.min_write_buffer_number_to_merge = 1;
        self.max_background_flushes = 4;
        self.max_background_compactions = 2;
        self.target_file_size_base = 256 << 20;
        self
    }

    /// Background thread budget split as RocksDB does: `(flushes, compactions)`.
    /// With the deprecated per-kind options unset, a quarter of the jobs
    /// (at least one) flush and the rest compact.
    pub fn background_threads(&self) -> (usize, usize) {
        if self.max_background_flushes == -1 && self.max_background_compactions == -1 {
            let jobs = self.max_background_jobs.max(2) as usize;
            let flushes = (jobs / 4).max(1);
            (flushes, (jobs - flushes).max(1))
        } else {
            // As RocksDB: each at least 1 (-1, 0 and negative values alike).
            let flushes = self.max_background_flushes.max(1) as usize;
            let compactions = self.max_background_compactions.max(1) as usize;
            (flushes, compactions)
        }
    }

    /// One `name: value` line per option, for the info log at open.
    pub fn describe(&self) -> String {
        let t = &self.table;
        let lines = [
            format!("create_if_missing: {}", self.create_if_missing),
            format!("error_if_exists: {}", self.error_if_exists),
            format!(
                "create_missing_column_families: {}",
                self.create_missing_column_families
            ),
            format!("paranoid_checks: {}", self.paranoid_checks),
            format!("use_fsync: {}", self.use_fsync),
            format!(
                "wal_dir: {}",
                self.wal_dir
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            ),
            format!("wal_recovery_mode: {:?}", self.wal_recovery_mode),
            format!("wal_bytes_per_sync: {}", self.wal_bytes_per_sync),
            format!("allow_fallocate: {}", self.allow_fallocate),
            format!("bytes_per_sync: {}", self.bytes_per_sync),
            format!("max_background_jobs: {}", self.max_background_jobs),
            format!(
                "max_background_compactions: {}",
                self.max_background_compactions
            ),
            format!("max_background_flushes: {}", self.max_background_flushes),
            format!("max_subcompactions: {}", self.max_subcompactions),
            format!("max_open_files: {}", self.max_open_files),
            format!("delayed_write_rate: {}", self.delayed_write_rate),
            format!("max_total_wal_size: {}", self.max_total_wal_size),
            format!("manual_flush_enabled: {}", self.manual_flush_enabled),
            format!("max_concurrent_writers: {}", self.max_concurrent_writers),
            format!(
                "rate_limiter: {}",
                self.rate_limiter
                    .as_ref()
                    .map_or("none".to_string(), |r| format!(
                        "{} bytes/s, mode {:?}",
                        r.bytes_per_second(),
                        r.mode()
                    ))
            ),
            format!(
                "env: compaction threads at {:?} CPU priority, flush threads at {:?}",
                self.env.thread_pool_cpu_priority(Priority::Low),
                self.env.thread_pool_cpu_priority(Priority::High)
            ),
            format!("statistics: {}", self.statistics.is_some()),
            format!("stats_dump_period_sec: {}", self.stats_dump_period_sec),
            format!("info_log_level: {:?}", self.info_log_level),
            format!("max_log_file_size: {}", self.max_log_file_size),
            format!("keep_log_file_num: {}", self.keep_log_file_num),
            format!(
                "logger: {}",
                if self.logger.is_some() {
                    "user"
                } else {
                    "LOG file"
                }
            ),
            format!(
                "merge_operator: {}",
                self.merge_operator.as_ref().map_or("none", |m| m.name())
            ),
            format!("allow_ingest_behind: {}", self.allow_ingest_behind),
            format!("write_buffer_size: {}", self.write_buffer_size),
            format!("max_write_buffer_number: {}", self.max_write_buffer_number),
            format!(
                "min_write_buffer_number_to_merge: {}",
                self.min_write_buffer_number_to_merge
            ),
            format!(
                "level0_file_num_compaction_trigger: {}",
                self.level0_file_num_compaction_trigger
            ),
            format!(
                "level0_slowdown_writes_trigger: {}",
                self.level0_slowdown_writes_trigger
            ),
            format!(
                "level0_stop_writes_trigger: {}",
                self.level0_stop_writes_trigger
            ),
            format!(
                "soft_pending_compaction_bytes_limit: {}",
                self.soft_pending_compaction_bytes_limit
            ),
            format!(
                "hard_pending_compaction_bytes_limit: {}",
                self.hard_pending_compaction_bytes_limit
            ),
            format!("num_levels: {}", self.num_levels),
            format!(
                "max_bytes_for_level_base: {}",
                self.max_bytes_for_level_base
            ),
            format!(
                "max_bytes_for_level_multiplier: {}",
                self.max_bytes_for_level_multiplier
            ),
            format!(
                "level_compaction_dynamic_level_bytes: {}",
                self.level_compaction_dynamic_level_bytes
            ),
            format!("target_file_size_base: {}", self.target_file_size_base),
            format!(
                "target_file_size_multiplier: {}",
                self.target_file_size_multiplier
            ),
            format!("compaction_pri: {:?}", self.compaction_pri),
            format!("compaction_style: {:?}", self.compaction_style),
            format!(
                "compaction_options_universal: {:?}",
                self.compaction_options_universal
            ),
            format!(
                "compaction_options_fifo: {:?}",
                self.compaction_options_fifo
            ),
            format!("ttl: {}", self.ttl),
            format!(
                "disable_auto_compactions: {}",
                self.disable_auto_compactions
            ),
            format!("compression: {:?}", self.compression),
            format!("compression_opts: {:?}", self.compression_opts),
            format!("compression_per_level: {:?}", self.compression_per_level),
            format!("bottommost_compression: {:?}", self.bottommost_compression),
            format!(
                "bottommost_compression_opts: {:?}",
                self.bottommost_compression_opts
            ),
            format!(
                "prefix_extractor: {}",
                self.prefix_extractor
                    .map_or_else(|| "nullptr".to_string(), |p| p.name())
            ),
            format!("table.block_size: {}", t.block_size),
            format!("table.block_restart_interval: {}", t.block_restart_interval),
            format!("table.block_size_deviation: {}", t.block_size_deviation),
            format!("table.filter_bits_per_key: {:?}", t.filter_bits_per_key),
            format!("table.whole_key_filtering: {}", t.whole_key_filtering),
            format!(
                "table.cache_index_and_filter_blocks: {}",
                t.cache_index_and_filter_blocks
            ),
            format!(
                "table.pin_l0_filter_and_index_blocks_in_cache: {}",
                t.pin_l0_filter_and_index_blocks_in_cache
            ),
            format!("table.no_block_cache: {}", t.no_block_cache),
        ];
        lines.join("\n")
    }
}

/// Options of one write. `sync` with `disable_wal` is refused by every
/// write ([`WriteOptions::validate`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct WriteOptions {
    /// Sync the WAL before acknowledging. Default false. Needs the WAL: a
    /// write with `disable_wal` too is refused with `InvalidArgument`.
    pub sync: bool,
    /// Do not write the WAL (the write is lost on a crash until flushed). Default false.
    pub disable_wal: bool,
    /// Fail with `Incomplete` instead of waiting in a write stall. Default false.
    pub no_slowdown: bool,
    /// Throttle this write first when compaction is behind. Default false.
    pub low_pri: bool,
}

impl WriteOptions {
    /// Refuses combinations no write can honour, as RocksDB does before a
    /// write touches anything: `sync` makes the write's WAL record durable,
    /// and with `disable_wal` there is no record, so the write would be
    /// acknowledged as synced and still be lost on a crash.
    pub fn validate(&self) -> Result<()> {
        if self.sync && self.disable_wal {
            return Err(invalid(
                "a synced write needs the WAL: sync and disable_wal are both set".into(),
            ));
        }
        Ok(())
    }
}

/// Which data a read may reach (RocksJava `ReadTier` byte values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum ReadTier {
    /// Memtables, block cache and table files. The default.
    #[default]
    ReadAll = 0,
    /// Memtables and what is already in memory (block cache, open table
    /// readers): a read that would need IO fails with `Incomplete`, and an
    /// iterator that would need it ends with that status.
    BlockCache = 1,
}

impl ReadTier {
    /// Decodes RocksJava's `ReadTier` byte; `PERSISTED_TIER` (2) and
    /// `MEMTABLE_TIER` (3) are not implemented.
    pub fn from_u8(b: u8) -> Result<Self> {
        match b {
            0 => Ok(ReadTier::ReadAll),
            1 => Ok(ReadTier::BlockCache),
            2 => Err(Error::NotSupported(
                "read tier PERSISTED_TIER: Talus implements READ_ALL_TIER and BLOCK_CACHE_TIER"
                    .into(),
            )),
            3 => Err(Error::NotSupported(
                "read tier MEMTABLE_TIER: Talus implements READ_ALL_TIER and BLOCK_CACHE_TIER"
                    .into(),
            )),
            other => Err(Error::InvalidArgument(format!("unknown read tier {other}"))),
        }
    }
}

/// Options of one read.
#[derive(Clone, Debug)]
pub struct ReadOptions {
    /// Read as of this sequence number (a snapshot); `None` = latest.
    pub snapshot: Option<SequenceNumber>,
    /// Verify block checksums on every read. Default true.
    pub verify_checksums: bool,
    /// Put blocks read into the block cache. Default true.
    pub fill_cache: bool,
    /// Iterators start at or after this user key.
    pub iterate_lower_bound: Option<Vec<u8>>,
    /// Iterators stop before this user key.
    pub iterate_upper_bound: Option<Vec<u8>>,
    /// Which data the read may reach. Default [`ReadTier::ReadAll`].
    pub read_tier: ReadTier,
    /// With a prefix extractor: iterators seek in total order, never
    /// skipping a table by its prefix filter. Default false. No effect
    /// without a prefix extractor (every seek is then in total order).
    pub total_order_seek: bool,
    /// With a prefix extractor: after a seek to a key that has a prefix,
    /// the iterator stops at the end of that prefix (after `seek_to_first`
    /// and `seek_to_last`, at the end of the first key's prefix). Default
    /// false.
    pub prefix_same_as_start: bool,
    /// With a prefix extractor: seeks give total-order results, using the
    /// prefix filters only where that cannot change them (the seek key and
    /// `iterate_upper_bound` share the prefix). Default false.
    pub auto_prefix_mode: bool,
    /// Reads do not apply range tombstones: keys a `delete_range` covers
    /// stay visible until compaction removes them. Default false.
    pub ignore_range_deletions: bool,
    /// Iterators see writes made after their creation: each seek reads the
    /// latest state (the snapshot is not used); they move forward only
    /// (`prev`, `seek_to_last` and `seek_for_prev` end them with
    /// `NotSupported`). Default false.
    pub tailing: bool,
    /// Bytes an iterator reads beyond a data block it misses in the block
    /// cache (RocksDB's `readahead_size`). 0 (the default): automatic
    /// readahead, as RocksDB's with its defaults; above 0, that many bytes
    /// beyond every block missed, at most 64 MiB (`table/readahead.rs`).
    pub readahead_size: u64,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            snapshot: None,
            verify_checksums: true,
            fill_cache: true,
            iterate_lower_bound: None,
            iterate_upper_bound: None,
            read_tier: ReadTier::ReadAll,
            total_order_seek: false,
            prefix_same_as_start: false,
            auto_prefix_mode: false,
            ignore_range_deletions: false,
            tailing: false,
            readahead_size: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RocksDB's level → codec mapping (`GetCompressionType` and
    /// `GetCompressionFlush` in its compaction picker), case by case.
    #[test]
    fn compression_for_follows_rocksdb() {
        use CompressionType::{Lz4, None as No, Snappy, Zstd};
        let per = vec![No, Snappy, Lz4, Zstd];
        let at = |level, base_level, num_non_empty_levels| OutputTarget::Compaction {
            level,
            base_level,
            num_non_empty_levels,
        };
        // (compression, per_level, bottommost, target, expected)
        type Case = (
            CompressionType,
            Vec<CompressionType>,
            Option<CompressionType>,
            OutputTarget,
            CompressionType,
        );
        let cases: Vec<Case> = vec![
            // No list, no bottommost: `compression` everywhere.
            (Snappy, vec![], None, OutputTarget::Flush, Snappy),
            (Snappy, vec![], None, at(6, 6, 7), Snappy),
            // Flush: entry 0 of the list, never the bottommost codec.
            (Lz4, per.clone(), Some(Zstd), OutputTarget::Flush, No),
            (Lz4, vec![], Some(Zstd), OutputTarget::Flush, Lz4),
            // Static levels (base level 1): entry L.
            (Lz4, per.clone(), None, at(1, 1, 7), Snappy),
            (Lz4, per.clone(), None, at(2, 1, 7), Lz4),
            // Past the end of the list: its last entry.
            (Lz4, per.clone(), None, at(5, 1, 7), Zstd),
            // Dynamic levels: the base level uses entry 1, below it +1 each.
            (Lz4, per.clone(), None, at(4, 4, 7), Snappy),
            (Lz4, per.clone(), None, at(5, 4, 7), Lz4),
            (Lz4, per.clone(), None, at(0, 4, 7), No),
            // Above the base level (a manual compaction): clamped to entry 0.
            (Lz4, per.clone(), None, at(2, 4, 7), No),
            // Bottommost: at or below the deepest non-empty level.
            (Lz4, per.clone(), Some(Zstd), at(6, 4, 7), Zstd),
            (Lz4, per.clone(), Some(Zstd), at(5, 4, 7), Lz4),
            (Lz4, vec![], Some(Zstd), at(3, 1, 3), Zstd),
            (Lz4, vec![], Some(Zstd), at(4, 1, 3), Zstd),
            (Lz4, vec![], Some(Zstd), at(1, 1, 3), Lz4),
            // An empty tree: every compaction output is bottommost.
            (Lz4, vec![], Some(Zstd), at(6, 6, 0), Zstd),
        ];
        for (i, (c, per_level, bottom, target, want)) in cases.into_iter().enumerate() {
            let o = Options {
                compression: c,
                compression_per_level: per_level,
                bottommost_compression: bottom,
                ..Options::default()
            };
            assert_eq!(o.compression_for(target).0, want, "case {i}: {target:?}");
        }

        // Parameters: the bottommost ones only when enabled, and only there.
        let general = CompressionOptions {
            level: 1,
            ..CompressionOptions::default()
        };
        let mut bottom = CompressionOptions {
            level: 19,
            max_dict_bytes: 1 << 14,
            ..CompressionOptions::default()
        };
        let mut o = Options {
            compression_opts: general,
            bottommost_compression_opts: bottom,
            ..Options::default()
        };
        assert_eq!(o.compression_for(at(6, 6, 7)).1, general);
        bottom.enabled = true;
        o.bottommost_compression_opts = bottom;
        assert_eq!(o.compression_for(at(6, 6, 7)).1, bottom);
        assert_eq!(o.compression_for(at(5, 5, 7)).1, general);
        assert_eq!(o.compression_for(OutputTarget::Flush).1, general);
    }

    #[test]
    fn codecs_this_build_lacks_fail_validation_naming_them() {
        for (b, name) in [
            (2u8, "ZLIB_COMPRESSION"),
            (3, "BZLIB2_COMPRESSION"),
            (5, "LZ4HC_COMPRESSION"),
            (6, "XPRESS_COMPRESSION"),
        ] {
            let c = CompressionType::from_u8(b).unwrap();
            let opts = [
                Options {
                    compression: c,
                    ..Options::default()
                },
                Options {
                    compression_per_level: vec![CompressionType::Lz4, c],
                    ..Options::default()
                },
                Options {
                    bottommost_compression: Some(c),
                    ..Options::default()
                },
            ];
            for o in opts {
                match o.validate() {
                    Err(Error::NotSupported(m)) => assert!(m.contains(name), "{m}"),
                    other => panic!("{name}: {other:?}"),
                }
            }
        }
        for b in [0u8, 1, 4, 7] {
            let c = CompressionType::from_u8(b).unwrap();
            assert_eq!(c as u8, b);
            Options {
                compression: c,
                compression_per_level: vec![c],
                bottommost_compression: Some(c),
                ..Options::default()
            }
            .validate()
            .unwrap();
        }
        assert!(matches!(
            CompressionType::from_u8(8),
            Err(Error::NotSupported(_))
        ));
    }

    #[test]
    fn defaults_are_rocksdb_defaults() {
        let o = Options::default();
        assert_eq!(o.write_buffer_size, 64 << 20);
        assert_eq!(o.max_write_buffer_number, 2);
        assert_eq!(o.level0_slowdown_writes_trigger, 20);
        assert_eq!(o.level0_stop_writes_trigger, 36);
        assert_eq!(o.soft_pending_compaction_bytes_limit, 64 << 30);
        assert_eq!(o.max_bytes_for_level_base, 256 << 20);
        assert!(o.level_compaction_dynamic_level_bytes);
        assert_eq!(o.compaction_pri, CompactionPriority::MinOverlappingRatio);
        assert_eq!(o.background_threads(), (1, 1));
        o.validate().unwrap();
    }

    #[test]
    fn sanitize_orders_l0_triggers_and_limits() {
        let mut o = Options {
            level0_file_num_compaction_trigger: 10,
            level0_slowdown_writes_trigger: 5,
            level0_stop_writes_trigger: 3,
            max_write_buffer_number: 1,
            min_write_buffer_number_to_merge: 4,
            soft_pending_compaction_bytes_limit: 10,
            hard_pending_compaction_bytes_limit: 5,
            ..Options::default()
        };
        let notes = o.sanitize();
        assert_eq!(o.level0_slowdown_writes_trigger, 10);
        assert_eq!(o.level0_stop_writes_trigger, 10);
        assert_eq!(o.max_write_buffer_number, 2);
        assert_eq!(o.min_write_buffer_number_to_merge, 1);
        assert_eq!(o.soft_pending_compaction_bytes_limit, 5);
        assert_eq!(notes.len(), 5);
        let mut t = Options::default();
        t.table.no_block_cache = true;
        t.table.block_cache = Some(Arc::new(
            crate::table::BlockCache::new(1 << 20, 0, false, 0.5).unwrap(),
        ));
        t.table.pin_l0_filter_and_index_blocks_in_cache = true;
        let notes = t.sanitize();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[0].contains("block_cache ignored"), "{notes:?}");
        assert!(notes[1].contains("has no effect"), "{notes:?}");
    }

    #[test]
    fn sanitize_raises_a_target_file_size_below_the_floor_only() {
        let cases = [
            // (write_buffer_size, target_file_size_base, target after sanitize)
            (64 << 20, 1, 64 << 10),
            (64 << 20, (64 << 10) - 1, 64 << 10),
            (64 << 20, 64 << 10, 64 << 10),
            (8 << 30, 2 << 20, 2 << 20),
            (64 << 10, 1, 64),
            (64 << 10, 256, 256),
        ];
        for (wbs, tfs, want) in cases {
            let mut o = Options {
                write_buffer_size: wbs,
                target_file_size_base: tfs,
                ..Options::default()
            };
            let notes = o.sanitize();
            assert_eq!(o.target_file_size_base, want, "wbs {wbs}, tfs {tfs}");
            assert_eq!(
                notes.iter().any(|n| n.contains("target_file_size_base")),
                want != tfs,
                "{notes:?}"
            );
        }
    }

    #[test]
    fn validate_names_the_bad_option() {
        type Set = fn(&mut Options);
        let refused: [(&str, Set); 5] = [
            ("num_levels", |o| o.num_levels = 65),
            ("max_background_jobs", |o| o.max_background_jobs = 1025),
            ("max_background_flushes", |o| {
                o.max_background_flushes = 5000
            }),
            ("keep_log_file_num", |o| o.keep_log_file_num = 0),
            ("block_size", |o| o.table.block_size = 2 << 30),
        ];
        for (name, set) in refused {
            let mut o = Options::default();
            set(&mut o);
            let e = o.validate().unwrap_err();
            assert_eq!(e.code(), crate::error::Code::InvalidArgument);
            assert!(e.to_string().contains(name), "{name}: {e}");
        }
        let zlib = Options {
            compression: CompressionType::Zlib,
            ..Options::default()
        };
        assert!(
            zlib.validate()
                .unwrap_err()
                .to_string()
                .contains("ZLIB_COMPRESSION")
        );
    }

    /// Every value RocksDB accepts passes `validate`; `sanitize` corrects
    /// what RocksDB corrects, as RocksDB does.
    #[test]
    fn rocksdb_accepted_values_are_accepted_and_sanitized_as_rocksdb_does() {
        type Case = (&'static str, fn(&mut Options), fn(&Options) -> bool);
        let cases: &[Case] = &[
            (
                "write_buffer_size 64000 → 65536",
                |o| o.write_buffer_size = 64_000,
                |o| o.write_buffer_size == 64 << 10,
            ),
            (
                "write_buffer_size huge → 64 GiB",
                |o| o.write_buffer_size = usize::MAX,
                |o| o.write_buffer_size == 64 << 30,
            ),
            (
                "multiplier 1 kept",
                |o| o.max_bytes_for_level_multiplier = 1.0,
                |o| o.max_bytes_for_level_multiplier == 1.0,
            ),
            (
                "multiplier 0.5 kept",
                |o| o.max_bytes_for_level_multiplier = 0.5,
                |o| o.max_bytes_for_level_multiplier == 0.5,
            ),
            (
                "multiplier -3 → 1",
                |o| o.max_bytes_for_level_multiplier = -3.0,
                |o| o.max_bytes_for_level_multiplier == 1.0,
            ),
            (
                "multiplier NaN → 1",
                |o| o.max_bytes_for_level_multiplier = f64::NAN,
                |o| o.max_bytes_for_level_multiplier == 1.0,
            ),
            (
                "num_levels 0 → 2",
                |o| o.num_levels = 0,
                |o| o.num_levels == 2,
            ),
            (
                "max_write_buffer_number -4 → 2",
                |o| o.max_write_buffer_number = -4,
                |o| o.max_write_buffer_number == 2,
            ),
            (
                "min_write_buffer_number_to_merge 0 → 1",
                |o| o.min_write_buffer_number_to_merge = 0,
                |o| o.min_write_buffer_number_to_merge == 1,
            ),
            (
                "max_open_files 0 → 20",
                |o| o.max_open_files = 0,
                |o| o.max_open_files == 20,
            ),
            (
                "max_open_files -7 → 20",
                |o| o.max_open_files = -7,
                |o| o.max_open_files == 20,
            ),
            (
                "max_open_files -1 kept",
                |o| o.max_open_files = -1,
                |o| o.max_open_files == -1,
            ),
            (
                "level0 trigger -2 → 1",
                |o| o.level0_file_num_compaction_trigger = -2,
                |o| o.level0_file_num_compaction_trigger == 1,
            ),
            (
                "stop trigger 0 → the slowdown trigger",
                |o| o.level0_stop_writes_trigger = 0,
                |o| o.level0_stop_writes_trigger == 20,
            ),
            (
                "target_file_size_multiplier 0 → 1",
                |o| o.target_file_size_multiplier = 0,
                |o| o.target_file_size_multiplier == 1,
            ),
            (
                "target_file_size_base 0 → the floor",
                |o| o.target_file_size_base = 0,
                |o| o.target_file_size_base == 64 << 10,
            ),
            (
                "max_bytes_for_level_base 0 kept",
                |o| o.max_bytes_for_level_base = 0,
                |o| o.max_bytes_for_level_base == 0,
            ),
            (
                "max_background_jobs 0 kept (one flush, one compaction)",
                |o| o.max_background_jobs = 0,
                |o| o.background_threads() == (1, 1),
            ),
            (
                "max_background_compactions 0 → one thread",
                |o| o.max_background_compactions = 0,
                |o| o.background_threads() == (1, 1),
            ),
            (
                "block_restart_interval 0 → 1",
                |o| o.table.block_restart_interval = 0,
                |o| o.table.block_restart_interval == 1,
            ),
            (
                "block_size_deviation 101 → 0",
                |o| o.table.block_size_deviation = 101,
                |o| o.table.block_size_deviation == 0,
            ),
            (
                "block_size_deviation -1 → 0",
                |o| o.table.block_size_deviation = -1,
                |o| o.table.block_size_deviation == 0,
            ),
            (
                "block_size 0 kept (one entry per block)",
                |o| o.table.block_size = 0,
                |o| o.table.block_size == 0,
            ),
            (
                "bloom bits 0.3 → no filter",
                |o| o.table.filter_bits_per_key = Some(0.3),
                |o| o.table.filter_bits_per_key.is_none(),
            ),
            (
                "bloom bits -1 → no filter",
                |o| o.table.filter_bits_per_key = Some(-1.0),
                |o| o.table.filter_bits_per_key.is_none(),
            ),
            (
                "bloom bits 0.7 → 1",
                |o| o.table.filter_bits_per_key = Some(0.7),
                |o| o.table.filter_bits_per_key == Some(1.0),
            ),
            (
                "bloom bits NaN → 100",
                |o| o.table.filter_bits_per_key = Some(f64::NAN),
                |o| o.table.filter_bits_per_key == Some(100.0),
            ),
            (
                "bloom bits 1e9 → 100",
                |o| o.table.filter_bits_per_key = Some(1e9),
                |o| o.table.filter_bits_per_key == Some(100.0),
            ),
        ];
        for (what, set, check) in cases {
            let mut o = Options::default();
            set(&mut o);
            o.validate()
                .unwrap_or_else(|e| panic!("{what}: refused: {e}"));
            o.sanitize();
            assert!(check(&o), "{what}: {o:?}");
        }
    }

    #[test]
    fn background_split() {
        let o = Options {
            max_background_jobs: 8,
            ..Options::default()
        };
        assert_eq!(o.background_threads(), (2, 6));
        let o = Options {
            max_background_compactions: 4,
            max_background_flushes: 2,
            ..Options::default()
        };
        assert_eq!(o.background_threads(), (2, 4));
    }
}
