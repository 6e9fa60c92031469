//! The write path: group commit (see [`super::write_thread`]), making room
//! in the memtable, and switching memtables.
//!
//! Perf context: a write call is one operation. The leader times the WAL
//! append and the memtable insert as one chain of clock readings; each
//! follower times its own insert; waits for a flush in
//! [`DbInner::make_room_for_write`] are write stalls (`MemtableLimit`);
//! everything else of the call is `write_pre_and_post_process_time`.
//!
//! A memtable switch runs inside the write queue, so it does no disk wait:
//! it creates the new WAL and writes its start record, and queues the old
//! WAL's fdatasync, the start record's and the directory entry's on the
//! WAL syncer thread ([`DbInner::new_wal`]). Under compaction IO those syncs
//! are slow, and every writer queued behind the switch would wait as long
//! (the slowest puts of a bulk import). What depended on them waits
//! for them instead: a synced write ([`super::wal_set::WalSet::sync`])
//! and the flush edit naming a log
//! ([`super::wal_set::WalSet::wait_start_durable`]); recovery stops at the
//! hole a power loss can leave (module docs of `recovery`).
//!
//! A write group's leader runs these steps (`write_group`): make room
//! (`make_room_for_write`), wait out a stall (`stall_group`), number the
//! group and append it to the WAL under the WAL mutex (`log_group`), insert
//! it into the memtables (`insert_group`), publish its last sequence
//! number.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::family::ColumnFamilyData;
use super::wal_set::{OldWal, WalState, WalSwitch};
use super::write_thread::{
    DONE, INSERT, InsertGroup, LEADER, MAX_COMBINED_GROUPS, MAX_COMBINING_TIME, WriteKind, Writer,
    WriterData,
};
use super::{DbInner, DbState};
use crate::error::{Error, Result};
use crate::info_log;
use crate::key::{SequenceNumber, ValueKind};
use crate::memtable::{MemTable, Prepared};
use crate::options::WriteOptions;
use crate::perf_context::{self, F, StallCause};
use crate::perf_timer;
use crate::statistics::{Histogram, Ticker};
use crate::write_batch::{BatchOp, MAX_BATCH_BYTES, WriteBatch};

impl DbInner {
    pub(crate) fn write(self: &Arc<Self>, wo: &WriteOptions, batch: WriteBatch) -> Result<()> {
        let op = perf_context::op();
        let _timer = perf_context::WriteOpTimer::start_at(op.level());
        self.lifecycle.check_open()?;
        // Before the empty-batch shortcut, as RocksDB checks it: the options
        // are wrong whatever the batch holds.
        wo.validate()?;
        if batch.is_empty() {
            return Ok(());
        }
        if batch.has_families() || batch.has_merge() {
            self.check_batch_families(&batch)?;
        }
        if batch.size_in_bytes() > MAX_BATCH_BYTES {
            return Err(Error::InvalidArgument(format!(
                "write batch of {} bytes exceeds the limit of {MAX_BATCH_BYTES} bytes",
                batch.size_in_bytes()
            )));
        }
        if wo.no_slowdown && !self.write_signals.is_normal() {
            // A stall is in effect: do not even queue behind it.
            let st = self.state.lock();
            if let Some(c) = st.stall.condition.cause() {
                return Err(Error::Incomplete(format!(
                    "Write stall: writes are held ({}); no_slowdown is set",
                    c.name()
                )));
            }
        }
        let _t = self.stats.timer(Histogram::DbWrite);
        // Writes the gate must not hold: module docs of `write_gate`.
        let slot = if wo.no_slowdown || wo.sync || wo.low_pri {
            None
        } else {
            self.write_gate.enter()
        };
        if let Some(a) = &slot
            && self.stats.statistics.is_some()
        {
            if a.engaged_gate() {
                self.stats.tick(Ticker::WriteAdmissionEngagements, 1);
            }
            if let Some(w) = a.waited() {
                self.stats.tick(Ticker::WriteAdmissionWaits, 1);
                self.stats
                    .tick(Ticker::WriteAdmissionWaitMicros, w.as_micros() as u64);
            }
        }
        #[cfg(test)]
        super::test_hooks::run(&super::test_hooks::IN_WRITE_SLOT);
        self.stats
            .hist(Histogram::BytesPerWrite, batch.size_in_bytes() as u64);
        let prepared = self.prepare_single_entry(&batch);
        let r = self.run_writer(Writer::new(batch, *wo, WriteKind::Batch, prepared));
        drop(slot);
        self.maybe_purge_obsolete_files();
        r
    }

