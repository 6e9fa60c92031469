//! Compactions: automatic (picked by [`crate::compaction::pick_compaction`])
//! and manual (`compact_range`), plus [`OutputWriter`], which writes the
//! output tables of flushes and compactions.
//!
//! Output files are split only where the user key changes, so every version
//! of a key lands in one file. Range tombstones are clipped to each file's
//! share of the key space, `[first user key, next file's first user key)`
//! (unbounded at the outer ends), and widen the file's key range: the
//! largest key of a file whose tombstone reaches past its last point key is
//! the sentinel `(end, MAX_SEQUENCE, RangeDeletion)`, which sorts before
//! every real entry of `end`, so the next file may start at `end`.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::compaction_iter::{Below, CompactionIter, keep_range_tombstone};
use super::family::ColumnFamilyData;
use super::level_iter::{LevelFiles, LevelIter};
use super::stats::LevelStats;
use super::{BottommostLevelCompaction, CompactRangeOptions};
use super::{DbInner, DbState};
use crate::compaction::fifo::{FifoPickerOptions, pick_fifo};
use crate::compaction::universal::{UniversalPickerOptions, pick_universal, stall_run_count};
use crate::compaction::{
    CompactionPlan, CompactionReason, ManualPick, pick_compaction, subcompaction, try_pick_manual,
    try_pick_manual_whole,
};
use crate::error::{Error, Result};
use crate::fs::{PeriodicSyncFile, WriteFileOptions};
use crate::info_log;
use crate::iterator::{InternalIterator, MergingIterator};
use crate::key::{self, MAX_SEQUENCE, ValueKind, compare_internal, make_internal_key};
use crate::memtable::RangeTombstone;
use crate::options::{CompactionStyle, CompressionOptions, CompressionType, OutputTarget};
use crate::range_del::{self, FragmentedRangeTombstoneList};
use crate::rate_limiter::RateLimitedFile;
use crate::statistics::{Histogram, Ticker};
use crate::table::{TableBuildOptions, TableBuilder, TableProperties, TableReadOptions};
use crate::version::{FileMetaData, VersionEdit, filename};

/// Writes the output tables of one job. See the module docs.
pub(crate) struct OutputWriter<'a> {
    db: &'a DbInner,
    /// The written family's options: its table options build the tables.
    family: &'a crate::options::Options,
    /// Flush output (high IO priority) rather than compaction output (low).
    flush: bool,
    max_file_size: u64,
    /// Sorted by begin key.
    tombstones: Vec<RangeTombstone>,
    /// `tombstones[..activated]` begin before the current file's upper
    /// bound; of those, `active` (indices, ascending) are the ones that may
    /// reach into the current file, the others end at or before its lower
    /// bound. Bounds only grow, so each tombstone enters and leaves once:
    /// clipping costs `O(N)` plus what is written, not `O(N)` per file.
    activated: usize,
    active: Vec<usize>,
    preset_number: Option<u64>,
    current: Option<(TableBuilder, u64)>,
    /// Lower clip bound of the current file's tombstones (None = unbounded).
    lower: Option<Vec<u8>>,
    /// Upper clip bound of the last file's tombstones: the end of the
    /// writer's key range ([`Self::set_bounds`]; None = unbounded).
    end: Option<Vec<u8>>,
    last_user_key: Vec<u8>,
    outputs: Vec<FileMetaData>,
    /// Every file number this writer created (for cleanup on failure).
    pub(crate) created: Vec<u64>,
    /// Bytes written to output files.
    pub(crate) bytes_written: u64,
    /// Codec and codec parameters of the output tables
    /// ([`crate::options::Options::compression_for`]).
    compression: (CompressionType, CompressionOptions),
}

impl<'a> OutputWriter<'a> {
    /// `family`: the options of the family written (its table options
    /// build the tables); `tombstones`: the range tombstones to write;
    /// `preset_number`: the number of the (single) output of a flush;
    /// `target`: what the tables are for, which chooses their codec.
    pub(crate) fn new(
        db: &'a DbInner,
        family: &'a crate::options::Options,
        flush: bool,
        max_file_size: u64,
        mut tombstones: Vec<RangeTombstone>,
        preset_number: Option<u64>,
        target: OutputTarget,
    ) -> Self {
        // An empty range (`begin >= end`, which a batch may hold: RocksDB
        // accepts it as a no-op) covers nothing. Kept, it would make
        // `finish` write a table with no keys and an empty key range.
        tombstones.retain(|t| t.begin < t.end);
        let mut cmps = 0u64;
        tombstones.sort_by(|a, b| {
            cmps += 1;
            a.begin.cmp(&b.begin).then(b.seq.cmp(&a.seq))
        });
        range_del::count_key_comparisons(cmps);
        OutputWriter {
            db,
            family,
            flush,
            max_file_size,
            tombstones,
            activated: 0,
            active: Vec::new(),
            preset_number,
            current: None,
            lower: None,
            end: None,
            last_user_key: Vec::new(),
            outputs: Vec::new(),
            created: Vec::new(),
            bytes_written: 0,
            compression: family.compression_for(target),
        }
    }

    /// Writes blocks with `c`: the codec the writing family's options
    /// choose for this output ([`crate::options::Options::compression_for`]).
    pub(crate) fn set_compression(&mut self, c: (CompressionType, CompressionOptions)) {
        self.compression = c;
    }

    /// Confines the writer to user keys `[lo, hi)` (`None`: unbounded), a
    /// subcompaction's range: the entries added must lie in it, and the
    /// tombstones are clipped to it, so the files written stay inside it.
    /// Call before the first [`Self::add`].
    pub(crate) fn set_bounds(&mut self, lo: Option<&[u8]>, hi: Option<&[u8]>) {
        debug_assert!(self.current.is_none() && self.outputs.is_empty());
        // Tombstones with no part in the range would make `finish` write a
        // file for nothing.
        self.tombstones.retain(|t| {
            lo.is_none_or(|lo| t.end.as_slice() > lo) && hi.is_none_or(|hi| t.begin.as_slice() < hi)
        });
        self.lower = lo.map(<[u8]>::to_vec);
        self.end = hi.map(<[u8]>::to_vec);
    }

    fn next_number(&mut self) -> u64 {
        if let Some(n) = self.preset_number.take() {
            return n;
        }
        let mut st = self.db.state.lock();
        let n = st.versions.new_file_number();
        st.pending_outputs.insert(n);
        n
    }

