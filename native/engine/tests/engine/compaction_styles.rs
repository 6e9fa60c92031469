//! Universal and FIFO compaction through the public API: where the data
//! ends up, what is rewritten, moved or dropped, `compact_range` with
//! [`CompactRangeOptions`], and which style changes an existing database
//! accepts. The pickers' rules are table-tested in `compaction::universal`
//! and `compaction::fifo`; here the DB runs them.

use talus::db::{BottommostLevelCompaction, CompactRangeOptions, FlushOptions};
use talus::options::CompactionStyle;
use talus::statistics::{Statistics, Ticker};
use talus::{Db, Error, Options, ReadOptions, WriteOptions};

fn small(style: CompactionStyle) -> Options {
    Options {
        create_if_missing: true,
        write_buffer_size: 64 << 10,
        target_file_size_base: 64 << 10,
        level0_file_num_compaction_trigger: 4,
        compaction_style: style,
        statistics: Some(Statistics::new()),
        ..Options::default()
    }
}

fn key(i: u32) -> Vec<u8> {
    format!("key{i:08}").into_bytes()
}

fn value(i: u32, round: u32) -> Vec<u8> {
    let mut v = format!("v{round}.{i}:").into_bytes();
    v.resize(200, b'x' + (round % 3) as u8);
    v
}

/// Writes `keys` keys (`first..first + keys`) of round `round`, then flushes.
fn write_flush(db: &Db, first: u32, keys: u32, round: u32) {
    let wo = WriteOptions::default();
    for i in first..first + keys {
        db.put(&wo, &key(i), &value(i, round)).unwrap();
    }
    db.flush(&FlushOptions::default()).unwrap();
}

fn files_at(db: &Db, level: usize) -> u64 {
    db.int_property(&format!("rocksdb.num-files-at-level{level}"))
        .unwrap()
}

fn ticker(o: &Options, t: Ticker) -> u64 {
    o.statistics.as_ref().unwrap().ticker_count(t)
}

#[test]
fn universal_merges_sorted_runs_and_keeps_every_value() {
    let dir = tempfile::tempdir().unwrap();
    let o = small(CompactionStyle::Universal);
    let db = Db::open(o.clone(), dir.path()).unwrap();
    for round in 0..24 {
        write_flush(&db, (round % 4) * 300, 600, round);
        // Once compactions are done, at most the trigger's number of
        // sorted runs is left (more would pick a run-count compaction).
        db.wait_for_compactions().unwrap();
        let runs = files_at(&db, 0) + (1..7).filter(|&l| files_at(&db, l) > 0).count() as u64;
        assert!(
            runs <= 4,
            "round {round}: {runs} sorted runs after compaction"
        );
    }
    // Data lives in L0 and at the bottom, never in levels with nothing
    // below them: the oldest run is the last level.
    assert!(
        files_at(&db, 6) > 0,
        "{:?}",
        db.property("rocksdb.levelstats")
    );
    assert!(ticker(&o, Ticker::CompactWriteBytes) > 0);
    let ro = ReadOptions::default();
    for i in 0..1500 {
        // The last round writing key i: rounds write [(r % 4) * 300, +600).
        let last = (0..24).rev().find(|r| {
            let first = (r % 4) * 300;
            (first..first + 600).contains(&i)
        });
        let want = last.map(|r| value(i, r));
        assert_eq!(db.get(&ro, &key(i)).unwrap(), want, "key {i}");
    }
    db.close().unwrap();
}

#[test]
fn universal_compact_range_leaves_one_sorted_run_at_the_last_level() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = small(CompactionStyle::Universal);
    o.disable_auto_compactions = true;
    let db = Db::open(o, dir.path()).unwrap();
    for round in 0..6 {
        write_flush(&db, round * 100, 400, round);
    }
    assert!(files_at(&db, 0) >= 6);
    db.compact_range(Some(b"key00000100"), Some(b"key00000200"))
        .unwrap();
    // Universal compacts every file, whatever the range (as RocksDB).
    for l in 0..6 {
        assert_eq!(files_at(&db, l), 0, "level {l}");
    }
    assert!(files_at(&db, 6) > 0);
    let ro = ReadOptions::default();
    assert_eq!(
        db.get(&ro, &key(550)).unwrap(),
        Some(value(550, 5)),
        "the newest value survives"
    );
    assert_eq!(db.get(&ro, &key(0)).unwrap(), Some(value(0, 0)));
}

