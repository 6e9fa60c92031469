//! Prefix extractors, prefix filters and prefix seek against a `BTreeMap`
//! model, through flushes, compactions and reopens (with the same and with
//! another extractor); `key_may_exist` and `key_exists` against the same
//! model; read tiers, tailing iterators and reads that ignore range
//! deletions.
//!
//! What the model can check of each seek (module docs of `db::db_iter`):
//! - `total_order_seek` and `auto_prefix_mode`: exactly the model's keys;
//! - `prefix_same_as_start` after a seek to a key with prefix `P`: exactly
//!   the model's keys with `P` from the target on;
//! - RocksDB's prefix mode: the model's keys from the target, ending either
//!   exactly at the end of `P` or (when no table skipped the seek) not
//!   before the model does.

use std::collections::BTreeMap;
use std::path::Path;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use talus::db::{FlushOptions, KeyMayExist};
use talus::options::{PrefixExtractor, ReadTier};
use talus::{Code, Db, Options, ReadOptions, WriteOptions};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// Steps a check walks at most.
const STEPS: usize = 40;

fn options(extractor: PrefixExtractor, whole_key_filtering: bool) -> Options {
    let mut o = Options {
        create_if_missing: true,
        write_buffer_size: 64 << 10,
        target_file_size_base: 64 << 10,
        max_bytes_for_level_base: 256 << 10,
        level0_file_num_compaction_trigger: 2,
        prefix_extractor: Some(extractor),
        ..Options::default()
    };
    o.table.filter_bits_per_key = Some(10.0);
    o.table.whole_key_filtering = whole_key_filtering;
    o.table.block_size = 512;
    o
}

/// Keys over a small alphabet, so that many share prefixes of every length;
/// some are shorter than a fixed prefix.
fn random_key(rng: &mut StdRng) -> Vec<u8> {
    let len = rng.random_range(0..=6);
    (0..len).map(|_| b"abcd"[rng.random_range(0..4)]).collect()
}

fn prefix_of(e: PrefixExtractor, k: &[u8]) -> Option<Vec<u8>> {
    e.prefix_of(k).map(<[u8]>::to_vec)
}

/// Forward walk from `seek(target)`, at most [`STEPS`] keys.
fn walk_forward(db: &Db, ro: &ReadOptions, target: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut it = db.iter(ro).unwrap();
    it.seek(target);
    let mut out = Vec::new();
    while it.valid() && out.len() < STEPS {
        out.push((it.key().to_vec(), it.value().to_vec()));
        it.next();
    }
    it.status().unwrap();
    out
}

/// Backward walk from `seek_for_prev(target)`, at most [`STEPS`] keys.
fn walk_backward(db: &Db, ro: &ReadOptions, target: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut it = db.iter(ro).unwrap();
    it.seek_for_prev(target);
    let mut out = Vec::new();
    while it.valid() && out.len() < STEPS {
        out.push((it.key().to_vec(), it.value().to_vec()));
        it.prev();
    }
    it.status().unwrap();
    out
}

