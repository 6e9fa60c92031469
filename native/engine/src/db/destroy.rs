//! [`destroy_db`]: removes a closed database's files (RocksDB's `DestroyDB`).

use std::path::Path;

use super::foreign;
use crate::error::{Error, Result};
use crate::options::Options;
use crate::version::{FileType, filename, parse_file_name};

/// Removes the database at `path`, which must not be open, as RocksDB's
/// `DestroyDB` does: with the directory's `LOCK` held, every file of the
/// database — tables, logs, manifests, `CURRENT`, `IDENTITY`, `LOG` and old
/// info logs, temporary files, options files — then the logs in
/// `opts.wal_dir` (every log there, as RocksDB: a `wal_dir` shared with
/// another database loses that one's logs too), then `LOCK`, then the
/// directories if that left them empty. Files whose names are not a
/// database's stay (and so does their directory).
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
        .filter(|w| *w != path && fs.is_dir(w));
    let wal_lock = match wal_dir {
        Some(w) => Some(fs.lock_file(&w.join(filename::LOCK))?),
        None => None,
    };
    let mut first_err: Option<Error> = None;
    let remove = |p: &Path, first_err: &mut Option<Error>| {
        if let Err(e) = fs.remove_file(p) {
            first_err.get_or_insert(e);
        }
    };
    for name in fs.list_dir(path)? {
        let ours = match parse_file_name(&name) {
            Some(FileType::Lock) => false, // removed once released, below
            Some(_) => true,
            None => is_options_file(&name),
        };
        if ours {
            remove(&path.join(&name), &mut first_err);
        }
    }
    if let Some(w) = wal_dir {
        // The directory was checked above; a listing that fails now leaves
        // its logs, and the failure is reported.
        match fs.list_dir(w) {
            Ok(names) => {
                for name in names {
                    if matches!(parse_file_name(&name), Some(FileType::Log(_))) {
                        remove(&w.join(&name), &mut first_err);
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
