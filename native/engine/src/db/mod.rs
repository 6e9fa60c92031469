//! The database: open and recovery, the write path (group commit), the read
//! path, background flushes and compactions, and close.
//!
//! Thread-safety contract: [`Db`] is `Send + Sync`; every method may be
//! called from any number of threads at once.
//! - Writers serialise only in the group-commit queue (`write_thread`).
//! - Readers take no lock: they load the published sequence number and the
//!   current `SuperVersion` (active memtable, immutable memtables, table
//!   version) with atomic loads.
//! - The *DB mutex* (`DbInner::state`) guards the version set, every
//!   family's immutable memtable list (`family::FamilyState`) and
//!   background-job bookkeeping; it is never held during table IO nor
//!   during a manifest write (`DbInner::log_and_apply`).
//!
//! Column families split the state (module docs of `family`): what is the
//! database's lives in `DbInner` and `DbState`, what is a family's in
//! `family::ColumnFamilyData` (lock-free: options, super version) and
//! `family::FamilyState` (under the DB mutex: immutable memtables, flush
//! request, statistics). `DbInner` groups the database's parts by concept,
//! each a type in its own module with its invariants and thread-safety:
//! `lifecycle::Lifecycle` (open, closing, closed, the background-error
//! flag, the directory locks), `wal_set::WalSet` (the WAL mutex and the
//! logs' other state), `stall::WriteSignals` (the stall state the write
//! leader reads without the DB mutex), `bg::Pools`, `files::PurgeFlags`,
//! `stats::DbStats` (statistics, write totals, the periodic dumper).
//!
//! Lock order: the one table of every lock and its order is
//! `docs/internals/locks.md`. In short: the explicit-flush lock, the
//! write gate and the write queue, the DB mutex (`DbInner::state`), the
//! WAL mutex (`WalSet::lock`), then leaf locks; a thread holding a lock
//! takes only locks after it. A family's `super_version` and the `families` map are
//! `ArcSwap`s: loaded without a lock, stored only under the DB mutex.
//!
//! Invariants:
//! 1. Every entry a reader can see has a sequence number ≤ the published
//!    `last_sequence`; a group's entries become visible together when its
//!    leader publishes the group's last sequence number.
//! 2. A write is in the WAL (flushed to the OS, synced when asked) before it
//!    is inserted into a memtable and before it is acknowledged. A synced
//!    write is acknowledged only once every older WAL is synced too (a
//!    memtable switch queues the old WAL's sync on the WAL syncer thread,
//!    `wal_sync`), and a manifest edit names a log only once that log's
//!    start record and directory entry are durable.
//! 3. The memtable is switched only by the group leader, between groups,
//!    so no insert is ever in flight into a memtable that became immutable.
//! 4. A WAL file is deleted only after every memtable that held its writes
//!    was flushed and the manifest records a newer log number, and only if
//!    this database wrote it (`files`: a log of another database sharing
//!    the `wal_dir` is never deleted; a log recovery did not replay whole is
//!    kept under another name, `recovery`). The next
//!    WAL's file is made ahead on the WAL syncer thread; it stays empty,
//!    numbered above every log, until the next switch starts it, and a
//!    switch that does not start it removes it (`wal_set::PreparedWal`).
//! 5. A table file is deleted only when no live version and no running job
//!    references it. The job that makes it obsolete deletes it; if a reader
//!    (an iterator, or a get or write holding the super version for a
//!    moment) still pins an older version then, the job sets
//!    `PurgeFlags::pending`, and the first write, get, multi-get or
//!    iterator drop after a super version was released schedules a purge on the flush
//!    pool (as RocksDB schedules its background purge when the last
//!    reference goes): a foreground call never lists the directory or
//!    unlinks tables itself. "Released" means dropped with its version, so
//!    the tables only that version named are closed before the purge it
//!    brings unlinks them; a purge scheduled elsewhere that meets a table
//!    still being closed leaves it, or moves its later closes to a
//!    background thread (module docs of `table_cache`): freeing an
//!    unlinked table's blocks is never a foreground thread's work. Flush
//!    (waiting), compact_range and wait_for_compactions delete every
//!    obsolete file before returning, except a table some other thread is
//!    closing at that moment (the purge its close brings deletes it).

mod bg;
pub mod checkpoint;
mod compaction;
pub mod compaction_iter;
pub mod db_iter;
mod destroy;
pub mod family;
mod files;
mod flush;
mod foreign;
mod ingest;
mod level_iter;
mod lifecycle;
#[cfg(test)]
pub(crate) mod merge_model;
mod properties;
mod read;
mod read_source;
mod readonly;
mod recovery;
mod resume;
mod snapshot;
mod stall;
mod stats;
mod table_cache;
#[cfg(test)]
pub(crate) mod test_hooks;
mod wal_set;
mod wal_sync;
mod wal_track;
mod write;
mod write_gate;
mod write_thread;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use arc_swap::ArcSwap;
use parking_lot::{Condvar, Mutex};

use crate::error::{Error, Result};
use crate::fs::FileSystem;
use crate::identity::DbId;
use crate::info_log;
use crate::key::SequenceNumber;
use crate::logger::{InfoLog, InfoLogOptions};
use crate::memtable::MemTable;
use crate::memtable::block_pool::BlockPool;
use crate::options::{Options, ReadOptions, WriteOptions};
use crate::rate_limiter::ReadCharger;
use crate::table::BlockCache;
use crate::version::{Version, VersionSet};
use crate::write_batch::WriteBatch;

pub use db_iter::PrefixSeek;
pub use destroy::destroy_db;
use family::{ColumnFamilyData, FamilyMap, FamilyState};
pub use family::{ColumnFamilyHandle, DEFAULT_FAMILY_ID, family_options};
pub use ingest::IngestExternalFileOptions;
pub use read::{DbIterator, KeyMayExist};
pub(crate) use readonly::OpenMode;
pub use snapshot::Snapshot;

use snapshot::SnapshotList;
use table_cache::TableCache;
use write_thread::WriteQueue;

/// What readers need, swapped atomically as one unit.
pub(crate) struct SuperVersion {
    /// The memtable taking writes.
    pub(crate) mem: Arc<MemTable>,
    /// Immutable memtables, newest first.
    pub(crate) imm: Vec<Arc<MemTable>>,
    /// The table files.
    pub(crate) version: Arc<Version>,
    /// The family's merge operator (readers resolve operands with it).
    pub(crate) merger: crate::merge::Merger,
    /// How the family's tables are read (its block cache and index and
    /// filter handling): `ColumnFamilyData::tables`.
    pub(crate) tables: table_cache::FamilyTables,
    /// Sets `PurgeFlags::sv_released` (`files`) when this super version has been
    /// dropped. Last field on purpose: fields drop in declaration order, so
    /// the flag is set only after `version` is, with the table files it was
    /// the last to reference closed, and the purge the flag brings finds
    /// them closed and deletes them (an open table is left for a later
    /// purge, module docs of `table_cache`).
    _released: ReleaseFlag,
}

/// Sets its flag when dropped; see `SuperVersion::_released`.
pub(crate) struct ReleaseFlag(pub(crate) Arc<AtomicBool>);

