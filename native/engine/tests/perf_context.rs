//! The perf context against a real database: each field moves when its
//! event happens and stays zero when it does not; contexts are per thread;
//! levels gate counts, times and mutex times; a stalled writer sees its stall.
//!
//! libtest runs each test on a thread of its own, and perf contexts are per
//! thread, so the tests do not disturb each other.

#![cfg(not(feature = "perf-context-off"))]

use std::sync::Arc;
use std::time::Duration;

use talus::db::FlushOptions;
use talus::perf_context::{self as pc, F, LF, PerfContext, PerfLevel};
use talus::{Db, Options, ReadOptions, WriteOptions};

fn opts() -> Options {
    let mut o = Options {
        create_if_missing: true,
        ..Options::default()
    };
    o.table.filter_bits_per_key = Some(10.0);
    o
}

fn key(i: u32) -> Vec<u8> {
    format!("key{i:06}").into_bytes()
}

/// A database whose keys 0..n (even only) are in one L0 table, reopened so
/// nothing is cached.
fn table_db(dir: &std::path::Path, o: Options, n: u32) -> Db {
    {
        let db = Db::open(o.clone(), dir).unwrap();
        let wo = WriteOptions::default();
        for i in (0..n).step_by(2) {
            db.put(&wo, &key(i), &[b'v'; 100]).unwrap();
        }
        db.flush(&FlushOptions::default()).unwrap();
    }
    Db::open(o, dir).unwrap()
}

/// Runs `f` as the only work measured: level set, context reset.
fn measure(level: PerfLevel, f: impl FnOnce()) -> PerfContext {
    pc::set_perf_level(level).unwrap();
    pc::reset();
    f();
    let c = pc::get();
    pc::set_perf_level(PerfLevel::Disable).unwrap();
    c
}

fn nonzero(c: &PerfContext) -> Vec<&'static str> {
    F::ALL
        .iter()
        .filter(|f| c.get(**f) != 0)
        .map(|f| f.name())
        .collect()
}

fn assert_only(c: &PerfContext, allowed: &[F]) {
    for f in F::ALL {
        if !allowed.contains(&f) {
            assert_eq!(c.get(f), 0, "{} moved: {c:?}", f.name());
        }
    }
}

const T: PerfLevel = PerfLevel::EnableTimeExceptForMutex;

mod point_lookups {
    use super::*;

    #[test]
    fn cold_get_after_reopen_misses_the_cache_and_reads_index_and_filter() {
        let dir = tempfile::tempdir().unwrap();
        let db = table_db(dir.path(), opts(), 2000);
        let ro = ReadOptions::default();
        let c = measure(T, || {
            assert!(db.get(&ro, &key(500)).unwrap().is_some());
        });
        for f in [
            F::block_cache_miss_count,
            F::block_read_count,
            F::block_read_byte,
            F::index_block_read_count,
            F::filter_block_read_count,
            F::block_read_time,
            F::block_checksum_time,
            F::block_decompress_time,
            F::bloom_sst_hit_count,
            F::user_key_comparison_count,
            F::get_snapshot_time,
            F::get_from_memtable_count,
            F::get_from_memtable_time,
            F::get_from_output_files_time,
            F::get_post_process_time,
            F::get_read_bytes,
            F::env_new_random_access_file_nanos,
        ] {
            assert!(c.get(f) > 0, "{} did not move: {c:?}", f.name());
        }
        assert_eq!(c.get_read_bytes(), 100);
        assert_eq!(c.block_cache_miss_count(), 1, "one data block: {c:?}");
        assert_eq!(c.block_cache_hit_count(), 0);
        assert_eq!(c.num_runs(), 1);
        assert_only(
            &c,
            &[
                F::block_cache_miss_count,
                F::block_read_count,
                F::block_read_byte,
                F::index_block_read_count,
                F::filter_block_read_count,
                F::block_read_time,
                F::block_checksum_time,
                F::block_decompress_time,
                F::bloom_sst_hit_count,
                F::user_key_comparison_count,
                F::get_snapshot_time,
                F::get_from_memtable_count,
                F::get_from_memtable_time,
                F::get_from_output_files_time,
                F::get_post_process_time,
                F::get_read_bytes,
                F::env_new_random_access_file_nanos,
            ],
        );
    }

