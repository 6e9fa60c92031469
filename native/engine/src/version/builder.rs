//! [`VersionBuilder`]: applies a sequence of edits to a base version.
//!
//! Used by recovery (every edit of the manifest onto an empty version) and
//! by `log_and_apply` (one edit onto the current version). Files kept from
//! the base stay the same `Arc`, so their `being_compacted` flags carry over.

use std::collections::HashMap;
use std::sync::Arc;

use super::edit::VersionEdit;
use super::file_meta::FileMetaData;
use super::levels::Version;
use crate::error::{Error, Result};

/// Accumulates edits; [`finish`](Self::finish) produces the new version.
pub struct VersionBuilder {
    num_levels: usize,
    source: String,
    /// Live files: number → (level, file).
    files: HashMap<u64, (usize, Arc<FileMetaData>)>,
}

impl VersionBuilder {
    /// Starts from `base`. `source` names where the edits come from (the
    /// manifest file at recovery) and appears in errors.
    pub fn new(base: &Version, source: impl Into<String>) -> Self {
        let files = base
            .levels()
            .iter()
            .enumerate()
            .flat_map(|(level, files)| files.iter().map(move |f| (f.number, (level, f.clone()))))
            .collect();
        VersionBuilder {
            num_levels: base.num_levels(),
            source: source.into(),
            files,
        }
    }

    /// Applies `edit`, read at byte `offset` of the source: its deletions
    /// first, then its additions (so a file can move between levels in one
    /// edit). Errors: a level beyond `num_levels` is `InvalidArgument` (the
    /// database was written with more levels than it is opened with);
    /// deleting a file that is not in the named level, or adding a number
    /// that is already live, is `Corruption`.
    pub fn apply(&mut self, edit: &VersionEdit, offset: u64) -> Result<()> {
        let corrupt = |reason: String| Error::corruption(&self.source, offset, reason);
        for &(level, number) in &edit.deleted_files {
            self.check_level(level, number)?;
            match self.files.get(&number) {
                Some((l, _)) if *l == level => {
                    self.files.remove(&number);
                }
                Some((l, _)) => {
                    return Err(corrupt(format!(
                        "edit deletes file #{number} from level {level}, but it is in level {l}"
                    )));
                }
                None => {
                    return Err(corrupt(format!(
                        "edit deletes file #{number} from level {level}, but it is not live"
                    )));
                }
            }
        }
        for (level, f) in &edit.new_files {
            self.check_level(*level, f.number)?;
            if let Some((l, _)) = self.files.get(&f.number) {
                return Err(corrupt(format!(
                    "edit adds file #{} to level {level}, but it is already in level {l}",
                    f.number
                )));
            }
            self.files.insert(f.number, (*level, f.clone()));
        }
        Ok(())
    }

    fn check_level(&self, level: usize, number: u64) -> Result<()> {
        if level >= self.num_levels {
            return Err(Error::InvalidArgument(format!(
                "{}: file #{number} is at level {level}, but the database is opened with num_levels = {}",
                self.source, self.num_levels
            )));
        }
        Ok(())
    }

    /// The resulting version; `Corruption` when it breaks a level invariant.
    pub fn finish(self) -> Result<Version> {
        let mut levels = vec![Vec::new(); self.num_levels];
        for (_, (level, f)) in self.files {
            levels[level].push(f);
        }
        Version::build(levels).map_err(|reason| Error::corruption(&self.source, 0, reason))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{ValueKind, make_internal_key};

    fn f(number: u64, lo: &str, hi: &str) -> Arc<FileMetaData> {
        Arc::new(FileMetaData {
            number,
            file_size: 1,
            smallest: make_internal_key(lo.as_bytes(), 1, ValueKind::Value),
            largest: make_internal_key(hi.as_bytes(), 1, ValueKind::Value),
            smallest_seq: 1,
            largest_seq: 1,
            ..FileMetaData::default()
        })
    }

    #[test]
    fn applies_edits_and_keeps_shared_files() {
        let base =
            Version::from_levels(vec![vec![f(1, "a", "c")], vec![f(2, "a", "b")], vec![]]).unwrap();
        base.files(1)[0].set_being_compacted(true);
        let mut b = VersionBuilder::new(&base, "test");
        let mut e = VersionEdit::new();
        e.delete_file(0, 1);
        e.add_file(1, f(3, "c", "d"));
        b.apply(&e, 0).unwrap();
        // Trivial move of #3 from L1 to L2 in one edit.
        let mut mv = VersionEdit::new();
        mv.delete_file(1, 3);
        mv.add_file(2, f(3, "c", "d"));
        b.apply(&mv, 0).unwrap();
        let v = b.finish().unwrap();
        assert_eq!(v.level_summary(), "files[0 1 1]");
        assert!(Arc::ptr_eq(&v.files(1)[0], &base.files(1)[0]));
        assert!(v.files(1)[0].is_being_compacted());
    }

    #[test]
    fn inconsistent_edits_are_rejected() {
        let base = Version::from_levels(vec![vec![f(1, "a", "c")], vec![f(2, "a", "b")]]).unwrap();
        let cases: Vec<(&str, VersionEdit, bool)> = vec![
            (
                "delete missing",
                {
                    let mut e = VersionEdit::new();
                    e.delete_file(1, 9);
                    e
                },
                true,
            ),
            (
                "delete wrong level",
                {
                    let mut e = VersionEdit::new();
                    e.delete_file(1, 1);
                    e
                },
                true,
            ),
            (
                "add duplicate",
                {
                    let mut e = VersionEdit::new();
                    e.add_file(1, f(1, "x", "y"));
                    e
                },
                true,
            ),
            (
                "level too deep",
                {
                    let mut e = VersionEdit::new();
                    e.add_file(5, f(7, "x", "y"));
                    e
                },
                false,
            ),
        ];
        for (what, e, corruption) in cases {
            let err = VersionBuilder::new(&base, "MANIFEST-000009")
                .apply(&e, 42)
                .unwrap_err();
            assert_eq!(err.is_corruption(), corruption, "{what}: {err}");
            assert!(err.to_string().contains("MANIFEST-000009"), "{what}: {err}");
        }
        let mut b = VersionBuilder::new(&base, "MANIFEST-000009");
        let mut e = VersionEdit::new();
        e.add_file(1, f(3, "b", "z"));
        b.apply(&e, 0).unwrap();
        let err = b.finish().unwrap_err();
        assert!(
            err.is_corruption() && err.to_string().contains("overlap"),
            "{err}"
        );
    }
}
