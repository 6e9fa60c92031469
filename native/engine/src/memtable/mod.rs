//! The memtable: a concurrent skiplist of internal keys, written by many
//! threads at once and read without locks.
//!
//! Each entry is one node of an arena skiplist (`skiplist`) holding the
//! internal key and the value inline, ordered by internal-key order (user
//! key ascending, sequence descending; see [`crate::key`]). Range
//! tombstones are kept beside the skiplist, fragmented for lookups as they
//! are read (`range_dels`), because point lookups must find every
//! tombstone covering a key, not just one entry.
//!
//! Arena blocks can be recycled between memtables through a
//! [`block_pool::BlockPool`], so writers do not fault in fresh pages.
//!
//! Thread-safety contract:
//! 1. [`MemTable::add`] may run on many threads at once (lock-free skiplist
//!    inserts into per-stripe arena blocks; sizes are kept in striped
//!    counters).
//! 2. Readers never block writers. A reader passes the sequence number it
//!    reads at; entries with larger sequence numbers are invisible to it, so
//!    entries inserted concurrently but not yet published are never seen.
//! 3. Internal keys are unique (each write has its own sequence number), so
//!    inserts never replace each other.
//! 4. A write of one entry is prepared before it queues
//!    ([`MemTable::prepare`]: copied in and placed, on the writer's thread)
//!    and linked by its group ([`MemTable::add_prepared`]) once it has a
//!    sequence number, which must be larger than any in the memtable when
//!    it was prepared.

pub mod block_pool;
mod iter;
mod range_dels;
#[expect(
    unsafe_code,
    reason = "the arena skiplist's nodes are raw, variable-sized arena memory; audited in skiplist.rs"
)]
mod skiplist;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering as AtomicOrdering};

use crate::key::{self, SequenceNumber, ValueKind};
use crate::striped::StripedCounter;
use block_pool::BlockPool;
use skiplist::SkipList;

pub use iter::MemTableIter;
pub use range_dels::MemTableTombstones;

/// A range tombstone: every key in `[begin, end)` with a smaller sequence number is deleted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RangeTombstone {
    /// First deleted key.
    pub begin: Vec<u8>,
    /// First key after the range.
    pub end: Vec<u8>,
    /// Sequence number of the delete.
    pub seq: SequenceNumber,
}

impl RangeTombstone {
    /// True when this tombstone covers `user_key` and is visible at `snapshot`.
    #[inline]
    pub fn covers(&self, user_key: &[u8], snapshot: SequenceNumber) -> bool {
        self.seq <= snapshot && self.begin.as_slice() <= user_key && user_key < self.end.as_slice()
    }
}

/// What a point lookup found in one source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The newest visible entry is a value (copied into the caller's buffer).
    Value(SequenceNumber),
    /// The newest visible entry is a point tombstone.
    Deleted(SequenceNumber),
    /// The newest visible entry is a merge operand (copied into the
    /// caller's buffer): the key's value needs the entries below it
    /// (`db::read` resolves it).
    Merge(SequenceNumber),
    /// No visible entry for the key.
    Absent,
}

/// A memtable. See the module docs.
pub struct MemTable {
    map: SkipList,
    range_dels: range_dels::RangeDels,
    bytes: StripedCounter,
    entries: StripedCounter,
    deletes: StripedCounter,
    /// Number of the WAL holding this memtable's writes (0 when none).
    log_number: u64,
    /// Smallest sequence number inserted (u64::MAX when empty).
    first_seq: AtomicU64,
    /// Largest sequence number inserted.
    last_seq: AtomicU64,
    /// Some write reached this memtable without going through the WAL.
    unlogged: AtomicBool,
}

impl std::fmt::Debug for MemTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemTable")
            .field("log_number", &self.log_number)
            .field("entries", &self.num_entries())
            .field("bytes", &self.approximate_memory_usage())
            .finish()
    }
}