    #[test]
    fn warm_get_hits_the_cache_and_reads_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let db = table_db(dir.path(), opts(), 2000);
        let ro = ReadOptions::default();
        db.get(&ro, &key(500)).unwrap();
        let c = measure(T, || {
            db.get(&ro, &key(500)).unwrap();
        });
        assert_eq!(c.block_cache_hit_count(), 1, "{c:?}");
        assert_eq!(c.block_cache_miss_count(), 0);
        assert_eq!(c.block_read_count(), 0);
        assert_eq!(c.block_read_time(), 0);
        assert_eq!(c.index_block_read_count(), 0);
        assert!(c.get_from_output_files_time() > 0);
    }

    #[test]
    fn cached_index_and_filter_blocks_count_their_own_hits_and_misses() {
        let dir = tempfile::tempdir().unwrap();
        let mut o = opts();
        o.table.cache_index_and_filter_blocks = true;
        let db = table_db(dir.path(), o, 2000);
        let ro = ReadOptions::default();
        let cold = measure(PerfLevel::EnableCount, || {
            db.get(&ro, &key(500)).unwrap();
        });
        // Opening the table reads index and filter into the cache; the
        // lookup then finds them there and misses only the data block.
        assert_eq!(cold.index_block_read_count(), 1, "{cold:?}");
        assert_eq!(cold.filter_block_read_count(), 1);
        assert!(cold.block_cache_miss_count() >= 1);
        let warm = measure(PerfLevel::EnableCount, || {
            db.get(&ro, &key(500)).unwrap();
        });
        assert_eq!(warm.block_cache_index_hit_count(), 1, "{warm:?}");
        assert_eq!(warm.block_cache_filter_hit_count(), 1);
        assert_eq!(warm.block_cache_hit_count(), 3, "index, filter, data");
        assert_eq!(warm.block_cache_miss_count(), 0);
        assert_eq!(warm.index_block_read_count(), 0);
    }

    #[test]
    fn memtable_hit_spends_nothing_in_table_files() {
        let dir = tempfile::tempdir().unwrap();
        let db = table_db(dir.path(), opts(), 200);
        db.put(&WriteOptions::default(), b"fresh", b"x").unwrap();
        let c = measure(T, || {
            assert!(db.get(&ReadOptions::default(), b"fresh").unwrap().is_some());
        });
        assert_eq!(c.get_from_memtable_count(), 1);
        assert!(c.get_from_memtable_time() > 0);
        assert!(c.get_snapshot_time() > 0);
        assert!(c.get_post_process_time() > 0);
        assert_eq!(c.get_from_output_files_time(), 0, "{c:?}");
        assert_only(
            &c,
            &[
                F::get_from_memtable_count,
                F::get_from_memtable_time,
                F::get_snapshot_time,
                F::get_post_process_time,
                F::get_read_bytes,
            ],
        );
    }

    #[test]
    fn bloom_filter_rejects_absent_keys() {
        let dir = tempfile::tempdir().unwrap();
        let db = table_db(dir.path(), opts(), 2000);
        let ro = ReadOptions::default();
        db.get(&ro, &key(0)).unwrap(); // open the table
        // Odd keys were never written; nearly all are ruled out by the filter.
        let c = measure(PerfLevel::EnableCount, || {
            for i in (1..200).step_by(2) {
                assert!(db.get(&ro, &key(i)).unwrap().is_none());
            }
        });
        assert!(c.bloom_sst_miss_count() >= 90, "{c:?}");
        assert_eq!(c.bloom_sst_miss_count() + c.bloom_sst_hit_count(), 100);
        assert_eq!(c.get_read_bytes(), 0);
        assert_eq!(
            c.bloom_memtable_hit_count() + c.bloom_memtable_miss_count(),
            0
        );
        assert_eq!(c.num_runs(), 100);
    }

    #[test]
    fn per_level_breakdown_attributes_lookups_to_their_level() {
        let dir = tempfile::tempdir().unwrap();
        let db = table_db(dir.path(), opts(), 2000);
        db.compact_range(None, None).unwrap();
        let level = (0..7)
            .find(|l| {
                db.int_property(&format!("rocksdb.num-files-at-level{l}"))
                    .unwrap_or(0)
                    > 0
            })
            .unwrap();
        assert!(level > 0, "compaction moved the table down");
        let ro = ReadOptions::default();
        let off = measure(T, || {
            db.get(&ro, &key(10)).unwrap();
        });
        assert!(off.by_level(level) == Default::default(), "off by default");
        pc::set_per_level_enabled(true);
        let c = measure(T, || {
            db.get(&ro, &key(10)).unwrap(); // found
            db.get(&ro, &key(11)).unwrap(); // absent: (almost surely) filtered
        });
        pc::set_per_level_enabled(false);
        let l = c.by_level(level);
        assert_eq!(l.user_key_return_count(), 1, "{c:?}");
        assert!(l.bloom_filter_full_positive() >= 1);
        assert_eq!(l.bloom_filter_full_true_positive(), 1);
        assert_eq!(
            l.bloom_filter_useful() + l.bloom_filter_full_positive(),
            2,
            "{c:?}"
        );
        assert!(l.get_from_table_nanos() > 0);
        assert_eq!(
            l.block_cache_hit_count() + l.block_cache_miss_count(),
            c.block_cache_hit_count() + c.block_cache_miss_count()
        );
        assert_eq!(c.level_field(0, LF::get_from_table_nanos), 0);
    }

    #[test]
    fn multi_get_is_one_operation() {
        let dir = tempfile::tempdir().unwrap();
        let db = table_db(dir.path(), opts(), 200);
        let keys = [key(2), key(4), key(3)];
        let refs: Vec<&[u8]> = keys.iter().map(|k| k.as_slice()).collect();
        let c = measure(PerfLevel::EnableCount, || {
            db.multi_get(&ReadOptions::default(), &refs).unwrap();
        });
        assert_eq!(c.num_runs(), 1);
        assert_eq!(c.multiget_read_bytes(), 200);
        assert_eq!(c.get_read_bytes(), 0);
        assert_eq!(c.get_from_memtable_count(), 3);
    }
}