    fn open(&mut self) -> Result<()> {
        let number = self.next_number();
        self.created.push(number);
        let path = self.db.path.join(filename::table_file_name(number));
        let mut file = self.db.fs.new_writable(
            &path,
            WriteFileOptions {
                use_fsync: self.db.opts.use_fsync,
            },
        )?;
        if self.db.opts.bytes_per_sync > 0 {
            file = Box::new(PeriodicSyncFile::new(file, self.db.opts.bytes_per_sync));
        }
        if let Some(rl) = &self.db.opts.rate_limiter {
            // Each write's priority follows the write stall of the moment.
            let (flush, held) = (self.flush, Arc::clone(&self.db.write_signals.held_cause));
            let base = super::stall::output_io_priority(flush, 0);
            file = Box::new(
                RateLimitedFile::new(file, rl.clone(), base)
                    .with_priority_fn(Box::new(move || {
                        super::stall::output_io_priority(flush, held.load(Ordering::Acquire))
                    }))
                    .with_statistics(self.db.stats.statistics.clone()),
            );
        }
        // The family's table options: its block size, restart interval,
        // filter and prefix extractor (each family its own table factory).
        let mut opts = TableBuildOptions::from_options(self.family, path.display().to_string());
        // The table's binding to this database and this manifest entry
        // (checked whenever it is opened: module docs of `table_cache`).
        opts.db_id = Some(self.db.db_id);
        opts.file_number = Some(number);
        (opts.compression, opts.compression_opts) = self.compression;
        self.current = Some((TableBuilder::new(file, opts), number));
        Ok(())
    }

    /// Adds one entry; keys arrive in internal-key order.
    pub(crate) fn add(&mut self, ikey: &[u8], value: &[u8]) -> Result<()> {
        let user = key::user_key(ikey);
        let split = match &self.current {
            Some((b, _)) => {
                b.estimated_file_size() >= self.max_file_size
                    && user != self.last_user_key.as_slice()
            }
            None => false,
        };
        if split {
            self.finish_current(Some(user.to_vec()))?;
            self.lower = Some(user.to_vec());
        }
        if self.current.is_none() {
            self.open()?;
        }
        let (b, _) = self.current.as_mut().expect("opened above");
        b.add(ikey, value)?;
        if self.last_user_key.as_slice() != user {
            self.last_user_key.clear();
            self.last_user_key.extend_from_slice(user);
        }
        Ok(())
    }

    /// Tombstones clipped to `[self.lower, upper)`. Called once per file,
    /// with the bounds of successive files (see `active`).
    fn clipped(&mut self, upper: Option<&[u8]>) -> Vec<RangeTombstone> {
        let mut cmps = 0u64;
        while let Some(t) = self.tombstones.get(self.activated) {
            cmps += 1;
            if upper.is_some_and(|u| u <= t.begin.as_slice()) {
                break;
            }
            self.active.push(self.activated);
            self.activated += 1;
        }
        if let Some(l) = &self.lower {
            let ts = &self.tombstones;
            self.active.retain(|&i| {
                cmps += 1;
                ts[i].end.as_slice() > l.as_slice()
            });
        }
        let mut out = Vec::with_capacity(self.active.len());
        for &i in &self.active {
            let t = &self.tombstones[i];
            cmps += 2;
            let begin = match &self.lower {
                Some(l) if l.as_slice() > t.begin.as_slice() => l.clone(),
                _ => t.begin.clone(),
            };
            let end = match upper {
                Some(u) if u < t.end.as_slice() => u.to_vec(),
                _ => t.end.clone(),
            };
            if begin < end {
                out.push(RangeTombstone {
                    begin,
                    end,
                    seq: t.seq,
                });
            }
        }
        range_del::count_key_comparisons(cmps);
        out
    }

    fn finish_current(&mut self, upper: Option<Vec<u8>>) -> Result<()> {
        let Some((mut b, number)) = self.current.take() else {
            return Ok(());
        };
        let tombs = self.clipped(upper.as_deref());
        for t in &tombs {
            b.add_range_tombstone(t);
        }
        let props = b.finish()?;
        self.bytes_written += props.file_size;
        self.outputs.push(file_meta(number, &props, &tombs));
        Ok(())
    }

    /// Finishes the last file and returns the outputs.
    pub(crate) fn finish(mut self) -> Result<Vec<FileMetaData>> {
        if self.current.is_none() && self.outputs.is_empty() && !self.tombstones.is_empty() {
            // Only tombstones survived: they still need a file.
            self.open()?;
        }
        let end = self.end.clone();
        self.finish_current(end)?;
        Ok(std::mem::take(&mut self.outputs))
    }
}

/// A subcompaction's user keys `[lo, hi)` (`None`: unbounded).
type KeyRange<'a> = (Option<&'a [u8]>, Option<&'a [u8]>);

/// What every subcompaction of one job shares.
struct SubcompactionJob<'a> {
    /// The family compacted: its options and table settings.
    cfd: &'a ColumnFamilyData,
    plan: &'a CompactionPlan,
    snapshots: &'a [u64],
    bottommost: bool,
    /// Every range tombstone of the inputs (for dropping covered entries).
    tombstones: &'a [RangeTombstone],
    /// The range tombstones to write (each writer keeps its range's share).
    kept: &'a [RangeTombstone],
    below: &'a Below,
    target: OutputTarget,
    compression: (CompressionType, CompressionOptions),
}

/// The end of one subcompaction: the files it created (also when it
/// failed, for cleanup) and its outputs.
struct SubcompactionResult {
    created: Vec<u64>,
    result: Result<SubcompactionDone>,
}

struct SubcompactionDone {
    outputs: Vec<FileMetaData>,
    keys_in: u64,
    drops: super::compaction_iter::DropCounts,
}

/// The entries of `inner` with user keys in `[lo, hi)` (`None`: unbounded),
/// forward only: what one subcompaction reads.
struct RangeIter<I: InternalIterator> {
    inner: I,
    lo: Option<Vec<u8>>,
    hi: Option<Vec<u8>>,
}

impl<I: InternalIterator> RangeIter<I> {
    fn new(inner: I, lo: Option<&[u8]>, hi: Option<&[u8]>) -> Self {
        RangeIter {
            inner,
            lo: lo.map(|k| {
                let mut seek = Vec::with_capacity(k.len() + key::TRAILER_LEN);
                key::append_internal_key(&mut seek, k, MAX_SEQUENCE, ValueKind::SEEK);
                seek
            }),
            hi: hi.map(<[u8]>::to_vec),
        }
    }
}

impl<I: InternalIterator> InternalIterator for RangeIter<I> {
    fn valid(&self) -> bool {
        self.inner.valid()
            && self
                .hi
                .as_deref()
                .is_none_or(|hi| key::user_key(self.inner.key()) < hi)
    }
    fn seek_to_first(&mut self) {
        match &self.lo {
            Some(lo) => self.inner.seek(lo),
            None => self.inner.seek_to_first(),
        }
    }
    fn seek_to_last(&mut self) {
        unreachable!("a compaction reads forward only")
    }
    fn seek(&mut self, target: &[u8]) {
        match &self.lo {
            Some(lo) if compare_internal(target, lo).is_lt() => self.inner.seek(lo),
            _ => self.inner.seek(target),
        }
    }
    fn seek_for_prev(&mut self, _target: &[u8]) {
        unreachable!("a compaction reads forward only")
    }
    fn next(&mut self) {
        self.inner.next();
    }
    fn prev(&mut self) {
        unreachable!("a compaction reads forward only")
    }
    fn key(&self) -> &[u8] {
        self.inner.key()
    }
    fn value(&self) -> &[u8] {
        self.inner.value()
    }
    fn status(&self) -> Result<()> {
        self.inner.status()
    }
}

