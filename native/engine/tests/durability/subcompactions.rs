//! A compaction split into subcompactions under power loss: a crash at
//! every mutating step of a `compact_range` running four subcompactions
//! (their output files written by several threads at once) leaves, after
//! reopen, exactly the acknowledged data, every table passing its
//! checksums, and no table file that the manifest does not name: the
//! outputs are installed by one edit, so the manifest names all of them or
//! none, and the ones it does not name are deleted at open.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use rand::Rng;
use talus::db::CompactRangeOptions;
use talus::fs::{Crash, FaultFs, FileSystem};
use talus::{Db, Options, ReadOptions, WriteOptions};

use crate::common::{rng, seeds};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

fn options(fs: &FaultFs) -> Options {
    let mut o = Options {
        create_if_missing: true,
        fs: Arc::new(fs.clone()),
        stats_dump_period_sec: 0,
        write_buffer_size: 256 << 10,
        target_file_size_base: 8 << 10,
        disable_auto_compactions: true,
        max_subcompactions: 4,
        ..Options::default()
    };
    o.table.block_size = 512;
    o
}

fn key(i: u64) -> Vec<u8> {
    format!("key{i:05}").into_bytes()
}

/// A database at `/db` whose synced, flushed state is four overlapping L0
/// tables with deletes and range deletes; returns it and that state.
fn setup(seed: u64) -> (FaultFs, Db, Model) {
    let fs = FaultFs::new(seed);
    fs.create_dir_all(Path::new("/db")).unwrap();
    let db = Db::open(options(&fs), "/db").unwrap();
    let sync = WriteOptions {
        sync: true,
        ..WriteOptions::default()
    };
    let mut r = rng(seed, 41);
    let mut model = Model::new();
    for round in 0..4u64 {
        for _ in 0..300 {
            let k = key(r.random_range(0..1000));
            if r.random_bool(0.1) {
                db.delete(&sync, &k).unwrap();
                model.remove(&k);
            } else {
                // Random bytes: the tables hold several output files' worth.
                let mut v = format!("r{round}-").into_bytes();
                v.extend((0..r.random_range(20..100)).map(|_| r.random_range(b'a'..=b'z')));
                db.put(&sync, &k, &v).unwrap();
                model.insert(k, v);
            }
        }
        let a = r.random_range(0..900);
        let (b, e) = (key(a), key(a + 60));
        db.delete_range(&sync, &b, &e).unwrap();
        let gone: Vec<Vec<u8>> = model.range(b..e).map(|(k, _)| k.clone()).collect();
        for k in gone {
            model.remove(&k);
        }
        db.flush(&Default::default()).unwrap();
    }
    (fs, db, model)
}

fn contents(db: &Db) -> Model {
    let mut it = db.iter(&ReadOptions::default()).unwrap();
    let mut out = Model::new();
    it.seek_to_first();
    while it.valid() {
        out.insert(it.key().to_vec(), it.value().to_vec());
        it.next();
    }
    it.status().unwrap();
    out
}

fn live_tables(db: &Db) -> u64 {
    (0..7)
        .map(|l| {
            db.int_property(&format!("rocksdb.num-files-at-level{l}"))
                .unwrap_or(0)
        })
        .sum()
}

/// One crash point; `Ok(true)` when the compaction finished before it.
fn crash_at(seed: u64, k: u64, how: Crash, outputs: u64) -> Result<bool, String> {
    let (fs, db, model) = setup(seed);
    fs.freeze_after(k);
    let cro = CompactRangeOptions {
        allow_write_stall: true,
        ..CompactRangeOptions::default()
    };
    let r = db.compact_range_opt(&cro, None, None);
    let finished = r.is_ok() && !fs.is_frozen();
    fs.freeze();
    drop(db);
    fs.crash(how);
    fs.clear_faults();
    let ctx = format!("seed {seed} crash point {k} ({how:?}), compact_range returned {r:?}");
    let db = Db::open(
        Options {
            create_if_missing: false,
            ..options(&fs)
        },
        "/db",
    )
    .map_err(|e| format!("{ctx}: reopen: {e}"))?;
    if contents(&db) != model {
        return Err(format!(
            "{ctx}: the data differs from what was acknowledged"
        ));
    }
    db.verify_checksum()
        .map_err(|e| format!("{ctx}: verify_checksum: {e}"))?;
    // One edit installs every output: the manifest names the four inputs
    // or the whole set of outputs, never a part of them.
    let levels = (
        db.int_property("rocksdb.num-files-at-level0"),
        db.int_property("rocksdb.num-files-at-level6"),
    );
    if levels != (Some(4), Some(0)) && levels != (Some(0), Some(outputs)) {
        return Err(format!(
            "{ctx}: files at L0 and L6 {levels:?}: neither the inputs nor all {outputs} outputs"
        ));
    }
    // Table files the manifest does not name are deleted at open, except
    // those numbered at or past the recovered next file number (open's
    // rule, the same for a compaction of one job): numbers handed out again
    // later, whose files are then created anew.
    let names = fs
        .list_dir(Path::new("/db"))
        .map_err(|e| format!("{ctx}: list: {e}"))?;
    let on_disk = names.iter().filter(|n| n.ends_with(".sst")).count() as u64;
    if on_disk < live_tables(&db) {
        return Err(format!("{ctx}: a table the manifest names is missing"));
    }
    if finished && db.int_property("rocksdb.num-files-at-level0") != Some(0) {
        return Err(format!("{ctx}: a finished compaction left L0 files"));
    }
    Ok(finished)
}

#[test]
fn subcompactions_survive_a_power_loss_at_every_step() {
    for seed in seeds(2) {
        // Without a crash, the compaction does run as several ranges.
        let (fs, db, _) = setup(seed);
        db.compact_range(None, None).unwrap();
        let outputs = db.int_property("rocksdb.num-files-at-level6").unwrap();
        assert!(outputs >= 4, "seed {seed}: {outputs} outputs");
        drop(db);
        let log = String::from_utf8_lossy(&fs.contents(Path::new("/db/LOG")).unwrap()).into_owned();
        assert!(
            log.contains("runs as 4 subcompactions"),
            "seed {seed}: the compaction was not split: {}",
            log.lines()
                .filter(|l| l.contains("ompaction"))
                .collect::<Vec<_>>()
                .join("\n")
        );
        let mut k: u64 = 1;
        loop {
            let how = if k.is_multiple_of(3) {
                Crash::PowerLossRandom(seed * 1000 + k)
            } else {
                Crash::PowerLoss
            };
            match crash_at(seed, k, how, outputs) {
                Ok(true) => break,
                Ok(false) => k += 1,
                Err(e) => panic!("{e}"),
            }
            assert!(k < 5000, "seed {seed}: the compaction never finished");
        }
        eprintln!("seed {seed}: subcompaction crash points 1..{k}");
        // Four ranges of several output files each: dozens of steps.
        assert!(
            k > 20,
            "seed {seed}: only {k} crash points: the test lost its reach"
        );
    }
}