mod iterators {
    use super::*;

    #[test]
    fn seeks_and_steps_count_memtable_child_and_skipped_entries() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(opts(), dir.path()).unwrap();
        let wo = WriteOptions::default();
        db.put(&wo, b"a", b"1").unwrap();
        db.put(&wo, b"b", b"old").unwrap();
        db.put(&wo, b"b", b"new").unwrap(); // an older version to skip
        db.put(&wo, b"c", b"3").unwrap();
        db.delete(&wo, b"c").unwrap(); // a tombstone to skip
        db.put(&wo, b"d", b"4").unwrap();
        let snap = db.snapshot().unwrap();
        db.put(&wo, b"e", b"after the snapshot").unwrap();
        let ro = ReadOptions {
            snapshot: Some(snap.sequence_number()),
            ..ReadOptions::default()
        };
        let mut seen = Vec::new();
        let c = measure(T, || {
            let mut it = db.iter(&ro).unwrap();
            it.seek(b"a");
            while it.valid() {
                seen.push(it.key().to_vec());
                it.next();
            }
        });
        assert_eq!(seen, [b"a", b"b", b"d"]);
        assert_eq!(c.iter_seek_count(), 1, "{c:?}");
        assert_eq!(c.iter_next_count(), 3);
        assert_eq!(c.iter_prev_count(), 0);
        assert_eq!(c.iter_read_bytes(), (1 + 1) + (1 + 3) + (1 + 1));
        assert_eq!(c.seek_on_memtable_count(), 1);
        assert!(c.seek_on_memtable_time() > 0);
        assert!(c.next_on_memtable_count() >= 6);
        assert_eq!(c.seek_child_seek_count(), 1);
        assert!(c.seek_child_seek_time() > 0);
        assert!(c.seek_internal_seek_time() > 0);
        assert!(c.find_next_user_entry_time() > 0);
        // RocksDB's meaning: the entry a `next` leaves (a, b, d) counts too.
        assert_eq!(c.internal_key_skipped_count(), 5, "a, b, d, old b, old c");
        assert_eq!(c.internal_delete_skipped_count(), 1);
        assert_eq!(c.internal_recent_skipped_count(), 1, "e");
        assert_eq!(c.num_runs(), 5, "creation, seek, three nexts");
        assert_eq!(c.get_from_memtable_count(), 0);
        let back = measure(PerfLevel::EnableCount, || {
            let mut it = db.iter(&ro).unwrap();
            it.seek_to_last();
            it.prev();
        });
        assert_eq!(back.iter_seek_count(), 1);
        assert_eq!(back.iter_prev_count(), 1);
        assert!(back.prev_on_memtable_count() > 0);
    }
}

