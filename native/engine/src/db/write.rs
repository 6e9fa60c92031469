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
//! for them instead: a synced write ([`DbInner::sync_wal`]) and the flush
//! edit naming a log ([`DbInner::wait_wal_start_durable`]); recovery stops
//! at the hole a power loss can leave (module docs of `recovery`).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::family::ColumnFamilyData;
use super::write_thread::{
    DONE, INSERT, InsertGroup, LEADER, MAX_COMBINED_GROUPS, MAX_COMBINING_TIME, WriteKind, Writer,
    WriterData,
};
use super::{DbInner, DbState};
use crate::error::{Error, Result};
use crate::fs::{WritableFile, WriteFileOptions};
use crate::info_log;
use crate::key::ValueKind;
use crate::memtable::{MemTable, Prepared};
use crate::options::WriteOptions;
use crate::perf_context::{self, F, StallCause};
use crate::perf_timer;
use crate::statistics::{Histogram, Ticker};
use crate::version::filename;
use crate::wal::LogWriter;
use crate::write_batch::{BatchOp, MAX_BATCH_BYTES, WriteBatch};

impl DbInner {
    pub(crate) fn write(self: &Arc<Self>, wo: &WriteOptions, batch: WriteBatch) -> Result<()> {
        let op = perf_context::op();
        let _timer = perf_context::WriteOpTimer::start_at(op.level());
        self.check_open()?;
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
        if wo.no_slowdown && self.write_condition.load(Ordering::Acquire) != super::stall::NORMAL {
            // A stall is in effect: do not even queue behind it.
            let st = self.state.lock();
            if let Some(c) = st.stall.condition.cause() {
                return Err(Error::Incomplete(format!(
                    "Write stall: writes are held ({}); no_slowdown is set",
                    c.name()
                )));
            }
        }
        let _t = self.timer(Histogram::DbWrite);
        // Writes the gate must not hold: module docs of `write_gate`.
        let slot = if wo.no_slowdown || wo.sync || wo.low_pri {
            None
        } else {
            self.write_gate.enter()
        };
        #[cfg(test)]
        super::test_hooks::run(&super::test_hooks::IN_WRITE_SLOT);
        self.hist(Histogram::BytesPerWrite, batch.size_in_bytes() as u64);
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
    fn prepare_single_entry(&self, batch: &WriteBatch) -> Option<Prepared> {
        if batch.count() != 1 || batch.has_families() {
            return None;
        }
        let (kind, key, value) = match batch.iter().next()? {
            Ok((_, BatchOp::Put(k, v))) => (ValueKind::Value, k, v),
            Ok((_, BatchOp::Delete(k))) => (ValueKind::Deletion, k, &[][..]),
            Ok((_, BatchOp::Merge(k, v))) => (ValueKind::Merge, k, v),
            Ok((_, BatchOp::SingleDelete(k))) => (ValueKind::SingleDeletion, k, &[][..]),
            _ => return None,
        };
        Some(
            self.default_cf
                .super_version
                .load()
                .mem
                .prepare(kind, key, value),
        )
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
                && self.write_condition.load(Ordering::Acquire) == super::stall::NORMAL
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
    /// (not a leader combining it, which counts it done by others).
    fn write_group(self: &Arc<Self>, group: &[Arc<Writer>], by_member: bool) -> Result<()> {
        self.check_open()?;
        self.check_bg_error()?;
        let mut phases = SlowGroupCheck::start();
        self.make_room_for_write()?;
        phases.mark(0, None);
        // Groups are uniform in these options (see WriteQueue::build_group).
        let (no_slowdown, low_pri) = {
            let d = group[0].data.lock();
            (d.opts.no_slowdown, d.opts.low_pri)
        };
        if let Some((micros, held)) = self.delay_write(no_slowdown, low_pri)? {
            self.tick(Ticker::StallMicros, micros);
            self.hist(Histogram::WriteStall, micros);
            let t = match super::stall::held_index(held) {
                0 => Ticker::StallMemtableLimitMicros,
                1 => Ticker::StallL0SlowdownMicros,
                2 => Ticker::StallL0StopMicros,
                _ => Ticker::StallPendingCompactionBytesMicros,
            };
            self.tick(t, micros);
            perf_context::record_stall(
                match super::stall::held_index(held) {
                    0 => StallCause::MemtableLimit,
                    1 => StallCause::L0Slowdown,
                    2 => StallCause::L0Stop,
                    _ => StallCause::PendingCompactionBytes,
                },
                micros,
            );
        }
        phases.mark(1, None);
        // A stop may have ended with a memtable switch by another path;
        // take the memtable that is current now.
        let mem = self.default_cf.super_version.load().mem.clone();
        // A group with records of other families is inserted record by
        // record into each family's memtable, by the leader.
        let multi_family = group.iter().any(|w| w.data.lock().batch.has_families());

        // Assign sequence numbers and append to the WAL.
        let first_seq;
        let (last, synced) = {
            let mut wal = self.wal.lock();
            // Closing stops writes under this lock (DbInner::begin_close):
            // after the check, this group's numbers and unlogged mark are
            // taken before its final flush looks.
            self.check_writes_open()?;
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
            let group_end = wal.last_allocated
                + group
                    .iter()
                    .map(|w| u64::from(w.data.lock().batch.count()))
                    .sum::<u64>();
            let mut seq = wal.last_allocated;
            first_seq = seq + 1;
            let mut need_sync = false;
            let mut logged = false;
            let mut unlogged = false;
            let mut wal_bytes = 0u64;
            let mut wal_writes = 0u64;
            let mut last_logged = wal.last_logged;
            for w in group {
                let mut d = w.data.lock();
                d.batch.set_sequence(seq + 1);
                seq += u64::from(d.batch.count());
                need_sync |= d.opts.sync;
                if d.opts.disable_wal {
                    unlogged = true;
                    continue;
                }
                let Some(writer) = wal.writer.as_mut() else {
                    return Err(Error::ShutdownInProgress("the database is closed".into()));
                };
                wal_bytes += d.batch.size_in_bytes() as u64;
                wal_writes += 1;
                if let Err(e) = writer.add_record(d.batch.data()) {
                    drop(d);
                    wal.failed = true;
                    wal.last_allocated = group_end;
                    drop(wal);
                    self.latch_write_error(&e);
                    return Err(e);
                }
                logged = true;
                last_logged = seq;
            }
            if logged {
                wal.unsynced_bytes += wal_bytes;
                let sync_timer = if need_sync {
                    self.timer(Histogram::WalFileSyncMicros)
                } else {
                    None
                };
                let r = if need_sync {
                    self.sync_wal(&mut wal)
                } else {
                    wal.writer.as_mut().expect("checked above").flush()
                };
                drop(sync_timer);
                if need_sync && r.is_ok() {
                    wal.unsynced_bytes = 0;
                }
                if let Err(e) = r {
                    wal.failed = true;
                    wal.last_allocated = group_end;
                    drop(wal);
                    self.latch_write_error(&e);
                    return Err(e);
                }
                // wal_bytes_per_sync (or, without it, every quarter of a
                // memtable): start a background sync, never waited for here
                // (see wal_sync.rs).
                if !need_sync && wal.unsynced_bytes >= self.background_wal_sync_bytes() {
                    let writer = wal.writer.as_mut().expect("checked above");
                    match writer.sync_handle() {
                        Some(h) => self.wal_syncer.request(h),
                        // No handle from this file system: sync inline.
                        None => {
                            if let Err(e) = writer.sync() {
                                wal.failed = true;
                                wal.last_allocated = group_end;
                                drop(wal);
                                self.latch_write_error(&e);
                                return Err(e);
                            }
                        }
                    }
                    wal.unsynced_bytes = 0;
                }
            }
            if let Some(e) = self.wal_syncer.take_error() {
                // A background sync of this WAL (or of one before it) failed:
                // what it held may not be durable, so it gets nothing more.
                wal.failed = true;
                wal.last_allocated = group_end;
                drop(wal);
                self.latch_write_error(&e);
                return Err(e);
            }
            if unlogged {
                mem.mark_unlogged();
            }
            if logged && !self.opts.manual_flush_enabled {
                let live = wal.writer.as_ref().map_or(0, |w| w.file_size())
                    + self.imm_wal_bytes.load(Ordering::Relaxed);
                if live > self.max_total_wal_size() {
                    self.wal_too_big.store(true, Ordering::Release);
                }
            }
            let ws = &self.write_stats;
            ws.wal_writes.add(wal_writes);
            ws.wal_bytes.add(wal_bytes);
            if logged && need_sync {
                ws.wal_syncs.add(1);
            }
            ws.writes.add(group.len() as u64);
            ws.groups.add(1);
            ws.keys.add(seq - wal.last_allocated);
            if self.statistics.is_some() {
                self.tick(Ticker::NumberKeysWritten, seq - wal.last_allocated);
                self.tick(Ticker::WalFileBytes, wal_bytes);
                self.tick(Ticker::WriteWithWal, wal_writes);
                let by_self = u64::from(by_member);
                self.tick(Ticker::WriteDoneBySelf, by_self);
                self.tick(Ticker::WriteDoneByOther, group.len() as u64 - by_self);
                if logged && need_sync {
                    self.tick(Ticker::WalFileSynced, 1);
                }
            }
            wal.last_allocated = seq;
            wal.last_logged = last_logged;
            (seq, logged && need_sync)
        };
        if synced && self.wal_tracker.closed_unrecorded() {
            // The first sync since a log was closed: the closed logs go into
            // the manifest before this group is acknowledged (module docs of
            // `wal_track`), once per memtable switch.
            self.record_closed_wals();
        }
        phases.mark(2, Some(F::write_wal_time));
        let group_bytes: usize = group
            .iter()
            .map(|w| w.data.lock().batch.size_in_bytes())
            .sum();
        self.prev_group_bytes
            .store(group_bytes as u64, Ordering::Relaxed);
        self.write_stats.ingest_bytes.add(group_bytes as u64);
        self.tick(Ticker::BytesWritten, group_bytes as u64);

        // Insert into the memtable. Waking a member costs more than inserting
        // a few entries, so the leader inserts small groups itself; members
        // insert their own batches in parallel only for large groups.
        let entries: u64 = last - first_seq + 1;
        if multi_family {
            let fams = self.families.load();
            for w in group {
                let mut d = w.data.lock();
                d.prepared = None;
                apply_batch_with(&d.batch, |cf| {
                    fams.get(&cf).map(|c| c.super_version.load().mem.clone())
                });
                if d.opts.disable_wal {
                    for c in fams.values() {
                        c.super_version.load().mem.mark_unlogged();
                    }
                }
            }
        } else if group.len() == 1 || entries < PARALLEL_INSERT_MIN_ENTRIES {
            for w in group {
                insert_writer(&mem, &mut w.data.lock());
            }
        } else {
            let ig = Arc::new(InsertGroup::new(mem.clone(), group.len() - 1));
            for f in &group[1..] {
                f.data.lock().group = Some(ig.clone());
                f.set_state(INSERT);
            }
            insert_writer(&mem, &mut group[0].data.lock());
            ig.wait_all();
        }
        phases.mark(3, Some(F::write_memtable_time));
        self.last_sequence.store(last, Ordering::Release);
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

    pub(crate) fn latch_write_error(&self, e: &Error) {
        let mut st = self.state.lock();
        self.set_bg_error(&mut st, e);
    }

    /// Switches every family whose active memtable is full to a new one,
    /// and, when the live WALs exceed `max_total_wal_size`, the families
    /// holding the oldest log. Never waits: held writes wait in
    /// [`DbInner::delay_write`], which runs after this.
    fn make_room_for_write(self: &Arc<Self>) -> Result<()> {
        if self.wal_too_big.swap(false, Ordering::AcqRel) {
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
        self.check_open()?;
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
        self.check_open()?;
        let mut st = self.state.lock();
        // A failed switch task (a background sync of an older log or of a
        // directory entry) fails the WAL as a failed append does.
        let failed = self.wal.lock().failed || self.wal_syncer.task_failed();
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
        self.imm_wal_bytes.store(
            st.imm_wal_bytes.iter().map(|w| w.1).sum(),
            Ordering::Relaxed,
        );
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
        self.prepare_next_wal(st);
        self.maybe_schedule_work(st);
        Ok(())
    }

    /// Takes the WAL file made ahead by [`Self::prepare_next_wal`], if it
    /// is ready, and cancels a preparation still queued. Without `use_it`
    /// the file is removed. Every new WAL goes through here: a file made
    /// ahead must never outlive the switch after it, or it could become
    /// the live log with a number below the log before it (logs replay in
    /// number order).
    pub(crate) fn take_prepared_wal(&self, use_it: bool) -> Option<(u64, Box<dyn WritableFile>)> {
        let mut slot = self.prepared_wal.lock();
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
        self.prepared_wal.lock().wanted = Some(number);
        let slot = self.prepared_wal.clone();
        let fs = self.fs.clone();
        let path = self.wal_dir.join(filename::log_file_name(number));
        let (opts, reserve) = (self.wal_file_options(), self.wal_reservation());
        self.wal_syncer.enqueue(Box::new(move || {
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
    /// depends on them before a synced write ([`Self::sync_wal`] waits for
    /// them) or before a manifest edit names this log (the flush waits,
    /// [`Self::wait_wal_start_durable`]). [`OldWal::SyncNow`] (open) and
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

    fn new_wal_locked(
        &self,
        wal: &mut super::WalState,
        number: u64,
        old: OldWal,
        prepared: Option<Box<dyn WritableFile>>,
    ) -> Result<WalSwitch> {
        let ms_since = |t: std::time::Instant| t.elapsed().as_secs_f64() * 1000.0;
        let mut switched = WalSwitch::default();
        let t = std::time::Instant::now();
        let old_number = wal.writer.as_ref().map(LogWriter::number);
        if let Some(w) = wal.writer.as_mut() {
            switched.old_size = w.file_size();
            match old {
                OldWal::Abandon => self.wal_tracker.abandoned(w.number()),
                _ => self
                    .wal_tracker
                    .closed(w.number(), switched.old_size, wal.last_logged),
            }
            match old {
                OldWal::SyncNow => {
                    // The old log must be durable before writes land in the
                    // new one, or a power loss could keep later writes and
                    // lose earlier ones; so must the logs before it.
                    self.wal_syncer.wait_for_all()?;
                    w.sync()?;
                }
                OldWal::SyncLater => w.flush()?,
                OldWal::Abandon => {
                    // Let queued switch tasks finish; a failure among them is
                    // what resume() repairs: the memtables holding those
                    // logs' writes are flushed before a new write is taken,
                    // and this log's start is durable before it returns.
                    let _ = self.wal_syncer.wait_for_all();
                    self.wal_syncer.clear_task_failure();
                    wal.switch_syncs.clear();
                }
            }
        }
        switched.sync_ms = ms_since(t);
        let t = std::time::Instant::now();
        switched.prepared = prepared.is_some();
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
        self.wal_tracker.started(number, start_size, false);
        // What the switch makes durable, for the manifest's WAL tracking:
        // the old log whole (unless abandoned), this log's start.
        let synced_old = old_number.filter(|_| old != OldWal::Abandon);
        switched.create_ms = ms_since(t);
        let t = std::time::Instant::now();
        let handle = writer.sync_handle();
        match (old, handle) {
            (OldWal::SyncLater, Some(mut handle)) => {
                let old_writer = wal.writer.take();
                let fs = self.fs.clone();
                let dir = self.wal_dir.clone();
                let tracker = self.wal_tracker.clone();
                let ticket = self.wal_syncer.enqueue(Box::new(move || {
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
                let done = self.wal_syncer.tasks_done();
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
                self.wal_tracker.switch_done(synced_old, number, start_size);
            }
        }
        switched.dir_sync_ms = ms_since(t);
        wal.writer = Some(writer);
        wal.unsynced_bytes = 0;
        wal.failed = false;
        Ok(switched)
    }

    /// Syncs the current WAL, after the switch tasks of the logs before it
    /// (their tails and directory entries).
    pub(crate) fn sync_wal(&self, wal: &mut super::WalState) -> Result<()> {
        if let Some(&(_, ticket)) = wal.switch_syncs.back() {
            self.wal_syncer.wait_for(ticket)?;
        }
        match wal.writer.as_mut() {
            Some(w) => {
                w.sync()?;
                self.wal_tracker.synced(w.number(), w.file_size());
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// Waits until log `number`'s switch task (the old log's tail, this
    /// log's first record and directory entry) is done: before a manifest
    /// edit names `number` as the log number, recovery's starting point.
    pub(crate) fn wait_wal_start_durable(&self, number: u64) -> Result<()> {
        let ticket = self
            .wal
            .lock()
            .switch_syncs
            .iter()
            .find(|&&(n, _)| n == number)
            .map(|&(_, t)| t);
        match ticket {
            Some(t) => self.wal_syncer.wait_for(t),
            None => Ok(()),
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
    prepared: bool,
    sync_ms: f64,
    create_ms: f64,
    dir_sync_ms: f64,
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

/// Groups with fewer entries than this are inserted by their leader alone.
const PARALLEL_INSERT_MIN_ENTRIES: u64 = 256;

impl DbInner {
    /// WAL bytes between background syncs: `wal_bytes_per_sync`, or a
    /// quarter of the write buffer (at least 1 MiB) when that is 0.
    fn background_wal_sync_bytes(&self) -> u64 {
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

/// Inserts a writer's batch (whose sequence is set) into `mem`: links its
/// prepared entry if it was prepared in `mem`, else inserts every record.
fn insert_writer(mem: &MemTable, d: &mut WriterData) {
    let seq = d.batch.sequence();
    if !d.prepared.take().is_some_and(|p| mem.add_prepared(p, seq)) {
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
