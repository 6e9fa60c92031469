//! Randomized model test: the engine against a `BTreeMap` oracle.
//!
//! Each seed picks small options — 64 KiB write buffers and target files, a
//! 256 KiB base level, an L0 trigger of 2 — and random block size, restart
//! interval, compression, Bloom bits, number of levels, level sizing
//! (static or dynamic), level multiplier, compaction priority, cache and
//! table-cache settings, so that a few thousand operations flush many
//! memtables and compact through several levels. It then runs generated
//! operations — puts, deletes, single deletes, merges (a string-append
//! merge operator), range deletes, batches, gets, multi-gets,
//! iterator walks (seeks, next, prev, direction changes, bounds), iterators
//! kept open across writes, snapshots, flushes, WAL flushes, manual and
//! automatic compactions, paused background work and reopens — and checks
//! each one against the model as it goes. Every snapshot and every open
//! iterator keeps its own copy of the model; snapshots end at reopen.
//!
//! CI runs [`CI_SEEDS`] × [`CI_OPS`] operations. Longer runs:
//!
//! ```sh
//! TALUS_MODEL_SEEDS=1..=200 TALUS_MODEL_OPS=20000 \
//!     cargo test -p talus --test engine model -- --nocapture
//! TALUS_MODEL_SEED=17 TALUS_MODEL_OPS=100000 \
//!     cargo test -p talus --test engine model -- --nocapture
//! ```
//!
//! `TALUS_MODEL_SEEDS` takes a comma-separated list of seeds and ranges
//! (`3,9,100..200,7..=8`). On a failure the test prints the seed, the index
//! and text of the failing operation, the options, the operations before
//! it, and then a shrunk operation list that still fails (replayed on fresh
//! databases for up to `TALUS_MODEL_SHRINK_SECS` seconds, default 120; 0
//! turns shrinking off). The failing database directory is kept and named.
//! A watchdog aborts with the same context if one operation takes longer
//! than `TALUS_MODEL_STALL_SECS` (default 600), so a hang is reported
//! rather than killed silently.

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Bound::{Excluded, Included, Unbounded};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use talus::db::{DbIterator, FlushOptions, Snapshot};
use talus::options::{CompactionPriority, CompactionStyle, CompressionOptions, CompressionType};
use talus::{Db, Options, ReadOptions, WriteBatch, WriteOptions};

/// Seeds every CI run checks.
const CI_SEEDS: [u64; 6] = [1, 2, 3, 4, 5, 6];
/// Operations per seed in CI.
const CI_OPS: usize = 3000;
/// A full comparison (scans both ways, live snapshots too) every this many operations.
const CHECK_EVERY: usize = 250;
/// Iterators kept open across operations.
const ITER_SLOTS: usize = 2;
/// Live snapshots at most.
const MAX_SNAPSHOTS: usize = 6;

// ---------------------------------------------------------------------------
// Keys, values and operations

/// A key, seek target or range end. Debug-prints as an escaped byte string.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Key(Rc<[u8]>);

impl Key {
    fn new(b: &[u8]) -> Key {
        Key(Rc::from(b))
    }
}

impl Borrow<[u8]> for Key {
    fn borrow(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "b\"{}\"", esc(&self.0))
    }
}

fn esc(b: &[u8]) -> String {
    b.escape_ascii().to_string()
}

/// A value, generated from its operation id, position and length so that
/// the operation list stays small and a wrong version is recognisable.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Val {
    id: u32,
    j: u32,
    len: u32,
}

impl fmt::Debug for Val {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "val({}, {}, {})", self.id, self.j, self.len)
    }
}

impl Val {
    fn bytes(self) -> Rc<[u8]> {
        let mut v = format!("v{}.{}:", self.id, self.j).into_bytes();
        v.truncate(self.len as usize);
        let mut x = u64::from(self.id) << 32 | u64::from(self.j);
        let compressible = (self.id + self.j).is_multiple_of(3);
        while v.len() < self.len as usize {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let b = if compressible {
                b"abcdefgh"[(v.len() / 16) % 8]
            } else {
                (x >> 56) as u8
            };
            v.push(b);
        }
        Rc::from(v)
    }
}

/// One update of a write.
#[derive(Clone, Debug)]
enum Upd {
    Put(Key, Val),
    Delete(Key),
    DeleteRange(Key, Key),
    /// A merge with the run's string-append operator ([`DELIMITER`]).
    Merge(Key, Val),
    /// A single delete. Talus reads one as a delete whatever came before
    /// (several puts, merges): that is what the model does.
    SingleDelete(Key),
}

/// The delimiter of the run's `StringAppendOperator`.
const DELIMITER: &[u8] = b",";

/// How a write is issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Via {
    /// `put` / `delete` / `delete_range` with the one update.
    Single,
    /// `write(WriteBatch)`.
    Batch,
}

#[derive(Clone, Copy, Debug, Default)]
struct Flags {
    sync: bool,
    disable_wal: bool,
}

#[derive(Clone, Debug)]
enum Step {
    First,
    Last,
    Seek(Key),
    SeekForPrev(Key),
    Next,
    Prev,
}

/// Bounds and snapshot of an iterator. `snap` picks a live snapshot
/// (modulo their number; the latest state when none is live).
#[derive(Clone, Debug)]
struct IterSpec {
    lower: Option<Key>,
    upper: Option<Key>,
    snap: Option<usize>,
}

/// Table options changed at a reopen (they apply to new tables only; old
/// ones must stay readable).
#[derive(Clone, Copy, Debug)]
struct Tweak {
    block_size: usize,
    restart: usize,
    /// Reopen with the run's codec (else uncompressed).
    compress: bool,
    bloom_bits: Option<u8>,
}

#[derive(Clone, Debug)]
enum Op {
    Write(Vec<Upd>, Via, Flags),
    Get(Key, Option<usize>),
    MultiGet(Vec<Key>, Option<usize>),
    Walk(IterSpec, Vec<Step>),
    IterOpen(usize, IterSpec),
    IterMove(usize, Vec<Step>),
    IterClose(usize),
    Snapshot,
    Release(usize),
    Flush { wait: bool },
    FlushWal { sync: bool },
    CompactRange(Option<Key>, Option<Key>),
    WaitForCompactions,
    AutoCompactions(bool),
    PausedReads(Vec<Key>),
    Check { checksums: bool },
    Reopen(Tweak),
}

// ---------------------------------------------------------------------------
// The model

type Map = BTreeMap<Key, Rc<[u8]>>;

/// First entry ≥ `from` (inclusive or not) and below `upper`.
fn model_first<'a>(
    m: &'a Map,
    from: Option<(&[u8], bool)>,
    upper: Option<&[u8]>,
) -> Option<(&'a Key, &'a Rc<[u8]>)> {
    let lo = match from {
        None => Unbounded,
        Some((k, true)) => Included(k),
        Some((k, false)) => Excluded(k),
    };
    m.range::<[u8], _>((lo, Unbounded))
        .next()
        .filter(|(k, _)| upper.is_none_or(|u| &*k.0 < u))
}

/// Last entry ≤ `to` (inclusive or not) and at or above `lower`.
fn model_last<'a>(
    m: &'a Map,
    to: Option<(&[u8], bool)>,
    lower: Option<&[u8]>,
) -> Option<(&'a Key, &'a Rc<[u8]>)> {
    let hi = match to {
        None => Unbounded,
        Some((k, true)) => Included(k),
        Some((k, false)) => Excluded(k),
    };
    m.range::<[u8], _>((Unbounded, hi))
        .next_back()
        .filter(|(k, _)| lower.is_none_or(|l| &*k.0 >= l))
}