mod writes {
    use super::*;

    #[test]
    fn a_put_times_wal_memtable_and_the_rest_at_the_timing_levels() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(opts(), dir.path()).unwrap();
        let wo = WriteOptions::default();
        let put = || db.put(&wo, b"k", b"v").unwrap();
        let count = measure(PerfLevel::EnableCount, put);
        assert_only(&count, &[]);
        assert_eq!(count.num_runs(), 1);
        let wait = measure(PerfLevel::EnableWait, put);
        assert!(wait.write_memtable_time() > 0, "{wait:?}");
        assert_only(&wait, &[F::write_memtable_time]);
        let time = measure(T, put);
        assert!(time.write_wal_time() > 0, "{time:?}");
        assert!(time.write_memtable_time() > 0);
        assert!(time.write_pre_and_post_process_time() > 0);
        assert_only(
            &time,
            &[
                F::write_wal_time,
                F::write_memtable_time,
                F::write_pre_and_post_process_time,
            ],
        );
        let synced = measure(T, || {
            db.put(&WriteOptions { sync: true, ..wo }, b"k", b"v")
                .unwrap();
        });
        assert!(synced.env_sync_file_nanos() > 0, "{synced:?}");
        assert!(synced.write_wal_time() >= synced.env_sync_file_nanos());
    }

    #[test]
    fn switching_memtables_times_the_db_mutex_only_at_enable_time() {
        let dir = tempfile::tempdir().unwrap();
        let o = Options {
            write_buffer_size: 64 << 10,
            max_write_buffer_number: 4,
            ..opts()
        };
        let db = Db::open(o, dir.path()).unwrap();
        let wo = WriteOptions::default();
        let fill = |from: u32| {
            for i in from..from + 2000 {
                db.put(&wo, &key(i), &[b'x'; 100]).unwrap();
            }
        };
        let except = measure(T, || fill(0));
        assert!(
            except.write_scheduling_flushes_compactions_time() > 0,
            "{except:?}"
        );
        // No assertion on env_new_writable_file_nanos: the next WAL is
        // made ahead on the WAL syncer's thread, and a switch creates one on the
        // writer's thread only when it finds none made, which timing decides.
        assert_eq!(except.db_mutex_lock_nanos(), 0);
        let all = measure(PerfLevel::EnableTime, || fill(10_000));
        assert!(all.db_mutex_lock_nanos() > 0, "{all:?}");
        assert!(all.write_scheduling_flushes_compactions_time() > 0);
    }

    #[test]
    fn a_stalled_writer_records_its_stall_and_no_other_thread_does() {
        let dir = tempfile::tempdir().unwrap();
        let o = Options {
            write_buffer_size: 64 << 10,
            max_write_buffer_number: 2,
            ..opts()
        };
        let db = Arc::new(Db::open(o, dir.path()).unwrap());
        db.pause_background_work().unwrap();
        let writer = {
            let db = db.clone();
            std::thread::spawn(move || {
                pc::set_perf_level(PerfLevel::EnableTime).unwrap();
                pc::reset();
                let wo = WriteOptions::default();
                // Two memtables' worth: the third switch has to wait for a flush.
                for i in 0..2000 {
                    db.put(&wo, &key(i), &[b'x'; 100]).unwrap();
                }
                (pc::get(), pc::last_operation())
            })
        };
        std::thread::sleep(Duration::from_millis(200));
        let other = measure(PerfLevel::EnableTime, || {
            db.continue_background_work().unwrap();
        });
        let (c, _) = writer.join().unwrap();
        assert!(c.write_stall_count() >= 1, "{c:?}");
        assert!(c.write_stall_micros() >= 100_000, "{c:?}");
        assert_eq!(
            c.write_stall_micros(),
            c.write_stall_memtable_limit_micros()
        );
        assert!(c.write_delay_time() >= 100_000_000, "{c:?}");
        assert!(c.db_condition_wait_nanos() > 0);
        assert_eq!(c.write_stall_l0_stop_micros(), 0);
        assert_eq!(
            nonzero(&other),
            Vec::<&str>::new(),
            "the thread that resumed background work: {other:?}"
        );
        assert_eq!(other.num_runs(), 0);
    }
}

