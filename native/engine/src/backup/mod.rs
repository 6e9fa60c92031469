//! Backups (RocksDB's `BackupEngine`): numbered, incremental copies of a
//! database in a backup directory, each file checksummed, restorable into
//! a new database directory.
//!
//! # Layout of the backup directory
//!
//! ```text
//! <backup_dir>/
//!   meta/<id>                 one meta file per backup (format below)
//!   meta/<id>.tmp             a meta file being written (never read)
//!   shared_checksum/<n>_<x>_<s>.sst
//!                             a table shared by every backup that holds it:
//!                             <n> its number, <x> the XXH64 of its bytes
//!                             (16 hex digits), <s> its size in bytes
//!   private/<id>/             the backup's other files: MANIFEST-<m>,
//!                             CURRENT, IDENTITY, the WALs (*.log), and the
//!                             tables when share_table_files is off
//! ```
//!
//! Incremental: a table is named by number, checksum and size (as RocksDB's
//! `share_files_with_checksum`), so a later backup of the same table finds
//! it under the same name and copies nothing, while two different tables
//! that happen to carry the same number (one database restored, another
//! written) never collide. The checksum comes from the manifest (the XXH64
//! recorded when the table was written, checked against the bytes while
//! they are copied) or, for a table recorded without one, from reading it.
//!
//! # Meta file format (part of the on-disk format)
//!
//! UTF-8 text, one field per line, `\n` line ends; numbers in decimal,
//! checksums as 16 lowercase hex digits:
//!
//! ```text
//! talus-backup-meta 1\n                     magic and format version
//! id <u32>\n                                the backup id
//! timestamp <i64>\n                         seconds since the Unix epoch
//! sequence <u64>\n                          last sequence number backed up
//! app_metadata <hex>\n                      the caller's bytes, hex (may be empty)
//! files <count>\n
//! file <path> <size> <xxh64> <name>\n       × count: <path> relative to the
//!                                           backup dir, <name> the file's
//!                                           name in the database
//! end <xxh64>\n                             XXH64 of every byte before "end"
//! ```
//!
//! A meta file is written to `meta/<id>.tmp`, synced, renamed to
//! `meta/<id>` and the `meta` directory synced: the rename commits the
//! backup, after every file it lists is synced and its directory entry
//! durable. A crash before leaves files no meta names; the next
//! [`BackupEngine::open`] deletes them (the private directory, unshared
//! tables, `*.tmp`). A meta file that fails its checksum or does not parse
//! is reported by [`BackupEngine::corrupt_backups`] and skipped, and shared
//! files are not collected while one exists (it may name them).
//!
//! # Restore
//!
//! [`BackupEngine::restore_db_from_backup`] takes the `LOCK` of the target
//! directory (an open database there fails the restore, untouched),
//! deletes `CURRENT` first, then the other database files there (and the
//! logs in the WAL directory unless `keep_log_files`), copies every file
//! of the backup checking its size and XXH64 as it goes, syncs, and writes
//! `CURRENT` last (tmp + fsync + rename). A crash or a corrupt file leaves
//! a directory without `CURRENT`, which an open refuses ("CURRENT is missing
//! but the directory holds a database"); a corrupt file is named in the
//! error (`Corruption`, with the backup file's path).
//!
//! Thread-safety: a `BackupEngine` is `Send + Sync`; its calls are
//! serialized by one mutex. One engine at a time should write a backup
//! directory (RocksDB's rule; not enforced).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::db::Db;
use crate::error::{Error, Result};
use crate::fs::{FileSystem, StdFileSystem, WriteFileOptions};
use crate::version::{FileType, filename, parse_file_name};
use crate::xxh64::Xxh64;

/// First line of every meta file.
pub const META_MAGIC: &str = "talus-backup-meta 1";
const META_DIR: &str = "meta";
const SHARED_DIR: &str = "shared_checksum";
const PRIVATE_DIR: &str = "private";
const TMP_SUFFIX: &str = ".tmp";

