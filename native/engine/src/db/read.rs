//! The read path: point lookups through memtables and levels, multi-gets,
//! and iterators.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use super::db_iter::DbIter;
use super::level_iter::{FileOpener, LevelIter};
use super::{DbInner, SuperVersion};
use crate::error::Result;
use crate::iterator::{InternalIterator, MergingIterator};
use crate::key::SequenceNumber;
use crate::memtable::{Lookup, MemTableIter, RangeTombstone};
use crate::options::ReadOptions;
use crate::range_del::FragmentedTombstones;
use crate::table::TableReadOptions;

/// Outcome of searching one source during a point lookup.
enum Step {
    Found(bool),
    Continue,
}

/// Folds one source's answer into the lookup: `tomb` is the newest range
/// tombstone covering the key seen so far (this source's included).
#[inline]
fn step(r: Lookup, tomb: Option<SequenceNumber>) -> Step {
    match r {
        Lookup::Value(seq) => Step::Found(tomb.is_none_or(|t| t < seq)),
        Lookup::Deleted(_) => Step::Found(false),
        Lookup::Absent => Step::Continue,
    }
}

#[inline]
fn max_opt(a: Option<SequenceNumber>, b: Option<SequenceNumber>) -> Option<SequenceNumber> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

impl DbInner {
    fn snapshot_of(&self, ro: &ReadOptions) -> SequenceNumber {
        ro.snapshot
            .unwrap_or_else(|| self.last_sequence.load(Ordering::Acquire))
    }

    pub(crate) fn get_into(
        &self,
        ro: &ReadOptions,
        key: &[u8],
        value_out: &mut Vec<u8>,
    ) -> Result<bool> {
        self.check_open()?;
        let snapshot = self.snapshot_of(ro);
        let sv = self.super_version.load();
        let r = self.get_in(&sv, ro, snapshot, key, value_out);
        drop(sv);
        self.maybe_purge_obsolete_files();
        r
    }

    fn get_in(
        &self,
        sv: &SuperVersion,
        ro: &ReadOptions,
        snapshot: SequenceNumber,
        key: &[u8],
        value_out: &mut Vec<u8>,
    ) -> Result<bool> {
        let mut tomb = None;
        for mem in std::iter::once(&sv.mem).chain(sv.imm.iter()) {
            tomb = max_opt(tomb, mem.max_covering_tombstone(key, snapshot));
            if let Step::Found(f) = step(mem.get(key, snapshot, value_out), tomb) {
                return Ok(f);
            }
        }
        let tro = TableReadOptions::from(ro);
        let v = &sv.version;
        for f in v.l0_files_for_key(key) {
            let t = self.table_cache.reader(f, 0)?;
            tomb = max_opt(tomb, t.max_covering_tombstone(key, snapshot));
            if let Step::Found(found) = step(t.get(key, snapshot, &tro, value_out)?.result, tomb) {
                return Ok(found);
            }
        }
        for level in 1..v.num_levels() {
            for f in v.files_for_key(level, key) {
                let t = self.table_cache.reader(f, level)?;
                tomb = max_opt(tomb, t.max_covering_tombstone(key, snapshot));
                if let Step::Found(found) =
                    step(t.get(key, snapshot, &tro, value_out)?.result, tomb)
                {
                    return Ok(found);
                }
            }
        }
        Ok(false)
    }

    pub(crate) fn multi_get(
        &self,
        ro: &ReadOptions,
        keys: &[&[u8]],
    ) -> Result<Vec<Option<Vec<u8>>>> {
        self.check_open()?;
        let snapshot = self.snapshot_of(ro);
        let sv = self.super_version.load_full();
        let mut out = Vec::with_capacity(keys.len());
        let r = keys.iter().try_for_each(|k| {
            let mut v = Vec::new();
            out.push(self.get_in(&sv, ro, snapshot, k, &mut v)?.then_some(v));
            Ok(())
        });
        drop(sv);
        self.maybe_purge_obsolete_files();
        r.map(|()| out)
    }