mod threads_and_operations {
    use super::*;

    #[test]
    fn a_second_thread_sees_zeros() {
        let dir = tempfile::tempdir().unwrap();
        let db = Arc::new(table_db(dir.path(), opts(), 200));
        pc::set_perf_level(PerfLevel::EnableTime).unwrap();
        pc::reset();
        db.get(&ReadOptions::default(), &key(2)).unwrap();
        assert!(pc::get().block_cache_miss_count() > 0);
        let db2 = db.clone();
        let (never_set, set_but_idle, other_default) = std::thread::spawn(move || {
            let never_set = pc::get();
            // At the default level a lookup records nothing.
            db2.get(&ReadOptions::default(), &key(4)).unwrap();
            let other_default = pc::get();
            pc::set_perf_level(PerfLevel::EnableTime).unwrap();
            (never_set, pc::get(), other_default)
        })
        .join()
        .unwrap();
        assert!(never_set.is_zero());
        assert!(set_but_idle.is_zero());
        assert!(other_default.is_zero());
        assert_eq!(pc::get().num_runs(), 1);
    }

    #[test]
    fn the_last_operation_explains_one_call_without_a_reset() {
        let dir = tempfile::tempdir().unwrap();
        let db = table_db(dir.path(), opts(), 200);
        pc::set_perf_level(T).unwrap();
        pc::set_last_operation_enabled(true);
        db.put(&WriteOptions::default(), b"zz", b"1").unwrap();
        let put = pc::last_operation();
        assert!(put.write_wal_time() > 0, "{put:?}");
        assert_eq!(put.get_snapshot_time(), 0);
        db.get(&ReadOptions::default(), &key(2)).unwrap();
        let get = pc::last_operation();
        assert!(get.get_snapshot_time() > 0, "{get:?}");
        assert_eq!(get.write_wal_time(), 0, "the put is not part of it");
        assert!(pc::get().write_wal_time() >= put.write_wal_time());
        pc::set_perf_level(PerfLevel::Disable).unwrap();
    }

    #[test]
    fn opening_and_closing_time_the_file_system() {
        let dir = tempfile::tempdir().unwrap();
        let c = measure(T, || {
            let db = Db::open(opts(), dir.path()).unwrap();
            db.close().unwrap();
        });
        for f in [
            F::env_create_dir_if_missing_nanos,
            F::env_lock_file_nanos,
            F::env_unlock_file_nanos,
            F::env_new_writable_file_nanos,
            F::env_file_exists_nanos,
            F::env_rename_file_nanos,
            F::env_sync_dir_nanos,
            F::env_sync_file_nanos,
        ] {
            assert!(c.get(f) > 0, "{} did not move: {c:?}", f.name());
        }
        assert_eq!(c.num_runs(), 0, "open and close are not operations");
    }
}
