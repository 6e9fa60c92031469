//! Recovery at open: rebuild the version from the manifest, check the logs
//! against what the manifest records of them, replay the WALs the manifest
//! does not cover into memtables, write them to L0, and start a new WAL.
//!
//! Damage in a WAL is handled per [`WalRecoveryMode`]: the default drops
//! (and logs) an incomplete record at the end of a log and fails open with
//! `Corruption`, naming the file and offset, on anything else.
//!
//! **Whose logs.** Every log starts with a start record naming the database
//! that wrote it and its own number (module docs of `wal`). A log of
//! another database (a shared `wal_dir`) is neither replayed nor deleted:
//! it is noted in the info log and left alone. A log carrying this
//! database's id under another number (copied or renamed) is damage. Logs
//! written before owners existed are taken as this database's only while
//! its manifest has no id yet (its first open by a Talus with ids) or when
//! the manifest tracks them.
//!
//! **Tracked logs** (`wal_track`, RocksDB's
//! `track_and_verify_wals_in_manifest`). The manifest records every live
//! log once its start is durable, with the bytes known durable and, once
//! closed and synced whole, its last sequence number. Before anything is
//! replayed, each recorded log must exist, be this database's, and be no
//! shorter than its recorded size; while replaying, a log recorded whole
//! must replay up to its recorded last sequence. What a failure does:
//!
//! | mode (`paranoid_checks` on) | a recorded log missing, short, not ours, or replaying short |
//! |---|---|
//! | `TolerateCorruptedTailRecords`, `AbsoluteConsistency` | open fails with `Corruption` naming the log; nothing on disk changes |
//! | `PointInTimeRecovery` | replay stops there (a short log is replayed as far as it goes); later logs are not replayed |
//! | `SkipAnyCorruptedRecords` | noted; the log is skipped (or replayed as far as it goes) and replay goes on |
//!
//! With `paranoid_checks` off the first two modes note it in the info log
//! and go on as far as the prefix promise allows (a missing log leaves a
//! hole: see below). Only what was durable when recorded is recorded, so a
//! power loss never trips these checks.
//!
//! **The first log continues the manifest.** The edit that names a log as
//! the log number records a last sequence at or past every write logged
//! before that log (`resume()` publishes the numbers a failed group burnt
//! before its flush's edit), so the first log replayed starts at most one
//! past it. One starting beyond means the manifest lost edits (a cut between
//! its records) or the logs before were lost: the open fails with
//! `Corruption` naming the manifest instead of replaying on top and deleting
//! the tables the lost edits named as orphans. Other modes, `paranoid_checks`
//! off, and databases written before these checks treat it as a hole.
//!
//! **Holes.** A memtable switch leaves the old WAL's fdatasync to the WAL
//! syncer thread, so a power loss can keep a newer log's unsynced writes and
//! lose the end of an older log. Each WAL's start record carries the
//! sequence number one past the last write logged before it, and a log
//! whose start record lies beyond where the replayed logs end marks a hole:
//! replay stops there (its later entries are counted and logged, not
//! applied). Only unsynced writes can be lost that way: a synced write, and
//! a flush before naming a log in the manifest, wait for the older logs'
//! syncs, and a log recorded whole cannot lose its end without failing the
//! checks above. `AbsoluteConsistency` fails the open at a hole;
//! `SkipAnyCorruptedRecords` replays across it.
//!
//! **Nothing is deleted that was not replayed.** A log of this database
//! that recovery did not replay to its end (after a hole, after the point
//! where point-in-time recovery stopped, or with records skipped) is kept,
//! renamed `NNNNNN.log.unreplayed`, for the user to inspect or remove:
//! under its own name it would be below the new log number and deleted as
//! obsolete. An open that fails on damage deletes and renames nothing, and
//! removes the tables it wrote while replaying (the directory is as it
//! found it); one that fails on an IO error later may have renamed the logs
//! it was not going to replay.
//!
//! Order (each step is safe to crash after): the replayed data is written
//! to new L0 tables and the directory synced; `IDENTITY` is written if it
//! does not hold the id; the logs not replayed whole are renamed; a new
//! WAL holding only its start record is created and synced; then one
//! manifest edit records the tables, the new WAL's number as the log number
//! and the new WAL as tracked. Only after that edit is durable are the
//! replayed WALs obsolete. A crash before it leaves the old WALs and the
//! manifest as they were, so the next open replays the same data again
//! (the unreferenced tables are deleted as obsolete; a renamed log was not
//! going to be replayed).
//!
//! The newest log may be empty: the next WAL's file is made ahead of its
//! switch (`wal_set::PreparedWal`), and a crash can leave it. Read here as
//! holding nothing (whoever made it: an empty file holds no write of any
//! database), it is below the new log's number, so the edit above makes it
//! obsolete like the replayed logs.
//!
//! A failed open removes the tables it wrote only while no manifest write
//! naming them was attempted: a failed write may still have reached the
//! disk (`version::set`, `may_be_durable`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::DbInner;
use crate::error::{Error, Result};
use crate::fs::FileSystem;
use crate::identity::DbId;
use crate::info_log;
use crate::memtable::MemTable;
use crate::version::edit::WalMeta;
use crate::version::{FileType, VersionEdit, filename, parse_file_name};
use crate::wal::{LogReader, ReadEvent, StartRecord, WalRecoveryMode, decode_start_record};
use crate::write_batch::WriteBatch;

