//! Column families: the per-family half of the database's state.
//!
//! A database is DB-wide state (the WAL and its writer, sequence numbers,
//! the manifest and version set with the file-number counter, the write
//! queue and admission gate, the background pools, the snapshot list,
//! the table cache of open files, statistics, the background error) and one
//! [`ColumnFamilyData`] per family, with its own memtables, levels,
//! options, table options (block size, filter, block cache: RocksDB's
//! table factory per family) and compaction picking. Every family's writes go to the one
//! WAL, so a batch spanning families is one WAL record and atomic at
//! recovery.
//!
//! Thread-safety contract:
//! - [`ColumnFamilyData`] is shared (`Arc`) by handles, readers and the
//!   write leader; its fields are immutable except `super_version`
//!   (swapped under the DB mutex, loaded lock-free) and `dropped` (set
//!   under the DB mutex).
//! - `FamilyState` lives in `DbState::families` under the DB mutex.
//! - `DbInner::families` (id → family) is swapped under the DB mutex on
//!   create and drop, and loaded lock-free by the write leader.
//!
//! Lock order is the database's (module docs of [`super`]): DB mutex, then
//! WAL mutex; a family adds no lock of its own.
//!
//! Invariants:
//! 1. Family ids are never reused: ids come from the manifest's
//!    `max_column_family`, which only grows.
//! 2. A family's log number (in the manifest) is at most the log number of
//!    its oldest memtable not yet flushed; a WAL is deleted only when it is
//!    below every live family's log number (`VersionSet::log_number`), so a
//!    flush of one family never loses another family's unflushed writes.
//! 3. After `dropped` is set no write reaches the family (the write path
//!    skips its records), no flush or compaction is picked for it, and its
//!    tables are deleted once no reader's version names them.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use arc_swap::ArcSwap;

use super::SuperVersion;
use super::stats::InternalStats;
use super::table_cache::FamilyTables;
use crate::compaction::PickerOptions;
use crate::error::{Error, Result};
use crate::memtable::MemTable;
use crate::merge::Merger;
use crate::options::Options;

/// The default family's id.
pub const DEFAULT_FAMILY_ID: u32 = 0;

/// One column family's shared part (see the module docs).
pub struct ColumnFamilyData {
    pub(crate) id: u32,
    pub(crate) name: String,
    /// The family's options: the database's, with the family's
    /// [`family_options`] fields.
    pub(crate) opts: Options,
    /// How the family's tables are read: its block cache (own or shared,
    /// resolved at open or create) and index and filter handling.
    pub(crate) tables: FamilyTables,
    pub(crate) picker_opts: PickerOptions,
    /// The family's merge operator (or its absence).
    pub(crate) merger: Merger,
    /// What readers of this family need, swapped as one unit.
    pub(crate) super_version: ArcSwap<SuperVersion>,
    /// Set when the family is dropped (invariant 3).
    pub(crate) dropped: AtomicBool,
    /// Exclusive `compactRange()`s of the family's whole key space waiting
    /// for running compactions to end (leveled compaction only). While
    /// above 0, the family's automatic compactions stop at their next
    /// check and delete their outputs, and none is picked: the manual
    /// compaction rewrites all their inputs anyway
    /// ([`super::compaction::CANCELLED_FOR_MANUAL`]).
    pub(crate) cancel_automatic: AtomicU32,
}

