//! [`TableProperties`] and their block.
//!
//! Format of the properties block (**part of the table format**): a sequence
//! of tagged fields, in any order, each
//!
//! ```text
//! +---------------+-------------------------+--------------+
//! | tag: varint32 | value length: varint64  | value bytes  |
//! +---------------+-------------------------+--------------+
//! ```
//!
//! Integer values are one varint64 filling the value bytes; keys are raw
//! bytes. Readers skip unknown tags (so new properties can be added) and
//! leave missing ones at their defaults. Tags are listed in [`tag`].
//!
//! What the filter block holds is recorded by two properties: whether it
//! holds whole user keys (`whole_key_filtering`; absent in tables written
//! before prefixes existed, whose filters hold whole keys only, so it reads
//! as true), and the name of the prefix extractor whose prefixes it holds
//! (`prefix_extractor`; absent: no prefixes). A reader probes the filter
//! with a prefix only when its own extractor has that name.
//!
//! Two properties bind a table to the database and the manifest entry it
//! was written for (tables written before they existed have neither): the
//! database's id (`db_id`, 16 bytes, [`crate::identity`]) and the file
//! number the table was written as (`orig_file_number`). A table copied in
//! from another database, or over another table of the same database, is
//! refused at open (module docs of `db::table_cache`).

use crate::coding::{Reader, put_length_prefixed, put_varint32, put_varint64, varint_len};
use crate::error::{Error, Result};
use crate::identity::DbId;
use crate::key::SequenceNumber;
use crate::options::CompressionType;

use super::format::BlockHandle;

/// Property tags (part of the format; never reuse a number).
pub mod tag {
    /// Point entries (values, merge operands and point tombstones).
    pub const NUM_ENTRIES: u32 = 1;
    /// Point tombstones (deletions and single deletions).
    pub const NUM_DELETIONS: u32 = 2;
    /// Range tombstones.
    pub const NUM_RANGE_DELETIONS: u32 = 3;
    /// Sum of internal-key lengths of point entries.
    pub const RAW_KEY_SIZE: u32 = 4;
    /// Sum of value lengths of point entries.
    pub const RAW_VALUE_SIZE: u32 = 5;
    /// Bytes of data blocks, trailers included.
    pub const DATA_SIZE: u32 = 6;
    /// Bytes of the index block, trailer included.
    pub const INDEX_SIZE: u32 = 7;
    /// Bytes of the filter block, trailer included (0 without a filter).
    pub const FILTER_SIZE: u32 = 8;
    /// Data blocks.
    pub const NUM_DATA_BLOCKS: u32 = 9;
    /// Smallest point internal key.
    pub const SMALLEST_KEY: u32 = 10;
    /// Largest point internal key.
    pub const LARGEST_KEY: u32 = 11;
    /// Smallest sequence number (point entries and range tombstones).
    pub const SMALLEST_SEQNO: u32 = 12;
    /// Largest sequence number (point entries and range tombstones).
    pub const LARGEST_SEQNO: u32 = 13;
    /// Unix seconds when the table was written.
    pub const CREATION_TIME: u32 = 14;
    /// Compression type byte the table was written with.
    pub const COMPRESSION: u32 = 15;
    /// Format version.
    pub const FORMAT_VERSION: u32 = 16;
    /// Id of the database the table was written for: 16 bytes.
    pub const DB_ID: u32 = 17;
    /// File number the table was written as.
    pub const ORIG_FILE_NUMBER: u32 = 18;
    /// Whether the filter holds whole user keys: varint64 0 or 1. Absent
    /// means 1.
    pub const WHOLE_KEY_FILTERING: u32 = 19;
    /// Name of the prefix extractor whose prefixes the filter holds, UTF-8.
    /// Absent: the filter holds no prefixes.
    pub const PREFIX_EXTRACTOR: u32 = 20;
    /// Handle of the ZSTD compression dictionary block: varint64 offset ||
    /// varint64 size (format in the docs of `table::codec`). Absent: the
    /// table has no dictionary.
    pub const COMPRESSION_DICT: u32 = 21;
    /// The table was written outside a database by an `SstFileWriter`
    /// (module `sst_file_writer`): varint64 version of the external-file
    /// rules, [`super::EXTERNAL_FILE_VERSION`]. Its entries all carry
    /// sequence number 0; the sequence number they take in a database
    /// (its *global sequence number*) is not in the file but in the
    /// manifest entry of the ingested file (module docs of `db::ingest`).
    /// Absent: a table written by a database.
    pub const EXTERNAL_FILE_VERSION: u32 = 22;
}