/// RocksDB's `BackupEngineOptions`, the fields Talus honours.
#[derive(Clone)]
pub struct BackupEngineOptions {
    /// Where backups live (created if missing).
    pub backup_dir: PathBuf,
    /// Share table files between backups (copied once). Default true.
    pub share_table_files: bool,
    /// Sync every copied file and directory before a backup is committed.
    /// Default true; false makes a backup cheaper and lets a power loss
    /// damage it (RocksDB's meaning).
    pub sync: bool,
    /// Delete every backup in `backup_dir` at open. Default false.
    pub destroy_old_data: bool,
    /// Back up the live WALs too (so a backup without a flush holds the
    /// unflushed writes). Default true.
    pub backup_log_files: bool,
    /// Files copied at once by a backup or restore. Default 1.
    pub max_background_operations: u32,
    /// The file system of the backup directory.
    pub fs: Arc<dyn FileSystem>,
}

impl BackupEngineOptions {
    /// RocksDB's defaults for `backup_dir` on the real file system.
    pub fn new(backup_dir: impl Into<PathBuf>) -> Self {
        BackupEngineOptions {
            backup_dir: backup_dir.into(),
            share_table_files: true,
            sync: true,
            destroy_old_data: false,
            backup_log_files: true,
            max_background_operations: 1,
            fs: Arc::new(StdFileSystem),
        }
    }
}

impl std::fmt::Debug for BackupEngineOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BackupEngineOptions")
            .field("backup_dir", &self.backup_dir)
            .field("share_table_files", &self.share_table_files)
            .field("sync", &self.sync)
            .field("destroy_old_data", &self.destroy_old_data)
            .field("backup_log_files", &self.backup_log_files)
            .field("max_background_operations", &self.max_background_operations)
            .finish_non_exhaustive()
    }
}

/// RocksDB's `BackupInfo`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackupInfo {
    /// The backup's id (1, 2, ... in creation order).
    pub backup_id: u32,
    /// When it was made, seconds since the Unix epoch.
    pub timestamp: i64,
    /// Bytes of all its files (shared ones counted in every backup).
    pub size: u64,
    /// Number of its files.
    pub number_files: u32,
    /// The caller's metadata (`create_new_backup_with_metadata`).
    pub app_metadata: Vec<u8>,
}

/// RocksDB's `RestoreOptions`.
#[derive(Clone, Copy, Debug, Default)]
pub struct RestoreOptions {
    /// Keep the WALs in the WAL directory and restore none from the backup.
    /// Default false.
    pub keep_log_files: bool,
}

/// One file of a backup.
#[derive(Clone, Debug, PartialEq, Eq)]
struct BackupFile {
    /// Relative to the backup dir.
    path: String,
    size: u64,
    checksum: u64,
    /// Its name in the database.
    name: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct BackupMeta {
    id: u32,
    timestamp: i64,
    sequence: u64,
    app_metadata: Vec<u8>,
    files: Vec<BackupFile>,
}

impl BackupMeta {
    fn encode(&self) -> String {
        let mut s = format!(
            "{META_MAGIC}\nid {}\ntimestamp {}\nsequence {}\napp_metadata {}\nfiles {}\n",
            self.id,
            self.timestamp,
            self.sequence,
            hex(&self.app_metadata),
            self.files.len()
        );
        for f in &self.files {
            s.push_str(&format!(
                "file {} {} {:016x} {}\n",
                f.path, f.size, f.checksum, f.name
            ));
        }
        let sum = crate::xxh64::hash(s.as_bytes());
        s.push_str(&format!("end {sum:016x}\n"));
        s
    }