    /// Every record of `batch` names a live family, and every merge a family
    /// with a merge operator: else `InvalidArgument`, as RocksDB ("Invalid
    /// column family specified in write batch"), and nothing is written.
    fn check_batch_families(&self, batch: &WriteBatch) -> Result<()> {
        let fams = self.families.load();
        for op in batch.iter() {
            let (cf, op) = op.map_err(|e| Error::InvalidArgument(format!("write batch: {e}")))?;
            let Some(cfd) = fams.get(&cf) else {
                return Err(Error::InvalidArgument(format!(
                    "Invalid column family specified in write batch: id {cf} does not exist (dropped?)"
                )));
            };
            if matches!(op, BatchOp::Merge(..)) && !cfd.merger.has_operator() {
                // RocksDB fails such a batch with the same status; here
                // nothing of it is written.
                return Err(Error::InvalidArgument(
                    "Merge requires `ColumnFamilyOptions::merge_operator != nullptr`".into(),
                ));
            }
        }
        Ok(())
    }

    /// For a batch of one point entry (a put or delete, the common write), the entry copied
    /// into the current memtable with its place found, before the writer
    /// queues: that search is most of an insert's time (cache misses in a
    /// memtable far larger than the caches), and done here it runs in
    /// parallel with the leader instead of on the serial write path. When
    /// the memtable is switched before the write's group runs, the leader
    /// inserts the batch the ordinary way and the prepared copy is wasted.
    /// A write to another family is prepared in that family's memtable
    /// (`insert_group` links it there).
    fn prepare_single_entry(&self, batch: &WriteBatch) -> Option<(u32, Prepared)> {
        if batch.count() != 1 {
            return None;
        }
        let (cf, op) = batch.iter().next()?.ok()?;
        let (kind, key, value) = match op {
            BatchOp::Put(k, v) => (ValueKind::Value, k, v),
            BatchOp::Delete(k) => (ValueKind::Deletion, k, &[][..]),
            BatchOp::Merge(k, v) => (ValueKind::Merge, k, v),
            BatchOp::SingleDelete(k) => (ValueKind::SingleDeletion, k, &[][..]),
            BatchOp::DeleteRange(..) => return None,
        };
        let prepared = if cf == crate::write_batch::DEFAULT_FAMILY {
            self.default_cf
                .super_version
                .load()
                .mem
                .prepare(kind, key, value)
        } else {
            let fams = self.families.load();
            fams.get(&cf)?
                .super_version
                .load()
                .mem
                .prepare(kind, key, value)
        };
        Some((cf, prepared))
    }

    /// Switches family `cf`'s memtable through the write queue, so that it
    /// happens between groups (invariant 3 of the module docs), unless it
    /// is empty or newer than log `up_to_log` (see [`WriteKind::SwitchMemtable`]).
    pub(crate) fn switch_memtable_in_queue(
        self: &Arc<Self>,
        cf: u32,
        up_to_log: u64,
    ) -> Result<()> {
        self.run_writer(Writer::new(
            WriteBatch::new(),
            WriteOptions::default(),
            WriteKind::SwitchMemtable { cf, up_to_log },
            None,
        ))
    }

    pub(crate) fn run_writer(self: &Arc<Self>, w: Arc<Writer>) -> Result<()> {
        match self.write_queue.join(&w) {
            LEADER => self.lead_group(&w),
            INSERT => {
                Self::insert_as_member(&w);
                perf_timer!(write_thread_wait_nanos);
                w.await_change(INSERT);
                w.data.lock().result.take().unwrap_or(Ok(()))
            }
            DONE => w.data.lock().result.take().unwrap_or(Ok(())),
            s => unreachable!("writer woke in state {s}"),
        }
    }

    fn insert_as_member(w: &Writer) {
        perf_timer!(write_memtable_time);
        let group = {
            let mut d = w.data.lock();
            let group = d.group.clone().expect("INSERT state without a group");
            insert_writer(&group.mem, &mut d);
            group
        };
        group.member_done();
    }

    /// Leads the group of `leader`, then, while the next writer in the queue
    /// sleeps, that writer's group too (module docs of `write_thread`,
    /// invariant 5). Returns the result of `leader`'s own write.
    fn lead_group(self: &Arc<Self>, leader: &Arc<Writer>) -> Result<()> {
        let mut own = None;
        // When this thread's own group was written and it began to combine.
        let mut combining_since: Option<Instant> = None;
        let mut head = leader.clone();
        for combined in 0.. {
            // The first group's head is this thread's own writer; a combined
            // group's head is woken with its result like its followers.
            let own_group = combined == 0;
            let group = self.write_queue.build_group(&head);
            let kind = head.data.lock().kind;
            let result = match kind {
                WriteKind::SwitchMemtable { cf, up_to_log } => {
                    self.switch_memtable_now(cf, up_to_log)
                }
                WriteKind::Resume => self.resume_switch_now(),
                // Never combined (`exit_or_combine` combines batches only)
                // and its thread never calls `lead_group`.
                WriteKind::Exclusive => Ok(()),
                WriteKind::Batch => self.write_group(&group, own_group),
            };
            // Only plain groups in a normal write condition are combined: a
            // delayed or stopped group would hold this thread, whose own
            // write is done, for the delay. The bound on time does the same
            // for a run of slow groups (WAL writes blocked in writeback).
            let may_combine = combined < MAX_COMBINED_GROUPS
                && kind == WriteKind::Batch
                && result.is_ok()
                && self.write_signals.is_normal()
                && combining_since.is_none_or(|t| t.elapsed() < MAX_COMBINING_TIME);
            let next = self.write_queue.exit_or_combine(group.len(), may_combine);
            for f in &group[usize::from(own_group)..] {
                f.finish(result.clone());
            }
            own.get_or_insert(result);
            match next {
                Some(n) => {
                    combining_since.get_or_insert_with(Instant::now);
                    head = n;
                }
                None => break,
            }
        }
        own.expect("the first group always runs")
    }