fn apply_to_model(m: &mut Map, u: &Upd) {
    match u {
        Upd::Put(k, v) => {
            m.insert(k.clone(), v.bytes());
        }
        Upd::Delete(k) | Upd::SingleDelete(k) => {
            m.remove(k);
        }
        Upd::Merge(k, v) => {
            let joined: Rc<[u8]> = match m.get(k) {
                Some(old) => [&old[..], DELIMITER, &v.bytes()].concat().into(),
                None => v.bytes(),
            };
            m.insert(k.clone(), joined);
        }
        Upd::DeleteRange(b, e) => {
            if b < e {
                let doomed: Vec<Key> = m
                    .range::<[u8], _>((Included(&*b.0), Excluded(&*e.0)))
                    .map(|(k, _)| k.clone())
                    .collect();
                for k in doomed {
                    m.remove(&k);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The harness: a database, the model, snapshots and open iterators

struct LiveIter {
    it: DbIterator,
    view: Rc<Map>,
    lower: Option<Key>,
    upper: Option<Key>,
    pos: Option<Key>,
}

/// What a run exercised, to show (and assert) that it reached the deep end.
#[derive(Clone, Copy, Debug, Default)]
struct Coverage {
    /// FIFO runs: the largest sequence number FIFO compaction dropped.
    fifo_dropped_through: u64,
    /// Most levels below L0 holding files at once.
    max_deep_levels: usize,
    /// Deepest level holding files.
    deepest_level: usize,
    /// Most L0 files at once.
    max_l0_files: u64,
    /// Most table files at once.
    max_files: u64,
    /// Entries written.
    writes: u64,
    /// Range deletions written.
    range_deletes: u64,
    /// Merges and single deletes written.
    merges: u64,
    single_deletes: u64,
    reopens: u64,
    iterator_steps: u64,
}

struct Harness {
    dir: PathBuf,
    opts: Options,
    db: Option<Db>,
    model: Map,
    snaps: Vec<(Snapshot, Rc<Map>)>,
    iters: Vec<Option<LiveIter>>,
    auto_compactions: bool,
    cov: Coverage,
    /// The codec reopens switch to (the run's compression; LZ4 for a run
    /// that starts uncompressed).
    codec: CompressionType,
    /// FIFO runs: every write with the last sequence number it used (its
    /// updates used the ones just below, one each), to rebuild the model
    /// when FIFO compaction drops tables (see [`Harness::sync_fifo`]).
    fifo_log: Option<Vec<(u64, Vec<Upd>)>>,
}

type Check = Result<(), String>;

fn err<T: fmt::Display>(what: &str) -> impl FnOnce(T) -> String + '_ {
    move |e| format!("{what} failed: {e}")
}

/// Compares an iterator's position with the model's.
fn same_pos(it: &DbIterator, want: Option<(&Key, &Rc<[u8]>)>, what: &str) -> Check {
    it.status().map_err(err(what))?;
    match (it.valid(), want) {
        (false, None) => Ok(()),
        (true, None) => Err(format!(
            "{what}: iterator at b\"{}\", model has no entry",
            esc(it.key())
        )),
        (false, Some((k, _))) => Err(format!("{what}: iterator invalid, model at {k:?}")),
        (true, Some((k, v))) => {
            if it.key() != &*k.0 {
                return Err(format!(
                    "{what}: iterator at b\"{}\", model at {k:?}",
                    esc(it.key())
                ));
            }
            if it.value() != &**v {
                return Err(format!(
                    "{what}: at {k:?} iterator value {}, model value {}",
                    show_value(it.value()),
                    show_value(v)
                ));
            }
            Ok(())
        }
    }
}

/// A value's identifying head and length.
fn show_value(v: &[u8]) -> String {
    let head = &v[..v.len().min(16)];
    format!("b\"{}\"… ({} bytes)", esc(head), v.len())
}

/// Moves a model iterator position like `step` moves the engine's.
fn model_step(
    view: &Map,
    lower: Option<&[u8]>,
    upper: Option<&[u8]>,
    pos: Option<&Key>,
    step: &Step,
) -> Option<Key> {
    let r = match step {
        Step::First => model_first(view, lower.map(|l| (l, true)), upper),
        Step::Last => match upper {
            Some(u) => model_last(view, Some((u, false)), lower),
            None => model_last(view, None, lower),
        },
        Step::Seek(t) => {
            let from = match lower {
                Some(l) if l > &*t.0 => l,
                _ => &*t.0,
            };
            model_first(view, Some((from, true)), upper)
        }
        Step::SeekForPrev(t) => match upper {
            Some(u) if &*t.0 >= u => model_last(view, Some((u, false)), lower),
            _ => model_last(view, Some((&*t.0, true)), lower),
        },
        Step::Next => model_first(view, Some((&*pos?.0, false)), upper),
        Step::Prev => model_last(view, Some((&*pos?.0, false)), lower),
    };
    r.map(|(k, _)| k.clone())
}

/// Applies `step` to the engine's iterator (Next/Prev only when valid).
fn engine_step(it: &mut DbIterator, step: &Step) {
    match step {
        Step::First => it.seek_to_first(),
        Step::Last => it.seek_to_last(),
        Step::Seek(t) => it.seek(&t.0),
        Step::SeekForPrev(t) => it.seek_for_prev(&t.0),
        Step::Next => it.next(),
        Step::Prev => it.prev(),
    }
}

/// Runs `steps` on an engine iterator and its model, checking every step.
fn walk(
    it: &mut DbIterator,
    view: &Map,
    lower: Option<&Key>,
    upper: Option<&Key>,
    pos: &mut Option<Key>,
    steps: &[Step],
    cov: &mut Coverage,
) -> Check {
    let (lo, hi) = (lower.map(|k| &*k.0), upper.map(|k| &*k.0));
    for (n, step) in steps.iter().enumerate() {
        if matches!(step, Step::Next | Step::Prev) && pos.is_none() {
            continue; // precondition: valid
        }
        engine_step(it, step);
        *pos = model_step(view, lo, hi, pos.as_ref(), step);
        cov.iterator_steps += 1;
        let want = pos.as_ref().map(|k| (k, &view[k]));
        same_pos(it, want, &format!("step {n} ({step:?})"))?;
    }
    Ok(())
}

impl Harness {
    fn open(dir: &Path, opts: Options) -> Result<Harness, String> {
        let db = Db::open(opts.clone(), dir).map_err(err("open"))?;
        let codec = match opts.compression {
            CompressionType::None => CompressionType::Lz4,
            c => c,
        };
        let fifo_log = (opts.compaction_style == CompactionStyle::Fifo).then(Vec::new);
        Ok(Harness {
            dir: dir.to_path_buf(),
            opts,
            db: Some(db),
            model: Map::new(),
            snaps: Vec::new(),
            iters: (0..ITER_SLOTS).map(|_| None).collect(),
            auto_compactions: true,
            cov: Coverage::default(),
            codec,
            fifo_log,
        })
    }

    fn db(&self) -> &Db {
        self.db.as_ref().expect("database open")
    }

    fn snap_index(&self, snap: Option<usize>) -> Option<usize> {
        let i = snap?;
        (!self.snaps.is_empty()).then(|| i % self.snaps.len())
    }

    /// Read options and the model state they should see.
    fn read_at(&self, snap: Option<usize>) -> (ReadOptions, &Map) {
        match self.snap_index(snap) {
            Some(i) => (
                ReadOptions {
                    snapshot: Some(self.snaps[i].0.sequence_number()),
                    ..ReadOptions::default()
                },
                &self.snaps[i].1,
            ),
            None => (ReadOptions::default(), &self.model),
        }
    }

    fn check_get(&self, key: &Key, snap: Option<usize>, what: &str) -> Check {
        let (ro, view) = self.read_at(snap);
        let got = self.db().get(&ro, &key.0).map_err(err("get"))?;
        let want = view.get(key);
        if got.as_deref() != want.map(|v| &**v) {
            return Err(format!(
                "{what}: get({key:?}) at {:?} returned {}, model has {}",
                ro.snapshot,
                got.as_deref().map_or("None".into(), show_value),
                want.map_or("None".into(), |v| show_value(v))
            ));
        }
        Ok(())
    }

    fn iter_opts(&self, spec: &IterSpec) -> (ReadOptions, Rc<Map>) {
        let (mut ro, _) = self.read_at(spec.snap);
        ro.iterate_lower_bound = spec.lower.as_ref().map(|k| k.0.to_vec());
        ro.iterate_upper_bound = spec.upper.as_ref().map(|k| k.0.to_vec());
        let view = match self.snap_index(spec.snap) {
            Some(i) => self.snaps[i].1.clone(),
            None => Rc::new(self.model.clone()),
        };
        (ro, view)
    }

    /// FIFO runs: lets background work finish (so that no table is dropped
    /// while the next operation reads), then brings the model, and every
    /// snapshot's view, to what FIFO compaction kept. FIFO drops the oldest
    /// tables, whose sequence ranges lie below every table kept, so the
    /// database holds exactly the updates numbered above the largest
    /// sequence number dropped (`Db::fifo_dropped_cf`), and the model
    /// replays those. Open iterators keep their views: their version keeps
    /// the dropped tables.
    fn sync_fifo(&mut self) -> Check {
        let Some(log) = &self.fifo_log else {
            return Ok(());
        };
        let db = self.db.as_ref().expect("database open");
        db.wait_for_compactions()
            .map_err(err("wait_for_compactions"))?;
        let (through, _) = db
            .fifo_dropped_cf(&db.default_column_family())
            .map_err(err("fifo_dropped_cf"))?;
        if through <= self.cov.fifo_dropped_through {
            return Ok(());
        }
        self.cov.fifo_dropped_through = through;
        // A write's updates took consecutive sequence numbers ending at
        // the one logged, and a dropped table can end inside a write: a
        // compaction at the bottom drops the trailing tombstones of a batch
        // (nothing older is left for them to hide), so the table holding
        // the batch ends below the batch's last number. Replay update by
        // update. Regression: seed 51 at 100,000 operations replayed a
        // whole batch ending in a single delete whose puts FIFO had dropped.
        let replay = |upto: u64| {
            let mut m = Map::new();
            for (last, upds) in log {
                if *last > upto {
                    continue;
                }
                let first = *last + 1 - upds.len() as u64;
                for (i, u) in upds.iter().enumerate() {
                    if first + i as u64 > through {
                        apply_to_model(&mut m, u);
                    }
                }
            }
            m
        };
        self.model = replay(u64::MAX);
        for (snap, view) in &mut self.snaps {
            *view = Rc::new(replay(snap.sequence_number()));
        }
        Ok(())
    }

    fn apply(&mut self, op: &Op) -> Check {
        if !matches!(op, Op::Write(..)) {
            self.sync_fifo()?;
        }
        match op {
            Op::Write(upds, via, flags) => self.write(upds, *via, *flags),
            Op::Get(k, snap) => self.check_get(k, *snap, "get"),
            Op::MultiGet(keys, snap) => {
                let (ro, view) = self.read_at(*snap);
                let ks: Vec<&[u8]> = keys.iter().map(|k| &*k.0).collect();
                let got = self.db().multi_get(&ro, &ks).map_err(err("multi_get"))?;
                if got.len() != keys.len() {
                    return Err(format!(
                        "multi_get of {} keys returned {}",
                        keys.len(),
                        got.len()
                    ));
                }
                for (k, g) in keys.iter().zip(&got) {
                    let want = view.get(k);
                    if g.as_deref() != want.map(|v| &**v) {
                        return Err(format!(
                            "multi_get: {k:?} at {:?} returned {}, model has {}",
                            ro.snapshot,
                            g.as_deref().map_or("None".into(), show_value),
                            want.map_or("None".into(), |v| show_value(v))
                        ));
                    }
                }
                Ok(())
            }
            Op::Walk(spec, steps) => {
                let (ro, view) = self.iter_opts(spec);
                let mut it = self.db().iter(&ro).map_err(err("iter"))?;
                let mut pos = None;
                walk(
                    &mut it,
                    &view,
                    spec.lower.as_ref(),
                    spec.upper.as_ref(),
                    &mut pos,
                    steps,
                    &mut self.cov,
                )
            }
            Op::IterOpen(slot, spec) => {
                let (ro, view) = self.iter_opts(spec);
                let it = self.db().iter(&ro).map_err(err("iter"))?;
                self.iters[*slot % ITER_SLOTS] = Some(LiveIter {
                    it,
                    view,
                    lower: spec.lower.clone(),
                    upper: spec.upper.clone(),
                    pos: None,
                });
                Ok(())
            }
            Op::IterMove(slot, steps) => {
                let Some(li) = self.iters[*slot % ITER_SLOTS].as_mut() else {
                    return Ok(());
                };
                walk(
                    &mut li.it,
                    &li.view,
                    li.lower.as_ref(),
                    li.upper.as_ref(),
                    &mut li.pos,
                    steps,
                    &mut self.cov,
                )
                .map_err(|e| format!("iterator kept open in slot {slot}: {e}"))
            }
            Op::IterClose(slot) => {
                self.iters[*slot % ITER_SLOTS] = None;
                Ok(())
            }
            Op::Snapshot => {
                let s = self.db().snapshot().map_err(err("snapshot"))?;
                self.snaps.push((s, Rc::new(self.model.clone())));
                Ok(())
            }
            Op::Release(i) => {
                if !self.snaps.is_empty() {
                    let (s, _) = self.snaps.remove(i % self.snaps.len());
                    self.db().release_snapshot(s);
                }
                Ok(())
            }
            Op::Flush { wait } => self
                .db()
                .flush(&FlushOptions {
                    wait: *wait,
                    ..FlushOptions::default()
                })
                .map_err(err("flush")),
            Op::FlushWal { sync } => self.db().flush_wal(*sync).map_err(err("flush_wal")),
            Op::CompactRange(b, e) => {
                let (b, e) = (b.as_ref().map(|k| &*k.0), e.as_ref().map(|k| &*k.0));
                self.db().compact_range(b, e).map_err(err("compact_range"))
            }
            Op::WaitForCompactions => self
                .db()
                .wait_for_compactions()
                .map_err(err("wait_for_compactions")),
            Op::AutoCompactions(on) => {
                self.auto_compactions = *on;
                self.db()
                    .set_disable_auto_compactions(!on)
                    .map_err(err("set_disable_auto_compactions"))
            }
            Op::PausedReads(keys) => {
                self.db()
                    .pause_background_work()
                    .map_err(err("pause_background_work"))?;
                let r = keys
                    .iter()
                    .try_for_each(|k| self.check_get(k, None, "get while paused"));
                self.db()
                    .continue_background_work()
                    .map_err(err("continue_background_work"))?;
                r
            }
            Op::Check { checksums } => self.check_all(*checksums),
            Op::Reopen(t) => self.reopen(*t),
        }
    }

    fn write(&mut self, upds: &[Upd], via: Via, flags: Flags) -> Check {
        let wo = WriteOptions {
            sync: flags.sync,
            disable_wal: flags.disable_wal,
            ..WriteOptions::default()
        };
        let db = self.db.as_ref().expect("database open");
        let r = match (via, upds) {
            (Via::Single, [Upd::Put(k, v)]) => db.put(&wo, &k.0, &v.bytes()),
            (Via::Single, [Upd::Delete(k)]) => db.delete(&wo, &k.0),
            (Via::Single, [Upd::DeleteRange(b, e)]) => db.delete_range(&wo, &b.0, &e.0),
            (Via::Single, [Upd::Merge(k, v)]) => db.merge(&wo, &k.0, &v.bytes()),
            (Via::Single, [Upd::SingleDelete(k)]) => db.single_delete(&wo, &k.0),
            _ => {
                let mut b = WriteBatch::new();
                for u in upds {
                    match u {
                        Upd::Put(k, v) => b.put(&k.0, &v.bytes()),
                        Upd::Delete(k) => b.delete(&k.0),
                        Upd::DeleteRange(s, e) => b.delete_range(&s.0, &e.0),
                        Upd::Merge(k, v) => b.merge(&k.0, &v.bytes()),
                        Upd::SingleDelete(k) => b.single_delete(&k.0),
                    }
                }
                db.write(&wo, b)
            }
        };
        if wo.sync && wo.disable_wal {
            // Refused before anything is applied: the model stays as it is,
            // and every later comparison checks that nothing landed.
            return match r {
                Err(e) if e.code() == talus::Code::InvalidArgument => Ok(()),
                other => Err(format!(
                    "write with sync and disable_wal: expected InvalidArgument, got {other:?}"
                )),
            };
        }
        r.map_err(err("write"))?;
        for u in upds {
            apply_to_model(&mut self.model, u);
            match u {
                Upd::DeleteRange(..) => self.cov.range_deletes += 1,
                Upd::Merge(..) => self.cov.merges += 1,
                Upd::SingleDelete(..) => self.cov.single_deletes += 1,
                _ => self.cov.writes += 1,
            }
        }
        if self.fifo_log.is_some() {
            let seq = self.db().latest_sequence_number();
            if let Some(log) = &mut self.fifo_log {
                log.push((seq, upds.to_vec()));
            }
            self.sync_fifo()?;
        }
        // Read back what the write touched (a sample of large batches).
        for u in upds.iter().take(8) {
            match u {
                Upd::Put(k, _) | Upd::Delete(k) | Upd::Merge(k, _) | Upd::SingleDelete(k) => {
                    self.check_get(k, None, "read back")?
                }
                Upd::DeleteRange(b, e) => {
                    self.check_get(b, None, "read back range begin")?;
                    self.check_get(e, None, "read back range end")?;
                    if let Some((k, _)) = model_last(&self.model, Some((&e.0, false)), None) {
                        let k = k.clone();
                        self.check_get(&k, None, "read back key before range")?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Full comparison: forward and backward scans of the latest state and
    /// of every live snapshot; optionally every block's checksum.
    fn check_all(&mut self, checksums: bool) -> Check {
        self.scan(&ReadOptions::default(), &self.model, "latest")?;
        for (s, view) in &self.snaps {
            let ro = ReadOptions {
                snapshot: Some(s.sequence_number()),
                ..ReadOptions::default()
            };
            self.scan(&ro, view, &format!("snapshot {}", s.sequence_number()))?;
        }
        if checksums {
            self.db()
                .verify_checksum()
                .map_err(err("verify_checksum"))?;
            if self.iters.iter().all(Option::is_none) {
                self.check_no_obsolete_tables()?;
            }
        }
        self.observe_levels();
        Ok(())
    }

    /// Once background work is idle and no iterator pins an old version,
    /// the table files on disk are exactly those of the current version.
    fn check_no_obsolete_tables(&self) -> Check {
        let db = self.db();
        db.wait_for_compactions()
            .map_err(err("wait_for_compactions"))?;
        let mut live: Vec<u64> = db
            .property("rocksdb.sstables")
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().split_once(':'))
            .filter_map(|(n, _)| n.parse().ok())
            .collect();
        live.sort_unstable();
        let mut on_disk: Vec<u64> = std::fs::read_dir(&self.dir)
            .map_err(err("read_dir"))?
            .filter_map(|e| {
                let name = e.ok()?.file_name().into_string().ok()?;
                name.strip_suffix(".sst")?.parse().ok()
            })
            .collect();
        on_disk.sort_unstable();
        if live != on_disk {
            return Err(format!(
                "table files on disk {on_disk:?} are not those of the current version {live:?}"
            ));
        }
        Ok(())
    }

    fn scan(&self, ro: &ReadOptions, view: &Map, what: &str) -> Check {
        let mut it = self.db().iter(ro).map_err(err("iter"))?;
        it.seek_to_first();
        for (i, (k, v)) in view.iter().enumerate() {
            same_pos(
                &it,
                Some((k, v)),
                &format!("forward scan of {what}, entry {i}"),
            )?;
            it.next();
        }
        same_pos(&it, None, &format!("forward scan of {what}, end"))?;
        it.seek_to_last();
        for (i, (k, v)) in view.iter().rev().enumerate() {
            same_pos(
                &it,
                Some((k, v)),
                &format!("backward scan of {what}, entry {i}"),
            )?;
            it.prev();
        }
        same_pos(&it, None, &format!("backward scan of {what}, end"))
    }

    fn observe_levels(&mut self) {
        let db = self.db.as_ref().expect("database open");
        let mut deep = 0;
        let mut files = 0;
        for level in 0..self.opts.num_levels as usize {
            let n = db
                .int_property(&format!("rocksdb.num-files-at-level{level}"))
                .unwrap_or(0);
            files += n;
            if level == 0 {
                self.cov.max_l0_files = self.cov.max_l0_files.max(n);
            } else if n > 0 {
                deep += 1;
                self.cov.deepest_level = self.cov.deepest_level.max(level);
            }
        }
        self.cov.max_deep_levels = self.cov.max_deep_levels.max(deep);
        self.cov.max_files = self.cov.max_files.max(files);
    }

    fn reopen(&mut self, t: Tweak) -> Check {
        for slot in &mut self.iters {
            *slot = None;
        }
        if self.fifo_log.is_some() {
            // A close flushes the memtables holding writes made without
            // the WAL (as RocksDB does), and that flush can bring the
            // tables over FIFO's size limit: the drop then runs inside the
            // close, where the model cannot read what it dropped (the count
            // behind `fifo_dropped_cf` starts again at the next open).
            // Flushing first, and bringing the model along, leaves the close
            // nothing to flush. Regression: seed 51 at 40,000 operations
            // still expected the writes of a table FIFO dropped in a close.
            self.db()
                .flush(&FlushOptions {
                    wait: true,
                    ..FlushOptions::default()
                })
                .map_err(err("flush before reopen"))?;
            self.sync_fifo()?;
        }
        let db = self.db.take().expect("database open");
        for (s, _) in self.snaps.drain(..) {
            db.release_snapshot(s);
        }
        db.close().map_err(err("close"))?;
        drop(db);
        self.opts.table.block_size = t.block_size;
        self.opts.table.block_restart_interval = t.restart;
        self.opts.compression = if t.compress {
            self.codec
        } else {
            CompressionType::None
        };
        self.opts.table.filter_bits_per_key = t.bloom_bits.map(f64::from);
        self.db = Some(Db::open(self.opts.clone(), &self.dir).map_err(err("reopen"))?);
        // Auto compactions are an option of the run, not of the files.
        if !self.auto_compactions {
            self.db()
                .set_disable_auto_compactions(true)
                .map_err(err("set_disable_auto_compactions"))?;
        }
        self.cov.reopens += 1;
        // FIFO may drop tables as soon as the database is open (the open's
        // own compaction pass): let that finish and bring the model along
        // before checking, as before every other read. Regression: the
        // check raced such a drop (seed 51).
        self.sync_fifo()?;
        self.check_all(false)
    }

    fn close(mut self) -> Check {
        for slot in &mut self.iters {
            *slot = None;
        }
        if let Some(db) = self.db.take() {
            for (s, _) in self.snaps.drain(..) {
                db.release_snapshot(s);
            }
            db.close().map_err(err("close"))?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Options and operation generation

fn options_for(rng: &mut StdRng) -> Options {
    let mut o = Options {
        create_if_missing: true,
        write_buffer_size: 64 << 10,
        target_file_size_base: 64 << 10,
        max_bytes_for_level_base: 256 << 10,
        level0_file_num_compaction_trigger: 2,
        num_levels: rng.random_range(3..=7),
        level_compaction_dynamic_level_bytes: rng.random_bool(0.5),
        // Small multipliers give several levels from a few MB of data.
        max_bytes_for_level_multiplier: [2.0, 3.0, 4.0, 10.0][rng.random_range(0..4)],
        target_file_size_multiplier: rng.random_range(1..=2),
        compaction_pri: CompactionPriority::from_u8(rng.random_range(0..5)).expect("0..5"),
        compression: if rng.random_bool(0.5) {
            CompressionType::Lz4
        } else {
            CompressionType::None
        },
        max_write_buffer_number: rng.random_range(2..=4),
        min_write_buffer_number_to_merge: rng.random_range(1..=2),
        max_background_jobs: rng.random_range(2..=4),
        max_open_files: if rng.random_bool(0.3) { 20 } else { -1 },
        merge_operator: Some(Arc::new(talus::merge::StringAppendOperator::new(DELIMITER))),
        ..Options::default()
    };
    let t = &mut o.table;
    t.block_size = [256, 1024, 4096, 16384][rng.random_range(0..4)];
    t.block_restart_interval = [1, 2, 16, rng.random_range(1..=32)][rng.random_range(0..4)];
    t.filter_bits_per_key = match rng.random_range(0..4) {
        0 => None,
        1 => Some(10.0),
        _ => Some(f64::from(rng.random_range(1..=20u8))),
    };
    t.whole_key_filtering = rng.random_bool(0.9);
    t.cache_index_and_filter_blocks = rng.random_bool(0.5);
    t.pin_l0_filter_and_index_blocks_in_cache = rng.random_bool(0.5);
    t.no_block_cache = rng.random_bool(0.1);
    t.block_cache_size = [16 << 10, 256 << 10, 8 << 20][rng.random_range(0..3)];
    o
}

/// The options a run starts with, one line per option that varies.
fn describe(o: &Options) -> String {
    let t = &o.table;
    format!(
        "num_levels={} dynamic_level_bytes={} multiplier={} target_file_size_multiplier={} \
         compaction_pri={:?} compression={:?} max_write_buffer_number={} \
         min_write_buffer_number_to_merge={} max_background_jobs={} max_open_files={} \
         block_size={} block_restart_interval={} filter_bits_per_key={:?} \
         whole_key_filtering={} cache_index_and_filter_blocks={} pin_l0={} \
         no_block_cache={} block_cache_size={} (write_buffer_size={} \
         target_file_size_base={} max_bytes_for_level_base={} l0_trigger={}) \
         compaction_style={:?} universal={:?} fifo={:?}",
        o.num_levels,
        o.level_compaction_dynamic_level_bytes,
        o.max_bytes_for_level_multiplier,
        o.target_file_size_multiplier,
        o.compaction_pri,
        o.compression,
        o.max_write_buffer_number,
        o.min_write_buffer_number_to_merge,
        o.max_background_jobs,
        o.max_open_files,
        t.block_size,
        t.block_restart_interval,
        t.filter_bits_per_key,
        t.whole_key_filtering,
        t.cache_index_and_filter_blocks,
        t.pin_l0_filter_and_index_blocks_in_cache,
        t.no_block_cache,
        t.block_cache_size,
        o.write_buffer_size,
        o.target_file_size_base,
        o.max_bytes_for_level_base,
        o.level0_file_num_compaction_trigger,
        o.compaction_style,
        o.compaction_options_universal,
        o.compaction_options_fifo,
    )
}

struct Gen {
    rng: StdRng,
    /// Sorted distinct keys.
    keys: Vec<Key>,
    /// Keys written and deleted far more often than the rest.
    hot: Vec<Key>,
}

impl Gen {
    fn new(rng: &mut StdRng) -> Gen {
        let mut rng = StdRng::seed_from_u64(rng.random());
        let n = rng.random_range(1000..8000);
        let prefixes: [&[u8]; 5] = [b"", b"user/", b"u", b"\x00\xff", b"user/0000"];
        let mut set = std::collections::BTreeSet::new();
        if rng.random_bool(0.5) {
            set.insert(Vec::new());
        }
        while set.len() < n {
            let mut k = prefixes[rng.random_range(0..prefixes.len())].to_vec();
            for _ in 0..rng.random_range(0..=16) {
                k.push(match rng.random_range(0..20) {
                    0 => 0x00,
                    1 => 0xff,
                    _ => b"abcdefghijklmnopqrstuvwxyz0123456789"[rng.random_range(0..36)],
                });
            }
            set.insert(k);
        }
        let keys: Vec<Key> = set.iter().map(|k| Key::new(k)).collect();
        let hot = (0..48)
            .map(|_| keys[rng.random_range(0..keys.len())].clone())
            .collect();
        Gen { rng, keys, hot }
    }

    fn key(&mut self) -> Key {
        if self.rng.random_bool(0.3) {
            self.hot[self.rng.random_range(0..self.hot.len())].clone()
        } else {
            self.keys[self.rng.random_range(0..self.keys.len())].clone()
        }
    }

    /// A key, or a byte string between or beyond keys.
    fn target(&mut self) -> Key {
        match self.rng.random_range(0..10) {
            0 => {
                let mut k = self.key().0.to_vec();
                k.push(self.rng.random());
                Key::new(&k)
            }
            1 => {
                let k = self.key();
                Key::new(&k.0[..self.rng.random_range(0..=k.0.len())])
            }
            2 => {
                let len = self.rng.random_range(0..4);
                Key::new(&(0..len).map(|_| self.rng.random()).collect::<Vec<u8>>())
            }
            _ => self.key(),
        }
    }

    /// A merge operand: short, so that values a hot key appends to stay small.
    fn operand(&mut self, id: u32, j: u32) -> Val {
        Val {
            id,
            j,
            len: self.rng.random_range(0..=12),
        }
    }

    fn val(&mut self, id: u32, j: u32) -> Val {
        let len = match self.rng.random_range(0..100) {
            0..10 => self.rng.random_range(0..=8),
            10..65 => self.rng.random_range(9..=200),
            65..95 => self.rng.random_range(201..=1200),
            _ => self.rng.random_range(1201..=9000),
        };
        Val { id, j, len }
    }

    /// A range `[begin, end)` with `begin ≤ end`, usually a few dozen keys wide.
    fn range(&mut self) -> (Key, Key) {
        let i = self.rng.random_range(0..self.keys.len());
        let width = match self.rng.random_range(0..10) {
            0 => 0,
            1..7 => self.rng.random_range(1..20),
            _ => self.rng.random_range(20..300),
        };
        let b = if self.rng.random_bool(0.8) {
            self.keys[i].clone()
        } else {
            self.target()
        };
        let e = match self.keys.get(i + width) {
            Some(k) if self.rng.random_bool(0.8) => k.clone(),
            _ => self.target(),
        };
        if b <= e { (b, e) } else { (e, b) }
    }

    fn flags(&mut self) -> Flags {
        Flags {
            sync: self.rng.random_bool(0.01),
            disable_wal: self.rng.random_bool(0.05),
        }
    }

    fn snap(&mut self) -> Option<usize> {
        self.rng
            .random_bool(0.3)
            .then(|| self.rng.random_range(0..MAX_SNAPSHOTS))
    }

    fn spec(&mut self) -> IterSpec {
        let mut lower = self.rng.random_bool(0.3).then(|| self.target());
        let mut upper = self.rng.random_bool(0.3).then(|| self.target());
        if let (Some(l), Some(u)) = (&lower, &upper)
            && l > u
        {
            std::mem::swap(&mut lower, &mut upper);
        }
        IterSpec {
            lower,
            upper,
            snap: self.snap(),
        }
    }

    fn steps(&mut self) -> Vec<Step> {
        let n = self.rng.random_range(1..=40);
        let mut steps = Vec::with_capacity(n);
        // Runs of the same direction, then turns.
        let mut forward = self.rng.random_bool(0.5);
        for _ in 0..n {
            steps.push(match self.rng.random_range(0..20) {
                0 => Step::First,
                1 => Step::Last,
                2 | 3 => Step::Seek(self.target()),
                4 | 5 => Step::SeekForPrev(self.target()),
                6 | 7 => {
                    forward = !forward;
                    if forward { Step::Next } else { Step::Prev }
                }
                _ => {
                    if forward {
                        Step::Next
                    } else {
                        Step::Prev
                    }
                }
            });
        }
        if !matches!(
            steps[0],
            Step::First | Step::Last | Step::Seek(_) | Step::SeekForPrev(_)
        ) {
            steps.insert(
                0,
                if forward {
                    Step::Seek(self.target())
                } else {
                    Step::SeekForPrev(self.target())
                },
            );
        }
        steps
    }

    fn tweak(&mut self) -> Tweak {
        Tweak {
            block_size: [256, 1024, 4096, 16384][self.rng.random_range(0..4)],
            restart: self.rng.random_range(1..=32),
            compress: self.rng.random_bool(0.5),
            bloom_bits: self
                .rng
                .random_bool(0.7)
                .then(|| self.rng.random_range(1..=20)),
        }
    }

    /// The next operation; `live_snaps` and `auto` describe the harness.
    fn op(&mut self, id: u32, live_snaps: usize, auto: bool) -> Op {
        let r = self.rng.random_range(0..1000);
        match r {
            0..195 => {
                let k = self.key();
                let v = self.val(id, 0);
                Op::Write(vec![Upd::Put(k, v)], Via::Single, self.flags())
            }
            195..230 => {
                let k = self.key();
                let v = self.operand(id, 0);
                Op::Write(vec![Upd::Merge(k, v)], Via::Single, self.flags())
            }
            230..285 => Op::Write(vec![Upd::Delete(self.key())], Via::Single, self.flags()),
            285..300 => Op::Write(
                vec![Upd::SingleDelete(self.key())],
                Via::Single,
                self.flags(),
            ),
            300..312 => {
                let (b, e) = self.range();
                Op::Write(vec![Upd::DeleteRange(b, e)], Via::Single, self.flags())
            }
            312..400 => {
                let n = self.rng.random_range(1..=20);
                let upds = (0..n)
                    .map(|j| match self.rng.random_range(0..24) {
                        0 => {
                            let (b, e) = self.range();
                            Upd::DeleteRange(b, e)
                        }
                        1..6 => Upd::Delete(self.key()),
                        20 => Upd::SingleDelete(self.key()),
                        21..24 => {
                            let k = self.key();
                            Upd::Merge(k, self.operand(id, j))
                        }
                        _ => {
                            let k = self.key();
                            Upd::Put(k, self.val(id, j))
                        }
                    })
                    .collect();
                Op::Write(upds, Via::Batch, self.flags())
            }
            400..425 => {
                // A bulk load of consecutive keys.
                let n = self.rng.random_range(50..400).min(self.keys.len());
                let start = self.rng.random_range(0..=self.keys.len() - n);
                let upds = (0..n)
                    .map(|j| {
                        let v = self.val(id, j as u32);
                        Upd::Put(self.keys[start + j].clone(), v)
                    })
                    .collect();
                Op::Write(upds, Via::Batch, self.flags())
            }
            425..595 => Op::Get(self.target(), self.snap()),
            595..635 => {
                let n = self.rng.random_range(0..12);
                let keys = (0..n).map(|_| self.target()).collect();
                Op::MultiGet(keys, self.snap())
            }
            635..725 => {
                let spec = self.spec();
                Op::Walk(spec, self.steps())
            }
            725..740 => {
                let slot = self.rng.random_range(0..ITER_SLOTS);
                Op::IterOpen(slot, self.spec())
            }
            740..780 => {
                let slot = self.rng.random_range(0..ITER_SLOTS);
                Op::IterMove(slot, self.steps())
            }
            780..785 => Op::IterClose(self.rng.random_range(0..ITER_SLOTS)),
            785..805 if live_snaps < MAX_SNAPSHOTS => Op::Snapshot,
            785..823 => Op::Release(self.rng.random_range(0..MAX_SNAPSHOTS)),
            823..838 => Op::Flush {
                wait: self.rng.random_bool(0.7),
            },
            838..843 => Op::FlushWal {
                sync: self.rng.random_bool(0.3),
            },
            843..849 => {
                if self.rng.random_bool(0.3) {
                    Op::CompactRange(None, None)
                } else {
                    let (b, e) = self.range();
                    let b = self.rng.random_bool(0.9).then_some(b);
                    let e = self.rng.random_bool(0.9).then_some(e);
                    Op::CompactRange(b, e)
                }
            }
            849..857 => Op::WaitForCompactions,
            857..861 => Op::AutoCompactions(!auto),
            861..865 => {
                let keys = (0..self.rng.random_range(1..8))
                    .map(|_| self.target())
                    .collect();
                Op::PausedReads(keys)
            }
            865..868 => Op::Reopen(self.tweak()),
            _ => Op::Get(self.key(), None),
        }
    }
}

// ---------------------------------------------------------------------------
// Running, failing, shrinking

/// Where the run is, for failure reports and the watchdog.
struct Progress {
    beat: AtomicU64,
    what: Mutex<String>,
    done: AtomicBool,
}

/// A failed run: which operation failed and why.
struct Failure {
    index: usize,
    message: String,
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic".into()
    }
}

/// Runs `next` until it returns `None`, applying each operation to a fresh
/// database in `dir`; returns the operations run.
fn run_ops(
    dir: &Path,
    opts: &Options,
    progress: Option<&Progress>,
    mut next: impl FnMut(usize, &Harness) -> Option<Op>,
) -> (Vec<Op>, Result<Coverage, Failure>) {
    let mut ops = Vec::new();
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut h =
            Harness::open(dir, opts.clone()).map_err(|message| Failure { index: 0, message })?;
        let mut i = 0;
        while let Some(op) = next(i, &h) {
            if let Some(p) = progress {
                *p.what.lock().expect("progress lock") = format!("op {i}: {op:?}");
                p.beat.fetch_add(1, Ordering::Relaxed);
            }
            ops.push(op.clone());
            h.apply(&op)
                .map_err(|message| Failure { index: i, message })?;
            i += 1;
        }
        let cov = h.cov;
        h.close().map_err(|message| Failure { index: i, message })?;
        Ok(cov)
    }));
    let result = match result {
        Ok(r) => r,
        Err(p) => Err(Failure {
            index: ops.len().saturating_sub(1),
            message: format!("panicked: {}", panic_text(&*p)),
        }),
    };
    (ops, result)
}

fn replay(opts: &Options, ops: &[Op]) -> Result<(), Failure> {
    let dir = tempfile::Builder::new()
        .prefix("talus-model-shrink-")
        .tempdir()
        .expect("temp dir");
    let (_, r) = run_ops(dir.path(), opts, None, |i, _| ops.get(i).cloned());
    r.map(|_| ())
}

/// Number of parts (updates, keys, steps) of an operation that shrinking may remove.
fn parts(op: &Op) -> usize {
    match op {
        Op::Write(u, ..) => u.len(),
        Op::MultiGet(k, _) | Op::PausedReads(k) => k.len(),
        Op::Walk(_, s) | Op::IterMove(_, s) => s.len(),
        _ => 0,
    }
}

/// `op` without parts `i..i + n`; a single write becomes a batch write.
fn without(op: &Op, i: usize, n: usize) -> Op {
    fn cut<T: Clone>(v: &[T], i: usize, n: usize) -> Vec<T> {
        let mut out = v[..i].to_vec();
        out.extend_from_slice(&v[(i + n).min(v.len())..]);
        out
    }
    match op {
        Op::Write(u, via, f) => Op::Write(cut(u, i, n), *via, *f),
        Op::MultiGet(k, s) => Op::MultiGet(cut(k, i, n), *s),
        Op::PausedReads(k) => Op::PausedReads(cut(k, i, n)),
        Op::Walk(spec, s) => Op::Walk(spec.clone(), cut(s, i, n)),
        Op::IterMove(slot, s) => Op::IterMove(*slot, cut(s, i, n)),
        other => other.clone(),
    }
}

/// Removes operations, then parts of operations, while the run still
/// fails, for up to `budget`. Returns the smallest failing list and its
/// failure, or no failure when the full list did not fail again.
fn shrink(opts: &Options, ops: Vec<Op>, budget: Duration) -> (Vec<Op>, Option<Failure>) {
    let started = Instant::now();
    let saved_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut ops = ops;
    let mut last = match replay(opts, &ops) {
        Ok(()) => {
            std::panic::set_hook(saved_hook);
            return (ops, None);
        }
        Err(f) => {
            ops.truncate(f.index + 1);
            f
        }
    };
    // Try `cand`; keep it (cut after its failing operation) when it fails.
    let attempt = |ops: &mut Vec<Op>, cand: Vec<Op>, last: &mut Failure| -> bool {
        match replay(opts, &cand) {
            Err(f) => {
                *ops = cand;
                ops.truncate(f.index + 1);
                *last = f;
                true
            }
            Ok(()) => false,
        }
    };
    let out_of_time = || started.elapsed() > budget;
    // Whole operations, in halving chunks.
    let mut chunk = ops.len().div_ceil(2);
    'ops: loop {
        let mut i = 0;
        while i < ops.len() {
            if out_of_time() {
                break 'ops;
            }
            let mut cand = ops[..i].to_vec();
            cand.extend_from_slice(&ops[(i + chunk).min(ops.len())..]);
            if !attempt(&mut ops, cand, &mut last) {
                i += chunk;
            }
        }
        if chunk == 1 {
            break;
        }
        chunk = chunk.div_ceil(2);
    }
    // Parts of operations, last operation first.
    let mut o = ops.len();
    'parts: while o > 0 {
        o -= 1;
        if o >= ops.len() {
            continue;
        }
        let mut chunk = parts(&ops[o]).div_ceil(2);
        while chunk >= 1 {
            let mut i = 0;
            while o < ops.len() && i < parts(&ops[o]) {
                if out_of_time() {
                    break 'parts;
                }
                let mut cand = ops.clone();
                cand[o] = without(&ops[o], i, chunk);
                if !attempt(&mut ops, cand, &mut last) {
                    i += chunk;
                }
            }
            if chunk == 1 {
                break;
            }
            chunk = chunk.div_ceil(2);
        }
    }
    std::panic::set_hook(saved_hook);
    (ops, Some(last))
}

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    Some(
        v.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v}: not a number")),
    )
}

/// Parses `3,9,100..200,7..=8`.
fn parse_seeds(s: &str) -> Vec<u64> {
    let num = |t: &str| -> u64 {
        t.trim()
            .parse()
            .unwrap_or_else(|_| panic!("TALUS_MODEL_SEEDS: bad seed {t:?}"))
    };
    let mut out = Vec::new();
    for part in s.split(',').filter(|p| !p.trim().is_empty()) {
        if let Some((a, b)) = part.split_once("..=") {
            out.extend(num(a)..=num(b));
        } else if let Some((a, b)) = part.split_once("..") {
            out.extend(num(a)..num(b));
        } else {
            out.push(num(part));
        }
    }
    out
}

/// Compression settings of a per-codec run.
#[derive(Clone, Copy, Debug)]
enum CodecRun {
    /// The seed's own choice (LZ4 or none).
    Seed,
    /// One codec everywhere, with a random ZSTD level.
    Only(CompressionType),
    /// A random codec per level, a random bottommost codec, and ZSTD
    /// dictionaries (trained or raw) with small sizes.
    Mixed,
}

/// Applies `run` to `o`, drawing from its own generator (so the seed's
/// other options and operations stay those of the plain run).
fn apply_codec_run(o: &mut Options, run: CodecRun, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed ^ 0xc0de_c0de);
    const ALL: [CompressionType; 4] = [
        CompressionType::None,
        CompressionType::Snappy,
        CompressionType::Lz4,
        CompressionType::Zstd,
    ];
    match run {
        CodecRun::Seed => {}
        CodecRun::Only(c) => {
            o.compression = c;
            o.compression_opts.level = [1, 3, 9, -5][rng.random_range(0..4)];
        }
        CodecRun::Mixed => {
            o.compression = CompressionType::Zstd;
            let n = rng.random_range(1..=4);
            o.compression_per_level = (0..n).map(|_| ALL[rng.random_range(0..4)]).collect();
            o.bottommost_compression = rng.random_bool(0.7).then(|| ALL[rng.random_range(0..4)]);
            let dict = CompressionOptions {
                level: rng.random_range(1..=6),
                max_dict_bytes: [512, 4096][rng.random_range(0..2)],
                zstd_max_train_bytes: [0, 16 << 10][rng.random_range(0..2)],
                enabled: true,
                ..CompressionOptions::default()
            };
            o.compression_opts = dict;
            o.bottommost_compression_opts = CompressionOptions {
                enabled: rng.random_bool(0.5),
                ..dict
            };
        }
    }
}

/// The compaction style of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StyleRun {
    /// Leveled compaction (the seed's own options).
    Level,
    /// Universal compaction with random universal options.
    Universal,
    /// FIFO compaction with a small size limit (tables are dropped) and
    /// random intra-L0 compaction.
    Fifo,
}

/// Applies `style` to `o`, drawing from its own generator.
fn apply_style_run(o: &mut Options, style: StyleRun, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed ^ 0x0575_71e5);
    match style {
        StyleRun::Level => {}
        StyleRun::Universal => {
            o.compaction_style = CompactionStyle::Universal;
            let u = &mut o.compaction_options_universal;
            u.size_ratio = [0, 1, 10, 50][rng.random_range(0..4)];
            u.min_merge_width = rng.random_range(2..=4);
            u.max_merge_width = [3, 6, u32::MAX][rng.random_range(0..3)];
            u.max_size_amplification_percent = [25, 100, 200][rng.random_range(0..3)];
            u.compression_size_percent = [-1, -1, 50][rng.random_range(0..3)];
            u.stop_style = if rng.random_bool(0.5) {
                talus::options::StopStyle::TotalSize
            } else {
                talus::options::StopStyle::SimilarSize
            };
            u.allow_trivial_move = rng.random_bool(0.5);
            o.level0_file_num_compaction_trigger = rng.random_range(2..=4);
        }
        StyleRun::Fifo => {
            o.compaction_style = CompactionStyle::Fifo;
            o.compaction_options_fifo.max_table_files_size =
                [256 << 10, 512 << 10, 1 << 20][rng.random_range(0..3)];
            o.compaction_options_fifo.allow_compaction = rng.random_bool(0.5);
            o.level0_file_num_compaction_trigger = rng.random_range(2..=6);
        }
    }
}

