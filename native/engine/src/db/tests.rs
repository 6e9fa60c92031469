use super::*;
use super::{FlushOptions, Snapshot};
use crate::options::{Options, ReadOptions, WriteOptions};

fn opts() -> Options {
    Options {
        create_if_missing: true,
        ..Options::default()
    }
}

#[test]
fn put_get_delete_overwrite_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let wo = WriteOptions::default();
    let ro = ReadOptions::default();
    {
        let db = Db::open(opts(), dir.path()).unwrap();
        db.put(&wo, b"a", b"1").unwrap();
        db.put(&wo, b"b", b"2").unwrap();
        db.put(&wo, b"a", b"3").unwrap();
        db.delete(&wo, b"b").unwrap();
        assert_eq!(db.get(&ro, b"a").unwrap().as_deref(), Some(&b"3"[..]));
        assert_eq!(db.get(&ro, b"b").unwrap(), None);
        db.close().unwrap();
        assert!(matches!(
            db.get(&ro, b"a"),
            Err(Error::ShutdownInProgress(_))
        ));
    }
    let db = Db::open(opts(), dir.path()).unwrap();
    assert_eq!(db.get(&ro, b"a").unwrap().as_deref(), Some(&b"3"[..]));
    assert_eq!(db.get(&ro, b"b").unwrap(), None);
    assert_eq!(db.latest_sequence_number(), 4);
}

#[test]
fn multi_get_each_hands_results_in_key_order_and_stops_at_the_first_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(opts(), dir.path()).unwrap();
    let wo = WriteOptions::default();
    let ro = ReadOptions::default();
    db.put(&wo, b"a", &[1u8; 3000]).unwrap();
    db.put(&wo, b"c", b"").unwrap();
    db.flush(&FlushOptions::default()).unwrap();
    db.put(&wo, b"b", b"memtable").unwrap();
    let keys: [&[u8]; 5] = [b"c", b"x", b"a", b"b", b"a"];
    let mut seen = Vec::new();
    db.multi_get_each(&ro, &keys, |i, v| {
        seen.push((i, v.map(<[u8]>::to_vec)));
        Ok::<(), Error>(())
    })
    .unwrap();
    let want: Vec<(usize, Option<Vec<u8>>)> = vec![
        (0, Some(Vec::new())),
        (1, None),
        (2, Some(vec![1u8; 3000])),
        (3, Some(b"memtable".to_vec())),
        (4, Some(vec![1u8; 3000])),
    ];
    assert_eq!(seen, want);
    // The collecting form agrees with it.
    let collected = db.multi_get(&ro, &keys).unwrap();
    assert_eq!(
        collected,
        want.into_iter().map(|(_, v)| v).collect::<Vec<_>>()
    );
    // An error from the callback ends the lookups and is returned as is.
    let mut calls = 0;
    let r = db.multi_get_each(&ro, &keys, |i, _| {
        calls += 1;
        if i == 1 {
            Err(Error::Aborted("stop".into()))
        } else {
            Ok(())
        }
    });
    assert!(matches!(r, Err(Error::Aborted(m)) if m == "stop"));
    assert_eq!(calls, 2);
}

#[test]
fn second_open_is_an_io_error_and_missing_db_is_invalid() {
    let dir = tempfile::tempdir().unwrap();
    let err = Db::open(Options::default(), dir.path().join("nope")).unwrap_err();
    assert_eq!(err.code(), crate::Code::InvalidArgument);
    assert!(err.to_string().contains("does not exist"), "{err}");
    assert!(err.to_string().contains("create_if_missing"), "{err}");
    let db = Db::open(opts(), dir.path()).unwrap();
    let err = Db::open(opts(), dir.path()).unwrap_err();
    // RocksDB's status: IOError, with the lock in the message.
    assert_eq!(err.code(), crate::Code::IoError);
    assert!(err.to_string().contains("lock"), "{err}");
    drop(db);
    let _again = Db::open(opts(), dir.path()).unwrap();
    let err = Db::open(
        Options {
            error_if_exists: true,
            ..opts()
        },
        dir.path().join("x"),
    );
    assert!(err.is_ok());
}

#[test]
fn range_delete_hides_older_keys_only() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(opts(), dir.path()).unwrap();
    let wo = WriteOptions::default();
    let ro = ReadOptions::default();
    db.put(&wo, b"b", b"old").unwrap();
    db.delete_range(&wo, b"a", b"c").unwrap();
    db.put(&wo, b"bb", b"new").unwrap();
    assert_eq!(db.get(&ro, b"b").unwrap(), None);
    assert_eq!(db.get(&ro, b"bb").unwrap().as_deref(), Some(&b"new"[..]));
    let ro1 = ReadOptions {
        snapshot: Some(1),
        ..ReadOptions::default()
    };
    assert_eq!(db.get(&ro1, b"b").unwrap().as_deref(), Some(&b"old"[..]));
}

