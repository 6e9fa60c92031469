//! `WriteBatch`: an ordered list of updates applied atomically, with
//! consecutive sequence numbers starting at the batch's sequence.
//!
//! The encoding is the payload of one write-ahead-log record (part of the WAL
//! format):
//!
//! ```text
//! +------------------+---------------+------------------------------------+
//! | sequence: u64 LE | count: u32 LE | record * count                     |
//! +------------------+---------------+------------------------------------+
//! record := kind: u8 | (family: varint32)? | varint key_len | key | (value_len varint | value)?
//! ```
//!
//! `kind`'s low 7 bits are a [`ValueKind`] byte (the table in
//! [`crate::key`]); bit 7 ([`FAMILY_FLAG`] = `0x80`) says a `family`
//! varint follows: the id of the column family the record belongs to. A
//! record without it belongs to the default family (id 0), so batches and
//! logs written before column families read unchanged, and a batch of the
//! default family alone is encoded exactly as before (the writer never sets
//! the flag for family 0). One batch may hold records of several families;
//! it is one WAL record, so it is atomic across families at recovery.
//!
//! | kind | record | value slot |
//! |---|---|---|
//! | 0 `Deletion` | delete | none |
//! | 1 `Value` | put | the value |
//! | 2 `RangeDeletion` | delete `[key, end)` | the exclusive end key |
//! | 3 `Merge` | merge | the operand |
//! | 4 `SingleDeletion` | single delete | none |
//!
//! | `0x80 \| kind` | the same, in family `family` | as for `kind` |
//!
//! The i-th record (from 0) gets sequence number `sequence + i`. Kinds 3 and
//! 4 came with merge operators and single deletes; a batch without them is
//! encoded exactly as before. RocksDB's batch encoding differs (other tags,
//! its merge tag is Talus's range deletion); the Java binding marks its
//! serialized batches so that the two cannot be confused.

use crate::coding::{Reader, put_length_prefixed, put_varint32, put_varint64};
use crate::error::{Error, Result};
use crate::key::{SequenceNumber, ValueKind};

/// Size of the fixed header (sequence + count).
pub const HEADER_LEN: usize = 12;

/// Bit of a record's kind byte saying a family id follows (part of the
/// format; see the module docs).
pub const FAMILY_FLAG: u8 = 0x80;

/// Id of the default column family.
pub const DEFAULT_FAMILY: u32 = 0;

/// Largest encoded batch accepted (one WAL record payload must fit `u32`).
pub const MAX_BATCH_BYTES: usize = u32::MAX as usize - 64;

/// An atomic group of updates. See the module docs for the encoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteBatch {
    rep: Vec<u8>,
    /// Some record is a merge (checked against the database's merge
    /// operator at write time without walking the records).
    has_merge: bool,
    /// Some record names a family other than the default one (the write
    /// path then routes records by family instead of taking them all to
    /// the default family's memtable).
    has_families: bool,
}

impl Default for WriteBatch {
    fn default() -> Self {
        Self::new()
    }
}