/// Runs one seed; on failure prints everything needed to reproduce it and panics.
fn run_seed(seed: u64, n_ops: usize, progress: &Progress) -> Coverage {
    run_seed_with(seed, n_ops, progress, CodecRun::Seed)
}

fn run_seed_with(seed: u64, n_ops: usize, progress: &Progress, codec: CodecRun) -> Coverage {
    run_seed_styled(seed, n_ops, progress, codec, StyleRun::Level)
}

fn run_seed_styled(
    seed: u64,
    n_ops: usize,
    progress: &Progress,
    codec: CodecRun,
    style: StyleRun,
) -> Coverage {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut opts = options_for(&mut rng);
    apply_codec_run(&mut opts, codec, seed);
    apply_style_run(&mut opts, style, seed);
    let mut g = Gen::new(&mut rng);
    let dir = tempfile::Builder::new()
        .prefix(&format!("talus-model-{seed}-"))
        .tempdir()
        .expect("temp dir");
    *progress.what.lock().expect("progress lock") = format!("seed {seed}: open");
    let (ops, result) = run_ops(dir.path(), &opts, Some(progress), |i, h| {
        if i >= n_ops {
            return None;
        }
        if (i + 1) % CHECK_EVERY == 0 || i + 1 == n_ops {
            return Some(Op::Check {
                checksums: (i + 1) % (4 * CHECK_EVERY) == 0,
            });
        }
        Some(g.op(i as u32, h.snaps.len(), h.auto_compactions))
    });
    let failure = match result {
        Ok(cov) => return cov,
        Err(f) => f,
    };
    let kept = dir.keep();
    let from = failure.index.saturating_sub(25);
    let mut report = format!(
        "model test failed: seed {seed} (TALUS_MODEL_SEED={seed} TALUS_MODEL_OPS={n_ops}), \
         codecs {codec:?}, style {style:?}, operation {} of {n_ops}\n  {}\n  op: {:?}\n  \
         options: {}\n  \
         database kept in {}\n  operations {from}..={}:\n",
        failure.index,
        failure.message,
        ops.get(failure.index),
        describe(&opts),
        kept.display(),
        failure.index,
    );
    for (i, op) in ops.iter().enumerate().take(failure.index + 1).skip(from) {
        report.push_str(&format!("    {i}: {}\n", short(op)));
    }
    eprintln!("{report}");
    let budget = env_u64("TALUS_MODEL_SHRINK_SECS").unwrap_or(120);
    if budget > 0 {
        eprintln!("shrinking for up to {budget} s ...");
        let (small, f) = shrink(
            &opts,
            ops[..ops.len().min(failure.index + 1)].to_vec(),
            Duration::from_secs(budget),
        );
        match f {
            None => eprintln!("the failure did not reproduce on a replay (timing-dependent?)"),
            Some(f) => {
                eprintln!(
                    "shrunk to {} operations, failing at the last with: {}",
                    small.len(),
                    f.message
                );
                for (i, op) in small.iter().enumerate() {
                    eprintln!("    {i}: {op:?}");
                }
            }
        }
    }
    panic!(
        "model test failed: seed {seed}, operation {}: {} (report above)",
        failure.index, failure.message
    );
}

