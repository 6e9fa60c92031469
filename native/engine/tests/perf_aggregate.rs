//! The process-wide aggregate of perf contexts. A binary of its own, with
//! one test: the aggregate is shared by every thread of the process.

#![cfg(not(feature = "perf-context-off"))]

use talus::perf_context::{self as pc, PerfLevel};
use talus::perf_count;

#[test]
fn threads_fold_explicitly_and_on_exit_and_nothing_is_counted_twice() {
    pc::reset_aggregate();
    // Eight "importer" threads; odd ones fold explicitly half-way and reset
    // their own context, even ones just end. Each records 10 + i hits.
    let per_thread: Vec<u64> = (0..8u64)
        .map(|i| {
            std::thread::spawn(move || {
                pc::set_perf_level(PerfLevel::EnableCount).unwrap();
                {
                    let _op = pc::op();
                    perf_count!(block_cache_hit_count = 5);
                }
                if i % 2 == 1 {
                    pc::fold_into_aggregate();
                    pc::fold_into_aggregate(); // nothing new: adds nothing
                    pc::reset(); // the folded 5 are not owed twice
                }
                {
                    let _op = pc::op();
                    perf_count!(block_cache_hit_count = 5 + i);
                }
                if i == 2 {
                    pc::reset(); // reset before any fold: still owed on exit
                }
                pc::get().block_cache_hit_count()
            })
            .join()
            .unwrap()
        })
        .collect();
    let total: u64 = (0..8).map(|i| 10 + i).sum();
    let agg = pc::aggregate();
    assert_eq!(agg.block_cache_hit_count(), total, "{agg:?}");
    assert_eq!(agg.num_runs(), 16);
    // Per-thread values were what each thread saw at its end.
    assert_eq!(per_thread[0], 10);
    assert_eq!(per_thread[1], 6, "reset after its fold");
    assert_eq!(per_thread[2], 0, "reset at the end");
    // This (live) thread folds explicitly; a thread that never set a level adds nothing.
    pc::set_perf_level(PerfLevel::EnableCount).unwrap();
    perf_count!(bloom_sst_miss_count = 3);
    std::thread::spawn(|| perf_count!(bloom_sst_miss_count = 100))
        .join()
        .unwrap();
    assert_eq!(pc::aggregate().bloom_sst_miss_count(), 0);
    pc::fold_into_aggregate();
    assert_eq!(pc::aggregate().bloom_sst_miss_count(), 3);
    assert_eq!(
        pc::get().bloom_sst_miss_count(),
        3,
        "folding keeps own values"
    );
    pc::reset_aggregate();
    assert!(pc::aggregate().is_zero());
    assert_eq!(pc::aggregate_folds(), 0);
}
