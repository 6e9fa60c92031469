//! Where talus-bench connects to the engine features it reports on:
//! statistics (`--statistics`), the perf context (`--perf_level` ≥ 2), the
//! rate limiter for flush and compaction IO (`--rate_limiter_bytes_per_sec`),
//! the table bytes written by flushes and compactions (write amplification
//! at the end of fill benchmarks), and write stalls on L0 files and pending
//! compaction bytes.
//!
//! **Integration points.** Each of the first four is one function below,
//! which installs or reads the feature; every one of them answers in this
//! build. The write stalls are a constant,
//! [`L0_AND_PENDING_BYTES_WRITE_STALLS`] (true: the engine applies them).
//! The rest of talus-bench handles both answers: it prints the feature's
//! output when there is one and a "not available in this build yet" line
//! when there is none (a function returning `None` or false, or the
//! constant false). The `rocksdb.stats` dump is not here: the `stats`
//! benchmark and `--stats_per_interval` print `Db::property("rocksdb.stats")`
//! from `bench.rs`.

use talus::{Db, Options};

/// Integration point for write stalls: whether this build slows down and
/// stops writes on `level0_slowdown_writes_trigger`,
/// `level0_stop_writes_trigger` and the pending-compaction-bytes limits.
/// While false, talus-bench says so when one of those flags is given.
pub const L0_AND_PENDING_BYTES_WRITE_STALLS: bool = true;

/// The flags that configure those write stalls.
pub const WRITE_STALL_FLAGS: &[&str] = &[
    "level0_slowdown_writes_trigger",
    "level0_stop_writes_trigger",
    "soft_pending_compaction_bytes_limit",
    "hard_pending_compaction_bytes_limit",
    "delayed_write_rate",
];

/// What to print when a feature is missing.
pub const NOT_AVAILABLE: &str = "not available in this build yet";

/// Renders collected statistics (tickers and histograms) as text.
pub type StatisticsDump = Box<dyn Fn(&Db) -> String + Send + Sync>;

/// Integration point for `--statistics`: called once, before the database
/// is opened, to install a statistics collector in `opts`. Returns the
/// function that renders the collected tickers and histograms (db_bench's
/// `STATISTICS:` block) at the end of the run, or `None` when this build
/// has no statistics.
pub fn install_statistics(opts: &mut Options) -> Option<StatisticsDump> {
    let stats = talus::statistics::Statistics::new();
    opts.statistics = Some(stats.clone());
    Some(Box::new(move |_db: &Db| stats.to_string()))
}

/// Per-thread access to the engine's perf context.
#[derive(Clone, Copy, Debug)]
pub struct PerfContextHooks {
    /// Called by each benchmark thread before its first operation: sets the
    /// thread's perf level and zeroes its perf context.
    pub begin_thread: fn(level: i32),
    /// Called by each benchmark thread after its last operation: the
    /// thread's counters as `(name, value)`, summed by name over threads.
    pub end_thread: fn() -> Vec<(&'static str, u64)>,
}

/// Integration point for `--perf_level`: the hooks that read the perf
/// context of benchmark threads, or `None` when this build has none.
pub fn perf_context() -> Option<PerfContextHooks> {
    fn begin_thread(level: i32) {
        use talus::perf_context::{self, PerfLevel};
        let level = u8::try_from(level)
            .ok()
            .and_then(PerfLevel::from_u8)
            .filter(|l| !matches!(l, PerfLevel::Uninitialized | PerfLevel::OutOfBounds))
            .unwrap_or(PerfLevel::Disable);
        // A level the engine rejects leaves the thread recording nothing.
        let _ = perf_context::set_perf_level(level);
        perf_context::reset();
    }
    fn end_thread() -> Vec<(&'static str, u64)> {
        let ctx = talus::perf_context::get();
        talus::perf_context::F::ALL
            .iter()
            .map(|f| (f.name(), ctx.get(*f)))
            .collect()
    }
    Some(PerfContextHooks {
        begin_thread,
        end_thread,
    })
}

/// Integration point for `--rate_limiter_bytes_per_sec` and the other
/// `--rate_limiter_*` flags: installs a rate limiter in `opts` as db_bench
/// makes one (fairness 10; `kReadsOnly` with `--rate_limit_bg_reads`, which
/// charges compaction reads, else `kWritesOnly`, which charges flush and
/// compaction writes). Returns whether it could (false when this build has
/// no rate limiter); a value the limiter refuses is an error naming it.
pub fn install_rate_limiter(
    opts: &mut Options,
    bytes_per_sec: u64,
    refill_period_us: u64,
    single_burst_bytes: u64,
    auto_tuned: bool,
    bg_reads: bool,
) -> Result<bool, String> {
    use talus::rate_limiter::{DEFAULT_FAIRNESS, RateLimiter, RateLimiterMode};
    let mode = if bg_reads {
        RateLimiterMode::ReadsOnly
    } else {
        RateLimiterMode::WritesOnly
    };
    let rl = RateLimiter::new(
        bytes_per_sec,
        refill_period_us,
        DEFAULT_FAIRNESS,
        mode,
        auto_tuned,
        single_burst_bytes,
    )
    .map_err(|e| format!("--rate_limiter_*: {e}"))?;
    opts.rate_limiter = Some(rl);
    Ok(true)
}

/// Integration point for write amplification: the bytes written to table
/// files by flushes and compactions since `db` was opened (RocksDB's
/// `FLUSH_WRITE_BYTES + COMPACT_WRITE_BYTES`), or `None` when this build
/// cannot tell. talus-bench samples it before and after a fill benchmark
/// and divides the difference by the user bytes (keys + values) written.
pub fn table_bytes_written(db: &Db) -> Option<u64> {
    Some(db.table_bytes_written())
}
