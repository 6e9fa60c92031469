//! Subcompactions (RocksDB's `max_subcompactions`): which compactions are
//! split into key ranges run side by side, and where the ranges are cut.
//! Pure policy, no IO: the DB gathers [`KeyAnchor`]s from the inputs'
//! index blocks and runs one job per range (`db::compaction`).
//!
//! Rules, as RocksDB's:
//!
//! - Only an L0 → base-level compaction, a manual one, or (universal) one
//!   whose output is below L0 is split ([`may_split`]); other leveled
//!   compactions stay one job.
//! - At most `max_subcompactions` ranges, and no more ranges than output
//!   files the inputs would fill (`ceil(input bytes / max output file
//!   size)`), so a small compaction stays one job.
//! - Boundaries are user keys taken from the anchors, chosen so that each
//!   range holds about the same number of input bytes. A range is
//!   `[boundary i−1, boundary i)`; the first is unbounded below, the last
//!   above. Because every boundary is a user key, all versions of a key
//!   (snapshots, merge operands, deletions) fall in one range, and each
//!   range's output files lie inside it: outputs of different ranges never
//!   overlap.

use crate::compaction::{CompactionPlan, CompactionReason};

/// A point in an input file's key space: `user_key` ends a stretch of
/// about `bytes` bytes of the file (for a table, the separator key of a
/// data block and that block's size).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyAnchor {
    /// The user key closing the stretch.
    pub user_key: Vec<u8>,
    /// Bytes of input up to this anchor since the previous one of its file.
    pub bytes: u64,
}

/// Whether `plan` may run as several subcompactions (module docs).
pub fn may_split(plan: &CompactionPlan, universal: bool) -> bool {
    if plan.is_trivial_move || plan.drop_inputs {
        return false;
    }
    if universal {
        return plan.output_level > 0;
    }
    (plan.level == 0 && plan.output_level > 0) || plan.reason == CompactionReason::ManualCompaction
}

/// Number of ranges to aim for: `max_subcompactions` (0 counts as 1),
/// capped by the output files the input bytes would fill.
pub fn planned_subcompactions(
    max_subcompactions: u32,
    input_bytes: u64,
    max_output_file_size: u64,
) -> usize {
    let files = input_bytes.div_ceil(max_output_file_size.max(1)).max(1);
    let max = u64::from(max_subcompactions.max(1));
    usize::try_from(max.min(files)).unwrap_or(1)
}

