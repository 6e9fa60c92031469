//! `SstFileWriter` and `Db::ingest_external_file`: files written outside
//! the database and ingested, into an empty database, over data in the
//! memtable and the levels (global sequence number), behind everything,
//! per column family; and the files refused (out of order, corrupt, a
//! database's own table, overlapping each other).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use talus::{
    Code, Db, IngestExternalFileOptions, Options, ReadOptions, SstFileWriter, WriteOptions,
};

fn opts() -> Options {
    Options {
        create_if_missing: true,
        ..Options::default()
    }
}

/// Writes `rows` (sorted) to `path` with a writer of `o`.
fn write_sst(o: &Options, path: &Path, rows: &[(&[u8], &[u8])]) -> talus::ExternalSstFileInfo {
    let mut w = SstFileWriter::new(o);
    w.open(path).unwrap();
    for (k, v) in rows {
        w.put(k, v).unwrap();
    }
    w.finish().unwrap()
}

fn key(i: u32) -> Vec<u8> {
    format!("k{i:06}").into_bytes()
}

/// A file of keys `range` with value `tag` + key.
fn sst_of(o: &Options, path: &Path, range: std::ops::Range<u32>, tag: &str) -> PathBuf {
    let mut w = SstFileWriter::new(o);
    w.open(path).unwrap();
    for i in range {
        w.put(&key(i), format!("{tag}{i}").as_bytes()).unwrap();
    }
    w.finish().unwrap();
    path.to_path_buf()
}

/// Ingests `tags.len()` files whose keys interleave over `0..end`: file `i`
/// holds keys `i, i + n, i + 2n, ...` (`n` files), each valued `value(tag,
/// k)`, so every file spans the key space (an import of sorted chunks of
/// random keys).
fn ingest_interleaved(
    db: &Db,
    o: &Options,
    dir: &Path,
    tags: &[&str],
    end: u32,
    value: impl Fn(&str, u32) -> String,
) {
    for (i, tag) in tags.iter().enumerate() {
        let f = dir.join(format!("{tag}.sst"));
        let mut w = SstFileWriter::new(o);
        w.open(&f).unwrap();
        for k in (i as u32..end).step_by(tags.len()) {
            w.put(&key(k), value(tag, k).as_bytes()).unwrap();
        }
        w.finish().unwrap();
        db.ingest_external_file(&[&f], &IngestExternalFileOptions::default())
            .unwrap();
    }
}

fn all(db: &Db, ro: &ReadOptions) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut it = db.iter(ro).unwrap();
    it.seek_to_first();
    let mut out = BTreeMap::new();
    while it.valid() {
        out.insert(it.key().to_vec(), it.value().to_vec());
        it.next();
    }
    it.status().unwrap();
    out
}

fn level_of_files(db: &Db) -> String {
    db.property("rocksdb.num-files-at-level0")
        .map(|_| {
            (0..7)
                .map(|l| {
                    db.property(&format!("rocksdb.num-files-at-level{l}"))
                        .unwrap_or_default()
                })
                .collect::<Vec<_>>()
                .join(",")
        })
        .unwrap_or_default()
}

#[test]
fn writer_reports_what_it_wrote_and_refuses_out_of_order_and_duplicate_keys() {
    let dir = tempfile::tempdir().unwrap();
    let o = opts();
    let mut w = SstFileWriter::new(&o);
    w.open(dir.path().join("a.sst")).unwrap();
    w.put(b"b", b"1").unwrap();
    w.merge(b"c", b"2").unwrap();
    w.delete(b"d").unwrap();
    w.delete_range(b"x", b"z").unwrap();
    let e = w.put(b"c", b"again").unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let _ = w.file_size();
    let e = w.put(b"a", b"back").unwrap_err();
    assert!(e.to_string().contains("out of order"), "{e}");
    assert!(w.file_size() > 0);
    let info = w.finish().unwrap();
    assert_eq!(info.smallest_key, b"b");
    assert_eq!(info.largest_key, b"d");
    assert_eq!(info.smallest_range_del_key, b"x");
    assert_eq!(info.largest_range_del_key, b"z");
    assert_eq!(info.num_entries, 3);
    assert_eq!(info.num_range_del_entries, 1);
    assert_eq!(info.sequence_number, 0);
    assert_eq!(
        info.file_size,
        std::fs::metadata(dir.path().join("a.sst")).unwrap().len()
    );
    // An empty file is refused and not left behind.
    w.open(dir.path().join("empty.sst")).unwrap();
    let e = w.finish().unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(!dir.path().join("empty.sst").exists());
    // Without open.
    assert_eq!(w.put(b"k", b"v").unwrap_err().code(), Code::InvalidArgument);
}

