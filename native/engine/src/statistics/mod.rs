//! Database statistics: counters ("tickers") and latency/size histograms, with
//! RocksDB's names, readable as RocksDB's `ToString` text, as RocksJava's
//! `HistogramData`, and as Prometheus text exposition.
//!
//! # Recording is per-thread, reading sums
//!
//! No contended atomics on hot paths: a [`Statistics`] holds
//! [`STRIPES`] cache-line-aligned shards, each with every ticker and every
//! histogram. A thread always records into the shard of its
//! [`stripe_index`] (fixed per thread), with relaxed atomic adds that are
//! uncontended unless more than `STRIPES` threads record at once (then two
//! threads may share a shard — still exact, just slower). Readers sum the
//! shards. A read is exact when writers are quiet; while they run, each shard
//! is read at a slightly different moment.
//!
//! # Stats levels (RocksJava's `StatsLevel`)
//!
//! | level | byte | tickers | histograms | (de)compression ns histograms |
//! |-------|------|---------|------------|-------------------------------|
//! | `ExceptDetailedTimers` (default) | 0 | yes | yes | no |
//! | `ExceptTimeForMutex` | 1 | yes | yes | yes |
//! | `All` | 2 | yes | yes | yes, and DB mutex wait time once Talus records it (it records none today) |
//!
//! RocksJava exposes only these three of RocksDB's six levels, all of which
//! record every ticker and every non-detailed histogram. Code that would read
//! a clock only to feed a histogram should first ask
//! [`Statistics::is_enabled`] (or use [`Statistics::timer`]), so a gated
//! histogram costs no clock read.
//!
//! # Chaining and ignored histograms (RocksJava's `Statistics` constructors)
//!
//! [`Statistics::with_options`] takes a set of histograms to ignore (never
//! recorded here) and optionally another `Statistics` that every recording is
//! forwarded to as well (the other applies its own level and ignore set).

mod histogram;
mod names;

#[cfg(test)]
mod tests;

use std::fmt::{self, Write as _};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use crate::perf_context::clock;
use crate::striped::{STRIPES, stripe_index};

pub use histogram::{BUCKET_COUNT, BUCKET_LIMITS, HistogramData, HistogramSnapshot, bucket_index};
pub use names::{Histogram, Ticker, Unit};

/// How much is recorded; see the module docs. Discriminants are RocksJava's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[repr(u8)]
pub enum StatsLevel {
    /// Everything except detailed timers (block compression/decompression
    /// times). The default.
    #[default]
    ExceptDetailedTimers = 0,
    /// Everything except the time spent waiting for the DB mutex.
    ExceptTimeForMutex = 1,
    /// Everything.
    All = 2,
}

impl StatsLevel {
    /// The level with RocksJava byte `b`, if any.
    pub fn from_byte(b: u8) -> Option<Self> {
        match b {
            0 => Some(Self::ExceptDetailedTimers),
            1 => Some(Self::ExceptTimeForMutex),
            2 => Some(Self::All),
            _ => None,
        }
    }
}

impl Histogram {
    /// The lowest [`StatsLevel`] at which this histogram is recorded.
    pub const fn min_level(self) -> StatsLevel {
        match self {
            Histogram::CompressionTimesNanos | Histogram::DecompressionTimesNanos => {
                StatsLevel::ExceptTimeForMutex
            }
            _ => StatsLevel::ExceptDetailedTimers,
        }
    }
}

/// One stripe: every ticker and histogram, aligned so that no two stripes
/// share a cache line (128: adjacent-line prefetch pairs 64-byte lines).
#[repr(align(128))]
#[derive(Debug)]
struct Shard {
    tickers: [AtomicU64; Ticker::COUNT],
    histograms: [histogram::Cells; Histogram::COUNT],
}

impl Shard {
    fn new() -> Self {
        Self {
            tickers: std::array::from_fn(|_| AtomicU64::new(0)),
            histograms: std::array::from_fn(|_| histogram::Cells::new()),
        }
    }
}

/// Tickers and histograms of one or more databases. See the module docs.
///
/// Thread-safety: `Send + Sync`; every method takes `&self` and may run
/// concurrently with any other. Shared as an `Arc` (a database holds one).
#[derive(Debug)]
pub struct Statistics {
    /// Indexed by [`stripe_index`], which is always below [`STRIPES`].
    shards: Box<[Shard; STRIPES]>,
    level: AtomicU8,
    /// Bit `h` set: histogram `h` is never recorded here.
    ignored: u64,
    other: Option<Arc<Statistics>>,
}

const _: () = assert!(Histogram::COUNT <= 64, "`ignored` is a u64 bit set");

impl Statistics {
    /// Empty statistics at the default level, recording everything.
    pub fn new() -> Arc<Statistics> {
        Self::with_options(&[], None)
    }

    /// Statistics that never record the histograms in `ignored`, and forward
    /// every recording to `other` as well, when given.
    pub fn with_options(ignored: &[Histogram], other: Option<Arc<Statistics>>) -> Arc<Statistics> {
        Arc::new(Statistics {
            shards: (0..STRIPES)
                .map(|_| Shard::new())
                .collect::<Vec<_>>()
                .try_into()
                .expect("exactly STRIPES shards"),
            level: AtomicU8::new(StatsLevel::default() as u8),
            ignored: ignored.iter().fold(0, |m, h| m | (1u64 << h.index())),
            other,
        })
    }

