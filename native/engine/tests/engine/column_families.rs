//! Column families: a reference-model test across families (with create,
//! drop, flushes, compactions and reopens), and the rules of open, list,
//! create and drop.

use std::collections::BTreeMap;
use std::ops::Bound::{Excluded, Included};
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use talus::db::{ColumnFamilyHandle, FlushOptions};
use talus::error::Code;
use talus::fs::{FaultFs, FileSystem};
use talus::options::PrefixExtractor;
use talus::{Db, Options, ReadOptions, WriteBatch, WriteOptions};

fn base_options(fs: &FaultFs) -> Options {
    Options {
        create_if_missing: true,
        create_missing_column_families: true,
        fs: Arc::new(fs.clone()),
        stats_dump_period_sec: 0,
        write_buffer_size: 64 << 10,
        level0_file_num_compaction_trigger: 2,
        max_bytes_for_level_base: 256 << 10,
        target_file_size_base: 64 << 10,
        ..Options::default()
    }
}

fn wo() -> WriteOptions {
    WriteOptions::default()
}

fn ro() -> ReadOptions {
    ReadOptions::default()
}

/// Every (key, value) of a family, by iterator.
fn scan(db: &Db, cf: &ColumnFamilyHandle) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut it = db.iter_cf(&ro(), cf).unwrap();
    it.seek_to_first();
    let mut out = BTreeMap::new();
    while it.valid() {
        out.insert(it.key().to_vec(), it.value().to_vec());
        it.next();
    }
    it.status().unwrap();
    out
}

/// The model: each live family's contents, by name.
type Model = BTreeMap<String, BTreeMap<Vec<u8>, Vec<u8>>>;

struct Open {
    db: Db,
    handles: BTreeMap<String, ColumnFamilyHandle>,
}

fn open(fs: &FaultFs, names: &[String]) -> Open {
    let opts = base_options(fs);
    let list = names
        .iter()
        .map(|n| {
            // Each family its own memtable size: per-family options count.
            let mut o = opts.clone();
            o.write_buffer_size = (32 << 10) + (n.len() << 12);
            (n.clone(), o)
        })
        .collect();
    let (db, hs) = Db::open_cf(opts, "/db", list).unwrap();
    let handles = hs.into_iter().map(|h| (h.name().to_string(), h)).collect();
    Open { db, handles }
}

fn check_all(o: &Open, model: &Model, at: &str) {
    for (name, want) in model {
        let h = &o.handles[name];
        assert_eq!(&scan(&o.db, h), want, "family {name} at {at}");
    }
}

/// Random operations over 3–4 families — puts, deletes, range deletes,
/// batches spanning families, gets, flushes and compactions of one
/// family, family creation and drop, reopens — each checked against a
/// `BTreeMap` per family.
#[test]
fn families_agree_with_a_model_across_create_drop_flush_compaction_and_reopen() {
    for seed in 1..=3u64 {
        run_model(seed, 1500);
    }
}

