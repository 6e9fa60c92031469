//! Options objects: database options, the block-based table options with
//! their block cache and Bloom filter, the rate limiter, and the read, write
//! and flush options. Setters take the RocksDB option of the same name; the
//! engine validates the whole set at open (an out-of-range value fails
//! `talus_open` with `Invalid argument` naming the option).
//!
//! Thread safety: an options object is not synchronized; set it from one
//! thread, then share it read-only (several threads may open with it or
//! pass it to reads at once). Caches, rate limiters and statistics are
//! shared objects, safe from any thread.

#![expect(
    unsafe_code,
    reason = "C entry points (#[unsafe(no_mangle)]) that borrow handles through ffi"
)]

use std::ffi::{c_char, c_int};
use std::sync::Arc;

use talus::db::FlushOptions;
use talus::options::{
    BlockBasedTableOptions, CompactionPriority, CompressionType, DISABLE_COMPRESSION_OPTION,
    PrefixExtractor, ReadTier,
};
use talus::rate_limiter::{IoPriority, RateLimiter, RateLimiterMode};
use talus::{BlockCache, Error, Options, ReadOptions, WalRecoveryMode, WriteOptions};

use crate::ffi::{
    destroy, guard, handle, handle_mut, new_handle, opt_bytes, opt_handle, path_arg, quiet, str_arg,
};
use crate::observe::talus_statistics_t;

/// Database and column-family options (RocksDB `Options`).
pub struct talus_options_t {
    pub(crate) opts: Options,
}

/// Block-based table options (RocksDB `BlockBasedTableOptions`).
pub struct talus_block_based_table_options_t {
    t: BlockBasedTableOptions,
}

/// A block cache, shareable between databases (RocksDB `LRUCache`).
pub struct talus_cache_t {
    c: Arc<BlockCache>,
}

/// A rate limiter of flush and compaction IO (RocksDB `GenericRateLimiter`).
pub struct talus_ratelimiter_t {
    r: Arc<RateLimiter>,
}

/// Options of reads and iterators.
pub struct talus_readoptions_t {
    pub(crate) ro: ReadOptions,
}

/// Options of writes.
pub struct talus_writeoptions_t {
    pub(crate) wo: WriteOptions,
}

/// Options of an explicit flush.
pub struct talus_flushoptions_t {
    pub(crate) fo: FlushOptions,
}

/// Applies `f` to the options behind `opt`; a NULL `opt` is ignored (setters
/// have no `errptr`).
///
/// # Safety
/// `opt` is NULL or a live handle of type `T` no other thread uses during
/// the call (ffi contract 1, 4).
unsafe fn set<T>(opt: *mut T, func: &str, f: impl FnOnce(&mut T)) {
    quiet(func, (), || {
        // SAFETY: forwarded contract.
        f(unsafe { handle_mut(opt, func, "opt") }?);
        Ok(())
    })
}

/// As [`set`], for setters that can refuse a value (reported via `errptr`).
///
/// # Safety
/// As [`set`]; `errptr` as in the header's conventions.
unsafe fn try_set<T>(
    opt: *mut T,
    func: &str,
    errptr: *mut *mut c_char,
    f: impl FnOnce(&mut T) -> Result<(), Error>,
) {
    guard(func, errptr, (), || {
        // SAFETY: forwarded contract.
        f(unsafe { handle_mut(opt, func, "opt") }?)
    })
}

fn invalid(func: &str, msg: String) -> Error {
    Error::InvalidArgument(format!("{func}: {msg}"))
}

// ---- talus_options_t ----

/// New options with RocksDB's defaults (as Talus documents them).
#[unsafe(no_mangle)]
pub extern "C" fn talus_options_create() -> *mut talus_options_t {
    quiet("talus_options_create", std::ptr::null_mut(), || {
        Ok(new_handle(talus_options_t {
            opts: Options::default(),
        }))
    })
}

/// Frees `opt` (NULL is ignored). A database opened with it keeps its own copy.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_destroy(opt: *mut talus_options_t) {
    // SAFETY: header conventions: `opt` is NULL or a live handle, destroyed once.
    unsafe { destroy("talus_options_destroy", opt) }
}

/// Create the database if it is missing. Default 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_create_if_missing(opt: *mut talus_options_t, v: u8) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_create_if_missing", |o| {
            o.opts.create_if_missing = v != 0
        })
    }
}

/// Fail the open when the database exists. Default 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_error_if_exists(opt: *mut talus_options_t, v: u8) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_error_if_exists", |o| {
            o.opts.error_if_exists = v != 0
        })
    }
}

/// Create the column families listed at open that are missing. Default 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_create_missing_column_families(
    opt: *mut talus_options_t,
    v: u8,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(
            opt,
            "talus_options_set_create_missing_column_families",
            |o| o.opts.create_missing_column_families = v != 0,
        )
    }
}

/// Check data aggressively and stop on the first corruption. Default 1.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_paranoid_checks(opt: *mut talus_options_t, v: u8) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_paranoid_checks", |o| {
            o.opts.paranoid_checks = v != 0
        })
    }
}

/// Sync with fsync(2) instead of fdatasync(2). Default 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_use_fsync(opt: *mut talus_options_t, v: u8) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_use_fsync", |o| {
            o.opts.use_fsync = v != 0
        })
    }
}