impl std::fmt::Debug for ColumnFamilyData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ColumnFamily")
            .field("id", &self.id)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl ColumnFamilyData {
    /// `opts`: the family's options, their block cache resolved
    /// (`table_cache::resolve_block_cache`).
    pub(crate) fn new(id: u32, name: &str, opts: Options, sv: SuperVersion) -> Self {
        let picker_opts = PickerOptions::from(&opts);
        let tables = FamilyTables::of(&opts);
        let merger = Merger::new(opts.merge_operator.clone(), opts.statistics.clone());
        ColumnFamilyData {
            id,
            name: name.to_string(),
            opts,
            tables,
            picker_opts,
            merger,
            super_version: ArcSwap::from_pointee(sv),
            dropped: AtomicBool::new(false),
            cancel_automatic: AtomicU32::new(0),
        }
    }

    /// The level L0 compacts into and ingestion stops above: leveled
    /// compaction's base level of `v` (dynamic level sizes move it down
    /// while the data is small), level 1 for the other styles.
    pub(crate) fn base_level(&self, v: &crate::version::Version) -> usize {
        match self.opts.compaction_style {
            crate::options::CompactionStyle::Level => {
                crate::compaction::level_targets(v, &self.picker_opts).base_level
            }
            _ => 1,
        }
    }

    /// The family's id (0 for the default family).
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The family's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the family has been dropped.
    pub fn is_dropped(&self) -> bool {
        self.dropped.load(Ordering::Acquire)
    }

    /// `Ok` while the family is live; else the error every use of a
    /// dropped family's handle gets.
    pub(crate) fn check_live(&self) -> Result<()> {
        if self.is_dropped() {
            Err(Error::InvalidArgument(format!(
                "column family {:?} (id {}) has been dropped",
                self.name, self.id
            )))
        } else {
            Ok(())
        }
    }
}

/// A handle to a column family of an open database (RocksDB's
/// `ColumnFamilyHandle`). Cloning is cheap. After the family is dropped
/// every call through the handle fails with `InvalidArgument` naming it;
/// reads through iterators made before the drop go on.
#[derive(Clone, Debug)]
pub struct ColumnFamilyHandle {
    pub(crate) cfd: Arc<ColumnFamilyData>,
}

impl ColumnFamilyHandle {
    /// The family's id (0 for the default family).
    pub fn id(&self) -> u32 {
        self.cfd.id
    }

    /// The family's name.
    pub fn name(&self) -> &str {
        &self.cfd.name
    }

    /// Whether the family has been dropped.
    pub fn is_dropped(&self) -> bool {
        self.cfd.is_dropped()
    }

    /// The options the family runs with.
    pub fn options(&self) -> &Options {
        &self.cfd.opts
    }

    /// The block cache the family's tables are read through, if any: its
    /// own, or one shared with the families whose options name the same
    /// cache (RocksDB's block cache of the family's table factory).
    pub fn block_cache(&self) -> Option<&Arc<crate::table::BlockCache>> {
        self.cfd.tables.block_cache.as_ref()
    }
}

/// A family's state under the DB mutex.
pub(crate) struct FamilyState {
    pub(crate) cfd: Arc<ColumnFamilyData>,
    /// Immutable memtables, oldest first.
    pub(crate) imm: Vec<Arc<MemTable>>,
    /// How many of the oldest `imm` a running flush is writing.
    pub(crate) imm_flushing: usize,
    /// Flush every immutable memtable even below `min_write_buffer_number_to_merge`.
    pub(crate) flush_requested: bool,
    /// Flush and compaction statistics per level.
    pub(crate) stats: InternalStats,
    /// Flushes and compactions of this family running: a drop waits for them.
    pub(crate) jobs_running: usize,
    /// FIFO compaction: the largest sequence number of the tables dropped
    /// since open (0: none). Every write at or below it that reached a
    /// table is gone; the writes above it are all kept.
    pub(crate) fifo_dropped_through: u64,
    /// FIFO compaction: tables dropped since open.
    pub(crate) fifo_dropped_files: u64,
}

impl FamilyState {
    pub(crate) fn new(cfd: Arc<ColumnFamilyData>) -> Self {
        let levels = cfd.opts.num_levels.max(1) as usize;
        FamilyState {
            cfd,
            imm: Vec::new(),
            imm_flushing: 0,
            flush_requested: false,
            stats: InternalStats::new(levels),
            jobs_running: 0,
            fifo_dropped_through: 0,
            fifo_dropped_files: 0,
        }
    }

    /// Immutable memtables not yet being flushed.
    pub(crate) fn idle_imm(&self) -> usize {
        self.imm.len() - self.imm_flushing
    }

