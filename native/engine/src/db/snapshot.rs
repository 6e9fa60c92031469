//! Snapshots: sequence numbers pinned by readers. Compactions keep, for
//! every snapshot, the newest version of each key visible at it.

use std::collections::BTreeMap;

use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

use crate::key::SequenceNumber;

/// A pinned point in the database's history. Release it with
/// [`super::Db::release_snapshot`]; dropping it without releasing keeps the
/// old versions alive until the database closes.
#[derive(Debug, PartialEq, Eq)]
pub struct Snapshot {
    seq: SequenceNumber,
}

impl Snapshot {
    /// The sequence number reads at this snapshot see.
    pub fn sequence_number(&self) -> SequenceNumber {
        self.seq
    }
}

/// Live snapshots with their reference counts.
#[derive(Default)]
pub(crate) struct SnapshotList {
    counts: Mutex<BTreeMap<SequenceNumber, usize>>,
}

impl SnapshotList {
    /// Registers a snapshot at the latest published sequence number,
    /// `last_sequence`, read under the list's lock.
    ///
    /// Reading it before taking the lock lost data: a flush or compaction
    /// that took [`SnapshotList::list`] between the read and the
    /// registration did not see the snapshot and could drop a version
    /// visible at it, shadowed by a write published meanwhile. Under the
    /// lock, a job that took the list earlier only has inputs published
    /// before it did (a flushed memtable was switched out after its writes
    /// were published; a compaction's tables were installed before), so at
    /// or below the number read here, and what it drops is shadowed at the
    /// snapshot too. (RocksDB reads the number under its mutex as well.)
    /// Regression test:
    /// `regression_a_flush_between_choosing_and_registering_a_snapshot_keeps_what_it_sees`.
    pub(crate) fn acquire_latest(&self, last_sequence: &AtomicU64) -> Snapshot {
        let mut counts = self.counts.lock();
        let seq = last_sequence.load(Ordering::Acquire);
        #[cfg(test)]
        super::test_hooks::run(&super::test_hooks::AFTER_CHOOSING_SNAPSHOT_SEQUENCE);
        *counts.entry(seq).or_insert(0) += 1;
        Snapshot { seq }
    }

    pub(crate) fn release(&self, seq: SequenceNumber) {
        let mut c = self.counts.lock();
        if let Some(n) = c.get_mut(&seq) {
            *n -= 1;
            if *n == 0 {
                c.remove(&seq);
            }
        }
    }

    /// Sequence numbers of live snapshots, ascending.
    pub(crate) fn list(&self) -> Vec<SequenceNumber> {
        self.counts.lock().keys().copied().collect()
    }

    /// Number of live snapshots (counting repeats).
    pub(crate) fn len(&self) -> usize {
        self.counts.lock().values().sum()
    }

    /// The oldest live snapshot's sequence number.
    pub(crate) fn oldest(&self) -> Option<SequenceNumber> {
        self.counts.lock().keys().next().copied()
    }
}
