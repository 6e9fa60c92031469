use super::*;
use crate::iterator::InternalIterator;
use crate::key::parse_internal_key;
use std::sync::Arc;

#[test]
fn newest_visible_version_wins() {
    let m = MemTable::new(1);
    m.add(1, ValueKind::Value, b"k", b"v1");
    m.add(2, ValueKind::Value, b"k", b"v2");
    m.add(3, ValueKind::Deletion, b"k", b"");
    m.add(4, ValueKind::Value, b"k", b"v4");
    let mut v = Vec::new();
    assert_eq!(m.get(b"k", 0, &mut v), Lookup::Absent);
    assert_eq!(m.get(b"k", 1, &mut v), Lookup::Value(1));
    assert_eq!(v, b"v1");
    assert_eq!(m.get(b"k", 2, &mut v), Lookup::Value(2));
    assert_eq!(v, b"v2");
    assert_eq!(m.get(b"k", 3, &mut v), Lookup::Deleted(3));
    assert_eq!(m.get(b"k", 100, &mut v), Lookup::Value(4));
    assert_eq!(v, b"v4");
    assert_eq!(m.get(b"j", 100, &mut v), Lookup::Absent);
    assert_eq!(m.get(b"kk", 100, &mut v), Lookup::Absent);
    assert_eq!(m.num_entries(), 4);
    assert_eq!(m.num_deletes(), 1);
    assert_eq!(m.first_sequence(), Some(1));
    assert_eq!(m.last_sequence(), 4);
}

#[test]
fn prefix_keys_do_not_shadow_each_other() {
    let m = MemTable::new(1);
    m.add(5, ValueKind::Value, b"a", b"1");
    m.add(6, ValueKind::Value, b"a\0", b"2");
    m.add(7, ValueKind::Value, b"", b"empty");
    let mut v = Vec::new();
    assert_eq!(m.get(b"a", 9, &mut v), Lookup::Value(5));
    assert_eq!(v, b"1");
    assert_eq!(m.get(b"a\0", 9, &mut v), Lookup::Value(6));
    assert_eq!(m.get(b"", 9, &mut v), Lookup::Value(7));
    assert_eq!(v, b"empty");
}

#[test]
fn iterator_orders_user_keys_then_newest_first() {
    let m = Arc::new(MemTable::new(1));
    m.add(3, ValueKind::Value, b"b", b"b3");
    m.add(1, ValueKind::Value, b"a", b"a1");
    m.add(2, ValueKind::Value, b"a", b"a2");
    m.add(4, ValueKind::Deletion, b"c", b"");
    let mut it = MemTableIter::new(m.clone());
    it.seek_to_first();
    let mut seen = Vec::new();
    while it.valid() {
        let p = parse_internal_key(it.key()).unwrap();
        seen.push((p.user_key.to_vec(), p.seq));
        it.next();
    }
    assert_eq!(
        seen,
        vec![
            (b"a".to_vec(), 2),
            (b"a".to_vec(), 1),
            (b"b".to_vec(), 3),
            (b"c".to_vec(), 4)
        ]
    );
    it.seek_to_last();
    assert_eq!(parse_internal_key(it.key()).unwrap().user_key, b"c");
    it.prev();
    assert_eq!(it.value(), b"b3");
    it.seek(&crate::key::make_internal_key(b"a", 1, ValueKind::Value));
    assert_eq!(it.value(), b"a1");
    it.seek_for_prev(&crate::key::make_internal_key(b"a", 1, ValueKind::Value));
    assert_eq!(it.value(), b"a1");
    it.seek_for_prev(&crate::key::make_internal_key(b"a", 9, ValueKind::Value));
    assert!(!it.valid());
}

