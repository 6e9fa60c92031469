//! Corruption: bytes flipped, files truncated and deleted — data, index and
//! filter blocks, footers, the manifest, `CURRENT`, logs in the middle and
//! at the tail. Every case ends in `Corruption` naming the file (or, for
//! the torn tail of a log, a drop noted in the info log); never a panic, a
//! wrong value or a silent miss. `paranoid_checks` and
//! `ReadOptions::verify_checksums` are honoured, and `verify_checksum()`
//! walks every table.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rand::Rng;
use talus::fs::{FaultFs, FileSystem};
use talus::options::CompressionType;
use talus::{Code, Db, Error, Options, ReadOptions};

use crate::common::*;

fn p(name: &str) -> PathBuf {
    Path::new("/db").join(name)
}

fn key(i: usize) -> Vec<u8> {
    format!("k{i:04}").into_bytes()
}

fn val(i: usize) -> Vec<u8> {
    let mut v = format!("value-{i}-").into_bytes();
    v.resize(120, b'x');
    v
}

struct Built {
    fs: FaultFs,
    opts: Options,
    expect: BTreeMap<Vec<u8>, Vec<u8>>,
}

/// A database with one bottom-level table (k0000..k0599), one L0 table
/// (k0600..k0899) and 50 writes only in the WAL (k0900..k0949).
fn build(paranoid: bool) -> Built {
    let fs = FaultFs::new(11);
    fs.create_dir_all(Path::new("/db")).unwrap();
    let mut opts = Options {
        create_if_missing: true,
        fs: std::sync::Arc::new(fs.clone()),
        stats_dump_period_sec: 0,
        paranoid_checks: paranoid,
        compression: CompressionType::None,
        disable_auto_compactions: true,
        ..Options::default()
    };
    opts.table.block_size = 1024;
    opts.table.filter_bits_per_key = Some(10.0);
    let db = Db::open(opts.clone(), "/db").unwrap();
    let mut expect = BTreeMap::new();
    let mut put = |db: &Db, i: usize| {
        db.put(&wo(false, false), &key(i), &val(i)).unwrap();
        expect.insert(key(i), val(i));
    };
    for i in 0..600 {
        put(&db, i);
    }
    db.compact_range(None, None).unwrap();
    for i in 600..900 {
        put(&db, i);
    }
    flush(&db).unwrap();
    for i in 900..950 {
        put(&db, i);
    }
    db.close().unwrap();
    Built { fs, opts, expect }
}

impl Built {
    fn names(&self, suffix: &str) -> Vec<String> {
        let mut v: Vec<String> = self
            .fs
            .list_dir(Path::new("/db"))
            .unwrap()
            .into_iter()
            .filter(|n| n.ends_with(suffix))
            .collect();
        v.sort();
        v
    }

    /// The newest table: the L0 one holding k0600..k0899.
    fn l0_table(&self) -> String {
        self.names(".sst").pop().unwrap()
    }

    fn manifest(&self) -> String {
        self.fs
            .list_dir(Path::new("/db"))
            .unwrap()
            .into_iter()
            .rfind(|n| n.starts_with("MANIFEST-"))
            .unwrap()
    }

    fn edit(&self, name: &str, f: impl FnOnce(&mut Vec<u8>)) {
        let mut b = self.fs.contents(&p(name)).unwrap();
        f(&mut b);
        self.fs.set_contents(&p(name), b).unwrap();
    }

    fn flip(&self, name: &str, offset: usize) {
        self.edit(name, |b| b[offset] ^= 0x40);
    }

    fn open(&self) -> talus::Result<Db> {
        Db::open(self.opts.clone(), "/db")
    }

    fn info_log(&self) -> String {
        info_log_tail(&self.fs, Path::new("/db"), 10_000)
    }
}

/// The footer fields of table `name`: (index offset, filter offset).
fn footer(b: &Built, name: &str) -> (usize, usize) {
    let data = b.fs.contents(&p(name)).unwrap();
    let f = &data[data.len() - 80..];
    let at = |i: usize| u64::from_le_bytes(f[i..i + 8].try_into().unwrap()) as usize;
    (at(0), at(16))
}

fn is_corruption_naming(e: &Error, file: &str) -> bool {
    e.code() == Code::Corruption && e.to_string().contains(file)
}