fn run_model(seed: u64, ops: usize) {
    let fs = FaultFs::new(seed);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut names: Vec<String> = ["default", "users", "events", "idx"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut model: Model = names.iter().map(|n| (n.clone(), BTreeMap::new())).collect();
    let mut o = open(&fs, &names);
    let mut created = 0;
    let key = |r: &mut StdRng| format!("k{:04}", r.random_range(0..400)).into_bytes();
    for i in 0..ops {
        let at = format!("seed {seed} op {i}");
        let fam = names[rng.random_range(0..names.len())].clone();
        let h = o.handles[&fam].clone();
        match rng.random_range(0..100) {
            0..=39 => {
                let k = key(&mut rng);
                let v = vec![b'a' + (i % 26) as u8; rng.random_range(10..300)];
                o.db.put_cf(&wo(), &h, &k, &v).unwrap();
                model.get_mut(&fam).unwrap().insert(k, v);
            }
            40..=49 => {
                let k = key(&mut rng);
                o.db.delete_cf(&wo(), &h, &k).unwrap();
                model.get_mut(&fam).unwrap().remove(&k);
            }
            50..=53 => {
                let (a, b) = (key(&mut rng), key(&mut rng));
                let (a, b) = if a <= b { (a, b) } else { (b, a) };
                o.db.delete_range_cf(&wo(), &h, &a, &b).unwrap();
                let m = model.get_mut(&fam).unwrap();
                let gone: Vec<_> = m
                    .range::<[u8], _>((Included(&a[..]), Excluded(&b[..])))
                    .map(|(k, _)| k.clone())
                    .collect();
                for k in gone {
                    m.remove(&k);
                }
            }
            54..=69 => {
                // One batch across families.
                let mut b = WriteBatch::new();
                let mut after = model.clone();
                for _ in 0..rng.random_range(1..8) {
                    let f = &names[rng.random_range(0..names.len())];
                    let id = o.handles[f].id();
                    let k = key(&mut rng);
                    if rng.random_bool(0.8) {
                        let v = format!("batch {i} {f}").into_bytes();
                        b.put_cf(id, &k, &v);
                        after.get_mut(f).unwrap().insert(k, v);
                    } else {
                        b.delete_cf(id, &k);
                        after.get_mut(f).unwrap().remove(&k);
                    }
                }
                o.db.write(&wo(), b).unwrap();
                model = after;
            }
            70..=84 => {
                let k = key(&mut rng);
                let got = o.db.get_cf(&ro(), &h, &k).unwrap();
                assert_eq!(got.as_ref(), model[&fam].get(&k), "get {fam} at {at}");
            }
            85..=88 => {
                o.db.flush_cf(&FlushOptions::default(), &h).unwrap();
            }
            89..=90 => {
                o.db.compact_range_cf(&h, None, None).unwrap();
            }
            91..=93 if names.len() < 6 => {
                created += 1;
                let name = format!("new{seed}_{created}");
                let nh =
                    o.db.create_column_family(&base_options(&fs), &name)
                        .unwrap();
                o.handles.insert(name.clone(), nh);
                model.insert(name.clone(), BTreeMap::new());
                names.push(name);
            }
            94..=95 if names.len() > 2 && fam != "default" => {
                o.db.drop_column_family(&h).unwrap();
                assert!(o.db.get_cf(&ro(), &h, b"k").is_err(), "{at}");
                o.handles.remove(&fam);
                model.remove(&fam);
                names.retain(|n| *n != fam);
            }
            96..=97 => {
                drop(o);
                o = open(&fs, &names);
                check_all(&o, &model, &at);
            }
            _ => check_all(&o, &model, &at),
        }
        if i % 300 == 299 {
            check_all(&o, &model, &at);
        }
    }
    check_all(&o, &model, "end");
    let mut listed = Db::list_column_families(&base_options(&fs), "/db").unwrap();
    listed.sort();
    let mut want = names.clone();
    want.sort();
    assert_eq!(listed, want);
    o.db.close().unwrap();
}

#[test]
fn open_fails_naming_a_family_on_disk_that_is_not_listed() {
    let fs = FaultFs::new(1);
    let names = vec!["default".to_string(), "users".to_string()];
    let o = open(&fs, &names);
    o.db.put_cf(&wo(), &o.handles["users"], b"k", b"v").unwrap();
    drop(o);
    let e = Db::open(base_options(&fs), "/db").unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    assert!(e.to_string().contains("users"), "{e}");
    // A listed family not on disk, without create_missing_column_families.
    let opts = Options {
        create_missing_column_families: false,
        ..base_options(&fs)
    };
    let list = ["default", "users", "absent"]
        .iter()
        .map(|n| (n.to_string(), opts.clone()))
        .collect();
    let e = Db::open_cf(opts.clone(), "/db", list).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    assert!(e.to_string().contains("absent"), "{e}");
    // Without the default family.
    let e = Db::open_cf(opts.clone(), "/db", vec![("users".into(), opts.clone())]).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    // Nothing was lost by the refusals.
    let o = open(&fs, &names);
    assert_eq!(
        o.db.get_cf(&ro(), &o.handles["users"], b"k").unwrap(),
        Some(b"v".to_vec())
    );
}

#[test]
fn a_dropped_family_stays_dropped_its_handle_errors_and_its_tables_go() {
    let fs = FaultFs::new(2);
    let names = vec!["default".to_string(), "gone".to_string()];
    let o = open(&fs, &names);
    let h = o.handles["gone"].clone();
    for i in 0..2000u32 {
        o.db.put_cf(&wo(), &h, &i.to_be_bytes(), &[7u8; 100])
            .unwrap();
    }
    o.db.flush_cf(&FlushOptions::default(), &h).unwrap();
    o.db.put(&wo(), b"d", b"1").unwrap();
    let tables = |fs: &FaultFs| {
        fs.list_dir(std::path::Path::new("/db"))
            .unwrap()
            .into_iter()
            .filter(|n| n.ends_with(".sst"))
            .count()
    };
    assert!(tables(&fs) > 0);
    // An iterator made before the drop reads on.
    let mut it = o.db.iter_cf(&ro(), &h).unwrap();
    o.db.drop_column_family(&h).unwrap();
    assert!(h.is_dropped());
    it.seek_to_first();
    assert!(it.valid());
    let e = o.db.put_cf(&wo(), &h, b"k", b"v").unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
    assert!(e.to_string().contains("gone"), "{e}");
    let e = o.db.get_cf(&ro(), &h, b"k").unwrap_err();
    assert!(e.to_string().contains("dropped"), "{e}");
    assert!(o.db.drop_column_family(&h).is_err());
    assert!(
        o.db.drop_column_family(&o.db.default_column_family())
            .is_err()
    );
    // A batch naming the dropped family is refused whole.
    let mut b = WriteBatch::new();
    b.put(b"d", b"2");
    b.put_cf(h.id(), b"k", b"v");
    assert_eq!(
        o.db.write(&wo(), b).unwrap_err().code(),
        Code::InvalidArgument
    );
    assert_eq!(o.db.get(&ro(), b"d").unwrap(), Some(b"1".to_vec()));
    // Its tables go once the iterator lets go.
    drop(it);
    o.db.flush(&FlushOptions::default()).unwrap();
    o.db.compact_range(None, None).unwrap();
    let before_reopen = tables(&fs);
    drop(o);
    // Reopened without it: it is not on disk any more.
    let o = open(&fs, &["default".to_string()]);
    assert_eq!(o.db.get(&ro(), b"d").unwrap(), Some(b"1".to_vec()));
    assert_eq!(
        Db::list_column_families(&base_options(&fs), "/db").unwrap(),
        vec!["default".to_string()]
    );
    assert!(tables(&fs) <= before_reopen);
    assert_eq!(tables(&fs), 1, "only the default family's table is left");
    // A new family of the same name is a new, empty family.
    let nh =
        o.db.create_column_family(&base_options(&fs), "gone")
            .unwrap();
    assert_ne!(nh.id(), h.id(), "ids are never reused");
    assert_eq!(scan(&o.db, &nh).len(), 0);
    // A family of that name exists now: a second create is refused.
    let e =
        o.db.create_column_family(&base_options(&fs), "gone")
            .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e}");
}