    /// Parses a meta file; never panics (`Corruption` naming `file`).
    fn decode(file: &Path, bytes: &[u8]) -> Result<BackupMeta> {
        let bad =
            |why: &str| Error::corruption(file.display(), 0, format!("backup meta file: {why}"));
        let text = std::str::from_utf8(bytes).map_err(|_| bad("not UTF-8"))?;
        let end_at = text.rfind("end ").ok_or_else(|| bad("no end line"))?;
        let (body, end) = text.split_at(end_at);
        let want = end
            .strip_prefix("end ")
            .and_then(|s| s.strip_suffix('\n'))
            .and_then(|s| u64::from_str_radix(s, 16).ok())
            .ok_or_else(|| bad("bad end line"))?;
        let got = crate::xxh64::hash(body.as_bytes());
        if want != got {
            return Err(bad(&format!(
                "checksum mismatch (recorded {want:016x}, computed {got:016x})"
            )));
        }
        let mut lines = body.lines();
        if lines.next() != Some(META_MAGIC) {
            return Err(bad("unknown format (first line)"));
        }
        let mut field = |name: &str| -> Result<String> {
            lines
                .next()
                .and_then(|l| l.strip_prefix(name))
                .and_then(|l| l.strip_prefix(' ').or(Some(l).filter(|l| l.is_empty())))
                .map(str::to_owned)
                .ok_or_else(|| bad(&format!("missing field {name}")))
        };
        let id = field("id")?.parse().map_err(|_| bad("bad id"))?;
        let timestamp = field("timestamp")?
            .parse()
            .map_err(|_| bad("bad timestamp"))?;
        let sequence = field("sequence")?
            .parse()
            .map_err(|_| bad("bad sequence"))?;
        let app_metadata = unhex(&field("app_metadata")?).ok_or_else(|| bad("bad app_metadata"))?;
        let count: usize = field("files")?.parse().map_err(|_| bad("bad file count"))?;
        let mut files = Vec::new();
        for _ in 0..count {
            let l = field("file")?;
            let parts: Vec<&str> = l.split(' ').collect();
            let [path, size, sum, name] = parts[..] else {
                return Err(bad("bad file line"));
            };
            files.push(BackupFile {
                path: path.to_owned(),
                size: size.parse().map_err(|_| bad("bad file size"))?,
                checksum: u64::from_str_radix(sum, 16).map_err(|_| bad("bad file checksum"))?,
                name: name.to_owned(),
            });
        }
        if lines.next().is_some() {
            return Err(bad("trailing lines"));
        }
        Ok(BackupMeta {
            id,
            timestamp,
            sequence,
            app_metadata,
            files,
        })
    }

    fn info(&self) -> BackupInfo {
        BackupInfo {
            backup_id: self.id,
            timestamp: self.timestamp,
            size: self.files.iter().map(|f| f.size).sum(),
            number_files: self.files.len() as u32,
            app_metadata: self.app_metadata.clone(),
        }
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

struct State {
    backups: BTreeMap<u32, BackupMeta>,
    /// Meta files that did not read (id, error).
    corrupt: BTreeMap<u32, String>,
}

/// RocksDB's `BackupEngine`. See the module docs.
pub struct BackupEngine {
    opts: BackupEngineOptions,
    state: Mutex<State>,
}

impl std::fmt::Debug for BackupEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BackupEngine")
            .field("backup_dir", &self.opts.backup_dir)
            .finish_non_exhaustive()
    }
}

impl BackupEngine {
    /// Opens (creating it if missing) the backup directory: reads every
    /// meta file and deletes what no committed backup names (module docs).
    /// `InvalidArgument` when `backup_dir` is a file.
    pub fn open(opts: BackupEngineOptions) -> Result<BackupEngine> {
        if opts.max_background_operations == 0 {
            return Err(Error::InvalidArgument(
                "max_background_operations must be at least 1".into(),
            ));
        }
        let fs = opts.fs.clone();
        let dir = &opts.backup_dir;
        if dir.as_os_str().is_empty() {
            return Err(Error::InvalidArgument(
                "backup_dir must not be empty".into(),
            ));
        }
        if fs.try_exists(dir)? && !fs.is_dir(dir) {
            return Err(Error::InvalidArgument(format!(
                "backup_dir {} exists and is not a directory",
                dir.display()
            )));
        }
        for sub in [META_DIR, SHARED_DIR, PRIVATE_DIR] {
            let p = dir.join(sub);
            if !fs.is_dir(&p) {
                if fs.try_exists(&p)? {
                    return Err(Error::InvalidArgument(format!(
                        "{} exists and is not a directory",
                        p.display()
                    )));
                }
                fs.create_dir_all(&p)?;
            }
        }
        let engine = BackupEngine {
            opts,
            state: Mutex::new(State {
                backups: BTreeMap::new(),
                corrupt: BTreeMap::new(),
            }),
        };
        if engine.opts.destroy_old_data {
            engine.destroy_all()?;
        }
        engine.load()?;
        engine.collect_garbage(&engine.state.lock())?;
        Ok(engine)
    }

    fn fs(&self) -> &dyn FileSystem {
        self.opts.fs.as_ref()
    }

    fn dir(&self, sub: &str) -> PathBuf {
        self.opts.backup_dir.join(sub)
    }

    fn destroy_all(&self) -> Result<()> {
        let fs = self.fs();
        for name in fs.list_dir(&self.dir(META_DIR))? {
            fs.remove_file(&self.dir(META_DIR).join(name))?;
        }
        fs.sync_dir(&self.dir(META_DIR))?;
        // The rest is unreferenced now: the garbage collection removes it.
        Ok(())
    }