#[test]
fn concurrent_writers_all_land_and_sequences_are_dense() {
    let dir = tempfile::tempdir().unwrap();
    let db = Arc::new(Db::open(opts(), dir.path()).unwrap());
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let db = db.clone();
            std::thread::spawn(move || {
                let wo = WriteOptions {
                    sync: t % 4 == 0,
                    ..WriteOptions::default()
                };
                for i in 0..500 {
                    db.put(
                        &wo,
                        format!("t{t}-{i}").as_bytes(),
                        format!("{i}").as_bytes(),
                    )
                    .unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(db.latest_sequence_number(), 4000);
    let ro = ReadOptions::default();
    for t in 0..8 {
        for i in (0..500).step_by(7) {
            assert_eq!(
                db.get(&ro, format!("t{t}-{i}").as_bytes()).unwrap(),
                Some(format!("{i}").into_bytes())
            );
        }
    }
    db.close().unwrap();
    let db = Db::open(opts(), dir.path()).unwrap();
    assert_eq!(db.latest_sequence_number(), 4000);
    assert_eq!(db.get(&ro, b"t7-499").unwrap(), Some(b"499".to_vec()));
}

/// Write admission with one slot (`max_concurrent_writers` 1) and eight
/// writers: every write lands, including those of threads that hold their
/// lease while they do something else (an explicit flush; waiting for
/// another writer, which would deadlock if a lease could not be taken from
/// a thread outside the engine) and of threads that stop writing while
/// they hold it.
#[test]
fn write_admission_with_one_slot_lets_every_writer_through() {
    let dir = tempfile::tempdir().unwrap();
    let o = Options {
        max_concurrent_writers: 1,
        write_buffer_size: 256 * 1024,
        ..opts()
    };
    let db = Arc::new(Db::open(o.clone(), dir.path()).unwrap());
    assert_eq!(db.inner.write_gate.limit(), 1);
    // The engaged mechanism, whatever the demand.
    db.inner.write_gate.pin_engaged();
    // Thread 7 stops after 3 puts, holding its lease; the others make 400.
    let puts = |t: usize| if t == 7 { 3 } else { 400 };
    // Thread 0 writes twice (the second put, back to back, keeps its lease),
    // then waits for thread 1's first write, which must get past the gate
    // while thread 0 holds the only lease.
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let mut tx = Some(tx);
    let mut rx = Some(rx);
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let db = db.clone();
            let (tx, rx) = match t {
                0 => (None, rx.take()),
                1 => (tx.take(), None),
                _ => (None, None),
            };
            std::thread::spawn(move || {
                let wo = WriteOptions::default();
                for i in 0..puts(t) {
                    db.put(
                        &wo,
                        format!("t{t}-{i}").as_bytes(),
                        format!("{i}").as_bytes(),
                    )
                    .unwrap();
                    if i == 1
                        && let Some(rx) = &rx
                    {
                        rx.recv().unwrap();
                    }
                    if i == 0
                        && let Some(tx) = &tx
                    {
                        tx.send(()).unwrap();
                    }
                    if t == 2 && i % 100 == 50 {
                        db.flush(&FlushOptions::default()).unwrap();
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let total: usize = (0..8).map(puts).sum();
    assert_eq!(db.latest_sequence_number(), total as u64);
    let ro = ReadOptions::default();
    for t in 0..8 {
        for i in 0..puts(t) {
            assert_eq!(
                db.get(&ro, format!("t{t}-{i}").as_bytes()).unwrap(),
                Some(format!("{i}").into_bytes()),
                "t{t}-{i}"
            );
        }
    }
    // The options reach the engine as given; out of range is refused.
    for bad in [-2, crate::options::MAX_CONCURRENT_WRITERS + 1] {
        let o = Options {
            max_concurrent_writers: bad,
            ..opts()
        };
        let e = Db::open(o, tempfile::tempdir().unwrap().path())
            .err()
            .unwrap();
        assert!(e.to_string().contains("max_concurrent_writers"), "{e}");
    }
}

/// A database whose write admission has one slot, with statistics.
fn one_slot_db_with_statistics() -> (
    tempfile::TempDir,
    Arc<Db>,
    Arc<crate::statistics::Statistics>,
) {
    let dir = tempfile::tempdir().unwrap();
    let stats = crate::statistics::Statistics::new();
    let o = Options {
        max_concurrent_writers: 1,
        statistics: Some(stats.clone()),
        ..opts()
    };
    let db = Arc::new(Db::open(o, dir.path()).unwrap());
    (dir, db, stats)
}

/// While the only slot of the gate is held by a write in progress, `sync`,
/// `no_slowdown` and `low_pri` writes from other threads pass the gate and
/// finish (none may wait behind a writer, see `write_gate`), and a plain
/// write waits for the slot and finishes once it is free. The statistics
/// count that one wait, and no engagement (the gate was pinned).
#[test]
fn sync_no_slowdown_and_low_pri_writes_pass_a_full_write_gate() {
    use crate::statistics::Ticker;
    let (_dir, db, stats) = one_slot_db_with_statistics();
    db.inner.write_gate.pin_engaged();
    let db2 = db.clone();
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let plain_writer = Arc::new(Mutex::new(None));
    let plain_writer2 = plain_writer.clone();
    super::test_hooks::set(&super::test_hooks::IN_WRITE_SLOT, move || {
        // This thread holds the only slot, inside its write.
        let bypassing = [
            WriteOptions {
                sync: true,
                ..WriteOptions::default()
            },
            WriteOptions {
                no_slowdown: true,
                ..WriteOptions::default()
            },
            WriteOptions {
                low_pri: true,
                ..WriteOptions::default()
            },
        ];
        for (i, wo) in bypassing.into_iter().enumerate() {
            let (db, tx) = (db2.clone(), done_tx.clone());
            std::thread::spawn(move || {
                db.put(&wo, format!("bypass{i}").as_bytes(), b"v").unwrap();
                tx.send(i).unwrap();
            });
        }
        let mut done: Vec<usize> = (0..3)
            .map(|_| {
                done_rx
                    .recv_timeout(std::time::Duration::from_secs(60))
                    .expect("a bypassing write waited behind the slot's holder")
            })
            .collect();
        done.sort_unstable();
        assert_eq!(done, vec![0, 1, 2]);
        // A plain write queues at the gate.
        let db = db2.clone();
        let plain = std::thread::spawn(move || {
            db.put(&WriteOptions::default(), b"plain", b"v").unwrap();
        });
        while db2.inner.write_gate.waiting() == 0 {
            std::thread::yield_now();
        }
        // Leaving the hook lets this write finish and free the slot; the
        // plain write then gets in (joined below).
        *plain_writer2.lock() = Some(plain);
    });
    db.put(&WriteOptions::default(), b"holder", b"v").unwrap();
    let ro = ReadOptions::default();
    for k in ["holder", "bypass0", "bypass1", "bypass2"] {
        assert!(db.get(&ro, k.as_bytes()).unwrap().is_some(), "{k}");
    }
    // The plain write finishes once the slot is free (handed over, or
    // taken when idle).
    let plain = plain_writer.lock().take().expect("the hook ran");
    plain.join().unwrap();
    assert!(db.get(&ro, b"plain").unwrap().is_some());
    assert_eq!(stats.ticker_count(Ticker::WriteAdmissionWaits), 1);
    assert_eq!(stats.ticker_count(Ticker::WriteAdmissionEngagements), 0);
}

/// A service's shape (issue: write admission must not hurt a service's
/// writes): many threads, each writing now and then, through a gate of one
/// slot. No writer is continuous, so the gate never engages: no put takes
/// a slot or waits at it, and every write lands.
#[test]
fn occasional_writers_never_wait_at_the_write_gate() {
    use crate::statistics::Ticker;
    let (_dir, db, stats) = one_slot_db_with_statistics();
    let threads: Vec<_> = (0..32)
        .map(|t| {
            let db = db.clone();
            std::thread::spawn(move || {
                for i in 0..10 {
                    db.put(
                        &WriteOptions::default(),
                        format!("s{t}-{i}").as_bytes(),
                        b"v",
                    )
                    .unwrap();
                    // Longer than the gate's HOT_GAP: the next put is not
                    // continuous.
                    std::thread::sleep(super::write_gate::HOT_GAP * 5);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(db.inner.write_gate.waits(), 0, "a put waited at the gate");
    assert_eq!(stats.ticker_count(Ticker::WriteAdmissionWaits), 0);
    assert_eq!(stats.ticker_count(Ticker::WriteAdmissionEngagements), 0);
    assert_eq!(db.latest_sequence_number(), 320);
    let ro = ReadOptions::default();
    for t in 0..32 {
        for i in 0..10 {
            assert!(
                db.get(&ro, format!("s{t}-{i}").as_bytes())
                    .unwrap()
                    .is_some()
            );
        }
    }
}

/// Writers putting flat out, more than the gate's slots, engage it after
/// a sustained demand (`write_gate::ENGAGE_AFTER` samples): the statistics
/// count the engagement and the puts that slept for a turn.
#[test]
fn saturating_writers_tick_the_write_admission_statistics() {
    use crate::statistics::Ticker;
    use std::sync::atomic::{AtomicBool, Ordering};
    let (_dir, db, stats) = one_slot_db_with_statistics();
    let seen = || {
        stats.ticker_count(Ticker::WriteAdmissionEngagements) >= 1
            && stats.ticker_count(Ticker::WriteAdmissionWaits) >= 10
    };
    let stop = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let (db, stop) = (db.clone(), stop.clone());
            std::thread::spawn(move || {
                // Bounded: the puts end whether the gate engaged or not.
                for i in 0..1_000_000u32 {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    db.put(
                        &WriteOptions::default(),
                        &[t, (i >> 16) as u8, (i >> 8) as u8, i as u8],
                        b"v",
                    )
                    .unwrap();
                }
            })
        })
        .collect();
    while !seen() && !threads.iter().all(|t| t.is_finished()) {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    assert!(
        seen(),
        "engagements {}, waits {}",
        stats.ticker_count(Ticker::WriteAdmissionEngagements),
        stats.ticker_count(Ticker::WriteAdmissionWaits)
    );
    assert!(stats.ticker_count(Ticker::WriteAdmissionWaitMicros) > 0);
}

/// Puts are copied into the memtable and placed before they queue
/// (`MemTable::prepare`); this races them with each other on the same keys
/// and with memtable switches (a 64 KiB write buffer: a switch every few
/// hundred writes, so many prepared entries find their memtable replaced).
/// Every write must land, and the newest version of each key must win.
#[test]
fn writes_racing_memtable_switches_all_land_and_the_newest_version_wins() {
    let dir = tempfile::tempdir().unwrap();
    let o = Options {
        write_buffer_size: 64 * 1024,
        ..opts()
    };
    let db = Arc::new(Db::open(o.clone(), dir.path()).unwrap());
    let rounds = 300;
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let db = db.clone();
            std::thread::spawn(move || {
                let wo = WriteOptions::default();
                for round in 0..rounds {
                    for j in 0..5 {
                        // Keys of different threads share prefixes and
                        // interleave, so their searches meet.
                        let hot = format!("hot-{j}-{t}");
                        db.put(&wo, hot.as_bytes(), format!("{round}").as_bytes())
                            .unwrap();
                        let once = format!("once-{j}-{t}-{round}");
                        db.put(&wo, once.as_bytes(), b"x").unwrap();
                    }
                    if round % 50 == 0 {
                        db.delete(&wo, format!("hot-4-{t}").as_bytes()).unwrap();
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let check = |db: &Db| {
        let ro = ReadOptions::default();
        for t in 0..8 {
            for j in 0..5 {
                let k = format!("hot-{j}-{t}");
                assert_eq!(
                    db.get(&ro, k.as_bytes()).unwrap(),
                    Some(format!("{}", rounds - 1).into_bytes()),
                    "{k}"
                );
                for round in 0..rounds {
                    let k = format!("once-{j}-{t}-{round}");
                    assert_eq!(
                        db.get(&ro, k.as_bytes()).unwrap(),
                        Some(b"x".to_vec()),
                        "{k}"
                    );
                }
            }
        }
    };
    check(&db);
    assert_eq!(db.latest_sequence_number(), 8 * (rounds * 10 + 6));
    drop(db);
    let db = Db::open(o, dir.path()).unwrap();
    check(&db);
}

/// A leader leads the groups of writers asleep behind it (invariant 5 of
/// `write_thread`). Batches of 1 to 300 entries (the large ones inserted in
/// parallel by their own threads when grouped), synced and unsynced writes,
/// and explicit flushes (memtable switches in the queue, never combined) race
/// here: every entry must land once, with dense sequence numbers, before and
/// after a reopen.
#[test]
fn writes_of_every_batch_size_and_flushes_land_when_leaders_combine_groups() {
    let dir = tempfile::tempdir().unwrap();
    let o = Options {
        write_buffer_size: 256 * 1024,
        ..opts()
    };
    let db = Arc::new(Db::open(o.clone(), dir.path()).unwrap());
    let sizes = [1usize, 1, 3, 300, 1, 17];
    let rounds = 120;
    let writers: Vec<_> = (0..6)
        .map(|t| {
            let db = db.clone();
            std::thread::spawn(move || {
                for round in 0..rounds {
                    let wo = WriteOptions {
                        sync: round % 40 == t,
                        ..WriteOptions::default()
                    };
                    let n = sizes[(round + t) % sizes.len()];
                    let mut batch = WriteBatch::new();
                    for i in 0..n {
                        batch.put(format!("w{t}-r{round}-{i}").as_bytes(), &[t as u8; 40]);
                    }
                    db.write(&wo, batch).unwrap();
                }
            })
        })
        .collect();
    let flusher = {
        let db = db.clone();
        std::thread::spawn(move || {
            for _ in 0..10 {
                db.flush(&FlushOptions::default()).unwrap();
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        })
    };
    for w in writers {
        w.join().unwrap();
    }
    flusher.join().unwrap();
    let total: usize = (0..6)
        .map(|t| {
            (0..rounds)
                .map(|r| sizes[(r + t) % sizes.len()])
                .sum::<usize>()
        })
        .sum();
    let check = |db: &Db| {
        assert_eq!(db.latest_sequence_number(), total as u64);
        let ro = ReadOptions::default();
        for t in 0..6 {
            for round in 0..rounds {
                for i in 0..sizes[(round + t) % sizes.len()] {
                    let k = format!("w{t}-r{round}-{i}");
                    assert_eq!(
                        db.get(&ro, k.as_bytes()).unwrap(),
                        Some(vec![t as u8; 40]),
                        "{k}"
                    );
                }
            }
        }
    };
    check(&db);
    drop(db);
    let db = Db::open(o, dir.path()).unwrap();
    check(&db);
}

#[test]
fn disable_wal_writes_are_flushed_by_a_clean_close() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Db::open(opts(), dir.path()).unwrap();
        db.put(&WriteOptions::default(), b"logged", b"1").unwrap();
        let no_wal = WriteOptions {
            disable_wal: true,
            ..WriteOptions::default()
        };
        db.put(&no_wal, b"unlogged", b"2").unwrap();
        assert!(
            db.get(&ReadOptions::default(), b"unlogged")
                .unwrap()
                .is_some()
        );
    }
    let db = Db::open(opts(), dir.path()).unwrap();
    assert!(
        db.get(&ReadOptions::default(), b"logged")
            .unwrap()
            .is_some()
    );
    assert!(
        db.get(&ReadOptions::default(), b"unlogged")
            .unwrap()
            .is_some()
    );
    assert_eq!(db.int_property("rocksdb.num-files-at-level0"), Some(1));
}

fn only_log(dir: &Path) -> PathBuf {
    let logs: Vec<_> = logs_with_sizes(dir)
        .into_iter()
        .filter(|l| l.1 > 0)
        .collect();
    assert_eq!(logs.len(), 1, "{logs:?}");
    dir.join(crate::version::filename::log_file_name(logs[0].0))
}

#[test]
fn truncated_log_keeps_every_whole_record_and_flipped_byte_fails_open() {
    let dir = tempfile::tempdir().unwrap();
    let write_100 = |base: u32| {
        let db = Db::open(opts(), dir.path()).unwrap();
        for i in base..base + 100 {
            db.put(&WriteOptions::default(), &i.to_be_bytes(), &[7u8; 1000])
                .unwrap();
        }
        db.close().unwrap();
    };
    write_100(0);
    let log = only_log(dir.path());
    let bytes = std::fs::read(&log).unwrap();
    // Cut in the middle of record 60 (each record: 7-byte header + batch).
    let rec = 7 + 12 + 1 + 1 + 4 + 2 + 1000;
    std::fs::write(&log, &bytes[..rec * 60 + rec / 2]).unwrap();
    {
        let db = Db::open(opts(), dir.path()).unwrap();
        let ro = ReadOptions::default();
        for i in 0..100u32 {
            let found = db.get(&ro, &i.to_be_bytes()).unwrap().is_some();
            // Records cross 32 KiB blocks; whole records before the cut survive.
            assert_eq!(found, (i as usize) < 60, "key {i}");
        }
        let text = std::fs::read_to_string(dir.path().join("LOG")).unwrap();
        assert!(text.contains("Dropped torn tail"), "{text}");
        // The replayed log was written to L0 and deleted.
        assert_eq!(db.int_property("rocksdb.num-files-at-level0"), Some(1));
    }
    // A flipped byte in the middle of a log fails open.
    write_100(1000);
    let log = only_log(dir.path());
    let mut bytes = std::fs::read(&log).unwrap();
    bytes[rec * 10 + 100] ^= 1;
    std::fs::write(&log, &bytes).unwrap();
    let err = Db::open(opts(), dir.path()).unwrap_err();
    assert!(err.is_corruption(), "{err}");
    assert!(
        err.to_string().contains(&log.display().to_string()),
        "{err}"
    );
}

fn small_opts() -> Options {
    Options {
        create_if_missing: true,
        write_buffer_size: 64 * 1024,
        target_file_size_base: 64 * 1024,
        max_bytes_for_level_base: 256 * 1024,
        level0_file_num_compaction_trigger: 2,
        ..Options::default()
    }
}

#[test]
fn data_larger_than_memory_flushes_compacts_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let wo = WriteOptions::default();
    let ro = ReadOptions::default();
    let n = 20_000u32;
    let val = |i: u32| format!("value-{i}-{}", "x".repeat((i % 50) as usize)).into_bytes();
    {
        let db = Db::open(small_opts(), dir.path()).unwrap();
        for i in 0..n {
            // Spread keys so every flush overlaps the others.
            let k = (i.wrapping_mul(2654435761)).to_be_bytes();
            db.put(&wo, &k, &val(i)).unwrap();
        }
        for i in (0..n).step_by(3) {
            let k = (i.wrapping_mul(2654435761)).to_be_bytes();
            db.delete(&wo, &k).unwrap();
        }
        db.flush(&FlushOptions::default()).unwrap();
        db.wait_for_compactions().unwrap();
        let deeper: u64 = (1..7)
            .map(|l| {
                db.int_property(&format!("rocksdb.num-files-at-level{l}"))
                    .unwrap()
            })
            .sum();
        assert!(deeper > 0, "{}", db.property("rocksdb.levelstats").unwrap());
        for i in 0..n {
            let k = (i.wrapping_mul(2654435761)).to_be_bytes();
            let want = (i % 3 != 0).then(|| val(i));
            assert_eq!(db.get(&ro, &k).unwrap(), want, "key {i}");
        }
        let mut it = db.iter(&ro).unwrap();
        it.seek_to_first();
        let mut count = 0;
        let mut prev: Option<Vec<u8>> = None;
        while it.valid() {
            if let Some(p) = &prev {
                assert!(p.as_slice() < it.key());
            }
            prev = Some(it.key().to_vec());
            count += 1;
            it.next();
        }
        it.status().unwrap();
        assert_eq!(count, n - n.div_ceil(3));
        db.verify_checksum().unwrap();
    }
    // Everything survives reopen.
    let db = Db::open(small_opts(), dir.path()).unwrap();
    for i in (0..n).step_by(7) {
        let k = (i.wrapping_mul(2654435761)).to_be_bytes();
        let want = (i % 3 != 0).then(|| val(i));
        assert_eq!(db.get(&ro, &k).unwrap(), want, "key {i}");
    }
    db.compact_range(None, None).unwrap();
    assert_eq!(db.int_property("rocksdb.num-files-at-level0"), Some(0));
    assert_eq!(
        db.int_property("rocksdb.estimate-num-keys").unwrap() as u32,
        n - n.div_ceil(3)
    );
}

#[test]
fn snapshots_survive_flush_and_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(small_opts(), dir.path()).unwrap();
    let wo = WriteOptions::default();
    db.put(&wo, b"k", b"v1").unwrap();
    let s1 = db.snapshot().unwrap();
    db.put(&wo, b"k", b"v2").unwrap();
    db.delete_range(&wo, b"a", b"z").unwrap();
    let s2 = db.snapshot().unwrap();
    db.put(&wo, b"k", b"v3").unwrap();
    for _ in 0..3 {
        db.flush(&FlushOptions::default()).unwrap();
        db.compact_range(None, None).unwrap();
        let at = |s: &Snapshot| ReadOptions {
            snapshot: Some(s.sequence_number()),
            ..ReadOptions::default()
        };
        assert_eq!(db.get(&at(&s1), b"k").unwrap().as_deref(), Some(&b"v1"[..]));
        assert_eq!(db.get(&at(&s2), b"k").unwrap(), None);
        assert_eq!(
            db.get(&ReadOptions::default(), b"k").unwrap().as_deref(),
            Some(&b"v3"[..])
        );
    }
    db.release_snapshot(s1);
    db.release_snapshot(s2);
    db.compact_range(None, None).unwrap();
    assert_eq!(
        db.get(&ReadOptions::default(), b"k").unwrap().as_deref(),
        Some(&b"v3"[..])
    );
}

/// A file system that holds writes of table files made by compaction
/// threads while its gate is closed, so tests can let L0 pile up; and,
/// while its `manifest_sync` gate is closed, every sync of a manifest.
mod gate {
    use crate::error::Result;
    use crate::fs::{
        FileLock, FileSystem, RandomAccessFile, SequentialFile, StdFileSystem, WritableFile,
        WriteFileOptions,
    };
    use parking_lot::{Condvar, Mutex};
    use std::path::Path;
    use std::sync::Arc;

    #[derive(Default)]
    pub struct Gate {
        closed: Mutex<bool>,
        cv: Condvar,
        /// Threads held at the gate now.
        waiting: std::sync::atomic::AtomicUsize,
    }

    impl Gate {
        pub fn set_closed(&self, c: bool) {
            *self.closed.lock() = c;
            self.cv.notify_all();
        }
        pub fn waiting(&self) -> usize {
            self.waiting.load(std::sync::atomic::Ordering::Acquire)
        }
        fn pass(&self) {
            let mut g = self.closed.lock();
            self.waiting
                .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
            while *g {
                self.cv.wait(&mut g);
            }
            self.waiting
                .fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        }
    }

    pub struct GateFs {
        pub gate: Arc<Gate>,
        pub manifest_sync: Arc<Gate>,
        /// Holds every sync of a temporary (`*.dbtmp`) file while closed.
        pub temp_sync: Arc<Gate>,
        /// Holds every `remove_file` while closed.
        pub remove: Arc<Gate>,
        /// Holds every close (last drop) of a table file's reader while
        /// closed.
        pub table_close: Arc<Gate>,
        /// Each table file closed: its name and the closing thread's name.
        pub table_closes: Arc<Mutex<Vec<(String, String)>>>,
        inner: StdFileSystem,
    }

    /// A table file open for reading whose close waits at a gate.
    struct GatedRead {
        inner: Arc<dyn RandomAccessFile>,
        name: String,
        close_gate: Arc<Gate>,
        closes: Arc<Mutex<Vec<(String, String)>>>,
    }

    impl RandomAccessFile for GatedRead {
        fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
            self.inner.read_exact_at(offset, buf)
        }
        fn size(&self) -> Result<u64> {
            self.inner.size()
        }
    }

    impl Drop for GatedRead {
        fn drop(&mut self) {
            self.close_gate.pass();
            let thread = std::thread::current().name().unwrap_or("").to_string();
            self.closes.lock().push((self.name.clone(), thread));
        }
    }

    impl GateFs {
        pub fn new() -> (Arc<GateFs>, Arc<Gate>) {
            let gate = Arc::new(Gate::default());
            (
                Arc::new(GateFs {
                    gate: gate.clone(),
                    manifest_sync: Arc::default(),
                    temp_sync: Arc::default(),
                    remove: Arc::default(),
                    table_close: Arc::default(),
                    table_closes: Arc::default(),
                    inner: StdFileSystem,
                }),
                gate,
            )
        }
    }

    /// Appends wait at `gate`, syncs at `sync_gate`.
    struct GatedFile {
        inner: Box<dyn WritableFile>,
        gate: Option<Arc<Gate>>,
        sync_gate: Option<Arc<Gate>>,
    }

    impl WritableFile for GatedFile {
        fn append(&mut self, data: &[u8]) -> Result<()> {
            if let Some(g) = &self.gate {
                g.pass();
            }
            self.inner.append(data)
        }
        fn flush(&mut self) -> Result<()> {
            self.inner.flush()
        }
        fn sync(&mut self) -> Result<()> {
            if let Some(g) = &self.sync_gate {
                g.pass();
            }
            self.inner.sync()
        }
        fn len(&self) -> u64 {
            self.inner.len()
        }
    }

    impl FileSystem for GateFs {
        fn create_dir_all(&self, p: &Path) -> Result<()> {
            self.inner.create_dir_all(p)
        }
        fn new_writable(&self, p: &Path, o: WriteFileOptions) -> Result<Box<dyn WritableFile>> {
            let f = self.inner.new_writable(p, o)?;
            let compacting = std::thread::current()
                .name()
                .is_some_and(|n| n.starts_with("talus-compact"));
            let manifest = p
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("MANIFEST-"));
            if compacting && p.extension().is_some_and(|e| e == "sst") {
                Ok(Box::new(GatedFile {
                    inner: f,
                    gate: Some(self.gate.clone()),
                    sync_gate: None,
                }))
            } else if manifest {
                Ok(Box::new(GatedFile {
                    inner: f,
                    gate: None,
                    sync_gate: Some(self.manifest_sync.clone()),
                }))
            } else if p.extension().is_some_and(|e| e == "dbtmp") {
                Ok(Box::new(GatedFile {
                    inner: f,
                    gate: None,
                    sync_gate: Some(self.temp_sync.clone()),
                }))
            } else {
                Ok(f)
            }
        }
        fn new_appendable(&self, p: &Path, o: WriteFileOptions) -> Result<Box<dyn WritableFile>> {
            self.inner.new_appendable(p, o)
        }
        fn new_sequential(&self, p: &Path) -> Result<Box<dyn SequentialFile>> {
            self.inner.new_sequential(p)
        }
        fn new_random_access(&self, p: &Path) -> Result<Arc<dyn RandomAccessFile>> {
            let f = self.inner.new_random_access(p)?;
            if p.extension().is_some_and(|e| e == "sst") {
                Ok(Arc::new(GatedRead {
                    inner: f,
                    name: p.file_name().unwrap().to_string_lossy().into_owned(),
                    close_gate: self.table_close.clone(),
                    closes: self.table_closes.clone(),
                }))
            } else {
                Ok(f)
            }
        }
        fn file_size(&self, p: &Path) -> Result<u64> {
            self.inner.file_size(p)
        }
        fn exists(&self, p: &Path) -> bool {
            self.inner.exists(p)
        }
        fn try_exists(&self, p: &Path) -> Result<bool> {
            self.inner.try_exists(p)
        }
        fn is_dir(&self, p: &Path) -> bool {
            self.inner.is_dir(p)
        }
        fn list_dir(&self, p: &Path) -> Result<Vec<String>> {
            self.inner.list_dir(p)
        }
        fn remove_file(&self, p: &Path) -> Result<()> {
            self.remove.pass();
            self.inner.remove_file(p)
        }
        fn rename(&self, a: &Path, b: &Path) -> Result<()> {
            self.inner.rename(a, b)
        }
        fn sync_dir(&self, p: &Path) -> Result<()> {
            self.inner.sync_dir(p)
        }
        fn truncate(&self, p: &Path, l: u64) -> Result<()> {
            self.inner.truncate(p, l)
        }
        fn lock_file(&self, p: &Path) -> Result<Box<dyn FileLock>> {
            self.inner.lock_file(p)
        }
    }
}

fn wait_until(what: &str, mut f: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !f() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Regression: every memtable took fresh memory for its arena, and the
/// allocator had returned the flushed memtables' memory to the OS, so
/// writers faulted each page in again inside their write group, where the
/// writers queued behind them waited too. Now a flushed memtable's
/// blocks go back to the database's pool and the next memtable takes them.
#[test]
fn regression_a_new_memtable_reuses_the_blocks_of_a_flushed_one() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(
        Options {
            write_buffer_size: 4 << 20,
            ..opts()
        },
        dir.path(),
    )
    .unwrap();
    let pool = db.inner.block_pool.clone();
    assert_eq!(pool.capacity_bytes(), 4 << 20);
    let wo = WriteOptions::default();
    let value = vec![7u8; 1000];
    for i in 0..3000u32 {
        db.put(&wo, &i.to_be_bytes(), &value).unwrap();
    }
    assert_eq!(pool.retained_bytes(), 0, "nothing freed yet");
    db.flush(&FlushOptions::default()).unwrap();
    // The flushed memtable's blocks (about 3 MiB) come back when the flush
    // drops it, just after the flush returns.
    wait_until("the pool to hold the flushed memtable's blocks", || {
        pool.retained_bytes() >= 3 << 20
    });
    let before = pool.retained_bytes();
    assert!(before <= pool.capacity_bytes());
    for i in 3000..5000u32 {
        db.put(&wo, &i.to_be_bytes(), &value).unwrap();
    }
    let taken = before - pool.retained_bytes();
    assert!(
        taken >= 3 << 19,
        "2,000 KB of entries took {taken} bytes of pooled blocks"
    );
    let ro = ReadOptions::default();
    for i in [0u32, 2999, 3000, 4999] {
        assert_eq!(db.get(&ro, &i.to_be_bytes()).unwrap(), Some(value.clone()));
    }
}

/// Regression: a flush held the DB mutex across the manifest append and
/// its fdatasync, and writers that needed the mutex (a memtable switch, a
/// property) waited for the disk, and with them every writer queued behind.
/// Now the manifest is written with the mutex released.
#[test]
fn regression_writes_do_not_wait_for_a_manifest_sync() {
    let dir = tempfile::tempdir().unwrap();
    let (fs, _) = gate::GateFs::new();
    let manifest_sync = fs.manifest_sync.clone();
    let o = Options {
        create_if_missing: true,
        fs,
        write_buffer_size: 64 * 1024,
        max_write_buffer_number: 6,
        disable_auto_compactions: true,
        ..Options::default()
    };
    let db = Arc::new(Db::open(o, dir.path()).unwrap());
    let wo = WriteOptions::default();
    let value = [7u8; 100];
    db.put(&wo, b"before", &value).unwrap();
    manifest_sync.set_closed(true);
    db.flush(&FlushOptions {
        wait: false,
        ..FlushOptions::default()
    })
    .unwrap();
    wait_until("the flush's manifest sync", || manifest_sync.waiting() == 1);
    // While that sync is held: writes through two memtable switches (each
    // takes the DB mutex), and a property read under the mutex.
    let (tx, rx) = std::sync::mpsc::channel();
    let writer = {
        let db = db.clone();
        std::thread::spawn(move || {
            for i in 0..1500u32 {
                db.put(&WriteOptions::default(), &i.to_be_bytes(), &value)
                    .unwrap();
            }
            let imm = db.int_property("rocksdb.num-immutable-mem-table");
            tx.send(imm).unwrap();
        })
    };
    let held = rx.recv_timeout(std::time::Duration::from_secs(20));
    let still_held = manifest_sync.waiting();
    manifest_sync.set_closed(false);
    writer.join().unwrap();
    let imm = held.expect("writes waited for the manifest sync");
    assert_eq!(still_held, 1, "the manifest sync was let through early");
    assert!(imm.unwrap() >= 2, "two memtable switches, got {imm:?}");
    db.flush(&FlushOptions::default()).unwrap();
    let r = ReadOptions::default();
    assert_eq!(db.get(&r, b"before").unwrap().as_deref(), Some(&value[..]));
    for i in 0..1500u32 {
        assert_eq!(
            db.get(&r, &i.to_be_bytes()).unwrap().as_deref(),
            Some(&value[..])
        );
    }
}

/// Names of the table files in `d`.
fn table_names(d: &std::path::Path) -> std::collections::BTreeSet<String> {
    std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".sst"))
        .collect()
}

/// A database on a [`gate::GateFs`] (auto compactions off) whose three L0
/// tables (their names returned) were compacted into one while the
/// returned iterator pins them: four tables on disk, the three inputs
/// obsolete once the iterator goes.
fn three_tables_pinned_across_a_compaction(
    dir: &std::path::Path,
    fs: Arc<gate::GateFs>,
) -> (Arc<Db>, DbIterator, std::collections::BTreeSet<String>) {
    let o = Options {
        create_if_missing: true,
        fs,
        disable_auto_compactions: true,
        ..Options::default()
    };
    let db = Arc::new(Db::open(o, dir).unwrap());
    let wo = WriteOptions::default();
    for i in 0..3u32 {
        db.put(&wo, &i.to_be_bytes(), b"v").unwrap();
        db.flush(&FlushOptions::default()).unwrap();
    }
    let inputs = table_names(dir);
    assert_eq!(inputs.len(), 3);
    let it = db.iter(&ReadOptions::default()).unwrap();
    db.compact_range(None, None).unwrap();
    assert_eq!(table_names(dir).len(), 4, "the pinned inputs stay");
    (db, it, inputs)
}

/// Regression: the first write after an iterator released the last
/// version naming compacted tables deleted them on the writer's thread (a
/// directory listing and unlinks of large files, inside a put). Now the
/// purge runs on the flush pool.
#[test]
fn regression_a_write_does_not_delete_obsolete_tables_itself() {
    let dir = tempfile::tempdir().unwrap();
    let (fs, _) = gate::GateFs::new();
    let remove = fs.remove.clone();
    let (db, it, _) = three_tables_pinned_across_a_compaction(dir.path(), fs);
    remove.set_closed(true);
    let (tx, rx) = std::sync::mpsc::channel();
    let writer = {
        let db = db.clone();
        std::thread::spawn(move || {
            drop(it);
            db.put(&WriteOptions::default(), b"after", b"v").unwrap();
            tx.send(()).unwrap();
        })
    };
    let returned = rx.recv_timeout(std::time::Duration::from_secs(20));
    remove.set_closed(false);
    writer.join().unwrap();
    returned.expect("the iterator drop or the put waited for the deletion of obsolete tables");
    wait_until("the background purge", || {
        table_names(dir.path()).len() == 1
    });
}

/// Regression: a purge (here one a finished job would run) deleted every
/// `*.dbtmp` file, also the `CURRENT.dbtmp` a manifest roll on another
/// thread was between writing and renaming; the roll's rename then failed
/// and the database went read-only with a background error. Now only the
/// sweep at open deletes temporary files.
#[test]
fn regression_a_purge_keeps_a_temp_file_an_open_database_may_be_writing() {
    let dir = tempfile::tempdir().unwrap();
    let (fs, _) = gate::GateFs::new();
    let temp_sync = fs.temp_sync.clone();
    let o = Options {
        create_if_missing: true,
        fs,
        disable_auto_compactions: true,
        ..Options::default()
    };
    let db = Arc::new(Db::open(o.clone(), dir.path()).unwrap());
    // Every manifest write starts a new manifest, and so rewrites CURRENT.
    db.inner.state.lock().versions.set_max_manifest_file_size(1);
    db.put(&WriteOptions::default(), b"k", b"v").unwrap();
    temp_sync.set_closed(true);
    let flusher = {
        let db = db.clone();
        std::thread::spawn(move || db.flush(&FlushOptions::default()))
    };
    wait_until("the flush's manifest roll syncing CURRENT.dbtmp", || {
        temp_sync.waiting() == 1
    });
    assert!(dir.path().join("CURRENT.dbtmp").exists());
    db.inner.purge_obsolete_files();
    let kept = dir.path().join("CURRENT.dbtmp").exists();
    temp_sync.set_closed(false);
    let flushed = flusher.join().unwrap();
    assert!(kept, "the purge deleted the CURRENT.dbtmp being written");
    flushed.expect("the flush's manifest roll");
    assert_eq!(db.int_property("rocksdb.background-errors"), Some(0));
    // A temporary file left by an interrupted write goes at the next open.
    let leftover = dir.path().join("000999.dbtmp");
    std::fs::write(&leftover, b"half written").unwrap();
    db.inner.purge_obsolete_files();
    assert!(leftover.exists(), "an open database keeps temporary files");
    drop(db);
    let db = Db::open(o, dir.path()).unwrap();
    assert!(!leftover.exists(), "the sweep at open deletes leftovers");
    assert_eq!(
        db.get(&ReadOptions::default(), b"k").unwrap().as_deref(),
        Some(&b"v"[..])
    );
}

/// Regression: a purge unlinked tables that a thread dropping the last
/// version naming them was still to close (the version counted as dead from
/// the start of its drop), and that thread's last close then freed their
/// blocks: a synchronous discard of whole files inside a put (with the
/// `discard` mount option). Now the purge leaves a table a thread is closing right then, and
/// the closes of tables it unlinked while open run on a background thread.
#[test]
fn regression_the_last_close_of_an_unlinked_table_is_not_on_the_dropping_thread() {
    let dir = tempfile::tempdir().unwrap();
    let (fs, _) = gate::GateFs::new();
    let table_close = fs.table_close.clone();
    let closes = fs.table_closes.clone();
    let (db, it, inputs) = three_tables_pinned_across_a_compaction(dir.path(), fs);
    let wo = WriteOptions::default();
    // The iterator's thread drops the last version naming them and is held
    // closing the first.
    table_close.set_closed(true);
    let reader = std::thread::Builder::new()
        .name("reader".into())
        .spawn(move || drop(it))
        .unwrap();
    wait_until("a table close held at the gate", || {
        table_close.waiting() == 1
    });
    // A put schedules a purge (a super version was released).
    db.put(&wo, b"after", b"v").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let during = table_names(dir.path());
    table_close.set_closed(false);
    reader.join().unwrap();
    wait_until("the background purge", || {
        table_names(dir.path()).len() == 1
    });
    wait_until("every input closed", || closes.lock().len() >= 3);
    let closes = closes.lock().clone();
    for name in &inputs {
        let by: Vec<&str> = closes
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, t)| t.as_str())
            .collect();
        assert_eq!(by.len(), 1, "{name} closed once: {closes:?}");
        if !during.contains(name) {
            assert_eq!(
                by[0], "talus-close",
                "{name} was unlinked while open, so its close belongs on a background thread"
            );
        }
    }
    let held: Vec<&String> = closes
        .iter()
        .filter(|(_, t)| t == "reader")
        .map(|(n, _)| n)
        .collect();
    assert!(
        held.iter().all(|n| during.contains(*n)),
        "a table was unlinked while the reader was closing it: {held:?}, on disk then {during:?}"
    );
}

/// A waiting flush that may cause a write stall (`allow_write_stall`).
fn stalling_flush() -> FlushOptions {
    FlushOptions {
        allow_write_stall: true,
        ..FlushOptions::default()
    }
}

/// A database whose compactions wait at a closed gate, holding three L0
/// files (compaction trigger 2, slowdown trigger 4): one more L0 file
/// would slow writes. Open the gate to let the compaction run.
fn three_l0_files_behind_a_held_compaction(dir: &std::path::Path) -> (Arc<Db>, Arc<gate::Gate>) {
    let (fs, gate) = gate::GateFs::new();
    let o = Options {
        create_if_missing: true,
        fs,
        write_buffer_size: 64 * 1024,
        level0_file_num_compaction_trigger: 2,
        level0_slowdown_writes_trigger: 4,
        level0_stop_writes_trigger: 8,
        soft_pending_compaction_bytes_limit: 0,
        hard_pending_compaction_bytes_limit: 0,
        ..Options::default()
    };
    let db = Arc::new(Db::open(o, dir).unwrap());
    gate.set_closed(true);
    for i in 0..3u32 {
        db.put(&WriteOptions::default(), &i.to_be_bytes(), b"v")
            .unwrap();
        db.flush(&stalling_flush()).unwrap();
    }
    (db, gate)
}

#[test]
fn explicit_flush_waits_until_one_more_l0_file_would_not_slow_writes() {
    let dir = tempfile::tempdir().unwrap();
    let (db, gate) = three_l0_files_behind_a_held_compaction(dir.path());
    let wo = WriteOptions::default();
    assert_eq!(db.int_property("rocksdb.num-files-at-level0"), Some(3));
    db.put(&wo, b"last", b"v").unwrap();
    // A fourth L0 file would reach the slowdown trigger: the default flush
    // (allow_write_stall false) waits for the held compaction.
    let f = {
        let db = db.clone();
        std::thread::spawn(move || db.flush(&FlushOptions::default()))
    };
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        !f.is_finished(),
        "the flush must wait while it would stall writes"
    );
    assert_eq!(db.int_property("rocksdb.num-files-at-level0"), Some(3));
    assert_eq!(
        db.int_property("rocksdb.actual-delayed-write-rate"),
        Some(0)
    );
    // Writes go on meanwhile.
    db.put(&wo, b"during", b"v").unwrap();
    gate.set_closed(false);
    f.join().unwrap().unwrap();
    // The flush waited for the compaction, then flushed what it was asked to.
    assert!(db.int_property("rocksdb.num-files-at-level0").unwrap() < 3);
    assert_eq!(
        db.int_property("rocksdb.num-entries-active-mem-table"),
        Some(0)
    );
    let log = std::fs::read_to_string(dir.path().join("LOG")).unwrap();
    assert!(
        log.contains("Flush waiting until it would not stall writes"),
        "{log}"
    );
    assert!(!log.contains("Stalling writes"), "{log}");
}

/// Explicit flushes waiting on the same stall check and switch one at a
/// time (`DbInner::explicit_flush`): all of them return when it clears,
/// none deadlocks against the others or the writers, and each flushed
/// the key its thread wrote.
#[test]
fn concurrent_explicit_flushes_waiting_on_a_stall_all_finish() {
    let dir = tempfile::tempdir().unwrap();
    let (db, gate) = three_l0_files_behind_a_held_compaction(dir.path());
    let wo = WriteOptions::default();
    let flushers: Vec<_> = (0..4u32)
        .map(|t| {
            let db = db.clone();
            std::thread::spawn(move || {
                let key = format!("flusher-{t}");
                db.put(&WriteOptions::default(), key.as_bytes(), b"v")
                    .unwrap();
                db.flush(&FlushOptions::default()).unwrap();
                key
            })
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(
        flushers.iter().all(|f| !f.is_finished()),
        "a fourth L0 file would slow writes: every flush waits"
    );
    db.put(&wo, b"during", b"v").unwrap();
    gate.set_closed(false);
    for f in flushers {
        let key = f.join().unwrap();
        assert_eq!(
            db.get(&ReadOptions::default(), key.as_bytes()).unwrap(),
            Some(b"v".to_vec())
        );
    }
    assert_eq!(db.int_property("rocksdb.num-immutable-mem-table"), Some(0));
}

/// A write group slower than 20 ms is named in the LOG with where its
/// time went (here: the delay of a write slowed down by L0 files).
#[test]
fn a_slow_write_group_is_logged_with_its_phases() {
    let dir = tempfile::tempdir().unwrap();
    let (fs, gate) = gate::GateFs::new();
    let o = Options {
        create_if_missing: true,
        fs,
        level0_file_num_compaction_trigger: 2,
        level0_slowdown_writes_trigger: 3,
        level0_stop_writes_trigger: 100,
        soft_pending_compaction_bytes_limit: 0,
        hard_pending_compaction_bytes_limit: 0,
        delayed_write_rate: 1 << 20,
        ..Options::default()
    };
    let db = Db::open(o, dir.path()).unwrap();
    gate.set_closed(true);
    let wo = WriteOptions::default();
    for i in 0..3u32 {
        db.put(&wo, &i.to_be_bytes(), b"v").unwrap();
        db.flush(&stalling_flush()).unwrap();
    }
    assert!(
        db.int_property("rocksdb.actual-delayed-write-rate")
            .unwrap()
            > 0
    );
    // 64 KiB at 1 MiB/s: about 60 ms of delay per write after the first.
    let big = vec![1u8; 64 << 10];
    for i in 0..3u32 {
        db.put(&wo, &(100 + i).to_be_bytes(), &big).unwrap();
    }
    gate.set_closed(false);
    let log = std::fs::read_to_string(dir.path().join("LOG")).unwrap();
    let line = log
        .lines()
        .find(|l| l.contains("Slow write group"))
        .unwrap_or_else(|| panic!("no slow group logged:\n{log}"));
    assert!(line.contains("1 writers, 1 entries"), "{line}");
    let delay: f64 = line
        .split("delay ")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no delay figure: {line}"));
    assert!(delay >= 20.0, "{line}");
}

/// A family over its own `level0_stop_writes_trigger` stops every write,
/// as RocksDB's per-family stall conditions do, although the default
/// family (stop trigger 36) is far from its own; compaction of that family
/// releases the writes. Regression: the stall was judged against the
/// database's limits only, so a family with lower triggers never stalled.
#[test]
fn regression_a_family_over_its_own_l0_stop_trigger_stops_writes() {
    let dir = tempfile::tempdir().unwrap();
    let (fs, gate) = gate::GateFs::new();
    let o = Options {
        create_if_missing: true,
        fs,
        soft_pending_compaction_bytes_limit: 0,
        hard_pending_compaction_bytes_limit: 0,
        ..Options::default()
    };
    let db = Arc::new(Db::open(o.clone(), dir.path()).unwrap());
    let small = db
        .create_column_family(
            &Options {
                level0_file_num_compaction_trigger: 2,
                level0_slowdown_writes_trigger: 2,
                level0_stop_writes_trigger: 3,
                ..o.clone()
            },
            "small",
        )
        .unwrap();
    gate.set_closed(true);
    let wo = WriteOptions::default();
    let fo = stalling_flush();
    for i in 0..3u32 {
        db.put_cf(&wo, &small, &i.to_be_bytes(), b"v").unwrap();
        db.flush_cf(&fo, &small).unwrap();
    }
    assert_eq!(
        db.int_property_cf(&small, "rocksdb.num-files-at-level0"),
        Some(3)
    );
    assert_eq!(db.int_property("rocksdb.num-files-at-level0"), Some(0));
    assert_eq!(db.int_property("rocksdb.is-write-stopped"), Some(1));
    let ns = WriteOptions {
        no_slowdown: true,
        ..WriteOptions::default()
    };
    let err = db.put(&ns, b"default-key", b"v").unwrap_err();
    assert_eq!(err.code(), crate::Code::Incomplete, "{err}");
    gate.set_closed(false);
    db.wait_for_compactions().unwrap();
    assert_eq!(db.int_property("rocksdb.is-write-stopped"), Some(0));
    db.put(&ns, b"default-key", b"v").unwrap();
}

#[test]
fn l0_files_slow_then_stop_writes_and_compaction_releases_them() {
    let dir = tempfile::tempdir().unwrap();
    let (fs, gate) = gate::GateFs::new();
    let o = Options {
        create_if_missing: true,
        fs,
        write_buffer_size: 64 * 1024,
        level0_file_num_compaction_trigger: 2,
        level0_slowdown_writes_trigger: 4,
        level0_stop_writes_trigger: 6,
        soft_pending_compaction_bytes_limit: 0,
        hard_pending_compaction_bytes_limit: 0,
        delayed_write_rate: 64 << 20,
        ..Options::default()
    };
    let db = Arc::new(Db::open(o, dir.path()).unwrap());
    gate.set_closed(true);
    let wo = WriteOptions::default();
    // Explicit flushes add L0 files; the compaction that starts is held at
    // the gate. They must allow the stall they cause, or they would wait
    // for that held compaction.
    let fo = stalling_flush();
    for i in 0..4u32 {
        db.put(&wo, &i.to_be_bytes(), b"v").unwrap();
        db.flush(&fo).unwrap();
    }
    assert!(db.int_property("rocksdb.num-files-at-level0").unwrap() >= 4);
    assert!(
        db.int_property("rocksdb.actual-delayed-write-rate")
            .unwrap()
            > 0
    );
    assert_eq!(db.int_property("rocksdb.is-write-stopped"), Some(0));
    for i in 4..6u32 {
        db.put(&wo, &i.to_be_bytes(), b"v").unwrap();
        db.flush(&fo).unwrap();
    }
    assert_eq!(db.int_property("rocksdb.is-write-stopped"), Some(1));
    // no_slowdown writes fail at once with Incomplete.
    let ns = WriteOptions {
        no_slowdown: true,
        ..WriteOptions::default()
    };
    let err = db.put(&ns, b"ns", b"v").unwrap_err();
    assert_eq!(err.code(), crate::Code::Incomplete, "{err}");
    // A normal write waits until compaction is let through.
    let w = {
        let db = db.clone();
        std::thread::spawn(move || db.put(&WriteOptions::default(), b"waiter", b"v"))
    };
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert!(
        !w.is_finished(),
        "the write must wait while writes are stopped"
    );
    gate.set_closed(false);
    w.join().unwrap().unwrap();
    db.wait_for_compactions().unwrap();
    assert_eq!(db.int_property("rocksdb.is-write-stopped"), Some(0));
    assert_eq!(
        db.get(&ReadOptions::default(), b"waiter")
            .unwrap()
            .as_deref(),
        Some(&b"v"[..])
    );
    assert_eq!(db.get(&ReadOptions::default(), b"ns").unwrap(), None);
    let stats = db.property("rocksdb.stats").unwrap();
    assert!(stats.contains("l0-file-count-limit-stops: "), "{stats}");
    assert!(!stats.contains("l0-file-count-limit-stops: 0,"), "{stats}");
    assert!(!stats.contains("l0-file-count-limit-delays: 0,"), "{stats}");
    let log = std::fs::read_to_string(dir.path().join("LOG")).unwrap();
    assert!(
        log.contains("Stalling writes because we have 4 level-0 files"),
        "{log}"
    );
    assert!(
        log.contains("Stopping writes because we have 6 level-0 files"),
        "{log}"
    );
    assert!(log.contains("Write stall cleared"), "{log}");
}

#[test]
fn full_memtable_queue_stops_writes_until_flush() {
    let dir = tempfile::tempdir().unwrap();
    let o = Options {
        create_if_missing: true,
        write_buffer_size: 64 * 1024,
        max_write_buffer_number: 2,
        ..Options::default()
    };
    let db = Arc::new(Db::open(o, dir.path()).unwrap());
    db.pause_background_work().unwrap();
    let writer = {
        let db = db.clone();
        std::thread::spawn(move || {
            for i in 0..2000u32 {
                db.put(&WriteOptions::default(), &i.to_be_bytes(), &[1u8; 100])
                    .unwrap();
            }
        })
    };
    wait_until("writes to stop", || {
        db.int_property("rocksdb.is-write-stopped") == Some(1)
    });
    assert_eq!(db.int_property("rocksdb.num-immutable-mem-table"), Some(2));
    let ns = WriteOptions {
        no_slowdown: true,
        ..WriteOptions::default()
    };
    assert_eq!(
        db.put(&ns, b"x", b"y").unwrap_err().code(),
        crate::Code::Incomplete
    );
    db.continue_background_work().unwrap();
    writer.join().unwrap();
    let stats = db.property("rocksdb.stats").unwrap();
    assert!(!stats.contains("memtable-limit-stops: 0,"), "{stats}");
    for i in (0..2000u32).step_by(97) {
        assert!(
            db.get(&ReadOptions::default(), &i.to_be_bytes())
                .unwrap()
                .is_some()
        );
    }
}

#[test]
fn pending_compaction_bytes_delay_then_stop() {
    let dir = tempfile::tempdir().unwrap();
    let (fs, gate) = gate::GateFs::new();
    let o = Options {
        create_if_missing: true,
        fs,
        write_buffer_size: 64 * 1024,
        level0_file_num_compaction_trigger: 2,
        level0_slowdown_writes_trigger: 100,
        level0_stop_writes_trigger: 200,
        soft_pending_compaction_bytes_limit: 1,
        hard_pending_compaction_bytes_limit: 200_000,
        delayed_write_rate: 256 << 20,
        ..Options::default()
    };
    let db = Db::open(o, dir.path()).unwrap();
    gate.set_closed(true);
    let wo = WriteOptions::default();
    let mut i = 0u32;
    let mut saw_delay = false;
    while db.int_property("rocksdb.is-write-stopped") != Some(1) {
        for _ in 0..50 {
            // Incompressible values, so each flush adds real bytes to L0.
            let v: Vec<u8> = (0..1000u32)
                .map(|j| {
                    (j.wrapping_mul(2654435761)
                        .wrapping_add(i.wrapping_mul(40503))
                        >> 13) as u8
                })
                .collect();
            db.put(&wo, &i.to_be_bytes(), &v).unwrap();
            i += 1;
        }
        // Allows the stall: compaction is held, so a flush waiting for the
        // debt to fall would wait forever.
        db.flush(&stalling_flush()).unwrap();
        saw_delay |= db
            .int_property("rocksdb.actual-delayed-write-rate")
            .unwrap()
            > 0;
        assert!(i < 100_000, "writes never stopped");
    }
    assert!(saw_delay);
    assert!(
        db.int_property("rocksdb.estimate-pending-compaction-bytes")
            .unwrap()
            >= 200_000
    );
    gate.set_closed(false);
    db.wait_for_compactions().unwrap();
    let stats = db.property("rocksdb.stats").unwrap();
    assert!(
        !stats.contains("pending-compaction-bytes-stops: 0,"),
        "{stats}"
    );
    let log = std::fs::read_to_string(dir.path().join("LOG")).unwrap();
    assert!(
        log.contains("Stopping writes because of estimated pending compaction bytes"),
        "{log}"
    );
}

#[test]
fn wal_size_triggers_flush_unless_manual_flush_is_enabled() {
    for manual in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let o = Options {
            create_if_missing: true,
            write_buffer_size: 8 << 20,
            max_total_wal_size: 64 * 1024,
            manual_flush_enabled: manual,
            ..Options::default()
        };
        let db = Db::open(o, dir.path()).unwrap();
        for i in 0..2000u32 {
            db.put(&WriteOptions::default(), &i.to_be_bytes(), &[3u8; 100])
                .unwrap();
        }
        db.wait_for_compactions().unwrap();
        let l0 = db.int_property("rocksdb.num-files-at-level0").unwrap()
            + db.int_property("rocksdb.num-files-at-level1").unwrap()
            + db.int_property("rocksdb.num-files-at-level6").unwrap();
        if manual {
            assert_eq!(l0, 0, "manual_flush_enabled: no flush by WAL size");
        } else {
            assert!(l0 > 0, "WAL size should have triggered a flush");
        }
    }
}

#[test]
fn wal_bytes_per_sync_syncs_every_that_many_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let stats = crate::statistics::Statistics::new();
    let o = Options {
        create_if_missing: true,
        wal_bytes_per_sync: 16 * 1024,
        statistics: Some(stats.clone()),
        ..Options::default()
    };
    let db = Db::open(o, dir.path()).unwrap();
    for i in 0..1000u32 {
        db.put(&WriteOptions::default(), &i.to_be_bytes(), &[3u8; 100])
            .unwrap();
    }
    // ~113 KB of WAL: about 7 background syncs, none in the write path.
    let start = std::time::Instant::now();
    while db.wal_background_syncs() == 0 {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "no background sync"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    assert!(db.wal_background_syncs() <= 7);
    assert_eq!(
        stats.ticker_count(crate::statistics::Ticker::WalFileSynced),
        0
    );
    assert_eq!(
        stats.ticker_count(crate::statistics::Ticker::NumberKeysWritten),
        1000
    );
}

#[test]
fn flush_and_compaction_writes_go_through_the_rate_limiter_and_statistics_move() {
    use crate::rate_limiter::{IoPriority, RateLimiter, RateLimiterMode};
    use crate::statistics::{Histogram, Statistics, Ticker};
    let dir = tempfile::tempdir().unwrap();
    let rl = RateLimiter::new(64 << 20, 10_000, 10, RateLimiterMode::WritesOnly, false, 0).unwrap();
    let stats = Statistics::new();
    let o = Options {
        rate_limiter: Some(rl.clone()),
        statistics: Some(stats.clone()),
        table: crate::options::BlockBasedTableOptions {
            filter_bits_per_key: Some(10.0),
            ..Default::default()
        },
        ..small_opts()
    };
    let db = Db::open(o, dir.path()).unwrap();
    // Keys in scattered order, so flushes overlap and compactions rewrite data.
    for i in 0..5000u32 {
        db.put(
            &WriteOptions::default(),
            &((i * 7919) % 5000).to_be_bytes(),
            &[5u8; 64],
        )
        .unwrap();
    }
    db.flush(&FlushOptions::default()).unwrap();
    db.wait_for_compactions().unwrap();
    assert!(
        rl.total_bytes_through(Some(IoPriority::High)) > 0,
        "flush writes are charged"
    );
    // Compaction writes are charged at low priority, or at user priority
    // when they ran while writes were held.
    assert!(
        rl.total_bytes_through(Some(IoPriority::Low))
            + rl.total_bytes_through(Some(IoPriority::User))
            > 0,
        "compaction writes are charged"
    );
    assert!(stats.ticker_count(Ticker::FlushWriteBytes) > 0);
    assert!(stats.ticker_count(Ticker::CompactWriteBytes) > 0);
    let ro = ReadOptions::default();
    for i in 0..200u32 {
        assert!(db.get(&ro, &i.to_be_bytes()).unwrap().is_some());
        // Absent keys inside the tables' key ranges: only the filter rules them out.
        let mut absent = i.to_be_bytes().to_vec();
        absent.push(0);
        assert!(db.get(&ro, &absent).unwrap().is_none());
    }
    assert_eq!(stats.ticker_count(Ticker::NumberKeysRead), 400);
    assert_eq!(stats.ticker_count(Ticker::BytesRead), 200 * 64);
    assert!(stats.ticker_count(Ticker::BloomFilterUseful) > 0);
    assert_eq!(stats.histogram_data(Histogram::DbGet).count, 400);
    assert!(stats.histogram_data(Histogram::DbWrite).count >= 5000);
    let mut it = db.iter(&ro).unwrap();
    it.seek_to_first();
    let mut n = 0;
    while it.valid() {
        n += 1;
        it.next();
    }
    assert_eq!(n, 5000);
    assert_eq!(stats.ticker_count(Ticker::NumberDbNextFound), 4999);
    assert!(stats.ticker_count(Ticker::IterBytesRead) >= 5000 * 68);
}

/// `ReadsOnly` and `AllIo` limiters are charged the blocks compactions read
/// (RocksDB's modes), and only those: flush writes stay out of `ReadsOnly`,
/// and reads for `get` are never charged.
#[test]
fn compaction_reads_are_charged_in_the_modes_that_cover_reads() {
    use crate::rate_limiter::{IoPriority, RateLimiter, RateLimiterMode};
    use crate::statistics::{Statistics, Ticker};
    const MIB: u64 = 1 << 20;
    for mode in [
        RateLimiterMode::WritesOnly,
        RateLimiterMode::ReadsOnly,
        RateLimiterMode::AllIo,
    ] {
        let dir = tempfile::tempdir().unwrap();
        let rl = RateLimiter::new(64 * MIB, 100_000, 10, mode, false, 0).unwrap();
        let stats = Statistics::new();
        let o = Options {
            rate_limiter: Some(rl.clone()),
            statistics: Some(stats.clone()),
            table: crate::options::BlockBasedTableOptions {
                no_block_cache: true,
                ..Default::default()
            },
            ..small_opts()
        };
        let db = Db::open(o, dir.path()).unwrap();
        // About 8 MB in scattered order, so compactions rewrite most of it.
        for i in 0..100_000u32 {
            let k = ((i * 7919) % 100_000).to_be_bytes();
            db.put(&WriteOptions::default(), &k, &[7u8; 76]).unwrap();
        }
        db.flush(&FlushOptions::default()).unwrap();
        db.wait_for_compactions().unwrap();
        let read = stats.ticker_count(Ticker::CompactReadBytes);
        let written = stats.ticker_count(Ticker::FlushWriteBytes)
            + stats.ticker_count(Ticker::CompactWriteBytes);
        let high = rl.total_bytes_through(Some(IoPriority::High));
        let bg = rl.total_bytes_through(Some(IoPriority::Low))
            + rl.total_bytes_through(Some(IoPriority::User));
        assert!(read > 4 * MIB, "{mode:?}: compactions read {read} bytes");
        // The tables' data blocks are most of their bytes (index, filter and
        // properties are read at open, uncharged); a compaction thread may
        // hold one unit granted ahead of its reads (at most a 6.7 MB refill
        // at user priority here), and two compactions may run at once.
        let (reads_low, reads_high) = (read / 10 * 8, read + 14 * MIB);
        match mode {
            RateLimiterMode::WritesOnly => {
                assert!(high > 0, "flush writes are charged");
                assert!(
                    rl.total_bytes_through(None) <= written,
                    "{mode:?}: reads charged"
                );
            }
            RateLimiterMode::ReadsOnly => {
                assert_eq!(high, 0, "flush writes are not charged in ReadsOnly");
                assert!(
                    (reads_low..=reads_high).contains(&bg),
                    "{mode:?}: {bg} bytes charged for {read} read"
                );
            }
            RateLimiterMode::AllIo => {
                assert!(high > 0, "flush writes are charged");
                assert!(
                    bg >= reads_low + stats.ticker_count(Ticker::CompactWriteBytes),
                    "{mode:?}: {bg} bytes charged for {read} read and {written} written"
                );
            }
        }
        // Reads for `get` (every one from the file: no block cache) are not charged.
        let before = rl.total_bytes_through(None);
        let ro = ReadOptions::default();
        for i in (0..100_000u32).step_by(97) {
            assert_eq!(db.get(&ro, &i.to_be_bytes()).unwrap().unwrap(), [7u8; 76]);
        }
        assert_eq!(
            rl.total_bytes_through(None),
            before,
            "{mode:?}: gets charged"
        );
    }
}

/// Regression: the default WAL limit (4 × write buffer × memtables) was
/// computed without overflow checks; with the largest options it wrapped
/// (to 0 in release builds, switching the memtable at every write group;
/// a panic in debug builds).
#[test]
fn regression_the_default_wal_limit_saturates_for_the_largest_options() {
    let dir = tempfile::tempdir().unwrap();
    let o = Options {
        write_buffer_size: 64usize << 30,
        max_write_buffer_number: i32::MAX,
        // Not 1.1 × 64 GiB of WAL reserved on the test machine's disk.
        allow_fallocate: false,
        ..opts()
    };
    let db = Db::open(o, dir.path()).unwrap();
    assert_eq!(db.inner.max_total_wal_size(), u64::MAX);
    for i in 0..100u32 {
        db.put(&WriteOptions::default(), &i.to_be_bytes(), b"v")
            .unwrap();
    }
    assert_eq!(db.int_property("rocksdb.num-immutable-mem-table"), Some(0));
    assert_eq!(
        db.int_property("rocksdb.num-entries-active-mem-table"),
        Some(100)
    );
}

/// Regression (power-loss seed 0): a batch holding only an empty range
/// deletion (`begin == end`) was flushed into a table with no keys at all;
/// its empty smallest/largest keys made every later `get` panic.
#[test]
fn regression_empty_range_deletion_flushes_no_keyless_table() {
    let dir = tempfile::tempdir().unwrap();
    let wo = WriteOptions::default();
    let ro = ReadOptions::default();
    let db = Db::open(opts(), dir.path()).unwrap();
    db.put(&wo, b"a", b"1").unwrap();
    db.flush(&FlushOptions::default()).unwrap();
    db.delete_range(&wo, b"k", b"k").unwrap();
    db.flush(&FlushOptions::default()).unwrap();
    assert_eq!(db.int_property("rocksdb.num-files-at-level0"), Some(1));
    assert_eq!(db.get(&ro, b"a").unwrap().as_deref(), Some(&b"1"[..]));
    assert_eq!(db.get(&ro, b"k").unwrap(), None);
    db.close().unwrap();
    // The same batch replayed from the WAL at open.
    let db = Db::open(opts(), dir.path()).unwrap();
    db.delete_range(&wo, b"m", b"m").unwrap();
    db.close().unwrap();
    let db = Db::open(opts(), dir.path()).unwrap();
    assert_eq!(db.get(&ro, b"a").unwrap().as_deref(), Some(&b"1"[..]));
    assert_eq!(db.get(&ro, b"m").unwrap(), None);
    db.verify_checksum().unwrap();
}

/// Regression: explicit flushes released together from one write stall
/// each switched a memtable, the later ones of a few entries, until every
/// memtable was immutable and writes stopped under a bulk import. A flush
/// whose memtable another flush already switched waits for that one and
/// leaves the active memtable alone.
#[test]
fn regression_a_flush_whose_memtable_was_switched_meanwhile_does_not_switch_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(opts(), dir.path()).unwrap();
    let wo = WriteOptions::default();
    db.put(&wo, b"k1", b"before the call").unwrap();
    let log_at_call = db.inner.default_cf.super_version.load().mem.log_number();
    // Paused, so that k1's memtable is still immutable when the flush
    // decides: otherwise its background flush may end first and the flush
    // returns before deciding anything.
    db.pause_background_work().unwrap();
    // Another flush switches the memtable holding k1 ...
    db.inner.switch_memtable_in_queue(0, log_at_call).unwrap();
    // ... and a write lands in the new one.
    db.put(&wo, b"k2", b"after the other switch").unwrap();
    let no_wait = FlushOptions {
        wait: false,
        ..FlushOptions::default()
    };
    db.inner
        .flush_writes_up_to(&no_wait, 0, log_at_call)
        .unwrap();
    let sv = db.inner.default_cf.super_version.load();
    assert_eq!(sv.imm.len(), 1, "only k1's memtable is immutable");
    assert_eq!(sv.mem.num_entries(), 1, "k2's memtable was not switched");
    drop(sv);
    db.continue_background_work().unwrap();
    let fo = FlushOptions::default();
    assert!(fo.wait);
    db.inner.flush_writes_up_to(&fo, 0, log_at_call).unwrap();
    let sv = db.inner.default_cf.super_version.load();
    assert!(sv.imm.is_empty(), "k1's memtable is flushed");
    assert_eq!(sv.mem.num_entries(), 1, "k2's memtable was not switched");
    assert!(sv.mem.log_number() > log_at_call);
    assert_eq!(
        db.property("rocksdb.num-files-at-level0").as_deref(),
        Some("1")
    );
    drop(sv);
    // A flush from now on switches it as before.
    db.flush(&fo).unwrap();
    assert_eq!(
        db.inner.default_cf.super_version.load().mem.num_entries(),
        0
    );
    assert_eq!(
        db.property("rocksdb.num-files-at-level0").as_deref(),
        Some("2")
    );
}

/// `allow_fallocate` (default on) reserves `write_buffer_size` × 1.1 for
/// each new WAL without changing its size; close gives back what the log
/// did not use, and recovery reads only what was written.
#[test]
fn wal_blocks_are_reserved_when_allow_fallocate_and_given_back_at_close() {
    use std::os::unix::fs::MetadataExt;
    let wal = |dir: &Path| std::fs::metadata(only_log(dir)).unwrap();
    let wo = WriteOptions::default();
    for allow_fallocate in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let o = || Options {
            write_buffer_size: 4 << 20,
            allow_fallocate,
            ..opts()
        };
        let db = Db::open(o(), dir.path()).unwrap();
        for i in 0..100u32 {
            db.put(&wo, &i.to_be_bytes(), b"value").unwrap();
        }
        let m = wal(dir.path());
        assert!(m.len() < 64 << 10, "size is what was appended: {}", m.len());
        let reserved = m.blocks() * 512;
        if allow_fallocate && reserved < 4 << 20 {
            eprintln!("fallocate not supported here; nothing to check");
            return;
        }
        assert_eq!(
            reserved >= (4 << 20) * 11 / 10,
            allow_fallocate,
            "{reserved} bytes allocated"
        );
        db.close().unwrap();
        drop(db);
        let after = wal(dir.path()).blocks() * 512;
        assert!(after < 1 << 20, "{after} bytes allocated after close");
        let db = Db::open(o(), dir.path()).unwrap();
        for i in 0..100u32 {
            let v = db.get(&ReadOptions::default(), &i.to_be_bytes()).unwrap();
            assert_eq!(v.as_deref(), Some(&b"value"[..]), "key {i}");
        }
    }
}

/// Log files in `dir`: (number, size in bytes), by number.
///
/// A log listed and then removed by a background purge before its size is
/// read (a flush that ends while the list is made) is left out: a CI run
/// failed here on `metadata()` of such a file with NotFound.
fn logs_with_sizes(dir: &Path) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let e = e.unwrap();
            match crate::version::parse_file_name(e.file_name().to_str()?) {
                Some(crate::version::FileType::Log(n)) => match e.metadata() {
                    Ok(m) => Some((n, m.len())),
                    Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
                    Err(err) => panic!("metadata of log {n}: {err}"),
                },
                _ => None,
            }
        })
        .collect();
    v.sort_unstable();
    v
}

fn live_log(db: &Db) -> u64 {
    db.inner.default_cf.super_version.load().mem.log_number()
}

#[test]
fn the_next_wal_is_made_ahead_and_the_next_switch_starts_it() {
    let dir = tempfile::tempdir().unwrap();
    let wo = WriteOptions::default();
    let ro = ReadOptions::default();
    let db = Db::open(opts(), dir.path()).unwrap();
    for round in 0..3u8 {
        db.put(&wo, &[round], b"v").unwrap();
        db.inner.wal.syncer.wait_for_all().unwrap();
        let live = live_log(&db);
        let logs = logs_with_sizes(dir.path());
        // The live log, and one empty log above it: the next one.
        let next = logs.iter().find(|l| l.0 > live).copied();
        let next = next.unwrap_or_else(|| panic!("no log above {live}: {logs:?}"));
        assert_eq!(next.1, 0, "the log made ahead holds nothing: {logs:?}");
        assert_eq!(logs.iter().filter(|l| l.0 > live).count(), 1, "{logs:?}");
        db.flush(&FlushOptions::default()).unwrap();
        assert_eq!(
            live_log(&db),
            next.0,
            "the switch started the log made ahead"
        );
    }
    db.close().unwrap();
    // Close removes the empty log made ahead; the live log stays.
    let logs = logs_with_sizes(dir.path());
    assert!(logs.iter().all(|l| l.1 > 0), "{logs:?}");
    let db = Db::open(opts(), dir.path()).unwrap();
    for round in 0..3u8 {
        assert_eq!(db.get(&ro, &[round]).unwrap().as_deref(), Some(&b"v"[..]));
    }
}

#[test]
fn regression_a_log_made_too_late_never_becomes_live_below_the_live_log() {
    // A switch that finds the next log not made yet creates its own, with
    // a higher number; the file made afterwards must be removed, never
    // started by a later switch (logs replay in number order: a live log
    // below the one before it would replay its writes first).
    let dir = tempfile::tempdir().unwrap();
    let wo = WriteOptions::default();
    let ro = ReadOptions::default();
    // Room for the memtables whose flush waits for the held thread below.
    let o = Options {
        max_write_buffer_number: 8,
        ..opts()
    };
    let db = Db::open(o.clone(), dir.path()).unwrap();
    db.inner.wal.syncer.wait_for_all().unwrap();
    // Hold the WAL syncer thread, so the preparations queue behind it.
    let (release, held) = std::sync::mpsc::channel::<()>();
    db.inner.wal.syncer.enqueue(Box::new(move || {
        let _ = held.recv();
        Ok(())
    }));
    db.put(&wo, b"a", b"1").unwrap();
    let switch = |db: &Db| {
        let mut st = db.inner.state.lock();
        db.inner.switch_memtables(&mut st, &[0]).unwrap();
    };
    switch(&db); // starts the log made at open; queues the next one
    let late = db.inner.wal.prepared.lock().wanted.expect("queued");
    db.put(&wo, b"b", b"2").unwrap();
    switch(&db); // finds nothing made: creates a log above `late`
    let live = live_log(&db);
    assert!(live > late, "{live} > {late}");
    db.put(&wo, b"c", b"3").unwrap();
    release.send(()).unwrap();
    db.inner.wal.syncer.wait_for_all().unwrap();
    let logs = logs_with_sizes(dir.path());
    assert!(
        !logs.iter().any(|l| l.0 == late),
        "{late} removed: {logs:?}"
    );
    let ready = db.inner.wal.prepared.lock().ready.as_ref().map(|r| r.0);
    assert!(ready.is_some_and(|n| n > live), "{ready:?} above {live}");
    switch(&db);
    assert_eq!(Some(live_log(&db)), ready);
    db.put(&wo, b"d", b"4").unwrap();
    db.close().unwrap();
    let db = Db::open(o, dir.path()).unwrap();
    for (k, v) in [(b"a", b"1"), (b"b", b"2"), (b"c", b"3"), (b"d", b"4")] {
        assert_eq!(db.get(&ro, k).unwrap().as_deref(), Some(&v[..]));
    }
}

/// Runs `f` on a thread and fails the test if it has not finished within
/// `secs` seconds (instead of hanging the test run).
fn within_secs<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(secs))
        .expect("did not finish: hung")
}

