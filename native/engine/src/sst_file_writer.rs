//! [`SstFileWriter`]: writes a table file outside any database, for
//! [`Db::ingest_external_file`](crate::Db::ingest_external_file) (RocksDB's
//! `SstFileWriter`).
//!
//! The file is an ordinary Talus table (format in the module docs of
//! `table`) written with the options' block size, restart interval, filter,
//! prefix extractor and codec — the codec a compaction into the last level
//! would use (`bottommost_compression` when set, else the last entry of
//! `compression_per_level`, else `compression`), as RocksDB's writer does,
//! since ingested files usually land there. What makes it *external*:
//!
//! - every entry and range tombstone carries sequence number 0;
//! - user keys of point entries are strictly increasing: one entry per key
//!   (a key added twice, or out of order, is `InvalidArgument` naming both
//!   keys, and the entry is not written);
//! - the properties carry `EXTERNAL_FILE_VERSION`
//!   (`table::EXTERNAL_FILE_VERSION`) and no database id or file
//!   number: the file belongs to no database until ingested;
//! - the sequence number the entries take in a database is assigned at
//!   ingestion and recorded in the manifest, never written into the file
//!   (module docs of `db::ingest`).
//!
//! Range deletions may be added in any order, interleaved with point
//! entries (as RocksDB's writer allows); `begin < end` is required
//! (`begin == end` deletes nothing and is dropped).
//!
//! [`SstFileWriter::finish`] writes the index, filter, properties and
//! footer and syncs the file before it returns, so a file it reported is
//! durable and whole; a file with no entry and no range deletion is
//! refused (`InvalidArgument`, as RocksDB) and removed.
//!
//! Thread-safety: one writer is used by one thread at a time (`&mut self`).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::fs::WriteFileOptions;
use crate::key::{self, ValueKind};
use crate::memtable::RangeTombstone;
use crate::options::{Options, OutputTarget};
use crate::table::{EXTERNAL_FILE_VERSION, TableBuildOptions, TableBuilder};

/// What [`SstFileWriter::finish`] wrote (RocksDB's `ExternalSstFileInfo`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalSstFileInfo {
    /// The file written.
    pub file_path: PathBuf,
    /// Smallest user key of a point entry (empty when there is none).
    pub smallest_key: Vec<u8>,
    /// Largest user key of a point entry (empty when there is none).
    pub largest_key: Vec<u8>,
    /// Smallest begin key of a range deletion (empty when there is none).
    pub smallest_range_del_key: Vec<u8>,
    /// Largest end key of a range deletion (empty when there is none).
    pub largest_range_del_key: Vec<u8>,
    /// Sequence number of every entry in the file: always 0 (the global
    /// sequence number is assigned at ingestion).
    pub sequence_number: u64,
    /// Size of the file in bytes.
    pub file_size: u64,
    /// Point entries (puts, merges, deletes).
    pub num_entries: u64,
    /// Range deletions.
    pub num_range_del_entries: u64,
    /// The external-file version (`table::EXTERNAL_FILE_VERSION`, 1).
    pub version: u32,
}

/// The file being written.
struct Open {
    builder: TableBuilder,
    path: PathBuf,
    /// The last point entry's user key.
    last_key: Option<Vec<u8>>,
    first_key: Option<Vec<u8>>,
    range_dels: u64,
    smallest_del: Option<Vec<u8>>,
    largest_del: Option<Vec<u8>>,
}

/// Writes one external table file at a time. See the module docs.
pub struct SstFileWriter {
    opts: Options,
    open: Option<Open>,
    ikey: Vec<u8>,
}

impl std::fmt::Debug for SstFileWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SstFileWriter")
            .field("path", &self.open.as_ref().map(|o| &o.path))
            .finish()
    }
}

impl SstFileWriter {
    /// A writer with the table options of `opts` (block size, restart
    /// interval, filter, prefix extractor, codec) and its file system.
    pub fn new(opts: &Options) -> SstFileWriter {
        SstFileWriter {
            opts: opts.clone(),
            open: None,
            ikey: Vec::new(),
        }
    }

    /// Creates (or truncates) `path` and starts a table in it. A file still
    /// open from an earlier `open` without `finish` is abandoned (left as
    /// written).
    pub fn open(&mut self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref().to_path_buf();
        self.opts.validate()?;
        let file = self.opts.fs.new_writable(
            &path,
            WriteFileOptions {
                use_fsync: self.opts.use_fsync,
            },
        )?;
        let mut bo = TableBuildOptions::from_options(&self.opts, path.display().to_string());
        let last = self.opts.num_levels.max(1) as usize - 1;
        (bo.compression, bo.compression_opts) =
            self.opts.compression_for(OutputTarget::Compaction {
                level: last,
                base_level: 1.min(last),
                num_non_empty_levels: last + 1,
            });
        bo.external = true;
        self.open = Some(Open {
            builder: TableBuilder::new(file, bo),
            path,
            last_key: None,
            first_key: None,
            range_dels: 0,
            smallest_del: None,
            largest_del: None,
        });
        Ok(())
    }