    fn load(&self) -> Result<()> {
        let mut st = self.state.lock();
        let fs = self.fs();
        for name in fs.list_dir(&self.dir(META_DIR))? {
            let Ok(id) = name.parse::<u32>() else {
                continue;
            };
            let path = self.dir(META_DIR).join(&name);
            match crate::fs::read_all(fs, &path).and_then(|b| BackupMeta::decode(&path, &b)) {
                Ok(m) if m.id == id => {
                    st.backups.insert(id, m);
                }
                Ok(m) => {
                    st.corrupt
                        .insert(id, format!("{} holds backup {}", path.display(), m.id));
                }
                Err(e) => {
                    st.corrupt.insert(id, e.to_string());
                }
            }
        }
        Ok(())
    }

    /// Deletes what no committed backup names: `*.tmp` meta files, private
    /// directories without a meta file, and (when no meta file is
    /// corrupt) shared tables no backup lists.
    fn collect_garbage(&self, st: &State) -> Result<()> {
        let fs = self.fs();
        for name in fs.list_dir(&self.dir(META_DIR))? {
            if name.ends_with(TMP_SUFFIX) {
                fs.remove_file(&self.dir(META_DIR).join(name))?;
            }
        }
        for name in fs.list_dir(&self.dir(PRIVATE_DIR))? {
            let id = name.parse::<u32>().ok();
            let kept =
                id.is_some_and(|id| st.backups.contains_key(&id) || st.corrupt.contains_key(&id));
            if !kept {
                let p = self.dir(PRIVATE_DIR).join(&name);
                if fs.is_dir(&p) {
                    crate::db::checkpoint::remove_dir_files(fs, &p)?;
                } else {
                    fs.remove_file(&p)?;
                }
            }
        }
        if st.corrupt.is_empty() {
            let named: BTreeSet<&str> = st
                .backups
                .values()
                .flat_map(|m| m.files.iter().map(|f| f.path.as_str()))
                .collect();
            for name in fs.list_dir(&self.dir(SHARED_DIR))? {
                let rel = format!("{SHARED_DIR}/{name}");
                if !named.contains(rel.as_str()) {
                    fs.remove_file(&self.dir(SHARED_DIR).join(&name))?;
                }
            }
        }
        Ok(())
    }

    /// RocksDB's `CreateNewBackup`: backs up `db` (flushing its memtables
    /// first when `flush_before_backup`); returns the new backup's id.
    pub fn create_new_backup(&self, db: &Db, flush_before_backup: bool) -> Result<u32> {
        self.create_new_backup_with_metadata(db, &[], flush_before_backup)
    }

