//! Mechanics of the perf context without a database: levels, operations,
//! the last-operation record, reset, formatting. Each test runs on its own
//! thread (libtest's), so thread-local state starts fresh... except for the
//! level, which tests set themselves. The aggregate is process-wide and is
//! tested in `tests/perf_aggregate.rs`, a binary of its own.

#![cfg(not(feature = "perf-context-off"))]

use super::*;
use crate::{perf_count, perf_timer};

fn busy(ns: u64) {
    let t = std::time::Instant::now();
    while (t.elapsed().as_nanos() as u64) < ns {
        std::hint::spin_loop();
    }
}

fn on_new_thread<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::spawn(f).join().unwrap()
}

#[test]
fn a_thread_that_never_set_a_level_records_nothing() {
    on_new_thread(|| {
        assert_eq!(perf_level(), PerfLevel::Disable);
        perf_count!(block_cache_hit_count, block_read_byte = 4096);
        {
            perf_timer!(block_read_time);
            busy(1000);
        }
        record_stall(StallCause::L0Stop, 10);
        {
            let _op = op();
        }
        assert!(get().is_zero(), "{:?}", get());
        assert!(last_operation().is_zero());
    });
}

#[test]
fn unset_levels_are_rejected() {
    assert!(set_perf_level(PerfLevel::Uninitialized).is_err());
    assert!(set_perf_level(PerfLevel::OutOfBounds).is_err());
    set_perf_level(PerfLevel::EnableCount).unwrap();
    assert_eq!(perf_level(), PerfLevel::EnableCount);
    for v in 0..=7 {
        assert_eq!(PerfLevel::from_u8(v).unwrap() as u8, v);
    }
    assert_eq!(PerfLevel::from_u8(8), None);
}

/// One event of each kind: a count, a time field, a wait field, a mutex field.
fn one_of_each() {
    perf_count!(block_cache_hit_count);
    {
        perf_timer!(block_read_time);
        busy(2000);
    }
    {
        perf_timer!(write_thread_wait_nanos);
        busy(2000);
    }
    {
        perf_timer!(db_mutex_lock_nanos);
        busy(2000);
    }
}

#[test]
fn levels_gate_counts_waits_times_and_mutex_times() {
    let cases = [
        (PerfLevel::Disable, [false, false, false, false]),
        (PerfLevel::EnableCount, [true, false, false, false]),
        (PerfLevel::EnableWait, [true, false, true, false]),
        (
            PerfLevel::EnableTimeExceptForMutex,
            [true, true, true, false],
        ),
        (
            PerfLevel::EnableTimeAndCpuTimeExceptForMutex,
            [true, true, true, false],
        ),
        (PerfLevel::EnableTime, [true, true, true, true]),
    ];
    for (level, want) in cases {
        set_perf_level(level).unwrap();
        reset();
        one_of_each();
        let c = get();
        let got = [
            c.block_cache_hit_count() > 0,
            c.block_read_time() >= 2000,
            c.write_thread_wait_nanos() >= 2000,
            c.db_mutex_lock_nanos() >= 2000,
        ];
        assert_eq!(got, want, "{level:?}: {c:?}");
    }
}

#[test]
fn field_levels_follow_rocksdb() {
    assert_eq!(
        F::user_key_comparison_count.min_level(),
        PerfLevel::EnableCount
    );
    assert_eq!(F::write_memtable_time.min_level(), PerfLevel::EnableWait);
    assert_eq!(F::write_delay_time.min_level(), PerfLevel::EnableWait);
    assert_eq!(
        F::get_from_output_files_time.min_level(),
        PerfLevel::EnableTimeExceptForMutex
    );
    assert_eq!(
        F::db_condition_wait_nanos.min_level(),
        PerfLevel::EnableTime
    );
    for f in F::ALL {
        let timed = f.name().ends_with("_time") || f.name().ends_with("_nanos");
        assert_eq!(
            timed,
            f.min_level() > PerfLevel::EnableCount,
            "{}",
            f.name()
        );
    }
}

