//! The level compaction picker: pure policy, no IO.
//!
//! Given a [`Version`] and [`PickerOptions`], decides how big each level may
//! grow ([`level_targets`]), how urgently each level needs compacting
//! ([`compaction_scores`]), how much compaction work is outstanding
//! ([`estimated_pending_compaction_bytes`], an input of the write
//! controller), and which files to compact next ([`pick_compaction`],
//! [`try_pick_manual`]). The rules follow RocksDB's leveled compaction; each
//! is stated at the function that implements it.
//!
//! Contract with the DB: the picker only *reads* `being_compacted` flags.
//! The DB must call [`CompactionPlan::mark_being_compacted`]`(true)` in the
//! same critical section (under the mutex that guards the version set) as
//! the pick, and `(false)` after the compaction's edit is installed or the
//! compaction is abandoned. Two plans picked this way never share a file,
//! and their output key ranges in a common output level never overlap: a
//! plan's output range is the union of files it holds, and any other plan
//! reaching into that range would have to hold one of them.
//!
//! Sizes: targets and pending bytes use file sizes; scores and file
//! priorities use [`FileMetaData::compensated_size`] (size boosted for
//! deletions), as RocksDB does.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::compaction::fifo::MIN_INTRA_L0_FILES;
use crate::key::{self, SequenceNumber};
use crate::options::{CompactionPriority, Options};
use crate::version::levels::l0_order;
use crate::version::{FileMetaData, Version, VersionEdit};

/// The options the picker reads, taken from [`Options`].
#[derive(Clone, Debug, PartialEq)]
pub struct PickerOptions {
    /// Levels, L0 included; must equal the version's `num_levels()` (the
    /// functions read the version's).
    pub num_levels: usize,
    /// L0 files that make L0's score 1 (at least 1).
    pub level0_file_num_compaction_trigger: usize,
    /// L0 files at which writes slow down (for the write controller; the
    /// picker itself does not use it).
    pub level0_slowdown_writes_trigger: i32,
    /// L0 files at which writes stop (for the write controller).
    pub level0_stop_writes_trigger: i32,
    /// Target size of the base level.
    pub max_bytes_for_level_base: u64,
    /// Growth factor between level targets.
    pub max_bytes_for_level_multiplier: f64,
    /// Size levels from the bottom up (see [`level_targets`]).
    pub level_compaction_dynamic_level_bytes: bool,
    /// Output file size of the first compacted level.
    pub target_file_size_base: u64,
    /// Growth of the output file size per level.
    pub target_file_size_multiplier: u64,
    /// How a file is chosen within a level.
    pub compaction_pri: CompactionPriority,
    /// Soft cap on the bytes of one compaction's inputs: limits input
    /// expansion, trivial moves over many grandparents and manual chunks.
    /// `25 × target_file_size_base`, RocksDB's default.
    pub max_compaction_bytes: u64,
}

impl From<&Options> for PickerOptions {
    fn from(o: &Options) -> Self {
        PickerOptions {
            num_levels: usize::try_from(o.num_levels.max(1)).unwrap_or(1),
            level0_file_num_compaction_trigger: usize::try_from(
                o.level0_file_num_compaction_trigger.max(1),
            )
            .unwrap_or(1),
            level0_slowdown_writes_trigger: o.level0_slowdown_writes_trigger,
            level0_stop_writes_trigger: o.level0_stop_writes_trigger,
            max_bytes_for_level_base: o.max_bytes_for_level_base.max(1),
            max_bytes_for_level_multiplier: o.max_bytes_for_level_multiplier,
            level_compaction_dynamic_level_bytes: o.level_compaction_dynamic_level_bytes,
            target_file_size_base: o.target_file_size_base.max(1),
            target_file_size_multiplier: u64::try_from(o.target_file_size_multiplier.max(1))
                .unwrap_or(1),
            compaction_pri: o.compaction_pri,
            max_compaction_bytes: o.target_file_size_base.saturating_mul(25),
        }
    }
}

impl Default for PickerOptions {
    fn default() -> Self {
        PickerOptions::from(&Options::default())
    }
}

/// Why a compaction was picked (RocksDB's `CompactionReason` names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompactionReason {
    /// L0 reached its file-count (or size) trigger.
    LevelL0FilesNum,
    /// A level ≥ 1 outgrew its target.
    LevelMaxLevelSize,
    /// `compactRange`.
    ManualCompaction,
    /// Universal: the newer runs reached `max_size_amplification_percent`
    /// of the oldest.
    UniversalSizeAmplification,
    /// Universal: runs of similar size merged.
    UniversalSizeRatio,
    /// Universal: too many sorted runs.
    UniversalSortedRunNum,
    /// FIFO: tables older than `ttl` dropped.
    FifoTtl,
    /// FIFO: the oldest tables dropped to fit `max_table_files_size`.
    FifoMaxSize,
    /// FIFO: small L0 tables merged (`allow_compaction`).
    FifoReduceNumFiles,
}