    /// [`Self::create_new_backup`] recording `app_metadata` with it
    /// ([`BackupInfo::app_metadata`]).
    pub fn create_new_backup_with_metadata(
        &self,
        db: &Db,
        app_metadata: &[u8],
        flush_before_backup: bool,
    ) -> Result<u32> {
        let mut st = self.state.lock();
        let id = st
            .backups
            .keys()
            .chain(st.corrupt.keys())
            .max()
            .map_or(1, |m| m + 1);
        let point = db.copy_point(flush_before_backup)?;
        let src = db.file_system().as_ref();
        let fs = self.fs();
        let private_rel = format!("{PRIVATE_DIR}/{id}");
        let private = self.opts.backup_dir.join(&private_rel);
        if fs.try_exists(&private)? {
            crate::db::checkpoint::remove_dir_files(fs, &private)?;
        }
        fs.create_dir_all(&private)?;
        let sync = self.opts.sync;
        // What each table becomes: (source, relative path, size, expected
        // checksum, name), copied by up to max_background_operations
        // threads.
        let mut jobs: Vec<CopyJob> = Vec::new();
        let mut files: Vec<BackupFile> = Vec::new();
        for t in &point.set.tables {
            let name = filename::table_file_name(t.number);
            let from = point.db_dir.join(&name);
            if self.opts.share_table_files {
                let checksum = match t.checksum {
                    Some(c) => c,
                    None => checksum_of(src, &from)?,
                };
                let rel = format!(
                    "{SHARED_DIR}/{:06}_{checksum:016x}_{}.sst",
                    t.number, t.size
                );
                let to = self.opts.backup_dir.join(&rel);
                let have = fs.try_exists(&to)? && fs.file_size(&to)? == t.size;
                if !have {
                    jobs.push(CopyJob {
                        from,
                        to,
                        size: t.size,
                        expect: Some(checksum),
                        staged: true,
                    });
                }
                files.push(BackupFile {
                    path: rel,
                    size: t.size,
                    checksum,
                    name,
                });
            } else {
                let rel = format!("{private_rel}/{name}");
                jobs.push(CopyJob {
                    from,
                    to: self.opts.backup_dir.join(&rel),
                    size: t.size,
                    expect: t.checksum,
                    staged: false,
                });
                files.push(BackupFile {
                    path: rel,
                    size: t.size,
                    checksum: t.checksum.unwrap_or(0),
                    name,
                });
            }
        }
        let sums = run_copies(
            src,
            fs,
            &jobs,
            self.opts.max_background_operations as usize,
            sync,
        )?;
        // Tables recorded without a checksum got theirs from the copy.
        for (job, sum) in jobs.iter().zip(&sums) {
            if let Some(f) = files
                .iter_mut()
                .find(|f| self.opts.backup_dir.join(&f.path) == job.to)
            {
                f.checksum = *sum;
            }
        }
        let mut small: Vec<(PathBuf, String, Option<u64>)> = vec![(
            point
                .db_dir
                .join(filename::manifest_file_name(point.set.manifest_number)),
            filename::manifest_file_name(point.set.manifest_number),
            Some(point.set.manifest_size),
        )];
        if self.opts.backup_log_files {
            for &(n, size) in &point.set.logs {
                let name = filename::log_file_name(n);
                small.push((point.wal_dir.join(&name), name, Some(size)));
            }
        }
        for (from, name, limit) in small {
            let rel = format!("{private_rel}/{name}");
            let (size, checksum) = copy_checked(
                src,
                fs,
                &from,
                &self.opts.backup_dir.join(&rel),
                limit,
                None,
                sync,
            )?;
            files.push(BackupFile {
                path: rel,
                size,
                checksum,
                name,
            });
        }
        let manifest = filename::manifest_file_name(point.set.manifest_number);
        for (name, data) in [
            (
                filename::IDENTITY.to_string(),
                point.db_id.identity_file_contents().into_bytes(),
            ),
            (
                filename::CURRENT.to_string(),
                format!("{manifest}\n").into_bytes(),
            ),
        ] {
            let rel = format!("{private_rel}/{name}");
            let mut f = fs.new_writable(
                &self.opts.backup_dir.join(&rel),
                WriteFileOptions::default(),
            )?;
            f.append(&data)?;
            if sync {
                f.sync()?;
            } else {
                f.flush()?;
            }
            files.push(BackupFile {
                path: rel,
                size: data.len() as u64,
                checksum: crate::xxh64::hash(&data),
                name,
            });
        }
        let sequence = point.set.last_sequence;
        drop(point);
        if sync {
            // Every name the meta file lists durable before it commits.
            fs.sync_dir(&private)?;
            fs.sync_dir(&self.dir(SHARED_DIR))?;
        }
        let meta = BackupMeta {
            id,
            timestamp: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64),
            sequence,
            app_metadata: app_metadata.to_vec(),
            files,
        };
        self.write_meta(&meta)?;
        st.backups.insert(id, meta);
        Ok(id)
    }

    /// tmp + fsync + rename + directory sync: the commit of a backup.
    fn write_meta(&self, meta: &BackupMeta) -> Result<()> {
        let fs = self.fs();
        let dir = self.dir(META_DIR);
        let tmp = dir.join(format!("{}{TMP_SUFFIX}", meta.id));
        {
            let mut f = fs.new_writable(&tmp, WriteFileOptions::default())?;
            f.append(meta.encode().as_bytes())?;
            // The rename below must not be durable before the contents.
            f.sync()?;
        }
        fs.rename(&tmp, &dir.join(meta.id.to_string()))?;
        fs.sync_dir(&dir)
    }

    /// RocksDB's `GetBackupInfo`: every readable backup, oldest first.
    pub fn backup_info(&self) -> Vec<BackupInfo> {
        self.state
            .lock()
            .backups
            .values()
            .map(BackupMeta::info)
            .collect()
    }