    /// Writes `group`; `by_member` when the thread is the group's own head
    /// (not a leader combining it, which counts it done by others). The
    /// steps, in order: make room (switch full memtables), wait out a
    /// stall, number the group and append it to the WAL, insert it into
    /// the memtables, publish its last sequence number.
    fn write_group(self: &Arc<Self>, group: &[Arc<Writer>], by_member: bool) -> Result<()> {
        self.lifecycle.check_open()?;
        self.check_bg_error()?;
        let mut phases = SlowGroupCheck::start();
        self.make_room_for_write()?;
        phases.mark(0, None);
        self.stall_group(group)?;
        phases.mark(1, None);
        // A stop may have ended with a memtable switch by another path;
        // take the memtable that is current now.
        let mem = self.default_cf.super_version.load().mem.clone();
        let logged = self.log_group(group, &mem, by_member)?;
        if logged.synced && self.wal.tracker.closed_unrecorded() {
            // The first sync since a log was closed: the closed logs go into
            // the manifest before this group is acknowledged (module docs of
            // `wal_track`), once per memtable switch.
            self.record_closed_wals();
        }
        phases.mark(2, Some(F::write_wal_time));
        self.charge_group_bytes(group);
        let entries = logged.last - logged.first + 1;
        self.insert_group(group, &mem, logged.multi_family, entries);
        phases.mark(3, Some(F::write_memtable_time));
        // Publish: the group's entries become visible together (invariant 1
        // of the module docs of `db`).
        self.last_sequence.store(logged.last, Ordering::Release);
        if let Some(ms) = phases.slow() {
            info_log!(
                self.info_log,
                Warn,
                "Slow write group: {} writers, {} entries, {:.1} ms (make room {:.1}, delay {:.1}, WAL {:.1}, memtable {:.1})",
                group.len(),
                entries,
                ms[0] + ms[1] + ms[2] + ms[3],
                ms[0],
                ms[1],
                ms[2],
                ms[3]
            );
        }
        Ok(())
    }

    /// The stall step of a write group: holds it while writes are delayed
    /// or stopped ([`DbInner::delay_write`]), and counts the time held.
    fn stall_group(self: &Arc<Self>, group: &[Arc<Writer>]) -> Result<()> {
        // Groups are uniform in these options (see WriteQueue::build_group).
        let (no_slowdown, low_pri) = {
            let d = group[0].data.lock();
            (d.opts.no_slowdown, d.opts.low_pri)
        };
        let Some((micros, held)) = self.delay_write(no_slowdown, low_pri)? else {
            return Ok(());
        };
        self.stats.tick(Ticker::StallMicros, micros);
        self.stats.hist(Histogram::WriteStall, micros);
        let (ticker, cause) = match super::stall::held_index(held) {
            0 => (Ticker::StallMemtableLimitMicros, StallCause::MemtableLimit),
            1 => (Ticker::StallL0SlowdownMicros, StallCause::L0Slowdown),
            2 => (Ticker::StallL0StopMicros, StallCause::L0Stop),
            _ => (
                Ticker::StallPendingCompactionBytesMicros,
                StallCause::PendingCompactionBytes,
            ),
        };
        self.stats.tick(ticker, micros);
        perf_context::record_stall(cause, micros);
        Ok(())
    }