/// Size targets of every level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelTargets {
    /// The level L0 compacts into.
    pub base_level: usize,
    /// Target bytes per level. `u64::MAX` for levels that are not compacted
    /// from (levels between L0 and the base level in dynamic mode).
    /// Entry 0 is `max_bytes_for_level_base`, used by the L0 size rule.
    pub target_bytes: Vec<u64>,
}

impl LevelTargets {
    /// Target of `level`.
    pub fn target(&self, level: usize) -> u64 {
        self.target_bytes[level]
    }
}

fn mul(x: u64, m: f64) -> u64 {
    // `as` saturates on overflow.
    (x as f64 * m) as u64
}

fn div(x: u64, m: f64) -> u64 {
    (x as f64 / m) as u64
}

/// Target size of each level.
///
/// **Static** (`level_compaction_dynamic_level_bytes = false`): the base
/// level is L1; `target(L1) = max_bytes_for_level_base` and each deeper
/// level is `multiplier` times the one above.
///
/// **Dynamic**: the levels are sized from the bottom up so that the largest
/// level ≥ 1 (normally the last) holds ~90 % of the data. With
/// `base = max_bytes_for_level_base`, `m = multiplier`,
/// `S` = the size of the largest level ≥ 1 and `F` = the first non-empty
/// level ≥ 1:
///
/// 1. No data below L0 (`S = 0`): the base level is the last level (L0
///    compacts straight into it) and no level ≥ 1 has a target.
/// 2. Otherwise let `s = S / m^(last − F)`, the size `F` would have if the
///    last level's target were `S`.
///    - If `s ≤ base / m`, the tree is smaller than its levels allow: the base
///      level is `F` (levels above it stay empty) and its size is `base / m + 1`.
///    - Else move the base level up from `F` one level at a time, dividing
///      `s` by `m` each time, while `s > base` and the level is above L1.
///      The base level's size is `s`, or `base` when even L1 would be larger.
/// 3. Each level below the base level is `m` times the one above; no target
///    is set below `base` (so levels ≥ 1 never look smaller than L0 may get).
///    Levels above the base level get `u64::MAX`.
pub fn level_targets(version: &Version, opts: &PickerOptions) -> LevelTargets {
    let n = version.num_levels();
    debug_assert_eq!(
        n, opts.num_levels,
        "version and options disagree on num_levels"
    );
    let base_bytes = opts.max_bytes_for_level_base;
    let m = opts.max_bytes_for_level_multiplier;
    let mut target_bytes = vec![u64::MAX; n];
    if let Some(t) = target_bytes.first_mut() {
        *t = base_bytes;
    }
    if n < 2 {
        return LevelTargets {
            base_level: 0,
            target_bytes,
        };
    }
    if !opts.level_compaction_dynamic_level_bytes {
        let mut size = base_bytes;
        for (level, t) in target_bytes.iter_mut().enumerate().skip(1) {
            if level > 1 {
                size = mul(size, m);
            }
            *t = size;
        }
        return LevelTargets {
            base_level: 1,
            target_bytes,
        };
    }

    let sizes: Vec<u64> = (0..n).map(|l| version.level_bytes(l)).collect();
    let largest = sizes[1..].iter().copied().max().unwrap_or(0);
    let Some(first) = (1..n).find(|&l| sizes[l] > 0) else {
        return LevelTargets {
            base_level: n - 1,
            target_bytes,
        };
    };
    let base_min = div(base_bytes, m);
    let mut s = largest;
    for _ in first..n - 1 {
        s = div(s, m);
    }
    let mut base_level = first;
    let base_size = if s <= base_min {
        base_min + 1
    } else {
        while base_level > 1 && s > base_bytes {
            base_level -= 1;
            s = div(s, m);
        }
        if s > base_bytes { base_bytes } else { s.max(1) }
    };
    let mut size = base_size;
    for (level, t) in target_bytes.iter_mut().enumerate().skip(base_level) {
        if level > base_level {
            size = mul(size, m);
        }
        *t = size.max(base_bytes);
    }
    LevelTargets {
        base_level,
        target_bytes,
    }
}

/// Target output file size for compactions into `level`: `target_file_size_base`
/// for the first two levels counted from L0 (static) or from the base level
/// (dynamic), then `× target_file_size_multiplier` per level, as RocksDB.
pub fn target_file_size(opts: &PickerOptions, targets: &LevelTargets, level: usize) -> u64 {
    let idx = if opts.level_compaction_dynamic_level_bytes && level >= targets.base_level {
        level - targets.base_level
    } else {
        level
    };
    let mut size = opts.target_file_size_base;
    for _ in 1..idx {
        size = size.saturating_mul(opts.target_file_size_multiplier);
    }
    size
}

fn ratio(num: u64, den: u64) -> f64 {
    num as f64 / den.max(1) as f64
}

