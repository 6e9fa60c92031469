//! Read-only and secondary instances (RocksDB's `OpenForReadOnly` and
//! `OpenAsSecondary`): a [`Db`] over a database directory that another
//! instance (another process, or this one) may have open and be writing.
//!
//! What such an instance does, and never does:
//! - It takes no `LOCK` and writes nothing in the database directory: no
//!   manifest edit, no table, no new WAL, no `IDENTITY`, no info log (a
//!   secondary writes its info log in its own `secondary_path`, as
//!   RocksDB's; a read-only one writes none unless the options carry a
//!   logger). No background work is ever scheduled.
//! - It recovers the version from the manifest `CURRENT` names, then
//!   replays the live WALs (from the manifest's log number on) into
//!   memtables, in memory only: the writes the primary logged but did not
//!   flush yet are visible. The WAL being appended to may end in a record
//!   cut short by the writer: replay stops there, as at the end of a log.
//!   Damage inside a log before the last one fails the open (`Corruption`
//!   naming the log and offset).
//! - Every call that would write (`write` and the single-key forms, flush,
//!   compact, create/drop a family, `flush_wal`, `resume`, checkpoints)
//!   fails with `NotSupported` naming the mode and the call.
//! - A subset of the families may be opened (RocksDB too); each listed
//!   family must exist.
//!
//! A secondary follows the primary with [`Db::try_catch_up_with_primary`]:
//! it re-reads the manifest (a new version of each family) and replays the
//! live WALs again from their start into new memtables (RocksDB tails them
//! from where it stopped; the result is the same state), then installs it.
//! Readers holding an older state (iterators, snapshots' reads) keep it.
//!
//! **Reading a moving primary.** The open and every catch-up build their
//! state the same way (`read_primary_state`), and the state installed is
//! always one the primary had: its tables as of one manifest read plus
//! every write logged after them up to some point, never a later write
//! without an earlier one. The primary changes files under the reader in
//! four ways; each is caught, and the attempt starts over from `CURRENT`
//! (at most `ATTEMPTS` times, then `Busy` naming what moved):
//!
//! 1. It replaces the manifest (a roll writes a new one, switches
//!    `CURRENT`, deletes the old one): reading the old one fails while
//!    `CURRENT` names another (`read_manifest`).
//! 2. It deletes a table the manifest read names (a compaction's input):
//!    every table is opened (its handle held) right after the manifest is
//!    read; one that is gone means the manifest moved on. With
//!    `max_open_files = -1` (the default) the handle stays with the
//!    version, so a table the primary deletes later still reads; with a
//!    limit, a reader evicted and opened again after the primary deleted
//!    its table fails with `Corruption` naming it until the next catch-up
//!    (RocksDB advises `max_open_files = -1` for secondaries too).
//! 3. It deletes logs below a new log number once an edit recording that
//!    number is in the manifest (a flush). Logs the primary deleted
//!    between the manifest read and the listing would just be absent from
//!    it, their writes in tables this version does not have: a hole. So
//!    every listed log is opened (handle held: a log deleted after that
//!    still reads whole), and then the manifest is checked: unchanged
//!    since the read (the same manifest, no longer: a manifest only grows
//!    while `CURRENT` names it), or read again with the same log number,
//!    means no log at or above the version's log number was deleted. A
//!    listed log gone before its open is a start-over too, never read as
//!    empty.
//! 4. It appends to a log after the reader reached its end, then switches
//!    to the next log (made ahead of the switch, so it may be listed
//!    empty and hold writes by the time it is read). Every log starts
//!    with a record holding the sequence number one past the last write
//!    logged before it (module docs of `recovery`): a log starting beyond
//!    where the replayed logs end is a hole, and a start-over reads the
//!    older log whole (it is final once the next one has its start). The
//!    same hole seen again after a start-over is in the files (a crash
//!    lost an older log's unsynced tail): replay stops there, as the
//!    primary's recovery does, and the info log says so.
//!
//! Regression test `files_out::regression_secondary_open_racing_flush_saw_a_hole`.
//!
//! Thread-safety: as [`Db`]; a catch-up swaps the version set under the DB
//! mutex and installs each family's super version there. The files are
//! read without the mutex.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::{Db, DbInner};
use crate::error::{Error, Result};
use crate::fs::{FileSystem, RandomAccessFile, SequentialFile, read_all};
use crate::info_log;
use crate::memtable::MemTable;
use crate::table::TableReader;
use crate::version::{FileMetaData, FileType, VersionSet, filename, parse_file_name};
use crate::wal::{LogReader, ReadEvent, decode_start_record};
use crate::write_batch::WriteBatch;

