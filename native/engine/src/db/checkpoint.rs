//! Files out: the live-file snapshot that checkpoints and backups copy
//! (RocksDB's `GetLiveFiles`, `GetSortedWalFiles`,
//! `DisableFileDeletions`/`EnableFileDeletions`), and checkpoints
//! (RocksDB's `Checkpoint::CreateCheckpoint`).
//!
//! **A consistent point.** `DbInner::live_file_set` takes, under the DB
//! mutex (with no manifest write in flight) and then the WAL mutex (lock
//! order 2 → 3, module docs of `db`): every family's current tables, the
//! live manifest's number and size, the live WALs from the manifest's log
//! number up to the WAL being appended to, and that WAL's size after its
//! buffer was handed to the OS. No write group appends meanwhile (it needs
//! the WAL mutex) and no edit is written (it needs the DB mutex to
//! prepare), so the manifest prefix names exactly those tables and logs,
//! and the WAL prefixes hold every write the manifest does not cover, up to
//! a record boundary. Opening a copy of those prefixes replays those WALs
//! as a crash recovery would: the copy holds every write whose WAL record
//! was appended before the point (acknowledged or about to be).
//!
//! Copying happens after the locks are released, with file deletions
//! disabled ([`Db::disable_file_deletions`], counted as RocksDB): the
//! tables and logs of the point may become obsolete meanwhile but stay on
//! disk. Tables are immutable, so a hard link is a copy; the manifest and
//! the live WAL keep growing, so each is copied up to its size at the point.
//!
//! **Checkpoint steps and what a crash leaves.** [`Db::create_checkpoint`]
//! refuses a `dir` that exists (RocksDB's semantics), then builds the
//! checkpoint in the staging directory `<dir>.tmp` (removed first if a
//! crashed attempt left one):
//!
//! 1. tables hard-linked (copied when linking fails: another file system);
//! 2. the manifest, the WALs and `IDENTITY` copied, each synced;
//! 3. `CURRENT` naming the manifest, written and synced last of the files;
//! 4. the staging directory synced (every name in it durable);
//! 5. the staging directory renamed to `dir`, and `dir`'s parent synced.
//!
//! The rename (5) is the commit point: it happens only after everything in
//! the checkpoint is durable (1–4), so after a crash at any point `dir`
//! either does not exist or holds the whole checkpoint. An interrupted
//! checkpoint is reported, not hidden: `dir` is missing (opening it fails
//! with `InvalidArgument` "does not exist"), and `<dir>.tmp` is left
//! behind; a staging directory that lost the race before step 3 has no
//! `CURRENT` and opening it fails with `Corruption` ("CURRENT is missing
//! but the directory holds a database"). The next `create_checkpoint(dir)`
//! deletes the staging directory and starts over. The source database is
//! never written by a checkpoint (beyond the memtable flush it asks for),
//! so a crash leaves it as any crash does. Tests: `checkpoint` module of
//! `tests/durability` (a power loss at every step).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::{Db, DbInner, FlushOptions};
use crate::error::{Error, Result};
use crate::fs::{FileSystem, WriteFileOptions};
use crate::info_log;
use crate::key::SequenceNumber;
use crate::version::filename;

/// RocksDB's `GetLiveFiles` result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveFiles {
    /// Bytes of the live manifest that belong to the snapshot: copy that
    /// prefix (the manifest keeps growing).
    pub manifest_file_size: u64,
    /// Names relative to the database directory, each with a leading `/`
    /// as RocksDB's: `/CURRENT`, `/MANIFEST-n`, `/IDENTITY`, then the
    /// table files.
    pub files: Vec<String>,
}

/// Where a WAL file is (RocksDB's `WalFileType`). Talus keeps no WAL
/// archive, so every WAL it lists is [`WalFileType::Alive`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum WalFileType {
    /// In the archive directory (never, in Talus).
    Archived = 0,
    /// In the `wal_dir`, live.
    Alive = 1,
}

