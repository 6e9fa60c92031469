//! [`CompactionIter`]: the policy deciding which input entries a flush or
//! compaction writes out.
//!
//! Snapshots split each key's history into *stripes*: stripe `i` holds
//! sequence numbers in `(snapshots[i-1], snapshots[i]]`, and the last stripe
//! everything newer than the newest snapshot. A reader at any snapshot sees
//! at most the newest entry of each stripe, so within a stripe only the
//! newest entry of a key is kept. In addition:
//! - an entry deleted by a range tombstone of the same stripe is dropped;
//! - at the bottommost level, a point tombstone in the oldest stripe (older
//!   than every snapshot) is dropped together with what it deletes, because
//!   nothing older can exist below it.
//!
//! Range tombstones themselves are not produced by this iterator; the job
//! writes them with [`keep_range_tombstone`].

use crate::iterator::InternalIterator;
use crate::key::{self, SequenceNumber, ValueKind};
use crate::memtable::RangeTombstone;
use crate::range_del::{FragmentedRangeTombstoneList, Hint};

/// Why entries were dropped (RocksDB's `compaction.key.drop.*` tickers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DropCounts {
    /// Shadowed by a newer entry of the same key in the same stripe.
    pub newer_entry: u64,
    /// Point tombstones (and what they hid) dropped at the bottommost level.
    pub obsolete: u64,
    /// Entries deleted by a range tombstone.
    pub range_del: u64,
}

impl DropCounts {
    /// All drops.
    pub fn total(&self) -> u64 {
        self.newer_entry + self.obsolete + self.range_del
    }
}

/// Filters a merged input. See the module docs.
pub struct CompactionIter<I: InternalIterator> {
    input: I,
    snapshots: Vec<SequenceNumber>,
    bottommost: bool,
    tombstones: FragmentedRangeTombstoneList,
    /// Where the last tombstone lookup landed: keys come in order.
    hint: Hint,
    current_key: Vec<u8>,
    has_current: bool,
    last_stripe: usize,
    started: bool,
    /// Drop counts so far.
    pub drops: DropCounts,
    /// Input entries seen so far.
    pub entries_in: u64,
}

/// Index of the stripe holding `seq` given ascending `snapshots`.
#[inline]
pub fn stripe_of(snapshots: &[SequenceNumber], seq: SequenceNumber) -> usize {
    snapshots.partition_point(|&s| s < seq)
}

/// True when a range tombstone must be written to the output: always,
/// except at the bottommost level once no snapshot can see below it.
pub fn keep_range_tombstone(
    t: &RangeTombstone,
    snapshots: &[SequenceNumber],
    bottommost: bool,
) -> bool {
    !(bottommost && stripe_of(snapshots, t.seq) == 0)
}

impl<I: InternalIterator> CompactionIter<I> {
    /// `snapshots` ascending; `tombstones` are all range tombstones of the inputs.
    pub fn new(
        mut input: I,
        mut snapshots: Vec<SequenceNumber>,
        bottommost: bool,
        tombstones: FragmentedRangeTombstoneList,
    ) -> Self {
        snapshots.sort_unstable();
        snapshots.dedup();
        input.seek_to_first();
        CompactionIter {
            input,
            snapshots,
            bottommost,
            tombstones,
            hint: Hint::default(),
            current_key: Vec::new(),
            has_current: false,
            last_stripe: 0,
            started: false,
            drops: DropCounts::default(),
            entries_in: 0,
        }
    }

    /// The underlying iterator (for its status).
    pub fn input(&self) -> &I {
        &self.input
    }

    /// Advances to the next entry to keep; `false` at the end.
    /// The entry is then available from [`key`](Self::key) and [`value`](Self::value).
    pub fn advance(&mut self) -> bool {
        if self.started {
            self.input.next();
        }
        self.started = true;
        while self.input.valid() {
            if self.keep_current() {
                return true;
            }
            self.input.next();
        }
        false
    }

    fn keep_current(&mut self) -> bool {
        self.entries_in += 1;
        let ik = self.input.key();
        let Some(p) = key::parse_internal_key(ik) else {
            // Unknown kinds cannot be reasoned about: keep them.
            return true;
        };
        let stripe = stripe_of(&self.snapshots, p.seq);
        if self.has_current && self.current_key.as_slice() == p.user_key {
            if stripe == self.last_stripe {
                self.drops.newer_entry += 1;
                return false;
            }
        } else {
            self.current_key.clear();
            self.current_key.extend_from_slice(p.user_key);
            self.has_current = true;
        }
        self.last_stripe = stripe;
        if p.kind == ValueKind::RangeDeletion {
            return true;
        }
        // Deleted for the newest reader of its stripe (and so for every
        // reader that could see it): a tombstone of the same stripe covers it.
        // The newest covering tombstone is not enough to ask about: it may
        // be in a newer stripe while an older one deletes the entry here,
        // and at the bottommost level that older one is not written out.
        let stripe_top = self
            .snapshots
            .get(stripe)
            .copied()
            .unwrap_or(key::MAX_SEQUENCE);
        if self
            .tombstones
            .deletes_near(p.user_key, p.seq, stripe_top, &mut self.hint)
        {
            self.drops.range_del += 1;
            return false;
        }
        if p.kind == ValueKind::Deletion && self.bottommost && stripe == 0 {
            self.drops.obsolete += 1;
            return false;
        }
        true
    }

