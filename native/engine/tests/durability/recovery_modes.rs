//! `WalRecoveryMode` as RocksDB documents it, on damaged and torn logs:
//!
//! | mode | torn tail (incomplete last record) | damage in the middle |
//! |---|---|---|
//! | `TolerateCorruptedTailRecords` (default) | dropped, logged | `Corruption` naming the log |
//! | `AbsoluteConsistency` | `Corruption` | `Corruption` |
//! | `PointInTimeRecovery` | dropped; later logs ignored | replay stops there; later logs ignored |
//! | `SkipAnyCorruptedRecords` | dropped | the damaged block skipped, replay goes on |
//!
//! A hole between logs (an older log lost its end, a newer one kept its
//! writes) ends replay in the first and third modes, fails the second, and
//! is replayed across in the fourth.

use std::path::Path;

use talus::db::FlushOptions;
use talus::fs::{FaultFs, FileSystem};
use talus::wal::WalRecoveryMode;
use talus::{Code, Db, Options, ReadOptions};

use crate::common::*;

fn key(i: usize) -> Vec<u8> {
    format!("r{i:04}").into_bytes()
}

fn val(i: usize) -> Vec<u8> {
    let mut v = format!("value-{i}-").into_bytes();
    v.resize(1000, b'v');
    v
}

/// Writes records 0..100 to one log and, when `two_logs`, 100..200 to a
/// second one (the first memtable is switched out but not flushed), then
/// closes. Returns the file system and the logs, oldest first.
fn build(two_logs: bool) -> (FaultFs, Vec<String>) {
    let (fs, opts) = fault_db(21);
    let db = Db::open(opts, "/db").unwrap();
    for i in 0..100 {
        db.put(&wo(false, false), &key(i), &val(i)).unwrap();
    }
    if two_logs {
        db.pause_background_work().unwrap();
        db.flush(&FlushOptions {
            wait: false,
            ..FlushOptions::default()
        })
        .unwrap();
        for i in 100..200 {
            db.put(&wo(false, false), &key(i), &val(i)).unwrap();
        }
    }
    db.close().unwrap();
    let logs = logs(&fs, |len| len > 0);
    assert_eq!(logs.len(), if two_logs { 2 } else { 1 }, "{logs:?}");
    (fs, logs)
}

/// A fresh `FaultFs` (`seed`) with `/db` made, and options opening a
/// database there.
fn fault_db(seed: u64) -> (FaultFs, Options) {
    let fs = FaultFs::new(seed);
    fs.create_dir_all(Path::new("/db")).unwrap();
    let opts = Options {
        create_if_missing: true,
        fs: std::sync::Arc::new(fs.clone()),
        stats_dump_period_sec: 0,
        ..Options::default()
    };
    (fs, opts)
}

/// The log files in /db whose length in bytes passes `keep`, by name.
fn logs(fs: &FaultFs, keep: impl Fn(u64) -> bool) -> Vec<String> {
    let mut v: Vec<String> = fs
        .list_dir(Path::new("/db"))
        .unwrap()
        .into_iter()
        .filter(|n| n.ends_with(".log"))
        .filter(|n| fs.file_size(&Path::new("/db").join(n)).is_ok_and(&keep))
        .collect();
    v.sort();
    v
}

fn open(fs: &FaultFs, mode: WalRecoveryMode) -> talus::Result<Db> {
    Db::open(
        Options {
            fs: std::sync::Arc::new(fs.clone()),
            stats_dump_period_sec: 0,
            wal_recovery_mode: mode,
            ..Options::default()
        },
        "/db",
    )
}

fn edit(fs: &FaultFs, log: &str, f: impl FnOnce(&mut Vec<u8>)) {
    let p = Path::new("/db").join(log);
    let mut b = fs.contents(&p).unwrap();
    f(&mut b);
    fs.set_contents(&p, b).unwrap();
}

/// Which of records `0..n` the database holds (each with its value).
fn present(db: &Db, n: usize) -> Vec<bool> {
    let ro = ReadOptions::default();
    (0..n)
        .map(|i| match db.get(&ro, &key(i)).unwrap() {
            Some(v) => {
                assert_eq!(v, val(i), "record {i} has a wrong value");
                true
            }
            None => false,
        })
        .collect()
}

fn tear(b: &mut Vec<u8>) {
    b.truncate(b.len() - 300); // inside the last record
}

#[expect(
    clippy::ptr_arg,
    reason = "the signature of tear(), which truncates: both are damage functions"
)]
fn damage_middle(b: &mut Vec<u8>) {
    // Record 40 or so: inside the second 32 KiB block.
    b[40 * 1027 + 100] ^= 0x55;
}

fn log_text(fs: &FaultFs) -> String {
    info_log_tail(fs, Path::new("/db"), 10_000)
}

