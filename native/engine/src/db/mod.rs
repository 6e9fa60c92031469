//! The database: open and recovery, the write path (group commit), the read
//! path, and close.
//!
//! Thread-safety contract: [`Db`] is `Send + Sync`; every method may be
//! called from any number of threads at once. Writers serialise only in the
//! group-commit queue ([`write_thread`]); readers take no lock: they load the
//! published sequence number and the current memtable with atomic loads.
//!
//! Invariants:
//! 1. `last_sequence` (published) ≤ the sequence of every entry a reader can
//!    be handed; entries of a group become visible all at once when the
//!    leader publishes the group's last sequence number.
//! 2. A write is in the WAL (flushed to the OS, and synced when asked)
//!    before it is inserted into the memtable and before it is acknowledged.
//! 3. Sequence numbers are assigned by the group leader only, in queue order.

mod bg;
pub mod compaction_iter;
pub mod db_iter;
mod recovery;
mod write_thread;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use arc_swap::ArcSwap;
use parking_lot::Mutex;

use crate::error::{Error, Result};
use crate::fs::{FileLock, FileSystem, WriteFileOptions};
use crate::info_log;
use crate::key::{SequenceNumber, ValueKind};
use crate::logger::{InfoLog, InfoLogOptions};
use crate::memtable::{Lookup, MemTable};
use crate::options::{Options, ReadOptions, WriteOptions};
use crate::wal::LogWriter;
use crate::write_batch::{BatchOp, MAX_BATCH_BYTES, WriteBatch};

use write_thread::{DONE, INSERT, InsertGroup, LEADER, WriteQueue, Writer};

/// Name of the WAL file with number `n`.
pub(crate) fn log_file_name(n: u64) -> String {
    format!("{n:06}.log")
}

/// The write-ahead log being appended to, owned by the group leader.
struct WalState {
    writer: Option<LogWriter>,
    /// Last sequence number handed out (≥ the published one).
    last_allocated: SequenceNumber,
    /// Next file number to use.
    next_file_number: u64,
}

/// What readers need, swapped atomically.
struct SuperVersion {
    mem: Arc<MemTable>,
}

pub(crate) struct DbInner {
    path: PathBuf,
    wal_dir: PathBuf,
    opts: Options,
    fs: Arc<dyn FileSystem>,
    lock: Mutex<Option<Box<dyn FileLock>>>,
    info_log: InfoLog,
    super_version: ArcSwap<SuperVersion>,
    last_sequence: AtomicU64,
    write_queue: WriteQueue,
    wal: Mutex<WalState>,
    closed: AtomicBool,
    /// The first error of a failed WAL write; writers get it until reopen.
    bg_error: Mutex<Option<Error>>,
    has_bg_error: AtomicBool,
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

impl Db {
    /// Opens (or, with `create_if_missing`, creates) the database at `path`.
    pub fn open(opts: Options, path: impl AsRef<Path>) -> Result<Db> {
        Self::open_with_log(opts, path.as_ref(), InfoLogOptions::default())
    }

    /// Opens with explicit info-log settings.
    pub fn open_with_log(mut opts: Options, path: &Path, log_opts: InfoLogOptions) -> Result<Db> {
        opts.validate()?;
        let notes = opts.sanitize();
        let fs = opts.fs.clone();
        if path.as_os_str().is_empty() {
            return Err(Error::InvalidArgument(
                "database path must not be empty".into(),
            ));
        }
        if fs.exists(path) && !fs.is_dir(path) {
            return Err(Error::InvalidArgument(format!(
                "{} exists and is not a directory",
                path.display()
            )));
        }
        let exists = fs.exists(&path.join("CURRENT")) || fs.exists(&path.join("IDENTITY"));
        if !exists && !opts.create_if_missing {
            return Err(Error::InvalidArgument(format!(
                "{}: does not exist (create_if_missing is false)",
                path.display()
            )));
        }
        if exists && opts.error_if_exists {
            return Err(Error::InvalidArgument(format!(
                "{}: exists (error_if_exists is true)",
                path.display()
            )));
        }
        fs.create_dir_all(path)?;
        let wal_dir = opts.wal_dir.clone().unwrap_or_else(|| path.to_path_buf());
        fs.create_dir_all(&wal_dir)?;
        // Take the lock before touching anything else in the directory.
        let lock = fs.lock_file(&path.join("LOCK"))?;
        let info_log = InfoLog::open(fs.clone(), path, log_opts)?;
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

        let recovered = recovery::recover(&*fs, path, &wal_dir, &opts, &info_log, exists)?;
        let inner = DbInner {
            path: path.to_path_buf(),
            wal_dir,
            fs,
            lock: Mutex::new(Some(lock)),
            info_log,
            super_version: ArcSwap::from_pointee(SuperVersion {
                mem: Arc::new(recovered.mem),
            }),
            last_sequence: AtomicU64::new(recovered.last_sequence),
            write_queue: WriteQueue::default(),
            wal: Mutex::new(WalState {
                writer: None,
                last_allocated: recovered.last_sequence,
                next_file_number: recovered.next_file_number,
            }),
            closed: AtomicBool::new(false),
            bg_error: Mutex::new(None),
            has_bg_error: AtomicBool::new(false),
            opts,
        };
        inner.new_wal()?;
        info_log!(
            inner.info_log,
            Info,
            "DB opened: last sequence {}, recovered {} entries from {} logs",
            recovered.last_sequence,
            recovered.entries,
            recovered.logs
        );
        Ok(Db {
            inner: Arc::new(inner),
        })
    }

