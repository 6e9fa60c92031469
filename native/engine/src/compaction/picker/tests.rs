//! Table tests of the picker over hand-built versions. Sizes are small
//! numbers: base level target 100, multiplier 10, L0 trigger 4, target file
//! size 10 (so max_compaction_bytes is 250), seven levels.

use super::*;
use crate::key::{ValueKind, make_internal_key};

const MAX: u64 = u64::MAX;

/// `(level, file)` pairs a version is built from.
type Files = Vec<(usize, Arc<FileMetaData>)>;

fn ik(k: &str, seq: u64) -> Vec<u8> {
    make_internal_key(k.as_bytes(), seq, ValueKind::Value)
}

/// A file whose keys and sequence numbers all carry `seq`.
fn file(number: u64, lo: &str, hi: &str, size: u64, seq: u64) -> Arc<FileMetaData> {
    Arc::new(FileMetaData {
        number,
        file_size: size,
        smallest: ik(lo, seq),
        largest: ik(hi, seq),
        smallest_seq: seq,
        largest_seq: seq,
        num_entries: 1,
        ..FileMetaData::default()
    })
}

fn with(f: Arc<FileMetaData>, edit: impl FnOnce(&mut FileMetaData)) -> Arc<FileMetaData> {
    let mut m = f.clone_metadata();
    edit(&mut m);
    Arc::new(m)
}

fn version(files: Files) -> Version {
    let mut levels = vec![Vec::new(); 7];
    for (level, f) in files {
        levels[level].push(f);
    }
    Version::from_levels(levels).unwrap()
}

fn sized(sizes: &[(usize, u64)]) -> Version {
    let files = sizes
        .iter()
        .enumerate()
        .map(|(i, &(level, size))| (level, file(100 + i as u64, "a", "z", size, 1)))
        .collect();
    version(files)
}

fn opts(dynamic: bool) -> PickerOptions {
    PickerOptions {
        num_levels: 7,
        level0_file_num_compaction_trigger: 4,
        level0_slowdown_writes_trigger: 20,
        level0_stop_writes_trigger: 36,
        max_bytes_for_level_base: 100,
        max_bytes_for_level_multiplier: 10.0,
        level_compaction_dynamic_level_bytes: dynamic,
        target_file_size_base: 10,
        target_file_size_multiplier: 1,
        compaction_pri: CompactionPriority::MinOverlappingRatio,
        max_compaction_bytes: 250,
    }
}

fn pri(p: CompactionPriority) -> PickerOptions {
    PickerOptions {
        compaction_pri: p,
        ..opts(false)
    }
}

fn nums(files: &[Arc<FileMetaData>]) -> Vec<u64> {
    files.iter().map(|f| f.number).collect()
}

#[test]
fn options_come_from_options() {
    let p = PickerOptions::from(&Options::default());
    assert_eq!(p.num_levels, 7);
    assert_eq!(p.level0_file_num_compaction_trigger, 4);
    assert_eq!(p.max_bytes_for_level_base, 256 << 20);
    assert_eq!(p.target_file_size_base, 64 << 20);
    assert_eq!(p.max_compaction_bytes, 25 * (64 << 20));
    assert!(p.level_compaction_dynamic_level_bytes);
    assert_eq!(p.compaction_pri, CompactionPriority::MinOverlappingRatio);
    assert_eq!(p, PickerOptions::default());
}

#[test]
fn static_targets_grow_by_the_multiplier_from_l1() {
    let t = level_targets(&Version::new(7), &opts(false));
    assert_eq!(t.base_level, 1);
    assert_eq!(
        t.target_bytes,
        [100, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000]
    );
    // Independent of the data.
    assert_eq!(level_targets(&sized(&[(6, 1 << 40)]), &opts(false)), t);
}

