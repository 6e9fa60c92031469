//! The universal compaction picker: pure policy, no IO.
//!
//! Universal compaction (RocksDB's `kCompactionStyleUniversal`) trades read
//! amplification for write amplification: data lives in a few *sorted runs*
//! that are merged whole, rather than in levels of bounded size compacted
//! file by file. A sorted run is one L0 file, or one whole non-empty level
//! (L1 and below); [`sorted_runs`] lists them newest first (L0 files in L0
//! order, then the levels top down), which is also oldest data last.
//!
//! [`pick_universal`] applies RocksDB's triggers in RocksDB's order, once
//! there are at least `level0_file_num_compaction_trigger` sorted runs:
//!
//! 1. **Size amplification.** When the runs above the oldest one together
//!    reach `max_size_amplification_percent` of the oldest run's size, every
//!    run from the newest run not being compacted down to the oldest is
//!    merged into the last level ([`UniversalReason::SizeAmplification`]);
//!    not while any of them is being compacted.
//! 2. **Size ratio.** From the newest run not being compacted, runs are
//!    gathered while the next one is at most `size_ratio` percent larger
//!    than what was gathered (the total with [`StopStyle::TotalSize`], the
//!    last run with [`StopStyle::SimilarSize`]), up to `max_merge_width`
//!    runs; at least `min_merge_width` runs make a pick, otherwise the
//!    search starts again one run older ([`UniversalReason::SizeRatio`]).
//! 3. **Sorted-run count.** If that found nothing and more runs than the
//!    trigger are not being compacted, the newest runs are merged, ignoring
//!    sizes, so that the count drops back below the trigger
//!    ([`UniversalReason::SortedRunNum`]).
//!
//! The output goes to the last level when the pick includes the oldest run;
//! otherwise just above the run that follows the pick (L0 if that run is an
//! L0 file), so runs stay ordered by age down the levels. With
//! `allow_trivial_move`, inputs whose key ranges do not overlap are moved
//! instead of rewritten. `compression_size_percent` (when not -1) leaves an
//! output uncompressed while the runs older than it hold at least that
//! percentage of the data, as RocksDB does.
//!
//! Write stalls: in universal compaction the L0 triggers
//! (`level0_slowdown_writes_trigger`, `level0_stop_writes_trigger`) count
//! sorted runs ([`stall_run_count`]), and there is no pending-compaction
//! byte estimate (RocksDB computes it for leveled compaction only).
//!
//! Contract with the DB: as for the leveled picker (module docs of
//! `compaction::picker`): the picker only reads `being_compacted`; the DB
//! marks a plan's files under the same lock as the pick.

use std::sync::Arc;

use super::picker::{CompactionPlan, CompactionReason, PickerOptions};
use crate::key;
use crate::version::{FileMetaData, Version};

/// When a size-ratio search stops gathering runs (RocksJava
/// `CompactionStopStyle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum StopStyle {
    /// Stop when the next run is more than `size_ratio` percent larger than
    /// the last run gathered, or much smaller than it
    /// (`CompactionStopStyleSimilarSize`).
    SimilarSize,
    /// Stop when the next run is more than `size_ratio` percent larger than
    /// all runs gathered so far (`CompactionStopStyleTotalSize`, RocksDB's
    /// default).
    #[default]
    TotalSize,
}

/// RocksDB's `CompactionOptionsUniversal`, with its defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UniversalOptions {
    /// Percentage by which the next run may be larger than the candidate
    /// and still join it. Default 1.
    pub size_ratio: u32,
    /// Fewest runs a size-ratio compaction merges. Default 2 (values below
    /// 2 act as 2).
    pub min_merge_width: u32,
    /// Most runs one compaction merges. Default `u32::MAX`.
    pub max_merge_width: u32,
    /// Size of the newer runs, as a percentage of the oldest run's size,
    /// at which everything is merged into the oldest. Default 200.
    pub max_size_amplification_percent: u32,
    /// -1 (default): outputs are compressed as the options say. Otherwise
    /// an output stays uncompressed while the runs older than it hold at
    /// least this percentage of all data.
    pub compression_size_percent: i32,
    /// Default [`StopStyle::TotalSize`].
    pub stop_style: StopStyle,
    /// Move inputs whose key ranges do not overlap instead of rewriting
    /// them. Default false.
    pub allow_trivial_move: bool,
}

