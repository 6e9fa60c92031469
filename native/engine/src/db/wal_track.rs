//! What the database knows durable of its live write-ahead logs, for the
//! manifest's WAL tracking (RocksDB's `track_and_verify_wals_in_manifest`,
//! always on here).
//!
//! The manifest records each live log (`wal_addition`, `version::edit`):
//! that it exists, how many of its bytes are known durable, and, once it
//! is closed and synced whole, its final size and the sequence number of
//! its last write. Recovery checks every recorded log against the disk
//! (module docs of `recovery`): a recorded log that is missing, shorter
//! than its recorded size, or that replays short of its last write is
//! damage, not the unsynced tail a power loss leaves. Only what was durable
//! when it was recorded is recorded, so a power loss never makes a record
//! false:
//!
//! - a log is recorded once its start record and directory entry are
//!   durable (at open: at once; at a memtable switch: when its switch task
//!   on the WAL syncer thread has run);
//! - a closed log's final size and last sequence, once its tail is synced
//!   (the switch task of the log after it);
//! - the live log's synced size, after each sync of it (a synced write,
//!   `flush_wal(true)`).
//!
//! When it is recorded: no edit is written for a synced put. Every manifest
//! edit the database writes anyway (flush, compaction, `resume()`, open)
//! carries what is new ([`WalTracker::additions`], `DbInner::log_and_apply`);
//! a synced write (or `flush_wal(true)`) whose sync is the first since a
//! log was closed writes one edit before it is acknowledged — at most one
//! per memtable switch, as RocksDB records a closed WAL's synced size when
//! the first sync after the switch covers it — so every log older than an
//! acknowledged synced write is in the manifest with its full size; and a
//! clean close writes one edit with everything (closed logs whole, the live
//! log's synced size). A log number moving past a log forgets it
//! (`VersionSet::wals`).
//!
//! Thread-safety: one mutex of its own, a leaf in the lock order (taken
//! under the DB mutex and under the WAL mutex, never holding either while
//! waiting). The WAL syncer thread updates it from switch tasks.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;

use super::DbInner;
use crate::info_log;
use crate::key::SequenceNumber;
use crate::version::VersionEdit;
use crate::version::edit::WalMeta;

/// One live log as the database knows it.
#[derive(Clone, Copy, Debug, Default)]
struct LiveWal {
    /// Its start record and directory entry are durable.
    start_durable: bool,
    /// Bytes known durable.
    synced_size: u64,
    /// Closed (a switch moved past it): its final size and the sequence
    /// number of its last write.
    closed: Option<(u64, SequenceNumber)>,
    /// Closed and synced whole: `closed` may be recorded.
    fully_synced: bool,
    /// The manifest holds its closed state (final size, last sequence).
    closed_recorded: bool,
}

#[derive(Default)]
struct Logs {
    logs: BTreeMap<u64, LiveWal>,
    /// A recording from the write path failed: the write path does not try
    /// again before the next switch (the next edit written anyway still
    /// carries it), so a failing manifest does not cost every synced write
    /// a manifest write.
    write_path_paused: bool,
}

/// See the module docs.
#[derive(Default)]
pub(crate) struct WalTracker {
    inner: Mutex<Logs>,
    /// Some closed log is synced whole but not recorded as such (and the
    /// write path may record it): read by the write leader without the lock.
    closed_unrecorded: AtomicBool,
}

impl WalTracker {
    fn update_flag(&self, l: &Logs) {
        let any = !l.write_path_paused
            && l.logs
                .values()
                .any(|w| w.fully_synced && !w.closed_recorded);
        self.closed_unrecorded.store(any, Ordering::Release);
    }

    /// Log `number` starts: `durable` when its start record (`size` bytes)
    /// and directory entry are already durable.
    pub(crate) fn started(&self, number: u64, size: u64, durable: bool) {
        let mut l = self.inner.lock();
        l.logs.insert(
            number,
            LiveWal {
                start_durable: durable,
                synced_size: if durable { size } else { 0 },
                ..LiveWal::default()
            },
        );
    }

