//! Fixed-bucket histograms: the lock-free per-shard cells values are added
//! to, and the merged [`HistogramSnapshot`] percentiles are computed from.
//!
//! # Buckets
//!
//! Bucket `i` holds the values `v` with `limit[i-1] < v <= limit[i]` (bucket
//! 0 holds `0..=1`; values above the last limit go to the last bucket). The
//! limits are 1, 2, and then each following limit is the previous
//! *unrounded* limit × 1.5 (2 × 1.5ᵏ), truncated to its two most significant
//! decimal digits (172.9 → 170, 1313.7 → 1300), for as long as that stays
//! within `u64`: [`BUCKET_COUNT`] = 109 buckets, the last limit about 1.6e19.
//! Relative bucket width is therefore at most about 50%.
//!
//! # Percentiles
//!
//! For `p` in 0..=100 the target rank is `count × p / 100`. Walking the
//! buckets in order, the first bucket whose cumulative count reaches the
//! target holds the percentile; within it the value is interpolated linearly
//! between the bucket's lower and upper limit by how far into the bucket's
//! count the target lies, then clamped to the observed `[min, max]`. So a
//! percentile is exact to within the width of the bucket it falls in.

use std::sync::atomic::{AtomicU64, Ordering};

/// Number of buckets; see the module docs.
pub const BUCKET_COUNT: usize = 109;

/// Upper limit (inclusive) of every bucket.
pub static BUCKET_LIMITS: [u64; BUCKET_COUNT] = bucket_limits();

const fn two_significant_digits(v: u64) -> u64 {
    let mut v = v;
    let mut scale = 1;
    while v >= 100 {
        v /= 10;
        scale *= 10;
    }
    v * scale
}

const fn bucket_limits() -> [u64; BUCKET_COUNT] {
    let mut limits = [0u64; BUCKET_COUNT];
    limits[0] = 1;
    limits[1] = 2;
    let mut exact = 2.0f64;
    let mut i = 2;
    while i < BUCKET_COUNT {
        exact *= 1.5;
        limits[i] = two_significant_digits(exact as u64);
        i += 1;
    }
    limits
}

/// The bucket `value` falls in.
#[inline]
pub fn bucket_index(value: u64) -> usize {
    // First limit >= value; values above the last limit go to the last bucket.
    BUCKET_LIMITS
        .partition_point(|&limit| limit < value)
        .min(BUCKET_COUNT - 1)
}

/// One shard of one histogram. Written with relaxed atomics by the threads
/// mapped to the shard (normally one), read by snapshotting. The count is the
/// sum of the buckets, so it is not stored separately.
#[derive(Debug)]
pub(super) struct Cells {
    buckets: [AtomicU64; BUCKET_COUNT],
    sum: AtomicU64,
    /// `u64::MAX` while empty.
    min: AtomicU64,
    max: AtomicU64,
    /// Sum of squares, as `f64` bits (a `u64` would overflow on microsecond
    /// latencies long before the count does).
    sum_squares: AtomicU64,
}

impl Cells {
    pub(super) fn new() -> Self {
        Self {
            buckets: std::array::from_fn(|_| AtomicU64::new(0)),
            sum: AtomicU64::new(0),
            min: AtomicU64::new(u64::MAX),
            max: AtomicU64::new(0),
            sum_squares: AtomicU64::new(0f64.to_bits()),
        }
    }