impl Default for UniversalOptions {
    fn default() -> Self {
        UniversalOptions {
            size_ratio: 1,
            min_merge_width: 2,
            max_merge_width: u32::MAX,
            max_size_amplification_percent: 200,
            compression_size_percent: -1,
            stop_style: StopStyle::TotalSize,
            allow_trivial_move: false,
        }
    }
}

/// A sorted run: one L0 file, or a whole level below L0.
#[derive(Clone, Debug)]
pub struct SortedRun {
    /// The level the run lives in.
    pub level: usize,
    /// Its files (one for an L0 run; in key order for a level).
    pub files: Vec<Arc<FileMetaData>>,
    /// Sum of the files' sizes, bytes.
    pub size: u64,
    /// Sum of the files' compensated sizes (boosted for deletions), bytes.
    pub compensated_size: u64,
    /// Some file of the run is an input of a running compaction.
    pub being_compacted: bool,
}

impl SortedRun {
    fn new(level: usize, files: Vec<Arc<FileMetaData>>) -> SortedRun {
        SortedRun {
            level,
            size: files.iter().map(|f| f.file_size).sum(),
            compensated_size: files.iter().map(|f| f.compensated_size()).sum(),
            being_compacted: files.iter().any(|f| f.is_being_compacted()),
            files,
        }
    }
}

/// The sorted runs of `version`, newest first: each L0 file (newest
/// first), then each non-empty level from L1 down.
pub fn sorted_runs(version: &Version) -> Vec<SortedRun> {
    let mut runs: Vec<SortedRun> = version
        .files(0)
        .iter()
        .map(|f| SortedRun::new(0, vec![f.clone()]))
        .collect();
    for level in 1..version.num_levels() {
        let files = version.files(level);
        if !files.is_empty() {
            runs.push(SortedRun::new(level, files.to_vec()));
        }
    }
    runs
}

/// The count the L0 stall triggers compare against under universal
/// compaction: the number of sorted runs.
pub fn stall_run_count(version: &Version) -> usize {
    version.files(0).len()
        + (1..version.num_levels())
            .filter(|&l| !version.files(l).is_empty())
            .count()
}

/// What the picker reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UniversalPickerOptions {
    /// Levels of the database (the last one is `num_levels - 1`).
    pub num_levels: usize,
    /// `level0_file_num_compaction_trigger`: the run count at which
    /// compaction starts.
    pub trigger: usize,
    /// The universal options.
    pub universal: UniversalOptions,
}

/// Why a universal compaction was picked (RocksDB's compaction reasons).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UniversalReason {
    /// `kUniversalSizeAmplification`.
    SizeAmplification,
    /// `kUniversalSizeRatio`.
    SizeRatio,
    /// `kUniversalSortedRunNum`.
    SortedRunNum,
}

/// A universal compaction: consecutive sorted runs merged into one.
#[derive(Clone, Debug)]
pub struct UniversalPlan {
    /// The runs merged, newest first (consecutive in [`sorted_runs`]).
    pub runs: Vec<SortedRun>,
    /// Where the merged run goes.
    pub output_level: usize,
    /// Why.
    pub reason: UniversalReason,
    /// False when `compression_size_percent` asks for an uncompressed
    /// output.
    pub compress_output: bool,
    /// The inputs' key ranges do not overlap and `allow_trivial_move` is
    /// on: move the files to the output level instead of rewriting them.
    pub is_trivial_move: bool,
    /// The output is the last level: deletions can be dropped.
    pub bottommost: bool,
}

impl UniversalPlan {
    /// Every input file.
    pub fn input_files(&self) -> impl Iterator<Item = &Arc<FileMetaData>> {
        self.runs.iter().flat_map(|r| r.files.iter())
    }

    /// Marks (or unmarks) every input file as being compacted.
    pub fn mark_being_compacted(&self, on: bool) {
        for f in self.input_files() {
            f.being_compacted
                .store(on, std::sync::atomic::Ordering::Release);
        }
    }