use super::family::{ColumnFamilyData, DEFAULT_FAMILY_ID};
use super::wal_set::OldWal;
use super::write::apply_batch_with;

/// Suffix given to a log recovery did not replay to its end.
pub(crate) const UNREPLAYED_SUFFIX: &str = ".unreplayed";

/// What the first record of a log says.
#[derive(Debug)]
pub(super) enum Probe {
    /// No complete record: the log holds nothing.
    Empty,
    /// A start record.
    Start(StartRecord),
    /// A write: a log from before start records.
    Write,
    /// The first record is damaged.
    Damaged,
}

pub(super) fn probe_log(fs: &dyn FileSystem, path: &Path) -> Result<Probe> {
    let mut r = LogReader::new(fs.new_sequential(path)?);
    Ok(match r.next()? {
        ReadEvent::Record { offset } => match decode_start_record(r.record()) {
            Some(s) => Probe::Start(s),
            None => match WriteBatch::from_bytes(r.record(), "", offset) {
                Ok(_) => Probe::Write,
                Err(_) => Probe::Damaged,
            },
        },
        ReadEvent::Eof | ReadEvent::TornTail { .. } => Probe::Empty,
        ReadEvent::Corrupt { .. } => Probe::Damaged,
    })
}

/// Whose a log is.
#[derive(Debug)]
enum Owner {
    /// This database's.
    Ours,
    /// Holds no write of anyone's.
    Nothing,
    /// Another database's: left alone. The text says whose.
    Foreign(String),
    /// This database's id, but another log's number: a copy or a rename.
    Renumbered(u64),
    /// Unreadable first record: replay reports the damage.
    Damaged,
}

fn owner(probe: &Probe, number: u64, db_id: DbId, legacy_ours: bool) -> Owner {
    match probe {
        Probe::Empty => Owner::Nothing,
        Probe::Damaged => Owner::Damaged,
        Probe::Start(StartRecord {
            owner: Some((id, n)),
            ..
        }) => {
            if *id != db_id {
                Owner::Foreign(format!("database {id}"))
            } else if *n != number {
                Owner::Renumbered(*n)
            } else {
                Owner::Ours
            }
        }
        Probe::Start(StartRecord { owner: None, .. }) | Probe::Write => {
            if legacy_ours {
                Owner::Ours
            } else {
                Owner::Foreign("no database named (written before log owners)".into())
            }
        }
    }
}

/// A recorded log that fails its check.
#[derive(Debug)]
enum Problem {
    Missing(WalMeta),
    Short { size: u64, synced: u64 },
    NotOurs(String),
    Renumbered(u64),
}

