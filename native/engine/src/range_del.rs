//! Range tombstones, fragmented for lookups.
//!
//! A range tombstone `[begin, end) @ t` deletes every entry `(key, seq)`
//! with `begin ≤ key < end` and `seq < t`, for a reader whose snapshot is
//! at least `t`. Tombstones from many sources overlap arbitrarily. A reader
//! at snapshot `s` asks, for a key, the largest tombstone sequence number
//! `≤ s` covering it: the entry is deleted iff that number is larger than
//! the entry's (RocksDB's `FragmentedRangeTombstoneList` answers the same
//! question; this structure is ours).
//!
//! [`FragmentedRangeTombstoneList`] splits the key space at every begin and
//! end key into disjoint *fragments* (the spans between consecutive
//! distinct boundary keys, gaps included) and answers per fragment:
//! - `top`: the largest sequence number covering the fragment. A reader
//!   whose snapshot is at least that (every reader without an old snapshot)
//!   is answered from it: one binary search over the boundaries.
//! - for older snapshots, a segment tree over the fragments: each tombstone
//!   is stored at the `O(log F)` tree nodes whose spans tile its fragment
//!   range, so the tombstones covering a fragment are those on the path
//!   from its leaf to the root, and the answer is the best of one binary
//!   search per node on the path (`O(log² N)`).
//!
//! Building costs `O(N log N)` for N tombstones (a sort of the begin and
//! end keys, then a sweep over them that numbers the distinct boundaries
//! and places each tombstone at its tree nodes) and the
//! space is `O(N log N)` in the worst case (nested tombstones), `O(N)` for
//! disjoint ones. Storing every sequence number per fragment (RocksDB's
//! layout) would be `O(N²)` for N nested tombstones, such as those of a
//! queue truncated with `deleteRange(first, i)` for growing `i`.
//!
//! Lists are immutable once built and shared (`Arc`) by readers: a memtable
//! keeps a few (`crate::memtable`), a table reader one, built on first use
//! and kept with the reader in the table cache.
//! [`RangeDelAggregator`] answers for all the sources of one iterator.
//!
//! Pinned by the tests below against the former quadratic fragmenter kept
//! as the oracle, by `tests/engine/range_del_model.rs` against a `BTreeMap`,
//! and, for its cost, by `tests/range_del_complexity.rs` through
//! [`key_comparisons`].

use std::sync::atomic::{AtomicU64, Ordering};

use crate::key::SequenceNumber;
use crate::memtable::RangeTombstone;

/// Key comparisons made building fragmented lists and clipping tombstones
/// to output files, since the process started.
static KEY_COMPARISONS: AtomicU64 = AtomicU64::new(0);

/// Key comparisons made so far by the range-deletion code while building
/// fragmented tombstone lists (flushes, compactions, memtable and table
/// readers) and clipping tombstones to the output files of flushes and
/// compactions, process-wide. A measure of range-deletion work that does
/// not depend on the machine: the scaling test checks that it grows as
/// `N log N` with the number of tombstones. Lookups are not counted.
pub fn key_comparisons() -> u64 {
    KEY_COMPARISONS.load(Ordering::Relaxed)
}

/// Adds to [`key_comparisons`]; callers count locally and add once per job.
pub(crate) fn count_key_comparisons(n: u64) {
    KEY_COMPARISONS.fetch_add(n, Ordering::Relaxed);
}

/// Range tombstones stored back to back: one allocation for all the keys,
/// instead of two per tombstone.
#[derive(Clone, Debug, Default)]
pub struct TombstoneArena {
    keys: Vec<u8>,
    /// `(begin start, end start, end stop, seq)`: begin is
    /// `keys[begin start..end start]`, end `keys[end start..end stop]`.
    items: Vec<(usize, usize, usize, SequenceNumber)>,
}

impl TombstoneArena {
    /// Appends `[begin, end) @ seq`.
    pub fn push(&mut self, begin: &[u8], end: &[u8], seq: SequenceNumber) {
        let b = self.keys.len();
        self.keys.extend_from_slice(begin);
        let e = self.keys.len();
        self.keys.extend_from_slice(end);
        self.items.push((b, e, self.keys.len(), seq));
    }