#[test]
fn dynamic_base_level_follows_the_largest_level() {
    // (level sizes) -> (base level, targets of L1..L6)
    type Sizes = Vec<(usize, u64)>;
    let cases: Vec<(Sizes, usize, [u64; 6])> = vec![
        // No data below L0: L0 compacts straight into the last level.
        (vec![], 6, [MAX; 6]),
        (vec![(0, 500)], 6, [MAX; 6]),
        // Small tree: everything in L6, whose target never drops below base.
        (vec![(6, 5)], 6, [MAX, MAX, MAX, MAX, MAX, 100]),
        (vec![(6, 50)], 6, [MAX, MAX, MAX, MAX, MAX, 100]),
        (vec![(6, 900)], 5, [MAX, MAX, MAX, MAX, 100, 900]),
        (vec![(6, 1_000)], 5, [MAX, MAX, MAX, MAX, 100, 1_000]),
        // 12345 -> 1234 -> 123 -> 12: base level L3 sized 12, raised to 100.
        (vec![(6, 12_345)], 3, [MAX, MAX, 100, 120, 1_200, 12_000]),
        // Even L1 would exceed the base size: L1 gets exactly the base size.
        (
            vec![(6, 1_000_000_000)],
            1,
            [100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000],
        ),
        // The first non-empty level bounds how high the base level starts.
        (
            vec![(4, 500), (6, 5_000)],
            4,
            [MAX, MAX, MAX, 100, 500, 5_000],
        ),
        // The largest level drives the targets even when it is not the last.
        (
            vec![(5, 2_000), (6, 300)],
            4,
            [MAX, MAX, MAX, 100, 200, 2_000],
        ),
    ];
    for (sizes, base, want) in cases {
        let t = level_targets(&sized(&sizes), &opts(true));
        assert_eq!(t.base_level, base, "{sizes:?}");
        assert_eq!(t.target_bytes[0], 100, "{sizes:?}");
        assert_eq!(t.target_bytes[1..], want, "{sizes:?}");
    }
}

#[test]
fn target_file_sizes_grow_below_the_first_levels() {
    let o = PickerOptions {
        target_file_size_multiplier: 2,
        ..opts(false)
    };
    let t = level_targets(&Version::new(7), &o);
    let got: Vec<u64> = (0..7).map(|l| target_file_size(&o, &t, l)).collect();
    assert_eq!(got, [10, 10, 20, 40, 80, 160, 320]);
    let o = PickerOptions {
        level_compaction_dynamic_level_bytes: true,
        ..o
    };
    let t = level_targets(&sized(&[(4, 500), (6, 5_000)]), &o);
    assert_eq!(t.base_level, 4);
    let got: Vec<u64> = (4..7).map(|l| target_file_size(&o, &t, l)).collect();
    assert_eq!(got, [10, 10, 20]);
}

#[test]
fn nothing_to_do_under_the_triggers() {
    let v = version(vec![
        (0, file(1, "a", "b", 1, 1)),
        (0, file(2, "a", "b", 1, 2)),
        (0, file(3, "a", "b", 1, 3)),
        (1, file(10, "a", "m", 45, 0)),
        (1, file(11, "n", "z", 45, 0)),
    ]);
    let o = opts(false);
    let scores = compaction_scores(&v, &o, &level_targets(&v, &o));
    assert_eq!(scores[0], (1, 0.9));
    assert_eq!(scores[1], (0, 0.75));
    assert!(pick_compaction(&v, &o, &[], MAX).is_none());
    assert_eq!(estimated_pending_compaction_bytes(&v, &o), 0);
}

#[test]
fn scores_are_sorted_highest_first() {
    let v = version(vec![
        (0, file(1, "a", "b", 1, 1)),
        (0, file(2, "a", "b", 1, 2)),
        (1, file(10, "a", "m", 75, 0)),
        (1, file(11, "n", "z", 75, 0)),
        (2, file(20, "a", "z", 3_000, 0)),
        (3, file(30, "a", "z", 5_000, 0)),
    ]);
    let o = opts(false);
    let scores = compaction_scores(&v, &o, &level_targets(&v, &o));
    assert_eq!(
        scores,
        [(2, 3.0), (1, 1.5), (0, 0.5), (3, 0.5), (4, 0.0), (5, 0.0)]
    );
    let plan = pick_compaction(&v, &o, &[], MAX).unwrap();
    assert_eq!((plan.level, plan.output_level), (2, 3));
    assert_eq!(plan.reason, CompactionReason::LevelMaxLevelSize);
    assert_eq!(plan.score, 3.0);
}

#[test]
fn l0_scores_count_files_and_bytes() {
    // (dynamic, files) -> L0 score
    let cases: Vec<(bool, Files, f64)> = vec![
        // Static: bytes against max_bytes_for_level_base.
        (false, vec![(0, file(1, "a", "b", 250, 1))], 2.5),
        (false, vec![(0, file(1, "a", "b", 50, 1))], 0.5),
        (false, vec![(0, file(1, "a", "b", 10, 1))], 0.25),
        // Dynamic, empty tree: one L0 file of base size is enough.
        (true, vec![(0, file(1, "a", "b", 150, 1))], 1.01),
        // Dynamic, base level L5 (target 100) empty: L0 bytes / base target.
        (
            true,
            vec![
                (0, file(1, "a", "b", 300, 1)),
                (6, file(60, "a", "z", 1_000, 0)),
            ],
            3.0,
        ),
        // ... or / base level bytes when the base level is bigger.
        (
            true,
            vec![
                (0, file(1, "a", "b", 300, 1)),
                (5, file(50, "a", "z", 150, 0)),
                (6, file(60, "a", "z", 1_000, 0)),
            ],
            2.0,
        ),
    ];
    for (dynamic, files, want) in cases {
        let v = version(files);
        let o = opts(dynamic);
        let scores = compaction_scores(&v, &o, &level_targets(&v, &o));
        let l0 = scores.iter().find(|s| s.0 == 0).unwrap().1;
        assert_eq!(l0, want, "dynamic={dynamic} {v:?}");
    }
}

