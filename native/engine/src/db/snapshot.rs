//! Snapshots: sequence numbers pinned by readers. Compactions keep, for
//! every snapshot, the newest version of each key visible at it.

use std::collections::BTreeMap;

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
    pub(crate) fn acquire(&self, seq: SequenceNumber) -> Snapshot {
        *self.counts.lock().entry(seq).or_insert(0) += 1;
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
