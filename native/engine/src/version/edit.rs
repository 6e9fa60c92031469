//! Version edits: the records of the manifest.
//!
//! A [`VersionEdit`] describes one change to the set of live table files
//! (files added and removed per level) plus the counters recovery needs. The
//! manifest is a log (format of [`crate::wal`]) whose records are encoded
//! edits; replaying them in order from an empty version rebuilds the current
//! one.
//!
//! # Format (part of the on-disk format)
//!
//! ```text
//! edit    := field*                                   (an empty edit is valid)
//! field   := +---------------+---------------+--------------------+
//!            | tag: varint32 | len: varint64 | payload: len bytes |
//!            +---------------+---------------+--------------------+
//! ```
//!
//! Every field carries its length, so a reader can step over a field it does
//! not know. Whether it *may* is said by bit 6 of the tag
//! ([`TAG_SAFE_TO_IGNORE`] = `0x40`): set, an unknown field is skipped (it
//! only carries what an older reader can do without: checks, identity);
//! clear, an unknown field means the manifest was written by a newer Talus
//! whose state this one cannot reproduce, and decoding fails with
//! `Corruption`. Known fields use the bit the same way: a Talus that did not
//! know `db_id` and `wal_addition` (tags 65, 66) skips them.
//!
//! | tag | field              | payload                                                        |
//! |-----|--------------------|----------------------------------------------------------------|
//! | 1   | comparator         | name, UTF-8 (the whole payload)                                |
//! | 2   | log_number         | varint64                                                       |
//! | 3   | prev_log_number    | varint64                                                       |
//! | 4   | next_file_number   | varint64                                                       |
//! | 5   | last_sequence      | varint64                                                       |
//! | 6   | compact_cursor     | varint32 level, internal key (rest of payload; empty = none)   |
//! | 7   | deleted_file       | varint32 level, varint64 file number                           |
//! | 8   | new_file           | see below                                                      |
//! | 9   | new_file2          | `new_file`, then custom fields (below)                         |
//! | 10  | column_family      | varint32 family id: the edit's family (absent = 0, the default) |
//! | 11  | column_family_add  | the family's name, UTF-8 (the whole payload)                   |
//! | 12  | column_family_drop | empty                                                          |
//! | 13  | max_column_family  | varint32: the largest family id ever handed out                |
//! | 14  | min_log_to_keep    | varint64: every log below it is flushed in every family        |
//! | 65  | db_id              | the database's 16-byte id ([`crate::identity`])                |
//! | 66  | wal_addition       | see below                                                      |
//!
//! ```text
//! new_file  := level: varint32 | number: varint64 | file_size: varint64
//!            | smallest: varint len + internal key | largest: varint len + internal key
//!            | smallest_seq: varint64 | largest_seq: varint64
//!            | num_entries: varint64 | num_deletions: varint64
//!            | raw_key_size: varint64 | raw_value_size: varint64 | creation_time: varint64
//! new_file2 := new_file | custom*          (to the end of the payload)
//! custom    := tag: varint32 | len: varint64 | value: len bytes
//!     tag 1 = file_checksum: u64 LE, XXH64 (seed 0) of the whole table
//!             file ([`crate::xxh64`])
//!     an unknown custom tag is skipped, unless its bit 6 (0x40) is set: Corruption
//! wal_addition := number: varint64 | (subtag: varint32 | value: varint64)*
//!     subtag 1 = synced_size: bytes of the log known durable
//!     subtag 2 = last_sequence: the log is closed and synced whole; the
//!                sequence number of its last write (its start record's
//!                sequence − 1 when it holds none)
//!     an unknown subtag is skipped (every value is one varint64)
//! ```
//!
//! Column families: an edit belongs to one family, named by
//! `column_family` (an edit without it is the default family's, so
//! manifests from before families read unchanged). `log_number`,
//! `compact_cursor`, `deleted_file` and `new_file*` apply to that family;
//! the other fields are the database's. `column_family_add` creates the
//! family with that id and name (its first edit; recovery builds it from
//! empty), `column_family_drop` drops it (its tables are forgotten with
//! it). Tags 10..14 are not safe to ignore: a Talus from before families
//! would put every family's tables in one tree. A family's `log_number`
//! says which logs still hold its unflushed writes; `min_log_to_keep`
//! (RocksDB's `MinLogNumberToKeep`) is the database's: logs below it are
//! no longer needed by any family, including families whose own
//! `log_number` was not rewritten because they had nothing to flush.
//!
//! A table is written as `new_file2` when it has a checksum, as `new_file`
//! otherwise (tables recorded before checksums existed keep their bytes).
//!
//! `wal_addition` is RocksDB's `WalAddition` (`track_and_verify_wals_in_manifest`):
//! the log with that number is live and must exist at recovery, at least
//! `synced_size` bytes long; a later addition for the same log replaces the
//! earlier one. RocksDB's `WalDeletion` is `log_number`: every tracked log
//! below it is forgotten (see `VersionSet` for who records what, when).
//!
//! Fields are written in the order of the table, `db_id` right after the
//! comparator (cursors, deletions, new files and WAL additions in the order
//! they were added); a reader accepts any order, and a repeated scalar field
//! keeps its last value. A known field whose payload is not consumed
//! exactly, a level ≥ [`MAX_LEVELS`], an internal key shorter than its
//! 8-byte trailer, `smallest > largest`, `smallest_seq > largest_seq` or a
//! `db_id` not 16 bytes long is `Corruption`. The decoder never panics.

