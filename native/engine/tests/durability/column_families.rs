//! Column families and crashes: a batch spanning families is one WAL
//! record, so at recovery it is there whole in every family or not at
//! all, wherever the log was cut; and the batches recovered are a prefix.

use std::path::Path;
use std::sync::Arc;

use talus::fs::{Crash, FaultFs, FileSystem};
use talus::{Db, Options, ReadOptions, WriteBatch, WriteOptions};

const FAMILIES: [&str; 4] = ["default", "a", "b", "c"];
const BATCHES: usize = 12;

fn opts(fs: &FaultFs) -> Options {
    Options {
        create_if_missing: true,
        create_missing_column_families: true,
        fs: Arc::new(fs.clone()),
        stats_dump_period_sec: 0,
        ..Options::default()
    }
}

fn open(fs: &FaultFs) -> (Db, Vec<talus::db::ColumnFamilyHandle>) {
    let o = opts(fs);
    let list = FAMILIES
        .iter()
        .map(|n| (n.to_string(), o.clone()))
        .collect();
    Db::open_cf(o, "/db", list).unwrap()
}

/// Writes `BATCHES` batches, batch `i` putting `k{i}` in every family and
/// deleting `k{i-1}` from family `b`, then kills the process (what reached
/// the OS stays). Returns the path of the log holding them.
fn workload(fs: &FaultFs) -> std::path::PathBuf {
    let (db, hs) = open(fs);
    for i in 0..BATCHES {
        let mut b = WriteBatch::new();
        for h in &hs {
            b.put_cf(
                h.id(),
                format!("k{i:02}").as_bytes(),
                format!("v{i}").as_bytes(),
            );
        }
        if i > 0 {
            b.delete_cf(hs[2].id(), format!("k{:02}", i - 1).as_bytes());
        }
        db.write(&WriteOptions::default(), b).unwrap();
    }
    fs.freeze();
    drop(db);
    fs.crash(Crash::ProcessKill);
    // The newest log holding anything (the next log's file, made ahead,
    // is empty).
    let mut logs: Vec<String> = fs
        .list_dir(Path::new("/db"))
        .unwrap()
        .into_iter()
        .filter(|n| n.ends_with(".log"))
        .filter(|n| {
            fs.contents(&Path::new("/db").join(n))
                .is_some_and(|c| !c.is_empty())
        })
        .collect();
    logs.sort();
    Path::new("/db").join(logs.pop().expect("a log"))
}

/// How many batches recovered, checking each is whole in every family.
fn recovered_batches(fs: &FaultFs, at: &str) -> usize {
    let (db, hs) = open(fs);
    let ro = ReadOptions::default();
    let get = |h: &talus::db::ColumnFamilyHandle, i: usize| {
        db.get_cf(&ro, h, format!("k{i:02}").as_bytes()).unwrap()
    };
    let n = (0..BATCHES)
        .take_while(|&i| get(&hs[0], i).is_some())
        .count();
    for i in 0..BATCHES {
        let want = (i < n).then(|| format!("v{i}").into_bytes());
        for (f, h) in hs.iter().enumerate() {
            // Family b keeps only the last batch's key.
            let want = if f == 2 && i + 1 < n {
                None
            } else {
                want.clone()
            };
            assert_eq!(
                get(h, i),
                want,
                "family {} key {i}, {n} batches, {at}",
                FAMILIES[f]
            );
        }
    }
    db.close().unwrap();
    n
}

#[test]
fn a_batch_across_families_is_whole_or_absent_at_every_cut_of_the_log() {
    let fs = FaultFs::new(1);
    let log = workload(&fs);
    let full = fs.contents(&log).unwrap();
    // Cuts after the log's start record: the manifest records it synced,
    // and a log cut shorter than that is damage the open reports.
    let synced = talus::wal::START_RECORD_LEN as usize;
    assert!(synced < full.len() / 4);
    assert_eq!(recovered_batches(&fs, "uncut"), BATCHES);
    let mut last = 0;
    for cut in synced..=full.len() {
        let fs = FaultFs::new(1);
        let log = workload(&fs);
        // The same records (only the database id in the start record differs).
        let data = fs.contents(&log).unwrap();
        assert_eq!(data.len(), full.len(), "the workload writes the same log");
        fs.set_contents(&log, data[..cut].to_vec()).unwrap();
        let n = recovered_batches(&fs, &format!("log cut at {cut} of {}", full.len()));
        assert!(
            n >= last,
            "a longer log recovered fewer batches at cut {cut}"
        );
        last = n;
    }
    assert_eq!(last, BATCHES);
}

/// A flush of one family between the batches, then a power loss: the
/// logs the other families still need are kept, and every synced batch is
/// whole in every family.
#[test]
fn synced_batches_across_families_survive_a_power_loss_after_a_flush_of_one() {
    let fs = FaultFs::new(2);
    let (db, hs) = open(&fs);
    let sync = WriteOptions {
        sync: true,
        ..WriteOptions::default()
    };
    for i in 0..40usize {
        let mut b = WriteBatch::new();
        for h in &hs {
            b.put_cf(h.id(), format!("k{i:02}").as_bytes(), b"v");
        }
        db.write(&sync, b).unwrap();
        if i % 10 == 5 {
            db.flush_cf(&talus::db::FlushOptions::default(), &hs[i / 10 % 4])
                .unwrap();
        }
    }
    fs.freeze();
    drop(db);
    fs.crash(Crash::PowerLoss);
    let (db, hs) = open(&fs);
    for h in &hs {
        for i in 0..40usize {
            assert!(
                db.get_cf(&ReadOptions::default(), h, format!("k{i:02}").as_bytes())
                    .unwrap()
                    .is_some(),
                "family {} key {i}",
                h.name()
            );
        }
    }
}