fn model_forward(m: &Model, target: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    m.range(target.to_vec()..)
        .take(STEPS)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn model_backward(m: &Model, target: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    m.range(..=target.to_vec())
        .rev()
        .take(STEPS)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The model's walk cut at the first key without `prefix`.
fn within(
    walk: &[(Vec<u8>, Vec<u8>)],
    e: PrefixExtractor,
    prefix: &[u8],
) -> Vec<(Vec<u8>, Vec<u8>)> {
    walk.iter()
        .take_while(|(k, _)| e.prefix_of(k) == Some(prefix))
        .cloned()
        .collect()
}

/// Checks every kind of seek to `target` against the model. `e` is the
/// extractor the database runs with.
fn check_seeks(db: &Db, m: &Model, e: PrefixExtractor, target: &[u8], ctx: &str) {
    let fwd = model_forward(m, target);
    let back = model_backward(m, target);
    let total = ReadOptions {
        total_order_seek: true,
        ..ReadOptions::default()
    };
    assert_eq!(
        walk_forward(db, &total, target),
        fwd,
        "{ctx}: total order seek {target:?}"
    );
    assert_eq!(
        walk_backward(db, &total, target),
        back,
        "{ctx}: total order seek_for_prev {target:?}"
    );

    let prefix_mode = ReadOptions::default();
    let same = ReadOptions {
        prefix_same_as_start: true,
        ..ReadOptions::default()
    };
    match prefix_of(e, target) {
        None => {
            // Outside the domain: every mode seeks in total order.
            assert_eq!(
                walk_forward(db, &prefix_mode, target),
                fwd,
                "{ctx}: out-of-domain seek {target:?}"
            );
            assert_eq!(
                walk_forward(db, &same, target),
                fwd,
                "{ctx}: out-of-domain same-as-start {target:?}"
            );
            assert_eq!(
                walk_backward(db, &same, target),
                back,
                "{ctx}: out-of-domain seek_for_prev {target:?}"
            );
        }
        Some(p) => {
            let fwd_p = within(&fwd, e, &p);
            let back_p = within(&back, e, &p);
            assert_eq!(
                walk_forward(db, &same, target),
                fwd_p,
                "{ctx}: same-as-start seek {target:?}"
            );
            assert_eq!(
                walk_backward(db, &same, target),
                back_p,
                "{ctx}: same-as-start seek_for_prev {target:?}"
            );
            for (got, all, part, what) in [
                (walk_forward(db, &prefix_mode, target), &fwd, &fwd_p, "seek"),
                (
                    walk_backward(db, &prefix_mode, target),
                    &back,
                    &back_p,
                    "seek_for_prev",
                ),
            ] {
                assert!(
                    got == *part || got == *all,
                    "{ctx}: prefix-mode {what} {target:?} (prefix {p:?}) gave {got:?}, \
                     want {part:?} or {all:?}"
                );
            }
            // Auto mode gives total-order results, bounded or not; with an
            // upper bound in the same prefix it may use the filters.
            for upper in [
                None,
                Some(p.clone()),
                Some(next_prefix(&p)),
                Some([&p[..], b"c"].concat()),
            ] {
                let auto = ReadOptions {
                    auto_prefix_mode: true,
                    iterate_upper_bound: upper.clone(),
                    ..ReadOptions::default()
                };
                let want: Vec<_> = fwd
                    .iter()
                    .filter(|(k, _)| upper.as_ref().is_none_or(|u| k < u))
                    .cloned()
                    .collect();
                let got = walk_forward(db, &auto, target);
                // The walk stops at STEPS; compare what both saw.
                assert_eq!(
                    got, want,
                    "{ctx}: auto mode seek {target:?} upper {upper:?}"
                );
            }
        }
    }
}

/// The key just above every key starting with `p` of the same length, or
/// `p` itself when there is none (all 0xff).
fn next_prefix(p: &[u8]) -> Vec<u8> {
    let mut v = p.to_vec();
    while let Some(last) = v.pop() {
        if last != 0xff {
            v.push(last + 1);
            return v;
        }
    }
    p.to_vec()
}

fn check_point_reads(db: &Db, m: &Model, rng: &mut StdRng, ctx: &str) {
    let ro = ReadOptions::default();
    let mut v = Vec::new();
    for (k, want) in m.iter() {
        let got = db.key_may_exist(&ro, k, &mut v).unwrap();
        assert_ne!(
            got,
            KeyMayExist::Absent,
            "{ctx}: key_may_exist false for present {k:?}"
        );
        if got == KeyMayExist::Found {
            assert_eq!(&v, want, "{ctx}: key_may_exist value of {k:?}");
        }
        assert!(db.key_exists(&ro, k).unwrap(), "{ctx}: key_exists {k:?}");
    }
    for _ in 0..200 {
        let k = random_key(rng);
        let present = m.get(&k);
        assert_eq!(
            db.key_exists(&ro, &k).unwrap(),
            present.is_some(),
            "{ctx}: key_exists {k:?}"
        );
        match db.key_may_exist(&ro, &k, &mut v).unwrap() {
            KeyMayExist::Absent => assert!(present.is_none(), "{ctx}: {k:?} is present"),
            KeyMayExist::Found => assert_eq!(Some(&v), present, "{ctx}: found {k:?}"),
            KeyMayExist::MayExist => {}
        }
        assert_eq!(
            db.get(&ro, &k).unwrap().as_ref(),
            present,
            "{ctx}: get {k:?}"
        );
    }
}

fn run(seed: u64, dir: &Path) {
    let mut rng = StdRng::seed_from_u64(seed);
    let n = rng.random_range(1..=4);
    let e = if rng.random_bool(0.5) {
        PrefixExtractor::Fixed(n)
    } else {
        PrefixExtractor::Capped(n)
    };
    let whole = rng.random_bool(0.5);
    let mut m = Model::new();
    let mut db = Db::open(options(e, whole), dir).unwrap();
    let wo = WriteOptions::default();
    let mut current = e;
    for step in 0..1500 {
        let ctx = format!("seed {seed} step {step} extractor {current:?} whole keys {whole}");
        match rng.random_range(0..100) {
            0..=59 => {
                let k = random_key(&mut rng);
                let v = format!("v{step}").into_bytes();
                db.put(&wo, &k, &v).unwrap();
                m.insert(k, v);
            }
            60..=74 => {
                let k = random_key(&mut rng);
                db.delete(&wo, &k).unwrap();
                m.remove(&k);
            }
            75..=76 => {
                let (a, b) = (random_key(&mut rng), random_key(&mut rng));
                let (a, b) = if a <= b { (a, b) } else { (b, a) };
                db.delete_range(&wo, &a, &b).unwrap();
                let doomed: Vec<_> = m
                    .range(a.clone()..b.clone())
                    .map(|(k, _)| k.clone())
                    .collect();
                for k in doomed {
                    m.remove(&k);
                }
            }
            77..=80 => db.flush(&FlushOptions::default()).unwrap(),
            81 => db.compact_range(None, None).unwrap(),
            82 => {
                // Reopen, sometimes with another extractor: tables written
                // with the old one must not be probed with the new one's
                // prefixes.
                db.close().unwrap();
                drop(db);
                if rng.random_bool(0.5) {
                    let n = rng.random_range(1..=4);
                    current = if rng.random_bool(0.5) {
                        PrefixExtractor::Fixed(n)
                    } else {
                        PrefixExtractor::Capped(n)
                    };
                }
                db = Db::open(options(current, whole), dir).unwrap();
            }
            83..=92 => {
                let t = random_key(&mut rng);
                check_seeks(&db, &m, current, &t, &ctx);
            }
            93..=94 => check_point_reads(&db, &m, &mut rng, &ctx),
            _ => {
                // seek_to_first / seek_to_last with prefix_same_as_start:
                // bounded to the first key's prefix.
                let ro = ReadOptions {
                    prefix_same_as_start: true,
                    ..ReadOptions::default()
                };
                let mut it = db.iter(&ro).unwrap();
                it.seek_to_first();
                let mut got = Vec::new();
                while it.valid() && got.len() < STEPS {
                    got.push(it.key().to_vec());
                    it.next();
                }
                let want: Vec<Vec<u8>> = match m.keys().next() {
                    None => Vec::new(),
                    Some(first) => match prefix_of(current, first) {
                        None => m.keys().take(STEPS).cloned().collect(),
                        Some(p) => m
                            .keys()
                            .take_while(|k| current.prefix_of(k) == Some(&p[..]))
                            .take(STEPS)
                            .cloned()
                            .collect(),
                    },
                };
                assert_eq!(got, want, "{ctx}: seek_to_first same-as-start");
            }
        }
    }
    db.close().unwrap();
}

#[test]
fn prefix_seek_matches_the_model_across_flushes_compactions_and_reopens() {
    for seed in 1..=6 {
        let dir = tempfile::tempdir().unwrap();
        run(seed, dir.path());
    }
}

/// A seek in prefix mode skips a table whose filter rules the prefix out,
/// and then stops at the end of the prefix instead of showing keys of
/// other prefixes that the skipped table would have hidden or shown.
#[test]
fn prefix_mode_stops_at_the_prefix_end_once_a_table_was_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let e = PrefixExtractor::Fixed(2);
    let db = Db::open(options(e, false), dir.path()).unwrap();
    let wo = WriteOptions::default();
    // Table 1: prefix "zz" only. Table 2: "aa" and "bb".
    db.put(&wo, b"zz1", b"1").unwrap();
    db.flush(&FlushOptions::default()).unwrap();
    db.put(&wo, b"aa1", b"2").unwrap();
    db.put(&wo, b"bb1", b"3").unwrap();
    db.delete(&wo, b"zz1").unwrap();
    db.flush(&FlushOptions::default()).unwrap();
    // Total order: the delete hides zz1.
    let total = ReadOptions {
        total_order_seek: true,
        ..ReadOptions::default()
    };
    let keys = |ro: &ReadOptions, t: &[u8]| -> Vec<Vec<u8>> {
        walk_forward(&db, ro, t)
            .into_iter()
            .map(|(k, _)| k)
            .collect()
    };
    assert_eq!(keys(&total, b"aa"), vec![b"aa1".to_vec(), b"bb1".to_vec()]);
    // Prefix mode: the first table has no "aa" keys and is skipped (unless
    // its filter errs), so the walk ends with the prefix.
    let got = keys(&ReadOptions::default(), b"aa");
    assert!(
        got == vec![b"aa1".to_vec()] || got == vec![b"aa1".to_vec(), b"bb1".to_vec()],
        "{got:?}"
    );
    db.close().unwrap();
}

#[test]
fn block_cache_tier_reads_do_no_io() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = options(PrefixExtractor::Fixed(1), true);
    o.prefix_extractor = None;
    let db = Db::open(o.clone(), dir.path()).unwrap();
    let wo = WriteOptions::default();
    for i in 0..2000u32 {
        db.put(&wo, format!("key{i:05}").as_bytes(), &[7u8; 100])
            .unwrap();
    }
    db.flush(&FlushOptions::default()).unwrap();
    db.close().unwrap();
    drop(db);
    let db = Db::open(o, dir.path()).unwrap();
    db.put(&wo, b"in-memtable", b"m").unwrap();
    let cached = ReadOptions {
        read_tier: ReadTier::BlockCache,
        ..ReadOptions::default()
    };
    // The memtable needs no IO.
    assert_eq!(
        db.get(&cached, b"in-memtable").unwrap().as_deref(),
        Some(&b"m"[..])
    );
    // A table not open yet, or a block not cached: Incomplete.
    let e = db.get(&cached, b"key00010").unwrap_err();
    assert_eq!(e.code(), Code::Incomplete, "{e}");
    let mut v = Vec::new();
    assert_eq!(
        db.key_may_exist(&ReadOptions::default(), b"key00010", &mut v)
            .unwrap(),
        KeyMayExist::MayExist
    );
    // Once read, the same lookups are served from memory.
    assert_eq!(
        db.get(&ReadOptions::default(), b"key00010")
            .unwrap()
            .unwrap(),
        vec![7u8; 100]
    );
    assert_eq!(
        db.get(&cached, b"key00010").unwrap().unwrap(),
        vec![7u8; 100]
    );
    assert_eq!(
        db.key_may_exist(&ReadOptions::default(), b"key00010", &mut v)
            .unwrap(),
        KeyMayExist::Found
    );
    assert_eq!(v, vec![7u8; 100]);
    // An iterator that would need IO ends with Incomplete.
    let mut it = db.iter(&cached).unwrap();
    it.seek_to_first();
    while it.valid() {
        it.next();
    }
    assert_eq!(it.status().unwrap_err().code(), Code::Incomplete);
    db.close().unwrap();
}

