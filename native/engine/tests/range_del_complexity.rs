//! The work range deletions cost grows as `N log N`, not `N²`: counted in
//! key comparisons ([`talus::range_del::key_comparisons`]), which do not
//! depend on the machine, over the whole life of N disjoint range
//! deletions: written with reads in between (each read after new
//! tombstones folds them into the memtable's lists), read by several
//! iterators, flushed, read from the table, compacted into many small
//! files at a snapshot that keeps the tombstones, and read again.
//!
//! Regression test for issue 30 #5 (range deletions were quadratic: every
//! flush, new iterator and get re-fragmented or scanned every tombstone).
//! Its own test binary: the count is process-wide, and no other test may
//! add to it meanwhile.

use talus::db::FlushOptions;
use talus::range_del::key_comparisons;
use talus::{Db, Options, ReadOptions, WriteOptions};

fn key(i: u64) -> Vec<u8> {
    format!("key{i:010}").into_bytes()
}

/// Key comparisons made for `n` disjoint range deletions and `n` live keys
/// between them, through writes, reads, a flush and a compaction.
fn work_for(n: u64) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let opts = Options {
        create_if_missing: true,
        write_buffer_size: 1 << 30,
        disable_auto_compactions: true,
        target_file_size_base: 16 << 10,
        ..Options::default()
    };
    let db = Db::open(opts, dir.path()).unwrap();
    let wo = WriteOptions {
        disable_wal: true,
        ..WriteOptions::default()
    };
    let ro = ReadOptions::default();
    let snapshot = db.snapshot().unwrap();
    let before = key_comparisons();
    let check = |db: &Db| {
        for _ in 0..3 {
            let mut it = db.iter(&ro).unwrap();
            it.seek_to_first();
            let mut live = 0;
            while it.valid() {
                live += 1;
                it.next();
            }
            assert_eq!(live, n);
        }
        for i in (0..2 * n).step_by(97) {
            assert_eq!(db.get(&ro, &key(i)).unwrap().is_some(), i % 2 == 1);
        }
    };
    for i in 0..n {
        db.delete_range(&wo, &key(2 * i), &key(2 * i + 1)).unwrap();
        db.put(&wo, &key(2 * i + 1), b"v").unwrap();
        if i % 64 == 0 {
            assert!(db.get(&ro, &key(2 * i)).unwrap().is_none());
        }
    }
    check(&db);
    db.flush(&FlushOptions::default()).unwrap();
    check(&db);
    // A second table spanning the first, so the compaction merges them.
    db.put(&wo, &key(1), b"v").unwrap();
    db.put(&wo, &key(2 * n - 1), b"v").unwrap();
    db.compact_range(None, None).unwrap();
    check(&db);
    let work = key_comparisons() - before;
    db.release_snapshot(snapshot);
    db.close().unwrap();
    work
}

#[test]
fn range_deletion_work_grows_as_n_log_n() {
    let small = work_for(4_000);
    let large = work_for(40_000);
    eprintln!(
        "work: {small} -> {large} ({:.1}x)",
        large as f64 / small as f64
    );
    // Ten times the tombstones: `N log N` is about 12 times the work
    // (quadratic would be 100); 25 leaves room for the log factor and for
    // the small run's fixed costs being relatively smaller.
    assert!(
        large <= 25 * small,
        "10x the range deletions cost {large} key comparisons against {small}"
    );
    assert!(small > 0, "no range-deletion work counted");
}
