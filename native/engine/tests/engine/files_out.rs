//! Files out on the real file system: checkpoints (hard links), the
//! live-file and WAL lists, counted file-deletion holds, backups against a
//! `BTreeMap` model (incremental sharing, corrupt files named), read-only
//! and secondary opens, and bad input.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use talus::backup::{BackupEngine, BackupEngineOptions, RestoreOptions};
use talus::db::FlushOptions;
use talus::{Code, Db, Options, ReadOptions, WriteOptions};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

fn options() -> Options {
    Options {
        create_if_missing: true,
        stats_dump_period_sec: 0,
        write_buffer_size: 64 << 10,
        ..Options::default()
    }
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

/// Random puts and deletes, mirrored in `model`, with a flush now and then.
fn churn(db: &Db, model: &mut Model, r: &mut SmallRng, n: usize) {
    let wo = WriteOptions::default();
    for _ in 0..n {
        let k = format!("key{:04}", r.random_range(0..800)).into_bytes();
        if r.random_bool(0.2) {
            db.delete(&wo, &k).unwrap();
            model.remove(&k);
        } else {
            let v = vec![b'a' + r.random_range(0..26u8); r.random_range(1..300)];
            db.put(&wo, &k, &v).unwrap();
            model.insert(k, v);
        }
        if r.random_bool(0.002) {
            db.flush(&FlushOptions::default()).unwrap();
        }
    }
}

#[test]
fn checkpoint_links_tables_and_opens_with_the_wal_tail() {
    let dir = tempfile::tempdir().unwrap();
    // No compaction deletes a linked table before its link count is read.
    let o = Options {
        disable_auto_compactions: true,
        ..options()
    };
    let db = Db::open(o, dir.path().join("db")).unwrap();
    let mut model = Model::new();
    let mut r = SmallRng::seed_from_u64(1);
    churn(&db, &mut model, &mut r, 3000);
    db.flush(&FlushOptions::default()).unwrap();
    // Writes after the flush: only in the WAL and the memtable.
    churn(&db, &mut model, &mut r, 100);
    let ckpt = dir.path().join("ckpt");
    db.create_checkpoint(&ckpt).unwrap();
    // Tables are hard links to the source's.
    use std::os::unix::fs::MetadataExt;
    let tables: Vec<_> = std::fs::read_dir(&ckpt)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sst"))
        .collect();
    assert!(!tables.is_empty());
    for t in &tables {
        assert!(
            std::fs::metadata(t).unwrap().nlink() >= 2,
            "{t:?} is not a link"
        );
    }
    assert!(!dir.path().join("ckpt.tmp").exists());
    // The source goes on; the checkpoint stays the point.
    churn(&db, &mut model.clone(), &mut r, 500);
    let c = Db::open(options(), &ckpt).unwrap();
    assert_eq!(contents(&c), model);
    // Existing directory: refused, untouched.
    let e = db.create_checkpoint(&ckpt).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.to_string().contains("Directory exists"), "{e}");
}

#[test]
fn live_files_and_wal_list_describe_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(options(), dir.path()).unwrap();
    let mut model = Model::new();
    let mut r = SmallRng::seed_from_u64(2);
    churn(&db, &mut model, &mut r, 500);
    let live = db.live_files(true).unwrap();
    assert!(live.files.contains(&"/CURRENT".to_string()));
    let manifest = live
        .files
        .iter()
        .find(|f| f.starts_with("/MANIFEST-"))
        .expect("a manifest");
    let on_disk = std::fs::metadata(dir.path().join(&manifest[1..]))
        .unwrap()
        .len();
    assert!(live.manifest_file_size > 0 && live.manifest_file_size <= on_disk);
    for f in &live.files {
        assert!(dir.path().join(&f[1..]).exists(), "{f} listed but missing");
    }
    assert!(live.files.iter().any(|f| f.ends_with(".sst")), "{live:?}");
    churn(&db, &mut model, &mut r, 50);
    let wals = db.sorted_wal_files().unwrap();
    assert!(!wals.is_empty());
    assert!(wals.windows(2).all(|w| w[0].log_number < w[1].log_number));
    let last = wals.last().unwrap();
    assert!(
        last.size_file_bytes > 0 && last.start_sequence > 0,
        "{last:?}"
    );
    assert_eq!(last.path_name, format!("/{:06}.log", last.log_number));
}