/// Reads every expected key with `ro` and scans with an iterator: each
/// read is the right value or `Corruption` naming `file`; nothing is
/// missing silently. Returns the number of reads that failed.
fn check_reads(db: &Db, expect: &BTreeMap<Vec<u8>, Vec<u8>>, file: &str) -> usize {
    let ro = ReadOptions::default();
    let mut failed = 0;
    for (k, v) in expect {
        match db.get(&ro, k) {
            Ok(Some(got)) => assert_eq!(&got, v, "wrong value for {}", show(k)),
            Ok(None) => panic!("silent miss: {} is gone", show(k)),
            Err(e) => {
                assert!(is_corruption_naming(&e, file), "get {}: {e}", show(k));
                failed += 1;
            }
        }
    }
    let mut it = match db.iter(&ro) {
        Ok(it) => it,
        Err(e) => {
            assert!(is_corruption_naming(&e, file), "iter: {e}");
            return failed;
        }
    };
    it.seek_to_first();
    let mut seen = BTreeMap::new();
    while it.valid() {
        seen.insert(it.key().to_vec(), it.value().to_vec());
        it.next();
    }
    match it.status() {
        Ok(()) => assert_eq!(&seen, expect, "a scan without error must see everything"),
        Err(e) => assert!(is_corruption_naming(&e, file), "scan: {e}"),
    }
    for (k, v) in &seen {
        assert_eq!(expect.get(k), Some(v), "the scan returned a wrong entry");
    }
    failed
}

#[test]
fn flipped_data_block_byte_is_corruption_naming_the_table_and_never_a_wrong_value() {
    let b = build(true);
    let t = b.l0_table();
    b.flip(&t, 40); // inside the first data block (k0600..)
    let db = b.open().unwrap();
    let failed = check_reads(&db, &b.expect, &t);
    assert!(failed > 0, "the damaged block must be reported");
    assert!(failed < 50, "only the keys of one block fail: {failed}");
    let e = db.verify_checksum().unwrap_err();
    assert!(is_corruption_naming(&e, &t), "{e}");
}

/// Regression: a block read with `verify_checksums = false` went into the
/// block cache unverified, and later reads asking for verification were
/// served the damaged block from the cache without a check.
#[test]
fn regression_unverified_block_is_not_cached_for_verified_reads() {
    let b = build(true);
    let t = b.l0_table();
    // Inside the value of k0600, the first entry of the first data block.
    b.flip(&t, 60);
    let db = b.open().unwrap();
    let unverified = ReadOptions {
        verify_checksums: false,
        ..ReadOptions::default()
    };
    let got = db.get(&unverified, &key(600)).unwrap().unwrap();
    assert_ne!(got, val(600), "without verification the damage is visible");
    let e = db.get(&ReadOptions::default(), &key(600)).unwrap_err();
    assert!(is_corruption_naming(&e, &t), "{e}");
}

#[test]
fn flipped_index_filter_and_footer_bytes_are_corruption_naming_the_table() {
    for target in ["index", "filter", "footer magic", "footer handle"] {
        let b = build(true);
        let t = b.l0_table();
        let (index, filter) = footer(&b, &t);
        let len = b.fs.contents(&p(&t)).unwrap().len();
        let at = match target {
            "index" => index + 3,
            "filter" => filter + 5,
            "footer magic" => len - 3,
            _ => len - 80 + 2,
        };
        b.flip(&t, at);
        if target.starts_with("footer") {
            // The paranoid open reads every table's footer and properties
            // (to check it against its manifest entry): damage there fails
            // the open. Without paranoid checks the reads meet it.
            let e = b.open().unwrap_err();
            assert!(is_corruption_naming(&e, &t), "{target}: {e}");
        }
        let db = Db::open(
            Options {
                paranoid_checks: false,
                ..b.opts.clone()
            },
            "/db",
        )
        .unwrap();
        let failed = check_reads(&db, &b.expect, &t);
        assert_eq!(failed, 300, "{target}: every key of the table fails");
        let e = db.verify_checksum().unwrap_err();
        assert!(is_corruption_naming(&e, &t), "{target}: {e}");
    }
}