/// One live WAL file (RocksDB's `LogFile`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogFile {
    /// The name relative to the `wal_dir`, with a leading `/` as RocksDB's.
    pub path_name: String,
    /// The log number.
    pub log_number: u64,
    /// Always [`WalFileType::Alive`].
    pub file_type: WalFileType,
    /// The sequence number of the first write in the log (from its start
    /// record: one past the last write logged before it).
    pub start_sequence: SequenceNumber,
    /// The file's size in bytes when listed.
    pub size_file_bytes: u64,
}

/// A table of the snapshot.
#[derive(Clone, Debug)]
pub(crate) struct LiveTable {
    pub(crate) number: u64,
    pub(crate) size: u64,
    /// XXH64 of the whole file, as the manifest recorded it.
    pub(crate) checksum: Option<u64>,
}

/// The files of a consistent point (module docs).
#[derive(Clone, Debug)]
pub(crate) struct LiveFileSet {
    pub(crate) tables: Vec<LiveTable>,
    pub(crate) manifest_number: u64,
    pub(crate) manifest_size: u64,
    /// (log number, bytes of it that belong to the point), ascending.
    pub(crate) logs: Vec<(u64, u64)>,
    /// The last sequence number published at the point.
    pub(crate) last_sequence: SequenceNumber,
}

/// Re-enables file deletions when dropped (one `disable` undone).
pub(crate) struct DeletionsDisabled<'a> {
    db: &'a Arc<DbInner>,
}

impl Drop for DeletionsDisabled<'_> {
    fn drop(&mut self) {
        let _ = self.db.enable_file_deletions(false);
    }
}

impl DbInner {
    /// Fails with `NotSupported` on a read-only or secondary instance.
    pub(crate) fn check_primary(&self, what: &str) -> Result<()> {
        if self.mode.is_primary() {
            Ok(())
        } else {
            Err(Error::NotSupported(format!(
                "Not supported operation in {} mode: {what}",
                self.mode.name()
            )))
        }
    }

    pub(crate) fn disable_file_deletions(&self) -> Result<()> {
        self.lifecycle.check_open()?;
        let mut st = self.state.lock();
        st.file_deletions_disabled += 1;
        info_log!(
            self.info_log,
            Info,
            "File deletions disabled ({} disable calls outstanding)",
            st.file_deletions_disabled
        );
        Ok(())
    }

    pub(crate) fn enable_file_deletions(&self, force: bool) -> Result<()> {
        let now_enabled = {
            let mut st = self.state.lock();
            if force {
                st.file_deletions_disabled = 0;
            } else {
                st.file_deletions_disabled = st.file_deletions_disabled.saturating_sub(1);
            }
            st.file_deletions_disabled == 0
        };
        if now_enabled {
            info_log!(self.info_log, Info, "File deletions enabled");
            // What became obsolete while disabled goes now (RocksDB too).
            self.purge_obsolete_files();
        }
        Ok(())
    }