#[test]
fn ingest_into_an_empty_database_goes_to_the_last_level_at_sequence_zero() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(opts(), dir.path().join("db")).unwrap();
    let o = opts();
    let a = sst_of(&o, &dir.path().join("a.sst"), 0..500, "a");
    let b = sst_of(&o, &dir.path().join("b.sst"), 500..1000, "b");
    db.ingest_external_file(&[&b, &a], &IngestExternalFileOptions::default())
        .unwrap();
    assert_eq!(db.latest_sequence_number(), 0);
    assert_eq!(level_of_files(&db), "0,0,0,0,0,0,2");
    let got = all(&db, &ReadOptions::default());
    assert_eq!(got.len(), 1000);
    assert_eq!(got[&key(7)], b"a7");
    assert_eq!(got[&key(777)], b"b777");
    // Copied: the originals stay.
    assert!(a.exists() && b.exists());
    // Survives a reopen, checksums verified.
    drop(db);
    let db = Db::open(opts(), dir.path().join("db")).unwrap();
    db.verify_checksum().unwrap();
    assert_eq!(
        db.get(&ReadOptions::default(), &key(999)).unwrap().unwrap(),
        b"b999"
    );
    // A write after the ingestion wins over the ingested row.
    db.put(&WriteOptions::default(), &key(1), b"new").unwrap();
    assert_eq!(
        db.get(&ReadOptions::default(), &key(1)).unwrap().unwrap(),
        b"new"
    );
}

#[test]
fn overlapping_files_skip_the_levels_above_the_base() {
    // Regression: each overlapping file went one level higher (L6, L5, ...
    // L1), which made L1 the base level of an empty-but-for-ingestion
    // database, so its compactions rewrote every level on the way down.
    // With dynamic level sizing (the default) a file that overlaps the last
    // level goes to L0, as in RocksDB.
    let dir = tempfile::tempdir().unwrap();
    let o = Options {
        disable_auto_compactions: true,
        ..opts()
    };
    let db = Db::open(o.clone(), dir.path().join("db")).unwrap();
    for (i, tag) in ["a", "b", "c", "d"].iter().enumerate() {
        let f = sst_of(&o, &dir.path().join(format!("{tag}.sst")), 0..300, tag);
        db.ingest_external_file(&[&f], &IngestExternalFileOptions::default())
            .unwrap();
        let want = match i {
            0 => "0,0,0,0,0,0,1".to_string(),
            n => format!("{n},0,0,0,0,0,1"),
        };
        assert_eq!(level_of_files(&db), want, "after file {tag}");
    }
    assert_eq!(
        db.get(&ReadOptions::default(), &key(5)).unwrap().unwrap(),
        b"d5"
    );
    // Without dynamic level sizing every level is a candidate, as before.
    let dir2 = tempfile::tempdir().unwrap();
    let o2 = Options {
        disable_auto_compactions: true,
        level_compaction_dynamic_level_bytes: false,
        ..opts()
    };
    let db2 = Db::open(o2.clone(), dir2.path().join("db")).unwrap();
    for tag in ["a", "b"] {
        let f = sst_of(&o2, &dir2.path().join(format!("{tag}.sst")), 0..300, tag);
        db2.ingest_external_file(&[&f], &IngestExternalFileOptions::default())
            .unwrap();
    }
    assert_eq!(level_of_files(&db2), "0,0,0,0,0,1,1");
}

/// The table files of a database directory, by name.
fn table_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".sst"))
        .collect();
    names.sort();
    names
}