#[test]
fn tolerate_corrupted_tail_records_drops_a_torn_tail_and_fails_on_damage_in_the_middle() {
    let (fs, logs) = build(false);
    edit(&fs, &logs[0], tear);
    let db = open(&fs, WalRecoveryMode::TolerateCorruptedTailRecords).unwrap();
    let p = present(&db, 100);
    assert!(p[..99].iter().all(|&x| x) && !p[99], "{p:?}");
    assert!(log_text(&fs).contains("Dropped torn tail"));
    drop(db);

    let (fs, logs) = build(false);
    edit(&fs, &logs[0], damage_middle);
    let e = open(&fs, WalRecoveryMode::TolerateCorruptedTailRecords).unwrap_err();
    assert_eq!(e.code(), Code::Corruption, "{e}");
    assert!(e.to_string().contains(&logs[0]), "{e}");
}

#[test]
fn absolute_consistency_fails_on_a_torn_tail_too() {
    for damage in [tear as fn(&mut Vec<u8>), damage_middle] {
        let (fs, logs) = build(false);
        edit(&fs, &logs[0], damage);
        let e = open(&fs, WalRecoveryMode::AbsoluteConsistency).unwrap_err();
        assert_eq!(e.code(), Code::Corruption, "{e}");
        assert!(e.to_string().contains(&logs[0]), "{e}");
    }
    // Undamaged logs open fine.
    let (fs, _) = build(true);
    let db = open(&fs, WalRecoveryMode::AbsoluteConsistency).unwrap();
    assert!(present(&db, 200).iter().all(|&x| x));
}

#[test]
fn point_in_time_recovery_stops_at_the_first_damage_and_ignores_later_logs() {
    let (fs, logs) = build(true);
    edit(&fs, &logs[0], damage_middle);
    let db = open(&fs, WalRecoveryMode::PointInTimeRecovery).unwrap();
    let p = present(&db, 200);
    let first_lost = p.iter().position(|&x| !x).unwrap();
    assert!((30..=40).contains(&first_lost), "stopped at {first_lost}");
    assert!(
        p[first_lost..].iter().all(|&x| !x),
        "nothing after the damage, not even from the later log: {p:?}"
    );
    assert!(log_text(&fs).contains("Point-in-time recovery"));
    drop(db);

    // A torn tail in the older log: the newer one is ignored too.
    let (fs, logs) = build(true);
    edit(&fs, &logs[0], tear);
    let db = open(&fs, WalRecoveryMode::PointInTimeRecovery).unwrap();
    let p = present(&db, 200);
    assert!(p[..99].iter().all(|&x| x), "{p:?}");
    assert!(p[99..].iter().all(|&x| !x), "{p:?}");
    drop(db);

    // A torn tail in the newest log: everything before it.
    let (fs, logs) = build(true);
    edit(&fs, &logs[1], tear);
    let db = open(&fs, WalRecoveryMode::PointInTimeRecovery).unwrap();
    let p = present(&db, 200);
    assert!(p[..199].iter().all(|&x| x) && !p[199], "{p:?}");
}

#[test]
fn skip_any_corrupted_records_skips_the_damage_and_keeps_the_rest() {
    let (fs, logs) = build(true);
    edit(&fs, &logs[0], damage_middle);
    let db = open(&fs, WalRecoveryMode::SkipAnyCorruptedRecords).unwrap();
    let p = present(&db, 200);
    let lost = p.iter().filter(|&&x| !x).count();
    assert!(p[..30].iter().all(|&x| x), "before the damage: {p:?}");
    assert!(!p[40], "the damaged record");
    assert!(
        p[70..].iter().all(|&x| x),
        "the blocks after the damaged one: {p:?}"
    );
    assert!(lost <= 40, "lost {lost}");
    assert!(log_text(&fs).contains("Skipping"), "{}", log_text(&fs));
}

