//! db_bench's latency histogram: the same bucket limits, percentile
//! interpolation and text layout as RocksDB's `HistogramImpl`, so that
//! `--histogram` output of the two tools can be read side by side.
//!
//! Buckets: the limits are 1, 2, then each previous *unrounded* limit times
//! 1.5, truncated and cut to its two most significant digits (3, 4, 6, 10,
//! 15, 22, 34, 51, 76, 110, 170, ...), up to `u64::MAX`. A value `v` goes
//! to the first bucket whose limit is ≥ `v`; bucket `b` covers
//! `(limit[b-1], limit[b]]` (bucket 0 covers `[0, 1]`).
//!
//! Thread-safety: a [`Histogram`] is owned by one benchmark thread and
//! merged into the report after the threads have joined; no sharing.

use std::fmt::Write as _;
use std::sync::OnceLock;

/// The bucket limits, computed once.
fn limits() -> &'static [u64] {
    static LIMITS: OnceLock<Vec<u64>> = OnceLock::new();
    LIMITS.get_or_init(|| {
        let mut v: Vec<u64> = vec![1, 2];
        let mut bucket = 2.0_f64;
        loop {
            bucket *= 1.5;
            if bucket > u64::MAX as f64 {
                break;
            }
            let mut limit = bucket as u64;
            let mut pow_of_ten = 1u64;
            while limit / 10 > 10 {
                limit /= 10;
                pow_of_ten *= 10;
            }
            v.push(limit * pow_of_ten);
        }
        v
    })
}

/// Index of the bucket holding `value`.
fn bucket_index(value: u64) -> usize {
    let l = limits();
    if value >= l[l.len() - 1] {
        return l.len() - 1;
    }
    l.partition_point(|&limit| limit < value)
}

/// A latency histogram in microseconds (db_bench's `HistogramImpl`).
#[derive(Clone, Debug)]
pub struct Histogram {
    min: u64,
    max: u64,
    num: u64,
    sum: u64,
    sum_squares: f64,
    buckets: Vec<u64>,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            min: u64::MAX,
            max: 0,
            num: 0,
            sum: 0,
            sum_squares: 0.0,
            buckets: vec![0; limits().len()],
        }
    }
}

impl Histogram {
    /// Records one value.
    pub fn add(&mut self, value: u64) {
        self.buckets[bucket_index(value)] += 1;
        self.min = self.min.min(value);
        self.max = self.max.max(value);
        self.num += 1;
        self.sum += value;
        let v = value as f64;
        self.sum_squares += v * v;
    }

    /// Adds every value recorded in `other`.
    pub fn merge(&mut self, other: &Histogram) {
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.num += other.num;
        self.sum += other.sum;
        self.sum_squares += other.sum_squares;
        for (a, b) in self.buckets.iter_mut().zip(&other.buckets) {
            *a += b;
        }
    }

    /// Number of values recorded.
    #[cfg(test)]
    pub fn count(&self) -> u64 {
        self.num
    }

    /// Smallest value (0 when empty).
    pub fn min(&self) -> u64 {
        if self.num == 0 { 0 } else { self.min }
    }

    /// Mean value (0 when empty).
    pub fn average(&self) -> f64 {
        if self.num == 0 {
            0.0
        } else {
            self.sum as f64 / self.num as f64
        }
    }

    /// Population standard deviation.
    pub fn std_dev(&self) -> f64 {
        if self.num == 0 {
            return 0.0;
        }
        let n = self.num as f64;
        let s = self.sum as f64;
        let variance = (self.sum_squares * n - s * s) / (n * n);
        variance.max(0.0).sqrt()
    }

    /// The `p`-th percentile (0..=100), interpolated linearly within its
    /// bucket and clamped to `[min, max]`, as RocksDB computes it.
    pub fn percentile(&self, p: f64) -> f64 {
        let threshold = self.num as f64 * (p / 100.0);
        let l = limits();
        let mut cumulative = 0u64;
        for (b, &count) in self.buckets.iter().enumerate() {
            cumulative += count;
            if cumulative as f64 >= threshold {
                let left = if b == 0 { 0 } else { l[b - 1] } as f64;
                let right = l[b] as f64;
                let left_sum = cumulative - count;
                let pos = if count == 0 {
                    0.0
                } else {
                    (threshold - left_sum as f64) / count as f64
                };
                let r = left + (right - left) * pos;
                return r.clamp(self.min() as f64, self.max as f64);
            }
        }
        self.max as f64
    }