/// Regression: `num_levels = 1` passed validation, but with a single level
/// nothing ever compacted L0; once L0 held `level0_stop_writes_trigger`
/// files, writes and flushes waited forever. As RocksDB's SanitizeOptions
/// does for level compaction, open now raises it to 2.
#[test]
fn regression_num_levels_1_is_raised_to_2_so_l0_drains() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    let files_at_l1 = within_secs(60, move || {
        let o = Options {
            num_levels: 1,
            write_buffer_size: 64 << 10,
            level0_file_num_compaction_trigger: 1,
            level0_slowdown_writes_trigger: 2,
            level0_stop_writes_trigger: 3,
            ..opts()
        };
        let db = Db::open(o, &path).unwrap();
        let wo = WriteOptions::default();
        for i in 0..2000u32 {
            db.put(&wo, format!("key{i:06}").as_bytes(), &[b'v'; 100])
                .unwrap();
            if i % 200 == 199 {
                db.flush(&FlushOptions::default()).unwrap();
            }
        }
        db.compact_range(None, None).unwrap();
        for i in (0..2000u32).step_by(37) {
            assert!(
                db.get(&ReadOptions::default(), format!("key{i:06}").as_bytes())
                    .unwrap()
                    .is_some()
            );
        }
        db.int_property("rocksdb.num-files-at-level1")
    });
    assert!(files_at_l1.unwrap() > 0);
}