use std::cmp::Ordering;
use std::sync::Arc;

use super::file_meta::FileMetaData;
use crate::coding::{Reader, put_length_prefixed, put_varint32, put_varint64};
use crate::error::{Error, Result};
use crate::identity::{DB_ID_LEN, DbId};
use crate::key::{self, SequenceNumber, TRAILER_LEN};

/// Tag bit: an unknown field with this bit set may be skipped.
pub const TAG_SAFE_TO_IGNORE: u32 = 0x40;

/// Field tags (part of the format; see the module docs).
pub mod tag {
    /// Comparator name.
    pub const COMPARATOR: u32 = 1;
    /// Oldest WAL still needed.
    pub const LOG_NUMBER: u32 = 2;
    /// WAL before `LOG_NUMBER` still needed (0 = none).
    pub const PREV_LOG_NUMBER: u32 = 3;
    /// Next unused file number.
    pub const NEXT_FILE_NUMBER: u32 = 4;
    /// Last sequence number persisted.
    pub const LAST_SEQUENCE: u32 = 5;
    /// Round-robin compaction cursor of a level.
    pub const COMPACT_CURSOR: u32 = 6;
    /// A table file removed from a level.
    pub const DELETED_FILE: u32 = 7;
    /// A table file added to a level.
    pub const NEW_FILE: u32 = 8;
    /// A table file added to a level, with custom fields (its checksum).
    pub const NEW_FILE2: u32 = 9;
    /// The column family the edit applies to.
    pub const COLUMN_FAMILY: u32 = 10;
    /// A column family created (its name).
    pub const COLUMN_FAMILY_ADD: u32 = 11;
    /// The edit's column family dropped.
    pub const COLUMN_FAMILY_DROP: u32 = 12;
    /// Largest column family id handed out.
    pub const MAX_COLUMN_FAMILY: u32 = 13;
    /// Oldest log any family still needs.
    pub const MIN_LOG_TO_KEEP: u32 = 14;
    /// The database's id (safe to ignore).
    pub const DB_ID: u32 = super::TAG_SAFE_TO_IGNORE | 1;
    /// A live write-ahead log and what is known durable of it (safe to ignore).
    pub const WAL_ADDITION: u32 = super::TAG_SAFE_TO_IGNORE | 2;
}

/// Custom-field tags of `new_file2` (part of the format).
pub mod file_tag {
    /// XXH64 of the whole table file: u64 LE.
    pub const FILE_CHECKSUM: u32 = 1;
}

/// Subtags of `wal_addition` (part of the format).
pub mod wal_tag {
    /// Bytes of the log known durable.
    pub const SYNCED_SIZE: u32 = 1;
    /// The log is closed and synced whole: the sequence number of its last write.
    pub const LAST_SEQUENCE: u32 = 2;
}

/// What the manifest knows of one live write-ahead log (RocksDB's
/// `WalMetadata`). Recovery checks it: module docs of `db::recovery`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalMeta {
    /// Bytes of the log known durable: recovery fails when the file is
    /// shorter. `None`: none known yet (the log must exist, nothing more).
    pub synced_size: Option<u64>,
    /// Set once the log is closed and synced whole (then `synced_size` is
    /// its final size): the sequence number of its last write, which replay
    /// must reach.
    pub last_sequence: Option<SequenceNumber>,
}

/// Upper bound on levels in the format (options allow 1..=64).
pub const MAX_LEVELS: usize = 64;