impl Problem {
    fn error(&self, path: &Path) -> Error {
        let reason = match self {
            Problem::Missing(meta) => format!(
                "write-ahead log is missing; the manifest records it as live{}",
                match meta.synced_size {
                    Some(s) => format!(" with {s} bytes synced"),
                    None => String::new(),
                }
            ),
            Problem::Short { size, synced } => format!(
                "write-ahead log is {size} bytes, shorter than the {synced} bytes the manifest \
                 records as synced"
            ),
            Problem::NotOurs(whose) => format!(
                "write-ahead log the manifest records belongs to another database ({whose})"
            ),
            Problem::Renumbered(n) => {
                format!("write-ahead log holds the records of log {n} (copied or renamed?)")
            }
        };
        Error::corruption(path.display(), 0, reason)
    }

    /// Whether the log is replayed at all (as far as it goes).
    fn readable(&self) -> bool {
        matches!(self, Problem::Short { .. })
    }
}

pub(super) fn recover(
    db: &Arc<DbInner>,
    legacy_logs: bool,
    identity_file: Option<DbId>,
) -> Result<()> {
    let mut written = Vec::new();
    let r = recover_inner(db, legacy_logs, identity_file, &mut written);
    if r.is_err() {
        // A failed open leaves the directory as it found it: `written`
        // holds the tables replay wrote while no manifest write could have
        // named them (it is emptied before the recovery edit).
        let mut st = db.state.lock();
        for n in written {
            st.pending_outputs.remove(&n);
            let _ = db
                .fs
                .remove_file(&db.path.join(filename::table_file_name(n)));
        }
    }
    r
}

