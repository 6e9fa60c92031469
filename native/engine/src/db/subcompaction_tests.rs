//! Subcompactions end to end (module docs of
//! [`crate::compaction::subcompaction`]): a compaction split into key
//! ranges leaves the same contents as one job, at the latest state and at
//! every held snapshot, and its outputs form one sorted level.

use std::collections::BTreeMap;
use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::{CompactRangeOptions, Db, FlushOptions, Snapshot};
use crate::key::compare_internal;
use crate::merge::StringAppendOperator;
use crate::options::{Options, ReadOptions, WriteOptions};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

fn options(max_subcompactions: u32, auto: bool) -> Options {
    let mut o = Options {
        create_if_missing: true,
        stats_dump_period_sec: 0,
        write_buffer_size: 128 << 10,
        target_file_size_base: 32 << 10,
        max_bytes_for_level_base: 256 << 10,
        level0_file_num_compaction_trigger: 4,
        disable_auto_compactions: !auto,
        max_subcompactions,
        merge_operator: Some(Arc::new(StringAppendOperator::new(","))),
        ..Options::default()
    };
    o.table.block_size = 512;
    o
}

fn key(i: u64) -> Vec<u8> {
    format!("key{i:06}").into_bytes()
}

fn scan(db: &Db, ro: &ReadOptions) -> Model {
    let mut it = db.iter(ro).unwrap();
    let mut out = Model::new();
    it.seek_to_first();
    while it.valid() {
        out.insert(it.key().to_vec(), it.value().to_vec());
        it.next();
    }
    it.status().unwrap();
    out
}

fn at(s: &Snapshot) -> ReadOptions {
    ReadOptions {
        snapshot: Some(s.sequence_number()),
        ..ReadOptions::default()
    }
}

/// Subcompactions the info log reports (the sum of N over "runs as N
/// subcompactions").
fn subcompactions_logged(dir: &std::path::Path) -> usize {
    let text = std::fs::read_to_string(dir.join("LOG")).unwrap();
    text.lines()
        .filter_map(|l| {
            let (_, rest) = l.split_once("runs as ")?;
            rest.split_whitespace().next()?.parse::<usize>().ok()
        })
        .sum()
}

/// One random workload of puts, deletes, range deletes and merges with
/// flushes and held snapshots, applied to `db` and to the model; returns
/// the model's state at each snapshot, with the snapshots.
fn workload(db: &Db, seed: u64) -> (Model, Vec<(Snapshot, Model)>) {
    let mut r = SmallRng::seed_from_u64(seed);
    let wo = WriteOptions::default();
    let mut model = Model::new();
    let mut held = Vec::new();
    for step in 0..6000u64 {
        let k = key(r.random_range(0..1500));
        match r.random_range(0..100) {
            0..=59 => {
                let v = format!("v{step}-{}", "x".repeat(r.random_range(0..120))).into_bytes();
                db.put(&wo, &k, &v).unwrap();
                model.insert(k, v);
            }
            60..=74 => {
                db.delete(&wo, &k).unwrap();
                model.remove(&k);
            }
            75..=89 => {
                let op = format!("m{step}").into_bytes();
                db.merge(&wo, &k, &op).unwrap();
                let v = match model.get(&k) {
                    Some(old) => [old.as_slice(), b",", &op].concat(),
                    None => op,
                };
                model.insert(k, v);
            }
            90..=92 => {
                let a = r.random_range(0..1500);
                let (b, e) = (key(a), key(a + r.random_range(1..40)));
                db.delete_range(&wo, &b, &e).unwrap();
                let gone: Vec<Vec<u8>> = model.range(b..e).map(|(k, _)| k.clone()).collect();
                for k in gone {
                    model.remove(&k);
                }
            }
            93..=94 if held.len() < 6 => {
                held.push((db.snapshot().unwrap(), model.clone()));
            }
            95 => db.flush(&FlushOptions::default()).unwrap(),
            _ => {}
        }
    }
    db.flush(&FlushOptions::default()).unwrap();
    (model, held)
}