    /// The WAL step of a write group, under the WAL mutex: gives the
    /// group's batches their sequence numbers, appends the logged ones to
    /// the WAL and flushes (or syncs) it, marks `mem` unlogged for writes
    /// without the WAL, and counts the group. A failed WAL write or sync
    /// fails the WAL and latches the background error (after the WAL mutex
    /// is released: the DB mutex comes first in the lock order).
    fn log_group(
        &self,
        group: &[Arc<Writer>],
        mem: &MemTable,
        by_member: bool,
    ) -> Result<LoggedGroup> {
        let mut wal = self.wal.lock();
        // Closing stops writes under this lock (DbInner::begin_close):
        // after the check, this group's numbers and unlogged mark are
        // taken before its final flush looks.
        self.lifecycle.check_writes_open()?;
        if wal.failed {
            // Defensive: the error that failed the WAL is latched, so
            // check_bg_error above already refused this group.
            return Err(Error::Aborted(
                "the write-ahead log failed; call resume() or reopen".into(),
            ));
        }
        // Sequence numbers of a group whose WAL write fails are burnt:
        // its records may be in the old WAL, which recovery may replay
        // next to the new one, so no later write may reuse them.
        // One pass over the writers' data for both facts: the group's
        // entry count, and whether any batch has records of other families
        // (such a group is inserted record by record into each family's
        // memtable, by the leader).
        let mut group_end = wal.last_allocated;
        let mut multi_family = false;
        for w in group {
            let d = w.data.lock();
            group_end += u64::from(d.batch.count());
            multi_family |= d.batch.has_families();
        }
        let appended = match self.append_group(&mut wal, group).and_then(|a| {
            self.flush_group_wal(&mut wal, &a)
                .map(|()| a)
                .map_err(WalFailure::Failed)
        }) {
            Ok(a) => a,
            Err(WalFailure::Refused(e)) => return Err(e),
            Err(WalFailure::Failed(e)) => {
                wal.failed = true;
                wal.last_allocated = group_end;
                drop(wal);
                self.latch_write_error(&e);
                return Err(e);
            }
        };
        if appended.unlogged {
            mem.mark_unlogged();
        }
        if appended.logged && !self.opts.manual_flush_enabled {
            let live = wal.writer.as_ref().map_or(0, |w| w.file_size())
                + self.wal.imm_bytes.load(Ordering::Relaxed);
            if live > self.max_total_wal_size() {
                self.wal.too_big.store(true, Ordering::Release);
            }
        }
        let first = wal.last_allocated + 1;
        self.count_logged_group(
            &appended,
            appended.last - wal.last_allocated,
            group.len(),
            by_member,
        );
        wal.last_allocated = appended.last;
        wal.last_logged = appended.last_logged;
        Ok(LoggedGroup {
            first,
            last: appended.last,
            synced: appended.logged && appended.need_sync,
            multi_family,
        })
    }

    /// Numbers the batches of `group` from `wal.last_allocated + 1` and
    /// appends those with the WAL to it (not flushed yet). Caller: holding
    /// the WAL mutex; it handles a [`WalFailure::Failed`].
    fn append_group(
        &self,
        wal: &mut WalState,
        group: &[Arc<Writer>],
    ) -> std::result::Result<AppendedGroup, WalFailure> {
        let mut a = AppendedGroup {
            last: wal.last_allocated,
            last_logged: wal.last_logged,
            ..AppendedGroup::default()
        };
        for w in group {
            let mut d = w.data.lock();
            d.batch.set_sequence(a.last + 1);
            a.last += u64::from(d.batch.count());
            a.need_sync |= d.opts.sync;
            if d.opts.disable_wal {
                a.unlogged = true;
                continue;
            }
            let Some(writer) = wal.writer.as_mut() else {
                return Err(WalFailure::Refused(Error::ShutdownInProgress(
                    "the database is closed".into(),
                )));
            };
            a.wal_bytes += d.batch.size_in_bytes() as u64;
            a.wal_writes += 1;
            writer
                .add_record(d.batch.data())
                .map_err(WalFailure::Failed)?;
            a.logged = true;
            a.last_logged = a.last;
        }
        Ok(a)
    }

