//! Block-based sorted tables (SST files): [`TableBuilder`] writes one,
//! [`TableReader`] serves point lookups and [`TableIter`] scans it.
//!
//! # File format (version 1)
//!
//! **Everything in this section is part of the on-disk format.** Each part
//! is specified in the module that owns it, next to its constants, and
//! pinned there by golden-byte tests.
//!
//! ```text
//! +--------------------------------------+  offset 0
//! | data block 0        | trailer (5)    |  entries in internal-key order (`block.rs`)
//! | data block 1        | trailer        |
//! | ...                                  |
//! +--------------------------------------+  properties.data_size
//! | filter block        | trailer        |  optional: bloom over user keys and/or prefixes (`filter.rs`)
//! | range-del block     | trailer        |  optional: range tombstones (`range_del.rs`)
//! | dictionary block    | trailer        |  optional: ZSTD dictionary (`codec.rs`)
//! | index block         | trailer        |  one entry per data block (`block.rs`)
//! | properties block    | trailer        |  tagged fields (`properties.rs`)
//! +--------------------------------------+
//! | footer (80 bytes)                    |  handles of the four blocks above,
//! +--------------------------------------+  version, CRC, magic (`format.rs`)
//! ```
//!
//! * **Block trailer** (`format.rs`): compression type byte
//!   (0 none, 1 Snappy, 4 LZ4, 7 ZSTD) and a CRC-32 over the stored bytes and
//!   the type byte. The stored form of each codec is specified in
//!   `codec.rs`; a block is stored compressed only when that saves at least
//!   1/8 of its size. Data and index blocks may be compressed; filter,
//!   range-del, compression-dictionary and properties blocks never are.
//! * **Compression dictionary block** (`codec.rs`): optional, for ZSTD
//!   tables with `max_dict_bytes`; written after the range-del block, its
//!   handle in the properties (`COMPRESSION_DICT`), loaded at open.
//! * **Data blocks** hold internal keys ([`crate::key`]) and values, with
//!   prefix-compressed keys and restart points; a block is cut once its
//!   uncompressed size reaches `block_size`.
//! * **Index block**: same block format with a restart interval of 1; for
//!   each data block, a separator key `s` (an internal key with
//!   `last key of block ≤ s < first key of next block`, shortened when
//!   possible) mapping to the block's handle (`varint64 offset || varint64
//!   size`, the size excluding the trailer).
//! * **Filter block**: one bloom filter over the distinct user keys of the
//!   table (with `whole_key_filtering`) and the distinct prefixes of those
//!   keys (with a prefix extractor), present only when
//!   `filter_bits_per_key` is set (and positive) and there is something to
//!   put in it. The properties say which of the two it holds.
//! * **External tables** (written by `SstFileWriter`) have the same layout;
//!   the property `EXTERNAL_FILE_VERSION` marks them, and their global
//!   sequence number lives in the manifest ([`EXTERNAL_FILE_VERSION`]).
//! * **Footer**: fixed-width handles (absent optional blocks have the handle
//!   `(0, 0)`; present blocks are never empty), `FORMAT_VERSION`, a CRC-32
//!   of the preceding 68 bytes and the magic `TALUSTBL`.
//!
//! # Reading
//!
//! A reader reads the footer, properties and range-deletion block at open
//! and keeps them. Index and filter are held by the reader, or — with
//! `cache_index_and_filter_blocks` — kept in the [`BlockCache`] at high
//! priority (and also held when `pin_index_and_filter`). Data blocks go
//! through the block cache at low priority. A lookup costs at most one
//! filter probe, one index seek and one data block; the
//! [`InternalIterator`](crate::iterator::InternalIterator) of a table walks
//! the index and opens data blocks one at a time.
//!
//! Every decoding step checks what it reads; damage surfaces as
//! `Error::Corruption` naming the file and the offset of the block (or
//! footer) concerned, and never as a panic.

mod block;
mod buffers;
mod builder;
mod codec;
mod filter;
mod format;
mod hash;
mod properties;
mod range_del;
mod reader;
mod readahead;

pub use block::{Block, BlockGet, BlockIter};
pub use builder::{TableBuildOptions, TableBuilder};
pub use filter::{BloomFilter, filter_hash};
pub use format::{BlockHandle, FORMAT_VERSION, TABLE_MAGIC};
pub use properties::TableProperties;

/// The version of the external-file rules a table written by an
/// `SstFileWriter` follows (property `EXTERNAL_FILE_VERSION`, **part of the
/// table format**): every entry and range tombstone carries sequence number
/// 0, user keys are strictly increasing (one entry per user key), the
/// table names no database (`db_id`, `orig_file_number` absent), and the
/// sequence number the entries take once ingested (the *global sequence
/// number*) is kept outside the file, in the manifest entry's sequence
/// range (`smallest_seq == largest_seq == G`): a reader opened for that
/// entry reports every key with sequence `G`
/// ([`TableReader::apply_global_seqno`]). The file itself is never
/// rewritten, so a hard link into the database leaves the user's file
/// unchanged.
pub const EXTERNAL_FILE_VERSION: u32 = 1;
pub(crate) use reader::Held;
pub use reader::{
    BlockCache, BlockHint, CachedBlock, Located, LocatedBlock, TableGet, TableIter, TableReadOptions, TableReader, TableReaderOptions,
    external_view,
};

#[cfg(test)]
mod tests;
