//! Table tests of the universal picker over hand-built versions. L0 file
//! `i` of a case carries sequence number `100 - i`, so the order written is
//! newest first; levels below L0 are given as whole runs.

use super::*;
use crate::key::{ValueKind, make_internal_key};

fn file(number: u64, lo: &str, hi: &str, size: u64, seq: u64) -> Arc<FileMetaData> {
    Arc::new(FileMetaData {
        number,
        file_size: size,
        smallest: make_internal_key(lo.as_bytes(), seq, ValueKind::Value),
        largest: make_internal_key(hi.as_bytes(), seq, ValueKind::Value),
        smallest_seq: seq,
        largest_seq: seq,
        num_entries: 1,
        ..FileMetaData::default()
    })
}

/// L0 run sizes (newest first) and `(level, size)` of the lower runs; every
/// file covers keys a..z.
fn version(l0: &[u64], lower: &[(usize, u64)]) -> Version {
    let mut levels = vec![Vec::new(); 7];
    for (i, &size) in l0.iter().enumerate() {
        levels[0].push(file(i as u64 + 1, "a", "z", size, 100 - i as u64));
    }
    for (j, &(level, size)) in lower.iter().enumerate() {
        levels[level].push(file(50 + j as u64, "a", "z", size, 10 - j as u64));
    }
    Version::from_levels(levels).unwrap()
}

fn opts(u: UniversalOptions) -> UniversalPickerOptions {
    UniversalPickerOptions {
        num_levels: 7,
        trigger: 4,
        universal: u,
    }
}

fn sizes(plan: &UniversalPlan) -> Vec<u64> {
    plan.runs.iter().map(|r| r.size).collect()
}

#[test]
fn defaults_are_rocksdbs() {
    let u = UniversalOptions::default();
    assert_eq!(
        (
            u.size_ratio,
            u.min_merge_width,
            u.max_merge_width,
            u.max_size_amplification_percent,
            u.compression_size_percent,
            u.stop_style,
            u.allow_trivial_move
        ),
        (1, 2, u32::MAX, 200, -1, StopStyle::TotalSize, false)
    );
}

#[test]
fn sorted_runs_are_l0_files_then_non_empty_levels_newest_first() {
    let v = version(&[1, 2], &[(3, 30), (6, 600)]);
    let runs = sorted_runs(&v);
    let shape: Vec<(usize, u64)> = runs.iter().map(|r| (r.level, r.size)).collect();
    assert_eq!(shape, [(0, 1), (0, 2), (3, 30), (6, 600)]);
    assert_eq!(stall_run_count(&v), 4);
}

