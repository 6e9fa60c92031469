//! A memtable's range tombstones and their fragmented lists, kept up to
//! date as tombstones arrive while readers use them.
//!
//! Writers append to `pending`; readers use the published
//! [`MemTableTombstones`], a few immutable fragmented lists that together
//! hold the first `covered` tombstones added. A reader that finds
//! tombstones not yet covered folds them in (one builder at a time) and
//! publishes the result for the next readers.
//!
//! Folding keeps lists of sizes more than doubling from newest to oldest
//! (as in a binary counter): the new tombstones, and every newest list not
//! larger than twice them and the lists already folded, become one list. So a
//! tombstone is rebuilt `O(log N)` times over the memtable's life whatever
//! the interleaving of range deletions and reads, and a lookup asks
//! `O(log N)` lists (one, once the memtable is immutable and read again,
//! see [`RangeDels::mark_immutable`]).
//!
//! Thread-safety contract:
//! 1. `add` may run on many threads at once: it appends under the `pending`
//!    lock and counts the tombstone in `added` before releasing it.
//! 2. A reader at snapshot `s` must see every tombstone with a sequence
//!    number `≤ s`. Those were added before `s` was published, and the
//!    reader loaded `s` before calling [`RangeDels::view`], so `added`
//!    (loaded first, acquire) counts them; a published view whose `covered`
//!    reaches that count holds them, as tombstones are covered in the
//!    order they were added. Views only grow.
//! 3. Publishing a view and removing what it covers from `pending` happen
//!    under the `pending` lock, so [`RangeDels::all`] (which reads both
//!    under it) sees each tombstone exactly once.
//! 4. Builds run under the `build` lock, not the `pending` lock: writers
//!    never wait for a build, readers that need one wait for it, and each
//!    build folds in everything pending when it starts.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use arc_swap::ArcSwap;
use parking_lot::Mutex;

use super::RangeTombstone;
use crate::key::SequenceNumber;
use crate::range_del::{FragmentedRangeTombstoneList, TombstoneArena};

/// One fragmented list of a memtable and the tombstones it was built from
/// (which the next fold that takes this list rebuilds from).
#[derive(Debug)]
struct Level {
    raw: TombstoneArena,
    list: Arc<FragmentedRangeTombstoneList>,
}

/// The tombstones of a memtable as of some moment, fragmented: what a
/// reader uses. Immutable.
#[derive(Debug, Default)]
pub struct MemTableTombstones {
    /// Oldest (largest) first; sizes more than double from each to the
    /// one before it.
    levels: Vec<Arc<Level>>,
    /// The first `covered` tombstones added are in `levels`.
    covered: usize,
}

impl MemTableTombstones {
    /// Largest sequence number `≤ snapshot` of a tombstone covering `key`.
    pub fn max_covering(&self, key: &[u8], snapshot: SequenceNumber) -> Option<SequenceNumber> {
        self.levels
            .iter()
            .filter_map(|l| l.list.max_covering(key, snapshot))
            .max()
    }

    /// The fragmented lists (each may overlap the others).
    pub fn lists(&self) -> impl Iterator<Item = &Arc<FragmentedRangeTombstoneList>> + '_ {
        self.levels.iter().map(|l| &l.list)
    }
}

/// See the module docs.
#[derive(Default)]
pub(super) struct RangeDels {
    /// Tombstones added and not yet in `view`, in the order added.
    pending: Mutex<TombstoneArena>,
    /// Tombstones added in all.
    added: AtomicUsize,
    view: ArcSwap<MemTableTombstones>,
    /// Held by the reader folding `pending` into a new view.
    build: Mutex<()>,
    /// No more tombstones are expected: the next build folds all lists
    /// into one.
    immutable: AtomicBool,
}

impl RangeDels {
    /// Adds `[begin, end) @ seq`. Safe to call from many threads at once.
    pub(super) fn add(&self, begin: &[u8], end: &[u8], seq: SequenceNumber) {
        let mut p = self.pending.lock();
        p.push(begin, end, seq);
        // Counted under the lock, so `added` never runs ahead of what a
        // builder can take from `pending`.
        self.added.fetch_add(1, Ordering::Release);
    }