    /// Log `number` is closed by a switch at `size` bytes, its last write
    /// at `last_sequence`; its tail is synced later ([`Self::switch_done`]).
    pub(crate) fn closed(&self, number: u64, size: u64, last_sequence: SequenceNumber) {
        if let Some(w) = self.inner.lock().logs.get_mut(&number) {
            w.closed = Some((size, last_sequence));
        }
    }

    /// Log `number` was abandoned after a failure: what it holds beyond its
    /// last successful sync is unknown, so it is never recorded as whole.
    pub(crate) fn abandoned(&self, number: u64) {
        if let Some(w) = self.inner.lock().logs.get_mut(&number) {
            w.closed = None;
        }
    }

    /// A switch task finished: `old` (if any) is synced whole, and log
    /// `new`'s start record (`start_size` bytes) and directory entry are
    /// durable.
    pub(crate) fn switch_done(&self, old: Option<u64>, new: u64, start_size: u64) {
        let mut l = self.inner.lock();
        if let Some(w) = old.and_then(|o| l.logs.get_mut(&o))
            && let Some((size, _)) = w.closed
        {
            w.fully_synced = true;
            w.synced_size = size;
        }
        if let Some(w) = l.logs.get_mut(&new) {
            w.start_durable = true;
            w.synced_size = w.synced_size.max(start_size);
        }
        l.write_path_paused = false;
        self.update_flag(&l);
    }

    /// The live log `number` was synced up to `size` bytes.
    pub(crate) fn synced(&self, number: u64, size: u64) {
        let mut l = self.inner.lock();
        if let Some(w) = l.logs.get_mut(&number)
            && w.start_durable
        {
            w.synced_size = w.synced_size.max(size);
        }
    }

    /// Whether a synced write should record closed logs before it is
    /// acknowledged (see the module docs). One atomic load.
    pub(crate) fn closed_unrecorded(&self) -> bool {
        self.closed_unrecorded.load(Ordering::Acquire)
    }

    /// A recording from the write path failed: see `Logs::write_path_paused`.
    pub(crate) fn pause_write_path(&self) {
        let mut l = self.inner.lock();
        l.write_path_paused = true;
        self.update_flag(&l);
    }

    /// What an edit naming log number `min_log` should add for the logs at
    /// or above it, given what the manifest `recorded`: every log whose
    /// start is durable and whose known state differs from the record.
    pub(crate) fn additions(
        &self,
        min_log: u64,
        recorded: &BTreeMap<u64, WalMeta>,
    ) -> Vec<(u64, WalMeta)> {
        let l = self.inner.lock();
        l.logs
            .range(min_log..)
            .filter(|(_, w)| w.start_durable)
            .map(|(&n, w)| {
                let meta = match w.closed {
                    Some((size, seq)) if w.fully_synced => WalMeta {
                        synced_size: Some(size),
                        last_sequence: Some(seq),
                    },
                    _ => WalMeta {
                        synced_size: Some(w.synced_size),
                        last_sequence: None,
                    },
                };
                (n, meta)
            })
            .filter(|(n, meta)| recorded.get(n) != Some(meta))
            .collect()
    }

    /// An edit carrying `additions` is durable and the manifest's log
    /// number is `log_number`: logs below it are forgotten.
    pub(crate) fn recorded(&self, additions: &[(u64, WalMeta)], log_number: u64) {
        let mut l = self.inner.lock();
        for (n, meta) in additions {
            if meta.last_sequence.is_some()
                && let Some(w) = l.logs.get_mut(n)
            {
                w.closed_recorded = true;
            }
        }
        l.logs = l.logs.split_off(&log_number);
        self.update_flag(&l);
    }
}

