//! IO errors: every failure point of writes, flushes, compactions and
//! manifest updates leaves the database either working or read-only with a
//! clear error (counted by `rocksdb.background-errors`); `resume()` after
//! the fault clears brings writes back; nothing acknowledged is lost, also
//! across a crash right after the failure.

use std::collections::BTreeMap;
use std::path::Path;

use talus::fs::{Crash, FaultError, FaultFs, FaultOp, FaultRule, FileSystem};
use talus::{Code, Db, Options, ReadOptions, SubCode};

use crate::common::*;

fn small_options(fs: &FaultFs) -> Options {
    let mut o = Options {
        create_if_missing: true,
        fs: std::sync::Arc::new(fs.clone()),
        stats_dump_period_sec: 0,
        write_buffer_size: 64 << 10,
        level0_file_num_compaction_trigger: 2,
        target_file_size_base: 64 << 10,
        max_bytes_for_level_base: 256 << 10,
        ..Options::default()
    };
    o.table.block_size = 1024;
    o
}

fn key(i: usize) -> Vec<u8> {
    format!("k{i:05}").into_bytes()
}

fn val(i: usize) -> Vec<u8> {
    let mut v = format!("value-{i}-").into_bytes();
    v.resize(700 + i % 300, b'a' + (i % 26) as u8);
    v
}

#[derive(Clone, Copy, Debug)]
enum Step {
    Put(usize, bool),
    Delete(usize),
    Flush,
    Compact,
}

/// The fixed workload: 400 puts of distinct keys (every 8th synced), a
/// delete of an older key every 10th step, two flushes and a compaction.
fn workload() -> Vec<Step> {
    let mut steps = Vec::new();
    for i in 0..400 {
        steps.push(Step::Put(i, i % 8 == 7));
        if i % 10 == 9 {
            steps.push(Step::Delete(i - 7));
        }
        if i == 120 || i == 260 {
            steps.push(Step::Flush);
        }
        if i == 330 {
            steps.push(Step::Compact);
        }
    }
    steps
}

/// Allowed values per key: an acknowledged step leaves one, a failed step
/// leaves the old and the new.
#[derive(Default)]
struct Expect(BTreeMap<Vec<u8>, Vec<Option<Vec<u8>>>>);

impl Expect {
    fn record(&mut self, k: Vec<u8>, v: Option<Vec<u8>>, acked: bool) {
        let e = self.0.entry(k).or_insert_with(|| vec![None]);
        if acked {
            *e = vec![v];
        } else if !e.contains(&v) {
            e.push(v);
        }
    }

    fn check(&self, db: &Db, what: &str) -> Result<(), String> {
        let ro = ReadOptions::default();
        for (k, allowed) in &self.0 {
            let got = db
                .get(&ro, k)
                .map_err(|e| format!("{what}: get {}: {e}", show(k)))?;
            if !allowed.contains(&got) {
                return Err(format!(
                    "{what}: {} is {:?}, allowed {:?}",
                    show(k),
                    got.as_deref().map(show),
                    allowed
                        .iter()
                        .map(|v| v.as_deref().map(show))
                        .collect::<Vec<_>>()
                ));
            }
        }
        Ok(())
    }
}

/// Crashes the process holding `db` as `how` says, reopens the database
/// and checks it against `exp`; returns the reopened database.
fn crash_reopen_check(fs: &FaultFs, db: Db, opts: Options, how: Crash, exp: &Expect) -> Db {
    fs.freeze();
    drop(db);
    fs.crash(how);
    let db = Db::open(opts, "/db").unwrap();
    exp.check(&db, &format!("after {how:?}")).unwrap();
    db
}

fn run_step(db: &Db, s: Step, exp: &mut Expect) -> talus::Result<()> {
    let r = match s {
        Step::Put(i, sync) => db.put(&wo(sync, false), &key(i), &val(i)),
        Step::Delete(i) => db.delete(&wo(false, false), &key(i)),
        Step::Flush => flush(db),
        Step::Compact => db.compact_range(None, None),
    };
    match s {
        Step::Put(i, _) => exp.record(key(i), Some(val(i)), r.is_ok()),
        Step::Delete(i) => exp.record(key(i), None, r.is_ok()),
        _ => {}
    }
    r
}