/// One change to the LSM tree's shape and counters. See the module docs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VersionEdit {
    /// Comparator name; recovery refuses a database written with another.
    pub comparator: Option<String>,
    /// The database's id: in every snapshot (the first record of a manifest).
    pub db_id: Option<DbId>,
    /// WALs with numbers below this are no longer needed.
    pub log_number: Option<u64>,
    /// An older WAL still needed (0 = none); kept for format parity.
    pub prev_log_number: Option<u64>,
    /// The next file number to hand out.
    pub next_file_number: Option<u64>,
    /// Sequence number of the last write covered by the persisted state.
    pub last_sequence: Option<SequenceNumber>,
    /// `(level, internal key)`: where the next round-robin pick in that level
    /// starts; an empty key starts over from the level's first file.
    pub compact_cursors: Vec<(usize, Vec<u8>)>,
    /// `(level, file number)` removed.
    pub deleted_files: Vec<(usize, u64)>,
    /// `(level, file)` added.
    pub new_files: Vec<(usize, Arc<FileMetaData>)>,
    /// `(log number, what is known of it)`: live write-ahead logs.
    pub wal_additions: Vec<(u64, WalMeta)>,
    /// The column family the edit applies to (0: the default family).
    pub column_family: u32,
    /// Creates `column_family` with this name.
    pub column_family_add: Option<String>,
    /// Drops `column_family`.
    pub column_family_drop: bool,
    /// Largest column family id handed out so far.
    pub max_column_family: Option<u32>,
    /// Logs below this hold nothing any family still needs.
    pub min_log_to_keep: Option<u64>,
}

impl VersionEdit {
    /// An empty edit.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records that `number` leaves `level`.
    pub fn delete_file(&mut self, level: usize, number: u64) {
        self.deleted_files.push((level, number));
    }

    /// Records that `file` joins `level`.
    pub fn add_file(&mut self, level: usize, file: Arc<FileMetaData>) {
        self.new_files.push((level, file));
    }

    /// Records that WAL `number` is live, with what is known durable of it.
    pub fn add_wal(&mut self, number: u64, meta: WalMeta) {
        self.wal_additions.push((number, meta));
    }

    /// Sets the round-robin cursor of `level`.
    pub fn set_compact_cursor(&mut self, level: usize, key: Vec<u8>) {
        self.compact_cursors.push((level, key));
    }

    /// True when the edit changes nothing.
    pub fn is_empty(&self) -> bool {
        *self == VersionEdit::default()
    }

    /// Appends the encoding of the edit to `dst`.
    pub fn encode(&self, dst: &mut Vec<u8>) {
        // Each payload is built in `p`, then framed with its tag and length.
        fn field(dst: &mut Vec<u8>, tag: u32, p: &mut Vec<u8>) {
            put_varint32(dst, tag);
            put_varint64(dst, p.len() as u64);
            dst.extend_from_slice(p);
            p.clear();
        }
        let mut p = Vec::new();
        if let Some(c) = &self.comparator {
            p.extend_from_slice(c.as_bytes());
            field(dst, tag::COMPARATOR, &mut p);
        }
        if let Some(id) = &self.db_id {
            p.extend_from_slice(&id.0);
            field(dst, tag::DB_ID, &mut p);
        }
        if self.column_family != 0 {
            put_varint32(&mut p, self.column_family);
            field(dst, tag::COLUMN_FAMILY, &mut p);
        }
        if let Some(name) = &self.column_family_add {
            p.extend_from_slice(name.as_bytes());
            field(dst, tag::COLUMN_FAMILY_ADD, &mut p);
        }
        if self.column_family_drop {
            field(dst, tag::COLUMN_FAMILY_DROP, &mut p);
        }
        if let Some(m) = self.max_column_family {
            put_varint32(&mut p, m);
            field(dst, tag::MAX_COLUMN_FAMILY, &mut p);
        }
        if let Some(m) = self.min_log_to_keep {
            put_varint64(&mut p, m);
            field(dst, tag::MIN_LOG_TO_KEEP, &mut p);
        }
        let scalars = [
            (tag::LOG_NUMBER, self.log_number),
            (tag::PREV_LOG_NUMBER, self.prev_log_number),
            (tag::NEXT_FILE_NUMBER, self.next_file_number),
            (tag::LAST_SEQUENCE, self.last_sequence),
        ];
        for (t, v) in scalars {
            if let Some(v) = v {
                put_varint64(&mut p, v);
                field(dst, t, &mut p);
            }
        }
        for (level, k) in &self.compact_cursors {
            put_varint32(&mut p, *level as u32);
            p.extend_from_slice(k);
            field(dst, tag::COMPACT_CURSOR, &mut p);
        }
        for &(level, number) in &self.deleted_files {
            put_varint32(&mut p, level as u32);
            put_varint64(&mut p, number);
            field(dst, tag::DELETED_FILE, &mut p);
        }
        for (level, f) in &self.new_files {
            put_varint32(&mut p, *level as u32);
            put_varint64(&mut p, f.number);
            put_varint64(&mut p, f.file_size);
            put_length_prefixed(&mut p, &f.smallest);
            put_length_prefixed(&mut p, &f.largest);
            for v in [
                f.smallest_seq,
                f.largest_seq,
                f.num_entries,
                f.num_deletions,
                f.raw_key_size,
                f.raw_value_size,
                f.creation_time,
            ] {
                put_varint64(&mut p, v);
            }
            match f.file_checksum {
                Some(crc) => {
                    put_varint32(&mut p, file_tag::FILE_CHECKSUM);
                    put_length_prefixed(&mut p, &crc.to_le_bytes());
                    field(dst, tag::NEW_FILE2, &mut p);
                }
                None => field(dst, tag::NEW_FILE, &mut p),
            }
        }
        for (number, meta) in &self.wal_additions {
            put_varint64(&mut p, *number);
            if let Some(size) = meta.synced_size {
                put_varint32(&mut p, wal_tag::SYNCED_SIZE);
                put_varint64(&mut p, size);
            }
            if let Some(seq) = meta.last_sequence {
                put_varint32(&mut p, wal_tag::LAST_SEQUENCE);
                put_varint64(&mut p, seq);
            }
            field(dst, tag::WAL_ADDITION, &mut p);
        }
    }