#[test]
fn file_deletions_are_held_while_disabled_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(options(), dir.path()).unwrap();
    let mut model = Model::new();
    let mut r = SmallRng::seed_from_u64(3);
    churn(&db, &mut model, &mut r, 2000);
    db.flush(&FlushOptions::default()).unwrap();
    let before = db.live_files(false).unwrap().files;
    db.disable_file_deletions().unwrap();
    db.disable_file_deletions().unwrap();
    db.compact_range(None, None).unwrap();
    let kept = |files: &[String]| files.iter().all(|f| dir.path().join(&f[1..]).exists());
    assert!(
        kept(&before),
        "a table was deleted while deletions were disabled"
    );
    db.enable_file_deletions(false).unwrap();
    db.compact_range(None, None).unwrap();
    assert!(kept(&before), "one enable of two must not enable deletions");
    db.enable_file_deletions(false).unwrap();
    let gone = before
        .iter()
        .filter(|f| f.ends_with(".sst"))
        .any(|f| !dir.path().join(&f[1..]).exists());
    assert!(gone, "enabling again deletes what became obsolete");
    // force: every disable undone at once.
    db.disable_file_deletions().unwrap();
    db.disable_file_deletions().unwrap();
    db.enable_file_deletions(true).unwrap();
    assert_eq!(contents(&db), model);
}

#[test]
fn backups_restore_to_their_model_and_share_tables() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(options(), dir.path().join("db")).unwrap();
    let be = BackupEngine::open(BackupEngineOptions::new(dir.path().join("backups"))).unwrap();
    let mut model = Model::new();
    let mut r = SmallRng::seed_from_u64(4);
    let mut models = Vec::new();
    for round in 0..4 {
        churn(&db, &mut model, &mut r, 1500);
        let flush = round % 2 == 0;
        let id = if round == 1 {
            be.create_new_backup_with_metadata(&db, b"round one", flush)
                .unwrap()
        } else {
            be.create_new_backup(&db, flush).unwrap()
        };
        models.push((id, model.clone()));
    }
    let infos = be.backup_info();
    assert_eq!(infos.len(), 4);
    assert_eq!(infos[1].app_metadata, b"round one");
    assert!(
        infos
            .iter()
            .all(|i| i.size > 0 && i.number_files >= 4 && i.timestamp > 0)
    );
    // Incremental: a table in two backups is stored once.
    let shared = std::fs::read_dir(dir.path().join("backups/shared_checksum"))
        .unwrap()
        .count();
    let listed: usize = infos.iter().map(|i| i.number_files as usize).sum();
    assert!(shared > 0 && shared < listed, "shared {shared} of {listed}");
    for (id, want) in &models {
        be.verify_backup(*id).unwrap();
        let to = dir.path().join(format!("restore{id}"));
        be.restore_db_from_backup(*id, &to, &to, &RestoreOptions::default())
            .unwrap();
        let restored = Db::open(options(), &to).unwrap();
        assert_eq!(&contents(&restored), want, "backup {id}");
    }
    // Purge keeps the newest; the shared files of purged backups go.
    be.purge_old_backups(1).unwrap();
    assert_eq!(be.backup_info().len(), 1);
    let latest = dir.path().join("latest");
    be.restore_db_from_latest_backup(&latest, &latest, &RestoreOptions::default())
        .unwrap();
    assert_eq!(contents(&Db::open(options(), &latest).unwrap()), model);
    let after = std::fs::read_dir(dir.path().join("backups/shared_checksum"))
        .unwrap()
        .count();
    assert!(after <= be.backup_info()[0].number_files as usize);
}