/// Invariant 2 of `db::family`: a flush of one family keeps the logs
/// holding another family's unflushed writes, and a crash after it loses
/// none of them.
#[test]
fn a_flush_of_one_family_does_not_lose_another_familys_unflushed_writes() {
    let fs = FaultFs::new(3);
    let names = vec!["default".to_string(), "a".to_string(), "b".to_string()];
    let o = open(&fs, &names);
    let sync = WriteOptions {
        sync: true,
        ..WriteOptions::default()
    };
    for i in 0..300u32 {
        o.db.put_cf(&sync, &o.handles["a"], &i.to_be_bytes(), b"a")
            .unwrap();
        o.db.put_cf(&sync, &o.handles["b"], &i.to_be_bytes(), b"b")
            .unwrap();
        if i % 100 == 99 {
            o.db.flush_cf(&FlushOptions::default(), &o.handles["a"])
                .unwrap();
        }
    }
    assert!(
        o.db.int_property_cf(&o.handles["a"], "rocksdb.num-files-at-level0")
            .unwrap()
            > 0
    );
    assert_eq!(
        o.db.int_property_cf(&o.handles["b"], "rocksdb.num-files-at-level0"),
        Some(0)
    );
    fs.freeze();
    drop(o);
    fs.crash(talus::fs::Crash::PowerLoss);
    let o = open(&fs, &names);
    for f in ["a", "b"] {
        let got = scan(&o.db, &o.handles[f]);
        assert_eq!(got.len(), 300, "family {f}");
    }
}