impl Drop for ReleaseFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// State under the DB mutex.
pub(crate) struct DbState {
    pub(crate) versions: VersionSet,
    /// Every live family's state under this mutex, by id.
    pub(crate) families: std::collections::BTreeMap<u32, FamilyState>,
    pub(crate) flush_scheduled: bool,
    pub(crate) flush_running: bool,
    pub(crate) compactions_scheduled: usize,
    pub(crate) compactions_running: usize,
    pub(crate) manual_compactions: usize,
    /// Manual compactions running with `exclusive_manual_compaction`: no
    /// automatic compaction is picked while one runs.
    pub(crate) exclusive_manual_compactions: usize,
    /// `pause_background_work` calls not yet matched by `continue_background_work`.
    pub(crate) paused: usize,
    /// File numbers being written by running jobs: never deleted as obsolete.
    pub(crate) pending_outputs: BTreeSet<u64>,
    /// The error that stopped background work, if any.
    pub(crate) bg_error: Option<Error>,
    /// Number of background errors seen (`rocksdb.background-errors`).
    pub(crate) bg_error_count: u64,
    /// The most recent background error (the latched one is the first).
    pub(crate) last_bg_error: Option<Error>,
    /// `resume()` is running: flushes may run although an error is latched.
    pub(crate) resuming: bool,
    /// With `paranoid_checks` off, the version on which a compaction met a
    /// corruption: no automatic compaction is picked until it changes.
    pub(crate) compaction_failed_on: Option<std::sync::Weak<Version>>,
    /// Disable automatic compactions (mutable at run time).
    pub(crate) disable_auto_compactions: bool,
    /// Write stall state and counters (the database's: evaluated on the
    /// worst family, as RocksDB stalls the whole write path).
    pub(crate) stall: stall::StallControl,
    /// (log number, size) of the WALs of immutable memtables.
    pub(crate) imm_wal_bytes: Vec<(u64, u64)>,
    /// Logs this database knows it wrote (found at recovery carrying its
    /// id, or started since): the only logs the obsolete-file sweep may
    /// delete, once below the manifest's log number (invariant 4).
    pub(crate) own_logs: BTreeSet<u64>,
    /// `disable_file_deletions` calls not undone (`checkpoint`): while
    /// positive, the obsolete-file sweep deletes nothing.
    pub(crate) file_deletions_disabled: u32,
    /// Ingestions placing their files (`ingest`): no compaction is picked
    /// meanwhile, so none picked after a placement can write over it.
    pub(crate) ingestions: usize,
}

/// The database's state that is not a family's (module docs; each family's
/// is in `family`). The groups of fields each have a type of their own, in
/// the module of their concept, whose docs give its invariants and
/// thread-safety. Lock order: `docs/internals/locks.md`.
pub(crate) struct DbInner {
    pub(crate) path: PathBuf,
    pub(crate) wal_dir: PathBuf,
    pub(crate) opts: Options,
    pub(crate) fs: Arc<dyn FileSystem>,
    /// The database's id (`identity`): in its manifest, its tables' and
    /// its logs' start records.
    pub(crate) db_id: DbId,
    /// Primary, read-only or secondary (`readonly`).
    pub(crate) mode: OpenMode,
    /// Open, closing, closed; the background-error flag; the directory
    /// locks (`lifecycle`).
    pub(crate) lifecycle: lifecycle::Lifecycle,
    pub(crate) info_log: InfoLog,
    /// The table readers (open files), shared by every family; each family
    /// reads through its own block cache (`ColumnFamilyData::tables`).
    pub(crate) table_cache: Arc<TableCache>,
    /// The default family (id 0), never dropped.
    pub(crate) default_cf: Arc<ColumnFamilyData>,
    /// The live families by id (module docs of `family`).
    pub(crate) families: ArcSwap<FamilyMap>,
    /// Arena blocks recycled between memtables (`memtable::block_pool`).
    pub(crate) block_pool: Arc<BlockPool>,
    /// The published sequence number (invariant 1).
    pub(crate) last_sequence: AtomicU64,
    /// Write admission (see `write_gate`).
    pub(crate) write_gate: write_gate::WriteGate,
    /// The group-commit queue (see `write_thread`).
    pub(crate) write_queue: WriteQueue,
    /// The stall state the write leader reads without the DB mutex
    /// (`stall`).
    pub(crate) write_signals: stall::WriteSignals,
    /// The write-ahead logs, the WAL mutex among them (`wal_set`).
    pub(crate) wal: wal_set::WalSet,
    /// The DB mutex.
    pub(crate) state: Mutex<DbState>,
    /// Signalled whenever background work finishes or the state it waits on changes.
    pub(crate) bg_cv: Condvar,
    /// Held by an explicit flush from its stall check to its memtable
    /// switch, so that concurrent explicit flushes check one at a time,
    /// each seeing the memtables the one before it switched.
    pub(crate) explicit_flush: parking_lot::Mutex<()>,
    /// The flush and compaction pools (`bg`).
    pub(crate) pools: bg::Pools,
    /// When to purge tables readers held (`files`, invariant 5).
    pub(crate) purge: files::PurgeFlags,
    pub(crate) snapshots: SnapshotList,
    /// `Statistics`, write-path totals, the periodic dumper (`stats`).
    pub(crate) stats: stats::DbStats,
}

/// An open database. See the module docs.
pub struct Db {
    inner: Arc<DbInner>,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("path", &self.inner.path)
            .finish()
    }
}

/// Options of an explicit flush (RocksJava `FlushOptions`).
#[derive(Clone, Copy, Debug)]
pub struct FlushOptions {
    /// Wait until the flush has finished. Default true.
    pub wait: bool,
    /// Proceed even if the flush would stall writes. Default false.
    pub allow_write_stall: bool,
}

impl Default for FlushOptions {
    fn default() -> Self {
        FlushOptions {
            wait: true,
            allow_write_stall: false,
        }
    }
}

/// When `compact_range` rewrites the bottommost level in place (RocksDB's
/// `BottommostLevelCompaction`, RocksJava byte values). Talus has no
/// compaction filter, so the default `IfHaveCompactionFilter` never
/// rewrites it, as `Skip`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum BottommostLevelCompaction {
    /// Never rewrite the bottommost level in place.
    Skip = 0,
    /// Rewrite it only with a compaction filter (none in Talus: never).
    #[default]
    IfHaveCompactionFilter = 1,
    /// Always rewrite it.
    Force = 2,
    /// Rewrite it, but not the files this compaction wrote there itself.
    ForceOptimized = 3,
}

impl BottommostLevelCompaction {
    /// Decodes the RocksJava byte.
    pub fn from_u8(b: u8) -> Option<Self> {
        Some(match b {
            0 => Self::Skip,
            1 => Self::IfHaveCompactionFilter,
            2 => Self::Force,
            3 => Self::ForceOptimized,
            _ => return None,
        })
    }
}

/// Options of a manual compaction (RocksDB's `CompactRangeOptions`), with
/// RocksDB's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompactRangeOptions {
    /// No automatic compaction runs beside this one: it waits for those
    /// running and none starts until it ends. Default true.
    pub exclusive_manual_compaction: bool,
    /// After compacting, move the data to `target_level`. Default false.
    pub change_level: bool,
    /// With `change_level`: the level the data moves to; -1 (the default)
    /// the highest empty level it fits in.
    pub target_level: i32,
    /// Leveled compaction: whether the last level is rewritten in place.
    /// Default [`BottommostLevelCompaction::IfHaveCompactionFilter`].
    pub bottommost_level_compaction: BottommostLevelCompaction,
    /// The most subcompactions each of this call's compactions is split
    /// into; 0 (the default) follows the database's
    /// [`crate::Options::max_subcompactions`], any other value replaces it
    /// for this call, as in RocksDB.
    pub max_subcompactions: u32,
    /// Flush first even if the new L0 table stalls writes. Default false:
    /// the flush waits until it would not.
    pub allow_write_stall: bool,
}

impl Default for CompactRangeOptions {
    fn default() -> Self {
        CompactRangeOptions {
            exclusive_manual_compaction: true,
            change_level: false,
            target_level: -1,
            bottommost_level_compaction: BottommostLevelCompaction::default(),
            max_subcompactions: 0,
            allow_write_stall: false,
        }
    }
}