#[test]
fn a_corrupt_backup_file_is_named_and_other_backups_restore() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(options(), dir.path().join("db")).unwrap();
    let be = BackupEngine::open(BackupEngineOptions {
        share_table_files: false,
        ..BackupEngineOptions::new(dir.path().join("backups"))
    })
    .unwrap();
    let mut model = Model::new();
    let mut r = SmallRng::seed_from_u64(5);
    churn(&db, &mut model, &mut r, 1500);
    let good = be.create_new_backup(&db, true).unwrap();
    let first = model.clone();
    churn(&db, &mut model, &mut r, 1500);
    let bad = be.create_new_backup(&db, true).unwrap();
    // Flip a byte in the middle of one of the second backup's tables.
    let private = dir.path().join(format!("backups/private/{bad}"));
    let victim = std::fs::read_dir(&private)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "sst"))
        .unwrap();
    let mut bytes = std::fs::read(&victim).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x40;
    std::fs::write(&victim, &bytes).unwrap();
    let e = be.verify_backup(bad).unwrap_err();
    assert_eq!(e.code(), Code::Corruption);
    assert!(e.to_string().contains(&victim.display().to_string()), "{e}");
    let to = dir.path().join("restore-bad");
    let e = be
        .restore_db_from_backup(bad, &to, &to, &RestoreOptions::default())
        .unwrap_err();
    assert!(e.to_string().contains(&victim.display().to_string()), "{e}");
    // What the failed restore left does not open as a database.
    assert!(Db::open(options(), &to).is_err());
    be.verify_backup(good).unwrap();
    let to = dir.path().join("restore-good");
    be.restore_db_from_backup(good, &to, &to, &RestoreOptions::default())
        .unwrap();
    assert_eq!(contents(&Db::open(options(), &to).unwrap()), first);
}

#[test]
fn backup_engine_bad_input_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let e = BackupEngine::open(BackupEngineOptions::new(&file)).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.to_string().contains("not a directory"), "{e}");
    let be = BackupEngine::open(BackupEngineOptions::new(dir.path().join("b"))).unwrap();
    for e in [
        be.verify_backup(9).unwrap_err(),
        be.delete_backup(9).unwrap_err(),
        be.restore_db_from_backup(
            9,
            dir.path().join("r"),
            dir.path().join("r"),
            &RestoreOptions::default(),
        )
        .unwrap_err(),
    ] {
        assert_eq!(e.code(), Code::NotFound);
        assert!(e.to_string().contains("Backup not found"), "{e}");
    }
    // Restoring over an open database is refused (its LOCK), untouched.
    let db = Db::open(options(), dir.path().join("db")).unwrap();
    db.put(&WriteOptions::default(), b"k", b"v").unwrap();
    let id = be.create_new_backup(&db, true).unwrap();
    let e = be
        .restore_db_from_backup(
            id,
            dir.path().join("db"),
            dir.path().join("db"),
            &RestoreOptions::default(),
        )
        .unwrap_err();
    assert!(e.to_string().to_lowercase().contains("lock"), "{e}");
    assert_eq!(
        db.get(&ReadOptions::default(), b"k").unwrap().as_deref(),
        Some(&b"v"[..])
    );
}