#[test]
fn universal_trivial_move_moves_runs_that_do_not_overlap() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = small(CompactionStyle::Universal);
    o.compaction_options_universal.allow_trivial_move = true;
    let db = Db::open(o.clone(), dir.path()).unwrap();
    // Four flushes of disjoint key ranges: the first compaction takes all
    // four runs (nothing older) and moves them to the last level.
    for round in 0..4 {
        write_flush(&db, round * 1000, 150, round);
    }
    db.wait_for_compactions().unwrap();
    assert_eq!(files_at(&db, 0), 0);
    assert_eq!(files_at(&db, 6), 4);
    assert_eq!(
        ticker(&o, Ticker::CompactWriteBytes),
        0,
        "nothing rewritten"
    );
    let ro = ReadOptions::default();
    assert_eq!(db.get(&ro, &key(3005)).unwrap(), Some(value(3005, 3)));
}

#[test]
fn fifo_drops_the_oldest_tables_past_max_table_files_size() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = small(CompactionStyle::Fifo);
    o.compaction_options_fifo.max_table_files_size = 300 << 10;
    o.compression = talus::options::CompressionType::None;
    let db = Db::open(o, dir.path()).unwrap();
    for round in 0..12 {
        write_flush(&db, round * 1000, 300, round);
        db.wait_for_compactions().unwrap();
    }
    let size = db.int_property("rocksdb.total-sst-files-size").unwrap();
    assert!(size <= 300 << 10, "{size} bytes of tables kept");
    for l in 1..7 {
        assert_eq!(files_at(&db, l), 0, "FIFO keeps every table in L0");
    }
    let cf = db.default_column_family();
    let (through, dropped) = db.fifo_dropped_cf(&cf).unwrap();
    assert!(dropped > 0 && through > 0);
    let ro = ReadOptions::default();
    assert_eq!(db.get(&ro, &key(0)).unwrap(), None, "the oldest are gone");
    assert_eq!(
        db.get(&ro, &key(11_000)).unwrap(),
        Some(value(11_000, 11)),
        "the newest stay"
    );
    // Writes at or below `through` that reached a table are gone; above it
    // every write is kept.
    assert!(through < db.latest_sequence_number());
}

#[test]
fn fifo_ttl_drops_tables_older_than_the_ttl() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = small(CompactionStyle::Fifo);
    o.ttl = 1;
    let db = Db::open(o, dir.path()).unwrap();
    write_flush(&db, 0, 100, 0);
    // Table creation times are in seconds: wait until the table is more
    // than a full second past its TTL (a precondition, not a timing
    // assertion).
    std::thread::sleep(std::time::Duration::from_millis(3100));
    write_flush(&db, 1000, 100, 1);
    db.compact_range(None, None).unwrap();
    db.wait_for_compactions().unwrap();
    let ro = ReadOptions::default();
    assert_eq!(db.get(&ro, &key(5)).unwrap(), None, "expired");
    assert_eq!(db.get(&ro, &key(1005)).unwrap(), Some(value(1005, 1)));
}

#[test]
fn fifo_allow_compaction_merges_small_l0_tables() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = small(CompactionStyle::Fifo);
    o.compaction_options_fifo.allow_compaction = true;
    let db = Db::open(o.clone(), dir.path()).unwrap();
    for round in 0..8 {
        write_flush(&db, round * 1000, 20, round);
        db.wait_for_compactions().unwrap();
    }
    assert!(files_at(&db, 0) < 8, "{} L0 tables", files_at(&db, 0));
    assert!(ticker(&o, Ticker::CompactWriteBytes) > 0);
    let ro = ReadOptions::default();
    for round in 0..8u32 {
        assert_eq!(
            db.get(&ro, &key(round * 1000 + 7)).unwrap(),
            Some(value(round * 1000 + 7, round))
        );
    }
}

#[test]
fn ttl_with_another_style_is_refused_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = small(CompactionStyle::Level);
    o.ttl = 60;
    match Db::open(o, dir.path()) {
        Err(Error::NotSupported(m)) => assert!(m.contains("ttl") && m.contains("LEVEL"), "{m}"),
        other => panic!("expected NotSupported, got {other:?}"),
    }
}

