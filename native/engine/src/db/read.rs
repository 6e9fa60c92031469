//! The read path: point lookups through memtables and levels, multi-gets,
//! and iterators.
//!
//! Perf context: every public call here is one operation
//! ([`perf_context::op`]). A point lookup times its phases with one chain of
//! clock readings ([`Laps`]: snapshot → memtables → table files → post
//! processing), and attributes each table probe to its level when the
//! thread records the per-level breakdown ([`LevelProbe`]).

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use super::db_iter::{DbIter, IterCounters, PrefixSeek};
use super::family::ColumnFamilyData;
use super::level_iter::{FileOpener, LevelFiles, LevelIter};
use super::read_source::ReadSource;
use super::table_cache::FamilyTables;
use super::{DbInner, SuperVersion};
use crate::error::{Error, Result};
use crate::iterator::{EmptyIterator, InternalIterator, MergingIterator};
use crate::key::{SequenceNumber, ValueKind};
use crate::memtable::{Lookup, MemTableIter, SeekKey};
use crate::merge::Operands;
use crate::options::{ReadOptions, ReadTier};
use crate::perf_context::{self, F, Laps, LevelProbe, PerfLevel, ProbeResult};
use crate::range_del::RangeDelAggregator;
use crate::statistics::{Histogram, Statistics, Ticker};
use crate::table::{
    BlockHint, Located, LocatedBlock, TableGet, TableReadOptions, TableReader, filter_hash,
};
use crate::version::FileMetaData;

/// How many tables' filter lines a point lookup prefetches at its start
/// ([`DbInner::prefetch_filters`]): enough for a few L0 files or levels,
/// few enough that a key found early wastes little.
const PREFETCHED_FILTERS: usize = 4;

/// What [`DbInner::prefetch_filters`] found for one lookup: the key's
/// filter hash, for the probes to reuse, and the key's files in each level
/// below L0 it searched, so that the lookup does not search those levels
/// again.
struct Prefetched<'a> {
    hash: u64,
    levels: [(usize, &'a [Arc<FileMetaData>]); PREFETCHED_FILTERS],
    searched: usize,
}

impl<'a> Prefetched<'a> {
    /// The key's files in `level` (≥ 1), when the prefetch searched it.
    fn files(&self, level: usize) -> Option<&'a [Arc<FileMetaData>]> {
        self.levels[..self.searched]
            .iter()
            .find(|(l, _)| *l == level)
            .map(|&(_, files)| files)
    }
}

/// Looks `key` up in table `t` at `level`; `tomb` already includes the
/// table's range tombstones; `key_hash` is the key's filter hash when the
/// lookup computed it ([`Prefetched`]). Records the
/// per-level breakdown when the thread asks for it.
#[expect(
    clippy::too_many_arguments,
    reason = "one lookup's state, kept out of a struct on the hot path"
)]
#[inline(always)]
fn probe(
    t: &TableReader,
    level: usize,
    key: &[u8],
    snapshot: SequenceNumber,
    tro: &TableReadOptions,
    value_out: &mut Vec<u8>,
    tomb: Option<SequenceNumber>,
    counting: bool,
    stats: Option<&Statistics>,
    key_hash: Option<u64>,
) -> Result<Step> {
    let probe = if counting { LevelProbe::start() } else { None };
    let got = t.get_hinted(key, key_hash, snapshot, tro, value_out, None)?;
    let result = step(got.result, tomb);
    record_probe(stats, probe, level, &got, &result);
    Ok(result)
}

/// Records one table probe in the statistics and, when `probe` was
/// started, in the thread's per-level breakdown.
#[inline(always)]
fn record_probe(
    stats: Option<&Statistics>,
    probe: Option<LevelProbe>,
    level: usize,
    got: &TableGet,
    result: &Step,
) {
    if let Some(s) = stats {
        if got.filter_rejected {
            s.record_tick(Ticker::BloomFilterUseful, 1);
        } else if got.filter_checked {
            s.record_tick(Ticker::BloomFilterFullPositive, 1);
            if got.result != Lookup::Absent {
                s.record_tick(Ticker::BloomFilterFullTruePositive, 1);
            }
        }
        if got.result != Lookup::Absent {
            let t = match level {
                0 => Ticker::GetHitL0,
                1 => Ticker::GetHitL1,
                _ => Ticker::GetHitL2AndUp,
            };
            s.record_tick(t, 1);
        }
    }
    if let Some(p) = probe {
        p.finish(
            level,
            ProbeResult {
                filter_checked: got.filter_checked,
                filter_rejected: got.filter_rejected,
                found_entry: got.result != Lookup::Absent,
                returned_value: matches!(result, Step::Found(true)),
            },
        );
    }
}

/// The distinct keys of a multi-get, sorted, with their results.
struct Batch<'k> {
    keys: Vec<BatchKey<'k>>,
    /// For each key of the caller's list, its entry in `keys`.
    slot_of: Vec<u32>,
    /// The values found, end to end (`BatchKey::found` ranges).
    values: Vec<u8>,
}

/// One distinct key of a multi-get and its lookup's state.
struct BatchKey<'k> {
    key: &'k [u8],
    /// The key's filter hash, computed once for every table probed.
    hash: u64,
    /// Newest range tombstone covering the key in the sources seen so far.
    tomb: Option<SequenceNumber>,
    /// The lookup is decided: `found` holds its value, if any.
    done: bool,
    found: Option<std::ops::Range<usize>>,
}

impl<'k> Batch<'k> {
    fn of(keys: &[&'k [u8]]) -> Batch<'k> {
        let mut order: Vec<u32> = (0..keys.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| keys[a as usize].cmp(keys[b as usize]));
        let mut distinct: Vec<BatchKey<'k>> = Vec::with_capacity(keys.len());
        let mut slot_of = vec![0u32; keys.len()];
        for i in order {
            let key = keys[i as usize];
            if distinct.last().is_none_or(|d| d.key != key) {
                distinct.push(BatchKey {
                    key,
                    hash: filter_hash(key),
                    tomb: None,
                    done: false,
                    found: None,
                });
            }
            slot_of[i as usize] = (distinct.len() - 1) as u32;
        }
        Batch {
            keys: distinct,
            slot_of,
            values: Vec::new(),
        }
    }
}

impl BatchKey<'_> {
    /// Decides the lookup: `value` found (copied into `values`), or absent.
    fn resolve(&mut self, value: Option<&[u8]>, values: &mut Vec<u8>) {
        self.done = true;
        self.found = value.map(|v| {
            let start = values.len();
            values.extend_from_slice(v);
            start..values.len()
        });
    }

    fn value<'v>(&self, values: &'v [u8]) -> Option<&'v [u8]> {
        self.found.clone().map(|r| &values[r])
    }
}