#[test]
fn read_only_open_sees_a_live_database_and_refuses_writes() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(options(), dir.path()).unwrap();
    let mut model = Model::new();
    let mut r = SmallRng::seed_from_u64(6);
    churn(&db, &mut model, &mut r, 1000);
    db.flush(&FlushOptions::default()).unwrap();
    churn(&db, &mut model, &mut r, 50);
    // The writer holds the LOCK; the read-only open takes none.
    let (ro, _) = Db::open_read_only(
        options(),
        dir.path(),
        vec![("default".into(), options())],
        false,
    )
    .unwrap();
    assert_eq!(contents(&ro), model, "flushed tables and the WAL tail");
    let e = ro.put(&WriteOptions::default(), b"x", b"y").unwrap_err();
    assert_eq!(e.code(), Code::NotSupported);
    assert!(e.to_string().contains("read only"), "{e}");
    for e in [
        ro.flush(&FlushOptions::default()).unwrap_err(),
        ro.compact_range(None, None).unwrap_err(),
        ro.create_checkpoint(dir.path().join("c")).unwrap_err(),
        ro.create_column_family(&options(), "cf").unwrap_err(),
    ] {
        assert_eq!(e.code(), Code::NotSupported, "{e}");
    }
    let e = ro.try_catch_up_with_primary().unwrap_err();
    assert_eq!(e.code(), Code::NotSupported);
    // The WAL holds writes: error_if_wal_file_exists refuses.
    let e = Db::open_read_only(
        options(),
        dir.path(),
        vec![("default".into(), options())],
        true,
    )
    .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    drop(ro);
    // The writer is unaffected, and nothing was written by the reader.
    churn(&db, &mut model, &mut r, 10);
    assert_eq!(contents(&db), model);
    assert!(!dir.path().join("LOG.old").exists());
    // A missing database is not created.
    let e = Db::open_read_only(
        options(),
        dir.path().join("none"),
        vec![("default".into(), options())],
        false,
    )
    .unwrap_err();
    assert!(e.to_string().contains("does not exist"), "{e}");
    assert!(!dir.path().join("none").exists());
}

#[test]
fn secondary_catches_up_with_the_primary() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(options(), dir.path().join("db")).unwrap();
    let mut model = Model::new();
    let mut r = SmallRng::seed_from_u64(7);
    churn(&db, &mut model, &mut r, 500);
    // The primary's flushes and compactions may still run: the open and
    // the catch-ups read a state the primary had whatever it does
    // (`regression_secondary_open_racing_flush_saw_a_hole`).
    let (sec, _) = Db::open_as_secondary(
        options(),
        dir.path().join("db"),
        dir.path().join("sec"),
        vec![("default".into(), options())],
    )
    .unwrap();
    assert_eq!(contents(&sec), model);
    let seen = model.clone();
    for round in 0..5 {
        churn(&db, &mut model, &mut r, 1500);
        if round == 2 {
            db.compact_range(None, None).unwrap();
        }
        // Not yet caught up: still the old state.
        if round == 0 {
            assert_eq!(contents(&sec), seen);
        }
        sec.try_catch_up_with_primary().unwrap();
        assert_eq!(contents(&sec), model, "round {round}");
    }
    assert!(sec.put(&WriteOptions::default(), b"k", b"v").is_err());
    assert!(
        dir.path().join("sec/LOG").exists(),
        "the secondary's info log"
    );
}

/// Slots the racing writer cycles through: write `i` puts key
/// `racing_key(i % RACING_SLOTS)` in both families, in one batch.
const RACING_SLOTS: u64 = 3000;

fn racing_key(slot: u64) -> Vec<u8> {
    format!("k{slot:06}").into_bytes()
}

fn racing_value(i: u64) -> Vec<u8> {
    let mut v = format!("{i:012}:").into_bytes();
    v.resize(100, b'a' + (i % 26) as u8);
    v
}

/// Checks that family `cf` of `db` shows exactly the first `n` writes of
/// the racing writer, for some `n`, and returns `n`: the highest write
/// visible is `n - 1`, and every slot holds the value of its last write
/// below `n` (an earlier one, or none, is a hole in the history).
fn racing_prefix(db: &Db, cf: &talus::db::ColumnFamilyHandle, what: &str) -> u64 {
    let mut it = db.iter_cf(&ReadOptions::default(), cf).unwrap();
    let mut seen: BTreeMap<u64, u64> = BTreeMap::new();
    it.seek_to_first();
    while it.valid() {
        let slot: u64 = std::str::from_utf8(&it.key()[1..])
            .unwrap()
            .parse()
            .unwrap();
        let i: u64 = std::str::from_utf8(&it.value()[..12])
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(
            it.value(),
            &racing_value(i)[..],
            "{what}: value of write {i}"
        );
        assert_eq!(
            i % RACING_SLOTS,
            slot,
            "{what}: write {i} under slot {slot}"
        );
        seen.insert(slot, i);
        it.next();
    }
    it.status()
        .unwrap_or_else(|e| panic!("{what}: reading failed: {e}"));
    let n = seen.values().max().map_or(0, |&h| h + 1);
    for slot in 0..RACING_SLOTS.min(n) {
        let want = slot + (n - 1 - slot) / RACING_SLOTS * RACING_SLOTS;
        match seen.get(&slot) {
            Some(&got) if got == want => {}
            got => panic!(
                "{what}: a hole: write {} is visible but slot {slot} shows write {got:?}, \
                 not write {want}",
                n - 1
            ),
        }
    }
    n
}

