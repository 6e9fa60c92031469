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
        let mut bounds: Vec<&[u8]> = ts
            .iter()
            .flat_map(|t| [t.begin.as_slice(), t.end.as_slice()])
            .collect();
        bounds.sort_unstable();
        bounds.dedup();
        let mut frags = Vec::new();
        for w in bounds.windows(2) {
            let (s, e) = (w[0], w[1]);
            let max = ts
                .iter()
                .filter(|t| t.begin.as_slice() <= s && e <= t.end.as_slice())
                .map(|t| t.seq)
                .max();
            if let Some(seq) = max {
                frags.push((s.to_vec(), e.to_vec(), seq));
            }
        }
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
        // First fragment whose end is > key.
        let i = self.frags.partition_point(|f| f.1.as_slice() <= key);
        let f = self.frags.get(i)?;
        (f.0.as_slice() <= key).then_some(f.2)
    }

    /// True when `(key, seq)` is deleted by a tombstone.
    #[inline]
    pub fn covers(&self, key: &[u8], seq: SequenceNumber) -> bool {
        !self.frags.is_empty() && self.max_covering(key).is_some_and(|t| t > seq)
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
    fn snapshot_hides_newer_tombstones_and_gaps_are_uncovered() {
        let f = FragmentedTombstones::new(vec![t("a", "c", 3), t("e", "g", 8)], 5);
        assert_eq!(f.max_covering(b"b"), Some(3));
        assert_eq!(f.max_covering(b"d"), None);
        assert_eq!(f.max_covering(b"f"), None);
    }
}