    #[inline]
    pub(super) fn add(&self, value: u64) {
        self.buckets[bucket_index(value)].fetch_add(1, Ordering::Relaxed);
        self.sum.fetch_add(value, Ordering::Relaxed);
        // Read first: after warm-up min and max rarely change, and a plain
        // load does not take the cache line exclusive.
        if value < self.min.load(Ordering::Relaxed) {
            self.min.fetch_min(value, Ordering::Relaxed);
        }
        if value > self.max.load(Ordering::Relaxed) {
            self.max.fetch_max(value, Ordering::Relaxed);
        }
        let square = (value as f64) * (value as f64);
        // Uncontended in practice (one thread per shard): one iteration.
        let _ = self
            .sum_squares
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |bits| {
                Some((f64::from_bits(bits) + square).to_bits())
            });
    }

    pub(super) fn reset(&self) {
        for b in &self.buckets {
            b.store(0, Ordering::Relaxed);
        }
        self.sum.store(0, Ordering::Relaxed);
        self.min.store(u64::MAX, Ordering::Relaxed);
        self.max.store(0, Ordering::Relaxed);
        self.sum_squares.store(0f64.to_bits(), Ordering::Relaxed);
    }

    pub(super) fn merge_into(&self, snap: &mut HistogramSnapshot) {
        let mut count = 0;
        for (total, b) in snap.buckets.iter_mut().zip(&self.buckets) {
            let n = b.load(Ordering::Relaxed);
            *total += n;
            count += n;
        }
        if count == 0 {
            return;
        }
        snap.count += count;
        snap.sum = snap.sum.wrapping_add(self.sum.load(Ordering::Relaxed));
        snap.sum_squares += f64::from_bits(self.sum_squares.load(Ordering::Relaxed));
        let (min, max) = (
            self.min.load(Ordering::Relaxed),
            self.max.load(Ordering::Relaxed),
        );
        // A writer racing with this read may have bumped a bucket but not yet
        // min/max; the sentinel must not leak into the snapshot.
        if min != u64::MAX {
            snap.min = Some(snap.min.map_or(min, |m| m.min(min)));
        }
        snap.max = snap.max.max(max);
    }
}

/// A histogram's merged contents at one moment (each shard is read at a
/// slightly different moment while writers run).
#[derive(Clone, Debug, PartialEq)]
pub struct HistogramSnapshot {
    /// Values recorded.
    pub count: u64,
    /// Sum of the values (wrapping).
    pub sum: u64,
    /// Smallest value; `None` when empty.
    pub min: Option<u64>,
    /// Largest value; 0 when empty.
    pub max: u64,
    /// Sum of the squared values.
    pub sum_squares: f64,
    /// Values per bucket (see [`BUCKET_LIMITS`]).
    pub buckets: [u64; BUCKET_COUNT],
}

impl Default for HistogramSnapshot {
    fn default() -> Self {
        Self {
            count: 0,
            sum: 0,
            min: None,
            max: 0,
            sum_squares: 0.0,
            buckets: [0; BUCKET_COUNT],
        }
    }
}

impl HistogramSnapshot {
    /// A snapshot of exactly `values` (for tests and offline use).
    pub fn from_values(values: impl IntoIterator<Item = u64>) -> Self {
        let cells = Cells::new();
        for v in values {
            cells.add(v);
        }
        let mut snap = Self::default();
        cells.merge_into(&mut snap);
        snap
    }

    /// The `p`-th percentile (`p` in 0..=100), by the rule in the module
    /// docs; 0 when empty.
    pub fn percentile(&self, p: f64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        // `min <= max` unless a racing writer was half-seen; never panic on that.
        let max = self.max as f64;
        let min = (self.min.unwrap_or(0) as f64).min(max);
        let target = self.count as f64 * p.clamp(0.0, 100.0) / 100.0;
        let mut before = 0u64;
        for (i, &n) in self.buckets.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let through = before + n;
            if through as f64 >= target {
                let low = if i == 0 { 0 } else { BUCKET_LIMITS[i - 1] } as f64;
                let high = BUCKET_LIMITS[i] as f64;
                let into = ((target - before as f64) / n as f64).clamp(0.0, 1.0);
                return (low + (high - low) * into).clamp(min, max);
            }
            before = through;
        }
        max
    }

    /// Mean value; 0 when empty.
    pub fn average(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }

    /// Population standard deviation; 0 when empty.
    pub fn std_dev(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let n = self.count as f64;
        let mean = self.sum as f64 / n;
        (self.sum_squares / n - mean * mean).max(0.0).sqrt()
    }

    /// The summary RocksJava's `HistogramData` carries, plus P99.9.
    pub fn data(&self) -> HistogramData {
        HistogramData {
            median: self.percentile(50.0),
            p95: self.percentile(95.0),
            p99: self.percentile(99.0),
            p999: self.percentile(99.9),
            max: self.max as f64,
            min: self.min.unwrap_or(0) as f64,
            average: self.average(),
            std_dev: self.std_dev(),
            count: self.count,
            sum: self.sum,
        }
    }
}

/// Summary of one histogram (all 0 when it is empty).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HistogramData {
    /// 50th percentile.
    pub median: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Largest value.
    pub max: f64,
    /// Smallest value.
    pub min: f64,
    /// Mean.
    pub average: f64,
    /// Population standard deviation.
    pub std_dev: f64,
    /// Values recorded.
    pub count: u64,
    /// Sum of the values.
    pub sum: u64,
}
