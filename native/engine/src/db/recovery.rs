//! Recovery at open: rebuild the version from the manifest, replay the WALs
//! the manifest does not cover into memtables, write them to L0, and start
//! a new WAL.
//!
//! Damage in a WAL is handled per [`WalRecoveryMode`]: the default drops
//! (and logs) an incomplete record at the end of a log and fails open with
//! `Corruption`, naming the file and offset, on anything else.
//!
//! Holes: a memtable switch leaves the old WAL's fdatasync to the WAL
//! syncer thread, so a power loss can keep a newer log's unsynced writes and
//! lose the end of an older log. Each WAL begins with a start record (no
//! entries; the sequence number one past the last write logged before it),
//! and a log whose start record lies beyond where the replayed logs end
//! marks a hole: replay stops there (its later entries are counted and
//! logged, not applied). Only unsynced writes can be lost that way: a synced
//! write, and a flush before naming a log in the manifest, wait for the
//! older logs' syncs. `AbsoluteConsistency` fails the open at a hole;
//! `SkipAnyCorruptedRecords` replays across it.
//!
//! Order (each step is safe to crash after): the replayed data is written
//! to new L0 tables and the directory synced; a new WAL holding only its
//! start record is created and synced; then one manifest edit records the
//! tables and the new WAL's number as the log number. Only after that edit is durable are the replayed WALs
//! obsolete. A crash before it leaves the old WALs and the manifest as they
//! were, so the next open replays the same data again (the unreferenced
//! tables are deleted as obsolete).
//!
//! The newest log may be empty: the next WAL's file is made ahead of its
//! switch (`write::PreparedWal`), and a crash can leave it. Read here as
//! holding nothing, it is below the new log's number, so the edit above
//! makes it obsolete like the replayed logs.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::DbInner;
use crate::error::{Error, Result};
use crate::info_log;
use crate::memtable::MemTable;
use crate::version::{FileType, VersionEdit, filename, parse_file_name};
use crate::wal::{LogReader, ReadEvent, WalRecoveryMode};
use crate::write_batch::WriteBatch;

use super::write::{OldWal, apply_batch};