impl Db {
    /// Opens (or, with `create_if_missing`, creates) the database at `path`
    /// with its default column family only. A database holding other
    /// families fails with `InvalidArgument` naming them, as RocksDB's
    /// `DB::Open` does: open it with [`Db::open_cf`].
    pub fn open(opts: Options, path: impl AsRef<Path>) -> Result<Db> {
        let cf_opts = opts.clone();
        Db::open_cf(
            opts,
            path,
            vec![(
                crate::version::set::DEFAULT_FAMILY_NAME.to_string(),
                cf_opts,
            )],
        )
        .map(|(db, _)| db)
    }

    /// Opens the database with the column families `families` (name,
    /// options; of each family's options only the per-family fields count,
    /// [`family_options`]). The list must name `"default"` and every
    /// family on disk (else `InvalidArgument` naming what is missing, as
    /// RocksDB); a listed family not on disk is created when
    /// `opts.create_missing_column_families` is set, else `InvalidArgument`.
    /// Returns a handle per listed family, in the list's order.
    pub fn open_cf(
        opts: Options,
        path: impl AsRef<Path>,
        families: Vec<(String, Options)>,
    ) -> Result<(Db, Vec<ColumnFamilyHandle>)> {
        Db::open_with_mode(opts, path.as_ref(), families, OpenMode::Primary)
    }

