//! What talus-bench prints besides the per-benchmark lines: db_bench's
//! header, the clock in db_bench's format, and the CSV reporter of
//! `--report_interval_seconds`.

use std::fmt::Write as _;
use std::fs::File;
use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::config::Config;
use crate::engine_features::{L0_AND_PENDING_BYTES_WRITE_STALLS, NOT_AVAILABLE};
use crate::stats::OpCounters;

/// `Mon Nov 30 00:47:28 2026` (UTC) for a Unix time in seconds.
pub fn format_date_time(unix_secs: u64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = unix_secs / 86_400;
    let secs = unix_secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{} {} {:2} {:02}:{:02}:{:02} {}",
        DAYS[(days % 7) as usize],
        MONTHS[(month - 1) as usize],
        day,
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        year
    )
}

/// The current time in db_bench's format.
pub fn date_time_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format_date_time(secs)
}

/// `(count, model, cache)` from /proc/cpuinfo, when readable.
fn cpu_info() -> Option<(usize, String, String)> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let mut count = 0;
    let mut model = String::new();
    let mut cache = String::new();
    for line in text.lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        match k.trim() {
            "model name" => {
                count += 1;
                model = v.trim().to_string();
            }
            "cache size" => cache = v.trim().to_string(),
            _ => {}
        }
    }
    (count > 0).then_some((count, model, cache))
}

/// db_bench's header: environment, key and value sizes, estimated sizes,
/// then the options the database is opened with and what this build lacks.
pub fn header(c: &Config) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Talus:      version {}", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(s, "Date:       {} UTC", date_time_now());
    if let Some((n, model, cache)) = cpu_info() {
        let _ = writeln!(s, "CPU:        {n} * {model}");
        let _ = writeln!(s, "CPUCache:   {cache}");
    }
    if c.seed_from_clock {
        let _ = writeln!(s, "Set seed to {} because --seed was 0", c.seed);
    }
    let kv = (c.key_size + c.value_size) as f64;
    let compressed_value = (c.value_size as f64 * c.compression_ratio + 0.5) as u64;
    let _ = writeln!(
        s,
        "Keys:       {} bytes each (+ 0 bytes user-defined timestamp)",
        c.key_size
    );
    let _ = writeln!(
        s,
        "Values:     {} bytes each ({} bytes after compression)",
        c.value_size, compressed_value
    );
    let _ = writeln!(s, "Entries:    {}", c.num);
    let _ = writeln!(s, "Prefix:    0 bytes");
    let _ = writeln!(s, "Keys per prefix:    0");
    let _ = writeln!(
        s,
        "RawSize:    {:.1} MB (estimated)",
        kv * c.num as f64 / 1_048_576.0
    );
    let _ = writeln!(
        s,
        "FileSize:   {:.1} MB (estimated)",
        (c.key_size as f64 + c.value_size as f64 * c.compression_ratio) * c.num as f64
            / 1_048_576.0
    );
    let _ = writeln!(
        s,
        "Write rate: {} bytes/second",
        c.benchmark_write_rate_limit
    );
    let _ = writeln!(s, "Read rate: {} ops/second", c.benchmark_read_rate_limit);
    let _ = writeln!(
        s,
        "Compression: {}",
        // db_bench's names (`CompressionTypeToString`).
        match c.compression {
            talus::options::CompressionType::None => "NoCompression",
            talus::options::CompressionType::Snappy => "Snappy",
            talus::options::CompressionType::Zlib => "Zlib",
            talus::options::CompressionType::Bzip2 => "BZip2",
            talus::options::CompressionType::Lz4 => "LZ4",
            talus::options::CompressionType::Lz4hc => "LZ4HC",
            talus::options::CompressionType::Xpress => "Xpress",
            talus::options::CompressionType::Zstd => "ZSTD",
        }
    );
    let _ = writeln!(s, "Compression sampling rate: 0");
    let _ = writeln!(s, "Memtablerep: SkipListFactory");
    let _ = writeln!(s, "Perf Level: {}", c.perf_level);
    let _ = writeln!(s, "Threads:    {}", c.threads);
    let _ = writeln!(s, "Benchmarks: {}", c.benchmarks.join(","));
    let _ = writeln!(
        s,
        "Block cache: {}",
        if c.cache_size() > 0 {
            format!("LRU {} bytes", c.cache_size())
        } else {
            "none".to_string()
        }
    );
    for line in c.options().describe().lines() {
        if line.starts_with("create_if_missing") || line.starts_with("error_if_exists") {
            continue;
        }
        let _ = writeln!(s, "Options.{line}");
    }
    s
}