/// The keys of a multi-get bound for tables of one level (or one L0
/// file), gathered before any is looked up ([`DbInner::run_pass`]). A
/// point lookup's steps depend on each other: the filter line, then the
/// index entries, then the cache's entry, then the block's directory and
/// entry, each a likely cache miss over data larger than the CPU caches.
/// Keys of one batch do not depend on each other, so the pass takes each
/// step for every key before the step that needs it: the filter lines of
/// all keys are prefetched as the keys are routed, and every key's data
/// block is found (its directory's lines prefetched) before any block is
/// searched, so those misses overlap across keys instead of following one
/// another (a block read from the file just now is searched at once,
/// while it is in the CPU's caches). Prefetches, not loads: the cache
/// lookups between them lock, and a lock waits for every load before it
/// ([`crate::prefetch`]).
#[derive(Default)]
struct TablePass {
    /// The distinct tables of the pass, in the order keys met them.
    tables: Vec<Arc<TableReader>>,
    /// Each routed key: its index in the batch and its table's in `tables`.
    routes: Vec<(u32, u32)>,
    /// Keys whose data block is found, waiting for their search.
    located: Vec<(u32, u32, LocatedBlock)>,
}

impl TablePass {
    /// Adds batch key `k` (index `i`, ascending within each table) bound
    /// for table `t`, and prefetches its filter line.
    fn route(&mut self, t: &Arc<TableReader>, i: usize, k: &BatchKey<'_>) {
        if self.tables.last().is_none_or(|l| !Arc::ptr_eq(l, t)) {
            self.tables.push(t.clone());
        }
        t.prefetch_filter(k.hash);
        self.routes.push((i as u32, (self.tables.len() - 1) as u32));
    }

    /// Forgets the pass's keys and tables, keeping the space.
    fn clear(&mut self) {
        self.tables.clear();
        self.routes.clear();
        self.located.clear();
    }
}

/// What [`crate::Db::key_may_exist`] can tell without IO.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyMayExist {
    /// The key is certainly absent (deleted, or ruled out by every source).
    Absent,
    /// The key may exist: finding out needs IO.
    MayExist,
    /// The key exists; its value was read from memory.
    Found,
}

/// Outcome of searching one source during a point lookup.
enum Step {
    Found(bool),
    Continue,
    /// The newest visible entry is a merge operand: the lookup starts over
    /// on the merge path ([`DbInner::get_merged`]).
    Merge,
}

/// Folds one source's answer into the lookup: `tomb` is the newest range
/// tombstone covering the key seen so far (this source's included).
#[inline]
fn step(r: Lookup, tomb: Option<SequenceNumber>) -> Step {
    match r {
        Lookup::Value(seq) => Step::Found(tomb.is_none_or(|t| t < seq)),
        Lookup::Deleted(_) => Step::Found(false),
        Lookup::Absent => Step::Continue,
        Lookup::Merge(seq) if tomb.is_none_or(|t| t < seq) => Step::Merge,
        Lookup::Merge(_) => Step::Found(false),
    }
}

/// How a merge lookup's walk down one key's history ended in a source.
enum Walked {
    /// The source holds no more entries of the key: go on to the next.
    More,
    /// A value (copied into the buffer the walk was given) ends the
    /// history the lookup sees.
    Value,
    /// A point tombstone, or an entry a range tombstone deletes.
    Deleted,
}