/// Preallocate file space with fallocate(2). Default 1.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_allow_fallocate(opt: *mut talus_options_t, v: u8) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_allow_fallocate", |o| {
            o.opts.allow_fallocate = v != 0
        })
    }
}

/// Directory of the write-ahead logs; NULL or "" = the database directory
/// (the default). The string is copied.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_wal_dir(opt: *mut talus_options_t, dir: *const c_char) {
    const F: &str = "talus_options_set_wal_dir";
    let dir = if dir.is_null() {
        None
    } else {
        // SAFETY: header conventions: a non-NULL `dir` is a NUL-terminated string.
        unsafe { path_arg(dir, F, "dir") }
            .ok()
            .filter(|p| !p.as_os_str().is_empty())
            .map(|p| p.to_path_buf())
    };
    // SAFETY: header conventions (see `set`).
    unsafe { set(opt, F, |o| o.opts.wal_dir = dir) }
}

/// What recovery tolerates in the logs: `TALUS_WAL_RECOVERY_*`. Default
/// `TALUS_WAL_RECOVERY_TOLERATE_CORRUPTED_TAIL_RECORDS`. An unknown mode is
/// an error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_wal_recovery_mode(
    opt: *mut talus_options_t,
    mode: c_int,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_options_set_wal_recovery_mode";
    // SAFETY: header conventions (see `try_set`).
    unsafe {
        try_set(opt, F, errptr, |o| {
            o.opts.wal_recovery_mode =
                u8::try_from(mode)
                    .ok()
                    .and_then(WalRecoveryMode::from_u8)
                    .ok_or_else(|| invalid(F, format!("unknown WAL recovery mode {mode}")))?;
            Ok(())
        })
    }
}

/// Background-sync the WAL every this many bytes; 0 = off (the default).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_wal_bytes_per_sync(opt: *mut talus_options_t, v: u64) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_wal_bytes_per_sync", |o| {
            o.opts.wal_bytes_per_sync = v
        })
    }
}

/// Sync table files every this many bytes while writing; 0 = off (default).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_bytes_per_sync(opt: *mut talus_options_t, v: u64) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_bytes_per_sync", |o| {
            o.opts.bytes_per_sync = v
        })
    }
}

/// Background flush and compaction threads. Default 2.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_max_background_jobs(
    opt: *mut talus_options_t,
    v: c_int,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_max_background_jobs", |o| {
            o.opts.max_background_jobs = v
        })
    }
}

/// Compaction threads; -1 = derived from max_background_jobs (default).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_max_background_compactions(
    opt: *mut talus_options_t,
    v: c_int,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_max_background_compactions", |o| {
            o.opts.max_background_compactions = v
        })
    }
}

/// Flush threads; -1 = derived from max_background_jobs (default).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_max_background_flushes(
    opt: *mut talus_options_t,
    v: c_int,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_max_background_flushes", |o| {
            o.opts.max_background_flushes = v
        })
    }
}

/// Table files kept open; -1 = unlimited (default).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_max_open_files(opt: *mut talus_options_t, v: c_int) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_max_open_files", |o| {
            o.opts.max_open_files = v
        })
    }
}

/// Write rate in a slowdown, bytes/s; 0 = 16 MiB/s (default).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_delayed_write_rate(opt: *mut talus_options_t, v: u64) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_delayed_write_rate", |o| {
            o.opts.delayed_write_rate = v
        })
    }
}

/// Total WAL size that forces flushes, bytes; 0 = automatic (default).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_max_total_wal_size(opt: *mut talus_options_t, v: u64) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_max_total_wal_size", |o| {
            o.opts.max_total_wal_size = v
        })
    }
}

/// Seconds between statistics dumps to the info log; 0 = off. Default 600.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_stats_dump_period_sec(
    opt: *mut talus_options_t,
    v: u32,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_stats_dump_period_sec", |o| {
            o.opts.stats_dump_period_sec = v
        })
    }
}

/// Info-log threshold: 0 debug, 1 info (default), 2 warn, 3 error, 4 fatal,
/// 5 header. An unknown level is an error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_info_log_level(
    opt: *mut talus_options_t,
    level: c_int,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_options_set_info_log_level";
    // SAFETY: header conventions (see `try_set`).
    unsafe {
        try_set(opt, F, errptr, |o| {
            o.opts.info_log_level = u8::try_from(level)
                .ok()
                .and_then(talus::logger::InfoLogLevel::from_u8)
                .ok_or_else(|| invalid(F, format!("unknown info log level {level}")))?;
            Ok(())
        })
    }
}

/// Info-log files kept. Default 1000.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_keep_log_file_num(opt: *mut talus_options_t, v: usize) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_keep_log_file_num", |o| {
            o.opts.keep_log_file_num = v
        })
    }
}

/// Info-log size that starts a new file, bytes; 0 = one file (default).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_max_log_file_size(opt: *mut talus_options_t, v: u64) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_max_log_file_size", |o| {
            o.opts.max_log_file_size = v
        })
    }
}

