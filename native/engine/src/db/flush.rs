//! Flushes: immutable memtables become one L0 table each time.
//!
//! One flush runs at a time, taking every immutable memtable not yet
//! flushed. RocksDB runs up to `max_background_flushes` and installs their
//! results oldest first; that was tried here and reverted: on a machine
//! with few cores parallel flushes share the CPU the oldest one needs, and
//! a newer flush that finishes first still holds its memtables until the
//! older one is in, so writers hit the memtable limit more often
//! (docs/results/design-measurements.md).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::compaction::OutputWriter;
use super::family::ColumnFamilyData;
use super::stats::LevelStats;
use super::{DbInner, DbState, FlushOptions};
use crate::error::{Error, Result};
use crate::info_log;
use crate::iterator::{InternalIterator, MergingIterator};
use crate::memtable::{MemTable, MemTableIter};
use crate::range_del::FragmentedRangeTombstoneList;
use crate::version::VersionEdit;
use crate::write_controller::flush_would_stall;

use super::compaction_iter::{Below, CompactionIter};

/// The reason of the error a flush abandoned at close returns.
const FLUSH_ABANDONED: &str = "flush abandoned by close: its writes are in the WAL";

impl DbInner {
    /// Whether a running flush of `mems` may stop and leave them unflushed,
    /// as RocksDB's close leaves memtables whose writes are in the WAL: the
    /// database is closing (so no caller waits for the flush), every write
    /// in `mems` went to the WAL, and nothing failed that could make the WAL
    /// untrustworthy (a latched error, which `resume()` answers with this
    /// very flush, or a background WAL sync that failed and may have dropped
    /// pages). The next open replays those WALs. Without this, `close()`
    /// waited for the whole flush, however slow its rate limiter (regression
    /// test `regression_close_abandons_a_flush_whose_writes_are_in_the_wal`).
    /// A memtable holding writes made without the WAL is always flushed.
    fn flush_abandonable(&self, mems: &[Arc<MemTable>]) -> bool {
        self.lifecycle.is_shutting_down()
            && !self.lifecycle.has_bg_error.load(Ordering::Acquire)
            && !self.wal.syncer.failed()
            && mems.iter().all(|m| !m.has_unlogged_writes())
    }

    /// The family to flush next: of those due, the one holding the oldest
    /// log (so that old WALs go first, RocksDB's flush order).
    fn pick_family_to_flush(st: &DbState) -> Option<u32> {
        st.families
            .iter()
            .filter(|(_, f)| f.flush_needed() && !f.cfd.is_dropped())
            .min_by_key(|(_, f)| f.imm.first().map_or(u64::MAX, |m| m.log_number()))
            .map(|(&id, _)| id)
    }