/// `max_total_wal_size`: the family holding the oldest log is flushed, so
/// a family written once and then left alone does not keep every log alive.
#[test]
fn wal_pressure_flushes_the_family_holding_the_oldest_log() {
    let fs = FaultFs::new(4);
    let mut opts = base_options(&fs);
    opts.max_total_wal_size = 256 << 10;
    let list = ["default", "idle", "busy"]
        .iter()
        .map(|n| (n.to_string(), opts.clone()))
        .collect();
    let (db, hs) = Db::open_cf(opts, "/db", list).unwrap();
    db.put_cf(&wo(), &hs[1], b"once", b"1").unwrap();
    for i in 0..20_000u32 {
        db.put_cf(&wo(), &hs[2], &i.to_be_bytes(), &[1u8; 100])
            .unwrap();
    }
    db.wait_for_compactions().unwrap();
    assert!(
        db.int_property_cf(&hs[1], "rocksdb.num-files-at-level0")
            .unwrap()
            >= 1,
        "the idle family was flushed"
    );
    let logs = fs
        .list_dir(std::path::Path::new("/db"))
        .unwrap()
        .into_iter()
        .filter(|n| n.ends_with(".log"))
        .count();
    assert!(logs <= 4, "{logs} logs alive");
    drop(db);
    let (db, hs) = Db::open_cf(
        base_options(&fs),
        "/db",
        ["default", "idle", "busy"]
            .iter()
            .map(|n| (n.to_string(), base_options(&fs)))
            .collect(),
    )
    .unwrap();
    assert_eq!(
        db.get_cf(&ro(), &hs[1], b"once").unwrap(),
        Some(b"1".to_vec())
    );
    assert_eq!(scan(&db, &hs[2]).len(), 20_000);
}

/// Families are separate key spaces with their own options, properties
/// and merge operators.
#[test]
fn families_are_separate_key_spaces_with_their_own_options() {
    let fs = FaultFs::new(5);
    let mut with_merge = base_options(&fs);
    with_merge.merge_operator = Some(Arc::new(talus::merge::StringAppendOperator::new(",")));
    let (db, hs) = Db::open_cf(
        base_options(&fs),
        "/db",
        vec![
            ("default".into(), base_options(&fs)),
            ("m".into(), with_merge),
        ],
    )
    .unwrap();
    db.put(&wo(), b"k", b"default").unwrap();
    db.put_cf(&wo(), &hs[1], b"k", b"a").unwrap();
    db.merge_cf(&wo(), &hs[1], b"k", b"b").unwrap();
    assert_eq!(db.get(&ro(), b"k").unwrap(), Some(b"default".to_vec()));
    assert_eq!(
        db.get_cf(&ro(), &hs[1], b"k").unwrap(),
        Some(b"a,b".to_vec())
    );
    // The default family has no merge operator.
    assert!(db.merge(&wo(), b"k", b"x").is_err());
    assert_eq!(
        db.int_property_cf(&hs[1], "rocksdb.num-entries-active-mem-table"),
        Some(2)
    );
    assert_eq!(
        db.int_property("rocksdb.num-entries-active-mem-table"),
        Some(1)
    );
    db.flush_cf(&FlushOptions::default(), &hs[1]).unwrap();
    assert_eq!(
        db.int_property_cf(&hs[1], "rocksdb.num-files-at-level0"),
        Some(1)
    );
    assert_eq!(db.int_property("rocksdb.num-files-at-level0"), Some(0));
    assert!(
        db.property_cf(&hs[1], "rocksdb.stats")
            .unwrap()
            .contains("[m]")
    );
    let got = db
        .multi_get_cf(
            &ro(),
            &[
                (&hs[0], &b"k"[..]),
                (&hs[1], &b"k"[..]),
                (&hs[1], &b"x"[..]),
            ],
        )
        .unwrap();
    assert_eq!(
        got,
        vec![Some(b"default".to_vec()), Some(b"a,b".to_vec()), None]
    );
    assert_eq!(hs[0].id(), 0);
    assert_eq!(hs[0].name(), "default");
    assert_eq!(hs[1].name(), "m");
}