    /// True when no tombstone was added.
    pub(super) fn is_empty(&self) -> bool {
        self.added.load(Ordering::Acquire) == 0
    }

    /// The memtable will take no more writes: its next reader folds the
    /// lists into one.
    pub(super) fn mark_immutable(&self) {
        self.immutable.store(true, Ordering::Release);
    }

    /// Largest sequence number `≤ snapshot` of a tombstone covering `key`.
    /// Without a build to wait for, takes no lock and no reference count
    /// (`ArcSwap::load`), so concurrent point lookups share no written
    /// cache line.
    pub(super) fn max_covering(
        &self,
        key: &[u8],
        snapshot: SequenceNumber,
    ) -> Option<SequenceNumber> {
        let added = self.added.load(Ordering::Acquire);
        let v = self.view.load();
        if v.covered >= added && !self.wants_merge(&v) {
            return v.max_covering(key, snapshot);
        }
        drop(v);
        self.build_view(added).max_covering(key, snapshot)
    }

    /// A view holding every tombstone added before the call (contract 2).
    pub(super) fn view(&self) -> Arc<MemTableTombstones> {
        let added = self.added.load(Ordering::Acquire);
        let v = self.view.load_full();
        if v.covered >= added && !self.wants_merge(&v) {
            return v;
        }
        self.build_view(added)
    }

    /// A view covering at least `added` tombstones, built unless another
    /// reader built one meanwhile.
    fn build_view(&self, added: usize) -> Arc<MemTableTombstones> {
        let _b = self.build.lock();
        let v = self.view.load_full();
        if v.covered >= added && !self.wants_merge(&v) {
            // Built by the reader holding the lock before us.
            return v;
        }
        let fresh = self.pending.lock().clone();
        let new = Arc::new(fold(&v, fresh, self.immutable.load(Ordering::Acquire)));
        let mut p = self.pending.lock();
        p.drain_front(new.covered - v.covered);
        self.view.store(new.clone());
        new
    }

    fn wants_merge(&self, v: &MemTableTombstones) -> bool {
        v.levels.len() > 1 && self.immutable.load(Ordering::Acquire)
    }

    /// Every tombstone added, as copies.
    pub(super) fn all(&self) -> Vec<RangeTombstone> {
        if self.is_empty() {
            return Vec::new();
        }
        let p = self.pending.lock();
        let v = self.view.load_full();
        v.levels
            .iter()
            .flat_map(|l| l.raw.iter())
            .chain(p.iter())
            .map(|(b, e, seq)| RangeTombstone {
                begin: b.to_vec(),
                end: e.to_vec(),
                seq,
            })
            .collect()
    }
}