    /// After [`Self::append_group`]: flushes the WAL to the OS, or syncs it
    /// when a writer asked; starts a background sync every
    /// `wal_bytes_per_sync`; fails on an error of a background sync. Any
    /// error fails the WAL. Caller: holding the WAL mutex.
    fn flush_group_wal(&self, wal: &mut WalState, a: &AppendedGroup) -> Result<()> {
        if a.logged {
            wal.unsynced_bytes += a.wal_bytes;
            let sync_timer = if a.need_sync {
                self.stats.timer(Histogram::WalFileSyncMicros)
            } else {
                None
            };
            let r = if a.need_sync {
                self.wal.sync(wal)
            } else {
                wal.writer.as_mut().expect("checked above").flush()
            };
            drop(sync_timer);
            r?;
            if a.need_sync {
                wal.unsynced_bytes = 0;
            }
            // wal_bytes_per_sync (or, without it, every quarter of a
            // memtable): start a background sync, never waited for here
            // (see wal_sync.rs).
            if !a.need_sync && wal.unsynced_bytes >= self.background_wal_sync_bytes() {
                let writer = wal.writer.as_mut().expect("checked above");
                match writer.sync_handle() {
                    Some(h) => self.wal.syncer.request(h),
                    // No handle from this file system: sync inline.
                    None => writer.sync()?,
                }
                wal.unsynced_bytes = 0;
            }
        }
        match self.wal.syncer.take_error() {
            // A background sync of this WAL (or of one before it) failed:
            // what it held may not be durable, so it gets nothing more.
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Adds a logged group to the write-path totals and the statistics:
    /// `keys` entries from `writers` writers.
    fn count_logged_group(&self, a: &AppendedGroup, keys: u64, writers: usize, by_member: bool) {
        let synced = a.logged && a.need_sync;
        let ws = &self.stats.writes;
        ws.wal_writes.add(a.wal_writes);
        ws.wal_bytes.add(a.wal_bytes);
        if synced {
            ws.wal_syncs.add(1);
        }
        ws.writes.add(writers as u64);
        ws.groups.add(1);
        ws.keys.add(keys);
        if self.stats.statistics.is_some() {
            self.stats.tick(Ticker::NumberKeysWritten, keys);
            self.stats.tick(Ticker::WalFileBytes, a.wal_bytes);
            self.stats.tick(Ticker::WriteWithWal, a.wal_writes);
            let by_self = u64::from(by_member);
            self.stats.tick(Ticker::WriteDoneBySelf, by_self);
            self.stats
                .tick(Ticker::WriteDoneByOther, writers as u64 - by_self);
            if synced {
                self.stats.tick(Ticker::WalFileSynced, 1);
            }
        }
    }

    /// Charges the group's size: the delayed-write pacer charges it to the
    /// next group, and the totals count it.
    fn charge_group_bytes(&self, group: &[Arc<Writer>]) {
        let group_bytes: usize = group
            .iter()
            .map(|w| w.data.lock().batch.size_in_bytes())
            .sum();
        self.write_signals
            .prev_group_bytes
            .store(group_bytes as u64, Ordering::Relaxed);
        self.stats.writes.ingest_bytes.add(group_bytes as u64);
        self.stats.tick(Ticker::BytesWritten, group_bytes as u64);
    }

    /// The memtable step of a write group (numbered and logged), before
    /// its sequence is published. Waking a member costs more than
    /// inserting a few entries, so the leader inserts small groups itself;
    /// members insert their own batches in parallel only for large groups.
    fn insert_group(
        &self,
        group: &[Arc<Writer>],
        mem: &Arc<MemTable>,
        multi_family: bool,
        entries: u64,
    ) {
        if multi_family {
            let fams = self.families.load();
            for w in group {
                let mut d = w.data.lock();
                // A one-entry batch was prepared in its family's memtable
                // (`prepare_single_entry`): link it there if that memtable
                // is still the family's current one.
                let seq = d.batch.sequence();
                let linked = d.prepared.take().is_some_and(|(cf, p)| {
                    fams.get(&cf)
                        .is_some_and(|c| c.super_version.load().mem.add_prepared(p, seq))
                });
                if !linked {
                    apply_batch_with(&d.batch, |cf| {
                        fams.get(&cf).map(|c| c.super_version.load().mem.clone())
                    });
                }
                if d.opts.disable_wal {
                    for c in fams.values() {
                        c.super_version.load().mem.mark_unlogged();
                    }
                }
            }
        } else if group.len() == 1 || entries < PARALLEL_INSERT_MIN_ENTRIES {
            for w in group {
                insert_writer(mem, &mut w.data.lock());
            }
        } else {
            let ig = Arc::new(InsertGroup::new(mem.clone(), group.len() - 1));
            for f in &group[1..] {
                f.data.lock().group = Some(ig.clone());
                f.set_state(INSERT);
            }
            insert_writer(mem, &mut group[0].data.lock());
            ig.wait_all();
        }
    }

    pub(crate) fn latch_write_error(&self, e: &Error) {
        let mut st = self.state.lock();
        self.set_bg_error(&mut st, e);
    }

    /// Switches every family whose active memtable is full to a new one,
    /// and, when the live WALs exceed `max_total_wal_size`, the families
    /// holding the oldest log. Never waits: held writes wait in
    /// [`DbInner::delay_write`], which runs after this.
    fn make_room_for_write(self: &Arc<Self>) -> Result<()> {
        if self.wal.too_big.swap(false, Ordering::AcqRel) {
            // max_total_wal_size: flush the families holding the oldest
            // log, so old WALs can go (RocksDB's `SwitchWAL`).
            let mut st = self.state.lock();
            let oldest = st
                .families
                .values()
                .map(|f| f.oldest_log(&f.cfd.super_version.load().mem))
                .min()
                .unwrap_or(0);
            let holding: Vec<u32> = st
                .families
                .iter()
                .filter(|(_, f)| {
                    let mem = f.cfd.super_version.load().mem.clone();
                    !mem.is_empty() && mem.log_number() <= oldest
                })
                .map(|(&id, _)| id)
                .collect();
            if !holding.is_empty() {
                info_log!(
                    self.info_log,
                    Info,
                    "Flushing memtables of {} families: live WALs exceed max_total_wal_size",
                    holding.len()
                );
                self.switch_memtables(&mut st, &holding)?;
            }
            for f in st.families.values_mut() {
                if f.oldest_log(&f.cfd.super_version.load().mem) <= oldest && !f.imm.is_empty() {
                    f.flush_requested = true;
                }
            }
            self.maybe_schedule_work(&mut st);
        }
        let full = |c: &ColumnFamilyData| {
            c.super_version.load().mem.approximate_memory_usage() as usize
                >= c.opts.write_buffer_size
        };
        let fams = self.families.load();
        if !fams.values().any(|c| full(c)) {
            return Ok(());
        }
        let mut st = {
            perf_timer!(db_mutex_lock_nanos);
            self.state.lock()
        };
        if let Some(e) = &st.bg_error {
            return Err(e.clone());
        }
        let which: Vec<u32> = fams
            .iter()
            .filter(|(_, c)| full(c))
            .map(|(&id, _)| id)
            .collect();
        if which.is_empty() {
            return Ok(());
        }
        perf_timer!(write_scheduling_flushes_compactions_time);
        self.switch_memtables(&mut st, &which)
    }

    /// Leader of a switch request: switches if the memtable holds anything
    /// and is not newer than log `up_to_log`.
    fn switch_memtable_now(self: &Arc<Self>, cf: u32, up_to_log: u64) -> Result<()> {
        self.lifecycle.check_open()?;
        let asked = std::time::Instant::now();
        let mut st = self.state.lock();
        let waited = asked.elapsed().as_secs_f64() * 1000.0;
        if waited >= SLOW_GROUP_MILLIS {
            info_log!(
                self.info_log,
                Warn,
                "Slow memtable switch: waited {waited:.1} ms for the DB mutex (writers queue meanwhile)"
            );
        }
        if let Some(e) = &st.bg_error {
            return Err(e.clone());
        }
        let Some(cfd) = st.families.get(&cf).map(|f| f.cfd.clone()) else {
            return Ok(());
        };
        let mem = cfd.super_version.load().mem.clone();
        if mem.is_empty() || mem.log_number() > up_to_log {
            return Ok(());
        }
        self.switch_memtables(&mut st, &[cf])
    }

    /// Leader of a `resume()` request: replaces a failed WAL (and switches
    /// the memtable, so that everything acknowledged so far is flushed).
    fn resume_switch_now(self: &Arc<Self>) -> Result<()> {
        self.lifecycle.check_open()?;
        // A failed switch task (a sync of an older log or of a directory
        // entry) or periodic sync fails the WAL as a failed append does,
        // also when no write has learned of it yet. What the syncer still
        // runs is waited for first, without the DB mutex (writes are
        // refused, so nothing new is queued): a sync failing after the
        // check below would fail the first write after resume() returned
        // Ok (regression test
        // `regression_resume_forgets_a_background_wal_sync_that_failed_before_it`).
        self.wal.syncer.wait_idle();
        let mut st = self.state.lock();
        let failed = self.wal.lock().failed || self.wal.syncer.failed();
        let non_empty: Vec<u32> = st
            .families
            .iter()
            .filter(|(_, f)| !f.cfd.super_version.load().mem.is_empty())
            .map(|(&id, _)| id)
            .collect();
        if !failed && non_empty.is_empty() {
            return Ok(());
        }
        self.switch_memtables_inner(&mut st, &non_empty, failed)?;
        // The numbers a failed group burnt are published now (no entry has
        // them): the new log starts past them, and the manifest edit of
        // resume's flush, which names that log, must record a last sequence
        // its start follows (recovery checks it: module docs of `recovery`).
        let allocated = self.wal.lock().last_allocated;
        self.last_sequence.fetch_max(allocated, Ordering::AcqRel);
        Ok(())
    }

    /// Moves the active memtable of each family in `which` to its
    /// immutable list and starts a new WAL; each of them, and every family
    /// with nothing unflushed (so that its log number moves on and old
    /// logs can go), gets a new memtable on the new WAL. Caller: the
    /// write-group leader, holding the DB mutex.
    pub(crate) fn switch_memtables(
        self: &Arc<Self>,
        st: &mut DbState,
        which: &[u32],
    ) -> Result<()> {
        self.switch_memtables_inner(st, which, false)
    }

    /// [`Self::switch_memtables`]; `abandon_wal`: the current WAL failed and
    /// is dropped without a sync (see [`Self::new_wal`]).
    fn switch_memtables_inner(
        self: &Arc<Self>,
        st: &mut DbState,
        which: &[u32],
        abandon_wal: bool,
    ) -> Result<()> {
        let switch_started = std::time::Instant::now();
        // After a failed WAL the file made ahead is not used: it was made
        // on the disk that failed, and the switch should face that disk now.
        let prepared = self.take_prepared_wal(!abandon_wal);
        let number = match &prepared {
            Some(p) => p.0,
            None => st.versions.new_file_number(),
        };
        // This database's own log from now on: the obsolete-file sweep
        // deletes only logs it knows it wrote (module docs of `files`).
        st.own_logs.insert(number);
        let old = if abandon_wal {
            OldWal::Abandon
        } else {
            OldWal::SyncLater
        };
        let old_log = self.current_wal_number();
        let switched = match self.new_wal(number, old, prepared.map(|p| p.1)) {
            Ok(n) => n,
            Err(e) => {
                self.set_bg_error(st, &e);
                return Err(e);
            }
        };
        st.imm_wal_bytes.push((old_log, switched.old_size));
        let switch_ms = switch_started.elapsed().as_secs_f64() * 1000.0;
        self.wal.imm_bytes.store(
            st.imm_wal_bytes.iter().map(|w| w.1).sum(),
            Ordering::Relaxed,
        );
        self.log_memtable_switch(st, which, (old_log, number), switch_ms, &switched);
        self.move_memtables_to_log(st, which, number);
        self.prepare_next_wal(st);
        self.maybe_schedule_work(st);
        Ok(())
    }

    /// Logs a memtable switch: what the switched memtables held, the logs
    /// (`old_log`, `new_log`), and how long the WAL switch's steps took.
    fn log_memtable_switch(
        &self,
        st: &DbState,
        which: &[u32],
        (old_log, number): (u64, u64),
        switch_ms: f64,
        switched: &WalSwitch,
    ) {
        let mut entries = 0;
        let mut bytes = 0;
        for &cf in which {
            let Some(f) = st.families.get(&cf) else {
                continue;
            };
            let old = f.cfd.super_version.load().mem.clone();
            entries += old.num_entries();
            bytes += old.approximate_memory_usage();
        }
        info_log!(
            self.info_log,
            Info,
            "Switched memtable: {} entries, {} bytes, WAL {} -> {} ({switch_ms:.1} ms: old WAL flush {:.1}, new WAL {} {:.1}, syncs queued {:.1}; {} column families)",
            entries,
            bytes,
            old_log,
            number,
            switched.sync_ms,
            if switched.prepared {
                "made ahead, start"
            } else {
                "create"
            },
            switched.create_ms,
            switched.dir_sync_ms,
            which.len()
        );
    }

    /// The memtable half of a switch: the active memtable of each family
    /// in `which` becomes immutable, and it and every family with an empty
    /// memtable get a new memtable on WAL `number`.
    fn move_memtables_to_log(&self, st: &mut DbState, which: &[u32], number: u64) {
        let ids: Vec<u32> = st.families.keys().copied().collect();
        for cf in ids {
            let f = st.families.get_mut(&cf).expect("listed above");
            let old = f.cfd.super_version.load().mem.clone();
            if which.contains(&cf) && !old.is_empty() {
                old.mark_immutable();
                f.imm.push(old);
            } else if !old.is_empty() {
                // Holds unflushed writes: keeps its memtable (and its log).
                continue;
            }
            // An empty memtable moves to the new log whatever the family's
            // immutable ones hold: its log number is where the family's
            // next write goes, and a flush names it as the family's log
            // number when nothing newer is unflushed. Regression: kept on
            // the old log, a `resume()` after a lost WAL directory made the
            // flush name that lost log (Java test
            // `aLostWalDirectoryStopsWritesUntilResume`).
            self.install_super_version(st, cf, self.new_memtable(number));
        }
    }
}

/// A write group's phases timed by its leader: one chain of readings of
/// the perf-context clock (the time-stamp counter, cheap to read), four
/// per group. The WAL and memtable phases feed the perf context's
/// `write_wal_time` and `write_memtable_time` when its level records them,
/// and a group slower than [`SLOW_GROUP_MILLIS`] is named in the LOG with
/// where its time went: every writer queued behind it waited as long (a
/// put's tail latency is a slow group ahead of it).
struct SlowGroupCheck {
    last: u64,
    ticks: [u64; 4],
    /// The leader thread's perf level, read once per group.
    perf_level: u8,
}

/// A write group at least this slow is logged (milliseconds).
const SLOW_GROUP_MILLIS: f64 = 20.0;

impl SlowGroupCheck {
    fn start() -> Self {
        SlowGroupCheck {
            last: perf_context::clock::now(),
            ticks: [0; 4],
            perf_level: perf_context::level_u8(),
        }
    }

    /// Ends phase `i` (make room, delay, WAL, memtable), adding its length
    /// to the perf-context field `f` if the thread's level records it.
    #[inline]
    fn mark(&mut self, i: usize, f: Option<F>) {
        let now = perf_context::clock::now();
        self.ticks[i] = now.saturating_sub(self.last);
        self.last = now;
        if let Some(f) = f
            && self.perf_level >= f.min_level() as u8
        {
            perf_context::add_unchecked(f, self.ticks[i]);
        }
    }

    /// The phase times in milliseconds, when their sum reaches
    /// [`SLOW_GROUP_MILLIS`].
    fn slow(&self) -> Option<[f64; 4]> {
        let ms = |t: u64| perf_context::clock::ticks_to_nanos(t) as f64 / 1e6;
        (ms(self.ticks.iter().sum()) >= SLOW_GROUP_MILLIS).then(|| self.ticks.map(ms))
    }
}

/// A write group numbered and in the WAL ([`DbInner::log_group`]): its
/// first and last sequence numbers, and whether the WAL was synced for it.
struct LoggedGroup {
    first: SequenceNumber,
    last: SequenceNumber,
    synced: bool,
    /// A batch of the group has records of a family other than the default.
    multi_family: bool,
}

/// What [`DbInner::append_group`] did.
#[derive(Default)]
struct AppendedGroup {
    /// The last sequence number given to the group.
    last: SequenceNumber,
    /// The new `WalState::last_logged`.
    last_logged: SequenceNumber,
    /// A writer asked for `sync`.
    need_sync: bool,
    /// At least one batch went to the WAL.
    logged: bool,
    /// At least one batch was written without the WAL.
    unlogged: bool,
    wal_bytes: u64,
    wal_writes: u64,
}

/// Why a write group's WAL step failed.
enum WalFailure {
    /// Nothing was appended: the WAL is as it was (the database closed).
    Refused(Error),
    /// A WAL write or sync failed: the WAL gets nothing more.
    Failed(Error),
}

/// Groups with fewer entries than this are inserted by their leader alone.
const PARALLEL_INSERT_MIN_ENTRIES: u64 = 256;

/// Inserts a writer's batch (whose sequence is set) into `mem`: links its
/// prepared entry if it was prepared in `mem`, else inserts every record.
fn insert_writer(mem: &MemTable, d: &mut WriterData) {
    let seq = d.batch.sequence();
    // Only default-family batches come here: the prepared entry is in the
    // default family's memtable if in any.
    if !d
        .prepared
        .take()
        .is_some_and(|(_, p)| mem.add_prepared(p, seq))
    {
        apply_batch(mem, &d.batch);
    }
}

/// Inserts every record of `batch` (whose sequence is set, all of the
/// default family) into `mem`.
pub(crate) fn apply_batch(mem: &MemTable, batch: &WriteBatch) {
    mem.add_many(
        (batch.sequence()..)
            .zip(batch.iter())
            // Batches were checked when built or read from the WAL.
            .map(|(seq, op)| entry(seq, op.expect("validated write batch").1)),
    );
}

/// Inserts every record of `batch` (whose sequence is set) into the
/// memtable `mem_of` gives for its family; a record of a family it gives
/// none for (dropped, or already flushed past this log at recovery) is
/// skipped. Each record keeps its sequence number either way.
pub(crate) fn apply_batch_with(
    batch: &WriteBatch,
    mut mem_of: impl FnMut(u32) -> Option<Arc<MemTable>>,
) {
    if !batch.has_families() {
        if let Some(mem) = mem_of(crate::write_batch::DEFAULT_FAMILY) {
            apply_batch(&mem, batch);
        }
        return;
    }
    let mut cur: Option<(u32, Option<Arc<MemTable>>)> = None;
    for (seq, op) in (batch.sequence()..).zip(batch.iter()) {
        let (cf, op) = op.expect("validated write batch");
        if cur.as_ref().is_none_or(|c| c.0 != cf) {
            cur = Some((cf, mem_of(cf)));
        }
        if let Some((_, Some(mem))) = &cur {
            mem.add_many(std::iter::once(entry(seq, op)));
        }
    }
}

fn entry(seq: u64, op: BatchOp<'_>) -> (u64, ValueKind, &[u8], &[u8]) {
    match op {
        BatchOp::Put(k, v) => (seq, ValueKind::Value, k, v),
        BatchOp::Delete(k) => (seq, ValueKind::Deletion, k, &[][..]),
        BatchOp::DeleteRange(b, e) => (seq, ValueKind::RangeDeletion, b, e),
        BatchOp::Merge(k, v) => (seq, ValueKind::Merge, k, v),
        BatchOp::SingleDelete(k) => (seq, ValueKind::SingleDeletion, k, &[][..]),
    }
}