    /// RocksDB's `GetCorruptedBackups`: the ids whose meta file did not
    /// read, with why.
    pub fn corrupt_backups(&self) -> Vec<(u32, String)> {
        self.state
            .lock()
            .corrupt
            .iter()
            .map(|(k, v)| (*k, v.clone()))
            .collect()
    }

    fn find(st: &State, id: u32) -> Result<BackupMeta> {
        if let Some(why) = st.corrupt.get(&id) {
            return Err(Error::Corruption {
                file: format!("backup {id}"),
                offset: 0,
                reason: why.clone(),
            });
        }
        st.backups
            .get(&id)
            .cloned()
            .ok_or_else(|| Error::NotFound(format!("Backup not found: backup id {id}")))
    }

    /// RocksDB's `VerifyBackup` (with checksums): every file of backup
    /// `id` exists, has its recorded size and XXH64. `Corruption` naming
    /// the first file that does not; `NotFound` for an unknown id.
    pub fn verify_backup(&self, id: u32) -> Result<()> {
        let meta = Self::find(&self.state.lock(), id)?;
        let fs = self.fs();
        for f in &meta.files {
            let path = self.opts.backup_dir.join(&f.path);
            let size = fs.file_size(&path)?;
            if size != f.size {
                return Err(Error::corruption(
                    path.display(),
                    0,
                    format!("backup file is {size} bytes, {} recorded", f.size),
                ));
            }
            let got = checksum_of(fs, &path)?;
            if got != f.checksum {
                return Err(Error::corruption(
                    path.display(),
                    0,
                    format!(
                        "backup file checksum mismatch: XXH64 {got:016x}, {:016x} recorded",
                        f.checksum
                    ),
                ));
            }
        }
        Ok(())
    }

    /// RocksDB's `RestoreDBFromBackup`: makes `db_dir` (and `wal_dir` for
    /// the logs) hold backup `id` (module docs for the steps).
    pub fn restore_db_from_backup(
        &self,
        id: u32,
        db_dir: impl AsRef<Path>,
        wal_dir: impl AsRef<Path>,
        ro: &RestoreOptions,
    ) -> Result<()> {
        let meta = Self::find(&self.state.lock(), id)?;
        self.restore(&meta, db_dir.as_ref(), wal_dir.as_ref(), ro)
    }

    /// [`Self::restore_db_from_backup`] of the newest backup.
    pub fn restore_db_from_latest_backup(
        &self,
        db_dir: impl AsRef<Path>,
        wal_dir: impl AsRef<Path>,
        ro: &RestoreOptions,
    ) -> Result<()> {
        let meta = {
            let st = self.state.lock();
            st.backups
                .values()
                .next_back()
                .cloned()
                .ok_or_else(|| Error::NotFound("no backup to restore".into()))?
        };
        self.restore(&meta, db_dir.as_ref(), wal_dir.as_ref(), ro)
    }

    fn restore(
        &self,
        meta: &BackupMeta,
        db_dir: &Path,
        wal_dir: &Path,
        ro: &RestoreOptions,
    ) -> Result<()> {
        let fs = self.fs();
        for d in [db_dir, wal_dir] {
            if d.as_os_str().is_empty() {
                return Err(Error::InvalidArgument(
                    "restore directory must not be empty".into(),
                ));
            }
            if fs.try_exists(d)? && !fs.is_dir(d) {
                return Err(Error::InvalidArgument(format!(
                    "{} exists and is not a directory",
                    d.display()
                )));
            }
            fs.create_dir_all(d)
                .or_else(|e| if fs.is_dir(d) { Ok(()) } else { Err(e) })?;
        }
        // An open database there keeps it: nothing is touched then.
        let _lock = fs.lock_file(&db_dir.join(filename::LOCK))?;
        // CURRENT first: from here until the last step the directory is
        // clearly incomplete.
        let current = db_dir.join(filename::CURRENT);
        if fs.try_exists(&current)? {
            fs.remove_file(&current)?;
            fs.sync_dir(db_dir)?;
        }
        for (d, logs_only) in [(db_dir, false), (wal_dir, true)] {
            for name in fs.list_dir(d)? {
                let doomed = match parse_file_name(&name) {
                    Some(FileType::Log(_)) => !ro.keep_log_files,
                    Some(
                        FileType::Table(_)
                        | FileType::Manifest(_)
                        | FileType::Identity
                        | FileType::Temp,
                    ) => !logs_only,
                    _ => false,
                };
                if doomed {
                    fs.remove_file(&d.join(name))?;
                }
            }
        }
        let mut current_data = None;
        for f in &meta.files {
            let from = self.opts.backup_dir.join(&f.path);
            let to_dir = match parse_file_name(&f.name) {
                Some(FileType::Log(_)) if ro.keep_log_files => continue,
                Some(FileType::Log(_)) => wal_dir,
                Some(FileType::Current) => {
                    let data = crate::fs::read_all(fs, &from)?;
                    check_file(&from, f, data.len() as u64, crate::xxh64::hash(&data))?;
                    current_data = Some(data);
                    continue;
                }
                _ => db_dir,
            };
            let (size, sum) = copy_checked(fs, fs, &from, &to_dir.join(&f.name), None, None, true)?;
            check_file(&from, f, size, sum)?;
        }
        fs.sync_dir(db_dir)?;
        if !fs.same_dir(db_dir, wal_dir) {
            fs.sync_dir(wal_dir)?;
        }
        let Some(current_data) = current_data else {
            return Err(Error::corruption(
                self.dir(META_DIR).join(meta.id.to_string()).display(),
                0,
                "the backup lists no CURRENT",
            ));
        };
        // Last: the restored database opens only once everything is there.
        crate::fs::write_file_atomic(fs, db_dir, filename::CURRENT, &current_data)
    }