    /// Appends the tombstones `range` of `other`.
    pub fn extend_from(&mut self, other: &TombstoneArena, range: std::ops::Range<usize>) {
        for i in range {
            let (b, e, s) = other.get(i);
            self.push(b, e, s);
        }
    }

    /// Number of tombstones.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Tombstone `i`: begin, end, sequence number.
    pub fn get(&self, i: usize) -> (&[u8], &[u8], SequenceNumber) {
        let (b, e, x, s) = self.items[i];
        (&self.keys[b..e], &self.keys[e..x], s)
    }

    /// The tombstones in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8], SequenceNumber)> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Removes the first `n` tombstones.
    pub fn drain_front(&mut self, n: usize) {
        if n >= self.len() {
            self.keys.clear();
            self.items.clear();
            return;
        }
        let shift = self.items[n].0;
        self.keys.drain(..shift);
        self.items.drain(..n);
        for it in &mut self.items {
            it.0 -= shift;
            it.1 -= shift;
            it.2 -= shift;
        }
    }
}

/// Where the last lookup in a list landed, to start the next one there: a
/// scan asks about ascending (or descending) keys, which mostly fall in the
/// same fragment or the next, so a hint makes its lookups `O(1)` amortized.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hint(usize);

/// Range tombstones fragmented for lookups at any snapshot. See the module
/// docs. Immutable once built.
#[derive(Debug, Default)]
pub struct FragmentedRangeTombstoneList {
    /// Distinct begin and end keys, ascending, back to back: boundary `i`
    /// is `keys[bound_ends[i - 1]..bound_ends[i]]` (from 0 for `i = 0`).
    /// Fragment `i` is `[boundary i, boundary i + 1)`.
    keys: Vec<u8>,
    bound_ends: Vec<usize>,
    /// Per fragment: 1 + the largest sequence number covering it, or 0 for
    /// a gap (so sequence number 0 needs no special case).
    top: Vec<SequenceNumber>,
    /// Leaves of the segment tree are nodes `width + i` for fragment `i`;
    /// node `n`'s children are `2n` and `2n + 1`. `width` is a power of two.
    width: usize,
    /// Nodes holding tombstones, ascending; node `node_ids[k]` holds the
    /// sequence numbers `seqs[node_starts[k]..node_starts[k + 1]]`,
    /// descending and distinct: those of the tombstones whose fragment
    /// range includes the node's span but not its parent's.
    node_ids: Vec<usize>,
    node_starts: Vec<usize>,
    seqs: Vec<SequenceNumber>,
    /// Largest sequence number of any tombstone (0 when empty).
    max_seq: SequenceNumber,
    /// Tombstones the list was built from (empty ones left out).
    num_tombstones: usize,
}