#[test]
fn truncated_or_deleted_table_fails_open_with_paranoid_checks_and_reads_without() {
    for (what, paranoid) in [
        ("truncate", true),
        ("truncate", false),
        ("delete", true),
        ("delete", false),
    ] {
        let b = build(paranoid);
        let t = b.l0_table();
        if what == "truncate" {
            b.edit(&t, |d| d.truncate(d.len() / 2));
        } else {
            b.fs.remove_file(&p(&t)).unwrap();
        }
        match b.open() {
            Err(e) => {
                assert!(paranoid, "{what}: open failed without paranoid checks: {e}");
                assert!(is_corruption_naming(&e, &t), "{what}: {e}");
            }
            Ok(db) => {
                assert!(!paranoid, "{what}: paranoid open did not check the tables");
                let failed = check_reads(&db, &b.expect, &t);
                assert_eq!(failed, 300, "{what}");
                let e = db.verify_checksum().unwrap_err();
                assert!(is_corruption_naming(&e, &t), "{what}: {e}");
            }
        }
    }
}

#[test]
fn damaged_or_missing_manifest_fails_open_naming_it() {
    for what in ["flip", "delete"] {
        let b = build(true);
        let m = b.manifest();
        match what {
            "flip" => b.flip(&m, 20),
            _ => b.fs.remove_file(&p(&m)).unwrap(),
        }
        let e = b.open().unwrap_err();
        assert!(is_corruption_naming(&e, &m), "{what}: {e}");
    }
}

#[test]
fn damaged_or_missing_current_fails_open_and_no_empty_database_is_created() {
    for what in ["flip", "empty", "delete"] {
        let b = build(true);
        match what {
            "flip" => b.flip("CURRENT", 3),
            "empty" => b.edit("CURRENT", Vec::clear),
            _ => b.fs.remove_file(&p("CURRENT")).unwrap(),
        }
        let e = b.open().unwrap_err();
        assert_eq!(e.code(), Code::Corruption, "{what}: {e}");
        assert!(
            e.to_string().contains("CURRENT") || e.to_string().contains("MANIFEST"),
            "{what}: {e}"
        );
        // Opening again does not help, and did not create anything over the data.
        let e = b.open().unwrap_err();
        assert_eq!(e.code(), Code::Corruption, "{what}: {e}");
    }
}

/// Regression (random flips, seed 90): a flipped bit in the length field of
/// a manifest record made it look like a torn tail; recovery dropped it and
/// every later edit, and the database opened without its tables (empty).
#[test]
fn regression_a_damaged_record_length_in_the_manifest_fails_open() {
    let b = build(true);
    let m = b.manifest();
    let data = b.fs.contents(&p(&m)).unwrap();
    // The start of every record (all fit in the first 32 KiB block).
    let mut starts = Vec::new();
    let mut at = 0;
    while at + 7 <= data.len() {
        starts.push(at);
        at += 7 + usize::from(u16::from_le_bytes([data[at + 4], data[at + 5]]));
    }
    assert!(starts.len() >= 3, "{starts:?}");
    for &victim in &starts[1..] {
        let b = build(true);
        b.edit(&m, |d| d[victim + 5] ^= 0x10); // length + 4096
        let e = b.open().unwrap_err();
        assert!(is_corruption_naming(&e, &m), "record at {victim}: {e}");
        assert!(e.to_string().contains("length"), "{e}");
    }
}

/// Regression (random cuts, seed 990 of the corruption suite, exposed when
/// the manifest's records grew): a manifest cut right after its first
/// record (the creation snapshot: log number 0, no tables) opened without a
/// word: the logs were replayed on top, the tables the lost edits named
/// were deleted as orphans, and the database held only the writes of its
/// newest log. The first log replayed must continue the manifest's state
/// (its start record's sequence follows the manifest's last sequence);
/// here it does not, and the open fails naming the manifest, deleting
/// nothing.
#[test]
fn regression_a_manifest_cut_after_its_first_record_fails_open_instead_of_deleting_the_tables() {
    let b = build(true);
    let m = b.manifest();
    let data = b.fs.contents(&p(&m)).unwrap();
    let first = 7 + usize::from(u16::from_le_bytes([data[4], data[5]]));
    assert!(first < data.len(), "the manifest has more than one record");
    b.edit(&m, |d| d.truncate(first));
    let tables = b.names(".sst");
    let e = b.open().unwrap_err();
    assert!(is_corruption_naming(&e, &m), "{e}");
    assert!(e.to_string().contains("lost edits"), "{e}");
    assert_eq!(b.names(".sst"), tables, "no table was deleted");
}

#[test]
fn flipped_byte_in_the_middle_of_the_log_fails_open_naming_it() {
    let b = build(true);
    let log = b.names(".log").pop().unwrap();
    let len = b.fs.contents(&p(&log)).unwrap().len();
    b.flip(&log, len / 2);
    let e = b.open().unwrap_err();
    assert!(is_corruption_naming(&e, &log), "{e}");
}

