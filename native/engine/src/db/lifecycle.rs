//! The database's lifecycle: open, closing, closed, and the flag of a
//! latched background error; closing itself (`begin_close`, `close`) and
//! latching a background error.
//!
//! Thread-safety contract of [`Lifecycle`]: flags set once (apart from
//! `has_bg_error`, which `resume()` clears), read with atomic loads on
//! every call; `dir_locks` is a leaf mutex taken only at close.
//!
//! Invariants:
//! 1. The flags only move forward, in this order: `closing` (close began),
//!    `writes_stopped` (set under the WAL mutex: a write group that takes
//!    that mutex afterwards fails), `shutting_down` (every new call fails
//!    with `ShutdownInProgress`; also set by a failed open), `closed`.
//! 2. `has_bg_error` is true exactly while `DbState::bg_error` is set: both
//!    change under the DB mutex, so a reader seeing the flag false may skip
//!    the mutex, and one seeing it true takes the mutex for the error.
//! 3. The directory locks are held from open until the end of `close`,
//!    after the last write to the directory.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;

use super::family::ColumnFamilyData;
use super::{DbInner, DbState, FlushOptions};
use crate::error::{Error, Result};
use crate::fs::FileLock;
use crate::info_log;

/// Where the database is in its life (module docs).
pub(crate) struct Lifecycle {
    /// New calls fail with `ShutdownInProgress` (invariant 1).
    shutting_down: AtomicBool,
    /// Set by closing, under the WAL lock, before its final flush: a write
    /// group that takes the WAL lock afterwards fails with
    /// `ShutdownInProgress`, so every acknowledged write is in the WAL or in
    /// a memtable that final flush sees.
    writes_stopped: AtomicBool,
    closing: AtomicBool,
    closed: AtomicBool,
    /// Mirror of `DbState::bg_error.is_some()` (invariant 2).
    pub(crate) has_bg_error: AtomicBool,
    /// The locks held while open: `LOCK` in the database directory, and in
    /// the `wal_dir` when that is another directory (invariant 3).
    dir_locks: Mutex<Vec<Box<dyn FileLock>>>,
}

impl Lifecycle {
    /// An open database holding `dir_locks`.
    pub(crate) fn new(dir_locks: Vec<Box<dyn FileLock>>) -> Self {
        Lifecycle {
            shutting_down: AtomicBool::new(false),
            writes_stopped: AtomicBool::new(false),
            closing: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            has_bg_error: AtomicBool::new(false),
            dir_locks: Mutex::new(dir_locks),
        }
    }

    /// `ShutdownInProgress` once closing has stopped new calls.
    #[inline]
    pub(crate) fn check_open(&self) -> Result<()> {
        if self.is_shutting_down() {
            return Err(Error::ShutdownInProgress("the database is closed".into()));
        }
        Ok(())
    }

    /// Fails once closing has stopped writes (see `writes_stopped`).
    #[inline]
    pub(crate) fn check_writes_open(&self) -> Result<()> {
        if self.writes_stopped() {
            return Err(Error::ShutdownInProgress(
                "the database is closing: writes are stopped".into(),
            ));
        }
        Ok(())
    }

    /// New calls fail (invariant 1).
    #[inline]
    pub(crate) fn is_shutting_down(&self) -> bool {
        self.shutting_down.load(Ordering::Acquire)
    }

    /// Closing has stopped writes.
    #[inline]
    pub(crate) fn writes_stopped(&self) -> bool {
        self.writes_stopped.load(Ordering::Acquire)
    }

    /// Makes every new call fail with `ShutdownInProgress`.
    pub(crate) fn shut_down(&self) {
        self.shutting_down.store(true, Ordering::Release);
    }
}