/// Single puts and deletes to several families from many threads at once,
/// with memtables small enough to switch between a writer preparing its
/// entry in a family's memtable and its group inserting it: every write is
/// in its own family with its last value, in no other family, and stays so
/// after a reopen. Pins the prepared (searched-outside-the-queue) insert of
/// one-entry writes to a family other than the default one.
#[test]
fn concurrent_single_writes_to_many_families_land_in_their_own_family() {
    let fs = FaultFs::new(7);
    let names: Vec<String> = ["default", "a", "b", "c"].map(String::from).to_vec();
    let o = open(&fs, &names);
    let o = Arc::new(o);
    const THREADS: usize = 6;
    const PER: usize = 3_000;
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let o = o.clone();
            let names = &names;
            s.spawn(move || {
                for i in 0..PER {
                    let f = &names[(t + i) % names.len()];
                    let h = &o.handles[f];
                    let k = format!("t{t}-k{:05}", i % 1_000).into_bytes();
                    if i % 7 == 6 {
                        o.db.delete_cf(&wo(), h, &k).unwrap();
                    } else {
                        let v = format!("{f}:{i}:{}", "v".repeat(40)).into_bytes();
                        o.db.put_cf(&wo(), h, &k, &v).unwrap();
                    }
                }
            });
        }
    });
    // The model: replay each thread's writes in order (threads own their keys).
    let mut model: Model = names.iter().map(|n| (n.clone(), BTreeMap::new())).collect();
    for t in 0..THREADS {
        for i in 0..PER {
            let f = &names[(t + i) % names.len()];
            let k = format!("t{t}-k{:05}", i % 1_000).into_bytes();
            let m = model.get_mut(f).unwrap();
            if i % 7 == 6 {
                m.remove(&k);
            } else {
                m.insert(k, format!("{f}:{i}:{}", "v".repeat(40)).into_bytes());
            }
        }
    }
    check_all(&o, &model, "after the concurrent writes");
    let o = Arc::into_inner(o).expect("writers are done");
    drop(o);
    let o = open(&fs, &names);
    check_all(&o, &model, "after a reopen");
}

// ---- Per-family table options (each family its own table factory) ----

/// The table options (and extractor) of variant `v`: the families rotate
/// through these across reopens, so each family's tables end up written
/// with several block sizes, restart intervals, filters and extractors.
fn table_variant(fs: &FaultFs, v: usize) -> Options {
    let mut o = base_options(fs);
    match v % 4 {
        0 => {
            o.table.block_size = 256;
            o.table.block_restart_interval = 2;
            o.table.filter_bits_per_key = None;
        }
        1 => {
            o.table.block_size = 4096;
            o.table.filter_bits_per_key = Some(10.0);
            o.prefix_extractor = Some(PrefixExtractor::Fixed(3));
        }
        2 => {
            o.table.block_size = 16 << 10;
            o.table.filter_bits_per_key = Some(6.0);
            o.table.whole_key_filtering = false;
            o.table.cache_index_and_filter_blocks = true;
            o.table.pin_l0_filter_and_index_blocks_in_cache = true;
            o.table.block_cache_size = 1 << 20;
            o.prefix_extractor = Some(PrefixExtractor::Capped(2));
        }
        _ => {
            o.table.block_size = 1024;
            o.table.block_restart_interval = 32;
            o.table.no_block_cache = true;
            o.table.filter_bits_per_key = Some(12.0);
            o.prefix_extractor = Some(PrefixExtractor::Fixed(2));
        }
    }
    o
}

/// Opens `names` with family `i` on table variant `variants[i]`.
fn open_with_tables(fs: &FaultFs, names: &[String], variants: &[usize]) -> Open {
    let list = names
        .iter()
        .zip(variants)
        .map(|(n, &v)| (n.clone(), table_variant(fs, v)))
        .collect();
    let (db, hs) = Db::open_cf(base_options(fs), "/db", list).unwrap();
    let handles = hs.into_iter().map(|h| (h.name().to_string(), h)).collect();
    Open { db, handles }
}

