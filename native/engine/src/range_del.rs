//! Range tombstones, fragmented for lookups.
//!
//! Tombstones `[begin, end) @ seq` from many sources overlap arbitrarily.
//! [`FragmentedTombstones`] splits them at every boundary into disjoint,
//! sorted fragments and keeps, per fragment, the largest sequence number
//! visible at the reader's snapshot. A point entry `(key, seq)` is deleted
//! by a range tombstone iff the fragment containing `key` has a larger
//! sequence number than `seq`.

use crate::key::SequenceNumber;
use crate::memtable::RangeTombstone;

/// Disjoint fragments `[start, end)` with their max sequence number.
#[derive(Clone, Debug, Default)]
pub struct FragmentedTombstones {
    /// Sorted, non-overlapping; adjacent fragments may share a boundary.
    frags: Vec<(Vec<u8>, Vec<u8>, SequenceNumber)>,
}

/// Splits `ts` at every boundary into disjoint, sorted fragments, each with
/// the ascending sequence numbers of the tombstones covering it.
fn fragment(ts: &[RangeTombstone]) -> Vec<(Vec<u8>, Vec<u8>, Vec<SequenceNumber>)> {
    let mut bounds: Vec<&[u8]> = ts
        .iter()
        .flat_map(|t| [t.begin.as_slice(), t.end.as_slice()])
        .collect();
    bounds.sort_unstable();
    bounds.dedup();
    let mut frags = Vec::new();
    for w in bounds.windows(2) {
        let (s, e) = (w[0], w[1]);
        let mut seqs: Vec<SequenceNumber> = ts
            .iter()
            .filter(|t| t.begin.as_slice() <= s && e <= t.end.as_slice())
            .map(|t| t.seq)
            .collect();
        if !seqs.is_empty() {
            seqs.sort_unstable();
            seqs.dedup();
            frags.push((s.to_vec(), e.to_vec(), seqs));
        }
    }
    frags
}

/// Index of the fragment containing `key`, if any.
fn fragment_of<T>(frags: &[(Vec<u8>, Vec<u8>, T)], key: &[u8]) -> Option<usize> {
    // First fragment whose end is > key.
    let i = frags.partition_point(|f| f.1.as_slice() <= key);
    let f = frags.get(i)?;
    (f.0.as_slice() <= key).then_some(i)
}

impl FragmentedTombstones {
    /// Fragments the tombstones visible at `snapshot` (those with seq ≤ snapshot).
    pub fn new(
        tombstones: impl IntoIterator<Item = RangeTombstone>,
        snapshot: SequenceNumber,
    ) -> Self {
        let ts: Vec<RangeTombstone> = tombstones
            .into_iter()
            .filter(|t| t.seq <= snapshot && t.begin < t.end)
            .collect();
        if ts.is_empty() {
            return FragmentedTombstones::default();
        }
        let frags = fragment(&ts)
            .into_iter()
            .map(|(s, e, seqs)| (s, e, *seqs.last().expect("fragments are non-empty")))
            .collect();
        FragmentedTombstones { frags }
    }

    /// True when there are no tombstones.
    pub fn is_empty(&self) -> bool {
        self.frags.is_empty()
    }

    /// Largest visible tombstone sequence covering `key`.
    pub fn max_covering(&self, key: &[u8]) -> Option<SequenceNumber> {
        if self.frags.is_empty() {
            return None;
        }
        fragment_of(&self.frags, key).map(|i| self.frags[i].2)
    }

    /// True when `(key, seq)` is deleted by a tombstone.
    #[inline]
    pub fn covers(&self, key: &[u8], seq: SequenceNumber) -> bool {
        !self.frags.is_empty() && self.max_covering(key).is_some_and(|t| t > seq)
    }
}