    /// Decodes an edit read from `file` at byte `offset` (used in errors).
    pub fn decode(src: &[u8], file: &str, offset: u64) -> Result<VersionEdit> {
        let mut edit = VersionEdit::default();
        let mut r = Reader::new(src);
        while !r.is_empty() {
            let at = offset + r.pos() as u64;
            let bad = |reason: String| Error::corruption(file, at, reason);
            let tag = r
                .varint32()
                .ok_or_else(|| bad("version edit: truncated field tag".into()))?;
            let payload = r
                .length_prefixed()
                .ok_or_else(|| bad(format!("version edit: field {tag} overruns the record")))?;
            let mut p = Reader::new(payload);
            let short = || bad(format!("version edit: field {tag} is truncated"));
            match tag {
                tag::COMPARATOR => {
                    let name = std::str::from_utf8(payload)
                        .map_err(|_| bad("version edit: comparator name is not UTF-8".into()))?;
                    edit.comparator = Some(name.to_owned());
                    let _ = p.bytes(payload.len());
                }
                tag::LOG_NUMBER => edit.log_number = Some(p.varint64().ok_or_else(short)?),
                tag::COLUMN_FAMILY => edit.column_family = p.varint32().ok_or_else(short)?,
                tag::COLUMN_FAMILY_ADD => {
                    let name = std::str::from_utf8(payload)
                        .map_err(|_| bad("version edit: column family name is not UTF-8".into()))?;
                    edit.column_family_add = Some(name.to_owned());
                    let _ = p.bytes(payload.len());
                }
                tag::COLUMN_FAMILY_DROP => edit.column_family_drop = true,
                tag::MAX_COLUMN_FAMILY => {
                    edit.max_column_family = Some(p.varint32().ok_or_else(short)?)
                }
                tag::MIN_LOG_TO_KEEP => {
                    edit.min_log_to_keep = Some(p.varint64().ok_or_else(short)?)
                }
                tag::PREV_LOG_NUMBER => {
                    edit.prev_log_number = Some(p.varint64().ok_or_else(short)?)
                }
                tag::NEXT_FILE_NUMBER => {
                    edit.next_file_number = Some(p.varint64().ok_or_else(short)?)
                }
                tag::LAST_SEQUENCE => edit.last_sequence = Some(p.varint64().ok_or_else(short)?),
                tag::COMPACT_CURSOR => {
                    let level = decode_level(&mut p).map_err(&bad)?;
                    let k = p.bytes(p.remaining()).unwrap_or_default();
                    if !k.is_empty() && k.len() < TRAILER_LEN {
                        return Err(bad(format!(
                            "version edit: compact cursor of {} bytes is not an internal key",
                            k.len()
                        )));
                    }
                    edit.compact_cursors.push((level, k.to_vec()));
                }
                tag::DELETED_FILE => {
                    let level = decode_level(&mut p).map_err(&bad)?;
                    let number = p.varint64().ok_or_else(short)?;
                    edit.deleted_files.push((level, number));
                }
                tag::NEW_FILE => {
                    let (level, f) = decode_new_file(&mut p).map_err(&bad)?;
                    edit.new_files.push((level, Arc::new(f)));
                }
                tag::NEW_FILE2 => {
                    let (level, mut f) = decode_new_file(&mut p).map_err(&bad)?;
                    decode_file_custom_fields(&mut p, &mut f).map_err(&bad)?;
                    edit.new_files.push((level, Arc::new(f)));
                }
                tag::DB_ID => {
                    let id = p
                        .bytes(p.remaining())
                        .and_then(DbId::from_bytes)
                        .ok_or_else(|| {
                            bad(format!(
                                "version edit: db_id of {} bytes, not {DB_ID_LEN}",
                                payload.len()
                            ))
                        })?;
                    edit.db_id = Some(id);
                }
                tag::WAL_ADDITION => {
                    let addition = decode_wal_addition(&mut p).map_err(&bad)?;
                    edit.wal_additions.push(addition);
                }
                t if t & TAG_SAFE_TO_IGNORE != 0 => {
                    // A hint from a newer writer: skip it.
                    continue;
                }
                t => {
                    return Err(bad(format!(
                        "version edit: unknown field tag {t} (written by a newer Talus?)"
                    )));
                }
            }
            if !p.is_empty() {
                return Err(bad(format!(
                    "version edit: {} unexpected trailing bytes in field {tag}",
                    p.remaining()
                )));
            }
        }
        Ok(edit)
    }
}

