//! Randomized model test focused on range deletions.
//!
//! Range tombstones are where LSM engines most often lose or resurrect
//! data: a tombstone split across output files and clipped wrongly, a file
//! whose key range does not include the tombstones it holds (so point
//! lookups skip it), a tombstone dropped at the bottommost level while a
//! snapshot still needs what it hides, a tombstone newer than a snapshot
//! hiding data from reads at that snapshot, reverse scans and
//! `seek_for_prev` over deleted ranges.
//!
//! Each seed runs single-threaded operations on a database with tiny target
//! files (a few hundred bytes, so every flush or compaction output splits
//! tombstones across many files) and a tiny base level (so data reaches
//! several levels): puts, point deletes, range deletes (narrow, wide,
//! empty, reversed, beyond every key, from the empty key), batches mixing
//! them, snapshots taken and released at random, flushes, full and partial
//! `compact_range`, waits for automatic compactions, and reopens. The model
//! is a `BTreeMap` plus, for every live snapshot, a copy of the map as of
//! that snapshot. Every step checks a few point lookups; every few steps a
//! full check compares `get`, `multi_get`, forward and reverse scans,
//! `seek` and `seek_for_prev`, with and without bounds, at the latest state
//! and at every live snapshot.
//!
//! Longer runs (`TALUS_RANGE_DEL_SHOW=1` prints the files per level at each
//! full check):
//!
//! ```sh
//! TALUS_RANGE_DEL_SEEDS=100..300 TALUS_RANGE_DEL_OPS=4000 \
//!     cargo test -p talus --test engine range_del_model -- --nocapture
//! ```

use std::collections::BTreeMap;
use std::ops::Bound::{Excluded, Included, Unbounded};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use talus::db::{FlushOptions, Snapshot};
use talus::{Db, Options, ReadOptions, WriteBatch, WriteOptions};

type Map = BTreeMap<Vec<u8>, Vec<u8>>;

/// Seeds checked on every run.
const SEEDS: [u64; 6] = [11, 22, 33, 44, 55, 66];
/// Operations per seed.
const OPS: usize = 1000;
/// A full check every this many operations.
const FULL_CHECK_EVERY: usize = 40;
/// Distinct point keys.
const KEYS: u32 = 300;
/// Live snapshots at most.
const MAX_SNAPS: usize = 4;

fn key(i: u32) -> Vec<u8> {
    format!("k{i:04}").into_bytes()
}

/// A key, or a key between two keys, or one outside every key.
fn any_key(rng: &mut StdRng) -> Vec<u8> {
    match rng.random_range(0..20) {
        0 => Vec::new(),
        1 => b"a".to_vec(),
        2 => b"z".to_vec(),
        3 => b"k".to_vec(),
        4..=6 => {
            let mut k = key(rng.random_range(0..KEYS));
            k.push(b'x');
            k
        }
        _ => key(rng.random_range(0..KEYS)),
    }
}

fn point_key(rng: &mut StdRng) -> Vec<u8> {
    if rng.random_bool(0.1) {
        let mut k = key(rng.random_range(0..KEYS));
        k.push(b'x');
        k
    } else {
        key(rng.random_range(0..KEYS))
    }
}

/// `[begin, end)` for a range deletion: narrow, medium, wide, empty or
/// reversed (the last two are no-ops).
fn range(rng: &mut StdRng) -> (Vec<u8>, Vec<u8>) {
    let span = |rng: &mut StdRng, max: u32| {
        let i = rng.random_range(0..KEYS);
        let n = rng.random_range(1..=max);
        let mut b = key(i);
        if rng.random_bool(0.2) {
            b.push(b'x');
        }
        (b, key(i + n))
    };
    match rng.random_range(0..100) {
        0..=4 => {
            let k = any_key(rng);
            (k.clone(), k)
        }
        5..=9 => {
            let (b, e) = span(rng, 20);
            (e, b)
        }
        // Wide: from below every key, or to above every key.
        10..=11 => (Vec::new(), key(rng.random_range(0..KEYS))),
        12..=13 => (key(rng.random_range(0..KEYS)), b"z".to_vec()),
        14..=69 => span(rng, 6),
        _ => span(rng, 40),
    }
}