/// Metadata of a finished table; the key range includes its tombstones.
///
/// Every field the manifest records is a function of what the table holds
/// (its properties and range tombstones), so `table_cache::check_binding`
/// recomputes it from an opened table and compares: a table that is not
/// the one the manifest entry was made for differs.
pub(crate) fn file_meta(
    number: u64,
    p: &TableProperties,
    tombs: &[RangeTombstone],
) -> FileMetaData {
    let mut smallest = p.smallest_key.clone();
    let mut largest = p.largest_key.clone();
    for t in tombs {
        let s = make_internal_key(&t.begin, t.seq, ValueKind::RangeDeletion);
        if smallest.is_empty() || compare_internal(&s, &smallest).is_lt() {
            smallest = s;
        }
        let l = make_internal_key(&t.end, MAX_SEQUENCE, ValueKind::RangeDeletion);
        if largest.is_empty() || compare_internal(&l, &largest).is_gt() {
            largest = l;
        }
    }
    FileMetaData {
        number,
        file_size: p.file_size,
        smallest,
        largest,
        smallest_seq: p.smallest_seqno,
        largest_seq: p.largest_seqno,
        num_entries: p.num_entries + p.num_range_deletions,
        num_deletions: p.num_deletions + p.num_range_deletions,
        raw_key_size: p.raw_key_size,
        raw_value_size: p.raw_value_size,
        creation_time: p.creation_time,
        file_checksum: p.file_checksum,
        ..FileMetaData::default()
    }
}

/// The automatic compaction family `cfd`'s style picks from `version`
/// (module docs of [`crate::compaction`]), if one is due. The score ranks
/// the families' picks: the leveled picker's level score; for universal,
/// sorted runs over the run-count trigger; for FIFO, 1 (a drop frees
/// space, so it is never postponed for long).
pub(crate) fn pick_for_style(
    cfd: &ColumnFamilyData,
    version: &crate::version::Version,
    cursors: &[Vec<u8>],
) -> Option<CompactionPlan> {
    let o = &cfd.opts;
    match o.compaction_style {
        CompactionStyle::Level => {
            pick_compaction(version, &cfd.picker_opts, cursors, memtable_floor(cfd))
        }
        CompactionStyle::Universal => {
            let uopts = universal_picker_options(cfd);
            let plan = pick_universal(version, &uopts)?;
            let score = stall_run_count(version) as f64 / uopts.trigger.max(1) as f64;
            Some(plan.into_plan(&cfd.picker_opts, score))
        }
        CompactionStyle::Fifo => {
            let plan = pick_fifo(version, &fifo_picker_options(cfd), unix_now())?;
            let oldest = version.files(0).last().map(|f| f.number);
            Some(plan.into_plan(oldest, 1.0))
        }
    }
}

/// The oldest sequence number in the family's memtables (active and
/// immutable), `u64::MAX` when they hold nothing: an intra-L0 compaction
/// takes only L0 files entirely below it (`picker::pick_intra_l0`). Read
/// under the DB mutex while picking; a memtable switched or flushed
/// meanwhile only moves the floor up, and a write still to be inserted has
/// a number above every table's (ingestions and memtable switches wait for
/// the writes in flight).
fn memtable_floor(cfd: &ColumnFamilyData) -> u64 {
    let sv = cfd.super_version.load();
    std::iter::once(&sv.mem)
        .chain(sv.imm.iter())
        .filter_map(|m| m.first_sequence())
        .min()
        .unwrap_or(u64::MAX)
}

fn universal_picker_options(cfd: &ColumnFamilyData) -> UniversalPickerOptions {
    UniversalPickerOptions {
        num_levels: cfd.picker_opts.num_levels,
        trigger: cfd.picker_opts.level0_file_num_compaction_trigger,
        universal: cfd.opts.compaction_options_universal.clone(),
    }
}

pub(crate) fn fifo_picker_options(cfd: &ColumnFamilyData) -> FifoPickerOptions {
    FifoPickerOptions {
        fifo: cfd.opts.compaction_options_fifo.clone(),
        ttl: cfd.opts.ttl,
        trigger: cfd.picker_opts.level0_file_num_compaction_trigger,
        write_buffer_size: cfd.opts.write_buffer_size as u64,
        max_compaction_bytes: cfd.picker_opts.max_compaction_bytes,
    }
}

/// Seconds since the Unix epoch (the clock of table creation times).
pub(crate) fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// What a compaction did, for the info log and statistics.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct JobStats {
    pub(crate) bytes_read: u64,
    pub(crate) bytes_written: u64,
    pub(crate) files_out: usize,
    pub(crate) keys_in: u64,
    pub(crate) keys_dropped: u64,
}

/// Why an automatic compaction stopped early for a manual one: its family
/// had an exclusive `compactRange()` of the whole key space waiting
/// ([`ColumnFamilyData::cancel_automatic`]). Its outputs are deleted and
/// its inputs stay where they were, as after a failed compaction, but it
/// is no background error. The manual compaction that follows writes what
/// it would have written. Pinned by
/// `a_cancelled_automatic_compaction_leaves_its_inputs_and_no_error`.
pub(crate) const CANCELLED_FOR_MANUAL: &str =
    "cancelled: a compactRange() of the whole key space rewrites its inputs";

/// Holds a family's [`ColumnFamilyData::cancel_automatic`] up while it
/// lives.
struct CancelAutomatic<'a>(&'a ColumnFamilyData);

impl<'a> CancelAutomatic<'a> {
    fn new(cfd: &'a ColumnFamilyData) -> Self {
        cfd.cancel_automatic.fetch_add(1, Ordering::AcqRel);
        CancelAutomatic(cfd)
    }
}

impl Drop for CancelAutomatic<'_> {
    fn drop(&mut self) {
        self.0.cancel_automatic.fetch_sub(1, Ordering::AcqRel);
    }
}