/// Writes and compacts under `from`, reopens under `to`; returns the result
/// of the reopen (checked for the data when it opened).
fn change_style(from: Options, to: Options) -> Result<(), Error> {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Db::open(from, dir.path()).unwrap();
        for round in 0..6 {
            write_flush(&db, round * 100, 300, round);
        }
        db.compact_range(None, None).unwrap();
        write_flush(&db, 0, 50, 6);
        db.close().unwrap();
    }
    let db = Db::open(to, dir.path())?;
    let ro = ReadOptions::default();
    assert_eq!(db.get(&ro, &key(10)).unwrap(), Some(value(10, 6)));
    assert_eq!(db.get(&ro, &key(799)).unwrap(), Some(value(799, 5)));
    for round in 7..12 {
        write_flush(&db, round * 100, 300, round);
    }
    db.compact_range(None, None).unwrap();
    db.wait_for_compactions().unwrap();
    assert_eq!(db.get(&ro, &key(1350)).unwrap(), Some(value(1350, 11)));
    assert_eq!(db.get(&ro, &key(10)).unwrap(), Some(value(10, 6)));
    db.close()
}

#[test]
fn level_and_universal_reopen_each_other() {
    use CompactionStyle::*;
    change_style(small(Level), small(Universal)).unwrap();
    change_style(small(Universal), small(Level)).unwrap();
}

#[test]
fn fifo_data_reopens_under_level_and_universal() {
    use CompactionStyle::*;
    change_style(small(Fifo), small(Level)).unwrap();
    change_style(small(Fifo), small(Universal)).unwrap();
}

#[test]
fn fifo_refuses_a_database_with_files_below_l0() {
    use CompactionStyle::*;
    for from in [Level, Universal] {
        match change_style(small(from), small(Fifo)) {
            Err(Error::InvalidArgument(m)) => {
                assert!(m.contains("FIFO") && m.contains("level 0"), "{m}")
            }
            other => panic!("{from:?} -> FIFO: expected InvalidArgument, got {other:?}"),
        }
    }
}