fn value(rng: &mut StdRng, step: usize) -> Vec<u8> {
    let len = rng.random_range(0..120);
    let mut v = format!("v{step}-").into_bytes();
    v.extend((0..len).map(|i| b'a' + ((step + i) % 26) as u8));
    v
}

fn delete_range_model(m: &mut Map, b: &[u8], e: &[u8]) {
    if b >= e {
        return;
    }
    let doomed: Vec<Vec<u8>> = m
        .range::<[u8], _>((Included(b), Excluded(e)))
        .map(|(k, _)| k.clone())
        .collect();
    for k in doomed {
        m.remove(&k);
    }
}

fn options(rng: &mut StdRng) -> Options {
    let mut o = Options {
        create_if_missing: true,
        write_buffer_size: 64 << 10,
        target_file_size_base: [256, 512, 1024][rng.random_range(0..3)],
        target_file_size_multiplier: rng.random_range(1..=2),
        max_bytes_for_level_base: [1024, 4096][rng.random_range(0..2)],
        max_bytes_for_level_multiplier: 2.0,
        level0_file_num_compaction_trigger: rng.random_range(2..=4),
        num_levels: rng.random_range(3..=6),
        level_compaction_dynamic_level_bytes: rng.random_bool(0.3),
        disable_auto_compactions: rng.random_bool(0.2),
        max_write_buffer_number: rng.random_range(2..=4),
        min_write_buffer_number_to_merge: rng.random_range(1..=2),
        ..Options::default()
    };
    o.table.block_size = [64, 256, 4096][rng.random_range(0..3)];
    o.table.block_restart_interval = rng.random_range(1..=4);
    o.table.filter_bits_per_key = if rng.random_bool(0.5) {
        Some(10.0)
    } else {
        None
    };
    o
}

struct Run {
    seed: u64,
    rng: StdRng,
    dir: tempfile::TempDir,
    opts: Options,
    db: Option<Db>,
    model: Map,
    snaps: Vec<(Snapshot, Map)>,
    log: Vec<String>,
}

impl Run {
    fn db(&self) -> &Db {
        self.db.as_ref().expect("open")
    }

    fn fail(&self, msg: String) -> ! {
        let tail: Vec<&String> = self.log.iter().rev().take(60).collect();
        let mut s = String::new();
        for l in tail.into_iter().rev() {
            s.push_str(l);
            s.push('\n');
        }
        panic!(
            "seed {}: {msg}\nlast operations (of {}):\n{s}",
            self.seed,
            self.log.len()
        );
    }