    fn open_with_mode(
        mut opts: Options,
        path: &Path,
        families: Vec<(String, Options)>,
        mode: OpenMode,
    ) -> Result<(Db, Vec<ColumnFamilyHandle>)> {
        let mut listed: std::collections::BTreeMap<String, Options> = Default::default();
        for (name, o) in &families {
            family::check_family_name(name)?;
            if listed.insert(name.clone(), o.clone()).is_some() {
                return Err(Error::InvalidArgument(format!(
                    "column family {name:?} listed twice"
                )));
            }
        }
        let Some(default_opts) = listed
            .get(crate::version::set::DEFAULT_FAMILY_NAME)
            .cloned()
        else {
            return Err(Error::InvalidArgument(
                "Default column family not specified".into(),
            ));
        };
        opts = family_options(&opts, &default_opts);
        let log_opts = InfoLogOptions {
            level: opts.info_log_level,
            max_log_file_size: opts.max_log_file_size,
            keep_log_file_num: opts.keep_log_file_num,
            sink: opts.logger.clone(),
        };
        opts.validate()?;
        // Every write group reads the perf-context clock (the slow-group
        // check in `write.rs`, at any perf level): calibrate it here, once
        // per process, rather than in the first write.
        crate::perf_context::clock::warm_up();
        let notes = opts.sanitize();
        let fs = opts.fs.clone();
        if path.as_os_str().is_empty() {
            return Err(Error::InvalidArgument(
                "database path must not be empty".into(),
            ));
        }
        // A check that fails (no permission, a parent that is a file) is an
        // IO error naming the path, never taken for "missing": regression
        // test `regression_unreadable_database_directory_is_an_io_error_not_missing`.
        let dir_exists = fs.try_exists(path)?;
        if dir_exists && !fs.is_dir(path) {
            return Err(Error::InvalidArgument(format!(
                "{} exists and is not a directory",
                path.display()
            )));
        }
        // Before anything is created, locked or renamed (the info log is
        // rotated below): another engine's database is refused untouched.
        if dir_exists {
            foreign::check_not_foreign(fs.as_ref(), path)?;
        }
        let exists = fs.try_exists(&path.join(crate::version::filename::CURRENT))?;
        if !exists && dir_exists {
            // Never create a new, empty database over one whose CURRENT was lost.
            recovery::refuse_to_recreate(fs.as_ref(), path, opts.wal_dir.as_deref())?;
        }
        if !exists && !mode.is_primary() {
            return Err(Error::InvalidArgument(format!(
                "{}: does not exist (no CURRENT file; a {} open never creates a database)",
                path.display(),
                mode.name()
            )));
        }
        if !exists && !opts.create_if_missing {
            return Err(Error::InvalidArgument(format!(
                "{}: does not exist (create_if_missing is false)",
                path.display()
            )));
        }
        if exists && opts.error_if_exists && mode.is_primary() {
            return Err(Error::InvalidArgument(format!(
                "{}: exists (error_if_exists is true)",
                path.display()
            )));
        }
        let wal_dir = opts.wal_dir.clone().unwrap_or_else(|| path.to_path_buf());
        let mut locks = Vec::new();
        if mode.is_primary() {
            fs.create_dir_all(path)?;
            fs.create_dir_all(&wal_dir)?;
            // Take the lock before touching anything else in the directory.
            locks.push(fs.lock_file(&path.join(crate::version::filename::LOCK))?);
        }
        if mode.is_primary() && !fs.same_dir(&wal_dir, path) {
            // The directory of the logs is locked too: two databases open
            // on one wal_dir would write logs of the same numbers over each
            // other. Its `LOCK` is the database lock of a database that
            // keeps its logs there, so a wal_dir naming another database's
            // directory is refused as well while that one is open.
            let wal_lock = wal_dir.join(crate::version::filename::LOCK);
            // A held lock is an IO error whose message holds "lock" (as
            // for the database's own `LOCK`); the context says which
            // option made it conflict.
            locks.push(fs.lock_file(&wal_lock).map_err(|e| match e {
                Error::Io {
                    context,
                    kind,
                    errno,
                    message,
                } => Error::Io {
                    context: format!(
                        "wal_dir {} is in use by another open database \
                         (each database needs a wal_dir of its own): {context}",
                        wal_dir.display()
                    ),
                    kind,
                    errno,
                    message,
                },
                e => e,
            })?);
        }
        let info_log = match &mode {
            OpenMode::Primary => InfoLog::open(fs.clone(), path, log_opts)?,
            // RocksDB's read-only open writes no info log of its own.
            OpenMode::ReadOnly { .. } if log_opts.sink.is_none() => InfoLog::disabled(fs.clone()),
            OpenMode::ReadOnly { .. } => InfoLog::open(fs.clone(), path, log_opts)?,
            OpenMode::Secondary { path: secondary } => {
                fs.create_dir_all(secondary)?;
                InfoLog::open(fs.clone(), secondary, log_opts)?
            }
        };
        info_log!(
            info_log,
            Header,
            "Talus version {}",
            env!("CARGO_PKG_VERSION")
        );
        info_log!(info_log, Header, "DB path: {}", path.display());
        for line in opts.describe().lines() {
            info_log!(info_log, Header, "Options.{line}");
        }
        for n in &notes {
            info_log!(info_log, Warn, "Option sanitized: {n}");
        }

        // The default family's block cache; a family not listed at a
        // read-only open (it gets no handle) takes these options, and so
        // shares it.
        table_cache::resolve_block_cache(&mut opts.table)?;
        let purge = files::PurgeFlags::default();
        let write_signals = stall::WriteSignals::new();
        // Compaction reads are charged when the limiter's mode covers reads,
        // at the priority its writes would have at the moment.
        let read_charger = opts.rate_limiter.as_ref().and_then(|rl| {
            let held = Arc::clone(&write_signals.held_cause);
            ReadCharger::new(
                rl.clone(),
                Arc::new(move || stall::output_io_priority(false, held.load(Ordering::Acquire))),
                opts.statistics.clone(),
            )
        });
        // The id the files of this database carry (`identity`): the
        // manifest's; for a new database, or one written before ids, the
        // one in `IDENTITY` if it holds one, else a new one.
        let mut identity_file = read_identity(fs.as_ref(), path);
        // Before the background threads start, so that a manifest that
        // cannot be recovered (or files beyond `num_levels`) leaves none behind.
        let fam_opts = |name: &str| -> Result<Options> {
            let mut o = family_options(&opts, listed.get(name).unwrap_or(&opts));
            o.validate()?;
            o.sanitize();
            Ok(o)
        };
        for name in listed.keys() {
            fam_opts(name)?;
        }
        let levels_of = |name: &str| -> usize {
            listed
                .get(name)
                .map_or(opts.num_levels, |o| o.num_levels)
                .max(1) as usize
        };
        let mut versions = if exists && mode.is_primary() {
            VersionSet::recover_with(fs.clone(), path, &opts, &levels_of)?
        } else if exists {
            // The primary may replace the manifest under this read.
            readonly::read_versions(&fs, path, &opts, &levels_of)?
        } else {
            let id = identity_file.unwrap_or_else(DbId::generate);
            if identity_file != Some(id) {
                // Before the manifest: a crash in between leaves an id that
                // the next attempt reuses, never files naming two ids.
                crate::fs::write_file_atomic(
                    fs.as_ref(),
                    path,
                    crate::version::filename::IDENTITY,
                    id.identity_file_contents().as_bytes(),
                )?;
                identity_file = Some(id);
            }
            VersionSet::create_new(fs.clone(), path, &opts, id)?
        };
        // A database written before ids: its logs carry none (recovery
        // takes them as its own), and it gets its id with recovery's edit.
        // Every family on disk must be listed (RocksDB's rule).
        let unlisted: Vec<&str> = versions
            .families()
            .values()
            .map(|f| f.name.as_str())
            .filter(|n| !listed.contains_key(*n))
            .collect();
        // A read-only or secondary open may list a subset (RocksDB too).
        if !unlisted.is_empty() && mode.is_primary() {
            return Err(Error::InvalidArgument(format!(
                "Column families not opened: {}",
                unlisted.join(", ")
            )));
        }
        let on_disk: BTreeSet<String> = versions
            .families()
            .values()
            .map(|f| f.name.clone())
            .collect();
        let missing: Vec<String> = families
            .iter()
            .map(|(n, _)| n.clone())
            .filter(|n| !on_disk.contains(n))
            .collect();
        if !missing.is_empty() && (!opts.create_missing_column_families || !mode.is_primary()) {
            return Err(Error::InvalidArgument(format!(
                "Column family not found: {}",
                missing.join(", ")
            )));
        }
        // A style change on an existing database (styles are not recorded:
        // the files' shape is what must suit the new style, as in RocksDB).
        // Leveled and universal compaction read any shape the other leaves
        // (each level below L0 is one sorted run either way; files beyond
        // `num_levels` were refused by recovery above). FIFO keeps every
        // table in L0, so it opens only a family with nothing below L0.
        for (&id, fam) in versions.families() {
            let fo = fam_opts(&fam.name)?;
            if fo.compaction_style != crate::options::CompactionStyle::Fifo {
                continue;
            }
            let Some(v) = versions.current_cf(id) else {
                continue;
            };
            if let Some(level) = (1..v.num_levels()).find(|&l| v.num_files(l) > 0) {
                return Err(Error::InvalidArgument(format!(
                    "Not all files are at level 0: column family {:?} has {} files at level \
                     {level}. Cannot open with FIFO compaction style (open it with LEVEL or \
                     UNIVERSAL compaction)",
                    fam.name,
                    v.num_files(level)
                )));
            }
        }
        let legacy_logs = versions.db_id().is_none();
        let db_id = versions
            .db_id()
            .or(identity_file)
            .unwrap_or_else(DbId::generate);
        versions.set_db_id(db_id);
        let table_cache = Arc::new(TableCache::new(
            fs.clone(),
            path,
            &opts,
            purge.sv_released.clone(),
            read_charger,
            db_id,
        )?);
        let spawn_err = |e: std::io::Error| Error::io("start background threads", &e);
        let pools = bg::Pools::start(&opts).map_err(spawn_err)?;
        let wal_syncer = wal_sync::WalSyncer::new().map_err(|e| {
            pools.shutdown();
            spawn_err(e)
        })?;

        for w in versions.recovery_warnings() {
            info_log!(info_log, Warn, "Manifest recovery: {w}");
        }
        let disable_auto = opts.disable_auto_compactions;
        let block_pool = Arc::new(BlockPool::new(opts.write_buffer_size));
        let mut family_states = std::collections::BTreeMap::new();
        for (&id, fam) in versions.families() {
            let fo = if fam.name == crate::version::set::DEFAULT_FAMILY_NAME {
                // `opts` are the default family's, its block cache resolved.
                opts.clone()
            } else {
                let mut fo = fam_opts(&fam.name)?;
                // Each family its own cache unless its options name one
                // (RocksDB: a table factory without a cache makes its own).
                table_cache::resolve_block_cache(&mut fo.table)?;
                fo
            };
            let sv = SuperVersion {
                mem: Arc::new(MemTable::with_block_pool(0, Some(block_pool.clone()))),
                imm: Vec::new(),
                version: versions.current_cf(id).expect("a live family"),
                merger: crate::merge::Merger::new(fo.merge_operator.clone(), fo.statistics.clone()),
                tables: table_cache::FamilyTables::of(&fo),
                _released: purge.release_flag(),
            };
            let cfd = Arc::new(ColumnFamilyData::new(id, &fam.name, fo, sv));
            family_states.insert(id, FamilyState::new(cfd));
        }
        let default_cf = family_states[&DEFAULT_FAMILY_ID].cfd.clone();
        let family_map: FamilyMap = family_states
            .iter()
            .map(|(&id, f)| (id, f.cfd.clone()))
            .collect();
        let inner = Arc::new(DbInner {
            path: path.to_path_buf(),
            wal_dir,
            fs,
            db_id,
            mode,
            lifecycle: lifecycle::Lifecycle::new(locks),
            info_log,
            table_cache,
            default_cf,
            families: ArcSwap::from_pointee(family_map),
            block_pool,
            last_sequence: AtomicU64::new(0),
            write_gate: write_gate::WriteGate::for_option(opts.max_concurrent_writers),
            write_queue: WriteQueue::default(),
            write_signals,
            wal: wal_set::WalSet::new(wal_syncer),
            state: Mutex::new(DbState {
                versions,
                families: family_states,
                flush_scheduled: false,
                flush_running: false,
                compactions_scheduled: 0,
                compactions_running: 0,
                manual_compactions: 0,
                exclusive_manual_compactions: 0,
                paused: 0,
                pending_outputs: BTreeSet::new(),
                bg_error: None,
                bg_error_count: 0,
                last_bg_error: None,
                resuming: false,
                compaction_failed_on: None,
                disable_auto_compactions: disable_auto,
                stall: stall::StallControl::new(&opts),
                imm_wal_bytes: Vec::new(),
                own_logs: BTreeSet::new(),
                file_deletions_disabled: 0,
                ingestions: 0,
            }),
            bg_cv: Condvar::new(),
            explicit_flush: parking_lot::Mutex::new(()),
            pools,
            purge,
            snapshots: SnapshotList::default(),
            stats: stats::DbStats::new(opts.statistics.clone()),
            opts,
        });
        let recovered = if inner.mode.is_primary() {
            recovery::recover(&inner, legacy_logs, identity_file)
        } else {
            readonly::recover(&inner)
        };
        if let Err(e) = recovered {
            inner.shutdown_background();
            return Err(e);
        }
        {
            let mut st = inner.state.lock();
            inner.maybe_schedule_work(&mut st);
        }
        info_log!(
            inner.info_log,
            Info,
            "Write admission: {} (max_concurrent_writers {})",
            match inner.write_gate.limit() {
                0 => "off".to_string(),
                n => format!(
                    "{n} writer threads at once, turns of {:?}, while more than {n} write continuously",
                    write_gate::QUANTUM
                ),
            },
            inner.opts.max_concurrent_writers
        );
        let db = Db { inner };
        let mut handles = Vec::with_capacity(families.len());
        for (name, cf_opts) in &families {
            let existing = db
                .inner
                .families
                .load()
                .values()
                .find(|c| &c.name == name)
                .cloned();
            let cfd = match existing {
                Some(c) => c,
                None => db.inner.create_column_family(name, cf_opts)?,
            };
            handles.push(ColumnFamilyHandle { cfd });
        }
        db.inner.start_stats_dumper();
        Ok((db, handles))
    }