/// Lines for features asked for but missing from this build.
pub fn missing_features(c: &Config, stats: bool, perf: bool, rate_limiter: bool) -> String {
    let mut s = String::new();
    if c.statistics && !stats {
        let _ = writeln!(s, "Statistics: {NOT_AVAILABLE} (--statistics)");
    }
    if c.perf_level > 1 && !perf {
        let _ = writeln!(
            s,
            "Perf context: {NOT_AVAILABLE} (--perf_level={})",
            c.perf_level
        );
    }
    if c.rate_limiter_bytes_per_sec > 0 && !rate_limiter {
        let _ = writeln!(
            s,
            "Rate limiter: {NOT_AVAILABLE} (--rate_limiter_bytes_per_sec={}); flushes and compactions run unthrottled",
            c.rate_limiter_bytes_per_sec
        );
    }
    if !L0_AND_PENDING_BYTES_WRITE_STALLS && !c.write_stall_flags_set.is_empty() {
        let _ = writeln!(
            s,
            "Write stalls on L0 files and pending compaction bytes: {NOT_AVAILABLE} (--{} set; only a full memtable queue makes writers wait)",
            c.write_stall_flags_set.join(", --")
        );
    }
    s
}

/// db_bench's `ReporterAgent`: every `interval`, appends
/// `secs_elapsed,interval_qps` to a CSV file, counting the operations of all
/// benchmark threads of all benchmarks.
pub struct CsvReporter {
    stop: Arc<(std::sync::Mutex<bool>, std::sync::Condvar)>,
    thread: Option<JoinHandle<()>>,
    failed: Arc<AtomicBool>,
}

impl std::fmt::Debug for CsvReporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CsvReporter")
    }
}

impl CsvReporter {
    pub fn start(
        path: &Path,
        interval: Duration,
        counters: Arc<OpCounters>,
    ) -> std::io::Result<CsvReporter> {
        let mut file = File::create(path)?;
        file.write_all(b"secs_elapsed,interval_qps\n")?;
        file.flush()?;
        let stop = Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new()));
        let failed = Arc::new(AtomicBool::new(false));
        let (stop2, failed2) = (stop.clone(), failed.clone());
        let thread = std::thread::Builder::new()
            .name("talus-bench-report".into())
            .spawn(move || {
                let started = Instant::now();
                let mut last = counters.total();
                let mut next = started + interval;
                let (lock, cv) = &*stop2;
                let mut stopped = lock.lock().unwrap_or_else(|e| e.into_inner());
                loop {
                    let now = Instant::now();
                    if now < next {
                        stopped = cv
                            .wait_timeout(stopped, next - now)
                            .unwrap_or_else(|e| e.into_inner())
                            .0;
                        if *stopped {
                            return;
                        }
                        continue;
                    }
                    next += interval;
                    let total = counters.total();
                    let secs = (started.elapsed().as_secs_f64() + 0.5) as u64;
                    let qps = (total - last) as f64 / interval.as_secs_f64();
                    last = total;
                    let line = format!("{secs},{}\n", qps as u64);
                    if file
                        .write_all(line.as_bytes())
                        .and_then(|()| file.flush())
                        .is_err()
                    {
                        failed2.store(true, Ordering::Relaxed);
                        return;
                    }
                }
            })?;
        Ok(CsvReporter {
            stop,
            thread: Some(thread),
            failed,
        })
    }

    /// Stops the reporter; false when a write to the file failed.
    pub fn finish(mut self) -> bool {
        {
            let (lock, cv) = &*self.stop;
            *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
            cv.notify_all();
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        !self.failed.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_db_benchs_format() {
        assert_eq!(format_date_time(0), "Thu Jan  1 00:00:00 1970");
        // A Monday in late November 2026, just after midnight UTC.
        assert_eq!(format_date_time(1_795_999_648), "Mon Nov 30 00:47:28 2026");
        assert_eq!(format_date_time(951_782_400), "Tue Feb 29 00:00:00 2000");
    }
}
