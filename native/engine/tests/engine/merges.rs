//! Merge operators and single deletes through the public API: operands over
//! a put, a delete and nothing, across memtables, flushes and compactions,
//! at held snapshots, in both iterator directions; RocksDB's errors without
//! an operator; a database holding operands opened without its operator;
//! single deletes cancelling their put. The model test (`model`) mixes
//! merges and single deletes into random operations as well.

use std::sync::Arc;

use talus::db::FlushOptions;
use talus::merge::{self, StringAppendOperator, UInt64AddOperator};
use talus::statistics::{Histogram, Statistics, Ticker};
use talus::{Code, Db, Options, ReadOptions, WriteBatch, WriteOptions};

fn opts(op: Option<Arc<dyn merge::MergeOperator>>) -> Options {
    Options {
        create_if_missing: true,
        merge_operator: op,
        ..Options::default()
    }
}

fn append() -> Option<Arc<dyn merge::MergeOperator>> {
    Some(Arc::new(StringAppendOperator::default()))
}

fn get(db: &Db, key: &[u8]) -> Option<Vec<u8>> {
    db.get(&ReadOptions::default(), key).unwrap()
}

fn at(snapshot: u64) -> ReadOptions {
    ReadOptions {
        snapshot: Some(snapshot),
        ..ReadOptions::default()
    }
}

/// Every (key, value) forward, then backward (reversed back), then by
/// seek_for_prev from past each key: the three must agree.
fn scan(db: &Db, ro: &ReadOptions) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut it = db.iter(ro).unwrap();
    let mut fwd = Vec::new();
    it.seek_to_first();
    while it.valid() {
        fwd.push((it.key().to_vec(), it.value().to_vec()));
        it.next();
    }
    it.status().unwrap();
    let mut back = Vec::new();
    it.seek_to_last();
    while it.valid() {
        back.push((it.key().to_vec(), it.value().to_vec()));
        it.prev();
    }
    it.status().unwrap();
    back.reverse();
    assert_eq!(fwd, back, "forward and backward scans differ");
    for (k, v) in &fwd {
        let mut past = k.clone();
        past.push(0);
        it.seek_for_prev(&past);
        assert_eq!((it.key(), it.value()), (k.as_slice(), v.as_slice()));
        it.seek(k);
        assert_eq!((it.key(), it.value()), (k.as_slice(), v.as_slice()));
    }
    fwd
}

fn kv(k: &str, v: &str) -> (Vec<u8>, Vec<u8>) {
    (k.as_bytes().to_vec(), v.as_bytes().to_vec())
}

#[test]
fn merge_without_an_operator_is_refused_like_rocksdb_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(opts(None), dir.path()).unwrap();
    let wo = WriteOptions::default();
    let e = db.merge(&wo, b"k", b"v").unwrap_err();
    assert_eq!(e.code(), Code::NotSupported);
    assert!(e.to_string().contains("Provide a merge_operator"), "{e}");
    let mut b = WriteBatch::new();
    b.put(b"p", b"1");
    b.merge(b"k", b"v");
    let e = db.write(&wo, b).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.to_string().contains("merge_operator"), "{e}");
    assert_eq!(get(&db, b"p"), None, "no part of a refused batch lands");
    assert_eq!(db.latest_sequence_number(), 0);
    db.close().unwrap();
}

#[test]
fn operands_resolve_over_a_put_a_delete_and_nothing_across_memtables_and_levels() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(opts(append()), dir.path()).unwrap();
    let wo = WriteOptions::default();
    let flush = || db.flush(&FlushOptions::default()).unwrap();
    db.put(&wo, b"a", b"1").unwrap();
    db.merge(&wo, b"a", b"2").unwrap();
    db.put(&wo, b"b", b"old").unwrap();
    flush();
    db.merge(&wo, b"a", b"3").unwrap();
    db.delete(&wo, b"b").unwrap();
    db.merge(&wo, b"c", b"x").unwrap();
    db.compact_range(None, None).unwrap();
    db.merge(&wo, b"a", b"4").unwrap();
    db.merge(&wo, b"b", b"new").unwrap();
    flush();
    db.merge(&wo, b"c", b"y").unwrap();
    db.merge(&wo, b"d", b"only").unwrap();
    db.single_delete(&wo, b"e").unwrap();
    let want = vec![
        kv("a", "1,2,3,4"),
        kv("b", "new"),
        kv("c", "x,y"),
        kv("d", "only"),
    ];
    let check = |db: &Db| {
        for (k, v) in &want {
            assert_eq!(get(db, k).as_deref(), Some(v.as_slice()), "{k:?}");
        }
        let keys: Vec<&[u8]> = [b"a", b"b", b"c", b"d", b"e"].map(|k| &k[..]).to_vec();
        let got = db.multi_get(&ReadOptions::default(), &keys).unwrap();
        assert_eq!(got.len(), 5);
        assert_eq!(got[4], None);
        for ((_, v), g) in want.iter().zip(&got) {
            assert_eq!(g.as_ref(), Some(v));
        }
        assert_eq!(scan(db, &ReadOptions::default()), want);
    };
    check(&db);
    db.compact_range(None, None).unwrap();
    check(&db);
    db.close().unwrap();
    drop(db);
    let db = Db::open(opts(append()), dir.path()).unwrap();
    check(&db);
    db.close().unwrap();
}

