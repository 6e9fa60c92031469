//! Versions: which table files make up the LSM tree, and the manifest that
//! makes that durable.
//!
//! - [`filename`]: the names of every file in a database directory.
//! - [`FileMetaData`]: what is known about one table file.
//! - [`VersionEdit`]: one change (files added/removed, counters), the record
//!   format of the manifest; its module specifies the bytes.
//! - [`Version`]: an immutable snapshot of the files of each level.
//! - [`VersionBuilder`]: applies edits to a version.
//! - [`VersionSet`]: owns the current version, the counters and the manifest.
//!
//! # Concurrency contract
//!
//! 1. [`VersionSet`] is single-owner: every method that changes it takes
//!    `&mut self`. The DB keeps it inside its mutex (state protected by a
//!    lock lives in the lock's type), so the compiler checks that nobody
//!    touches it without the lock. The one piece of work done outside it is
//!    the manifest IO of an edit: [`VersionSet::prepare_edit`] (locked)
//!    hands out a [`PendingEdit`] that writes without the lock, and
//!    [`VersionSet::commit_edit`] (locked) installs it; one edit is pending
//!    at a time.
//! 2. Readers never lock a version: the DB hands out `Arc<Version>` clones
//!    ([`VersionSet::current`]); a reader, iterator or compaction keeps its
//!    `Arc` for as long as it reads the files, and the files of every version
//!    still alive are reported by [`VersionSet::live_files`].
//! 3. A [`Version`] is immutable after construction, except the
//!    `being_compacted` flag of its files, which the DB sets and clears under
//!    its mutex (picking and marking must happen in one critical section).
//!
//! # Manifest
//!
//! `CURRENT` holds the name of the live manifest followed by `\n`. A manifest
//! `MANIFEST-{number:06}` is a log in the format of [`crate::wal`] whose
//! records are encoded [`VersionEdit`]s: the first is a full snapshot of the
//! state, each later one a change. Recovery replays them all; see
//! [`VersionSet::recover`] for the damage it tolerates and
//! [`VersionSet::log_and_apply`] for the write and roll-over order it relies on.

pub mod builder;
pub mod edit;
pub mod file_meta;
pub mod filename;
pub mod levels;
pub mod set;

pub use builder::VersionBuilder;
pub use edit::VersionEdit;
pub use file_meta::FileMetaData;
pub use filename::{FileType, parse_file_name};
pub use levels::Version;
pub use set::{
    COMPARATOR_NAME, DEFAULT_MAX_MANIFEST_FILE_SIZE, PendingEdit, VersionSet, WriteFailure,
};