#[test]
fn tailing_iterators_see_later_writes_and_move_forward_only() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(options(PrefixExtractor::Fixed(1), true), dir.path()).unwrap();
    let wo = WriteOptions::default();
    db.put(&wo, b"a", b"1").unwrap();
    let tailing = ReadOptions {
        tailing: true,
        ..ReadOptions::default()
    };
    let mut it = db.iter(&tailing).unwrap();
    let mut plain = db.iter(&ReadOptions::default()).unwrap();
    db.put(&wo, b"b", b"2").unwrap();
    db.flush(&FlushOptions::default()).unwrap();
    db.put(&wo, b"c", b"3").unwrap();
    let keys = |it: &mut talus::db::DbIterator| {
        it.seek_to_first();
        let mut v = Vec::new();
        while it.valid() {
            v.push(it.key().to_vec());
            it.next();
        }
        v
    };
    assert_eq!(
        keys(&mut it),
        vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]
    );
    assert_eq!(keys(&mut plain), vec![b"a".to_vec()]);
    it.seek(b"b");
    assert_eq!(it.key(), b"b");
    it.prev();
    assert!(!it.valid());
    assert_eq!(it.status().unwrap_err().code(), Code::NotSupported);
    // A forward seek recovers.
    it.seek(b"a");
    assert!(it.valid());
    it.status().unwrap();
    db.close().unwrap();
}