#[test]
fn l0_compaction_takes_the_oldest_files_and_their_closure() {
    let v = version(vec![
        (0, file(1, "a", "c", 1, 1)),
        (0, file(2, "d", "f", 1, 2)),
        (0, file(3, "g", "h", 1, 3)),
        (0, file(4, "b", "e", 1, 4)),
        (0, file(5, "x", "z", 1, 5)),
        (0, file(6, "p", "q", 1, 6)),
        (1, file(10, "a", "b", 10, 0)),
        (1, file(11, "c", "d", 10, 0)),
        (1, file(13, "h", "i", 10, 0)),
        (1, file(12, "j", "k", 10, 0)),
        (2, file(20, "a", "z", 500, 0)),
    ]);
    let o = opts(false);
    let plan = pick_compaction(&v, &o, &[], MAX).unwrap();
    assert_eq!((plan.level, plan.output_level), (0, 1));
    assert_eq!(plan.reason, CompactionReason::LevelL0FilesNum);
    assert_eq!(plan.score, 1.5);
    assert_eq!(
        nums(&plan.inputs),
        [1, 2, 3, 4],
        "oldest trigger files, oldest first"
    );
    assert_eq!(nums(&plan.output_inputs), [10, 11, 13]);
    assert_eq!(nums(&plan.grandparents), [20]);
    assert!(!plan.is_trivial_move);
    assert!(!plan.bottommost);
    assert_eq!(plan.max_output_file_size, 10);
    assert_eq!(plan.user_key_range(), (&b"a"[..], &b"i"[..]));

    // Newer files reaching into the range come along, transitively.
    let v = version(vec![
        (0, file(1, "a", "b", 1, 1)),
        (0, file(2, "c", "d", 1, 2)),
        (0, file(3, "e", "f", 1, 3)),
        (0, file(4, "g", "h", 1, 4)),
        (0, file(5, "h", "m", 1, 5)),
        (0, file(6, "l", "n", 1, 6)),
        (0, file(7, "x", "y", 1, 7)),
    ]);
    let plan = pick_compaction(&v, &o, &[], MAX).unwrap();
    assert_eq!(nums(&plan.inputs), [1, 2, 3, 4, 5, 6]);
    assert!(plan.bottommost);
}

#[test]
fn a_running_l0_compaction_blocks_the_next() {
    let v = version((1..=6).map(|i| (0, file(i, "a", "z", 1, i))).collect());
    let o = opts(false);
    v.files(0)[0].set_being_compacted(true);
    let scores = compaction_scores(&v, &o, &level_targets(&v, &o));
    assert_eq!(scores[0], (0, 1.25), "only idle files count");
    assert!(pick_compaction(&v, &o, &[], MAX).is_none());
}

/// L1 (target 100) holds four files, each overlapping one L2 file:
///
/// | file | keys | size | compensated | seqs   | L2 overlap | ratio |
/// |------|------|------|-------------|--------|------------|-------|
/// | #10  | a-b  | 40   | 40          | 5..50  | #20: 10    | 0.25  |
/// | #11  | c-d  | 30   | 150         | 30..40 | #21: 300   | 2     |
/// | #12  | e-f  | 50   | 50          | 10..20 | #22: 100   | 2     |
/// | #13  | g-h  | 60   | 60          | 1..45  | #23: 120   | 2     |
fn priority_version() -> Version {
    let seqs = |f: Arc<FileMetaData>, lo: u64, hi: u64| {
        with(f, |m| {
            m.smallest_seq = lo;
            m.largest_seq = hi;
        })
    };
    version(vec![
        (1, seqs(file(10, "a", "b", 40, 5), 5, 50)),
        (
            1,
            with(seqs(file(11, "c", "d", 30, 30), 30, 40), |m| {
                // 8 of 10 entries are tombstones: surplus 6 × avg value 10 × 2.
                m.num_entries = 10;
                m.num_deletions = 8;
                m.raw_value_size = 20;
            }),
        ),
        (1, seqs(file(12, "e", "f", 50, 10), 10, 20)),
        (1, seqs(file(13, "g", "h", 60, 1), 1, 45)),
        (2, file(20, "a", "b", 10, 0)),
        (2, file(21, "c", "d", 300, 0)),
        (2, file(22, "e", "f", 100, 0)),
        (2, file(23, "g", "h", 120, 0)),
    ])
}