/// Regression: the sync of the old WAL at a memtable switch moved to the WAL
/// syncer thread, so a power loss can keep the newer log's unsynced writes
/// and lose the end of the older one. Each log's start record names the
/// sequence number it follows; recovery stops at the hole instead of
/// replaying the newer log across it. The older log is cut at a record
/// boundary too, where it shows no damage at all.
#[test]
fn regression_recovery_stops_at_a_hole_where_an_older_log_lost_its_end() {
    for mode in [
        WalRecoveryMode::TolerateCorruptedTailRecords,
        WalRecoveryMode::PointInTimeRecovery,
    ] {
        for cut in [CutAt::InsideARecord, CutAt::RecordBoundary] {
            let (fs, logs) = build(true);
            let mut kept = 0;
            edit(&fs, &logs[0], |b| kept = cut_log(b, cut));
            let db = open(&fs, mode).unwrap();
            let p = present(&db, 200);
            let first_lost = p.iter().position(|&x| !x).unwrap();
            assert_eq!(first_lost, kept, "{mode:?} {cut:?}: {p:?}");
            assert!(
                p[first_lost..].iter().all(|&x| !x),
                "{mode:?} {cut:?}: a prefix, nothing from the newer log: {p:?}"
            );
            let text = log_text(&fs);
            if cut == CutAt::RecordBoundary || mode == WalRecoveryMode::TolerateCorruptedTailRecords
            {
                assert!(text.contains("Recovery stops at a hole"), "{text}");
            }
        }
    }
    // AbsoluteConsistency promises every write: a hole fails the open.
    let (fs, logs) = build(true);
    edit(&fs, &logs[0], |b| {
        cut_log(b, CutAt::RecordBoundary);
    });
    let e = open(&fs, WalRecoveryMode::AbsoluteConsistency).unwrap_err();
    assert_eq!(e.code(), Code::Corruption, "{e}");
    assert!(e.to_string().contains("hole"), "{e}");
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum CutAt {
    InsideARecord,
    RecordBoundary,
}

/// Cuts a log of `build`'s records after the last whole one of its first
/// block (about 30), or 300 bytes into the next; returns how many
/// whole records (after the start record) it keeps.
fn cut_log(b: &mut Vec<u8>, at: CutAt) -> usize {
    // Walk the fragments of the first 32 KiB block: the start record, then
    // one FULL fragment per record.
    let mut pos = 0usize;
    let mut records = 0usize;
    loop {
        let len = usize::from(u16::from_le_bytes([b[pos + 4], b[pos + 5]]));
        let end = pos + talus::wal::HEADER_LEN + len;
        if end + 1100 > talus::wal::BLOCK_SIZE {
            break;
        }
        pos = end;
        records += 1;
    }
    // `records` counts the start record.
    match at {
        CutAt::RecordBoundary => b.truncate(pos),
        CutAt::InsideARecord => b.truncate(pos + 300),
    }
    records - 1
}

/// Regression: a log record holding a batch of no entries at sequence 0 (a
/// start record is such a batch; a damaged or foreign log can hold one with
/// any number) made replay compute `0 + 0 - 1`: a panic in a debug build,
/// and in a release build a last sequence of `u64::MAX` for the database.
#[test]
fn regression_an_empty_batch_at_sequence_zero_in_a_log_does_not_wrap_the_sequence() {
    use talus::wal::{LogReader, LogWriter, ReadEvent};
    let (fs, logs) = build(false);
    // The log rewritten with that batch first.
    let log = Path::new("/db").join(&logs[0]);
    let scratch = Path::new("/scratch.log");
    let mut w = LogWriter::new(fs.new_writable(scratch, Default::default()).unwrap(), 0);
    w.add_record(&[0u8; talus::write_batch::HEADER_LEN])
        .unwrap();
    let mut r = LogReader::new(fs.new_sequential(&log).unwrap());
    while let ReadEvent::Record { .. } = r.next().unwrap() {
        w.add_record(r.record()).unwrap();
    }
    w.flush().unwrap();
    fs.set_contents(&log, fs.contents(scratch).unwrap())
        .unwrap();
    let db = open(&fs, WalRecoveryMode::TolerateCorruptedTailRecords).unwrap();
    assert!(present(&db, 100).iter().all(|&x| x));
    let last = db.latest_sequence_number();
    assert!(last < 1_000, "last sequence {last}");
    db.put(&wo(false, false), &key(100), &val(100)).unwrap();
    assert!(present(&db, 101).iter().all(|&x| x));
}

#[test]
fn a_crash_leaves_the_next_log_made_ahead_and_the_open_after_it_deletes_it() {
    for crash in [talus::fs::Crash::ProcessKill, talus::fs::Crash::PowerLoss] {
        let (fs, opts) = fault_db(11);
        let db = Db::open(opts.clone(), "/db").unwrap();
        for i in 0..50 {
            db.put(&wo(true, false), &key(i), &val(i)).unwrap();
        }
        db.flush(&FlushOptions::default()).unwrap();
        for i in 50..100 {
            db.put(&wo(true, false), &key(i), &val(i)).unwrap();
        }
        // The only log a running database keeps empty is the next one,
        // made ahead of its switch.
        let empty_logs = |fs: &FaultFs| logs(fs, |len| len == 0);
        // The WAL syncer thread makes the next log after the flush's switch.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while empty_logs(&fs).is_empty() {
            assert!(std::time::Instant::now() < deadline, "no log made ahead");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let ahead = empty_logs(&fs);
        assert_eq!(ahead.len(), 1, "{ahead:?}");
        fs.freeze();
        drop(db);
        fs.crash(crash);
        let db = Db::open(opts, "/db").unwrap();
        let ro = ReadOptions::default();
        for i in 0..100 {
            assert_eq!(
                db.get(&ro, &key(i)).unwrap(),
                Some(val(i)),
                "{crash:?} key {i}"
            );
        }
        let logs = logs(&fs, |_| true);
        assert!(
            !logs.contains(&ahead[0]),
            "{crash:?}: {} kept: {logs:?}",
            ahead[0]
        );
    }
}
