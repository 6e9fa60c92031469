//! [`MergingIterator`]: one ordered view over several [`InternalIterator`]s
//! (memtables, L0 tables, levels), kept in a binary heap of child indices —
//! a min-heap while moving forward, a max-heap while moving backward.
//!
//! Invariant: while valid, `heap[0]` is the child positioned on the
//! smallest (forward) or largest (backward) key among all valid children,
//! and every child in the heap is valid. Changing direction re-positions
//! every other child just past (or before) the current key.

use std::cmp::Ordering;

use super::InternalIterator;
use crate::error::Result;
use crate::key::compare_internal;
use crate::perf_context::{F, Laps, PerfLevel};
use crate::perf_count;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Forward,
    Reverse,
}

/// Merges children in internal-key order. See the module docs. The
/// children are of one type `C`: boxed iterators by default, or an enum of
/// the source kinds a caller merges, whose calls the compiler can inline.
pub struct MergingIterator<C = Box<dyn InternalIterator>> {
    children: Vec<C>,
    heap: Vec<usize>,
    dir: Direction,
}

impl<C: InternalIterator> MergingIterator<C> {
    /// Merges `children` (unpositioned).
    pub fn new(children: Vec<C>) -> Self {
        let n = children.len();
        MergingIterator {
            children,
            heap: Vec::with_capacity(n),
            dir: Direction::Forward,
        }
    }

    /// Number of children.
    pub fn num_children(&self) -> usize {
        self.children.len()
    }

    /// True when child `a` should be above child `b` in the heap.
    #[inline]
    fn before(&self, a: usize, b: usize) -> bool {
        let o = compare_internal(self.children[a].key(), self.children[b].key());
        match self.dir {
            Direction::Forward => o == Ordering::Less,
            Direction::Reverse => o == Ordering::Greater,
        }
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                return;
            }
            let r = l + 1;
            let mut best = l;
            if r < n && self.before(self.heap[r], self.heap[l]) {
                best = r;
            }
            if self.before(self.heap[best], self.heap[i]) {
                self.heap.swap(best, i);
                i = best;
            } else {
                return;
            }
        }
    }

    fn rebuild(&mut self) {
        self.heap.clear();
        for i in 0..self.children.len() {
            if self.children[i].valid() {
                self.heap.push(i);
            }
        }
        for i in (0..self.heap.len() / 2).rev() {
            self.sift_down(i);
        }
    }

    /// After the top child moved: restore the heap.
    fn fix_top(&mut self) {
        if self.heap.is_empty() {
            return;
        }
        if self.children[self.heap[0]].valid() {
            self.sift_down(0);
        } else {
            let last = self.heap.pop().expect("non-empty");
            if !self.heap.is_empty() {
                self.heap[0] = last;
                self.sift_down(0);
            }
        }
    }

    fn current(&self) -> usize {
        self.heap[0]
    }
}

impl<C: InternalIterator> InternalIterator for MergingIterator<C> {
    fn valid(&self) -> bool {
        !self.heap.is_empty()
    }

    fn seek_to_first(&mut self) {
        for c in &mut self.children {
            c.seek_to_first();
        }
        self.dir = Direction::Forward;
        self.rebuild();
    }

    fn seek_to_last(&mut self) {
        for c in &mut self.children {
            c.seek_to_last();
        }
        self.dir = Direction::Reverse;
        self.rebuild();
    }

    fn seek(&mut self, target: &[u8]) {
        perf_count!(seek_child_seek_count = self.children.len());
        let mut laps = Laps::start(PerfLevel::EnableTimeExceptForMutex);
        for c in &mut self.children {
            c.seek(target);
        }
        laps.lap(F::seek_child_seek_time);
        self.dir = Direction::Forward;
        self.rebuild();
    }

    fn seek_for_prev(&mut self, target: &[u8]) {
        perf_count!(seek_child_seek_count = self.children.len());
        let mut laps = Laps::start(PerfLevel::EnableTimeExceptForMutex);
        for c in &mut self.children {
            c.seek_for_prev(target);
        }
        laps.lap(F::seek_child_seek_time);
        self.dir = Direction::Reverse;
        self.rebuild();
    }

    fn seek_prefix(&mut self, target: &[u8], prefix: &[u8]) -> bool {
        perf_count!(seek_child_seek_count = self.children.len());
        let mut laps = Laps::start(PerfLevel::EnableTimeExceptForMutex);
        let mut skipped = false;
        for c in &mut self.children {
            skipped |= c.seek_prefix(target, prefix);
        }
        laps.lap(F::seek_child_seek_time);
        self.dir = Direction::Forward;
        self.rebuild();
        skipped
    }