/// What a table holds, recorded when it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableProperties {
    /// Point entries (values and point tombstones; not range tombstones).
    pub num_entries: u64,
    /// Point tombstones (deletions and single deletions).
    pub num_deletions: u64,
    /// Range tombstones.
    pub num_range_deletions: u64,
    /// Sum of the internal-key lengths of point entries.
    pub raw_key_size: u64,
    /// Sum of the value lengths of point entries.
    pub raw_value_size: u64,
    /// Bytes of all data blocks, trailers included (data blocks start at
    /// offset 0, so this is also where they end).
    pub data_size: u64,
    /// Bytes of the index block, trailer included.
    pub index_size: u64,
    /// Bytes of the filter block, trailer included; 0 without a filter.
    pub filter_size: u64,
    /// Number of data blocks.
    pub num_data_blocks: u64,
    /// Smallest point internal key (empty when there are none). Range
    /// tombstones are not included: see [`super::TableReader::range_tombstones`].
    pub smallest_key: Vec<u8>,
    /// Largest point internal key (empty when there are none).
    pub largest_key: Vec<u8>,
    /// Smallest sequence number of any entry or range tombstone (0 when empty).
    pub smallest_seqno: SequenceNumber,
    /// Largest sequence number of any entry or range tombstone.
    pub largest_seqno: SequenceNumber,
    /// Unix seconds when the table was written.
    pub creation_time: u64,
    /// Compression the table was written with (blocks that did not shrink
    /// enough are stored uncompressed regardless).
    pub compression: CompressionType,
    /// Format version of the file.
    pub format_version: u32,
    /// The database the table was written for (`None`: written before ids,
    /// or outside a database).
    pub db_id: Option<DbId>,
    /// The file number the table was written as (`None`: as for `db_id`).
    pub orig_file_number: Option<u64>,
    /// XXH64 of the whole file ([`crate::xxh64`]). Not stored in the properties block
    /// (it covers that block): set by the builder when it finishes, `None`
    /// from the reader.
    pub file_checksum: Option<u64>,
    /// The filter (if any) holds whole user keys. True for tables written
    /// before this property existed.
    pub whole_key_filtering: bool,
    /// Name of the prefix extractor whose prefixes the filter holds
    /// ([`crate::options::PrefixExtractor::name`]); `None`: no prefixes.
    pub prefix_extractor: Option<String>,
    /// Handle of the compression dictionary block; [`BlockHandle::NONE`]
    /// when the table has none.
    pub compression_dict: BlockHandle,
    /// Size of the file in bytes. Not stored in the properties block: set by
    /// the builder when it finishes and by the reader from the file size.
    pub file_size: u64,
    /// The external-file version when the table was written by an
    /// `SstFileWriter` (tag `EXTERNAL_FILE_VERSION`); `None` for a table
    /// written by a database.
    pub external_file_version: Option<u32>,
}

impl Default for TableProperties {
    fn default() -> Self {
        TableProperties {
            num_entries: 0,
            num_deletions: 0,
            num_range_deletions: 0,
            raw_key_size: 0,
            raw_value_size: 0,
            data_size: 0,
            index_size: 0,
            filter_size: 0,
            num_data_blocks: 0,
            smallest_key: Vec::new(),
            largest_key: Vec::new(),
            smallest_seqno: 0,
            largest_seqno: 0,
            creation_time: 0,
            compression: CompressionType::default(),
            format_version: 0,
            // What a table without the property holds (module docs).
            whole_key_filtering: true,
            prefix_extractor: None,
            db_id: None,
            orig_file_number: None,
            file_checksum: None,
            compression_dict: BlockHandle::NONE,
            file_size: 0,
            external_file_version: None,
        }
    }
}

fn put_u64(dst: &mut Vec<u8>, tag: u32, v: u64) {
    put_varint32(dst, tag);
    put_varint64(dst, varint_len(v) as u64);
    put_varint64(dst, v);
}

