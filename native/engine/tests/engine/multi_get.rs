//! A multi-get answers as a get of each key at one snapshot: random key
//! lists (unsorted, with repeats and absent keys) against a `BTreeMap`
//! model and against single gets, over a memtable, L0 files and several
//! levels, with point and range deletes, merges and held snapshots; a
//! batch's keys go through each table in passes (`db/read.rs`,
//! `TablePass`), or one at a time with the perf context's per-level
//! breakdown on.

use std::collections::BTreeMap;
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use talus::db::FlushOptions;
use talus::{Db, Options, ReadOptions, WriteOptions};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

fn key(i: u32) -> Vec<u8> {
    format!("key{i:05}").into_bytes()
}

fn options(rng: &mut StdRng) -> Options {
    let mut o = Options {
        create_if_missing: true,
        write_buffer_size: 1 << 20,
        level0_file_num_compaction_trigger: 3,
        target_file_size_base: 16 << 10,
        max_bytes_for_level_base: 48 << 10,
        max_bytes_for_level_multiplier: 2.0,
        merge_operator: Some(Arc::new(talus::merge::StringAppendOperator::new(","))),
        ..Options::default()
    };
    // Small blocks hold a few keys each, so that a sorted batch meets
    // neighbours in one block as well as in separate blocks and files.
    o.table.block_size = [128, 512, 4096][rng.random_range(0..3)];
    o.table.block_restart_interval = rng.random_range(1..=16);
    o.table.filter_bits_per_key = [None, Some(10.0), Some(2.0)][rng.random_range(0..3)];
    o
}

/// Applies one random write to `db` and `model`.
fn random_write(db: &Db, model: &mut Model, rng: &mut StdRng, space: u32) {
    let wo = WriteOptions::default();
    let i = rng.random_range(0..space);
    match rng.random_range(0..20) {
        0..=11 => {
            let v =
                format!("v{}-{}", i, rng.random_range(0..1000u32)).repeat(rng.random_range(1..4));
            db.put(&wo, &key(i), v.as_bytes()).unwrap();
            model.insert(key(i), v.into_bytes());
        }
        12..=14 => {
            db.delete(&wo, &key(i)).unwrap();
            model.remove(&key(i));
        }
        15..=17 => {
            let op = format!("m{}", rng.random_range(0..100u32));
            db.merge(&wo, &key(i), op.as_bytes()).unwrap();
            let e = model.entry(key(i)).or_default();
            if !e.is_empty() {
                e.push(b',');
            }
            // An absent key's merge starts from nothing: the operand alone.
            e.extend_from_slice(op.as_bytes());
        }
        _ => {
            let end = (i + rng.random_range(1..20)).min(space);
            db.delete_range(&wo, &key(i), &key(end)).unwrap();
            let doomed: Vec<Vec<u8>> = model
                .range(key(i)..key(end))
                .map(|(k, _)| k.clone())
                .collect();
            for k in doomed {
                model.remove(&k);
            }
        }
    }
}

fn check_batches(
    db: &Db,
    ro: &ReadOptions,
    model: &Model,
    rng: &mut StdRng,
    space: u32,
    what: &str,
) {
    for round in 0..20 {
        let n = rng.random_range(0..=150);
        let mut keys: Vec<Vec<u8>> = (0..n)
            .map(|_| key(rng.random_range(0..space + space / 4)))
            .collect();
        // Repeats, adjacent and apart.
        if n > 2 {
            let k = keys[rng.random_range(0..n)].clone();
            keys.push(k.clone());
            keys.insert(rng.random_range(0..keys.len()), k);
        }
        if round % 5 == 0 {
            keys.sort();
        }
        keys.push(b"".to_vec());
        keys.push(b"zzz".to_vec());
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let got = db.multi_get(ro, &refs).unwrap();
        assert_eq!(got.len(), keys.len(), "{what}");
        for (k, v) in keys.iter().zip(&got) {
            assert_eq!(
                v.as_deref(),
                model.get(k).map(Vec::as_slice),
                "{what}, round {round}: multi_get of {:?}",
                String::from_utf8_lossy(k)
            );
            assert_eq!(
                v,
                &db.get(ro, k).unwrap(),
                "{what}: multi_get and get disagree"
            );
        }
    }
}