    pub(crate) fn new_iterator(self: &Arc<Self>, ro: &ReadOptions) -> Result<DbIterator> {
        self.check_open()?;
        let snapshot = self.snapshot_of(ro);
        let sv = self.super_version.load_full();
        let tro = TableReadOptions::from(ro);
        let mut children: Vec<Box<dyn InternalIterator>> = Vec::new();
        let mut tombstones: Vec<RangeTombstone> = Vec::new();
        for mem in std::iter::once(&sv.mem).chain(sv.imm.iter()) {
            tombstones.extend(mem.range_tombstones());
            children.push(Box::new(MemTableIter::new(mem.clone())));
        }
        let v = &sv.version;
        for f in v.files(0) {
            let t = self.table_cache.reader(f, 0)?;
            tombstones.extend_from_slice(t.range_tombstones());
            children.push(Box::new(t.iter(tro)));
        }
        for level in 1..v.num_levels() {
            let files = v.files(level);
            if files.is_empty() {
                continue;
            }
            for f in files.iter().filter(|f| f.num_deletions > 0) {
                let t = self.table_cache.reader(f, level)?;
                tombstones.extend_from_slice(t.range_tombstones());
            }
            children.push(Box::new(LevelIter::new(
                files.to_vec(),
                self.file_opener(level, tro),
            )));
        }
        let inner = MergingIterator::new(children);
        Ok(DbIterator {
            it: DbIter::new(
                inner,
                snapshot,
                FragmentedTombstones::new(tombstones, snapshot),
                ro.iterate_lower_bound.clone(),
                ro.iterate_upper_bound.clone(),
            ),
            sv: Some(sv),
            db: Arc::downgrade(self),
        })
    }

    /// Opens table iterators of files at `level` for a [`LevelIter`].
    pub(crate) fn file_opener(&self, level: usize, tro: TableReadOptions) -> FileOpener {
        let tc = self.table_cache.clone();
        Arc::new(move |f| {
            let t = tc.reader(f, level)?;
            Ok(Box::new(t.iter(tro)) as Box<dyn InternalIterator>)
        })
    }
}

/// An iterator over the database at a snapshot. Holds the memtables and
/// table files it reads alive until dropped.
pub struct DbIterator {
    it: DbIter<MergingIterator>,
    /// `Some` until dropped.
    sv: Option<Arc<SuperVersion>>,
    /// To delete the tables only this iterator kept, when it goes.
    db: Weak<DbInner>,
}

impl Drop for DbIterator {
    fn drop(&mut self) {
        drop(self.sv.take());
        if let Some(db) = self.db.upgrade() {
            db.maybe_purge_obsolete_files();
        }
    }
}

impl DbIterator {
    /// True when positioned on an entry.
    pub fn valid(&self) -> bool {
        self.it.valid()
    }
    /// Moves to the first key (at or after the lower bound).
    pub fn seek_to_first(&mut self) {
        self.it.seek_to_first();
    }
    /// Moves to the last key (before the upper bound).
    pub fn seek_to_last(&mut self) {
        self.it.seek_to_last();
    }
    /// Moves to the first key ≥ `target`.
    pub fn seek(&mut self, target: &[u8]) {
        self.it.seek(target);
    }
    /// Moves to the last key ≤ `target`.
    pub fn seek_for_prev(&mut self, target: &[u8]) {
        self.it.seek_for_prev(target);
    }
    /// Moves to the next key. Precondition: `valid()`.
    pub fn next(&mut self) {
        self.it.next();
    }
    /// Moves to the previous key. Precondition: `valid()`.
    pub fn prev(&mut self) {
        self.it.prev();
    }
    /// The current key. Precondition: `valid()`.
    pub fn key(&self) -> &[u8] {
        self.it.key()
    }
    /// The current value. Precondition: `valid()`.
    pub fn value(&self) -> &[u8] {
        self.it.value()
    }
    /// The first error met, if any.
    pub fn status(&self) -> Result<()> {
        self.it.status()
    }
}