/// An operation's text, cut to a line.
fn short(op: &Op) -> String {
    let s = format!("{op:?}");
    match s.char_indices().nth(300) {
        Some((i, _)) => format!("{} …", &s[..i]),
        None => s,
    }
}

/// Aborts with the current operation if one takes longer than `limit`.
fn watchdog(progress: Arc<Progress>, limit: Duration) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut last = progress.beat.load(Ordering::Relaxed);
        let mut since = Instant::now();
        while !progress.done.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(200));
            let now = progress.beat.load(Ordering::Relaxed);
            if now != last {
                last = now;
                since = Instant::now();
            } else if since.elapsed() > limit {
                eprintln!(
                    "model test stuck for {} s at {}",
                    limit.as_secs(),
                    progress.what.lock().expect("progress lock")
                );
                std::process::abort();
            }
        }
    })
}

#[test]
fn random_operations_match_a_btreemap() {
    let seeds = match (
        std::env::var("TALUS_MODEL_SEEDS"),
        env_u64("TALUS_MODEL_SEED"),
    ) {
        (Ok(s), _) => parse_seeds(&s),
        (Err(_), Some(s)) => vec![s],
        (Err(_), None) => CI_SEEDS.to_vec(),
    };
    let n_ops = env_u64("TALUS_MODEL_OPS").map_or(CI_OPS, |n| n as usize);
    let progress = Arc::new(Progress {
        beat: AtomicU64::new(0),
        what: Mutex::new(String::new()),
        done: AtomicBool::new(false),
    });
    let stall = Duration::from_secs(env_u64("TALUS_MODEL_STALL_SECS").unwrap_or(600));
    let dog = watchdog(progress.clone(), stall);
    for &seed in &seeds {
        let started = Instant::now();
        let cov = run_seed(seed, n_ops, &progress);
        eprintln!(
            "seed {seed}: {n_ops} ops in {:.1} s; {cov:?}",
            started.elapsed().as_secs_f64()
        );
        // Each seed must reach what it is meant to test: flushes, L0
        // compactions and data spread over several levels.
        if n_ops >= CI_OPS {
            assert!(
                cov.max_l0_files > 0 && cov.max_deep_levels >= 2 && cov.reopens > 0,
                "seed {seed} did not exercise flushes, compactions into several levels \
                 and reopens: {cov:?}"
            );
        }
    }
    progress.done.store(true, Ordering::Relaxed);
    dog.join().expect("watchdog");
}