#[test]
fn compact_range_after_overlapping_ingestions_merges_l0_into_the_last_level_once() {
    // The shape of an import by ingestion of sorted chunks of random keys:
    // every file spans the key space. The first goes to the last level,
    // each later one overlaps it and goes to L0 (as in RocksDB). One
    // compactRange merges L0 into the last level; a second one has nothing
    // above the last level and, with the default bottommost-level option
    // (kIfHaveCompactionFilter, no filter), rewrites nothing (as RocksDB's).
    let dir = tempfile::tempdir().unwrap();
    let o = Options {
        disable_auto_compactions: true,
        ..opts()
    };
    let path = dir.path().join("db");
    let db = Db::open(o.clone(), &path).unwrap();
    ingest_interleaved(
        &db,
        &o,
        dir.path(),
        &["a", "b", "c", "d", "e"],
        500,
        |tag, k| format!("{tag}{k}"),
    );
    assert_eq!(level_of_files(&db), "4,0,0,0,0,0,1");
    db.compact_range(None, None).unwrap();
    assert_eq!(level_of_files(&db), "0,0,0,0,0,0,1");
    let once = table_files(&path);
    db.compact_range(None, None).unwrap();
    assert_eq!(table_files(&path), once, "the last level is not rewritten");
    let got = all(&db, &ReadOptions::default());
    assert_eq!(got.len(), 500);
    assert_eq!(got[&key(7)], b"c7");
    assert_eq!(got[&key(499)], b"e499");
}

#[test]
fn move_files_links_and_removes_the_originals() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(opts(), dir.path().join("db")).unwrap();
    let a = sst_of(&opts(), &dir.path().join("a.sst"), 0..100, "a");
    let io = IngestExternalFileOptions {
        move_files: true,
        ..Default::default()
    };
    db.ingest_external_file(&[&a], &io).unwrap();
    assert!(!a.exists(), "moved");
    assert_eq!(all(&db, &ReadOptions::default()).len(), 100);
}

/// Data in the memtable and in the levels overlapping the file: the file
/// takes a global sequence number, wins over the older rows, and a
/// snapshot taken before the ingestion does not see it, before and after
/// compactions and a reopen.
#[test]
fn overlapping_memtable_and_levels_take_a_global_seqno_hidden_from_older_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(opts(), dir.path().join("db")).unwrap();
    let wo = WriteOptions::default();
    for i in 0..100 {
        db.put(&wo, &key(i), b"old").unwrap();
    }
    db.compact_range(None, None).unwrap(); // in the last level
    for i in 50..150 {
        db.put(&wo, &key(i), b"mem").unwrap(); // in the memtable
    }
    let snap = db.snapshot().unwrap();
    let before = db.latest_sequence_number();
    let f = sst_of(&opts(), &dir.path().join("f.sst"), 0..200, "f");
    db.ingest_external_file(&[&f], &IngestExternalFileOptions::default())
        .unwrap();
    let g = db.latest_sequence_number();
    assert_eq!(g, before + 1, "one global sequence number");
    let ro = ReadOptions::default();
    let now = all(&db, &ro);
    assert_eq!(now.len(), 200);
    assert!(
        now.values()
            .enumerate()
            .all(|(i, v)| v == format!("f{i}").as_bytes())
    );
    assert_eq!(db.get(&ro, &key(60)).unwrap().unwrap(), b"f60");
    let at_snap = ReadOptions {
        snapshot: Some(snap.sequence_number()),
        ..ReadOptions::default()
    };
    let check_snapshot = |db: &Db| {
        let old = all(db, &at_snap);
        assert_eq!(old.len(), 150);
        assert_eq!(old[&key(10)], b"old");
        assert_eq!(old[&key(60)], b"mem");
        assert_eq!(db.get(&at_snap, &key(60)).unwrap().unwrap(), b"mem");
        assert_eq!(db.get(&at_snap, &key(170)).unwrap(), None);
    };
    check_snapshot(&db);
    // Newer writes win over the ingested rows.
    db.put(&wo, &key(5), b"after").unwrap();
    db.compact_range(None, None).unwrap();
    check_snapshot(&db);
    assert_eq!(db.get(&ro, &key(5)).unwrap().unwrap(), b"after");
    assert_eq!(db.get(&ro, &key(6)).unwrap().unwrap(), b"f6");
    db.release_snapshot(snap);
    drop(db);
    let db = Db::open(opts(), dir.path().join("db")).unwrap();
    assert!(db.latest_sequence_number() > g);
    assert_eq!(db.get(&ro, &key(5)).unwrap().unwrap(), b"after");
    assert_eq!(db.get(&ro, &key(199)).unwrap().unwrap(), b"f199");
}