impl DbInner {
    /// The recording a synced write (or `flush_wal(true)`) makes when its
    /// sync is the first since a log was closed: one edit carrying the
    /// closed logs, written before the write is acknowledged. Best effort:
    /// a failure is logged and pauses these recordings until the next
    /// switch (the next edit written anyway carries them); the write stays
    /// acknowledged, its bytes are durable in the log. Call without the DB
    /// or WAL mutex.
    pub(crate) fn record_closed_wals(&self) {
        let mut st = self.state.lock();
        if !self.wal.tracker.closed_unrecorded() || st.bg_error.is_some() {
            return;
        }
        if let Err(e) = self.log_and_apply(&mut st, VersionEdit::new()) {
            self.wal.tracker.pause_write_path();
            info_log!(
                self.info_log,
                Warn,
                "Could not record the closed write-ahead logs in the manifest ({e}); the next manifest edit will"
            );
        }
    }

    /// At close, after every switch task ran: records what is new about the
    /// live logs (closed ones whole, the live one's synced size), if
    /// anything is. Not with a background error latched: a database in the
    /// read-only state writes nothing more. A failure is logged, never
    /// returned: the data is in the logs either way.
    pub(crate) fn record_wals_at_close(&self) {
        let mut st = self.state.lock();
        if st.bg_error.is_some() {
            return;
        }
        let min_log = st.versions.log_number();
        if self
            .wal
            .tracker
            .additions(min_log, st.versions.wals())
            .is_empty()
        {
            return;
        }
        if let Err(e) = self.log_and_apply(&mut st, VersionEdit::new()) {
            info_log!(
                self.info_log,
                Warn,
                "Close: could not record the write-ahead logs in the manifest: {e}"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(size: u64, seq: Option<u64>) -> WalMeta {
        WalMeta {
            synced_size: Some(size),
            last_sequence: seq,
        }
    }

    /// Nothing is offered for recording before it is durable, and each
    /// state is offered once.
    #[test]
    fn records_only_what_is_durable_and_only_once() {
        let t = WalTracker::default();
        let mut recorded = BTreeMap::new();
        t.started(5, 47, true);
        assert_eq!(t.additions(5, &recorded), [(5, meta(47, None))]);
        recorded.insert(5, meta(47, None));
        assert!(t.additions(5, &recorded).is_empty());
        t.synced(5, 1000);
        assert_eq!(t.additions(5, &recorded), [(5, meta(1000, None))]);
        recorded.insert(5, meta(1000, None));

        // A switch: 5 closes at 1500 bytes, 7 starts; nothing is durable yet.
        t.closed(5, 1500, 40);
        t.started(7, 47, false);
        assert!(t.additions(5, &recorded).is_empty());
        assert!(!t.closed_unrecorded());
        // The switch task ran: 5 whole, 7's start durable.
        t.switch_done(Some(5), 7, 47);
        assert!(t.closed_unrecorded());
        let adds = t.additions(5, &recorded);
        assert_eq!(adds, [(5, meta(1500, Some(40))), (7, meta(47, None))]);
        t.recorded(&adds, 5);
        assert!(!t.closed_unrecorded());
        recorded.extend(adds);
        assert!(t.additions(5, &recorded).is_empty());
        // A flush moves the log number to 7: 5 is forgotten.
        t.recorded(&[], 7);
        assert!(t.additions(0, &BTreeMap::new()).iter().all(|a| a.0 == 7));
    }

    #[test]
    fn an_abandoned_log_is_never_recorded_whole_and_a_failure_pauses_the_write_path() {
        let t = WalTracker::default();
        t.started(3, 47, true);
        t.closed(3, 900, 10);
        t.abandoned(3);
        t.started(4, 47, true);
        t.switch_done(Some(3), 4, 47);
        assert_eq!(
            t.additions(3, &BTreeMap::new()),
            [(3, meta(47, None)), (4, meta(47, None))]
        );
        t.closed(4, 500, 12);
        t.started(6, 47, false);
        t.switch_done(Some(4), 6, 47);
        assert!(t.closed_unrecorded());
        t.pause_write_path();
        assert!(!t.closed_unrecorded(), "paused until the next switch");
        t.closed(6, 600, 14);
        t.started(8, 47, false);
        t.switch_done(Some(6), 8, 47);
        assert!(t.closed_unrecorded());
    }
}