fn recover_inner(
    db: &Arc<DbInner>,
    legacy_logs: bool,
    identity_file: Option<DbId>,
    written: &mut Vec<u64>,
) -> Result<()> {
    if db.opts.paranoid_checks {
        // Every table the manifest names must be there, whole, and be the
        // table its entry was made for: fail now rather than at the first
        // read that needs it.
        let versions: Vec<_> = {
            let st = db.state.lock();
            st.families
                .keys()
                .filter_map(|&cf| st.versions.current_cf(cf))
                .collect()
        };
        for v in versions {
            db.table_cache
                .check_files((0..v.num_levels()).flat_map(|l| v.files(l)))?;
        }
    }
    let mut st = db.state.lock();
    let min_log = st.versions.log_number();
    let prev_log = st.versions.prev_log_number();
    let manifest_last = st.versions.last_sequence();
    let manifest_name = db.path.join(filename::manifest_file_name(
        st.versions.manifest_file_number(),
    ));
    let tracked: BTreeMap<u64, WalMeta> = st.versions.wals().clone();
    let mut found: BTreeMap<u64, u64> = BTreeMap::new();
    for name in db.fs.list_dir(&db.wal_dir)? {
        if let Some(FileType::Log(n)) = parse_file_name(&name) {
            st.versions.mark_file_number_used(n);
            let size = db.fs.file_size(&db.wal_dir.join(&name))?;
            found.insert(n, size);
        }
    }
    drop(st);
    let log_path = |n: u64| db.wal_dir.join(filename::log_file_name(n));

    // Whose each log is. Obsolete ones (below the log number) of this
    // database, and empty ones, go to the obsolete-file sweep after the
    // recovery edit; the others are replay candidates.
    let mut sweep: Vec<u64> = Vec::new();
    let mut candidates: Vec<u64> = Vec::new();
    let mut owners: BTreeMap<u64, Owner> = BTreeMap::new();
    let mut starts: BTreeMap<u64, u64> = BTreeMap::new();
    for &n in found.keys() {
        let probe = probe_log(db.fs.as_ref(), &log_path(n))?;
        if let Probe::Start(s) = &probe {
            starts.insert(n, s.sequence);
        }
        let o = owner(&probe, n, db.db_id, legacy_logs || tracked.contains_key(&n));
        let needed = n >= min_log || (prev_log != 0 && n == prev_log);
        match &o {
            Owner::Ours if needed => candidates.push(n),
            Owner::Damaged if needed => candidates.push(n),
            Owner::Ours | Owner::Nothing => sweep.push(n),
            Owner::Foreign(whose) => info_log!(
                db.info_log,
                Warn,
                "Log {} is not this database's ({whose}): neither replayed nor deleted",
                log_path(n).display()
            ),
            Owner::Renumbered(_) | Owner::Damaged => {}
        }
        owners.insert(n, o);
    }

    // The recorded logs against the disk, before anything is written.
    let mut problems: BTreeMap<u64, Problem> = BTreeMap::new();
    for (&n, meta) in tracked.range(min_log..) {
        let p = match (found.get(&n), owners.get(&n)) {
            (None, _) => Problem::Missing(*meta),
            (_, Some(Owner::Foreign(whose))) => Problem::NotOurs(whose.clone()),
            (_, Some(Owner::Renumbered(k))) => Problem::Renumbered(*k),
            (Some(&size), _) => match meta.synced_size {
                Some(synced) if size < synced => Problem::Short { size, synced },
                _ => continue,
            },
        };
        problems.insert(n, p);
    }
    // A log of this database under another number is damage whether or not
    // the manifest tracks that number.
    for (&n, o) in &owners {
        if let Owner::Renumbered(k) = o
            && n >= min_log
        {
            problems.entry(n).or_insert(Problem::Renumbered(*k));
        }
    }
    let mode = db.opts.wal_recovery_mode;
    let strict = db.opts.paranoid_checks
        && matches!(
            mode,
            WalRecoveryMode::TolerateCorruptedTailRecords | WalRecoveryMode::AbsoluteConsistency
        );
    if let Some((&n, p)) = problems.iter().next()
        && strict
    {
        return Err(p.error(&log_path(n)));
    }
    // The first log to replay continues the manifest's state: the edit that
    // named it as the log number recorded a last sequence at or past
    // everything logged before it (its start record's sequence − 1). A log
    // starting beyond that means writes the manifest should cover are in
    // neither: the manifest lost edits (cut between records) or the logs
    // before were lost; replaying on top would delete the tables the lost
    // edits named as orphans. A power loss never leaves this (the edit and
    // the log's start are durable before anything depends on them).
    let gap = candidates
        .first()
        .and_then(|n| starts.get(n).map(|&s| (*n, s)))
        .filter(|&(_, s)| s > manifest_last.saturating_add(1));
    if let Some((n, s)) = gap {
        let e = Error::corruption(
            manifest_name.display(),
            0,
            format!(
                "the manifest's state ends at sequence {manifest_last} but log {} starts at \
                 sequence {s}: the manifest lost edits, or the logs before that one are missing",
                log_path(n).display()
            ),
        );
        // A database written before these checks may be there legitimately
        // after a resume() (its flush recorded a last sequence below the
        // burnt numbers): treated as a hole, below.
        if strict && !legacy_logs {
            return Err(e);
        }
        info_log!(db.info_log, Error, "{e}");
    }
    for (&n, p) in &problems {
        info_log!(
            db.info_log,
            Error,
            "{} (recovery mode {mode:?}, paranoid_checks {}): {}",
            p.error(&log_path(n)),
            db.opts.paranoid_checks,
            match mode {
                WalRecoveryMode::PointInTimeRecovery => "replay stops there",
                WalRecoveryMode::SkipAnyCorruptedRecords =>
                    "replayed as far as it goes, or skipped",
                _ => "recovery goes on as far as the prefix promise allows",
            }
        );
    }
    // Point-in-time recovery stops at the first problem: before the log,
    // or after it when it can be read as far as it goes.
    let pit_stop = (mode == WalRecoveryMode::PointInTimeRecovery)
        .then(|| problems.iter().next())
        .flatten()
        .map(|(&n, p)| (n, p.readable()));

    if min_log > 0 && !tracked.contains_key(&min_log) && !found.contains_key(&min_log) {
        // The WAL of the oldest unflushed memtable exists until an edit
        // moving the log number past it is durable (invariant 4 of the
        // module docs of `db`); missing, its writes are lost. (A recorded
        // log is checked above; this is for manifests from before WAL
        // tracking.)
        let path = log_path(min_log);
        if db.opts.paranoid_checks {
            return Err(Error::corruption(
                path.display(),
                0,
                "the log the manifest names as the oldest unflushed one is missing",
            ));
        }
        info_log!(
            db.info_log,
            Error,
            "The log the manifest needs is missing, its writes are lost: {}",
            path.display()
        );
    }

    // Per family: the memtable replay fills, the edit its tables go into,
    // and the log its replay starts at (a family skips the records of logs
    // below its log number: it flushed them before the crash).
    let (cfds, fam_logs): (BTreeMap<u32, Arc<ColumnFamilyData>>, BTreeMap<u32, u64>) = {
        let st = db.state.lock();
        (
            st.families
                .iter()
                .map(|(&id, f)| (id, f.cfd.clone()))
                .collect(),
            st.families
                .keys()
                .map(|&id| (id, st.versions.family_log_number(id)))
                .collect(),
        )
    };
    let mut mems: BTreeMap<u32, Arc<MemTable>> = cfds
        .keys()
        .map(|&id| (id, Arc::new(MemTable::new(0))))
        .collect();
    let mut edits: BTreeMap<u32, VersionEdit> = cfds
        .keys()
        .map(|&id| {
            (
                id,
                VersionEdit {
                    column_family: id,
                    ..VersionEdit::new()
                },
            )
        })
        .collect();
    let mut last_replayed = 0u64;
    let mut entries = 0u64;
    let mut stop = false;
    // The sequence number the next log must start at, and the hole found,
    // if any: a log starting beyond it. The first follows the manifest's
    // state (see `gap` above).
    let mut next_seq: Option<u64> = Some(manifest_last.saturating_add(1));
    let mut hole: Option<String> = None;
    let mut dropped_after_hole = 0u64;
    // Logs of this database not replayed to their end: kept, renamed.
    let mut unreplayed: BTreeSet<u64> = BTreeSet::new();
    for (i, &number) in candidates.iter().enumerate() {
        let path = log_path(number);
        let name = path.display().to_string();
        if let Some((at, readable)) = pit_stop
            && (number > at || (number == at && !readable))
        {
            stop = true;
        }
        if stop {
            info_log!(
                db.info_log,
                Warn,
                "Point-in-time recovery: not replaying log {name} after earlier damage"
            );
            unreplayed.insert(number);
            continue;
        }
        let mut reader = LogReader::new(db.fs.new_sequential(&path)?);
        let mut first_in_log = true;
        // Highest sequence number read from this log, and whether every
        // readable record of it was applied.
        let mut log_last: Option<u64> = None;
        let mut whole = true;
        loop {
            match reader.next()? {
                ReadEvent::Record { offset } => {
                    let starts_log = std::mem::replace(&mut first_in_log, false);
                    // The start record: an empty batch naming the owner.
                    let start = if starts_log {
                        decode_start_record(reader.record())
                    } else {
                        None
                    };
                    let parsed = match start {
                        Some(s) => Ok((s.sequence, 0u32, None)),
                        None => WriteBatch::from_bytes(reader.record(), &name, offset)
                            .map(|b| (b.sequence(), b.count(), Some(b))),
                    };
                    let parsed = parsed.and_then(|(seq, count, b)| {
                        if last_replayed > 0 && seq <= last_replayed {
                            Err(Error::corruption(
                                &name,
                                offset,
                                format!("sequence {seq} goes backwards (last was {last_replayed})"),
                            ))
                        } else {
                            Ok((seq, count, b))
                        }
                    });
                    let (seq, count, batch) = match parsed {
                        Ok(p) => p,
                        Err(e) => match mode {
                            WalRecoveryMode::SkipAnyCorruptedRecords => {
                                info_log!(db.info_log, Warn, "Skipping bad record: {e}");
                                whole = false;
                                continue;
                            }
                            WalRecoveryMode::PointInTimeRecovery => {
                                info_log!(
                                    db.info_log,
                                    Warn,
                                    "Point-in-time recovery stops at: {e}"
                                );
                                stop = true;
                                whole = false;
                                break;
                            }
                            _ => return Err(e),
                        },
                    };
                    // Only a start record is checked: between two logged
                    // writes there may be numbers of writes without the WAL.
                    if hole.is_none()
                        && starts_log
                        && count == 0
                        && next_seq.is_some_and(|n| seq > n)
                    {
                        let msg = format!(
                            "log {name} starts at sequence {seq} but the logs before it end at {}",
                            next_seq.unwrap_or(0).saturating_sub(1)
                        );
                        match mode {
                            WalRecoveryMode::SkipAnyCorruptedRecords => {
                                info_log!(db.info_log, Warn, "Replaying across a hole: {msg}");
                            }
                            WalRecoveryMode::AbsoluteConsistency => {
                                return Err(Error::corruption(
                                    &name,
                                    offset,
                                    format!("hole in the write-ahead logs: {msg}"),
                                ));
                            }
                            _ => hole = Some(msg),
                        }
                    }
                    // The sequence numbers read stay allocated even when not
                    // replayed: no later write reuses one.
                    // Saturating: a damaged log's numbers must not panic here.
                    let end = seq.saturating_add(u64::from(count));
                    last_replayed = end.saturating_sub(1);
                    next_seq = Some(end);
                    log_last = Some(end.saturating_sub(1));
                    if hole.is_some() {
                        // After a hole only unsynced writes can follow (a
                        // synced write waits for every older log to be
                        // durable): the recovered history ends at the hole.
                        dropped_after_hole += u64::from(count);
                        whole = false;
                        continue;
                    }
                    if let Some(batch) = batch {
                        apply_batch_with(&batch, |cf| {
                            fam_logs
                                .get(&cf)
                                .filter(|&&l| number >= l)
                                .and_then(|_| mems.get(&cf).cloned())
                        });
                        entries += u64::from(count);
                    }
                    for (&cf, cfd) in &cfds {
                        let mem = &mems[&cf];
                        if mem.approximate_memory_usage() as usize >= cfd.opts.write_buffer_size {
                            let edit = edits.get_mut(&cf).expect("one per family");
                            flush_recovered(db, cfd, mem, edit, written)?;
                            mems.insert(cf, Arc::new(MemTable::new(0)));
                        }
                    }
                }
                ReadEvent::Eof => break,
                ReadEvent::TornTail { offset, reason } => {
                    if mode == WalRecoveryMode::AbsoluteConsistency {
                        return Err(Error::corruption(
                            &name,
                            offset,
                            format!("incomplete record: {reason}"),
                        ));
                    }
                    info_log!(
                        db.info_log,
                        Warn,
                        "Dropped torn tail of log {name} at offset {offset}: {reason}"
                    );
                    if mode == WalRecoveryMode::PointInTimeRecovery && i + 1 < candidates.len() {
                        stop = true;
                    }
                    break;
                }
                ReadEvent::Corrupt { offset, reason } => match mode {
                    WalRecoveryMode::SkipAnyCorruptedRecords => {
                        info_log!(
                            db.info_log,
                            Warn,
                            "Skipping corrupt log data in {name} at offset {offset}: {reason}"
                        );
                        whole = false;
                    }
                    WalRecoveryMode::PointInTimeRecovery => {
                        info_log!(
                            db.info_log,
                            Warn,
                            "Point-in-time recovery stops at {name} offset {offset}: {reason}"
                        );
                        stop = true;
                        whole = false;
                        break;
                    }
                    _ => return Err(Error::corruption(&name, offset, reason)),
                },
            }
        }
        // A log the manifest recorded as closed and synced whole must reach
        // its last write: its end cannot be an unsynced tail.
        if let Some(want) = tracked.get(&number).and_then(|m| m.last_sequence)
            && whole
            && log_last.is_none_or(|got| got < want)
        {
            let e = Error::corruption(
                &name,
                0,
                format!(
                    "write-ahead log ends at sequence {}, but the manifest records it closed and \
                     synced through sequence {want}",
                    log_last.map_or("(none)".to_string(), |s| s.to_string())
                ),
            );
            if strict {
                return Err(e);
            }
            info_log!(db.info_log, Error, "{e}");
            if mode == WalRecoveryMode::PointInTimeRecovery {
                stop = true;
            }
        }
        if !whole {
            unreplayed.insert(number);
        }
        if pit_stop.is_some_and(|(at, _)| at == number) {
            stop = true;
        }
    }
    if let Some(msg) = &hole {
        // A power loss kept a newer log's unsynced writes but not the end of
        // an older log's (the old log's sync was still queued): those
        // writes were never promised, and replaying them would leave a gap.
        info_log!(
            db.info_log,
            Warn,
            "Recovery stops at a hole in the logs: {msg}; {dropped_after_hole} later unsynced entries not replayed"
        );
    }
    for (&cf, cfd) in &cfds {
        let mem = &mems[&cf];
        if !mem.is_empty() {
            let edit = edits.get_mut(&cf).expect("one per family");
            flush_recovered(db, cfd, mem, edit, written)?;
        }
    }

    // From here on the open succeeds unless the disk fails.
    if identity_file != Some(db.db_id) {
        // Before the new log carries the id: a crash after this reuses it.
        crate::fs::write_file_atomic(
            db.fs.as_ref(),
            &db.path,
            filename::IDENTITY,
            db.db_id.identity_file_contents().as_bytes(),
        )?;
    }
    for &n in &unreplayed {
        // Kept for the user, out of the way of the obsolete-file sweep; the
        // new log's directory sync below makes the renames durable.
        let from = log_path(n);
        let to = PathBuf::from(format!("{}{UNREPLAYED_SUFFIX}", from.display()));
        db.fs.rename(&from, &to)?;
        info_log!(
            db.info_log,
            Warn,
            "Log {} was not replayed to its end: kept as {}",
            from.display(),
            to.display()
        );
    }

    let mut st = db.state.lock();
    let last = st.versions.last_sequence().max(last_replayed);
    let wal_number = st.versions.new_file_number();
    {
        let mut wal = db.wal.lock();
        wal.last_allocated = last;
        wal.last_logged = last;
    }
    st.own_logs.insert(wal_number);
    db.new_wal(wal_number, OldWal::SyncNow, None)?;
    st.versions.set_last_sequence(last);
    // From here the tables may be named by a manifest even if the write
    // fails (a failed sync or `CURRENT` rename may still have reached the
    // disk): no longer ours to remove on failure; an unreferenced one is
    // deleted as obsolete by the next open. (The IO-error suite's open
    // sweep found a failure here that the cleanup turned into a manifest
    // naming deleted tables.)
    written.clear();
    // One edit per family, each moving its log number to the new log: its
    // replayed data is in its tables now. A crash between them leaves the
    // families not yet moved replaying the old logs again (the others skip
    // them: their log number is past them). The default family's edit is
    // last.
    let mut default_edit = edits
        .remove(&DEFAULT_FAMILY_ID)
        .expect("the default family");
    for (_, mut edit) in edits {
        edit.log_number = Some(wal_number);
        db.log_and_apply(&mut st, edit)?;
    }
    default_edit.log_number = Some(wal_number);
    db.log_and_apply(&mut st, default_edit)?;
    db.last_sequence.store(last, Ordering::Release);
    for &cf in cfds.keys() {
        db.install_super_version(&mut st, cf, db.new_memtable(wal_number));
    }
    db.prepare_next_wal(&mut st);
    for n in st.pending_outputs.iter().copied().collect::<Vec<_>>() {
        st.pending_outputs.remove(&n);
    }
    // The logs replayed, and those holding nothing, are now below the log
    // number: the sweep deletes them. The unreplayed ones were renamed.
    st.own_logs.extend(sweep);
    st.own_logs.extend(
        candidates
            .iter()
            .filter(|n| !unreplayed.contains(n) && matches!(owners.get(n), Some(Owner::Ours))),
    );
    // No background work runs yet: every temporary file is a leftover.
    let obsolete = db.collect_obsolete_files(&mut st).with_temp_files();
    info_log!(
        db.info_log,
        Info,
        "DB opened: id {}, last sequence {last}, replayed {entries} entries from {} logs; {}",
        db.db_id,
        candidates.len(),
        st.versions.current().level_summary()
    );
    drop(st);
    db.delete_files(obsolete);
    Ok(())
}

