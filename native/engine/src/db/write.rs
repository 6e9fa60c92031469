//! The write path: group commit (see [`super::write_thread`]), making room
//! in the memtable, and switching memtables.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::write_thread::{DONE, INSERT, InsertGroup, LEADER, WriteKind, Writer};
use super::{DbInner, DbState};
use crate::error::{Error, Result};
use crate::fs::WriteFileOptions;
use crate::info_log;
use crate::key::ValueKind;
use crate::memtable::MemTable;
use crate::options::WriteOptions;
use crate::version::filename;
use crate::wal::LogWriter;
use crate::write_batch::{BatchOp, MAX_BATCH_BYTES, WriteBatch};

impl DbInner {
    pub(crate) fn write(self: &Arc<Self>, wo: &WriteOptions, batch: WriteBatch) -> Result<()> {
        self.check_open()?;
        if batch.is_empty() {
            return Ok(());
        }
        if batch.size_in_bytes() > MAX_BATCH_BYTES {
            return Err(Error::InvalidArgument(format!(
                "write batch of {} bytes exceeds the limit of {MAX_BATCH_BYTES} bytes",
                batch.size_in_bytes()
            )));
        }
        let r = self.run_writer(Writer::new(batch, *wo, WriteKind::Batch));
        self.maybe_purge_obsolete_files();
        r
    }

    /// Switches the memtable through the write queue, so that it happens
    /// between groups (invariant 3 of the module docs).
    pub(crate) fn switch_memtable_in_queue(self: &Arc<Self>) -> Result<()> {
        self.run_writer(Writer::new(
            WriteBatch::new(),
            WriteOptions::default(),
            WriteKind::SwitchMemtable,
        ))
    }

    fn run_writer(self: &Arc<Self>, w: Arc<Writer>) -> Result<()> {
        match self.write_queue.join(&w) {
            LEADER => self.lead_group(&w),
            INSERT => {
                Self::insert_as_member(&w);
                w.await_change(INSERT);
                w.data.lock().result.take().unwrap_or(Ok(()))
            }
            DONE => w.data.lock().result.take().unwrap_or(Ok(())),
            s => unreachable!("writer woke in state {s}"),
        }
    }

    fn insert_as_member(w: &Writer) {
        let group = {
            let d = w.data.lock();
            let group = d.group.clone().expect("INSERT state without a group");
            apply_batch(&group.mem, &d.batch);
            group
        };
        group.member_done();
    }

    fn lead_group(self: &Arc<Self>, leader: &Arc<Writer>) -> Result<()> {
        let group = self.write_queue.build_group(leader);
        let result = if leader.data.lock().kind == WriteKind::SwitchMemtable {
            self.switch_memtable_now()
        } else {
            self.write_group(&group)
        };
        self.write_queue.exit(group.len());
        for f in &group[1..] {
            f.finish(result.clone());
        }
        result
    }

    fn write_group(self: &Arc<Self>, group: &[Arc<Writer>]) -> Result<()> {
        self.check_open()?;
        self.check_bg_error()?;
        let mem = self.make_room_for_write()?;

        // Assign sequence numbers and append to the WAL.
        let last = {
            let mut wal = self.wal.lock();
            let mut seq = wal.last_allocated;
            let mut need_sync = false;
            let mut logged = false;
            let mut unlogged = false;
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
                if let Err(e) = writer.add_record(d.batch.data()) {
                    drop(d);
                    drop(wal);
                    self.latch_write_error(&e);
                    return Err(e);
                }
                logged = true;
            }
            if logged {
                let writer = wal.writer.as_mut().expect("checked above");
                let r = if need_sync {
                    writer.sync()
                } else {
                    writer.flush()
                };
                if let Err(e) = r {
                    drop(wal);
                    self.latch_write_error(&e);
                    return Err(e);
                }
            }
            if unlogged {
                mem.mark_unlogged();
            }
            wal.last_allocated = seq;
            seq
        };

