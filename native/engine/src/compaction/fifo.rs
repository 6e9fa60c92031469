//! The FIFO compaction picker: pure policy, no IO.
//!
//! FIFO compaction (RocksDB's `kCompactionStyleFIFO`) keeps every table in
//! L0 and drops the oldest ones: a cache of recent data, not a store. What
//! [`pick_fifo`] decides, in RocksDB's order:
//!
//! 1. **TTL** (`ttl` > 0 seconds): tables whose creation time is older than
//!    `now - ttl` are dropped, oldest first, stopping at the first one that
//!    is not (or whose creation time is unknown, 0). Reason
//!    [`FifoReason::Ttl`].
//! 2. **Size** (`max_table_files_size`): while the tables of L0 total more
//!    than the limit, the oldest are dropped until they fit. Reason
//!    [`FifoReason::MaxSize`].
//! 3. **Intra-L0 compaction** (`allow_compaction`), only when neither
//!    dropped anything: once L0 holds at least
//!    `level0_file_num_compaction_trigger` tables, the newest consecutive
//!    tables not being compacted (at least [`MIN_INTRA_L0_FILES`]) are
//!    merged into one L0 table, as long as they total at most
//!    `max_compaction_bytes` and the merge saves at most `write_buffer_size`
//!    bytes of work per table it removes (RocksDB's rule: merging small
//!    tables only). Reason [`FifoReason::IntraL0`].
//!
//! Tables being compacted are never dropped: a drop waits for them. The
//! contract with the DB is the leveled picker's (`compaction::picker`
//! module docs).

use std::sync::Arc;

use super::picker::{CompactionPlan, CompactionReason};
use crate::version::{FileMetaData, Version};

/// Fewest tables an intra-L0 compaction merges (RocksDB's
/// `kMinFilesForIntraL0Compaction`).
pub const MIN_INTRA_L0_FILES: usize = 4;

/// RocksDB's `CompactionOptionsFIFO`, with its defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FifoOptions {
    /// Total size of the tables at which the oldest are dropped, bytes.
    /// Default 1 GiB.
    pub max_table_files_size: u64,
    /// Merge small L0 tables (intra-L0 compaction). Default false.
    pub allow_compaction: bool,
}

impl Default for FifoOptions {
    fn default() -> Self {
        FifoOptions {
            max_table_files_size: 1 << 30,
            allow_compaction: false,
        }
    }
}

/// What the FIFO picker reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FifoPickerOptions {
    /// The FIFO options.
    pub fifo: FifoOptions,
    /// `ttl`, seconds; 0: no TTL.
    pub ttl: u64,
    /// `level0_file_num_compaction_trigger`.
    pub trigger: usize,
    /// `write_buffer_size`, bytes.
    pub write_buffer_size: u64,
    /// `max_compaction_bytes`, bytes.
    pub max_compaction_bytes: u64,
}

/// Why a FIFO plan was picked (RocksDB's compaction reasons).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FifoReason {
    /// `kFIFOTtl`: tables older than the TTL dropped.
    Ttl,
    /// `kFIFOMaxSize`: the oldest tables dropped to fit the size limit.
    MaxSize,
    /// `kFIFOReduceNumFiles`: small newest tables merged.
    IntraL0,
}

/// A FIFO compaction.
#[derive(Clone, Debug)]
pub struct FifoPlan {
    /// The tables, newest first.
    pub files: Vec<Arc<FileMetaData>>,
    /// True: the tables are deleted (TTL, size). False: merged into one L0
    /// table.
    pub drop: bool,
    /// Why.
    pub reason: FifoReason,
}

impl FifoPlan {
    /// Marks (or unmarks) every file as being compacted.
    pub fn mark_being_compacted(&self, on: bool) {
        for f in &self.files {
            f.being_compacted
                .store(on, std::sync::atomic::Ordering::Release);
        }
    }