/// Every tombstone of a flush or compaction, fragmented, keeping all the
/// sequence numbers per fragment: a job writing for several snapshots must
/// know whether a key is deleted *as seen from each snapshot*, and the
/// newest tombstone covering a key may be invisible to an older snapshot
/// that an older tombstone still deletes the key for.
#[derive(Clone, Debug, Default)]
pub struct TombstoneSeqs {
    /// Sorted, non-overlapping; sequence numbers ascending and distinct.
    frags: Vec<(Vec<u8>, Vec<u8>, Vec<SequenceNumber>)>,
}

impl TombstoneSeqs {
    /// Fragments `tombstones` (all of them, whatever their sequence number).
    pub fn new(tombstones: impl IntoIterator<Item = RangeTombstone>) -> Self {
        let ts: Vec<RangeTombstone> = tombstones.into_iter().filter(|t| t.begin < t.end).collect();
        TombstoneSeqs {
            frags: fragment(&ts),
        }
    }

    /// True when there are no tombstones.
    pub fn is_empty(&self) -> bool {
        self.frags.is_empty()
    }

    /// True when a reader at `snapshot` sees `(key, seq)` deleted by a range
    /// tombstone: one covering `key` with `seq < t.seq ≤ snapshot`.
    pub fn deletes_at(&self, key: &[u8], seq: SequenceNumber, snapshot: SequenceNumber) -> bool {
        let Some(i) = fragment_of(&self.frags, key) else {
            return false;
        };
        let seqs = &self.frags[i].2;
        let first_newer = seqs.partition_point(|&t| t <= seq);
        seqs.get(first_newer).is_some_and(|&t| t <= snapshot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(b: &str, e: &str, seq: u64) -> RangeTombstone {
        RangeTombstone {
            begin: b.as_bytes().to_vec(),
            end: e.as_bytes().to_vec(),
            seq,
        }
    }

    #[test]
    fn overlapping_tombstones_keep_the_max_sequence_per_fragment() {
        let f =
            FragmentedTombstones::new(vec![t("b", "f", 5), t("d", "h", 9), t("x", "x", 100)], 100);
        assert_eq!(f.max_covering(b"a"), None);
        assert_eq!(f.max_covering(b"b"), Some(5));
        assert_eq!(f.max_covering(b"c"), Some(5));
        assert_eq!(f.max_covering(b"d"), Some(9));
        assert_eq!(f.max_covering(b"ee"), Some(9));
        assert_eq!(f.max_covering(b"g"), Some(9));
        assert_eq!(f.max_covering(b"h"), None);
        assert!(f.covers(b"c", 4));
        assert!(!f.covers(b"c", 5));
        assert!(!f.covers(b"x", 1));
    }

    #[test]
    fn tombstone_seqs_answer_per_snapshot() {
        let f = TombstoneSeqs::new(vec![t("a", "m", 2), t("a", "z", 3), t("q", "q", 9)]);
        // k@1 is deleted at snapshot 2 by the tombstone at 2, though the
        // newest tombstone covering it (3) is invisible there.
        assert!(f.deletes_at(b"k", 1, 2));
        assert!(f.deletes_at(b"k", 1, 3));
        assert!(!f.deletes_at(b"k", 1, 1));
        assert!(f.deletes_at(b"k", 2, 3));
        assert!(!f.deletes_at(b"k", 2, 2));
        assert!(!f.deletes_at(b"k", 3, u64::MAX));
        // Only the tombstone at 3 reaches past "m".
        assert!(!f.deletes_at(b"p", 1, 2));
        assert!(f.deletes_at(b"p", 1, 3));
        assert!(!f.deletes_at(b"z", 0, u64::MAX));
        assert!(!f.is_empty());
        assert!(TombstoneSeqs::new(vec![t("q", "q", 9)]).is_empty());
    }

    #[test]
    fn snapshot_hides_newer_tombstones_and_gaps_are_uncovered() {
        let f = FragmentedTombstones::new(vec![t("a", "c", 3), t("e", "g", 8)], 5);
        assert_eq!(f.max_covering(b"b"), Some(3));
        assert_eq!(f.max_covering(b"d"), None);
        assert_eq!(f.max_covering(b"f"), None);
    }
}