#[test]
fn compaction_pri_chooses_the_file() {
    let v = priority_version();
    assert_eq!(v.files(1)[1].compensated_size(), 150);
    let cases = [
        (CompactionPriority::MinOverlappingRatio, 10, 20),
        (CompactionPriority::ByCompensatedSize, 11, 21),
        (CompactionPriority::OldestLargestSeqFirst, 12, 22),
        (CompactionPriority::OldestSmallestSeqFirst, 13, 23),
        (CompactionPriority::RoundRobin, 10, 20),
    ];
    for (p, input, output) in cases {
        let plan = pick_compaction(&v, &pri(p), &[], MAX).unwrap();
        assert_eq!((plan.level, plan.output_level), (1, 2), "{p:?}");
        assert_eq!(nums(&plan.inputs), [input], "{p:?}");
        assert_eq!(nums(&plan.output_inputs), [output], "{p:?}");
        assert_eq!(plan.score, 3.0, "{p:?}");
        assert_eq!(
            plan.next_compact_cursor.is_some(),
            p == CompactionPriority::RoundRobin,
            "{p:?}"
        );
    }
}

#[test]
fn round_robin_starts_at_the_cursor_and_wraps() {
    let v = priority_version();
    let o = pri(CompactionPriority::RoundRobin);
    // cursor -> (picked, next cursor)
    let cases: Vec<(Vec<u8>, u64, Vec<u8>)> = vec![
        (Vec::new(), 10, ik("c", 30)),
        (ik("c", 30), 11, ik("e", 10)),
        (ik("d", 0), 12, ik("g", 1)),
        (ik("g", 1), 13, Vec::new()),
        (ik("z", 0), 10, ik("c", 30)),
    ];
    for (cursor, picked, next) in cases {
        let cursors = vec![Vec::new(), cursor.clone()];
        let plan = pick_compaction(&v, &o, &cursors, MAX).unwrap();
        assert_eq!(nums(&plan.inputs), [picked], "cursor {cursor:?}");
        assert_eq!(
            plan.next_compact_cursor,
            Some(next.clone()),
            "cursor {cursor:?}"
        );
        let mut edit = VersionEdit::new();
        plan.record_inputs(&mut edit);
        assert_eq!(edit.compact_cursors, [(1, next)]);
    }
}

#[test]
fn files_in_or_next_to_running_compactions_are_skipped() {
    let v = priority_version();
    let o = pri(CompactionPriority::MinOverlappingRatio);
    v.files(1)[0].set_being_compacted(true); // #10, the best ratio
    // Ties (#11, #12, #13 all at ratio 2) keep key order.
    assert_eq!(nums(&pick_compaction(&v, &o, &[], MAX).unwrap().inputs), [11]);
    v.files(2)[1].set_being_compacted(true); // #21, under #11
    assert_eq!(nums(&pick_compaction(&v, &o, &[], MAX).unwrap().inputs), [12]);
    v.files(1)[2].set_being_compacted(true);
    v.files(1)[3].set_being_compacted(true);
    // Only #11 is idle, and its overlap is busy.
    assert!(pick_compaction(&v, &o, &[], MAX).is_none());
}

#[test]
fn trivial_moves() {
    let o = opts(false);
    // (files, expected input, trivial?)
    let cases: Vec<(Files, u64, bool)> = vec![
        // L1 file with nothing under it.
        (
            vec![
                (1, file(10, "a", "b", 150, 0)),
                (2, file(20, "x", "y", 10, 0)),
            ],
            10,
            true,
        ),
        // Something under it: merge.
        (
            vec![
                (1, file(10, "a", "b", 150, 0)),
                (2, file(20, "b", "c", 10, 0)),
            ],
            10,
            false,
        ),
        // Nothing under it, but it would land on too many grandparent bytes.
        (
            vec![
                (1, file(10, "a", "b", 150, 0)),
                (3, file(30, "a", "b", 300, 0)),
            ],
            10,
            false,
        ),
    ];
    for (files, input, trivial) in cases {
        let v = version(files);
        let plan = pick_compaction(&v, &o, &[], MAX).unwrap();
        assert_eq!(nums(&plan.inputs), [input], "{v:?}");
        assert_eq!(plan.is_trivial_move, trivial, "{v:?}");
    }

    // L0 with trigger 1: the oldest file alone, nothing under it.
    let o1 = PickerOptions {
        level0_file_num_compaction_trigger: 1,
        ..opts(false)
    };
    let v = version(vec![
        (0, file(1, "a", "b", 1, 1)),
        (0, file(2, "m", "n", 1, 2)),
        (1, file(10, "c", "d", 10, 0)),
    ]);
    let plan = pick_compaction(&v, &o1, &[], MAX).unwrap();
    assert_eq!(nums(&plan.inputs), [1]);
    assert!(plan.is_trivial_move);
    let edit = plan.trivial_move_edit();
    assert_eq!(edit.deleted_files, [(0, 1)]);
    assert_eq!(edit.new_files.len(), 1);
    assert_eq!(
        (edit.new_files[0].0, &*edit.new_files[0].1),
        (1, &*v.files(0)[1])
    );
}