    fn file(&mut self) -> Result<&mut Open> {
        self.open.as_mut().ok_or_else(|| {
            Error::InvalidArgument("SstFileWriter: no file open (call open first)".into())
        })
    }

    fn add(&mut self, user_key: &[u8], kind: ValueKind, value: &[u8]) -> Result<()> {
        let mut ikey = std::mem::take(&mut self.ikey);
        let r = (|| {
            let f = self.file()?;
            if let Some(last) = &f.last_key
                && user_key <= last.as_slice()
            {
                let how = if user_key == last.as_slice() {
                    "duplicate key"
                } else {
                    "keys out of order"
                };
                return Err(Error::InvalidArgument(format!(
                    "SstFileWriter {}: {how}: {} after {} (keys must be added in strictly \
                     increasing order)",
                    f.path.display(),
                    show(user_key),
                    show(last)
                )));
            }
            ikey.clear();
            key::append_internal_key(&mut ikey, user_key, 0, kind as u8);
            f.builder.add(&ikey, value)?;
            if f.first_key.is_none() {
                f.first_key = Some(user_key.to_vec());
            }
            match &mut f.last_key {
                Some(k) => {
                    k.clear();
                    k.extend_from_slice(user_key);
                }
                None => f.last_key = Some(user_key.to_vec()),
            }
            Ok(())
        })();
        self.ikey = ikey;
        r
    }

    /// Adds a value for `key`, which must sort after every key added.
    pub fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.add(key, ValueKind::Value, value)
    }

    /// Adds a merge operand for `key` (same order rule as [`Self::put`]).
    pub fn merge(&mut self, key: &[u8], operand: &[u8]) -> Result<()> {
        self.add(key, ValueKind::Merge, operand)
    }

    /// Adds a deletion of `key` (same order rule as [`Self::put`]).
    pub fn delete(&mut self, key: &[u8]) -> Result<()> {
        self.add(key, ValueKind::Deletion, &[])
    }

    /// Adds a deletion of every key in `[begin, end)`; any order.
    pub fn delete_range(&mut self, begin: &[u8], end: &[u8]) -> Result<()> {
        let f = self.file()?;
        if begin > end {
            return Err(Error::InvalidArgument(format!(
                "SstFileWriter {}: delete_range begin {} is after end {}",
                f.path.display(),
                show(begin),
                show(end)
            )));
        }
        if begin == end {
            return Ok(());
        }
        f.builder.add_range_tombstone(&RangeTombstone {
            begin: begin.to_vec(),
            end: end.to_vec(),
            seq: 0,
        });
        f.range_dels += 1;
        if f.smallest_del.as_deref().is_none_or(|s| begin < s) {
            f.smallest_del = Some(begin.to_vec());
        }
        if f.largest_del.as_deref().is_none_or(|l| end > l) {
            f.largest_del = Some(end.to_vec());
        }
        Ok(())
    }

    /// Finishes the file (synced when this returns) and reports what it
    /// holds. The writer may then `open` another file.
    pub fn finish(&mut self) -> Result<ExternalSstFileInfo> {
        let f = self.open.take().ok_or_else(|| {
            Error::InvalidArgument("SstFileWriter: no file open (call open first)".into())
        })?;
        if f.first_key.is_none() && f.range_dels == 0 {
            f.builder.abandon();
            let _ = self.opts.fs.remove_file(&f.path);
            return Err(Error::InvalidArgument(format!(
                "SstFileWriter {}: cannot create a table file with no entries",
                f.path.display()
            )));
        }
        let props = f.builder.finish()?;
        Ok(ExternalSstFileInfo {
            file_path: f.path,
            smallest_key: f.first_key.unwrap_or_default(),
            largest_key: f.last_key.unwrap_or_default(),
            smallest_range_del_key: f.smallest_del.unwrap_or_default(),
            largest_range_del_key: f.largest_del.unwrap_or_default(),
            sequence_number: 0,
            file_size: props.file_size,
            num_entries: props.num_entries,
            num_range_del_entries: props.num_range_deletions,
            version: EXTERNAL_FILE_VERSION,
        })
    }

    /// Bytes written so far to the open file plus the block being filled
    /// (0 when no file is open): what the file would about measure if
    /// finished now, without its index, filter and footer.
    pub fn file_size(&self) -> u64 {
        self.open
            .as_ref()
            .map_or(0, |f| f.builder.estimated_file_size())
    }
}

/// A key for an error message: text when printable, else hex; at most 64
/// bytes shown.
fn show(k: &[u8]) -> String {
    let k2 = &k[..k.len().min(64)];
    let more = if k.len() > 64 { "..." } else { "" };
    if k2.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
        format!("{:?}{more}", String::from_utf8_lossy(k2))
    } else {
        let hex: String = k2.iter().map(|b| format!("{b:02x}")).collect();
        format!("0x{hex}{more}")
    }
}
