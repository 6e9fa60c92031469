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
//! (module docs of `db::recovery`). It is [`START_RECORD_LEN`] bytes.

pub mod reader;
pub mod writer;

pub use reader::{LogReader, ReadEvent};
pub use writer::LogWriter;

/// Block size of the log format.
pub const BLOCK_SIZE: usize = 32 * 1024;
/// Fragment header length: crc (4) + length (2) + type (1).
pub const HEADER_LEN: usize = 7;
/// Size of a WAL's start record: one fragment holding an empty batch.
pub const START_RECORD_LEN: u64 = (HEADER_LEN + crate::write_batch::HEADER_LEN) as u64;

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