use super::write::apply_batch_with;

/// How a database was opened.
#[derive(Clone, Debug)]
pub(crate) enum OpenMode {
    /// The writer: takes the lock, recovers, writes.
    Primary,
    /// Read-only: see the module docs.
    ReadOnly {
        /// Fail the open when a live WAL holds writes (RocksDB's
        /// `error_if_wal_file_exists`).
        error_if_wal_file_exists: bool,
    },
    /// Secondary: read-only, follows the primary on demand.
    Secondary {
        /// Where its info log goes.
        path: PathBuf,
    },
}

impl OpenMode {
    pub(crate) fn is_primary(&self) -> bool {
        matches!(self, OpenMode::Primary)
    }

    pub(crate) fn name(&self) -> &'static str {
        match self {
            OpenMode::Primary => "primary",
            OpenMode::ReadOnly { .. } => "read only",
            OpenMode::Secondary { .. } => "secondary",
        }
    }
}

/// Times an open or a catch-up reads the primary's files again when the
/// primary changed them under it (module docs) before it fails with `Busy`.
const ATTEMPTS: usize = 16;

/// Why an attempt at the primary's state did not give one.
enum Attempt {
    /// The primary changed a file the attempt depends on (said in words):
    /// start over.
    Moved(String),
    /// A log starts beyond where the logs before it end (module docs,
    /// case 4): start over; seen again, it is in the files.
    Hole(Hole),
    /// Anything else: the open or catch-up fails with it.
    Failed(Error),
}

impl From<Error> for Attempt {
    fn from(e: Error) -> Self {
        Attempt::Failed(e)
    }
}

/// A log whose start record lies beyond where the logs before it end.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Hole {
    log: u64,
    /// The sequence number its start record holds.
    starts_at: u64,
    /// Where it should start at most: one past the last write replayed
    /// before it (for the first log, one past the manifest's).
    expected: u64,
}

impl std::fmt::Display for Hole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "log {} starts at sequence {} but what was read before it ends at {}",
            filename::log_file_name(self.log),
            self.starts_at,
            self.expected.saturating_sub(1)
        )
    }
}

fn is_not_found(e: &Error) -> bool {
    matches!(
        e,
        Error::Io {
            kind: std::io::ErrorKind::NotFound,
            ..
        }
    )
}

/// The number of the manifest `CURRENT` names; `None` when it cannot be
/// read or names none (reading the manifest then says what is wrong).
fn current_manifest(fs: &dyn FileSystem, dbname: &Path) -> Option<u64> {
    let contents = read_all(fs, &dbname.join(filename::CURRENT)).ok()?;
    let name = std::str::from_utf8(&contents).ok()?.strip_suffix('\n')?;
    match parse_file_name(name)? {
        FileType::Manifest(n) => Some(n),
        _ => None,
    }
}

/// Which manifest `CURRENT` named and its size, taken just before the
/// manifest was read. While both are unchanged the primary recorded no
/// edit since: a manifest only grows while `CURRENT` names it, and a roll
/// switches `CURRENT` to a new one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ManifestMark {
    number: u64,
    size: u64,
}

fn manifest_mark(fs: &dyn FileSystem, dbname: &Path) -> Option<ManifestMark> {
    let number = current_manifest(fs, dbname)?;
    let size = fs
        .file_size(&dbname.join(filename::manifest_file_name(number)))
        .ok()?;
    Some(ManifestMark { number, size })
}

/// Whether the manifest is still as `mark` found it (`None`: unknown, so no).
fn manifest_unchanged(fs: &dyn FileSystem, dbname: &Path, mark: Option<ManifestMark>) -> bool {
    mark.is_some_and(|m| manifest_mark(fs, dbname) == Some(m))
}

