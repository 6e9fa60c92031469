//! The file-system seam: every byte the engine reads or writes goes through
//! [`FileSystem`].
//!
//! [`StdFileSystem`] is the real implementation over `std::fs`. Tests swap in
//! `FaultFs` (module `fault`), an in-memory implementation that tracks what
//! was synced, drops unsynced data at a simulated power loss and fails chosen
//! calls; the engine cannot tell the difference. `FaultFs` is test
//! infrastructure: it is compiled only for the crate's own unit tests and
//! with the cargo feature `fault-injection`, which the integration tests (via
//! the crate's dev-dependency on itself) and the fuzz crate enable, so a
//! production build neither compiles nor exposes it.
//!
//! Contract shared by all implementations:
//! 1. [`WritableFile::append`] may buffer; [`WritableFile::flush`] hands the
//!    buffer to the OS (survives a process kill); [`WritableFile::sync`] makes
//!    it durable (survives a power loss).
//! 2. A new file's directory entry is durable only after [`FileSystem::sync_dir`]
//!    on its parent; the same holds for renames and removals.
//! 3. [`RandomAccessFile`] is safe to share between threads (`read_at` takes `&self`).

#[cfg(any(test, feature = "fault-injection"))]
pub mod fault;
mod std_fs;

use std::path::Path;
use std::sync::Arc;

use crate::error::Result;

#[cfg(any(test, feature = "fault-injection"))]
pub use fault::{Crash, FaultError, FaultFs, FaultOp, FaultRule};
pub use std_fs::StdFileSystem;

/// A file opened for appending.
pub trait WritableFile: Send {
    /// Appends `data`; may be buffered in memory until [`flush`](Self::flush).
    fn append(&mut self, data: &[u8]) -> Result<()>;
    /// Writes any buffered bytes to the operating system.
    fn flush(&mut self) -> Result<()>;
    /// Flushes and makes the file contents durable (fdatasync, or fsync when asked).
    fn sync(&mut self) -> Result<()>;
    /// Makes durable what was already written out to the operating system,
    /// leaving the bytes still buffered in memory to be written out later
    /// with the rest of their chunk: the gradual syncs of `bytes_per_sync`
    /// ([`PeriodicSyncFile`]), which must not cut a file's writes short.
    /// A file without a buffer of its own syncs as [`sync`](Self::sync).
    fn sync_written(&mut self) -> Result<()> {
        self.sync()
    }
    /// Bytes appended so far (buffered ones included).
    fn len(&self) -> u64;
    /// True when nothing was appended.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// A handle that makes what was flushed to this file durable from
    /// another thread (a background WAL sync), or `None` when the file
    /// cannot be synced that way (then the caller syncs inline).
    fn sync_handle(&self) -> Option<Box<dyn SyncHandle>> {
        None
    }
    /// Reserves disk blocks for the file to grow to `len` bytes without
    /// changing its size (`fallocate` with `FALLOC_FL_KEEP_SIZE`), so that
    /// appends up to there find their blocks allocated; the reserve past
    /// the end is released when the file is dropped. A hint: a file system
    /// that cannot reserve, or has no room, leaves it undone (and gives back
    /// what a failed attempt reserved), and appends allocate as they go
    /// (and fail as before on a full disk).
    fn preallocate(&mut self, _len: u64) {}
}

/// Makes a file's flushed data durable; usable from any thread.
pub trait SyncHandle: Send {
    /// fdatasync (or fsync) the file. Bytes still buffered in the
    /// [`WritableFile`] are not covered: flush first.
    fn sync(&mut self) -> Result<()>;
}

/// A file read front to back.
pub trait SequentialFile: Send {
    /// Reads up to `buf.len()` bytes; 0 means end of file.
    fn read(&mut self, buf: &mut [u8]) -> Result<usize>;
}

/// A file read at arbitrary offsets, shared between threads.
pub trait RandomAccessFile: Send + Sync {
    /// Reads exactly `buf.len()` bytes at `offset`; a short file is an error.
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()>;
    /// Current size of the file in bytes.
    fn size(&self) -> Result<u64>;
}

/// An OS-level lock on a file; released when dropped.
pub trait FileLock: Send + Sync {}

/// Options for opening writable files.
#[derive(Clone, Copy, Debug, Default)]
pub struct WriteFileOptions {
    /// Use fsync instead of fdatasync for [`WritableFile::sync`].
    pub use_fsync: bool,
}