    /// The plan the DB runs: the runs' files grouped by level (L0 files
    /// oldest first), the output level and how outputs are cut. Outputs
    /// to L0 are one table (RocksDB sizes universal L0 outputs without
    /// limit: an L0 sorted run is one file); below L0 they are cut at the
    /// level's target file size. A trivial move into L0 would move
    /// nothing, so a plan whose output is L0 always rewrites.
    pub fn into_plan(self, opts: &PickerOptions, score: f64) -> CompactionPlan {
        let mut by_level: Vec<(usize, Vec<Arc<FileMetaData>>)> = Vec::new();
        for run in &self.runs {
            match by_level.last_mut() {
                Some((l, files)) if *l == run.level => files.extend(run.files.iter().cloned()),
                _ => by_level.push((run.level, run.files.clone())),
            }
        }
        if let Some((0, l0)) = by_level.first_mut() {
            l0.reverse(); // runs are newest first; L0 inputs go oldest first
        }
        let output_level = self.output_level;
        let output_inputs = match by_level.last() {
            Some((l, _)) if *l == output_level && by_level.len() > 1 => {
                by_level.pop().map(|(_, f)| f).unwrap_or_default()
            }
            _ => Vec::new(),
        };
        let (level, inputs) = if by_level.is_empty() {
            (output_level, Vec::new())
        } else {
            by_level.remove(0)
        };
        let max_output_file_size = if output_level == 0 {
            u64::MAX
        } else {
            let mut size = opts.target_file_size_base;
            for _ in 1..output_level {
                size = size.saturating_mul(opts.target_file_size_multiplier);
            }
            size
        };
        CompactionPlan {
            level,
            output_level,
            inputs,
            middle_inputs: by_level,
            output_inputs,
            grandparents: Vec::new(),
            score,
            reason: match self.reason {
                UniversalReason::SizeAmplification => CompactionReason::UniversalSizeAmplification,
                UniversalReason::SizeRatio => CompactionReason::UniversalSizeRatio,
                UniversalReason::SortedRunNum => CompactionReason::UniversalSortedRunNum,
            },
            is_trivial_move: self.is_trivial_move && output_level != 0,
            bottommost: self.bottommost,
            max_output_file_size,
            next_compact_cursor: None,
            drop_inputs: false,
            compress_output: self.compress_output,
        }
    }
}

/// `compactRange` under universal compaction (RocksDB compacts every file
/// of the family together): every file of every level merged into the last
/// level (into L0 when there is one level). `None` when there are no files
/// or one of them is being compacted (the caller waits and asks again).
pub fn pick_universal_manual(version: &Version, opts: &PickerOptions) -> Option<CompactionPlan> {
    let runs = sorted_runs(version);
    if runs.is_empty() || runs.iter().any(|r| r.being_compacted) {
        return None;
    }
    let last = version.num_levels().saturating_sub(1);
    let plan = UniversalPlan {
        runs,
        output_level: last,
        reason: UniversalReason::SizeAmplification,
        compress_output: true,
        is_trivial_move: false,
        bottommost: true,
    };
    let mut plan = plan.into_plan(opts, 0.0);
    plan.reason = CompactionReason::ManualCompaction;
    Some(plan)
}

/// Picks the next universal compaction of `version`, if one is due (module
/// docs).
pub fn pick_universal(version: &Version, opts: &UniversalPickerOptions) -> Option<UniversalPlan> {
    let runs = sorted_runs(version);
    if runs.is_empty() || runs.len() < opts.trigger.max(1) {
        return None;
    }
    if let Some(plan) = pick_size_amplification(&runs, opts) {
        return Some(plan);
    }
    if let Some(plan) = pick_reduce_runs(&runs, opts, opts.universal.size_ratio, usize::MAX) {
        return Some(plan);
    }
    let not_compacting = runs.iter().filter(|r| !r.being_compacted).count();
    if not_compacting > opts.trigger {
        let count = not_compacting - opts.trigger + 1;
        return pick_reduce_runs(&runs, opts, u32::MAX, count).map(|mut p| {
            p.reason = UniversalReason::SortedRunNum;
            p
        });
    }
    None
}