    /// The names of the column families of the database at `path`, from
    /// its manifest (RocksDB's `ListColumnFamilies`): `"default"` first,
    /// then the others by id.
    pub fn list_column_families(opts: &Options, path: impl AsRef<Path>) -> Result<Vec<String>> {
        let path = path.as_ref();
        let fs = opts.fs.clone();
        if !fs.try_exists(&path.join(crate::version::filename::CURRENT))? {
            return Err(Error::InvalidArgument(format!(
                "{}: does not exist (no CURRENT file)",
                path.display()
            )));
        }
        let vs = VersionSet::recover_with(fs, path, opts, &|_| crate::version::edit::MAX_LEVELS)?;
        Ok(vs.families().values().map(|f| f.name.clone()).collect())
    }

    /// The default family's handle.
    pub fn default_column_family(&self) -> ColumnFamilyHandle {
        ColumnFamilyHandle {
            cfd: self.inner.default_cf.clone(),
        }
    }

    /// Creates column family `name` with the per-family fields of `opts`
    /// ([`family_options`]). `InvalidArgument` when a family of that name
    /// exists.
    pub fn create_column_family(&self, opts: &Options, name: &str) -> Result<ColumnFamilyHandle> {
        self.inner.lifecycle.check_open()?;
        self.inner.check_primary("create_column_family")?;
        let cfd = self.inner.create_column_family(name, opts)?;
        Ok(ColumnFamilyHandle { cfd })
    }

    /// Drops the family of `handle`: recorded in the manifest, then its
    /// memtables are forgotten and its tables deleted once no reader holds
    /// them. Later calls through any handle of it fail with
    /// `InvalidArgument`. The default family cannot be dropped.
    pub fn drop_column_family(&self, handle: &ColumnFamilyHandle) -> Result<()> {
        self.inner.lifecycle.check_open()?;
        self.inner.check_primary("drop_column_family")?;
        self.inner.drop_column_family(&handle.cfd)
    }

    /// The handle of live family `id`; `InvalidArgument` naming the id
    /// when there is none (dropped, or never created).
    pub fn column_family(&self, id: u32) -> Result<ColumnFamilyHandle> {
        self.inner.lifecycle.check_open()?;
        match self.inner.families.load().get(&id) {
            Some(cfd) => Ok(ColumnFamilyHandle { cfd: cfd.clone() }),
            None => Err(Error::InvalidArgument(format!(
                "column family {id} does not exist (dropped?)"
            ))),
        }
    }

    /// Handles of every live family, by id.
    pub fn column_families(&self) -> Vec<ColumnFamilyHandle> {
        self.inner
            .families
            .load()
            .values()
            .map(|c| ColumnFamilyHandle { cfd: c.clone() })
            .collect()
    }

    /// The database directory.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The options the database runs with (after sanitizing).
    pub fn options(&self) -> &Options {
        &self.inner.opts
    }

    /// RocksDB's `KeyMayExist`: whether `key` may exist, found without
    /// IO (memtables, filters and what is in the block cache). Never
    /// [`KeyMayExist::Absent`] for a key that exists; with
    /// [`KeyMayExist::Found`] its value is in `value_out`.
    pub fn key_may_exist(
        &self,
        ro: &ReadOptions,
        key: &[u8],
        value_out: &mut Vec<u8>,
    ) -> Result<KeyMayExist> {
        self.inner
            .key_may_exist(&self.inner.default_cf, ro, key, value_out)
    }

    /// Whether `key` exists (RocksDB 8's `keyExists`): an exact answer, at
    /// the cost of a point lookup.
    pub fn key_exists(&self, ro: &ReadOptions, key: &[u8]) -> Result<bool> {
        let mut v = Vec::new();
        self.inner.get_into(ro, key, &mut v)
    }

    /// [`Db::key_exists`] in family `cf`.
    pub fn key_exists_cf(
        &self,
        ro: &ReadOptions,
        cf: &ColumnFamilyHandle,
        key: &[u8],
    ) -> Result<bool> {
        let mut v = Vec::new();
        self.get_into_cf(ro, cf, key, &mut v)
    }

    /// Sets `key` to `value`.
    pub fn put(&self, wo: &WriteOptions, key: &[u8], value: &[u8]) -> Result<()> {
        let mut b = WriteBatch::with_capacity(key.len() + value.len() + 12);
        b.put(key, value);
        self.write(wo, b)
    }

    /// Deletes `key`.
    pub fn delete(&self, wo: &WriteOptions, key: &[u8]) -> Result<()> {
        let mut b = WriteBatch::with_capacity(key.len() + 8);
        b.delete(key);
        self.write(wo, b)
    }

    /// Merges `operand` into `key`'s value with the merge operator
    /// ([`crate::merge`]). `NotSupported` when the database has none, as
    /// RocksDB's ("Provide a merge_operator when opening DB").
    pub fn merge(&self, wo: &WriteOptions, key: &[u8], operand: &[u8]) -> Result<()> {
        self.check_merge_operator()?;
        let mut b = WriteBatch::with_capacity(key.len() + operand.len() + 12);
        b.merge(key, operand);
        self.write(wo, b)
    }

    /// `Ok` when the database has a merge operator, else the error of
    /// [`Db::merge`] (for bindings that build a merge batch themselves).
    pub fn check_merge_operator(&self) -> Result<()> {
        if self.inner.default_cf.merger.has_operator() {
            Ok(())
        } else {
            Err(Error::NotSupported(
                "Provide a merge_operator when opening DB".into(),
            ))
        }
    }

    /// Deletes `key`'s most recent put, which must be its only put since it
    /// was last deleted, with no merge on it (RocksDB's contract). Talus
    /// reads a single delete as a delete, so breaking the contract never
    /// brings back an older value (RocksDB leaves that undefined); a
    /// compaction drops the single delete and its put together only when it
    /// can prove that nothing older of the key exists
    /// (`db::compaction_iter`).
    pub fn single_delete(&self, wo: &WriteOptions, key: &[u8]) -> Result<()> {
        let mut b = WriteBatch::with_capacity(key.len() + 8);
        b.single_delete(key);
        self.write(wo, b)
    }

    /// Deletes every key in `[begin, end)`.
    pub fn delete_range(&self, wo: &WriteOptions, begin: &[u8], end: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.delete_range(begin, end);
        self.write(wo, b)
    }

    /// Applies `batch` atomically, with consecutive sequence numbers.
    pub fn write(&self, wo: &WriteOptions, batch: WriteBatch) -> Result<()> {
        self.inner.check_primary("write")?;
        self.inner.write(wo, batch)
    }

    /// Reads `key`; `None` when absent.
    pub fn get(&self, ro: &ReadOptions, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let mut v = Vec::new();
        Ok(self.get_into(ro, key, &mut v)?.then_some(v))
    }

    /// Reads `key` into `value_out` (cleared first); returns whether it was found.
    pub fn get_into(&self, ro: &ReadOptions, key: &[u8], value_out: &mut Vec<u8>) -> Result<bool> {
        self.inner.get_into(ro, key, value_out)
    }