#[test]
fn inputs_expand_to_a_clean_cut() {
    // #10 ends with "k"@9 and #11 starts with "k"@3: "k" straddles them.
    let v = version(vec![
        (
            1,
            with(file(10, "a", "k", 200, 9), |m| m.largest = ik("k", 9)),
        ),
        (
            1,
            with(file(11, "k", "m", 20, 3), |m| m.smallest = ik("k", 3)),
        ),
        (1, file(12, "n", "p", 30, 1)),
        (2, file(20, "a", "c", 10, 0)),
    ]);
    let o = pri(CompactionPriority::ByCompensatedSize);
    let plan = pick_compaction(&v, &o, &[], MAX).unwrap();
    assert_eq!(nums(&plan.inputs), [10, 11]);
    assert_eq!(nums(&plan.output_inputs), [20]);
    // With #11 busy, #10 cannot be cut cleanly: the next candidate goes.
    v.files(1)[1].set_being_compacted(true);
    assert_eq!(nums(&pick_compaction(&v, &o, &[], MAX).unwrap().inputs), [12]);

    // The output level is cut cleanly too: #21 shares "e" with #20.
    let v = version(vec![
        (1, file(10, "a", "d", 200, 5)),
        (
            2,
            with(file(20, "b", "e", 10, 2), |m| m.largest = ik("e", 2)),
        ),
        (
            2,
            with(file(21, "e", "f", 10, 1), |m| m.smallest = ik("e", 1)),
        ),
        (2, file(22, "g", "h", 10, 1)),
    ]);
    let plan = pick_compaction(&v, &o, &[], MAX).unwrap();
    assert_eq!(nums(&plan.output_inputs), [20, 21]);
}

#[test]
fn inputs_grow_only_when_outputs_do_not() {
    let o = pri(CompactionPriority::ByCompensatedSize);
    let l1 = || {
        vec![
            (1, file(10, "a", "b", 100, 1)),
            (1, file(11, "d", "e", 10, 1)),
            (1, file(12, "x", "y", 10, 1)),
        ]
    };
    // #20 spans a..f: #11 fits under it for free.
    let mut files = l1();
    files.push((2, file(20, "a", "f", 50, 0)));
    let plan = pick_compaction(&version(files.clone()), &o, &[], MAX).unwrap();
    assert_eq!(nums(&plan.inputs), [10, 11]);
    assert_eq!(nums(&plan.output_inputs), [20]);
    // ... but not past max_compaction_bytes.
    let small = PickerOptions {
        max_compaction_bytes: 150,
        ..o.clone()
    };
    let plan = pick_compaction(&version(files), &small, &[], MAX).unwrap();
    assert_eq!(nums(&plan.inputs), [10]);
    // Growing to #11 would pull in #21 as well: no growth.
    let mut files = l1();
    files.push((2, file(20, "a", "d", 50, 0)));
    files.push((2, file(21, "e", "f", 50, 0)));
    let plan = pick_compaction(&version(files), &o, &[], MAX).unwrap();
    assert_eq!(nums(&plan.inputs), [10]);
    assert_eq!(nums(&plan.output_inputs), [20]);
}

#[test]
fn bottommost_means_nothing_older_below() {
    let o = opts(false);
    let base = vec![
        (1, file(10, "a", "b", 150, 5)),
        (2, file(20, "a", "b", 10, 1)),
        (3, file(30, "x", "y", 10, 0)),
    ];
    let plan = pick_compaction(&version(base.clone()), &o, &[], MAX).unwrap();
    assert!(plan.bottommost);
    let mut deeper = base;
    deeper.push((5, file(50, "b", "c", 10, 0)));
    let plan = pick_compaction(&version(deeper), &o, &[], MAX).unwrap();
    assert!(!plan.bottommost);
}