/// Walks `it`, positioned at the newest entry of `key` a snapshot sees,
/// down the entries of `key`, pushing operands into `ops` until an entry
/// ends the history (`tomb`: the newest range tombstone covering the key
/// in this source or a newer one).
fn walk_key(
    it: &mut dyn InternalIterator,
    key: &[u8],
    tomb: Option<SequenceNumber>,
    ops: &mut Operands,
    value: &mut Vec<u8>,
) -> Result<Walked> {
    while it.valid() {
        let ik = it.key();
        if ik.len() < crate::key::TRAILER_LEN || crate::key::user_key(ik) != key {
            break;
        }
        let (seq, kind) = crate::key::unpack_trailer(crate::key::trailer(ik));
        if tomb.is_some_and(|t| t >= seq) {
            return Ok(Walked::Deleted);
        }
        match ValueKind::from_u8(kind) {
            Some(ValueKind::Value) => {
                value.clear();
                value.extend_from_slice(it.value());
                return Ok(Walked::Value);
            }
            Some(ValueKind::Merge) => ops.push(seq, it.value()),
            Some(ValueKind::Deletion | ValueKind::SingleDeletion) => return Ok(Walked::Deleted),
            _ => {
                return Err(Error::corruption(
                    "(merge lookup)",
                    0,
                    format!("point entry of kind {kind}"),
                ));
            }
        }
        it.next();
    }
    it.status()?;
    Ok(Walked::More)
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
    /// The sequence number a read sees: its snapshot's, or the latest
    /// published one. Call it after loading the super version the read uses.
    ///
    /// The other order lost data (regression test
    /// `regression_a_read_without_a_snapshot_sees_a_key_a_flush_rewrote_between_its_loads`):
    /// a flush installed between the two loads may have dropped a version
    /// visible at the number, shadowed by a write published after it, and
    /// the read found neither. In this order, what the super version's
    /// tables dropped was shadowed by a write published before it was
    /// installed, so at or below the number. A snapshot's number is safe in
    /// either order: jobs keep what it sees from its registration on.
    fn snapshot_of(&self, ro: &ReadOptions) -> SequenceNumber {
        ro.snapshot
            .unwrap_or_else(|| self.last_sequence.load(Ordering::Acquire))
    }

    pub(crate) fn get_into(
        self: &Arc<Self>,
        ro: &ReadOptions,
        key: &[u8],
        value_out: &mut Vec<u8>,
    ) -> Result<bool> {
        // Borrowed, not cloned: a clone per get is a reference count shared
        // by every reader thread.
        self.get_into_cf(&self.default_cf, ro, key, value_out)
    }

    pub(crate) fn get_into_cf(
        self: &Arc<Self>,
        cfd: &ColumnFamilyData,
        ro: &ReadOptions,
        key: &[u8],
        value_out: &mut Vec<u8>,
    ) -> Result<bool> {
        let op = perf_context::op();
        self.lifecycle.check_open()?;
        cfd.check_live()?;
        let _t = self.stats.timer(Histogram::DbGet);
        // The level is read once for the whole lookup, table reader and
        // block seeks included (through `TableReadOptions::perf_level`).
        let level = op.level();
        let counting = level >= PerfLevel::EnableCount as u8;
        let mut laps = Laps::start_at(level, PerfLevel::EnableTimeExceptForMutex);
        let sv = cfd.super_version.load();
        #[cfg(test)]
        super::test_hooks::run(&super::test_hooks::BETWEEN_READ_LOADS);
        let snapshot = self.snapshot_of(ro);
        laps.lap(F::get_snapshot_time);
        let found = self.get_in(&sv, ro, snapshot, key, value_out, level, &mut laps);
        if counting && let Ok(true) = found {
            perf_context::add_unchecked(F::get_read_bytes, value_out.len() as u64);
        }
        if let Some(s) = &self.stats.statistics {
            s.record_tick(Ticker::NumberKeysRead, 1);
            if let Ok(true) = found {
                s.record_tick(Ticker::BytesRead, value_out.len() as u64);
                s.record_in_histogram(Histogram::BytesPerRead, value_out.len() as u64);
            }
        }
        drop(sv);
        laps.lap(F::get_post_process_time);
        self.maybe_purge_obsolete_files();
        found
    }

    /// One point lookup. `laps` is on the phase that started at the
    /// snapshot; this ends the memtable phase, and the table-file phase when
    /// the memtables miss. `level`: the thread's level, read by the operation.
    #[expect(
        clippy::too_many_arguments,
        reason = "one lookup's inputs, passed down so the level is read once"
    )]
    fn get_in(
        &self,
        sv: &SuperVersion,
        ro: &ReadOptions,
        snapshot: SequenceNumber,
        key: &[u8],
        value_out: &mut Vec<u8>,
        level: u8,
        laps: &mut Laps,
    ) -> Result<bool> {
        let counting = level >= PerfLevel::EnableCount as u8;
        let mut tomb = None;
        let mut probed = 0u64;
        let tombstones = !ro.ignore_range_deletions;
        // With no memtable data every lookup goes to the tables: start the
        // fetch of their filter lines now, so that it overlaps the memtable
        // and tombstone checks (`prefetch_filters`). With data, a lookup may
        // end in a memtable and the prefetch would be wasted work.
        let prefetched = if sv.imm.is_empty() && sv.mem.first_sequence().is_none() {
            Some(self.prefetch_filters(sv, key))
        } else {
            None
        };
        for mem in std::iter::once(&sv.mem).chain(sv.imm.iter()) {
            probed += 1;
            if tombstones {
                tomb = max_opt(tomb, mem.max_covering_tombstone(key, snapshot));
            }
            match step(mem.get(key, snapshot, value_out), tomb) {
                Step::Continue => {}
                found => {
                    if counting {
                        perf_context::add_unchecked(F::get_from_memtable_count, probed);
                    }
                    self.stats.tick(Ticker::MemtableHit, 1);
                    laps.lap(F::get_from_memtable_time);
                    return match found {
                        Step::Found(f) => Ok(f),
                        _ => self.get_merged(sv, ro, snapshot, key, value_out),
                    };
                }
            }
        }
        if counting {
            perf_context::add_unchecked(F::get_from_memtable_count, probed);
        }
        self.stats.tick(Ticker::MemtableMiss, 1);
        laps.lap(F::get_from_memtable_time);
        let found = self.get_from_tables(
            sv,
            ro,
            snapshot,
            key,
            value_out,
            tomb,
            level,
            prefetched.as_ref(),
        );
        laps.lap(F::get_from_output_files_time);
        found
    }

    /// Prefetches the filter lines that a lookup of `key` probes in the
    /// first [`PREFETCHED_FILTERS`] tables it may visit (L0 files holding
    /// the key's range newest first, then the key's files level by level),
    /// and returns the key's filter hash and the levels' files it found
    /// for the lookup to reuse ([`Prefetched`]). Only readers that
    /// live in their file's metadata (`max_open_files = -1`, the default)
    /// and are open; a hint: no result depends on it.
    ///
    /// Why: over a database whose filters are larger than the CPU caches, a
    /// lookup of an absent key is mostly the wait for its filter line (a
    /// third of the samples of `get` of absent keys over 20M rows). Started
    /// before the memtable search, that wait overlaps it: `get` of absent
    /// keys 6-9% faster, of present keys unchanged, in alternated rounds in
    /// one process (docs/results/reads.md). Started before the memtables
    /// whatever they hold, it made lookups that end in a memtable 17%
    /// slower, hence only with empty memtables (`get_in`).
    fn prefetch_filters<'a>(&self, sv: &'a SuperVersion, key: &[u8]) -> Prefetched<'a> {
        let v = &sv.version;
        let hash = filter_hash(key);
        let mut out = Prefetched {
            hash,
            levels: [(0, &[]); PREFETCHED_FILTERS],
            searched: 0,
        };
        // Prefetches one table's line; false once the budget is spent.
        let mut budget = PREFETCHED_FILTERS;
        let mut prefetch = |f: &FileMetaData| {
            if let Some(t) = self.table_cache.held_reader(f) {
                t.prefetch_filter(hash);
            }
            budget -= 1;
            budget > 0
        };
        for f in v.l0_files_for_key(key) {
            if !prefetch(f) {
                return out;
            }
        }
        for level in 1..v.num_levels() {
            if out.searched == PREFETCHED_FILTERS {
                break;
            }
            if v.files(level).is_empty() {
                continue;
            }
            let files = v.files_for_key(level, key);
            out.levels[out.searched] = (level, files);
            out.searched += 1;
            if !files.iter().all(|f| prefetch(f)) {
                break;
            }
        }
        out
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "one lookup's inputs, passed down so the level is read once"
    )]
    fn get_from_tables(
        &self,
        sv: &SuperVersion,
        ro: &ReadOptions,
        snapshot: SequenceNumber,
        key: &[u8],
        value_out: &mut Vec<u8>,
        mut tomb: Option<SequenceNumber>,
        level: u8,
        prefetched: Option<&Prefetched<'_>>,
    ) -> Result<bool> {
        let counting = level >= PerfLevel::EnableCount as u8;
        let tro = TableReadOptions {
            perf_level: PerfLevel::from_u8(level),
            ..TableReadOptions::from(ro)
        };
        let tombstones = !ro.ignore_range_deletions;
        let stats = self.stats.statistics.as_deref();
        let v = &sv.version;
        let key_hash = prefetched.map(|p| p.hash);
        for f in v.l0_files_for_key(key) {
            let t = self.table_cache.reader_ref(f, 0, tro.no_io, &sv.tables)?;
            if tombstones {
                tomb = max_opt(tomb, t.max_covering_tombstone(key, snapshot));
            }
            match probe(
                &t, 0, key, snapshot, &tro, value_out, tomb, counting, stats, key_hash,
            )? {
                Step::Continue => {}
                Step::Found(found) => return Ok(found),
                Step::Merge => return self.get_merged(sv, ro, snapshot, key, value_out),
            }
        }
        for level in 1..v.num_levels() {
            // An empty level costs no search: a fully compacted database has
            // one non-empty level below L0, and a get searched every level.
            if v.files(level).is_empty() {
                continue;
            }
            let files = prefetched
                .and_then(|p| p.files(level))
                .unwrap_or_else(|| v.files_for_key(level, key));
            for f in files {
                let t = self
                    .table_cache
                    .reader_ref(f, level, tro.no_io, &sv.tables)?;
                if tombstones {
                    tomb = max_opt(tomb, t.max_covering_tombstone(key, snapshot));
                }
                match probe(
                    &t, level, key, snapshot, &tro, value_out, tomb, counting, stats, key_hash,
                )? {
                    Step::Continue => {}
                    Step::Found(found) => return Ok(found),
                    Step::Merge => return self.get_merged(sv, ro, snapshot, key, value_out),
                }
            }
        }
        Ok(false)
    }

    /// A point lookup whose newest visible entry is a merge operand: walks
    /// the key's history from the top, source by source (each memtable,
    /// then each table that may hold the key), collecting operands until a
    /// value, a tombstone or the end of the key's data, then merges them
    /// ([`crate::merge::Merger::full_merge`]). Kept off the common lookup,
    /// which needs only the newest entry of the first source holding the
    /// key; only keys with operands pay for this walk.
    fn get_merged(
        &self,
        sv: &SuperVersion,
        ro: &ReadOptions,
        snapshot: SequenceNumber,
        key: &[u8],
        value_out: &mut Vec<u8>,
    ) -> Result<bool> {
        let seek = SeekKey::new(key, snapshot);
        let seek = seek.ikey_bytes();
        let mut ops = Operands::newest_first();
        let mut base = Vec::new();
        let mut tomb = None;
        let mut walked = Walked::More;
        let tombstones = !ro.ignore_range_deletions;
        for mem in std::iter::once(&sv.mem).chain(sv.imm.iter()) {
            if tombstones {
                tomb = max_opt(tomb, mem.max_covering_tombstone(key, snapshot));
            }
            let mut it = MemTableIter::new(mem.clone());
            it.seek(seek);
            walked = walk_key(&mut it, key, tomb, &mut ops, &mut base)?;
            if !matches!(walked, Walked::More) {
                break;
            }
        }
        if matches!(walked, Walked::More) {
            let tro = TableReadOptions::from(ro);
            let v = &sv.version;
            let files = v.l0_files_for_key(key).map(|f| (0, f)).chain(
                (1..v.num_levels())
                    .flat_map(|l| v.files_for_key(l, key).iter().map(move |f| (l, f))),
            );
            for (level, f) in files {
                let t = self
                    .table_cache
                    .reader_for(f, level, tro.no_io, &sv.tables)?;
                if tombstones {
                    tomb = max_opt(tomb, t.max_covering_tombstone(key, snapshot));
                }
                if !t.may_contain(key) {
                    // Nothing of the key here; its range tombstones are in `tomb`.
                    continue;
                }
                let mut it = t.iter(tro);
                it.seek(seek);
                walked = walk_key(&mut it, key, tomb, &mut ops, &mut base)?;
                if !matches!(walked, Walked::More) {
                    break;
                }
            }
        }
        let existing = matches!(walked, Walked::Value).then_some(base.as_slice());
        if ops.is_empty() {
            // Not reached through `get_in` (an operand was found); kept total.
            value_out.clear();
            value_out.extend_from_slice(existing.unwrap_or_default());
            return Ok(existing.is_some());
        }
        sv.merger.full_merge(key, existing, &ops, value_out)?;
        sv.merger.record_read_operands(ops.len());
        Ok(true)
    }

    /// RocksDB's `KeyMayExist`: a lookup that does no IO (memtables, open
    /// table readers, filters and the block cache only). `Absent` only when
    /// the key is certainly not there; `Found` with the value in
    /// `value_out` when the lookup completed in memory; `MayExist` when it
    /// would have needed IO. Errors other than needing IO are returned.
    pub(crate) fn key_may_exist(
        self: &Arc<Self>,
        cfd: &ColumnFamilyData,
        ro: &ReadOptions,
        key: &[u8],
        value_out: &mut Vec<u8>,
    ) -> Result<KeyMayExist> {
        let ro = ReadOptions {
            read_tier: ReadTier::BlockCache,
            ..ro.clone()
        };
        match self.get_into_cf(cfd, &ro, key, value_out) {
            Ok(true) => Ok(KeyMayExist::Found),
            Ok(false) => Ok(KeyMayExist::Absent),
            Err(Error::Incomplete(_)) => Ok(KeyMayExist::MayExist),
            Err(e) => Err(e),
        }
    }

    pub(crate) fn multi_get(
        self: &Arc<Self>,
        cfd: &ColumnFamilyData,
        ro: &ReadOptions,
        keys: &[&[u8]],
    ) -> Result<Vec<Option<Vec<u8>>>> {
        let mut out = Vec::with_capacity(keys.len());
        self.multi_get_each(cfd, ro, keys, |_, v| {
            out.push(v.map(<[u8]>::to_vec));
            Ok::<(), Error>(())
        })?;
        Ok(out)
    }

    /// Looks up `keys` at one snapshot and super version, handing each result
    /// to `each` in key order.
    ///
    /// One pass over the batch ([`DbInner::multi_get_batch`]): the keys are
    /// sorted once and repeats looked up once; the memtables are searched
    /// key by key, then each table file is visited once for the keys still
    /// pending that it may hold, in ascending key order, so that its filter
    /// is probed with hashes computed once per key and adjacent keys in one
    /// data block share one index seek and one block-cache lookup. Each key
    /// visits its sources in the same order as a single [`Db::get`], so the
    /// results are a get's at the snapshot. The values found are held in
    /// one buffer until the calls to `each`.
    ///
    /// [`Db::get`]: crate::Db::get
    pub(crate) fn multi_get_each<E: From<Error>>(
        self: &Arc<Self>,
        cfd: &ColumnFamilyData,
        ro: &ReadOptions,
        keys: &[&[u8]],
        mut each: impl FnMut(usize, Option<&[u8]>) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let op = perf_context::op();
        self.lifecycle.check_open()?;
        cfd.check_live()?;
        let _t = self.stats.timer(Histogram::DbMultiget);
        let level = op.level();
        let counting = level >= PerfLevel::EnableCount as u8;
        let mut laps = Laps::start_at(level, PerfLevel::EnableTimeExceptForMutex);
        let sv = cfd.super_version.load();
        #[cfg(test)]
        super::test_hooks::run(&super::test_hooks::BETWEEN_READ_LOADS);
        let snapshot = self.snapshot_of(ro);
        laps.lap(F::get_snapshot_time);
        let mut batch = Batch::of(keys);
        self.multi_get_batch(&sv, ro, snapshot, &mut batch, level, &mut laps)?;
        drop(sv);
        let (mut hits, mut bytes) = (0u64, 0u64);
        for (i, &slot) in batch.slot_of.iter().enumerate() {
            let found = batch.keys[slot as usize].value(&batch.values);
            if let Some(v) = found {
                hits += 1;
                bytes += v.len() as u64;
                if counting {
                    perf_context::add_unchecked(F::multiget_read_bytes, v.len() as u64);
                }
            }
            each(i, found)?;
        }
        self.stats.tick(Ticker::NumberMultigetCalls, 1);
        self.stats
            .tick(Ticker::NumberMultigetKeysRead, keys.len() as u64);
        self.stats.tick(Ticker::NumberMultigetKeysFound, hits);
        self.stats.tick(Ticker::NumberMultigetBytesRead, bytes);
        laps.lap(F::get_post_process_time);
        self.maybe_purge_obsolete_files();
        Ok(())
    }

    /// Resolves every key of `batch` (see [`DbInner::multi_get_each`]).
    /// `laps` is on the phase that started at the snapshot.
    fn multi_get_batch(
        &self,
        sv: &SuperVersion,
        ro: &ReadOptions,
        snapshot: SequenceNumber,
        batch: &mut Batch<'_>,
        level: u8,
        laps: &mut Laps,
    ) -> Result<()> {
        let counting = level >= PerfLevel::EnableCount as u8;
        let tombstones = !ro.ignore_range_deletions;
        let mut v = Vec::new();
        let Batch { keys, values, .. } = batch;
        let mut pending = 0usize;
        for k in keys.iter_mut() {
            let mut probed = 0u64;
            for mem in std::iter::once(&sv.mem).chain(sv.imm.iter()) {
                probed += 1;
                if tombstones {
                    k.tomb = max_opt(k.tomb, mem.max_covering_tombstone(k.key, snapshot));
                }
                match step(mem.get(k.key, snapshot, &mut v), k.tomb) {
                    Step::Continue => continue,
                    Step::Found(found) => k.resolve(found.then_some(&v[..]), values),
                    Step::Merge => {
                        let found = self.get_merged(sv, ro, snapshot, k.key, &mut v)?;
                        k.resolve(found.then_some(&v[..]), values);
                    }
                }
                break;
            }
            if counting {
                perf_context::add_unchecked(F::get_from_memtable_count, probed);
            }
            if k.done {
                self.stats.tick(Ticker::MemtableHit, 1);
            } else {
                self.stats.tick(Ticker::MemtableMiss, 1);
                pending += 1;
            }
        }
        laps.lap(F::get_from_memtable_time);
        if pending == 0 {
            return Ok(());
        }
        let tro = TableReadOptions {
            perf_level: PerfLevel::from_u8(level),
            ..TableReadOptions::from(ro)
        };
        let stats = self.stats.statistics.as_deref();
        let ver = &sv.version;
        let mut hint = BlockHint::default();
        // Without the per-level breakdown, each table's keys go through
        // it in passes ([`TablePass`]); with it, one key at a time, so that
        // each probe's counts and time are its own (both pinned by
        // `multi_get_matches_a_model_across_memtables_levels_and_snapshots`).
        let per_level = counting && perf_context::per_level_enabled();
        let mut pass = (!per_level).then(TablePass::default);
        // L0 files newest first, each for the pending keys in its range: a
        // key meets them in the order `l0_files_for_key` gives a get.
        for f in ver.files(0) {
            hint.reset();
            let mut t = None;
            for (i, k) in keys.iter_mut().enumerate() {
                if k.done || k.key < f.smallest_user_key() || k.key > f.largest_user_key() {
                    continue;
                }
                let t = match &t {
                    Some(t) => t,
                    None => t.insert(self.table_cache.reader_for(f, 0, tro.no_io, &sv.tables)?),
                };
                match &mut pass {
                    Some(p) => p.route(t, i, k),
                    None => self.batch_probe(
                        sv, ro, snapshot, t, 0, k, &tro, &mut v, values, &mut hint, stats, counting,
                    )?,
                }
            }
            if let Some(p) = &mut pass {
                self.run_pass(p, sv, ro, snapshot, 0, keys, &tro, &mut v, values, stats)?;
            }
        }
        for level in 1..ver.num_levels() {
            if ver.files(level).is_empty() {
                continue;
            }
            if let Some(p) = &mut pass {
                // A key on a boundary between files (rare) is looked up
                // in them in order here; every other key waits for the pass.
                let mut current: Option<(u64, Arc<TableReader>)> = None;
                for (i, k) in keys.iter_mut().enumerate() {
                    if k.done {
                        continue;
                    }
                    let files = ver.files_for_key(level, k.key);
                    if let [f] = files {
                        let t = match &current {
                            Some((n, t)) if *n == f.number => t,
                            _ => {
                                let t = self
                                    .table_cache
                                    .reader_for(f, level, tro.no_io, &sv.tables)?;
                                &current.insert((f.number, t)).1
                            }
                        };
                        p.route(t, i, k);
                        continue;
                    }
                    for f in files {
                        let t = self
                            .table_cache
                            .reader_for(f, level, tro.no_io, &sv.tables)?;
                        let mut alone = BlockHint::default();
                        self.batch_probe(
                            sv, ro, snapshot, &t, level, k, &tro, &mut v, values, &mut alone,
                            stats, counting,
                        )?;
                        if k.done {
                            break;
                        }
                    }
                }
                self.run_pass(
                    p, sv, ro, snapshot, level, keys, &tro, &mut v, values, stats,
                )?;
                continue;
            }
            let mut current: Option<(u64, Arc<TableReader>)> = None;
            for k in keys.iter_mut() {
                if k.done {
                    continue;
                }
                for f in ver.files_for_key(level, k.key) {
                    let t = match &current {
                        Some((n, t)) if *n == f.number => t,
                        _ => {
                            hint.reset();
                            let t = self
                                .table_cache
                                .reader_for(f, level, tro.no_io, &sv.tables)?;
                            &current.insert((f.number, t)).1
                        }
                    };
                    self.batch_probe(
                        sv, ro, snapshot, t, level, k, &tro, &mut v, values, &mut hint, stats,
                        counting,
                    )?;
                    if k.done {
                        break;
                    }
                }
            }
        }
        laps.lap(F::get_from_output_files_time);
        Ok(())
    }

    /// Looks up the keys [`TablePass::route`] gave `p`, each in its
    /// table of `level`, in passes: every key's filter, index seek and data
    /// block ([`TableReader::locate`], its directory prefetched), then every
    /// located key's entry prefetched ([`LocatedBlock::prefetch_entry`]),
    /// then every located
    /// key's search of its block ([`TableReader::finish_get`]). Leaves `p`
    /// empty.
    #[expect(
        clippy::too_many_arguments,
        reason = "one batch lookup's state, kept out of a struct on the hot path"
    )]
    fn run_pass(
        &self,
        p: &mut TablePass,
        sv: &SuperVersion,
        ro: &ReadOptions,
        snapshot: SequenceNumber,
        level: usize,
        keys: &mut [BatchKey<'_>],
        tro: &TableReadOptions,
        v: &mut Vec<u8>,
        values: &mut Vec<u8>,
        stats: Option<&Statistics>,
    ) -> Result<()> {
        let mut hint = BlockHint::default();
        let mut last = usize::MAX;
        for &(i, r) in &p.routes {
            let (k, t) = (&mut keys[i as usize], &p.tables[r as usize]);
            if r as usize != last {
                // The hint serves one table, its keys in ascending order.
                hint.reset();
                last = r as usize;
            }
            if !ro.ignore_range_deletions {
                k.tomb = max_opt(k.tomb, t.max_covering_tombstone(k.key, snapshot));
            }
            match t.locate(k.key, Some(k.hash), snapshot, tro, Some(&mut hint))? {
                Located::Decided(got) => {
                    self.settle(sv, ro, snapshot, level, k, &got, None, v, values, stats)?
                }
                // A block just read from the file is searched now, while
                // it is in the CPU's caches; a cached block's search waits
                // for the prefetches of its directory and entry.
                Located::Block(b) if b.searched_by_directory() => {
                    b.prefetch_directory();
                    p.located.push((i, r, b));
                }
                Located::Block(b) => {
                    let got = t.finish_get(b, k.key, v)?;
                    self.settle(sv, ro, snapshot, level, k, &got, None, v, values, stats)?;
                }
            }
        }
        for (_, _, b) in &p.located {
            b.prefetch_entry();
        }
        for (i, r, b) in p.located.drain(..) {
            let (k, t) = (&mut keys[i as usize], &p.tables[r as usize]);
            let got = t.finish_get(b, k.key, v)?;
            self.settle(sv, ro, snapshot, level, k, &got, None, v, values, stats)?;
        }
        p.clear();
        Ok(())
    }

    /// Folds what table probe `got` found for batch key `k` into its
    /// lookup, and records the probe (`probe`: its per-level breakdown,
    /// when the thread records one; [`Self::run_pass`] runs without).
    #[expect(
        clippy::too_many_arguments,
        reason = "one batch lookup's state, kept out of a struct on the hot path"
    )]
    #[inline]
    fn settle(
        &self,
        sv: &SuperVersion,
        ro: &ReadOptions,
        snapshot: SequenceNumber,
        level: usize,
        k: &mut BatchKey<'_>,
        got: &TableGet,
        probe: Option<LevelProbe>,
        v: &mut Vec<u8>,
        values: &mut Vec<u8>,
        stats: Option<&Statistics>,
    ) -> Result<()> {
        let result = step(got.result, k.tomb);
        record_probe(stats, probe, level, got, &result);
        match result {
            Step::Continue => {}
            Step::Found(found) => k.resolve(found.then_some(&v[..]), values),
            Step::Merge => {
                let found = self.get_merged(sv, ro, snapshot, k.key, v)?;
                k.resolve(found.then_some(&v[..]), values);
            }
        }
        Ok(())
    }

    /// Probes table `t` of `level` for the pending batch key `k` (as
    /// [`probe`] does for a get), resolving it when the table decides it.
    #[expect(
        clippy::too_many_arguments,
        reason = "one batch lookup's state, kept out of a struct on the hot path"
    )]
    #[inline]
    fn batch_probe(
        &self,
        sv: &SuperVersion,
        ro: &ReadOptions,
        snapshot: SequenceNumber,
        t: &TableReader,
        level: usize,
        k: &mut BatchKey<'_>,
        tro: &TableReadOptions,
        v: &mut Vec<u8>,
        values: &mut Vec<u8>,
        hint: &mut BlockHint,
        stats: Option<&Statistics>,
        counting: bool,
    ) -> Result<()> {
        if !ro.ignore_range_deletions {
            k.tomb = max_opt(k.tomb, t.max_covering_tombstone(k.key, snapshot));
        }
        let probe = if counting { LevelProbe::start() } else { None };
        let got = t.get_hinted(k.key, Some(k.hash), snapshot, tro, v, Some(hint))?;
        self.settle(sv, ro, snapshot, level, k, &got, probe, v, values, stats)
    }

    pub(crate) fn new_iterator(
        self: &Arc<Self>,
        cfd: &Arc<ColumnFamilyData>,
        ro: &ReadOptions,
    ) -> Result<DbIterator> {
        let _op = perf_context::op();
        self.lifecycle.check_open()?;
        cfd.check_live()?;
        let (it, sv) = self.iterator_parts(cfd, ro)?;
        Ok(DbIterator {
            cfd: cfd.clone(),
            it,
            reported: IterCounters::default(),
            _sv: sv,
            statistics: self.stats.statistics.clone(),
            tailing: ro.tailing.then(|| ro.clone()),
            err: None,
            _purge: PurgeOnDrop(Arc::downgrade(self)),
        })
    }

    /// The user iterator over the current super version (which it returns,
    /// for the caller to pin) at `ro`'s snapshot — the latest state for a
    /// tailing read. With `ReadTier::BlockCache`, a table that is not open
    /// is a source whose status is `Incomplete`.
    fn iterator_parts(
        self: &Arc<Self>,
        cfd: &ColumnFamilyData,
        ro: &ReadOptions,
    ) -> Result<(DbIter<MergingIterator<ReadSource>>, Arc<SuperVersion>)> {
        let sv = cfd.super_version.load_full();
        #[cfg(test)]
        super::test_hooks::run(&super::test_hooks::BETWEEN_READ_LOADS);
        let snapshot = if ro.tailing {
            self.last_sequence.load(Ordering::Acquire)
        } else {
            self.snapshot_of(ro)
        };
        let tro = TableReadOptions::from(ro);
        let no_io = tro.no_io;
        let with_tombstones = !ro.ignore_range_deletions;
        let mut children: Vec<ReadSource> = Vec::new();
        // Each source's tombstones were fragmented once, when first read,
        // and are shared here: creating an iterator costs a lookup per
        // source, not a fragmentation of every tombstone.
        let mut tombstones = RangeDelAggregator::new(snapshot);
        for mem in std::iter::once(&sv.mem).chain(sv.imm.iter()) {
            if with_tombstones && let Some(t) = mem.fragmented_range_tombstones() {
                for list in t.lists() {
                    tombstones.add(list.clone());
                }
            }
            children.push(ReadSource::Mem(MemTableIter::new(mem.clone())));
        }
        let v = &sv.version;
        for f in v.files(0) {
            match self.table_cache.reader_for(f, 0, no_io, &sv.tables) {
                Ok(t) => {
                    if with_tombstones && !t.range_tombstones().is_empty() {
                        tombstones.add(t.fragmented_range_tombstones().clone());
                    }
                    children.push(ReadSource::Table(t.iter(tro)));
                }
                Err(e @ Error::Incomplete(_)) => {
                    children.push(ReadSource::Failed(EmptyIterator::with_error(e)));
                }
                Err(e) => return Err(e),
            }
        }
        for level in 1..v.num_levels() {
            let files = v.files(level);
            if files.is_empty() {
                continue;
            }
            // The tables of a level hold disjoint key ranges, their
            // tombstones clipped to them (`compaction.rs`): the aggregator
            // asks only the one spanning a key.
            let mut lists = Vec::new();
            if with_tombstones {
                for f in files.iter().filter(|f| f.num_deletions > 0) {
                    match self.table_cache.reader_for(f, level, no_io, &sv.tables) {
                        Ok(t) => {
                            if !t.range_tombstones().is_empty() {
                                lists.push(t.fragmented_range_tombstones().clone());
                            }
                        }
                        Err(e @ Error::Incomplete(_)) => {
                            children.push(ReadSource::Failed(EmptyIterator::with_error(e)));
                        }
                        Err(e) => return Err(e),
                    }
                }
            }
            tombstones.add_level(lists);
            children.push(ReadSource::Level(LevelIter::new(
                LevelFiles::Level(v.clone(), level),
                self.file_opener(level, tro, &sv.tables),
            )));
        }
        let inner = MergingIterator::new(children);
        let it = DbIter::new(
            inner,
            snapshot,
            tombstones,
            ro.iterate_lower_bound.clone(),
            ro.iterate_upper_bound.clone(),
            sv.merger.clone(),
        )
        .with_prefix_seek(self.family_prefix_seek(cfd, ro));
        Ok((it, sv))
    }

    /// The prefix handling of an iterator of family `cfd`: the family's
    /// extractor bounds `prefix_same_as_start`, and tables may skip a seek
    /// by their prefix filter. The family's tables are built with its own
    /// extractor, and a reader probes a table's filter only when the
    /// extractor the table recorded is the family's (`table::reader`): a
    /// table written before the family's extractor changed is never asked
    /// about prefixes it was not built with.
    fn family_prefix_seek(&self, cfd: &ColumnFamilyData, ro: &ReadOptions) -> Option<PrefixSeek> {
        PrefixSeek::of(cfd.opts.prefix_extractor, ro)
    }

    /// Opens table iterators of files at `level` of a family that reads its
    /// tables as `tables` says, for a [`LevelIter`].
    pub(crate) fn file_opener(
        &self,
        level: usize,
        tro: TableReadOptions,
        tables: &FamilyTables,
    ) -> FileOpener {
        let tc = self.table_cache.clone();
        let tables = tables.clone();
        Arc::new(move |f| {
            let t = tc.reader_for(f, level, tro.no_io, &tables)?;
            Ok(t.iter(tro))
        })
    }
}