    /// The plan the DB runs: L0 to L0, the files oldest first; a drop
    /// deletes them, an intra-L0 compaction writes one table. The output
    /// of an intra-L0 compaction is the bottom of its keys' history only
    /// when it takes the oldest table of L0 (`oldest_l0`).
    pub fn into_plan(self, oldest_l0: Option<u64>, score: f64) -> CompactionPlan {
        let mut files = self.files;
        files.reverse();
        let bottommost = !self.drop && files.first().map(|f| f.number) == oldest_l0;
        CompactionPlan {
            level: 0,
            output_level: 0,
            inputs: files,
            middle_inputs: Vec::new(),
            output_inputs: Vec::new(),
            grandparents: Vec::new(),
            score,
            reason: match self.reason {
                FifoReason::Ttl => CompactionReason::FifoTtl,
                FifoReason::MaxSize => CompactionReason::FifoMaxSize,
                FifoReason::IntraL0 => CompactionReason::FifoReduceNumFiles,
            },
            is_trivial_move: false,
            bottommost,
            max_output_file_size: u64::MAX,
            next_compact_cursor: None,
            drop_inputs: self.drop,
            compress_output: true,
        }
    }
}

/// Picks the next FIFO compaction of `version` at time `now` (seconds since
/// the Unix epoch), if one is due (module docs). Only L0 is considered.
pub fn pick_fifo(version: &Version, opts: &FifoPickerOptions, now: u64) -> Option<FifoPlan> {
    let l0 = version.files(0);
    if l0.is_empty() {
        return None;
    }
    if opts.ttl > 0 {
        let cutoff = now.saturating_sub(opts.ttl);
        let expired: Vec<Arc<FileMetaData>> = l0
            .iter()
            .rev() // oldest first
            .take_while(|f| f.creation_time != 0 && f.creation_time < cutoff)
            .take_while(|f| !f.is_being_compacted())
            .cloned()
            .collect();
        if !expired.is_empty() {
            return Some(plan_drop(expired, FifoReason::Ttl));
        }
    }
    let total: u64 = l0.iter().map(|f| f.file_size).sum();
    if total > opts.fifo.max_table_files_size {
        let mut dropped = Vec::new();
        let mut left = total;
        for f in l0.iter().rev() {
            if left <= opts.fifo.max_table_files_size || f.is_being_compacted() {
                break;
            }
            left -= f.file_size;
            dropped.push(f.clone());
        }
        return (!dropped.is_empty()).then(|| plan_drop(dropped, FifoReason::MaxSize));
    }
    if opts.fifo.allow_compaction && l0.len() >= opts.trigger.max(1) {
        return pick_intra_l0(l0, opts);
    }
    None
}

fn plan_drop(mut oldest_first: Vec<Arc<FileMetaData>>, reason: FifoReason) -> FifoPlan {
    oldest_first.reverse();
    FifoPlan {
        files: oldest_first,
        drop: true,
        reason,
    }
}

/// The longest run of newest tables (not being compacted) that fits the
/// byte limits, if it has at least [`MIN_INTRA_L0_FILES`] tables.
fn pick_intra_l0(l0: &[Arc<FileMetaData>], opts: &FifoPickerOptions) -> Option<FifoPlan> {
    let mut files: Vec<Arc<FileMetaData>> = Vec::new();
    let mut total = 0u64;
    for f in l0 {
        if f.is_being_compacted() {
            break;
        }
        let with = total.saturating_add(f.file_size);
        if with > opts.max_compaction_bytes {
            break;
        }
        // Bytes rewritten per table removed, were this table included.
        let per_removed = with / files.len().max(1) as u64;
        if !files.is_empty() && per_removed > opts.write_buffer_size {
            break;
        }
        total = with;
        files.push(f.clone());
    }
    (files.len() >= MIN_INTRA_L0_FILES).then_some(FifoPlan {
        files,
        drop: false,
        reason: FifoReason::IntraL0,
    })
}

#[cfg(test)]
mod tests;