/// Mutating calls the workload makes after open, without faults.
fn count_calls() -> u64 {
    let fs = FaultFs::new(0);
    fs.create_dir_all(Path::new("/db")).unwrap();
    let db = Db::open(small_options(&fs), "/db").unwrap();
    let before = fs.mutations();
    let mut exp = Expect::default();
    for s in workload() {
        run_step(&db, s, &mut exp).unwrap();
    }
    db.wait_for_compactions().unwrap();
    fs.mutations() - before
}

/// After the fault at mutating call `k`: what happens next.
#[derive(Clone, Copy, Debug, PartialEq)]
enum After {
    /// Clear the fault, `resume()`, finish the workload, close, reopen.
    Resume,
    /// Kill the process at the first failed call, reopen.
    Kill,
    /// The disk stays full (ENOSPC on every mutating call from the fault
    /// on): `resume()` must fail with `NoSpace` and leave the database
    /// read-only; then as `Resume`.
    ResumeWhileFull,
}

fn rule_for(k: u64) -> FaultRule {
    let mut r = FaultRule::new(&FaultOp::MUTATIONS).skip(k - 1);
    r = r.error(if k.is_multiple_of(2) {
        FaultError::Eio
    } else {
        FaultError::Enospc
    });
    if k.is_multiple_of(3) {
        r = r.partial();
    }
    if k.is_multiple_of(4) {
        // A transient fault: the calls after it (deletions, retries) work.
        r = r.times(1);
    }
    r
}

fn run_point(k: u64, after: After) -> Result<(), String> {
    let fs = FaultFs::new(k);
    fs.create_dir_all(Path::new("/db")).unwrap();
    let opts = small_options(&fs);
    let db = Db::open(opts.clone(), "/db").map_err(|e| format!("open: {e}"))?;
    // Mostly a fault that persists (a full or failing disk) until cleared.
    fs.inject(if after == After::ResumeWhileFull {
        FaultRule::new(&FaultOp::MUTATIONS)
            .skip(k - 1)
            .error(FaultError::Enospc)
    } else {
        rule_for(k)
    });
    let mut exp = Expect::default();
    let steps = workload();
    let mut failed_at = None;
    for (n, &s) in steps.iter().enumerate() {
        if failed_at.is_some() {
            run_step(&db, s, &mut exp).map_err(|e| format!("step {n} {s:?} after resume: {e}"))?;
            continue;
        }
        let Err(e) = run_step(&db, s, &mut exp) else {
            continue;
        };
        failed_at = Some(n);
        if e.code() != Code::IoError || !e.to_string().contains("injected") {
            return Err(format!(
                "step {n} {s:?} failed with an unexpected error: {e}"
            ));
        }
        if (k % 2 == 1 || after == After::ResumeWhileFull) && e.subcode() != SubCode::NoSpace {
            return Err(format!("ENOSPC lost its subcode: {e}"));
        }
        let count = db.int_property("rocksdb.background-errors").unwrap_or(0);
        if count == 0 {
            return Err(format!("step {n}: {e} but rocksdb.background-errors is 0"));
        }
        // Read-only: writes fail with the latched error, reads work.
        let w = db.put(&wo(false, false), b"probe", b"x");
        if w.is_ok() {
            return Err(format!("a write after the failure ({e}) succeeded"));
        }
        exp.check(&db, "read-only state")?;
        if after == After::Kill {
            fs.freeze();
            drop(db);
            fs.crash(Crash::ProcessKill);
            fs.clear_faults();
            let db = Db::open(opts.clone(), "/db")
                .map_err(|e| format!("open after a kill at the failure: {e}"))?;
            exp.check(&db, "after a kill at the failure")?;
            db.verify_checksum().map_err(|e| format!("verify: {e}"))?;
            return Ok(());
        }
        if after == After::ResumeWhileFull {
            // Every step of resume() writes (at least its manifest record),
            // so on a disk that is still full it cannot succeed.
            match db.resume() {
                Ok(()) => return Err(format!("resume() returned Ok on a full disk after {e}")),
                Err(r) if r.subcode() != SubCode::NoSpace => {
                    return Err(format!("resume() on a full disk: {r}, not NoSpace"));
                }
                Err(_) => {}
            }
            if db.put(&wo(false, false), b"probe", b"x").is_ok() {
                return Err("a write after a failed resume() succeeded".into());
            }
            exp.check(&db, "after a failed resume")?;
        }
        fs.clear_faults();
        db.resume()
            .map_err(|e| format!("resume after {e}: failed"))?;
        db.put(&wo(true, false), b"probe", b"x")
            .map_err(|e| format!("write after resume: {e}"))?;
        exp.record(b"probe".to_vec(), Some(b"x".to_vec()), true);
    }
    fs.clear_faults();
    // A fault that hit only background work shows up here, if at all.
    if db.wait_for_compactions().is_err() {
        db.resume().map_err(|e| format!("resume at the end: {e}"))?;
    }
    exp.check(&db, "end of workload")?;
    db.close().map_err(|e| format!("close: {e}"))?;
    let db = Db::open(opts, "/db").map_err(|e| format!("reopen: {e}"))?;
    exp.check(&db, "after reopen")?;
    db.verify_checksum().map_err(|e| format!("verify: {e}"))?;
    Ok(())
}

