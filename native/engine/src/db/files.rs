//! Deleting files nothing needs any more: WALs older than the manifest's log
//! number, tables no live version or running job references, manifests
//! replaced by a newer one, and (at open only) temporary files an
//! interrupted write left behind.
//!
//! A WAL is deleted only if this database wrote it: it is in
//! `DbState::own_logs` (started by this process, or found at recovery
//! carrying this database's id). The directory is never swept for logs by
//! number: a `wal_dir` may hold the logs of another database (one at a
//! time: each open database locks its `wal_dir`), and deleting those by
//! number cost that database its synced writes (issue 30).
//!
//! Tables that only superseded versions list wait for the readers pinning
//! those versions; [`PurgeFlags`] says when to look again (invariant 5 of
//! the `db` module docs).

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::table_cache::UnlinkClaim;
use super::{DbInner, DbState};
use crate::info_log;
use crate::version::{FileType, parse_file_name};

/// What may be deleted, decided under the DB mutex.
pub(crate) struct Obsolete {
    live_tables: HashSet<u64>,
    next_file_number: u64,
    manifest_number: u64,
    manifests: Vec<u64>,
    /// This database's logs below the manifest's log number.
    logs: Vec<u64>,
    /// File deletions are disabled: delete nothing.
    keep_all: bool,
    /// Delete leftover `*.dbtmp` files too. Only the sweep at open sets it
    /// ([`Obsolete::with_temp_files`]): in an open database a temporary
    /// file may be one a manifest roll is writing right now
    /// (`CURRENT.dbtmp` before its rename), and a purge on another thread
    /// that deleted it made that roll fail with a background error
    /// (`regression_a_purge_keeps_a_temp_file_an_open_database_may_be_writing`).
    temp_files: bool,
}

impl Obsolete {
    /// Also deletes temporary files: for the sweep at open, before any
    /// background work can write one.
    pub(crate) fn with_temp_files(mut self) -> Self {
        self.temp_files = true;
        self
    }
}

/// When to purge the tables a job left to readers (invariant 5 of the
/// `db` module docs). Atomics only, read by every foreground call: two
/// loads when there is nothing to do.
///
/// Invariants: `pending` is set when the last obsolete-file collection left
/// tables that readers pin (or a table being closed); `sv_released` is set
/// by every super version's drop (and every table close), after the tables
/// it was the last to reference were closed; at most one purge is queued
/// (`scheduled`).
#[derive(Default)]
pub(crate) struct PurgeFlags {
    /// A job's end left tables that only superseded versions, pinned by
    /// readers, still list.
    pending: AtomicBool,
    /// A background purge is queued.
    scheduled: AtomicBool,
    /// A super version was dropped (or a table closed) since the last
    /// purge check; shared with every super version and the table cache.
    pub(crate) sv_released: Arc<AtomicBool>,
}

impl PurgeFlags {
    /// The flag a new super version sets when dropped.
    #[inline]
    pub(crate) fn release_flag(&self) -> super::ReleaseFlag {
        super::ReleaseFlag(self.sv_released.clone())
    }

    /// True, once, when a purge is pending, a super version was released
    /// since the last check and no purge is queued: the caller queues one.
    #[inline]
    fn take_due(&self) -> bool {
        self.pending.load(Ordering::Acquire)
            && self.sv_released.load(Ordering::Acquire)
            && self.sv_released.swap(false, Ordering::AcqRel)
            && !self.scheduled.swap(true, Ordering::AcqRel)
    }
}

impl DbInner {
    /// Snapshot of what is live; deletion happens in [`DbInner::delete_files`]
    /// without the mutex.
    pub(crate) fn collect_obsolete_files(&self, st: &mut DbState) -> Obsolete {
        if st.file_deletions_disabled > 0 {
            // Nothing goes while a checkpoint or backup copies (module
            // docs of `checkpoint`); enabling again purges.
            return Obsolete {
                live_tables: HashSet::new(),
                next_file_number: 0,
                manifest_number: 0,
                manifests: Vec::new(),
                logs: Vec::new(),
                keep_all: true,
                temp_files: false,
            };
        }
        let mut live_tables: HashSet<u64> = st.versions.live_files().into_iter().collect();
        live_tables.extend(st.pending_outputs.iter().copied());
        // Tables only older versions list are pinned by readers: delete them
        // once the readers let go (invariant 5 of the module docs).
        let mut needed: HashSet<u64> = st
            .versions
            .current()
            .live_file_numbers()
            .into_iter()
            .collect();
        needed.extend(st.pending_outputs.iter().copied());
        self.purge
            .pending
            .store(live_tables.len() > needed.len(), Ordering::Release);
        // Taken out of the set: a log whose deletion fails is left for the
        // next open, which finds it below the log number again.
        let keep = st.own_logs.split_off(&st.versions.log_number());
        let logs = std::mem::replace(&mut st.own_logs, keep)
            .into_iter()
            .collect();
        Obsolete {
            live_tables,
            next_file_number: st.versions.next_file_number(),
            manifest_number: st.versions.manifest_file_number(),
            manifests: st.versions.take_obsolete_manifests(),
            logs,
            keep_all: false,
            temp_files: false,
        }
    }