/// With `prefix_same_as_start`, a seek to `target` in a family whose
/// extractor is `e` yields exactly the model's keys with `target`'s prefix
/// from `target` on (a table skipped by its filter must not hide one).
fn check_prefix_seek(
    o: &Open,
    fam: &str,
    e: PrefixExtractor,
    want: &BTreeMap<Vec<u8>, Vec<u8>>,
    target: &[u8],
    at: &str,
) {
    let Some(p) = e.prefix_of(target) else {
        return;
    };
    let ro = ReadOptions {
        prefix_same_as_start: true,
        ..ReadOptions::default()
    };
    let mut it = o.db.iter_cf(&ro, &o.handles[fam]).unwrap();
    it.seek(target);
    let mut got = Vec::new();
    while it.valid() && got.len() < 50 {
        got.push((it.key().to_vec(), it.value().to_vec()));
        it.next();
    }
    it.status().unwrap();
    let model: Vec<_> = want
        .range(target.to_vec()..)
        .take_while(|(k, _)| k.starts_with(p))
        .take(50)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    assert_eq!(got, model, "prefix seek {target:?} in {fam} at {at}");
}

/// Random writes, point reads, prefix seeks, flushes and compactions over
/// four families, each with its own table options (block size, restart
/// interval, Bloom filter or none, whole-key filtering, prefix extractor,
/// index and filter blocks cached or not, a cache of its own or none),
/// reopened now and then with the variants rotated: every family reads
/// tables written under its earlier options, and agrees with a model.
#[test]
fn families_with_their_own_table_options_agree_with_a_model_across_reopens() {
    for seed in 11..=13u64 {
        let fs = FaultFs::new(seed);
        let mut rng = StdRng::seed_from_u64(seed);
        let names: Vec<String> = ["default", "a", "b", "c"].map(String::from).to_vec();
        let mut variants: Vec<usize> = vec![0, 1, 2, 3];
        let mut model: Model = names.iter().map(|n| (n.clone(), BTreeMap::new())).collect();
        let mut o = open_with_tables(&fs, &names, &variants);
        let key = |r: &mut StdRng| {
            let letter = b"abc"[r.random_range(0..3)];
            let mut k = vec![letter];
            k.extend_from_slice(format!("{:03}", r.random_range(0..300)).as_bytes());
            k.truncate(r.random_range(1..=4).max(2));
            k
        };
        for i in 0..1500 {
            let at = format!("seed {seed} op {i} variants {variants:?}");
            let fi = rng.random_range(0..names.len());
            let fam = names[fi].clone();
            let h = o.handles[&fam].clone();
            match rng.random_range(0..100) {
                0..=44 => {
                    let k = key(&mut rng);
                    let v = vec![b'a' + (i % 26) as u8; rng.random_range(5..200)];
                    o.db.put_cf(&wo(), &h, &k, &v).unwrap();
                    model.get_mut(&fam).unwrap().insert(k, v);
                }
                45..=54 => {
                    let k = key(&mut rng);
                    o.db.delete_cf(&wo(), &h, &k).unwrap();
                    model.get_mut(&fam).unwrap().remove(&k);
                }
                55..=74 => {
                    let k = key(&mut rng);
                    let got = o.db.get_cf(&ro(), &h, &k).unwrap();
                    assert_eq!(got.as_ref(), model[&fam].get(&k), "get {fam} at {at}");
                }
                75..=86 => {
                    let opts = table_variant(&fs, variants[fi]);
                    if let Some(e) = opts.prefix_extractor {
                        let k = key(&mut rng);
                        check_prefix_seek(&o, &fam, e, &model[&fam], &k, &at);
                    }
                }
                87..=92 => o.db.flush_cf(&FlushOptions::default(), &h).unwrap(),
                93..=94 => o.db.compact_range_cf(&h, None, None).unwrap(),
                95..=96 => {
                    drop(o);
                    let shift = rng.random_range(1..4);
                    for v in &mut variants {
                        *v += shift;
                    }
                    o = open_with_tables(&fs, &names, &variants);
                    check_all(&o, &model, &at);
                }
                _ => check_all(&o, &model, &at),
            }
        }
        check_all(&o, &model, "end");
        o.db.verify_checksum().unwrap();
        o.db.close().unwrap();
    }
}

fn cache_usage(db: &Db, h: &ColumnFamilyHandle) -> u64 {
    db.int_property_cf(h, "rocksdb.block-cache-usage").unwrap()
}

/// Writes `n` keys of 100-byte values to `h` and flushes them to a table.
fn fill_and_flush(db: &Db, h: &ColumnFamilyHandle, n: u32) {
    for i in 0..n {
        db.put_cf(&wo(), h, format!("key{i:06}").as_bytes(), &[b'v'; 100])
            .unwrap();
    }
    db.flush_cf(&FlushOptions::default(), h).unwrap();
}

