//! Table files no version needs any more are deleted — once nothing that
//! could still read them holds them. Regression tests, named after the bug.

use std::collections::BTreeSet;
use std::path::Path;

use talus::db::FlushOptions;
use talus::{Db, Options, WriteOptions};

fn opts() -> Options {
    Options {
        create_if_missing: true,
        disable_auto_compactions: true,
        ..Options::default()
    }
}

/// Table file numbers in `dir`.
fn tables_on_disk(dir: &Path) -> BTreeSet<u64> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".sst").map(|n| n.parse().unwrap())
        })
        .collect()
}

/// Table file numbers of the current version, from `rocksdb.sstables`.
fn live_tables(db: &Db) -> BTreeSet<u64> {
    db.property("rocksdb.sstables")
        .unwrap()
        .lines()
        .filter_map(|l| l.trim().split_once(':'))
        .map(|(n, _)| n.parse().unwrap())
        .collect()
}

/// Three L0 tables of overlapping keys.
fn three_l0_tables(db: &Db) {
    let wo = WriteOptions::default();
    for round in 0..3 {
        for i in 0..300 {
            let v = format!("value {round} {i}");
            db.put(&wo, format!("key{i:04}").as_bytes(), v.as_bytes())
                .unwrap();
        }
        db.flush(&FlushOptions::default()).unwrap();
    }
    assert_eq!(db.int_property("rocksdb.num-files-at-level0"), Some(3));
}

/// compact_range kept the version it picked its inputs from alive while
/// the compaction ran, so the compaction's end never deleted its inputs;
/// they stayed on disk until some later job finished.
#[test]
fn compact_range_deletes_the_tables_it_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(opts(), dir.path()).unwrap();
    three_l0_tables(&db);
    db.compact_range(None, None).unwrap();
    assert_eq!(db.int_property("rocksdb.num-files-at-level0"), Some(0));
    assert_eq!(tables_on_disk(dir.path()), live_tables(&db));
}