#[test]
fn a_snapshot_keeps_the_operands_it_sees_through_flushes_and_compactions() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(opts(append()), dir.path()).unwrap();
    let wo = WriteOptions::default();
    db.put(&wo, b"k", b"a").unwrap();
    db.merge(&wo, b"k", b"b").unwrap();
    let s1 = db.snapshot().unwrap();
    db.merge(&wo, b"k", b"c").unwrap();
    db.merge(&wo, b"n", b"1").unwrap();
    let s2 = db.snapshot().unwrap();
    db.merge(&wo, b"k", b"d").unwrap();
    db.merge(&wo, b"n", b"2").unwrap();
    let check = |db: &Db| {
        let r1 = at(s1.sequence_number());
        let r2 = at(s2.sequence_number());
        assert_eq!(db.get(&r1, b"k").unwrap().as_deref(), Some(&b"a,b"[..]));
        assert_eq!(db.get(&r1, b"n").unwrap(), None);
        assert_eq!(db.get(&r2, b"k").unwrap().as_deref(), Some(&b"a,b,c"[..]));
        assert_eq!(db.get(&r2, b"n").unwrap().as_deref(), Some(&b"1"[..]));
        assert_eq!(get(db, b"k").as_deref(), Some(&b"a,b,c,d"[..]));
        assert_eq!(get(db, b"n").as_deref(), Some(&b"1,2"[..]));
        assert_eq!(scan(db, &r1), vec![kv("k", "a,b")]);
        assert_eq!(scan(db, &r2), vec![kv("k", "a,b,c"), kv("n", "1")]);
    };
    check(&db);
    db.flush(&FlushOptions::default()).unwrap();
    check(&db);
    db.compact_range(None, None).unwrap();
    check(&db);
    db.release_snapshot(s1);
    db.release_snapshot(s2);
    db.compact_range(None, None).unwrap();
    assert_eq!(get(&db, b"k").as_deref(), Some(&b"a,b,c,d"[..]));
    assert_eq!(get(&db, b"n").as_deref(), Some(&b"1,2"[..]));
    db.close().unwrap();
}

#[test]
fn uint64add_counts_and_treats_malformed_operands_as_zero() {
    let dir = tempfile::tempdir().unwrap();
    let stats = Statistics::new();
    let db = Db::open(
        Options {
            statistics: Some(stats.clone()),
            ..opts(Some(Arc::new(UInt64AddOperator)))
        },
        dir.path(),
    )
    .unwrap();
    let wo = WriteOptions::default();
    let n = |x: u64| x.to_le_bytes();
    db.merge(&wo, b"hits", &n(1)).unwrap();
    db.merge(&wo, b"hits", &n(41)).unwrap();
    db.flush(&FlushOptions::default()).unwrap();
    db.merge(&wo, b"hits", b"not a number").unwrap();
    db.merge(&wo, b"hits", &n(100)).unwrap();
    assert_eq!(get(&db, b"hits").as_deref(), Some(&n(142)[..]));
    assert_eq!(
        stats.histogram_data(Histogram::ReadNumMergeOperands).count,
        1
    );
    assert_eq!(stats.ticker_count(Ticker::NumberMergeFailures), 0);
    db.put(&wo, b"hits", b"bad").unwrap();
    db.merge(&wo, b"hits", &n(5)).unwrap();
    assert_eq!(get(&db, b"hits").as_deref(), Some(&n(5)[..]));
    db.compact_range(None, None).unwrap();
    assert_eq!(get(&db, b"hits").as_deref(), Some(&n(5)[..]));
    db.close().unwrap();
}