fn read_all(db: &Db, h: &ColumnFamilyHandle, n: u32) {
    for i in 0..n {
        assert!(
            db.get_cf(&ro(), h, format!("key{i:06}").as_bytes())
                .unwrap()
                .is_some()
        );
    }
}

/// A family whose table options name no cache gets one of its own, of its
/// own size (RocksDB's table factory makes one): reads in family `a` fill
/// `a`'s cache and leave `b`'s (and the default family's) as they were; the
/// block-cache properties answer per family.
#[test]
fn a_family_without_a_cache_named_reads_through_a_cache_of_its_own() {
    let fs = FaultFs::new(21);
    let mut a = base_options(&fs);
    a.table.block_cache_size = 2 << 20;
    let mut b = base_options(&fs);
    b.table.block_cache_size = 3 << 20;
    let (db, hs) = Db::open_cf(
        base_options(&fs),
        "/db",
        vec![
            ("default".into(), base_options(&fs)),
            ("a".into(), a),
            ("b".into(), b),
        ],
    )
    .unwrap();
    let (d, a, b) = (&hs[0], &hs[1], &hs[2]);
    for (h, cap) in [(d, 8u64 << 20), (a, 2 << 20), (b, 3 << 20)] {
        assert_eq!(
            db.int_property_cf(h, "rocksdb.block-cache-capacity"),
            Some(cap),
            "family {}",
            h.name()
        );
    }
    assert!(!Arc::ptr_eq(
        a.block_cache().unwrap(),
        b.block_cache().unwrap()
    ));
    assert!(Arc::ptr_eq(
        db.block_cache().unwrap(),
        d.block_cache().unwrap()
    ));
    fill_and_flush(&db, a, 2000);
    fill_and_flush(&db, b, 2000);
    let (before_b, before_d) = (cache_usage(&db, b), cache_usage(&db, d));
    let before_a = cache_usage(&db, a);
    read_all(&db, a, 2000);
    assert!(
        cache_usage(&db, a) > before_a + 100_000,
        "a's reads filled a's cache: {before_a} -> {}",
        cache_usage(&db, a)
    );
    assert_eq!(
        cache_usage(&db, b),
        before_b,
        "b's cache untouched by a's reads"
    );
    assert_eq!(cache_usage(&db, d), before_d, "default's cache untouched");
    // And b's reads fill b's.
    read_all(&db, b, 2000);
    assert!(cache_usage(&db, b) > before_b + 100_000);
}

/// Families whose table options name the same cache object share it (as
/// RocksDB's table factories holding one `Cache`): reads in either fill the
/// one cache, each family's properties report it, and a family with
/// `no_block_cache` reports none.
#[test]
fn families_naming_one_cache_share_it() {
    let fs = FaultFs::new(22);
    let shared = Arc::new(talus::BlockCache::new(4 << 20, -1, false, 0.5).unwrap());
    let with_shared = || {
        let mut o = base_options(&fs);
        o.table.block_cache = Some(shared.clone());
        o
    };
    let mut none = base_options(&fs);
    none.table.no_block_cache = true;
    let (db, hs) = Db::open_cf(
        base_options(&fs),
        "/db",
        vec![
            ("default".into(), with_shared()),
            ("a".into(), with_shared()),
            ("none".into(), none),
        ],
    )
    .unwrap();
    let created = db.create_column_family(&with_shared(), "late").unwrap();
    for h in [&hs[0], &hs[1], &created] {
        assert!(
            Arc::ptr_eq(h.block_cache().unwrap(), &shared),
            "{}",
            h.name()
        );
        assert_eq!(
            db.int_property_cf(h, "rocksdb.block-cache-capacity"),
            Some(4 << 20)
        );
    }
    assert!(hs[2].block_cache().is_none());
    assert_eq!(
        db.int_property_cf(&hs[2], "rocksdb.block-cache-capacity"),
        Some(0)
    );
    fill_and_flush(&db, &hs[1], 2000);
    fill_and_flush(&db, &hs[2], 2000);
    let before = shared.usage();
    read_all(&db, &hs[1], 2000);
    let after_a = shared.usage();
    assert!(after_a > before + 100_000, "{before} -> {after_a}");
    assert_eq!(
        cache_usage(&db, &hs[0]),
        after_a as u64,
        "default sees a's blocks"
    );
    // Reads of the family without a cache put nothing in it.
    read_all(&db, &hs[2], 2000);
    assert_eq!(shared.usage(), after_a);
    fill_and_flush(&db, &created, 2000);
    read_all(&db, &created, 2000);
    assert!(
        shared.usage() > after_a,
        "the created family reads through it too"
    );
}