    /// RocksDB's `PurgeOldBackups`: deletes the oldest backups until at
    /// most `num_backups_to_keep` are left.
    pub fn purge_old_backups(&self, num_backups_to_keep: usize) -> Result<()> {
        let mut st = self.state.lock();
        let n = st.backups.len().saturating_sub(num_backups_to_keep);
        let doomed: Vec<u32> = st.backups.keys().take(n).copied().collect();
        for id in doomed {
            self.delete_locked(&mut st, id)?;
        }
        self.collect_garbage(&st)
    }

    /// RocksDB's `DeleteBackup`: `NotFound` for an unknown id. A corrupt
    /// backup (one whose meta file does not read) can be deleted too.
    pub fn delete_backup(&self, id: u32) -> Result<()> {
        let mut st = self.state.lock();
        if !st.backups.contains_key(&id) && !st.corrupt.contains_key(&id) {
            return Err(Error::NotFound(format!("Backup not found: backup id {id}")));
        }
        self.delete_locked(&mut st, id)?;
        self.collect_garbage(&st)
    }

    fn delete_locked(&self, st: &mut State, id: u32) -> Result<()> {
        let fs = self.fs();
        // The meta file first: once its removal is durable the backup is
        // gone; its files are then garbage.
        let meta = self.dir(META_DIR).join(id.to_string());
        if fs.try_exists(&meta)? {
            fs.remove_file(&meta)?;
        }
        fs.sync_dir(&self.dir(META_DIR))?;
        st.backups.remove(&id);
        st.corrupt.remove(&id);
        Ok(())
    }
}

fn check_file(from: &Path, f: &BackupFile, size: u64, sum: u64) -> Result<()> {
    if size != f.size {
        return Err(Error::corruption(
            from.display(),
            0,
            format!("backup file is {size} bytes, {} recorded", f.size),
        ));
    }
    if sum != f.checksum {
        return Err(Error::corruption(
            from.display(),
            0,
            format!(
                "backup file checksum mismatch: XXH64 {sum:016x}, {:016x} recorded",
                f.checksum
            ),
        ));
    }
    Ok(())
}

/// XXH64 of the whole of `path`.
fn checksum_of(fs: &dyn FileSystem, path: &Path) -> Result<u64> {
    let mut f = fs.new_sequential(path)?;
    let mut h = Xxh64::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            return Ok(h.digest());
        }
        h.update(&buf[..n]);
    }
}

struct CopyJob {
    from: PathBuf,
    to: PathBuf,
    size: u64,
    expect: Option<u64>,
    /// Copied to `<to>.tmp` then renamed (a shared file appears whole).
    staged: bool,
}

