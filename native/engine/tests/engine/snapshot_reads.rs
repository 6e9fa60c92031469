//! Reads at a snapshot see exactly the state when it was taken, whatever
//! flushes and compactions ran since. Regression tests, named after the bug.

use talus::{Db, Options, ReadOptions, WriteOptions};

fn open(dir: &std::path::Path) -> Db {
    let opts = Options {
        create_if_missing: true,
        ..Options::default()
    };
    Db::open(opts, dir).unwrap()
}

/// A bottommost compaction dropped a range tombstone older than every
/// snapshot but kept the entry it deletes, because only the newest
/// tombstone covering the key (invisible at the snapshot) was consulted.
/// Found by the model test, seed 1.
#[test]
fn older_range_tombstone_still_hides_key_at_snapshot_after_bottommost_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path());
    let wo = WriteOptions::default();
    db.put(&wo, b"k", b"v").unwrap(); // seq 1
    db.compact_range(None, None).unwrap(); // k@1 in the last level
    db.delete_range(&wo, b"a", b"z").unwrap(); // seq 2
    let snap = db.snapshot().unwrap();
    db.delete_range(&wo, b"a", b"z").unwrap(); // seq 3
    let at_snap = ReadOptions {
        snapshot: Some(snap.sequence_number()),
        ..ReadOptions::default()
    };
    assert_eq!(db.get(&at_snap, b"k").unwrap(), None, "before compaction");
    // Merges both tombstones with k@1 into the last level, where the
    // tombstone at 2 (older than every snapshot) may be dropped only if k@1 is.
    db.compact_range(None, None).unwrap();
    assert_eq!(db.get(&at_snap, b"k").unwrap(), None, "after compaction");
    let mut it = db.iter(&at_snap).unwrap();
    it.seek_to_first();
    assert!(!it.valid(), "iterator at the snapshot shows {:?}", it.key());
    db.release_snapshot(snap);
}
