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

use crate::env::{Env, Priority};
use crate::error::{Error, Result};
use crate::fs::{FileSystem, StdFileSystem};
use crate::key::SequenceNumber;
use crate::wal::WalRecoveryMode;

/// Block compression. Byte values are RocksJava's `CompressionType` values
/// and are stored in block trailers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum CompressionType {
    /// No compression.
    None = 0,
    /// LZ4 (block format, via `lz4_flex`). Talus's default.
    #[default]
    Lz4 = 4,
}

impl CompressionType {
    /// Decodes a RocksJava `CompressionType` byte; other codecs are not supported.
    pub fn from_u8(b: u8) -> Result<Self> {
        match b {
            0 => Ok(CompressionType::None),
            4 => Ok(CompressionType::Lz4),
            1 => Err(Error::NotSupported("compression SNAPPY_COMPRESSION: Talus implements NO_COMPRESSION and LZ4_COMPRESSION".into())),
            other => Err(Error::NotSupported(format!(
                "compression type {other}: Talus implements NO_COMPRESSION (0) and LZ4_COMPRESSION (4)"
            ))),
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

/// Options of the block-based table format.
#[derive(Clone, Debug)]
pub struct BlockBasedTableOptions {
    /// Target uncompressed size of a data block in bytes. Default 4 KiB.
    pub block_size: usize,
    /// Entries between restart points in data blocks. Default 16.
    pub block_restart_interval: usize,
    /// Bloom filter bits per key; `None` builds no filter. Default `None`
    /// (as RocksDB: a filter must be asked for with `BloomFilter`).
    pub filter_bits_per_key: Option<f64>,
    /// Put whole user keys in the filter. Default true.
    pub whole_key_filtering: bool,
    /// Cache index and filter blocks in the block cache instead of holding
    /// them in the table reader. Default false.
    pub cache_index_and_filter_blocks: bool,
    /// With `cache_index_and_filter_blocks`, keep L0 tables' index and filter
    /// pinned in the cache. Default false.
    pub pin_l0_filter_and_index_blocks_in_cache: bool,
    /// Use no block cache at all. Default false.
    pub no_block_cache: bool,
    /// Capacity of the block cache created when none is shared in. Default
    /// 8 MiB (RocksJava's default).
    pub block_cache_size: usize,
    /// A block cache shared between databases; `None` creates one of
    /// `block_cache_size` bytes (unless `no_block_cache`).
    pub block_cache: Option<Arc<crate::table::BlockCache>>,
}

impl Default for BlockBasedTableOptions {
    fn default() -> Self {
        BlockBasedTableOptions {
            block_size: 4 * 1024,
            block_restart_interval: 16,
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
    /// database opening on it fails with `Busy`), and every log names its
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
    /// Table files kept open (-1 = unlimited). Default -1.
    pub max_open_files: i32,
    /// Write rate in delayed-write mode, bytes/s (0 = derive). Default 0.
    pub delayed_write_rate: u64,
    /// Flush memtables when the live WALs exceed this size (0 = 4 × the
    /// memtable budget). Default 0.
    pub max_total_wal_size: u64,
    /// The importer owns the flush rhythm: no flush is triggered by WAL
    /// size, only by a full write buffer or an explicit flush. Default false.
    pub manual_flush_enabled: bool,
    /// Write admission: at most this many threads write at once; the others
    /// sleep and take turns of 1 ms, first come first served (see
    /// `db::write_gate`). -1 = one per core this process may run on, 0 = no
    /// limit (RocksDB's behaviour), else 1 to [`MAX_CONCURRENT_WRITERS`].
    /// `sync`, `no_slowdown` and `low_pri` writes are never held. Default
    /// -1.
    pub max_concurrent_writers: i32,
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
    /// Once a memtable has been flushed, up to this many bytes of its arena
    /// blocks stay allocated for the next memtables (see
    /// `memtable::block_pool`), freed at close.
    pub write_buffer_size: usize,
    /// Memtables (active + immutable) kept before writes stop. Default 2.
    pub max_write_buffer_number: i32,
    /// Immutable memtables merged into one L0 table by a flush. Default 1.
    pub min_write_buffer_number_to_merge: i32,
    /// L0 files that trigger an L0 compaction. Default 4.
    pub level0_file_num_compaction_trigger: i32,
    /// L0 files at which writes slow down (< 0 disables). Default 20.
    pub level0_slowdown_writes_trigger: i32,
    /// L0 files at which writes stop. Default 36.
    pub level0_stop_writes_trigger: i32,
    /// Pending compaction bytes at which writes slow down (0 = off). Default 64 GiB.
    pub soft_pending_compaction_bytes_limit: u64,
    /// Pending compaction bytes at which writes stop (0 = off). Default 256 GiB.
    pub hard_pending_compaction_bytes_limit: u64,
    /// Number of levels, 1 to 64. Default 7. As in RocksDB, 1 is raised to
    /// 2 at open (level compaction needs a level below L0).
    pub num_levels: i32,
    /// Target size of the base level in bytes. Default 256 MiB.
    pub max_bytes_for_level_base: u64,
    /// Growth factor between levels. Default 10.
    pub max_bytes_for_level_multiplier: f64,
    /// Size levels from the bottom up. Default true (RocksDB ≥ 8.4).
    pub level_compaction_dynamic_level_bytes: bool,
    /// Target size of a compaction output file in bytes. Default 64 MiB.
    pub target_file_size_base: u64,
    /// Growth of the target file size per level. Default 1.
    pub target_file_size_multiplier: i32,
    /// Which file of a level to compact first. Default `MinOverlappingRatio`.
    pub compaction_pri: CompactionPriority,
    /// Stop scheduling automatic compactions. Default false.
    pub disable_auto_compactions: bool,
    /// Block compression. Default LZ4.
    pub compression: CompressionType,
    /// Table format options.
    pub table: BlockBasedTableOptions,
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
            paranoid_checks: true,
            use_fsync: false,
            wal_dir: None,
            wal_recovery_mode: WalRecoveryMode::default(),
            wal_bytes_per_sync: 0,
            allow_fallocate: true,
            bytes_per_sync: 0,
            max_background_jobs: 2,
            max_background_compactions: -1,
            max_background_flushes: -1,
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
            compression: CompressionType::default(),
            table: BlockBasedTableOptions::default(),
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

fn invalid(msg: String) -> Error {
    Error::InvalidArgument(msg)
}

impl Options {
    /// Rejects values no database can run with; the message names the option.
    pub fn validate(&self) -> Result<()> {
        if self.write_buffer_size < 64 * 1024 {
            return Err(invalid(format!(
                "write_buffer_size must be at least 65536 bytes, got {}",
                self.write_buffer_size
            )));
        }
        if self.write_buffer_size > (64usize << 30) {
            return Err(invalid(format!(
                "write_buffer_size must be at most 64 GiB, got {}",
                self.write_buffer_size
            )));
        }
        if !(-1..=MAX_CONCURRENT_WRITERS).contains(&self.max_concurrent_writers) {
            return Err(invalid(format!(
                "max_concurrent_writers must be -1 (one per core), 0 (no limit) or 1..={MAX_CONCURRENT_WRITERS}, got {}",
                self.max_concurrent_writers
            )));
        }
        if self.max_write_buffer_number < 1 {
            return Err(invalid(format!(
                "max_write_buffer_number must be at least 1, got {}",
                self.max_write_buffer_number
            )));
        }
        if self.min_write_buffer_number_to_merge < 1 {
            return Err(invalid(format!(
                "min_write_buffer_number_to_merge must be at least 1, got {}",
                self.min_write_buffer_number_to_merge
            )));
        }
        if !(1..=64).contains(&self.num_levels) {
            return Err(invalid(format!(
                "num_levels must be in 1..=64, got {}",
                self.num_levels
            )));
        }
        if self.max_bytes_for_level_base == 0 {
            return Err(invalid("max_bytes_for_level_base must be positive".into()));
        }
        if !(self.max_bytes_for_level_multiplier > 1.0
            && self.max_bytes_for_level_multiplier.is_finite())
        {
            return Err(invalid(format!(
                "max_bytes_for_level_multiplier must be greater than 1, got {}",
                self.max_bytes_for_level_multiplier
            )));
        }
        if self.target_file_size_base == 0 {
            return Err(invalid("target_file_size_base must be positive".into()));
        }
        if self.target_file_size_multiplier < 1 {
            return Err(invalid(format!(
                "target_file_size_multiplier must be at least 1, got {}",
                self.target_file_size_multiplier
            )));
        }
        if !(1..=MAX_BACKGROUND_THREADS).contains(&self.max_background_jobs) {
            return Err(invalid(format!(
                "max_background_jobs must be in 1..={MAX_BACKGROUND_THREADS}, got {}",
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
            if v != -1 && !(1..=MAX_BACKGROUND_THREADS).contains(&v) {
                return Err(invalid(format!(
                    "{name} must be -1 or in 1..={MAX_BACKGROUND_THREADS}, got {v}"
                )));
            }
        }
        if self.max_open_files == 0 || self.max_open_files < -1 {
            return Err(invalid(format!(
                "max_open_files must be -1 or positive, got {}",
                self.max_open_files
            )));
        }
        if self.level0_file_num_compaction_trigger < 0 {
            return Err(invalid(format!(
                "level0_file_num_compaction_trigger must not be negative, got {}",
                self.level0_file_num_compaction_trigger
            )));
        }
        if self.level0_stop_writes_trigger < 1 {
            return Err(invalid(format!(
                "level0_stop_writes_trigger must be positive, got {}",
                self.level0_stop_writes_trigger
            )));
        }
        let t = &self.table;
        if t.block_size == 0 || t.block_size > (1 << 30) {
            return Err(invalid(format!(
                "block_size must be in 1..=1 GiB, got {}",
                t.block_size
            )));
        }
        if t.block_restart_interval < 1 {
            return Err(invalid(format!(
                "block_restart_interval must be at least 1, got {}",
                t.block_restart_interval
            )));
        }
        if let Some(b) = t.filter_bits_per_key
            && !(b.is_finite() && b >= 0.0)
        {
            return Err(invalid(format!(
                "bloom filter bits per key must be ≥ 0, got {b}"
            )));
        }
        Ok(())
    }

    /// Applies RocksDB's fix-ups and returns a note per change, for the info log.
    pub fn sanitize(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
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
        if self.num_levels < 2 {
            notes.push(format!(
                "num_levels raised from {} to 2 (level compaction needs a level below L0)",
                self.num_levels
            ));
            self.num_levels = 2;
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
        if self.level0_file_num_compaction_trigger == 0 {
            notes.push("level0_file_num_compaction_trigger raised from 0 to 1".into());
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

    /// Background thread budget split as RocksDB does: `(flushes, compactions)`.
    /// With the deprecated per-kind options unset, a quarter of the jobs
    /// (at least one) flush and the rest compact.
    pub fn background_threads(&self) -> (usize, usize) {
        if self.max_background_flushes == -1 && self.max_background_compactions == -1 {
            let jobs = self.max_background_jobs.max(2) as usize;
            let flushes = (jobs / 4).max(1);
            (flushes, (jobs - flushes).max(1))
        } else {
            let flushes = if self.max_background_flushes == -1 {
                1
            } else {
                self.max_background_flushes as usize
            };
            let compactions = if self.max_background_compactions == -1 {
                1
            } else {
                self.max_background_compactions as usize
            };
            (flushes, compactions)
        }
    }

    /// One `name: value` line per option, for the info log at open.
    pub fn describe(&self) -> String {
        let t = &self.table;
        let lines = [
            format!("create_if_missing: {}", self.create_if_missing),
            format!("error_if_exists: {}", self.error_if_exists),
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
            format!(
                "disable_auto_compactions: {}",
                self.disable_auto_compactions
            ),
            format!("compression: {:?}", self.compression),
            format!("table.block_size: {}", t.block_size),
            format!("table.block_restart_interval: {}", t.block_restart_interval),
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

/// Options of one write.
#[derive(Clone, Copy, Debug, Default)]
pub struct WriteOptions {
    /// Sync the WAL before acknowledging. Default false.
    pub sync: bool,
    /// Do not write the WAL (the write is lost on a crash until flushed). Default false.
    pub disable_wal: bool,
    /// Fail with `Incomplete` instead of waiting in a write stall. Default false.
    pub no_slowdown: bool,
    /// Throttle this write first when compaction is behind. Default false.
    pub low_pri: bool,
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
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            snapshot: None,
            verify_checksums: true,
            fill_cache: true,
            iterate_lower_bound: None,
            iterate_upper_bound: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn validate_names_the_bad_option() {
        let o = Options {
            write_buffer_size: 0,
            ..Options::default()
        };
        assert!(
            o.validate()
                .unwrap_err()
                .to_string()
                .contains("write_buffer_size")
        );
        let o = Options {
            max_bytes_for_level_multiplier: 0.5,
            ..Options::default()
        };
        assert!(o.validate().unwrap_err().to_string().contains("multiplier"));
        assert!(
            CompressionType::from_u8(1)
                .unwrap_err()
                .to_string()
                .contains("SNAPPY")
        );
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