#[test]
fn truncated_log_tail_is_dropped_and_logged() {
    let b = build(true);
    let log = b.names(".log").pop().unwrap();
    b.edit(&log, |d| d.truncate(d.len() - 30));
    let db = b.open().unwrap();
    let ro = ReadOptions::default();
    for i in 0..949 {
        assert_eq!(db.get(&ro, &key(i)).unwrap(), Some(val(i)), "{i}");
    }
    assert_eq!(db.get(&ro, &key(949)).unwrap(), None, "the torn record");
    assert!(
        b.info_log().contains("Dropped torn tail"),
        "{}",
        b.info_log()
    );
}

#[test]
fn deleted_log_fails_open_with_paranoid_checks() {
    for paranoid in [true, false] {
        let b = build(paranoid);
        let log = b.names(".log").pop().unwrap();
        b.fs.remove_file(&p(&log)).unwrap();
        match b.open() {
            Err(e) => {
                assert!(paranoid, "{e}");
                assert!(is_corruption_naming(&e, &log), "{e}");
            }
            Ok(db) => {
                assert!(!paranoid);
                // The writes only the log held are gone, and the info log says so.
                assert_eq!(db.get(&ReadOptions::default(), &key(900)).unwrap(), None);
                assert!(b.info_log().contains(&log), "{}", b.info_log());
            }
        }
    }
}

#[test]
fn verify_checksum_walks_every_table() {
    let b = build(true);
    let db = b.open().unwrap();
    db.verify_checksum().unwrap();
    drop(db);
    // Damage the last data block of the bottom table: no read above touched it.
    let bottom = b.names(".sst").remove(0);
    let (index, _) = footer(&b, &bottom);
    b.flip(&bottom, index - 30);
    let db = b.open().unwrap();
    let e = db.verify_checksum().unwrap_err();
    assert!(is_corruption_naming(&e, &bottom), "{e}");
}

#[test]
fn a_compaction_meeting_corruption_latches_with_paranoid_checks_only() {
    for paranoid in [true, false] {
        let b = build(paranoid);
        let t = b.l0_table();
        b.flip(&t, 40);
        let db = b.open().unwrap();
        let e = db.compact_range(None, None).unwrap_err();
        assert!(is_corruption_naming(&e, &t), "{e}");
        assert_eq!(db.int_property("rocksdb.background-errors"), Some(1));
        let w = db.put(&wo(false, false), b"after", b"x");
        if paranoid {
            let we = w.unwrap_err();
            assert_eq!(we.code(), Code::Corruption, "{we}");
            assert_eq!(db.resume().unwrap_err().code(), Code::Corruption);
        } else {
            w.unwrap();
            db.resume().unwrap();
            // No busy loop of retries on the same damaged files.
            db.wait_for_compactions().unwrap();
            assert_eq!(db.int_property("rocksdb.background-errors"), Some(1));
        }
        // Nothing was lost or changed by the failed compaction.
        drop(db);
        let db = b.open().unwrap();
        let mut expect = b.expect.clone();
        if !paranoid {
            expect.insert(b"after".to_vec(), b"x".to_vec());
        }
        check_reads(&db, &expect, &t);
    }
}