/// Memtable size, bytes. Default 64 MiB.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_write_buffer_size(opt: *mut talus_options_t, v: usize) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_write_buffer_size", |o| {
            o.opts.write_buffer_size = v
        })
    }
}

/// Memtables (active and immutable) before writes stop. Default 2.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_max_write_buffer_number(
    opt: *mut talus_options_t,
    v: c_int,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_max_write_buffer_number", |o| {
            o.opts.max_write_buffer_number = v
        })
    }
}

/// Immutable memtables merged into one flush. Default 1.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_min_write_buffer_number_to_merge(
    opt: *mut talus_options_t,
    v: c_int,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(
            opt,
            "talus_options_set_min_write_buffer_number_to_merge",
            |o| o.opts.min_write_buffer_number_to_merge = v,
        )
    }
}

/// L0 files that start a compaction. Default 4.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_level0_file_num_compaction_trigger(
    opt: *mut talus_options_t,
    v: c_int,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(
            opt,
            "talus_options_set_level0_file_num_compaction_trigger",
            |o| o.opts.level0_file_num_compaction_trigger = v,
        )
    }
}

/// L0 files that slow writes down. Default 20.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_level0_slowdown_writes_trigger(
    opt: *mut talus_options_t,
    v: c_int,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(
            opt,
            "talus_options_set_level0_slowdown_writes_trigger",
            |o| o.opts.level0_slowdown_writes_trigger = v,
        )
    }
}

/// L0 files that stop writes. Default 36.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_level0_stop_writes_trigger(
    opt: *mut talus_options_t,
    v: c_int,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_level0_stop_writes_trigger", |o| {
            o.opts.level0_stop_writes_trigger = v
        })
    }
}

/// Pending compaction bytes that slow writes down. Default 64 GiB.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_soft_pending_compaction_bytes_limit(
    opt: *mut talus_options_t,
    v: u64,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(
            opt,
            "talus_options_set_soft_pending_compaction_bytes_limit",
            |o| o.opts.soft_pending_compaction_bytes_limit = v,
        )
    }
}

/// Pending compaction bytes that stop writes. Default 256 GiB.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_hard_pending_compaction_bytes_limit(
    opt: *mut talus_options_t,
    v: u64,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(
            opt,
            "talus_options_set_hard_pending_compaction_bytes_limit",
            |o| o.opts.hard_pending_compaction_bytes_limit = v,
        )
    }
}

/// Levels of the LSM tree. Default 7.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_num_levels(opt: *mut talus_options_t, v: c_int) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_num_levels", |o| {
            o.opts.num_levels = v
        })
    }
}

/// Target size of level 1, bytes. Default 256 MiB.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_max_bytes_for_level_base(
    opt: *mut talus_options_t,
    v: u64,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_max_bytes_for_level_base", |o| {
            o.opts.max_bytes_for_level_base = v
        })
    }
}

/// Size ratio between adjacent levels. Default 10.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_max_bytes_for_level_multiplier(
    opt: *mut talus_options_t,
    v: f64,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(
            opt,
            "talus_options_set_max_bytes_for_level_multiplier",
            |o| o.opts.max_bytes_for_level_multiplier = v,
        )
    }
}

/// Size levels from the last one up. Default 1.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_level_compaction_dynamic_level_bytes(
    opt: *mut talus_options_t,
    v: u8,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(
            opt,
            "talus_options_set_level_compaction_dynamic_level_bytes",
            |o| o.opts.level_compaction_dynamic_level_bytes = v != 0,
        )
    }
}

/// Target table-file size at level 1, bytes. Default 64 MiB.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_target_file_size_base(
    opt: *mut talus_options_t,
    v: u64,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_target_file_size_base", |o| {
            o.opts.target_file_size_base = v
        })
    }
}

/// Target file-size ratio between adjacent levels. Default 1.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_target_file_size_multiplier(
    opt: *mut talus_options_t,
    v: c_int,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_target_file_size_multiplier", |o| {
            o.opts.target_file_size_multiplier = v
        })
    }
}

/// Which file a compaction picks first: RocksDB's `CompactionPri` values
/// (0 by compensated size, 1 oldest largest seq first, 2 oldest smallest
/// seq first, 3 min overlapping ratio, 4 round robin). Unknown is an error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_compaction_pri(
    opt: *mut talus_options_t,
    pri: c_int,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_options_set_compaction_pri";
    // SAFETY: header conventions (see `try_set`).
    unsafe {
        try_set(opt, F, errptr, |o| {
            o.opts.compaction_pri = u8::try_from(pri)
                .ok()
                .and_then(CompactionPriority::from_u8)
                .ok_or_else(|| invalid(F, format!("unknown compaction priority {pri}")))?;
            Ok(())
        })
    }
}

/// Turn automatic compactions off. Default 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_disable_auto_compactions(
    opt: *mut talus_options_t,
    v: u8,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_disable_auto_compactions", |o| {
            o.opts.disable_auto_compactions = v != 0
        })
    }
}

/// Only explicit flushes write memtables out (RocksDB's `manual_wal_flush`
/// analogue of Talus). Default 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_manual_flush_enabled(opt: *mut talus_options_t, v: u8) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_manual_flush_enabled", |o| {
            o.opts.manual_flush_enabled = v != 0
        })
    }
}