    /// Disables deletions until the guard drops.
    pub(crate) fn hold_file_deletions(self: &Arc<Self>) -> Result<DeletionsDisabled<'_>> {
        self.disable_file_deletions()?;
        Ok(DeletionsDisabled { db: self })
    }

    /// Flushes every family holding unflushed writes, waiting.
    pub(crate) fn flush_all_families(self: &Arc<Self>) -> Result<()> {
        for cfd in self.families.load().values() {
            let sv = cfd.super_version.load();
            if sv.mem.is_empty() && sv.imm.is_empty() {
                continue;
            }
            drop(sv);
            self.flush_cf(
                &FlushOptions {
                    wait: true,
                    allow_write_stall: true,
                },
                cfd,
            )?;
        }
        Ok(())
    }

    /// The consistent point of the module docs. The caller holds file
    /// deletions disabled for as long as it reads the files.
    pub(crate) fn live_file_set(&self) -> Result<LiveFileSet> {
        self.lifecycle.check_open()?;
        self.check_bg_error()?;
        let mut st = self.state.lock();
        // An edit between prepare and commit may be half on disk: wait for
        // it, so that the manifest's size is that of the installed state.
        while st.versions.manifest_write_pending() {
            self.bg_cv.wait(&mut st);
        }
        let mut tables = Vec::new();
        for &id in st.families.keys() {
            let Some(v) = st.versions.current_cf(id) else {
                continue;
            };
            for level in 0..v.num_levels() {
                for f in v.files(level) {
                    tables.push(LiveTable {
                        number: f.number,
                        size: f.file_size,
                        checksum: f.file_checksum,
                    });
                }
            }
        }
        tables.sort_by_key(|t| t.number);
        let manifest_number = st.versions.manifest_file_number();
        let manifest_size = match st.versions.manifest_file_size() {
            Some(n) => n,
            None => self.fs.file_size(
                &self
                    .path
                    .join(filename::manifest_file_name(manifest_number)),
            )?,
        };
        let min_log = st.versions.log_number();
        let own: Vec<u64> = st.own_logs.range(min_log..).copied().collect();
        let mut wal = self.wal.lock();
        let mut logs = Vec::new();
        let failed = wal.failed;
        let (current, current_size) = match wal.writer.as_mut() {
            Some(w) if !failed => {
                // Hands the buffer to the OS: the copy reads the file.
                w.flush()?;
                (w.number(), w.file_size())
            }
            _ => {
                return Err(Error::Incomplete(
                    "the write-ahead log failed; call resume() before copying the database".into(),
                ));
            }
        };
        let last_sequence = self.last_sequence.load(Ordering::Acquire);
        drop(wal);
        drop(st);
        for n in own {
            if n > current {
                // The next WAL's file, made ahead: empty, not started.
                continue;
            }
            let size = if n == current {
                current_size
            } else {
                // A closed log: its writer handed every byte to the OS at
                // the switch, and it never grows again.
                self.fs
                    .file_size(&self.wal_dir.join(filename::log_file_name(n)))?
            };
            logs.push((n, size));
        }
        Ok(LiveFileSet {
            tables,
            manifest_number,
            manifest_size,
            logs,
            last_sequence,
        })
    }

    pub(crate) fn sorted_wal_files(self: &Arc<Self>) -> Result<Vec<LogFile>> {
        let _held = self.hold_file_deletions()?;
        let set = self.live_file_set()?;
        let mut out = Vec::with_capacity(set.logs.len());
        for (n, size) in set.logs {
            let path = self.wal_dir.join(filename::log_file_name(n));
            let start_sequence = match super::recovery::probe_log(self.fs.as_ref(), &path)? {
                super::recovery::Probe::Start(s) => s.sequence,
                _ => 0,
            };
            out.push(LogFile {
                path_name: format!("/{}", filename::log_file_name(n)),
                log_number: n,
                file_type: WalFileType::Alive,
                start_sequence,
                size_file_bytes: size,
            });
        }
        Ok(out)
    }

    fn create_checkpoint(self: &Arc<Self>, dir: &Path) -> Result<()> {
        self.lifecycle.check_open()?;
        self.check_primary("create_checkpoint")?;
        if dir.as_os_str().is_empty() || dir.file_name().is_none() {
            return Err(Error::InvalidArgument(format!(
                "checkpoint directory {:?} must name a directory to create",
                dir.display()
            )));
        }
        let fs = self.fs.as_ref();
        if fs.try_exists(dir)? {
            return Err(Error::InvalidArgument(format!(
                "Directory exists: {} (a checkpoint is made in a new directory)",
                dir.display()
            )));
        }
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !fs.is_dir(&parent) {
            return Err(Error::InvalidArgument(format!(
                "checkpoint directory {}: its parent {} is not an existing directory",
                dir.display(),
                parent.display()
            )));
        }
        let staging = staging_dir(dir);
        if fs.try_exists(&staging)? {
            info_log!(
                self.info_log,
                Warn,
                "Checkpoint: removing {} left by an interrupted checkpoint",
                staging.display()
            );
            remove_dir_files(fs, &staging)?;
        }
        // As RocksDB with log_size_for_flush 0: flush first, so the
        // checkpoint holds little WAL (and writes made without the WAL).
        self.flush_all_families()?;
        let _held = self.hold_file_deletions()?;
        let set = self.live_file_set()?;
        fs.create_dir_all(&staging)?;
        let r = self.fill_checkpoint(&set, &staging);
        if let Err(e) = r {
            // Best effort: a crash here leaves it for the next attempt.
            let _ = remove_dir_files(fs, &staging);
            return Err(e);
        }
        // (5) The commit point: everything under the staging name is
        // durable (steps 1–4), so the new name shows a whole checkpoint.
        fs.rename(&staging, dir)?;
        fs.sync_dir(&parent)?;
        info_log!(
            self.info_log,
            Info,
            "Checkpoint created at {}: {} tables, {} logs, last sequence {}",
            dir.display(),
            set.tables.len(),
            set.logs.len(),
            set.last_sequence
        );
        Ok(())
    }

    /// Steps 1–4 of the module docs into `staging`.
    fn fill_checkpoint(&self, set: &LiveFileSet, staging: &Path) -> Result<()> {
        let fs = self.fs.as_ref();
        for t in &set.tables {
            let name = filename::table_file_name(t.number);
            link_or_copy(fs, &self.path.join(&name), &staging.join(&name), t.size)?;
        }
        let manifest = filename::manifest_file_name(set.manifest_number);
        copy_file(
            fs,
            &self.path.join(&manifest),
            &staging.join(&manifest),
            Some(set.manifest_size),
        )?;
        for &(n, size) in &set.logs {
            let name = filename::log_file_name(n);
            copy_file(
                fs,
                &self.wal_dir.join(&name),
                &staging.join(&name),
                Some(size),
            )?;
        }
        let identity = self.db_id.identity_file_contents();
        write_synced(fs, &staging.join(filename::IDENTITY), identity.as_bytes())?;
        // (3) Last of the files: a staging directory with CURRENT has all
        // the files CURRENT's manifest needs.
        write_synced(
            fs,
            &staging.join(filename::CURRENT),
            format!("{manifest}\n").as_bytes(),
        )?;
        // (4) Every name in it durable before the rename publishes them.
        fs.sync_dir(staging)
    }
}

