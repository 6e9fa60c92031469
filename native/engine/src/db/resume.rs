//! `resume()`: leaving the background-error state once its cause is gone.
//!
//! A failed WAL write or sync, memtable switch, flush, compaction or
//! manifest write latches a *background error* ([`DbInner::set_bg_error`]):
//! from then on writes, flushes and manual compactions fail with it, no
//! background job is scheduled, and reads go on (the database is
//! read-only). `rocksdb.background-errors` counts every such failure.
//! Reopening clears it; so does `resume()`, RocksDB's `DB::Resume`:
//!
//! 1. An error that is not an IO error (a corruption found by a job) is not
//!    recoverable: `resume()` returns it and the database stays read-only.
//! 2. Running jobs are waited for; new ones stay off.
//! 3. In the write queue, between groups (no write is in flight), once the
//!    WAL syncer thread is idle: if the WAL failed (an append or sync of a
//!    write group, or any of the syncer's syncs, even one no write has
//!    learned of yet), it is abandoned *without a sync*, the syncer's
//!    failures are forgotten, and a new WAL is started; the active memtable
//!    is switched out when it holds anything.
//! 4. Every immutable memtable is flushed. This is what makes the writes
//!    acknowledged before the failure safe whatever the failed WAL holds: a
//!    failed sync may have dropped pages that no later sync would report,
//!    and a failed append may have left part of a record. Once the flush's
//!    manifest edit is durable, the old WALs are obsolete and never
//!    replayed. Writes still fail during this step, so no write can land in
//!    the new WAL while recovery could still need the old one (a point-in-time
//!    recovery stopping at the old WAL's torn tail would drop it).
//! 5. An empty edit is written to the manifest; after a failed manifest
//!    write this rolls to a new manifest (a snapshot of the current
//!    version) and points `CURRENT` at it.
//! 6. The error is cleared, compactions are scheduled again.
//!
//! If a step fails the error stays latched and `resume()` returns the new
//! error; it can be called again once the disk is healthy.
//!
//! What was acknowledged: every write that returned `Ok` is in a memtable
//! and is flushed in step 4. The writes of a group whose WAL write failed
//! returned the error, never reached a memtable and are not visible; their
//! record may still be in the old WAL, so a crash before step 4 completes
//! may bring them back at the next open (an unacknowledged write may or may
//! not survive), after every acknowledged write. Their sequence numbers
//! were burnt, so nothing written later reuses them.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::DbInner;
use super::write_thread::{WriteKind, Writer};
use crate::error::{Error, Result};
use crate::info_log;
use crate::options::WriteOptions;
use crate::version::VersionEdit;
use crate::write_batch::WriteBatch;

/// Whether `resume()` can clear `e`: IO errors (the disk failed or was
/// full), not corruptions or anything else.
pub(crate) fn recoverable(e: &Error) -> bool {
    matches!(e, Error::Io { .. })
}

impl DbInner {
    pub(crate) fn resume(self: &Arc<Self>) -> Result<()> {
        self.lifecycle.check_open()?;
        {
            let mut st = self.state.lock();
            match &st.bg_error {
                None => return Ok(()),
                Some(e) if !recoverable(e) => return Err(e.clone()),
                Some(_) => {}
            }
            if st.resuming {
                return Err(Error::Busy("another resume() is in progress".into()));
            }
            if st.paused > 0 {
                return Err(Error::Incomplete(
                    "resume() cannot flush while background work is paused".into(),
                ));
            }
            st.resuming = true;
            while st.flush_running || st.compactions_running > 0 {
                self.bg_cv.wait(&mut st);
            }
            info_log!(
                self.info_log,
                Info,
                "Resuming from background error: {}",
                st.bg_error
                    .as_ref()
                    .map(|e| e.to_string())
                    .unwrap_or_default()
            );
        }
        let r = self.resume_steps();
        let mut st = self.state.lock();
        st.resuming = false;
        match &r {
            Ok(()) => {
                st.bg_error = None;
                self.lifecycle.has_bg_error.store(false, Ordering::Release);
                info_log!(self.info_log, Info, "Resumed: writes accepted again");
                self.maybe_schedule_work(&mut st);
            }
            Err(e) => {
                info_log!(self.info_log, Error, "Resume failed: {e}");
            }
        }
        self.bg_cv.notify_all();
        let obsolete = self.collect_obsolete_files(&mut st);
        drop(st);
        self.delete_files(obsolete);
        r
    }

    fn resume_steps(self: &Arc<Self>) -> Result<()> {
        // Step 3: replace a failed WAL and switch the memtable, between groups.
        self.run_writer(Writer::new(
            WriteBatch::new(),
            WriteOptions::default(),
            WriteKind::Resume,
            None,
        ))?;
        // Step 4: flush every immutable memtable.
        let mut st = self.state.lock();
        let errors_before = st.bg_error_count;
        for f in st.families.values_mut() {
            f.flush_requested = true;
        }
        self.maybe_schedule_work(&mut st);
        while st.families.values().any(|f| !f.imm.is_empty())
            || st.flush_running
            || st.flush_scheduled
        {
            if st.bg_error_count != errors_before {
                return Err(st
                    .last_bg_error
                    .clone()
                    .unwrap_or_else(|| Error::Aborted("flush failed during resume()".into())));
            }
            self.lifecycle.check_open()?;
            self.bg_cv.wait(&mut st);
        }
        if st.bg_error_count != errors_before {
            return Err(st
                .last_bg_error
                .clone()
                .unwrap_or_else(|| Error::Aborted("flush failed during resume()".into())));
        }
        // Step 5: make the manifest definitive again. The edit names the
        // default family's log: with every immutable memtable flushed and
        // writes still refused, that is the log its (empty) active memtable
        // was moved to by step 3. Without it, when step 3 had nothing to
        // flush (every memtable empty), the manifest would go on naming the
        // failed log, whose start lies before the numbers the failed group
        // burnt, and recovery would read the gap between it and the new log
        // as a hole and drop everything acknowledged after `resume()`
        // (regression `resume_with_empty_memtables_names_the_new_log`). With
        // several families `log_and_apply` records the minimum over them.
        let log = st
            .families
            .get(&super::family::DEFAULT_FAMILY_ID)
            .map(|f| f.oldest_log(&f.cfd.super_version.load().mem));
        if let Some(log) = log {
            // Recovery starts at the log the edit names: its first record
            // and directory entry must be durable first.
            let mut waited = Ok(());
            parking_lot::MutexGuard::unlocked(&mut st, || {
                waited = self.wal.wait_start_durable(log);
            });
            waited?;
        }
        st.versions
            .set_last_sequence(self.last_sequence.load(Ordering::Acquire));
        let edit = VersionEdit {
            log_number: log,
            ..VersionEdit::new()
        };
        self.log_and_apply(&mut st, edit)?;
        let ids: Vec<u32> = st.families.keys().copied().collect();
        for cf in ids {
            self.refresh_super_version(&mut st, cf);
        }
        Ok(())
    }
}
