//! The read path: point lookups through memtables and levels, multi-gets,
//! and iterators.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::db_iter::DbIter;
use super::level_iter::{FileOpener, LevelIter};
use super::{DbInner, SuperVersion};
use crate::error::Result;
use crate::iterator::{InternalIterator, MergingIterator};
use crate::key::SequenceNumber;
use crate::memtable::{Lookup, MemTableIter, RangeTombstone};
use crate::options::ReadOptions;
use crate::range_del::FragmentedTombstones;
use crate::statistics::{Histogram, Statistics, Ticker};
use crate::table::{TableGet, TableReadOptions};

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
        let _t = self.timer(Histogram::DbGet);
        let snapshot = self.snapshot_of(ro);
        let sv = self.super_version.load();
        let found = self.get_in(&sv, ro, snapshot, key, value_out)?;
        if self.statistics.is_some() {
            self.tick(Ticker::NumberKeysRead, 1);
            if found {
                self.tick(Ticker::BytesRead, value_out.len() as u64);
                self.hist(Histogram::BytesPerRead, value_out.len() as u64);
            }
        }
        Ok(found)
    }

    /// Counts one table's answer to a point lookup.
    fn count_table_get(&self, g: &TableGet, level: usize) {
        if self.statistics.is_none() {
            return;
        }
        if g.filter_rejected {
            self.tick(Ticker::BloomFilterUseful, 1);
        } else if g.filter_checked {
            self.tick(Ticker::BloomFilterFullPositive, 1);
            if g.result != Lookup::Absent {
                self.tick(Ticker::BloomFilterFullTruePositive, 1);
            }
        }
        if g.result != Lookup::Absent {
            self.tick(
                match level {
                    0 => Ticker::GetHitL0,
                    1 => Ticker::GetHitL1,
                    _ => Ticker::GetHitL2AndUp,
                },
                1,
            );
        }
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
                self.tick(Ticker::MemtableHit, 1);
                return Ok(f);
            }
        }
        self.tick(Ticker::MemtableMiss, 1);
        let tro = TableReadOptions::from(ro);
        let v = &sv.version;
        for f in v.l0_files_for_key(key) {
            let t = self.table_cache.reader(f, 0)?;
            tomb = max_opt(tomb, t.max_covering_tombstone(key, snapshot));
            let g = t.get(key, snapshot, &tro, value_out)?;
            self.count_table_get(&g, 0);
            if let Step::Found(found) = step(g.result, tomb) {
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
        let _t = self.timer(Histogram::DbMultiget);
        let snapshot = self.snapshot_of(ro);
        let sv = self.super_version.load_full();
        let mut out = Vec::with_capacity(keys.len());
        let (mut found, mut bytes) = (0u64, 0u64);
        for k in keys {
            let mut v = Vec::new();
            let hit = self.get_in(&sv, ro, snapshot, k, &mut v)?;
            if hit {
                found += 1;
                bytes += v.len() as u64;
            }
            out.push(hit.then_some(v));
        }
        self.tick(Ticker::NumberMultigetCalls, 1);
        self.tick(Ticker::NumberMultigetKeysRead, keys.len() as u64);
        self.tick(Ticker::NumberMultigetKeysFound, found);
        self.tick(Ticker::NumberMultigetBytesRead, bytes);
        Ok(out)
    }

    pub(crate) fn new_iterator(&self, ro: &ReadOptions) -> Result<DbIterator> {
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
            _sv: sv,
            statistics: self.statistics.clone(),
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
    _sv: Arc<SuperVersion>,
    statistics: Option<Arc<Statistics>>,
}

impl DbIterator {
    /// Counts one positioning call (`seek` true for seeks) in the statistics.
    #[inline]
    fn count(&self, call: Ticker, found: Ticker) {
        if let Some(s) = &self.statistics {
            s.record_tick(call, 1);
            if self.it.valid() {
                s.record_tick(found, 1);
                s.record_tick(
                    Ticker::IterBytesRead,
                    (self.it.key().len() + self.it.value().len()) as u64,
                );
            }
        }
    }

    fn seek_start(&self) -> Option<std::time::Instant> {
        self.statistics
            .as_ref()
            .filter(|s| s.is_enabled(Histogram::DbSeek))
            .map(|_| std::time::Instant::now())
    }

    fn seek_done(&self, start: Option<std::time::Instant>) {
        if let (Some(s), Some(t)) = (&self.statistics, start) {
            s.record_in_histogram(Histogram::DbSeek, t.elapsed().as_micros() as u64);
        }
        self.count(Ticker::NumberDbSeek, Ticker::NumberDbSeekFound);
    }

    /// True when positioned on an entry.
    pub fn valid(&self) -> bool {
        self.it.valid()
    }
    /// Moves to the first key (at or after the lower bound).
    pub fn seek_to_first(&mut self) {
        let t = self.seek_start();
        self.it.seek_to_first();
        self.seek_done(t);
    }
    /// Moves to the last key (before the upper bound).
    pub fn seek_to_last(&mut self) {
        let t = self.seek_start();
        self.it.seek_to_last();
        self.seek_done(t);
    }
    /// Moves to the first key ≥ `target`.
    pub fn seek(&mut self, target: &[u8]) {
        let t = self.seek_start();
        self.it.seek(target);
        self.seek_done(t);
    }
    /// Moves to the last key ≤ `target`.
    pub fn seek_for_prev(&mut self, target: &[u8]) {
        let t = self.seek_start();
        self.it.seek_for_prev(target);
        self.seek_done(t);
    }
    /// Moves to the next key. Precondition: `valid()`.
    pub fn next(&mut self) {
        self.it.next();
        self.count(Ticker::NumberDbNext, Ticker::NumberDbNextFound);
    }
    /// Moves to the previous key. Precondition: `valid()`.
    pub fn prev(&mut self) {
        self.it.prev();
        self.count(Ticker::NumberDbPrev, Ticker::NumberDbPrevFound);
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
