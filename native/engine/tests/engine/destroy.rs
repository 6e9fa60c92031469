//! `destroy_db` (RocksDB's `DestroyDB`) and the lock it shares with open.

use std::path::Path;

use talus::db::FlushOptions;
use talus::{Code, Db, Options, WriteOptions, destroy_db};

fn make_db(dir: &Path, wal_dir: Option<&Path>) {
    let o = Options {
        create_if_missing: true,
        wal_dir: wal_dir.map(Path::to_path_buf),
        ..Options::default()
    };
    let db = Db::open(o, dir).unwrap();
    let wo = WriteOptions::default();
    db.put(&wo, b"a", b"1").unwrap();
    db.flush(&FlushOptions::default()).unwrap();
    db.put(&wo, b"b", b"2").unwrap(); // left in the WAL
    db.close().unwrap();
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

#[test]
fn destroy_removes_every_file_and_the_directory() {
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("db");
    make_db(&db_dir, None);
    // An old info log too.
    let o = Options::default();
    let db = Db::open(o.clone(), &db_dir).unwrap();
    db.close().unwrap();
    drop(db);
    assert!(names(&db_dir).iter().any(|n| n.starts_with("LOG.old.")));
    destroy_db(&db_dir, &o).unwrap();
    assert!(!db_dir.exists(), "left {:?}", names(&db_dir));
    // Nothing there: nothing to do.
    destroy_db(&db_dir, &o).unwrap();
    // A new database can be made in its place.
    let e = Db::open(Options::default(), &db_dir).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
}

#[test]
fn destroy_removes_the_logs_in_wal_dir_and_keeps_other_files() {
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("db");
    let wal_dir = dir.path().join("wal");
    make_db(&db_dir, Some(&wal_dir));
    assert!(names(&wal_dir).iter().any(|n| n.ends_with(".log")));
    std::fs::write(db_dir.join("notes.txt"), b"mine").unwrap();
    let o = Options {
        wal_dir: Some(wal_dir.clone()),
        ..Options::default()
    };
    destroy_db(&db_dir, &o).unwrap();
    assert!(!wal_dir.exists(), "left {:?}", names(&wal_dir));
    assert_eq!(names(&db_dir), vec!["notes.txt".to_string()]);
}

#[test]
fn destroy_refuses_an_open_database_with_an_io_error_naming_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("db");
    make_db(&db_dir, None);
    let db = Db::open(Options::default(), &db_dir).unwrap();
    let before = names(&db_dir);
    let e = destroy_db(&db_dir, &Options::default()).unwrap_err();
    assert_eq!(e.code(), Code::IoError, "{e}");
    assert!(e.to_string().contains("lock"), "{e}");
    // Nothing removed. The listing may have grown by one file: the next WAL
    // is made ahead on a background thread after the open returns.
    let after = names(&db_dir);
    assert!(
        before.iter().all(|n| after.contains(n)),
        "{before:?} -> {after:?}"
    );
    let added: Vec<_> = after.iter().filter(|n| !before.contains(n)).collect();
    assert!(
        added.is_empty() || (added.len() == 1 && added[0].ends_with(".log")),
        "only the WAL made ahead may appear: {added:?}"
    );
    assert_eq!(
        db.get(&Default::default(), b"b").unwrap().as_deref(),
        Some(&b"2"[..])
    );
    db.close().unwrap();
}

/// A second open of a directory open in this process is RocksDB's
/// `IOError` naming the lock (it was `Busy`).
#[test]
fn regression_second_open_is_an_io_error_naming_the_lock_not_busy() {
    let dir = tempfile::tempdir().unwrap();
    let o = Options {
        create_if_missing: true,
        ..Options::default()
    };
    let db = Db::open(o.clone(), dir.path()).unwrap();
    let e = Db::open(o, dir.path()).unwrap_err();
    assert_eq!(e.code(), Code::IoError, "{e}");
    let msg = e.to_string();
    assert!(msg.contains("lock") && msg.contains("LOCK"), "{msg}");
    db.close().unwrap();
}

#[test]
fn destroy_of_a_directory_without_a_database_removes_only_database_names() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data.csv"), b"1,2").unwrap();
    destroy_db(dir.path(), &Options::default()).unwrap();
    assert_eq!(names(dir.path()), vec!["data.csv".to_string()]);
}

/// The logs in `dir` and their bytes.
fn logs(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    names(dir)
        .into_iter()
        .filter(|n| n.ends_with(".log"))
        .map(|n| {
            let b = std::fs::read(dir.join(&n)).unwrap();
            (n, b)
        })
        .collect()
}

/// Regression (issue 30): `destroy_db` removed every log in `wal_dir`, so
/// destroying one of two databases sharing a `wal_dir` took the other's
/// unflushed writes with it. Every log names the database that wrote it:
/// only the destroyed database's go, the other's stay byte for byte and it
/// opens with every write; a database whose `wal_dir` is the destroyed
/// one's directory keeps its logs too.
#[test]
fn regression_destroy_with_a_shared_wal_dir_removes_only_its_own_logs() {
    let dir = tempfile::tempdir().unwrap();
    let (a_dir, b_dir, wal_dir) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("wal"),
    );
    make_db(&b_dir, Some(&wal_dir));
    let b_logs = logs(&wal_dir);
    assert!(!b_logs.is_empty());
    make_db(&a_dir, Some(&wal_dir));
    let both = logs(&wal_dir);
    assert!(both.len() > b_logs.len(), "{both:?}");

    let o = Options {
        wal_dir: Some(wal_dir.clone()),
        ..Options::default()
    };
    destroy_db(&a_dir, &o).unwrap();
    assert!(!a_dir.exists(), "left {:?}", names(&a_dir));
    assert_eq!(logs(&wal_dir), b_logs, "b's logs, and only those, remain");

    // b has everything, including the write only its log holds.
    let b = Db::open(o.clone(), &b_dir).unwrap();
    let ro = Default::default();
    assert_eq!(b.get(&ro, b"a").unwrap().as_deref(), Some(&b"1"[..]));
    assert_eq!(b.get(&ro, b"b").unwrap().as_deref(), Some(&b"2"[..]));
    b.close().unwrap();
    drop(b);

    // A database c whose wal_dir is b's directory: destroying b (its own
    // logs in wal_dir) leaves c's logs in b's directory, and c opens whole.
    let c_dir = dir.path().join("c");
    make_db(&c_dir, Some(&b_dir));
    let c_logs = logs(&b_dir);
    assert!(!c_logs.is_empty());
    destroy_db(&b_dir, &o).unwrap();
    assert!(
        !wal_dir.exists(),
        "b's logs (the last there) gone, and the wal_dir"
    );
    assert_eq!(logs(&b_dir), c_logs, "c's logs stay");
    let c = Db::open(
        Options {
            wal_dir: Some(b_dir.clone()),
            ..Options::default()
        },
        &c_dir,
    )
    .unwrap();
    assert_eq!(c.get(&ro, b"b").unwrap().as_deref(), Some(&b"2"[..]));
    c.close().unwrap();
}