#[test]
fn operations_fold_into_totals_and_the_last_operation_record() {
    set_perf_level(PerfLevel::EnableCount).unwrap();
    set_last_operation_enabled(true);
    reset();
    {
        let _op = op();
        perf_count!(block_cache_hit_count = 3, block_read_count = 2);
    }
    {
        let _op = op();
        perf_count!(block_cache_hit_count, get_read_bytes = 10);
    }
    let c = get();
    assert_eq!(c.block_cache_hit_count(), 4);
    assert_eq!(c.block_read_count(), 2);
    assert_eq!(c.get_read_bytes(), 10);
    assert_eq!(c.num_runs(), 2);
    let last = last_operation();
    assert_eq!(last.block_cache_hit_count(), 1);
    assert_eq!(last.block_read_count(), 0, "stale field of the first op");
    assert_eq!(last.get_read_bytes(), 10);
    // An operation that records nothing leaves an empty record.
    {
        let _op = op();
    }
    assert!(last_operation().is_zero());
    assert_eq!(get().num_runs(), 3);
    // Events outside operations show at once, and join the next record.
    perf_count!(bloom_sst_miss_count);
    assert_eq!(get().bloom_sst_miss_count(), 1);
    {
        let _op = op();
    }
    assert_eq!(last_operation().bloom_sst_miss_count(), 1);
}

#[test]
fn reset_zeroes_the_context_but_keeps_the_last_operation() {
    set_perf_level(PerfLevel::EnableCount).unwrap();
    set_last_operation_enabled(true);
    set_per_level_enabled(true);
    {
        let _op = op();
        perf_count!(iter_read_bytes = 7);
    }
    with_counters(|c| c.add(F::iter_next_count, 1));
    if let Some(p) = LevelProbe::start() {
        p.finish(
            2,
            ProbeResult {
                filter_checked: true,
                filter_rejected: true,
                found_entry: false,
                returned_value: false,
            },
        );
    }
    assert_eq!(get().level_field(2, LF::bloom_filter_useful), 1);
    reset();
    assert!(get().is_zero(), "{:?}", get());
    assert_eq!(last_operation().iter_read_bytes(), 7);
    set_per_level_enabled(false);
}

#[test]
fn contexts_are_per_thread() {
    set_perf_level(PerfLevel::EnableCount).unwrap();
    reset();
    perf_count!(block_cache_miss_count = 5);
    let other = on_new_thread(|| {
        set_perf_level(PerfLevel::EnableCount).unwrap();
        let before = get();
        perf_count!(block_cache_hit_count);
        (before, get())
    });
    assert!(other.0.is_zero());
    assert_eq!(other.1.block_cache_hit_count(), 1);
    assert_eq!(other.1.block_cache_miss_count(), 0);
    assert_eq!(get().block_cache_miss_count(), 5);
    assert_eq!(get().block_cache_hit_count(), 0);
}