    /// Read options and model at the latest state (`None`) or a snapshot.
    fn view(&self, snap: Option<usize>) -> (ReadOptions, &Map) {
        match snap {
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

    fn views(&self) -> Vec<Option<usize>> {
        std::iter::once(None)
            .chain((0..self.snaps.len()).map(Some))
            .collect()
    }

    fn check_get(&self, k: &[u8], snap: Option<usize>) {
        let (ro, m) = self.view(snap);
        let got = self.db().get(&ro, k).unwrap();
        self.check_value("get", k, &ro, got.as_deref(), m);
    }

    /// Fails the run when `got` for `k` read with `ro` is not the model's value.
    fn check_value(&self, op: &str, k: &[u8], ro: &ReadOptions, got: Option<&[u8]>, m: &Map) {
        if got != m.get(k).map(Vec::as_slice) {
            self.fail(format!(
                "{op}({}) at {:?}: got {:?}, model {:?}",
                show(k),
                ro.snapshot,
                got.map(show),
                m.get(k).map(|v| show(v))
            ));
        }
    }

    fn check_multi_get(&mut self, snap: Option<usize>) {
        let n = self.rng.random_range(1..12);
        let keys: Vec<Vec<u8>> = (0..n).map(|_| any_key(&mut self.rng)).collect();
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let (ro, m) = self.view(snap);
        let got = self.db().multi_get(&ro, &refs).unwrap();
        for (k, g) in keys.iter().zip(&got) {
            self.check_value("multi_get", k, &ro, g.as_deref(), m);
        }
    }

    fn check_scans(&mut self, snap: Option<usize>) {
        let lower = self.rng.random_bool(0.4).then(|| any_key(&mut self.rng));
        let upper = self.rng.random_bool(0.4).then(|| any_key(&mut self.rng));
        let (mut ro, m) = self.view(snap);
        let m = m.clone();
        ro.iterate_lower_bound = lower.clone();
        ro.iterate_upper_bound = upper.clone();
        let lo = lower.as_deref().map_or(Unbounded, Included);
        let hi = upper.as_deref().map_or(Unbounded, Excluded);
        let want: Vec<(&[u8], &[u8])> = if lower.is_some() && upper.is_some() && lower >= upper {
            Vec::new()
        } else {
            m.range::<[u8], _>((lo, hi))
                .map(|(k, v)| (k.as_slice(), v.as_slice()))
                .collect()
        };
        let ctx = format!(
            "at {:?} bounds [{:?}, {:?})",
            ro.snapshot,
            lower.as_deref().map(show),
            upper.as_deref().map(show)
        );
        let mut it = self.db().iter(&ro).unwrap();
        // Forward.
        let mut got = Vec::new();
        it.seek_to_first();
        while it.valid() {
            got.push((it.key().to_vec(), it.value().to_vec()));
            it.next();
        }
        it.status().unwrap();
        compare(self, &got, &want, &format!("forward scan {ctx}"));
        // Reverse.
        let mut got = Vec::new();
        it.seek_to_last();
        while it.valid() {
            got.push((it.key().to_vec(), it.value().to_vec()));
            it.prev();
        }
        it.status().unwrap();
        got.reverse();
        compare(self, &got, &want, &format!("reverse scan {ctx}"));
        // Seeks, each followed by a few steps in a random direction.
        for _ in 0..6 {
            let t = any_key(&mut self.rng);
            let forward = self.rng.random_bool(0.5);
            // Index in `want` of the expected position.
            let pos = if forward {
                it.seek(&t);
                want.iter().position(|(k, _)| *k >= t.as_slice())
            } else {
                it.seek_for_prev(&t);
                want.iter().rposition(|(k, _)| *k <= t.as_slice())
            };
            let what = if forward { "seek" } else { "seek_for_prev" };
            let mut pos = pos.map(|p| p as isize);
            let steps = self.rng.random_range(0..5);
            for s in 0..=steps {
                let expect = pos.and_then(|p| usize::try_from(p).ok().and_then(|p| want.get(p)));
                let got = it.valid().then(|| (it.key(), it.value()));
                if got != expect.copied() {
                    self.fail(format!(
                        "{what}({}) then {s} moves {ctx}: got {:?}, model {:?}",
                        show(&t),
                        got.map(|(k, _)| show(k)),
                        expect.map(|(k, _)| show(k))
                    ));
                }
                if !it.valid() {
                    break;
                }
                if self.rng.random_bool(0.5) {
                    it.next();
                    pos = pos.map(|p| p + 1);
                } else {
                    it.prev();
                    pos = pos.map(|p| p - 1);
                }
            }
        }
        it.status().unwrap();
    }

    fn full_check(&mut self) {
        if std::env::var("TALUS_RANGE_DEL_SHOW").is_ok() {
            let counts: Vec<String> = (0..self.opts.num_levels)
                .map(|l| {
                    self.db()
                        .property(&format!("rocksdb.num-files-at-level{l}"))
                        .unwrap_or_default()
                })
                .collect();
            eprintln!(
                "seed {} step {}: files {:?}, {} keys, {} snapshots",
                self.seed,
                self.log.len(),
                counts,
                self.model.len(),
                self.snaps.len()
            );
        }
        for snap in self.views() {
            let m = self.view(snap).1.clone();
            for i in 0..KEYS {
                self.check_get(&key(i), snap);
            }
            for k in m.keys() {
                self.check_get(k, snap);
            }
            self.check_multi_get(snap);
            self.check_scans(snap);
            self.check_scans(snap);
        }
    }

    fn quick_check(&mut self) {
        for snap in self.views() {
            for _ in 0..3 {
                let k = any_key(&mut self.rng);
                self.check_get(&k, snap);
            }
        }
    }

    fn reopen(&mut self) {
        for (s, _) in self.snaps.drain(..) {
            self.db.as_ref().expect("open").release_snapshot(s);
        }
        if let Some(db) = self.db.take() {
            db.close().unwrap();
        }
        self.db = Some(Db::open(self.opts.clone(), self.dir.path()).unwrap());
    }

    fn step(&mut self, i: usize) {
        let wo = WriteOptions::default();
        let r = self.rng.random_range(0..1000);
        match r {
            0..=449 => {
                let (k, v) = (point_key(&mut self.rng), value(&mut self.rng, i));
                self.log.push(format!("put {} {}", show(&k), show(&v)));
                self.db().put(&wo, &k, &v).unwrap();
                self.model.insert(k, v);
            }
            450..=499 => {
                // A burst of consecutive keys, so the data stays dense.
                let first = self.rng.random_range(0..KEYS);
                let n = self.rng.random_range(5..30);
                self.log
                    .push(format!("put burst {} x{n}", show(&key(first))));
                for j in first..(first + n).min(KEYS) {
                    let v = value(&mut self.rng, i);
                    self.db().put(&wo, &key(j), &v).unwrap();
                    self.model.insert(key(j), v);
                }
            }
            500..=549 => {
                let k = point_key(&mut self.rng);
                self.log.push(format!("delete {}", show(&k)));
                self.db().delete(&wo, &k).unwrap();
                self.model.remove(&k);
            }
            550..=619 => {
                let (b, e) = range(&mut self.rng);
                self.log
                    .push(format!("delete_range {} {}", show(&b), show(&e)));
                self.db().delete_range(&wo, &b, &e).unwrap();
                delete_range_model(&mut self.model, &b, &e);
            }
            620..=669 => {
                let mut batch = WriteBatch::new();
                let mut desc = Vec::new();
                for _ in 0..self.rng.random_range(1..6) {
                    match self.rng.random_range(0..3) {
                        0 => {
                            let (k, v) = (point_key(&mut self.rng), value(&mut self.rng, i));
                            desc.push(format!("put {}", show(&k)));
                            batch.put(&k, &v);
                            self.model.insert(k, v);
                        }
                        1 => {
                            let k = point_key(&mut self.rng);
                            desc.push(format!("delete {}", show(&k)));
                            batch.delete(&k);
                            self.model.remove(&k);
                        }
                        _ => {
                            let (b, e) = range(&mut self.rng);
                            desc.push(format!("delete_range {} {}", show(&b), show(&e)));
                            batch.delete_range(&b, &e);
                            delete_range_model(&mut self.model, &b, &e);
                        }
                    }
                }
                self.log.push(format!("batch [{}]", desc.join(", ")));
                self.db().write(&wo, batch).unwrap();
            }
            670..=729 => {
                if self.snaps.len() < MAX_SNAPS {
                    let s = self.db().snapshot().unwrap();
                    self.log.push(format!("snapshot @{}", s.sequence_number()));
                    self.snaps.push((s, self.model.clone()));
                }
            }
            730..=769 => {
                if !self.snaps.is_empty() {
                    let j = self.rng.random_range(0..self.snaps.len());
                    let (s, _) = self.snaps.remove(j);
                    self.log.push(format!("release @{}", s.sequence_number()));
                    self.db().release_snapshot(s);
                }
            }
            770..=869 => {
                // Without waiting, several memtables may be flushed at once.
                let wait = self.rng.random_bool(0.6);
                self.log.push(format!("flush wait={wait}"));
                self.db()
                    .flush(&FlushOptions {
                        wait,
                        ..FlushOptions::default()
                    })
                    .unwrap();
            }
            870..=884 => {
                self.log.push("compact_range all".into());
                self.db().compact_range(None, None).unwrap();
            }
            885..=949 => {
                let (a, b) = (any_key(&mut self.rng), any_key(&mut self.rng));
                let (a, b) = (a.clone().min(b.clone()), a.max(b));
                let a = self.rng.random_bool(0.8).then_some(a);
                let b = self.rng.random_bool(0.8).then_some(b);
                self.log.push(format!(
                    "compact_range {:?} {:?}",
                    a.as_deref().map(show),
                    b.as_deref().map(show)
                ));
                self.db().compact_range(a.as_deref(), b.as_deref()).unwrap();
            }
            950..=979 => {
                self.log.push("wait_for_compactions".into());
                self.db().wait_for_compactions().unwrap();
            }
            _ => {
                self.log.push("reopen".into());
                self.reopen();
            }
        }
    }
}

fn compare(run: &Run, got: &[(Vec<u8>, Vec<u8>)], want: &[(&[u8], &[u8])], what: &str) {
    let g: Vec<(&[u8], &[u8])> = got
        .iter()
        .map(|(k, v)| (k.as_slice(), v.as_slice()))
        .collect();
    if g != want {
        let gk: Vec<String> = g.iter().map(|(k, _)| show(k)).collect();
        let wk: Vec<String> = want.iter().map(|(k, _)| show(k)).collect();
        let first = gk
            .iter()
            .zip(&wk)
            .position(|(a, b)| a != b)
            .unwrap_or(gk.len().min(wk.len()));
        run.fail(format!(
            "{what}: {} keys, model {} keys; first difference at {first}: got {:?}, model {:?}",
            gk.len(),
            wk.len(),
            gk.get(first),
            wk.get(first)
        ));
    }
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn run_seed(seed: u64, ops: usize) {
    let mut rng = StdRng::seed_from_u64(seed);
    let opts = options(&mut rng);
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(opts.clone(), dir.path()).unwrap();
    let mut run = Run {
        seed,
        rng,
        dir,
        opts,
        db: Some(db),
        model: Map::new(),
        snaps: Vec::new(),
        log: Vec::new(),
    };
    for i in 0..ops {
        run.step(i);
        run.quick_check();
        if i % FULL_CHECK_EVERY == FULL_CHECK_EVERY - 1 {
            run.full_check();
        }
    }
    run.full_check();
    run.reopen();
    run.full_check();
    run.db().compact_range(None, None).unwrap();
    run.full_check();
    run.reopen();
}

/// Seeds from `TALUS_RANGE_DEL_SEEDS` (`a..b` or a comma list), else [`SEEDS`];
/// operations from `TALUS_RANGE_DEL_OPS`, else [`OPS`].
#[test]
fn range_del_model() {
    let seeds: Vec<u64> = match std::env::var("TALUS_RANGE_DEL_SEEDS") {
        Ok(s) => match s.split_once("..") {
            Some((a, b)) => (a.parse().unwrap()..b.parse().unwrap()).collect(),
            None => s.split(',').map(|x| x.trim().parse().unwrap()).collect(),
        },
        Err(_) => SEEDS.to_vec(),
    };
    let ops = std::env::var("TALUS_RANGE_DEL_OPS")
        .ok()
        .map_or(OPS, |s| s.parse().unwrap());
    for seed in seeds {
        run_seed(seed, ops);
    }
}
