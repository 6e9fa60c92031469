//! # Talus
//!
//! An embedded LSM-tree key-value storage engine. Each module documents its
//! own format, invariants and thread-safety contract.
//!
//! # Durability promises
//!
//! "Acknowledged" means the call returned `Ok`. With the default options
//! (`wal_recovery_mode = TolerateCorruptedTailRecords`, `paranoid_checks`):
//!
//! - A write acknowledged with `WriteOptions::sync` survives a process kill
//!   and a power loss.
//! - A write acknowledged without `sync` survives a process kill (it reached
//!   the OS when the WAL write returned). After a power loss it survives if a
//!   later synced write, [`Db::flush_wal`]`(true)` or [`Db::flush`] returned;
//!   otherwise it may be lost, but the database is a *prefix* of the
//!   acknowledged history: if a write survives, every write acknowledged
//!   before it survives (no holes, no reordering).
//! - A write with `disable_wal` survives only once flushed.
//! - A write that returned an error is not visible; after a crash before
//!   [`Db::resume`] it may or may not be there, after every earlier
//!   acknowledged write; after a successful `resume()` it is gone.
//! - A corrupt file is reported — `Error::Corruption` naming the file, at
//!   open, at the read that meets it, or from [`Db::verify_checksum`] —
//!   never silently skipped; the one exception is the incomplete record a
//!   crash leaves at the end of a log, which recovery drops and notes in the
//!   info log. [`wal::WalRecoveryMode`] chooses what else recovery tolerates.
//! - The manifest records every live write-ahead log, closed ones with
//!   their synced size and last sequence (`db::wal_track`): a recorded log
//!   missing or shorter than what was synced fails the open (default mode)
//!   instead of passing for an unsynced tail; a log recovery did not replay
//!   to its end is kept (`*.log.unreplayed`), never deleted.
//! - Every file names the database it belongs to ([`identity`]): a table
//!   copied in from another database (or over another table) is
//!   `Corruption`, never read as the table the manifest means; a log
//!   another database wrote into a shared `wal_dir` is neither replayed nor
//!   deleted (nor by [`destroy_db`] of another database), and a second
//!   database opening on a `wal_dir` in use fails with the IO error of a
//!   held lock, naming the `wal_dir`.
//! - An ingestion ([`Db::ingest_external_file`]) that returned `Ok` is
//!   durable: its files and their names were synced before the one
//!   manifest edit that records them all. A crash during one leaves all of
//!   its files in the database or none, never a manifest naming a file that
//!   is not whole; the user's files are removed (with `move_files`) only
//!   after the edit is durable (module docs of `db::ingest`).
//! - A failed background write (WAL, flush, compaction, manifest) makes the
//!   database read-only with that error until [`Db::resume`] or a reopen;
//!   see `db/resume.rs` for what `resume()` does and why it is safe, and
//!   [`Options::paranoid_checks`] for what the checks change.
//!
//! The suites that check these promises: `tests/durability` (power loss,
//! IO errors, corruption and recovery modes on `fs::FaultFs`, behind the feature `fault-injection`), the kill
//! test in `native/crashtest` and the fuzz targets in `native/fuzz`; see
//! docs/internals/testing.md.
//!
//! # Unsafe code
//!
//! The workspace denies `unsafe_code`; the engine allows it in two audited
//! modules: the memtable's arena skiplist (`memtable/skiplist.rs`, whose
//! docs state its contract) and `prefetch.rs` (the CPU's prefetch
//! instruction, one line). Every `unsafe` block there carries a
//! `// SAFETY:` comment, which the lint below enforces.

//! # Public API
//!
//! The deliberate surface, used by the JNI crate (`native/jni`),
//! talus-bench, the kill test and Rust applications:
//!
//! - [`Db`] (open, reads, writes, iterators, snapshots, flush, compaction,
//!   properties, `resume`, `verify_checksum`) with the types of module
//!   [`db`] ([`db::DbIterator`], [`db::FlushOptions`], [`db::Snapshot`],
//!   [`db::KeyMayExist`], ...), and [`destroy_db`];
//! - [`Options`], [`ReadOptions`], [`WriteOptions`] and the option types of
//!   [`options`]; [`BlockCache`] (a block cache shared by databases);
//!   [`WalRecoveryMode`];
//! - [`WriteBatch`] ([`write_batch`]); merge operators ([`merge`]);
//! - [`SstFileWriter`] ([`sst_file_writer`]) and
//!   [`Db::ingest_external_file`] with [`IngestExternalFileOptions`]: table
//!   files written outside the database and ingested (module `db::ingest`);
//! - [`Error`], [`Result`], [`Code`], [`SubCode`] ([`error`]): one error
//!   type with RocksDB's status codes;
//! - observability: [`statistics`], [`perf_context`] (and its macros),
//!   [`logger`]; [`rate_limiter`]; [`mod@env`] (thread priorities);
//! - [`fs`]: the file-system seam (`FileSystem`, `StdFileSystem`), and
//!   with the feature `fault-injection` the fault-injecting `FaultFs` the
//!   durability tests run on.
//!
//! Everything else (memtable, tables, logs, manifest, compaction, ...) is
//! internal; the feature `internals` makes those modules public for the
//! fuzz targets and the format tests. Their API may change at any time.

#![warn(clippy::undocumented_unsafe_blocks)]

// The public API: what the JNI crate, talus-bench, the kill test and
// applications use (see "Public API" in the crate docs).
pub mod backup;
pub mod db;
pub mod env;
pub mod error;
pub mod fs;
pub mod logger;
pub mod merge;
pub mod options;
pub mod perf_context;
#[expect(
    unsafe_code,
    reason = "the CPU's prefetch instruction, a hint that never faults; audited in prefetch.rs"
)]
mod prefetch;
pub mod rate_limiter;
pub mod sst_file_writer;
pub mod statistics;
pub mod write_batch;

// Internals: the engine's building blocks. Public only with the cargo
// feature `internals`, for the fuzz targets and the integration tests that
// check formats byte by byte; otherwise private to the crate. Some of their
// items exist only for those users (decoders' helpers, test counters), so
// without the feature they are allowed to be unused.
macro_rules! internal_modules {
    ($($name:ident),* $(,)?) => {$(
        #[cfg(feature = "internals")]
        pub mod $name;
        #[cfg(not(feature = "internals"))]
        #[allow(dead_code, unused_imports)]
        mod $name;
    )*};
}

internal_modules!(
    cache,
    coding,
    compaction,
    identity,
    iterator,
    key,
    memtable,
    range_del,
    striped,
    table,
    version,
    wal,
    write_controller,
    xxh64,
);

pub use db::{Db, IngestExternalFileOptions, destroy_db};
pub use error::{Code, Error, Result, SubCode};
pub use options::{Options, ReadOptions, WriteOptions};
pub use sst_file_writer::{ExternalSstFileInfo, SstFileWriter};
pub use table::BlockCache;
pub use wal::WalRecoveryMode;
pub use write_batch::WriteBatch;