/// `<dir>.tmp`, where a checkpoint of `dir` is built.
pub(crate) fn staging_dir(dir: &Path) -> PathBuf {
    let mut s = dir.as_os_str().to_owned();
    s.push(".tmp");
    PathBuf::from(s)
}

/// Removes every file of directory `dir`, then `dir` (files only: a
/// staging directory holds no subdirectory).
pub(crate) fn remove_dir_files(fs: &dyn FileSystem, dir: &Path) -> Result<()> {
    for name in fs.list_dir(dir)? {
        fs.remove_file(&dir.join(name))?;
    }
    fs.remove_dir(dir)
}

/// Writes `data` to the new file `path` and syncs it.
pub(crate) fn write_synced(fs: &dyn FileSystem, path: &Path, data: &[u8]) -> Result<()> {
    let mut f = fs.new_writable(path, WriteFileOptions::default())?;
    f.append(data)?;
    f.sync()
}

/// Copies the first `limit` bytes of `from` (all of it for `None`) to the
/// new file `to`, synced; returns (bytes, XXH64 of them). A source shorter
/// than `limit` is an error naming it: the copy would not be the point.
pub(crate) fn copy_file(
    fs: &dyn FileSystem,
    from: &Path,
    to: &Path,
    limit: Option<u64>,
) -> Result<(u64, u64)> {
    let mut src = fs.new_sequential(from)?;
    let mut dst = fs.new_writable(to, WriteFileOptions::default())?;
    let mut hash = crate::xxh64::Xxh64::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut done = 0u64;
    loop {
        let want = match limit {
            Some(l) => (l - done).min(buf.len() as u64) as usize,
            None => buf.len(),
        };
        if want == 0 {
            break;
        }
        let n = src.read(&mut buf[..want])?;
        if n == 0 {
            if let Some(l) = limit {
                return Err(Error::corruption(
                    from.display(),
                    done,
                    format!("file ends at {done} bytes, before the {l} bytes to copy"),
                ));
            }
            break;
        }
        hash.update(&buf[..n]);
        dst.append(&buf[..n])?;
        done += n as u64;
    }
    dst.sync()?;
    Ok((done, hash.digest()))
}