    /// Deletes the files `o` says are obsolete. Errors are logged, not
    /// returned: a leftover file costs space, never correctness.
    pub(crate) fn delete_files(&self, o: Obsolete) {
        // A read-only or secondary instance's version set may be behind
        // the primary's: what it takes for obsolete may be the primary's
        // newest tables. It never deletes anything (`readonly`).
        if o.keep_all || !self.mode.is_primary() {
            return;
        }
        let mut doomed: Vec<(PathBuf, Option<u64>)> = Vec::new();
        for n in &o.manifests {
            doomed.push((
                self.path
                    .join(crate::version::filename::manifest_file_name(*n)),
                None,
            ));
        }
        if let Ok(names) = self.fs.list_dir(&self.path) {
            for name in names {
                let keep = match parse_file_name(&name) {
                    // Numbers at or past next_file_number may belong to a job
                    // that started after the snapshot of live files.
                    Some(FileType::Table(n)) => {
                        o.live_tables.contains(&n) || n >= o.next_file_number
                    }
                    Some(FileType::Manifest(n)) => n >= o.manifest_number,
                    // Logs go by `o.logs` below, never by listing.
                    Some(FileType::Temp) => !o.temp_files,
                    _ => true,
                };
                if !keep {
                    let table = match parse_file_name(&name) {
                        Some(FileType::Table(n)) => Some(n),
                        _ => None,
                    };
                    doomed.push((self.path.join(&name), table));
                }
            }
        }
        for &n in &o.logs {
            doomed.push((
                self.wal_dir
                    .join(crate::version::filename::log_file_name(n)),
                None,
            ));
        }
        doomed.sort();
        doomed.dedup();
        for (path, table) in doomed {
            if let Some(n) = table {
                self.table_cache.evict(n);
                if self.table_cache.claim_for_unlink(n) == UnlinkClaim::Later {
                    // A thread is closing a reader of it now (a version or
                    // iterator dropped elsewhere): unlinked meanwhile, that
                    // close would free the file's blocks on that thread. The
                    // close sets the flag that schedules the next purge.
                    self.purge.pending.store(true, Ordering::Release);
                    continue;
                }
            }
            match self.fs.remove_file(&path) {
                Ok(()) => info_log!(
                    self.info_log,
                    Debug,
                    "Deleted obsolete file {}",
                    path.display()
                ),
                Err(e) if !self.fs.exists(&path) => {
                    let _ = e;
                }
                Err(e) => info_log!(
                    self.info_log,
                    Warn,
                    "Could not delete {}: {e}",
                    path.display()
                ),
            }
        }
    }

    /// Schedules the deletion of the tables a finished job had to leave to
    /// readers, once a super version was released since (invariant 5), on
    /// the flush pool: a purge lists the directory and unlinks tables of
    /// hundreds of MiB, which on a writer's thread would make slow puts
    /// that no write-group phase accounts for
    /// (`regression_a_write_does_not_delete_obsolete_tables_itself`). Two
    /// atomic loads when there is nothing to do. Call without holding a
    /// super version, or it keeps what it pins.
    #[inline]
    pub(crate) fn maybe_purge_obsolete_files(self: &Arc<Self>) {
        if self.purge.take_due() {
            let db = Arc::downgrade(self);
            self.pools.flush.submit(move || {
                if let Some(db) = db.upgrade() {
                    // Cleared first: a release during this purge schedules
                    // another.
                    db.purge.scheduled.store(false, Ordering::Release);
                    db.purge_obsolete_files();
                }
            });
        }
    }

    /// Deletes every obsolete file not pinned by a reader, now; sets
    /// `PurgeFlags::pending` again if readers still pin some.
    #[cold]
    pub(crate) fn purge_obsolete_files(&self) {
        if self.lifecycle.is_shutting_down() {
            return;
        }
        let obsolete = self.collect_obsolete_files(&mut self.state.lock());
        self.delete_files(obsolete);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A purge is queued once per released super version while tables are
    /// pending, never while one is queued, and never with nothing pending.
    #[test]
    fn purge_is_due_once_per_release_while_pending() {
        let f = PurgeFlags::default();
        drop(f.release_flag());
        assert!(!f.take_due(), "nothing pending");
        f.pending.store(true, Ordering::Release);
        assert!(f.take_due(), "pending and released");
        assert!(!f.take_due(), "the release was taken");
        drop(f.release_flag());
        assert!(!f.take_due(), "a purge is queued: it sees this release");
        f.scheduled.store(false, Ordering::Release);
        assert!(!f.take_due(), "no release since the queued purge");
        drop(f.release_flag());
        assert!(f.take_due(), "released after the queued purge ran");
    }
}
