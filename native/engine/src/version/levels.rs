//! [`Version`]: one immutable snapshot of which table files make up each level.
//!
//! Invariants (checked by [`Version::from_levels`], which every constructor
//! goes through):
//! 1. L0 is ordered newest first: by `largest_seq` descending, then by file
//!    number descending. L0 files may overlap each other.
//! 2. Each level ≥ 1 is ordered by smallest internal key, and its files are
//!    disjoint in internal-key order: `files[i].largest < files[i + 1].smallest`.
//!    Two neighbours may share a *user* key at their boundary (newer versions
//!    of it in the left file, older in the right); lookups and the compaction
//!    picker account for that.
//! 3. A file number appears at most once in the whole version.
//!
//! Point lookups in a level ≥ 1 search `Fences` first: the first eight
//! bytes of every file's smallest and largest user key, in two contiguous
//! arrays, so a lookup compares whole keys (through each file's metadata)
//! only for files whose fence equals the key's. The test
//! `files_for_key_matches_a_linear_search` pins the result against a plain
//! scan of the level.
//!
//! Thread-safety: immutable after construction (shared as `Arc<Version>`),
//! except the `being_compacted` flag of each file.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use super::file_meta::FileMetaData;
use crate::error::{Error, Result};
use crate::key;

/// The files of every level at one point in time.
#[derive(Clone)]
pub struct Version {
    levels: Vec<Vec<Arc<FileMetaData>>>,
    /// `fences[level]` for each level ≥ 1 (empty for L0, whose files overlap).
    fences: Vec<Fences>,
}

/// The [`fence`]s of one level's files, in the level's order: `smallest[i]`
/// and `largest[i]` are those of file `i`'s smallest and largest user keys.
/// Both are non-decreasing along a level ≥ 1 (its files are disjoint and
/// sorted, and `fence` is monotone).
#[derive(Clone, Default)]
struct Fences {
    smallest: Box<[u64]>,
    largest: Box<[u64]>,
}

impl Fences {
    fn of(files: &[Arc<FileMetaData>]) -> Fences {
        Fences {
            smallest: files.iter().map(|f| fence(f.smallest_user_key())).collect(),
            largest: files.iter().map(|f| fence(f.largest_user_key())).collect(),
        }
    }
}

/// The first eight bytes of `key`, zero-padded, as a big-endian integer.
/// Monotone in the bytewise order (`a ≤ b` implies `fence(a) ≤ fence(b)`),
/// so `fence(a) < fence(b)` proves `a < b`; equal fences prove nothing.
fn fence(key: &[u8]) -> u64 {
    // A key of 8 bytes or more (the common case) is one load, without the
    // variable-length copy below (a call to memmove).
    if let Some(b) = key.first_chunk::<8>() {
        return u64::from_be_bytes(*b);
    }
    let mut b = [0u8; 8];
    let n = key.len().min(8);
    b[..n].copy_from_slice(&key[..n]);
    u64::from_be_bytes(b)
}

impl fmt::Debug for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Version {}", self.level_summary())?;
        for (level, files) in self.levels.iter().enumerate() {
            for file in files {
                write!(
                    f,
                    "\n  L{level} #{} {}B [{:?} .. {:?}] seq {}..{}",
                    file.number,
                    file.file_size,
                    String::from_utf8_lossy(file.smallest_user_key()),
                    String::from_utf8_lossy(file.largest_user_key()),
                    file.smallest_seq,
                    file.largest_seq
                )?;
            }
        }
        Ok(())
    }
}

/// Order of L0: newest first.
pub(crate) fn l0_order(a: &FileMetaData, b: &FileMetaData) -> Ordering {
    b.largest_seq
        .cmp(&a.largest_seq)
        .then(b.number.cmp(&a.number))
}

impl Version {
    /// An empty version with `num_levels` levels.
    pub fn new(num_levels: usize) -> Self {
        Version {
            levels: vec![Vec::new(); num_levels],
            fences: vec![Fences::default(); num_levels],
        }
    }

