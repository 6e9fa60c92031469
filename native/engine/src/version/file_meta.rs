//! What a version knows about one table file.
//!
//! Thread-safety: a [`FileMetaData`] is shared as `Arc<FileMetaData>` by every
//! version that contains the file and by compaction plans. All fields are
//! immutable after construction except [`FileMetaData::being_compacted`], an
//! atomic flag the DB sets and clears under its mutex when it schedules and
//! finishes a compaction (see [`crate::compaction::CompactionPlan::mark_being_compacted`]).
//! Because successive versions share the same `Arc`, a flag set on a file in
//! one version is seen in every later version that still holds the file.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use crate::table::TableReader;

use crate::key::{self, SequenceNumber};

/// Metadata of one table file. Persisted in the manifest (see
/// [`super::edit`]) except the runtime-only `being_compacted` flag.
#[derive(Debug, Default)]
pub struct FileMetaData {
    /// File number: the table lives in `{number:06}.sst`.
    pub number: u64,
    /// Size of the file in bytes.
    pub file_size: u64,
    /// Smallest internal key in the file (including range tombstone starts).
    pub smallest: Vec<u8>,
    /// Largest internal key in the file (including range tombstone ends).
    pub largest: Vec<u8>,
    /// Smallest sequence number of any entry.
    pub smallest_seq: SequenceNumber,
    /// Largest sequence number of any entry.
    pub largest_seq: SequenceNumber,
    /// Entries, tombstones included.
    pub num_entries: u64,
    /// Point and range tombstones.
    pub num_deletions: u64,
    /// Sum of the internal key lengths of all entries.
    pub raw_key_size: u64,
    /// Sum of the value lengths of all entries.
    pub raw_value_size: u64,
    /// When the file was written, seconds since the Unix epoch (0 = unknown).
    pub creation_time: u64,
    /// XXH64 of the whole file ([`crate::xxh64`]), computed as it was written; `None`
    /// for tables recorded before checksums were (the manifest's `new_file`
    /// field, where `new_file2` carries it). Checked by
    /// `Db::verify_checksum`, which reads the whole file.
    pub file_checksum: Option<u64>,
    /// Runtime only, never persisted: the file is an input of a running
    /// compaction and must not be picked by another one.
    pub being_compacted: AtomicBool,
    /// Runtime only: the open table reader, kept here when the table cache
    /// holds every file open (`max_open_files = -1`), so point lookups find
    /// it without a shared lock.
    pub table_reader: ReaderSlot,
}

/// A lazily filled slot for a file's open [`TableReader`].
#[derive(Default, Clone)]
pub struct ReaderSlot(pub OnceLock<Arc<TableReader>>);

impl std::fmt::Debug for ReaderSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "open"
        } else {
            "closed"
        })
    }
}

/// Weight of a surplus deletion in [`FileMetaData::compensated_size`]: one
/// tombstone is assumed to free this many average values once compacted.
pub const DELETION_WEIGHT: u64 = 2;

impl FileMetaData {
    /// User key of [`Self::smallest`]. Precondition: the key is a valid
    /// internal key (the manifest decoder and the table builder ensure it).
    pub fn smallest_user_key(&self) -> &[u8] {
        key::user_key(&self.smallest)
    }

    /// User key of [`Self::largest`]. Same precondition.
    pub fn largest_user_key(&self) -> &[u8] {
        key::user_key(&self.largest)
    }

    /// True when the file is an input of a running compaction.
    pub fn is_being_compacted(&self) -> bool {
        self.being_compacted.load(Ordering::Acquire)
    }

    /// Sets or clears the compaction flag.
    pub fn set_being_compacted(&self, on: bool) {
        self.being_compacted.store(on, Ordering::Release);
    }

    /// True when the file's user-key range intersects `[begin, end]`
    /// (inclusive; `None` is unbounded on that side).
    pub fn overlaps_user_range(&self, begin: Option<&[u8]>, end: Option<&[u8]>) -> bool {
        let before = matches!(begin, Some(b) if self.largest_user_key() < b);
        let after = matches!(end, Some(e) if self.smallest_user_key() > e);
        !(before || after)
    }