impl MemTable {
    /// An empty memtable whose writes go to log `log_number`.
    pub fn new(log_number: u64) -> Self {
        Self::with_block_pool(log_number, None)
    }

    /// An empty memtable whose arena takes its blocks from `pool` and gives
    /// them back when the memtable is dropped ([`block_pool`]).
    pub fn with_block_pool(log_number: u64, pool: Option<Arc<BlockPool>>) -> Self {
        MemTable {
            map: SkipList::with_pool(pool),
            range_dels: range_dels::RangeDels::default(),
            bytes: StripedCounter::new(),
            entries: StripedCounter::new(),
            deletes: StripedCounter::new(),
            log_number,
            first_seq: AtomicU64::new(u64::MAX),
            last_seq: AtomicU64::new(0),
            unlogged: AtomicBool::new(false),
        }
    }

    /// Records that a write skipped the WAL: the memtable must be flushed
    /// before close, or the write is lost.
    pub fn mark_unlogged(&self) {
        if !self.unlogged.load(AtomicOrdering::Relaxed) {
            self.unlogged.store(true, AtomicOrdering::Relaxed);
        }
    }

    /// True when some write skipped the WAL.
    pub fn has_unlogged_writes(&self) -> bool {
        self.unlogged.load(AtomicOrdering::Relaxed)
    }

    /// Number of the WAL this memtable's writes were logged to.
    pub fn log_number(&self) -> u64 {
        self.log_number
    }

    /// Inserts one entry (the value of a range deletion is its end key).
    /// Safe to call from many threads at once.
    pub fn add(&self, seq: SequenceNumber, kind: ValueKind, user_key: &[u8], value: &[u8]) {
        self.add_many(std::iter::once((seq, kind, user_key, value)));
    }

    fn add_range_deletion(&self, seq: SequenceNumber, begin: &[u8], end: &[u8]) {
        let bytes = (begin.len() + end.len() + std::mem::size_of::<RangeTombstone>()) as u64;
        self.range_dels.add(begin, end, seq);
        let mut added = Added::default();
        added.note(seq, ValueKind::RangeDeletion);
        self.account(bytes, &added);
    }

    /// Adds entries just inserted to the memtable's counters. Point
    /// entries are charged what their nodes take in the arena: the bytes,
    /// a 16-byte header and 8 bytes per level.
    fn account(&self, bytes: u64, added: &Added) {
        self.bytes.add(bytes);
        self.entries.add(added.entries);
        if added.deletes > 0 {
            self.deletes.add(added.deletes);
        }
        self.first_seq
            .fetch_min(added.first, AtomicOrdering::Relaxed);
        self.last_seq.fetch_max(added.last, AtomicOrdering::Relaxed);
    }

    /// Does the expensive part of inserting a point entry (a value or a
    /// point tombstone, merge operand or single delete) ahead of its write: copies it into the memtable's
    /// memory and finds where it goes (`SkipList::prepare`). The write's
    /// leader then only sets its sequence number and links it
    /// ([`MemTable::add_prepared`]). Safe to call from many threads at once.
    pub fn prepare(&self, kind: ValueKind, user_key: &[u8], value: &[u8]) -> Prepared {
        debug_assert!(kind != ValueKind::RangeDeletion);
        Prepared {
            node: self.map.prepare(user_key, value),
            kind,
        }
    }

    /// Inserts an entry from [`MemTable::prepare`] at `seq`; `seq` must be
    /// larger than every sequence number in this memtable when `prepare`
    /// ran (true of any write that had not queued yet). Returns false, and
    /// inserts nothing, when it was prepared in another memtable (this one
    /// replaced it meanwhile): insert the entry with [`MemTable::add`].
    #[must_use]
    pub fn add_prepared(&self, p: Prepared, seq: SequenceNumber) -> bool {
        let Some(bytes) = self
            .map
            .insert_prepared(p.node, key::pack_trailer(seq, p.kind as u8))
        else {
            return false;
        };
        let mut added = Added::default();
        added.note(seq, p.kind);
        self.account(bytes as u64, &added);
        true
    }