/// A database written with merges and opened without its operator: open
/// and other keys work, reads that need the operands fail with RocksDB's
/// InvalidArgument, flushes and compactions keep the operands, and the
/// next open with the operator reads every value.
#[test]
fn operands_opened_without_their_operator_fail_reads_and_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let wo = WriteOptions::default();
    {
        let db = Db::open(opts(append()), dir.path()).unwrap();
        db.put(&wo, b"a", b"1").unwrap();
        db.merge(&wo, b"a", b"2").unwrap();
        db.merge(&wo, b"m", b"x").unwrap();
        db.flush(&FlushOptions::default()).unwrap();
        db.merge(&wo, b"a", b"3").unwrap();
        db.merge(&wo, b"m", b"y").unwrap();
        db.put(&wo, b"p", b"plain").unwrap();
        db.close().unwrap(); // the last writes stay in the WAL
    }
    {
        let db = Db::open(opts(None), dir.path()).unwrap();
        assert_eq!(get(&db, b"p").as_deref(), Some(&b"plain"[..]));
        for k in [&b"a"[..], b"m"] {
            let e = db.get(&ReadOptions::default(), k).unwrap_err();
            assert_eq!(e.code(), Code::InvalidArgument);
            assert!(e.to_string().contains(merge::NO_OPERATOR), "{e}");
        }
        let mut it = db.iter(&ReadOptions::default()).unwrap();
        it.seek_to_first();
        assert!(!it.valid());
        assert_eq!(it.status().unwrap_err().code(), Code::InvalidArgument);
        it.seek(b"p");
        assert_eq!(it.key(), b"p");
        // Overwriting a key makes it readable again.
        db.put(&wo, b"m", b"reset").unwrap();
        db.merge(&wo, b"a", b"4").unwrap_err();
        db.compact_range(None, None).unwrap();
        assert_eq!(get(&db, b"m").as_deref(), Some(&b"reset"[..]));
        assert_eq!(
            db.get(&ReadOptions::default(), b"a").unwrap_err().code(),
            Code::InvalidArgument
        );
        db.close().unwrap();
    }
    let db = Db::open(opts(append()), dir.path()).unwrap();
    assert_eq!(get(&db, b"a").as_deref(), Some(&b"1,2,3"[..]));
    assert_eq!(
        scan(&db, &ReadOptions::default()),
        vec![kv("a", "1,2,3"), kv("m", "reset"), kv("p", "plain")]
    );
    db.close().unwrap();
}

fn files(db: &Db) -> u64 {
    (0..7)
        .map(|l| {
            db.int_property(&format!("rocksdb.num-files-at-level{l}"))
                .unwrap_or(0)
        })
        .sum()
}

#[test]
fn single_deletes_and_their_puts_leave_nothing_after_a_flush() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(opts(None), dir.path()).unwrap();
    let wo = WriteOptions::default();
    for i in 0..100u32 {
        db.put(&wo, &i.to_be_bytes(), b"transient").unwrap();
    }
    for i in 0..100u32 {
        db.single_delete(&wo, &i.to_be_bytes()).unwrap();
    }
    db.flush(&FlushOptions::default()).unwrap();
    assert_eq!(files(&db), 0, "every pair cancelled: no table written");
    assert!(scan(&db, &ReadOptions::default()).is_empty());
    db.close().unwrap();
}

#[test]
fn a_snapshot_between_a_single_delete_and_its_put_keeps_both() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(opts(None), dir.path()).unwrap();
    let wo = WriteOptions::default();
    db.put(&wo, b"k", b"v").unwrap();
    let s = db.snapshot().unwrap();
    db.single_delete(&wo, b"k").unwrap();
    db.flush(&FlushOptions::default()).unwrap();
    assert_eq!(files(&db), 1);
    db.compact_range(None, None).unwrap();
    let r = at(s.sequence_number());
    assert_eq!(db.get(&r, b"k").unwrap().as_deref(), Some(&b"v"[..]));
    assert_eq!(get(&db, b"k"), None);
    assert_eq!(files(&db), 1, "the compaction kept both for the snapshot");
    db.release_snapshot(s);
    assert_eq!(get(&db, b"k"), None);
    db.close().unwrap();
}

/// RocksDB leaves a single delete over two puts undefined (the older put
/// may come back); Talus reads it as a delete through every flush and
/// compaction.
#[test]
fn a_single_delete_over_two_puts_deletes_the_key_for_good() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(opts(None), dir.path()).unwrap();
    let wo = WriteOptions::default();
    db.put(&wo, b"k", b"first").unwrap();
    db.flush(&FlushOptions::default()).unwrap();
    db.compact_range(None, None).unwrap();
    db.put(&wo, b"k", b"second").unwrap();
    db.single_delete(&wo, b"k").unwrap();
    assert_eq!(get(&db, b"k"), None);
    db.flush(&FlushOptions::default()).unwrap();
    assert_eq!(get(&db, b"k"), None);
    db.compact_range(None, None).unwrap();
    assert_eq!(get(&db, b"k"), None);
    assert!(scan(&db, &ReadOptions::default()).is_empty());
    db.close().unwrap();
}