#[test]
fn stalls_record_count_micros_cause_and_delay() {
    set_perf_level(PerfLevel::EnableCount).unwrap();
    reset();
    record_stall(StallCause::L0Slowdown, 250);
    let c = get();
    assert_eq!(c.write_stall_count(), 1);
    assert_eq!(c.write_stall_micros(), 250);
    assert_eq!(c.write_stall_l0_slowdown_micros(), 250);
    assert_eq!(c.write_delay_time(), 0, "a wait field: EnableWait and up");
    set_perf_level(PerfLevel::EnableWait).unwrap();
    {
        let _t = StallTimer::start(StallCause::PendingCompactionBytes);
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let c = get();
    assert_eq!(c.write_stall_count(), 2);
    assert!(
        c.write_stall_pending_compaction_bytes_micros() >= 2000,
        "{c:?}"
    );
    assert!(c.write_delay_time() >= 2_000_000, "{c:?}");
    assert_eq!(c.write_stall_memtable_limit_micros(), 0);
    assert_eq!(c.write_stall_l0_stop_micros(), 0);
    // A stall timed by the caller: its micros become write_delay_time in
    // nanoseconds (kept in clock ticks in between: equal within rounding).
    reset();
    record_stall(StallCause::L0Stop, 1500);
    let c = get();
    assert_eq!(c.write_stall_l0_stop_micros(), 1500);
    assert!(c.write_delay_time().abs_diff(1_500_000) <= 2, "{c:?}");
}

#[test]
fn laps_share_readings_and_respect_field_levels() {
    set_perf_level(PerfLevel::EnableWait).unwrap();
    reset();
    let mut laps = Laps::start(PerfLevel::EnableWait);
    assert!(laps.is_on());
    busy(3000);
    assert!(laps.lap(F::write_wal_time) > 0, "ticks of the phase");
    busy(3000);
    laps.lap(F::write_memtable_time);
    let c = get();
    assert_eq!(c.write_wal_time(), 0, "a timing-level field at EnableWait");
    assert!(c.write_memtable_time() >= 3000);
    let mut off = Laps::start(PerfLevel::EnableTimeExceptForMutex);
    assert!(!off.is_on());
    assert_eq!(off.lap(F::write_wal_time), 0);
}

#[test]
fn to_string_matches_rocksdb_format() {
    let mut flat = [0u64; FLAT_LEN];
    flat[1 + F::block_cache_hit_count as usize] = 3;
    flat[1 + F::get_from_output_files_time as usize] = 1200;
    flat[1 + NUM_FIELDS + NUM_LEVEL_FIELDS + LF::get_from_table_nanos as usize] = 900;
    flat[0] = 1;
    let c = PerfContext::from_flat(flat);
    assert_eq!(
        c.to_string(true),
        "block_cache_hit_count = 3, get_from_output_files_time = 1200, \
         get_from_table_nanos = 900@level1, num_runs = 1"
    );
    let full = c.to_string(false);
    assert!(full.starts_with("user_key_comparison_count = 0, block_cache_hit_count = 3, "));
    assert_eq!(full.matches(" = ").count(), NUM_FIELDS + 2);
    assert_eq!(format!("{c}"), c.to_string(true));
    assert_eq!(PerfContext::default().to_string(true), "");
}

#[test]
fn flat_layout_names_every_entry_once() {
    let names = PerfContext::flat_names();
    assert_eq!(names.len(), FLAT_LEN);
    let unique: std::collections::HashSet<_> = names.iter().collect();
    assert_eq!(unique.len(), FLAT_LEN);
    assert_eq!(
        names[1 + F::write_stall_count as usize],
        "write_stall_count"
    );
    assert_eq!(names[FLAT_LEN - 1], "block_cache_miss_count@level7+");
    assert_eq!(level_slot(3), 3);
    assert_eq!(level_slot(40), PER_LEVEL_SLOTS - 1);
}

#[test]
fn without_the_last_operation_record_counters_go_straight_to_the_totals() {
    on_new_thread(|| {
        set_perf_level(PerfLevel::EnableCount).unwrap();
        assert!(!last_operation_enabled());
        {
            let _op = op();
            perf_count!(block_cache_hit_count = 2);
        }
        assert_eq!(get().block_cache_hit_count(), 2);
        assert_eq!(get().num_runs(), 1);
        assert!(last_operation().is_zero());
        // Turning the record off mid-operation keeps what was counted.
        set_last_operation_enabled(true);
        {
            let _op = op();
            perf_count!(block_cache_hit_count = 5);
            set_last_operation_enabled(false);
        }
        assert_eq!(get().block_cache_hit_count(), 7);
        assert_eq!(get().num_runs(), 2);
        // With the record off it is not updated: it keeps the last
        // operation recorded while it was on.
        set_last_operation_enabled(true);
        {
            let _op = op();
            perf_count!(block_cache_hit_count = 3);
        }
        set_last_operation_enabled(false);
        {
            let _op = op();
            perf_count!(block_cache_hit_count = 4);
        }
        assert_eq!(last_operation().block_cache_hit_count(), 3);
        assert_eq!(get().block_cache_hit_count(), 14);
    });
}