/// One seed under `codec`, with the same coverage demands as the CI seeds.
fn codec_seed(seed: u64, codec: CodecRun) {
    let progress = Arc::new(Progress {
        beat: AtomicU64::new(0),
        what: Mutex::new(String::new()),
        done: AtomicBool::new(false),
    });
    let n_ops = env_u64("TALUS_MODEL_OPS").map_or(CI_OPS, |n| n as usize);
    let started = Instant::now();
    let cov = run_seed_with(seed, n_ops, &progress, codec);
    eprintln!(
        "seed {seed} {codec:?}: {n_ops} ops in {:.1} s; {cov:?}",
        started.elapsed().as_secs_f64()
    );
    assert!(
        cov.max_l0_files > 0 && cov.max_deep_levels >= 2 && cov.reopens > 0,
        "seed {seed} {codec:?} did not exercise flushes, compactions into several levels \
         and reopens: {cov:?}"
    );
}

#[test]
fn random_operations_match_a_btreemap_uncompressed() {
    codec_seed(21, CodecRun::Only(CompressionType::None));
}

#[test]
fn random_operations_match_a_btreemap_snappy() {
    codec_seed(22, CodecRun::Only(CompressionType::Snappy));
}

#[test]
fn random_operations_match_a_btreemap_lz4() {
    codec_seed(23, CodecRun::Only(CompressionType::Lz4));
}