/// Regression: `target_file_size_base = 1` (with `max_bytes_for_level_base
/// = 1`, both accepted, as by RocksDB) made every compaction output hold one
/// key, each file created and synced: compaction crawled, L0 filled, and a
/// flush waiting for it to drain blocked for minutes. Open raises the
/// target to `Options::min_target_file_size` (64 KiB here), so the same
/// data makes a few files. Counted, not timed: 3,000 keys of 100 bytes made
/// 3,000 files per level they passed.
#[test]
fn regression_target_file_size_base_1_does_not_write_a_file_per_key() {
    let dir = tempfile::tempdir().unwrap();
    let o = Options {
        target_file_size_base: 1,
        max_bytes_for_level_base: 1,
        ..opts()
    };
    let db = Db::open(o, dir.path()).unwrap();
    assert_eq!(db.options().target_file_size_base, 64 << 10);
    let wo = WriteOptions::default();
    for i in 0..3000u32 {
        db.put(
            &wo,
            format!("key{:06}", i * 7 % 3000).as_bytes(),
            &[b'v'; 100],
        )
        .unwrap();
        if i % 1000 == 999 {
            db.flush(&FlushOptions::default()).unwrap();
        }
    }
    db.compact_range(None, None).unwrap();
    db.wait_for_compactions().unwrap();
    let per_level: Vec<u64> = (0..7)
        .filter_map(|l| db.int_property(&format!("rocksdb.num-files-at-level{l}")))
        .collect();
    assert!(
        per_level.iter().sum::<u64>() <= 10,
        "table files per level for 3,000 small keys: {per_level:?}"
    );
    for i in (0..3000u32).step_by(101) {
        assert!(
            db.get(&ReadOptions::default(), format!("key{i:06}").as_bytes())
                .unwrap()
                .is_some()
        );
    }
}