    /// Whether a flush of this family is due.
    pub(crate) fn flush_needed(&self) -> bool {
        let idle = self.idle_imm();
        idle > 0
            && (self.flush_requested
                || idle >= self.cfd.opts.min_write_buffer_number_to_merge.max(1) as usize)
    }

    /// The log of the family's oldest unflushed write (its oldest
    /// memtable's log); `active` is the active memtable.
    pub(crate) fn oldest_log(&self, active: &MemTable) -> u64 {
        self.imm
            .first()
            .map_or(active.log_number(), |m| m.log_number())
    }
}

/// The live families by id, for lock-free lookups (the write leader).
pub(crate) type FamilyMap = BTreeMap<u32, Arc<ColumnFamilyData>>;

/// The family's options: `db` for what is the database's, `cf` for what
/// RocksDB keeps per family (`ColumnFamilyOptions`): memtable sizes and
/// counts, level shape, compaction triggers and limits, compression,
/// merge operator, automatic compactions, the prefix extractor, and the
/// table options (block size, restart interval, filter, index and filter
/// caching, block cache). A family's tables are built with its own table
/// options and extractor, and read with them: a table's filter records the
/// extractor that built it, so a reader probes it with prefixes only when
/// its family's extractor has the same name (`table::reader`).
pub fn family_options(db: &Options, cf: &Options) -> Options {
    let mut o = db.clone();
    o.write_buffer_size = cf.write_buffer_size;
    o.max_write_buffer_number = cf.max_write_buffer_number;
    o.min_write_buffer_number_to_merge = cf.min_write_buffer_number_to_merge;
    o.level0_file_num_compaction_trigger = cf.level0_file_num_compaction_trigger;
    o.level0_slowdown_writes_trigger = cf.level0_slowdown_writes_trigger;
    o.level0_stop_writes_trigger = cf.level0_stop_writes_trigger;
    o.soft_pending_compaction_bytes_limit = cf.soft_pending_compaction_bytes_limit;
    o.hard_pending_compaction_bytes_limit = cf.hard_pending_compaction_bytes_limit;
    o.num_levels = cf.num_levels;
    o.max_bytes_for_level_base = cf.max_bytes_for_level_base;
    o.max_bytes_for_level_multiplier = cf.max_bytes_for_level_multiplier;
    o.level_compaction_dynamic_level_bytes = cf.level_compaction_dynamic_level_bytes;
    o.target_file_size_base = cf.target_file_size_base;
    o.target_file_size_multiplier = cf.target_file_size_multiplier;
    o.compaction_pri = cf.compaction_pri;
    o.disable_auto_compactions = cf.disable_auto_compactions;
    o.compaction_style = cf.compaction_style;
    o.compaction_options_universal = cf.compaction_options_universal.clone();
    o.compaction_options_fifo = cf.compaction_options_fifo.clone();
    o.ttl = cf.ttl;
    o.compression = cf.compression;
    o.compression_opts = cf.compression_opts;
    o.compression_per_level = cf.compression_per_level.clone();
    o.bottommost_compression = cf.bottommost_compression;
    o.bottommost_compression_opts = cf.bottommost_compression_opts;
    o.merge_operator = cf.merge_operator.clone();
    o.prefix_extractor = cf.prefix_extractor;
    o.table = cf.table.clone();
    o
}

/// Checks a family name: RocksDB accepts any name but the empty one.
pub(crate) fn check_family_name(name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::InvalidArgument(
            "column family name must not be empty".into(),
        ));
    }
    Ok(())
}