    pub(crate) fn background_flush(self: Arc<Self>) {
        let mut st = self.state.lock();
        st.flush_scheduled = false;
        let cf = Self::pick_family_to_flush(&st);
        if self.lifecycle.is_shutting_down()
            || (st.bg_error.is_some() && !st.resuming)
            || st.paused > 0
            || st.flush_running
            || cf.is_none()
        {
            self.bg_cv.notify_all();
            return;
        }
        let cf = cf.expect("checked above");
        // Flush every idle immutable memtable, oldest first, into one table.
        let f = st.families.get_mut(&cf).expect("picked");
        let mems: Vec<Arc<MemTable>> = f.imm[f.imm_flushing..].to_vec();
        f.imm_flushing = f.imm.len();
        f.jobs_running += 1;
        let cfd = f.cfd.clone();
        st.flush_running = true;
        let number = st.versions.new_file_number();
        st.pending_outputs.insert(number);
        let snapshots = self.snapshots.list();
        // Every older entry of the flushed keys is in this version's tables:
        // the flushes before this one are installed (one runs at a time).
        let below = Below::Levels(st.versions.current_cf(cf).expect("live family"), 0);
        drop(st);

        let started = std::time::Instant::now();
        let result = self.write_memtables_to_l0(&cfd, &mems, number, &snapshots, below);

        let mut st = self.state.lock();
        let mut flushed = (0u64, 0u64, 0u64);
        let outcome = match result {
            Ok((meta, mut stats)) => {
                stats.micros = started.elapsed().as_micros() as u64;
                flushed = (stats.keys_in, stats.keys_dropped, stats.written);
                self.stats
                    .tick(crate::statistics::Ticker::FlushWriteBytes, stats.written);
                self.stats
                    .hist(crate::statistics::Histogram::FlushTime, stats.micros);
                if let Some(f) = st.families.get_mut(&cf) {
                    f.stats.levels[0].add(&stats);
                    f.stats.flushed += stats.written;
                }
                // The DB mutex is released while the manifest is written;
                // pending_outputs and flush_running stay until it is in.
                self.install_flush(&mut st, cf, &mems, meta)
            }
            Err(e) => {
                // The table never made it into a version: remove what was written.
                let _ = self.fs.remove_file(
                    &self
                        .path
                        .join(crate::version::filename::table_file_name(number)),
                );
                Err(e)
            }
        };
        st.pending_outputs.remove(&number);
        st.flush_running = false;
        if let Some(f) = st.families.get_mut(&cf) {
            f.jobs_running -= 1;
        }
        match outcome {
            Ok(()) => {
                info_log!(
                    self.info_log,
                    Info,
                    "Flush finished: {} memtables, {} entries in ({} dropped), {} bytes written to table #{number} in {} ms; {} (column family {:?})",
                    mems.len(),
                    flushed.0,
                    flushed.1,
                    flushed.2,
                    started.elapsed().as_millis(),
                    st.versions
                        .current_cf(cf)
                        .map_or(String::new(), |v| v.level_summary()),
                    cfd.name
                );
            }
            Err(Error::ShutdownInProgress(reason)) if reason == FLUSH_ABANDONED => {
                if let Some(f) = st.families.get_mut(&cf) {
                    f.imm_flushing = 0;
                }
                info_log!(
                    self.info_log,
                    Info,
                    "Flush of table #{number} abandoned at close: {} memtables left to WAL replay",
                    mems.len()
                );
            }
            Err(_) if cfd.is_dropped() => {
                // The family was dropped while it flushed: nothing to keep.
            }
            Err(e) => {
                // A failed manifest write may still have reached the disk, so
                // the table is kept; the next open deletes it if unreferenced.
                if let Some(f) = st.families.get_mut(&cf) {
                    f.imm_flushing = 0;
                }
                info_log!(self.info_log, Error, "Flush of table #{number} failed: {e}");
                self.set_bg_error(&mut st, &e);
            }
        }
        self.maybe_schedule_work(&mut st);
        self.bg_cv.notify_all();
        let obsolete = self.collect_obsolete_files(&mut st);
        drop(st);
        self.delete_files(obsolete);
    }

    /// Writes `mems` (oldest first) as one L0 table numbered `number`;
    /// `below` says where older entries of their keys may be.
    /// Returns `None` when nothing survived.
    pub(crate) fn write_memtables_to_l0(
        &self,
        cfd: &ColumnFamilyData,
        mems: &[Arc<MemTable>],
        number: u64,
        snapshots: &[u64],
        below: Below,
    ) -> Result<(Option<crate::version::FileMetaData>, LevelStats)> {
        let children: Vec<Box<dyn InternalIterator>> = mems
            .iter()
            .rev()
            .map(|m| Box::new(MemTableIter::new(m.clone())) as Box<dyn InternalIterator>)
            .collect();
        let tombstones: Vec<_> = mems.iter().flat_map(|m| m.range_tombstones()).collect();
        let frag = FragmentedRangeTombstoneList::from_tombstones(&tombstones);
        let mut it = CompactionIter::new(
            MergingIterator::new(children),
            snapshots.to_vec(),
            false,
            frag,
            cfd.merger.clone(),
            below,
        );
        info_log!(
            self.info_log,
            Info,
            "Flush started: table #{number}, {} memtables, {} entries",
            mems.len(),
            mems.iter().map(|m| m.num_entries()).sum::<u64>()
        );
        let mut out = OutputWriter::new(
            self,
            &cfd.opts,
            true,
            u64::MAX,
            tombstones,
            Some(number),
            crate::options::OutputTarget::Flush,
        );
        out.set_compression(
            cfd.opts
                .compression_for(crate::options::OutputTarget::Flush),
        );
        let mut n = 0u64;
        while it.advance() {
            out.add(it.key(), it.value())?;
            n += 1;
            if n.is_multiple_of(256) && self.flush_abandonable(mems) {
                return Err(Error::ShutdownInProgress(FLUSH_ABANDONED.into()));
            }
        }
        it.input().status()?;
        let mut files = out.finish()?;
        self.sync_db_dir()?;
        let file = files.pop();
        let stats = LevelStats {
            count: 1,
            written: file.as_ref().map_or(0, |f| f.file_size),
            keys_in: it.entries_in,
            keys_dropped: it.drops.total(),
            ..LevelStats::default()
        };
        Ok((file, stats))
    }