    /// Inserts entries (sequence, kind, user key, value; the value of a
    /// range deletion is its end key). Point entries go to the skiplist
    /// eight at a time, whose searches overlap their cache misses
    /// (`SkipList::insert_many`). Safe to call from many threads at once.
    pub fn add_many<'a>(
        &self,
        entries: impl IntoIterator<Item = (SequenceNumber, ValueKind, &'a [u8], &'a [u8])>,
    ) {
        const CHUNK: usize = 8;
        let mut chunk: [(&[u8], u64, &[u8]); CHUNK] = [(&[], 0, &[]); CHUNK];
        let mut len = 0;
        let mut added = Added::default();
        for (seq, kind, user_key, value) in entries {
            if kind == ValueKind::RangeDeletion {
                self.add_range_deletion(seq, user_key, value);
                continue;
            }
            chunk[len] = (user_key, key::pack_trailer(seq, kind as u8), value);
            len += 1;
            added.note(seq, kind);
            if len == CHUNK {
                self.account(self.map.insert_many(&chunk) as u64, &added);
                added = Added::default();
                len = 0;
            }
        }
        if len > 0 {
            self.account(self.map.insert_many(&chunk[..len]) as u64, &added);
        }
    }

    /// Finds the newest entry for `user_key` with sequence ≤ `snapshot`. A
    /// value is appended to `value_out` (which is cleared first).
    pub fn get(
        &self,
        user_key: &[u8],
        snapshot: SequenceNumber,
        value_out: &mut Vec<u8>,
    ) -> Lookup {
        let seek = SeekKey::new(user_key, snapshot);
        let at = self.map.lower_bound(seek.ikey_bytes());
        let (Some(ikey), Some(value)) = (self.map.key(at), self.map.value(at)) else {
            return Lookup::Absent;
        };
        if key::user_key(ikey) != user_key {
            return Lookup::Absent;
        }
        let (seq, kind) = key::unpack_trailer(key::trailer(ikey));
        // The bound is at or after the seek key: the same user key with a
        // sequence number above the snapshot sorts before it (pinned by
        // `reads_at_a_snapshot_never_see_a_write_that_lands_during_them`).
        debug_assert!(seq <= snapshot, "memtable lookup at {snapshot} found {seq}");
        // Values first: the one comparison a lookup that finds a value pays.
        if kind == ValueKind::Value as u8 {
            value_out.clear();
            value_out.extend_from_slice(value);
            Lookup::Value(seq)
        } else if kind == ValueKind::Merge as u8 {
            value_out.clear();
            value_out.extend_from_slice(value);
            Lookup::Merge(seq)
        } else {
            Lookup::Deleted(seq)
        }
    }

    /// Largest sequence number of a range tombstone covering `user_key`
    /// visible at `snapshot`, if any. `O(log² N)` for N tombstones (a
    /// binary search in each of `O(log N)` lists; one list once the
    /// memtable is immutable), after a build of those added since the last
    /// reader's (see `range_dels`).
    pub fn max_covering_tombstone(
        &self,
        user_key: &[u8],
        snapshot: SequenceNumber,
    ) -> Option<SequenceNumber> {
        if self.range_dels.is_empty() {
            return None;
        }
        self.range_dels.max_covering(user_key, snapshot)
    }

    /// The range tombstones fragmented, holding at least every tombstone
    /// added before the call; `None` when there are none.
    pub fn fragmented_range_tombstones(&self) -> Option<Arc<MemTableTombstones>> {
        (!self.range_dels.is_empty()).then(|| self.range_dels.view())
    }

    /// A copy of the range tombstones.
    pub fn range_tombstones(&self) -> Vec<RangeTombstone> {
        self.range_dels.all()
    }

    /// Records that the memtable takes no more writes (it was switched
    /// out): its range tombstones are then folded into one list for
    /// lookups. Writes after this stay correct, only slower to look up.
    pub fn mark_immutable(&self) {
        self.range_dels.mark_immutable();
    }

    /// Approximate bytes used by entries.
    pub fn approximate_memory_usage(&self) -> u64 {
        self.bytes.sum()
    }

    /// Number of entries (range tombstones included).
    pub fn num_entries(&self) -> u64 {
        self.entries.sum()
    }

    /// Number of point deletions (single deletions included) and range deletions.
    pub fn num_deletes(&self) -> u64 {
        self.deletes.sum()
    }

    /// True when nothing was inserted.
    pub fn is_empty(&self) -> bool {
        self.num_entries() == 0
    }

    /// Smallest sequence number inserted, if any.
    pub fn first_sequence(&self) -> Option<SequenceNumber> {
        let s = self.first_seq.load(AtomicOrdering::Relaxed);
        (s != u64::MAX).then_some(s)
    }

    /// Largest sequence number inserted.
    pub fn last_sequence(&self) -> SequenceNumber {
        self.last_seq.load(AtomicOrdering::Relaxed)
    }
}