    /// Reads several keys at one snapshot; `None` for each absent key.
    pub fn multi_get(&self, ro: &ReadOptions, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>> {
        self.inner.multi_get(&self.inner.default_cf, ro, keys)
    }

    /// Reads several keys at one snapshot like [`Db::multi_get`], handing
    /// each result to `each(index, value)` in key order (`None` for an absent
    /// key) instead of collecting them: the value slice is valid only during
    /// the call. The batch's values are held in one buffer (not one
    /// allocation per value) until the calls. An error from `each` stops
    /// the calls and is returned.
    pub fn multi_get_each<E: From<Error>>(
        &self,
        ro: &ReadOptions,
        keys: &[&[u8]],
        each: impl FnMut(usize, Option<&[u8]>) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        self.inner
            .multi_get_each(&self.inner.default_cf, ro, keys, each)
    }

    /// An iterator over the database as of `ro.snapshot` (or now).
    pub fn iter(&self, ro: &ReadOptions) -> Result<DbIterator> {
        self.inner.new_iterator(&self.inner.default_cf, ro)
    }

    /// Pins the current state: reads with the snapshot's sequence number see
    /// it until [`Db::release_snapshot`].
    pub fn snapshot(&self) -> Result<Snapshot> {
        self.inner.lifecycle.check_open()?;
        Ok(self
            .inner
            .snapshots
            .acquire_latest(&self.inner.last_sequence))
    }

    /// Releases a snapshot taken with [`Db::snapshot`].
    pub fn release_snapshot(&self, s: Snapshot) {
        self.inner.snapshots.release(s.sequence_number());
    }

    /// Like [`Db::snapshot`], returning only the sequence number; release it
    /// with [`Db::release_snapshot_sequence`]. For bindings that track
    /// snapshots by number.
    pub fn snapshot_sequence(&self) -> Result<SequenceNumber> {
        Ok(self.snapshot()?.sequence_number())
    }

    /// Releases one snapshot taken at `seq`.
    pub fn release_snapshot_sequence(&self, seq: SequenceNumber) {
        self.inner.snapshots.release(seq);
    }

    /// The newest published sequence number.
    pub fn latest_sequence_number(&self) -> SequenceNumber {
        self.inner.last_sequence.load(Ordering::Acquire)
    }

    /// Writes the WAL buffer to its file, and syncs it when `sync`. A
    /// failure latches the background error, as a failed write does.
    pub fn flush_wal(&self, sync: bool) -> Result<()> {
        self.inner.lifecycle.check_open()?;
        self.inner.check_primary("flush_wal")?;
        self.inner.check_bg_error()?;
        let mut wal = self.inner.wal.lock();
        let r = if sync {
            self.inner.wal.sync(&mut wal)
        } else {
            match wal.writer.as_mut() {
                Some(w) => w.flush(),
                None => Ok(()),
            }
        };
        match r {
            Ok(()) => {
                if sync {
                    wal.unsynced_bytes = 0;
                    drop(wal);
                    if self.inner.wal.tracker.closed_unrecorded() {
                        // As a synced write does (module docs of `wal_track`).
                        self.inner.record_closed_wals();
                    }
                }
                Ok(())
            }
            Err(e) => {
                wal.failed = true;
                drop(wal);
                self.inner.latch_write_error(&e);
                Err(e)
            }
        }
    }

    /// Leaves the background-error state once its cause is gone (RocksDB's
    /// `DB::Resume`): replaces a failed WAL, flushes every memtable, writes
    /// a new manifest, then lets writes and compactions run again. `Ok`
    /// when there was no error. An error that is not an IO error (a
    /// corruption) is returned as is: it needs a reopen. See
    /// `db/resume.rs` for what was acknowledged and what survives.
    pub fn resume(&self) -> Result<()> {
        self.inner.check_primary("resume")?;
        self.inner.resume()
    }

    /// Flushes the memtables to L0 tables.
    pub fn flush(&self, fo: &FlushOptions) -> Result<()> {
        self.inner.check_primary("flush")?;
        self.inner.flush(fo)
    }

    /// Compacts every key in `[begin, end]` (None = unbounded) with the
    /// default [`CompactRangeOptions`]: under leveled compaction down to
    /// the last level holding data, level by level; under universal
    /// compaction every file of the family into one sorted run at the last
    /// level (the range is not consulted, as in RocksDB); under FIFO
    /// compaction one FIFO pick (drops due by TTL or size, or an intra-L0
    /// merge).
    pub fn compact_range(&self, begin: Option<&[u8]>, end: Option<&[u8]>) -> Result<()> {
        self.inner.check_primary("compact_range")?;
        self.inner.compact_range(
            &self.inner.default_cf,
            begin,
            end,
            &CompactRangeOptions::default(),
        )
    }

    /// [`Db::compact_range`] with options.
    pub fn compact_range_opt(
        &self,
        cro: &CompactRangeOptions,
        begin: Option<&[u8]>,
        end: Option<&[u8]>,
    ) -> Result<()> {
        self.inner.check_primary("compact_range")?;
        self.inner
            .compact_range(&self.inner.default_cf, begin, end, cro)
    }

    /// FIFO compaction of family `cf`: `(through, files)`, the largest
    /// sequence number of the tables dropped since this open (0: none) and
    /// how many were dropped. The tables FIFO keeps hold only writes above
    /// `through`; every write at or below it that had been flushed is gone.
    pub fn fifo_dropped_cf(&self, cf: &ColumnFamilyHandle) -> Result<(u64, u64)> {
        let cfd = self.family(cf)?;
        let st = self.inner.state.lock();
        Ok(st
            .families
            .get(&cfd.id)
            .map_or((0, 0), |f| (f.fifo_dropped_through, f.fifo_dropped_files)))
    }

    /// Waits for running background jobs, then starts no new ones until
    /// [`Db::continue_background_work`].
    pub fn pause_background_work(&self) -> Result<()> {
        self.inner.pause_background_work()
    }

    /// Undoes one [`Db::pause_background_work`].
    pub fn continue_background_work(&self) -> Result<()> {
        self.inner.continue_background_work()
    }

    /// Turns automatic compactions on or off at run time.
    pub fn set_disable_auto_compactions(&self, disable: bool) -> Result<()> {
        self.inner.lifecycle.check_open()?;
        let mut st = self.inner.state.lock();
        st.disable_auto_compactions = disable;
        self.inner.maybe_schedule_work(&mut st);
        Ok(())
    }

    /// Waits until no flush or compaction is pending or running.
    pub fn wait_for_compactions(&self) -> Result<()> {
        self.inner.wait_for_background_idle()
    }

    /// A property value (`rocksdb.*` names), or `None` for an unknown name.
    pub fn property(&self, name: &str) -> Option<String> {
        self.inner.property(&self.inner.default_cf, name)
    }

    /// A numeric property, or `None` when unknown or not numeric.
    pub fn int_property(&self, name: &str) -> Option<u64> {
        self.inner.int_property(&self.inner.default_cf, name)
    }

    // ---- Column-family forms (RocksDB's overloads taking a handle) ----

    fn family<'a>(&self, cf: &'a ColumnFamilyHandle) -> Result<&'a Arc<ColumnFamilyData>> {
        self.inner.lifecycle.check_open()?;
        self.inner.live_family(&cf.cfd)?;
        Ok(&cf.cfd)
    }

    /// [`Db::put`] in family `cf`.
    pub fn put_cf(
        &self,
        wo: &WriteOptions,
        cf: &ColumnFamilyHandle,
        key: &[u8],
        value: &[u8],
    ) -> Result<()> {
        let id = self.family(cf)?.id;
        let mut b = WriteBatch::with_capacity(key.len() + value.len() + 16);
        b.put_cf(id, key, value);
        self.write(wo, b)
    }

    /// [`Db::delete`] in family `cf`.
    pub fn delete_cf(&self, wo: &WriteOptions, cf: &ColumnFamilyHandle, key: &[u8]) -> Result<()> {
        let id = self.family(cf)?.id;
        let mut b = WriteBatch::with_capacity(key.len() + 12);
        b.delete_cf(id, key);
        self.write(wo, b)
    }

    /// [`Db::single_delete`] in family `cf`.
    pub fn single_delete_cf(
        &self,
        wo: &WriteOptions,
        cf: &ColumnFamilyHandle,
        key: &[u8],
    ) -> Result<()> {
        let id = self.family(cf)?.id;
        let mut b = WriteBatch::with_capacity(key.len() + 12);
        b.single_delete_cf(id, key);
        self.write(wo, b)
    }

    /// [`Db::merge`] in family `cf`, with the family's merge operator.
    pub fn merge_cf(
        &self,
        wo: &WriteOptions,
        cf: &ColumnFamilyHandle,
        key: &[u8],
        operand: &[u8],
    ) -> Result<()> {
        let cfd = self.family(cf)?;
        if !cfd.merger.has_operator() {
            return Err(Error::NotSupported(
                "Provide a merge_operator when opening DB".into(),
            ));
        }
        let mut b = WriteBatch::with_capacity(key.len() + operand.len() + 16);
        b.merge_cf(cfd.id, key, operand);
        self.write(wo, b)
    }

    /// [`Db::delete_range`] in family `cf`.
    pub fn delete_range_cf(
        &self,
        wo: &WriteOptions,
        cf: &ColumnFamilyHandle,
        begin: &[u8],
        end: &[u8],
    ) -> Result<()> {
        let id = self.family(cf)?.id;
        let mut b = WriteBatch::new();
        b.delete_range_cf(id, begin, end);
        self.write(wo, b)
    }

    /// [`Db::get`] in family `cf`.
    pub fn get_cf(
        &self,
        ro: &ReadOptions,
        cf: &ColumnFamilyHandle,
        key: &[u8],
    ) -> Result<Option<Vec<u8>>> {
        let mut v = Vec::new();
        Ok(self.get_into_cf(ro, cf, key, &mut v)?.then_some(v))
    }

    /// [`Db::get_into`] in family `cf`.
    pub fn get_into_cf(
        &self,
        ro: &ReadOptions,
        cf: &ColumnFamilyHandle,
        key: &[u8],
        value_out: &mut Vec<u8>,
    ) -> Result<bool> {
        let cfd = self.family(cf)?;
        self.inner.get_into_cf(cfd, ro, key, value_out)
    }

    /// [`Db::key_may_exist`] in family `cf`.
    pub fn key_may_exist_cf(
        &self,
        ro: &ReadOptions,
        cf: &ColumnFamilyHandle,
        key: &[u8],
        value_out: &mut Vec<u8>,
    ) -> Result<KeyMayExist> {
        let cfd = self.family(cf)?;
        self.inner.key_may_exist(cfd, ro, key, value_out)
    }

    /// [`Db::multi_get`] over (family, key) pairs, at one snapshot.
    pub fn multi_get_cf(
        &self,
        ro: &ReadOptions,
        keys: &[(&ColumnFamilyHandle, &[u8])],
    ) -> Result<Vec<Option<Vec<u8>>>> {
        self.inner.lifecycle.check_open()?;
        // One snapshot for every family: the caller's, or one taken now.
        let snap = match ro.snapshot {
            Some(_) => None,
            None => Some(self.snapshot()?),
        };
        let ro = ReadOptions {
            snapshot: ro.snapshot.or(snap.as_ref().map(Snapshot::sequence_number)),
            ..ro.clone()
        };
        let r = (|| {
            let mut out = Vec::with_capacity(keys.len());
            for (cf, key) in keys {
                out.push(self.get_cf(&ro, cf, key)?);
            }
            Ok(out)
        })();
        if let Some(s) = snap {
            self.release_snapshot(s);
        }
        r
    }

    /// [`Db::multi_get_each`] in family `cf`.
    pub fn multi_get_each_cf<E: From<Error>>(
        &self,
        ro: &ReadOptions,
        cf: &ColumnFamilyHandle,
        keys: &[&[u8]],
        each: impl FnMut(usize, Option<&[u8]>) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let cfd = self.family(cf)?;
        self.inner.multi_get_each(cfd, ro, keys, each)
    }

    /// [`Db::iter`] over family `cf`.
    pub fn iter_cf(&self, ro: &ReadOptions, cf: &ColumnFamilyHandle) -> Result<DbIterator> {
        let cfd = self.family(cf)?;
        self.inner.new_iterator(cfd, ro)
    }

    /// [`Db::flush`] of family `cf`.
    pub fn flush_cf(&self, fo: &FlushOptions, cf: &ColumnFamilyHandle) -> Result<()> {
        let cfd = self.family(cf)?;
        self.inner.check_primary("flush")?;
        self.inner.flush_cf(fo, cfd)
    }

    /// [`Db::compact_range`] of family `cf`.
    pub fn compact_range_cf(
        &self,
        cf: &ColumnFamilyHandle,
        begin: Option<&[u8]>,
        end: Option<&[u8]>,
    ) -> Result<()> {
        let cfd = self.family(cf)?;
        self.inner.check_primary("compact_range")?;
        self.inner
            .compact_range(cfd, begin, end, &CompactRangeOptions::default())
    }

    /// [`Db::compact_range_opt`] of family `cf`.
    pub fn compact_range_cf_opt(
        &self,
        cf: &ColumnFamilyHandle,
        cro: &CompactRangeOptions,
        begin: Option<&[u8]>,
        end: Option<&[u8]>,
    ) -> Result<()> {
        let cfd = self.family(cf)?;
        self.inner.check_primary("compact_range")?;
        self.inner.compact_range(cfd, begin, end, cro)
    }

    /// [`Db::property`] of family `cf`; `None` for an unknown name or a
    /// dropped family.
    pub fn property_cf(&self, cf: &ColumnFamilyHandle, name: &str) -> Option<String> {
        let cfd = self.family(cf).ok()?;
        self.inner.property(cfd, name)
    }

    /// [`Db::int_property`] of family `cf`.
    pub fn int_property_cf(&self, cf: &ColumnFamilyHandle, name: &str) -> Option<u64> {
        let cfd = self.family(cf).ok()?;
        self.inner.int_property(cfd, name)
    }

    /// Bytes written to table files by flushes and compactions since open
    /// (RocksDB's `FLUSH_WRITE_BYTES + COMPACT_WRITE_BYTES`, kept whether or
    /// not statistics are on): the numerator of write amplification.
    pub fn table_bytes_written(&self) -> u64 {
        let st = self.inner.state.lock();
        st.families
            .values()
            .flat_map(|f| f.stats.levels.iter())
            .map(|l| l.written)
            .sum()
    }

    /// Background WAL syncs completed since open (`wal_bytes_per_sync`).
    pub fn wal_background_syncs(&self) -> u64 {
        self.inner.wal.syncer.completed()
    }

    /// Reads every block of every live table and checks its checksum,
    /// checks each table against its manifest entry (module docs of
    /// `db::table_cache`), and compares each whole file with the checksum
    /// the manifest recorded when it was written.
    pub fn verify_checksum(&self) -> Result<()> {
        self.inner.verify_checksum()
    }

    /// The block cache the default family reads through, if any (each
    /// family has its own or a shared one: [`ColumnFamilyHandle::block_cache`]).
    pub fn block_cache(&self) -> Option<&Arc<BlockCache>> {
        self.inner.default_cf.tables.block_cache.as_ref()
    }

    /// The first step of closing, for callers that must wake other threads
    /// before they can close: stops writes (a write not yet given its
    /// sequence number fails with `ShutdownInProgress`), flushes memtables
    /// holding writes made without the WAL (resuming paused background work
    /// for it), then makes every new call fail with `ShutdownInProgress` and
    /// wakes writers waiting in a stall. Idempotent; [`Db::close`] calls it.
    pub fn begin_close(&self) -> Result<()> {
        self.inner.begin_close()
    }

    /// Closes the database: waits for background jobs, releases the lock.
    /// Memtables holding writes made without the WAL are flushed first;
    /// everything else is already in the WAL (which is not synced, as in
    /// RocksDB) and is left to WAL replay at the next open: a compaction
    /// running at close stops, and so does a running flush whose memtables
    /// hold only logged writes (unless a background error or a failed WAL
    /// sync is pending, when the flush is what keeps those writes).
    /// Idempotent.
    pub fn close(&self) -> Result<()> {
        self.inner.close()
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        let _ = self.inner.close();
    }
}

