//! The log format shared by write-ahead logs and manifests.
//!
//! A log file is a sequence of 32 KiB blocks. Each logical record is split
//! into one or more *fragments*; a fragment never crosses a block boundary.
//!
//! ```text
//! fragment := +---------------+----------------+-----------+-------------------+
//!             | crc: u32 LE   | length: u16 LE | type: u8  | payload (length)  |
//!             +---------------+----------------+-----------+-------------------+
//! crc  = CRC-32 (IEEE) of type || length (2 bytes LE) || payload
//! type = 1 FULL | 2 FIRST | 3 MIDDLE | 4 LAST
//! ```
//!
//! When fewer than [`HEADER_LEN`] bytes remain in a block, the writer fills
//! them with zeros and starts the next block. An all-zero header (crc 0,
//! length 0, type 0) is padding: the reader skips to the next block.
//!
//! Recovery distinguishes two failures (see [`reader`]): a *torn tail* —
//! the file ends inside a fragment, or inside a record that has a FIRST but
//! no LAST — is what a crash during an append leaves behind and is dropped
//! (and reported) by the default recovery mode; a *corrupt* fragment — a
//! checksum mismatch or an impossible fragment sequence with more data
//! after it — is real damage and fails recovery with `Corruption`.
//!
//! In a write-ahead log each record is a write batch (`write_batch`). The
//! first record of every WAL is its *start record*: a batch of no entries
//! whose sequence number is the one the log's first write gets, so recovery
//! can tell a log that follows the one before it from one after a hole
//! (module docs of `db::recovery`), followed by the log's owner: the id of
//! the database that wrote it and its own file number, so recovery never
//! replays (nor deletes) a log another database wrote into a shared
//! `wal_dir`, nor a log copied or renamed from another number:
//!
//! ```text
//! start record := sequence: u64 LE | count: u32 LE = 0      (an empty batch)
//!               | owner kind: u8 = 1 | db id: 16 bytes | log number: u64 LE
//! ```
//!
//! It is [`START_RECORD_LEN`] bytes with its fragment header. Logs written
//! before owners existed start with the bare empty batch
//! ([`LEGACY_START_RECORD_LEN`] bytes), or, older still, with a write;
//! [`decode_start_record`] tells them apart. A Talus that does not know
//! owners fails on the new start record (its batch has bytes after its
//! zero records).

pub mod reader;
pub mod writer;

pub use reader::{LogReader, ReadEvent};
pub use writer::LogWriter;

use crate::identity::{DB_ID_LEN, DbId};

/// Block size of the log format.
pub const BLOCK_SIZE: usize = 32 * 1024;
/// Fragment header length: crc (4) + length (2) + type (1).
pub const HEADER_LEN: usize = 7;
/// Payload bytes of a WAL's start record (see the module docs).
pub const START_PAYLOAD_LEN: usize = crate::write_batch::HEADER_LEN + 1 + DB_ID_LEN + 8;
/// Size of a WAL's start record: one fragment holding the empty batch and
/// the log's owner.
pub const START_RECORD_LEN: u64 = (HEADER_LEN + START_PAYLOAD_LEN) as u64;
/// Size of the start record of a log written before owners: one fragment
/// holding an empty batch.
pub const LEGACY_START_RECORD_LEN: u64 = (HEADER_LEN + crate::write_batch::HEADER_LEN) as u64;

/// Owner kind byte of a start record: a database id and a log number follow.
const OWNER_DB_AND_NUMBER: u8 = 1;

/// A decoded start record (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StartRecord {
    /// The sequence number the log's first write gets.
    pub sequence: u64,
    /// `(database id, log number)`; `None` in a log written before owners.
    pub owner: Option<(DbId, u64)>,
}

/// The payload of the start record of log `number` of database `db_id`,
/// whose first write gets sequence number `sequence`.
pub fn encode_start_record(sequence: u64, db_id: DbId, number: u64) -> Vec<u8> {
    let mut b = Vec::with_capacity(START_PAYLOAD_LEN);
    b.extend_from_slice(&sequence.to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    b.push(OWNER_DB_AND_NUMBER);
    b.extend_from_slice(&db_id.0);
    b.extend_from_slice(&number.to_le_bytes());
    b
}

/// Decodes the first record of a log as a start record: `None` when it is
/// not one (a log older than start records begins with a write; anything
/// else is damage or not a log of ours).
pub fn decode_start_record(payload: &[u8]) -> Option<StartRecord> {
    const H: usize = crate::write_batch::HEADER_LEN;
    if payload.len() < H || payload[8..H] != [0, 0, 0, 0] {
        return None;
    }
    let sequence = u64::from_le_bytes(payload[..8].try_into().ok()?);
    match &payload[H..] {
        [] => Some(StartRecord {
            sequence,
            owner: None,
        }),
        [OWNER_DB_AND_NUMBER, rest @ ..] if rest.len() == DB_ID_LEN + 8 => {
            let id = DbId::from_bytes(&rest[..DB_ID_LEN])?;
            let number = u64::from_le_bytes(rest[DB_ID_LEN..].try_into().ok()?);
            Some(StartRecord {
                sequence,
                owner: Some((id, number)),
            })
        }
        _ => None,
    }
}

/// Fragment types (part of the format).
pub mod fragment {
    /// Zero padding.
    pub const ZERO: u8 = 0;
    /// A whole record.
    pub const FULL: u8 = 1;
    /// First fragment of a record.
    pub const FIRST: u8 = 2;
    /// A middle fragment.
    pub const MIDDLE: u8 = 3;
    /// The last fragment.
    pub const LAST: u8 = 4;
}

/// How recovery treats damaged logs; the meanings of RocksDB's `WALRecoveryMode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum WalRecoveryMode {
    /// Drop (and log) an incomplete record at the end of a log; fail on any
    /// checksum mismatch or malformed record. The default.
    #[default]
    TolerateCorruptedTailRecords = 0,
    /// Fail on any damage, including an incomplete tail.
    AbsoluteConsistency = 1,
    /// Stop replaying at the first damaged record: the database recovers to a
    /// consistent point in time, dropping everything after it.
    PointInTimeRecovery = 2,
    /// Skip damaged records and keep going.
    SkipAnyCorruptedRecords = 3,
}

impl WalRecoveryMode {
    /// Decodes RocksJava's `WALRecoveryMode` byte.
    pub fn from_u8(b: u8) -> Option<Self> {
        Some(match b {
            0 => Self::TolerateCorruptedTailRecords,
            1 => Self::AbsoluteConsistency,
            2 => Self::PointInTimeRecovery,
            3 => Self::SkipAnyCorruptedRecords,
            _ => return None,
        })
    }
}

/// Computes the fragment checksum.
pub(crate) fn fragment_crc(ty: u8, payload: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&[ty]);
    h.update(&(payload.len() as u16).to_le_bytes());
    h.update(payload);
    h.finalize()
}

#[cfg(test)]
mod tests;