/// The global sequence number recorded in the manifest survives a reopen
/// before any compaction: the file still wins over the older rows below it
/// and new writes get higher numbers.
#[test]
fn global_seqno_survives_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let db = Db::open(opts(), &path).unwrap();
    let wo = WriteOptions::default();
    for i in 0..10 {
        db.put(&wo, &key(i), b"old").unwrap();
    }
    db.flush(&Default::default()).unwrap();
    let f = sst_of(&opts(), &dir.path().join("f.sst"), 0..10, "f");
    db.ingest_external_file(&[&f], &IngestExternalFileOptions::default())
        .unwrap();
    let g = db.latest_sequence_number();
    drop(db);
    let db = Db::open(opts(), &path).unwrap();
    assert_eq!(db.latest_sequence_number(), g);
    assert_eq!(all(&db, &ReadOptions::default())[&key(3)], b"f3");
    db.put(&wo, &key(3), b"new").unwrap();
    assert_eq!(db.latest_sequence_number(), g + 1);
    db.compact_range(None, None).unwrap();
    assert_eq!(
        db.get(&ReadOptions::default(), &key(3)).unwrap().unwrap(),
        b"new"
    );
    assert_eq!(
        db.get(&ReadOptions::default(), &key(4)).unwrap().unwrap(),
        b"f4"
    );
}

#[test]
fn options_that_refuse() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(opts(), dir.path().join("db")).unwrap();
    db.put(&WriteOptions::default(), &key(5), b"mem").unwrap();
    let f = sst_of(&opts(), &dir.path().join("f.sst"), 0..10, "f");
    let no_flush = IngestExternalFileOptions {
        allow_blocking_flush: false,
        ..Default::default()
    };
    let e = db.ingest_external_file(&[&f], &no_flush).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.to_string().contains("allow_blocking_flush"), "{e}");
    let no_seqno = IngestExternalFileOptions {
        allow_global_seqno: false,
        ..Default::default()
    };
    let e = db.ingest_external_file(&[&f], &no_seqno).unwrap_err();
    assert!(e.to_string().contains("allow_global_seqno"), "{e}");
    let bottom = IngestExternalFileOptions {
        fail_if_not_bottommost_level: true,
        ..Default::default()
    };
    let e = db.ingest_external_file(&[&f], &bottom).unwrap_err();
    assert!(
        e.to_string().contains("fail_if_not_bottommost_level"),
        "{e}"
    );
    let behind = IngestExternalFileOptions {
        ingest_behind: true,
        ..Default::default()
    };
    let e = db.ingest_external_file(&[&f], &behind).unwrap_err();
    assert!(e.to_string().contains("allow_ingest_behind"), "{e}");
    // Nothing changed, nothing left in the directory.
    assert_eq!(all(&db, &ReadOptions::default()).len(), 1);
    let ssts = std::fs::read_dir(dir.path().join("db"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "sst")
        })
        .count();
    assert_eq!(ssts, 1, "only the flushed table");
}

#[test]
fn ingest_behind_puts_rows_under_existing_data() {
    let dir = tempfile::tempdir().unwrap();
    let o = Options {
        allow_ingest_behind: true,
        ..opts()
    };
    let db = Db::open(o.clone(), dir.path().join("db")).unwrap();
    let wo = WriteOptions::default();
    db.put(&wo, &key(1), b"newer").unwrap();
    db.delete(&wo, &key(2)).unwrap();
    db.flush(&Default::default()).unwrap();
    db.compact_range(None, None).unwrap();
    // The compaction kept the tombstone (allow_ingest_behind): the last
    // level is still free here since the data went to... wherever; ingest
    // behind needs the last level clear of the range.
    let f = sst_of(&o, &dir.path().join("f.sst"), 100..110, "f");
    let behind = IngestExternalFileOptions {
        ingest_behind: true,
        ..Default::default()
    };
    db.ingest_external_file(&[&f], &behind).unwrap();
    assert_eq!(
        db.get(&ReadOptions::default(), &key(105)).unwrap().unwrap(),
        b"f105"
    );
    // Under existing data: a file behind keys 1..3 loses to them.
    let dir2 = tempfile::tempdir().unwrap();
    let db2 = Db::open(o.clone(), dir2.path().join("db")).unwrap();
    db2.put(&wo, &key(1), b"newer").unwrap();
    db2.delete(&wo, &key(2)).unwrap();
    db2.flush(&Default::default()).unwrap();
    let g = sst_of(&o, &dir2.path().join("g.sst"), 0..4, "g");
    db2.ingest_external_file(&[&g], &behind).unwrap();
    let ro = ReadOptions::default();
    assert_eq!(db2.get(&ro, &key(1)).unwrap().unwrap(), b"newer");
    assert_eq!(db2.get(&ro, &key(2)).unwrap(), None, "deleted above");
    assert_eq!(db2.get(&ro, &key(3)).unwrap().unwrap(), b"g3");
    db2.compact_range(None, None).unwrap();
    assert_eq!(db2.get(&ro, &key(1)).unwrap().unwrap(), b"newer");
    assert_eq!(
        db2.get(&ro, &key(2)).unwrap(),
        None,
        "deleted after compaction"
    );
    assert_eq!(db2.get(&ro, &key(3)).unwrap().unwrap(), b"g3");
    assert_eq!(db2.latest_sequence_number(), 2);
}

