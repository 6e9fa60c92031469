//! Internal statistics behind `rocksdb.stats`, `rocksdb.cfstats` and
//! `rocksdb.dbstats`: compaction work per level and write-path totals; the
//! user's `Statistics` the database records into; the periodic dumper.
//!
//! Per-level counters change once per flush or compaction, under the DB
//! mutex. Write-path totals are added once per write group by its leader,
//! in striped counters (no contended atomic on the write path).
//!
//! Thread-safety contract of [`DbStats`]: every part may be used from any
//! thread without the DB mutex (`Statistics` and the striped counters are
//! thread-safe); the dumper's two mutexes are leaves, and its thread takes
//! the DB mutex only with them released.

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::DbInner;
use crate::info_log;
use crate::statistics::{Histogram, HistogramTimer, Statistics, Ticker};
use crate::striped::StripedCounter;

/// The database's statistics (module docs).
pub(crate) struct DbStats {
    /// The user's statistics object, if any.
    pub(crate) statistics: Option<Arc<Statistics>>,
    /// Write-path totals (`rocksdb.dbstats`).
    pub(crate) writes: WriteStats,
    /// The periodic dumper (`stats_dump_period_sec`).
    pub(crate) dumper: StatsDumper,
}

impl DbStats {
    pub(crate) fn new(statistics: Option<Arc<Statistics>>) -> Self {
        DbStats {
            statistics,
            writes: WriteStats::default(),
            dumper: StatsDumper::default(),
        }
    }

    /// Adds `n` to ticker `t` when statistics are on.
    #[inline]
    pub(crate) fn tick(&self, t: Ticker, n: u64) {
        if let Some(s) = &self.statistics {
            s.record_tick(t, n);
        }
    }

    /// Records `v` in histogram `h` when statistics are on.
    #[inline]
    pub(crate) fn hist(&self, h: Histogram, v: u64) {
        if let Some(s) = &self.statistics {
            s.record_in_histogram(h, v);
        }
    }

    /// A guard recording its lifetime in microseconds into `h`, when on.
    #[inline]
    pub(crate) fn timer(&self, h: Histogram) -> Option<HistogramTimer<'_>> {
        self.statistics.as_ref().and_then(|s| s.timer(h))
    }
}

/// The thread logging `rocksdb.stats` every `stats_dump_period_sec`: its
/// stop flag, the condvar that wakes it at close, and its handle. Stopped
/// once, at close ([`StatsDumper::stop`]).
#[derive(Default)]
pub(crate) struct StatsDumper {
    stop: (Mutex<bool>, Condvar),
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl StatsDumper {
    /// Waits `period` or until stopped; true when stopped.
    fn wait(&self, period: Duration) -> bool {
        let mut stop = self.stop.0.lock();
        if !*stop {
            self.stop.1.wait_for(&mut stop, period);
        }
        *stop
    }

    /// Stops the dumper thread, if any, and joins it.
    pub(crate) fn stop(&self) {
        *self.stop.0.lock() = true;
        self.stop.1.notify_all();
        if let Some(t) = self.thread.lock().take() {
            let _ = t.join();
        }
    }
}

impl DbInner {
    /// Logs `rocksdb.stats` (and the statistics) every `stats_dump_period_sec`.
    pub(super) fn start_stats_dumper(self: &Arc<Self>) {
        let period = self.opts.stats_dump_period_sec;
        if period == 0 {
            return;
        }
        let weak = Arc::downgrade(self);
        let spawned = std::thread::Builder::new()
            .name("talus-stats".into())
            .spawn(move || {
                let period = Duration::from_secs(u64::from(period));
                loop {
                    let Some(db) = weak.upgrade() else { return };
                    if db.stats.dumper.wait(period) {
                        return;
                    }
                    db.dump_stats();
                }
            });
        if let Ok(t) = spawned {
            *self.stats.dumper.thread.lock() = Some(t);
        }
    }

    /// One periodic dump into the info log.
    pub(crate) fn dump_stats(&self) {
        let mut text = String::from("------- DUMPING STATS -------");
        for cfd in self.families.load().values() {
            text.push_str(&self.cfstats(cfd, true));
        }
        text.push_str(&self.dbstats(true));
        if let Some(s) = &self.stats.statistics {
            text.push_str("\nSTATISTICS:\n");
            text.push_str(&s.to_string());
        }
        info_log!(self.info_log, Info, "{text}");
    }
}

/// Work done by flushes and compactions whose output went to one level.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LevelStats {
    /// Flushes (L0) or compactions.
    pub(crate) count: u64,
    /// Wall-clock microseconds spent.
    pub(crate) micros: u64,
    /// Bytes read from the input level.
    pub(crate) read_rn: u64,
    /// Bytes read from the output level.
    pub(crate) read_rnp1: u64,
    /// Bytes written.
    pub(crate) written: u64,
    /// Bytes moved by trivial moves.
    pub(crate) moved: u64,
    /// Entries read.
    pub(crate) keys_in: u64,
    /// Entries dropped.
    pub(crate) keys_dropped: u64,
}