/// Trigger 1: every run above the oldest together reach
/// `max_size_amplification_percent` of it.
fn pick_size_amplification(
    runs: &[SortedRun],
    opts: &UniversalPickerOptions,
) -> Option<UniversalPlan> {
    let (oldest, newer) = runs.split_last()?;
    if oldest.being_compacted {
        return None;
    }
    // The candidates start at the newest run not being compacted; a run
    // being compacted below it means a merge is already under way there,
    // so nothing is picked (as RocksDB).
    let start = newer.iter().position(|r| !r.being_compacted)?;
    if newer[start..].iter().any(|r| r.being_compacted) {
        return None;
    }
    let candidate_size = newer[start..]
        .iter()
        .fold(0u64, |sum, r| sum.saturating_add(r.size));
    let ratio = u128::from(opts.universal.max_size_amplification_percent);
    if u128::from(candidate_size) * 100 < ratio * u128::from(oldest.size) {
        return None;
    }
    Some(make_plan(
        runs,
        start,
        runs.len() - start,
        opts,
        UniversalReason::SizeAmplification,
    ))
}

/// Triggers 2 and 3: the newest stretch of runs whose sizes are within
/// `ratio` percent of each other (`u32::MAX`: any sizes), at most
/// `max_runs` (and `max_merge_width`) runs, at least `min_merge_width`.
fn pick_reduce_runs(
    runs: &[SortedRun],
    opts: &UniversalPickerOptions,
    ratio: u32,
    max_runs: usize,
) -> Option<UniversalPlan> {
    let u = &opts.universal;
    let min_width = (u.min_merge_width as usize).max(2);
    let max_width = (u.max_merge_width as usize).min(max_runs).max(1);
    let grow = |size: f64| size * (100.0 + f64::from(ratio)) / 100.0;
    let mut start = 0;
    while start < runs.len() {
        if runs[start].being_compacted {
            start += 1;
            continue;
        }
        let mut count = 1;
        let mut candidate = runs[start].compensated_size as f64;
        for next in &runs[start + 1..] {
            if count >= max_width || next.being_compacted {
                break;
            }
            if grow(candidate) < next.size as f64 {
                break;
            }
            match u.stop_style {
                StopStyle::SimilarSize => {
                    // The next run is much smaller than the last one.
                    if grow(next.size as f64) < candidate {
                        break;
                    }
                    candidate = next.compensated_size as f64;
                }
                StopStyle::TotalSize => candidate += next.compensated_size as f64,
            }
            count += 1;
        }
        if count >= min_width {
            return Some(make_plan(
                runs,
                start,
                count,
                opts,
                UniversalReason::SizeRatio,
            ));
        }
        start += 1;
    }
    None
}

fn make_plan(
    runs: &[SortedRun],
    start: usize,
    count: usize,
    opts: &UniversalPickerOptions,
    reason: UniversalReason,
) -> UniversalPlan {
    let after = start + count;
    let last = opts.num_levels.saturating_sub(1);
    let output_level = match runs.get(after) {
        None => last,
        Some(r) if r.level == 0 => 0,
        Some(r) => r.level - 1,
    };
    let picked = runs[start..after].to_vec();
    let mut plan = UniversalPlan {
        compress_output: compress_output(runs, after, opts.universal.compression_size_percent),
        is_trivial_move: false,
        bottommost: after == runs.len(),
        runs: picked,
        output_level,
        reason,
    };
    if opts.universal.allow_trivial_move {
        plan.is_trivial_move = inputs_do_not_overlap(&plan);
    }
    plan
}

/// `compression_size_percent`: whether the output of a pick ending before
/// run `after` is compressed.
fn compress_output(runs: &[SortedRun], after: usize, percent: i32) -> bool {
    let Ok(percent) = u128::try_from(percent) else {
        return true; // -1: as the options say
    };
    let total: u128 = runs.iter().map(|r| u128::from(r.compensated_size)).sum();
    let mut older = 0u128;
    for r in runs[after..].iter().rev() {
        older += u128::from(r.size);
        if older * 100 >= total * percent {
            return false;
        }
    }
    true
}

/// Whether no two input files overlap in user keys.
fn inputs_do_not_overlap(plan: &UniversalPlan) -> bool {
    let mut files: Vec<&Arc<FileMetaData>> = plan.input_files().collect();
    files.sort_by(|a, b| key::compare_internal(&a.smallest, &b.smallest));
    files
        .windows(2)
        .all(|w| w[0].largest_user_key() < w[1].smallest_user_key())
}

#[cfg(test)]
mod tests;