/// `CURRENT` is missing from `dir`: fails with `Corruption` naming it if
/// the directory nevertheless holds a database — a table, a log of this
/// database holding a write, or a manifest other than `MANIFEST-000001`
/// (which a crash while creating the database can leave alone, before
/// `CURRENT` names it). Otherwise `create_if_missing` would silently start
/// an empty database over the data. A log in the `wal_dir` naming another
/// database than `IDENTITY` does (one sharing the `wal_dir`) does not count.
pub(super) fn refuse_to_recreate(
    fs: &dyn FileSystem,
    dir: &Path,
    wal_dir: Option<&Path>,
) -> Result<()> {
    let id = super::read_identity(fs, dir);
    let mut found = Vec::new();
    for d in std::iter::once(dir).chain(wal_dir) {
        // A directory that cannot be listed cannot be checked: say so
        // rather than create a database over what it may hold.
        let names = match fs.list_dir(d) {
            Ok(names) => names,
            Err(Error::Io {
                kind: std::io::ErrorKind::NotFound,
                ..
            }) => continue,
            Err(e) => return Err(e),
        };
        for name in names {
            let holds_data = match parse_file_name(&name) {
                Some(FileType::Table(_)) => true,
                Some(FileType::Manifest(n)) => n > 1,
                // A log holding only its start record holds no write.
                Some(FileType::Log(_)) => {
                    let path = d.join(&name);
                    let size = fs.file_size(&path).unwrap_or(0);
                    match probe_log(fs, &path) {
                        // This database's: its id, or any id in its own
                        // directory when `IDENTITY` is lost too.
                        Ok(Probe::Start(StartRecord {
                            owner: Some((owner, _)),
                            ..
                        })) => {
                            (Some(owner) == id || (id.is_none() && d == dir))
                                && size > crate::wal::START_RECORD_LEN
                        }
                        Ok(Probe::Start(StartRecord { owner: None, .. })) => {
                            size > crate::wal::LEGACY_START_RECORD_LEN
                        }
                        Ok(Probe::Empty) => false,
                        Ok(Probe::Write | Probe::Damaged) | Err(_) => size > 0,
                    }
                }
                _ => false,
            };
            if holds_data {
                // A log in a separate wal_dir is named with its directory.
                found.push(if d == dir {
                    name
                } else {
                    d.join(&name).display().to_string()
                });
            }
        }
    }
    if found.is_empty() {
        return Ok(());
    }
    found.sort();
    found.dedup();
    let n = found.len();
    found.truncate(5);
    Err(Error::corruption(
        dir.join(filename::CURRENT).display(),
        0,
        format!(
            "CURRENT is missing but the directory holds a database ({n} files: {}{}); \
             refusing to create a new one over it",
            found.join(", "),
            if n > 5 { ", ..." } else { "" }
        ),
    ))
}

/// Writes a memtable rebuilt from the WAL to an L0 table and adds it to
/// `edit`; the table's number goes to `written` (removed if the open fails).
fn flush_recovered(
    db: &Arc<DbInner>,
    cfd: &ColumnFamilyData,
    mem: &Arc<MemTable>,
    edit: &mut VersionEdit,
    written: &mut Vec<u64>,
) -> Result<()> {
    let number = {
        let mut st = db.state.lock();
        let n = st.versions.new_file_number();
        st.pending_outputs.insert(n);
        n
    };
    written.push(number);
    // The tables of earlier recovered memtables are not in a version yet,
    // so nothing can be proven absent below this one.
    let below = super::compaction_iter::Below::Unknown;
    if let (Some(meta), _) =
        db.write_memtables_to_l0(cfd, std::slice::from_ref(mem), number, &[], below)?
    {
        edit.add_file(0, Arc::new(meta));
    }
    Ok(())
}