/// Random damage to any file (one flipped bit, or the file cut short):
/// open and read give the right
/// values or `Corruption`; a drop is only ever the tail of a log.
#[test]
fn random_flips_and_cuts_never_panic_return_wrong_values_or_lose_silently() {
    let seeds = seeds(60);
    for seed in seeds {
        let b = build(seed % 2 == 0);
        let mut r = rng(seed, 0xF11);
        let names: Vec<String> =
            b.fs.list_dir(Path::new("/db"))
                .unwrap()
                .into_iter()
                .filter(|n| n != "LOCK" && !n.starts_with("LOG"))
                .collect();
        let name = &names[r.random_range(0..names.len())];
        let len = b.fs.contents(&p(name)).unwrap().len();
        if len == 0 {
            continue;
        }
        let at = r.random_range(0..len);
        // Two thirds flip one bit, one third cut the file at `at`.
        let truncate = r.random_range(0..3) == 0;
        if truncate {
            b.edit(name, |d| d.truncate(at));
        } else {
            b.edit(name, |d| d[at] ^= 1 << r.random_range(0..8));
        }
        let name = &format!("{name}{}", if truncate { " (cut)" } else { "" });
        let file = name.trim_end_matches(" (cut)");
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match b.open() {
            Err(e) => assert_eq!(e.code(), Code::Corruption, "seed {seed}: {name}@{at}: {e}"),
            Ok(db) => {
                let ro = ReadOptions::default();
                // A cut inside the last record of a log is a torn tail,
                // dropped and noted: the only way anything may go missing
                // (and, without paranoid checks, a missing log, noted too:
                // a manifest cut between records names a log since deleted).
                let log = b.info_log();
                let dropped_tail = log.contains("Dropped torn tail")
                    || log.contains("dropped an incomplete record")
                    || log.contains("The log the manifest needs is missing")
                    || log.contains("write-ahead log is missing; the manifest records it")
                    || log.contains("the manifest lost edits");
                // A log cut exactly between two records looks like a log
                // that ended there, as a power loss leaves it: its last
                // writes (k0900.., only in the log) may go, as a suffix.
                let log_cut = truncate && file.ends_with(".log");
                let mut missing_from: Option<&Vec<u8>> = None;
                for (k, v) in &b.expect {
                    match db.get(&ro, k) {
                        Ok(Some(got)) => {
                            assert_eq!(&got, v, "seed {seed}: {name}@{at}");
                            assert!(
                                missing_from.is_none(),
                                "seed {seed}: {name}@{at}: a hole: {} is missing but {} is there",
                                show(missing_from.unwrap()),
                                show(k)
                            );
                        }
                        Ok(None) if log_cut && k.as_slice() >= b"k0900".as_slice() => {
                            missing_from.get_or_insert(k);
                        }
                        Ok(None) => assert!(
                            dropped_tail
                                && (file.ends_with(".log") || file.starts_with("MANIFEST")),
                            "seed {seed}: {name}@{at}: {} silently missing",
                            show(k)
                        ),
                        Err(e) => assert!(
                            is_corruption_naming(&e, file),
                            "seed {seed}: {name}@{at}: {e}"
                        ),
                    }
                }
            }
        }));
        if let Err(p) = outcome {
            panic!("seed {seed}: {name}@{at}: {}", panic_message(&p));
        }
    }
}

/// A database at /db on a file system of its own holding one L0 table per
/// prefix `c`, with keys `{c}0000..{c}0299` (keys, values and sequence
/// numbers of equal lengths, so every table has the same size).
fn same_shape_db(prefixes: &[char]) -> (FaultFs, Options) {
    let fs = FaultFs::new(7);
    fs.create_dir_all(Path::new("/db")).unwrap();
    let mut opts = Options {
        create_if_missing: true,
        fs: std::sync::Arc::new(fs.clone()),
        stats_dump_period_sec: 0,
        compression: CompressionType::None,
        disable_auto_compactions: true,
        ..Options::default()
    };
    opts.table.block_size = 1024;
    opts.table.filter_bits_per_key = Some(10.0);
    let db = Db::open(opts.clone(), "/db").unwrap();
    for &c in prefixes {
        // Overwritten below, dropped by the flush: every table's sequence
        // numbers take two varint bytes, as those of the tables after it.
        for _ in 0..200 {
            db.put(&wo(false, false), format!("{c}0000").as_bytes(), b"old")
                .unwrap();
        }
        for i in 0..300 {
            db.put(&wo(false, false), format!("{c}{i:04}").as_bytes(), &val(i))
                .unwrap();
        }
        flush(&db).unwrap();
    }
    db.close().unwrap();
    (fs, opts)
}

fn tables(fs: &FaultFs) -> Vec<String> {
    let mut v: Vec<String> = fs
        .list_dir(Path::new("/db"))
        .unwrap()
        .into_iter()
        .filter(|n| n.ends_with(".sst"))
        .collect();
    v.sort();
    v
}