/// The state of both families: the same prefix of the writer's history
/// (one batch writes both), holding at least the writes acknowledged before
/// the state was read.
fn racing_check(db: &Db, handles: &[talus::db::ColumnFamilyHandle], acked: u64, what: &str) -> u64 {
    let n = racing_prefix(db, &handles[0], &format!("{what}, default family"));
    let m = racing_prefix(db, &handles[1], &format!("{what}, family other"));
    assert_eq!(n, m, "{what}: the families show different prefixes");
    assert!(
        n >= acked,
        "{what}: {acked} writes were acknowledged before, {n} visible"
    );
    n
}

/// An open (or catch-up) of a secondary while the primary flushed,
/// compacted and deleted files could assemble a state the primary never
/// had: tables of one manifest read with logs listed after the primary
/// deleted the ones between (a hole: later writes visible, earlier ones
/// missing), a log read up to its end before the writer appended to it
/// and switched to the next one (read on), a table or log deleted between
/// the manifest read and its open (an error, or a log read as empty). The
/// primary here writes numbered batches in order with tiny memtables and
/// WAL limits (a flush every few hundred writes, compactions constantly,
/// a reopen now and then: a new manifest and the logs replayed and
/// deleted); every view of each secondary must be a prefix of the
/// acknowledged history, holding every write acknowledged before it.
#[test]
fn regression_secondary_open_racing_flush_saw_a_hole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let o = Options {
        create_missing_column_families: true,
        write_buffer_size: 64 << 10,
        max_total_wal_size: 96 << 10,
        level0_file_num_compaction_trigger: 2,
        target_file_size_base: 64 << 10,
        max_bytes_for_level_base: 256 << 10,
        ..options()
    };
    let families = || {
        vec![
            ("default".to_string(), o.clone()),
            ("other".to_string(), o.clone()),
        ]
    };
    // Created before the writer starts, so every open below finds it.
    drop(Db::open_cf(o.clone(), &path, families()).unwrap());
    let acked = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (acked, stop, path, o) = (acked.clone(), stop.clone(), path.clone(), o.clone());
        let families = families();
        std::thread::spawn(move || {
            use std::sync::atomic::Ordering;
            let mut i = 0u64;
            while !stop.load(Ordering::Acquire) {
                let (db, hs) = Db::open_cf(o.clone(), &path, families.clone()).unwrap();
                // A reopen every 20000 writes: recovery writes the logs'
                // writes to tables, starts a new manifest and deletes the
                // old one and the logs.
                for _ in 0..20_000 {
                    let mut b = talus::WriteBatch::new();
                    let (k, v) = (racing_key(i % RACING_SLOTS), racing_value(i));
                    b.put_cf(hs[0].id(), &k, &v);
                    b.put_cf(hs[1].id(), &k, &v);
                    db.write(&WriteOptions::default(), b).unwrap();
                    i += 1;
                    acked.store(i, Ordering::Release);
                    if stop.load(Ordering::Acquire) {
                        break;
                    }
                }
                db.close().unwrap();
            }
            i
        })
    };
    let acked_now = || acked.load(std::sync::atomic::Ordering::Acquire);
    // Wait for the writer's first batch of writes, so the opens race it.
    while acked_now() < 1000 {
        std::thread::yield_now();
    }
    let mut busy = 0;
    let mut last_seen = 0;
    for round in 0..200 {
        let before = acked_now();
        let opened = Db::open_as_secondary(o.clone(), &path, dir.path().join("sec"), families());
        let (sec, hs) = match opened {
            Ok(s) => s,
            // The primary changed its files under every attempt: allowed,
            // never a wrong state.
            Err(e) if e.code() == Code::Busy => {
                busy += 1;
                continue;
            }
            Err(e) => panic!("open {round}: {e}"),
        };
        let mut n = racing_check(&sec, &hs, before, &format!("open {round}"));
        for c in 0..2 {
            let before = acked_now();
            match sec.try_catch_up_with_primary() {
                Ok(()) => {}
                Err(e) if e.code() == Code::Busy => {
                    busy += 1;
                    continue;
                }
                Err(e) => panic!("open {round}, catch-up {c}: {e}"),
            }
            let m = racing_check(&sec, &hs, before, &format!("open {round}, catch-up {c}"));
            assert!(
                m >= n,
                "open {round}, catch-up {c}: went back from {n} to {m} writes"
            );
            n = m;
        }
        last_seen = n;
    }
    stop.store(true, std::sync::atomic::Ordering::Release);
    let written = writer.join().unwrap();
    assert!(last_seen <= written);
    // Busy is the bounded retry giving up, never expected this often.
    assert!(busy < 100, "{busy} of 600 reads gave up with Busy");
}