fn put_bytes(dst: &mut Vec<u8>, tag: u32, v: &[u8]) {
    put_varint32(dst, tag);
    put_length_prefixed(dst, v);
}

impl TableProperties {
    /// The properties block (everything but `file_size` and `file_checksum`).
    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(128 + self.smallest_key.len() + self.largest_key.len());
        put_u64(&mut b, tag::NUM_ENTRIES, self.num_entries);
        put_u64(&mut b, tag::NUM_DELETIONS, self.num_deletions);
        put_u64(&mut b, tag::NUM_RANGE_DELETIONS, self.num_range_deletions);
        put_u64(&mut b, tag::RAW_KEY_SIZE, self.raw_key_size);
        put_u64(&mut b, tag::RAW_VALUE_SIZE, self.raw_value_size);
        put_u64(&mut b, tag::DATA_SIZE, self.data_size);
        put_u64(&mut b, tag::INDEX_SIZE, self.index_size);
        put_u64(&mut b, tag::FILTER_SIZE, self.filter_size);
        put_u64(&mut b, tag::NUM_DATA_BLOCKS, self.num_data_blocks);
        put_bytes(&mut b, tag::SMALLEST_KEY, &self.smallest_key);
        put_bytes(&mut b, tag::LARGEST_KEY, &self.largest_key);
        put_u64(&mut b, tag::SMALLEST_SEQNO, self.smallest_seqno);
        put_u64(&mut b, tag::LARGEST_SEQNO, self.largest_seqno);
        put_u64(&mut b, tag::CREATION_TIME, self.creation_time);
        put_u64(&mut b, tag::COMPRESSION, self.compression as u64);
        put_u64(&mut b, tag::FORMAT_VERSION, u64::from(self.format_version));
        put_u64(
            &mut b,
            tag::WHOLE_KEY_FILTERING,
            u64::from(self.whole_key_filtering),
        );
        if let Some(name) = &self.prefix_extractor {
            put_bytes(&mut b, tag::PREFIX_EXTRACTOR, name.as_bytes());
        }
        if let Some(id) = &self.db_id {
            put_bytes(&mut b, tag::DB_ID, &id.0);
        }
        if let Some(n) = self.orig_file_number {
            put_u64(&mut b, tag::ORIG_FILE_NUMBER, n);
        }
        if !self.compression_dict.is_none() {
            let mut h = Vec::new();
            self.compression_dict.encode_to(&mut h);
            put_bytes(&mut b, tag::COMPRESSION_DICT, &h);
        }
        if let Some(v) = self.external_file_version {
            put_u64(&mut b, tag::EXTERNAL_FILE_VERSION, u64::from(v));
        }
        b
    }

    /// Decodes a properties block read at `offset` of `file`.
    pub fn decode(src: &[u8], file: &str, offset: u64) -> Result<TableProperties> {
        let bad = |reason: String| Error::corruption(file, offset, reason);
        let mut p = TableProperties::default();
        let mut r = Reader::new(src);
        while !r.is_empty() {
            let at = r.pos();
            let (Some(t), Some(v)) = (r.varint32(), r.length_prefixed()) else {
                return Err(bad(format!("bad property at block byte {at}")));
            };
            let int = || -> Result<u64> {
                let mut vr = Reader::new(v);
                match vr.varint64() {
                    Some(x) if vr.is_empty() => Ok(x),
                    _ => Err(bad(format!("bad integer for property {t}"))),
                }
            };
            match t {
                tag::NUM_ENTRIES => p.num_entries = int()?,
                tag::NUM_DELETIONS => p.num_deletions = int()?,
                tag::NUM_RANGE_DELETIONS => p.num_range_deletions = int()?,
                tag::RAW_KEY_SIZE => p.raw_key_size = int()?,
                tag::RAW_VALUE_SIZE => p.raw_value_size = int()?,
                tag::DATA_SIZE => p.data_size = int()?,
                tag::INDEX_SIZE => p.index_size = int()?,
                tag::FILTER_SIZE => p.filter_size = int()?,
                tag::NUM_DATA_BLOCKS => p.num_data_blocks = int()?,
                tag::SMALLEST_KEY => p.smallest_key = v.to_vec(),
                tag::LARGEST_KEY => p.largest_key = v.to_vec(),
                tag::SMALLEST_SEQNO => p.smallest_seqno = int()?,
                tag::LARGEST_SEQNO => p.largest_seqno = int()?,
                tag::CREATION_TIME => p.creation_time = int()?,
                tag::COMPRESSION => {
                    // A codec byte this build does not know comes from a
                    // newer writer: not supported, rather than corrupt.
                    let c = int()?;
                    p.compression = CompressionType::from_u8(u8::try_from(c).unwrap_or(u8::MAX))
                        .map_err(|_| {
                            Error::NotSupported(format!(
                                "table {file}: written with unknown compression type {c}"
                            ))
                        })?;
                }
                tag::COMPRESSION_DICT => {
                    p.compression_dict = match BlockHandle::decode(v) {
                        Some(h) if !h.is_none() => h,
                        _ => return Err(bad("bad compression dictionary handle".into())),
                    };
                }
                tag::FORMAT_VERSION => {
                    p.format_version = u32::try_from(int()?)
                        .map_err(|_| bad("format version out of range".into()))?;
                }
                tag::DB_ID => {
                    p.db_id =
                        Some(DbId::from_bytes(v).ok_or_else(|| {
                            bad(format!("database id of {} bytes, not 16", v.len()))
                        })?);
                }
                tag::ORIG_FILE_NUMBER => p.orig_file_number = Some(int()?),
                tag::EXTERNAL_FILE_VERSION => {
                    p.external_file_version = Some(
                        u32::try_from(int()?)
                            .map_err(|_| bad("external file version out of range".into()))?,
                    );
                }
                tag::WHOLE_KEY_FILTERING => {
                    p.whole_key_filtering = match int()? {
                        0 => false,
                        1 => true,
                        other => {
                            return Err(bad(format!("whole_key_filtering property {other}")));
                        }
                    };
                }
                tag::PREFIX_EXTRACTOR => {
                    p.prefix_extractor = Some(
                        std::str::from_utf8(v)
                            .map_err(|_| bad("prefix extractor name is not UTF-8".into()))?
                            .to_string(),
                    );
                }
                _ => {} // a property from a newer writer
            }
        }
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_golden_prefix() {
        let p = TableProperties {
            num_entries: 300,
            num_deletions: 2,
            num_range_deletions: 1,
            raw_key_size: 4000,
            raw_value_size: 9000,
            data_size: 5000,
            index_size: 60,
            filter_size: 0,
            num_data_blocks: 2,
            smallest_key: b"a\x01\0\0\0\0\0\0\0".to_vec(),
            largest_key: b"z\x01\0\0\0\0\0\0\0".to_vec(),
            smallest_seqno: 1,
            largest_seqno: 1 << 40,
            creation_time: 1_700_000_000,
            compression: CompressionType::Lz4,
            format_version: 1,
            db_id: None,
            orig_file_number: None,
            file_checksum: None,
            whole_key_filtering: true,
            prefix_extractor: None,
            compression_dict: BlockHandle::NONE,
            file_size: 0,
            external_file_version: None,
        };
        let b = p.encode();
        assert_eq!(&b[..4], &[1, 2, 0xac, 0x02], "tag 1, 2 bytes, varint 300");
        assert_eq!(TableProperties::decode(&b, "f", 0).unwrap(), p);
        // Unknown tags are skipped.
        let mut b2 = b.clone();
        put_bytes(&mut b2, 999, b"future");
        assert_eq!(TableProperties::decode(&b2, "f", 0).unwrap(), p);
        // Damage is corruption, never a panic.
        for cut in 0..b.len() {
            let _ = TableProperties::decode(&b[..cut], "f", 0);
        }
        let mut snappy = Vec::new();
        put_u64(&mut snappy, tag::COMPRESSION, 1);
        assert_eq!(
            TableProperties::decode(&snappy, "f", 0)
                .unwrap()
                .compression,
            CompressionType::Snappy
        );
        // A codec byte from a newer writer is NotSupported, not corruption.
        let mut newer = Vec::new();
        put_u64(&mut newer, tag::COMPRESSION, 0x42);
        assert!(matches!(
            TableProperties::decode(&newer, "f", 0),
            Err(Error::NotSupported(_))
        ));
    }

    #[test]
    fn compression_dict_handle_golden_bytes() {
        let p = TableProperties {
            compression: CompressionType::Zstd,
            compression_dict: BlockHandle {
                offset: 300,
                size: 5,
            },
            ..TableProperties::default()
        };
        let b = p.encode();
        // tag 21, 3 bytes, varint 300, varint 5; last field of the block.
        assert_eq!(&b[b.len() - 5..], &[21, 3, 0xac, 0x02, 5]);
        assert_eq!(TableProperties::decode(&b, "f", 0).unwrap(), p);
        let mut bad = Vec::new();
        put_bytes(&mut bad, tag::COMPRESSION_DICT, &[0xac]);
        assert!(matches!(
            TableProperties::decode(&bad, "f", 0),
            Err(Error::Corruption { .. })
        ));
    }

    /// The binding properties (issue 30): golden bytes, a round trip, and
    /// a table without them (written before them) decodes with `None`.
    #[test]
    fn db_id_and_file_number_golden_bytes_and_round_trip() {
        let id = DbId(*b"0123456789abcdef");
        let bound = TableProperties {
            db_id: Some(id),
            orig_file_number: Some(300),
            ..TableProperties::default()
        };
        let b = bound.encode();
        let plain = TableProperties::default().encode();
        assert_eq!(
            &b[..plain.len()],
            &plain[..],
            "new tags go after the old ones"
        );
        #[rustfmt::skip]
        let tail: Vec<u8> = [
            &[17, 16][..], b"0123456789abcdef", // db_id
            &[18, 2, 0xac, 0x02],               // orig_file_number 300
        ]
        .concat();
        assert_eq!(&b[plain.len()..], &tail[..]);
        assert_eq!(TableProperties::decode(&b, "f", 0).unwrap(), bound);
        let old = TableProperties::decode(&plain, "f", 0).unwrap();
        assert_eq!((old.db_id, old.orig_file_number), (None, None));
        let mut short = plain.clone();
        put_bytes(&mut short, tag::DB_ID, b"0123");
        let e = TableProperties::decode(&short, "f", 0).unwrap_err();
        assert!(e.to_string().contains("database id of 4 bytes"), "{e}");
    }

    /// A table written by `SstFileWriter`: tag 22 comes last, and a table
    /// without it (written by a database) decodes with `None`.
    #[test]
    fn external_file_version_golden_bytes() {
        let p = TableProperties {
            external_file_version: Some(1),
            ..TableProperties::default()
        };
        let b = p.encode();
        assert_eq!(&b[b.len() - 3..], &[22, 1, 1]);
        assert_eq!(TableProperties::decode(&b, "f", 0).unwrap(), p);
        let plain = TableProperties::default().encode();
        assert_eq!(
            TableProperties::decode(&plain, "f", 0)
                .unwrap()
                .external_file_version,
            None
        );
    }

    #[test]
    fn filter_contents_golden_bytes_and_defaults() {
        let p = TableProperties {
            whole_key_filtering: false,
            prefix_extractor: Some("rocksdb.FixedPrefix.3".into()),
            ..TableProperties::default()
        };
        let b = p.encode();
        // The two entries come last: tag 19, 1 byte, 0; tag 20, 21 bytes, the name.
        let mut tail = vec![19, 1, 0, 20, 21];
        tail.extend_from_slice(b"rocksdb.FixedPrefix.3");
        assert_eq!(&b[b.len() - tail.len()..], &tail[..]);
        assert_eq!(TableProperties::decode(&b, "f", 0).unwrap(), p);
        // A table written before these properties: whole keys, no prefixes.
        let mut old = Vec::new();
        put_u64(&mut old, tag::NUM_ENTRIES, 3);
        let d = TableProperties::decode(&old, "f", 0).unwrap();
        assert!(d.whole_key_filtering);
        assert_eq!(d.prefix_extractor, None);
        // Damage is corruption.
        let mut bad = Vec::new();
        put_u64(&mut bad, tag::WHOLE_KEY_FILTERING, 2);
        assert!(TableProperties::decode(&bad, "f", 0).is_err());
        let mut bad = Vec::new();
        put_bytes(&mut bad, tag::PREFIX_EXTRACTOR, &[0xff, 0xfe]);
        assert!(TableProperties::decode(&bad, "f", 0).is_err());
    }
}