#[test]
fn per_family_ingestion_leaves_other_families_alone() {
    let dir = tempfile::tempdir().unwrap();
    let o = Options {
        create_missing_column_families: true,
        ..opts()
    };
    let (db, cfs) = Db::open_cf(
        o.clone(),
        dir.path().join("db"),
        vec![("default".into(), o.clone()), ("cf1".into(), o.clone())],
    )
    .unwrap();
    let f = sst_of(&o, &dir.path().join("f.sst"), 0..50, "f");
    db.ingest_external_file_cf(&cfs[1], &[&f], &IngestExternalFileOptions::default())
        .unwrap();
    let ro = ReadOptions::default();
    assert_eq!(db.get_cf(&ro, &cfs[1], &key(3)).unwrap().unwrap(), b"f3");
    assert_eq!(db.get(&ro, &key(3)).unwrap(), None);
    drop(cfs);
    drop(db);
    let (db, cfs) = Db::open_cf(
        o.clone(),
        dir.path().join("db"),
        vec![("default".into(), o.clone()), ("cf1".into(), o)],
    )
    .unwrap();
    assert_eq!(db.get_cf(&ro, &cfs[1], &key(49)).unwrap().unwrap(), b"f49");
}

#[test]
fn bad_files_are_refused_and_nothing_changes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let db = Db::open(opts(), &path).unwrap();
    let io = IngestExternalFileOptions::default();
    // Overlapping each other.
    let a = sst_of(&opts(), &dir.path().join("a.sst"), 0..10, "a");
    let b = sst_of(&opts(), &dir.path().join("b.sst"), 5..15, "b");
    let e = db.ingest_external_file(&[&a, &b], &io).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.to_string().contains("overlap"), "{e}");
    // Corrupt: one byte flipped in a data block.
    let c = sst_of(&opts(), &dir.path().join("c.sst"), 0..100, "c");
    let mut bytes = std::fs::read(&c).unwrap();
    bytes[20] ^= 0x40;
    std::fs::write(&c, &bytes).unwrap();
    let e = db.ingest_external_file(&[&c], &io).unwrap_err();
    assert_eq!(e.code(), Code::Corruption, "{e}");
    assert!(e.to_string().contains("c.sst"), "{e}");
    // Not a table at all.
    let junk = dir.path().join("junk.sst");
    std::fs::write(&junk, vec![7u8; 4096]).unwrap();
    let e = db.ingest_external_file(&[&junk], &io).unwrap_err();
    assert_eq!(e.code(), Code::Corruption, "{e}");
    // A table of a database (not written by SstFileWriter).
    let other = dir.path().join("other");
    {
        let o = Db::open(opts(), &other).unwrap();
        o.put(&WriteOptions::default(), b"x", b"y").unwrap();
        o.flush(&Default::default()).unwrap();
    }
    let table = std::fs::read_dir(&other)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "sst"))
        .unwrap();
    let e = db.ingest_external_file(&[&table], &io).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.to_string().contains("not an external table file"), "{e}");
    // A missing file.
    let e = db
        .ingest_external_file(&[dir.path().join("none.sst")], &io)
        .unwrap_err();
    assert_eq!(e.code(), Code::IoError, "{e}");
    assert!(all(&db, &ReadOptions::default()).is_empty());
    drop(db);
    let db = Db::open(opts(), &path).unwrap();
    assert!(all(&db, &ReadOptions::default()).is_empty());
}