    /// Records a finished flush in the manifest and publishes it.
    fn install_flush(
        self: &Arc<Self>,
        st: &mut parking_lot::MutexGuard<'_, DbState>,
        cf: u32,
        mems: &[Arc<MemTable>],
        meta: Option<crate::version::FileMetaData>,
    ) -> Result<()> {
        let mut edit = VersionEdit {
            column_family: cf,
            ..VersionEdit::default()
        };
        if let Some(m) = meta {
            edit.add_file(0, Arc::new(m));
        }
        // The family's WALs older than its oldest memtable left unflushed
        // hold nothing of it any more.
        let oldest_left = |st: &DbState| {
            let Some(f) = st.families.get(&cf) else {
                return 0;
            };
            f.imm.get(mems.len()).map_or_else(
                || f.cfd.super_version.load().mem.log_number(),
                |m| m.log_number(),
            )
        };
        let log_number = loop {
            let log_number = oldest_left(st);
            // Recovery starts at the log this edit names: its first record and
            // directory entry, and the tails of the logs before it, must be
            // durable first (their switch task may still be queued). Waited
            // for without the DB mutex; a switch meanwhile may change the
            // log to name, so look again.
            let mut waited = Ok(());
            parking_lot::MutexGuard::unlocked(st, || {
                waited = self.wal.wait_start_durable(log_number);
            });
            waited?;
            if log_number == oldest_left(st) {
                break log_number;
            }
        };
        if st.families.get(&cf).is_none_or(|f| f.cfd.is_dropped()) {
            return Err(Error::InvalidArgument(
                "the column family was dropped while it flushed".into(),
            ));
        }
        edit.log_number = Some(log_number);
        st.versions
            .set_last_sequence(self.last_sequence.load(Ordering::Acquire));
        self.log_and_apply(st, edit)?;
        let f = st
            .families
            .get_mut(&cf)
            .expect("a drop waits for running jobs");
        f.imm.drain(..mems.len());
        f.imm_flushing = 0;
        if f.imm.is_empty() {
            f.flush_requested = false;
        }
        let min_log = st.versions.log_number();
        st.imm_wal_bytes.retain(|w| w.0 >= min_log);
        self.wal.imm_bytes.store(
            st.imm_wal_bytes.iter().map(|w| w.1).sum(),
            Ordering::Relaxed,
        );
        self.refresh_super_version(st, cf);
        Ok(())
    }

    /// An explicit flush of the default family: switch the memtable and
    /// flush every immutable one.
    pub(crate) fn flush(self: &Arc<Self>, fo: &FlushOptions) -> Result<()> {
        let cfd = self.default_cf.clone();
        self.flush_cf(fo, &cfd)
    }

    /// An explicit flush of family `cfd`.
    pub(crate) fn flush_cf(
        self: &Arc<Self>,
        fo: &FlushOptions,
        cfd: &ColumnFamilyData,
    ) -> Result<()> {
        self.live_family(cfd)?;
        let log = cfd.super_version.load().mem.log_number();
        self.flush_writes_up_to(fo, cfd.id, log)
    }

    /// [`Self::flush`] for the writes acknowledged before the memtable of
    /// log `log` stopped being the active one (the one active when the call
    /// began). When another flush switched that memtable while this one
    /// waited, this one does not switch again: it waits for the immutable
    /// memtables holding its writes. Otherwise importer threads flushing
    /// at a fixed row count queue behind one stall and, released together,
    /// switch a memtable each (the later ones nearly empty), until every
    /// memtable is immutable and writes stop. Pinned by
    /// `regression_a_flush_whose_memtable_was_switched_meanwhile_does_not_switch_again`.
    pub(crate) fn flush_writes_up_to(
        self: &Arc<Self>,
        fo: &FlushOptions,
        cf: u32,
        log: u64,
    ) -> Result<()> {
        self.lifecycle.check_open()?;
        self.check_bg_error()?;
        // One explicit flush at a time from the stall check to the switch:
        // the check asks whether one more immutable memtable would stall
        // writes, which holds only if no other flush switches in between.
        // Without this, flushes waiting on the same stall all pass the
        // check when it clears and each switches a memtable (the last ones
        // nearly empty), until every memtable is immutable and writes stop
        // (`concurrent_explicit_flushes_waiting_on_a_stall_all_finish`).
        let one_at_a_time = self.explicit_flush.lock();
        if !fo.allow_write_stall && !self.wait_until_flush_would_not_stall_writes(cf, log)? {
            // Waiting took so long that the memtable this flush was asked
            // for has been switched and flushed by background work.
            return Ok(());
        }
        self.switch_memtable_in_queue(cf, log)?;
        drop(one_at_a_time);
        let mut st = self.state.lock();
        // The newest immutable memtable holding writes from before the call;
        // none left: they are flushed already.
        let Some(f) = st.families.get_mut(&cf) else {
            return Err(Error::InvalidArgument(
                "the column family was dropped".into(),
            ));
        };
        let Some(target) = f.imm.iter().rev().find(|m| m.log_number() <= log).cloned() else {
            return Ok(());
        };
        f.flush_requested = true;
        self.maybe_schedule_work(&mut st);
        if !fo.wait {
            return Ok(());
        }
        while st
            .families
            .get(&cf)
            .is_some_and(|f| f.imm.iter().any(|m| Arc::ptr_eq(m, &target)))
        {
            if let Some(e) = &st.bg_error {
                return Err(e.clone());
            }
            if self.lifecycle.is_shutting_down() {
                return Err(Error::ShutdownInProgress("the database is closing".into()));
            }
            if st.paused > 0 {
                return Err(Error::Incomplete(
                    "flush cannot finish while background work is paused".into(),
                ));
            }
            self.bg_cv.wait(&mut st);
        }
        drop(st);
        // The flush job may still be deleting the WALs it made obsolete.
        self.purge_obsolete_files();
        Ok(())
    }