fn decode_level(p: &mut Reader<'_>) -> Result<usize, String> {
    let level = p
        .varint32()
        .ok_or_else(|| "version edit: truncated level".to_string())? as usize;
    if level >= MAX_LEVELS {
        return Err(format!(
            "version edit: level {level} is beyond the format's {MAX_LEVELS} levels"
        ));
    }
    Ok(level)
}

/// The custom fields of `new_file2`, to the end of its payload.
fn decode_file_custom_fields(p: &mut Reader<'_>, f: &mut FileMetaData) -> Result<(), String> {
    while !p.is_empty() {
        let t = p.varint32().ok_or_else(|| {
            format!(
                "version edit: file {}: truncated custom field tag",
                f.number
            )
        })?;
        let v = p.length_prefixed().ok_or_else(|| {
            format!(
                "version edit: file {}: custom field {t} overruns the field",
                f.number
            )
        })?;
        match t {
            file_tag::FILE_CHECKSUM => {
                let sum: [u8; 8] = v.try_into().map_err(|_| {
                    format!(
                        "version edit: file {}: checksum of {} bytes, not 8",
                        f.number,
                        v.len()
                    )
                })?;
                f.file_checksum = Some(u64::from_le_bytes(sum));
            }
            t if t & TAG_SAFE_TO_IGNORE != 0 => {
                return Err(format!(
                    "version edit: file {}: unknown required custom field {t} (written by a newer Talus?)",
                    f.number
                ));
            }
            _ => {} // a hint from a newer writer
        }
    }
    Ok(())
}

fn decode_wal_addition(p: &mut Reader<'_>) -> Result<(u64, WalMeta), String> {
    let short = || "version edit: wal addition is truncated".to_string();
    let number = p.varint64().ok_or_else(short)?;
    let mut meta = WalMeta::default();
    while !p.is_empty() {
        let t = p.varint32().ok_or_else(short)?;
        let v = p.varint64().ok_or_else(short)?;
        match t {
            wal_tag::SYNCED_SIZE => meta.synced_size = Some(v),
            wal_tag::LAST_SEQUENCE => meta.last_sequence = Some(v),
            _ => {} // every subfield is one varint64: skipped
        }
    }
    Ok((number, meta))
}