    /// Current internal key.
    pub fn key(&self) -> &[u8] {
        self.input.key()
    }

    /// Current value.
    pub fn value(&self) -> &[u8] {
        self.input.value()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iterator::VecIter;
    use crate::key::make_internal_key;

    fn e(k: &str, seq: u64, kind: ValueKind) -> (Vec<u8>, Vec<u8>) {
        (
            make_internal_key(k.as_bytes(), seq, kind),
            format!("{k}{seq}").into_bytes(),
        )
    }

    fn run(
        entries: Vec<(Vec<u8>, Vec<u8>)>,
        snaps: Vec<u64>,
        bottom: bool,
        tombs: Vec<RangeTombstone>,
    ) -> (Vec<(String, u64)>, DropCounts) {
        let ts = FragmentedRangeTombstoneList::from_tombstones(&tombs);
        let mut it = CompactionIter::new(VecIter::new(entries), snaps, bottom, ts);
        let mut out = Vec::new();
        while it.advance() {
            let p = key::parse_internal_key(it.key()).unwrap();
            out.push((String::from_utf8(p.user_key.to_vec()).unwrap(), p.seq));
        }
        (out, it.drops)
    }

    #[test]
    fn keeps_newest_per_stripe() {
        use ValueKind::*;
        let input = vec![
            e("a", 9, Value),
            e("a", 7, Value),
            e("a", 4, Value),
            e("a", 2, Value),
            e("b", 1, Value),
        ];
        let (out, d) = run(input.clone(), vec![], false, vec![]);
        assert_eq!(out, vec![("a".into(), 9), ("b".into(), 1)]);
        assert_eq!(d.newer_entry, 3);
        // Snapshot 5 needs a@4; snapshot 7 needs a@7.
        let (out, _) = run(input, vec![5, 7], false, vec![]);
        assert_eq!(
            out,
            vec![
                ("a".into(), 9),
                ("a".into(), 7),
                ("a".into(), 4),
                ("b".into(), 1)
            ]
        );
    }

    #[test]
    fn bottommost_drops_old_tombstones_and_what_they_hide() {
        use ValueKind::*;
        let input = vec![
            e("a", 8, Deletion),
            e("a", 3, Value),
            e("b", 6, Deletion),
            e("b", 2, Value),
        ];
        let (out, d) = run(input.clone(), vec![], true, vec![]);
        assert!(out.is_empty(), "{out:?}");
        assert_eq!(d.obsolete, 2);
        // Not bottommost: the tombstones must stay to hide older data below.
        let (out, _) = run(input.clone(), vec![], false, vec![]);
        assert_eq!(out, vec![("a".into(), 8), ("b".into(), 6)]);
        // A snapshot at 5 still sees b@2 and a@3.
        let (out, _) = run(input, vec![5], true, vec![]);
        assert_eq!(
            out,
            vec![
                ("a".into(), 8),
                ("a".into(), 3),
                ("b".into(), 6),
                ("b".into(), 2)
            ]
        );
    }

    #[test]
    fn range_tombstones_drop_covered_entries_in_their_stripe() {
        use ValueKind::*;
        let t = RangeTombstone {
            begin: b"a".to_vec(),
            end: b"c".to_vec(),
            seq: 10,
        };
        let input = vec![
            e("a", 12, Value),
            e("a", 5, Value),
            e("b", 3, Value),
            e("c", 4, Value),
        ];
        let (out, d) = run(input.clone(), vec![], false, vec![t.clone()]);
        assert_eq!(out, vec![("a".into(), 12), ("c".into(), 4)]);
        assert_eq!(d.range_del, 1);
        assert_eq!(d.newer_entry, 1);
        // A snapshot at 7 still needs a@5 and b@3.
        let (out, _) = run(input, vec![7], false, vec![t.clone()]);
        assert_eq!(
            out,
            vec![
                ("a".into(), 12),
                ("a".into(), 5),
                ("b".into(), 3),
                ("c".into(), 4)
            ]
        );
        assert!(keep_range_tombstone(&t, &[7], true));
        assert!(!keep_range_tombstone(&t, &[], true));
        assert!(!keep_range_tombstone(&t, &[11], true));
        assert!(keep_range_tombstone(&t, &[], false));
    }

    #[test]
    fn entry_deleted_by_an_older_tombstone_of_its_stripe_is_dropped_with_it() {
        use ValueKind::*;
        let t = |seq| RangeTombstone {
            begin: b"a".to_vec(),
            end: b"z".to_vec(),
            seq,
        };
        // Snapshot 2 sees k@1 deleted by the tombstone at 2; the tombstone
        // at 3 is newer than the snapshot. At the bottom, the tombstone at 2
        // is not written, so k@1 must go too.
        let (out, d) = run(vec![e("k", 1, Value)], vec![2], true, vec![t(2), t(3)]);
        assert!(out.is_empty(), "{out:?}");
        assert_eq!(d.range_del, 1);
        assert!(!keep_range_tombstone(&t(2), &[2], true));
        assert!(keep_range_tombstone(&t(3), &[2], true));
    }
}