/// An iterator over the database at a snapshot. Holds the memtables and
/// table files it reads alive until dropped. Each move is one perf-context
/// operation.
pub struct DbIterator {
    /// The family iterated (a tailing iterator rebuilds over its latest state).
    cfd: Arc<ColumnFamilyData>,
    it: DbIter<MergingIterator<ReadSource>>,
    /// The iterator's counters as last reported to the perf context.
    reported: IterCounters,
    /// Pins the memtables and tables `it` reads.
    _sv: Arc<SuperVersion>,
    statistics: Option<Arc<Statistics>>,
    /// A tailing iterator's read options: each seek rebuilds the iterator
    /// over the latest state with them.
    tailing: Option<ReadOptions>,
    /// The error of a move a tailing iterator cannot make, or of its
    /// rebuild; cleared by the next successful seek.
    err: Option<Error>,
    /// Last field: fields drop in declaration order, so the purge it asks
    /// for comes after `it` and `_sv` have closed the tables only this
    /// iterator kept, and deletes them (a purge before would find them
    /// still open and leave them).
    _purge: PurgeOnDrop,
}

/// Schedules a purge of obsolete files when dropped (see
/// `DbIterator::_purge`).
struct PurgeOnDrop(Weak<DbInner>);

impl Drop for PurgeOnDrop {
    fn drop(&mut self) {
        if let Some(db) = self.0.upgrade() {
            db.maybe_purge_obsolete_files();
        }
    }
}