        // Insert into the memtable: every member inserts its own batch.
        if group.len() == 1 {
            apply_batch(&mem, &group[0].data.lock().batch);
        } else {
            let ig = Arc::new(InsertGroup::new(mem.clone(), group.len() - 1));
            for f in &group[1..] {
                f.data.lock().group = Some(ig.clone());
                f.set_state(INSERT);
            }
            apply_batch(&mem, &group[0].data.lock().batch);
            ig.wait_all();
        }
        self.last_sequence.store(last, Ordering::Release);
        Ok(())
    }

    fn latch_write_error(&self, e: &Error) {
        let mut st = self.state.lock();
        self.set_bg_error(&mut st, e);
    }

    /// Returns the memtable the group inserts into, switching to a new one
    /// when the current one is full. Waits while the immutable queue is full.
    fn make_room_for_write(self: &Arc<Self>) -> Result<Arc<MemTable>> {
        let mem = self.super_version.load().mem.clone();
        if (mem.approximate_memory_usage() as usize) < self.opts.write_buffer_size {
            return Ok(mem);
        }
        let mut st = self.state.lock();
        loop {
            if let Some(e) = &st.bg_error {
                return Err(e.clone());
            }
            self.check_open()?;
            let mem = self.super_version.load().mem.clone();
            if (mem.approximate_memory_usage() as usize) < self.opts.write_buffer_size {
                return Ok(mem);
            }
            let max_imm = (self.opts.max_write_buffer_number - 1).max(1) as usize;
            if st.imm.len() >= max_imm {
                // Every memtable is full: wait for a flush to finish.
                info_log!(
                    self.info_log,
                    Debug,
                    "Waiting for flush: {} immutable memtables",
                    st.imm.len()
                );
                self.maybe_schedule_work(&mut st);
                self.bg_cv.wait(&mut st);
                continue;
            }
            self.switch_memtable(&mut st)?;
            return Ok(self.super_version.load().mem.clone());
        }
    }

    /// Leader of a switch request: switches if the memtable holds anything.
    fn switch_memtable_now(self: &Arc<Self>) -> Result<()> {
        self.check_open()?;
        let mut st = self.state.lock();
        if let Some(e) = &st.bg_error {
            return Err(e.clone());
        }
        if self.super_version.load().mem.is_empty() {
            return Ok(());
        }
        self.switch_memtable(&mut st)
    }

    /// Moves the active memtable to the immutable list and starts a new
    /// memtable with a new WAL. Caller: the write-group leader, holding the
    /// DB mutex.
    pub(crate) fn switch_memtable(self: &Arc<Self>, st: &mut DbState) -> Result<()> {
        let number = st.versions.new_file_number();
        if let Err(e) = self.new_wal(number) {
            self.set_bg_error(st, &e);
            return Err(e);
        }
        let old = self.super_version.load().mem.clone();
        info_log!(
            self.info_log,
            Info,
            "Switched memtable: {} entries, {} bytes, WAL {} -> {}",
            old.num_entries(),
            old.approximate_memory_usage(),
            old.log_number(),
            number
        );
        st.imm.push(old);
        self.install_super_version(st, Arc::new(MemTable::new(number)));
        self.maybe_schedule_work(st);
        Ok(())
    }

    /// Starts WAL `number`, syncing the old one first.
    pub(crate) fn new_wal(&self, number: u64) -> Result<()> {
        let mut wal = self.wal.lock();
        if let Some(old) = wal.writer.as_mut() {
            // The old log must be durable before writes land in the new one,
            // or a power loss could keep later writes and lose earlier ones.
            old.sync()?;
        }
        let path = self.wal_dir.join(filename::log_file_name(number));
        let file = self.fs.new_writable(
            &path,
            WriteFileOptions {
                use_fsync: self.opts.use_fsync,
            },
        )?;
        // The new file's directory entry must be durable before a synced
        // write in it is acknowledged.
        self.fs.sync_dir(&self.wal_dir)?;
        wal.writer = Some(LogWriter::new(file, number));
        Ok(())
    }
}

/// Inserts every record of `batch` (whose sequence is set) into `mem`.
pub(crate) fn apply_batch(mem: &MemTable, batch: &WriteBatch) {
    for (seq, op) in (batch.sequence()..).zip(batch.iter()) {
        // Batches were checked when built or read from the WAL.
        match op.expect("validated write batch") {
            BatchOp::Put(k, v) => mem.add(seq, ValueKind::Value, k, v),
            BatchOp::Delete(k) => mem.add(seq, ValueKind::Deletion, k, &[]),
            BatchOp::DeleteRange(b, e) => mem.add(seq, ValueKind::RangeDeletion, b, e),
        }
    }
}