#[test]
fn pending_compaction_bytes_by_hand() {
    let l0 =
        |n: u64, size: u64| -> Files { (1..=n).map(|i| (0, file(i, "a", "z", size, i))).collect() };
    let level = |level: usize, number: u64, size: u64| (level, file(number, "a", "z", size, 0));
    // (dynamic, files, expected)
    let cases: Vec<(bool, Files, u64)> = vec![
        // L0 at trigger: 40 + L1 80 = 120, carry 40.
        // L1: 120 > 100, excess 20 × (1500/120 + 1) = 270.
        // L2: 1520 > 1000, excess 520 × (3000/1520 + 1) = 1546.3.
        // L3: 3520 < 10000.   Total 120 + 270 + 1546 = 1936.
        (
            false,
            [
                l0(4, 10),
                vec![level(1, 10, 80), level(2, 20, 1_500), level(3, 30, 3_000)],
            ]
            .concat(),
            1_936,
        ),
        // L0 under trigger: only L2's excess 500 × (3000/1500 + 1).
        (
            false,
            [
                l0(3, 10),
                vec![level(1, 10, 80), level(2, 20, 1_500), level(3, 30, 3_000)],
            ]
            .concat(),
            1_500,
        ),
        // Excess over an empty level costs nothing (trivial moves).
        (false, vec![level(1, 10, 200)], 0),
        // L0 by size alone: one file of 100 bytes, 100 + L1 0; then L1 100 ≤ 100.
        (false, l0(1, 100), 100),
        // Dynamic, base level L5 (target 100): L0 150 + L5 0 = 150, carry 150;
        // L5: 150 > 100, excess 50 × (1000/150 + 1) = 383.3.  Total 533.
        (true, [l0(5, 30), vec![level(6, 60, 1_000)]].concat(), 533),
        // Dynamic, empty tree: L0 compacts into the last level: L0 + L6 only.
        (true, l0(4, 10), 40),
    ];
    for (dynamic, files, want) in cases {
        let v = version(files);
        assert_eq!(
            estimated_pending_compaction_bytes(&v, &opts(dynamic)),
            want,
            "dynamic={dynamic} {v:?}"
        );
    }
}

fn manual_version() -> Version {
    version(vec![
        (0, file(1, "a", "c", 1, 1)),
        (0, file(2, "b", "d", 1, 2)),
        (0, file(3, "x", "y", 1, 3)),
        (1, file(10, "a", "b", 100, 0)),
        (1, file(11, "c", "d", 100, 0)),
        (1, file(12, "e", "f", 100, 0)),
        (1, file(13, "g", "h", 100, 0)),
        (2, file(20, "a", "z", 10, 0)),
        (6, file(60, "a", "z", 10, 0)),
    ])
}

#[test]
fn manual_compaction_plans() {
    let v = manual_version();
    let o = opts(false);
    let some = |s: &'static str| Some(s.as_bytes());
    // (input level, begin, end) -> (output level, inputs, output inputs, trivial, bottommost)
    type Want = (usize, Vec<u64>, Vec<u64>, bool, bool);
    type Bound = Option<&'static [u8]>;
    let cases: Vec<(usize, Bound, Bound, Want)> = vec![
        // L0 "a".."b" reaches #1, then #2 through it.
        (
            0,
            some("a"),
            some("b"),
            (1, vec![1, 2], vec![10, 11], false, false),
        ),
        (0, some("x"), None, (1, vec![3], vec![], true, false)),
        // L1, whole range: chunked to 250 bytes (#10, #11); growing to all of
        // L1 would exceed max_compaction_bytes.
        (1, None, None, (2, vec![10, 11], vec![20], false, false)),
        (
            1,
            some("e"),
            some("e"),
            (2, vec![12], vec![20], false, false),
        ),
        // The last level is rewritten in place.
        (6, None, None, (6, vec![60], vec![], false, true)),
    ];
    for (level, b, e, (out, inputs, outputs, trivial, bottom)) in cases {
        let ManualPick::Plan(p) = try_pick_manual(&v, &o, level, b, e) else {
            panic!("L{level} {b:?}..{e:?}: no plan");
        };
        let what = format!("L{level} {b:?}..{e:?}");
        assert_eq!(p.reason, CompactionReason::ManualCompaction, "{what}");
        assert_eq!(p.output_level, out, "{what}");
        assert_eq!(nums(&p.inputs), inputs, "{what}");
        assert_eq!(nums(&p.output_inputs), outputs, "{what}");
        assert_eq!(p.is_trivial_move, trivial, "{what}");
        assert_eq!(p.bottommost, bottom, "{what}");
    }
    assert!(matches!(
        try_pick_manual(&v, &o, 1, some("m"), some("n")),
        ManualPick::Empty
    ));
    assert!(matches!(
        try_pick_manual(&v, &o, 3, None, None),
        ManualPick::Empty
    ));
    assert!(matches!(
        try_pick_manual(&v, &o, 9, None, None),
        ManualPick::Empty
    ));
    assert!(pick_manual(&v, &o, 3, None, None).is_none());
    assert!(pick_manual(&v, &o, 1, None, None).is_some());

    // Dynamic levels: L0 goes to the base level.
    let d = opts(true);
    let base = level_targets(&v, &d).base_level;
    let p = pick_manual(&v, &d, 0, None, None).unwrap();
    assert_eq!(p.output_level, base);
}