/// Reads the version set from the manifest `CURRENT` names, with the mark
/// of that manifest taken just before (`None` when the manifest read is
/// not the one marked). A failure while `CURRENT` has switched to another
/// manifest is the primary's roll under this read (module docs, case 1):
/// `Moved`.
fn read_manifest(
    fs: &Arc<dyn FileSystem>,
    dbname: &Path,
    opts: &Options,
    levels_of: &dyn Fn(&str) -> usize,
) -> Result<(VersionSet, Option<ManifestMark>), Attempt> {
    let named = current_manifest(fs.as_ref(), dbname);
    let mark = named.and_then(|number| {
        fs.file_size(&dbname.join(filename::manifest_file_name(number)))
            .ok()
            .map(|size| ManifestMark { number, size })
    });
    match VersionSet::recover_with(fs.clone(), dbname, opts, levels_of) {
        Ok(v) => {
            let mark = mark.filter(|m| m.number == v.manifest_file_number());
            Ok((v, mark))
        }
        Err(e) => {
            let now = current_manifest(fs.as_ref(), dbname);
            if now != named {
                Err(Attempt::Moved(format!(
                    "CURRENT switched from {} to {} while the manifest was read ({e})",
                    named.map_or("none".into(), filename::manifest_file_name),
                    now.map_or("none".into(), filename::manifest_file_name),
                )))
            } else {
                Err(Attempt::Failed(e))
            }
        }
    }
}

/// Reads the version set for a read-only or secondary open, starting over
/// when the primary replaces the manifest under the read (module docs).
pub(super) fn read_versions(
    fs: &Arc<dyn FileSystem>,
    dbname: &Path,
    opts: &Options,
    levels_of: &dyn Fn(&str) -> usize,
) -> Result<VersionSet> {
    let mut last = String::new();
    for _ in 0..ATTEMPTS {
        match read_manifest(fs, dbname, opts, levels_of) {
            Ok((v, _)) => return Ok(v),
            Err(Attempt::Moved(what)) => last = what,
            Err(Attempt::Hole(h)) => last = h.to_string(),
            Err(Attempt::Failed(e)) => return Err(e),
        }
    }
    Err(Error::Busy(format!(
        "{}: the primary kept replacing the manifest ({ATTEMPTS} attempts); last: {last}",
        dbname.display()
    )))
}

/// What replaying the live logs gave.
struct Replayed {
    mems: BTreeMap<u32, Arc<MemTable>>,
    last_sequence: u64,
    /// Entries replayed into some family.
    entries: u64,
}

/// A table of an attempt, its file held open (case 2 of the module docs)
/// until its reader is made, read as its family `family` reads.
struct HeldTable {
    f: Arc<FileMetaData>,
    level: usize,
    file: Arc<dyn RandomAccessFile>,
    family: u32,
}