/// Writers admitted at once; -1 = automatic (default).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_max_concurrent_writers(
    opt: *mut talus_options_t,
    v: c_int,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_max_concurrent_writers", |o| {
            o.opts.max_concurrent_writers = v
        })
    }
}

fn compression(func: &str, v: c_int) -> Result<CompressionType, Error> {
    let b = u8::try_from(v).map_err(|_| invalid(func, format!("unknown compression {v}")))?;
    CompressionType::from_u8(b)
}

/// Block compression: `TALUS_COMPRESSION_*` (RocksDB's values). Default
/// LZ4. A type Talus does not implement is an error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_compression(
    opt: *mut talus_options_t,
    t: c_int,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_options_set_compression";
    // SAFETY: header conventions (see `try_set`).
    unsafe {
        try_set(opt, F, errptr, |o| {
            o.opts.compression = compression(F, t)?;
            Ok(())
        })
    }
}

/// Compression of the last level; `TALUS_COMPRESSION_DISABLE` (the
/// default) uses `compression` there too.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_bottommost_compression(
    opt: *mut talus_options_t,
    t: c_int,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_options_set_bottommost_compression";
    // SAFETY: header conventions (see `try_set`).
    unsafe {
        try_set(opt, F, errptr, |o| {
            o.opts.bottommost_compression = if t == c_int::from(DISABLE_COMPRESSION_OPTION) {
                None
            } else {
                Some(compression(F, t)?)
            };
            Ok(())
        })
    }
}

/// Compression per level, `n` `TALUS_COMPRESSION_*` values (level i gets
/// `levels[i]`, the last one every deeper level); `n` 0 clears the list.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_compression_per_level(
    opt: *mut talus_options_t,
    levels: *const c_int,
    n: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_options_set_compression_per_level";
    // SAFETY: header conventions (see `try_set`); `levels` holds `n` ints.
    unsafe {
        try_set(opt, F, errptr, |o| {
            let levels = crate::ffi::array(levels, n, F, "levels")?;
            o.opts.compression_per_level = levels
                .iter()
                .map(|&t| compression(F, t))
                .collect::<Result<_, _>>()?;
            Ok(())
        })
    }
}

/// ZSTD level (and the other codecs' level where they have one); 32767 =
/// the codec's default (default).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_compression_level(opt: *mut talus_options_t, v: c_int) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_compression_level", |o| {
            o.opts.compression_opts.level = v
        })
    }
}

/// Keys share a prefix of `n` bytes (RocksDB `NewFixedPrefixTransform`):
/// prefix Bloom filters and prefix seeks. Keys shorter than `n` have none.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_prefix_extractor_fixed(
    opt: *mut talus_options_t,
    n: usize,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_prefix_extractor_fixed", |o| {
            o.opts.prefix_extractor = Some(PrefixExtractor::Fixed(n))
        })
    }
}

/// Keys' prefix is their first `n` bytes or the whole key when shorter
/// (RocksDB `NewCappedPrefixTransform`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_prefix_extractor_capped(
    opt: *mut talus_options_t,
    n: usize,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_prefix_extractor_capped", |o| {
            o.opts.prefix_extractor = Some(PrefixExtractor::Capped(n))
        })
    }
}

/// Sets a built-in merge operator by RocksDB name: "stringappend" (joins
/// with ','), "uint64add" (little-endian 8-byte counters), "put", "max"
/// (and their class names). Unknown names are an error listing them. Talus
/// has no C-callback merge operators.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_merge_operator(
    opt: *mut talus_options_t,
    name: *const c_char,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_options_set_merge_operator";
    // SAFETY: header conventions (see `try_set`); `name` is a C string.
    unsafe {
        try_set(opt, F, errptr, |o| {
            let name = str_arg(name, F, "name")?;
            o.opts.merge_operator = Some(talus::merge::from_name(name)?);
            Ok(())
        })
    }
}

/// The string-append merge operator with delimiter `delim` (`len` bytes,
/// may be 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_string_append_operator(
    opt: *mut talus_options_t,
    delim: *const c_char,
    len: usize,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_options_set_string_append_operator";
    // SAFETY: header conventions (see `try_set`); `delim` holds `len` bytes.
    unsafe {
        try_set(opt, F, errptr, |o| {
            let d = crate::ffi::value_bytes(delim, len, F, "delim")?;
            o.opts.merge_operator = Some(Arc::new(talus::merge::StringAppendOperator::new(d)));
            Ok(())
        })
    }
}

/// Limits flush and compaction IO with `limiter` (shared: the options take
/// a reference; NULL removes it).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_ratelimiter(
    opt: *mut talus_options_t,
    limiter: *const talus_ratelimiter_t,
) {
    // SAFETY: header conventions: `limiter` is NULL or a live handle.
    let r = unsafe { opt_handle(limiter) }.map(|l| Arc::clone(&l.r));
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_ratelimiter", |o| {
            o.opts.rate_limiter = r
        })
    }
}

/// Records statistics into `stats` (shared: the options take a reference;
/// NULL removes it). Off by default.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_statistics(
    opt: *mut talus_options_t,
    stats: *const talus_statistics_t,
) {
    // SAFETY: header conventions: `stats` is NULL or a live handle.
    let s = unsafe { opt_handle(stats) }.map(|s| Arc::clone(&s.s));
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(opt, "talus_options_set_statistics", |o| {
            o.opts.statistics = s
        })
    }
}