/// One decoded record of a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchOp<'a> {
    /// Set `key` to `value`.
    Put(&'a [u8], &'a [u8]),
    /// Delete `key`.
    Delete(&'a [u8]),
    /// Delete every key in `[begin, end)`.
    DeleteRange(&'a [u8], &'a [u8]),
    /// Merge `operand` into `key`'s value.
    Merge(&'a [u8], &'a [u8]),
    /// Delete `key`'s one put ([`ValueKind::SingleDeletion`]).
    SingleDelete(&'a [u8]),
}

impl WriteBatch {
    /// An empty batch.
    pub fn new() -> Self {
        WriteBatch {
            rep: vec![0; HEADER_LEN],
            has_merge: false,
            has_families: false,
        }
    }

    /// An empty batch with room for `bytes` of records.
    pub fn with_capacity(bytes: usize) -> Self {
        let mut rep = Vec::with_capacity(HEADER_LEN + bytes);
        rep.resize(HEADER_LEN, 0);
        WriteBatch {
            rep,
            has_merge: false,
            has_families: false,
        }
    }

    /// [`WriteBatch::with_capacity`], or `None` when the memory cannot be
    /// allocated (where a plain allocation failure aborts the process).
    pub fn try_with_capacity(bytes: usize) -> Option<Self> {
        let mut rep = Vec::new();
        rep.try_reserve_exact(HEADER_LEN.checked_add(bytes)?).ok()?;
        rep.resize(HEADER_LEN, 0);
        Some(WriteBatch {
            rep,
            has_merge: false,
            has_families: false,
        })
    }

    /// Decodes a batch from WAL payload bytes, checking every record.
    /// `file`/`offset` name where the bytes came from for error messages.
    pub fn from_bytes(data: &[u8], file: &str, offset: u64) -> Result<WriteBatch> {
        Self::from_vec(data.to_vec(), file, offset)
    }

    /// [`WriteBatch::from_bytes`] of bytes the caller owns, without copying
    /// them.
    pub fn from_vec(data: Vec<u8>, file: &str, offset: u64) -> Result<WriteBatch> {
        if data.len() < HEADER_LEN {
            return Err(Error::corruption(
                file,
                offset,
                "write batch shorter than its header",
            ));
        }
        let mut b = WriteBatch {
            rep: data,
            has_merge: false,
            has_families: false,
        };
        let mut n = 0u32;
        let (mut has_merge, mut has_families) = (false, false);
        for op in b.iter() {
            let (cf, op) = op.map_err(|reason| Error::corruption(file, offset, reason))?;
            has_merge |= matches!(op, BatchOp::Merge(..));
            has_families |= cf != DEFAULT_FAMILY;
            n += 1;
        }
        b.has_merge = has_merge;
        b.has_families = has_families;
        if n != b.count() {
            return Err(Error::corruption(
                file,
                offset,
                format!("write batch says {} records but holds {n}", b.count()),
            ));
        }
        Ok(b)
    }

    fn set_count(&mut self, n: u32) {
        self.rep[8..12].copy_from_slice(&n.to_le_bytes());
    }

    fn bump(&mut self) {
        let n = self.count() + 1;
        self.set_count(n);
    }

    /// The kind byte of a record of `kind` in family `cf`, and its family id.
    fn push_kind(&mut self, kind: ValueKind, cf: u32) {
        if cf == DEFAULT_FAMILY {
            self.rep.push(kind as u8);
        } else {
            self.rep.push(FAMILY_FLAG | kind as u8);
            put_varint32(&mut self.rep, cf);
            self.has_families = true;
        }
    }

    /// Adds a put.
    pub fn put(&mut self, key: &[u8], value: &[u8]) {
        self.put_cf(DEFAULT_FAMILY, key, value);
    }

    /// Adds a put in column family `cf`.
    pub fn put_cf(&mut self, cf: u32, key: &[u8], value: &[u8]) {
        self.push_kind(ValueKind::Value, cf);
        put_length_prefixed(&mut self.rep, key);
        put_length_prefixed(&mut self.rep, value);
        self.bump();
    }

    /// Adds a put of a `key_len`-byte key and a `value_len`-byte value and
    /// returns the two slots for the caller to fill (e.g. straight from a
    /// Java array, without an intermediate copy). Slots start zeroed.
    pub fn put_slots(&mut self, key_len: usize, value_len: usize) -> (&mut [u8], &mut [u8]) {
        self.slots(ValueKind::Value, DEFAULT_FAMILY, key_len, value_len)
    }

    /// [`WriteBatch::put_slots`] in column family `cf`.
    pub fn put_slots_cf(
        &mut self,
        cf: u32,
        key_len: usize,
        value_len: usize,
    ) -> (&mut [u8], &mut [u8]) {
        self.slots(ValueKind::Value, cf, key_len, value_len)
    }

    /// [`WriteBatch::put_slots`] for a merge of a `value_len`-byte operand.
    pub fn merge_slots(&mut self, key_len: usize, value_len: usize) -> (&mut [u8], &mut [u8]) {
        self.merge_slots_cf(DEFAULT_FAMILY, key_len, value_len)
    }

    /// [`WriteBatch::merge_slots`] in column family `cf`.
    pub fn merge_slots_cf(
        &mut self,
        cf: u32,
        key_len: usize,
        value_len: usize,
    ) -> (&mut [u8], &mut [u8]) {
        self.has_merge = true;
        self.slots(ValueKind::Merge, cf, key_len, value_len)
    }

    fn slots(
        &mut self,
        kind: ValueKind,
        cf: u32,
        key_len: usize,
        value_len: usize,
    ) -> (&mut [u8], &mut [u8]) {
        self.push_kind(kind, cf);
        put_varint64(&mut self.rep, key_len as u64);
        let k = self.rep.len();
        self.rep.resize(k + key_len, 0);
        put_varint64(&mut self.rep, value_len as u64);
        let v = self.rep.len();
        self.rep.resize(v + value_len, 0);
        self.bump();
        let (head, value) = self.rep.split_at_mut(v);
        let key = &mut head[k..k + key_len];
        (key, value)
    }

    /// Adds a point delete.
    pub fn delete(&mut self, key: &[u8]) {
        self.delete_cf(DEFAULT_FAMILY, key);
    }

    /// Adds a point delete in column family `cf`.
    pub fn delete_cf(&mut self, cf: u32, key: &[u8]) {
        self.push_kind(ValueKind::Deletion, cf);
        put_length_prefixed(&mut self.rep, key);
        self.bump();
    }

    /// Adds a merge of `operand` into `key` (resolved by the database's
    /// merge operator; a database without one refuses the batch).
    pub fn merge(&mut self, key: &[u8], operand: &[u8]) {
        self.merge_cf(DEFAULT_FAMILY, key, operand);
    }

    /// Adds a merge in column family `cf` (resolved by that family's merge
    /// operator).
    pub fn merge_cf(&mut self, cf: u32, key: &[u8], operand: &[u8]) {
        self.push_kind(ValueKind::Merge, cf);
        put_length_prefixed(&mut self.rep, key);
        put_length_prefixed(&mut self.rep, operand);
        self.has_merge = true;
        self.bump();
    }

    /// Adds a single delete of `key`: it deletes the key's most recent put,
    /// which must be the key's only put since it was last deleted, with no
    /// merge on it (RocksDB's contract). Talus reads it as a delete, so
    /// breaking the contract never brings back an older value; see
    /// [`ValueKind::SingleDeletion`].
    pub fn single_delete(&mut self, key: &[u8]) {
        self.single_delete_cf(DEFAULT_FAMILY, key);
    }

    /// Adds a single delete in column family `cf`.
    pub fn single_delete_cf(&mut self, cf: u32, key: &[u8]) {
        self.push_kind(ValueKind::SingleDeletion, cf);
        put_length_prefixed(&mut self.rep, key);
        self.bump();
    }

    /// True when some record is a merge.
    pub fn has_merge(&self) -> bool {
        self.has_merge
    }

    /// True when some record names a family other than the default one.
    pub fn has_families(&self) -> bool {
        self.has_families
    }

    /// Adds a range delete of `[begin, end)`.
    pub fn delete_range(&mut self, begin: &[u8], end: &[u8]) {
        self.delete_range_cf(DEFAULT_FAMILY, begin, end);
    }

    /// Adds a range delete of `[begin, end)` in column family `cf`.
    pub fn delete_range_cf(&mut self, cf: u32, begin: &[u8], end: &[u8]) {
        self.push_kind(ValueKind::RangeDeletion, cf);
        put_length_prefixed(&mut self.rep, begin);
        put_length_prefixed(&mut self.rep, end);
        self.bump();
    }

    /// Appends all records of `other`.
    pub fn append(&mut self, other: &WriteBatch) {
        self.rep.extend_from_slice(&other.rep[HEADER_LEN..]);
        self.has_merge |= other.has_merge;
        self.has_families |= other.has_families;
        let n = self.count() + other.count();
        self.set_count(n);
    }

    /// Removes every record.
    pub fn clear(&mut self) {
        self.rep.truncate(HEADER_LEN);
        self.rep.fill(0);
        self.has_merge = false;
        self.has_families = false;
    }

    /// Number of records.
    pub fn count(&self) -> u32 {
        u32::from_le_bytes([self.rep[8], self.rep[9], self.rep[10], self.rep[11]])
    }

    /// True when the batch has no records.
    pub fn is_empty(&self) -> bool {
        self.count() == 0
    }

    /// Sequence number of the first record.
    pub fn sequence(&self) -> SequenceNumber {
        let mut b = [0u8; 8];
        b.copy_from_slice(&self.rep[..8]);
        u64::from_le_bytes(b)
    }

    /// Sets the sequence number of the first record.
    pub fn set_sequence(&mut self, seq: SequenceNumber) {
        self.rep[..8].copy_from_slice(&seq.to_le_bytes());
    }

    /// The encoded bytes (the WAL payload).
    pub fn data(&self) -> &[u8] {
        &self.rep
    }

    /// Encoded size in bytes.
    pub fn size_in_bytes(&self) -> usize {
        self.rep.len()
    }

    /// Iterates the records as (family id, record). Each item is an error
    /// text when the bytes are malformed.
    pub fn iter(&self) -> BatchIter<'_> {
        BatchIter {
            r: Reader::new(&self.rep[HEADER_LEN..]),
        }
    }
}