#[test]
fn table_of_picks() {
    type Case = (
        &'static str,
        Vec<u64>,
        Vec<(usize, u64)>,
        UniversalOptions,
        Option<(UniversalReason, Vec<u64>, usize)>,
    );
    let d = UniversalOptions::default;
    let cases: Vec<Case> = vec![
        (
            "below the trigger: nothing",
            vec![10, 10, 10],
            vec![],
            d(),
            None,
        ),
        (
            "four equal runs: size ratio merges them all into the last level",
            vec![10, 10, 10, 10],
            vec![],
            d(),
            Some((UniversalReason::SizeAmplification, vec![10, 10, 10, 10], 6)),
        ),
        (
            "newer runs small against the base: size ratio merges the similar newest ones into L0",
            vec![1, 1, 1, 100],
            vec![(6, 10_000)],
            d(),
            Some((UniversalReason::SizeRatio, vec![1, 1, 1], 0)),
        ),
        (
            "size amplification: newer runs reach 200% of the oldest",
            vec![1, 50, 100],
            vec![(6, 70)],
            d(),
            Some((UniversalReason::SizeAmplification, vec![1, 50, 100, 70], 6)),
        ),
        (
            "no ratio fits: merge the newest to get below the trigger",
            vec![1, 10, 100],
            vec![(5, 1_000), (6, 1_000_000)],
            d(),
            Some((UniversalReason::SortedRunNum, vec![1, 10], 0)),
        ),
        (
            "the run after the pick is a level: output just above it",
            vec![5, 5],
            vec![(4, 5_000), (5, 50_000), (6, 5_000_000)],
            d(),
            Some((UniversalReason::SizeRatio, vec![5, 5], 3)),
        ),
        (
            "a wider size ratio gathers larger runs",
            vec![10, 15, 30],
            vec![(6, 1_000_000)],
            UniversalOptions {
                size_ratio: 100,
                ..d()
            },
            Some((UniversalReason::SizeRatio, vec![10, 15, 30], 5)),
        ),
        (
            "min_merge_width 4 skips pairs, also when reducing the run count",
            vec![1, 1, 100, 100],
            vec![(6, 1_000_000)],
            UniversalOptions {
                min_merge_width: 4,
                ..d()
            },
            None,
        ),
        (
            "min_merge_width 4: enough runs over the trigger merge four, sizes aside",
            vec![1, 1, 100, 100, 1_000, 1_000],
            vec![(6, 1_000_000)],
            UniversalOptions {
                min_merge_width: 4,
                ..d()
            },
            Some((UniversalReason::SortedRunNum, vec![1, 1, 100, 100], 0)),
        ),
        (
            "max_merge_width caps the pick",
            vec![1, 1, 1, 1, 1],
            vec![(6, 1_000_000)],
            UniversalOptions {
                max_merge_width: 3,
                ..d()
            },
            Some((UniversalReason::SizeRatio, vec![1, 1, 1], 0)),
        ),
        (
            "similar-size stop: a much smaller next run ends the pick",
            vec![10, 10, 1, 1],
            vec![(6, 1_000_000)],
            UniversalOptions {
                stop_style: StopStyle::SimilarSize,
                ..d()
            },
            Some((UniversalReason::SizeRatio, vec![10, 10], 0)),
        ),
        (
            "size amplification of 100% triggers earlier",
            vec![1, 1, 1],
            vec![(6, 3)],
            UniversalOptions {
                max_size_amplification_percent: 100,
                size_ratio: 0,
                ..d()
            },
            Some((UniversalReason::SizeAmplification, vec![1, 1, 1, 3], 6)),
        ),
    ];
    for (name, l0, lower, u, want) in cases {
        let v = version(&l0, &lower);
        let got = pick_universal(&v, &opts(u)).map(|p| (p.reason, sizes(&p), p.output_level));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn runs_being_compacted_are_skipped_and_block_size_amplification() {
    let v = version(&[1, 1, 1, 1, 1], &[(6, 3)]);
    let runs = sorted_runs(&v);
    // The newest run is being compacted: the size-ratio pick starts below it.
    runs[0].files[0]
        .being_compacted
        .store(true, std::sync::atomic::Ordering::Release);
    let o = opts(UniversalOptions {
        max_size_amplification_percent: 1_000,
        ..UniversalOptions::default()
    });
    let p = pick_universal(&v, &o).unwrap();
    assert_eq!(p.reason, UniversalReason::SizeRatio);
    assert_eq!(p.runs[0].files[0].number, runs[1].files[0].number);
    assert!(p.input_files().all(|f| !f.is_being_compacted()));
    // A run in the middle being compacted: no size-amplification pick.
    let v = version(&[1, 1, 1], &[(6, 1)]);
    let runs = sorted_runs(&v);
    runs[1].files[0]
        .being_compacted
        .store(true, std::sync::atomic::Ordering::Release);
    let p = pick_universal(&v, &opts(UniversalOptions::default()));
    assert!(
        p.as_ref()
            .is_none_or(|p| p.reason != UniversalReason::SizeAmplification),
        "{p:?}"
    );
    // Marking a plan marks exactly its files.
    let v = version(&[1, 1, 1, 1], &[]);
    let p = pick_universal(&v, &opts(UniversalOptions::default())).unwrap();
    p.mark_being_compacted(true);
    assert!(sorted_runs(&v).iter().all(|r| r.being_compacted));
    p.mark_being_compacted(false);
    assert!(sorted_runs(&v).iter().all(|r| !r.being_compacted));
}

#[test]
fn trivial_move_only_when_allowed_and_the_inputs_do_not_overlap() {
    let disjoint = |allow| {
        let mut levels = vec![Vec::new(); 7];
        for (i, (lo, hi)) in [("a", "b"), ("c", "d"), ("e", "f"), ("g", "h")]
            .iter()
            .enumerate()
        {
            levels[0].push(file(i as u64 + 1, lo, hi, 10, 100 - i as u64));
        }
        let v = Version::from_levels(levels).unwrap();
        pick_universal(
            &v,
            &opts(UniversalOptions {
                allow_trivial_move: allow,
                ..UniversalOptions::default()
            }),
        )
        .unwrap()
        .is_trivial_move
    };
    assert!(disjoint(true));
    assert!(!disjoint(false));
    let overlapping = version(&[10, 10, 10, 10], &[]);
    let p = pick_universal(
        &overlapping,
        &opts(UniversalOptions {
            allow_trivial_move: true,
            ..UniversalOptions::default()
        }),
    )
    .unwrap();
    assert!(!p.is_trivial_move);
}

#[test]
fn compression_size_percent_leaves_young_outputs_uncompressed() {
    // Runs 1,1,1,1 over a base of 1000: the older data (the base) is over
    // 50% of the total, so the merged young runs are not compressed.
    let v = version(&[1, 1, 1, 1], &[(6, 1_000)]);
    let pick = |percent| {
        pick_universal(
            &v,
            &opts(UniversalOptions {
                compression_size_percent: percent,
                ..UniversalOptions::default()
            }),
        )
        .unwrap()
    };
    let p = pick(50);
    assert_eq!(p.reason, UniversalReason::SizeRatio);
    assert!(!p.compress_output);
    assert!(pick(-1).compress_output);
    // A pick that reaches the oldest run is always compressed.
    let v = version(&[10, 10, 10, 10], &[]);
    let p = pick_universal(
        &v,
        &opts(UniversalOptions {
            compression_size_percent: 50,
            ..UniversalOptions::default()
        }),
    )
    .unwrap();
    assert!(p.compress_output && p.bottommost);
}

#[test]
fn one_level_databases_keep_everything_in_l0() {
    let mut o = opts(UniversalOptions::default());
    o.num_levels = 1;
    let mut levels = vec![Vec::new(); 1];
    for i in 0..4u64 {
        levels[0].push(file(i + 1, "a", "z", 10, 100 - i));
    }
    let v = Version::from_levels(levels).unwrap();
    let p = pick_universal(&v, &o).unwrap();
    assert_eq!(p.output_level, 0);
    assert!(p.bottommost);
}

/// The DB's plan of a universal pick: inputs grouped by level (L0 oldest
/// first), the oldest run's level as `output_inputs` when it is the output
/// level, outputs to L0 uncut, no trivial move into L0.
#[test]
fn into_plan_groups_the_runs_by_level() {
    let v = version(&[10, 10, 10], &[(3, 30), (6, 1000)]);
    let picker = PickerOptions {
        target_file_size_base: 64,
        target_file_size_multiplier: 2,
        ..PickerOptions::default()
    };
    // Everything, into L6.
    let p = pick_universal_manual(&v, &picker).expect("a plan");
    assert_eq!((p.level, p.output_level), (0, 6));
    let l0: Vec<u64> = p.inputs.iter().map(|f| f.number).collect();
    assert_eq!(l0, vec![3, 2, 1], "L0 inputs oldest first");
    assert_eq!(p.middle_inputs.len(), 1);
    assert_eq!(p.middle_inputs[0].0, 3);
    assert_eq!(p.output_inputs.len(), 1);
    assert!(p.bottommost && !p.is_trivial_move);
    assert_eq!(p.max_output_file_size, 64 * 2 * 2 * 2 * 2 * 2);
    assert_eq!(p.reason, CompactionReason::ManualCompaction);
    assert_eq!(p.all_inputs().count(), 5);
    // Two L0 runs followed by an L0 run: the output stays in L0, one table.
    let runs = sorted_runs(&v);
    let plan = UniversalPlan {
        runs: runs[..2].to_vec(),
        output_level: 0,
        reason: UniversalReason::SizeRatio,
        compress_output: false,
        is_trivial_move: true,
        bottommost: false,
    }
    .into_plan(&picker, 1.0);
    assert_eq!((plan.level, plan.output_level), (0, 0));
    assert!(plan.output_inputs.is_empty() && plan.middle_inputs.is_empty());
    assert_eq!(plan.max_output_file_size, u64::MAX);
    assert!(!plan.is_trivial_move, "a move into L0 would move nothing");
    assert!(!plan.compress_output);
    assert_eq!(plan.reason, CompactionReason::UniversalSizeRatio);
}