/// Uses a copy of `table` as the table options (RocksDB's
/// `set_block_based_table_factory`); its cache is shared.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_options_set_block_based_table_factory(
    opt: *mut talus_options_t,
    table: *const talus_block_based_table_options_t,
) {
    const F: &str = "talus_options_set_block_based_table_factory";
    // SAFETY: header conventions: `table` is NULL or a live handle.
    let t = unsafe { opt_handle(table) }.map(|t| t.t.clone());
    if let Some(t) = t {
        // SAFETY: header conventions (see `set`).
        unsafe { set(opt, F, |o| o.opts.table = t) }
    }
}

// ---- talus_block_based_table_options_t ----

/// New table options: 4 KiB blocks, no Bloom filter, an 8 MiB block cache
/// of the database's own.
#[unsafe(no_mangle)]
pub extern "C" fn talus_block_based_options_create() -> *mut talus_block_based_table_options_t {
    quiet(
        "talus_block_based_options_create",
        std::ptr::null_mut(),
        || {
            Ok(new_handle(talus_block_based_table_options_t {
                t: BlockBasedTableOptions::default(),
            }))
        },
    )
}

/// Frees `t` (NULL is ignored).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_block_based_options_destroy(
    t: *mut talus_block_based_table_options_t,
) {
    // SAFETY: header conventions: `t` is NULL or a live handle, destroyed once.
    unsafe { destroy("talus_block_based_options_destroy", t) }
}

/// Uncompressed data-block size, bytes. Default 4096.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_block_based_options_set_block_size(
    t: *mut talus_block_based_table_options_t,
    v: usize,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(t, "talus_block_based_options_set_block_size", |t| {
            t.t.block_size = v
        })
    }
}

/// Keys between restart points in data blocks. Default 16.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_block_based_options_set_block_restart_interval(
    t: *mut talus_block_based_table_options_t,
    v: c_int,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(
            t,
            "talus_block_based_options_set_block_restart_interval",
            |t| t.t.block_restart_interval = usize::try_from(v).unwrap_or(0),
        )
    }
}

/// A Bloom filter of `bits_per_key` bits per key (RocksDB
/// `NewBloomFilterPolicy`; 10 gives about 1% false positives); 0 = none,
/// the default.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_block_based_options_set_bloom_filter(
    t: *mut talus_block_based_table_options_t,
    bits_per_key: f64,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(t, "talus_block_based_options_set_bloom_filter", |t| {
            t.t.filter_bits_per_key = (bits_per_key != 0.0).then_some(bits_per_key)
        })
    }
}

/// Put whole keys in the filter. Default 1.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_block_based_options_set_whole_key_filtering(
    t: *mut talus_block_based_table_options_t,
    v: u8,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(
            t,
            "talus_block_based_options_set_whole_key_filtering",
            |t| t.t.whole_key_filtering = v != 0,
        )
    }
}

/// Keep index and filter blocks in the block cache. Default 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_block_based_options_set_cache_index_and_filter_blocks(
    t: *mut talus_block_based_table_options_t,
    v: u8,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(
            t,
            "talus_block_based_options_set_cache_index_and_filter_blocks",
            |t| t.t.cache_index_and_filter_blocks = v != 0,
        )
    }
}

/// Pin L0 tables' index and filter blocks in the cache. Default 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_block_based_options_set_pin_l0_filter_and_index_blocks_in_cache(
    t: *mut talus_block_based_table_options_t,
    v: u8,
) {
    const F: &str = "talus_block_based_options_set_pin_l0_filter_and_index_blocks_in_cache";
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(t, F, |t| {
            t.t.pin_l0_filter_and_index_blocks_in_cache = v != 0
        })
    }
}

/// Use no block cache at all. Default 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_block_based_options_set_no_block_cache(
    t: *mut talus_block_based_table_options_t,
    v: u8,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(t, "talus_block_based_options_set_no_block_cache", |t| {
            t.t.no_block_cache = v != 0
        })
    }
}

/// Reads go through `cache`, shared with whoever else uses it (the options
/// take a reference; NULL = a cache of the database's own).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_block_based_options_set_block_cache(
    t: *mut talus_block_based_table_options_t,
    cache: *const talus_cache_t,
) {
    // SAFETY: header conventions: `cache` is NULL or a live handle.
    let c = unsafe { opt_handle(cache) }.map(|c| Arc::clone(&c.c));
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(t, "talus_block_based_options_set_block_cache", |t| {
            t.t.block_cache = c
        })
    }
}

// ---- talus_cache_t ----

/// An LRU block cache of `capacity` bytes (shards chosen from the capacity).
#[unsafe(no_mangle)]
pub extern "C" fn talus_cache_create_lru(capacity: usize) -> *mut talus_cache_t {
    quiet("talus_cache_create_lru", std::ptr::null_mut(), || {
        Ok(new_handle(talus_cache_t {
            c: Arc::new(BlockCache::new(capacity, -1, false, 0.5)?),
        }))
    })
}