/// Regression: with `max_bytes_for_level_base` above `u64::MAX / 2` (only
/// reachable from Rust) the write-stall pressure check computed
/// `2 × max_bytes_for_level_base` unchecked: a debug-build panic ("attempt
/// to multiply with overflow") in the first flush.
#[test]
fn regression_max_bytes_for_level_base_at_u64_max_does_not_overflow() {
    let dir = tempfile::tempdir().unwrap();
    let o = Options {
        max_bytes_for_level_base: u64::MAX,
        write_buffer_size: 64 << 10,
        ..opts()
    };
    let db = Db::open(o, dir.path()).unwrap();
    let wo = WriteOptions::default();
    for i in 0..1000u32 {
        db.put(&wo, &i.to_be_bytes(), &[b'v'; 100]).unwrap();
    }
    db.flush(&FlushOptions::default()).unwrap();
    db.compact_range(None, None).unwrap();
    assert_eq!(
        db.get(&ReadOptions::default(), &7u32.to_be_bytes())
            .unwrap()
            .as_deref(),
        Some(&[b'v'; 100][..])
    );
}

/// Regression: `max_background_jobs` (and the deprecated per-kind counts)
/// had no upper bound, and the pools start their threads at open:
/// `i32::MAX` started threads until the system refused one (~16,000 here),
/// returned the error with every started thread left waiting forever, and
/// the process then aborted. They are now bounded by
/// `MAX_BACKGROUND_THREADS`, and a pool that cannot start all its threads
/// stops the ones it started.
#[test]
fn regression_background_thread_counts_are_bounded() {
    use crate::options::MAX_BACKGROUND_THREADS;
    let dir = tempfile::tempdir().unwrap();
    for (name, o) in [
        (
            "max_background_jobs",
            Options {
                max_background_jobs: i32::MAX,
                ..opts()
            },
        ),
        (
            "max_background_compactions",
            Options {
                max_background_compactions: MAX_BACKGROUND_THREADS + 1,
                ..opts()
            },
        ),
        (
            "max_background_flushes",
            Options {
                max_background_flushes: i32::MAX,
                ..opts()
            },
        ),
    ] {
        let Err(e) = Db::open(o, dir.path()) else {
            panic!("{name}: opened");
        };
        assert_eq!(e.code(), crate::Code::InvalidArgument, "{e}");
        assert!(e.to_string().contains(name), "{e}");
        assert!(e.to_string().contains("1024"), "{e}");
    }
    let o = Options {
        max_background_jobs: MAX_BACKGROUND_THREADS,
        ..opts()
    };
    let db = Db::open(o, dir.path()).unwrap();
    db.put(&WriteOptions::default(), b"k", b"v").unwrap();
    db.flush(&FlushOptions::default()).unwrap();
}