fn sweep(after: After) {
    let total = count_calls();
    // CI: about 150 points spread over the run; TALUS_IO_STRIDE=1 for all.
    let stride = std::env::var("TALUS_IO_STRIDE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or((total / 150).max(1));
    let mut failures = Vec::new();
    let mut points = 0;
    // TALUS_IO_POINT=k runs that failure point alone (to study one failure).
    let only: Option<u64> = std::env::var("TALUS_IO_POINT")
        .ok()
        .and_then(|s| s.parse().ok());
    for k in (1..=total).step_by(stride as usize) {
        if only.is_some_and(|p| p != k) {
            continue;
        }
        points += 1;
        let r = std::panic::catch_unwind(|| run_point(k, after))
            .unwrap_or_else(|p| Err(format!("panicked: {}", panic_message(&p))));
        if let Err(e) = r {
            eprintln!("io-errors {after:?}: fault at mutating call {k} of {total}: {e}");
            failures.push(k);
            if failures.len() >= 5 {
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "failure points that broke a promise: {failures:?}"
    );
    eprintln!("io-errors {after:?}: {points} failure points of {total} mutating calls, 0 failures");
}

#[test]
fn every_failure_point_stops_writes_and_resume_brings_them_back() {
    sweep(After::Resume);
}

/// `resume()` reports what it could not do: while the disk is full it
/// fails with `NoSpace` (its memtable switch, flush or manifest record
/// fails) and the database stays read-only with nothing lost. An `Ok` on a
/// nearly full disk means its writes fitted, e.g. in the space a failed
/// compaction gave back by deleting its partial output.
#[test]
fn resume_on_a_disk_that_is_still_full_fails_with_no_space() {
    sweep(After::ResumeWhileFull);
}

#[test]
fn a_kill_right_after_any_failure_loses_nothing_acknowledged() {
    sweep(After::Kill);
}

/// Writes 6 L0 tables with automatic compactions off.
fn six_tables(fs: &FaultFs) -> (Db, Options, Expect) {
    fs.create_dir_all(Path::new("/db")).unwrap();
    let opts = Options {
        disable_auto_compactions: true,
        ..small_options(fs)
    };
    let db = Db::open(opts.clone(), "/db").unwrap();
    let mut exp = Expect::default();
    for t in 0..6 {
        for i in 0..60 {
            run_step(&db, Step::Put(t * 50 + i, false), &mut exp).unwrap();
        }
        flush(&db).unwrap();
    }
    (db, opts, exp)
}

#[test]
fn enospc_during_compaction_corrupts_nothing_and_resume_finishes_it() {
    let fs = FaultFs::new(1);
    let (db, opts, exp) = six_tables(&fs);
    fs.inject(
        FaultRule::new(&[FaultOp::Write])
            .path(".sst")
            .skip(20)
            .error(FaultError::Enospc),
    );
    let e = db.compact_range(None, None).unwrap_err();
    assert_eq!(e.subcode(), SubCode::NoSpace, "{e}");
    assert_eq!(db.int_property("rocksdb.num-files-at-level0"), Some(6));
    exp.check(&db, "after ENOSPC").unwrap();
    db.verify_checksum().unwrap();
    // Still full: resume has nothing to flush, so it succeeds, but the
    // compaction fails again and latches again.
    let e = db.compact_range(None, None).unwrap_err();
    assert_eq!(e.subcode(), SubCode::NoSpace, "{e}");
    db.resume().unwrap();
    assert_eq!(
        db.compact_range(None, None).unwrap_err().subcode(),
        SubCode::NoSpace
    );
    fs.clear_faults();
    db.resume().unwrap();
    db.compact_range(None, None).unwrap();
    assert_eq!(db.int_property("rocksdb.num-files-at-level0"), Some(0));
    exp.check(&db, "after the compaction").unwrap();
    drop(db);
    let db = Db::open(opts, "/db").unwrap();
    exp.check(&db, "after reopen").unwrap();
    db.verify_checksum().unwrap();
    // The orphans of the failed compactions were deleted.
    let live: usize = db.int_property("rocksdb.num-files-at-level1").unwrap_or(0) as usize
        + (1..7)
            .map(|l| {
                db.int_property(&format!("rocksdb.num-files-at-level{l}"))
                    .unwrap_or(0) as usize
            })
            .sum::<usize>()
        - db.int_property("rocksdb.num-files-at-level1").unwrap_or(0) as usize;
    let ssts = fs
        .list_dir(Path::new("/db"))
        .unwrap()
        .iter()
        .filter(|n| n.ends_with(".sst"))
        .count();
    assert_eq!(ssts, live, "{:?}", fs.list_dir(Path::new("/db")));
}

/// Regression: a manifest sync that failed after the edit reached the OS
/// left an edit naming the flushed table, and the failed flush deleted that
/// table; after a process kill the manifest named a missing file and the
/// database would not open.
#[test]
fn regression_failed_manifest_sync_keeps_the_table_the_edit_names() {
    let fs = FaultFs::new(3);
    let (db, opts, mut exp) = six_tables(&fs);
    for i in 0..30 {
        run_step(&db, Step::Put(1000 + i, false), &mut exp).unwrap();
    }
    fs.inject(FaultRule::new(&[FaultOp::Sync]).path("MANIFEST").times(1));
    let e = flush(&db).unwrap_err();
    assert_eq!(e.code(), Code::IoError, "{e}");
    crash_reopen_check(&fs, db, opts, Crash::ProcessKill, &exp)
        .verify_checksum()
        .unwrap();
}

/// Regression: the same for a compaction whose manifest sync failed: its
/// outputs were deleted while the edit that names them could be on disk.
#[test]
fn regression_failed_manifest_sync_keeps_compaction_outputs() {
    let fs = FaultFs::new(4);
    let (db, opts, exp) = six_tables(&fs);
    fs.inject(FaultRule::new(&[FaultOp::Sync]).path("MANIFEST").times(1));
    let e = db.compact_range(None, None).unwrap_err();
    assert_eq!(e.code(), Code::IoError, "{e}");
    crash_reopen_check(&fs, db, opts, Crash::ProcessKill, &exp)
        .verify_checksum()
        .unwrap();
}

#[test]
fn a_failed_wal_sync_stops_writes_until_resume_switches_the_wal() {
    let fs = FaultFs::new(5);
    fs.create_dir_all(Path::new("/db")).unwrap();
    let opts = small_options(&fs);
    let db = Db::open(opts.clone(), "/db").unwrap();
    let mut exp = Expect::default();
    run_step(&db, Step::Put(1, true), &mut exp).unwrap();
    fs.inject(FaultRule::new(&[FaultOp::Sync]).path(".log").times(1));
    let e = db.put(&wo(true, false), &key(2), &val(2)).unwrap_err();
    exp.record(key(2), Some(val(2)), false);
    assert!(e.to_string().contains(".log"), "{e}");
    // The write was not acknowledged and is not visible.
    assert_eq!(db.get(&ReadOptions::default(), &key(2)).unwrap(), None);
    // Writes, flushes and WAL syncs fail with the latched error, even with the fault gone.
    assert_eq!(db.put(&wo(false, false), &key(3), b"x").unwrap_err(), e);
    assert_eq!(flush(&db).unwrap_err(), e);
    assert_eq!(db.flush_wal(true).unwrap_err(), e);
    assert_eq!(db.int_property("rocksdb.background-errors"), Some(1));
    let logs = |fs: &FaultFs| -> Vec<String> {
        fs.list_dir(Path::new("/db"))
            .unwrap()
            .into_iter()
            .filter(|n| n.ends_with(".log"))
            .collect()
    };
    let before = logs(&fs);
    db.resume().unwrap();
    assert_ne!(logs(&fs), before, "resume() starts a new WAL");
    run_step(&db, Step::Put(4, true), &mut exp).unwrap();
    exp.check(&db, "after resume").unwrap();
    // A power loss now keeps everything acknowledged.
    crash_reopen_check(&fs, db, opts, Crash::PowerLoss, &exp);
}

/// Regression (power-loss seed 1672, found while issue 30 was fixed): the
/// log `resume()` starts after a failed WAL write begins one past every
/// sequence number handed out (the failed group's included), but the next
/// switch started its log one past the last *logged* write, below that:
/// with no logged write in between (here a write without the WAL), a crash
/// before the flush moved the log number past both left two logs whose
/// starts went backwards, and every open failed with `Corruption`.
#[test]
fn regression_the_log_after_a_resumed_wal_failure_does_not_start_behind_the_log_resume_started() {
    let fs = FaultFs::new(8);
    fs.create_dir_all(Path::new("/db")).unwrap();
    let opts = small_options(&fs);
    let db = Db::open(opts.clone(), "/db").unwrap();
    let mut exp = Expect::default();
    run_step(&db, Step::Put(1, true), &mut exp).unwrap();
    fs.inject(FaultRule::new(&[FaultOp::Write]).path(".log").times(1));
    db.put(&wo(false, false), &key(2), &val(2)).unwrap_err();
    exp.record(key(2), Some(val(2)), false);
    db.resume().unwrap();
    // Not logged: it takes a sequence number, and the memtable is not empty.
    db.put(&wo(false, true), &key(3), &val(3)).unwrap();
    exp.record(key(3), Some(val(3)), false);
    // A switch, and no flush after it.
    db.pause_background_work().unwrap();
    db.flush(&talus::db::FlushOptions {
        wait: false,
        ..talus::db::FlushOptions::default()
    })
    .unwrap();
    run_step(&db, Step::Put(4, true), &mut exp).unwrap();
    crash_reopen_check(&fs, db, opts, Crash::ProcessKill, &exp);
}

/// Regression (found by `every_failure_point_stops_writes_and_resume_brings_them_back`
/// once column families came): a WAL write that fails right after a flush,
/// with the memtable empty, burns a sequence number; `resume()` had nothing
/// to flush, so no manifest edit named the new log, and the next open read
/// the gap between the failed log and the new one as a hole and dropped
/// every write acknowledged after `resume()`.
#[test]
fn resume_with_empty_memtables_names_the_new_log() {
    let fs = FaultFs::new(9);
    fs.create_dir_all(Path::new("/db")).unwrap();
    let opts = small_options(&fs);
    let db = Db::open(opts.clone(), "/db").unwrap();
    let mut exp = Expect::default();
    for i in 0..20 {
        run_step(&db, Step::Put(i, false), &mut exp).unwrap();
    }
    flush(&db).unwrap();
    fs.inject(FaultRule::new(&[FaultOp::Write]).path(".log").times(1));
    db.put(&wo(false, false), &key(20), &val(20)).unwrap_err();
    exp.record(key(20), Some(val(20)), false);
    fs.clear_faults();
    db.resume().unwrap();
    for i in 21..40 {
        run_step(&db, Step::Put(i, false), &mut exp).unwrap();
    }
    db.close().unwrap();
    let db = Db::open(opts, "/db").unwrap();
    exp.check(&db, "after reopen").unwrap();
}

/// Regression (found by the long form of
/// `every_failure_point_stops_writes_and_resume_brings_them_back`): a
/// background WAL sync (`wal_bytes_per_sync`) failed, and before any write
/// learned of it a flush failed and latched its own error. `resume()` did
/// not count the sync's failure as the WAL's, so it kept the log and
/// returned `Ok`, and the first write after it failed with the old sync's
/// error and stopped writes again.
#[test]
fn regression_resume_forgets_a_background_wal_sync_that_failed_before_it() {
    let fs = FaultFs::new(10);
    fs.create_dir_all(Path::new("/db")).unwrap();
    let opts = Options {
        wal_bytes_per_sync: 4096,
        ..small_options(&fs)
    };
    let db = Db::open(opts.clone(), "/db").unwrap();
    let mut exp = Expect::default();
    fs.inject(FaultRule::new(&[FaultOp::Sync]).path(".log").times(1));
    // Six records of about 730 bytes: the sixth passes 4,096 unsynced
    // bytes and requests the background sync, which fails.
    for i in 0..6 {
        run_step(&db, Step::Put(i, false), &mut exp).unwrap();
    }
    let waited = std::time::Instant::now();
    while fs.faults_injected() == 0 {
        assert!(
            waited.elapsed() < std::time::Duration::from_secs(10),
            "the background sync never ran"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    // No write has seen the failure yet; a flush fails on its own.
    fs.inject(FaultRule::new(&[FaultOp::Write]).path(".sst"));
    let e = flush(&db).unwrap_err();
    assert!(e.to_string().contains(".sst"), "{e}");
    fs.clear_faults();
    db.resume().unwrap();
    run_step(&db, Step::Put(6, true), &mut exp).unwrap();
    exp.check(&db, "after resume").unwrap();
    crash_reopen_check(&fs, db, opts, Crash::PowerLoss, &exp);
}

#[test]
fn resume_without_an_error_is_a_no_op() {
    let fs = FaultFs::new(6);
    fs.create_dir_all(Path::new("/db")).unwrap();
    let db = Db::open(small_options(&fs), "/db").unwrap();
    db.resume().unwrap();
    db.put(&wo(false, false), b"a", b"b").unwrap();
    assert_eq!(db.int_property("rocksdb.background-errors"), Some(0));
}

/// A database with tables, an unflushed WAL and a second WAL, closed.
fn closed_db_with_logs(fs: &FaultFs) -> (Options, Expect) {
    fs.create_dir_all(Path::new("/db")).unwrap();
    let opts = small_options(fs);
    let db = Db::open(opts.clone(), "/db").unwrap();
    let mut exp = Expect::default();
    for i in 0..300 {
        run_step(&db, Step::Put(i, i % 50 == 0), &mut exp).unwrap();
    }
    db.close().unwrap();
    (opts, exp)
}

/// Regression (found by the sweep below while issue 30 was fixed, never on
/// main): an open that failed removed the tables its replay wrote — also
/// when the failure was the directory sync after `CURRENT` was renamed to a
/// manifest naming them, so the next open found that manifest naming
/// deleted tables. Each directory sync of an open fails in turn here.
#[test]
fn regression_a_failed_open_never_deletes_tables_a_manifest_may_name() {
    for skip in 0..12 {
        let fs = FaultFs::new(40 + skip);
        let (opts, exp) = closed_db_with_logs(&fs);
        fs.inject(
            FaultRule::new(&[FaultOp::SyncDir])
                .path("/db")
                .skip(skip)
                .times(1),
        );
        let _ = Db::open(opts.clone(), "/db");
        fs.clear_faults();
        let db = Db::open(opts, "/db")
            .unwrap_or_else(|e| panic!("directory sync {skip} of the open failed: reopen: {e}"));
        exp.check(&db, &format!("directory sync {skip} failed"))
            .unwrap();
    }
}

/// Every mutating call of an open (WAL replay, its tables, the new WAL, the
/// manifest roll and `CURRENT`, obsolete-file deletion) fails in turn: the
/// open fails cleanly with the error or succeeds, and after the fault is
/// gone — and after a kill or a power loss right there — the next open has
/// every acknowledged write.
#[test]
fn every_failure_point_of_open_fails_cleanly_and_the_next_open_has_everything() {
    let total = {
        let fs = FaultFs::new(0);
        let (opts, _) = closed_db_with_logs(&fs);
        let before = fs.mutations();
        Db::open(opts, "/db").unwrap().close().unwrap();
        fs.mutations() - before
    };
    for k in 1..=total {
        for crash in [None, Some(Crash::ProcessKill), Some(Crash::PowerLoss)] {
            let fs = FaultFs::new(k);
            let (opts, exp) = closed_db_with_logs(&fs);
            fs.inject(rule_for(k));
            match Db::open(opts.clone(), "/db") {
                Ok(db) => drop(db),
                Err(e) => assert!(
                    e.code() == Code::IoError && e.to_string().contains("injected"),
                    "fault at call {k} of {total}: open failed with {e}"
                ),
            }
            fs.clear_faults();
            if let Some(c) = crash {
                fs.crash(c);
            }
            let db = Db::open(opts, "/db").unwrap_or_else(|e| {
                panic!("fault at call {k} of {total}, then {crash:?}: reopen failed: {e}")
            });
            // The writer synced every 50th put and the clean close synced
            // nothing more, so after a power loss only the prefix up to the
            // last synced put (250) is promised — and no holes after it.
            if crash == Some(Crash::PowerLoss) {
                let ro = ReadOptions::default();
                let present: Vec<bool> = (0..300)
                    .map(|i| db.get(&ro, &key(i)).unwrap().is_some())
                    .collect();
                let kept = present.iter().take_while(|&&p| p).count();
                assert!(
                    kept > 250 && present[kept..].iter().all(|&p| !p),
                    "fault at call {k} of {total}, then a power loss: {kept} kept, {present:?}"
                );
                continue;
            }
            exp.check(
                &db,
                &format!("fault at call {k} of {total}, then {crash:?}"),
            )
            .unwrap();
        }
    }
    eprintln!("io-errors at open: {total} failure points × 3, 0 failures");
}