    /// The database directory.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The options the database runs with (after sanitizing).
    pub fn options(&self) -> &Options {
        &self.inner.opts
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

    /// Deletes every key in `[begin, end)`.
    pub fn delete_range(&self, wo: &WriteOptions, begin: &[u8], end: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.delete_range(begin, end);
        self.write(wo, b)
    }

    /// Applies `batch` atomically.
    pub fn write(&self, wo: &WriteOptions, batch: WriteBatch) -> Result<()> {
        self.inner.write(wo, batch)
    }

    /// Reads `key`; `None` when absent.
    pub fn get(&self, ro: &ReadOptions, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let mut v = Vec::new();
        Ok(self.get_into(ro, key, &mut v)?.then_some(v))
    }

    /// Reads `key` into `value_out`; returns whether it was found.
    pub fn get_into(&self, ro: &ReadOptions, key: &[u8], value_out: &mut Vec<u8>) -> Result<bool> {
        self.inner.get_into(ro, key, value_out)
    }

    /// The newest published sequence number.
    pub fn latest_sequence_number(&self) -> SequenceNumber {
        self.inner.last_sequence.load(Ordering::Acquire)
    }

    /// Writes the WAL buffer to its file, and syncs it when `sync`.
    pub fn flush_wal(&self, sync: bool) -> Result<()> {
        self.inner.check_open()?;
        let mut wal = self.inner.wal.lock();
        if let Some(w) = wal.writer.as_mut() {
            if sync { w.sync() } else { w.flush() }?;
        }
        Ok(())
    }

    /// Closes the database: later calls fail with `ShutdownInProgress`. The
    /// WAL buffer reaches the OS (it always does after each write), but it is
    /// not synced, as in RocksDB. Idempotent.
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
    fn check_open(&self) -> Result<()> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::ShutdownInProgress("the database is closed".into()));
        }
        Ok(())
    }

    fn close(&self) -> Result<()> {
        if self.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        // Wait for the writer in progress, if any, by taking the WAL lock.
        let mut wal = self.wal.lock();
        let r = match wal.writer.as_mut() {
            Some(w) => w.flush(),
            None => Ok(()),
        };
        wal.writer = None;
        drop(wal);
        info_log!(self.info_log, Info, "DB closed");
        self.info_log.sync();
        self.lock.lock().take();
        r
    }

    fn set_bg_error(&self, e: &Error) {
        let mut g = self.bg_error.lock();
        if g.is_none() {
            info_log!(
                self.info_log,
                Error,
                "Background error latched, writes now fail: {e}"
            );
            *g = Some(e.clone());
            self.has_bg_error.store(true, Ordering::Release);
        }
    }

    fn check_bg_error(&self) -> Result<()> {
        if !self.has_bg_error.load(Ordering::Acquire) {
            return Ok(());
        }
        match self.bg_error.lock().clone() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Starts a new WAL file. Caller holds no other lock.
    fn new_wal(&self) -> Result<()> {
        let mut wal = self.wal.lock();
        if let Some(old) = wal.writer.as_mut() {
            // The old log must be durable before writes land in the new one,
            // or a power loss could keep later writes and lose earlier ones.
            old.sync()?;
        }
        let number = wal.next_file_number;
        wal.next_file_number += 1;
        let path = self.wal_dir.join(log_file_name(number));
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
        info_log!(self.info_log, Info, "New WAL {}", path.display());
        Ok(())
    }

    fn write(&self, wo: &WriteOptions, batch: WriteBatch) -> Result<()> {
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
        let w = Writer::new(batch, *wo);
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

    fn lead_group(&self, leader: &Arc<Writer>) -> Result<()> {
        let group = self.write_queue.build_group(leader);
        let result = self.write_group(&group);
        self.write_queue.exit(group.len());
        for f in &group[1..] {
            f.finish(result.clone());
        }
        result
    }

    fn write_group(&self, group: &[Arc<Writer>]) -> Result<()> {
        self.check_open()?;
        self.check_bg_error()?;
        let mem = self.super_version.load().mem.clone();

        // Assign sequence numbers and append to the WAL.
        let last = {
            let mut wal = self.wal.lock();
            let mut seq = wal.last_allocated;
            let mut need_sync = false;
            let mut logged = false;
            for w in group {
                let mut d = w.data.lock();
                d.batch.set_sequence(seq + 1);
                seq += u64::from(d.batch.count());
                need_sync |= d.opts.sync;
                if !d.opts.disable_wal {
                    let Some(writer) = wal.writer.as_mut() else {
                        return Err(Error::ShutdownInProgress("the database is closed".into()));
                    };
                    if let Err(e) = writer.add_record(d.batch.data()) {
                        self.set_bg_error(&e);
                        return Err(e);
                    }
                    logged = true;
                }
            }
            if logged {
                let writer = wal.writer.as_mut().expect("checked above");
                let r = if need_sync {
                    writer.sync()
                } else {
                    writer.flush()
                };
                if let Err(e) = r {
                    self.set_bg_error(&e);
                    return Err(e);
                }
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

    fn get_into(&self, ro: &ReadOptions, key: &[u8], value_out: &mut Vec<u8>) -> Result<bool> {
        self.check_open()?;
        let snapshot = ro
            .snapshot
            .unwrap_or_else(|| self.last_sequence.load(Ordering::Acquire));
        let sv = self.super_version.load();
        let tomb = sv.mem.max_covering_tombstone(key, snapshot);
        match sv.mem.get(key, snapshot, value_out) {
            Lookup::Value(seq) if tomb.is_none_or(|t| t < seq) => Ok(true),
            _ => Ok(false),
        }
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

#[cfg(test)]
mod tests;