    /// Before an explicit flush that does not allow a write stall: waits
    /// until switching the memtable (one more immutable memtable, later one
    /// more L0 file) would leave writes normal
    /// ([`crate::write_controller::flush_would_stall`], RocksDB's
    /// `WaitUntilFlushWouldNotStallWrites`). Writers go on meanwhile, at
    /// whatever rate the current condition allows. Returns false when the
    /// memtable that was active on entry has been flushed during the wait
    /// (the flush has nothing left to do for the caller): `orig` is its log.
    ///
    /// A flush whose memtable another flush switched meanwhile waits here
    /// too, though it will not switch: without that wait an importer's
    /// flushing writers return to writing while the compaction debt is
    /// over the soft limit, and their writes are delayed instead, which
    /// shows in the put tail (docs/results/design-measurements.md).
    fn wait_until_flush_would_not_stall_writes(
        self: &Arc<Self>,
        cf: u32,
        orig: u64,
    ) -> Result<bool> {
        let mut st = self.state.lock();
        let mut waited = false;
        loop {
            if let Some(e) = &st.bg_error {
                return Err(e.clone());
            }
            if self.lifecycle.is_shutting_down() {
                return Err(Error::ShutdownInProgress("the database is closing".into()));
            }
            let Some(f) = st.families.get(&cf) else {
                return Ok(false);
            };
            let sv = f.cfd.super_version.load();
            let earliest = f.imm.first().map_or(sv.mem.log_number(), |m| {
                m.log_number().min(sv.mem.log_number())
            });
            if earliest > orig {
                return Ok(false);
            }
            let trigger = i64::from(f.cfd.opts.level0_file_num_compaction_trigger);
            // The family's own condition, with its own options (RocksDB's
            // `WaitUntilFlushWouldNotStallWrites`): without automatic
            // compactions its L0 and byte conditions do not count, as no
            // compaction would ever clear them.
            let Some((inputs, _)) = self.family_stall_inputs(&st, cf) else {
                return Ok(false);
            };
            // Paused background work would never clear the condition, and
            // neither would idle background work that finds nothing to do
            // (a compaction that keeps failing without latching an error,
            // a family whose picks are all blocked): the flush goes ahead
            // rather than wait forever
            // (`regression_flush_with_auto_compactions_off_does_not_wait_on_l0_stall`).
            let idle = !st.flush_scheduled
                && !st.flush_running
                && st.compactions_scheduled == 0
                && st.compactions_running == 0
                && !st.families.values().any(|f| f.flush_needed())
                && self.pick_family_to_compact(&st).is_none();
            if st.paused > 0
                || idle
                || !flush_would_stall(&inputs, &st.stall.limits, sv.mem.is_empty(), trigger)
            {
                return Ok(true);
            }
            if !waited {
                waited = true;
                info_log!(
                    self.info_log,
                    Info,
                    "Flush waiting until it would not stall writes: {} immutable memtables, {} L0 files, {} pending compaction bytes",
                    inputs.unflushed_memtables,
                    inputs.l0_files,
                    inputs.pending_compaction_bytes
                );
            }
            self.maybe_schedule_work(&mut st);
            // Background jobs notify bg_cv when they install a version; the
            // timeout only bounds a wake-up missed by some other path.
            self.bg_cv
                .wait_for(&mut st, std::time::Duration::from_millis(100));
        }
    }

    pub(crate) fn sync_db_dir(&self) -> Result<()> {
        self.fs.sync_dir(&self.path)
    }
}