/// One attempt at the primary's state (module docs): the version set of one
/// manifest read, every table of `wanted`'s families open, and the live
/// logs replayed into one memtable per family. `open_readers` are readers
/// of this instance's current tables, kept by number (a table number is
/// never reused). `known_hole` is a hole an earlier attempt saw: met
/// again, replay stops there.
fn attempt(
    db: &DbInner,
    levels_of: &dyn Fn(&str) -> usize,
    wanted: &[u32],
    open_readers: &HashMap<u64, Arc<TableReader>>,
    known_hole: Option<&Hole>,
) -> Result<(VersionSet, Replayed), Attempt> {
    let fs = &db.fs;
    let (mut versions, mark) = read_manifest(fs, &db.path, &db.opts, levels_of)?;
    versions.set_db_id(db.db_id);
    let families: Vec<u32> = wanted
        .iter()
        .copied()
        .filter(|&id| versions.current_cf(id).is_some())
        .collect();
    // Case 2: a handle on every table, right after the manifest read.
    let mut tables: Vec<HeldTable> = Vec::new();
    for &cf in &families {
        let v = versions.current_cf(cf).expect("filtered above");
        for level in 0..v.num_levels() {
            for f in v.files(level) {
                if let Some(r) = open_readers.get(&f.number) {
                    let _ = f.table_reader.0.set(r.clone());
                    continue;
                }
                if db.table_cache.open_reader(f).is_ok() {
                    continue;
                }
                match db.table_cache.open_file(f) {
                    Ok(file) => tables.push(HeldTable {
                        f: f.clone(),
                        level,
                        file,
                        family: cf,
                    }),
                    Err(e) if is_not_found(&e) => {
                        let name = filename::table_file_name(f.number);
                        if manifest_unchanged(fs.as_ref(), &db.path, mark) {
                            // Deleted with no edit since the read: not the
                            // primary's doing.
                            return Err(Attempt::Failed(Error::corruption(
                                db.path.join(&name).display(),
                                0,
                                "table file named by the manifest is missing",
                            )));
                        }
                        return Err(Attempt::Moved(format!(
                            "table {name} was deleted after the manifest named it"
                        )));
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        }
    }
    // Case 3: a handle on every live log, then the manifest checked.
    let min_log = versions.log_number();
    let mut numbers: Vec<u64> = fs
        .list_dir(&db.wal_dir)?
        .iter()
        .filter_map(|n| match parse_file_name(n) {
            Some(FileType::Log(n)) if n >= min_log => Some(n),
            _ => None,
        })
        .collect();
    numbers.sort_unstable();
    let mut logs: Vec<(u64, Box<dyn SequentialFile>)> = Vec::with_capacity(numbers.len());
    for number in numbers {
        let path = db.wal_dir.join(filename::log_file_name(number));
        match fs.new_sequential(&path) {
            Ok(file) => logs.push((number, file)),
            // Never read as empty: later logs would replay over its hole.
            Err(e) if is_not_found(&e) => {
                return Err(Attempt::Moved(format!(
                    "log {} was deleted after it was listed",
                    path.display()
                )));
            }
            Err(e) => return Err(e.into()),
        }
    }
    if !manifest_unchanged(fs.as_ref(), &db.path, mark) {
        // Logs are deleted only once an edit moving the log number past
        // them is in the manifest: the same log number now means every log
        // at or above it that existed at the listing was listed.
        let (now, _) = read_manifest(fs, &db.path, &db.opts, levels_of)?;
        if now.log_number() != min_log {
            return Err(Attempt::Moved(format!(
                "the log number moved from {min_log} to {} (a flush) while the logs were listed",
                now.log_number()
            )));
        }
    }
    // The handles are held: from here on the primary's deletions do not
    // change what is read.
    let open_families = db.families.load();
    for HeldTable {
        f,
        level,
        file,
        family: cf,
    } in tables
    {
        // Each table is read as its family reads (its block cache, its
        // extractor); a family this instance has no handle on yet reads as
        // the default family does until it has one.
        let fam = open_families.get(&cf).unwrap_or(&db.default_cf);
        db.table_cache.keep_open(&f, level, file, &fam.tables)?;
    }
    let replayed = replay(db, &versions, &families, logs, known_hole)?;
    Ok((versions, replayed))
}

/// Replays `logs` (number, open file; in number order) as `versions` needs
/// them into one memtable per family of `families`, without writing
/// anything (module docs).
fn replay(
    db: &DbInner,
    versions: &VersionSet,
    families: &[u32],
    logs: Vec<(u64, Box<dyn SequentialFile>)>,
    known_hole: Option<&Hole>,
) -> Result<Replayed, Attempt> {
    let fam_logs: BTreeMap<u32, u64> = families
        .iter()
        .map(|&id| (id, versions.family_log_number(id)))
        .collect();
    let mems: BTreeMap<u32, Arc<MemTable>> = families
        .iter()
        .map(|&id| (id, Arc::new(MemTable::new(0))))
        .collect();
    let mut last = versions.last_sequence();
    let mut entries = 0u64;
    // Where the next log may start at most: the edit naming the first log
    // as the log number recorded a last sequence at or past everything
    // logged before it; after that, one past the last write read.
    let mut next_seq = versions.last_sequence().saturating_add(1);
    let count = logs.len();
    'logs: for (i, (number, file)) in logs.into_iter().enumerate() {
        let is_last = i + 1 == count;
        let name = db
            .wal_dir
            .join(filename::log_file_name(number))
            .display()
            .to_string();
        let mut reader = LogReader::new(file);
        let mut first = true;
        loop {
            match reader.next()? {
                ReadEvent::Record { offset } => {
                    if std::mem::replace(&mut first, false)
                        && let Some(start) = decode_start_record(reader.record())
                    {
                        if let Some((owner, _)) = start.owner
                            && owner != db.db_id
                        {
                            // Another database's log in a shared wal_dir.
                            break;
                        }
                        if start.sequence > next_seq {
                            let hole = Hole {
                                log: number,
                                starts_at: start.sequence,
                                expected: next_seq,
                            };
                            if known_hole != Some(&hole) {
                                return Err(Attempt::Hole(hole));
                            }
                            // Seen twice: in the files. The history read
                            // ends here, as the primary's recovery's does.
                            info_log!(
                                db.info_log,
                                Warn,
                                "Replay stops at a hole in the write-ahead logs: {hole}"
                            );
                            break 'logs;
                        }
                        next_seq = next_seq.max(start.sequence);
                        continue;
                    }
                    let batch = WriteBatch::from_bytes(reader.record(), &name, offset)?;
                    let count = u64::from(batch.count());
                    // A family skips the logs below its log number: it
                    // flushed their writes to its tables.
                    apply_batch_with(&batch, |cf| {
                        fam_logs
                            .get(&cf)
                            .filter(|&&l| number >= l)
                            .and_then(|_| mems.get(&cf).cloned())
                    });
                    entries += count;
                    let end = batch.sequence().saturating_add(count);
                    last = last.max(end.saturating_sub(1));
                    next_seq = next_seq.max(end);
                }
                // A log still being appended to ends in what was written so
                // far (a record cut short is a torn tail); a log after it
                // then starts beyond it, which is the hole check above.
                ReadEvent::Eof | ReadEvent::TornTail { .. } => break,
                // The log being appended to may show a record still being
                // written; a closed log may not be damaged.
                ReadEvent::Corrupt { .. } if is_last => break,
                ReadEvent::Corrupt { offset, reason } => {
                    return Err(Error::corruption(&name, offset, reason).into());
                }
            }
        }
    }
    if let OpenMode::ReadOnly {
        error_if_wal_file_exists: true,
    } = db.mode
        && entries > 0
    {
        return Err(Error::InvalidArgument(format!(
            "the write-ahead logs in {} hold {entries} writes not in the tables \
             (error_if_wal_file_exists is true)",
            db.wal_dir.display()
        ))
        .into());
    }
    Ok(Replayed {
        mems,
        last_sequence: last,
        entries,
    })
}

/// The primary's state for the families `wanted` that still exist: the
/// routine of both the open and the catch-up (module docs). `Busy` naming
/// what moved when `ATTEMPTS` attempts all met the primary changing its
/// files.
fn read_primary_state(db: &DbInner, wanted: &[u32]) -> Result<(VersionSet, Replayed)> {
    let levels: BTreeMap<String, usize> = db
        .families
        .load()
        .values()
        .map(|c| (c.name.clone(), c.opts.num_levels.max(1) as usize))
        .collect();
    let default_levels = db.opts.num_levels.max(1) as usize;
    let levels_of = |name: &str| levels.get(name).copied().unwrap_or(default_levels);
    // The readers this instance has open stay in use: a catch-up opens
    // only the tables new to it.
    let open_readers: HashMap<u64, Arc<TableReader>> = {
        let st = db.state.lock();
        wanted
            .iter()
            .filter_map(|&id| st.versions.current_cf(id))
            .flat_map(|v| {
                (0..v.num_levels())
                    .flat_map(|l| v.files(l).to_vec())
                    .collect::<Vec<_>>()
            })
            .filter_map(|f| f.table_reader.0.get().map(|r| (f.number, r.clone())))
            .collect()
    };
    let mut known_hole: Option<Hole> = None;
    let mut last = String::new();
    for _ in 0..ATTEMPTS {
        let what = match attempt(db, &levels_of, wanted, &open_readers, known_hole.as_ref()) {
            Ok(state) => return Ok(state),
            Err(Attempt::Failed(e)) => return Err(e),
            Err(Attempt::Moved(what)) => what,
            Err(Attempt::Hole(h)) => {
                let what = h.to_string();
                known_hole = Some(h);
                what
            }
        };
        info_log!(
            db.info_log,
            Info,
            "The primary changed its files under this read, reading again: {what}"
        );
        last = what;
    }
    Err(Error::Busy(format!(
        "{}: the primary kept changing its files while this {} instance read them \
         ({ATTEMPTS} attempts); last: {last}",
        db.path.display(),
        db.mode.name()
    )))
}

/// Installs `r` as the state of every family it holds.
fn install(db: &DbInner, st: &mut super::DbState, r: Replayed) {
    for (cf, mem) in r.mems {
        db.install_super_version(st, cf, mem);
    }
    let last = r.last_sequence.max(st.versions.last_sequence());
    {
        let mut wal = db.wal.lock();
        wal.last_allocated = wal.last_allocated.max(last);
        wal.last_logged = wal.last_logged.max(last);
    }
    db.last_sequence.fetch_max(last, Ordering::AcqRel);
}

/// Recovery of a read-only or secondary open: the primary's state read as
/// a catch-up reads it (module docs), installed.
pub(super) fn recover(db: &Arc<DbInner>) -> Result<()> {
    let wanted: Vec<u32> = db.state.lock().families.keys().copied().collect();
    // A family the primary dropped since the first manifest read keeps
    // that read's version, as a catch-up keeps a dropped family's state.
    let (entries, levels) = load_primary_state(db, &wanted)?;
    info_log!(
        db.info_log,
        Info,
        "DB opened {}: id {}, last sequence {}, {entries} entries replayed in memory; {levels}",
        db.mode.name(),
        db.db_id,
        db.last_sequence.load(Ordering::Acquire),
    );
    Ok(())
}

/// Reads the primary's state (`read_primary_state`) and installs it;
/// returns the entries replayed and the new version's level summary.
fn load_primary_state(db: &DbInner, wanted: &[u32]) -> Result<(u64, String)> {
    let (versions, r) = read_primary_state(db, wanted)?;
    let entries = r.entries;
    let mut st = db.state.lock();
    st.versions = versions;
    install(db, &mut st, r);
    Ok((entries, st.versions.current().level_summary()))
}

impl DbInner {
    fn try_catch_up_with_primary(&self) -> Result<()> {
        self.lifecycle.check_open()?;
        if !matches!(self.mode, OpenMode::Secondary { .. }) {
            return Err(Error::NotSupported(format!(
                "try_catch_up_with_primary: this instance is {}, not secondary",
                self.mode.name()
            )));
        }
        let wanted: Vec<u32> = self.families.load().keys().copied().collect();
        let (_, levels) = load_primary_state(self, &wanted)?;
        info_log!(
            self.info_log,
            Info,
            "Caught up with the primary: last sequence {}; {levels}",
            self.last_sequence.load(Ordering::Acquire),
        );
        Ok(())
    }
}

impl Db {
    /// Opens the database at `path` read-only (module docs): no lock, no
    /// writes, no background work; the live WALs are replayed in memory.
    /// `families` as for [`Db::open_cf`], but a subset may be listed.
    /// With `error_if_wal_file_exists`, a WAL holding writes not in the
    /// tables fails the open with `InvalidArgument`.
    pub fn open_read_only(
        opts: Options,
        path: impl AsRef<std::path::Path>,
        families: Vec<(String, Options)>,
        error_if_wal_file_exists: bool,
    ) -> Result<(Db, Vec<super::ColumnFamilyHandle>)> {
        Db::open_with_mode(
            opts,
            path.as_ref(),
            families,
            OpenMode::ReadOnly {
                error_if_wal_file_exists,
            },
        )
    }

    /// Opens the database at `path` as a secondary instance: read-only as
    /// [`Db::open_read_only`], its info log in `secondary_path` (created
    /// if missing), and able to follow the primary with
    /// [`Db::try_catch_up_with_primary`].
    pub fn open_as_secondary(
        opts: Options,
        path: impl AsRef<std::path::Path>,
        secondary_path: impl AsRef<std::path::Path>,
        families: Vec<(String, Options)>,
    ) -> Result<(Db, Vec<super::ColumnFamilyHandle>)> {
        let secondary = secondary_path.as_ref();
        if secondary.as_os_str().is_empty() {
            return Err(Error::InvalidArgument(
                "secondary path must not be empty".into(),
            ));
        }
        Db::open_with_mode(
            opts,
            path.as_ref(),
            families,
            OpenMode::Secondary {
                path: secondary.to_path_buf(),
            },
        )
    }

    /// A secondary instance reads the primary's manifest and live WALs
    /// again and shows their state (module docs). `NotSupported` on any
    /// other instance.
    pub fn try_catch_up_with_primary(&self) -> Result<()> {
        self.inner.try_catch_up_with_primary()
    }

    /// Whether this instance was opened read-only or as a secondary.
    pub fn is_read_only(&self) -> bool {
        !self.inner.mode.is_primary()
    }
}

use crate::options::Options;