pub(super) fn recover(db: &Arc<DbInner>) -> Result<()> {
    if db.opts.paranoid_checks {
        // Every table the manifest names must be there, whole: fail now
        // rather than at the first read that needs it.
        let v = db.state.lock().versions.current();
        db.table_cache
            .check_files((0..v.num_levels()).flat_map(|l| v.files(l)))?;
    }
    let mut st = db.state.lock();
    let min_log = st.versions.log_number();
    let prev_log = st.versions.prev_log_number();
    let mut logs: Vec<u64> = Vec::new();
    for name in db.fs.list_dir(&db.wal_dir)? {
        if let Some(FileType::Log(n)) = parse_file_name(&name) {
            st.versions.mark_file_number_used(n);
            if n >= min_log || (prev_log != 0 && n == prev_log) {
                logs.push(n);
            }
        }
    }
    logs.sort_unstable();
    drop(st);
    if min_log > 0 && !logs.contains(&min_log) {
        // The WAL of the oldest unflushed memtable exists until an edit
        // moving the log number past it is durable (invariant 4 of the
        // module docs of `db`); missing, its writes are lost.
        let path = db.wal_dir.join(filename::log_file_name(min_log));
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

    let mode = db.opts.wal_recovery_mode;
    let mut mem = Arc::new(MemTable::new(0));
    let mut last_replayed = 0u64;
    let mut entries = 0u64;
    let mut edit = VersionEdit::new();
    let mut stop = false;
    // The sequence number the next log must start at (once a record was
    // read), and the hole found, if any: a log starting beyond it.
    let mut next_seq: Option<u64> = None;
    let mut hole: Option<String> = None;
    let mut dropped_after_hole = 0u64;
    for (i, &number) in logs.iter().enumerate() {
        if stop {
            info_log!(
                db.info_log,
                Warn,
                "Point-in-time recovery: skipping log {} after earlier damage",
                filename::log_file_name(number)
            );
            continue;
        }
        let path = db.wal_dir.join(filename::log_file_name(number));
        let name = path.display().to_string();
        let mut reader = LogReader::new(db.fs.new_sequential(&path)?);
        let mut first_in_log = true;
        loop {
            match reader.next()? {
                ReadEvent::Record { offset } => {
                    let batch =
                        WriteBatch::from_bytes(reader.record(), &name, offset).and_then(|b| {
                            if last_replayed > 0 && b.sequence() <= last_replayed {
                                Err(Error::corruption(
                                    &name,
                                    offset,
                                    format!(
                                        "sequence {} goes backwards (last was {last_replayed})",
                                        b.sequence()
                                    ),
                                ))
                            } else {
                                Ok(b)
                            }
                        });
                    let batch = match batch {
                        Ok(b) => b,
                        Err(e) => match mode {
                            WalRecoveryMode::SkipAnyCorruptedRecords => {
                                info_log!(db.info_log, Warn, "Skipping bad record: {e}");
                                continue;
                            }
                            WalRecoveryMode::PointInTimeRecovery => {
                                info_log!(
                                    db.info_log,
                                    Warn,
                                    "Point-in-time recovery stops at: {e}"
                                );
                                stop = true;
                                break;
                            }
                            _ => return Err(e),
                        },
                    };
                    let starts_log = std::mem::replace(&mut first_in_log, false);
                    // Only a start record is checked: between two logged
                    // writes there may be numbers of writes without the WAL.
                    if hole.is_none()
                        && starts_log
                        && batch.count() == 0
                        && next_seq.is_some_and(|n| batch.sequence() > n)
                    {
                        let msg = format!(
                            "log {name} starts at sequence {} but the logs before it end at {}",
                            batch.sequence(),
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
                    let end = batch.sequence().saturating_add(u64::from(batch.count()));
                    last_replayed = end.saturating_sub(1);
                    next_seq = Some(end);
                    if hole.is_some() {
                        // After a hole only unsynced writes can follow (a
                        // synced write waits for every older log to be
                        // durable): the recovered history ends at the hole.
                        dropped_after_hole += u64::from(batch.count());
                        continue;
                    }
                    apply_batch(&mem, &batch);
                    entries += u64::from(batch.count());
                    if mem.approximate_memory_usage() as usize >= db.opts.write_buffer_size {
                        flush_recovered(db, &mem, &mut edit)?;
                        mem = Arc::new(MemTable::new(0));
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
                    if mode == WalRecoveryMode::PointInTimeRecovery && i + 1 < logs.len() {
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
                    }
                    WalRecoveryMode::PointInTimeRecovery => {
                        info_log!(
                            db.info_log,
                            Warn,
                            "Point-in-time recovery stops at {name} offset {offset}: {reason}"
                        );
                        stop = true;
                        break;
                    }
                    _ => return Err(Error::corruption(&name, offset, reason)),
                },
            }
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
    if !mem.is_empty() {
        flush_recovered(db, &mem, &mut edit)?;
    }

    let mut st = db.state.lock();
    let last = st.versions.last_sequence().max(last_replayed);
    let wal_number = st.versions.new_file_number();
    {
        let mut wal = db.wal.lock();
        wal.last_allocated = last;
        wal.last_logged = last;
    }
    db.new_wal(wal_number, OldWal::SyncNow, None)?;
    edit.log_number = Some(wal_number);
    st.versions.set_last_sequence(last);
    st.versions.log_and_apply(edit)?;
    db.last_sequence.store(last, Ordering::Release);
    db.install_super_version(&mut st, db.new_memtable(wal_number));
    db.prepare_next_wal(&mut st);
    for n in st.pending_outputs.iter().copied().collect::<Vec<_>>() {
        st.pending_outputs.remove(&n);
    }
    let obsolete = db.collect_obsolete_files(&mut st);
    info_log!(
        db.info_log,
        Info,
        "DB opened: last sequence {last}, replayed {entries} entries from {} logs; {}",
        logs.len(),
        st.versions.current().level_summary()
    );
    drop(st);
    db.delete_files(obsolete);
    Ok(())
}

/// `CURRENT` is missing from `dir`: fails with `Corruption` naming it if
/// the directory nevertheless holds a database — a table, a non-empty WAL,
/// or a manifest other than `MANIFEST-000001` (which a crash while creating
/// the database can leave alone, before `CURRENT` names it). Otherwise
/// `create_if_missing` would silently start an empty database over the
/// data.
pub(super) fn refuse_to_recreate(
    fs: &dyn crate::fs::FileSystem,
    dir: &std::path::Path,
    wal_dir: Option<&std::path::Path>,
) -> Result<()> {
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
                Some(FileType::Log(_)) => fs
                    .file_size(&d.join(&name))
                    .is_ok_and(|s| s > crate::wal::START_RECORD_LEN),
                _ => false,
            };
            if holds_data {
                found.push(name);
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

/// Writes a memtable rebuilt from the WAL to an L0 table and adds it to `edit`.
fn flush_recovered(db: &Arc<DbInner>, mem: &Arc<MemTable>, edit: &mut VersionEdit) -> Result<()> {
    let number = {
        let mut st = db.state.lock();
        let n = st.versions.new_file_number();
        st.pending_outputs.insert(n);
        n
    };
    // The tables of earlier recovered memtables are not in a version yet,
    // so nothing can be proven absent below this one.
    let below = super::compaction_iter::Below::Unknown;
    if let (Some(meta), _) =
        db.write_memtables_to_l0(std::slice::from_ref(mem), number, &[], below)?
    {
        edit.add_file(0, Arc::new(meta));
    }
    Ok(())
}