impl FragmentedRangeTombstoneList {
    /// Fragments `tombstones` (`begin`, `end`, sequence number); empty
    /// ones (`begin ≥ end`) cover nothing and are left out.
    pub fn new<'a>(
        tombstones: impl IntoIterator<Item = (&'a [u8], &'a [u8], SequenceNumber)>,
    ) -> Self {
        let ts: Vec<(&[u8], &[u8], SequenceNumber)> =
            tombstones.into_iter().filter(|t| t.0 < t.1).collect();
        if ts.is_empty() {
            return Self::default();
        }
        let mut cmps = 0u64;
        // Every begin and end key, tagged `2i` (begin of tombstone i) or
        // `2i + 1` (its end), sorted: walking them gives the distinct
        // boundaries and each tombstone's fragment range `[l, r)` at once.
        let mut ends: Vec<(&[u8], usize)> = Vec::with_capacity(2 * ts.len());
        for (i, &(b, e, _)) in ts.iter().enumerate() {
            ends.push((b, 2 * i));
            ends.push((e, 2 * i + 1));
        }
        ends.sort_unstable_by(|a, b| {
            cmps += 1;
            a.0.cmp(b.0)
        });
        let mut bounds: Vec<&[u8]> = Vec::with_capacity(ends.len());
        let mut range = vec![(0usize, 0usize); ts.len()];
        for &(k, tag) in &ends {
            if bounds.last().is_none_or(|&last| {
                cmps += 1;
                last != k
            }) {
                bounds.push(k);
            }
            let rank = bounds.len() - 1;
            if tag % 2 == 0 {
                range[tag / 2].0 = rank;
            } else {
                range[tag / 2].1 = rank;
            }
        }
        drop(ends);
        let frags = bounds.len() - 1;
        let width = frags.next_power_of_two();
        // Each tombstone at the nodes tiling its fragments `[l, r)`.
        let mut pairs: Vec<(usize, SequenceNumber)> = Vec::with_capacity(ts.len());
        let mut max_seq = 0;
        for (&(_, _, seq), &(l, r)) in ts.iter().zip(&range) {
            let (mut l, mut r) = (l + width, r + width);
            while l < r {
                if l & 1 == 1 {
                    pairs.push((l, seq));
                    l += 1;
                }
                if r & 1 == 1 {
                    r -= 1;
                    pairs.push((r, seq));
                }
                l >>= 1;
                r >>= 1;
            }
            max_seq = max_seq.max(seq);
        }
        pairs.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        pairs.dedup();
        let mut node_ids = Vec::new();
        let mut node_starts = Vec::new();
        let mut seqs = Vec::with_capacity(pairs.len());
        // Largest sequence number at or above each node (plus one).
        let mut above = vec![0 as SequenceNumber; 2 * width];
        for (i, &(node, seq)) in pairs.iter().enumerate() {
            if i == 0 || pairs[i - 1].0 != node {
                node_ids.push(node);
                node_starts.push(seqs.len());
                // Descending: the first is the node's largest.
                above[node] = seq + 1;
            }
            seqs.push(seq);
        }
        node_starts.push(seqs.len());
        for n in 2..2 * width {
            above[n] = above[n].max(above[n / 2]);
        }
        let top = above[width..width + frags].to_vec();
        let mut keys = Vec::with_capacity(bounds.iter().map(|b| b.len()).sum());
        let mut bound_ends = Vec::with_capacity(bounds.len());
        for b in &bounds {
            keys.extend_from_slice(b);
            bound_ends.push(keys.len());
        }
        count_key_comparisons(cmps);
        FragmentedRangeTombstoneList {
            keys,
            bound_ends,
            top,
            width,
            node_ids,
            node_starts,
            seqs,
            max_seq,
            num_tombstones: ts.len(),
        }
    }

    /// Fragments `tombstones`.
    pub fn from_tombstones(tombstones: &[RangeTombstone]) -> Self {
        Self::new(
            tombstones
                .iter()
                .map(|t| (t.begin.as_slice(), t.end.as_slice(), t.seq)),
        )
    }

    /// True when no tombstone covers any key.
    pub fn is_empty(&self) -> bool {
        self.top.is_empty()
    }

    /// Tombstones the list was built from (empty ones left out).
    pub fn num_tombstones(&self) -> usize {
        self.num_tombstones
    }

    /// Largest sequence number of any tombstone (0 when empty).
    pub fn max_seq(&self) -> SequenceNumber {
        self.max_seq
    }

    /// Number of fragments, gaps between tombstones included.
    pub fn num_fragments(&self) -> usize {
        self.top.len()
    }

    fn bound(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.bound_ends[i - 1] };
        &self.keys[start..self.bound_ends[i]]
    }

    /// The first key covered (the smallest begin key), if any.
    pub fn first_key(&self) -> Option<&[u8]> {
        (!self.is_empty()).then(|| self.bound(0))
    }

    /// The first key past every tombstone (the largest end key), if any.
    pub fn end_key(&self) -> Option<&[u8]> {
        (!self.is_empty()).then(|| self.bound(self.top.len()))
    }

    /// True when fragment `i` holds `key`.
    fn in_fragment(&self, i: usize, key: &[u8]) -> bool {
        i < self.top.len() && self.bound(i) <= key && key < self.bound(i + 1)
    }

    /// The fragment holding `key`, if any, by binary search.
    fn fragment_of(&self, key: &[u8]) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.bound_ends.len());
        // First boundary > key.
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.bound(mid) <= key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        (lo >= 1 && lo - 1 < self.top.len()).then(|| lo - 1)
    }

    /// [`Self::fragment_of`], trying the hinted fragment and its
    /// neighbours first; updates the hint.
    fn fragment_near(&self, key: &[u8], hint: &mut Hint) -> Option<usize> {
        let h = hint.0;
        for i in [h, h + 1, h.wrapping_sub(1)] {
            if self.in_fragment(i, key) {
                hint.0 = i;
                return Some(i);
            }
        }
        let f = self.fragment_of(key)?;
        hint.0 = f;
        Some(f)
    }

    /// Largest sequence number `≤ snapshot` of a tombstone covering
    /// fragment `f`.
    fn max_in_fragment(&self, f: usize, snapshot: SequenceNumber) -> Option<SequenceNumber> {
        let top = self.top[f].checked_sub(1)?;
        if top <= snapshot {
            return Some(top);
        }
        // An older snapshot: the best of the nodes on the leaf's path.
        let mut best = None;
        let mut node = self.width + f;
        while node >= 1 {
            if let Ok(k) = self.node_ids.binary_search(&node) {
                let seqs = &self.seqs[self.node_starts[k]..self.node_starts[k + 1]];
                let i = seqs.partition_point(|&t| t > snapshot);
                if let Some(&t) = seqs.get(i) {
                    best = best.max(Some(t));
                }
            }
            node >>= 1;
        }
        best
    }

    /// Largest sequence number `≤ snapshot` of a tombstone covering `key`.
    pub fn max_covering(&self, key: &[u8], snapshot: SequenceNumber) -> Option<SequenceNumber> {
        if self.is_empty() {
            return None;
        }
        self.max_in_fragment(self.fragment_of(key)?, snapshot)
    }

    /// [`Self::max_covering`], starting from `hint` (for scans).
    pub fn max_covering_near(
        &self,
        key: &[u8],
        snapshot: SequenceNumber,
        hint: &mut Hint,
    ) -> Option<SequenceNumber> {
        if self.is_empty() {
            return None;
        }
        self.max_in_fragment(self.fragment_near(key, hint)?, snapshot)
    }

    /// True when a reader at `snapshot` sees `(key, seq)` deleted: a
    /// tombstone covers `key` with `seq < t ≤ snapshot`.
    pub fn deletes(&self, key: &[u8], seq: SequenceNumber, snapshot: SequenceNumber) -> bool {
        self.max_seq > seq && self.max_covering(key, snapshot).is_some_and(|t| t > seq)
    }

    /// [`Self::deletes`], starting from `hint` (for scans).
    pub fn deletes_near(
        &self,
        key: &[u8],
        seq: SequenceNumber,
        snapshot: SequenceNumber,
        hint: &mut Hint,
    ) -> bool {
        self.max_seq > seq
            && self
                .max_covering_near(key, snapshot, hint)
                .is_some_and(|t| t > seq)
    }

    /// Every fragment with at least one tombstone: start, end and the
    /// sequence numbers covering it, descending. `O(F log F)`; for tests
    /// and diagnostics.
    pub fn fragments(&self) -> Vec<(Vec<u8>, Vec<u8>, Vec<SequenceNumber>)> {
        let mut out = Vec::new();
        for f in 0..self.top.len() {
            if self.top[f] == 0 {
                continue;
            }
            let mut seqs = Vec::new();
            let mut node = self.width + f;
            while node >= 1 {
                if let Ok(k) = self.node_ids.binary_search(&node) {
                    seqs.extend_from_slice(
                        &self.seqs[self.node_starts[k]..self.node_starts[k + 1]],
                    );
                }
                node >>= 1;
            }
            seqs.sort_unstable_by(|a, b| b.cmp(a));
            seqs.dedup();
            out.push((self.bound(f).to_vec(), self.bound(f + 1).to_vec(), seqs));
        }
        out
    }
}