/// Runs `jobs` on up to `threads` threads; returns each one's checksum.
fn run_copies(
    src: &dyn FileSystem,
    dst: &dyn FileSystem,
    jobs: &[CopyJob],
    threads: usize,
    sync: bool,
) -> Result<Vec<u64>> {
    let one = |j: &CopyJob| -> Result<u64> {
        let tmp = if j.staged {
            let mut s = j.to.as_os_str().to_owned();
            s.push(TMP_SUFFIX);
            PathBuf::from(s)
        } else {
            j.to.clone()
        };
        let (_, sum) = copy_checked(src, dst, &j.from, &tmp, Some(j.size), j.expect, sync)?;
        if j.staged {
            dst.rename(&tmp, &j.to)?;
        }
        Ok(sum)
    };
    let threads = threads.clamp(1, jobs.len().max(1));
    if threads == 1 {
        return jobs.iter().map(one).collect();
    }
    let chunk = jobs.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .chunks(chunk)
            .map(|c| s.spawn(move || c.iter().map(one).collect::<Result<Vec<u64>>>()))
            .collect();
        let mut out = Vec::with_capacity(jobs.len());
        for h in handles {
            match h.join() {
                Ok(r) => out.extend(r?),
                Err(_) => return Err(Error::Aborted("a backup copy thread panicked".into())),
            }
        }
        Ok(out)
    })
}

/// Copies `from` (its first `limit` bytes) to the new file `to`, checking
/// the bytes' XXH64 against `expect` (a mismatch is `Corruption` naming
/// `from`, and `to` is removed); returns (size, XXH64).
fn copy_checked(
    src: &dyn FileSystem,
    dst: &dyn FileSystem,
    from: &Path,
    to: &Path,
    limit: Option<u64>,
    expect: Option<u64>,
    sync: bool,
) -> Result<(u64, u64)> {
    let mut r = src.new_sequential(from)?;
    let mut w = dst.new_writable(to, WriteFileOptions::default())?;
    let mut h = Xxh64::new();
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
        let n = r.read(&mut buf[..want])?;
        if n == 0 {
            if let Some(l) = limit {
                drop(w);
                let _ = dst.remove_file(to);
                return Err(Error::corruption(
                    from.display(),
                    done,
                    format!("file ends at {done} bytes, before the {l} bytes to copy"),
                ));
            }
            break;
        }
        h.update(&buf[..n]);
        w.append(&buf[..n])?;
        done += n as u64;
    }
    let sum = h.digest();
    if let Some(want) = expect
        && want != sum
    {
        drop(w);
        let _ = dst.remove_file(to);
        return Err(Error::corruption(
            from.display(),
            0,
            format!(
                "checksum mismatch while copying: XXH64 {sum:016x}, {want:016x} recorded in the manifest"
            ),
        ));
    }
    if sync {
        w.sync()?;
    } else {
        w.flush()?;
    }
    Ok((done, sum))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta() -> BackupMeta {
        BackupMeta {
            id: 7,
            timestamp: 1_700_000_000,
            sequence: 42,
            app_metadata: b"hi\n".to_vec(),
            files: vec![BackupFile {
                path: "shared_checksum/000012_00000000000000ff_100.sst".into(),
                size: 100,
                checksum: 0xff,
                name: "000012.sst".into(),
            }],
        }
    }

    /// Golden bytes: the meta format of the module docs.
    #[test]
    fn meta_file_format_is_pinned() {
        let text = meta().encode();
        let body = "talus-backup-meta 1\nid 7\ntimestamp 1700000000\nsequence 42\n\
                    app_metadata 68690a\nfiles 1\n\
                    file shared_checksum/000012_00000000000000ff_100.sst 100 00000000000000ff 000012.sst\n";
        assert!(text.starts_with(body), "{text}");
        assert_eq!(
            text[body.len()..],
            format!("end {:016x}\n", crate::xxh64::hash(body.as_bytes()))
        );
        assert_eq!(
            BackupMeta::decode(Path::new("m"), text.as_bytes()).unwrap(),
            meta()
        );
    }

    #[test]
    fn damaged_meta_files_are_corruption_never_a_panic() {
        let text = meta().encode().into_bytes();
        for i in 0..text.len() {
            let mut t = text.clone();
            t[i] ^= 0x01;
            let r = BackupMeta::decode(Path::new("m"), &t);
            assert!(
                r.as_ref().is_err_and(Error::is_corruption),
                "byte {i}: {r:?}"
            );
            t.truncate(i);
            assert!(
                BackupMeta::decode(Path::new("m"), &t).is_err(),
                "cut at {i}"
            );
        }
    }
}