/// Hard-links table `from` to `to`, or copies it when the link fails (the
/// two on different file systems, or a file system without links). A table
/// is immutable and was synced when written, so the link needs only its
/// directory entry made durable (the caller syncs the directory).
pub(crate) fn link_or_copy(fs: &dyn FileSystem, from: &Path, to: &Path, size: u64) -> Result<()> {
    match fs.hard_link(from, to) {
        Ok(()) => Ok(()),
        Err(_) => copy_file(fs, from, to, Some(size)).map(|_| ()),
    }
}

impl Db {
    /// Stops the deletion of obsolete files (RocksDB's
    /// `DisableFileDeletions`): calls are counted, each undone by one
    /// [`Db::enable_file_deletions`]`(false)`.
    pub fn disable_file_deletions(&self) -> Result<()> {
        self.inner.disable_file_deletions()
    }

    /// Undoes one [`Db::disable_file_deletions`], or all of them with
    /// `force` (RocksJava's `enableFileDeletions(boolean force)`); when none
    /// is left, the files that became obsolete meanwhile are deleted.
    pub fn enable_file_deletions(&self, force: bool) -> Result<()> {
        self.inner.lifecycle.check_open()?;
        self.inner.enable_file_deletions(force)
    }

    /// RocksDB's `GetLiveFiles`: the files of a consistent point and the
    /// size of the manifest's prefix that belongs to it, after flushing the
    /// memtables when `flush_memtable`. The files stay on disk only while
    /// file deletions are disabled (call [`Db::disable_file_deletions`]
    /// first to copy them). The live WALs are not listed
    /// ([`Db::sorted_wal_files`]).
    pub fn live_files(&self, flush_memtable: bool) -> Result<LiveFiles> {
        self.inner.check_primary("get_live_files")?;
        if flush_memtable {
            self.inner.flush_all_families()?;
        }
        let set = self.inner.live_file_set()?;
        let mut files = vec![
            format!("/{}", filename::CURRENT),
            format!("/{}", filename::manifest_file_name(set.manifest_number)),
            format!("/{}", filename::IDENTITY),
        ];
        files.extend(
            set.tables
                .iter()
                .map(|t| format!("/{}", filename::table_file_name(t.number))),
        );
        Ok(LiveFiles {
            manifest_file_size: set.manifest_size,
            files,
        })
    }

    /// RocksDB's `GetSortedWalFiles`: the live WALs, oldest first, with the
    /// size of each at the consistent point (the last one keeps growing).
    pub fn sorted_wal_files(&self) -> Result<Vec<LogFile>> {
        self.inner.check_primary("get_sorted_wal_files")?;
        self.inner.sorted_wal_files()
    }

    /// Writes a checkpoint of the database to `dir`, which must not exist:
    /// a directory that opens as the database did at one point, including
    /// the writes still only in the WAL (module docs of this file for the
    /// steps and what a crash leaves). Tables are hard links where `dir`
    /// is on the same file system, copies otherwise.
    pub fn create_checkpoint(&self, dir: impl AsRef<Path>) -> Result<()> {
        self.inner.create_checkpoint(dir.as_ref())
    }
}

/// A consistent point whose files stay on disk while this lives (for the
/// backup engine, which copies them).
pub(crate) struct CopyPoint<'a> {
    _held: DeletionsDisabled<'a>,
    /// The files of the point.
    pub(crate) set: LiveFileSet,
    /// The database directory (tables, manifest).
    pub(crate) db_dir: &'a Path,
    /// Where the WALs are.
    pub(crate) wal_dir: &'a Path,
    /// The database's id (the `IDENTITY` contents).
    pub(crate) db_id: crate::identity::DbId,
}

impl Db {
    /// File deletions held, memtables flushed when `flush`, then the point.
    pub(crate) fn copy_point(&self, flush: bool) -> Result<CopyPoint<'_>> {
        self.inner.check_primary("backup")?;
        let held = self.inner.hold_file_deletions()?;
        if flush {
            self.inner.flush_all_families()?;
        }
        let set = self.inner.live_file_set()?;
        Ok(CopyPoint {
            _held: held,
            set,
            db_dir: &self.inner.path,
            wal_dir: &self.inner.wal_dir,
            db_id: self.inner.db_id,
        })
    }

    /// The file system the database runs on.
    pub(crate) fn file_system(&self) -> &Arc<dyn FileSystem> {
        &self.inner.fs
    }
}