/// Iterator over the records of a [`WriteBatch`].
#[derive(Debug)]
pub struct BatchIter<'a> {
    r: Reader<'a>,
}

impl<'a> Iterator for BatchIter<'a> {
    type Item = std::result::Result<(u32, BatchOp<'a>), String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.r.is_empty() {
            return None;
        }
        let at = self.r.pos();
        let kind = self.r.u8()?;
        let op = (|| -> Option<(u32, BatchOp<'a>)> {
            let cf = if kind & FAMILY_FLAG != 0 {
                self.r.varint32()?
            } else {
                DEFAULT_FAMILY
            };
            let key = self.r.length_prefixed()?;
            let op = match ValueKind::from_u8(kind & !FAMILY_FLAG)? {
                ValueKind::Value => Some(BatchOp::Put(key, self.r.length_prefixed()?)),
                ValueKind::Deletion => Some(BatchOp::Delete(key)),
                ValueKind::RangeDeletion => {
                    Some(BatchOp::DeleteRange(key, self.r.length_prefixed()?))
                }
                ValueKind::Merge => Some(BatchOp::Merge(key, self.r.length_prefixed()?)),
                ValueKind::SingleDeletion => Some(BatchOp::SingleDelete(key)),
            }?;
            Some((cf, op))
        })();
        match op {
            Some(op) => Some(Ok(op)),
            None => {
                // Stop after the first malformed record.
                self.r = Reader::new(&[]);
                Some(Err(format!(
                    "malformed write batch record of kind {kind} at byte {}",
                    at + HEADER_LEN
                )))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_bytes() {
        let mut b = WriteBatch::new();
        b.set_sequence(7);
        b.put(b"k", b"vv");
        b.delete(b"d");
        assert_eq!(
            b.data(),
            [
                7, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 1, b'k', 2, b'v', b'v', 0, 1, b'd'
            ]
        );
    }

    #[test]
    fn golden_bytes_of_merge_and_single_delete() {
        let mut b = WriteBatch::new();
        b.set_sequence(0x0102);
        b.merge(b"k", b"+1");
        b.single_delete(b"s");
        assert_eq!(
            b.data(),
            [
                2, 1, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 3, 1, b'k', 2, b'+', b'1', 4, 1, b's'
            ]
        );
        let d = WriteBatch::from_bytes(b.data(), "x", 0).unwrap();
        assert!(d.has_merge());
        let ops: Vec<_> = d.iter().map(|o| o.unwrap().1).collect();
        assert_eq!(
            ops,
            vec![BatchOp::Merge(b"k", b"+1"), BatchOp::SingleDelete(b"s")]
        );
        let mut slots = WriteBatch::new();
        slots.set_sequence(0x0102);
        let (k, v) = slots.merge_slots(1, 2);
        k.copy_from_slice(b"k");
        v.copy_from_slice(b"+1");
        slots.single_delete(b"s");
        assert_eq!(slots, b);
    }

    #[test]
    fn golden_bytes_of_family_records() {
        let mut b = WriteBatch::new();
        b.set_sequence(9);
        b.put_cf(0, b"a", b"1");
        b.put_cf(3, b"k", b"v");
        b.delete_cf(200, b"d");
        b.merge_cf(1, b"m", b"x");
        b.single_delete_cf(2, b"s");
        b.delete_range_cf(1, b"b", b"c");
        assert_eq!(
            b.data(),
            [
                9, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, // header
                1, 1, b'a', 1, b'1', // family 0: the record of old
                0x81, 3, 1, b'k', 1, b'v', // put in family 3
                0x80, 0xc8, 0x01, 1, b'd', // delete in family 200 (varint)
                0x83, 1, 1, b'm', 1, b'x', // merge in family 1
                0x84, 2, 1, b's', // single delete in family 2
                0x82, 1, 1, b'b', 1, b'c', // range delete in family 1
            ]
        );
        let d = WriteBatch::from_bytes(b.data(), "x", 0).unwrap();
        assert!(d.has_families() && d.has_merge());
        let ops: Vec<_> = d.iter().map(|o| o.unwrap()).collect();
        assert_eq!(
            ops,
            vec![
                (0, BatchOp::Put(b"a", b"1")),
                (3, BatchOp::Put(b"k", b"v")),
                (200, BatchOp::Delete(b"d")),
                (1, BatchOp::Merge(b"m", b"x")),
                (2, BatchOp::SingleDelete(b"s")),
                (1, BatchOp::DeleteRange(b"b", b"c")),
            ]
        );
        // A batch of the default family alone is the encoding of old.
        let mut old = WriteBatch::new();
        old.put_cf(0, b"k", b"vv");
        assert!(!old.has_families());
        assert_eq!(old.data()[HEADER_LEN], 1);
        let (k, v) = old.put_slots_cf(5, 1, 1);
        k[0] = b'x';
        v[0] = b'y';
        assert!(old.has_families());
        assert_eq!(&old.data()[HEADER_LEN + 6..], [0x81, 5, 1, b'x', 1, b'y']);
        // A truncated family id is corruption, not a panic.
        assert!(WriteBatch::from_bytes(&b.data()[..HEADER_LEN + 7], "f", 1).is_err());
    }

    #[test]
    fn has_merge_follows_the_records() {
        let mut b = WriteBatch::new();
        b.put(b"a", b"1");
        b.single_delete(b"a");
        assert!(!b.has_merge());
        assert!(
            !WriteBatch::from_bytes(b.data(), "x", 0)
                .unwrap()
                .has_merge()
        );
        let mut m = WriteBatch::new();
        m.merge(b"a", b"2");
        b.append(&m);
        assert!(b.has_merge());
        assert!(
            WriteBatch::from_bytes(b.data(), "x", 0)
                .unwrap()
                .has_merge()
        );
        b.clear();
        assert!(!b.has_merge());
    }

    #[test]
    fn an_allocation_that_cannot_be_made_is_none_not_an_abort() {
        assert!(WriteBatch::try_with_capacity(usize::MAX).is_none());
        assert!(WriteBatch::try_with_capacity(isize::MAX as usize - 64).is_none());
        let mut b = WriteBatch::try_with_capacity(100).unwrap();
        b.put(b"k", b"v");
        let again = WriteBatch::from_vec(b.data().to_vec(), "t", 0).unwrap();
        assert_eq!(again.count(), 1);
    }

    #[test]
    fn put_slots_encode_like_put() {
        let mut a = WriteBatch::new();
        a.put(b"key", b"value!");
        let mut b = WriteBatch::new();
        let (k, v) = b.put_slots(3, 6);
        k.copy_from_slice(b"key");
        v.copy_from_slice(b"value!");
        assert_eq!(a, b);
    }

    #[test]
    fn round_trip_and_count() {
        let mut b = WriteBatch::new();
        b.put(b"a", b"1");
        b.delete_range(b"b", b"c");
        b.delete(b"z");
        let d = WriteBatch::from_bytes(b.data(), "x", 0).unwrap();
        let ops: Vec<_> = d.iter().map(|o| o.unwrap().1).collect();
        assert_eq!(
            ops,
            vec![
                BatchOp::Put(b"a", b"1"),
                BatchOp::DeleteRange(b"b", b"c"),
                BatchOp::Delete(b"z")
            ]
        );
        let mut c = WriteBatch::new();
        c.append(&b);
        c.append(&b);
        assert_eq!(c.count(), 6);
        c.clear();
        assert!(c.is_empty());
        assert_eq!(c.data().len(), HEADER_LEN);
    }

    #[test]
    fn malformed_batches_are_corruption() {
        let mut b = WriteBatch::new();
        b.put(b"a", b"1");
        let mut bytes = b.data().to_vec();
        bytes.truncate(bytes.len() - 1);
        assert!(
            WriteBatch::from_bytes(&bytes, "f", 9)
                .unwrap_err()
                .is_corruption()
        );
        let mut bytes = b.data().to_vec();
        bytes[HEADER_LEN] = 5; // unknown kind
        assert!(WriteBatch::from_bytes(&bytes, "f", 9).is_err());
        let mut bytes = b.data().to_vec();
        bytes[8] = 2; // count says 2
        assert!(WriteBatch::from_bytes(&bytes, "f", 9).is_err());
        assert!(WriteBatch::from_bytes(&[1, 2], "f", 9).is_err());
    }
}