/// Compaction scores of the levels that can be compacted from (L0 to the
/// second-to-last level), highest first (ties: lower level first). A score
/// ≥ 1 means the level needs compacting. Files being compacted are left out.
///
/// - **L0**: `files / level0_file_num_compaction_trigger`. Also, since L0
///   files can be large: in dynamic mode, at least 1.01 once L0 holds
///   `max_bytes_for_level_base` bytes, and `L0 bytes / max(base level bytes,
///   base level target)` when L0 outgrows the base level's target; in static
///   mode, at least `L0 bytes / max_bytes_for_level_base`.
/// - **L1+**: `bytes / target` (0 for levels without a target).
///
/// Bytes are compensated sizes.
pub fn compaction_scores(
    version: &Version,
    opts: &PickerOptions,
    targets: &LevelTargets,
) -> Vec<(usize, f64)> {
    let n = version.num_levels();
    if n < 2 {
        return Vec::new();
    }
    let idle = |f: &&Arc<FileMetaData>| !f.is_being_compacted();
    let idle_bytes = |level: usize| -> u64 {
        version
            .files(level)
            .iter()
            .filter(idle)
            .map(|f| f.compensated_size())
            .sum()
    };
    let mut scores = Vec::with_capacity(n - 1);

    let l0_files = version.files(0).iter().filter(idle).count() as u64;
    let l0_bytes = idle_bytes(0);
    let mut l0 = ratio(l0_files, opts.level0_file_num_compaction_trigger as u64);
    if opts.level_compaction_dynamic_level_bytes {
        if l0_bytes >= opts.max_bytes_for_level_base {
            l0 = l0.max(1.01);
        }
        let base_target = targets.target(targets.base_level);
        if l0_bytes > base_target {
            let base_bytes: u64 = version
                .files(targets.base_level)
                .iter()
                .map(|f| f.compensated_size())
                .sum();
            l0 = l0.max(ratio(l0_bytes, base_bytes.max(base_target)));
        }
    } else {
        l0 = l0.max(ratio(l0_bytes, opts.max_bytes_for_level_base));
    }
    scores.push((0, l0));

    for level in 1..n - 1 {
        let target = targets.target(level);
        let score = if target == u64::MAX {
            0.0
        } else {
            ratio(idle_bytes(level), target)
        };
        scores.push((level, score));
    }
    scores.sort_by(|a, b| b.1.total_cmp(&a.1));
    scores
}

/// Bytes compaction must still rewrite to bring every level within its
/// target (RocksDB's `estimated_compaction_needed_bytes`; the write
/// controller compares it with the pending-bytes limits):
///
/// 1. If L0 has reached its trigger (file count, or `max_bytes_for_level_base`
///    bytes), add L0's size plus the base level's size (an L0 compaction
///    rewrites both), and carry L0's size into the base level.
/// 2. For each level from the base level to the second-to-last: its size
///    plus what is carried into it; if that exceeds the target, the excess
///    is carried into the next level and, when the next level is not
///    empty, `excess × (next level size / level size + 1)` is added (the
///    excess plus the share of the next level it overlaps). An empty next
///    level adds nothing: the excess moves there by trivial moves.
///
/// Uses file sizes, and counts files being compacted.
pub fn estimated_pending_compaction_bytes(version: &Version, opts: &PickerOptions) -> u64 {
    let n = version.num_levels();
    if n < 2 {
        return 0;
    }
    let targets = level_targets(version, opts);
    let base = targets.base_level;
    let l0 = version.level_bytes(0);
    let mut total: u64 = 0;
    let mut carry: u64 = 0;
    if version.num_files(0) >= opts.level0_file_num_compaction_trigger
        || l0 >= opts.max_bytes_for_level_base
    {
        total = l0.saturating_add(version.level_bytes(base));
        carry = l0;
    }
    for level in base..n - 1 {
        let size = version.level_bytes(level).saturating_add(carry);
        carry = 0;
        let target = targets.target(level);
        if size > target {
            let excess = size - target;
            carry = excess;
            let next = version.level_bytes(level + 1);
            if next > 0 {
                let add = excess as f64 * (ratio(next, size) + 1.0);
                total = total.saturating_add(add as u64);
            }
        }
    }
    total
}

/// A compaction to run: which files, into which level, and how to cut outputs.
///
/// The job should hold the `Arc<Version>` the plan was picked from until its
/// edit is installed, so that [`crate::version::VersionSet::live_files`]
/// keeps reporting the input files while they are read.
#[derive(Clone, Debug)]
pub struct CompactionPlan {
    /// Input level.
    pub level: usize,
    /// Output level (`level + 1`, the base level for L0, or `level` for a
    /// manual compaction of the last level).
    pub output_level: usize,
    /// Input files of `level`: L0 oldest first, other levels in key order.
    pub inputs: Vec<Arc<FileMetaData>>,
    /// Input files of the levels between `level` and `output_level` (a
    /// universal compaction merges several sorted runs, each a level), in
    /// key order per level; empty for leveled and FIFO plans.
    pub middle_inputs: Vec<(usize, Vec<Arc<FileMetaData>>)>,
    /// Files of `output_level` rewritten with the inputs, in key order.
    pub output_inputs: Vec<Arc<FileMetaData>>,
    /// Files of `output_level + 1` overlapping the compaction: cut an output
    /// file before it overlaps more than `max_compaction_bytes` of them, so
    /// that the next compaction down stays small.
    pub grandparents: Vec<Arc<FileMetaData>>,
    /// Score of the input level when picked (0 for manual compactions).
    pub score: f64,
    /// Why it was picked.
    pub reason: CompactionReason,
    /// One input file and nothing to merge it with: the DB moves the file
    /// to `output_level` with an edit ([`Self::trivial_move_edit`]) instead
    /// of rewriting it.
    pub is_trivial_move: bool,
    /// No file below `output_level` overlaps the compaction's key range, so
    /// no older version of these keys exists below: tombstones not needed by
    /// a snapshot can be dropped.
    pub bottommost: bool,
    /// Target size of each output file.
    pub max_output_file_size: u64,
    /// For `RoundRobin`: the cursor of `level` after this compaction (the
    /// smallest key of the file after the last input; empty = wrap around).
    /// Recorded by [`Self::record_inputs`].
    pub next_compact_cursor: Option<Vec<u8>>,
    /// FIFO: the inputs are deleted, nothing is written
    /// ([`Self::record_inputs`] is the whole edit).
    pub drop_inputs: bool,
    /// False when universal's `compression_size_percent` asks for
    /// uncompressed outputs; true otherwise (the options' codec).
    pub compress_output: bool,
}