#[test]
fn universal_refuses_files_beyond_its_num_levels() {
    let mut to = small(CompactionStyle::Universal);
    to.num_levels = 3;
    // Leveled compaction put the data at L6.
    assert!(matches!(
        change_style(small(CompactionStyle::Level), to),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn compact_range_change_level_moves_the_data_to_the_target_level() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(small(CompactionStyle::Level), dir.path()).unwrap();
    for round in 0..3 {
        write_flush(&db, round * 100, 300, round);
    }
    let cro = CompactRangeOptions {
        change_level: true,
        target_level: 2,
        ..CompactRangeOptions::default()
    };
    db.compact_range_opt(&cro, None, None).unwrap();
    assert!(files_at(&db, 2) > 0);
    for l in [0, 1, 3, 4, 5, 6] {
        assert_eq!(files_at(&db, l), 0, "level {l}");
    }
    // -1: the highest level that is empty and holds the data (L1: targets
    // above the base level are unbounded).
    let cro = CompactRangeOptions {
        change_level: true,
        target_level: -1,
        ..CompactRangeOptions::default()
    };
    db.compact_range_opt(&cro, None, None).unwrap();
    assert!(files_at(&db, 1) > 0);
    assert_eq!(files_at(&db, 2), 0);
    let ro = ReadOptions::default();
    assert_eq!(db.get(&ro, &key(450)).unwrap(), Some(value(450, 2)));
}

#[test]
fn compact_range_bottommost_force_rewrites_the_last_level() {
    let dir = tempfile::tempdir().unwrap();
    let o = small(CompactionStyle::Level);
    let db = Db::open(o.clone(), dir.path()).unwrap();
    for round in 0..3 {
        write_flush(&db, round * 100, 300, round);
    }
    db.compact_range(None, None).unwrap();
    let written = ticker(&o, Ticker::CompactWriteBytes);
    // Default (no compaction filter: as Skip): the last level stays.
    db.compact_range(None, None).unwrap();
    assert_eq!(ticker(&o, Ticker::CompactWriteBytes), written);
    for b in [
        BottommostLevelCompaction::Force,
        BottommostLevelCompaction::ForceOptimized,
    ] {
        let before = ticker(&o, Ticker::CompactWriteBytes);
        let cro = CompactRangeOptions {
            bottommost_level_compaction: b,
            ..CompactRangeOptions::default()
        };
        db.compact_range_opt(&cro, None, None).unwrap();
        assert!(
            ticker(&o, Ticker::CompactWriteBytes) > before,
            "{b:?} rewrote nothing"
        );
    }
    let ro = ReadOptions::default();
    assert_eq!(db.get(&ro, &key(450)).unwrap(), Some(value(450, 2)));
}

#[test]
fn compact_range_options_reach_other_families() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(small(CompactionStyle::Level), dir.path()).unwrap();
    let cf = db
        .create_column_family(&small(CompactionStyle::Universal), "u")
        .unwrap();
    let wo = WriteOptions::default();
    for round in 0..3u32 {
        for i in 0..200 {
            db.put_cf(&wo, &cf, &key(i), &value(i, round)).unwrap();
        }
        db.flush_cf(&FlushOptions::default(), &cf).unwrap();
    }
    let cro = CompactRangeOptions {
        exclusive_manual_compaction: false,
        max_subcompactions: 4,
        allow_write_stall: true,
        ..CompactRangeOptions::default()
    };
    db.compact_range_cf_opt(&cf, &cro, None, None).unwrap();
    assert_eq!(
        db.int_property_cf(&cf, "rocksdb.num-files-at-level0"),
        Some(0)
    );
    assert_eq!(
        db.int_property_cf(&cf, "rocksdb.num-files-at-level6"),
        Some(1)
    );
    let ro = ReadOptions::default();
    assert_eq!(db.get_cf(&ro, &cf, &key(7)).unwrap(), Some(value(7, 2)));
}

/// Regression: with automatic compactions off for a family and L0 one file
/// short of the slowdown trigger, an explicit flush (not allowing a write
/// stall) waited for compactions to drain L0, which none would ever do: it
/// hung. RocksDB's flush ignores the L0 and byte conditions then.
#[test]
fn regression_flush_with_auto_compactions_off_does_not_wait_on_l0_stall() {
    let dir = tempfile::tempdir().unwrap();
    let db_opts = Options {
        create_if_missing: true,
        ..Options::default()
    };
    let db = Db::open(db_opts, dir.path()).unwrap();
    // Off for the family only: the database's own switch stays on.
    let cf_opts = Options {
        write_buffer_size: 64 << 10,
        disable_auto_compactions: true,
        ..Options::default()
    };
    let cf = db.create_column_family(&cf_opts, "bulk").unwrap();
    let wo = WriteOptions::default();
    for round in 0..24u32 {
        db.put_cf(&wo, &cf, &key(round), &value(round, 0)).unwrap();
        db.flush_cf(&FlushOptions::default(), &cf).unwrap();
    }
    assert_eq!(
        db.int_property_cf(&cf, "rocksdb.num-files-at-level0"),
        Some(24)
    );
    // And with the database-wide switch.
    let dir2 = tempfile::tempdir().unwrap();
    let db2 = Db::open(
        Options {
            create_if_missing: true,
            disable_auto_compactions: true,
            ..Options::default()
        },
        dir2.path(),
    )
    .unwrap();
    for round in 0..24u32 {
        db2.put(&wo, &key(round), &value(round, 0)).unwrap();
        db2.flush(&FlushOptions::default()).unwrap();
    }
    assert_eq!(db2.int_property("rocksdb.num-files-at-level0"), Some(24));
}

#[test]
fn regression_compactions_into_l0_counted_as_flushed_bytes() {
    // `rocksdb.stats` took L0's written bytes for the flushed bytes, its
    // write amplification's divisor; but compactions that write L0
    // (universal runs in L0, leveled and FIFO intra-L0) add to L0's row
    // too, so the more a database compacted into L0, the lower its W-Amp
    // read. With one level every compaction writes L0: the Sum row showed
    // 1.0 whatever was rewritten. The divisor is the flushes' own bytes,
    // so the Sum row agrees with the tickers.
    let dir = tempfile::tempdir().unwrap();
    let o = Options {
        num_levels: 1,
        ..small(CompactionStyle::Universal)
    };
    let db = Db::open(o.clone(), dir.path()).unwrap();
    for round in 0..16 {
        write_flush(&db, round * 600, 600, round);
        db.wait_for_compactions().unwrap();
    }
    let flushed = ticker(&o, Ticker::FlushWriteBytes);
    let compacted = ticker(&o, Ticker::CompactWriteBytes);
    assert!(compacted > flushed / 2, "compactions rewrote the runs");
    let expected = (flushed + compacted) as f64 / flushed as f64;
    let stats = db.property("rocksdb.stats").unwrap();
    let got = crate::ingest::w_amp_of_row(&stats, "Sum");
    assert!(
        (got - expected).abs() <= 0.06,
        "Sum W-Amp {got}, tickers say {expected:.2}:\n{stats}"
    );
    let flush_line = format!(
        "Flush(GB): cumulative {:.3},",
        flushed as f64 / 1_073_741_824.0
    );
    assert!(stats.contains(&flush_line), "{flush_line} in:\n{stats}");
}

#[test]
fn compact_range_of_everything_is_one_merge_into_the_last_level() {
    let dir = tempfile::tempdir().unwrap();
    // Static levels and no automatic compactions: the levels hold what the
    // steps below put there. Values that do not compress.
    // max_compaction_bytes is 25 target files, 3.2 MiB: room for every
    // level above the last.
    let o = Options {
        level_compaction_dynamic_level_bytes: false,
        target_file_size_base: 128 << 10,
        disable_auto_compactions: true,
        ..small(CompactionStyle::Level)
    };
    let db = Db::open(o.clone(), dir.path()).unwrap();
    let mut model = std::collections::BTreeMap::new();
    let noise = |i: u32, round: u32| {
        let mut x = u64::from(i) << 32 | u64::from(round) | 1;
        (0..25)
            .flat_map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x.to_le_bytes()
            })
            .collect::<Vec<u8>>()
    };
    let wo = WriteOptions::default();
    // L3: keys 0..3000, compacted out of L0 and moved down.
    for i in 0..3000 {
        db.put(&wo, &key(i), &noise(i, 0)).unwrap();
        model.insert(key(i), noise(i, 0));
    }
    let to_l3 = CompactRangeOptions {
        change_level: true,
        target_level: 3,
        ..CompactRangeOptions::default()
    };
    db.compact_range_opt(&to_l3, None, None).unwrap();
    // L2: a file ingested over part of L3's range lands right above it.
    let sst = dir.path().join("mid.sst");
    let mut w = talus::SstFileWriter::new(&o);
    w.open(&sst).unwrap();
    for i in 1000..1500 {
        w.put(&key(i), &noise(i, 1)).unwrap();
        model.insert(key(i), noise(i, 1));
    }
    w.finish().unwrap();
    db.ingest_external_file(&[&sst], &talus::IngestExternalFileOptions::default())
        .unwrap();
    // L0: newer values and a deletion.
    for i in 100..400 {
        db.put(&wo, &key(i), &noise(i, 2)).unwrap();
        model.insert(key(i), noise(i, 2));
    }
    db.delete(&wo, &key(150)).unwrap();
    model.remove(&key(150));
    db.flush(&FlushOptions::default()).unwrap();
    let levels: Vec<u64> = (0..7).map(|l| files_at(&db, l)).collect();
    assert!(
        levels[0] > 0 && levels[1] == 0 && levels[2] == 1 && levels[3] > 0,
        "want L0, L2 and L3: {levels:?}"
    );
    let last = 3;

    let written = ticker(&o, Ticker::CompactWriteBytes);
    db.compact_range(None, None).unwrap();
    let rewritten = ticker(&o, Ticker::CompactWriteBytes) - written;
    let size = db.int_property("rocksdb.total-sst-files-size").unwrap();
    // Every level above went into the last one, written once: level by
    // level, L0's data would have been written into L1 first, then moved
    // to L2, then written again into L3.
    for l in 0..7 {
        assert_eq!(
            files_at(&db, l) > 0,
            l == last,
            "level {l} after: {levels:?}"
        );
    }
    assert!(
        rewritten <= size,
        "{rewritten} bytes written for {size} bytes of tables ({levels:?})"
    );
    // One compaction did it (the LOG names each, as porting.md says).
    let log = std::fs::read_to_string(dir.path().join("LOG")).unwrap();
    let manual: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("Compaction started") && l.contains("(ManualCompaction"))
        .collect();
    assert!(
        manual.len() == 2 && manual[1].contains("L0 -> L3"),
        "the setup's compaction, then one from L0 into L3: {manual:#?}"
    );
    let ro = ReadOptions::default();
    let got: Vec<(Vec<u8>, Vec<u8>)> = {
        let mut it = db.iter(&ro).unwrap();
        it.seek_to_first();
        let mut v = Vec::new();
        while it.valid() {
            v.push((it.key().to_vec(), it.value().to_vec()));
            it.next();
        }
        it.status().unwrap();
        v
    };
    assert_eq!(got, model.into_iter().collect::<Vec<_>>());
}
