//! Opening (or destroying) a directory that holds another engine's database
//! fails with `InvalidArgument` naming what was found, before anything in
//! the directory is touched. The fixture `tests/fixtures/rocksdb-11.8.1/db`
//! is a real RocksDB database (its README says how it was made).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use talus::{Code, Db, Options, destroy_db};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rocksdb-11.8.1/db")
}

/// Every file of `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().into_string().unwrap(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

fn copy_fixture(to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(fixture()).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

fn assert_names_rocksdb(e: &talus::Error) {
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    let msg = e.to_string();
    assert!(msg.contains("not a Talus database"), "{msg}");
    assert!(msg.contains("it looks like RocksDB"), "{msg}");
    assert!(msg.contains("OPTIONS-000007"), "{msg}");
    assert!(msg.contains("MANIFEST-000005"), "{msg}");
}

#[test]
fn opening_a_rocksdb_directory_is_invalid_argument_and_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("rocks");
    copy_fixture(&db_dir);
    let before = snapshot(&db_dir);
    for create_if_missing in [false, true] {
        let o = Options {
            create_if_missing,
            ..Options::default()
        };
        let e = Db::open(o, &db_dir).unwrap_err();
        assert_names_rocksdb(&e);
        assert_eq!(snapshot(&db_dir), before, "the open changed the directory");
    }
    // destroy_db refuses it too.
    assert_names_rocksdb(&destroy_db(&db_dir, &Options::default()).unwrap_err());
    assert_eq!(
        snapshot(&db_dir),
        before,
        "destroy_db changed the directory"
    );
}

/// Without its options file the manifest's log format still gives it away.
#[test]
fn a_rocksdb_manifest_alone_is_recognized() {
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("rocks");
    copy_fixture(&db_dir);
    std::fs::remove_file(db_dir.join("OPTIONS-000007")).unwrap();
    let before = snapshot(&db_dir);
    let e = Db::open(Options::default(), &db_dir).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    let msg = e.to_string();
    assert!(msg.contains("RocksDB or LevelDB"), "{msg}");
    assert!(msg.contains("MANIFEST-000005 in their log format"), "{msg}");
    assert_eq!(snapshot(&db_dir), before);
}

/// A Talus database is never taken for a foreign one, not even with a
/// RocksDB options file lying in it.
#[test]
fn a_talus_database_with_a_stray_options_file_opens() {
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("talus");
    let o = Options {
        create_if_missing: true,
        ..Options::default()
    };
    let db = Db::open(o, &db_dir).unwrap();
    db.put(&Default::default(), b"k", b"v").unwrap();
    db.close().unwrap();
    drop(db);
    std::fs::copy(
        fixture().join("OPTIONS-000007"),
        db_dir.join("OPTIONS-000007"),
    )
    .unwrap();
    let db = Db::open(Options::default(), &db_dir).unwrap();
    assert_eq!(
        db.get(&Default::default(), b"k").unwrap().as_deref(),
        Some(&b"v"[..])
    );
    db.close().unwrap();
}

/// A damaged Talus manifest is still Corruption (not "foreign").
#[test]
fn a_damaged_talus_manifest_is_corruption_not_foreign() {
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("talus");
    let o = Options {
        create_if_missing: true,
        ..Options::default()
    };
    let db = Db::open(o, &db_dir).unwrap();
    db.close().unwrap();
    drop(db);
    let current = std::fs::read_to_string(db_dir.join("CURRENT")).unwrap();
    let manifest = db_dir.join(current.trim_end());
    let mut bytes = std::fs::read(&manifest).unwrap();
    bytes[10] ^= 0xff;
    std::fs::write(&manifest, bytes).unwrap();
    let e = Db::open(Options::default(), &db_dir).unwrap_err();
    assert_eq!(e.code(), Code::Corruption, "{e}");
}