/// Regression: a `get` at a snapshot returned the key's next version (one
/// sequence number past the snapshot) when the write landed in the memtable
/// during the read: the skiplist's `lower_bound` reloaded a `next` pointer
/// after its search instead of using the node the search had compared.
/// Readers hold a lock while they read so the snapshot is released only
/// between reads, as the Java binding does.
#[test]
fn reads_at_a_snapshot_never_see_a_write_that_lands_during_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = Arc::new(Db::open(opts(), dir.path()).unwrap());
    let wo = WriteOptions::default();
    db.put(&wo, b"k", b"old").unwrap();
    db.flush(&FlushOptions::default()).unwrap();
    for round in 0..150 {
        let s = db.snapshot().unwrap();
        let seq = s.sequence_number();
        // True while the snapshot is live.
        let live = Arc::new(parking_lot::RwLock::new(true));
        let readers: Vec<_> = (0..3)
            .map(|_| {
                let (db, live) = (db.clone(), live.clone());
                std::thread::spawn(move || {
                    let ro = ReadOptions {
                        snapshot: Some(seq),
                        ..ReadOptions::default()
                    };
                    for n in 0u64.. {
                        let live = live.read();
                        if !*live {
                            return;
                        }
                        let got = db.get(&ro, b"k").unwrap();
                        assert_eq!(
                            got.as_deref(),
                            Some(&b"old"[..]),
                            "round {round}, read {n} at {seq}"
                        );
                    }
                })
            })
            .collect();
        db.put(&wo, b"k", format!("new{round}").as_bytes()).unwrap();
        db.flush(&FlushOptions::default()).unwrap();
        {
            let mut live = live.write();
            *live = false;
            db.release_snapshot(s);
        }
        db.compact_range(None, None).unwrap();
        for r in readers {
            r.join().unwrap();
        }
        db.put(&wo, b"k", b"old").unwrap();
    }
}