/// Which DB-iterator call count a move adds to.
#[derive(Clone, Copy)]
enum Move {
    Seek,
    Next,
    Prev,
}

impl DbIterator {
    /// Ends a move: reports the skip counts since the last move, the call
    /// and the bytes now visible to the perf context, in one access.
    /// `level`: the thread's perf level, read when the move started
    /// ([`perf_context::OpScope::level`]), so that at `Disable` the report
    /// reads no thread-local (a scan moves once per entry).
    fn report(&mut self, m: Move, level: u8) {
        let c = self.it.counters;
        let r = std::mem::replace(&mut self.reported, c);
        let it = &self.it;
        let valid = self.err.is_none() && it.valid();
        perf_context::with_counters_at(level, |p| {
            p.add(
                F::internal_key_skipped_count,
                c.internal_key_skipped - r.internal_key_skipped,
            );
            p.add(
                F::internal_delete_skipped_count,
                c.internal_delete_skipped - r.internal_delete_skipped,
            );
            p.add(
                F::internal_recent_skipped_count,
                c.internal_recent_skipped - r.internal_recent_skipped,
            );
            let call = match m {
                Move::Seek => F::iter_seek_count,
                Move::Next => F::iter_next_count,
                Move::Prev => F::iter_prev_count,
            };
            p.add(call, 1);
            if valid {
                p.add(
                    F::iter_read_bytes,
                    (it.key().len() + it.value().len()) as u64,
                );
            }
        });
        if let Some(s) = &self.statistics {
            let (call, found) = match m {
                Move::Seek => (Ticker::NumberDbSeek, Ticker::NumberDbSeekFound),
                Move::Next => (Ticker::NumberDbNext, Ticker::NumberDbNextFound),
                Move::Prev => (Ticker::NumberDbPrev, Ticker::NumberDbPrevFound),
            };
            s.record_tick(call, 1);
            if valid {
                s.record_tick(found, 1);
                s.record_tick(
                    Ticker::IterBytesRead,
                    (self.it.key().len() + self.it.value().len()) as u64,
                );
            }
        }
    }