fn decode_new_file(p: &mut Reader<'_>) -> Result<(usize, FileMetaData), String> {
    let level = decode_level(p)?;
    let short = || "version edit: new file field is truncated".to_string();
    let number = p.varint64().ok_or_else(short)?;
    let file_size = p.varint64().ok_or_else(short)?;
    let smallest = p.length_prefixed().ok_or_else(short)?.to_vec();
    let largest = p.length_prefixed().ok_or_else(short)?.to_vec();
    let mut v = [0u64; 7];
    for slot in &mut v {
        *slot = p.varint64().ok_or_else(short)?;
    }
    let [
        smallest_seq,
        largest_seq,
        num_entries,
        num_deletions,
        raw_key_size,
        raw_value_size,
        creation_time,
    ] = v;
    if smallest.len() < TRAILER_LEN || largest.len() < TRAILER_LEN {
        return Err(format!(
            "version edit: file {number} has a boundary key shorter than an internal key"
        ));
    }
    if key::compare_internal(&smallest, &largest) == Ordering::Greater {
        return Err(format!(
            "version edit: file {number} has smallest key > largest key"
        ));
    }
    if smallest_seq > largest_seq {
        return Err(format!(
            "version edit: file {number} has smallest_seq {smallest_seq} > largest_seq {largest_seq}"
        ));
    }
    Ok((
        level,
        FileMetaData {
            number,
            file_size,
            smallest,
            largest,
            smallest_seq,
            largest_seq,
            num_entries,
            num_deletions,
            raw_key_size,
            raw_value_size,
            creation_time,
            ..FileMetaData::default()
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{ValueKind, make_internal_key};
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    fn file(number: u64, lo: &[u8], hi: &[u8]) -> Arc<FileMetaData> {
        Arc::new(FileMetaData {
            number,
            file_size: 100,
            smallest: make_internal_key(lo, 1, ValueKind::Value),
            largest: make_internal_key(hi, 2, ValueKind::Value),
            smallest_seq: 1,
            largest_seq: 2,
            num_entries: 2,
            num_deletions: 0,
            raw_key_size: 18,
            raw_value_size: 5,
            creation_time: 0,
            ..FileMetaData::default()
        })
    }

    #[test]
    fn golden_bytes() {
        let mut e = VersionEdit {
            comparator: Some("c".into()),
            log_number: Some(5),
            prev_log_number: Some(0),
            next_file_number: Some(300),
            last_sequence: Some(256),
            ..VersionEdit::default()
        };
        e.set_compact_cursor(1, make_internal_key(b"k", 3, ValueKind::Value));
        e.delete_file(1, 9);
        e.add_file(2, file(10, b"a", b"b"));
        let mut got = Vec::new();
        e.encode(&mut got);
        #[rustfmt::skip]
        let want: Vec<u8> = vec![
            1, 1, b'c',                       // comparator "c"
            2, 1, 5,                          // log_number 5
            3, 1, 0,                          // prev_log_number 0
            4, 2, 0xac, 0x02,                 // next_file_number 300
            5, 2, 0x80, 0x02,                 // last_sequence 256
            6, 10, 1, b'k', 1, 3, 0, 0, 0, 0, 0, 0, // cursor L1, "k"@3 Value
            7, 2, 1, 9,                       // delete L1 #9
            8, 30,                            // new file, 30 payload bytes:
            2, 10, 100,                       //   L2, #10, 100 bytes
            9, b'a', 1, 1, 0, 0, 0, 0, 0, 0,  //   smallest "a"@1 Value
            9, b'b', 1, 2, 0, 0, 0, 0, 0, 0,  //   largest "b"@2 Value
            1, 2, 2, 0, 18, 5, 0,             //   seqs 1..2, 2 entries, 0 dels, 18, 5, ctime 0
        ];
        assert_eq!(got, want);
        assert_eq!(VersionEdit::decode(&got, "M", 0).unwrap(), e);
    }

    /// The fields added for database identity, WAL tracking and table
    /// checksums (issue 30): their bytes are part of the format.
    #[test]
    fn golden_bytes_of_identity_wal_additions_and_checksummed_files() {
        let id = DbId(*b"0123456789abcdef");
        let mut e = VersionEdit {
            db_id: Some(id),
            ..VersionEdit::default()
        };
        let mut f = file(10, b"a", b"b").clone_metadata();
        f.file_checksum = Some(0x0123_4567_dead_beef);
        e.add_file(2, Arc::new(f));
        e.add_wal(7, WalMeta::default());
        e.add_wal(
            8,
            WalMeta {
                synced_size: Some(300),
                last_sequence: None,
            },
        );
        e.add_wal(
            9,
            WalMeta {
                synced_size: Some(5),
                last_sequence: Some(4),
            },
        );
        let mut got = Vec::new();
        e.encode(&mut got);
        #[rustfmt::skip]
        let want: Vec<u8> = [
            &[0x41, 16][..], b"0123456789abcdef",             // db_id
            &[9, 40,                                          // new_file2, 40 payload bytes:
              2, 10, 100,                                     //   L2, #10, 100 bytes
              9, b'a', 1, 1, 0, 0, 0, 0, 0, 0,                //   smallest "a"@1 Value
              9, b'b', 1, 2, 0, 0, 0, 0, 0, 0,                //   largest "b"@2 Value
              1, 2, 2, 0, 18, 5, 0,                           //   seqs, counts, sizes, ctime
              1, 8, 0xef, 0xbe, 0xad, 0xde, 0x67, 0x45, 0x23, 0x01], // file_checksum
            &[0x42, 1, 7],                                    // wal 7: live, nothing synced known
            &[0x42, 4, 8, 1, 0xac, 0x02],                     // wal 8: 300 bytes synced
            &[0x42, 5, 9, 1, 5, 2, 4],                        // wal 9: closed, 5 bytes, last seq 4
        ]
        .concat();
        assert_eq!(got, want);
        assert_eq!(VersionEdit::decode(&got, "M", 0).unwrap(), e);

        // A file without a checksum is still written as `new_file` (tag 8).
        let mut plain = VersionEdit::new();
        plain.add_file(2, file(10, b"a", b"b"));
        let mut b = Vec::new();
        plain.encode(&mut b);
        assert_eq!(&b[..2], &[8, 30]);
    }

    #[test]
    fn custom_fields_and_wal_subtags_from_a_newer_writer() {
        let mut e = VersionEdit::new();
        e.add_file(1, file(4, b"a", b"b"));
        let mut b = Vec::new();
        e.encode(&mut b);
        // Rewrite as new_file2 with an unknown optional custom field (tag 2).
        let mut payload = b[2..].to_vec();
        payload.extend_from_slice(&[2, 3, 1, 2, 3]);
        let mut rec = vec![9, payload.len() as u8];
        rec.extend_from_slice(&payload);
        let got = VersionEdit::decode(&rec, "M", 0).unwrap();
        assert_eq!(got.new_files[0].1.file_checksum, None);
        assert_eq!(*got.new_files[0].1, *e.new_files[0].1);
        // A required unknown custom field (bit 6 set) fails.
        let mut payload = b[2..].to_vec();
        payload.extend_from_slice(&[0x42, 0]);
        let mut rec = vec![9, payload.len() as u8];
        rec.extend_from_slice(&payload);
        let err = VersionEdit::decode(&rec, "M", 0).unwrap_err();
        assert!(err.to_string().contains("custom field 66"), "{err}");
        // A WAL addition with an unknown subtag keeps what it knows.
        let rec = [0x42, 5, 9, 7, 1, 1, 44];
        let got = VersionEdit::decode(&rec, "M", 0).unwrap();
        assert_eq!(
            got.wal_additions,
            [(
                9,
                WalMeta {
                    synced_size: Some(44),
                    last_sequence: None
                }
            )]
        );
    }

    #[test]
    fn empty_edit_round_trips() {
        let mut b = Vec::new();
        VersionEdit::new().encode(&mut b);
        assert!(b.is_empty());
        assert!(VersionEdit::decode(&b, "M", 0).unwrap().is_empty());
    }

    #[test]
    fn unknown_tags_skip_only_with_the_ignore_bit() {
        let mut b = Vec::new();
        VersionEdit {
            log_number: Some(7),
            ..VersionEdit::default()
        }
        .encode(&mut b);
        let mut ignorable = b.clone();
        ignorable.extend_from_slice(&[0x45, 3, 1, 2, 3]);
        assert_eq!(
            VersionEdit::decode(&ignorable, "M", 0).unwrap().log_number,
            Some(7)
        );
        // Multi-byte tag with the bit set: 0xC0 0x01 = 192.
        let mut wide = b.clone();
        wide.extend_from_slice(&[0xc0, 0x01, 0]);
        assert!(VersionEdit::decode(&wide, "M", 0).is_ok());

        let mut required = b.clone();
        required.extend_from_slice(&[15, 1, 0]);
        let err = VersionEdit::decode(&required, "MANIFEST-000004", 100).unwrap_err();
        assert!(err.is_corruption());
        let s = err.to_string();
        assert!(
            s.contains("unknown field tag 15") && s.contains("MANIFEST-000004"),
            "{s}"
        );
        assert!(s.contains("offset 103"), "{s}");
    }

    #[test]
    fn malformed_fields_are_corruption() {
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("trailing bytes in a scalar", vec![2, 2, 5, 0]),
            ("field longer than the record", vec![2, 5, 5]),
            ("truncated tag", vec![0x80]),
            ("level beyond the format", vec![7, 2, 64, 1]),
            ("short cursor key", vec![6, 3, 1, b'k', 0]),
            ("non-UTF-8 comparator", vec![1, 1, 0xff]),
            ("truncated new file", vec![8, 2, 1, 1]),
            ("short db id", vec![0x41, 3, 1, 2, 3]),
            ("truncated wal addition", vec![0x42, 2, 9, 1]),
            ("wal addition without a number", vec![0x42, 0]),
        ];
        for (what, bytes) in cases {
            let r = VersionEdit::decode(&bytes, "M", 0);
            assert!(matches!(&r, Err(e) if e.is_corruption()), "{what}: {r:?}");
        }
        // smallest > largest
        let mut e = VersionEdit::new();
        e.add_file(1, file(3, b"b", b"a"));
        let mut b = Vec::new();
        e.encode(&mut b);
        assert!(VersionEdit::decode(&b, "M", 0).unwrap_err().is_corruption());
    }

    /// The column family fields: their bytes are part of the format.
    #[test]
    fn golden_bytes_of_column_family_fields() {
        let mut e = VersionEdit {
            column_family: 3,
            column_family_add: Some("users".into()),
            max_column_family: Some(3),
            min_log_to_keep: Some(7),
            log_number: Some(9),
            ..VersionEdit::default()
        };
        let mut got = Vec::new();
        e.encode(&mut got);
        #[rustfmt::skip]
        let want: Vec<u8> = vec![
            10, 1, 3,                         // column_family 3
            11, 5, b'u', b's', b'e', b'r', b's', // add, name "users"
            13, 1, 3,                         // max_column_family 3
            14, 1, 7,                         // min_log_to_keep 7
            2, 1, 9,                          // log_number 9 (of family 3)
        ];
        assert_eq!(got, want);
        assert_eq!(VersionEdit::decode(&got, "M", 0).unwrap(), e);
        e = VersionEdit {
            column_family: 3,
            column_family_drop: true,
            ..VersionEdit::default()
        };
        got.clear();
        e.encode(&mut got);
        assert_eq!(got, [10, 1, 3, 12, 0]);
        assert_eq!(VersionEdit::decode(&got, "M", 0).unwrap(), e);
        // The default family's edit carries no family field: the bytes of
        // an edit from before families.
        got.clear();
        VersionEdit {
            log_number: Some(1),
            ..VersionEdit::default()
        }
        .encode(&mut got);
        assert_eq!(got, [2, 1, 1]);
        // A family name that is not UTF-8 is corruption.
        assert!(
            VersionEdit::decode(&[11, 1, 0xff], "M", 0)
                .unwrap_err()
                .is_corruption()
        );
    }

    fn random_edit(rng: &mut SmallRng) -> VersionEdit {
        let mut e = VersionEdit {
            comparator: rng.random_bool(0.3).then(|| "talus.bytewise".to_string()),
            log_number: rng.random_bool(0.5).then(|| rng.random()),
            prev_log_number: rng.random_bool(0.2).then(|| rng.random_range(0..10)),
            next_file_number: rng.random_bool(0.5).then(|| rng.random_range(0..1 << 40)),
            last_sequence: rng.random_bool(0.5).then(|| rng.random_range(0..1 << 56)),
            ..VersionEdit::default()
        };
        for _ in 0..rng.random_range(0..3) {
            e.set_compact_cursor(
                rng.random_range(0..7),
                make_internal_key(b"cur", 4, ValueKind::Value),
            );
        }
        for _ in 0..rng.random_range(0..4) {
            e.delete_file(rng.random_range(0..7), rng.random_range(0..1000));
        }
        for i in 0..rng.random_range(0..4) {
            let lo = vec![b'a' + i as u8; rng.random_range(0..20)];
            let mut hi = lo.clone();
            hi.push(b'z');
            let mut f = file(rng.random(), &lo, &hi).clone_metadata();
            f.file_checksum = rng.random_bool(0.5).then(|| rng.random());
            e.add_file(rng.random_range(0..7), Arc::new(f));
        }
        if rng.random_bool(0.3) {
            e.db_id = Some(DbId(rng.random()));
        }
        if rng.random_bool(0.3) {
            e.column_family = rng.random_range(0..300);
            e.column_family_add = rng.random_bool(0.3).then(|| "cf".to_string());
            e.column_family_drop = rng.random_bool(0.2);
            e.max_column_family = rng.random_bool(0.3).then(|| rng.random());
            e.min_log_to_keep = rng.random_bool(0.3).then(|| rng.random());
        }
        for _ in 0..rng.random_range(0..3) {
            e.add_wal(
                rng.random_range(0..1 << 20),
                WalMeta {
                    synced_size: rng.random_bool(0.5).then(|| rng.random_range(0..1 << 30)),
                    last_sequence: rng.random_bool(0.3).then(|| rng.random_range(0..1 << 56)),
                },
            );
        }
        e
    }

    #[test]
    fn random_edits_round_trip_and_damage_never_panics() {
        let mut rng = SmallRng::seed_from_u64(0x5eed);
        for _ in 0..200 {
            let e = random_edit(&mut rng);
            let mut b = Vec::new();
            e.encode(&mut b);
            assert_eq!(VersionEdit::decode(&b, "M", 0).unwrap(), e);
            // Every truncation decodes or fails cleanly.
            for n in 0..b.len() {
                let _ = VersionEdit::decode(&b[..n], "M", 0);
            }
            // Every single-bit flip, and random byte overwrites, likewise.
            for i in 0..b.len() {
                for bit in 0..8 {
                    let mut d = b.clone();
                    d[i] ^= 1 << bit;
                    let _ = VersionEdit::decode(&d, "M", 0);
                }
                let mut d = b.clone();
                d[i] = rng.random();
                let _ = VersionEdit::decode(&d, "M", 0);
            }
        }
        // Pure noise.
        for _ in 0..2000 {
            let n = rng.random_range(0..64);
            let noise: Vec<u8> = (0..n).map(|_| rng.random()).collect();
            let _ = VersionEdit::decode(&noise, "M", 0);
        }
    }
}