    /// The file's size boosted for deletions, used for scores and for the
    /// `ByCompensatedSize` and `MinOverlappingRatio` priorities, so that a
    /// file full of tombstones is compacted sooner: compacting it frees the
    /// space of the values they shadow, which its own size does not show.
    ///
    /// Rule (after RocksDB's): in steady state a file holds about as many
    /// deletions as other entries, so only the surplus counts. With
    /// `d = num_deletions` (point and range) and `n = num_entries`:
    ///
    /// ```text
    /// compensated = file_size + max(0, 2d − n) × avg_value × DELETION_WEIGHT
    /// avg_value   = raw_value_size / (n − d)     when the file has values,
    ///             = file_size / n                when it holds only tombstones
    /// ```
    ///
    /// RocksDB takes `avg_value` over the whole column family; this per-file
    /// estimate needs no shared statistics. Saturates instead of overflowing.
    pub fn compensated_size(&self) -> u64 {
        let d = self.num_deletions.min(self.num_entries);
        let surplus = d.saturating_mul(2).saturating_sub(self.num_entries);
        if surplus == 0 {
            return self.file_size;
        }
        let values = self.num_entries - d;
        let avg_value = self
            .raw_value_size
            .checked_div(values)
            .unwrap_or(self.file_size / self.num_entries.max(1));
        self.file_size.saturating_add(
            surplus
                .saturating_mul(avg_value)
                .saturating_mul(DELETION_WEIGHT),
        )
    }

    /// A copy with the compaction flag cleared (the copy is a different file
    /// as far as scheduling is concerned).
    pub fn clone_metadata(&self) -> FileMetaData {
        FileMetaData {
            number: self.number,
            file_size: self.file_size,
            smallest: self.smallest.clone(),
            largest: self.largest.clone(),
            smallest_seq: self.smallest_seq,
            largest_seq: self.largest_seq,
            num_entries: self.num_entries,
            num_deletions: self.num_deletions,
            raw_key_size: self.raw_key_size,
            raw_value_size: self.raw_value_size,
            creation_time: self.creation_time,
            file_checksum: self.file_checksum,
            being_compacted: AtomicBool::new(false),
            // The same file: an open reader stays valid.
            table_reader: self.table_reader.clone(),
        }
    }
}

/// Equality of the persisted fields; the runtime flag is ignored.
impl PartialEq for FileMetaData {
    fn eq(&self, o: &Self) -> bool {
        self.number == o.number
            && self.file_size == o.file_size
            && self.smallest == o.smallest
            && self.largest == o.largest
            && self.smallest_seq == o.smallest_seq
            && self.largest_seq == o.largest_seq
            && self.num_entries == o.num_entries
            && self.num_deletions == o.num_deletions
            && self.raw_key_size == o.raw_key_size
            && self.raw_value_size == o.raw_value_size
            && self.creation_time == o.creation_time
            && self.file_checksum == o.file_checksum
    }
}

impl Eq for FileMetaData {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{ValueKind, make_internal_key};

    fn meta(size: u64, entries: u64, dels: u64, raw_value: u64) -> FileMetaData {
        FileMetaData {
            number: 1,
            file_size: size,
            smallest: make_internal_key(b"a", 1, ValueKind::Value),
            largest: make_internal_key(b"z", 2, ValueKind::Value),
            num_entries: entries,
            num_deletions: dels,
            raw_value_size: raw_value,
            ..FileMetaData::default()
        }
    }

    #[test]
    fn compensated_size_boosts_only_surplus_deletions() {
        // (file_size, entries, deletions, raw_value_size) -> compensated
        let table = [
            ((1000, 0, 0, 0), 1000),                      // empty stats: no boost
            ((1000, 100, 0, 5000), 1000),                 // no deletions
            ((1000, 100, 50, 5000), 1000),                // balanced: 2d - n = 0
            ((1000, 100, 60, 4000), 1000 + 20 * 100 * 2), // surplus 20, avg value 4000/40
            ((1000, 10, 10, 0), 1000 + 10 * 100 * 2),     // only tombstones: avg = 1000/10
            ((1000, 10, 99, 0), 1000 + 10 * 100 * 2),     // deletions clamped to entries
            ((u64::MAX, 10, 10, 0), u64::MAX),            // saturates
        ];
        for ((size, n, d, rv), want) in table {
            assert_eq!(
                meta(size, n, d, rv).compensated_size(),
                want,
                "{size} {n} {d} {rv}"
            );
        }
    }

    #[test]
    fn user_keys_flags_and_equality() {
        let m = meta(1, 1, 0, 0);
        assert_eq!(m.smallest_user_key(), b"a");
        assert_eq!(m.largest_user_key(), b"z");
        assert!(m.overlaps_user_range(Some(b"z"), None));
        assert!(m.overlaps_user_range(None, Some(b"a")));
        assert!(!m.overlaps_user_range(Some(b"za"), None));
        assert!(!m.overlaps_user_range(Some(b"0"), Some(b"1")));
        assert!(!m.is_being_compacted());
        m.set_being_compacted(true);
        assert!(m.is_being_compacted());
        let c = m.clone_metadata();
        assert!(!c.is_being_compacted());
        assert_eq!(c, m);
    }
}