#[test]
fn ignore_range_deletions_shows_covered_keys_until_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(options(PrefixExtractor::Fixed(1), true), dir.path()).unwrap();
    let wo = WriteOptions::default();
    db.put(&wo, b"k1", b"1").unwrap();
    db.put(&wo, b"k2", b"2").unwrap();
    db.flush(&FlushOptions::default()).unwrap();
    db.delete_range(&wo, b"k1", b"k3").unwrap();
    let ignoring = ReadOptions {
        ignore_range_deletions: true,
        ..ReadOptions::default()
    };
    let plain = ReadOptions::default();
    assert_eq!(db.get(&plain, b"k1").unwrap(), None);
    assert_eq!(
        db.get(&ignoring, b"k1").unwrap().as_deref(),
        Some(&b"1"[..])
    );
    let all = |ro: &ReadOptions| {
        let mut it = db.iter(ro).unwrap();
        it.seek_to_first();
        let mut n = 0;
        while it.valid() {
            n += 1;
            it.next();
        }
        n
    };
    assert_eq!((all(&plain), all(&ignoring)), (0, 2));
    db.compact_range(None, None).unwrap();
    assert_eq!(
        db.get(&ignoring, b"k1").unwrap(),
        None,
        "compaction removed them"
    );
    db.close().unwrap();
}