impl LevelStats {
    pub(crate) fn add(&mut self, o: &LevelStats) {
        self.count += o.count;
        self.micros += o.micros;
        self.read_rn += o.read_rn;
        self.read_rnp1 += o.read_rnp1;
        self.written += o.written;
        self.moved += o.moved;
        self.keys_in += o.keys_in;
        self.keys_dropped += o.keys_dropped;
    }

    pub(crate) fn minus(&self, o: &LevelStats) -> LevelStats {
        LevelStats {
            count: self.count - o.count,
            micros: self.micros - o.micros,
            read_rn: self.read_rn - o.read_rn,
            read_rnp1: self.read_rnp1 - o.read_rnp1,
            written: self.written - o.written,
            moved: self.moved - o.moved,
            keys_in: self.keys_in - o.keys_in,
            keys_dropped: self.keys_dropped - o.keys_dropped,
        }
    }
}

/// Write-path totals.
#[derive(Default)]
pub(crate) struct WriteStats {
    pub(crate) writes: StripedCounter,
    pub(crate) keys: StripedCounter,
    pub(crate) groups: StripedCounter,
    pub(crate) ingest_bytes: StripedCounter,
    pub(crate) wal_writes: StripedCounter,
    pub(crate) wal_syncs: StripedCounter,
    pub(crate) wal_bytes: StripedCounter,
}

/// A copy of the write totals (for intervals).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WriteTotals {
    pub(crate) writes: u64,
    pub(crate) keys: u64,
    pub(crate) groups: u64,
    pub(crate) ingest_bytes: u64,
    pub(crate) wal_writes: u64,
    pub(crate) wal_syncs: u64,
    pub(crate) wal_bytes: u64,
    pub(crate) stall_micros: u64,
}

impl WriteStats {
    pub(crate) fn totals(&self, stall_micros: u64) -> WriteTotals {
        WriteTotals {
            writes: self.writes.sum(),
            keys: self.keys.sum(),
            groups: self.groups.sum(),
            ingest_bytes: self.ingest_bytes.sum(),
            wal_writes: self.wal_writes.sum(),
            wal_syncs: self.wal_syncs.sum(),
            wal_bytes: self.wal_bytes.sum(),
            stall_micros,
        }
    }
}

/// Table files linked in by `ingest_external_file` (RocksDB's `AddFile`
/// statistics): they enter the tree without a flush, so they count with
/// the flushed bytes as the input that write amplification divides by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct AddFileStats {
    /// Bytes of the ingested files.
    pub(crate) bytes: u64,
    /// Files ingested.
    pub(crate) files: u64,
    /// Of them, files placed in L0.
    pub(crate) l0_files: u64,
    /// Point entries in the ingested files (range tombstones not counted).
    pub(crate) keys: u64,
}

impl AddFileStats {
    pub(crate) fn minus(&self, o: &AddFileStats) -> AddFileStats {
        AddFileStats {
            bytes: self.bytes - o.bytes,
            files: self.files - o.files,
            l0_files: self.l0_files - o.l0_files,
            keys: self.keys - o.keys,
        }
    }
}

/// Compaction statistics and the baselines of the last interval.
pub(crate) struct InternalStats {
    pub(crate) started: Instant,
    /// Work by output level: flushes and compactions into L0 both count
    /// in `levels[0]` (intra-L0, universal and FIFO compactions write L0).
    pub(crate) levels: Vec<LevelStats>,
    /// Bytes written by flushes alone (RocksDB's `BYTES_FLUSHED`): with the
    /// ingested bytes, what entered the tree, the divisor of write
    /// amplification. Not `levels[0].written`, which compactions into L0
    /// also add to.
    pub(crate) flushed: u64,
    /// Ingested files, cumulative.
    pub(crate) add_file: AddFileStats,
    pub(crate) interval_start: Instant,
    pub(crate) interval_levels: Vec<LevelStats>,
    pub(crate) interval_add_file: AddFileStats,
    pub(crate) interval_flushed: u64,
    pub(crate) interval_writes: WriteTotals,
    pub(crate) interval_stall_counts: u64,
}

impl InternalStats {
    pub(crate) fn new(num_levels: usize) -> Self {
        let now = Instant::now();
        InternalStats {
            started: now,
            levels: vec![LevelStats::default(); num_levels],
            flushed: 0,
            add_file: AddFileStats::default(),
            interval_start: now,
            interval_levels: vec![LevelStats::default(); num_levels],
            interval_add_file: AddFileStats::default(),
            interval_flushed: 0,
            interval_writes: WriteTotals::default(),
            interval_stall_counts: 0,
        }
    }
}
