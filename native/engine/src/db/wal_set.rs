//! The database's write-ahead logs: the one being appended to (under the
//! WAL mutex), the next one's file made ahead, the WAL syncer thread, what
//! is known durable of the live logs, and how large the logs of the
//! immutable memtables are. Starting a new log (a memtable switch, open,
//! `resume()`) and syncing the current one live here; the write path that
//! appends to it is `write`.
//!
//! Thread-safety contract of [`WalSet`]:
//! - `current` is the *WAL mutex* (row 5 of the lock order,
//!   `docs/internals/locks.md`): the write-group leader holds it from
//!   numbering its group to the end of its append (and sync); a memtable
//!   switch takes it under the DB mutex, never the reverse.
//! - `prepared` and `tracker` have mutexes of their own, leaves in the lock
//!   order; the WAL syncer thread takes them with no other lock held.
//! - `imm_bytes` and `too_big` are atomics the write leader reads without
//!   the DB mutex.
//!
//! Invariants:
//! 1. `imm_bytes` is the sum of the sizes in `DbState::imm_wal_bytes`,
//!    stored under the DB mutex whenever that list changes.
//! 2. `too_big` is set only by the write leader, under the WAL mutex, and
//!    cleared by the next leader's `make_room_for_write`, which flushes the
//!    families holding the oldest log.
//! 3. A file in `prepared` is empty and numbered above every log; it is
//!    started by the next switch or removed by it (`take_prepared_wal`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64};

use parking_lot::{Mutex, MutexGuard};

use super::{DbInner, DbState, wal_sync, wal_track};
use crate::error::Result;
use crate::fs::{WritableFile, WriteFileOptions};
use crate::info_log;
use crate::key::SequenceNumber;
use crate::version::filename;
use crate::wal::LogWriter;

/// The write-ahead log being appended to; owned by the group leader.
pub(crate) struct WalState {
    pub(super) writer: Option<LogWriter>,
    /// Last sequence number handed out (≥ the published one).
    pub(super) last_allocated: SequenceNumber,
    /// Last sequence number of a batch appended to a WAL: writes without
    /// the WAL take numbers too, so the logs' records are not contiguous.
    pub(super) last_logged: SequenceNumber,
    /// Bytes appended to the current WAL since its last sync.
    pub(super) unsynced_bytes: u64,
    /// A write or sync of the current WAL failed: nothing more may be
    /// appended to it (a failed write may have left part of a record, and a
    /// failed sync may have dropped pages a later sync would not report).
    /// `resume()` replaces it.
    pub(super) failed: bool,
    /// The switch tasks not known to be finished: (log number, ticket of
    /// the task that makes that log's start durable), oldest first.
    pub(super) switch_syncs: std::collections::VecDeque<(u64, u64)>,
}

/// The database's write-ahead logs (module docs): one for all families.
pub(crate) struct WalSet {
    /// The WAL mutex: the current log and sequence-number allocation.
    current: Mutex<WalState>,
    /// Sum of `DbState::imm_wal_bytes` sizes, for the write leader
    /// (invariant 1).
    pub(crate) imm_bytes: AtomicU64,
    /// The live WALs exceed `max_total_wal_size` (invariant 2).
    pub(crate) too_big: AtomicBool,
    /// Background WAL syncs (`wal_bytes_per_sync`) and the durable half
    /// of each switch.
    pub(crate) syncer: wal_sync::WalSyncer,
    /// The next WAL's file, made ahead on the WAL syncer thread
    /// (invariant 3).
    pub(crate) prepared: Arc<Mutex<PreparedWal>>,
    /// What is known durable of the live logs, for the manifest
    /// (`wal_track`).
    pub(crate) tracker: Arc<wal_track::WalTracker>,
}

impl WalSet {
    /// No log yet (open starts the first one); `syncer` is started.
    pub(crate) fn new(syncer: wal_sync::WalSyncer) -> Self {
        WalSet {
            current: Mutex::new(WalState {
                writer: None,
                last_allocated: 0,
                last_logged: 0,
                unsynced_bytes: 0,
                failed: false,
                switch_syncs: Default::default(),
            }),
            imm_bytes: AtomicU64::new(0),
            too_big: AtomicBool::new(false),
            syncer,
            prepared: Arc::default(),
            tracker: Arc::default(),
        }
    }