#[test]
fn multi_get_matches_a_model_across_memtables_levels_and_snapshots() {
    for seed in 0..4u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(options(&mut rng), dir.path()).unwrap();
        let mut model = Model::new();
        let space = 3000;
        let mut snaps = Vec::new();
        for round in 0..8 {
            for _ in 0..1500 {
                random_write(&db, &mut model, &mut rng, space);
            }
            if round % 3 == 1 {
                snaps.push((db.snapshot().unwrap(), model.clone()));
            }
            // The last round stays in the memtable.
            if round < 7 {
                db.flush(&FlushOptions::default()).unwrap();
            }
            if round == 3 {
                db.compact_range(None, None).unwrap();
            }
        }
        let what = format!(
            "seed {seed}, {}",
            db.property("talus.levelstats").unwrap_or_default()
        );
        check_batches(&db, &ReadOptions::default(), &model, &mut rng, space, &what);
        // With the perf context's per-level breakdown on, a multi-get looks
        // its keys up one at a time (each probe's counts its own) rather
        // than in passes over each table: both answer the same.
        talus::perf_context::set_perf_level(talus::perf_context::PerfLevel::EnableCount).unwrap();
        talus::perf_context::set_per_level_enabled(true);
        let by_level = format!("{what}, per-level breakdown on");
        check_batches(
            &db,
            &ReadOptions::default(),
            &model,
            &mut rng,
            space,
            &by_level,
        );
        talus::perf_context::set_per_level_enabled(false);
        talus::perf_context::set_perf_level(talus::perf_context::PerfLevel::Disable).unwrap();
        for (i, (snap, at)) in snaps.iter().enumerate() {
            let ro = ReadOptions {
                snapshot: Some(snap.sequence_number()),
                ..ReadOptions::default()
            };
            check_batches(
                &db,
                &ro,
                at,
                &mut rng,
                space,
                &format!("{what}, snapshot {i}"),
            );
        }
        for (snap, _) in snaps {
            db.release_snapshot(snap);
        }
    }
}

/// Many keys of one data block in one batch, some present and some not,
/// with repeats: the keys after the first in a block are served from the
/// block the first one found.
#[test]
fn multi_get_of_neighbours_in_one_block() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = Options {
        create_if_missing: true,
        ..Options::default()
    };
    o.table.block_size = 16 << 10;
    let db = Db::open(o, dir.path()).unwrap();
    let wo = WriteOptions::default();
    for i in (0..2000).step_by(2) {
        db.put(&wo, &key(i), &key(i)).unwrap();
    }
    db.compact_range(None, None).unwrap();
    let keys: Vec<Vec<u8>> = (0..400)
        .rev()
        .chain([7, 8, 8, 1999, 1998])
        .map(key)
        .collect();
    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let got = db.multi_get(&ReadOptions::default(), &refs).unwrap();
    for (k, v) in keys.iter().zip(got) {
        let i: u32 = std::str::from_utf8(&k[3..]).unwrap().parse().unwrap();
        assert_eq!(v, i.is_multiple_of(2).then(|| k.clone()), "{i}");
    }
}

/// Rows large enough for cached data blocks to get an entry directory
/// (entries of 96 bytes or more): once single gets have reused every
/// block, a multi-get's passes prefetch each block's directory and entry
/// before searching it (`TablePass`), in tables of several levels with
/// overwritten and deleted keys, at a snapshot too; the first batch meets
/// blocks read from the file, searched at once.
#[test]
fn multi_get_through_entry_directories_matches_a_model() {
    let mut rng = StdRng::seed_from_u64(7);
    let dir = tempfile::tempdir().unwrap();
    let mut o = Options {
        create_if_missing: true,
        write_buffer_size: 256 << 10,
        level0_file_num_compaction_trigger: 2,
        target_file_size_base: 64 << 10,
        max_bytes_for_level_base: 256 << 10,
        ..Options::default()
    };
    o.table.block_size = 1024;
    o.table.filter_bits_per_key = Some(10.0);
    let db = Db::open(o, dir.path()).unwrap();
    let wo = WriteOptions::default();
    let mut model = Model::new();
    let space = 4000;
    let mut snap = None;
    for round in 0..6 {
        for _ in 0..2500 {
            let i = rng.random_range(0..space);
            if rng.random_range(0..10) == 0 {
                db.delete(&wo, &key(i)).unwrap();
                model.remove(&key(i));
            } else {
                let v = format!("{i:05}-{round}-").repeat(rng.random_range(12..20));
                db.put(&wo, &key(i), v.as_bytes()).unwrap();
                model.insert(key(i), v.into_bytes());
            }
        }
        db.flush(&FlushOptions::default()).unwrap();
        if round == 3 {
            snap = Some((db.snapshot().unwrap(), model.clone()));
        }
    }
    let what = db.property("talus.levelstats").unwrap_or_default();
    let ro = ReadOptions::default();
    // Cold: every block comes from the file.
    check_batches(&db, &ro, &model, &mut rng, space, &format!("cold, {what}"));
    // Warm: every key read once more, so every block has its directory.
    for i in 0..space {
        db.get(&ro, &key(i)).unwrap();
    }
    check_batches(&db, &ro, &model, &mut rng, space, &format!("warm, {what}"));
    let (snap, at) = snap.unwrap();
    let ro = ReadOptions {
        snapshot: Some(snap.sequence_number()),
        ..ReadOptions::default()
    };
    check_batches(&db, &ro, &at, &mut rng, space, &format!("snapshot, {what}"));
    db.release_snapshot(snap);
}