    /// The median (the 50th percentile).
    pub fn median(&self) -> f64 {
        self.percentile(50.0)
    }

    /// db_bench's text form: count, average, standard deviation, min,
    /// median, max, the percentiles, then one line per non-empty bucket
    /// with its share, the cumulative share and one `#` per 5 %.
    pub fn to_text(&self) -> String {
        let mut r = String::new();
        let _ = writeln!(
            r,
            "Count: {} Average: {:.4}  StdDev: {:.2}",
            self.num,
            self.average(),
            self.std_dev()
        );
        let _ = writeln!(
            r,
            "Min: {}  Median: {:.4}  Max: {}",
            self.min(),
            self.median(),
            self.max
        );
        let _ = writeln!(
            r,
            "Percentiles: P50: {:.2} P75: {:.2} P99: {:.2} P99.9: {:.2} P99.99: {:.2}",
            self.percentile(50.0),
            self.percentile(75.0),
            self.percentile(99.0),
            self.percentile(99.9),
            self.percentile(99.99)
        );
        r.push_str("------------------------------------------------------\n");
        if self.num == 0 {
            return r;
        }
        let mult = 100.0 / self.num as f64;
        let l = limits();
        let mut cumulative = 0u64;
        for (b, &count) in self.buckets.iter().enumerate() {
            if count == 0 {
                continue;
            }
            cumulative += count;
            let _ = write!(
                r,
                "{} {:>7}, {:>7} ] {:>8} {:>7.3}% {:>7.3}% ",
                if b == 0 { '[' } else { '(' },
                if b == 0 { 0 } else { l[b - 1] },
                l[b],
                count,
                mult * count as f64,
                mult * cumulative as f64
            );
            let marks = (mult * count as f64 / 5.0 + 0.5) as usize;
            r.push_str(&"#".repeat(marks));
            r.push('\n');
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_rocksdbs() {
        let l = limits();
        assert_eq!(
            &l[..16],
            &[
                1, 2, 3, 4, 6, 10, 15, 22, 34, 51, 76, 110, 170, 250, 380, 580
            ]
        );
        // As db_bench 7.8 prints them.
        assert_eq!(&l[16..22], &[870, 1300, 1900, 2900, 4400, 6600]);
        assert_eq!(l.len(), 109);
        assert!(l.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn values_land_in_the_first_bucket_at_or_above_them() {
        assert_eq!(bucket_index(0), 0);
        assert_eq!(bucket_index(1), 0);
        assert_eq!(bucket_index(2), 1);
        assert_eq!(bucket_index(5), 4);
        assert_eq!(bucket_index(6), 4);
        assert_eq!(bucket_index(7), 5);
        assert_eq!(bucket_index(u64::MAX), limits().len() - 1);
    }

    #[test]
    fn percentiles_interpolate_within_a_bucket_and_clamp() {
        let mut h = Histogram::default();
        for _ in 0..100 {
            h.add(3);
        }
        // All values in (2, 3]: clamped to [min, max] = [3, 3].
        assert!((h.percentile(50.0) - 3.0).abs() < 1e-9);
        let mut h = Histogram::default();
        for v in 1..=100 {
            h.add(v);
        }
        assert_eq!(h.count(), 100);
        assert!((h.average() - 50.5).abs() < 1e-9);
        let p50 = h.percentile(50.0);
        assert!((34.0..=51.0).contains(&p50), "{p50}");
        assert!((h.percentile(100.0) - 100.0).abs() < 1e-9);
    }

    #[test]
    fn merge_adds_counts_and_keeps_extremes() {
        let mut a = Histogram::default();
        let mut b = Histogram::default();
        a.add(5);
        b.add(500);
        b.add(1);
        a.merge(&b);
        assert_eq!((a.count(), a.min(), a.max), (3, 1, 500));
    }

    #[test]
    fn text_has_db_benchs_layout() {
        let mut h = Histogram::default();
        h.add(0);
        h.add(3);
        let t = h.to_text();
        assert!(
            t.starts_with("Count: 2 Average: 1.5000  StdDev: 1.50\n"),
            "{t}"
        );
        assert!(t.contains("Percentiles: P50: "), "{t}");
        assert!(
            t.contains("[       0,       1 ]        1  50.000%  50.000% ##########\n"),
            "{t}"
        );
        assert!(
            t.contains("(       2,       3 ]        1  50.000% 100.000% ##########\n"),
            "{t}"
        );
    }
}