impl CompactionPlan {
    /// Inputs of every level.
    pub fn all_inputs(&self) -> impl Iterator<Item = &Arc<FileMetaData>> {
        self.inputs
            .iter()
            .chain(self.middle_inputs.iter().flat_map(|(_, f)| f.iter()))
            .chain(&self.output_inputs)
    }

    /// The inputs grouped by level, top down: `(level, files)`; empty
    /// groups left out.
    pub fn input_levels(&self) -> Vec<(usize, &[Arc<FileMetaData>])> {
        let mut out: Vec<(usize, &[Arc<FileMetaData>])> = vec![(self.level, &self.inputs)];
        out.extend(self.middle_inputs.iter().map(|(l, f)| (*l, f.as_slice())));
        if self.output_level != self.level {
            out.push((self.output_level, &self.output_inputs));
        }
        out.retain(|(_, f)| !f.is_empty());
        out
    }

    /// Total bytes of all inputs.
    pub fn input_bytes(&self) -> u64 {
        self.all_inputs().map(|f| f.file_size).sum()
    }

    /// Smallest and largest user key over all inputs.
    pub fn user_key_range(&self) -> (&[u8], &[u8]) {
        user_range(self.all_inputs()).unwrap_or_default()
    }

    /// Sets (`true`, when the plan is scheduled) or clears (`false`, when it
    /// is done or abandoned) the `being_compacted` flag of every input.
    pub fn mark_being_compacted(&self, on: bool) {
        for f in self.all_inputs() {
            debug_assert!(
                f.is_being_compacted() != on,
                "file #{} being_compacted already {on}",
                f.number
            );
            f.set_being_compacted(on);
        }
    }

    /// Adds to `edit` the deletion of every input and the next round-robin
    /// cursor; the DB adds the output files and applies the edit.
    pub fn record_inputs(&self, edit: &mut VersionEdit) {
        for (level, files) in self.input_levels() {
            for f in files {
                edit.delete_file(level, f.number);
            }
        }
        if let Some(c) = &self.next_compact_cursor {
            edit.set_compact_cursor(self.level, c.clone());
        }
    }

    /// The whole edit of a trivial move: the inputs above `output_level`
    /// leave their levels and the same files join `output_level` (inputs
    /// already there stay). Precondition: `is_trivial_move`.
    pub fn trivial_move_edit(&self) -> VersionEdit {
        debug_assert!(self.is_trivial_move);
        let mut edit = VersionEdit::new();
        for (level, files) in self.input_levels() {
            if level == self.output_level {
                continue;
            }
            for f in files {
                edit.delete_file(level, f.number);
                edit.add_file(self.output_level, Arc::new(f.clone_metadata()));
            }
        }
        if let Some(c) = &self.next_compact_cursor {
            edit.set_compact_cursor(self.level, c.clone());
        }
        edit
    }
}

fn user_range<'a>(
    files: impl IntoIterator<Item = &'a Arc<FileMetaData>>,
) -> Option<(&'a [u8], &'a [u8])> {
    files.into_iter().fold(None, |acc, f| {
        let (lo, hi) = (f.smallest_user_key(), f.largest_user_key());
        Some(match acc {
            None => (lo, hi),
            Some((a, b)) => (a.min(lo), b.max(hi)),
        })
    })
}

fn any_compacting(files: &[Arc<FileMetaData>]) -> bool {
    files.iter().any(|f| f.is_being_compacted())
}

fn total_size(files: &[Arc<FileMetaData>]) -> u64 {
    files.iter().map(|f| f.file_size).sum()
}

/// Files of `level` overlapping the user-key range of `files`, widened until
/// no user key straddles the boundary of the set (a "clean cut"): if a user
/// key's newer versions were compacted down while its older ones stayed in
/// the level, reads would find the older ones first. In L0 the overlap is
/// already closed (see [`Version::overlapping_files`]).
fn clean_cut(
    version: &Version,
    level: usize,
    files: &[Arc<FileMetaData>],
) -> Vec<Arc<FileMetaData>> {
    let Some((lo, hi)) = user_range(files) else {
        return Vec::new();
    };
    let mut set = version.overlapping_files(level, Some(lo), Some(hi));
    if level == 0 {
        return set;
    }
    loop {
        let (lo, hi) = user_range(&set).unwrap_or_default();
        let wider = version.overlapping_files(level, Some(lo), Some(hi));
        if wider.len() == set.len() {
            return set;
        }
        set = wider;
    }
}