    /// Builds a version from files per level, sorting each level into its
    /// canonical order and checking the invariants of the module docs.
    /// A violation is `Corruption` (the files could not have come from a
    /// consistent manifest).
    pub fn from_levels(levels: Vec<Vec<Arc<FileMetaData>>>) -> Result<Self> {
        Self::build(levels).map_err(|reason| Error::corruption("version", 0, reason))
    }

    pub(crate) fn build(mut levels: Vec<Vec<Arc<FileMetaData>>>) -> Result<Self, String> {
        for (level, files) in levels.iter_mut().enumerate() {
            if level == 0 {
                files.sort_by(|a, b| l0_order(a, b));
            } else {
                files.sort_by(|a, b| {
                    key::compare_internal(&a.smallest, &b.smallest).then(a.number.cmp(&b.number))
                });
                for pair in files.windows(2) {
                    if key::compare_internal(&pair[0].largest, &pair[1].smallest) != Ordering::Less
                    {
                        return Err(format!(
                            "files #{} and #{} overlap in level {level}",
                            pair[0].number, pair[1].number
                        ));
                    }
                }
            }
        }
        let mut numbers: Vec<u64> = levels.iter().flatten().map(|f| f.number).collect();
        numbers.sort_unstable();
        if let Some(w) = numbers.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("file #{} appears twice in the version", w[0]));
        }
        let fences = levels
            .iter()
            .enumerate()
            .map(|(level, files)| {
                if level == 0 {
                    Fences::default()
                } else {
                    Fences::of(files)
                }
            })
            .collect();
        Ok(Version { levels, fences })
    }

    /// Number of levels, L0 included.
    pub fn num_levels(&self) -> usize {
        self.levels.len()
    }

    /// The files of `level` in the level's order (see the module docs).
    /// Panics if `level >= num_levels()`.
    pub fn files(&self, level: usize) -> &[Arc<FileMetaData>] {
        &self.levels[level]
    }

    /// Number of files in `level`.
    pub fn num_files(&self, level: usize) -> usize {
        self.levels[level].len()
    }

    /// Sum of the file sizes of `level`.
    pub fn level_bytes(&self, level: usize) -> u64 {
        self.levels[level].iter().map(|f| f.file_size).sum()
    }

    /// Sum of the file sizes of all levels.
    pub fn total_bytes(&self) -> u64 {
        (0..self.num_levels()).map(|l| self.level_bytes(l)).sum()
    }

    /// Levels up to and including the deepest non-empty one (0 when empty).
    pub fn num_non_empty_levels(&self) -> usize {
        self.levels
            .iter()
            .rposition(|files| !files.is_empty())
            .map_or(0, |l| l + 1)
    }

    /// Files of `level` whose user-key range intersects `[begin, end]`
    /// (inclusive; `None` is unbounded), in the level's order.
    ///
    /// In L0 the range grows transitively: when a file reaches past the
    /// current range, the range is widened to cover it and the search starts
    /// over, so the result is closed — no L0 file outside it overlaps the
    /// union of the files in it. Compacting such a set can never leave an
    /// older version of a key above a newer one.
    pub fn overlapping_files(
        &self,
        level: usize,
        begin: Option<&[u8]>,
        end: Option<&[u8]>,
    ) -> Vec<Arc<FileMetaData>> {
        let files = &self.levels[level];
        if level > 0 {
            let start = begin.map_or(0, |b| files.partition_point(|f| f.largest_user_key() < b));
            return files[start..]
                .iter()
                .take_while(|f| end.is_none_or(|e| f.smallest_user_key() <= e))
                .cloned()
                .collect();
        }
        let mut begin = begin.map(<[u8]>::to_vec);
        let mut end = end.map(<[u8]>::to_vec);
        let mut out = Vec::new();
        let mut i = 0;
        while i < files.len() {
            let f = &files[i];
            i += 1;
            if !f.overlaps_user_range(begin.as_deref(), end.as_deref()) {
                continue;
            }
            let widen_begin = begin.as_deref().is_some_and(|b| f.smallest_user_key() < b);
            let widen_end = end.as_deref().is_some_and(|e| f.largest_user_key() > e);
            if widen_begin || widen_end {
                if widen_begin {
                    begin = Some(f.smallest_user_key().to_vec());
                }
                if widen_end {
                    end = Some(f.largest_user_key().to_vec());
                }
                out.clear();
                i = 0;
                continue;
            }
            out.push(f.clone());
        }
        out
    }

    /// The files of `level` (≥ 1) that may hold `user_key`, in order: one
    /// file, or several when the key straddles file boundaries (newest
    /// versions in the first). A point lookup searches them in order and
    /// stops at the first that has a version visible to its snapshot.
    ///
    /// The fences decide every file whose fence differs from the key's; whole
    /// keys are compared only for files whose fence equals it.
    pub fn files_for_key(&self, level: usize, user_key: &[u8]) -> &[Arc<FileMetaData>] {
        debug_assert!(level >= 1, "L0 files overlap; use l0_files_for_key");
        let files = &self.levels[level];
        let fences = &self.fences[level];
        let kf = fence(user_key);
        // The first file whose largest key is ≥ the key: those with a lower
        // fence end before it; among those with an equal fence, compare.
        let lo = fences.largest.partition_point(|&f| f < kf);
        let ties = fences.largest[lo..].partition_point(|&f| f == kf);
        let start = lo
            + files[lo..lo + ties].partition_point(|f| f.largest_user_key() < user_key);
        // Then every file from there that starts at or before the key.
        let mut end = start;
        while end < files.len() {
            let f = fences.smallest[end];
            if f > kf || (f == kf && files[end].smallest_user_key() > user_key) {
                break;
            }
            end += 1;
        }
        &files[start..end]
    }

    /// The first file of `level` (≥ 1) whose range contains `user_key`, by
    /// binary search. See [`Self::files_for_key`] for keys on a boundary.
    pub fn file_for_key(&self, level: usize, user_key: &[u8]) -> Option<&Arc<FileMetaData>> {
        self.files_for_key(level, user_key).first()
    }

    /// The L0 files whose range contains `user_key`, newest first.
    pub fn l0_files_for_key<'a>(
        &'a self,
        user_key: &'a [u8],
    ) -> impl Iterator<Item = &'a Arc<FileMetaData>> + 'a {
        self.levels[0]
            .iter()
            .filter(move |f| f.smallest_user_key() <= user_key && user_key <= f.largest_user_key())
    }

    /// Numbers of all files in the version.
    pub fn live_file_numbers(&self) -> Vec<u64> {
        self.levels.iter().flatten().map(|f| f.number).collect()
    }

    /// The level holding file `number`, if any.
    pub fn level_of(&self, number: u64) -> Option<usize> {
        self.levels
            .iter()
            .position(|files| files.iter().any(|f| f.number == number))
    }

    /// File counts per level: `files[4 2 0 0 0 0 0]`.
    pub fn level_summary(&self) -> String {
        let counts: Vec<String> = self.levels.iter().map(|f| f.len().to_string()).collect();
        format!("files[{}]", counts.join(" "))
    }

    /// The files of every level (for builders and snapshots).
    pub(crate) fn levels(&self) -> &[Vec<Arc<FileMetaData>>] {
        &self.levels
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{ValueKind, make_internal_key};

    fn f(number: u64, lo: &str, hi: &str, seq: u64) -> Arc<FileMetaData> {
        Arc::new(FileMetaData {
            number,
            file_size: number * 10,
            smallest: make_internal_key(lo.as_bytes(), seq, ValueKind::Value),
            largest: make_internal_key(hi.as_bytes(), seq, ValueKind::Value),
            smallest_seq: seq,
            largest_seq: seq,
            ..FileMetaData::default()
        })
    }

    fn numbers(files: &[Arc<FileMetaData>]) -> Vec<u64> {
        files.iter().map(|f| f.number).collect()
    }

    fn sample() -> Version {
        Version::from_levels(vec![
            vec![
                f(1, "a", "c", 10),
                f(2, "e", "g", 20),
                f(3, "b", "f", 30),
                f(4, "x", "y", 40),
            ],
            vec![f(10, "a", "b", 1), f(11, "c", "d", 1), f(12, "m", "p", 1)],
            vec![],
            vec![f(20, "a", "z", 0)],
        ])
        .unwrap()
    }

    #[test]
    fn levels_are_sorted_and_summarised() {
        let v = sample();
        assert_eq!(numbers(v.files(0)), [4, 3, 2, 1]);
        assert_eq!(v.level_summary(), "files[4 3 0 1]");
        assert_eq!(v.num_non_empty_levels(), 4);
        assert_eq!(Version::new(7).num_non_empty_levels(), 0);
        assert_eq!(v.level_bytes(1), 330);
        assert_eq!(v.total_bytes(), 100 + 330 + 200);
        assert_eq!(v.level_of(12), Some(1));
        let mut live = v.live_file_numbers();
        live.sort_unstable();
        assert_eq!(live, [1, 2, 3, 4, 10, 11, 12, 20]);
    }

    #[test]
    fn overlapping_levels_and_duplicates_are_rejected() {
        let overlap =
            Version::from_levels(vec![vec![], vec![f(1, "a", "c", 1), f(2, "c", "d", 1)]]);
        assert!(
            overlap
                .unwrap_err()
                .to_string()
                .contains("overlap in level 1")
        );
        let dup = Version::from_levels(vec![vec![f(1, "a", "c", 1)], vec![f(1, "x", "y", 1)]]);
        assert!(dup.unwrap_err().is_corruption());
        // A user key shared at a boundary is fine when internal keys are ordered.
        let mut left = f(1, "a", "k", 9).clone_metadata();
        left.largest = make_internal_key(b"k", 9, ValueKind::Value);
        let mut right = f(2, "k", "m", 3).clone_metadata();
        right.smallest = make_internal_key(b"k", 3, ValueKind::Value);
        let v = Version::from_levels(vec![vec![], vec![Arc::new(right), Arc::new(left)]]).unwrap();
        assert_eq!(numbers(v.files_for_key(1, b"k")), [1, 2]);
        assert_eq!(v.file_for_key(1, b"k").unwrap().number, 1);
        assert_eq!(
            numbers(&v.overlapping_files(1, Some(b"b"), Some(b"k"))),
            [1, 2]
        );
    }

    /// The fenced search against a linear scan, on levels whose keys share
    /// long prefixes (equal fences), are shorter than a fence, or share a user
    /// key at a file boundary.
    #[test]
    fn files_for_key_matches_a_linear_search() {
        use rand::{Rng, SeedableRng, rngs::StdRng};
        let mut rng = StdRng::seed_from_u64(11);
        let alphabet = [0u8, 1, b'a', 0xff];
        let random_key = |rng: &mut StdRng| -> Vec<u8> {
            let len = rng.random_range(0..=11);
            // A shared 6-byte head half of the time: many keys with equal fences.
            let mut k = if rng.random_bool(0.5) { b"commonhead".to_vec() } else { Vec::new() };
            k.extend((0..len).map(|_| alphabet[rng.random_range(0..alphabet.len())]));
            k
        };
        for round in 0..300 {
            let mut keys: Vec<Vec<u8>> = (0..rng.random_range(0..24))
                .map(|_| random_key(&mut rng))
                .collect();
            keys.sort();
            keys.dedup();
            // Files over consecutive runs of keys; now and then two files share
            // a user key at their boundary (newer versions in the left one).
            let file = |number: u64, lo: &[u8], lo_seq: u64, hi: &[u8], hi_seq: u64| {
                let mut m = f(number, "", "", 0).clone_metadata();
                m.smallest = make_internal_key(lo, lo_seq, ValueKind::Value);
                m.largest = make_internal_key(hi, hi_seq, ValueKind::Value);
                Arc::new(m)
            };
            let mut files = Vec::new();
            let mut i = 0;
            while i < keys.len() {
                let number = files.len() as u64 + 1;
                let j = (i + rng.random_range(0..3)).min(keys.len() - 1);
                if j > i && rng.random_bool(0.3) {
                    let k = (j + rng.random_range(0..3)).min(keys.len() - 1);
                    files.push(file(number, &keys[i], 100, &keys[j], 60));
                    files.push(file(number + 1, &keys[j], 40, &keys[k], 30));
                    i = k + 1;
                } else {
                    files.push(file(number, &keys[i], 100, &keys[j], 50));
                    i = j + 1;
                }
            }
            let v = Version::from_levels(vec![vec![], files]).unwrap();
            for probe in 0..60 {
                let key = if probe % 2 == 0 && !keys.is_empty() {
                    keys[rng.random_range(0..keys.len())].clone()
                } else {
                    random_key(&mut rng)
                };
                let want: Vec<u64> = v
                    .files(1)
                    .iter()
                    .filter(|f| f.smallest_user_key() <= &key[..] && &key[..] <= f.largest_user_key())
                    .map(|f| f.number)
                    .collect();
                assert_eq!(
                    numbers(v.files_for_key(1, &key)),
                    want,
                    "round {round}, key {key:?}, {v:?}"
                );
            }
        }
    }

    #[test]
    fn fences_are_monotone_and_prove_order_only_when_they_differ() {
        assert_eq!(fence(b""), 0);
        assert_eq!(fence(b"a"), 0x6100_0000_0000_0000);
        assert_eq!(fence(b"abcdefghXYZ"), u64::from_be_bytes(*b"abcdefgh"));
        // A key and its zero-extension tie; the longer key is the larger.
        assert_eq!(fence(b"ab"), fence(b"ab\0"));
        assert!(fence(b"ab\0") < fence(b"ab\x01"));
        assert!(fence(b"abcdefgh\xff") < fence(b"abcdefgi"));
    }

    #[test]
    fn overlapping_files_per_level() {
        let v = sample();
        type Case<'a> = (usize, Option<&'a str>, Option<&'a str>, Vec<u64>);
        let cases: Vec<Case<'_>> = vec![
            (1, Some("b"), Some("c"), vec![10, 11]),
            (1, Some("bb"), Some("bc"), vec![]),
            (1, None, Some("a"), vec![10]),
            (1, Some("n"), None, vec![12]),
            (1, None, None, vec![10, 11, 12]),
            (3, Some("q"), Some("q"), vec![20]),
            // L0: "a".."a" hits #1 (a-c), which reaches #3 (b-f), which reaches #2 (e-g).
            (0, Some("a"), Some("a"), vec![3, 2, 1]),
            (0, Some("g"), Some("g"), vec![3, 2, 1]),
            (0, Some("h"), Some("w"), vec![]),
            (0, Some("y"), None, vec![4]),
            (0, None, None, vec![4, 3, 2, 1]),
        ];
        for (level, b, e, want) in cases {
            let got = v.overlapping_files(level, b.map(str::as_bytes), e.map(str::as_bytes));
            assert_eq!(numbers(&got), want, "L{level} {b:?}..{e:?}");
        }
    }

    #[test]
    fn point_lookups() {
        let v = sample();
        assert_eq!(v.file_for_key(1, b"c").unwrap().number, 11);
        assert_eq!(v.file_for_key(1, b"cc").unwrap().number, 11);
        assert!(v.file_for_key(1, b"e").is_none());
        assert!(v.file_for_key(1, b"q").is_none());
        assert!(v.file_for_key(2, b"a").is_none());
        let l0: Vec<u64> = v.l0_files_for_key(b"e").map(|f| f.number).collect();
        assert_eq!(l0, [3, 2]);
        assert_eq!(v.l0_files_for_key(b"h").count(), 0);
    }
}