fn compact_all(db: &Db) {
    let cro = CompactRangeOptions {
        allow_write_stall: true,
        ..CompactRangeOptions::default()
    };
    db.compact_range_opt(&cro, None, None).unwrap();
}

#[test]
fn subcompactions_leave_the_same_contents_as_one_job() {
    for seed in 0..3u64 {
        let auto = seed % 2 == 1;
        let mut seen = Vec::new();
        for max in [1u32, 4] {
            let dir = tempfile::tempdir().unwrap();
            let db = Db::open(options(max, auto), dir.path()).unwrap();
            let (model, held) = workload(&db, seed);
            compact_all(&db);
            let ctx = format!("seed {seed}, max_subcompactions {max}, auto {auto}");
            assert_eq!(scan(&db, &ReadOptions::default()), model, "{ctx}");
            let mut states = vec![scan(&db, &ReadOptions::default())];
            for (i, (s, m)) in held.iter().enumerate() {
                assert_eq!(&scan(&db, &at(s)), m, "{ctx}: snapshot {i}");
                states.push(scan(&db, &at(s)));
            }
            let logged = subcompactions_logged(dir.path());
            if max == 1 {
                assert_eq!(logged, 0, "{ctx}: split although the bound is 1");
            } else {
                assert!(logged >= 2, "{ctx}: no compaction was split");
            }
            seen.push(states);
            for (s, _) in held {
                db.release_snapshot(s);
            }
        }
        assert_eq!(
            seen[0], seen[1],
            "seed {seed}: 1 and 4 subcompactions differ"
        );
    }
}

#[test]
fn subcompaction_outputs_do_not_overlap_and_the_level_stays_sorted() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(options(4, false), dir.path()).unwrap();
    let wo = WriteOptions::default();
    let mut model = Model::new();
    let mut r = SmallRng::seed_from_u64(7);
    // Overlapping L0 tables (every flush spans the key space) with range
    // tombstones crossing wherever the boundaries fall.
    for round in 0..6u64 {
        for _ in 0..1500 {
            let k = key(r.random_range(0..4000));
            let v = format!("r{round}-{}", "y".repeat(80)).into_bytes();
            db.put(&wo, &k, &v).unwrap();
            model.insert(k, v);
        }
        let a = r.random_range(0..3000);
        let (b, e) = (key(a), key(a + 500));
        db.delete_range(&wo, &b, &e).unwrap();
        let gone: Vec<Vec<u8>> = model.range(b..e).map(|(k, _)| k.clone()).collect();
        for k in gone {
            model.remove(&k);
        }
        db.flush(&FlushOptions::default()).unwrap();
    }
    let snap = db.snapshot().unwrap();
    compact_all(&db);
    assert!(
        subcompactions_logged(dir.path()) >= 2,
        "no compaction was split"
    );
    let v = db.inner.state.lock().versions.current().clone();
    assert_eq!(v.num_files(0), 0);
    let last = v.num_levels() - 1;
    let files = v.files(last);
    assert!(files.len() >= 4, "only {} output files", files.len());
    for w in files.windows(2) {
        assert!(
            compare_internal(&w[0].largest, &w[1].smallest).is_lt(),
            "files #{} and #{} overlap",
            w[0].number,
            w[1].number
        );
        assert!(w[0].smallest_user_key() <= w[0].largest_user_key());
    }
    assert_eq!(scan(&db, &ReadOptions::default()), model);
    assert_eq!(scan(&db, &at(&snap)), model);
    db.release_snapshot(snap);
    // Reopened, the manifest lists the same sorted level.
    drop(v);
    drop(db);
    let db = Db::open(options(4, false), dir.path()).unwrap();
    assert_eq!(scan(&db, &ReadOptions::default()), model);
}