/// Boundaries splitting the key space of the anchors into at most `n`
/// ranges of about equal bytes: strictly increasing user keys, each above
/// `lo` and at most `hi` (the inputs' smallest and largest user keys), so
/// no range is empty of key space. Fewer than `n − 1` boundaries when the
/// anchors cannot be cut finer (few distinct keys, or bytes bunched on
/// one anchor); none when `n ≤ 1`.
pub fn subcompaction_boundaries(
    mut anchors: Vec<KeyAnchor>,
    n: usize,
    lo: &[u8],
    hi: &[u8],
) -> Vec<Vec<u8>> {
    if n <= 1 || anchors.is_empty() {
        return Vec::new();
    }
    anchors.sort_by(|a, b| a.user_key.cmp(&b.user_key));
    let total: u64 = anchors.iter().map(|a| a.bytes).sum();
    if total == 0 {
        return Vec::new();
    }
    let mut out: Vec<Vec<u8>> = Vec::with_capacity(n - 1);
    let mut acc: u64 = 0;
    for (i, a) in anchors.iter().enumerate() {
        acc += a.bytes;
        // The data of an anchor lies at keys ≤ its key, so the range after
        // the cut starts at the next anchor's key (the cut is "after" this
        // anchor). Cut when the bytes so far reach the next share.
        let want = (out.len() as u128 + 1) * u128::from(total) / n as u128;
        if u128::from(acc) < want {
            continue;
        }
        let Some(next) = anchors[i + 1..]
            .iter()
            .find(|b| b.user_key != a.user_key)
            .map(|b| &b.user_key)
        else {
            break;
        };
        if next.as_slice() <= lo || next.as_slice() > hi {
            continue;
        }
        if out.last().is_some_and(|l| l >= next) {
            continue;
        }
        out.push(next.clone());
        if out.len() == n - 1 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchors(spec: &[(&str, u64)]) -> Vec<KeyAnchor> {
        spec.iter()
            .map(|(k, b)| KeyAnchor {
                user_key: k.as_bytes().to_vec(),
                bytes: *b,
            })
            .collect()
    }

    fn keys(v: &[Vec<u8>]) -> Vec<String> {
        v.iter()
            .map(|k| String::from_utf8_lossy(k).into_owned())
            .collect()
    }

    #[test]
    fn boundaries_from_tables_of_cases() {
        struct Case {
            name: &'static str,
            anchors: &'static [(&'static str, u64)],
            n: usize,
            lo: &'static str,
            hi: &'static str,
            want: &'static [&'static str],
        }
        let cases = [
            Case {
                name: "one range: no cut",
                anchors: &[("b", 10), ("d", 10)],
                n: 1,
                lo: "a",
                hi: "z",
                want: &[],
            },
            Case {
                name: "even bytes, two ranges: cut in the middle",
                anchors: &[("b", 10), ("d", 10), ("f", 10), ("h", 10)],
                n: 2,
                lo: "a",
                hi: "h",
                want: &["f"],
            },
            Case {
                name: "even bytes, four ranges",
                anchors: &[("b", 10), ("d", 10), ("f", 10), ("h", 10)],
                n: 4,
                lo: "a",
                hi: "h",
                want: &["d", "f", "h"],
            },
            Case {
                name: "anchors of several files interleave and are sorted",
                anchors: &[("h", 10), ("b", 10), ("f", 10), ("d", 10)],
                n: 2,
                lo: "a",
                hi: "h",
                want: &["f"],
            },
            Case {
                name: "skewed bytes: the heavy anchor stands alone",
                anchors: &[("b", 1), ("c", 1), ("d", 100), ("e", 1), ("f", 1)],
                n: 2,
                lo: "a",
                hi: "f",
                want: &["e"],
            },
            Case {
                name: "duplicate keys from different files make one cut",
                anchors: &[("c", 10), ("c", 10), ("e", 10), ("e", 10)],
                n: 4,
                lo: "a",
                hi: "e",
                want: &["e"],
            },
            Case {
                name: "a single distinct key cannot be cut",
                anchors: &[("c", 10), ("c", 10)],
                n: 3,
                lo: "c",
                hi: "c",
                want: &[],
            },
            Case {
                name: "cuts beyond the inputs' largest key are dropped",
                anchors: &[("b", 10), ("m", 10), ("z", 10)],
                n: 3,
                lo: "a",
                hi: "k",
                want: &[],
            },
            Case {
                name: "cuts at or below the inputs' smallest key are dropped",
                anchors: &[("a", 10), ("b", 0), ("c", 10), ("d", 10)],
                n: 3,
                lo: "b",
                hi: "d",
                want: &["c", "d"],
            },
            Case {
                name: "no bytes: no cut",
                anchors: &[("b", 0), ("c", 0)],
                n: 2,
                lo: "a",
                hi: "c",
                want: &[],
            },
        ];
        for c in cases {
            let got = subcompaction_boundaries(
                anchors(c.anchors),
                c.n,
                c.lo.as_bytes(),
                c.hi.as_bytes(),
            );
            assert_eq!(keys(&got), c.want, "{}", c.name);
            assert!(got.len() < c.n.max(1), "{}: too many cuts", c.name);
            assert!(got.windows(2).all(|w| w[0] < w[1]), "{}: unsorted", c.name);
        }
    }

    #[test]
    fn planned_subcompactions_from_tables_of_cases() {
        // (max_subcompactions, input bytes, max output file size, want)
        let cases = [
            (1, 1 << 30, 64 << 20, 1),
            (0, 1 << 30, 64 << 20, 1),
            (4, 1 << 30, 64 << 20, 4),
            (4, 100 << 20, 64 << 20, 2),
            (4, 10 << 20, 64 << 20, 1),
            (4, 0, 64 << 20, 1),
            (8, 1 << 30, 0, 8),
        ];
        for (max, bytes, file, want) in cases {
            assert_eq!(
                planned_subcompactions(max, bytes, file),
                want,
                "max {max}, {bytes} bytes, files of {file}"
            );
        }
    }

    #[test]
    fn only_l0_to_base_manual_and_universal_compactions_split() {
        let plan = |level: usize, output_level: usize, reason: CompactionReason| CompactionPlan {
            level,
            output_level,
            inputs: Vec::new(),
            middle_inputs: Vec::new(),
            output_inputs: Vec::new(),
            grandparents: Vec::new(),
            score: 1.0,
            reason,
            is_trivial_move: false,
            bottommost: false,
            max_output_file_size: 1,
            next_compact_cursor: None,
            drop_inputs: false,
            compress_output: true,
        };
        use CompactionReason::*;
        assert!(may_split(&plan(0, 6, LevelL0FilesNum), false));
        assert!(may_split(&plan(0, 1, LevelL0FilesNum), false));
        assert!(!may_split(&plan(1, 2, LevelMaxLevelSize), false));
        assert!(may_split(&plan(3, 4, ManualCompaction), false));
        assert!(may_split(&plan(6, 6, ManualCompaction), false));
        assert!(!may_split(&plan(0, 0, LevelL0FilesNum), false));
        assert!(may_split(&plan(0, 6, UniversalSizeAmplification), true));
        assert!(!may_split(&plan(0, 0, UniversalSortedRunNum), true));
        let mut moved = plan(0, 6, LevelL0FilesNum);
        moved.is_trivial_move = true;
        assert!(!may_split(&moved, false));
        let mut dropped = plan(0, 0, FifoTtl);
        dropped.drop_inputs = true;
        assert!(!may_split(&dropped, true));
    }
}
