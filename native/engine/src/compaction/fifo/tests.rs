//! Table tests of the FIFO picker. L0 file `i` of a case is the i-th newest
//! (sequence number `100 - i`), of the given size and creation time.

use super::*;
use crate::key::{ValueKind, make_internal_key};

/// `(size, creation time)` of each L0 table, newest first.
fn version(l0: &[(u64, u64)]) -> Version {
    let mut levels = vec![Vec::new(); 7];
    for (i, &(size, created)) in l0.iter().enumerate() {
        let seq = 100 - i as u64;
        levels[0].push(Arc::new(FileMetaData {
            number: i as u64 + 1,
            file_size: size,
            smallest: make_internal_key(b"a", seq, ValueKind::Value),
            largest: make_internal_key(b"z", seq, ValueKind::Value),
            smallest_seq: seq,
            largest_seq: seq,
            num_entries: 1,
            creation_time: created,
            ..FileMetaData::default()
        }));
    }
    Version::from_levels(levels).unwrap()
}

fn opts(max: u64, allow: bool, ttl: u64) -> FifoPickerOptions {
    FifoPickerOptions {
        fifo: FifoOptions {
            max_table_files_size: max,
            allow_compaction: allow,
        },
        ttl,
        trigger: 4,
        write_buffer_size: 100,
        max_compaction_bytes: 1_000,
    }
}

#[test]
fn defaults_are_rocksdbs() {
    assert_eq!(
        FifoOptions::default(),
        FifoOptions {
            max_table_files_size: 1 << 30,
            allow_compaction: false
        }
    );
}

#[test]
fn table_of_picks() {
    const NOW: u64 = 10_000;
    type Case = (
        &'static str,
        Vec<(u64, u64)>,
        FifoPickerOptions,
        Option<(FifoReason, bool, Vec<u64>)>,
    );
    let cases: Vec<Case> = vec![
        ("empty", vec![], opts(10, true, 60), None),
        (
            "under the size limit, no TTL: nothing",
            vec![(10, 1), (10, 1)],
            opts(100, false, 0),
            None,
        ),
        (
            "over the size limit: the oldest go until the rest fits",
            vec![(40, 1), (40, 1), (40, 1), (40, 1)],
            opts(100, false, 0),
            Some((FifoReason::MaxSize, true, vec![3, 4])),
        ),
        (
            "TTL: tables older than now - ttl go, oldest first, up to the first young one",
            vec![(1, 9_990), (1, 9_000), (1, 5_000), (1, 4_000)],
            opts(1_000, false, 2_000),
            Some((FifoReason::Ttl, true, vec![3, 4])),
        ),
        (
            "TTL stops at a table of unknown age",
            vec![(1, 9_990), (1, 1), (1, 0), (1, 1)],
            opts(1_000, false, 2_000),
            Some((FifoReason::Ttl, true, vec![4])),
        ),
        (
            "TTL before size",
            vec![(60, 9_990), (60, 9_990), (10, 1)],
            opts(100, false, 2_000),
            Some((FifoReason::Ttl, true, vec![3])),
        ),
        (
            "intra-L0: the newest small tables merge",
            vec![(10, 1), (10, 1), (10, 1), (10, 1), (10, 1)],
            opts(1_000, true, 0),
            Some((FifoReason::IntraL0, false, vec![1, 2, 3, 4, 5])),
        ),
        (
            "intra-L0 needs the trigger's count of tables",
            vec![(10, 1), (10, 1), (10, 1)],
            opts(1_000, true, 0),
            None,
        ),
        (
            "intra-L0 stops at a table too large to be worth merging",
            vec![(10, 1), (10, 1), (10, 1), (10, 1), (500, 1)],
            opts(10_000, true, 0),
            Some((FifoReason::IntraL0, false, vec![1, 2, 3, 4])),
        ),
        (
            "intra-L0 off without allow_compaction",
            vec![(10, 1), (10, 1), (10, 1), (10, 1), (10, 1)],
            opts(1_000, false, 0),
            None,
        ),
    ];
    for (name, l0, o, want) in cases {
        let v = version(&l0);
        let got = pick_fifo(&v, &o, NOW).map(|p| {
            let mut n: Vec<u64> = p.files.iter().map(|f| f.number).collect();
            n.sort();
            (p.reason, p.drop, n)
        });
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn tables_being_compacted_are_not_dropped() {
    let v = version(&[(40, 1), (40, 1), (40, 1), (40, 1)]);
    // The oldest table is being compacted: a size drop waits for it.
    v.files(0)[3]
        .being_compacted
        .store(true, std::sync::atomic::Ordering::Release);
    assert!(pick_fifo(&v, &opts(100, false, 0), 10).is_none());
    let p = pick_fifo(
        &version(&[(40, 1), (40, 1), (40, 1)]),
        &opts(100, false, 0),
        10,
    )
    .unwrap();
    p.mark_being_compacted(true);
    assert!(p.files.iter().all(|f| f.is_being_compacted()));
}

/// The DB's plan of a FIFO pick: L0 to L0, oldest first; a drop writes
/// nothing; an intra-L0 merge is the bottom of its keys only with the
/// oldest L0 table.
#[test]
fn into_plan_is_l0_to_l0_oldest_first() {
    let newest = Arc::new(FileMetaData {
        number: 9,
        largest_seq: 90,
        ..FileMetaData::default()
    });
    let oldest = Arc::new(FileMetaData {
        number: 3,
        largest_seq: 30,
        ..FileMetaData::default()
    });
    let drop = FifoPlan {
        files: vec![newest.clone(), oldest.clone()],
        drop: true,
        reason: FifoReason::MaxSize,
    }
    .into_plan(Some(3), 1.0);
    assert_eq!((drop.level, drop.output_level), (0, 0));
    assert!(drop.drop_inputs && !drop.bottommost);
    assert_eq!(
        drop.inputs.iter().map(|f| f.number).collect::<Vec<_>>(),
        vec![3, 9]
    );
    assert_eq!(drop.reason, CompactionReason::FifoMaxSize);
    let merge = FifoPlan {
        files: vec![newest, oldest],
        drop: false,
        reason: FifoReason::IntraL0,
    };
    assert!(merge.clone().into_plan(Some(3), 1.0).bottommost);
    let p = merge.into_plan(Some(1), 1.0);
    assert!(!p.bottommost && !p.drop_inputs);
    assert_eq!(p.reason, CompactionReason::FifoReduceNumFiles);
}