    #[inline]
    fn shard(&self) -> &Shard {
        &self.shards[stripe_index()]
    }

    /// Adds `count` to `ticker`.
    #[inline]
    pub fn record_tick(&self, ticker: Ticker, count: u64) {
        self.shard().tickers[ticker.index()].fetch_add(count, Ordering::Relaxed);
        if let Some(other) = &self.other {
            other.record_tick(ticker, count);
        }
    }

    /// Adds one value to `histogram` (in the histogram's [`Unit`]), unless the
    /// stats level or the ignore set excludes it.
    #[inline]
    pub fn record_in_histogram(&self, histogram: Histogram, value: u64) {
        if self.enabled_here(histogram) {
            self.shard().histograms[histogram.index()].add(value);
        }
        if let Some(other) = &self.other {
            other.record_in_histogram(histogram, value);
        }
    }

    #[inline]
    fn enabled_here(&self, histogram: Histogram) -> bool {
        self.ignored & (1 << histogram.index()) == 0 && self.stats_level() >= histogram.min_level()
    }

    /// True when a value recorded into `histogram` would be kept here or by a
    /// chained statistics: ask before reading a clock for it.
    #[inline]
    pub fn is_enabled(&self, histogram: Histogram) -> bool {
        self.enabled_here(histogram) || self.other.as_ref().is_some_and(|o| o.is_enabled(histogram))
    }

    /// Starts timing into `histogram` (µs or ns, as its [`Unit`] says); the
    /// time is recorded when the guard drops. `None` (and no clock read) when
    /// the histogram is disabled.
    pub fn timer(&self, histogram: Histogram) -> Option<HistogramTimer<'_>> {
        self.is_enabled(histogram).then(|| HistogramTimer {
            stats: self,
            histogram,
            start: clock::now(),
        })
    }

    /// The current value of `ticker`.
    pub fn ticker_count(&self, ticker: Ticker) -> u64 {
        self.shards.iter().fold(0u64, |acc, s| {
            acc.wrapping_add(s.tickers[ticker.index()].load(Ordering::Relaxed))
        })
    }

    /// Returns the value of `ticker` and sets it to 0. Exact even under
    /// concurrent recording: every add lands either in the returned value or
    /// in the restarted count.
    pub fn get_and_reset_ticker_count(&self, ticker: Ticker) -> u64 {
        self.shards.iter().fold(0u64, |acc, s| {
            acc.wrapping_add(s.tickers[ticker.index()].swap(0, Ordering::Relaxed))
        })
    }

    /// The merged contents of `histogram`.
    pub fn histogram_snapshot(&self, histogram: Histogram) -> HistogramSnapshot {
        let mut snap = HistogramSnapshot::default();
        for s in self.shards.iter() {
            s.histograms[histogram.index()].merge_into(&mut snap);
        }
        snap
    }

    /// The summary of `histogram`.
    pub fn histogram_data(&self, histogram: Histogram) -> HistogramData {
        self.histogram_snapshot(histogram).data()
    }

    /// A multi-line human-readable dump of `histogram`: count, mean, standard
    /// deviation, min, median, max, P50/P75/P99/P99.9/P99.99, then one line
    /// per non-empty bucket `(low, high] count percent cumulative-percent`
    /// (`[0, 1]` for the first bucket).
    pub fn histogram_string(&self, histogram: Histogram) -> String {
        let s = self.histogram_snapshot(histogram);
        let mut out = String::with_capacity(512);
        let _ = writeln!(
            out,
            "Count: {} Average: {:.4} StdDev: {:.2}",
            s.count,
            s.average(),
            s.std_dev()
        );
        let _ = writeln!(
            out,
            "Min: {} Median: {:.4} Max: {}",
            s.min.unwrap_or(0),
            s.percentile(50.0),
            s.max
        );
        let _ = writeln!(
            out,
            "Percentiles: P50: {:.2} P75: {:.2} P99: {:.2} P99.9: {:.2} P99.99: {:.2}",
            s.percentile(50.0),
            s.percentile(75.0),
            s.percentile(99.0),
            s.percentile(99.9),
            s.percentile(99.99)
        );
        let mut cumulative = 0u64;
        for (i, &n) in s.buckets.iter().enumerate().filter(|(_, n)| **n > 0) {
            cumulative += n;
            // Bucket 0 holds 0 too.
            let (open, low) = if i == 0 {
                ('[', 0)
            } else {
                ('(', BUCKET_LIMITS[i - 1])
            };
            let _ = writeln!(
                out,
                "{open}{low}, {}] {n} {:.3}% {:.3}%",
                BUCKET_LIMITS[i],
                100.0 * n as f64 / s.count as f64,
                100.0 * cumulative as f64 / s.count as f64
            );
        }
        out
    }

    /// Zeroes every ticker and histogram. Recordings that race with the reset
    /// may survive it in part (a histogram value's bucket without its sum).
    pub fn reset(&self) {
        for s in self.shards.iter() {
            for t in &s.tickers {
                t.store(0, Ordering::Relaxed);
            }
            for h in &s.histograms {
                h.reset();
            }
        }
    }

    /// The current stats level.
    pub fn stats_level(&self) -> StatsLevel {
        StatsLevel::from_byte(self.level.load(Ordering::Relaxed)).unwrap_or_default()
    }

    /// Changes the stats level; takes effect for recordings that start after it.
    pub fn set_stats_level(&self, level: StatsLevel) {
        self.level.store(level as u8, Ordering::Relaxed);
    }

    /// Prometheus text exposition (format 0.0.4) of everything.
    ///
    /// Metric names are `<prefix>_<name>`, where `<name>` is the RocksDB
    /// string name with `.` replaced by `_` (`rocksdb.block.cache.miss` →
    /// `rocksdb_block_cache_miss`); with an empty prefix, just `<name>`. Any
    /// character of `prefix` outside `[a-zA-Z0-9_:]` becomes `_`, and a
    /// prefix starting with a digit gets a leading `_`, so names are always
    /// valid. Each ticker is a `counter`; each histogram a `summary` with
    /// `quantile` 0.5, 0.95, 0.99 and 0.999 samples (`NaN` while empty, as
    /// Prometheus clients report empty summaries) plus `_sum` and `_count`.
    /// Every family has `# HELP` (the RocksDB name and unit) and `# TYPE`
    /// lines; one sample per line; ends with a newline.
    pub fn to_prometheus(&self, prefix: &str) -> String {
        let prefix = sanitize_prefix(prefix);
        let mut out = String::with_capacity(160 * (Ticker::COUNT + 4 * Histogram::COUNT));
        for &t in Ticker::ALL {
            let m = metric_name(&prefix, t.name());
            let _ = writeln!(out, "# HELP {m} {}", t.name());
            let _ = writeln!(out, "# TYPE {m} counter");
            let _ = writeln!(out, "{m} {}", self.ticker_count(t));
        }
        for &h in Histogram::ALL {
            let m = metric_name(&prefix, h.name());
            let s = self.histogram_snapshot(h);
            let unit = match h.unit() {
                Unit::Micros => "microseconds",
                Unit::Nanos => "nanoseconds",
                Unit::Bytes => "bytes",
                Unit::Count => "count",
            };
            let _ = writeln!(out, "# HELP {m} {} ({unit})", h.name());
            let _ = writeln!(out, "# TYPE {m} summary");
            for (q, label) in [
                (50.0, "0.5"),
                (95.0, "0.95"),
                (99.0, "0.99"),
                (99.9, "0.999"),
            ] {
                let v = if s.count == 0 {
                    f64::NAN
                } else {
                    s.percentile(q)
                };
                let _ = writeln!(out, "{m}{{quantile=\"{label}\"}} {v}");
            }
            let _ = writeln!(out, "{m}_sum {}", s.sum);
            let _ = writeln!(out, "{m}_count {}", s.count);
        }
        out
    }
}