impl DbInner {
    /// Publishes a new super version of family `cf` built from `st` and
    /// `mem`, and re-evaluates the write stall condition for it. Nothing
    /// for a family that no longer exists (dropped).
    pub(crate) fn install_super_version(&self, st: &mut DbState, cf: u32, mem: Arc<MemTable>) {
        let Some(version) = st.versions.current_cf(cf) else {
            return;
        };
        let Some(fs) = st.families.get(&cf) else {
            return;
        };
        let mut imm: Vec<Arc<MemTable>> = fs.imm.clone();
        imm.reverse();
        fs.cfd.super_version.store(Arc::new(SuperVersion {
            mem,
            imm,
            version,
            merger: fs.cfd.merger.clone(),
            tables: fs.cfd.tables.clone(),
            _released: self.purge.release_flag(),
        }));
        self.recalculate_write_stall(st);
        self.write_signals
            .compaction_pressure
            .store(st.stall.pressure, Ordering::Relaxed);
    }

    /// Persists `edit` in the manifest and installs its version, with the
    /// DB mutex released during the manifest IO (append + sync, or a new
    /// manifest and `CURRENT`): a sync can take tens of milliseconds while
    /// flushes and compactions write, and the write path needs this mutex
    /// to switch memtables and to pace delayed writes.
    ///
    /// One edit is written at a time: a caller finding another in flight
    /// waits for its commit, so every edit is prepared on the version the
    /// previous one installed. While the lock is released the current
    /// version is the old one; the files the edit adds count as live (see
    /// [`VersionSet::prepare_edit`]) and those it removes are still in the
    /// current version, so the obsolete-file sweep touches neither; the
    /// caller's own bookkeeping (`pending_outputs`, `being_compacted`,
    /// `flush_running`) stays set until this returns.
    ///
    /// Every edit also carries what is new about the live logs
    /// ([`wal_track::WalTracker::additions`]): WAL tracking costs no
    /// manifest write of its own on this path.
    pub(crate) fn log_and_apply(
        &self,
        st: &mut parking_lot::MutexGuard<'_, DbState>,
        mut edit: crate::version::VersionEdit,
    ) -> Result<Arc<Version>> {
        while st.versions.manifest_write_pending() {
            self.bg_cv.wait(st);
        }
        // With several families: the oldest log any family still needs, as
        // known in memory (a family with nothing unflushed needs none
        // before its active memtable's log, though the manifest's log
        // number for it is older). Family invariant 2.
        if st.families.len() > 1 || edit.column_family != DEFAULT_FAMILY_ID {
            let mut min = u64::MAX;
            for (&id, f) in &st.families {
                let n = if id == edit.column_family {
                    if edit.column_family_drop {
                        continue;
                    }
                    match edit.log_number {
                        Some(n) => n,
                        None => f.oldest_log(&f.cfd.super_version.load().mem),
                    }
                } else {
                    f.oldest_log(&f.cfd.super_version.load().mem)
                };
                min = min.min(n);
            }
            if min != u64::MAX && min > 0 {
                edit.min_log_to_keep = Some(min);
            }
        }
        let min_log = st.versions.log_number();
        let additions = self.wal.tracker.additions(min_log, st.versions.wals());
        edit.wal_additions.extend(additions.iter().copied());
        let mut pending = st.versions.prepare_edit(edit)?;
        let written = parking_lot::MutexGuard::unlocked(st, || pending.write());
        let r = st.versions.commit_edit(pending, written);
        if r.is_ok() {
            self.wal
                .tracker
                .recorded(&additions, st.versions.log_number());
        }
        // Wakes installers waiting above (and every other bg_cv waiter,
        // which re-checks its own condition).
        self.bg_cv.notify_all();
        r
    }