    fn seek_for_prev_prefix(&mut self, target: &[u8], prefix: &[u8]) -> bool {
        perf_count!(seek_child_seek_count = self.children.len());
        let mut laps = Laps::start(PerfLevel::EnableTimeExceptForMutex);
        let mut skipped = false;
        for c in &mut self.children {
            skipped |= c.seek_for_prev_prefix(target, prefix);
        }
        laps.lap(F::seek_child_seek_time);
        self.dir = Direction::Reverse;
        self.rebuild();
        skipped
    }

    // A change of direction re-seeks the other children with plain seeks:
    // only the seeks a caller asks for may skip by prefix.
    fn next(&mut self) {
        debug_assert!(self.valid());
        if self.dir == Direction::Reverse {
            // Move every other child to the first entry after the current key.
            let cur = self.current();
            let key = self.children[cur].key().to_vec();
            for (i, c) in self.children.iter_mut().enumerate() {
                if i == cur {
                    continue;
                }
                c.seek(&key);
                if c.valid() && compare_internal(c.key(), &key) == Ordering::Equal {
                    c.next();
                }
            }
            self.children[cur].next();
            self.dir = Direction::Forward;
            self.rebuild();
            return;
        }
        let cur = self.current();
        self.children[cur].next();
        self.fix_top();
    }

    fn prev(&mut self) {
        debug_assert!(self.valid());
        if self.dir == Direction::Forward {
            // Move every other child to the last entry before the current key.
            let cur = self.current();
            let key = self.children[cur].key().to_vec();
            for (i, c) in self.children.iter_mut().enumerate() {
                if i == cur {
                    continue;
                }
                c.seek_for_prev(&key);
                if c.valid() && compare_internal(c.key(), &key) == Ordering::Equal {
                    c.prev();
                }
            }
            self.children[cur].prev();
            self.dir = Direction::Reverse;
            self.rebuild();
            return;
        }
        let cur = self.current();
        self.children[cur].prev();
        self.fix_top();
    }

    fn key(&self) -> &[u8] {
        self.children[self.current()].key()
    }

    fn value(&self) -> &[u8] {
        self.children[self.current()].value()
    }

    fn status(&self) -> Result<()> {
        for c in &self.children {
            c.status()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iterator::VecIter;
    use crate::key::{ValueKind, make_internal_key};
    use rand::{Rng, SeedableRng};

    fn ik(k: u32, seq: u64) -> Vec<u8> {
        make_internal_key(&k.to_be_bytes(), seq, ValueKind::Value)
    }

    #[test]
    fn random_walks_match_a_sorted_vector() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for _round in 0..50 {
            let n_children = rng.random_range(0..6);
            let mut all = Vec::new();
            let mut children: Vec<Box<dyn InternalIterator>> = Vec::new();
            let mut seq = 1;
            for _ in 0..n_children {
                let mut entries = Vec::new();
                for _ in 0..rng.random_range(0..30) {
                    let e = (ik(rng.random_range(0..40), seq), seq.to_le_bytes().to_vec());
                    seq += 1;
                    all.push(e.clone());
                    entries.push(e);
                }
                children.push(Box::new(VecIter::new(entries)));
            }
            let mut model = VecIter::new(all);
            let mut m = MergingIterator::new(children);
            for _step in 0..200 {
                match rng.random_range(0..6) {
                    0 => {
                        m.seek_to_first();
                        model.seek_to_first();
                    }
                    1 => {
                        m.seek_to_last();
                        model.seek_to_last();
                    }
                    2 => {
                        let t = ik(rng.random_range(0..40), rng.random_range(0..seq));
                        m.seek(&t);
                        model.seek(&t);
                    }
                    3 => {
                        let t = ik(rng.random_range(0..40), rng.random_range(0..seq));
                        m.seek_for_prev(&t);
                        model.seek_for_prev(&t);
                    }
                    4 if m.valid() => {
                        m.next();
                        model.next();
                    }
                    5 if m.valid() => {
                        m.prev();
                        model.prev();
                    }
                    _ => {}
                }
                assert_eq!(m.valid(), model.valid());
                if m.valid() {
                    assert_eq!(m.key(), model.key());
                    assert_eq!(m.value(), model.value());
                }
            }
        }
    }
}