/// L0 inputs oldest first.
fn oldest_first(mut files: Vec<Arc<FileMetaData>>) -> Vec<Arc<FileMetaData>> {
    files.sort_by(|a, b| l0_order(b, a));
    files
}

/// Completes a plan from its input files: output-level files, the
/// expansion of inputs, grandparents and flags. `None` when an output-level
/// file is already being compacted.
#[expect(
    clippy::too_many_arguments,
    reason = "internal helper shared by all pick paths"
)]
fn build_plan(
    version: &Version,
    opts: &PickerOptions,
    targets: &LevelTargets,
    level: usize,
    output_level: usize,
    mut inputs: Vec<Arc<FileMetaData>>,
    score: f64,
    reason: CompactionReason,
) -> Option<CompactionPlan> {
    let mut output_inputs = if output_level == level {
        Vec::new()
    } else {
        let (lo, hi) = user_range(&inputs)?;
        clean_cut(
            version,
            output_level,
            &version.overlapping_files(output_level, Some(lo), Some(hi)),
        )
    };
    if any_compacting(&output_inputs) {
        return None;
    }

    // Take more input files if that costs no more output-level files: the
    // output-level files are rewritten anyway, so inputs inside their range
    // come almost for free. Bounded by max_compaction_bytes.
    if !output_inputs.is_empty() {
        let (lo, hi) = user_range(inputs.iter().chain(&output_inputs))?;
        let mut grown = version.overlapping_files(level, Some(lo), Some(hi));
        grown = clean_cut(version, level, &grown);
        if grown.len() > inputs.len()
            && !any_compacting(&grown)
            && total_size(&grown).saturating_add(total_size(&output_inputs))
                < opts.max_compaction_bytes
        {
            let (glo, ghi) = user_range(&grown)?;
            let outputs = clean_cut(
                version,
                output_level,
                &version.overlapping_files(output_level, Some(glo), Some(ghi)),
            );
            if outputs.len() == output_inputs.len() {
                inputs = grown;
                output_inputs = outputs;
            }
        }
    }
    if level == 0 {
        inputs = oldest_first(inputs);
    }

    let (lo, hi) = user_range(inputs.iter().chain(&output_inputs))?;
    let n = version.num_levels();
    let grandparents = if output_level + 1 < n {
        version.overlapping_files(output_level + 1, Some(lo), Some(hi))
    } else {
        Vec::new()
    };
    let bottommost =
        (output_level + 1..n).all(|l| version.overlapping_files(l, Some(lo), Some(hi)).is_empty());
    let is_trivial_move = level != output_level
        && inputs.len() == 1
        && output_inputs.is_empty()
        && total_size(&grandparents) <= opts.max_compaction_bytes;
    Some(CompactionPlan {
        level,
        output_level,
        inputs,
        output_inputs,
        grandparents,
        score,
        reason,
        is_trivial_move,
        bottommost,
        max_output_file_size: target_file_size(opts, targets, output_level),
        next_compact_cursor: None,
        middle_inputs: Vec::new(),
        drop_inputs: false,
        compress_output: true,
    })
}

/// Picks the most urgent automatic compaction, or `None` when no level
/// scores ≥ 1 or every candidate collides with a running compaction.
///
/// Levels are tried in score order ([`compaction_scores`]), skipping a level
/// whose candidates are all blocked:
///
/// - **L0 → base level**: only when no L0 file is being compacted (L0
///   compactions run one at a time, so older L0 data always leaves first).
///   Starts from the oldest `level0_file_num_compaction_trigger` files (or
///   all, if fewer), takes every L0 file overlapping their key range
///   transitively, and the base-level files overlapping the result.
/// - **Ln → Ln+1**: tries the level's files in `compaction_pri` order,
///   skipping files being compacted and files whose clean-cut set or
///   next-level overlap holds a file being compacted:
///   - `MinOverlappingRatio`: smallest (bytes of overlapping Ln+1 files) /
///     (compensated size) first;
///   - `ByCompensatedSize`: largest compensated size first;
///   - `OldestLargestSeqFirst` / `OldestSmallestSeqFirst`: smallest
///     `largest_seq` / `smallest_seq` first;
///   - `RoundRobin`: key order starting at the level's cursor (the first file
///     whose smallest key is ≥ the cursor), wrapping around; the plan carries
///     the next cursor.
///
///   Ties keep key order.
///
/// - **L0 → L0**, when L0 → base level is blocked: see `pick_intra_l0`
///   (`memtable_floor`: the oldest sequence number in the family's
///   memtables; `u64::MAX` when they are empty).
///
/// Then, for both: inputs expand to a clean cut, then grow if that adds no
/// output-level file (see `max_compaction_bytes`); the plan is a trivial
/// move when it has one input, no output-level file, and at most
/// `max_compaction_bytes` of grandparent overlap.
///
/// `cursors[level]` is the round-robin cursor of each level
/// ([`crate::version::VersionSet::compact_cursors`]); missing or empty
/// entries start at the beginning.
pub fn pick_compaction(
    version: &Version,
    opts: &PickerOptions,
    cursors: &[Vec<u8>],
    memtable_floor: SequenceNumber,
) -> Option<CompactionPlan> {
    let targets = level_targets(version, opts);
    for (level, score) in compaction_scores(version, opts, &targets) {
        if score < 1.0 {
            break;
        }
        let plan = if level == 0 {
            pick_l0(version, opts, &targets, score)
                .or_else(|| pick_intra_l0(version, opts, score, memtable_floor))
        } else {
            pick_level(version, opts, &targets, level, score, cursors)
        };
        if plan.is_some() {
            return plan;
        }
    }
    None
}