#[test]
fn range_tombstones_cover_by_sequence_and_range() {
    let m = MemTable::new(1);
    m.add(5, ValueKind::RangeDeletion, b"b", b"d");
    m.add(7, ValueKind::RangeDeletion, b"c", b"e");
    assert_eq!(m.max_covering_tombstone(b"a", 100), None);
    assert_eq!(m.max_covering_tombstone(b"b", 100), Some(5));
    assert_eq!(m.max_covering_tombstone(b"c", 100), Some(7));
    assert_eq!(m.max_covering_tombstone(b"c", 6), Some(5));
    assert_eq!(m.max_covering_tombstone(b"d", 100), Some(7));
    assert_eq!(m.max_covering_tombstone(b"e", 100), None);
    assert_eq!(m.max_covering_tombstone(b"c", 4), None);
}

#[test]
fn concurrent_inserts_are_all_visible() {
    let m = Arc::new(MemTable::new(1));
    let threads: Vec<_> = (0..8u64)
        .map(|t| {
            let m = m.clone();
            std::thread::spawn(move || {
                for i in 0..2000u64 {
                    let seq = t * 10_000 + i + 1;
                    m.add(
                        seq,
                        ValueKind::Value,
                        format!("k{t}-{i}").as_bytes(),
                        &seq.to_le_bytes(),
                    );
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(m.num_entries(), 16_000);
    let mut v = Vec::new();
    for t in 0..8u64 {
        for i in (0..2000u64).step_by(97) {
            let seq = t * 10_000 + i + 1;
            assert_eq!(
                m.get(format!("k{t}-{i}").as_bytes(), u64::MAX >> 8, &mut v),
                Lookup::Value(seq)
            );
            assert_eq!(v, seq.to_le_bytes());
        }
    }
}

#[test]
fn key_prefix_shortcut_keeps_internal_key_order() {
    // Short keys, shared 8-byte prefixes and zero bytes stress the padded
    // prefix comparison; iteration must match a sort by compare_internal.
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let m = Arc::new(MemTable::new(1));
    let mut want = Vec::new();
    for seq in 1..3000u64 {
        let len = rng.random_range(0..12);
        let k: Vec<u8> = (0..len)
            .map(|_| [0u8, 1, 0x61, 0xff][rng.random_range(0..4)])
            .collect();
        m.add(seq, ValueKind::Value, &k, b"");
        want.push(crate::key::make_internal_key(&k, seq, ValueKind::Value));
    }
    want.sort_by(|a, b| crate::key::compare_internal(a, b));
    let mut it = MemTableIter::new(m);
    it.seek_to_first();
    let mut got = Vec::new();
    while it.valid() {
        got.push(it.key().to_vec());
        it.next();
    }
    assert_eq!(got, want);
}

#[test]
fn a_dropped_memtable_gives_its_blocks_to_the_next_one() {
    use block_pool::BLOCK_BYTES;
    let pool = Arc::new(BlockPool::new(64 * BLOCK_BYTES));
    let value = vec![1u8; 1000];
    let m = MemTable::with_block_pool(1, Some(pool.clone()));
    for i in 0..2000u32 {
        m.add(u64::from(i) + 1, ValueKind::Value, &i.to_be_bytes(), &value);
    }
    assert_eq!(pool.retained_bytes(), 0);
    drop(m);
    // About 2 MB of entries: 8 full blocks, plus the head's and the last.
    let kept = pool.retained_bytes();
    assert!(
        (8 * BLOCK_BYTES..=12 * BLOCK_BYTES).contains(&kept),
        "{kept}"
    );
    let next = MemTable::with_block_pool(2, Some(pool.clone()));
    for i in 0..1000u32 {
        next.add(u64::from(i) + 1, ValueKind::Value, &i.to_be_bytes(), &value);
    }
    assert!(
        kept - pool.retained_bytes() >= 4 * BLOCK_BYTES,
        "the next memtable took its blocks from the pool"
    );
    let mut v = Vec::new();
    assert_eq!(
        next.get(&999u32.to_be_bytes(), 10_000, &mut v),
        Lookup::Value(1000)
    );
    assert_eq!(v, value);
    // A memtable without a pool frees its blocks.
    drop(MemTable::new(3));
}