/// An LRU block cache with RocksDB's `LRUCacheOptions`: 2^`num_shard_bits`
/// shards (-1 = automatic), `strict_capacity_limit` fails inserts beyond
/// the capacity, `high_pri_pool_ratio` in [0, 1]. NULL with `errptr` set on
/// a bad value.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_cache_create_lru_with_options(
    capacity: usize,
    num_shard_bits: c_int,
    strict_capacity_limit: u8,
    high_pri_pool_ratio: f64,
    errptr: *mut *mut c_char,
) -> *mut talus_cache_t {
    guard(
        "talus_cache_create_lru_with_options",
        errptr,
        std::ptr::null_mut(),
        || {
            let c = BlockCache::new(
                capacity,
                num_shard_bits,
                strict_capacity_limit != 0,
                high_pri_pool_ratio,
            )?;
            Ok(new_handle(talus_cache_t { c: Arc::new(c) }))
        },
    )
}

/// Drops this reference to the cache (NULL is ignored); databases and table
/// options using it keep theirs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_cache_destroy(cache: *mut talus_cache_t) {
    // SAFETY: header conventions: `cache` is NULL or a live handle, destroyed once.
    unsafe { destroy("talus_cache_destroy", cache) }
}

/// Bytes held by the cache (0 for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_cache_get_usage(cache: *const talus_cache_t) -> usize {
    quiet("talus_cache_get_usage", 0, || {
        // SAFETY: header conventions: `cache` is NULL or a live handle.
        Ok(unsafe { handle(cache, "", "cache") }?.c.usage())
    })
}

/// Bytes of entries in use by readers (0 for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_cache_get_pinned_usage(cache: *const talus_cache_t) -> usize {
    quiet("talus_cache_get_pinned_usage", 0, || {
        // SAFETY: header conventions: `cache` is NULL or a live handle.
        Ok(unsafe { handle(cache, "", "cache") }?.c.pinned_usage())
    })
}

/// Capacity in bytes (0 for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_cache_get_capacity(cache: *const talus_cache_t) -> usize {
    quiet("talus_cache_get_capacity", 0, || {
        // SAFETY: header conventions: `cache` is NULL or a live handle.
        Ok(unsafe { handle(cache, "", "cache") }?.c.capacity())
    })
}

/// Changes the capacity (evicting down to it).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_cache_set_capacity(cache: *const talus_cache_t, capacity: usize) {
    quiet("talus_cache_set_capacity", (), || {
        // SAFETY: header conventions: `cache` is NULL or a live handle.
        unsafe { handle(cache, "", "cache") }?
            .c
            .set_capacity(capacity);
        Ok(())
    })
}

// ---- talus_ratelimiter_t ----

/// A rate limiter of `rate_bytes_per_sec` (> 0), refilled every
/// `refill_period_us` (> 0; RocksDB's default 100000), `fairness` (>= 1;
/// default 10), limiting writes only, without auto-tuning.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_ratelimiter_create(
    rate_bytes_per_sec: i64,
    refill_period_us: i64,
    fairness: c_int,
    errptr: *mut *mut c_char,
) -> *mut talus_ratelimiter_t {
    // SAFETY: header conventions (errptr).
    unsafe {
        talus_ratelimiter_create_with_mode(
            rate_bytes_per_sec,
            refill_period_us,
            fairness,
            TALUS_RATE_LIMITER_WRITES_ONLY,
            0,
            errptr,
        )
    }
}

/// Rate limiter mode: reads only.
pub const TALUS_RATE_LIMITER_READS_ONLY: c_int = 0;
/// Rate limiter mode: writes only (the default).
pub const TALUS_RATE_LIMITER_WRITES_ONLY: c_int = 1;
/// Rate limiter mode: reads and writes.
pub const TALUS_RATE_LIMITER_ALL_IO: c_int = 2;

/// [`talus_ratelimiter_create`] with `mode` (`TALUS_RATE_LIMITER_*`) and
/// `auto_tune` (RocksDB's auto-tuned limiter).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_ratelimiter_create_with_mode(
    rate_bytes_per_sec: i64,
    refill_period_us: i64,
    fairness: c_int,
    mode: c_int,
    auto_tune: u8,
    errptr: *mut *mut c_char,
) -> *mut talus_ratelimiter_t {
    const F: &str = "talus_ratelimiter_create_with_mode";
    guard(F, errptr, std::ptr::null_mut(), || {
        let positive = |v: i64, what: &str| match u64::try_from(v) {
            Ok(v) if v > 0 => Ok(v),
            _ => Err(invalid(F, format!("{what} must be positive, got {v}"))),
        };
        let mode = u8::try_from(mode)
            .ok()
            .and_then(RateLimiterMode::from_byte)
            .ok_or_else(|| invalid(F, format!("unknown rate limiter mode {mode}")))?;
        let r = RateLimiter::new(
            positive(rate_bytes_per_sec, "rate_bytes_per_sec")?,
            positive(refill_period_us, "refill_period_us")?,
            fairness,
            mode,
            auto_tune != 0,
            0,
        )?;
        Ok(new_handle(talus_ratelimiter_t { r }))
    })
}