fn pick_l0(
    version: &Version,
    opts: &PickerOptions,
    targets: &LevelTargets,
    score: f64,
) -> Option<CompactionPlan> {
    let l0 = version.files(0);
    if l0.is_empty() || any_compacting(l0) {
        return None;
    }
    let seeds = l0.len().min(opts.level0_file_num_compaction_trigger);
    let (lo, hi) = user_range(l0.iter().rev().take(seeds))?;
    let inputs = version.overlapping_files(0, Some(lo), Some(hi));
    build_plan(
        version,
        opts,
        targets,
        0,
        targets.base_level,
        inputs,
        score,
        CompactionReason::LevelL0FilesNum,
    )
}

/// L0 → L0 (RocksDB's intra-L0 compaction), tried when L0 → base level is
/// blocked (an L0 compaction is running, or the base-level files it needs
/// are being compacted) and L0 holds at least
/// `level0_file_num_compaction_trigger + 2` files, the newest of them idle.
/// It merges a run of L0 files into one, so that L0's file count (the
/// write controller's input, and the read cost of every lookup) falls while
/// L0 → base waits; the later L0 → base compaction then merges fewer,
/// larger files, and the base level is rewritten once for all of them
/// instead of once per batch (the shape of an import by ingestion of
/// overlapping files: RocksDB keeps every L0 → base compaction but the last
/// waiting this way). Pinned by `intra_l0_merges_newest_idle_run_when_base_is_blocked`.
///
/// The run: walking L0 newest first, files holding a sequence number at or
/// above `memtable_floor` (the oldest number in the family's memtables) are
/// passed over — the merged file would sort above the memtables' future
/// flushes while holding rows older than theirs, so reads of a key in both
/// would find the older row first; from the first file below the floor,
/// idle files are taken in order until one is being compacted, the bytes
/// would exceed `max_compaction_bytes`, or the bytes rewritten per file
/// removed (`bytes / (files - 1)`) would grow. At least
/// [`MIN_INTRA_L0_FILES`] files, else `None`. The run is contiguous in L0's
/// newest-first order, so the merged file takes the run's place in it.
/// Output: one file, never the bottom of its keys' history.
fn pick_intra_l0(
    version: &Version,
    opts: &PickerOptions,
    score: f64,
    memtable_floor: SequenceNumber,
) -> Option<CompactionPlan> {
    let l0 = version.files(0);
    if l0.len() < opts.level0_file_num_compaction_trigger.saturating_add(2)
        || l0.first()?.is_being_compacted()
    {
        return None;
    }
    let mut newest_first = l0.iter();
    let first = newest_first.find(|f| f.largest_seq < memtable_floor || f.is_being_compacted())?;
    if first.is_being_compacted() {
        return None;
    }
    let mut run = vec![first.clone()];
    let mut bytes = first.file_size;
    let mut per_removed = u64::MAX;
    for f in newest_first {
        let with = bytes.saturating_add(f.file_size);
        let per = with / run.len() as u64;
        if f.is_being_compacted() || per > per_removed || with > opts.max_compaction_bytes {
            break;
        }
        per_removed = per;
        bytes = with;
        run.push(f.clone());
    }
    if run.len() < MIN_INTRA_L0_FILES {
        return None;
    }
    Some(CompactionPlan {
        level: 0,
        output_level: 0,
        inputs: oldest_first(run),
        middle_inputs: Vec::new(),
        output_inputs: Vec::new(),
        grandparents: Vec::new(),
        score,
        reason: CompactionReason::LevelL0FilesNum,
        is_trivial_move: false,
        bottommost: false,
        max_output_file_size: u64::MAX,
        next_compact_cursor: None,
        drop_inputs: false,
        compress_output: true,
    })
}