/// Regression (issue 30): another database's valid table, with the same
/// file number and size, copied over one of ours while the database was
/// closed, passed open and `verify_checksum()`; `get` missed every key the
/// table held and a scan returned keys never written here. A table now
/// carries its database's id and its file number, and is checked against
/// its manifest entry whenever it is opened: the paranoid open fails, and
/// without paranoid checks every read of it is `Corruption` naming it. The
/// same holds for a table of this database copied over another of the same
/// size (another file number).
#[test]
fn regression_a_table_copied_over_a_table_is_corruption_not_wrong_data() {
    let (ours, opts) = same_shape_db(&['a', 'b']);
    let (theirs, _) = same_shape_db(&['x', 'y']);
    let victim = tables(&ours)[0].clone();
    // Their table of the same number when it has one (file numbers depend
    // on whether the next log was made ahead in time), else their first.
    let theirs_name = if tables(&theirs).contains(&victim) {
        victim.clone()
    } else {
        tables(&theirs)[0].clone()
    };
    let foreign = theirs.contents(&p(&theirs_name)).unwrap();
    let own_other = ours.contents(&p(&tables(&ours)[1])).unwrap();
    let original = ours.contents(&p(&victim)).unwrap();
    assert_eq!(foreign.len(), original.len(), "the same size");
    assert_eq!(own_other.len(), original.len(), "the same size");

    for (what, bytes, reason) in [
        ("another database's table", &foreign, "another database"),
        (
            "another table of this database",
            &own_other,
            "written as table #",
        ),
    ] {
        ours.set_contents(&p(&victim), bytes.clone()).unwrap();
        let e = Db::open(opts.clone(), "/db").unwrap_err();
        assert!(is_corruption_naming(&e, &victim), "{what}: {e}");
        assert!(e.to_string().contains(reason), "{what}: {e}");

        let db = Db::open(
            Options {
                paranoid_checks: false,
                ..opts.clone()
            },
            "/db",
        )
        .unwrap();
        let ro = ReadOptions::default();
        for i in [0, 150, 299] {
            let e = db
                .get(&ro, format!("a{i:04}").as_bytes())
                .expect_err("a read of the replaced table");
            assert!(is_corruption_naming(&e, &victim), "{what}: {e}");
            for c in ['x', 'b'] {
                let k = format!("{c}{i:04}");
                match db.get(&ro, k.as_bytes()) {
                    Ok(Some(_)) if c == 'b' => {} // in the other table
                    Ok(Some(_)) => panic!("{what}: {k} was never written here"),
                    Ok(None) => assert_ne!(c, 'b', "{what}: {k} lost"),
                    Err(e) => assert!(is_corruption_naming(&e, &victim), "{what}: {e}"),
                }
            }
        }
        // A scan fails, at its creation (which opens the tables) or when it
        // reaches the table; it never returns a key of the copied table.
        match db.iter(&ro) {
            Err(e) => assert!(is_corruption_naming(&e, &victim), "{what}: {e}"),
            Ok(mut it) => {
                it.seek_to_first();
                while it.valid() {
                    assert!(
                        it.key().starts_with(b"b"),
                        "{what}: the scan returned {}",
                        show(it.key())
                    );
                    it.next();
                }
                let e = it.status().unwrap_err();
                assert!(is_corruption_naming(&e, &victim), "{what}: {e}");
            }
        }
        let e = db.verify_checksum().unwrap_err();
        assert!(is_corruption_naming(&e, &victim), "{what}: {e}");
        drop(db);
    }
    // Put back, the table is ours again.
    ours.set_contents(&p(&victim), original).unwrap();
    let db = Db::open(opts, "/db").unwrap();
    db.verify_checksum().unwrap();
    assert_eq!(
        db.get(&ReadOptions::default(), b"a0150").unwrap(),
        Some(val(150))
    );
}

/// `verify_checksum()` reads every table whole and compares it with the
/// checksum the manifest recorded when it was written: a table changed
/// where no block checksum looks (here: a value byte of the first data
/// block, with the block's checksum recomputed to match) is reported.
#[test]
fn verify_checksum_compares_the_whole_file_with_the_checksum_the_manifest_recorded() {
    let b = build(false);
    let t = b.l0_table();
    b.edit(&t, |d| {
        // The first data block starts at 0; its trailer (type byte, CRC-32
        // of the block and the type byte) is where the CRC first matches.
        let end = (8..d.len() - 5)
            .find(|&e| {
                crc32fast::hash(&d[..e + 1])
                    == u32::from_le_bytes(d[e + 1..e + 5].try_into().unwrap())
            })
            .expect("the first block's trailer");
        // 30 bytes before the restart array's 8 bytes: the last value.
        d[end - 30] ^= 0x01;
        let crc = crc32fast::hash(&d[..end + 1]).to_le_bytes();
        d[end + 1..end + 5].copy_from_slice(&crc);
    });
    let db = b.open().unwrap();
    let e = db.verify_checksum().unwrap_err();
    assert!(is_corruption_naming(&e, &t), "{e}");
    assert!(e.to_string().contains("checksum mismatch"), "{e}");
}
