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