    /// Starts timing a seek for the `db.seek.micros` histogram, when recorded.
    fn seek_start(&self) -> Option<std::time::Instant> {
        self.statistics
            .as_ref()
            .filter(|s| s.is_enabled(Histogram::DbSeek))
            .map(|_| std::time::Instant::now())
    }

    fn seek_done(&mut self, start: Option<std::time::Instant>, level: u8) {
        if let (Some(s), Some(t)) = (&self.statistics, start) {
            s.record_in_histogram(Histogram::DbSeek, t.elapsed().as_micros() as u64);
        }
        self.report(Move::Seek, level);
    }

    /// A tailing iterator: rebuilds itself over the latest state before a
    /// forward seek. False (with `err` set) when that failed.
    fn refresh_if_tailing(&mut self) -> bool {
        let Some(ro) = &self.tailing else {
            return true;
        };
        let Some(db) = self._purge.0.upgrade() else {
            self.err = Some(Error::ShutdownInProgress("the database is closed".into()));
            return false;
        };
        let cfd = self.cfd.clone();
        let built = db
            .lifecycle
            .check_open()
            .and_then(|()| cfd.check_live())
            .and_then(|()| db.iterator_parts(&cfd, ro));
        match built {
            Ok((it, sv)) => {
                self.it = it;
                self._sv = sv;
                self.reported = IterCounters::default();
                self.err = None;
                true
            }
            Err(e) => {
                self.err = Some(e);
                false
            }
        }
    }