/// Regression: a read without a snapshot loaded the latest sequence number
/// before its super version. A flush installed between the two loads had
/// dropped the version the number saw (shadowed by a newer write), and the
/// read found neither: `get` said absent for a key present throughout.
#[test]
fn regression_a_read_without_a_snapshot_sees_a_key_a_flush_rewrote_between_its_loads() {
    let dir = tempfile::tempdir().unwrap();
    let db = Arc::new(Db::open(opts(), dir.path()).unwrap());
    let wo = WriteOptions::default();
    let ro = ReadOptions::default();
    let mut wrong = Vec::new();
    for (round, via) in ["get", "multi_get", "iter"].into_iter().enumerate() {
        let old = format!("v{round}");
        let new = format!("v{round}-rewritten");
        db.put(&wo, b"k", old.as_bytes()).unwrap();
        let d = db.clone();
        let n = new.clone();
        test_hooks::set(&test_hooks::BETWEEN_READ_LOADS, move || {
            d.put(&WriteOptions::default(), b"k", n.as_bytes()).unwrap();
            d.flush(&FlushOptions::default()).unwrap();
        });
        let got = match via {
            "get" => db.get(&ro, b"k").unwrap(),
            "multi_get" => db.multi_get(&ro, &[b"k"]).unwrap().remove(0),
            _ => {
                let mut it = db.iter(&ro).unwrap();
                it.seek(b"k");
                it.valid().then(|| it.value().to_vec())
            }
        };
        if got.as_deref() != Some(old.as_bytes()) && got.as_deref() != Some(new.as_bytes()) {
            wrong.push(format!("{via}: got {got:?}, want {old} or {new}"));
        }
        assert_eq!(db.get(&ro, b"k").unwrap().as_deref(), Some(new.as_bytes()));
    }
    assert!(wrong.is_empty(), "{wrong:?}");
}

