//! Per-thread benchmark statistics, merged into db_bench's report line.
//!
//! Each benchmark thread owns a [`Stats`]; after the threads join, the
//! stats of all threads but excluded ones (the background writer of
//! `readwhilewriting`) are merged. The report line is db_bench's:
//!
//! ```text
//! fillrandom   :       2.345 micros/op 426439 ops/sec 2.345 seconds 1000000 operations;   47.2 MB/s
//! ```
//!
//! `micros/op` is the summed thread time over the operations (the mean
//! latency seen by one thread); `ops/sec` and `MB/s` use the wall time
//! from the first thread's start to the last thread's finish.
//!
//! Latencies are the difference of two microsecond clock readings, as
//! db_bench's `NowMicros()` differences, so sub-microsecond operations
//! record 0 or 1 as in db_bench.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::histogram::Histogram;

/// What an operation was, for the per-type histograms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum OpType {
    Read,
    Write,
    Delete,
    Seek,
    Other,
}

impl OpType {
    /// db_bench's `OperationTypeString`.
    pub fn name(self) -> &'static str {
        match self {
            OpType::Read => "read",
            OpType::Write => "write",
            OpType::Delete => "delete",
            OpType::Seek => "seek",
            OpType::Other => "op",
        }
    }
}

/// One cache line per thread: the op counters the interval reporter sums.
#[derive(Debug, Default)]
#[repr(align(64))]
struct Slot(AtomicU64);

/// Operations done per thread, for `--report_interval_seconds`: each thread
/// adds to its own cache line, the reporter sums them.
#[derive(Debug)]
pub struct OpCounters {
    slots: Vec<Slot>,
}

impl OpCounters {
    pub fn new(threads: usize) -> Arc<OpCounters> {
        Arc::new(OpCounters {
            slots: (0..threads).map(|_| Slot::default()).collect(),
        })
    }

    fn add(&self, tid: usize, n: u64) {
        if let Some(s) = self.slots.get(tid) {
            s.0.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Operations done by all threads so far.
    pub fn total(&self) -> u64 {
        self.slots.iter().map(|s| s.0.load(Ordering::Relaxed)).sum()
    }
}

/// Called after thread 0 prints an interval line (`--stats_per_interval`).
#[derive(Clone)]
pub struct IntervalHook(pub Arc<dyn Fn() + Send + Sync>);

impl std::fmt::Debug for IntervalHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IntervalHook")
    }
}

/// Per-thread reporting settings.
#[derive(Clone, Debug)]
pub struct StatsSettings {
    pub histogram: bool,
    pub progress_reports: bool,
    pub stats_interval: Option<Duration>,
    pub counters: Option<Arc<OpCounters>>,
    pub on_interval: Option<IntervalHook>,
}

/// One thread's statistics.
#[derive(Debug)]
pub struct Stats {
    tid: usize,
    settings: StatsSettings,
    epoch: Instant,
    start: Instant,
    finish: Instant,
    /// Summed thread time, seconds.
    seconds: f64,
    done: u64,
    bytes: u64,
    last_op_micros: u64,
    next_report: u64,
    last_report_done: u64,
    last_report_time: Instant,
    hist: BTreeMap<OpType, Histogram>,
    message: String,
    /// Not merged into the report (readwhilewriting's writer).
    pub exclude_from_merge: bool,
}

impl Stats {
    pub fn new(tid: usize, settings: StatsSettings, epoch: Instant) -> Stats {
        let now = Instant::now();
        Stats {
            tid,
            settings,
            epoch,
            start: now,
            finish: now,
            seconds: 0.0,
            done: 0,
            bytes: 0,
            last_op_micros: 0,
            next_report: 100,
            last_report_done: 0,
            last_report_time: now,
            hist: BTreeMap::new(),
            message: String::new(),
            exclude_from_merge: false,
        }
    }

    fn now_micros(&self) -> u64 {
        self.epoch.elapsed().as_micros() as u64
    }

    /// Marks the start of the thread's measured work.
    pub fn start(&mut self) {
        self.start = Instant::now();
        self.finish = self.start;
        self.last_report_time = self.start;
        self.last_op_micros = self.now_micros();
    }

    /// Marks the end of the thread's measured work.
    pub fn stop(&mut self) {
        self.finish = Instant::now();
        self.seconds = (self.finish - self.start).as_secs_f64();
    }

    pub fn add_bytes(&mut self, n: u64) {
        self.bytes += n;
    }

    pub fn add_message(&mut self, m: &str) {
        if !self.message.is_empty() {
            self.message.push(' ');
        }
        self.message.push_str(m);
    }

    /// Takes the messages the threads added.
    pub fn take_message(&mut self) -> String {
        std::mem::take(&mut self.message)
    }