#[test]
fn whole_key_space_manual_plan_merges_every_level_into_the_last() {
    // L0 (3 bytes), L1 (4 × 100) and L2 (10) above L6: 413 bytes above the
    // last level, over max_compaction_bytes (250), so level by level.
    let v = manual_version();
    let o = opts(false);
    assert!(matches!(try_pick_manual_whole(&v, &o), ManualPick::Empty));
    // With room for them: one plan, L0 oldest first, every middle level in
    // key order, into L6.
    let roomy = PickerOptions {
        max_compaction_bytes: 413,
        ..opts(false)
    };
    let ManualPick::Plan(p) = try_pick_manual_whole(&v, &roomy) else {
        panic!("no plan");
    };
    assert_eq!((p.level, p.output_level), (0, 6));
    assert_eq!(nums(&p.inputs), [1, 2, 3]);
    let middle: Vec<(usize, Vec<u64>)> =
        p.middle_inputs.iter().map(|(l, f)| (*l, nums(f))).collect();
    assert_eq!(middle, [(1, vec![10, 11, 12, 13]), (2, vec![20])]);
    assert_eq!(nums(&p.output_inputs), [60]);
    assert_eq!(p.reason, CompactionReason::ManualCompaction);
    assert!(p.bottommost && !p.is_trivial_move && p.grandparents.is_empty());
    assert_eq!(p.input_bytes(), 423);
    let mut edit = VersionEdit::new();
    p.record_inputs(&mut edit);
    assert_eq!(edit.deleted_files.len(), 9);
    // A file under way makes it wait.
    v.files(6)[0].set_being_compacted(true);
    assert!(matches!(
        try_pick_manual_whole(&v, &roomy),
        ManualPick::Busy
    ));
    v.files(6)[0].set_being_compacted(false);

    // The top non-empty level need not be L0, and empty levels in between
    // are left out.
    let v = version(vec![
        (2, file(20, "a", "m", 10, 0)),
        (4, file(40, "c", "z", 10, 0)),
        (5, file(50, "a", "z", 100, 0)),
    ]);
    let ManualPick::Plan(p) = try_pick_manual_whole(&v, &o) else {
        panic!("no plan");
    };
    assert_eq!((p.level, p.output_level), (2, 5));
    assert_eq!(nums(&p.inputs), [20]);
    assert_eq!(p.middle_inputs.len(), 1);
    assert_eq!((p.middle_inputs[0].0, nums(&p.middle_inputs[0].1)), (4, vec![40]));
    assert_eq!(nums(&p.output_inputs), [50]);

    // Last-level files outside the upper files' key range stay out.
    let v = version(vec![
        (0, file(1, "d", "f", 10, 1)),
        (6, file(60, "a", "b", 10, 0)),
        (6, file(61, "c", "e", 10, 0)),
        (6, file(62, "f", "g", 10, 0)),
        (6, file(63, "x", "z", 10, 0)),
    ]);
    let ManualPick::Plan(p) = try_pick_manual_whole(&v, &o) else {
        panic!("no plan");
    };
    assert_eq!(nums(&p.output_inputs), [61, 62]);

    // Nothing above the last non-empty level, or nothing below L0: the
    // driver goes level by level.
    let only_last = version(vec![(6, file(60, "a", "z", 10, 0))]);
    assert!(matches!(try_pick_manual_whole(&only_last, &o), ManualPick::Empty));
    let only_l0 = version(vec![(0, file(1, "a", "z", 10, 1))]);
    assert!(matches!(try_pick_manual_whole(&only_l0, &o), ManualPick::Empty));
}

#[test]
fn manual_compaction_waits_for_running_ones() {
    let v = manual_version();
    let o = opts(false);
    v.files(2)[0].set_being_compacted(true); // #20 under all of L1
    assert!(matches!(
        try_pick_manual(&v, &o, 1, None, None),
        ManualPick::Busy
    ));
    v.files(0)[0].set_being_compacted(true); // an L0 file (#3)
    assert!(matches!(
        try_pick_manual(&v, &o, 0, some_a(), some_a()),
        ManualPick::Busy
    ));
}

fn some_a() -> Option<&'static [u8]> {
    Some(b"a")
}