/// `v` with `fresh` (the tombstones added after those `v` covers) folded
/// in; with `all`, into a single list.
fn fold(v: &MemTableTombstones, fresh: TombstoneArena, all: bool) -> MemTableTombstones {
    let covered = v.covered + fresh.len();
    let mut keep = v.levels.len();
    let mut size = fresh.len();
    // A list at most twice the size of what is folded joins it, so each
    // list left is more than twice the size of the next; a tombstone's list
    // grows 1.5 times or more each time the tombstone is rebuilt.
    while keep > 0 && (all || v.levels[keep - 1].raw.len() <= 2 * size) {
        keep -= 1;
        size += v.levels[keep].raw.len();
    }
    let mut levels: Vec<Arc<Level>> = v.levels[..keep].to_vec();
    let raw = if keep == v.levels.len() {
        fresh
    } else {
        let mut raw = TombstoneArena::default();
        for l in &v.levels[keep..] {
            raw.extend_from(&l.raw, 0..l.raw.len());
        }
        raw.extend_from(&fresh, 0..fresh.len());
        raw
    };
    if !raw.is_empty() {
        let list = Arc::new(FragmentedRangeTombstoneList::new(raw.iter()));
        levels.push(Arc::new(Level { raw, list }));
    }
    MemTableTombstones { levels, covered }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(v: &MemTableTombstones) -> Vec<usize> {
        v.levels.iter().map(|l| l.raw.len()).collect()
    }

    #[test]
    fn folding_keeps_few_lists_and_covers_every_tombstone() {
        let r = RangeDels::default();
        assert!(r.view().levels.is_empty());
        for i in 0..100u64 {
            let k = format!("{:04}", 2 * i).into_bytes();
            let e = format!("{:04}", 2 * i + 1).into_bytes();
            r.add(&k, &e, i + 1);
            let v = r.view();
            assert_eq!(v.covered, i as usize + 1);
            // Sizes more than double from each list to the older one.
            let s = sizes(&v);
            assert!(s.windows(2).all(|w| w[0] > 2 * w[1]), "{s:?}");
            assert_eq!(s.iter().sum::<usize>(), i as usize + 1);
            assert!(s.len() <= 8, "{s:?}");
            assert_eq!(v.max_covering(&k, u64::MAX), Some(i + 1));
            assert_eq!(v.max_covering(&k, i), None);
            assert_eq!(v.max_covering(&e, u64::MAX), None);
        }
        assert_eq!(r.all().len(), 100);
        r.mark_immutable();
        let v = r.view();
        assert_eq!(sizes(&v), vec![100]);
        assert_eq!(r.all().len(), 100);
    }

    #[test]
    fn a_batch_of_tombstones_becomes_one_list() {
        let r = RangeDels::default();
        for i in 0..1000u64 {
            r.add(
                format!("{i:04}").as_bytes(),
                format!("{i:04}x").as_bytes(),
                i,
            );
        }
        assert_eq!(sizes(&r.view()), vec![1000]);
    }

    #[test]
    fn readers_racing_writers_see_every_tombstone_added_before_they_ask() {
        use std::sync::atomic::AtomicU64;
        let r = Arc::new(RangeDels::default());
        let key = |w: u64, i: u64| format!("{w}-{i:05}").into_bytes();
        // Per writer: how many of its tombstones were added.
        let done: Arc<[AtomicU64; 2]> = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
        let writers: Vec<_> = (0..2u64)
            .map(|w| {
                let (r, done) = (r.clone(), done.clone());
                std::thread::spawn(move || {
                    for i in 0..3000u64 {
                        let k = key(w, i);
                        let mut e = k.clone();
                        e.push(b'!');
                        r.add(&k, &e, w * 10_000 + i + 1);
                        done[w as usize].store(i + 1, Ordering::Release);
                    }
                })
            })
            .collect();
        let readers: Vec<_> = (0..2u64)
            .map(|reader| {
                let (r, done) = (r.clone(), done.clone());
                std::thread::spawn(move || {
                    for round in 0..3000u64 {
                        let w = (round + reader) % 2;
                        let n = done[w as usize].load(Ordering::Acquire);
                        if n > 0 {
                            // The newest tombstone this writer finished
                            // adding, through the lock-free path.
                            let want = Some(w * 10_000 + n);
                            assert_eq!(r.max_covering(&key(w, n - 1), u64::MAX), want);
                        }
                        if round % 10 == 0 {
                            let before = r.added.load(Ordering::Acquire);
                            let v = r.view();
                            assert!(v.covered >= before, "round {round}");
                            let total: usize = v.levels.iter().map(|l| l.raw.len()).sum();
                            assert_eq!(total, v.covered);
                        }
                    }
                })
            })
            .collect();
        for t in writers.into_iter().chain(readers) {
            t.join().unwrap();
        }
        let v = r.view();
        assert_eq!(v.covered, 6000);
        for w in 0..2u64 {
            for i in (0..3000u64).step_by(37) {
                assert_eq!(
                    v.max_covering(&key(w, i), u64::MAX),
                    Some(w * 10_000 + i + 1)
                );
            }
        }
        assert_eq!(r.all().len(), 6000);
    }
}