/// Every file-system operation the engine uses.
pub trait FileSystem: Send + Sync + 'static {
    /// Creates `path` and missing parents.
    fn create_dir_all(&self, path: &Path) -> Result<()>;
    /// Creates (or truncates) `path` for appending.
    fn new_writable(&self, path: &Path, opts: WriteFileOptions) -> Result<Box<dyn WritableFile>>;
    /// Opens `path` for appending at its end, creating it when missing.
    fn new_appendable(&self, path: &Path, opts: WriteFileOptions) -> Result<Box<dyn WritableFile>>;
    /// Opens `path` for sequential reading.
    fn new_sequential(&self, path: &Path) -> Result<Box<dyn SequentialFile>>;
    /// Opens `path` for positional reads.
    fn new_random_access(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>>;
    /// Size of `path` in bytes.
    fn file_size(&self, path: &Path) -> Result<u64>;
    /// True when `path` exists; false also when the check itself failed
    /// (a parent without search permission, a parent that is a file). Where
    /// that difference matters, use [`Self::try_exists`].
    fn exists(&self, path: &Path) -> bool;
    /// Whether `path` exists: `Ok(false)` only when the OS says it does not
    /// (ENOENT); any other failure of the check (EACCES, ENOTDIR, EIO) is an
    /// IO error naming `path`. Opening a database goes by this, so that a
    /// directory the process may not read is reported as such, not as a
    /// missing database (`regression_unreadable_database_directory_is_an_io_error_not_missing`).
    fn try_exists(&self, path: &Path) -> Result<bool>;
    /// True when `path` is a directory.
    fn is_dir(&self, path: &Path) -> bool;
    /// Names (not paths) of the entries in directory `path`.
    fn list_dir(&self, path: &Path) -> Result<Vec<String>>;
    /// Removes file `path`.
    fn remove_file(&self, path: &Path) -> Result<()>;
    /// Atomically renames `from` to `to`, replacing `to`.
    fn rename(&self, from: &Path, to: &Path) -> Result<()>;
    /// Makes the directory entries of `dir` durable.
    fn sync_dir(&self, dir: &Path) -> Result<()>;
    /// Truncates `path` to `len` bytes.
    fn truncate(&self, path: &Path, len: u64) -> Result<()>;
    /// Takes an exclusive OS lock on `path` (created if missing). Fails with
    /// an IO error (RocksDB's status for it) whose message holds "lock"
    /// when another process or another open in this process holds it.
    fn lock_file(&self, path: &Path) -> Result<Box<dyn FileLock>>;
    /// Whether the existing directories `a` and `b` are the same one. The
    /// default compares the paths as written (component by component);
    /// [`StdFileSystem`] resolves links and `..` first.
    fn same_dir(&self, a: &Path, b: &Path) -> bool {
        a == b
    }
    /// Makes `to` a second name (hard link) of the file `from`, as
    /// `link(2)`: the new name is durable only after [`Self::sync_dir`] on
    /// its parent. The default, for file systems that cannot link, fails
    /// with `NotSupported` (ingestion then copies the file).
    fn link_file(&self, from: &Path, to: &Path) -> Result<()> {
        Err(crate::error::Error::NotSupported(format!(
            "link {} to {}: this file system does not make hard links",
            from.display(),
            to.display()
        )))
    }
    /// Removes the empty directory `path` (used by `destroy_db`, which
    /// ignores the failure of a directory that is not empty). The default,
    /// for file systems that wrap another, fails with `NotSupported`.
    fn remove_dir(&self, path: &Path) -> Result<()> {
        Err(crate::error::Error::NotSupported(format!(
            "remove_dir {}: this file system does not remove directories",
            path.display()
        )))
    }
    /// Makes `to` (which must not exist) a second name of file `from`, a
    /// hard link: the data is shared, and only `to`'s directory entry is
    /// new (durable after [`Self::sync_dir`] of its parent). Fails when
    /// the two are on different file systems; callers that can copy then
    /// do (checkpoints, backups). The default fails with `NotSupported`.
    fn hard_link(&self, from: &Path, to: &Path) -> Result<()> {
        Err(crate::error::Error::NotSupported(format!(
            "hard link {} to {}: this file system has no hard links",
            from.display(),
            to.display()
        )))
    }
}

/// Reads the whole of `path` into memory.
pub fn read_all(fs: &dyn FileSystem, path: &Path) -> Result<Vec<u8>> {
    let mut f = fs.new_sequential(path)?;
    let mut out = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            return Ok(out);
        }
        out.extend_from_slice(&buf[..n]);
    }
}

/// Writes `data` to `path` through a temporary file, syncs it and renames it
/// into place, then syncs the directory: after this returns, `path` holds
/// either its old contents or `data` across any crash, never a mix.
pub fn write_file_atomic(fs: &dyn FileSystem, dir: &Path, name: &str, data: &[u8]) -> Result<()> {
    let tmp = dir.join(format!("{name}.dbtmp"));
    let dst = dir.join(name);
    {
        let mut f = fs.new_writable(&tmp, WriteFileOptions::default())?;
        f.append(data)?;
        // The rename below must not become visible before the contents are durable.
        f.sync()?;
    }
    fs.rename(&tmp, &dst)?;
    // Make the rename itself durable.
    fs.sync_dir(dir)
}

/// Syncs a file every `bytes_per_sync` bytes while it is written, so a
/// large file is flushed to disk gradually instead of in one burst at the
/// end (RocksDB's `bytes_per_sync` / `wal_bytes_per_sync`). Each of those
/// syncs covers what the file has written out
/// ([`WritableFile::sync_written`]); the bytes it still buffers follow at
/// the next one, or at the file's final `sync`.
pub struct PeriodicSyncFile {
    inner: Box<dyn WritableFile>,
    bytes_per_sync: u64,
    unsynced: u64,
}

impl PeriodicSyncFile {
    /// Wraps `inner`; `bytes_per_sync` must be positive.
    pub fn new(inner: Box<dyn WritableFile>, bytes_per_sync: u64) -> Self {
        PeriodicSyncFile {
            inner,
            bytes_per_sync: bytes_per_sync.max(1),
            unsynced: 0,
        }
    }
}

impl WritableFile for PeriodicSyncFile {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.inner.append(data)?;
        self.unsynced += data.len() as u64;
        if self.unsynced >= self.bytes_per_sync {
            self.inner.sync_written()?;
            self.unsynced = 0;
        }
        Ok(())
    }
    fn flush(&mut self) -> Result<()> {
        self.inner.flush()
    }
    fn sync(&mut self) -> Result<()> {
        self.unsynced = 0;
        self.inner.sync()
    }
    fn sync_written(&mut self) -> Result<()> {
        self.inner.sync_written()
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn preallocate(&mut self, len: u64) {
        self.inner.preallocate(len)
    }
}