#[test]
fn read_only_open_of_a_subset_of_families() {
    let dir = tempfile::tempdir().unwrap();
    let o = Options {
        create_missing_column_families: true,
        ..options()
    };
    let (db, hs) = Db::open_cf(
        o.clone(),
        dir.path(),
        vec![("default".into(), o.clone()), ("other".into(), o.clone())],
    )
    .unwrap();
    db.put_cf(&WriteOptions::default(), &hs[1], b"a", b"1")
        .unwrap();
    db.put(&WriteOptions::default(), b"d", b"0").unwrap();
    let (ro, rh) = Db::open_read_only(
        o.clone(),
        dir.path(),
        vec![("other".into(), o.clone()), ("default".into(), o.clone())],
        false,
    )
    .unwrap();
    assert_eq!(
        ro.get_cf(&ReadOptions::default(), &rh[0], b"a")
            .unwrap()
            .as_deref(),
        Some(&b"1"[..])
    );
    let (ro2, _) = Db::open_read_only(
        o.clone(),
        dir.path(),
        vec![("default".into(), o.clone())],
        false,
    )
    .unwrap();
    assert_eq!(
        ro2.get(&ReadOptions::default(), b"d").unwrap().as_deref(),
        Some(&b"0"[..])
    );
    let e = Db::open_read_only(
        o.clone(),
        dir.path(),
        vec![("default".into(), o.clone()), ("nope".into(), o)],
        false,
    )
    .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
}

/// A secondary's version set lags the primary's: its obsolete-file sweep
/// (run by `wait_for_compactions` or `enable_file_deletions`) would take the
/// primary's newest tables for obsolete. It must delete nothing.
#[test]
fn regression_a_secondary_never_deletes_the_primarys_files() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(options(), dir.path().join("db")).unwrap();
    let mut model = Model::new();
    let mut r = SmallRng::seed_from_u64(8);
    churn(&db, &mut model, &mut r, 200);
    let (sec, _) = Db::open_as_secondary(
        options(),
        dir.path().join("db"),
        dir.path().join("sec"),
        vec![("default".into(), options())],
    )
    .unwrap();
    churn(&db, &mut model, &mut r, 3000);
    db.flush(&FlushOptions::default()).unwrap();
    let _ = sec.wait_for_compactions();
    let _ = sec.enable_file_deletions(true);
    drop(sec);
    assert_eq!(contents(&db), model);
    db.verify_checksum().unwrap();
}
