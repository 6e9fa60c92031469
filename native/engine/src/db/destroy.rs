//! [`destroy_db`]: removes a closed database's files (RocksDB's `DestroyDB`).

use std::path::Path;

use super::foreign;
use super::recovery::{self, Probe};
use crate::error::{Error, Result};
use crate::identity::DbId;
use crate::options::Options;
use crate::version::{FileType, VersionSet, filename, parse_file_name};
use crate::wal::StartRecord;

/// Removes the database at `path`, which must not be open, as RocksDB's
/// `DestroyDB` does: with the directory's `LOCK` held, every file of the
/// database — tables, logs, manifests, `CURRENT`, `IDENTITY`, `LOG` and old
/// info logs, temporary files, options files — then its logs in
/// `opts.wal_dir`, then `LOCK`, then the directories if that left them
/// empty. Files whose names are not a database's stay (and so does their
/// directory).
///
/// Only this database's logs go (RocksDB removes every log in `wal_dir`):
/// every log names the database that wrote it in its start record (module
/// docs of `wal`), and a log naming another database — one sharing the
/// `wal_dir`, or one whose `wal_dir` is this directory — stays. In a
/// separate `wal_dir` a log goes when it names this database (the id in
/// `IDENTITY` or in the manifest), holds no write of anyone's, or, for a
/// database written before ids, names no database; a log naming no
/// database next to a database with an id, and one whose first record is
/// unreadable, stay there. In the database's own directory every log not
/// naming another database goes. Logs kept as `NNNNNN.log.unreplayed` by
/// recovery follow the same rule. Pinned by the engine suite's `destroy`
/// tests (`regression_destroy_with_a_shared_wal_dir_removes_only_its_own_logs`).
///
/// - A missing `path` is nothing to destroy: `Ok` (RocksDB fails to take
///   the lock there, an `IOError`).
/// - An open database (here or in another process) holds the lock: the
///   `IOError` of [`crate::fs::FileSystem::lock_file`], and nothing is
///   removed. A separate `wal_dir` is locked too.
/// - Another engine's database (`foreign`): `InvalidArgument` naming what
///   was found, and nothing is touched.
///
/// Every file is tried; the first removal that failed is returned.
pub fn destroy_db(path: impl AsRef<Path>, opts: &Options) -> Result<()> {
    let path = path.as_ref();
    let fs = opts.fs.as_ref();
    if !fs.try_exists(path)? {
        return Ok(());
    }
    if !fs.is_dir(path) {
        return Err(Error::InvalidArgument(format!(
            "{} exists and is not a directory",
            path.display()
        )));
    }
    foreign::check_not_foreign(fs, path)?;
    let lock_path = path.join(filename::LOCK);
    let lock = fs.lock_file(&lock_path)?;
    let wal_dir = opts
        .wal_dir
        .as_deref()
        .filter(|w| *w != path && !fs.same_dir(w, path) && fs.is_dir(w));
    let wal_lock = match wal_dir {
        Some(w) => Some(fs.lock_file(&w.join(filename::LOCK))?),
        None => None,
    };
    let ids = database_ids(opts, path);
    let mut first_err: Option<Error> = None;
    let remove = |p: &Path, first_err: &mut Option<Error>| {
        if let Err(e) = fs.remove_file(p) {
            first_err.get_or_insert(e);
        }
    };
    // Whether the log at `p` is this database's to remove; a log that
    // cannot be read stays, and the failure is reported.
    let log_is_ours = |p: &Path, own_dir: bool, first_err: &mut Option<Error>| -> bool {
        match recovery::probe_log(fs, p) {
            Ok(probe) => log_belongs(&probe, &ids, own_dir),
            Err(e) => {
                first_err.get_or_insert(e);
                false
            }
        }
    };
    for name in fs.list_dir(path)? {
        let p = path.join(&name);
        let ours = match parse_file_name(&name) {
            Some(FileType::Lock) => false, // removed once released, below
            Some(FileType::Log(_)) => log_is_ours(&p, true, &mut first_err),
            Some(_) => true,
            None if is_unreplayed_log(&name) => log_is_ours(&p, true, &mut first_err),
            None => is_options_file(&name),
        };
        if ours {
            remove(&p, &mut first_err);
        }
    }
    if let Some(w) = wal_dir {
        // The directory was checked above; a listing that fails now leaves
        // its logs, and the failure is reported.
        match fs.list_dir(w) {
            Ok(names) => {
                for name in names {
                    let p = w.join(&name);
                    let log = matches!(parse_file_name(&name), Some(FileType::Log(_)))
                        || is_unreplayed_log(&name);
                    if log && log_is_ours(&p, false, &mut first_err) {
                        remove(&p, &mut first_err);
                    }
                }
            }
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    // The database is gone once its files are: the locks and the
    // directories go without error checks, as in RocksDB (a directory
    // still holding other files stays).
    drop(wal_lock);
    drop(lock);
    if let Some(w) = wal_dir {
        let _ = fs.remove_file(&w.join(filename::LOCK));
        let _ = fs.remove_dir(w);
    }
    let _ = fs.remove_file(&lock_path);
    let _ = fs.remove_dir(path);
    match first_err {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// `OPTIONS-{digits}`: RocksDB's options file, which `DestroyDB` removes.
fn is_options_file(name: &str) -> bool {
    name.strip_prefix("OPTIONS-")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// `NNNNNN.log.unreplayed`: a log recovery did not replay to its end and
/// kept for the user (module docs of `recovery`).
fn is_unreplayed_log(name: &str) -> bool {
    name.strip_suffix(recovery::UNREPLAYED_SUFFIX)
        .is_some_and(|n| matches!(parse_file_name(n), Some(FileType::Log(_))))
}

/// The ids this database's files carry: the one in `IDENTITY` and the
/// manifest's (they differ only after damage). Empty for a database written
/// before ids, or one where neither can be read.
fn database_ids(opts: &Options, path: &Path) -> Vec<DbId> {
    let mut ids: Vec<DbId> = super::read_identity(opts.fs.as_ref(), path)
        .into_iter()
        .collect();
    // Read only: recovering a version set writes nothing.
    if let Some(id) = VersionSet::recover(opts.fs.clone(), path, opts)
        .ok()
        .and_then(|v| v.db_id())
        && !ids.contains(&id)
    {
        ids.push(id);
    }
    ids
}

/// Whether a log whose first record says `probe` is the database's with
/// `ids` (see [`destroy_db`]); `own_dir` when it lies in the database's own
/// directory.
fn log_belongs(probe: &Probe, ids: &[DbId], own_dir: bool) -> bool {
    match probe {
        Probe::Empty => true,
        Probe::Start(StartRecord {
            owner: Some((id, _)),
            ..
        }) => ids.contains(id),
        Probe::Start(StartRecord { owner: None, .. }) | Probe::Write => own_dir || ids.is_empty(),
        Probe::Damaged => own_dir,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which logs `destroy_db` removes, by what their first record says,
    /// whether the database has an id, and where the log lies.
    #[test]
    fn only_logs_of_this_database_are_removed() {
        let ours = DbId([1; 16]);
        let theirs = DbId([2; 16]);
        let start = |owner| Probe::Start(StartRecord { sequence: 1, owner });
        let named_ours = start(Some((ours, 5)));
        let named_theirs = start(Some((theirs, 5)));
        let unnamed = start(None);
        // (probe, the database's ids, in its own directory, removed)
        let cases: [(&Probe, &[DbId], bool, bool); 14] = [
            (&named_ours, &[ours], false, true),
            (&named_ours, &[ours], true, true),
            (&named_theirs, &[ours], false, false),
            (&named_theirs, &[ours], true, false),
            (&named_theirs, &[], false, false),
            (&named_theirs, &[], true, false),
            (&Probe::Empty, &[ours], false, true),
            (&unnamed, &[ours], false, false),
            (&unnamed, &[], false, true),
            (&unnamed, &[ours], true, true),
            (&Probe::Write, &[ours], false, false),
            (&Probe::Write, &[], false, true),
            (&Probe::Damaged, &[], false, false),
            (&Probe::Damaged, &[ours], true, true),
        ];
        for (i, (probe, ids, own_dir, removed)) in cases.into_iter().enumerate() {
            assert_eq!(
                log_belongs(probe, ids, own_dir),
                removed,
                "case {i}: {probe:?} ids {ids:?} own_dir {own_dir}"
            );
        }
        assert!(is_unreplayed_log("000007.log.unreplayed"));
        assert!(!is_unreplayed_log("notes.unreplayed"));
    }
}