/// Regression: a family opened with default table options next to a
/// default family configured with a Bloom filter and a cache (the commonest
/// RocksJava program) was refused; table options are per family now.
#[test]
fn regression_family_with_default_table_config_was_refused() {
    let fs = FaultFs::new(23);
    let mut d = base_options(&fs);
    d.table.filter_bits_per_key = Some(10.0);
    d.table.block_size = 8 << 10;
    d.table.cache_index_and_filter_blocks = true;
    let plain = || {
        let mut o = base_options(&fs);
        o.table = Default::default();
        o
    };
    let names = ["default", "plain"];
    let list = |d: &Options| {
        vec![
            ("default".to_string(), d.clone()),
            ("plain".to_string(), plain()),
        ]
    };
    let (db, hs) = Db::open_cf(base_options(&fs), "/db", list(&d)).unwrap();
    for h in &hs {
        fill_and_flush(&db, h, 500);
    }
    assert_eq!(hs[0].options().table.filter_bits_per_key, Some(10.0));
    assert_eq!(hs[1].options().table.filter_bits_per_key, None);
    assert_eq!(hs[1].options().table.block_size, 4096);
    drop(db);
    // Reopened with the options swapped: each family reads its old tables.
    let (db, hs) = Db::open_cf(
        base_options(&fs),
        "/db",
        vec![
            (names[0].to_string(), plain()),
            (names[1].to_string(), d.clone()),
        ],
    )
    .unwrap();
    for h in &hs {
        read_all(&db, h, 500);
    }
    db.verify_checksum().unwrap();
}

/// A family's point lookups probe its tables' filters with the family's
/// own extractor (the tables were built with it): with whole-key filtering
/// off, a lookup of a key whose prefix is in no table is answered by the
/// prefix filter. Before, tables were built and read with the default
/// family's extractor (none here), and no filter answered.
#[test]
fn a_familys_lookups_use_the_prefix_filter_of_its_own_extractor() {
    let fs = FaultFs::new(24);
    let stats = talus::statistics::Statistics::new();
    let mut db_opts = base_options(&fs);
    db_opts.statistics = Some(stats.clone());
    let mut p = base_options(&fs);
    p.table.filter_bits_per_key = Some(10.0);
    p.table.whole_key_filtering = false;
    p.prefix_extractor = Some(PrefixExtractor::Fixed(3));
    let (db, hs) = Db::open_cf(
        db_opts,
        "/db",
        vec![("default".into(), base_options(&fs)), ("p".into(), p)],
    )
    .unwrap();
    for i in 0..500u32 {
        db.put_cf(
            &wo(),
            &hs[1],
            format!("aa{}{i:04}", 2 * (i % 5)).as_bytes(),
            b"v",
        )
        .unwrap();
    }
    db.flush_cf(&FlushOptions::default(), &hs[1]).unwrap();
    let useful = || stats.ticker_count(talus::statistics::Ticker::BloomFilterUseful);
    let before = useful();
    for i in 0..200u32 {
        // Prefixes aa1, aa3, aa5, aa7: inside the table's key range, in no key.
        let k = format!("aa{}{i:04}", 1 + 2 * (i % 4));
        assert_eq!(db.get_cf(&ro(), &hs[1], k.as_bytes()).unwrap(), None);
    }
    assert!(
        useful() >= before + 150,
        "the prefix filter answered {} of 200 lookups",
        useful() - before
    );
    // Prefix seeks in the family give exactly its keys.
    let ro = ReadOptions {
        prefix_same_as_start: true,
        ..ReadOptions::default()
    };
    let mut it = db.iter_cf(&ro, &hs[1]).unwrap();
    it.seek(b"aa2");
    let mut n = 0;
    while it.valid() {
        assert!(it.key().starts_with(b"aa2"));
        n += 1;
        it.next();
    }
    it.status().unwrap();
    assert_eq!(n, 100);
}