#[test]
fn random_operations_match_a_btreemap_zstd() {
    codec_seed(24, CodecRun::Only(CompressionType::Zstd));
}

#[test]
fn random_operations_match_a_btreemap_per_level_codecs_and_zstd_dictionaries() {
    codec_seed(31, CodecRun::Mixed);
    codec_seed(32, CodecRun::Mixed);
}

/// One seed under compaction style `style` and codec `codec`: the model
/// holds under each style; each run must reach what its style does
/// (universal: runs merged into a level below L0; FIFO: tables dropped).
fn style_seed(seed: u64, style: StyleRun, codec: CompressionType) {
    let progress = Arc::new(Progress {
        beat: AtomicU64::new(0),
        what: Mutex::new(String::new()),
        done: AtomicBool::new(false),
    });
    let n_ops = env_u64("TALUS_MODEL_OPS").map_or(CI_OPS, |n| n as usize);
    let started = Instant::now();
    let cov = run_seed_styled(seed, n_ops, &progress, CodecRun::Only(codec), style);
    eprintln!(
        "seed {seed} {style:?} {codec:?}: {n_ops} ops in {:.1} s; {cov:?}",
        started.elapsed().as_secs_f64()
    );
    let reached = match style {
        StyleRun::Level => cov.max_deep_levels >= 2,
        StyleRun::Universal => cov.deepest_level >= 1,
        StyleRun::Fifo => cov.fifo_dropped_through > 0 && cov.deepest_level == 0,
    };
    assert!(
        cov.max_l0_files > 0 && cov.reopens > 0 && reached,
        "seed {seed} {style:?} {codec:?} did not exercise its style: {cov:?}"
    );
}

#[test]
fn random_operations_match_a_btreemap_universal() {
    style_seed(41, StyleRun::Universal, CompressionType::None);
    style_seed(42, StyleRun::Universal, CompressionType::Lz4);
    style_seed(43, StyleRun::Universal, CompressionType::Snappy);
    style_seed(44, StyleRun::Universal, CompressionType::Zstd);
}

#[test]
fn random_operations_match_a_btreemap_fifo() {
    style_seed(51, StyleRun::Fifo, CompressionType::None);
    style_seed(52, StyleRun::Fifo, CompressionType::Lz4);
    style_seed(53, StyleRun::Fifo, CompressionType::Snappy);
    style_seed(54, StyleRun::Fifo, CompressionType::Zstd);
}

#[test]
fn random_operations_match_a_btreemap_level_each_codec() {
    // The leveled runs per codec are `random_operations_match_a_btreemap_{
    // uncompressed,snappy,lz4,zstd}`; this one takes the style path.
    style_seed(61, StyleRun::Level, CompressionType::Zstd);
}
