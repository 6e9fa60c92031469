//! Recovery at open: replay the write-ahead logs into a memtable.
//!
//! Damage is handled per [`WalRecoveryMode`]: the default drops (and logs) an
//! incomplete record at the end of a log and fails open with `Corruption`,
//! naming the file and offset, on anything else.

use std::path::Path;

use crate::error::{Error, Result};
use crate::fs::{FileSystem, write_file_atomic};
use crate::info_log;
use crate::logger::InfoLog;
use crate::memtable::MemTable;
use crate::options::Options;
use crate::wal::{LogReader, ReadEvent, WalRecoveryMode};
use crate::write_batch::WriteBatch;

use super::apply_batch;

pub(super) struct Recovered {
    pub(super) mem: MemTable,
    pub(super) last_sequence: u64,
    pub(super) next_file_number: u64,
    pub(super) entries: u64,
    pub(super) logs: usize,
}

fn parse_log_number(name: &str) -> Option<u64> {
    let stem = name.strip_suffix(".log")?;
    if stem.is_empty() || !stem.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    stem.parse().ok()
}

pub(super) fn recover(
    fs: &dyn FileSystem,
    dbpath: &Path,
    wal_dir: &Path,
    opts: &Options,
    log: &InfoLog,
    exists: bool,
) -> Result<Recovered> {
    if !exists {
        let id = format!(
            "{:x}-{:x}\n",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        );
        write_file_atomic(fs, dbpath, "IDENTITY", id.as_bytes())?;
    }
    let mut logs: Vec<u64> = fs
        .list_dir(wal_dir)?
        .iter()
        .filter_map(|n| parse_log_number(n))
        .collect();
    logs.sort_unstable();
    let mem = MemTable::new(0);
    let mut last_sequence = 0u64;
    let mut entries = 0u64;
    let mode = opts.wal_recovery_mode;
    let mut stop = false;
    for (i, &number) in logs.iter().enumerate() {
        if stop {
            info_log!(
                log,
                Warn,
                "Point-in-time recovery: skipping log {number:06}.log after earlier damage"
            );
            continue;
        }
        let path = wal_dir.join(super::log_file_name(number));
        let name = path.display().to_string();
        let mut reader = LogReader::new(fs.new_sequential(&path)?);
        loop {
            match reader.next()? {
                ReadEvent::Record { offset } => {
                    let batch = match WriteBatch::from_bytes(reader.record(), &name, offset) {
                        Ok(b) => b,
                        Err(e) => match mode {
                            WalRecoveryMode::SkipAnyCorruptedRecords => {
                                info_log!(log, Warn, "Skipping bad record: {e}");
                                continue;
                            }
                            WalRecoveryMode::PointInTimeRecovery => {
                                info_log!(log, Warn, "Point-in-time recovery stops at: {e}");
                                stop = true;
                                break;
                            }
                            _ => return Err(e),
                        },
                    };
                    let first = batch.sequence();
                    if first <= last_sequence && last_sequence > 0 {
                        // A batch can never reuse sequence numbers: the log is damaged.
                        let e = Error::corruption(
                            &name,
                            offset,
                            format!("sequence {first} goes backwards (last was {last_sequence})"),
                        );
                        if mode == WalRecoveryMode::SkipAnyCorruptedRecords {
                            info_log!(log, Warn, "Skipping bad record: {e}");
                            continue;
                        }
                        return Err(e);
                    }
                    apply_batch(&mem, &batch);
                    entries += u64::from(batch.count());
                    last_sequence = first + u64::from(batch.count()) - 1;
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
                        log,
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
                            log,
                            Warn,
                            "Skipping corrupt log data in {name} at offset {offset}: {reason}"
                        );
                    }
                    WalRecoveryMode::PointInTimeRecovery => {
                        info_log!(
                            log,
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
    let next_file_number = logs.last().map_or(1, |n| n + 1);
    Ok(Recovered {
        mem,
        last_sequence,
        next_file_number,
        entries,
        logs: logs.len(),
    })
}