    /// Installs a super version of family `cf` with the same active memtable.
    pub(crate) fn refresh_super_version(&self, st: &mut DbState, cf: u32) {
        let Some(fs) = st.families.get(&cf) else {
            return;
        };
        let mem = fs.cfd.super_version.load().mem.clone();
        self.install_super_version(st, cf, mem);
    }

    /// An empty memtable for WAL `log_number`, its arena on the block pool.
    pub(crate) fn new_memtable(&self, log_number: u64) -> Arc<MemTable> {
        Arc::new(MemTable::with_block_pool(
            log_number,
            Some(self.block_pool.clone()),
        ))
    }

    /// Schedules a flush and compactions when there is work and room.
    /// With a background error latched nothing is scheduled, except the
    /// flushes of a running `resume()`.
    pub(crate) fn maybe_schedule_work(self: &Arc<Self>, st: &mut DbState) {
        if self.lifecycle.is_shutting_down() || st.paused > 0 || !self.mode.is_primary() {
            return;
        }
        if st.bg_error.is_some() && !st.resuming {
            return;
        }
        if !st.flush_scheduled
            && !st.flush_running
            && st.families.values().any(|f| f.flush_needed())
        {
            st.flush_scheduled = true;
            let me = self.clone();
            self.pools.flush.submit(move || me.background_flush());
        }
        if st.bg_error.is_some() {
            return;
        }
        let (_, max_compactions) = self.opts.background_threads();
        // Without compaction pressure one compaction at a time (RocksDB).
        let max_compactions = if st.stall.pressure {
            max_compactions
        } else {
            1
        };
        while !st.disable_auto_compactions
            && st.compactions_scheduled + st.compactions_running < max_compactions
            && st.compactions_scheduled == 0
            && self.pick_family_to_compact(st).is_some()
        {
            st.compactions_scheduled += 1;
            let me = self.clone();
            self.pools
                .compaction
                .submit(move || me.background_compaction());
        }
    }

    fn pause_background_work(&self) -> Result<()> {
        self.lifecycle.check_open()?;
        let mut st = self.state.lock();
        st.paused += 1;
        while st.flush_running || st.compactions_running > 0 {
            self.bg_cv.wait(&mut st);
        }
        Ok(())
    }

    fn continue_background_work(self: &Arc<Self>) -> Result<()> {
        self.lifecycle.check_open()?;
        let mut st = self.state.lock();
        if st.paused == 0 {
            return Err(Error::InvalidArgument(
                "continue_background_work without a matching pause_background_work".into(),
            ));
        }
        st.paused -= 1;
        self.maybe_schedule_work(&mut st);
        self.bg_cv.notify_all();
        Ok(())
    }

    fn wait_for_background_idle(&self) -> Result<()> {
        let mut st = self.state.lock();
        loop {
            if let Some(e) = &st.bg_error {
                return Err(e.clone());
            }
            self.lifecycle.check_open()?;
            let busy = st.flush_scheduled
                || st.flush_running
                || st.compactions_scheduled > 0
                || st.compactions_running > 0
                || (st.paused == 0 && st.families.values().any(|f| f.flush_needed()))
                || (st.paused == 0 && self.pick_family_to_compact(&st).is_some());
            if !busy {
                // The last job may still be deleting its inputs.
                drop(st);
                self.purge_obsolete_files();
                return Ok(());
            }
            self.bg_cv.wait(&mut st);
        }
    }
}

/// The id in the `IDENTITY` file of `dir`, if it holds a readable one.
pub(super) fn read_identity(fs: &dyn FileSystem, dir: &Path) -> Option<DbId> {
    let p = dir.join(crate::version::filename::IDENTITY);
    let bytes = crate::fs::read_all(fs, &p).ok()?;
    DbId::parse(std::str::from_utf8(&bytes).ok()?)
}

#[cfg(test)]
mod subcompaction_tests;
#[cfg(test)]
mod tests;