/// Drops this reference (NULL is ignored); options and databases using the
/// limiter keep theirs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_ratelimiter_destroy(limiter: *mut talus_ratelimiter_t) {
    // SAFETY: header conventions: `limiter` is NULL or a live handle, destroyed once.
    unsafe { destroy("talus_ratelimiter_destroy", limiter) }
}

/// Changes the rate (> 0), bytes per second.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_ratelimiter_set_bytes_per_second(
    limiter: *const talus_ratelimiter_t,
    rate: i64,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_ratelimiter_set_bytes_per_second";
    guard(F, errptr, (), || {
        // SAFETY: header conventions: `limiter` is NULL or a live handle.
        let l = unsafe { handle(limiter, F, "limiter") }?;
        match u64::try_from(rate) {
            Ok(r) if r > 0 => l.r.set_bytes_per_second(r),
            _ => Err(invalid(F, format!("rate must be positive, got {rate}"))),
        }
    })
}

/// The rate, bytes per second (0 for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_ratelimiter_get_bytes_per_second(
    limiter: *const talus_ratelimiter_t,
) -> i64 {
    quiet("talus_ratelimiter_get_bytes_per_second", 0, || {
        // SAFETY: header conventions: `limiter` is NULL or a live handle.
        let l = unsafe { handle(limiter, "", "limiter") }?;
        Ok(i64::try_from(l.r.bytes_per_second()).unwrap_or(i64::MAX))
    })
}

/// Bytes that went through the limiter since it was made (0 for NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_ratelimiter_get_total_bytes_through(
    limiter: *const talus_ratelimiter_t,
) -> u64 {
    quiet("talus_ratelimiter_get_total_bytes_through", 0, || {
        // SAFETY: header conventions: `limiter` is NULL or a live handle.
        Ok(unsafe { handle(limiter, "", "limiter") }?
            .r
            .total_bytes_through(None))
    })
}

/// Takes `bytes` of tokens at high priority, waiting for them (RocksDB
/// `RateLimiter::Request`); at most the single-burst size.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_ratelimiter_request(
    limiter: *const talus_ratelimiter_t,
    bytes: u64,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_ratelimiter_request";
    guard(F, errptr, (), || {
        // SAFETY: header conventions: `limiter` is NULL or a live handle.
        let l = unsafe { handle(limiter, F, "limiter") }?;
        let burst = l.r.single_burst_bytes();
        if bytes > burst {
            return Err(invalid(
                F,
                format!("bytes must be at most the single burst of {burst}, got {bytes}"),
            ));
        }
        l.r.request_any(bytes, IoPriority::High);
        Ok(())
    })
}

// ---- read, write and flush options ----

/// New read options: checksums verified, blocks cached, latest state.
#[unsafe(no_mangle)]
pub extern "C" fn talus_readoptions_create() -> *mut talus_readoptions_t {
    quiet("talus_readoptions_create", std::ptr::null_mut(), || {
        Ok(new_handle(talus_readoptions_t {
            ro: ReadOptions::default(),
        }))
    })
}

/// Frees `ro` (NULL is ignored). Iterators made with it keep their copy.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_readoptions_destroy(ro: *mut talus_readoptions_t) {
    // SAFETY: header conventions: `ro` is NULL or a live handle, destroyed once.
    unsafe { destroy("talus_readoptions_destroy", ro) }
}

/// Verify block checksums on reads. Default 1.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_readoptions_set_verify_checksums(
    ro: *mut talus_readoptions_t,
    v: u8,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(ro, "talus_readoptions_set_verify_checksums", |r| {
            r.ro.verify_checksums = v != 0
        })
    }
}

/// Put blocks read into the block cache. Default 1.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_readoptions_set_fill_cache(ro: *mut talus_readoptions_t, v: u8) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(ro, "talus_readoptions_set_fill_cache", |r| {
            r.ro.fill_cache = v != 0
        })
    }
}

/// Iterators start at or after this key (copied; NULL clears the bound).
/// Unlike RocksDB the caller need not keep the key alive.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_readoptions_set_iterate_lower_bound(
    ro: *mut talus_readoptions_t,
    key: *const c_char,
    keylen: usize,
) {
    // SAFETY: header conventions: a non-NULL `key` holds `keylen` bytes.
    let k = unsafe { opt_bytes(key, keylen) }.map(<[u8]>::to_vec);
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(ro, "talus_readoptions_set_iterate_lower_bound", |r| {
            r.ro.iterate_lower_bound = k
        })
    }
}

/// Iterators stop before this key (copied; NULL clears the bound).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_readoptions_set_iterate_upper_bound(
    ro: *mut talus_readoptions_t,
    key: *const c_char,
    keylen: usize,
) {
    // SAFETY: header conventions: a non-NULL `key` holds `keylen` bytes.
    let k = unsafe { opt_bytes(key, keylen) }.map(<[u8]>::to_vec);
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(ro, "talus_readoptions_set_iterate_upper_bound", |r| {
            r.ro.iterate_upper_bound = k
        })
    }
}