#[test]
fn marking_and_recording_a_plan() {
    let v = priority_version();
    let o = pri(CompactionPriority::MinOverlappingRatio);
    let plan = pick_compaction(&v, &o, &[], MAX).unwrap();
    plan.mark_being_compacted(true);
    assert!(v.files(1)[0].is_being_compacted() && v.files(2)[0].is_being_compacted());
    assert!(!v.files(1)[1].is_being_compacted());
    // The next pick avoids them.
    let next = pick_compaction(&v, &o, &[], MAX).unwrap();
    assert_eq!(nums(&next.inputs), [11]);
    plan.mark_being_compacted(false);
    assert!(!v.files(1)[0].is_being_compacted() && !v.files(2)[0].is_being_compacted());
    let mut edit = VersionEdit::new();
    plan.record_inputs(&mut edit);
    assert_eq!(edit.deleted_files, [(1, 10), (2, 20)]);
    assert!(edit.compact_cursors.is_empty());
    assert_eq!(plan.input_bytes(), 50);
}

#[test]
fn a_single_level_has_nowhere_to_compact() {
    let o = PickerOptions {
        num_levels: 1,
        level0_file_num_compaction_trigger: 1,
        ..opts(false)
    };
    let v = Version::from_levels(vec![vec![
        file(1, "a", "b", 500, 1),
        file(2, "a", "b", 500, 2),
    ]])
    .unwrap();
    let t = level_targets(&v, &o);
    assert_eq!((t.base_level, t.target_bytes.clone()), (0, vec![100]));
    assert!(compaction_scores(&v, &o, &t).is_empty());
    assert!(pick_compaction(&v, &o, &[], MAX).is_none());
    assert!(matches!(
        try_pick_manual(&v, &o, 0, None, None),
        ManualPick::Empty
    ));
    assert_eq!(estimated_pending_compaction_bytes(&v, &o), 0);
}

#[test]
fn intra_l0_merges_newest_idle_run_when_base_is_blocked() {
    // L0 holds files #1..#8 (file #i at sequence i), oldest first #1; the
    // two oldest are in a running L0 -> base compaction, so L0 -> base is
    // blocked. Trigger 4: an intra-L0 compaction needs at least 6 files.
    // (sizes of #1..#8, compacting, memtable floor) -> merged run, oldest first
    type Case<'a> = ([u64; 8], &'a [u64], u64, Option<Vec<u64>>);
    let cases: Vec<Case<'_>> = vec![
        // Every idle file, up to the first one being compacted.
        ([10; 8], &[1, 2], MAX, Some(vec![3, 4, 5, 6, 7, 8])),
        // Files at or above the memtables' oldest number are passed over.
        ([10; 8], &[1, 2], 7, Some(vec![3, 4, 5, 6])),
        // ... and fewer than four left is no compaction.
        ([10; 8], &[1, 2], 6, None),
        // A large older file would raise the bytes rewritten per file removed.
        (
            [10, 10, 10, 100, 10, 10, 10, 10],
            &[1, 2],
            MAX,
            Some(vec![5, 6, 7, 8]),
        ),
        // max_compaction_bytes (250) bounds the run.
        ([60; 8], &[1, 2], MAX, Some(vec![5, 6, 7, 8])),
        // The newest file being compacted: nothing (RocksDB's rule).
        ([10; 8], &[8], MAX, None),
        // Fewer than trigger + 2 files in L0: nothing.
        ([10; 8], &[1, 2, 3, 4, 5, 6, 7, 8], MAX, None),
    ];
    let o = opts(false);
    for (sizes, busy, floor, want) in cases {
        let files: Files = (1..=8)
            .map(|i| (0, file(i, "a", "z", sizes[i as usize - 1], i)))
            .collect();
        let v = version(files);
        for f in v.files(0) {
            if busy.contains(&f.number) {
                f.set_being_compacted(true);
            }
        }
        let plan = pick_compaction(&v, &o, &[], floor);
        let what = format!("sizes {sizes:?}, busy {busy:?}, floor {floor}");
        match want {
            None => assert!(plan.is_none(), "{what}: {plan:?}"),
            Some(want) => {
                let plan = plan.unwrap_or_else(|| panic!("{what}: no plan"));
                assert_eq!(nums(&plan.inputs), want, "{what}");
                assert_eq!((plan.level, plan.output_level), (0, 0), "{what}");
                assert_eq!(plan.reason, CompactionReason::LevelL0FilesNum, "{what}");
                assert_eq!(plan.max_output_file_size, MAX, "one output file");
                assert!(!plan.bottommost && !plan.is_trivial_move, "{what}");
            }
        }
    }
}

#[test]
fn l0_to_base_comes_before_intra_l0() {
    // Nothing is being compacted: the usual L0 -> base compaction, however
    // many files L0 holds.
    let v = version((1..=8).map(|i| (0, file(i, "a", "z", 10, i))).collect());
    let plan = pick_compaction(&v, &opts(false), &[], MAX).unwrap();
    assert_eq!((plan.level, plan.output_level), (0, 1));
    assert_eq!(nums(&plan.inputs), [1, 2, 3, 4, 5, 6, 7, 8]);
}
