//! Internal statistics behind `rocksdb.stats`, `rocksdb.cfstats` and
//! `rocksdb.dbstats`: compaction work per level and write-path totals.
//!
//! Per-level counters change once per flush or compaction, under the DB
//! mutex. Write-path totals are added once per write group by its leader,
//! in striped counters (no contended atomic on the write path).

use std::time::Instant;

use crate::striped::StripedCounter;

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

/// Compaction statistics and the baselines of the last interval.
pub(crate) struct InternalStats {
    pub(crate) started: Instant,
    pub(crate) levels: Vec<LevelStats>,
    pub(crate) interval_start: Instant,
    pub(crate) interval_levels: Vec<LevelStats>,
    pub(crate) interval_writes: WriteTotals,
    pub(crate) interval_stall_counts: u64,
}

impl InternalStats {
    pub(crate) fn new(num_levels: usize) -> Self {
        let now = Instant::now();
        InternalStats {
            started: now,
            levels: vec![LevelStats::default(); num_levels],
            interval_start: now,
            interval_levels: vec![LevelStats::default(); num_levels],
            interval_writes: WriteTotals::default(),
            interval_stall_counts: 0,
        }
    }
}
