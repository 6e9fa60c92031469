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
//! A log the primary deleted between the manifest read and the replay
//! means the manifest moved on: the catch-up starts over, a bounded number
//! of times. Readers holding an older state (iterators, snapshots' reads)
//! keep it; a table the primary deleted since the state was read fails
//! such a read with an IO error naming the file until the next catch-up.
//!
//! Thread-safety: as [`Db`]; a catch-up swaps the version set under the DB
//! mutex and installs each family's super version there.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::{Db, DbInner};
use crate::error::{Error, Result};
use crate::info_log;
use crate::memtable::MemTable;
use crate::version::{FileType, VersionSet, filename, parse_file_name};
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

/// What replaying the live logs gave.
struct Replayed {
    mems: BTreeMap<u32, Arc<MemTable>>,
    last_sequence: u64,
    /// Entries replayed into some family.
    entries: u64,
}

/// A log vanished while it was being read: the primary moved on.
fn vanished(e: &Error) -> bool {
    matches!(
        e,
        Error::Io {
            kind: std::io::ErrorKind::NotFound,
            ..
        }
    )
}

/// Replays the logs `versions` still needs into one memtable per family of
/// `families`, without writing anything (module docs).
fn replay(db: &DbInner, versions: &VersionSet, families: &[u32]) -> Result<Replayed> {
    let min_log = versions.log_number();
    let fam_logs: BTreeMap<u32, u64> = families
        .iter()
        .map(|&id| (id, versions.family_log_number(id)))
        .collect();
    let mems: BTreeMap<u32, Arc<MemTable>> = families
        .iter()
        .map(|&id| (id, Arc::new(MemTable::new(0))))
        .collect();
    let mut logs: Vec<u64> = db
        .fs
        .list_dir(&db.wal_dir)?
        .iter()
        .filter_map(|n| match parse_file_name(n) {
            Some(FileType::Log(n)) if n >= min_log => Some(n),
            _ => None,
        })
        .collect();
    logs.sort_unstable();
    let mut last = versions.last_sequence();
    let mut entries = 0u64;
    for (i, &number) in logs.iter().enumerate() {
        let is_last = i + 1 == logs.len();
        let path = db.wal_dir.join(filename::log_file_name(number));
        let name = path.display().to_string();
        let mut reader = LogReader::new(db.fs.new_sequential(&path)?);
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
                    last = last.max(batch.sequence().saturating_add(count).saturating_sub(1));
                }
                ReadEvent::Eof | ReadEvent::TornTail { .. } => break,
                // The log being appended to may show a record still being
                // written; a closed log may not be damaged.
                ReadEvent::Corrupt { .. } if is_last => break,
                ReadEvent::Corrupt { offset, reason } => {
                    return Err(Error::corruption(&name, offset, reason));
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
        )));
    }
    Ok(Replayed {
        mems,
        last_sequence: last,
        entries,
    })
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

/// Recovery of a read-only or secondary open: replay in memory (module docs).
pub(super) fn recover(db: &Arc<DbInner>) -> Result<()> {
    let mut st = db.state.lock();
    let families: Vec<u32> = st.families.keys().copied().collect();
    let r = replay(db, &st.versions, &families)?;
    let entries = r.entries;
    install(db, &mut st, r);
    info_log!(
        db.info_log,
        Info,
        "DB opened {}: id {}, last sequence {}, {entries} entries replayed in memory; {}",
        db.mode.name(),
        db.db_id,
        db.last_sequence.load(Ordering::Acquire),
        st.versions.current().level_summary()
    );
    Ok(())
}

/// Times a catch-up starts over when the primary deleted a log under it.
const CATCH_UP_ATTEMPTS: usize = 16;

impl DbInner {
    fn try_catch_up_with_primary(&self) -> Result<()> {
        self.lifecycle.check_open()?;
        if !matches!(self.mode, OpenMode::Secondary { .. }) {
            return Err(Error::NotSupported(format!(
                "try_catch_up_with_primary: this instance is {}, not secondary",
                self.mode.name()
            )));
        }
        let levels: BTreeMap<String, usize> = self
            .families
            .load()
            .values()
            .map(|c| (c.name.clone(), c.opts.num_levels.max(1) as usize))
            .collect();
        let default_levels = self.opts.num_levels.max(1) as usize;
        let mut last_err = None;
        for _ in 0..CATCH_UP_ATTEMPTS {
            let mut versions =
                VersionSet::recover_with(self.fs.clone(), &self.path, &self.opts, &|name| {
                    levels.get(name).copied().unwrap_or(default_levels)
                })?;
            versions.set_db_id(self.db_id);
            let families: Vec<u32> = self
                .families
                .load()
                .keys()
                .copied()
                .filter(|id| versions.current_cf(*id).is_some())
                .collect();
            match replay(self, &versions, &families) {
                Ok(r) => {
                    let mut st = self.state.lock();
                    st.versions = versions;
                    install(self, &mut st, r);
                    info_log!(
                        self.info_log,
                        Info,
                        "Caught up with the primary: last sequence {}; {}",
                        self.last_sequence.load(Ordering::Acquire),
                        st.versions.current().level_summary()
                    );
                    return Ok(());
                }
                Err(e) if vanished(&e) => last_err = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last_err.unwrap_or_else(|| Error::Busy("the primary kept moving".into())))
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