/// Read tier: 0 all (default), 1 block cache only (a read needing IO fails
/// with `Incomplete`). RocksDB's tiers 2 and 3 are `Not implemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_readoptions_set_read_tier(
    ro: *mut talus_readoptions_t,
    tier: c_int,
    errptr: *mut *mut c_char,
) {
    const F: &str = "talus_readoptions_set_read_tier";
    // SAFETY: header conventions (see `try_set`).
    unsafe {
        try_set(ro, F, errptr, |r| {
            let b = u8::try_from(tier).map_err(|_| invalid(F, format!("unknown tier {tier}")))?;
            r.ro.read_tier = ReadTier::from_u8(b)?;
            Ok(())
        })
    }
}

/// With a prefix extractor, seek in total order. Default 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_readoptions_set_total_order_seek(
    ro: *mut talus_readoptions_t,
    v: u8,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(ro, "talus_readoptions_set_total_order_seek", |r| {
            r.ro.total_order_seek = v != 0
        })
    }
}

/// With a prefix extractor, iterators stop at the end of the seek key's
/// prefix. Default 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_readoptions_set_prefix_same_as_start(
    ro: *mut talus_readoptions_t,
    v: u8,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(ro, "talus_readoptions_set_prefix_same_as_start", |r| {
            r.ro.prefix_same_as_start = v != 0
        })
    }
}

/// With a prefix extractor, total-order results using prefix filters where
/// they cannot change them. Default 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_readoptions_set_auto_prefix_mode(
    ro: *mut talus_readoptions_t,
    v: u8,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(ro, "talus_readoptions_set_auto_prefix_mode", |r| {
            r.ro.auto_prefix_mode = v != 0
        })
    }
}

/// Do not apply range deletions. Default 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_readoptions_set_ignore_range_deletions(
    ro: *mut talus_readoptions_t,
    v: u8,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(ro, "talus_readoptions_set_ignore_range_deletions", |r| {
            r.ro.ignore_range_deletions = v != 0
        })
    }
}

/// Tailing iterators: see writes made after their creation; forward only.
/// Default 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_readoptions_set_tailing(ro: *mut talus_readoptions_t, v: u8) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(ro, "talus_readoptions_set_tailing", |r| {
            r.ro.tailing = v != 0
        })
    }
}

/// New write options: not synced, with the WAL.
#[unsafe(no_mangle)]
pub extern "C" fn talus_writeoptions_create() -> *mut talus_writeoptions_t {
    quiet("talus_writeoptions_create", std::ptr::null_mut(), || {
        Ok(new_handle(talus_writeoptions_t {
            wo: WriteOptions::default(),
        }))
    })
}

/// Frees `wo` (NULL is ignored).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_writeoptions_destroy(wo: *mut talus_writeoptions_t) {
    // SAFETY: header conventions: `wo` is NULL or a live handle, destroyed once.
    unsafe { destroy("talus_writeoptions_destroy", wo) }
}

/// Sync the WAL before the write returns. Default 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_writeoptions_set_sync(wo: *mut talus_writeoptions_t, v: u8) {
    // SAFETY: header conventions (see `set`).
    unsafe { set(wo, "talus_writeoptions_set_sync", |w| w.wo.sync = v != 0) }
}

/// Skip the WAL (lost on a crash until flushed). Default 0. With `sync`
/// set too, writes fail with `Invalid argument`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_writeoptions_disable_WAL(wo: *mut talus_writeoptions_t, v: u8) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(wo, "talus_writeoptions_disable_WAL", |w| {
            w.wo.disable_wal = v != 0
        })
    }
}

/// Fail with `Incomplete` instead of waiting in a write stall. Default 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_writeoptions_set_no_slowdown(wo: *mut talus_writeoptions_t, v: u8) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(wo, "talus_writeoptions_set_no_slowdown", |w| {
            w.wo.no_slowdown = v != 0
        })
    }
}

/// Throttle this write first when compaction is behind. Default 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_writeoptions_set_low_pri(wo: *mut talus_writeoptions_t, v: u8) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(wo, "talus_writeoptions_set_low_pri", |w| {
            w.wo.low_pri = v != 0
        })
    }
}

/// New flush options: wait for the flush, do not stall writes.
#[unsafe(no_mangle)]
pub extern "C" fn talus_flushoptions_create() -> *mut talus_flushoptions_t {
    quiet("talus_flushoptions_create", std::ptr::null_mut(), || {
        Ok(new_handle(talus_flushoptions_t {
            fo: FlushOptions::default(),
        }))
    })
}

/// Frees `fo` (NULL is ignored).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_flushoptions_destroy(fo: *mut talus_flushoptions_t) {
    // SAFETY: header conventions: `fo` is NULL or a live handle, destroyed once.
    unsafe { destroy("talus_flushoptions_destroy", fo) }
}

/// Wait until the flush has finished. Default 1.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_flushoptions_set_wait(fo: *mut talus_flushoptions_t, v: u8) {
    // SAFETY: header conventions (see `set`).
    unsafe { set(fo, "talus_flushoptions_set_wait", |f| f.fo.wait = v != 0) }
}

/// Flush even if it stalls writes. Default 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn talus_flushoptions_set_allow_write_stall(
    fo: *mut talus_flushoptions_t,
    v: u8,
) {
    // SAFETY: header conventions (see `set`).
    unsafe {
        set(fo, "talus_flushoptions_set_allow_write_stall", |f| {
            f.fo.allow_write_stall = v != 0
        })
    }
}