impl super::DbInner {
    /// Creates family `name` (see `Db::create_column_family`).
    pub(crate) fn create_column_family(
        &self,
        name: &str,
        cf_opts: &Options,
    ) -> Result<Arc<ColumnFamilyData>> {
        check_family_name(name)?;
        let mut opts = family_options(&self.opts, cf_opts);
        opts.validate()?;
        opts.sanitize();
        super::table_cache::resolve_block_cache(&mut opts.table)?;
        self.check_bg_error()?;
        let mut st = self.state.lock();
        if st.families.values().any(|f| f.cfd.name == name) {
            return Err(Error::InvalidArgument(format!(
                "Column family already exists: {name}"
            )));
        }
        let id = st.versions.new_column_family_id();
        st.versions
            .set_levels_of_new_family(opts.num_levels.max(1) as usize);
        // The family has nothing in any log before the current one.
        let log = self.current_wal_number();
        let edit = crate::version::VersionEdit {
            column_family: id,
            column_family_add: Some(name.to_string()),
            log_number: Some(log),
            ..Default::default()
        };
        self.log_and_apply(&mut st, edit)?;
        // A switch while the manifest was written may have started a newer
        // log: the family's memtable takes the current one.
        let log = self.current_wal_number();
        let sv = SuperVersion {
            mem: self.new_memtable(log),
            imm: Vec::new(),
            version: st.versions.current_cf(id).expect("just added"),
            merger: Merger::new(opts.merge_operator.clone(), opts.statistics.clone()),
            tables: FamilyTables::of(&opts),
            _released: self.purge.release_flag(),
        };
        let cfd = Arc::new(ColumnFamilyData::new(id, name, opts, sv));
        st.families.insert(id, FamilyState::new(cfd.clone()));
        self.publish_family_map(&st);
        crate::info_log!(
            self.info_log,
            Info,
            "Created column family {name:?} (id {id})"
        );
        Ok(cfd)
    }

    /// Drops family `cfd` (see `Db::drop_column_family`).
    pub(crate) fn drop_column_family(&self, cfd: &Arc<ColumnFamilyData>) -> Result<()> {
        if cfd.id == DEFAULT_FAMILY_ID {
            return Err(Error::InvalidArgument(
                "Can't drop default column family".into(),
            ));
        }
        cfd.check_live()?;
        let mut st = self.state.lock();
        if !st.families.contains_key(&cfd.id) {
            return Err(Error::InvalidArgument(format!(
                "column family {:?} (id {}) has been dropped",
                cfd.name, cfd.id
            )));
        }
        // No job is picked for it from now on; wait for those running.
        cfd.dropped.store(true, Ordering::Release);
        while st.families.get(&cfd.id).is_some_and(|f| f.jobs_running > 0) {
            self.bg_cv.wait(&mut st);
        }
        let edit = crate::version::VersionEdit {
            column_family: cfd.id,
            column_family_drop: true,
            ..Default::default()
        };
        if let Err(e) = self.log_and_apply(&mut st, edit) {
            cfd.dropped.store(false, Ordering::Release);
            return Err(e);
        }
        st.families.remove(&cfd.id);
        self.publish_family_map(&st);
        self.recalculate_write_stall(&mut st);
        crate::info_log!(
            self.info_log,
            Info,
            "Dropped column family {:?} (id {})",
            cfd.name,
            cfd.id
        );
        let obsolete = self.collect_obsolete_files(&mut st);
        drop(st);
        self.delete_files(obsolete);
        Ok(())
    }

    /// Publishes the live families for lock-free lookups. Under the DB mutex.
    pub(crate) fn publish_family_map(&self, st: &super::DbState) {
        let map: FamilyMap = st
            .families
            .iter()
            .map(|(&id, f)| (id, f.cfd.clone()))
            .collect();
        self.families.store(Arc::new(map));
    }

    /// The number of the WAL being written (0 before the first).
    pub(crate) fn current_wal_number(&self) -> u64 {
        self.wal
            .lock()
            .writer
            .as_ref()
            .map_or(0, crate::wal::LogWriter::number)
    }

    /// The family of `cfd`, checked live and of this database.
    pub(crate) fn live_family(&self, cfd: &ColumnFamilyData) -> Result<()> {
        cfd.check_live()?;
        match self.families.load().get(&cfd.id) {
            Some(c) if std::ptr::eq(Arc::as_ptr(c), cfd) => Ok(()),
            _ => Err(Error::InvalidArgument(format!(
                "column family {:?} (id {}) is not a family of this database",
                cfd.name, cfd.id
            ))),
        }
    }
}