    pub fn done(&self) -> u64 {
        self.done
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Counts `n` finished operations of type `op`.
    pub fn finished_ops(&mut self, n: u64, op: OpType) {
        if self.settings.histogram {
            let now = self.now_micros();
            let micros = now.saturating_sub(self.last_op_micros);
            self.hist.entry(op).or_default().add(micros);
            self.last_op_micros = now;
        }
        self.done += n;
        if let Some(c) = &self.settings.counters {
            c.add(self.tid, n);
        }
        if self.done >= self.next_report {
            self.report_progress();
        }
    }

    fn report_progress(&mut self) {
        if let Some(interval) = self.settings.stats_interval {
            self.next_report = self.done + 1000;
            let now = Instant::now();
            let since = now - self.last_report_time;
            if since < interval {
                return;
            }
            let total = (now - self.start).as_secs_f64();
            let ops = self.done - self.last_report_done;
            eprintln!(
                "{} ... thread {}: ({},{}) ops and ({:.1},{:.1}) ops/second in ({:.6},{:.6}) seconds",
                crate::report::date_time_now(),
                self.tid,
                ops,
                self.done,
                ops as f64 / since.as_secs_f64(),
                self.done as f64 / total.max(1e-9),
                since.as_secs_f64(),
                total
            );
            self.last_report_done = self.done;
            self.last_report_time = now;
            if self.tid == 0
                && let Some(hook) = &self.settings.on_interval
            {
                (hook.0)();
            }
            return;
        }
        let step = match self.next_report {
            n if n < 1000 => 100,
            n if n < 5000 => 500,
            n if n < 10_000 => 1000,
            n if n < 50_000 => 5000,
            n if n < 100_000 => 10_000,
            n if n < 500_000 => 50_000,
            _ => 100_000,
        };
        self.next_report += step;
        if self.settings.progress_reports {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "... finished {} ops{:30}\r", self.done, "");
            let _ = err.flush();
        }
    }

    /// Adds `other` into `self` (other's message is appended).
    pub fn merge(&mut self, other: &Stats) {
        if other.exclude_from_merge {
            return;
        }
        for (op, h) in &other.hist {
            self.hist.entry(*op).or_default().merge(h);
        }
        self.done += other.done;
        self.bytes += other.bytes;
        self.seconds += other.seconds;
        self.start = self.start.min(other.start);
        self.finish = self.finish.max(other.finish);
        if !other.message.is_empty() {
            self.add_message(&other.message);
        }
    }

    /// The merged statistics of `threads` (excluded ones left out).
    pub fn merged(threads: &[Stats]) -> Option<Stats> {
        let mut it = threads.iter().filter(|s| !s.exclude_from_merge);
        let first = it.next()?;
        let mut m = Stats::new(first.tid, first.settings.clone(), first.epoch);
        m.start = first.start;
        m.finish = first.finish;
        m.merge(first);
        for s in it {
            m.merge(s);
        }
        Some(m)
    }

    /// Wall time from the first start to the last finish.
    pub fn elapsed(&self) -> Duration {
        self.finish - self.start
    }

    /// db_bench's report line for benchmark `name`, with `message` appended
    /// (followed by the latency histograms when `--histogram`).
    pub fn report(&self, name: &str, message: &str) -> String {
        let done = self.done.max(1);
        let elapsed = self.elapsed().as_secs_f64().max(1e-9);
        let mut extra = String::new();
        if self.bytes > 0 {
            extra = format!("{:6.1} MB/s", self.bytes as f64 / 1_048_576.0 / elapsed);
        }
        for m in [self.message.as_str(), message] {
            if !m.is_empty() {
                if !extra.is_empty() {
                    extra.push(' ');
                }
                extra.push_str(m);
            }
        }
        let mut s = format!(
            "{:<12} : {:11.3} micros/op {} ops/sec {:.3} seconds {} operations;{}{}\n",
            name,
            self.seconds * 1e6 / done as f64,
            (done as f64 / elapsed) as u64,
            elapsed,
            self.done,
            if extra.is_empty() { "" } else { " " },
            extra
        );
        if self.settings.histogram {
            for (op, h) in &self.hist {
                s.push_str(&format!(
                    "Microseconds per {}:\n{}\n",
                    op.name(),
                    h.to_text()
                ));
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(histogram: bool) -> StatsSettings {
        StatsSettings {
            histogram,
            progress_reports: false,
            stats_interval: None,
            counters: None,
            on_interval: None,
        }
    }

    #[test]
    fn merge_sums_counts_and_skips_excluded() {
        let epoch = Instant::now();
        let mut a = Stats::new(0, settings(true), epoch);
        let mut b = Stats::new(1, settings(true), epoch);
        let mut w = Stats::new(2, settings(true), epoch);
        for s in [&mut a, &mut b, &mut w] {
            s.start();
            s.finished_ops(1, OpType::Read);
            s.finished_ops(2, OpType::Read);
            s.add_bytes(10);
            s.stop();
        }
        w.exclude_from_merge = true;
        let m = Stats::merged(&[a, b, w]).unwrap();
        assert_eq!((m.done(), m.bytes()), (6, 20));
        let line = m.report("readrandom", "(1 of 2 found)");
        assert!(line.starts_with("readrandom   : "), "{line}");
        assert!(line.contains(" 6 operations;"), "{line}");
        assert!(line.contains("MB/s (1 of 2 found)\n"), "{line}");
        assert!(line.contains("Microseconds per read:\nCount: 4 "), "{line}");
    }

    #[test]
    fn counters_sum_over_threads() {
        let c = OpCounters::new(2);
        let epoch = Instant::now();
        let mut s = StatsSettings {
            counters: Some(c.clone()),
            ..settings(false)
        };
        let mut a = Stats::new(0, s.clone(), epoch);
        s.histogram = false;
        let mut b = Stats::new(1, s, epoch);
        a.finished_ops(3, OpType::Write);
        b.finished_ops(4, OpType::Write);
        assert_eq!(c.total(), 7);
    }
}