/// Indices of the files of `level` in the order `compaction_pri` tries them.
fn candidate_order(
    version: &Version,
    opts: &PickerOptions,
    level: usize,
    cursor: &[u8],
) -> Vec<usize> {
    let files = version.files(level);
    let mut order: Vec<usize> = (0..files.len()).collect();
    match opts.compaction_pri {
        CompactionPriority::ByCompensatedSize => {
            order.sort_by_key(|&i| std::cmp::Reverse(files[i].compensated_size()));
        }
        CompactionPriority::OldestLargestSeqFirst => order.sort_by_key(|&i| files[i].largest_seq),
        CompactionPriority::OldestSmallestSeqFirst => order.sort_by_key(|&i| files[i].smallest_seq),
        CompactionPriority::MinOverlappingRatio => {
            let overlap: Vec<u128> = files
                .iter()
                .map(|f| {
                    let next = version.overlapping_files(
                        level + 1,
                        Some(f.smallest_user_key()),
                        Some(f.largest_user_key()),
                    );
                    u128::from(total_size(&next))
                })
                .collect();
            let size = |i: usize| u128::from(files[i].compensated_size().max(1));
            // a/sa < b/sb  <=>  a·sb < b·sa, exact in u128.
            order.sort_by(|&a, &b| (overlap[a] * size(b)).cmp(&(overlap[b] * size(a))));
        }
        CompactionPriority::RoundRobin => {
            if !cursor.is_empty() {
                let start = files.partition_point(|f| {
                    key::compare_internal(&f.smallest, cursor) == Ordering::Less
                });
                order.rotate_left(start);
            }
        }
    }
    order
}

fn pick_level(
    version: &Version,
    opts: &PickerOptions,
    targets: &LevelTargets,
    level: usize,
    score: f64,
    cursors: &[Vec<u8>],
) -> Option<CompactionPlan> {
    let files = version.files(level);
    let cursor = cursors.get(level).map_or(&[][..], Vec::as_slice);
    for i in candidate_order(version, opts, level, cursor) {
        let f = &files[i];
        if f.is_being_compacted() {
            continue;
        }
        let inputs = clean_cut(version, level, std::slice::from_ref(f));
        if any_compacting(&inputs) {
            continue;
        }
        let Some(mut plan) = build_plan(
            version,
            opts,
            targets,
            level,
            level + 1,
            inputs,
            score,
            CompactionReason::LevelMaxLevelSize,
        ) else {
            continue;
        };
        if opts.compaction_pri == CompactionPriority::RoundRobin {
            let last = plan.inputs.last().map(|f| f.number);
            let pos = files.iter().position(|f| Some(f.number) == last);
            let next = pos.and_then(|p| files.get(p + 1));
            plan.next_compact_cursor = Some(next.map(|f| f.smallest.clone()).unwrap_or_default());
        }
        return Some(plan);
    }
    None
}

/// Result of [`try_pick_manual`].
#[derive(Debug)]
pub enum ManualPick {
    /// Run this compaction, then ask again for the same level.
    Plan(CompactionPlan),
    /// Nothing (more) in the range at this level: go to the next level.
    Empty,
    /// A file involved is being compacted: wait for running compactions to
    /// finish, then ask again.
    Busy,
}

/// One step of a manual compaction (`compactRange`) of user keys
/// `[begin, end]` (inclusive, `None` = unbounded) from `input_level`.
///
/// The output level is the base level for L0, `input_level + 1` for other
/// levels, and `input_level` itself for the last level (a rewrite in place).
/// With a single level there is nowhere to compact to: always `Empty`.
/// The inputs are the files of `input_level` overlapping the range (closed
/// transitively in L0, clean-cut elsewhere); from a level ≥ 1 into the next,
/// they are limited to a prefix in key order of at most
/// `max_compaction_bytes` (at least one file), so a large range runs as
/// several plans. Since each plan moves its inputs out of `input_level`,
/// asking again makes progress; for an in-place rewrite of the last level
/// the whole range is one plan.
///
/// RocksDB-style driver in the DB:
///
/// ```text
/// level = 0
/// while level < num_non_empty_levels - 1:        // recomputed each round
///     loop: match try_pick_manual(current, opts, level, begin, end)
///         Plan(p) => mark, run (or trivially move), install, unmark
///         Busy    => wait for a compaction to finish
///         Empty   => break
///     level = if level == 0 { base_level } else { level + 1 }
/// ```
pub fn try_pick_manual(
    version: &Version,
    opts: &PickerOptions,
    input_level: usize,
    begin: Option<&[u8]>,
    end: Option<&[u8]>,
) -> ManualPick {
    let n = version.num_levels();
    if input_level >= n || n < 2 {
        return ManualPick::Empty;
    }
    let targets = level_targets(version, opts);
    let output_level = if input_level == 0 {
        targets.base_level
    } else if input_level == n - 1 {
        input_level
    } else {
        input_level + 1
    };
    let mut inputs = version.overlapping_files(input_level, begin, end);
    if inputs.is_empty() {
        return ManualPick::Empty;
    }
    if input_level == 0 {
        if any_compacting(version.files(0)) {
            return ManualPick::Busy;
        }
    } else {
        if output_level != input_level {
            let mut bytes = 0;
            let take = inputs
                .iter()
                .take_while(|f| {
                    let fits = bytes == 0 || bytes + f.file_size <= opts.max_compaction_bytes;
                    bytes += f.file_size;
                    fits
                })
                .count();
            inputs.truncate(take);
        }
        inputs = clean_cut(version, input_level, &inputs);
        if any_compacting(&inputs) {
            return ManualPick::Busy;
        }
    }
    match build_plan(
        version,
        opts,
        &targets,
        input_level,
        output_level,
        inputs,
        0.0,
        CompactionReason::ManualCompaction,
    ) {
        Some(plan) => ManualPick::Plan(plan),
        None => ManualPick::Busy,
    }
}