/// The range tombstones an iterator applies: those of every memtable and
/// table it reads, each source fragmented once and shared. Answers whether
/// an entry is deleted at the iterator's snapshot with a lookup per source
/// that may cover the key: every list of `overlapping` (memtables, L0
/// tables), and in each level ≥ 1 only the table whose tombstones span the
/// key, found by binary search (the tables of a level hold disjoint key
/// ranges and each holds its tombstones clipped to its range; see
/// `db/compaction.rs`).
#[derive(Debug, Default)]
pub struct RangeDelAggregator {
    snapshot: SequenceNumber,
    overlapping: Vec<(std::sync::Arc<FragmentedRangeTombstoneList>, Hint)>,
    /// Per level: its tables' lists in key order, and the last one used.
    levels: Vec<(
        Vec<std::sync::Arc<FragmentedRangeTombstoneList>>,
        usize,
        Hint,
    )>,
}

impl RangeDelAggregator {
    /// No tombstones yet, for a reader at `snapshot`.
    pub fn new(snapshot: SequenceNumber) -> Self {
        RangeDelAggregator {
            snapshot,
            ..Self::default()
        }
    }

    /// Adds a source whose tombstones may overlap any other's.
    pub fn add(&mut self, list: std::sync::Arc<FragmentedRangeTombstoneList>) {
        if !list.is_empty() {
            self.overlapping.push((list, Hint::default()));
        }
    }

