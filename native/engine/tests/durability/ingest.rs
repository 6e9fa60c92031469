//! Ingestion and crashes: a power loss at every mutating file-system call
//! of an ingestion (copy and hard-link modes) leaves, after recovery, all
//! the files in or none, never part of them and never a manifest naming a
//! file that is not whole; an ingestion that returned `Ok` before the
//! crash is there. Module docs of `db::ingest` ("Crash safety").

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use talus::fs::{Crash, FaultFs, FileSystem};
use talus::{Db, IngestExternalFileOptions, Options, ReadOptions, SstFileWriter, WriteOptions};

fn opts(fs: &FaultFs) -> Options {
    Options {
        create_if_missing: true,
        fs: Arc::new(fs.clone()),
        stats_dump_period_sec: 0,
        ..Options::default()
    }
}

fn key(i: u32) -> Vec<u8> {
    format!("k{i:04}").into_bytes()
}

fn write_file(fs: &FaultFs, path: &str, range: std::ops::Range<u32>, tag: &str) {
    let mut w = SstFileWriter::new(&opts(fs));
    w.open(path).unwrap();
    for i in range {
        w.put(&key(i), format!("{tag}{i}").as_bytes()).unwrap();
    }
    w.finish().unwrap();
}

fn contents(db: &Db) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut it = db.iter(&ReadOptions::default()).unwrap();
    it.seek_to_first();
    let mut out = BTreeMap::new();
    while it.valid() {
        out.insert(it.key().to_vec(), it.value().to_vec());
        it.next();
    }
    it.status().unwrap();
    out
}

type Rows = BTreeMap<Vec<u8>, Vec<u8>>;

/// The state before the ingestion (`old`) and after it (`new`).
fn states() -> (Rows, Rows) {
    let old: BTreeMap<_, _> = (0..100).map(|i| (key(i), b"old".to_vec())).collect();
    let mut new = old.clone();
    for i in 0..50 {
        new.insert(key(i), format!("a{i}").into_bytes());
    }
    for i in 50..150 {
        new.insert(key(i), format!("b{i}").into_bytes());
    }
    (old, new)
}

/// Runs an ingestion with a crash point at its `n`-th mutating call.
/// Returns whether the ingestion ran to its end before the crash point.
fn run(n: u64, move_files: bool, seed: u64) -> bool {
    let fs = FaultFs::new(seed);
    fs.create_dir_all(Path::new("/ext")).unwrap();
    let db = Db::open(opts(&fs), "/db").unwrap();
    let sync = WriteOptions {
        sync: true,
        ..WriteOptions::default()
    };
    for i in 0..100 {
        db.put(&sync, &key(i), b"old").unwrap();
    }
    db.flush(&Default::default()).unwrap();
    // Half the old rows in the memtable too: the ingestion flushes first.
    for i in 0..50 {
        db.put(&sync, &key(i), b"old").unwrap();
    }
    write_file(&fs, "/ext/a.sst", 0..50, "a");
    write_file(&fs, "/ext/b.sst", 50..150, "b");
    let io = IngestExternalFileOptions {
        move_files,
        ..Default::default()
    };
    fs.freeze_after(n);
    let r = db.ingest_external_file(&["/ext/a.sst", "/ext/b.sst"], &io);
    let acknowledged = r.is_ok() && !fs.is_frozen();
    let completed = !fs.is_frozen();
    drop(db);
    fs.crash(Crash::PowerLoss);
    let db = Db::open(opts(&fs), "/db")
        .unwrap_or_else(|e| panic!("open after a crash at call {n} (move {move_files}): {e}"));
    let (old, new) = states();
    let got = contents(&db);
    if acknowledged {
        assert_eq!(got, new, "acknowledged ingestion lost at call {n}");
    } else {
        assert!(
            got == old || got == new,
            "crash at call {n} (move {move_files}, result {r:?}): neither all files nor none \
             ({} rows)",
            got.len()
        );
    }
    db.verify_checksum()
        .unwrap_or_else(|e| panic!("after a crash at call {n}: {e}"));
    // Writes after recovery win over the ingested rows.
    db.put(&sync, &key(7), b"later").unwrap();
    assert_eq!(
        db.get(&ReadOptions::default(), &key(7)).unwrap().unwrap(),
        b"later"
    );
    completed
}

#[test]
fn power_loss_at_every_step_of_an_ingestion_leaves_all_files_or_none() {
    for move_files in [false, true] {
        let mut n = 1;
        while !run(n, move_files, n) {
            n += 1;
            assert!(n < 500, "the ingestion never completed");
        }
        assert!(n > 5, "too few crash points: {n}");
    }
}