impl DbInner {
    /// First step of closing (idempotent): stops writes, flushes memtables
    /// holding writes made without the WAL (while background work can still
    /// run), then makes new calls fail with `ShutdownInProgress` and wakes
    /// writers waiting for room.
    ///
    /// Writes stop first (regression test
    /// `regression_close_keeps_unlogged_writes_acknowledged_while_it_flushed`):
    /// when the flush came first, writes made without the WAL while it ran
    /// (calls already past their open check, or a group sleeping in a write
    /// delay) went into the new memtable, were acknowledged, and were lost
    /// at close. The flag is set under the WAL lock, where a group takes its
    /// sequence numbers and marks its memtable unlogged, so a group either
    /// did both before (the flush's memtable switch, queued behind it, waits
    /// for its inserts) or fails.
    pub(super) fn begin_close(self: &Arc<Self>) -> Result<()> {
        if self.lifecycle.closing.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        {
            let _wal = self.wal.lock();
            self.lifecycle.writes_stopped.store(true, Ordering::Release);
        }
        let unlogged = self.has_unlogged_writes() && !self.lifecycle.is_shutting_down();
        let resumed = {
            let mut st = self.state.lock();
            // Writers held by a stall wake and fail (writes_stopped).
            self.bg_cv.notify_all();
            // Paused background work would never run the flush below (its
            // wait would end in `Incomplete`, the writes lost).
            let paused = unlogged && st.paused > 0;
            if paused {
                st.paused = 0;
            }
            paused
        };
        if resumed {
            info_log!(
                self.info_log,
                Warn,
                "Close: background work was paused; resumed to flush writes made without the WAL"
            );
        }
        let mut result = Ok(());
        if unlogged {
            for cfd in self.families.load().values() {
                if !family_has_unlogged_writes(cfd) {
                    continue;
                }
                let r = self.flush_cf(
                    &FlushOptions {
                        wait: true,
                        // Writes are stopped: nothing a stall would protect.
                        allow_write_stall: true,
                    },
                    cfd,
                );
                if result.is_ok() {
                    result = r;
                }
            }
        }
        self.lifecycle.shut_down();
        let _st = self.state.lock();
        self.bg_cv.notify_all();
        result
    }

    pub(super) fn close(self: &Arc<Self>) -> Result<()> {
        if self.lifecycle.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        let mut result = self.begin_close();
        {
            let mut st = self.state.lock();
            while st.flush_running || st.compactions_running > 0 || st.manual_compactions > 0 {
                self.bg_cv.wait(&mut st);
            }
        }
        self.shutdown_background();
        // The WAL file made ahead holds nothing (its queued preparation ran
        // in the shutdown above).
        drop(self.take_prepared_wal(false));
        // Every switch task has run: the closed logs are synced whole. One
        // edit records them and the live log's synced size, so that a log
        // lost or cut while the database is closed fails the next open
        // instead of being taken for an unsynced tail (`wal_track`).
        if self.mode.is_primary() {
            self.record_wals_at_close();
            // Tables left to readers that have let go since (those still
            // reading keep theirs: they are in live versions).
            let obsolete = self.collect_obsolete_files(&mut self.state.lock());
            self.delete_files(obsolete);
        }
        // Wait for the writer in progress, if any, by taking the WAL lock.
        let mut wal = self.wal.lock();
        // A failed WAL gets nothing more, not even its buffered bytes (they
        // may end in part of a record); what was acknowledged reached the OS.
        let failed = wal.failed;
        if let Some(w) = wal.writer.as_mut().filter(|_| !failed) {
            let r = w.flush();
            if result.is_ok() {
                result = r;
            }
        }
        wal.writer = None;
        drop(wal);
        info_log!(self.info_log, Info, "DB closed");
        self.info_log.sync();
        self.lifecycle.dir_locks.lock().clear();
        result
    }

    /// Stops the background threads (the WAL syncer's queued tasks run
    /// first); new calls fail from now on.
    pub(super) fn shutdown_background(&self) {
        self.lifecycle.shut_down();
        self.stats.dumper.stop();
        self.pools.shutdown();
        self.wal.syncer.shutdown();
    }

    fn has_unlogged_writes(&self) -> bool {
        self.families
            .load()
            .values()
            .any(|c| family_has_unlogged_writes(c))
    }

    /// Latches `e` as the background error: writes fail with it until
    /// `resume()` or reopen (invariant 2).
    pub(crate) fn set_bg_error(&self, st: &mut DbState, e: &Error) {
        st.bg_error_count += 1;
        st.last_bg_error = Some(e.clone());
        if st.bg_error.is_none() {
            info_log!(
                self.info_log,
                Error,
                "Background error latched, writes now fail: {e}"
            );
            st.bg_error = Some(e.clone());
            self.lifecycle.has_bg_error.store(true, Ordering::Release);
        }
        self.bg_cv.notify_all();
    }

    /// The latched background error, if any: one atomic load when there is
    /// none (invariant 2).
    pub(crate) fn check_bg_error(&self) -> Result<()> {
        if !self.lifecycle.has_bg_error.load(Ordering::Acquire) {
            return Ok(());
        }
        match self.state.lock().bg_error.clone() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Whether a family's memtables hold writes made without the WAL.
fn family_has_unlogged_writes(cfd: &ColumnFamilyData) -> bool {
    let sv = cfd.super_version.load();
    sv.mem.has_unlogged_writes() || sv.imm.iter().any(|m| m.has_unlogged_writes())
}
