//! Range deletions through flushes, compactions and recovery. Regression
//! tests, named after the bug.

use talus::db::FlushOptions;
use talus::{Db, Options, ReadOptions, WriteOptions};

fn opts() -> Options {
    Options {
        create_if_missing: true,
        ..Options::default()
    }
}

/// A memtable holding only an empty range deletion (`begin == end`) was
/// written as a table with no entries and an empty key range, and reading
/// that range panicked. Found by the model test, seed 81.
#[test]
fn flush_of_only_an_empty_range_deletion() {
    let dir = tempfile::tempdir().unwrap();
    let wo = WriteOptions::default();
    let ro = ReadOptions::default();
    {
        let db = Db::open(opts(), dir.path()).unwrap();
        db.put(&wo, b"k", b"v").unwrap();
        db.flush(&FlushOptions::default()).unwrap();
        db.delete_range(&wo, b"k", b"k").unwrap();
        db.flush(&FlushOptions::default()).unwrap();
        assert_eq!(db.get(&ro, b"k").unwrap().as_deref(), Some(&b"v"[..]));
        db.delete_range(&wo, b"k", b"k").unwrap();
        db.close().unwrap();
    }
    // Recovery flushes the replayed memtable too.
    let db = Db::open(opts(), dir.path()).unwrap();
    assert_eq!(db.get(&ro, b"k").unwrap().as_deref(), Some(&b"v"[..]));
    db.compact_range(None, None).unwrap();
    assert_eq!(db.get(&ro, b"k").unwrap().as_deref(), Some(&b"v"[..]));
    let mut it = db.iter(&ro).unwrap();
    it.seek_to_first();
    assert!(it.valid());
    assert_eq!(it.key(), b"k");
}