    /// A tailing iterator moves forward only (as RocksDB's): a backward
    /// move ends it with `NotSupported`. True when the move may proceed.
    fn forward_only(&mut self, what: &str) -> bool {
        if self.tailing.is_some() {
            self.err = Some(Error::NotSupported(format!(
                "{what}: a tailing iterator moves forward only"
            )));
            return false;
        }
        true
    }

    /// True when positioned on an entry.
    pub fn valid(&self) -> bool {
        self.err.is_none() && self.it.valid()
    }
    /// Moves to the first key (at or after the lower bound).
    pub fn seek_to_first(&mut self) {
        let op = perf_context::op();
        let t = self.seek_start();
        if self.refresh_if_tailing() {
            self.it.seek_to_first();
        }
        self.seek_done(t, op.level());
    }
    /// Moves to the last key (before the upper bound).
    pub fn seek_to_last(&mut self) {
        let op = perf_context::op();
        let t = self.seek_start();
        if self.forward_only("seek_to_last") {
            self.it.seek_to_last();
        }
        self.seek_done(t, op.level());
    }
    /// Moves to the first key ≥ `target`.
    pub fn seek(&mut self, target: &[u8]) {
        let op = perf_context::op();
        let t = self.seek_start();
        if self.refresh_if_tailing() {
            self.it.seek(target);
        }
        self.seek_done(t, op.level());
    }
    /// Moves to the last key ≤ `target`.
    pub fn seek_for_prev(&mut self, target: &[u8]) {
        let op = perf_context::op();
        let t = self.seek_start();
        if self.forward_only("seek_for_prev") {
            self.it.seek_for_prev(target);
        }
        self.seek_done(t, op.level());
    }
    /// Moves to the next key. Precondition: `valid()`.
    pub fn next(&mut self) {
        let op = perf_context::op();
        self.it.next_at(op.level());
        self.report(Move::Next, op.level());
    }
    /// Moves to the previous key. Precondition: `valid()`.
    pub fn prev(&mut self) {
        let op = perf_context::op();
        if self.forward_only("prev") {
            self.it.prev();
        }
        self.report(Move::Prev, op.level());
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
        match &self.err {
            Some(e) => Err(e.clone()),
            None => self.it.status(),
        }
    }
}