impl DbInner {
    /// The automatic compaction to run next, and its family: of each live
    /// family's pick (its own picker options and cursors), the one with
    /// the highest score.
    pub(crate) fn pick_family_to_compact(&self, st: &DbState) -> Option<(u32, CompactionPlan)> {
        // An exclusive manual compaction runs alone (RocksDB's
        // `exclusive_manual_compaction`); an ingestion placing its files
        // picks none meanwhile.
        if st.disable_auto_compactions || st.exclusive_manual_compactions > 0 || st.ingestions > 0 {
            return None;
        }
        let mut best: Option<(u32, CompactionPlan)> = None;
        for (&cf, f) in &st.families {
            if f.cfd.is_dropped()
                || f.cfd.opts.disable_auto_compactions
                || f.cfd.cancel_automatic.load(Ordering::Acquire) > 0
            {
                continue;
            }
            let Some(current) = st.versions.current_cf(cf) else {
                continue;
            };
            if st
                .compaction_failed_on
                .as_ref()
                .is_some_and(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(&current)))
            {
                continue;
            }
            if let Some(plan) = pick_for_style(&f.cfd, &current, st.versions.compact_cursors_cf(cf))
                && best.as_ref().is_none_or(|b| plan.score > b.1.score)
            {
                best = Some((cf, plan));
            }
        }
        best
    }

    pub(crate) fn background_compaction(self: Arc<Self>) {
        let mut st = self.state.lock();
        st.compactions_scheduled -= 1;
        if self.lifecycle.is_shutting_down() || st.bg_error.is_some() || st.paused > 0 {
            self.bg_cv.notify_all();
            return;
        }
        let Some((cf, plan)) = self.pick_family_to_compact(&st) else {
            self.bg_cv.notify_all();
            return;
        };
        plan.mark_being_compacted(true);
        st.compactions_running += 1;
        if let Some(f) = st.families.get_mut(&cf) {
            f.jobs_running += 1;
        }
        // Another compaction on other files may run beside this one.
        self.maybe_schedule_work(&mut st);
        drop(st);
        // Failures are latched as the background error inside run_plan.
        let _ = self.run_plan(cf, plan, 0);
    }

    /// Runs a picked and marked plan of family `cf` to completion, then
    /// unmarks it. The caller counted it in the family's `jobs_running`.
    /// `max_subcompactions`: the bound on its subcompactions (0: the
    /// database's `max_subcompactions`).
    fn run_plan(
        self: &Arc<Self>,
        cf: u32,
        plan: CompactionPlan,
        max_subcompactions: u32,
    ) -> Result<()> {
        let snapshots = self.snapshots.list();
        let started = std::time::Instant::now();
        info_log!(
            self.info_log,
            Info,
            "Compaction started: L{} -> L{} ({:?}, score {:.2}), {} files ({}), {} bytes{}",
            plan.level,
            plan.output_level,
            plan.reason,
            plan.score,
            plan.all_inputs().count(),
            plan.input_levels()
                .iter()
                .map(|(l, f)| format!("L{l}: {}", f.len()))
                .collect::<Vec<_>>()
                .join(", "),
            plan.input_bytes(),
            if plan.is_trivial_move {
                ", trivial move"
            } else if plan.drop_inputs {
                ", dropping the files"
            } else {
                ""
            }
        );
        let cfd = self.state.lock().families.get(&cf).map(|f| f.cfd.clone());
        let result = match cfd {
            None => Err(Error::InvalidArgument(
                "the column family was dropped".into(),
            )),
            Some(_) if plan.is_trivial_move || plan.drop_inputs => {
                let mut st = self.state.lock();
                let mut edit = if plan.drop_inputs {
                    let mut e = VersionEdit::new();
                    plan.record_inputs(&mut e);
                    e
                } else {
                    plan.trivial_move_edit()
                };
                edit.column_family = cf;
                let r = self.log_and_apply(&mut st, edit);
                if r.is_ok() {
                    if plan.drop_inputs
                        && let Some(f) = st.families.get_mut(&cf)
                    {
                        // FIFO drops the oldest tables, whose sequence
                        // ranges lie below every table it keeps.
                        let through = plan.inputs.iter().map(|f| f.largest_seq).max();
                        f.fifo_dropped_through = f.fifo_dropped_through.max(through.unwrap_or(0));
                        f.fifo_dropped_files += plan.inputs.len() as u64;
                    }
                    self.refresh_super_version(&mut st, cf);
                }
                r.map(|_| JobStats::default())
            }
            Some(cfd) => self.compact_files(&cfd, &plan, &snapshots, max_subcompactions),
        };
        let mut st = self.state.lock();
        plan.mark_being_compacted(false);
        st.compactions_running -= 1;
        let dropped = match st.families.get_mut(&cf) {
            Some(f) => {
                f.jobs_running -= 1;
                f.cfd.is_dropped()
            }
            None => true,
        };
        if let Ok(s) = &result
            && !plan.is_trivial_move
            && !plan.drop_inputs
        {
            self.stats.tick(Ticker::CompactReadBytes, s.bytes_read);
            self.stats.tick(Ticker::CompactWriteBytes, s.bytes_written);
            self.stats.hist(
                Histogram::CompactionTime,
                started.elapsed().as_micros() as u64,
            );
            self.stats.hist(
                Histogram::NumFilesInSingleCompaction,
                plan.all_inputs().count() as u64,
            );
        }
        if let Ok(s) = &result
            && !plan.drop_inputs
        {
            let rnp1: u64 = plan.output_inputs.iter().map(|f| f.file_size).sum();
            let rn: u64 = plan.input_bytes() - rnp1;
            let ls = if plan.is_trivial_move {
                LevelStats {
                    moved: rn,
                    ..LevelStats::default()
                }
            } else {
                LevelStats {
                    count: 1,
                    micros: started.elapsed().as_micros() as u64,
                    read_rn: rn,
                    read_rnp1: rnp1,
                    written: s.bytes_written,
                    keys_in: s.keys_in,
                    keys_dropped: s.keys_dropped,
                    ..LevelStats::default()
                }
            };
            if let Some(l) = st
                .families
                .get_mut(&cf)
                .and_then(|f| f.stats.levels.get_mut(plan.output_level))
            {
                l.add(&ls);
            }
        }
        match &result {
            Ok(s) => info_log!(
                self.info_log,
                Info,
                "Compaction finished: L{} -> L{}, {} files written, read {} bytes, wrote {} bytes in {} ms; {}",
                plan.level,
                plan.output_level,
                s.files_out,
                s.bytes_read,
                s.bytes_written,
                started.elapsed().as_millis(),
                st.versions
                    .current_cf(cf)
                    .map_or(String::new(), |v| v.level_summary())
            ),
            Err(Error::ShutdownInProgress(_)) => {
                info_log!(self.info_log, Info, "Compaction abandoned: shutting down");
            }
            Err(Error::Incomplete(m)) if m == CANCELLED_FOR_MANUAL => {
                info_log!(self.info_log, Info, "Compaction abandoned: {m}");
            }
            Err(e) if e.is_corruption() && !self.opts.paranoid_checks => {
                // paranoid_checks off: a damaged input is reported and
                // counted, writes go on, and the compaction is not retried
                // until the version changes (or forever on the same files).
                info_log!(
                    self.info_log,
                    Error,
                    "Compaction failed (not latched: paranoid_checks is off): {e}"
                );
                st.bg_error_count += 1;
                st.last_bg_error = Some(e.clone());
                st.compaction_failed_on = st.versions.current_cf(cf).map(|v| Arc::downgrade(&v));
            }
            Err(e) if dropped => {
                info_log!(
                    self.info_log,
                    Info,
                    "Compaction of a dropped column family abandoned: {e}"
                );
            }
            Err(e) => {
                info_log!(self.info_log, Error, "Compaction failed: {e}");
                self.set_bg_error(&mut st, e);
            }
        }
        self.maybe_schedule_work(&mut st);
        self.bg_cv.notify_all();
        let obsolete = self.collect_obsolete_files(&mut st);
        drop(st);
        self.delete_files(obsolete);
        result.map(|_| ())
    }

    /// Merges the plan's inputs into new tables and installs them: as one
    /// job, or split into key ranges compacted side by side
    /// (subcompactions, module docs of [`crate::compaction::subcompaction`]),
    /// whose outputs are installed together in one version edit.
    /// `max_subcompactions`: the bound for this job (0: the database's).
    fn compact_files(
        self: &Arc<Self>,
        cfd: &ColumnFamilyData,
        plan: &CompactionPlan,
        snapshots: &[u64],
        max_subcompactions: u32,
    ) -> Result<JobStats> {
        // With `allow_ingest_behind`, files ingested behind may later lie
        // under any output: no output is the bottom of a key's history.
        let bottommost = plan.bottommost && !cfd.opts.allow_ingest_behind;
        let mut tombstones = Vec::new();
        for (level, files) in plan.input_levels() {
            for f in files.iter().filter(|f| f.num_deletions > 0) {
                tombstones.extend_from_slice(
                    self.table_cache
                        .reader(f, level, &cfd.tables)?
                        .range_tombstones(),
                );
            }
        }
        let kept: Vec<RangeTombstone> = tombstones
            .iter()
            .filter(|t| keep_range_tombstone(t, snapshots, bottommost))
            .cloned()
            .collect();
        // Older entries of the input keys outside the job are below the
        // output level; taken after the plan was picked, which is safe: while
        // the job runs, such entries only move further down.
        // An output to L0 (universal, FIFO) has older L0 tables beside it,
        // not below: every table counts then.
        let below_from = if plan.output_level == 0 {
            0
        } else {
            plan.output_level + 1
        };
        let dropped = || Error::InvalidArgument("the column family was dropped".into());
        let below = if bottommost {
            Below::Nothing
        } else {
            let v = self
                .state
                .lock()
                .versions
                .current_cf(cfd.id)
                .ok_or_else(dropped)?;
            Below::Levels(v, below_from)
        };
        // The codec follows the output level and the tree's shape when the
        // job starts (RocksDB decides it when picking, from the same shape).
        let target = {
            let v = self
                .state
                .lock()
                .versions
                .current_cf(cfd.id)
                .ok_or_else(dropped)?;
            // RocksDB's universal and FIFO pickers choose codecs with base
            // level 1.
            let base_level = cfd.base_level(&v);
            let num_non_empty_levels = (0..v.num_levels())
                .rev()
                .find(|&l| v.num_files(l) > 0)
                .map_or(0, |l| l + 1);
            OutputTarget::Compaction {
                level: plan.output_level,
                base_level,
                num_non_empty_levels,
            }
        };
        let (codec, codec_opts) = cfd.opts.compression_for(target);
        let compression = if plan.compress_output {
            (codec, codec_opts)
        } else {
            (CompressionType::None, codec_opts)
        };
        let max = if max_subcompactions > 0 {
            max_subcompactions
        } else {
            self.opts.max_subcompactions
        };
        let boundaries = self.subcompaction_boundaries(cfd, plan, max)?;
        let mut bounds: Vec<Option<Vec<u8>>> = Vec::with_capacity(boundaries.len() + 2);
        bounds.push(None);
        bounds.extend(boundaries.into_iter().map(Some));
        bounds.push(None);
        let job = SubcompactionJob {
            cfd,
            plan,
            snapshots,
            bottommost,
            tombstones: &tombstones,
            kept: &kept,
            below: &below,
            target,
            compression,
        };
        let ranges: Vec<KeyRange<'_>> = bounds
            .windows(2)
            .map(|w| (w[0].as_deref(), w[1].as_deref()))
            .collect();
        if ranges.len() > 1 {
            info_log!(
                self.info_log,
                Info,
                "Compaction L{} -> L{} runs as {} subcompactions",
                plan.level,
                plan.output_level,
                ranges.len()
            );
        }
        // The first range runs on this thread, the others each on a thread
        // of their own (RocksDB runs them beside the job's thread too, not
        // in the background pool). Every one runs to its end, so that each
        // reports the files it created, even when another failed.
        let results: Vec<SubcompactionResult> = if ranges.len() == 1 {
            vec![self.run_subcompaction(&job, None, None)]
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = ranges[1..]
                    .iter()
                    .map(|&(lo, hi)| {
                        let job = &job;
                        std::thread::Builder::new()
                            .name("talus-subcompact".into())
                            .spawn_scoped(s, move || self.run_subcompaction(job, lo, hi))
                    })
                    .collect();
                let (lo, hi) = ranges[0];
                let mut out = vec![self.run_subcompaction(&job, lo, hi)];
                for h in handles {
                    out.push(match h {
                        // A panic goes on as it would in a job of one range.
                        Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                        Err(e) => SubcompactionResult {
                            created: Vec::new(),
                            result: Err(Error::Aborted(format!(
                                "cannot start a subcompaction thread: {e}"
                            ))),
                        },
                    });
                }
                out
            })
        };
        let created: Vec<u64> = results.iter().flat_map(|r| r.created.clone()).collect();
        let mut outputs = Vec::new();
        let mut stats = JobStats {
            bytes_read: plan.input_bytes(),
            ..JobStats::default()
        };
        let mut drops = super::compaction_iter::DropCounts::default();
        let mut first_error = None;
        for r in results {
            match r.result {
                Ok(done) => {
                    outputs.extend(done.outputs);
                    stats.keys_in += done.keys_in;
                    drops += done.drops;
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        // Every output synced by its writer; the directory entries of all of
        // them are made durable before the one edit naming them is logged.
        let r = match first_error {
            Some(e) => Err(e),
            None => self.sync_db_dir(),
        };
        if let Err(e) = r {
            // No manifest entry names any output: they are deleted now (and
            // were they left by a crash, at the next open, as orphans).
            let mut st = self.state.lock();
            for n in &created {
                st.pending_outputs.remove(n);
            }
            drop(st);
            for n in &created {
                let _ = self
                    .fs
                    .remove_file(&self.path.join(filename::table_file_name(*n)));
            }
            return Err(e);
        }
        stats.files_out = outputs.len();
        stats.bytes_written = outputs.iter().map(|f| f.file_size).sum();
        stats.keys_dropped = drops.total();
        self.stats
            .tick(Ticker::CompactionKeyDropNewerEntry, drops.newer_entry);
        self.stats
            .tick(Ticker::CompactionKeyDropObsolete, drops.obsolete);
        self.stats
            .tick(Ticker::CompactionKeyDropRangeDel, drops.range_del);
        let mut edit = VersionEdit {
            column_family: cfd.id,
            ..VersionEdit::new()
        };
        plan.record_inputs(&mut edit);
        // Ranges are in key order and each range's files are, so the
        // outputs are added in key order.
        for f in outputs {
            edit.add_file(plan.output_level, Arc::new(f));
        }
        let mut st = self.state.lock();
        let r = self.log_and_apply(&mut st, edit);
        for n in &created {
            st.pending_outputs.remove(n);
        }
        r?;
        self.refresh_super_version(&mut st, cfd.id);
        Ok(stats)
    }

    /// The boundaries of `plan`'s subcompactions (none: one job), from
    /// anchors in the input tables' index blocks.
    fn subcompaction_boundaries(
        &self,
        cfd: &ColumnFamilyData,
        plan: &CompactionPlan,
        max_subcompactions: u32,
    ) -> Result<Vec<Vec<u8>>> {
        let universal = cfd.opts.compaction_style == CompactionStyle::Universal;
        if max_subcompactions <= 1 || !subcompaction::may_split(plan, universal) {
            return Ok(Vec::new());
        }
        let n = subcompaction::planned_subcompactions(
            max_subcompactions,
            plan.input_bytes(),
            plan.max_output_file_size,
        );
        if n <= 1 {
            return Ok(Vec::new());
        }
        // Enough anchors per file that ranges can be balanced to within a
        // fraction of one range, few enough that collecting them is cheap.
        let per_file = (n * 16).max(64);
        let mut anchors = Vec::new();
        for (level, files) in plan.input_levels() {
            for f in files {
                let t = self.table_cache.reader(f, level, &cfd.tables)?;
                anchors.extend(
                    t.approximate_key_anchors(per_file)?
                        .into_iter()
                        .map(|(user_key, bytes)| subcompaction::KeyAnchor { user_key, bytes }),
                );
            }
        }
        let (lo, hi) = plan.user_key_range();
        Ok(subcompaction::subcompaction_boundaries(anchors, n, lo, hi))
    }

    /// Compacts the inputs' entries with user keys in `[lo, hi)` (`None`:
    /// unbounded) into output files inside that range.
    fn run_subcompaction(
        &self,
        job: &SubcompactionJob<'_>,
        lo: Option<&[u8]>,
        hi: Option<&[u8]>,
    ) -> SubcompactionResult {
        let mut out = OutputWriter::new(
            self,
            &job.cfd.opts,
            false,
            job.plan.max_output_file_size,
            job.kept.to_vec(),
            None,
            job.target,
        );
        out.set_compression(job.compression);
        out.set_bounds(lo, hi);
        let result = self.subcompaction_entries(job, lo, hi, &mut out);
        let created = out.created.clone();
        let result = match result {
            Ok((keys_in, drops)) => out.finish().map(|outputs| SubcompactionDone {
                outputs,
                keys_in,
                drops,
            }),
            Err(e) => {
                drop(out);
                Err(e)
            }
        };
        SubcompactionResult { created, result }
    }

    fn subcompaction_entries(
        &self,
        job: &SubcompactionJob<'_>,
        lo: Option<&[u8]>,
        hi: Option<&[u8]>,
        out: &mut OutputWriter<'_>,
    ) -> Result<(u64, super::compaction_iter::DropCounts)> {
        // Compaction input: checked, kept out of the block cache, and charged
        // to the rate limiter when its mode covers reads.
        let tro = TableReadOptions {
            verify_checksums: true,
            fill_cache: false,
            rate_limited: true,
            no_io: false,
            perf_level: None,
            readahead_size: 0,
        };
        let mut children: Vec<Box<dyn InternalIterator>> = Vec::new();
        for (level, files) in job.plan.input_levels() {
            // Files wholly outside the range add nothing but seeks.
            let inside = |f: &&Arc<FileMetaData>| {
                lo.is_none_or(|lo| f.largest_user_key() >= lo)
                    && hi.is_none_or(|hi| f.smallest_user_key() < hi)
            };
            if level == 0 {
                for f in files.iter().filter(inside) {
                    children.push(Box::new(
                        self.table_cache.reader(f, 0, &job.cfd.tables)?.iter(tro),
                    ));
                }
            } else {
                let files: Vec<Arc<FileMetaData>> = files.iter().filter(inside).cloned().collect();
                if !files.is_empty() {
                    children.push(Box::new(LevelIter::new(
                        LevelFiles::Listed(files),
                        self.file_opener(level, tro, &job.cfd.tables),
                    )));
                }
            }
        }
        let frag = FragmentedRangeTombstoneList::from_tombstones(job.tombstones);
        // Sequence numbers zeroed at the bottom (`compaction_iter`), below L0
        // only: universal and FIFO order L0 files by sequence number.
        let mut it = CompactionIter::new(
            RangeIter::new(MergingIterator::new(children), lo, hi),
            job.snapshots.to_vec(),
            job.bottommost,
            frag,
            job.cfd.merger.clone(),
            job.below.clone(),
        )
        .zero_bottom_seqnos(job.plan.output_level > 0);
        let automatic = job.plan.reason != CompactionReason::ManualCompaction;
        let mut n = 0u64;
        loop {
            // Also before the first entry: a job picked just before a
            // cancel (`ColumnFamilyData::cancel_automatic`) writes nothing.
            if n.is_multiple_of(4096) {
                if self.lifecycle.is_shutting_down() {
                    return Err(Error::ShutdownInProgress(
                        "compaction stopped by close".into(),
                    ));
                }
                if automatic && job.cfd.cancel_automatic.load(Ordering::Acquire) > 0 {
                    return Err(Error::Incomplete(CANCELLED_FOR_MANUAL.into()));
                }
            }
            if !it.advance() {
                break;
            }
            out.add(it.key(), it.value())?;
            n += 1;
        }
        it.input().status()?;
        Ok((it.entries_in, it.drops))
    }

    /// Manual compaction of `[begin, end]` (`compactRange`): flush, then by
    /// the family's style (see [`super::Db::compact_range`]), then the
    /// options' bottommost-level rewrite and level change.
    pub(crate) fn compact_range(
        self: &Arc<Self>,
        cfd: &ColumnFamilyData,
        begin: Option<&[u8]>,
        end: Option<&[u8]>,
        cro: &CompactRangeOptions,
    ) -> Result<()> {
        self.lifecycle.check_open()?;
        let fo = super::FlushOptions {
            wait: true,
            allow_write_stall: cro.allow_write_stall,
        };
        self.flush_cf(&fo, cfd)?;
        let mut st = self.state.lock();
        st.manual_compactions += 1;
        if cro.exclusive_manual_compaction {
            st.exclusive_manual_compactions += 1;
        }
        let r = self.manual_compaction(&mut st, cfd, begin, end, cro);
        st.manual_compactions -= 1;
        if cro.exclusive_manual_compaction {
            st.exclusive_manual_compactions -= 1;
            self.maybe_schedule_work(&mut st);
        }
        self.bg_cv.notify_all();
        drop(st);
        // Automatic compactions that ran meanwhile may still be deleting.
        self.purge_obsolete_files();
        r
    }

    fn manual_compaction(
        self: &Arc<Self>,
        st: &mut parking_lot::MutexGuard<'_, DbState>,
        cfd: &ColumnFamilyData,
        begin: Option<&[u8]>,
        end: Option<&[u8]>,
        cro: &CompactRangeOptions,
    ) -> Result<()> {
        let cf = cfd.id;
        let dropped =
            || Error::InvalidArgument(format!("column family {:?} was dropped", cfd.name));
        if cro.exclusive_manual_compaction {
            // RocksDB: an exclusive manual compaction first waits for the
            // automatic ones running (none starts meanwhile: the picker
            // sees `exclusive_manual_compactions`). Talus cancels the
            // family's instead when the whole key space is compacted under
            // leveled compaction: every file they read is rewritten by this
            // compaction, which would write their outputs once more
            // (`CANCELLED_FOR_MANUAL`). Only after the flush above: a flush
            // that would stall writes waits for compactions to clear the
            // condition, as RocksDB's, and must not find them cancelled.
            let _cancel = (begin.is_none()
                && end.is_none()
                && cfd.opts.compaction_style == CompactionStyle::Level)
                .then(|| CancelAutomatic::new(cfd));
            while st.compactions_running > 0 {
                self.manual_may_go_on(st, cfd)?;
                self.bg_cv.wait(st);
            }
        }
        // Files numbered from here on are written by this compaction.
        let first_new = st.versions.next_file_number();
        match cfd.opts.compaction_style {
            CompactionStyle::Level => {
                self.manual_compaction_rounds(st, cfd, begin, end, cro.max_subcompactions)?;
                if matches!(
                    cro.bottommost_level_compaction,
                    BottommostLevelCompaction::Force | BottommostLevelCompaction::ForceOptimized
                ) {
                    let newer_than = match cro.bottommost_level_compaction {
                        BottommostLevelCompaction::ForceOptimized => first_new,
                        _ => st.versions.next_file_number(),
                    };
                    self.manual_bottommost_in_place(
                        st,
                        cfd,
                        begin,
                        end,
                        newer_than - 1,
                        cro.max_subcompactions,
                    )?;
                }
            }
            CompactionStyle::Universal => loop {
                self.manual_may_go_on(st, cfd)?;
                let v = st.versions.current_cf(cf).ok_or_else(dropped)?;
                if (0..v.num_levels()).all(|l| v.num_files(l) == 0) {
                    break;
                }
                match crate::compaction::universal::pick_universal_manual(&v, &cfd.picker_opts) {
                    Some(plan) => {
                        drop(v);
                        self.run_manual_plan(st, cf, plan, cro.max_subcompactions)?;
                        break;
                    }
                    None => {
                        drop(v);
                        self.bg_cv.wait(st);
                    }
                }
            },
            CompactionStyle::Fifo => {
                self.manual_may_go_on(st, cfd)?;
                let v = st.versions.current_cf(cf).ok_or_else(dropped)?;
                let pick = pick_fifo(&v, &fifo_picker_options(cfd), unix_now());
                let oldest = v.files(0).last().map(|f| f.number);
                drop(v);
                if let Some(plan) = pick {
                    let mut plan = plan.into_plan(oldest, 0.0);
                    if !plan.drop_inputs {
                        plan.reason = crate::compaction::CompactionReason::ManualCompaction;
                    }
                    self.run_manual_plan(st, cf, plan, cro.max_subcompactions)?;
                }
            }
        }
        if cro.change_level {
            self.refit_level(st, cfd, cro.target_level)?;
        }
        Ok(())
    }

    /// Waits until a step of a leveled manual compaction may be picked: no
    /// ingestion placing files (`ingest`), and nothing that ends the manual
    /// compaction ([`Self::manual_may_go_on`]).
    fn manual_step_ready(
        &self,
        st: &mut parking_lot::MutexGuard<'_, DbState>,
        cfd: &ColumnFamilyData,
    ) -> Result<()> {
        loop {
            self.manual_may_go_on(st, cfd)?;
            if st.ingestions == 0 {
                return Ok(());
            }
            self.bg_cv.wait(st);
        }
    }

    /// Errors that end a manual compaction between its steps.
    fn manual_may_go_on(&self, st: &DbState, cfd: &ColumnFamilyData) -> Result<()> {
        if let Some(e) = &st.bg_error {
            return Err(e.clone());
        }
        self.lifecycle.check_open()?;
        if st.paused > 0 {
            return Err(Error::Incomplete(
                "manual compaction cannot run while background work is paused".into(),
            ));
        }
        cfd.check_live()
    }

    /// Marks and runs a plan picked under `st`, outside the lock.
    fn run_manual_plan(
        self: &Arc<Self>,
        st: &mut parking_lot::MutexGuard<'_, DbState>,
        cf: u32,
        plan: CompactionPlan,
        max_subcompactions: u32,
    ) -> Result<()> {
        let f = st
            .families
            .get_mut(&cf)
            .ok_or_else(|| Error::InvalidArgument("the column family was dropped".into()))?;
        f.jobs_running += 1;
        plan.mark_being_compacted(true);
        st.compactions_running += 1;
        parking_lot::MutexGuard::unlocked(st, || self.run_plan(cf, plan, max_subcompactions))
    }

    /// `BottommostLevelCompaction::Force*`: rewrites the files of the last
    /// non-empty level overlapping the range in place, leaving out files
    /// numbered above `newer_than`.
    fn manual_bottommost_in_place(
        self: &Arc<Self>,
        st: &mut parking_lot::MutexGuard<'_, DbState>,
        cfd: &ColumnFamilyData,
        begin: Option<&[u8]>,
        end: Option<&[u8]>,
        newer_than: u64,
        max_subcompactions: u32,
    ) -> Result<()> {
        let cf = cfd.id;
        loop {
            self.manual_may_go_on(st, cfd)?;
            let v = st
                .versions
                .current_cf(cf)
                .ok_or_else(|| Error::InvalidArgument("the column family was dropped".into()))?;
            let Some(last) = (1..v.num_levels()).rev().find(|&l| v.num_files(l) > 0) else {
                return Ok(());
            };
            let pick = crate::compaction::try_pick_manual_in_place(
                &v,
                &cfd.picker_opts,
                last,
                begin,
                end,
                Some(newer_than),
            );
            drop(v);
            match pick {
                ManualPick::Empty => return Ok(()),
                ManualPick::Busy => self.bg_cv.wait(st),
                ManualPick::Plan(plan) => self.run_manual_plan(st, cf, plan, max_subcompactions)?,
            }
        }
    }

    /// `change_level`: moves the files of the last non-empty level to
    /// `target` (-1: the highest level above it that is empty, as are the
    /// levels between, and whose target size holds them), as RocksDB's
    /// `ReFitLevel`: only across empty levels, never from L0.
    fn refit_level(
        &self,
        st: &mut parking_lot::MutexGuard<'_, DbState>,
        cfd: &ColumnFamilyData,
        target: i32,
    ) -> Result<()> {
        let cf = cfd.id;
        loop {
            self.manual_may_go_on(st, cfd)?;
            let v = st
                .versions
                .current_cf(cf)
                .ok_or_else(|| Error::InvalidArgument("the column family was dropped".into()))?;
            let n = v.num_levels();
            let Some(from) = (0..n).rev().find(|&l| v.num_files(l) > 0) else {
                return Ok(());
            };
            let to = if target < 0 {
                let bytes = v.level_bytes(from);
                let targets = crate::compaction::level_targets(&v, &cfd.picker_opts);
                let mut to = from;
                for l in (1..from).rev() {
                    if v.num_files(l) > 0 || targets.target(l) < bytes {
                        break;
                    }
                    to = l;
                }
                to
            } else {
                target as usize
            };
            if to >= n {
                return Err(Error::InvalidArgument(format!(
                    "target_level {to} is not below num_levels {n}"
                )));
            }
            if to == from {
                return Ok(());
            }
            if from == 0 {
                return Err(Error::NotSupported(
                    "change_level: cannot move files out of level 0".into(),
                ));
            }
            let between = if to > from {
                from + 1..=to
            } else {
                to..=from - 1
            };
            if between.clone().any(|l| v.num_files(l) > 0) {
                return Err(Error::NotSupported(format!(
                    "change_level: levels between L{from} and L{to} are not empty"
                )));
            }
            if v.files(from).iter().any(|f| f.is_being_compacted()) {
                drop(v);
                self.bg_cv.wait(st);
                continue;
            }
            let mut edit = VersionEdit {
                column_family: cf,
                ..VersionEdit::new()
            };
            for f in v.files(from) {
                edit.delete_file(from, f.number);
                edit.add_file(to, Arc::new(f.clone_metadata()));
            }
            drop(v);
            self.log_and_apply(st, edit)?;
            self.refresh_super_version(st, cf);
            info_log!(
                self.info_log,
                Info,
                "Manual compaction moved level {from} to level {to} (change_level)"
            );
            return Ok(());
        }
    }

    fn manual_compaction_rounds(
        self: &Arc<Self>,
        st: &mut parking_lot::MutexGuard<'_, DbState>,
        cfd: &ColumnFamilyData,
        begin: Option<&[u8]>,
        end: Option<&[u8]>,
        max_subcompactions: u32,
    ) -> Result<()> {
        // No `Arc<Version>` may be held across `run_plan`: the job deletes
        // its inputs at its end only if no live version still lists them.
        let cf = cfd.id;
        let dropped =
            || Error::InvalidArgument(format!("column family {:?} was dropped", cfd.name));
        if begin.is_none() && end.is_none() {
            // The whole key space: one merge into the last non-empty level
            // when it applies (`try_pick_manual_whole`); the rounds below
            // then find nothing above it, or only what flushes added since.
            // When a file is under an automatic compaction (a manual
            // compaction that is not exclusive), the rounds go on without
            // it: waiting for every level to be idle at once could wait for
            // as long as writes keep compactions coming.
            self.manual_step_ready(st, cfd)?;
            let pick = try_pick_manual_whole(
                &*st.versions.current_cf(cf).ok_or_else(dropped)?,
                &cfd.picker_opts,
            );
            if let ManualPick::Plan(plan) = pick {
                self.run_manual_plan(st, cf, plan, max_subcompactions)?;
            }
        }
        let mut level = 0usize;
        loop {
            let (last, worth) = {
                let v = st.versions.current_cf(cf).ok_or_else(dropped)?;
                let Some(last) = (0..v.num_levels()).rev().find(|&l| v.num_files(l) > 0) else {
                    return Ok(());
                };
                let worth = if level == 0 {
                    v.num_files(0) > 0
                } else {
                    level < last
                };
                (last, worth)
            };
            if worth {
                loop {
                    self.manual_step_ready(st, cfd)?;
                    let pick = try_pick_manual(
                        &*st.versions.current_cf(cf).ok_or_else(dropped)?,
                        &cfd.picker_opts,
                        level,
                        begin,
                        end,
                    );
                    match pick {
                        ManualPick::Empty => break,
                        ManualPick::Busy => {
                            self.bg_cv.wait(st);
                        }
                        ManualPick::Plan(plan) => {
                            plan.mark_being_compacted(true);
                            st.compactions_running += 1;
                            st.families.get_mut(&cf).ok_or_else(dropped)?.jobs_running += 1;
                            let r = parking_lot::MutexGuard::unlocked(st, || {
                                self.run_plan(cf, plan, max_subcompactions)
                            });
                            r?;
                        }
                    }
                }
            }
            let (base, num_levels) = {
                let v = st.versions.current_cf(cf).ok_or_else(dropped)?;
                let t = crate::compaction::level_targets(&v, &cfd.picker_opts);
                (t.base_level, v.num_levels())
            };
            level = if level == 0 { base.max(1) } else { level + 1 };
            if level >= num_levels - 1 || level >= last {
                return Ok(());
            }
        }
    }

    /// Every block of every live table against its checksum, each table
    /// against its manifest entry (at its open, `table_cache`), and the
    /// whole file against the checksum the manifest recorded for it.
    pub(crate) fn verify_checksum(&self) -> Result<()> {
        self.lifecycle.check_open()?;
        for cfd in self.families.load().values() {
            let v = cfd.super_version.load().version.clone();
            for level in 0..v.num_levels() {
                for f in v.files(level) {
                    self.table_cache
                        .reader(f, level, &cfd.tables)?
                        .verify_checksums()?;
                    self.table_cache.verify_file_checksum(f)?;
                }
            }
        }
        Ok(())
    }
}