/// A point entry copied into a memtable with its place found, waiting for
/// its sequence number ([`MemTable::prepare`]). Dropping it wastes its bytes
/// in the memtable's arena and changes nothing else.
pub struct Prepared {
    node: skiplist::PreparedNode,
    kind: ValueKind,
}

/// What entries inserted together add to a memtable's counters
/// ([`MemTable::account`]).
struct Added {
    entries: u64,
    deletes: u64,
    first: SequenceNumber,
    last: SequenceNumber,
}

impl Default for Added {
    fn default() -> Self {
        Added {
            entries: 0,
            deletes: 0,
            first: u64::MAX,
            last: 0,
        }
    }
}

impl Added {
    fn note(&mut self, seq: SequenceNumber, kind: ValueKind) {
        self.entries += 1;
        if !matches!(kind, ValueKind::Value | ValueKind::Merge) {
            self.deletes += 1;
        }
        self.first = self.first.min(seq);
        self.last = self.last.max(seq);
    }
}

/// A seek key (an internal key), on the stack for ordinary key sizes.
pub(crate) struct SeekKey {
    buf: smallbuf::SmallBuf,
}

impl SeekKey {
    /// The seek key for `user_key` at `snapshot`: sorts before every entry of
    /// `user_key` visible at `snapshot`.
    pub(crate) fn new(user_key: &[u8], snapshot: SequenceNumber) -> Self {
        let mut buf = smallbuf::SmallBuf::new();
        buf.extend(user_key);
        buf.extend(&key::pack_trailer(snapshot, ValueKind::SEEK).to_le_bytes());
        SeekKey { buf }
    }

    /// The internal key.
    pub(crate) fn ikey_bytes(&self) -> &[u8] {
        self.buf.as_slice()
    }
}

mod smallbuf {
    /// A byte buffer that stays on the stack up to 128 bytes.
    pub(crate) enum SmallBuf {
        Inline([u8; 128], usize),
        Heap(Vec<u8>),
    }

    impl SmallBuf {
        pub(crate) fn new() -> Self {
            SmallBuf::Inline([0; 128], 0)
        }
        pub(crate) fn extend(&mut self, data: &[u8]) {
            match self {
                SmallBuf::Inline(a, n) if *n + data.len() <= a.len() => {
                    a[*n..*n + data.len()].copy_from_slice(data);
                    *n += data.len();
                }
                SmallBuf::Inline(a, n) => {
                    let mut v = Vec::with_capacity(*n + data.len());
                    v.extend_from_slice(&a[..*n]);
                    v.extend_from_slice(data);
                    *self = SmallBuf::Heap(v);
                }
                SmallBuf::Heap(v) => v.extend_from_slice(data),
            }
        }
        pub(crate) fn as_slice(&self) -> &[u8] {
            match self {
                SmallBuf::Inline(a, n) => &a[..*n],
                SmallBuf::Heap(v) => v,
            }
        }
    }
}

#[cfg(test)]
mod tests;