    /// Adds the lists of one level's tables, in the level's key order.
    /// Their key spans should be disjoint and ascending (the tables of a
    /// level ≥ 1 hold their tombstones clipped to their disjoint ranges);
    /// lists that are not are added as overlapping sources, slower to ask
    /// but as correct.
    pub fn add_level(&mut self, lists: Vec<std::sync::Arc<FragmentedRangeTombstoneList>>) {
        let lists: Vec<_> = lists.into_iter().filter(|l| !l.is_empty()).collect();
        if lists.windows(2).all(|w| w[0].end_key() <= w[1].first_key()) {
            if !lists.is_empty() {
                self.levels.push((lists, 0, Hint::default()));
            }
        } else {
            for l in lists {
                self.add(l);
            }
        }
    }

    /// True when there are no tombstones.
    pub fn is_empty(&self) -> bool {
        self.overlapping.is_empty() && self.levels.is_empty()
    }

    /// True when `(key, seq)` is deleted at the aggregator's snapshot.
    /// Asked for every entry a scan shows; without tombstones (the usual
    /// case) it is two length checks inlined into the caller.
    #[inline]
    pub fn covers(&mut self, key: &[u8], seq: SequenceNumber) -> bool {
        if self.overlapping.is_empty() && self.levels.is_empty() {
            return false;
        }
        self.covers_slow(key, seq)
    }

    fn covers_slow(&mut self, key: &[u8], seq: SequenceNumber) -> bool {
        let snapshot = self.snapshot;
        for (list, hint) in &mut self.overlapping {
            if list.deletes_near(key, seq, snapshot, hint) {
                return true;
            }
        }
        for (lists, last, hint) in &mut self.levels {
            let in_span = |l: &FragmentedRangeTombstoneList| {
                l.first_key().is_some_and(|f| f <= key) && l.end_key().is_some_and(|e| key < e)
            };
            let i = if in_span(&lists[*last]) {
                *last
            } else {
                // The first list ending after `key`: the only one that can
                // span it.
                let i = lists.partition_point(|l| l.end_key().is_some_and(|e| e <= key));
                if i == lists.len() || !in_span(&lists[i]) {
                    continue;
                }
                *last = i;
                *hint = Hint::default();
                i
            };
            if lists[i].deletes_near(key, seq, snapshot, hint) {
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests;