/// A manual compaction of the whole key space (`compactRange()` with no
/// bounds) as one plan: every file of every level above the last non-empty
/// one merged with that level's files within their key range into it. The
/// level-by-level driver
/// ([`try_pick_manual`]) ends in the same place, the data in the last
/// non-empty level, but writes each level's data once per level it passes:
/// after a bulk import L0 and the base level go into the base level first
/// and are then written again with the last level (the `LOG` of a
/// 20M-row import: that first step was a sixth of the final compaction's
/// writes). One merge writes each byte once.
///
/// `Empty` when the driver should go level by level instead: no level
/// below L0 holds a file (nowhere to merge into but the base level), no
/// file lies above the last non-empty level, or the files above it hold
/// more than `max_compaction_bytes` (the bound a level-by-level step puts
/// on its input level). `Busy` when a file involved is being compacted
/// (the DB then goes level by level too, rather than wait for every level
/// to be idle at once). Pinned by `whole_key_space_manual_plan_merges_every_level_into_the_last`
/// and, on a database, `compact_range_of_everything_is_one_merge_into_the_last_level`.
pub fn try_pick_manual_whole(version: &Version, opts: &PickerOptions) -> ManualPick {
    let n = version.num_levels();
    let Some(last) = (1..n).rev().find(|&l| version.num_files(l) > 0) else {
        return ManualPick::Empty;
    };
    let upper: Vec<usize> = (0..last).filter(|&l| version.num_files(l) > 0).collect();
    let Some(&top) = upper.first() else {
        return ManualPick::Empty;
    };
    let above: u64 = upper.iter().map(|&l| version.level_bytes(l)).sum();
    if above > opts.max_compaction_bytes {
        return ManualPick::Empty;
    }
    // Of the last level, the files within the upper files' key range, as a
    // step from the level above would take them: one contiguous run, so
    // that no output straddles a file left out.
    let Some((lo, hi)) = user_range((0..last).flat_map(|l| version.files(l))) else {
        return ManualPick::Empty;
    };
    let files = |l: usize| version.files(l).to_vec();
    let inputs = if top == 0 {
        oldest_first(files(0))
    } else {
        files(top)
    };
    let targets = level_targets(version, opts);
    let plan = CompactionPlan {
        level: top,
        output_level: last,
        inputs,
        middle_inputs: upper[1..].iter().map(|&l| (l, files(l))).collect(),
        output_inputs: clean_cut(
            version,
            last,
            &version.overlapping_files(last, Some(lo), Some(hi)),
        ),
        // Nothing lies below the last non-empty level.
        grandparents: Vec::new(),
        score: 0.0,
        reason: CompactionReason::ManualCompaction,
        is_trivial_move: false,
        bottommost: true,
        max_output_file_size: target_file_size(opts, &targets, last),
        next_compact_cursor: None,
        drop_inputs: false,
        compress_output: true,
    };
    if plan.all_inputs().any(|f| f.is_being_compacted()) {
        return ManualPick::Busy;
    }
    ManualPick::Plan(plan)
}

/// One step of rewriting the files of `level` overlapping `[begin, end]`
/// into `level` itself (`compactRange` with a forced bottommost-level
/// compaction: the last non-empty level rewritten in place). Files numbered
/// above `newer_than` (the files a manual compaction wrote itself, for
/// `kForceOptimized`) are left out; `None` takes every file. Returns
/// `Empty` when no file is left, `Busy` when one is being compacted.
pub fn try_pick_manual_in_place(
    version: &Version,
    opts: &PickerOptions,
    level: usize,
    begin: Option<&[u8]>,
    end: Option<&[u8]>,
    newer_than: Option<u64>,
) -> ManualPick {
    if level == 0 || level >= version.num_levels() {
        return ManualPick::Empty;
    }
    let mut inputs = version.overlapping_files(level, begin, end);
    if let Some(n) = newer_than {
        inputs.retain(|f| f.number <= n);
    }
    if inputs.is_empty() {
        return ManualPick::Empty;
    }
    let inputs = clean_cut(version, level, &inputs);
    if any_compacting(&inputs) {
        return ManualPick::Busy;
    }
    let targets = level_targets(version, opts);
    match build_plan(
        version,
        opts,
        &targets,
        level,
        level,
        inputs,
        0.0,
        CompactionReason::ManualCompaction,
    ) {
        Some(plan) => ManualPick::Plan(plan),
        None => ManualPick::Busy,
    }
}

/// [`try_pick_manual`] without the reason when there is no plan.
pub fn pick_manual(
    version: &Version,
    opts: &PickerOptions,
    input_level: usize,
    begin: Option<&[u8]>,
    end: Option<&[u8]>,
) -> Option<CompactionPlan> {
    match try_pick_manual(version, opts, input_level, begin, end) {
        ManualPick::Plan(p) => Some(p),
        ManualPick::Empty | ManualPick::Busy => None,
    }
}

#[cfg(test)]
mod tests;
