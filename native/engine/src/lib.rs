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
//! - A failed background write (WAL, flush, compaction, manifest) makes the
//!   database read-only with that error until [`Db::resume`] or a reopen;
//!   see `db/resume.rs` for what `resume()` does and why it is safe, and
//!   [`Options::paranoid_checks`] for what the checks change.
//!
//! The suites that check these promises: `tests/durability` (power loss,
//! IO errors, corruption and recovery modes on [`fs::FaultFs`]), the kill
//! test in `native/crashtest` and the fuzz targets in `native/fuzz`; see
//! docs/internals/testing.md.
//!
//! # Unsafe code
//!
//! The workspace denies `unsafe_code`; the engine allows it in one audited
//! module, the memtable's arena skiplist (`memtable/skiplist.rs`, whose
//! docs state its contract). Every `unsafe` block there carries a
//! `// SAFETY:` comment, which the lint below enforces.

#![warn(clippy::undocumented_unsafe_blocks)]

pub mod cache;
pub mod coding;
pub mod compaction;
pub mod db;
pub mod env;
pub mod error;
pub mod fs;
pub mod identity;
pub mod iterator;
pub mod key;
pub mod logger;
pub mod memtable;
pub mod merge;
pub mod options;
pub mod perf_context;
pub mod range_del;
pub mod rate_limiter;
pub mod statistics;
pub mod striped;
pub mod table;
pub mod version;
pub mod wal;
pub mod write_batch;
pub mod write_controller;
pub mod xxh64;

pub use db::{Db, destroy_db};
pub use error::{Code, Error, Result, SubCode};
pub use options::{Options, ReadOptions, WriteOptions};
pub use write_batch::WriteBatch;