    /// Takes the WAL mutex.
    #[inline]
    pub(crate) fn lock(&self) -> MutexGuard<'_, WalState> {
        self.current.lock()
    }

    /// Syncs the current WAL, after the switch tasks of the logs before it
    /// (their tails and directory entries). Caller: holding the WAL mutex
    /// (`wal`).
    pub(crate) fn sync(&self, wal: &mut WalState) -> Result<()> {
        if let Some(&(_, ticket)) = wal.switch_syncs.back() {
            self.syncer.wait_for(ticket)?;
        }
        match wal.writer.as_mut() {
            Some(w) => {
                w.sync()?;
                self.tracker.synced(w.number(), w.file_size());
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// Waits until log `number`'s switch task (the old log's tail, this
    /// log's first record and directory entry) is done: before a manifest
    /// edit names `number` as the log number, recovery's starting point.
    pub(crate) fn wait_start_durable(&self, number: u64) -> Result<()> {
        let ticket = self
            .lock()
            .switch_syncs
            .iter()
            .find(|&&(n, _)| n == number)
            .map(|&(_, t)| t);
        match ticket {
            Some(t) => self.syncer.wait_for(t),
            None => Ok(()),
        }
    }
}

impl DbInner {
    /// Takes the WAL file made ahead by [`Self::prepare_next_wal`], if it
    /// is ready, and cancels a preparation still queued. Without `use_it`
    /// the file is removed. Every new WAL goes through here: a file made
    /// ahead must never outlive the switch after it, or it could become
    /// the live log with a number below the log before it (logs replay in
    /// number order).
    pub(crate) fn take_prepared_wal(&self, use_it: bool) -> Option<(u64, Box<dyn WritableFile>)> {
        let mut slot = self.wal.prepared.lock();
        slot.wanted = None;
        let ready = slot.ready.take();
        let failure = slot.failure.take();
        drop(slot);
        if let Some(e) = failure {
            info_log!(
                self.info_log,
                Warn,
                "Could not make the next WAL ahead of its switch ({e}); the switch creates it"
            );
        }
        match ready {
            Some(r) if use_it => Some(r),
            Some((number, file)) => {
                drop(file);
                let _ = self
                    .fs
                    .remove_file(&self.wal_dir.join(filename::log_file_name(number)));
                None
            }
            None => None,
        }
    }

    /// Queues the creation of the next WAL's file, with its blocks reserved,
    /// on the WAL syncer thread, so the next memtable switch finds it made.
    /// Creating and reserving a log is usually quick but can take as long
    /// as the slowest puts (a file create and a large `fallocate` under
    /// compaction IO), and in the switch it would run inside the write
    /// queue, every writer waiting. The file gets its number now (from
    /// `st`), above every log so far; it stays empty (the reservation keeps
    /// its size 0) until the switch writes its start record, so a crash
    /// leaves an empty log that recovery reads as holding nothing, and the
    /// open that follows deletes as obsolete. A failure here is logged and
    /// forgotten: the switch then creates its log itself, and meets the
    /// disk's error there.
    pub(crate) fn prepare_next_wal(&self, st: &mut DbState) {
        let number = st.versions.new_file_number();
        self.wal.prepared.lock().wanted = Some(number);
        let slot = self.wal.prepared.clone();
        let fs = self.fs.clone();
        let path = self.wal_dir.join(filename::log_file_name(number));
        let (opts, reserve) = (self.wal_file_options(), self.wal_reservation());
        self.wal.syncer.enqueue(Box::new(move || {
            if slot.lock().wanted != Some(number) {
                return Ok(());
            }
            match create_wal_file(fs.as_ref(), &path, opts, reserve) {
                Ok(file) => {
                    let mut s = slot.lock();
                    if s.wanted == Some(number) {
                        s.wanted = None;
                        s.ready = Some((number, file));
                    } else {
                        // A switch came first and made its own log.
                        drop(s);
                        drop(file);
                        let _ = fs.remove_file(&path);
                    }
                }
                Err(e) => {
                    // Logged by the switch that takes the slot.
                    slot.lock().failure = Some(format!("{}: {e}", path.display()));
                    let _ = fs.remove_file(&path);
                }
            }
            // Never a task failure: nothing depends on this file yet.
            Ok(())
        }));
    }

    /// Starts WAL `number`; what happens to the current one is `old`.
    /// Returns the old WAL's size in bytes (0 when there was none) and how
    /// long each step took (for the LOG: a switch holds up the write
    /// queue).
    ///
    /// Every WAL starts with a record of no entries carrying the sequence
    /// number one past the last write logged before it: recovery checks each
    /// log's start against where the logs before it end, so a power loss
    /// that kept this log's writes but not the end of an older one is a
    /// hole it stops at, not a gap it replays across (module docs of
    /// `recovery`).
    ///
    /// [`OldWal::SyncLater`] (a memtable switch): the old WAL's fdatasync,
    /// the new WAL's first record and its directory entry are made durable
    /// by a switch task on the WAL syncer thread, in switch order; nothing
    /// depends on them before a synced write ([`WalSet::sync`] waits for
    /// them) or before a manifest edit names this log (the flush waits,
    /// [`WalSet::wait_start_durable`]). [`OldWal::SyncNow`] (open) and
    /// [`OldWal::Abandon`] (`resume()` after the old WAL failed: its
    /// durability is unknown, so `resume()` flushes the memtables that hold
    /// its writes before any new write is accepted) do all of it here. Any
    /// failure marks the WAL failed.
    pub(crate) fn new_wal(
        &self,
        number: u64,
        old: OldWal,
        prepared: Option<Box<dyn WritableFile>>,
    ) -> Result<WalSwitch> {
        let mut wal = self.wal.lock();
        let r = self.new_wal_locked(&mut wal, number, old, prepared);
        if r.is_err() {
            wal.failed = true;
        }
        r
    }

    /// Bytes reserved for each new WAL, with `allow_fallocate`:
    /// `write_buffer_size` × 1.1, at most `max_total_wal_size` when set.
    fn wal_reservation(&self) -> Option<u64> {
        let b = (self.opts.write_buffer_size as u64).saturating_mul(11) / 10;
        let b = match self.opts.max_total_wal_size {
            0 => b,
            max => b.min(max),
        };
        self.opts.allow_fallocate.then_some(b)
    }

    fn wal_file_options(&self) -> WriteFileOptions {
        WriteFileOptions {
            use_fsync: self.opts.use_fsync,
        }
    }

    /// [`Self::new_wal`] under the WAL mutex: retires the current log,
    /// starts the new one, then makes the switch durable (or queues that),
    /// timing each step.
    fn new_wal_locked(
        &self,
        wal: &mut WalState,
        number: u64,
        old: OldWal,
        prepared: Option<Box<dyn WritableFile>>,
    ) -> Result<WalSwitch> {
        let ms_since = |t: std::time::Instant| t.elapsed().as_secs_f64() * 1000.0;
        let mut switched = WalSwitch::default();
        let t = std::time::Instant::now();
        let retired = self.retire_wal(wal, old)?;
        switched.old_size = retired.map_or(0, |(_, size)| size);
        switched.sync_ms = ms_since(t);
        let t = std::time::Instant::now();
        switched.prepared = prepared.is_some();
        let (mut writer, start_size) = self.start_wal_writer(wal, number, old, prepared)?;
        // What the switch makes durable, for the manifest's WAL tracking:
        // the old log whole (unless abandoned), this log's start.
        let synced_old = retired.map(|(n, _)| n).filter(|_| old != OldWal::Abandon);
        switched.create_ms = ms_since(t);
        let t = std::time::Instant::now();
        self.make_switch_durable(wal, &mut writer, number, old, synced_old, start_size)?;
        switched.dir_sync_ms = ms_since(t);
        wal.writer = Some(writer);
        wal.unsynced_bytes = 0;
        wal.failed = false;
        Ok(switched)
    }

    /// The first step of a WAL switch: does with the current log (if any)
    /// what `old` says, and returns its number and size.
    fn retire_wal(&self, wal: &mut WalState, old: OldWal) -> Result<Option<(u64, u64)>> {
        let Some(w) = wal.writer.as_mut() else {
            return Ok(None);
        };
        let (old_number, old_size) = (w.number(), w.file_size());
        match old {
            OldWal::Abandon => self.wal.tracker.abandoned(old_number),
            _ => self
                .wal
                .tracker
                .closed(old_number, old_size, wal.last_logged),
        }
        match old {
            OldWal::SyncNow => {
                // The old log must be durable before writes land in the
                // new one, or a power loss could keep later writes and
                // lose earlier ones; so must the logs before it.
                self.wal.syncer.wait_for_all()?;
                w.sync()?;
            }
            OldWal::SyncLater => w.flush()?,
            OldWal::Abandon => {
                // Let queued switch tasks and a periodic sync finish; a
                // failure among them is what resume() repairs: the
                // memtables holding those logs' writes are flushed before a
                // new write is taken, and this log's start is durable
                // before it returns.
                self.wal.syncer.wait_idle();
                self.wal.syncer.clear_failures();
                wal.switch_syncs.clear();
            }
        }
        Ok(Some((old_number, old_size)))
    }

    /// The second step of a WAL switch: log `number`'s writer, on the file
    /// made ahead or on a new one, its start record written and flushed to
    /// the OS. Returns it with its size.
    fn start_wal_writer(
        &self,
        wal: &mut WalState,
        number: u64,
        old: OldWal,
        prepared: Option<Box<dyn WritableFile>>,
    ) -> Result<(LogWriter, u64)> {
        let file = match prepared {
            // Made ahead, its blocks reserved (`prepare_next_wal`).
            Some(file) => file,
            None => create_wal_file(
                self.fs.as_ref(),
                &self.wal_dir.join(filename::log_file_name(number)),
                self.wal_file_options(),
                self.wal_reservation(),
            )?,
        };
        let mut writer = LogWriter::new(file, number);
        // The start record: one past the last sequence number logged before
        // this log. After a failed WAL (`Abandon`), one past every number
        // handed out: the failed group may be in the old log, whole. It
        // names the log's owner: this database, and this log's number
        // (module docs of `wal`).
        let start_seq = 1 + match old {
            OldWal::Abandon => wal.last_allocated,
            _ => wal.last_logged,
        };
        writer.add_record(&crate::wal::encode_start_record(
            start_seq, self.db_id, number,
        ))?;
        writer.flush()?;
        // The next log starts one past this one's start at least: after
        // `Abandon` the start skips the numbers of the failed group, and a
        // switch before any logged write must not start below it (logs
        // replay in order and their starts never go back). Regression test
        // `io_errors::regression_the_log_after_a_resumed_wal_failure_*`.
        wal.last_logged = wal.last_logged.max(start_seq - 1);
        let start_size = writer.file_size();
        self.wal.tracker.started(number, start_size, false);
        Ok((writer, start_size))
    }

    /// The third step of a WAL switch: the old log's tail (`synced_old`,
    /// unless abandoned), the new log's start record and its directory
    /// entry made durable, in that order; on the WAL syncer thread for
    /// [`OldWal::SyncLater`] when the file system gives a sync handle, here
    /// otherwise.
    fn make_switch_durable(
        &self,
        wal: &mut WalState,
        writer: &mut LogWriter,
        number: u64,
        old: OldWal,
        synced_old: Option<u64>,
        start_size: u64,
    ) -> Result<()> {
        match (old, writer.sync_handle()) {
            (OldWal::SyncLater, Some(mut handle)) => {
                let old_writer = wal.writer.take();
                let fs = self.fs.clone();
                let dir = self.wal_dir.clone();
                let tracker = self.wal.tracker.clone();
                let ticket = self.wal.syncer.enqueue(Box::new(move || {
                    // Order: the old log's tail, then this log's start record,
                    // then the directory entry naming this log (the old log's
                    // entry was made durable by the task before this one).
                    if let Some(mut w) = old_writer {
                        w.sync()?;
                    }
                    handle.sync()?;
                    fs.sync_dir(&dir)?;
                    // Only now may the manifest record them (`wal_track`).
                    tracker.switch_done(synced_old, number, start_size);
                    Ok(())
                }));
                let done = self.wal.syncer.tasks_done();
                wal.switch_syncs.retain(|&(_, t)| t > done);
                wal.switch_syncs.push_back((number, ticket));
            }
            _ => {
                if old == OldWal::SyncLater {
                    // No handle from this file system: sync here.
                    if let Some(w) = wal.writer.as_mut() {
                        w.sync()?;
                    }
                }
                writer.sync()?;
                // The new file's directory entry must be durable before any
                // byte written to it can be: otherwise a power loss could keep
                // this log and lose the entry of the one before it, a hole in
                // the history. The same sync makes the entry durable before
                // the manifest names this log.
                self.fs.sync_dir(&self.wal_dir)?;
                self.wal.tracker.switch_done(synced_old, number, start_size);
            }
        }
        Ok(())
    }

    /// WAL bytes between background syncs: `wal_bytes_per_sync`, or a
    /// quarter of the write buffer (at least 1 MiB) when that is 0.
    pub(super) fn background_wal_sync_bytes(&self) -> u64 {
        if self.opts.wal_bytes_per_sync > 0 {
            self.opts.wal_bytes_per_sync
        } else {
            (self.opts.write_buffer_size as u64 / 4).max(1 << 20)
        }
    }

    /// The WAL size that triggers a flush: `max_total_wal_size`, or four
    /// times the memtable budget when 0 (RocksDB's default), saturating:
    /// the largest options (64 GiB × 2^31 memtables) would wrap to a limit
    /// of 0, and every write group would switch the memtable.
    pub(crate) fn max_total_wal_size(&self) -> u64 {
        if self.opts.max_total_wal_size > 0 {
            self.opts.max_total_wal_size
        } else {
            (self.opts.write_buffer_size as u64)
                .saturating_mul(4)
                .saturating_mul(self.opts.max_write_buffer_number.max(1) as u64)
        }
    }
}

/// Creates WAL file `path` with `reserve` bytes reserved (its size stays 0).
///
/// The reservation: without it each new 4 KiB of the log takes the inode's
/// block-map lock in ext4's delayed allocation (`ext4_da_get_block_prep`),
/// which the log's writeback holds while it allocates, reading block
/// bitmaps under compaction IO. The write-group leader waited there, every
/// writer queued behind it (writer kernel stacks sampled in D state during
/// a bulk import showed it, and none with the reservation;
/// docs/results/design-measurements.md). RocksDB reserves at the log's first append, in its write path;
/// here it is done ahead of the switch ([`DbInner::prepare_next_wal`]).
fn create_wal_file(
    fs: &dyn crate::fs::FileSystem,
    path: &std::path::Path,
    opts: WriteFileOptions,
    reserve: Option<u64>,
) -> Result<Box<dyn WritableFile>> {
    let mut file = fs.new_writable(path, opts)?;
    if let Some(bytes) = reserve {
        file.preallocate(bytes);
    }
    Ok(file)
}

/// The next WAL's file, made ahead of the memtable switch that starts it
/// ([`DbInner::prepare_next_wal`]); under its own mutex, which the WAL
/// syncer thread takes, never the WAL lock.
#[derive(Default)]
pub(crate) struct PreparedWal {
    /// The number of the file a queued preparation is to make; `None`
    /// cancels it.
    pub(super) wanted: Option<u64>,
    /// A made file, empty, its blocks reserved: (log number, file).
    pub(super) ready: Option<(u64, Box<dyn WritableFile>)>,
    /// Why the last preparation failed, for the LOG.
    failure: Option<String>,
}

/// What [`DbInner::new_wal`] does with the WAL it replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OldWal {
    /// Synced before the new WAL starts; the new one's start is durable on
    /// return (open).
    SyncNow,
    /// Synced on the WAL syncer thread (a memtable switch).
    SyncLater,
    /// Dropped without a sync (`resume()` after the WAL failed).
    Abandon,
}

/// What [`DbInner::new_wal`] did: the old WAL's size in bytes, and the
/// milliseconds the old WAL's sync (a flush when the sync is queued), the
/// new file's creation with its start record, and the syncs (or queueing
/// them) took.
#[derive(Debug, Default)]
pub(crate) struct WalSwitch {
    pub(crate) old_size: u64,
    /// The new log's file was made ahead (`prepare_next_wal`).
    pub(super) prepared: bool,
    pub(super) sync_ms: f64,
    pub(super) create_ms: f64,
    pub(super) dir_sync_ms: f64,
}