/// Range deletions and merges written by the writer act in the database at
/// the file's global sequence number.
#[test]
fn writer_range_deletions_and_deletes_apply_over_older_rows() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(opts(), dir.path().join("db")).unwrap();
    let wo = WriteOptions::default();
    for i in 0..20 {
        db.put(&wo, &key(i), b"old").unwrap();
    }
    db.flush(&Default::default()).unwrap();
    let path = dir.path().join("d.sst");
    let k3 = key(3);
    let v = b"v3".to_vec();
    let mut w = SstFileWriter::new(&opts());
    w.open(&path).unwrap();
    w.delete(&key(1)).unwrap();
    w.put(&k3, &v).unwrap();
    w.delete_range(&key(10), &key(15)).unwrap();
    w.finish().unwrap();
    db.ingest_external_file(&[&path], &IngestExternalFileOptions::default())
        .unwrap();
    let ro = ReadOptions::default();
    let check = |db: &Db| {
        assert_eq!(db.get(&ro, &key(1)).unwrap(), None);
        assert_eq!(db.get(&ro, &key(3)).unwrap().unwrap(), b"v3");
        assert_eq!(db.get(&ro, &key(12)).unwrap(), None);
        assert_eq!(db.get(&ro, &key(15)).unwrap().unwrap(), b"old");
        assert_eq!(all(db, &ro).len(), 20 - 1 - 5);
    };
    check(&db);
    db.compact_range(None, None).unwrap();
    check(&db);
    let _ = write_sst;
}

/// The `W-Amp` column of `rocksdb.stats`'s row `row` (`L0`, `Sum`, `Int`).
pub(crate) fn w_amp_of_row(stats: &str, row: &str) -> f64 {
    let line = stats
        .lines()
        .find(|l| l.split_whitespace().next() == Some(row))
        .unwrap_or_else(|| panic!("no row {row} in:\n{stats}"));
    // Level Files Size(2 words) Score Read Rn Rnp1 Write Wnew Moved W-Amp
    line.split_whitespace().nth(11).unwrap().parse().unwrap()
}

/// The cumulative figure of a `NAME: cumulative X, interval Y` line.
fn cumulative(stats: &str, name: &str) -> String {
    let line = stats
        .lines()
        .find(|l| l.starts_with(&format!("{name}: cumulative ")))
        .unwrap_or_else(|| panic!("no {name} line in:\n{stats}"));
    line[name.len() + ": cumulative ".len()..]
        .split(',')
        .next()
        .unwrap()
        .to_string()
}

#[test]
fn regression_ingest_only_stats_had_no_write_amp_input() {
    // A database filled only by ingestion has flushed nothing: `rocksdb.stats`
    // divided its compaction writes by zero flushed bytes, showing a Sum
    // W-Amp of 0.0 and an interval W-Amp in the billions. Ingested bytes are
    // input too (RocksDB's AddFile statistics), so an L0 -> last-level merge
    // of the ingested files shows a write amplification near 1.
    let dir = tempfile::tempdir().unwrap();
    let o = Options {
        disable_auto_compactions: true,
        ..opts()
    };
    let db = Db::open(o.clone(), dir.path().join("db")).unwrap();
    ingest_interleaved(
        &db,
        &o,
        dir.path(),
        &["a", "b", "c", "d"],
        4000,
        |tag, k| format!("{tag}{k:0>100}"),
    );
    db.compact_range(None, None).unwrap();
    // One string read: each advances the interval, as RocksDB's does.
    let after = db.property("rocksdb.stats").unwrap();
    assert_eq!(cumulative(&after, "AddFile(Total Files)"), "4");
    assert_eq!(cumulative(&after, "AddFile(L0 Files)"), "3");
    assert_eq!(cumulative(&after, "AddFile(Keys)"), "4000");
    assert_eq!(cumulative(&after, "Flush(GB)"), "0.000");
    // Written: the merge rewrote all 4 files' bytes once (input: 4 files).
    let sum = w_amp_of_row(&after, "Sum");
    assert!((0.5..=1.5).contains(&sum), "Sum W-Amp {sum}:\n{after}");
    let int = w_amp_of_row(&after, "Int");
    assert!(int <= 1.5, "interval W-Amp {int}:\n{after}");
    // The string form advanced the interval: nothing ingested since.
    let again = db.property("rocksdb.stats").unwrap();
    let line = again
        .lines()
        .find(|l| l.starts_with("AddFile(Total Files)"))
        .unwrap();
    assert!(line.ends_with("interval 0"), "{line}");
}