/// Regression: closing flushed the memtables holding writes made without
/// the WAL, and only then refused new writes. A write made without the WAL
/// that was already past its open check (here: sleeping in a write delay)
/// landed in the memtable afterwards, was acknowledged, and was gone after
/// reopening.
#[test]
fn regression_close_keeps_unlogged_writes_acknowledged_while_it_flushed() {
    let dir = tempfile::tempdir().unwrap();
    let o = Options {
        create_if_missing: true,
        max_write_buffer_number: 4,
        delayed_write_rate: 64 << 10,
        ..Options::default()
    };
    let db = Arc::new(Db::open(o.clone(), dir.path()).unwrap());
    let wo = WriteOptions::default();
    // Three immutable memtables that no flush takes away: writes are
    // delayed (memtable limit).
    db.pause_background_work().unwrap();
    for i in 0..3u32 {
        db.put(&wo, &i.to_be_bytes(), b"v").unwrap();
        db.flush(&FlushOptions {
            wait: false,
            allow_write_stall: true,
        })
        .unwrap();
    }
    let big = vec![7u8; 64 << 10];
    db.put(&wo, b"before", &big).unwrap();
    // 64 KiB at 64 KiB/s: this write sleeps about a second in its delay.
    let unlogged = WriteOptions {
        disable_wal: true,
        ..WriteOptions::default()
    };
    let w = {
        let (db, big) = (db.clone(), big.clone());
        std::thread::spawn(move || db.put(&unlogged, b"unlogged", &big))
    };
    std::thread::sleep(std::time::Duration::from_millis(200));
    db.close().unwrap();
    let acknowledged = w.join().unwrap();
    drop(db);
    let db = Db::open(o, dir.path()).unwrap();
    let ro = ReadOptions::default();
    match acknowledged {
        Ok(()) => assert!(
            db.get(&ro, b"unlogged").unwrap().as_deref() == Some(&big[..]),
            "an acknowledged write made without the WAL was lost at close"
        ),
        Err(e) => {
            assert!(matches!(e, Error::ShutdownInProgress(_)), "{e:?}");
            assert_eq!(db.get(&ro, b"unlogged").unwrap(), None);
        }
    }
    assert!(db.get(&ro, b"before").unwrap().as_deref() == Some(&big[..]));
}

/// Regression: closing with background work paused and writes made
/// without the WAL in the memtable waited forever for its flush.
#[test]
fn regression_close_with_background_work_paused_flushes_unlogged_writes() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(opts(), dir.path()).unwrap();
    let unlogged = WriteOptions {
        disable_wal: true,
        ..WriteOptions::default()
    };
    db.put(&unlogged, b"k", b"v").unwrap();
    db.pause_background_work().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(db.close()).unwrap());
    rx.recv_timeout(std::time::Duration::from_secs(20))
        .expect("close hung")
        .unwrap();
    let db = Db::open(opts(), dir.path()).unwrap();
    assert_eq!(
        db.get(&ReadOptions::default(), b"k").unwrap().as_deref(),
        Some(&b"v"[..])
    );
}

/// Regression: a new snapshot's sequence number was read before the
/// snapshot was registered. A flush that listed the snapshots in between
/// did not see it and dropped the version it saw, shadowed by a write made
/// meanwhile: a read at the snapshot found the key absent. The hook runs
/// that write and flush at the point between choosing the number and
/// registering it; with the number chosen under the list's lock the flush
/// waits for the registration (the hook gives it a while, then goes on).
#[test]
fn regression_a_flush_between_choosing_and_registering_a_snapshot_keeps_what_it_sees() {
    let dir = tempfile::tempdir().unwrap();
    let db = Arc::new(Db::open(opts(), dir.path()).unwrap());
    let wo = WriteOptions::default();
    db.put(&wo, b"k", b"old").unwrap();
    let d = db.clone();
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let job = std::sync::Arc::new(parking_lot::Mutex::new(None));
    let j = job.clone();
    test_hooks::set(&test_hooks::AFTER_CHOOSING_SNAPSHOT_SEQUENCE, move || {
        let h = std::thread::spawn(move || {
            d.put(&WriteOptions::default(), b"k", b"new").unwrap();
            d.flush(&FlushOptions::default()).unwrap();
            let _ = done_tx.send(());
        });
        // Long enough for the flush to finish when nothing holds it back.
        let _ = done_rx.recv_timeout(std::time::Duration::from_millis(500));
        *j.lock() = Some(h);
    });
    let snap = db.snapshot().unwrap();
    job.lock().take().expect("the hook ran").join().unwrap();
    let at_snapshot = ReadOptions {
        snapshot: Some(snap.sequence_number()),
        ..ReadOptions::default()
    };
    assert_eq!(
        db.get(&at_snapshot, b"k").unwrap().as_deref(),
        Some(&b"old"[..]),
        "the version the snapshot saw was dropped by a flush it did not see"
    );
    let ro = ReadOptions::default();
    assert_eq!(db.get(&ro, b"k").unwrap().as_deref(), Some(&b"new"[..]));
    db.release_snapshot(snap);
}

/// Each family's tables are built with its own table options: block size
/// and restart interval, filter or none, whole-key filtering and the
/// family's prefix extractor (recorded in the table, so readers of the
/// family probe the filter with its prefixes).
#[test]
fn each_familys_tables_are_built_with_its_own_table_options() {
    use crate::options::PrefixExtractor;
    let dir = tempfile::tempdir().unwrap();
    let mut d = opts();
    d.create_missing_column_families = true;
    d.table.filter_bits_per_key = Some(10.0);
    let mut small = opts();
    small.table.block_size = 128;
    small.table.block_restart_interval = 1;
    let mut prefixed = opts();
    prefixed.table.filter_bits_per_key = Some(8.0);
    prefixed.table.whole_key_filtering = false;
    prefixed.prefix_extractor = Some(PrefixExtractor::Fixed(2));
    let (db, hs) = Db::open_cf(
        d.clone(),
        dir.path(),
        vec![
            ("default".into(), d),
            ("small".into(), small),
            ("prefixed".into(), prefixed),
        ],
    )
    .unwrap();
    let wo = WriteOptions::default();
    for h in &hs {
        for i in 0..1000u32 {
            db.put_cf(&wo, h, format!("k{i:05}").as_bytes(), &[b'v'; 50])
                .unwrap();
        }
        db.flush_cf(&FlushOptions::default(), h).unwrap();
    }
    let props = |h: &ColumnFamilyHandle| {
        let sv = h.cfd.super_version.load_full();
        let f = &sv.version.files(0)[0];
        let r = db.inner.table_cache.reader(f, 0, &h.cfd.tables).unwrap();
        r.properties().clone()
    };
    let (pd, ps, pp) = (props(&hs[0]), props(&hs[1]), props(&hs[2]));
    assert!(pd.filter_size > 0, "default: a Bloom filter");
    assert_eq!(pd.prefix_extractor, None);
    assert_eq!(ps.filter_size, 0, "small: no filter");
    assert!(
        ps.num_data_blocks > 10 * pd.num_data_blocks,
        "128-byte blocks: {} vs {}",
        ps.num_data_blocks,
        pd.num_data_blocks
    );
    // One restart per entry: the index-less part of a block is bigger.
    assert!(
        ps.data_size > pd.data_size,
        "{} vs {}",
        ps.data_size,
        pd.data_size
    );
    assert!(pp.filter_size > 0);
    assert!(!pp.whole_key_filtering);
    assert_eq!(
        pp.prefix_extractor.as_deref(),
        Some("rocksdb.FixedPrefix.2")
    );
}

/// A lookup with empty memtables prefetches the filter lines of the tables
/// it will visit and hands the key's hash to their probes
/// (`DbInner::prefetch_filters`): with the data in L0 files over a compacted
/// level, whole-key and prefix filters, every present key is found with its
/// newest value and every absent one missed, as the model says.
#[test]
fn lookups_with_empty_memtables_match_the_model_over_l0_and_levels() {
    use std::collections::BTreeMap;
    for prefix in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let mut o = opts();
        o.table.filter_bits_per_key = Some(10.0);
        // The shape below is made by hand, not left to compaction timing.
        o.disable_auto_compactions = true;
        if prefix {
            o.prefix_extractor = Some(crate::options::PrefixExtractor::Fixed(3));
            o.table.whole_key_filtering = false;
        }
        let wo = WriteOptions::default();
        let ro = ReadOptions::default();
        let mut model = BTreeMap::new();
        {
            let db = Db::open(o.clone(), dir.path()).unwrap();
            for round in 0..6u32 {
                for i in (round..6000).step_by(3) {
                    let k = format!("k{:02}-{i:06}", i % 37).into_bytes();
                    let v = format!("v{round}-{i}")
                        .repeat(1 + (i % 5) as usize)
                        .into_bytes();
                    db.put(&wo, &k, &v).unwrap();
                    model.insert(k, v);
                }
                db.flush(&FlushOptions::default()).unwrap();
                if round == 2 {
                    // The first three rounds into the last level, the
                    // newer ones stay in L0 above them.
                    db.compact_range(None, None).unwrap();
                }
            }
            db.close().unwrap();
        }
        // Reopened: the memtables are empty, the tables in L0 and below.
        let db = Db::open(o, dir.path()).unwrap();
        let levels = db.property("rocksdb.levelstats").unwrap();
        let with_files = levels
            .lines()
            .skip(2)
            .filter(|l| l.split_whitespace().nth(1).is_some_and(|n| n != "0"))
            .count();
        assert!(with_files == 2, "not L0 over one level:\n{levels}");
        let mut v = Vec::new();
        for i in 0..6100u32 {
            for k in [
                format!("k{:02}-{i:06}", i % 37),
                format!("k{:02}-{i:06}x", i % 37),
                format!("q{:02}-{i:06}", i % 37),
            ] {
                let found = db.get_into(&ro, k.as_bytes(), &mut v).unwrap();
                match model.get(k.as_bytes()) {
                    Some(want) => {
                        assert!(found, "{k} missing (prefix filters: {prefix})");
                        assert_eq!(&v, want, "{k}");
                    }
                    None => assert!(!found, "{k} found (prefix filters: {prefix})"),
                }
            }
        }
    }
}

#[test]
fn a_cancelled_automatic_compaction_leaves_its_inputs_and_no_error() {
    use crate::rate_limiter::{RateLimiter, RateLimiterMode};
    let limiter =
        RateLimiter::new(1 << 30, 100_000, 10, RateLimiterMode::WritesOnly, false, 0).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let o = Options {
        create_if_missing: true,
        write_buffer_size: 8 << 20,
        level0_file_num_compaction_trigger: 2,
        rate_limiter: Some(limiter.clone()),
        ..Options::default()
    };
    let db = Db::open(o, dir.path()).unwrap();
    db.set_disable_auto_compactions(true).unwrap();
    let wo = WriteOptions::default();
    let key = |i: u32| format!("key{i:08}").into_bytes();
    // Values that do not compress: the merge of the two files writes about
    // 2.7 MB, in 1 MiB writes.
    let value = |i: u32| {
        let mut x = u64::from(i) | 1 << 40;
        (0..6)
            .flat_map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x.to_le_bytes()
            })
            .collect::<Vec<u8>>()
    };
    for f in 0..2 {
        for i in 0..20_000 {
            db.put(&wo, &key(i * 2 + f), &value(i * 2 + f)).unwrap();
        }
        db.flush(&FlushOptions::default()).unwrap();
    }
    // At 256 KiB/s the compaction's first 1 MiB write waits about 4 s for
    // the limiter; its next check for a cancel comes right after it.
    limiter.set_bytes_per_second(256 << 10).unwrap();
    db.set_disable_auto_compactions(false).unwrap();
    let running = || db.int_property("rocksdb.num-running-compactions").unwrap();
    wait_until("the compaction to start", || running() == 1);
    let cfd = db.inner.state.lock().families[&0].cfd.clone();
    cfd.cancel_automatic.fetch_add(1, Ordering::AcqRel);
    wait_until("the compaction to stop", || running() == 0);

    let log = std::fs::read_to_string(dir.path().join("LOG")).unwrap();
    assert!(
        log.contains(&format!(
            "Compaction abandoned: {}",
            super::compaction::CANCELLED_FOR_MANUAL
        )),
        "{log}"
    );
    assert_eq!(db.int_property("rocksdb.num-files-at-level0"), Some(2));
    assert_eq!(db.int_property("rocksdb.background-errors"), Some(0));
    assert_eq!(
        table_names(dir.path()).len(),
        2,
        "the cancelled compaction's outputs are deleted"
    );
    // While a cancel is held up, no automatic compaction starts.
    db.put(&wo, b"more", b"rows").unwrap();
    db.flush(&FlushOptions::default()).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert_eq!(running(), 0);

    cfd.cancel_automatic.fetch_sub(1, Ordering::AcqRel);
    limiter.set_bytes_per_second(1 << 30).unwrap();
    db.compact_range(None, None).unwrap();
    assert_eq!(db.int_property("rocksdb.num-files-at-level0"), Some(0));
    let ro = ReadOptions::default();
    for i in (0..40_000).step_by(997) {
        assert_eq!(db.get(&ro, &key(i)).unwrap(), Some(value(i)), "key {i}");
    }
    assert_eq!(db.get(&ro, b"more").unwrap(), Some(b"rows".to_vec()));
}
