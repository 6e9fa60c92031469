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
    build_then(two_logs, End::Close)
}

/// How [`build_then`] ends the database.
#[derive(Clone, Copy, Debug, PartialEq)]
enum End {
    /// A clean close: the manifest records every log, closed ones whole.
    Close,
    /// A process kill: the manifest records what the edits before it did
    /// (here: the first log, at the size of its start record).
    Kill,
}

fn build_then(two_logs: bool, end: End) -> (FaultFs, Vec<String>) {
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
    match end {
        End::Close => db.close().unwrap(),
        End::Kill => {
            fs.freeze();
            drop(db);
            fs.crash(talus::fs::Crash::ProcessKill);
        }
    }
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
/// boundary too, where it shows no damage at all. The database was killed,
/// not closed: the manifest records the older log only at the size of its
/// start record (what a power loss leaves is what was synced), and the
/// newer log, not replayed, is kept as `*.unreplayed`.
#[test]
fn regression_recovery_stops_at_a_hole_where_an_older_log_lost_its_end() {
    for mode in [
        WalRecoveryMode::TolerateCorruptedTailRecords,
        WalRecoveryMode::PointInTimeRecovery,
    ] {
        for cut in [CutAt::InsideARecord, CutAt::RecordBoundary] {
            let (fs, logs) = build_then(true, End::Kill);
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
            let kept = format!("{}.unreplayed", logs[1]);
            assert!(
                fs.exists(&Path::new("/db").join(&kept)),
                "{mode:?} {cut:?}: the newer log is kept: {:?}",
                fs.list_dir(Path::new("/db")).unwrap()
            );
        }
    }
    // AbsoluteConsistency promises every write: a hole fails the open.
    let (fs, logs) = build_then(true, End::Kill);
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
    // The log rewritten with that batch right after its start record.
    let log = Path::new("/db").join(&logs[0]);
    let scratch = Path::new("/scratch.log");
    let mut w = LogWriter::new(fs.new_writable(scratch, Default::default()).unwrap(), 0);
    let mut r = LogReader::new(fs.new_sequential(&log).unwrap());
    let mut first = true;
    while let ReadEvent::Record { .. } = r.next().unwrap() {
        w.add_record(r.record()).unwrap();
        if std::mem::take(&mut first) {
            w.add_record(&[0u8; talus::write_batch::HEADER_LEN])
                .unwrap();
        }
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

/// 1,500 synced writes, 500 in each of three logs (the memtables are
/// switched out, not flushed: background work is paused), then `end`.
/// Returns the file system and the three logs, oldest first.
fn three_synced_logs(end: End) -> (FaultFs, Vec<String>) {
    let (fs, mut opts) = fault_db(31);
    opts.max_write_buffer_number = 4;
    let db = Db::open(opts, "/db").unwrap();
    db.pause_background_work().unwrap();
    for i in 0..1500 {
        if i == 500 || i == 1000 {
            db.flush(&FlushOptions {
                wait: false,
                ..FlushOptions::default()
            })
            .unwrap();
        }
        db.put(&wo(true, false), &key(i), &val(i)).unwrap();
    }
    match end {
        End::Close => db.close().unwrap(),
        End::Kill => {
            fs.freeze();
            drop(db);
            fs.crash(talus::fs::Crash::ProcessKill);
        }
    }
    let logs = logs(&fs, |len| len > 0);
    assert_eq!(logs.len(), 3, "{logs:?}");
    (fs, logs)
}

/// Every file of /db but the info logs, with its bytes.
fn files(fs: &FaultFs) -> std::collections::BTreeMap<String, Vec<u8>> {
    fs.list_dir(Path::new("/db"))
        .unwrap()
        .into_iter()
        .filter(|n| !n.starts_with("LOG"))
        .map(|n| {
            let b = fs.contents(&Path::new("/db").join(&n)).unwrap();
            (n, b)
        })
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum LogDamage {
    Deleted,
    Truncated,
}

/// Deletes (moves aside) or halves log `name`; returns how to undo it.
fn damage_log(fs: &FaultFs, name: &str, how: LogDamage) -> impl FnOnce() + use<> {
    let path = Path::new("/db").join(name);
    let saved = fs.contents(&path).unwrap();
    let aside = Path::new("/aside.log");
    match how {
        LogDamage::Deleted => fs.rename(&path, aside).unwrap(),
        LogDamage::Truncated => fs
            .set_contents(&path, saved[..saved.len() / 2].to_vec())
            .unwrap(),
    }
    let fs = fs.clone();
    move || match how {
        LogDamage::Deleted => fs.rename(aside, &path).unwrap(),
        LogDamage::Truncated => fs.set_contents(&path, saved).unwrap(),
    }
}

/// Regression (issue 30): deleting or truncating a log that is not the
/// newest, while the database was closed (or after a kill), made open
/// succeed without a word, drop every write from that log on — 1,000 of
/// these 1,500 synced, acknowledged writes, those of the intact newest log
/// included — and delete the later logs, which the `LOG` called unsynced:
/// the hole rule (written for the unsynced tails a power loss leaves) could
/// not tell a lost file from one. The manifest now records every live log,
/// closed ones with their size; under the default mode and
/// `AbsoluteConsistency` the open fails with `Corruption` naming the log,
/// and a failed open changes nothing on disk: with the log put back, every
/// write is there.
#[test]
fn regression_a_missing_or_truncated_log_in_the_middle_fails_open_instead_of_dropping_synced_writes()
 {
    for end in [End::Close, End::Kill] {
        for how in [LogDamage::Deleted, LogDamage::Truncated] {
            let (fs, logs) = three_synced_logs(end);
            let undo = damage_log(&fs, &logs[1], how);
            let before = files(&fs);
            for mode in [
                WalRecoveryMode::TolerateCorruptedTailRecords,
                WalRecoveryMode::AbsoluteConsistency,
            ] {
                let e = open(&fs, mode).unwrap_err();
                assert_eq!(e.code(), Code::Corruption, "{end:?} {how:?} {mode:?}: {e}");
                let msg = e.to_string();
                assert!(msg.contains(&logs[1]), "{msg}");
                assert!(
                    msg.contains(match how {
                        LogDamage::Deleted => "missing",
                        LogDamage::Truncated => "shorter",
                    }),
                    "{msg}"
                );
                assert!(
                    files(&fs) == before,
                    "{end:?} {how:?} {mode:?}: a failed open changed the directory"
                );
            }
            undo();
            let db = open(&fs, WalRecoveryMode::TolerateCorruptedTailRecords).unwrap();
            assert!(present(&db, 1500).iter().all(|&x| x), "{end:?} {how:?}");
        }
    }
}

/// The same damage in the modes that trade writes for an open: point-in-
/// time recovery keeps the writes before the damaged log (and a truncated
/// log as far as it goes) and nothing after; salvage skips the damage and
/// keeps the rest; with `paranoid_checks` off the default mode keeps the
/// prefix. None of them deletes a log it did not replay to its end: those
/// are kept as `*.unreplayed`.
#[test]
fn a_missing_or_truncated_log_in_point_in_time_salvage_and_non_paranoid_recovery() {
    for how in [LogDamage::Deleted, LogDamage::Truncated] {
        for (mode, paranoid) in [
            (WalRecoveryMode::PointInTimeRecovery, true),
            (WalRecoveryMode::SkipAnyCorruptedRecords, true),
            (WalRecoveryMode::TolerateCorruptedTailRecords, false),
        ] {
            let ctx = format!("{how:?} {mode:?} paranoid {paranoid}");
            let (fs, logs) = three_synced_logs(End::Close);
            let _undo = damage_log(&fs, &logs[1], how);
            let db = Db::open(
                Options {
                    fs: std::sync::Arc::new(fs.clone()),
                    stats_dump_period_sec: 0,
                    wal_recovery_mode: mode,
                    paranoid_checks: paranoid,
                    ..Options::default()
                },
                "/db",
            )
            .unwrap_or_else(|e| panic!("{ctx}: {e}"));
            let p = present(&db, 1500);
            assert!(p[..500].iter().all(|&x| x), "{ctx}: the first log");
            let middle = p[500..1000].iter().filter(|&&x| x).count();
            match how {
                LogDamage::Deleted => assert_eq!(middle, 0, "{ctx}"),
                // Half of the log survives: about 250 records.
                LogDamage::Truncated => {
                    assert!((200..300).contains(&middle), "{ctx}: {middle}");
                    assert!(p[500..500 + middle].iter().all(|&x| x), "{ctx}: a prefix");
                }
            }
            let newest = p[1000..].iter().filter(|&&x| x).count();
            if mode == WalRecoveryMode::SkipAnyCorruptedRecords {
                assert_eq!(newest, 500, "{ctx}: salvage keeps the intact log");
            } else {
                assert_eq!(newest, 0, "{ctx}: nothing after the damage");
                let kept = format!("{}.unreplayed", logs[2]);
                assert!(
                    fs.exists(&Path::new("/db").join(&kept)),
                    "{ctx}: {kept} kept: {:?}",
                    fs.list_dir(Path::new("/db")).unwrap()
                );
            }
            assert!(log_text(&fs).contains(&logs[1]), "{ctx}: the LOG names it");
            drop(db);
            // The next open (default mode) finds a consistent database.
            let db = open(&fs, WalRecoveryMode::TolerateCorruptedTailRecords)
                .unwrap_or_else(|e| panic!("{ctx}: reopen: {e}"));
            assert_eq!(present(&db, 1500), p, "{ctx}: reopen");
        }
    }
}

/// The newest log, deleted or truncated below what was synced while the
/// database was closed, fails the open too: the manifest records it (the
/// clean close records its synced size). Cut above that size it is the
/// unsynced tail a power loss leaves, and its whole records are kept.
#[test]
fn a_missing_or_truncated_newest_log_fails_open_when_the_manifest_recorded_it() {
    for how in [LogDamage::Deleted, LogDamage::Truncated] {
        let (fs, logs) = three_synced_logs(End::Close);
        let _undo = damage_log(&fs, &logs[2], how);
        let e = open(&fs, WalRecoveryMode::TolerateCorruptedTailRecords).unwrap_err();
        assert_eq!(e.code(), Code::Corruption, "{how:?}: {e}");
        assert!(e.to_string().contains(&logs[2]), "{e}");
    }
    // Unsynced writes past the recorded size: a tail cut there opens.
    let (fs, opts) = fault_db(32);
    let db = Db::open(opts, "/db").unwrap();
    for i in 0..100 {
        db.put(&wo(i < 50, false), &key(i), &val(i)).unwrap();
    }
    db.close().unwrap();
    let log = logs(&fs, |len| len > 0).pop().unwrap();
    // Record offsets: the start record, then write i at index i + 1.
    let mut offsets = Vec::new();
    let mut r =
        talus::wal::LogReader::new(fs.new_sequential(&Path::new("/db").join(&log)).unwrap());
    while let talus::wal::ReadEvent::Record { offset } = r.next().unwrap() {
        offsets.push(offset as usize);
    }
    edit(&fs, &log, |b| b.truncate(offsets[81] + 300));
    let db = open(&fs, WalRecoveryMode::TolerateCorruptedTailRecords).unwrap();
    let p = present(&db, 100);
    assert!(p[..80].iter().all(|&x| x) && !p[80], "{p:?}");
}

/// A database written before database ids, WAL owners, table bindings and
/// WAL tracking (a manifest of `new_file` records and no id, a table
/// without the binding properties, a log whose start record is a bare
/// empty batch, no `IDENTITY`) opens with everything: its log is taken as
/// its own and replayed, it gets an id (in the manifest and `IDENTITY`),
/// and it opens again after that as a database with one.
#[test]
fn a_database_written_before_ids_opens_with_everything_and_gets_an_id() {
    use std::sync::Arc;
    use talus::key::{ValueKind, make_internal_key};
    use talus::table::{TableBuildOptions, TableBuilder};
    use talus::version::{COMPARATOR_NAME, FileMetaData, VersionEdit};
    use talus::wal::LogWriter;

    let fs = FaultFs::new(50);
    let dir = Path::new("/db");
    fs.create_dir_all(dir).unwrap();
    // Table #5: t000..t099 at sequences 1..100, no binding properties.
    let mut b = TableBuilder::new(
        fs.new_writable(&dir.join("000005.sst"), Default::default())
            .unwrap(),
        TableBuildOptions::default(),
    );
    for i in 0..100u64 {
        let k = make_internal_key(format!("t{i:03}").as_bytes(), i + 1, ValueKind::Value);
        b.add(&k, format!("table-{i}").as_bytes()).unwrap();
    }
    let p = b.finish().unwrap();
    assert_eq!(p.db_id, None);
    let table = FileMetaData {
        number: 5,
        file_size: p.file_size,
        smallest: p.smallest_key.clone(),
        largest: p.largest_key.clone(),
        smallest_seq: p.smallest_seqno,
        largest_seq: p.largest_seqno,
        num_entries: p.num_entries,
        num_deletions: p.num_deletions,
        raw_key_size: p.raw_key_size,
        raw_value_size: p.raw_value_size,
        creation_time: p.creation_time,
        // Recorded before checksums: a `new_file` record.
        file_checksum: None,
        ..FileMetaData::default()
    };
    let mut edit = VersionEdit {
        comparator: Some(COMPARATOR_NAME.into()),
        log_number: Some(6),
        prev_log_number: Some(0),
        next_file_number: Some(8),
        last_sequence: Some(100),
        ..VersionEdit::default()
    };
    edit.add_file(0, Arc::new(table));
    let mut rec = Vec::new();
    edit.encode(&mut rec);
    let mut m = LogWriter::new(
        fs.new_writable(&dir.join("MANIFEST-000001"), Default::default())
            .unwrap(),
        1,
    );
    m.add_record(&rec).unwrap();
    m.sync().unwrap();
    let mut c = fs
        .new_writable(&dir.join("CURRENT"), Default::default())
        .unwrap();
    c.append(b"MANIFEST-000001\n").unwrap();
    c.sync().unwrap();
    // Log #6: the bare empty batch at sequence 101, then w000..w049.
    let mut l = LogWriter::new(
        fs.new_writable(&dir.join("000006.log"), Default::default())
            .unwrap(),
        6,
    );
    let mut start = talus::WriteBatch::new();
    start.set_sequence(101);
    l.add_record(start.data()).unwrap();
    for i in 0..50u64 {
        let mut w = talus::WriteBatch::new();
        w.put(format!("w{i:03}").as_bytes(), format!("log-{i}").as_bytes());
        w.set_sequence(101 + i);
        l.add_record(w.data()).unwrap();
    }
    l.sync().unwrap();

    let check = |db: &Db| {
        let ro = ReadOptions::default();
        for i in 0..100 {
            let v = db.get(&ro, format!("t{i:03}").as_bytes()).unwrap();
            assert_eq!(v.as_deref(), Some(format!("table-{i}").as_bytes()));
        }
        for i in 0..50 {
            let v = db.get(&ro, format!("w{i:03}").as_bytes()).unwrap();
            assert_eq!(v.as_deref(), Some(format!("log-{i}").as_bytes()));
        }
        db.verify_checksum().unwrap();
    };
    let opts = Options {
        fs: Arc::new(fs.clone()),
        stats_dump_period_sec: 0,
        ..Options::default()
    };
    let db = Db::open(opts.clone(), "/db").unwrap();
    check(&db);
    db.put(&wo(true, false), b"after", b"x").unwrap();
    drop(db);
    let id = String::from_utf8(fs.contents(&dir.join("IDENTITY")).unwrap()).unwrap();
    assert!(talus::identity::DbId::parse(&id).is_some(), "{id:?}");
    assert!(
        !fs.exists(&dir.join("000006.log")),
        "the old log was replayed and deleted"
    );
    let db = Db::open(opts.clone(), "/db").unwrap();
    check(&db);
    assert_eq!(
        db.get(&ReadOptions::default(), b"after")
            .unwrap()
            .as_deref(),
        Some(&b"x"[..])
    );
    assert_eq!(
        String::from_utf8(fs.contents(&dir.join("IDENTITY")).unwrap()).unwrap(),
        id,
        "the id is kept"
    );
    drop(db);
    // The manifest holds the id too (it is the authority): with `IDENTITY`
    // lost, the next open writes the same id back.
    fs.remove_file(&dir.join("IDENTITY")).unwrap();
    let db = Db::open(opts.clone(), "/db").unwrap();
    check(&db);
    assert_eq!(
        String::from_utf8(fs.contents(&dir.join("IDENTITY")).unwrap()).unwrap(),
        id,
        "the manifest's id"
    );
}