/// RocksDB's `Statistics::ToString` shape: one line per ticker
/// `<name> COUNT : <n>`, then one per histogram
/// `<name> P50 : <f> P95 : <f> P99 : <f> P100 : <f> COUNT : <n> SUM : <n>`.
impl fmt::Display for Statistics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &t in Ticker::ALL {
            writeln!(f, "{} COUNT : {}", t.name(), self.ticker_count(t))?;
        }
        for &h in Histogram::ALL {
            let s = self.histogram_snapshot(h);
            writeln!(
                f,
                "{} P50 : {:.6} P95 : {:.6} P99 : {:.6} P100 : {:.6} COUNT : {} SUM : {}",
                h.name(),
                s.percentile(50.0),
                s.percentile(95.0),
                s.percentile(99.0),
                s.percentile(100.0),
                s.count,
                s.sum
            )?;
        }
        Ok(())
    }
}

fn sanitize_prefix(prefix: &str) -> String {
    let mut out: String = prefix
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == ':' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

fn metric_name(prefix: &str, name: &str) -> String {
    let base = name.replace('.', "_");
    if prefix.is_empty() {
        base
    } else {
        format!("{prefix}_{base}")
    }
}

/// Records the time since it was made into a histogram when dropped; from
/// [`Statistics::timer`].
#[derive(Debug)]
pub struct HistogramTimer<'a> {
    stats: &'a Statistics,
    histogram: Histogram,
    /// A raw reading of the perf context's clock (the time-stamp counter
    /// where it is invariant), not `Instant`: with statistics on, every
    /// write and get reads the clock twice for its histogram, and
    /// `clock_gettime` showed in the profiles of a bulk import
    /// (docs/results/design-measurements.md).
    start: u64,
}

impl Drop for HistogramTimer<'_> {
    fn drop(&mut self) {
        let nanos = clock::nanos_since(self.start);
        let value = match self.histogram.unit() {
            Unit::Nanos => nanos,
            _ => nanos / 1000,
        };
        self.stats.record_in_histogram(self.histogram, value);
    }
}
